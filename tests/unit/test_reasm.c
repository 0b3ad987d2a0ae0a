// SPDX-License-Identifier: GPL-2.0
/*
 * TCP reassembly: a stream cut into segments and fed in any order, with
 * duplicates, comes out as the original bytes; differing retransmits are
 * flagged; the sequence wrap and the byte cap behave.
 */

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "reasm.h"

#define STREAM_LEN 3000

struct seg {
	uint32_t off, len;
};

static uint8_t stream[STREAM_LEN];

/* A small deterministic generator, so that a failure can be replayed. */
static uint32_t rnd(uint32_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state;
}

static unsigned int feed(struct afw_reasm *r, uint32_t isn, const struct seg *s)
{
	return afw_reasm_add(r, isn + 1 + s->off, false, stream + s->off, s->len);
}

/* Cuts [0, len) into segments of 1..maxseg bytes. */
static int cut(struct seg *segs, uint32_t len, uint32_t maxseg, uint32_t *state)
{
	uint32_t off = 0;
	int n = 0;

	while (off < len) {
		uint32_t l = 1 + rnd(state) % maxseg;

		if (l > len - off)
			l = len - off;
		segs[n].off = off;
		segs[n].len = l;
		off += l;
		n++;
	}
	return n;
}

/*
 * Feeds the segments in a random order, each sometimes twice and sometimes
 * merged with its neighbour (an overlap with equal bytes); the result must
 * be the stream, without a conflict. Holes are bounded, so a segment that
 * could not be held is fed again later, as a retransmit would bring it.
 */
static bool permutation_ok(uint32_t seed, uint32_t isn, uint32_t len, uint32_t maxseg)
{
	static struct seg segs[STREAM_LEN], pending[2 * STREAM_LEN];
	uint8_t buf[STREAM_LEN];
	struct afw_reasm r;
	uint32_t state = seed;
	int n, i, npend;

	n = cut(segs, len, maxseg, &state);
	for (i = n - 1; i > 0; i--) {
		int j = rnd(&state) % (i + 1);
		struct seg t = segs[i];

		segs[i] = segs[j];
		segs[j] = t;
	}
	npend = 0;
	for (i = 0; i < n; i++) {
		pending[npend++] = segs[i];
		if (rnd(&state) % 4 == 0)
			pending[npend++] = segs[i];
		if (rnd(&state) % 4 == 0 && segs[i].off + segs[i].len + 5 <= len) {
			pending[npend] = segs[i];
			pending[npend++].len += 5;
		}
	}
	afw_reasm_init(&r, buf, sizeof(buf));
	afw_reasm_add(&r, isn, true, NULL, 0);
	while (npend) {
		int kept = 0;

		for (i = 0; i < npend; i++) {
			unsigned int st = feed(&r, isn, &pending[i]);

			if (st & AFW_REASM_CONFLICT)
				return false;
			if (st & AFW_REASM_DROPPED)
				pending[kept++] = pending[i];
		}
		if (kept == npend)
			return false;
		npend = kept;
	}
	return r.have == len && !memcmp(buf, stream, len) && !r.conflict && !r.nranges;
}

