// SPDX-License-Identifier: GPL-2.0
/*
 * Packet decoding: link header, IPv4 or IPv6 (with options, extension
 * headers and fragments), then TCP, UDP, UDP-Lite, SCTP, DCCP or ICMP. Every read is checked
 * against the bytes the caller has, so a capture cut short by its snap
 * length or a crafted packet ends in an error, not in a wild read.
 */

#include <string.h>

#include "pkt.h"

#define AFW_ETH_IPV4	0x0800
#define AFW_ETH_IPV6	0x86dd
#define AFW_ETH_VLAN	0x8100
#define AFW_ETH_QINQ	0x88a8
#define AFW_ETH_QINQ_OLD 0x9100

static uint16_t afw_get16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static uint32_t afw_get32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static enum afw_pkt_err afw_pkt_fail(struct afw_pkt *p, enum afw_pkt_err err, const char *why)
{
	p->reason = why;
	return err;
}

/*
 * The options a receiving stack acts on. A malformed list is marked, not
 * refused: Linux stops reading options where the list goes wrong
 * (tcp_parse_options()) and takes the segment all the same.
 */
static void afw_pkt_tcp_opts(struct afw_pkt *p, const uint8_t *o, size_t len)
{
	size_t i = 0, olen;

	while (i < len) {
		if (o[i] == 0)
			return;
		if (o[i] == 1) {
			i++;
			continue;
		}
		if (len - i < 2 || o[i + 1] < 2 || o[i + 1] > len - i) {
			p->tcp_opts |= AFW_TCPOPT_BAD;
			return;
		}
		olen = o[i + 1];
		switch (o[i]) {
		case 3:
			if (olen == 3) {
				p->tcp_opts |= AFW_TCPOPT_WSCALE;
				p->tcp_wscale = o[i + 2];
			}
			break;
		case 8:
			if (olen == 10) {
				p->tcp_opts |= AFW_TCPOPT_TS;
				p->tcp_tsval = afw_get32(o + i + 2);
				p->tcp_tsecr = afw_get32(o + i + 6);
			}
			break;
		case 19:
		case 29:
			p->tcp_opts |= AFW_TCPOPT_SIG;
			break;
		}
		i += olen;
	}
}

static enum afw_pkt_err afw_pkt_l4(struct afw_pkt *p, const uint8_t *data, size_t off,
				   size_t end)
{
	const uint8_t *h = data + off;
	size_t avail = end - off, hlen;

	p->l4_off = off;
	switch (p->proto) {
	case 6:
		if (avail < 20)
			return afw_pkt_fail(p, AFW_PKT_ETRUNC, "TCP header truncated");
		hlen = (size_t)(h[12] >> 4) * 4;
		if (hlen < 20)
			return afw_pkt_fail(p, AFW_PKT_EMALFORMED, "TCP data offset below 5");
		if (hlen > avail)
			return afw_pkt_fail(p, AFW_PKT_ETRUNC, "TCP options truncated");
		p->sport = afw_get16(h);
		p->dport = afw_get16(h + 2);
		p->tcp_seq = afw_get32(h + 4);
		p->tcp_ack = afw_get32(h + 8);
		p->tcp_flags = h[13];
		p->tcp_window = afw_get16(h + 14);
		p->tcp_urg_ptr = afw_get16(h + 18);
		afw_pkt_tcp_opts(p, h + 20, hlen - 20);
		break;
	case 17:
	case 136:	/* UDP-Lite has the same header */
		if (avail < 8)
			return afw_pkt_fail(p, AFW_PKT_ETRUNC, "UDP header truncated");
		hlen = 8;
		p->sport = afw_get16(h);
		p->dport = afw_get16(h + 2);
		/* A first fragment's length field covers the whole datagram. */
		if (p->proto == 17 && !(p->frag & AFW_PKT_FRAG)) {
			size_t ulen = afw_get16(h + 4);

			if (ulen < 8)
				return afw_pkt_fail(p, AFW_PKT_EMALFORMED, "UDP length below 8");
			if (ulen > avail)
				return afw_pkt_fail(p, AFW_PKT_ETRUNC, "UDP length past the datagram");
			end = off + ulen;
		}
		break;
	case 132:	/* SCTP: ports, verification tag, checksum, then chunks */
		if (avail < 12)
			return afw_pkt_fail(p, AFW_PKT_ETRUNC, "SCTP common header truncated");
		hlen = 12;
		p->sport = afw_get16(h);
		p->dport = afw_get16(h + 2);
		break;
	case 33:	/* DCCP: ports, then Data Offset in 32-bit words */
		if (avail < 12)
			return afw_pkt_fail(p, AFW_PKT_ETRUNC, "DCCP header truncated");
		hlen = (size_t)h[4] * 4;
		/* 12 bytes with short sequence numbers (X = 0), 16 with long ones. */
		if (hlen < ((h[8] & 1) ? 16u : 12u))
			return afw_pkt_fail(p, AFW_PKT_EMALFORMED, "DCCP Data Offset below its header");
		if (hlen > avail)
			return afw_pkt_fail(p, AFW_PKT_ETRUNC, "DCCP header past the datagram");
		p->sport = afw_get16(h);
		p->dport = afw_get16(h + 2);
		break;
	case 1:
	case 58:
		if (avail < 4)
			return afw_pkt_fail(p, AFW_PKT_ETRUNC, "ICMP header truncated");
		hlen = 4;
		p->icmp_type = h[0];
		p->icmp_code = h[1];
		/*
		 * An echo's identifier names its ping, as conntrack keys it.
		 * One too short to hold it is no echo any receiver answers.
		 */
		if (avail >= 8 && afw_pkt_icmp(p)) {
			if (h[0] == (p->ipver == 4 ? 8 : 128))
				p->echo = AFW_PKT_ECHO_REQUEST;
			else if (h[0] == (p->ipver == 4 ? 0 : 129))
				p->echo = AFW_PKT_ECHO_REPLY;
			p->echo_id = p->echo ? afw_get16(h + 4) : 0;
		}
		break;
	default:
		/* Another protocol: no ports, the payload is the whole L4 part. */
		p->payload = h;
		p->payload_len = avail;
		return AFW_PKT_OK;
	}
	p->has_l4 = 1;
	p->l4 = h;
	p->l4_len = end - off;
	p->payload = h + hlen;
	p->payload_len = end - off - hlen;
	return AFW_PKT_OK;
}

