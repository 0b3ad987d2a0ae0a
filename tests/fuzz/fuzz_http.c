// SPDX-License-Identifier: GPL-2.0
/*
 * Any bytes as the start of an HTTP/1.x request: no crash, no read outside
 * the input, results inside it, and a complete head is MORE one byte shorter.
 * Then the bytes after that head, through the follower of later requests:
 * fed at once or a byte at a time, it must find the same heads and stop at
 * the same byte; and through the shadow reader (a server that reads no
 * body), with the same rule.
 */

#include <stdlib.h>
#include <string.h>

#include "http.h"

static void afw_fuzz_inside(const struct afw_span *s, const uint8_t *data, size_t len)
{
	if (s->len && !(s->p >= data && s->p + s->len <= data + len))
		abort();
}

/* Runs the follower over @data in pieces of @step; returns heads found, or -1 - at. */
static long afw_fuzz_follow(const struct afw_http_request *first, const uint8_t *data,
			    size_t len, size_t step, uint64_t *hosts)
{
	static uint8_t buf[AFW_HTTP_MAX_HEADER];
	struct afw_http_follow fl;
	struct afw_http_request r;
	enum afw_http_status st;
	size_t off = 0, n, used, i;
	long heads = 0;

	*hosts = 0;
	afw_http_follow_init(&fl, buf, first);
	while (off < len) {
		n = len - off < step ? len - off : step;
		st = afw_http_follow_feed(&fl, data + off, n, &used, &r);
		if (used > n)
			abort();
		off += used;
		if (st == AFW_HTTP_MORE) {
			if (used != n)
				abort();
			continue;
		}
		if (st != AFW_HTTP_OK)
			return -1 - (long)off;
		heads++;
		for (i = 0; i < r.host.len; i++)
			*hosts = *hosts * 31 + r.host.p[i];
	}
	return heads;
}

/* The shadow over @data in pieces of @step: heads found, or -1 - where it ended. */
static long afw_fuzz_shadow(const uint8_t *data, size_t len, size_t step, uint64_t *hosts)
{
	static uint8_t buf[AFW_HTTP_MAX_HEADER];
	struct afw_http_shadow sh = { .buf = buf, .on = true };
	struct afw_http_request r;
	enum afw_http_status st;
	size_t off = 0, n, used, i;
	long heads = 0;

	*hosts = 0;
	while (off < len && sh.on) {
		n = len - off < step ? len - off : step;
		st = afw_http_shadow_feed(&sh, data + off, n, &used, &r);
		if (used > n || (st == AFW_HTTP_MORE && used != n))
			abort();
		off += used;
		if (st == AFW_HTTP_MORE)
			continue;
		if (st != AFW_HTTP_OK)
			return -1 - (long)off;
		if (r.header_len > AFW_HTTP_MAX_HEADER)
			abort();
		heads++;
		for (i = 0; i < r.host.len; i++)
			*hosts = *hosts * 31 + r.host.p[i];
	}
	return heads;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	uint64_t h1, h2;
	long a, b;

	struct afw_http_request r;
	enum afw_http_status st;
	size_t head;

	st = afw_http_parse(data, len, &r);
	if ((st == AFW_HTTP_BAD || st == AFW_HTTP_NOT_HTTP) && !r.reason)
		abort();
	if (st != AFW_HTTP_OK)
		return 0;
	if (!r.header_len || r.header_len > len || r.header_len > AFW_HTTP_MAX_HEADER ||
	    !r.method.len || !r.target.len)
		abort();
	afw_fuzz_inside(&r.method, data, len);
	afw_fuzz_inside(&r.target, data, len);
	afw_fuzz_inside(&r.host, data, len);
	if (r.has_host && !r.host.len)
		abort();
	head = r.header_len;
	a = afw_fuzz_follow(&r, data + head, len - head, len, &h1);
	b = afw_fuzz_follow(&r, data + head, len - head, 1, &h2);
	/* A failure is found at the same byte or later when fed a byte at a time. */
	if ((a >= 0) != (b >= 0) || (a >= 0 && (a != b || h1 != h2)))
		abort();
	a = afw_fuzz_shadow(data + head, len - head, len, &h1);
	b = afw_fuzz_shadow(data + head, len - head, 1, &h2);
	if ((a >= 0) != (b >= 0) || (a >= 0 && (a != b || h1 != h2)))
		abort();
	if (afw_http_parse(data, head - 1, &r) != AFW_HTTP_MORE)
		abort();
	return 0;
}
