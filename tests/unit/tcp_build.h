/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Builds IPv4 TCP segments and ClientHellos for the engine's tests and its
 * fuzz target: what a client and a server put on the wire, with any flag,
 * option, checksum or urgent pointer, good or bad.
 */
#ifndef AFW_TEST_TCP_BUILD_H
#define AFW_TEST_TCP_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define TB_FIN 0x01
#define TB_SYN 0x02
#define TB_RST 0x04
#define TB_PSH 0x08
#define TB_ACK 0x10
#define TB_URG 0x20

/* One segment's fields; zeroes are a plain segment. */
struct tb_seg {
	bool from_server;
	uint8_t flags;
	uint32_t seq, ack;
	uint16_t win;		/* 0 means 65535; use zero_win for a real 0 */
	bool zero_win;
	uint16_t urg;
	bool bad_csum;
	bool md5;
	bool has_ts;
	uint32_t tsval, tsecr;
	int wscale;		/* -1 or 0: none; else the shift + 1 */
	uint8_t ttl;
	uint16_t sport;		/* the client's port; 0 means 40000 */
	uint32_t indev;		/* not on the wire: the interface it comes in on */
	const uint8_t *data;
	size_t len;
};

static inline void tb_put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

static inline void tb_put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

static inline uint16_t tb_csum(const uint8_t *b, size_t len, uint32_t sum)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (len & 1)
		sum += (uint32_t)b[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * The segment as an IPv4 packet from client 192.0.2.10:SPORT to server
 * 198.51.100.20:443 (or back) into @buf; returns its length. @buf must hold
 * 60 + 40 + len bytes.
 */
static inline size_t tb_build(uint8_t *buf, const struct tb_seg *s)
{
	static const uint8_t cli[4] = { 192, 0, 2, 10 }, srv[4] = { 198, 51, 100, 20 };
	uint8_t *ip = buf, *tcp = buf + 20, *o = tcp + 20, pseudo[12];
	size_t olen = 0, tlen;
	uint16_t c;

	if (s->md5) {
		o[olen++] = 19;
		o[olen++] = 18;
		memset(o + olen, 0, 16);
		olen += 16;
	}
	if (s->has_ts) {
		o[olen++] = 1;
		o[olen++] = 1;
		o[olen++] = 8;
		o[olen++] = 10;
		tb_put32(o + olen, s->tsval);
		tb_put32(o + olen + 4, s->tsecr);
		olen += 8;
	}
	if (s->wscale > 0) {
		o[olen++] = 1;
		o[olen++] = 3;
		o[olen++] = 3;
		o[olen++] = (uint8_t)(s->wscale - 1);
	}
	while (olen % 4)
		o[olen++] = 0;
	tlen = 20 + olen + s->len;
	memset(tcp, 0, 20);
	tb_put16(tcp, s->from_server ? 443 : s->sport ? s->sport : 40000);
	tb_put16(tcp + 2, s->from_server ? s->sport ? s->sport : 40000 : 443);
	tb_put32(tcp + 4, s->seq);
	tb_put32(tcp + 8, s->ack);
	tcp[12] = (uint8_t)((20 + olen) / 4 << 4);
	tcp[13] = s->flags;
	tb_put16(tcp + 14, s->zero_win ? 0 : s->win ? s->win : 65535);
	tb_put16(tcp + 18, s->urg);
	if (s->len)
		memcpy(tcp + 20 + olen, s->data, s->len);
	memcpy(pseudo, s->from_server ? srv : cli, 4);
	memcpy(pseudo + 4, s->from_server ? cli : srv, 4);
	pseudo[8] = 0;
	pseudo[9] = 6;
	tb_put16(pseudo + 10, (uint16_t)tlen);
	c = tb_csum(tcp, tlen, (uint32_t)(uint16_t)~tb_csum(pseudo, 12, 0));
	tb_put16(tcp + 16, s->bad_csum ? (uint16_t)(c ^ 0x5555) : c);
	memset(ip, 0, 20);
	ip[0] = 0x45;
	tb_put16(ip + 2, (uint16_t)(20 + tlen));
	ip[6] = 0x40;
	ip[8] = s->ttl ? s->ttl : 64;
	ip[9] = 6;
	memcpy(ip + 12, s->from_server ? srv : cli, 4);
	memcpy(ip + 16, s->from_server ? cli : srv, 4);
	tb_put16(ip + 10, tb_csum(ip, 20, 0));
	return 20 + tlen;
}

/* A UDP datagram from the client (or back) with @len bytes of @data; returns its length. */
static inline size_t tb_udp(uint8_t *buf, bool from_server, const uint8_t *data, size_t len)
{
	static const uint8_t cli[4] = { 192, 0, 2, 10 }, srv[4] = { 198, 51, 100, 20 };
	uint8_t *ip = buf, *udp = buf + 20, pseudo[12];
	uint16_t c;

	memset(buf, 0, 28);
	tb_put16(udp, from_server ? 443 : 40000);
	tb_put16(udp + 2, from_server ? 40000 : 443);
	tb_put16(udp + 4, (uint16_t)(8 + len));
	memcpy(udp + 8, data, len);
	memcpy(pseudo, from_server ? srv : cli, 4);
	memcpy(pseudo + 4, from_server ? cli : srv, 4);
	pseudo[8] = 0;
	pseudo[9] = 17;
	tb_put16(pseudo + 10, (uint16_t)(8 + len));
	c = tb_csum(udp, 8 + len, (uint32_t)(uint16_t)~tb_csum(pseudo, 12, 0));
	tb_put16(udp + 6, c ? c : 0xffff);
	ip[0] = 0x45;
	tb_put16(ip + 2, (uint16_t)(28 + len));
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, from_server ? srv : cli, 4);
	memcpy(ip + 16, from_server ? cli : srv, 4);
	tb_put16(ip + 10, tb_csum(ip, 20, 0));
	return 28 + len;
}