static enum afw_pkt_err afw_pkt_ipv4(struct afw_pkt *p, const uint8_t *data, size_t off,
				     size_t len)
{
	const uint8_t *h = data + off;
	size_t avail = len - off, hlen, tot;
	uint16_t fragw;

	if (avail < 20)
		return afw_pkt_fail(p, AFW_PKT_ETRUNC, "IPv4 header truncated");
	if (h[0] >> 4 != 4)
		return afw_pkt_fail(p, AFW_PKT_EMALFORMED, "IP version is not 4");
	p->ipver = 4;
	/* Known before anything can be wrong: a packet that fails still names its ends. */
	memcpy(p->src, h + 12, 4);
	memcpy(p->dst, h + 16, 4);
	p->proto = h[9];
	p->ttl = h[8];
	hlen = (size_t)(h[0] & 0xf) * 4;
	if (hlen < 20)
		return afw_pkt_fail(p, AFW_PKT_EMALFORMED, "IPv4 header length below 5");
	tot = afw_get16(h + 2);
	if (tot < hlen)
		return afw_pkt_fail(p, AFW_PKT_EMALFORMED, "IPv4 total length below header length");
	if (hlen > avail)
		return afw_pkt_fail(p, AFW_PKT_ETRUNC, "IPv4 options truncated");
	p->l3_off = off;
	p->l3 = h;
	if (tot > avail)
		return afw_pkt_fail(p, AFW_PKT_ETRUNC, "IPv4 total length past the captured bytes");
	fragw = afw_get16(h + 6);
	if (fragw & 0x3fff)
		p->frag |= AFW_PKT_FRAG;
	if (fragw & 0x1fff) {
		p->frag |= AFW_PKT_FRAG_LATER;
		p->l4_off = off + hlen;
		p->payload = h + hlen;
		p->payload_len = tot - hlen;
		return AFW_PKT_OK;
	}
	return afw_pkt_l4(p, data, off + hlen, off + tot);
}

