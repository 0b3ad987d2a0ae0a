// SPDX-License-Identifier: GPL-2.0
/*
 * Packet decoding: the fields of IPv4 and IPv6 TCP and UDP packets behind
 * each link header, options and extension headers, fragments, and an error
 * with a reason for every cut-short or impossible packet.
 */

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pkt.h"

static const uint8_t src4[4] = { 192, 0, 2, 1 }, dst4[4] = { 198, 51, 100, 2 };
static const uint8_t src6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t dst6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

static size_t put16(uint8_t *b, uint16_t v)
{
	b[0] = v >> 8;
	b[1] = v & 0xff;
	return 2;
}

static void put32(uint8_t *b, uint32_t v)
{
	put16(b, v >> 16);
	put16(b + 2, v & 0xffff);
}

/* TCP header (20 bytes + @optlen bytes of NOPs) then @plen payload bytes. */
static size_t tcp(uint8_t *b, size_t optlen, const char *payload, uint8_t flags)
{
	size_t plen = strlen(payload), hlen = 20 + optlen;

	memset(b, 0, hlen);
	put16(b, 40000);
	put16(b + 2, 443);
	put32(b + 4, 0x11223344);
	put32(b + 8, 0x55667788);
	b[12] = (uint8_t)(hlen / 4) << 4;
	b[13] = flags;
	put16(b + 14, 29200);
	memset(b + 20, 1, optlen);
	memcpy(b + hlen, payload, plen);
	return hlen + plen;
}

/* IPv4 header with @optlen option bytes in front of an L4 of @l4len bytes. */
static size_t ipv4(uint8_t *b, size_t optlen, uint8_t proto, size_t l4len, uint16_t frag)
{
	size_t hlen = 20 + optlen;

	memset(b, 0, hlen);
	b[0] = 0x40 | (uint8_t)(hlen / 4);
	put16(b + 2, (uint16_t)(hlen + l4len));
	put16(b + 6, frag);
	b[8] = 64;
	b[9] = proto;
	memcpy(b + 12, src4, 4);
	memcpy(b + 16, dst4, 4);
	memset(b + 20, 1, optlen);
	return hlen;
}

static size_t ipv6(uint8_t *b, uint8_t next, size_t paylen)
{
	memset(b, 0, 40);
	b[0] = 0x60;
	put16(b + 4, (uint16_t)paylen);
	b[6] = next;
	b[7] = 63;
	memcpy(b + 8, src6, 16);
	memcpy(b + 24, dst6, 16);
	return 40;
}

/* An IPv4 TCP packet with 4 option bytes, 8 TCP option bytes and "hello". */
static size_t pkt4(uint8_t *b)
{
	uint8_t l4[64];
	size_t l4len = tcp(l4, 8, "hello", AFW_TCP_SYN | AFW_TCP_ACK), h;

	h = ipv4(b, 4, 6, l4len, 0x4000);
	memcpy(b + h, l4, l4len);
	return h + l4len;
}

/* IPv6, hop-by-hop (8 bytes), destination options (16 bytes), TCP "hi". */
static size_t pkt6(uint8_t *b)
{
	uint8_t l4[64];
	size_t l4len = tcp(l4, 0, "hi", AFW_TCP_ACK), h;

	h = ipv6(b, 0, 24 + l4len);
	memset(b + h, 0, 24);
	b[h] = 60;
	b[h + 1] = 0;
	b[h + 8] = 6;
	b[h + 9] = 1;
	memcpy(b + h + 24, l4, l4len);
	return h + 24 + l4len;
}

static bool is_tcp4(const struct afw_pkt *p)
{
	return p->ipver == 4 && p->proto == 6 && p->has_l4 && p->sport == 40000 &&
	       p->dport == 443 && !memcmp(p->src, src4, 4) && !memcmp(p->dst, dst4, 4) &&
	       p->tcp_seq == 0x11223344 && p->tcp_ack == 0x55667788 && p->tcp_window == 29200 &&
	       p->tcp_flags == (AFW_TCP_SYN | AFW_TCP_ACK) && p->payload_len == 5 &&
	       !memcmp(p->payload, "hello", 5);
}

/*
 * A headers queue's packets: the first bytes of IPv4 and IPv6 TCP packets,
 * decoded as packets that end there, with what did not come counted; cut
 * inside the headers, or longer than the decoder's copy, they fail.
 */