int main(void)
{
	uint8_t buf[64], big[STREAM_LEN];
	struct afw_reasm r;
	unsigned int st;
	uint32_t isn, i, state = 1;
	bool ok;
	int failed = 0;

	for (i = 0; i < STREAM_LEN; i++)
		stream[i] = (uint8_t)rnd(&state);

	/* In order, after a SYN: the stream starts at ISN + 1. */
	afw_reasm_init(&r, big, sizeof(big));
	st = afw_reasm_add(&r, 999, true, NULL, 0);
	CHECK(failed, "a bare SYN adds nothing", st == 0 && r.have == 0 && r.base == 1000);
	st = afw_reasm_add(&r, 1000, false, stream, 10);
	CHECK(failed, "the first segment after the SYN advances", st == AFW_REASM_ADVANCED &&
	      r.have == 10);
	st = afw_reasm_add(&r, 1010, false, stream + 10, 20);
	CHECK(failed, "the next segment advances", st == AFW_REASM_ADVANCED && r.have == 30 &&
	      !memcmp(big, stream, 30));
	st = afw_reasm_add(&r, 1000, false, stream, 30);
	CHECK(failed, "a retransmit of the delivered prefix is not news", st == 0 && r.have == 30);
	st = afw_reasm_add(&r, 1020, false, stream + 20, 20);
	CHECK(failed, "an overlap reaching past the prefix advances", st == AFW_REASM_ADVANCED &&
	      r.have == 40 && !memcmp(big, stream, 40));

	/* Out of order: held, then released by the segment filling the hole. */
	afw_reasm_init(&r, big, sizeof(big));
	afw_reasm_add(&r, 99, true, NULL, 0);
	st = afw_reasm_add(&r, 110, false, stream + 10, 10);
	CHECK(failed, "a segment past a hole is held", st == AFW_REASM_HELD && r.have == 0 &&
	      r.nranges == 1);
	st = afw_reasm_add(&r, 130, false, stream + 30, 10);
	CHECK(failed, "a second hole is a second range", st == AFW_REASM_HELD && r.nranges == 2);
	st = afw_reasm_add(&r, 100, false, stream, 10);
	CHECK(failed, "filling the first hole releases the first range",
	      (st & AFW_REASM_ADVANCED) && r.have == 20 && r.nranges == 1);
	st = afw_reasm_add(&r, 120, false, stream + 20, 10);
	CHECK(failed, "filling the last hole releases everything",
	      st == AFW_REASM_ADVANCED && r.have == 40 && r.nranges == 0 &&
	      !memcmp(big, stream, 40));

	/* One-byte segments, forwards and backwards. */
	afw_reasm_init(&r, big, sizeof(big));
	afw_reasm_add(&r, 5, true, NULL, 0);
	for (i = 0, ok = true; i < 200; i++)
		ok &= afw_reasm_add(&r, 6 + i, false, stream + i, 1) == AFW_REASM_ADVANCED;
	CHECK(failed, "200 one-byte segments in order each advance by one",
	      ok && r.have == 200 && !memcmp(big, stream, 200));
	afw_reasm_init(&r, big, sizeof(big));
	afw_reasm_add(&r, 5, true, NULL, 0);
	for (i = 0, ok = true; i < 15; i++)
		ok &= afw_reasm_add(&r, 6 + 15 - i, false, stream + 15 - i, 1) == AFW_REASM_HELD;
	st = afw_reasm_add(&r, 6, false, stream, 1);
	CHECK(failed, "16 one-byte segments in reverse order give the stream once the first comes",
	      ok && st == AFW_REASM_ADVANCED && r.have == 16 && !memcmp(big, stream, 16));

	/* Random cuts, orders, duplicates and overlaps, at several ISNs. */
	ok = true;
	for (i = 0; i < 300 && ok; i++) {
		isn = i % 3 == 0 ? 0xffffffffu - i : i % 3 == 1 ? rnd(&state) : 0x7fffff00u;
		ok = permutation_ok(i + 1, isn, STREAM_LEN, i % 2 ? 40 : 400);
		if (!ok)
			printf("# permutation seed %u isn %u failed\n", i + 1, isn);
	}
	CHECK(failed, "300 random permutations with duplicates and overlaps give the stream", ok);
	CHECK(failed, "random one-byte segments in random order give the stream",
	      permutation_ok(12345, 0xfffffff0u, 400, 1));

	/* Wrap-around: the stream crosses 2^32 in its middle. */
	afw_reasm_init(&r, big, sizeof(big));
	afw_reasm_add(&r, 0xfffffff0u, true, NULL, 0);
	st = afw_reasm_add(&r, 0x00000005u, false, stream + 20, 10);
	CHECK(failed, "a segment just past the wrap is held, not taken as 4 GB ahead",
	      st == AFW_REASM_HELD && r.ranges[0].start == 20);
	st = afw_reasm_add(&r, 0xfffffff1u, false, stream, 20);
	CHECK(failed, "the segment crossing 2^32 joins the two",
	      st == AFW_REASM_ADVANCED && r.have == 30 && !memcmp(big, stream, 30));
	st = afw_reasm_add(&r, 0xffffffe0u, false, stream, 10);
	CHECK(failed, "bytes before the stream start are ignored", st == 0 && r.have == 30);

	/* Conflicts. */
	afw_reasm_init(&r, big, sizeof(big));
	afw_reasm_add(&r, 0, true, NULL, 0);
	afw_reasm_add(&r, 1, false, (const uint8_t *)"GET /aaaa", 9);
	st = afw_reasm_add(&r, 1, false, (const uint8_t *)"GET /bbbb", 9);
	CHECK(failed, "a retransmit with other bytes than the delivered prefix is a conflict",
	      st == AFW_REASM_CONFLICT && r.conflict && !memcmp(big, "GET /aaaa", 9));
	afw_reasm_init(&r, big, sizeof(big));
	afw_reasm_add(&r, 0, true, NULL, 0);
	afw_reasm_add(&r, 11, false, (const uint8_t *)"host-a", 6);
	st = afw_reasm_add(&r, 9, false, (const uint8_t *)"xxhost-b", 8);
	CHECK(failed, "an overlap with other bytes than a held segment is a conflict",
	      st == AFW_REASM_CONFLICT && r.nranges == 1 && !memcmp(big + 10, "host-a", 6));
	st = afw_reasm_add(&r, 9, false, (const uint8_t *)"xxhost-a", 8);
	CHECK(failed, "the same overlap with equal bytes is accepted", st == AFW_REASM_HELD &&
	      r.conflict && r.ranges[0].start == 8 && r.ranges[0].end == 16);
	afw_reasm_init(&r, big, sizeof(big));
	afw_reasm_add(&r, 500, true, NULL, 0);
	st = afw_reasm_add(&r, 700, true, NULL, 0);
	CHECK(failed, "a SYN with another ISN is a conflict", st == AFW_REASM_CONFLICT);
	st = afw_reasm_add(&r, 500, true, NULL, 0);
	CHECK(failed, "a retransmitted SYN is not", st == 0);

	/* Without the SYN, the first data segment sets the start. */
	afw_reasm_init(&r, big, sizeof(big));
	st = afw_reasm_add(&r, 123456, false, NULL, 0);
	CHECK(failed, "a pure ACK before any data does not set the start", st == 0 && !r.started);
	st = afw_reasm_add(&r, 123456, false, stream, 5);
	CHECK(failed, "the first data segment starts the stream", st == AFW_REASM_ADVANCED &&
	      r.base == 123456 && r.have == 5);
	memset(buf, 'x', 6);
	memcpy(buf + 6, stream, 4);
	st = afw_reasm_add(&r, 123450, false, buf, 10);
	CHECK(failed, "an earlier segment is ignored up to the start, and used after it",
	      st == 0 && r.have == 5);
	buf[9] ^= 1;
	st = afw_reasm_add(&r, 123450, false, buf, 10);
	CHECK(failed, "and compared after it", st == AFW_REASM_CONFLICT);

	st = afw_reasm_add(&r, 123400, true, NULL, 0);
	CHECK(failed, "a SYN seen after the data leaves the start where it was",
	      st == 0 && r.base == 123456 && r.have == 5);
	st = afw_reasm_add(&r, 123400, true, NULL, 0);
	CHECK(failed, "and its retransmit is not a conflict", st == 0);

	/* A SYN carrying data (TCP Fast Open). */
	afw_reasm_init(&r, big, sizeof(big));
	st = afw_reasm_add(&r, 41, true, stream, 7);
	CHECK(failed, "data on the SYN starts at ISN + 1", st == AFW_REASM_ADVANCED &&
	      r.base == 42 && r.have == 7 && !memcmp(big, stream, 7));

	/* The cap. */
	afw_reasm_init(&r, buf, sizeof(buf));
	afw_reasm_add(&r, 0, true, NULL, 0);
	st = afw_reasm_add(&r, 1, false, stream, 60);
	CHECK(failed, "60 of 64 bytes: not full", st == AFW_REASM_ADVANCED);
	st = afw_reasm_add(&r, 61, false, stream + 60, 100);
	CHECK(failed, "a segment past the cap fills the buffer and is otherwise ignored",
	      st == (AFW_REASM_ADVANCED | AFW_REASM_FULL) && r.have == 64 &&
	      !memcmp(buf, stream, 64));
	st = afw_reasm_add(&r, 200, false, stream, 10);
	CHECK(failed, "data wholly past the cap is ignored, not an error", st == AFW_REASM_FULL);
	afw_reasm_init(&r, buf, sizeof(buf));
	afw_reasm_add(&r, 0, true, NULL, 0);
	st = afw_reasm_add(&r, 0x80000000u, false, stream, 10);
	CHECK(failed, "a segment 2 GB ahead is ignored", st == 0 && r.nranges == 0);

	/* Bounded holes. */
	afw_reasm_init(&r, big, sizeof(big));
	afw_reasm_add(&r, 0, true, NULL, 0);
	for (i = 0, ok = true; i < AFW_REASM_MAX_RANGES; i++)
		ok &= afw_reasm_add(&r, 1 + 10 + 10 * i, false, stream + 10 + 10 * i, 5) ==
		      AFW_REASM_HELD;
	st = afw_reasm_add(&r, 1 + 10 + 10 * i, false, stream + 10 + 10 * i, 5);
	CHECK(failed, "one range more than the bound is dropped", ok &&
	      st == AFW_REASM_DROPPED && r.nranges == AFW_REASM_MAX_RANGES);
	st = afw_reasm_add(&r, 1 + 15, false, stream + 15, 5);
	CHECK(failed, "a segment joining two ranges still fits", st == AFW_REASM_HELD &&
	      r.nranges == AFW_REASM_MAX_RANGES - 1);
	st = afw_reasm_add(&r, 1, false, stream, 10);
	CHECK(failed, "the first hole filled releases the joined ranges",
	      st == AFW_REASM_ADVANCED && r.have == 25 && !memcmp(big, stream, 25));

	/* A buffer smaller than the cap, grown as the stream needs it. */
	{
		uint8_t *b = malloc(16), *n;

		afw_reasm_init(&r, NULL, 1000);
		afw_reasm_grow(&r, b, 16);
		afw_reasm_add(&r, 0, true, NULL, 0);
		CHECK(failed, "need: a segment at 10 of 20 bytes needs 30",
		      afw_reasm_need(&r, 11, false, 20) == 30);
		CHECK(failed, "need: past the cap, only up to it",
		      afw_reasm_need(&r, 991, false, 50) == 1000);
		CHECK(failed, "need: wholly before the start, nothing",
		      afw_reasm_need(&r, 0xffffff00u, false, 20) == 0);
		st = afw_reasm_add(&r, 1, false, stream, 10);
		CHECK(failed, "bytes inside the buffer are taken", st == AFW_REASM_ADVANCED);
		st = afw_reasm_add(&r, 11, false, stream + 10, 20);
		CHECK(failed, "bytes past it are refused whole, nothing kept",
		      st == AFW_REASM_NOROOM && r.have == 10 && r.nranges == 0);
		n = realloc(b, 64);
		afw_reasm_grow(&r, n, 64);
		st = afw_reasm_add(&r, 11, false, stream + 10, 20);
		CHECK(failed, "once grown, they are taken", st == AFW_REASM_ADVANCED && r.have == 30 &&
		      !memcmp(n, stream, 30));
		afw_reasm_limit(&r, 20);
		st = afw_reasm_add(&r, 11, false, stream + 10, 20);
		CHECK(failed, "limited: equal bytes below the limit are fine", st == AFW_REASM_FULL);
		n[25] ^= 1;
		st = afw_reasm_add(&r, 18, false, stream + 17, 10);
		CHECK(failed, "limited: bytes past it are no longer compared", st == AFW_REASM_FULL);
		st = afw_reasm_add(&r, 19, false, (const uint8_t *)"zz", 2);
		CHECK(failed, "limited: other bytes below it are a conflict",
		      st == (AFW_REASM_CONFLICT | AFW_REASM_FULL));
		free(n);
	}

	return failed;
}