static enum afw_pkt_err afw_pkt_ipv6(struct afw_pkt *p, const uint8_t *data, size_t off,
				     size_t len)
{
	const uint8_t *h = data + off;
	size_t avail = len - off, end, pos;
	uint8_t next;
	int n;

	if (avail < 40)
		return afw_pkt_fail(p, AFW_PKT_ETRUNC, "IPv6 header truncated");
	if (h[0] >> 4 != 6)
		return afw_pkt_fail(p, AFW_PKT_EMALFORMED, "IP version is not 6");
	p->ipver = 6;
	memcpy(p->src, h + 8, 16);
	memcpy(p->dst, h + 24, 16);
	p->ttl = h[7];
	p->l3_off = off;
	p->l3 = h;
	next = h[6];
	p->proto = next;
	/* A zero payload length with a hop-by-hop jumbo option is not supported. */
	end = off + 40 + afw_get16(h + 4);
	if (end > len)
		return afw_pkt_fail(p, AFW_PKT_ETRUNC, "IPv6 payload length past the captured bytes");
	pos = off + 40;
	/*
	 * Linux walks as many extension headers as the packet holds (a segment
	 * behind forty destination options headers is read), so must this:
	 * each takes 8 bytes at least, which bounds the walk. Hop-by-hop
	 * options come first or not at all (ip6_input_finish() drops them).
	 */
	for (n = 0;; n++) {
		const uint8_t *e = data + pos;
		size_t elen;

		if (next != 0 && next != 43 && next != 44 && next != 60 && next != 51)
			break;
		if (next == 0 && n)
			return afw_pkt_fail(p, AFW_PKT_EMALFORMED,
					    "IPv6 hop-by-hop options header not first in the chain");
		if (end - pos < 8)
			return afw_pkt_fail(p, AFW_PKT_ETRUNC, "IPv6 extension header truncated");
		if (next == 44) {
			uint16_t offw = afw_get16(e + 2);

			elen = 8;
			p->frag |= AFW_PKT_FRAG;
			if (offw & 0xfff8) {
				p->frag |= AFW_PKT_FRAG_LATER;
				p->proto = e[0];
				p->l4_off = pos + 8;
				p->payload = data + pos + 8;
				p->payload_len = end - pos - 8;
				return AFW_PKT_OK;
			}
		} else if (next == 51) {
			elen = ((size_t)e[1] + 2) * 4;
		} else {
			elen = ((size_t)e[1] + 1) * 8;
		}
		if (elen > end - pos)
			return afw_pkt_fail(p, AFW_PKT_ETRUNC, "IPv6 extension header truncated");
		next = e[0];
		p->proto = next;
		pos += elen;
	}
	if (next == 59) {
		p->l4_off = pos;
		p->payload = data + pos;
		p->payload_len = 0;
		return AFW_PKT_OK;
	}
	return afw_pkt_l4(p, data, pos, end);
}

static enum afw_pkt_err afw_pkt_ip(struct afw_pkt *p, const uint8_t *data, size_t off,
				   size_t len, unsigned int ver)
{
	if (off >= len)
		return afw_pkt_fail(p, AFW_PKT_ETRUNC, "no IP header after the link header");
	if (!ver)
		ver = data[off] >> 4;
	if (ver == 4)
		return afw_pkt_ipv4(p, data, off, len);
	if (ver == 6)
		return afw_pkt_ipv6(p, data, off, len);
	return afw_pkt_fail(p, AFW_PKT_EMALFORMED, "IP version is neither 4 nor 6");
}

static enum afw_pkt_err afw_pkt_ethertype(struct afw_pkt *p, const uint8_t *data, size_t off,
					  size_t len, uint16_t type)
{
	if (type == AFW_ETH_IPV4)
		return afw_pkt_ip(p, data, off, len, 4);
	if (type == AFW_ETH_IPV6)
		return afw_pkt_ip(p, data, off, len, 6);
	return afw_pkt_fail(p, AFW_PKT_EUNSUPP, "link protocol is not IPv4 or IPv6");
}

static enum afw_pkt_err afw_pkt_ether(struct afw_pkt *p, const uint8_t *data, size_t len)
{
	size_t off = 12;
	uint16_t type;

	if (len < 14)
		return afw_pkt_fail(p, AFW_PKT_ETRUNC, "Ethernet header truncated");
	type = afw_get16(data + off);
	while (type == AFW_ETH_VLAN || type == AFW_ETH_QINQ || type == AFW_ETH_QINQ_OLD) {
		if (p->nvlan == 2)
			return afw_pkt_fail(p, AFW_PKT_EUNSUPP, "more than two VLAN tags");
		if (len - off < 6)
			return afw_pkt_fail(p, AFW_PKT_ETRUNC, "VLAN tag truncated");
		p->nvlan++;
		off += 4;
		type = afw_get16(data + off);
	}
	if (type < 0x0600)
		return afw_pkt_fail(p, AFW_PKT_EUNSUPP, "802.3 length field, not an Ethernet type");
	return afw_pkt_ethertype(p, data, off + 2, len, type);
}

