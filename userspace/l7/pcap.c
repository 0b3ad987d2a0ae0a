// SPDX-License-Identifier: GPL-2.0
/*
 * pcap and pcapng reading. Every length in the file is checked against the
 * reader's buffer and the enclosing block before it is used, and every
 * error message carries the offset of the record or block at fault, so
 * that a damaged capture can be inspected with a hex dump.
 */

#include <stdarg.h>
#include <string.h>

#include "pcap.h"

#define AFW_PCAP_MAGIC_US	0xa1b2c3d4u
#define AFW_PCAP_MAGIC_NS	0xa1b23c4du
#define AFW_PCAPNG_SHB		0x0a0d0d0au
#define AFW_PCAPNG_BOM		0x1a2b3c4du
#define AFW_PCAPNG_IDB		1u
#define AFW_PCAPNG_PB		2u
#define AFW_PCAPNG_SPB		3u
#define AFW_PCAPNG_EPB		6u

/* libpcap's own upper bound for a record when the header's snaplen is 0 */
#define AFW_PCAP_MAX_SNAPLEN	262144u

static int afw_pcap_fail(struct afw_pcap *pc, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int afw_pcap_fail(struct afw_pcap *pc, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(pc->err, sizeof(pc->err), "%s: offset %llu: ", pc->ng ? "pcapng" : "pcap",
		     (unsigned long long)off);
	if (n < 0 || (size_t)n >= sizeof(pc->err))
		return -1;
	va_start(ap, fmt);
	vsnprintf(pc->err + n, sizeof(pc->err) - n, fmt, ap);
	va_end(ap);
	return -1;
}

static uint16_t afw_pcap_16(const struct afw_pcap *pc, const uint8_t *b)
{
	return pc->swap ? (uint16_t)(b[0] << 8 | b[1]) : (uint16_t)(b[1] << 8 | b[0]);
}

/* The file's fields are read little-endian unless swap says big-endian. */
static uint32_t afw_pcap_32(const struct afw_pcap *pc, const uint8_t *b)
{
	if (pc->swap)
		return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	return (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

/* Reads up to @n bytes; returns how many there were before the end. */
static size_t afw_pcap_read(struct afw_pcap *pc, uint8_t *dst, size_t n)
{
	size_t got = 0;

	if (pc->f) {
		/* The magic number read by open, handed back to the block reader */
		while (got < n && pc->pend_pos < pc->pend_len)
			dst[got++] = pc->pend[pc->pend_pos++];
		if (got < n)
			got += fread(dst + got, 1, n - got, pc->f);
	} else {
		size_t left = pc->off < pc->memlen ? pc->memlen - (size_t)pc->off : 0;

		got = n < left ? n : left;
		memcpy(dst, pc->mem + pc->off, got);
	}
	pc->off += got;
	return got;
}

/* Skips @n bytes of a block too large for the buffer and of no interest. */
static size_t afw_pcap_skip(struct afw_pcap *pc, size_t n)
{
	size_t done = 0, chunk, got;

	while (done < n) {
		chunk = n - done < pc->bufsize ? n - done : pc->bufsize;
		got = afw_pcap_read(pc, pc->buf, chunk);
		done += got;
		if (got < chunk)
			break;
	}
	return done;
}

static int afw_pcap_init(struct afw_pcap *pc, uint8_t *buf, size_t bufsize)
{
	uint8_t *b = buf;
	uint32_t magic_le, major;
	size_t got;

	pc->buf = buf;
	pc->bufsize = bufsize;
	if (bufsize < 64)
		return afw_pcap_fail(pc, 0, "reader buffer of %zu bytes is too small", bufsize);
	got = afw_pcap_read(pc, b, 24);
	if (got < 4)
		return afw_pcap_fail(pc, 0, "file too short for a magic number (%zu bytes)", got);
	magic_le = (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
	if (magic_le == AFW_PCAPNG_SHB) {
		/* Blocks are read whole, the SHB too: hand its start back (no seek: pipes). */
		pc->ng = 1;
		memcpy(pc->pend, b, got);
		pc->pend_len = (uint8_t)got;
		pc->off = 0;
		return 0;
	}
	if (magic_le == AFW_PCAP_MAGIC_US || magic_le == AFW_PCAP_MAGIC_NS) {
		pc->swap = 0;
	} else if (__builtin_bswap32(magic_le) == AFW_PCAP_MAGIC_US ||
		   __builtin_bswap32(magic_le) == AFW_PCAP_MAGIC_NS) {
		pc->swap = 1;
	} else {
		return afw_pcap_fail(pc, 0, "unknown magic number 0x%08x, not pcap or pcapng",
				     __builtin_bswap32(magic_le));
	}
	pc->nsec = afw_pcap_32(pc, b) == AFW_PCAP_MAGIC_NS;
	if (got < 24)
		return afw_pcap_fail(pc, 0, "file header truncated: %zu of 24 bytes", got);
	major = afw_pcap_16(pc, b + 4);
	if (major != 2)
		return afw_pcap_fail(pc, 4, "unsupported version %u.%u", major,
				     afw_pcap_16(pc, b + 6));
	pc->snaplen = afw_pcap_32(pc, b + 16);
	pc->linktype = afw_pcap_32(pc, b + 20) & 0xffff;
	return 0;
}

int afw_pcap_open_file(struct afw_pcap *pc, FILE *f, uint8_t *buf, size_t bufsize)
{
	memset(pc, 0, sizeof(*pc));
	pc->f = f;
	return afw_pcap_init(pc, buf, bufsize);
}

int afw_pcap_open_mem(struct afw_pcap *pc, const uint8_t *mem, size_t len, uint8_t *buf,
		      size_t bufsize)
{
	memset(pc, 0, sizeof(*pc));
	pc->mem = mem;
	pc->memlen = mem ? len : 0;
	return afw_pcap_init(pc, buf, bufsize);
}

static int afw_pcap_next_classic(struct afw_pcap *pc, struct afw_pcap_pkt *pkt)
{
	uint64_t at = pc->off;
	uint32_t caplen, limit, frac;
	uint8_t hdr[16];
	size_t got;

	got = afw_pcap_read(pc, hdr, sizeof(hdr));
	if (!got)
		return 0;
	if (got < sizeof(hdr))
		return afw_pcap_fail(pc, at, "record header truncated: %zu of 16 bytes", got);
	caplen = afw_pcap_32(pc, hdr + 8);
	limit = pc->snaplen ? pc->snaplen : AFW_PCAP_MAX_SNAPLEN;
	if (caplen > limit)
		return afw_pcap_fail(pc, at, "record length %u exceeds snaplen %u", caplen, limit);
	if (caplen > pc->bufsize)
		return afw_pcap_fail(pc, at, "record length %u exceeds the reader buffer (%zu)",
				     caplen, pc->bufsize);
	got = afw_pcap_read(pc, pc->buf, caplen);
	if (got < caplen)
		return afw_pcap_fail(pc, at, "record data truncated: %zu of %u bytes", got, caplen);
	frac = afw_pcap_32(pc, hdr + 4);
	pkt->ts_ns = (uint64_t)afw_pcap_32(pc, hdr) * 1000000000u +
		     (pc->nsec ? frac : (uint64_t)frac * 1000u);
	pkt->linktype = pc->linktype;
	pkt->iface = 0;
	pkt->caplen = caplen;
	pkt->origlen = afw_pcap_32(pc, hdr + 12);
	pkt->data = pc->buf;
	return 1;
}

/* Converts a timestamp in the interface's units to nanoseconds. */
static uint64_t afw_pcap_ts(const struct afw_pcap_iface *ifc, uint64_t ts)
{
	unsigned int e = ifc->tsresol & 0x7f;
	unsigned __int128 v;
	uint64_t p = 1;

	if (ifc->tsresol & 0x80) {
		if (e >= 64)
			return 0;
		v = (unsigned __int128)ts * 1000000000u;
		v >>= e;
	} else if (e <= 9) {
		while (e++ < 9)
			p *= 10;
		v = (unsigned __int128)ts * p;
	} else {
		while (e-- > 9 && p < UINT64_MAX / 10)
			p *= 10;
		v = ts / p;
	}
	return (uint64_t)v + (uint64_t)ifc->tsoffset * 1000000000u;
}

/* Reads an IDB's options: only the timestamp resolution and offset matter. */
static int afw_pcap_idb_options(struct afw_pcap *pc, struct afw_pcap_iface *ifc, uint64_t at,
				const uint8_t *o, size_t len)
{
	size_t pos = 0, olen, padded;
	uint16_t code;

	while (len - pos >= 4) {
		code = afw_pcap_16(pc, o + pos);
		olen = afw_pcap_16(pc, o + pos + 2);
		if (code == 0)
			break;
		padded = (olen + 3) & ~(size_t)3;
		if (padded > len - pos - 4)
			return afw_pcap_fail(pc, at, "interface option %u of %zu bytes overruns the block",
					     code, olen);
		if (code == 9 && olen == 1)
			ifc->tsresol = o[pos + 4];
		if (code == 14 && olen == 8) {
			uint64_t w0 = afw_pcap_32(pc, o + pos + 4), w1 = afw_pcap_32(pc, o + pos + 8);

			ifc->tsoffset = (int64_t)(pc->swap ? w0 << 32 | w1 : w1 << 32 | w0);
		}
		pos += 4 + padded;
	}
	return 0;
}

static int afw_pcap_shb(struct afw_pcap *pc, uint64_t at, const uint8_t *b, size_t got)
{
	uint32_t bom;

	if (got < 12)
		return afw_pcap_fail(pc, at, "section header truncated: %zu of 12 bytes", got);
	bom = (uint32_t)b[11] << 24 | (uint32_t)b[10] << 16 | (uint32_t)b[9] << 8 | b[8];
	if (bom == AFW_PCAPNG_BOM)
		pc->swap = 0;
	else if (__builtin_bswap32(bom) == AFW_PCAPNG_BOM)
		pc->swap = 1;
	else
		return afw_pcap_fail(pc, at + 8, "bad byte-order magic 0x%08x", bom);
	pc->nifaces = 0;
	return 0;
}

static int afw_pcap_packet(struct afw_pcap *pc, struct afw_pcap_pkt *pkt, uint64_t at,
			   uint32_t type, const uint8_t *body, uint32_t blen)
{
	const struct afw_pcap_iface *ifc;
	uint32_t ifid, caplen, origlen, hlen;
	uint64_t ts = 0;

	if (type == AFW_PCAPNG_SPB) {
		if (blen < 4)
			return afw_pcap_fail(pc, at, "simple packet block too short");
		ifid = 0;
		hlen = 4;
		origlen = afw_pcap_32(pc, body);
		caplen = origlen;
		if (pc->nifaces && pc->ifaces[0].snaplen && caplen > pc->ifaces[0].snaplen)
			caplen = pc->ifaces[0].snaplen;
		if (caplen > blen - hlen)
			caplen = blen - hlen;
	} else {
		if (blen < 20)
			return afw_pcap_fail(pc, at, "packet block too short: %u bytes", blen);
		if (type == AFW_PCAPNG_PB)
			ifid = afw_pcap_16(pc, body);
		else
			ifid = afw_pcap_32(pc, body);
		hlen = 20;
		ts = (uint64_t)afw_pcap_32(pc, body + 4) << 32 | afw_pcap_32(pc, body + 8);
		caplen = afw_pcap_32(pc, body + 12);
		origlen = afw_pcap_32(pc, body + 16);
		if (caplen > blen - hlen)
			return afw_pcap_fail(pc, at, "captured length %u overruns the block", caplen);
	}
	if (ifid >= pc->nifaces)
		return afw_pcap_fail(pc, at, "packet names interface %u, but the section has %u",
				     ifid, pc->nifaces);
	ifc = &pc->ifaces[ifid];
	pkt->ts_ns = type == AFW_PCAPNG_SPB ? 0 : afw_pcap_ts(ifc, ts);
	pkt->linktype = ifc->linktype;
	pkt->iface = ifid;
	pkt->caplen = caplen;
	pkt->origlen = origlen;
	pkt->data = body + hlen;
	return 1;
}

static int afw_pcap_next_ng(struct afw_pcap *pc, struct afw_pcap_pkt *pkt)
{
	uint32_t type, total, trail, blen;
	uint8_t *b = pc->buf;
	uint64_t at;
	size_t got;
	int ret;

	for (;;) {
		at = pc->off;
		got = afw_pcap_read(pc, b, 12);
		if (!got)
			return 0;
		if (got < 8)
			return afw_pcap_fail(pc, at, "block header truncated: %zu of 8 bytes", got);
		type = (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
		if (type == AFW_PCAPNG_SHB) {
			ret = afw_pcap_shb(pc, at, b, got);
			if (ret)
				return ret;
		} else if (at == 0) {
			return afw_pcap_fail(pc, at, "first block is not a section header");
		}
		type = afw_pcap_32(pc, b);
		total = afw_pcap_32(pc, b + 4);
		if (total < 12 || total % 4)
			return afw_pcap_fail(pc, at, "block length %u is not a multiple of 4 of at least 12",
					     total);
		if (got < 12)
			return afw_pcap_fail(pc, at, "block truncated: %zu of %u bytes", got, total);
		if (total > pc->bufsize) {
			/* Too big to hold: fine for a block we skip anyway. */
			if (type == AFW_PCAPNG_EPB || type == AFW_PCAPNG_PB ||
			    type == AFW_PCAPNG_SPB || type == AFW_PCAPNG_IDB ||
			    type == AFW_PCAPNG_SHB)
				return afw_pcap_fail(pc, at, "block length %u exceeds the reader buffer (%zu)",
						     total, pc->bufsize);
			got = afw_pcap_skip(pc, total - 12);
			if (got < total - 12)
				return afw_pcap_fail(pc, at, "block truncated: %zu of %u bytes",
						     got + 12, total);
			continue;
		}
		got = afw_pcap_read(pc, b + 12, total - 12);
		if (got < total - 12)
			return afw_pcap_fail(pc, at, "block truncated: %zu of %u bytes", got + 12,
					     total);
		trail = afw_pcap_32(pc, b + total - 4);
		if (trail != total)
			return afw_pcap_fail(pc, at, "block length %u at the start but %u at the end",
					     total, trail);
		blen = total - 12;
		switch (type) {
		case AFW_PCAPNG_SHB:
			if (blen < 16)
				return afw_pcap_fail(pc, at, "section header block too short");
			if (afw_pcap_16(pc, b + 12) != 1)
				return afw_pcap_fail(pc, at, "unsupported pcapng version %u.%u",
						     afw_pcap_16(pc, b + 12), afw_pcap_16(pc, b + 14));
			break;
		case AFW_PCAPNG_IDB: {
			struct afw_pcap_iface *ifc;

			if (blen < 8)
				return afw_pcap_fail(pc, at, "interface block too short");
			if (pc->nifaces == AFW_PCAP_MAX_IFACES)
				return afw_pcap_fail(pc, at, "more than %d interfaces",
						     AFW_PCAP_MAX_IFACES);
			ifc = &pc->ifaces[pc->nifaces];
			memset(ifc, 0, sizeof(*ifc));
			ifc->linktype = afw_pcap_16(pc, b + 8);
			ifc->snaplen = afw_pcap_32(pc, b + 12);
			ifc->tsresol = 6;
			if (afw_pcap_idb_options(pc, ifc, at, b + 16, blen - 8))
				return -1;
			pc->nifaces++;
			break;
		}
		case AFW_PCAPNG_EPB:
		case AFW_PCAPNG_PB:
		case AFW_PCAPNG_SPB:
			return afw_pcap_packet(pc, pkt, at, type, b + 8, blen);
		default:
			break;
		}
	}
}

int afw_pcap_next(struct afw_pcap *pc, struct afw_pcap_pkt *pkt)
{
	memset(pkt, 0, sizeof(*pkt));
	return pc->ng ? afw_pcap_next_ng(pc, pkt) : afw_pcap_next_classic(pc, pkt);
}