/*
 * A ClientHello naming @host (TLS 1.2 layout, one cipher, the SNI and
 * @pad bytes of padding extension) in one record, into @buf; returns its
 * length. @buf must hold 64 + strlen(host) + pad bytes.
 */
static inline size_t tb_hello(uint8_t *buf, const char *host, size_t pad)
{
	size_t hl = strlen(host), ext = 9 + hl + (pad ? 4 + pad : 0);
	size_t body = 2 + 32 + 1 + 4 + 2 + 2 + ext;
	uint8_t *p = buf;

	*p++ = 22;
	*p++ = 3;
	*p++ = 1;
	tb_put16(p, (uint16_t)(4 + body));
	p += 2;
	*p++ = 1;
	*p++ = (uint8_t)(body >> 16);
	tb_put16(p, (uint16_t)body);
	p += 2;
	*p++ = 3;
	*p++ = 3;
	memset(p, 0x42, 32);
	p += 32;
	*p++ = 0;			/* session_id */
	tb_put16(p, 2);
	tb_put16(p + 2, 0x1301);
	p += 4;
	*p++ = 1;			/* compression_methods: null */
	*p++ = 0;
	tb_put16(p, (uint16_t)ext);
	p += 2;
	tb_put16(p, 0);			/* server_name */
	tb_put16(p + 2, (uint16_t)(5 + hl));
	tb_put16(p + 4, (uint16_t)(3 + hl));
	p[6] = 0;
	tb_put16(p + 7, (uint16_t)hl);
	memcpy(p + 9, host, hl);
	p += 9 + hl;
	if (pad) {
		tb_put16(p, 0x0015);
		tb_put16(p + 2, (uint16_t)pad);
		memset(p + 4, 0, pad);
		p += 4 + pad;
	}
	return (size_t)(p - buf);
}

#endif /* AFW_TEST_TCP_BUILD_H */