/* BSD loopback: the address family differs between systems for IPv6. */
static enum afw_pkt_err afw_pkt_null(struct afw_pkt *p, const uint8_t *data, size_t len,
				     int big_endian)
{
	uint32_t fam;

	if (len < 4)
		return afw_pkt_fail(p, AFW_PKT_ETRUNC, "loopback header truncated");
	fam = afw_get32(data);
	/* DLT_NULL is in the writer's byte order; a family fits in 16 bits. */
	if (!big_endian && fam > 0xffff)
		fam = (uint32_t)data[3] << 24 | (uint32_t)data[2] << 16 |
		      (uint32_t)data[1] << 8 | data[0];
	if (fam == 2)
		return afw_pkt_ip(p, data, 4, len, 4);
	if (fam == 10 || fam == 24 || fam == 28 || fam == 30)
		return afw_pkt_ip(p, data, 4, len, 6);
	return afw_pkt_fail(p, AFW_PKT_EUNSUPP, "loopback family is not IPv4 or IPv6");
}

enum afw_pkt_err afw_pkt_decode_head(struct afw_pkt *p, uint8_t buf[AFW_PKT_HEAD_MAX],
				     const uint8_t *data, size_t len, size_t orig_len)
{
	enum afw_pkt_err err;
	size_t declared;

	if (len > AFW_PKT_HEAD_MAX || !data)
		return afw_pkt_fail(memset(p, 0, sizeof(*p)), AFW_PKT_ETRUNC,
				    "more first bytes than a headers queue copies");
	memcpy(buf, data, len);
	/* The IP length field, cut to what came: the decoder then stops there. */
	if (len >= 20 && buf[0] >> 4 == 4) {
		declared = afw_get16(buf + 2);
		if (declared > len) {
			buf[2] = (uint8_t)(len >> 8);
			buf[3] = (uint8_t)len;
		}
	} else if (len >= 40 && buf[0] >> 4 == 6) {
		declared = 40 + (size_t)afw_get16(buf + 4);
		if (declared > len) {
			buf[4] = (uint8_t)((len - 40) >> 8);
			buf[5] = (uint8_t)(len - 40);
		}
	} else {
		declared = len;
	}
	err = afw_pkt_decode(p, AFW_LINK_RAW, buf, len);
	if (err != AFW_PKT_OK)
		return err;
	/*
	 * What did not come: by the queue's count of the packet's bytes (a
	 * GSO packet's IP length may not hold them all), or by its header.
	 */
	if (orig_len > len)
		p->cut = orig_len - len;
	else if (declared > len)
		p->cut = declared - len;
	return AFW_PKT_OK;
}

enum afw_pkt_err afw_pkt_decode(struct afw_pkt *p, unsigned int linktype, const uint8_t *data,
				size_t len)
{
	memset(p, 0, sizeof(*p));
	if (!data)
		len = 0;
	switch (linktype) {
	case AFW_LINK_EN10MB:
		return afw_pkt_ether(p, data, len);
	case AFW_LINK_RAW:
		return afw_pkt_ip(p, data, 0, len, 0);
	case AFW_LINK_IPV4:
		return afw_pkt_ip(p, data, 0, len, 4);
	case AFW_LINK_IPV6:
		return afw_pkt_ip(p, data, 0, len, 6);
	case AFW_LINK_NULL:
		return afw_pkt_null(p, data, len, 0);
	case AFW_LINK_LOOP:
		return afw_pkt_null(p, data, len, 1);
	case AFW_LINK_LINUX_SLL:
		if (len < 16)
			return afw_pkt_fail(p, AFW_PKT_ETRUNC, "Linux cooked header truncated");
		return afw_pkt_ethertype(p, data, 16, len, afw_get16(data + 14));
	case AFW_LINK_LINUX_SLL2:
		if (len < 20)
			return afw_pkt_fail(p, AFW_PKT_ETRUNC, "Linux cooked v2 header truncated");
		return afw_pkt_ethertype(p, data, 20, len, afw_get16(data));
	default:
		return afw_pkt_fail(p, AFW_PKT_EUNSUPP, "unsupported link type");
	}
}

/* The ones' complement sum of @len bytes at @b, added to @sum, not folded. */
static uint64_t afw_csum_add(uint64_t sum, const uint8_t *b, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (len & 1)
		sum += (uint32_t)b[len - 1] << 8;
	return sum;
}

