/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TCP stream reassembly of the first bytes of one direction of a flow.
 *
 * The caller owns the struct and the byte buffer; nothing is allocated.
 * Bytes are stored at their stream offset in the buffer, so the contiguous
 * prefix is always buf[0 .. have). Segments past a hole are held in place
 * and tracked as at most AFW_REASM_MAX_RANGES ranges.
 *
 * The stream is read up to a cap; the buffer may be smaller and grow as
 * bytes come (afw_reasm_need(), afw_reasm_grow()): a segment that would
 * land past the buffer is refused whole (AFW_REASM_NOROOM), never cut.
 *
 * Usage, per direction:
 *	uint8_t buf[16384];
 *	struct afw_reasm r;
 *	afw_reasm_init(&r, buf, sizeof(buf));
 *	for each TCP segment of this direction:
 *		st = afw_reasm_add(&r, seq, flags & AFW_TCP_SYN, payload, payload_len);
 *		if (st & AFW_REASM_CONFLICT) the stream is ambiguous (evasion attempt)
 *		if (st & AFW_REASM_ADVANCED) parse buf[0 .. r.have)
 */
#ifndef AFW_REASM_H
#define AFW_REASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AFW_REASM_MAX_RANGES 16
/* Larger buffers would make offsets ambiguous near 2^31 of sequence space. */
#define AFW_REASM_MAX_CAP (1u << 30)

/* Result bits of afw_reasm_add() */
enum {
	AFW_REASM_ADVANCED = 1 << 0,	/* the contiguous prefix grew */
	AFW_REASM_HELD = 1 << 1,	/* bytes stored beyond a hole */
	AFW_REASM_CONFLICT = 1 << 2,	/* bytes differ from bytes already seen; nothing stored */
	AFW_REASM_FULL = 1 << 3,	/* the prefix fills the buffer (stays set) */
	AFW_REASM_DROPPED = 1 << 4,	/* too many holes to hold it; a retransmit may bring it */
	AFW_REASM_NOROOM = 1 << 5,	/* below the cap but past the buffer; nothing stored */
};

struct afw_reasm_range {
	uint32_t start, end;	/* stream offsets, end exclusive */
};

struct afw_reasm {
	uint8_t *buf;
	uint32_t size;		/* bytes at buf */
	uint32_t cap;		/* stream bytes read at most; bytes past it are ignored */
	uint32_t base;		/* sequence number of stream offset 0 */
	uint32_t isn;		/* from the SYN, once seen */
	uint32_t have;		/* contiguous bytes at buf[0] */
	bool started;		/* base is known */
	bool syn_seen;
	bool conflict;		/* sticky: some segment contradicted the stream */
	uint8_t nranges;
	struct afw_reasm_range ranges[AFW_REASM_MAX_RANGES];	/* sorted, past have */
};

/* @cap is clamped to AFW_REASM_MAX_CAP; the buffer holds @cap bytes. */
void afw_reasm_init(struct afw_reasm *r, uint8_t *buf, size_t cap);

/* The buffer size a segment at @seq of @len bytes needs: 0 when it stores nothing. */
uint32_t afw_reasm_need(const struct afw_reasm *r, uint32_t seq, bool syn, size_t len);

/* The buffer moved or grew (realloc): @size bytes at @buf, the old bytes kept. */
void afw_reasm_grow(struct afw_reasm *r, uint8_t *buf, uint32_t size);

/*
 * Reads no byte past @cap from now on: later segments are only compared
 * with the bytes below it. @cap must not be above the contiguous prefix.
 */
void afw_reasm_limit(struct afw_reasm *r, uint32_t cap);

/*
 * Adds one segment: its sequence number, whether it carries SYN, and its
 * payload. The stream starts at ISN + 1 when the SYN is seen, otherwise at
 * the first segment with data. Bytes before the start or past the buffer
 * are ignored. Returns a mask of AFW_REASM_* bits; 0 means nothing new.
 */
unsigned int afw_reasm_add(struct afw_reasm *r, uint32_t seq, bool syn, const uint8_t *data,
			   size_t len);

#endif /* AFW_REASM_H */