static void heads(int *failed)
{
	uint8_t b[512], head[AFW_PKT_HEAD_MAX], l4[300];
	char payload[201];
	struct afw_pkt p;
	size_t l4len, h, n, n6;

	memset(payload, 'z', 200);
	payload[200] = '\0';
	l4len = tcp(l4, 8, payload, AFW_TCP_ACK);
	h = ipv4(b, 4, 6, l4len, 0x4000);
	memcpy(b + h, l4, l4len);
	n = h + l4len;
	CHECK(*failed, "IPv4: the first 60 bytes decode: ports, seq, 8 payload bytes, 200 sent",
	      afw_pkt_decode_head(&p, head, b, 60, n) == AFW_PKT_OK && p.has_l4 &&
	      p.sport == 40000 && p.dport == 443 && p.tcp_seq == 0x11223344 &&
	      p.tcp_flags == AFW_TCP_ACK && p.payload_len == 8 && p.cut == 192 &&
	      p.payload == head + 52);
	CHECK(*failed, "the packet itself is left as it was",
	      b[2] == (uint8_t)(n >> 8) && b[3] == (uint8_t)n);
	CHECK(*failed, "a whole packet decodes with nothing cut",
	      afw_pkt_decode_head(&p, head, b, n, n) == AFW_PKT_OK && !p.cut &&
	      p.payload_len == 200);
	CHECK(*failed, "cut inside the TCP options, it fails",
	      afw_pkt_decode_head(&p, head, b, 50, n) == AFW_PKT_ETRUNC);
	CHECK(*failed, "more bytes than the copy holds fail",
	      afw_pkt_decode_head(&p, head, b, AFW_PKT_HEAD_MAX + 1, 70000) == AFW_PKT_ETRUNC);

	l4len = tcp(l4, 0, payload, AFW_TCP_ACK | AFW_TCP_PSH);
	h = ipv6(b, 6, l4len);
	memcpy(b + h, l4, l4len);
	n6 = h + l4len;
	CHECK(*failed, "IPv6: the first 64 bytes decode, 4 payload bytes, 196 cut",
	      afw_pkt_decode_head(&p, head, b, 64, n6) == AFW_PKT_OK && p.ipver == 6 &&
	      p.has_l4 && p.sport == 40000 && p.payload_len == 4 && p.cut == 196);
	CHECK(*failed, "a GSO packet's count of bytes wins over its IP length field",
	      afw_pkt_decode_head(&p, head, b, 64, 65000) == AFW_PKT_OK && p.cut == 65000 - 64);
	CHECK(*failed, "cut inside the IPv6 header, it fails",
	      afw_pkt_decode_head(&p, head, b, 30, n6) == AFW_PKT_ETRUNC);
}

/* Every strict prefix of a good packet fails cleanly; a copy of exactly that length is used. */
static bool prefixes_fail(unsigned int link, const uint8_t *b, size_t len, size_t first_bad)
{
	struct afw_pkt p;
	size_t n;

	for (n = first_bad; n < len; n++) {
		uint8_t *copy = malloc(n ? n : 1);
		enum afw_pkt_err err;

		memcpy(copy, b, n);
		err = afw_pkt_decode(&p, link, copy, n);
		free(copy);
		if (err != AFW_PKT_ETRUNC || !p.reason)
			return false;
	}
	return afw_pkt_decode(&p, link, b, len) == AFW_PKT_OK;
}

/*
 * The ports of every protocol that has them: a "dport" rule can only match
 * what the decoder read. @hdr is the L4 header after the ports.
 */
