// SPDX-License-Identifier: GPL-2.0
/*
 * Any bytes as the start of an HTTP/1.x request: no crash, no read outside
 * the input, results inside it, and a complete head is MORE one byte shorter.
 */

#include <stdlib.h>

#include "http.h"

static void afw_fuzz_inside(const struct afw_span *s, const uint8_t *data, size_t len)
{
	if (s->len && !(s->p >= data && s->p + s->len <= data + len))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
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
	if (afw_http_parse(data, head - 1, &r) != AFW_HTTP_MORE)
		abort();
	return 0;
}
