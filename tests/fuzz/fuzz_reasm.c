// SPDX-License-Identifier: GPL-2.0
/*
 * Reassembly driven by the input, checked against a byte-by-byte model.
 * Each 4-byte step is a segment of a known stream (offset, length, maybe
 * one flipped byte) or a SYN. The model keeps which stream bytes are known
 * and their values; after every step the reassembler must agree with it:
 * a conflict exactly when a segment contradicts a known byte, the prefix
 * and the held ranges exactly the known bytes, a drop only when the range
 * table is full.
 */

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "reasm.h"

#define STREAM 1024
#define CAP_MAX (1 + 255 * 4)
/* Each step compares the whole buffer; more steps add time, not paths. */
#define STEPS_MAX 128

struct afw_fuzz_model {
	uint8_t val[CAP_MAX];
	bool known[CAP_MAX];
};

/*
 * The bytes @r holds, prefix and ranges, must be exactly the model's. This
 * is the oracle, not the code under test: it is left out of the coverage
 * feedback, whose tracing of its loop over every byte took most of a run.
 */
__attribute__((no_sanitize("coverage")))
static void afw_fuzz_compare(const struct afw_reasm *r, const struct afw_fuzz_model *m,
			     uint32_t cap)
{
	uint32_t i, prev = r->have;
	int k = 0;

	if (r->have > cap || r->nranges > AFW_REASM_MAX_RANGES)
		abort();
	for (k = 0; k < r->nranges; k++) {
		if (r->ranges[k].start <= prev || r->ranges[k].end <= r->ranges[k].start ||
		    r->ranges[k].end > cap)
			abort();
		prev = r->ranges[k].end;
	}
	for (i = 0, k = 0; i < cap; i++) {
		bool held = i < r->have;

		while (k < r->nranges && r->ranges[k].end <= i)
			k++;
		held |= k < r->nranges && r->ranges[k].start <= i;
		if (held != m->known[i] || (held && r->buf[i] != m->val[i]))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct afw_fuzz_model m;
	uint8_t stream[STREAM], seg[STREAM], *buf;
	uint32_t isn, cap, off, len;
	int64_t start, s, e, i;
	struct afw_reasm r;
	bool contradicts;
	unsigned int st;
	uint8_t nranges;
	int n;

	if (size < 3)
		return 0;
	memset(&m, 0, sizeof(m));
	for (i = 0; i < STREAM; i++)
		stream[i] = (uint8_t)(i * 7 + (i >> 8));
	/* ISNs near the wrap are the interesting ones. */
	isn = 0xffffff00u + data[0] * 3u;
	cap = 1 + data[1] * 4u;
	buf = malloc(cap);
	afw_reasm_init(&r, buf, cap);
	if (data[2] & 1)
		afw_reasm_add(&r, isn, true, NULL, 0);
	for (data += 3, size -= 3, n = 0; size >= 4 && n < STEPS_MAX; data += 4, size -= 4, n++) {
		if ((data[1] & 0xe0) == 0xe0) {
			/* A SYN: the ISN again, or another one */
			st = afw_reasm_add(&r, isn + (data[3] & 1), true, NULL, 0);
			if (!!(st & AFW_REASM_CONFLICT) != (r.syn_seen && r.isn != isn + (data[3] & 1)))
				abort();
			afw_fuzz_compare(&r, &m, cap);
			continue;
		}
		off = data[0] | (data[1] & 3) << 8;
		len = data[2] % 64;
		if (off + len > STREAM)
			len = STREAM - off;
		memcpy(seg, stream + off, len);
		if ((data[1] & 0x1c) == 0x1c && len)
			seg[data[3] % len] ^= 0x80;
		nranges = r.nranges;
		/*
		 * The model is indexed like the buffer, from the reassembler's start:
		 * ISN + 1, or the first data segment when no SYN came before it.
		 */
		start = r.started ? (int64_t)(uint32_t)(r.base - (isn + 1)) : off;
		s = (int64_t)off - start;
		e = s + len;
		if (s < 0)
			s = 0;
		if (e > cap)
			e = cap;
		contradicts = false;
		for (i = s; i < e; i++)
			contradicts |= m.known[i] && m.val[i] != seg[i + start - off];
		st = afw_reasm_add(&r, isn + 1 + off, false, seg, len);
		if (!!(st & AFW_REASM_CONFLICT) != contradicts)
			abort();
		if ((st & AFW_REASM_DROPPED) && nranges != AFW_REASM_MAX_RANGES)
			abort();
		if (!(st & (AFW_REASM_CONFLICT | AFW_REASM_DROPPED))) {
			for (i = s; i < e; i++) {
				m.known[i] = true;
				m.val[i] = seg[i + start - off];
			}
		}
		if (((st & AFW_REASM_FULL) != 0) != (r.have == cap))
			abort();
		afw_fuzz_compare(&r, &m, cap);
	}
	free(buf);
	return 0;
}