static void ports(int *failed)
{
	static const struct {
		uint8_t proto;
		const char *name;
		size_t hlen;		/* the L4 header, ports included */
		uint8_t byte4, byte8;	/* DCCP: Data Offset, X bit */
	} cases[] = {
		{ 17, "UDP", 8, 0, 0 },
		{ 136, "UDP-Lite", 8, 0, 0 },
		{ 132, "SCTP", 12, 0, 0 },
		{ 33, "DCCP (short sequence numbers)", 12, 3, 0 },
		{ 33, "DCCP (long sequence numbers)", 16, 4, 1 },
	};
	uint8_t b[128], l4[64];
	struct afw_pkt p;
	char what[128];
	size_t i, h, l4len;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(l4, 0, sizeof(l4));
		put16(l4, 40001);
		put16(l4 + 2, 5060);
		if (cases[i].proto == 17 || cases[i].proto == 136)
			put16(l4 + 4, (uint16_t)(cases[i].hlen + 3));
		l4[4] = cases[i].proto == 33 ? cases[i].byte4 : l4[4];
		l4[8] = cases[i].proto == 33 ? cases[i].byte8 : l4[8];
		memcpy(l4 + cases[i].hlen, "abc", 3);
		l4len = cases[i].hlen + 3;
		h = ipv4(b, 0, cases[i].proto, l4len, 0);
		memcpy(b + h, l4, l4len);
		snprintf(what, sizeof(what), "%s: ports and payload decoded", cases[i].name);
		CHECK(*failed, what,
		      afw_pkt_decode(&p, AFW_LINK_RAW, b, h + l4len) == AFW_PKT_OK && p.has_l4 &&
		      p.sport == 40001 && p.dport == 5060 && p.payload_len == 3 &&
		      !memcmp(p.payload, "abc", 3));
		/* The datagram ends one byte into where the header should end. */
		h = ipv4(b, 0, cases[i].proto, cases[i].hlen - 1, 0);
		memcpy(b + h, l4, cases[i].hlen - 1);
		snprintf(what, sizeof(what), "%s: a header cut short is truncated, not read past",
			 cases[i].name);
		CHECK(*failed, what, afw_pkt_decode(&p, AFW_LINK_RAW, b, h + cases[i].hlen - 1) ==
		      AFW_PKT_ETRUNC && !p.has_l4);
	}
	memset(l4, 0, sizeof(l4));
	l4[4] = 2;
	h = ipv4(b, 0, 33, 16, 0);
	memcpy(b + h, l4, 16);
	CHECK(*failed, "DCCP: a Data Offset below the header is malformed",
	      afw_pkt_decode(&p, AFW_LINK_RAW, b, h + 16) == AFW_PKT_EMALFORMED);
	l4[4] = 3;
	l4[8] = 1;
	memcpy(b + h, l4, 16);
	CHECK(*failed, "DCCP: with long sequence numbers, 12 bytes is too short",
	      afw_pkt_decode(&p, AFW_LINK_RAW, b, h + 16) == AFW_PKT_EMALFORMED);
}

