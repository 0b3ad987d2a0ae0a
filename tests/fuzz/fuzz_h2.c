// SPDX-License-Identifier: GPL-2.0
/*
 * Any bytes after the HTTP/2 preface, and the same bytes as a header
 * block behind a SETTINGS frame: frames and HPACK (libnghttp2's inflater)
 * must give no crash, no read outside the input, a NUL-terminated host of
 * the length said, and a request that parses is MORE one byte shorter.
 */

#include <stdlib.h>
#include <string.h>

#include "h2.h"

static uint8_t scratch[16384];
static uint8_t stream[AFW_H2_PREFACE_LEN + 9 + 9 + 70000];

static void afw_fuzz_check(const uint8_t *s, size_t len)
{
	struct afw_h2_request r;
	enum afw_h2_status st;

	st = afw_h2_parse(s, len, scratch, sizeof(scratch), &r);
	if ((st == AFW_H2_BAD || st == AFW_H2_NOT_H2) && !r.reason)
		abort();
	if (st != AFW_H2_OK)
		return;
	if (!r.consumed || r.consumed > len || strlen(r.host) != r.host_len ||
	    r.has_host != (r.host_len > 0) || !r.stream)
		abort();
	if (afw_h2_parse(s, r.consumed - 1, scratch, sizeof(scratch), &r) != AFW_H2_MORE)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	size_t n = AFW_H2_PREFACE_LEN, b;

	if (len > 65535)
		return 0;
	/* The bytes as frames after the preface. */
	memcpy(stream, AFW_H2_PREFACE, n);
	memcpy(stream + n, data, len);
	afw_fuzz_check(stream, n + len);
	/* The bytes as one header block, in HEADERS and CONTINUATION frames. */
	memcpy(stream + n, "\x00\x00\x00\x04\x00\x00\x00\x00\x00", 9);
	n += 9;
	b = len > 16384 ? 16384 : len;
	stream[n] = (uint8_t)(b >> 16);
	stream[n + 1] = (uint8_t)(b >> 8);
	stream[n + 2] = (uint8_t)b;
	memcpy(stream + n + 3, "\x01\x04\x00\x00\x00\x01", 6);
	stream[n + 4] = len > b ? 0 : 4;
	memcpy(stream + n + 9, data, b);
	n += 9 + b;
	if (len > b) {
		stream[n] = (uint8_t)((len - b) >> 16);
		stream[n + 1] = (uint8_t)((len - b) >> 8);
		stream[n + 2] = (uint8_t)(len - b);
		memcpy(stream + n + 3, "\x09\x04\x00\x00\x00\x01", 6);
		memcpy(stream + n + 9, data + b, len - b);
		n += 9 + len - b;
	}
	afw_fuzz_check(stream, n);
	/* Every cut of the framed stream, cheaply: a few of them. */
	afw_fuzz_check(stream, n / 2);
	afw_fuzz_check(stream, n / 3);
	return 0;
}
