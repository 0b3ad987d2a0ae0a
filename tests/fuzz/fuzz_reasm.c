// SPDX-License-Identifier: GPL-2.0
/*
 * Reassembly driven by the input: each 4-byte step is a segment of a known
 * stream (offset, length, and whether to send SYN or flip a byte). Unless a
 * byte was flipped or a second ISN sent, what comes out must be a prefix of
 * the stream and no conflict may be reported; the held ranges must always
 * be sorted, apart, past the prefix and within the buffer.
 */

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "reasm.h"

#define STREAM 1024

static void afw_fuzz_check(const struct afw_reasm *r)
{
	uint32_t prev = r->have;
	int i;

	if (r->have > r->cap || r->nranges > AFW_REASM_MAX_RANGES)
		abort();
	for (i = 0; i < r->nranges; i++) {
		if (r->ranges[i].start <= prev || r->ranges[i].end <= r->ranges[i].start ||
		    r->ranges[i].end > r->cap)
			abort();
		prev = r->ranges[i].end;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t stream[STREAM], seg[STREAM], *buf;
	struct afw_reasm r;
	uint32_t isn, cap, off, len, i;
	bool lied = false;
	unsigned int st;

	if (size < 5)
		return 0;
	for (i = 0; i < STREAM; i++)
		stream[i] = (uint8_t)(i * 7 + (i >> 8));
	/* ISNs near the wrap are the interesting ones. */
	isn = 0xffffff00u + data[0] * 3u;
	cap = 1 + data[1] * 4u;
	buf = malloc(cap);
	afw_reasm_init(&r, buf, cap);
	if (data[2] & 1)
		afw_reasm_add(&r, isn, true, NULL, 0);
	for (data += 3, size -= 3; size >= 4; data += 4, size -= 4) {
		off = (data[0] | (data[1] & 3) << 8);
		len = data[2] % 64;
		if (off + len > STREAM)
			len = STREAM - off;
		memcpy(seg, stream + off, len);
		if ((data[1] & 0x1c) == 0x1c && len) {
			seg[data[3] % len] ^= 0x80;
			lied = true;
		}
		if ((data[1] & 0xe0) == 0xe0) {
			st = afw_reasm_add(&r, isn + (data[3] & 1), true, NULL, 0);
			lied |= (data[3] & 1) != 0;
		} else {
			st = afw_reasm_add(&r, isn + 1 + off, false, seg, len);
		}
		afw_fuzz_check(&r);
		if (!lied && (r.conflict || (st & AFW_REASM_CONFLICT)))
			abort();
		if (((st & AFW_REASM_FULL) != 0) != (r.have == cap))
			abort();
	}
	/* Without a lie the prefix is the stream, wherever the SYN-less start fell. */
	if (!lied && r.started && r.have) {
		off = r.base - (isn + 1);
		if (off > STREAM || memcmp(buf, stream + off, r.have))
			abort();
	}
	free(buf);
	return 0;
}