int main(void)
{
	uint8_t b[256], f[300], big[512];
	struct afw_pkt p, q;
	struct afw_pkt_key k1, k2;
	size_t n, n6, j;
	int failed = 0, s1, s2;

	heads(&failed);
	n = pkt4(b);
	CHECK(failed, "raw IPv4 TCP with IP and TCP options decodes",
	      afw_pkt_decode(&p, AFW_LINK_RAW, b, n) == AFW_PKT_OK && is_tcp4(&p) &&
	      p.l3_off == 0 && p.l4_off == 24 && p.ttl == 64 && !p.frag);
	CHECK(failed, "LINKTYPE_IPV4 decodes the same",
	      afw_pkt_decode(&q, AFW_LINK_IPV4, b, n) == AFW_PKT_OK && is_tcp4(&q));
	CHECK(failed, "LINKTYPE_IPV6 refuses an IPv4 packet",
	      afw_pkt_decode(&q, AFW_LINK_IPV6, b, n) == AFW_PKT_EMALFORMED);

	/* Ethernet, with padding after the datagram, then one and two VLAN tags */
	memset(f, 0xee, sizeof(f));
	put16(f + 12, 0x0800);
	memcpy(f + 14, b, n);
	CHECK(failed, "Ethernet padding is not payload",
	      afw_pkt_decode(&p, AFW_LINK_EN10MB, f, 14 + n + 9) == AFW_PKT_OK && is_tcp4(&p) &&
	      p.l3_off == 14 && p.nvlan == 0);
	put16(f + 12, 0x8100);
	put16(f + 14, 100);
	put16(f + 16, 0x0800);
	memcpy(f + 18, b, n);
	CHECK(failed, "one VLAN tag is skipped",
	      afw_pkt_decode(&p, AFW_LINK_EN10MB, f, 18 + n) == AFW_PKT_OK && is_tcp4(&p) &&
	      p.nvlan == 1 && p.l3_off == 18);
	put16(f + 12, 0x88a8);
	put16(f + 16, 0x8100);
	put16(f + 18, 200);
	put16(f + 20, 0x0800);
	memcpy(f + 22, b, n);
	CHECK(failed, "two VLAN tags (QinQ) are skipped",
	      afw_pkt_decode(&p, AFW_LINK_EN10MB, f, 22 + n) == AFW_PKT_OK && is_tcp4(&p) &&
	      p.nvlan == 2);
	CHECK(failed, "each prefix of a QinQ frame is a truncation error",
	      prefixes_fail(AFW_LINK_EN10MB, f, 22 + n, 0));
	put16(f + 20, 0x8100);
	CHECK(failed, "a third VLAN tag is refused",
	      afw_pkt_decode(&p, AFW_LINK_EN10MB, f, 26 + n) == AFW_PKT_EUNSUPP);
	put16(f + 12, 0x0806);
	CHECK(failed, "ARP is unsupported, with a reason",
	      afw_pkt_decode(&p, AFW_LINK_EN10MB, f, 60) == AFW_PKT_EUNSUPP &&
	      strstr(p.reason, "not IPv4 or IPv6"));

	/* The other link headers */
	memset(f, 0, sizeof(f));
	f[0] = 2;
	memcpy(f + 4, b, n);
	CHECK(failed, "DLT_NULL in little-endian decodes",
	      afw_pkt_decode(&p, AFW_LINK_NULL, f, 4 + n) == AFW_PKT_OK && is_tcp4(&p));
	memset(f, 0, 4);
	f[3] = 2;
	CHECK(failed, "DLT_NULL in big-endian decodes",
	      afw_pkt_decode(&p, AFW_LINK_NULL, f, 4 + n) == AFW_PKT_OK && is_tcp4(&p));
	CHECK(failed, "LOOP decodes",
	      afw_pkt_decode(&p, AFW_LINK_LOOP, f, 4 + n) == AFW_PKT_OK && is_tcp4(&p));
	memset(f, 0, 16);
	put16(f + 14, 0x0800);
	memcpy(f + 16, b, n);
	CHECK(failed, "Linux cooked capture decodes",
	      afw_pkt_decode(&p, AFW_LINK_LINUX_SLL, f, 16 + n) == AFW_PKT_OK && is_tcp4(&p) &&
	      p.l3_off == 16);
	CHECK(failed, "each prefix of a cooked capture is a truncation error",
	      prefixes_fail(AFW_LINK_LINUX_SLL, f, 16 + n, 0));
	memset(f, 0, 20);
	put16(f, 0x0800);
	memcpy(f + 20, b, n);
	CHECK(failed, "Linux cooked capture v2 decodes",
	      afw_pkt_decode(&p, AFW_LINK_LINUX_SLL2, f, 20 + n) == AFW_PKT_OK && is_tcp4(&p));
	CHECK(failed, "an unknown link type is refused",
	      afw_pkt_decode(&p, 147, b, n) == AFW_PKT_EUNSUPP);

	/* IPv6 with an extension header chain */
	n6 = pkt6(b);
	CHECK(failed, "IPv6 past hop-by-hop and destination options reaches TCP",
	      afw_pkt_decode(&p, AFW_LINK_RAW, b, n6) == AFW_PKT_OK && p.ipver == 6 &&
	      p.proto == 6 && p.has_l4 && p.sport == 40000 && p.l4_off == 64 &&
	      !memcmp(p.src, src6, 16) && !memcmp(p.dst, dst6, 16) && p.payload_len == 2 &&
	      !memcmp(p.payload, "hi", 2) && p.ttl == 63);
	CHECK(failed, "each prefix of it is a truncation error",
	      prefixes_fail(AFW_LINK_RAW, b, n6, 1));
	b[41] = 200;
	CHECK(failed, "an extension header longer than the payload is truncated",
	      afw_pkt_decode(&p, AFW_LINK_RAW, b, n6) == AFW_PKT_ETRUNC);
	n = ipv6(b, 0, 17 * 8 + 20);
	memset(b + n, 0, 17 * 8 + 20);
	CHECK(failed, "17 hop-by-hop headers in a row are malformed",
	      afw_pkt_decode(&p, AFW_LINK_RAW, b, n + 17 * 8 + 20) == AFW_PKT_EMALFORMED &&
	      strstr(p.reason, "chain"));
	/* Linux reads a segment behind any number of destination options headers. */
	n = ipv6(big, 60, 40 * 8 + 20);
	for (j = 0; j < 40; j++) {
		memset(big + n + j * 8, 0, 8);
		big[n + j * 8] = j < 39 ? 60 : 6;
		big[n + j * 8 + 2] = 1;	/* PadN, 4 bytes */
		big[n + j * 8 + 3] = 4;
	}
	memset(big + n + 320, 0, 20);
	put16(big + n + 320, 40000);
	put16(big + n + 322, 443);
	big[n + 320 + 12] = 5 << 4;
	CHECK(failed, "TCP behind 40 destination options headers decodes",
	      afw_pkt_decode(&p, AFW_LINK_RAW, big, n + 340) == AFW_PKT_OK && p.proto == 6 &&
	      p.has_l4 && p.dport == 443);
	big[n + 8] = 0;
	CHECK(failed, "a hop-by-hop options header after the first is malformed",
	      afw_pkt_decode(&p, AFW_LINK_RAW, big, n + 340) == AFW_PKT_EMALFORMED);

	/* IPv6 fragments: the first has ports, a later one has none */
	n = ipv6(b, 44, 8 + 8 + 4);
	memset(b + n, 0, 8);
	b[n] = 17;
	put16(b + n + 2, 1);	/* offset 0, more fragments */
	memset(b + n + 8, 0, 12);
	put16(b + n + 8, 5353);
	put16(b + n + 10, 53);
	put16(b + n + 12, 400);	/* the whole datagram's length */
	CHECK(failed, "an IPv6 first fragment has its UDP ports",
	      afw_pkt_decode(&p, AFW_LINK_RAW, b, n + 20) == AFW_PKT_OK && p.proto == 17 &&
	      p.has_l4 && p.dport == 53 && p.frag == AFW_PKT_FRAG && p.payload_len == 4);
	put16(b + n + 2, 185 << 3);
	CHECK(failed, "a later IPv6 fragment has none",
	      afw_pkt_decode(&p, AFW_LINK_RAW, b, n + 20) == AFW_PKT_OK && p.proto == 17 &&
	      !p.has_l4 && p.frag == (AFW_PKT_FRAG | AFW_PKT_FRAG_LATER) &&
	      p.payload_len == 12);

	/* IPv4 fragments */
	n = ipv4(b, 0, 6, 28, 0x2000);
	tcp(b + n, 0, "12345678", AFW_TCP_ACK);
	CHECK(failed, "an IPv4 first fragment has its ports",
	      afw_pkt_decode(&p, AFW_LINK_RAW, b, n + 28) == AFW_PKT_OK && p.has_l4 &&
	      p.dport == 443 && p.frag == AFW_PKT_FRAG);
	put16(b + 6, 0x0003);
	CHECK(failed, "a later IPv4 fragment has none",
	      afw_pkt_decode(&p, AFW_LINK_RAW, b, n + 28) == AFW_PKT_OK && !p.has_l4 &&
	      p.sport == 0 && p.frag == (AFW_PKT_FRAG | AFW_PKT_FRAG_LATER) &&
	      p.payload_len == 28);
	n = ipv4(b, 0, 6, 8, 0x2000);
	tcp(b + n, 0, "", 0);
	CHECK(failed, "a first fragment too short for the TCP header is an error",
	      afw_pkt_decode(&p, AFW_LINK_RAW, b, n + 8) == AFW_PKT_ETRUNC);

	/* Impossible fields */
	n = pkt4(b);
	b[0] = 0x44;
	CHECK(failed, "IHL 4 is malformed", afw_pkt_decode(&p, AFW_LINK_RAW, b, n) ==
	      AFW_PKT_EMALFORMED && strstr(p.reason, "header length"));
	pkt4(b);
	put16(b + 2, 10);
	CHECK(failed, "a total length below the header length is malformed",
	      afw_pkt_decode(&p, AFW_LINK_RAW, b, n) == AFW_PKT_EMALFORMED);
	put16(b + 2, (uint16_t)(n + 1));
	CHECK(failed, "a total length past the buffer is truncated",
	      afw_pkt_decode(&p, AFW_LINK_RAW, b, n) == AFW_PKT_ETRUNC &&
	      !memcmp(p.src, src4, 4));
	pkt4(b);
	b[24 + 12] = 0x40;
	CHECK(failed, "TCP data offset 4 is malformed",
	      afw_pkt_decode(&p, AFW_LINK_RAW, b, n) == AFW_PKT_EMALFORMED);
	b[24 + 12] = 0xf0;
	CHECK(failed, "TCP data offset 15 past the segment is truncated",
	      afw_pkt_decode(&p, AFW_LINK_RAW, b, n) == AFW_PKT_ETRUNC);
	n = ipv4(b, 0, 17, 12, 0);
	memset(b + n, 0, 12);
	put16(b + n + 4, 7);
	CHECK(failed, "UDP length 7 is malformed",
	      afw_pkt_decode(&p, AFW_LINK_RAW, b, n + 12) == AFW_PKT_EMALFORMED);
	put16(b + n + 4, 10);
	CHECK(failed, "UDP length bounds the payload",
	      afw_pkt_decode(&p, AFW_LINK_RAW, b, n + 12) == AFW_PKT_OK && p.payload_len == 2);
	put16(b + n + 4, 13);
	CHECK(failed, "UDP length past the datagram is truncated",
	      afw_pkt_decode(&p, AFW_LINK_RAW, b, n + 12) == AFW_PKT_ETRUNC);
	CHECK(failed, "an empty buffer is truncated",
	      afw_pkt_decode(&p, AFW_LINK_RAW, NULL, 0) == AFW_PKT_ETRUNC && p.reason);
	b[0] = 0x50;
	CHECK(failed, "IP version 5 is malformed",
	      afw_pkt_decode(&p, AFW_LINK_RAW, b, 40) == AFW_PKT_EMALFORMED);
	n = ipv4(b, 0, 1, 8, 0);
	b[n] = 3;
	b[n + 1] = 4;
	CHECK(failed, "ICMP type and code are read",
	      afw_pkt_decode(&p, AFW_LINK_RAW, b, n + 8) == AFW_PKT_OK && p.icmp_type == 3 &&
	      p.icmp_code == 4 && p.payload_len == 4);
	CHECK(failed, "an unreachable is no echo", p.echo == AFW_PKT_ECHO_NONE);
	b[n] = 8;
	b[n + 1] = 0;
	put16(b + n + 4, 0x1234);
	CHECK(failed, "an echo request's identifier is read",
	      afw_pkt_decode(&p, AFW_LINK_RAW, b, n + 8) == AFW_PKT_OK &&
	      p.echo == AFW_PKT_ECHO_REQUEST && p.echo_id == 0x1234 && p.sport == 0 && p.dport == 0);
	{
		struct afw_pkt_key ka, kb;
		uint8_t tmp[4];
		int sa, sb;

		sa = afw_pkt_flow_key(&p, &ka);
		/* The reply: addresses swapped, type 0. */
		memcpy(tmp, b + 12, 4);
		memcpy(b + 12, b + 16, 4);
		memcpy(b + 16, tmp, 4);
		b[n] = 0;
		afw_pkt_decode(&q, AFW_LINK_RAW, b, n + 8);
		sb = afw_pkt_flow_key(&q, &kb);
		CHECK(failed, "an echo's reply has its request's key, from the other side",
		      q.echo == AFW_PKT_ECHO_REPLY && !memcmp(&ka, &kb, sizeof(ka)) && sa != sb &&
		      afw_pkt_key_echo(&ka));
		b[n] = 8;
		afw_pkt_decode(&q, AFW_LINK_RAW, b, n + 8);
		afw_pkt_flow_key(&q, &kb);
		CHECK(failed, "a request the other way with the same identifier has another key",
		      memcmp(&ka, &kb, sizeof(ka)) != 0);
		put16(b + n + 4, 0x1235);
		afw_pkt_decode(&p, AFW_LINK_RAW, b, n + 8);
		afw_pkt_flow_key(&p, &ka);
		CHECK(failed, "and so has another identifier", memcmp(&ka, &kb, sizeof(ka)) != 0);
		b[n] = 3;
		afw_pkt_decode(&p, AFW_LINK_RAW, b, n + 8);
		afw_pkt_flow_key(&p, &ka);
		b[n + 4] = 0;
		memcpy(tmp, b + 12, 4);
		memcpy(b + 12, b + 16, 4);
		memcpy(b + 16, tmp, 4);
		afw_pkt_decode(&q, AFW_LINK_RAW, b, n + 8);
		afw_pkt_flow_key(&q, &kb);
		CHECK(failed, "other ICMP is keyed by its sender: the two ways differ",
		      !afw_pkt_key_echo(&ka) && ka.icmp && memcmp(&ka, &kb, sizeof(ka)) != 0);
	}
	{
		/* Echoes by family, length, fragment; a host pinging itself. */
		struct afw_pkt_key ka, kb;

		/* Family, protocol, type, ICMP bytes: what the decoder takes for an echo. */
		static const struct {
			uint8_t ver, proto, type, len, echo;
			const char *name;
		} cases[] = {
			{ 6, 58, 128, 8, AFW_PKT_ECHO_REQUEST, "an ICMPv6 echo request is read" },
			{ 6, 58, 129, 8, AFW_PKT_ECHO_REPLY, "and a reply" },
			{ 6, 58, 8, 8, AFW_PKT_ECHO_NONE, "ICMPv6 type 8 is no echo" },
			{ 6, 1, 8, 8, AFW_PKT_ECHO_NONE, "nor is ICMP (IPv4's) type 8 over IPv6" },
			{ 4, 58, 128, 8, AFW_PKT_ECHO_NONE, "nor ICMPv6's type 128 over IPv4" },
			{ 4, 1, 8, 6, AFW_PKT_ECHO_NONE, "an echo cut short of its identifier is no echo" },
		};
		size_t i;

		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			n = cases[i].ver == 6 ? ipv6(b, cases[i].proto, cases[i].len) :
						 ipv4(b, 0, cases[i].proto, cases[i].len, 0);
			memset(b + n, 0, cases[i].len);
			b[n] = cases[i].type;
			put16(b + n + 4, 77);
			CHECK(failed, cases[i].name,
			      afw_pkt_decode(&p, AFW_LINK_RAW, b, n + cases[i].len) == AFW_PKT_OK &&
			      p.echo == cases[i].echo && p.echo_id == (p.echo ? 77 : 0));
		}
		n = ipv4(b, 0, 1, 8, 0x2001);
		memset(b + n, 0, 8);
		b[n] = 8;
		afw_pkt_decode(&p, AFW_LINK_RAW, b, n + 8);
		CHECK(failed, "a later fragment of an echo is ICMP keyed by its sender, no echo",
		      !p.has_l4 && !p.echo &&
		      afw_pkt_flow_key(&p, &ka) + AFW_PKT_KEY_ICMP_SENT == ka.icmp);
		n = ipv4(b, 0, 1, 8, 0);
		memset(b + n, 0, 8);
		memcpy(b + 16, src4, 4);
		b[n] = 8;
		put16(b + n + 4, 9);
		afw_pkt_decode(&p, AFW_LINK_RAW, b, n + 8);
		afw_pkt_flow_key(&p, &ka);
		b[n] = 0;
		afw_pkt_decode(&q, AFW_LINK_RAW, b, n + 8);
		afw_pkt_flow_key(&q, &kb);
		CHECK(failed, "a host pinging itself: request and reply share the key",
		      !memcmp(&ka, &kb, sizeof(ka)) && afw_pkt_key_echo(&ka));
	}

	/* Flow key: one key for both directions, the side says who sent it */
	n = pkt4(b);
	afw_pkt_decode(&p, AFW_LINK_RAW, b, n);
	memcpy(b + 12, dst4, 4);
	memcpy(b + 16, src4, 4);
	put16(b + 24, 443);
	put16(b + 26, 40000);
	afw_pkt_decode(&q, AFW_LINK_RAW, b, n);
	s1 = afw_pkt_flow_key(&p, &k1);
	s2 = afw_pkt_flow_key(&q, &k2);
	CHECK(failed, "both directions give the same key and hash",
	      !memcmp(&k1, &k2, sizeof(k1)) && s1 != s2 &&
	      afw_pkt_key_hash(&k1, 7) == afw_pkt_key_hash(&k2, 7));
	CHECK(failed, "the seed changes the hash", afw_pkt_key_hash(&k1, 7) !=
	      afw_pkt_key_hash(&k1, 8));
	CHECK(failed, "the sender of a SYN+ACK is the server",
	      afw_pkt_client_side(&p, s1) == s2);
	q.tcp_flags = AFW_TCP_SYN;
	CHECK(failed, "the sender of a SYN is the client", afw_pkt_client_side(&q, s2) == s2);
	put16(b + 24, 40001);
	afw_pkt_decode(&q, AFW_LINK_RAW, b, n);
	afw_pkt_flow_key(&q, &k2);
	CHECK(failed, "another port is another key", memcmp(&k1, &k2, sizeof(k1)));
	ports(&failed);
	return failed;
}