static uint16_t afw_csum_fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

bool afw_pkt_csum_ok(const struct afw_pkt *p)
{
	size_t alen = p->ipver == 6 ? 16 : 4;
	uint64_t sum = 0;

	if (!p->has_l4 || !p->l3 || !p->l4 || (p->frag & AFW_PKT_FRAG))
		return true;
	if (p->ipver == 4 && afw_csum_fold(afw_csum_add(0, p->l3, (size_t)(p->l3[0] & 0xf) * 4)) !=
	    0xffff)
		return false;
	if (p->proto != 6 && p->proto != 17)
		return true;
	if (p->proto == 17 && p->ipver == 4 && p->l4_len >= 8 && !p->l4[6] && !p->l4[7])
		return true;
	sum = afw_csum_add(sum, p->src, alen);
	sum = afw_csum_add(sum, p->dst, alen);
	sum += p->proto;
	sum += (uint64_t)p->l4_len;
	sum = afw_csum_add(sum, p->l4, p->l4_len);
	return afw_csum_fold(sum) == 0xffff;
}

int afw_pkt_flow_key(const struct afw_pkt *p, struct afw_pkt_key *k)
{
	size_t alen = p->ipver == 6 ? 16 : 4;
	uint16_t sport = p->has_l4 ? p->sport : 0, dport = p->has_l4 ? p->dport : 0;
	int c, side;

	memset(k, 0, sizeof(*k));
	k->ipver = p->ipver;
	k->proto = p->proto;
	c = memcmp(p->src, p->dst, alen);
	side = c > 0 || (c == 0 && sport > dport);
	memcpy(k->addr[side], p->src, alen);
	memcpy(k->addr[!side], p->dst, alen);
	k->port[side] = sport;
	k->port[!side] = dport;
	/* A later fragment is ICMP all the same, and no echo: it has no header. */
	if (afw_pkt_icmp(p)) {
		/* A host's ICMP to itself: both directions are the one side. */
		if (!p->has_l4 || p->echo == AFW_PKT_ECHO_NONE) {
			k->icmp = AFW_PKT_KEY_ICMP_SENT + side;
		} else {
			k->icmp = AFW_PKT_KEY_ECHO + (c == 0 ? 0 :
				  p->echo == AFW_PKT_ECHO_REQUEST ? side : !side);
			k->port[0] = k->port[1] = p->echo_id;
		}
	}
	return side;
}

int afw_pkt_client_side(const struct afw_pkt *p, int side)
{
	uint8_t synack = AFW_TCP_SYN | AFW_TCP_ACK;

	if (p->proto == 6 && p->has_l4 && (p->tcp_flags & synack) == synack)
		return !side;
	/* An echo's flow is its pinger's, as a connection is its client's. */
	if (afw_pkt_icmp(p) && p->has_l4 && p->echo == AFW_PKT_ECHO_REPLY)
		return !side;
	/* Mid-stream, the service is the lower port more often than not. */
	if (p->proto == 6 && p->has_l4 && !(p->tcp_flags & AFW_TCP_SYN) && p->sport < p->dport)
		return !side;
	return side;
}

/* The key is hashed a word at a time; its one padding byte is zeroed with it. */
_Static_assert(sizeof(struct afw_pkt_key) % 8 == 0, "a flow key is whole words");

/*
 * The key's five words mixed in one at a time, a multiply and a shift each,
 * then MurmurHash3's 64-bit finalizer so that the low bits, which pick the
 * bucket, depend on every bit. It was FNV-1a a byte at a time: 40 rounds,
 * and afwd hashes a key several times a connection (docs/performance.md).
 */
uint32_t afw_pkt_key_hash(const struct afw_pkt_key *k, uint32_t seed)
{
	uint64_t w[sizeof(*k) / 8], h = 0x9e3779b97f4a7c15ull ^ seed;
	size_t i;

	memcpy(w, k, sizeof(w));
	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		h = (h ^ w[i]) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return (uint32_t)h;
}

const char *afw_pkt_err_name(enum afw_pkt_err err)
{
	switch (err) {
	case AFW_PKT_OK:
		return "ok";
	case AFW_PKT_ETRUNC:
		return "truncated";
	case AFW_PKT_EMALFORMED:
		return "malformed";
	case AFW_PKT_EUNSUPP:
		return "unsupported";
	}
	return "unknown";
}
