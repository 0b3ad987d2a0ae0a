// SPDX-License-Identifier: GPL-2.0
/*
 * TCP reassembly into a caller's buffer. A byte, once seen, never changes:
 * a later segment that disagrees with it is how an evader would show the
 * analyzer one stream and the server another, so it is refused and flagged
 * rather than silently resolved one way or the other.
 */

#include <string.h>

#include "reasm.h"

void afw_reasm_init(struct afw_reasm *r, uint8_t *buf, size_t cap)
{
	memset(r, 0, sizeof(*r));
	r->buf = buf;
	r->cap = cap > AFW_REASM_MAX_CAP ? AFW_REASM_MAX_CAP : (uint32_t)cap;
	r->size = r->cap;
}

void afw_reasm_grow(struct afw_reasm *r, uint8_t *buf, uint32_t size)
{
	r->buf = buf;
	r->size = size;
}

void afw_reasm_limit(struct afw_reasm *r, uint32_t cap)
{
	if (cap < r->cap && cap <= r->have) {
		r->cap = cap;
		r->have = cap;
		r->nranges = 0;
	}
}

/* Where a segment lands, clipped to [0, cap): false when nowhere. */
static bool afw_reasm_place(const struct afw_reasm *r, uint32_t seq, size_t len, uint32_t *s,
			    uint32_t *e, int64_t *skip)
{
	int64_t seg_off, off, end;

	/* Signed distance, so that a segment just before the start is not 4 GB ahead. */
	seg_off = (int32_t)(seq - r->base);
	off = seg_off;
	end = off + (int64_t)(len > AFW_REASM_MAX_CAP ? AFW_REASM_MAX_CAP : len);
	if (off < 0)
		off = 0;
	if (end > r->cap)
		end = r->cap;
	if (off >= end)
		return false;
	*s = (uint32_t)off;
	*e = (uint32_t)end;
	*skip = off - seg_off;
	return true;
}

uint32_t afw_reasm_need(const struct afw_reasm *r, uint32_t seq, bool syn, size_t len)
{
	uint32_t s, e;
	int64_t skip;

	if (!len)
		return 0;
	if (syn)
		seq++;
	if (!r->started)
		return len < r->cap ? (uint32_t)len : r->cap;
	return afw_reasm_place(r, seq, len, &s, &e, &skip) ? e : 0;
}

static unsigned int afw_reasm_full(const struct afw_reasm *r)
{
	return r->have == r->cap ? AFW_REASM_FULL : 0;
}

/* Do the bytes of [s, e) already known equal @seg (which starts at offset s)? */
static bool afw_reasm_agrees(const struct afw_reasm *r, uint32_t s, uint32_t e,
			     const uint8_t *seg)
{
	uint32_t a, b;
	int i;

	if (s < r->have) {
		b = e < r->have ? e : r->have;
		if (memcmp(r->buf + s, seg, b - s))
			return false;
	}
	for (i = 0; i < r->nranges; i++) {
		a = r->ranges[i].start > s ? r->ranges[i].start : s;
		b = r->ranges[i].end < e ? r->ranges[i].end : e;
		if (a < b && memcmp(r->buf + a, seg + (a - s), b - a))
			return false;
	}
	return true;
}

/*
 * Inserts [s, e) into the held ranges, merging with any it overlaps or
 * touches, then lets the prefix absorb whatever now joins it. Fails when a
 * new disjoint range would not fit.
 */
static int afw_reasm_insert(struct afw_reasm *r, uint32_t s, uint32_t e)
{
	int i = 0, j, n = r->nranges;

	if (s <= r->have) {
		if (e > r->have)
			r->have = e;
	} else {
		while (i < n && r->ranges[i].end < s)
			i++;
		j = i;
		while (j < n && r->ranges[j].start <= e)
			j++;
		if (i == j) {
			if (n == AFW_REASM_MAX_RANGES)
				return -1;
			memmove(&r->ranges[i + 1], &r->ranges[i], (n - i) * sizeof(r->ranges[0]));
			r->ranges[i].start = s;
			r->ranges[i].end = e;
			r->nranges++;
		} else {
			if (r->ranges[i].start < s)
				s = r->ranges[i].start;
			if (r->ranges[j - 1].end > e)
				e = r->ranges[j - 1].end;
			r->ranges[i].start = s;
			r->ranges[i].end = e;
			memmove(&r->ranges[i + 1], &r->ranges[j], (n - j) * sizeof(r->ranges[0]));
			r->nranges -= j - i - 1;
		}
	}
	for (i = 0; i < r->nranges && r->ranges[i].start <= r->have; i++)
		if (r->ranges[i].end > r->have)
			r->have = r->ranges[i].end;
	if (i) {
		memmove(&r->ranges[0], &r->ranges[i], (r->nranges - i) * sizeof(r->ranges[0]));
		r->nranges -= i;
	}
	return 0;
}

unsigned int afw_reasm_add(struct afw_reasm *r, uint32_t seq, bool syn, const uint8_t *data,
			   size_t len)
{
	uint32_t old_have = r->have, s, e;
	unsigned int ret = 0;
	int64_t skip;

	if (syn) {
		/* A SYN again with another ISN cannot belong to this stream. */
		if (r->syn_seen && seq != r->isn) {
			r->conflict = true;
			return AFW_REASM_CONFLICT | afw_reasm_full(r);
		}
		if (!r->started) {
			r->base = seq + 1;
			r->started = true;
		}
		r->syn_seen = true;
		r->isn = seq;
		seq++;
	}
	if (!len || !data)
		return afw_reasm_full(r);
	if (!r->started) {
		r->base = seq;
		r->started = true;
	}
	if (!afw_reasm_place(r, seq, len, &s, &e, &skip))
		return afw_reasm_full(r);
	data += skip;
	/* The known bytes all lie in the buffer, so this segment has new ones. */
	if (e > r->size)
		return AFW_REASM_NOROOM | afw_reasm_full(r);
	if (!afw_reasm_agrees(r, s, e, data)) {
		r->conflict = true;
		return AFW_REASM_CONFLICT | afw_reasm_full(r);
	}
	if (afw_reasm_insert(r, s, e))
		return AFW_REASM_DROPPED | afw_reasm_full(r);
	/* Known bytes are equal, so copying the whole span changes only the new ones. */
	memcpy(r->buf + s, data, e - s);
	if (r->have > old_have)
		ret |= AFW_REASM_ADVANCED;
	if (e > r->have)
		ret |= AFW_REASM_HELD;
	return ret | afw_reasm_full(r);
}
