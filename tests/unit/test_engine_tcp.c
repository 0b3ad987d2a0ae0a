// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's TCP path, packet by packet: an allow is handed over only
 * when the server has acknowledged the judged bytes; a segment the server
 * would discard (checksum, no ACK, ACK out of range, out of window, PAWS,
 * MD5) is dropped and never read; what cannot be stored is dropped; a new
 * connection on a decided 5-tuple is analyzed; the urgent byte is out of
 * the stream; every give-up carries its reason; decided flows are kept.
 */

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine.h"
#include "tcp_build.h"

#define MS 1000000ull
#define CISN 1000u
#define SISN 5000u

static int failed;
static struct afw_policy *pol;

struct t {
	struct afw_engine *e;
	struct afw_result res;
	bool decided;
	uint64_t now;
	uint32_t isn, sisn;
	uint32_t tsval;		/* nonzero: the client's segments carry timestamps */
};

static void t_init(struct t *t, const struct afw_engine_opts *o)
{
	struct afw_engine_opts def = { .max_flows = 16, .max_bytes = 1 << 20, .max_packets = 64,
				       .max_ns = 5000 * MS, .max_decided = 64,
				       .max_memory = 64 << 20 };

	memset(t, 0, sizeof(*t));
	t->e = afw_engine_new(o ? o : &def);
	t->now = 1000 * MS;
	t->isn = CISN;
	t->sisn = SISN;
}

/* Feeds @s; returns its verdict. */
static enum afw_pass t_seg(struct t *t, struct tb_seg s)
{
	uint8_t buf[70000];
	struct afw_pkt p;
	size_t n;

	if (!s.from_server && t->tsval && !s.has_ts && !(s.flags & TB_SYN)) {
		s.has_ts = true;
		s.tsval = t->tsval;
	}
	n = tb_build(buf, &s);
	if (afw_pkt_decode(&p, AFW_LINK_RAW, buf, n) != AFW_PKT_OK)
		abort();
	p.indev = s.indev;
	t->now += MS;
	return afw_engine_packet(t->e, pol, &p, false, 0, t->now, &t->res, &t->decided);
}

/*
 * Feeds the first @keep bytes of @s, as a headers queue delivers it
 * (afw_pkt_decode_head()); *@enough gets afw_engine_headers_enough().
 */
static enum afw_pass t_seg_head(struct t *t, struct tb_seg s, size_t keep, bool *enough)
{
	uint8_t buf[70000], head[AFW_PKT_HEAD_MAX];
	struct afw_pkt p;
	size_t n;

	n = tb_build(buf, &s);
	if (keep > n || afw_pkt_decode_head(&p, head, buf, keep, n) != AFW_PKT_OK)
		abort();
	*enough = afw_engine_headers_enough(t->e, &p);
	t->now += MS;
	return afw_engine_packet(t->e, pol, &p, false, 0, t->now, &t->res, &t->decided);
}

/* A client segment at stream offset @off, acknowledging the SYN-ACK. */
static enum afw_pass t_data(struct t *t, uint32_t off, const uint8_t *d, size_t len)
{
	return t_seg(t, (struct tb_seg){ .flags = TB_ACK | TB_PSH, .seq = t->isn + 1 + off,
					 .ack = t->sisn + 1, .data = d, .len = len });
}

/* The server acknowledging the client's bytes up to offset @upto. */
static enum afw_pass t_sack(struct t *t, uint32_t upto)
{
	return t_seg(t, (struct tb_seg){ .from_server = true, .flags = TB_ACK,
					 .seq = t->sisn + 1, .ack = t->isn + 1 + upto });
}

static void t_handshake(struct t *t)
{
	t_seg(t, (struct tb_seg){ .flags = TB_SYN, .seq = t->isn });
	t_seg(t, (struct tb_seg){ .from_server = true, .flags = TB_SYN | TB_ACK, .seq = t->sisn,
				  .ack = t->isn + 1 });
	t_seg(t, (struct tb_seg){ .flags = TB_ACK, .seq = t->isn + 1, .ack = t->sisn + 1 });
}

/* The client's bytes at @off: dropped, the flow denied by the name blocked.test. */
static bool t_denied(struct t *t, uint32_t off, const uint8_t *d, size_t len)
{
	return t_data(t, off, d, len) == AFW_PASS_DROP && t->decided &&
	       t->res.decision == AFW_DECIDE_DENY && !strcmp(t->res.host, "blocked.test");
}

/* A server that speaks first: its greeting, before any byte of the client's. */
static void t_greeting(struct t *t)
{
	t_seg(t, (struct tb_seg){ .from_server = true, .flags = TB_ACK | TB_PSH, .seq = SISN + 1,
				  .ack = CISN + 1, .data = (const uint8_t *)"220 x\r\n", .len = 7 });
}

static void test_confirmation(void)
{
	uint8_t h[128];
	size_t n = tb_hello(h, "allowed.test", 0);
	struct t t;

	t_init(&t, NULL);
	t_handshake(&t);
	CHECK(failed, "an allowed hello passes", t_data(&t, 0, h, n) == AFW_PASS_ACCEPT);
	CHECK(failed, "but is not decided before the server acknowledges it", !t.decided);
	t_sack(&t, (uint32_t)n - 1);
	CHECK(failed, "nor when the server acknowledges all but its last byte", !t.decided);
	CHECK(failed, "the server's ACK of all of it decides it", t_sack(&t, (uint32_t)n) ==
	      AFW_PASS_ACCEPT && t.decided && t.res.decision == AFW_DECIDE_ALLOW &&
	      !strcmp(t.res.host, "allowed.test") && t.res.giveup == AFW_REASON_NONE);
	CHECK(failed, "counted as confirmed", afw_engine_stats(t.e)->confirmed == 1);
	afw_engine_free(t.e);

	/*
	 * A router: the client on interface 2, the server on 3. An ACK with the
	 * server's address that comes in from the client's side, or from this
	 * host, is not the server's.
	 */
	t_init(&t, NULL);
	t_seg(&t, (struct tb_seg){ .flags = TB_SYN, .seq = CISN, .indev = 2 });
	t_seg(&t, (struct tb_seg){ .from_server = true, .flags = TB_SYN | TB_ACK, .seq = SISN,
				   .ack = CISN + 1, .indev = 3 });
	t_seg(&t, (struct tb_seg){ .flags = TB_ACK, .seq = CISN + 1, .ack = SISN + 1, .indev = 2 });
	t_seg(&t, (struct tb_seg){ .flags = TB_ACK | TB_PSH, .seq = CISN + 1, .ack = SISN + 1,
				   .data = h, .len = n, .indev = 2 });
	t_seg(&t, (struct tb_seg){ .from_server = true, .flags = TB_ACK, .seq = SISN + 1,
				   .ack = CISN + 1 + (uint32_t)n, .indev = 2 });
	CHECK(failed, "an ACK forged from the client's side confirms nothing", !t.decided);
	t_seg(&t, (struct tb_seg){ .from_server = true, .flags = TB_ACK, .seq = SISN + 1,
				   .ack = CISN + 1 + (uint32_t)n, .indev = 0 });
	CHECK(failed, "nor one forged on this host", !t.decided);
	t_seg(&t, (struct tb_seg){ .from_server = true, .flags = TB_ACK, .seq = SISN + 1,
				   .ack = CISN + 1 + (uint32_t)n, .indev = 3 });
	CHECK(failed, "the server's own does", t.decided && t.res.decision == AFW_DECIDE_ALLOW);
	afw_engine_free(t.e);

	/* The same bytes again before the ACK are a retransmit; other bytes, evasion. */
	t_init(&t, NULL);
	t_handshake(&t);
	t_data(&t, 0, h, n);
	CHECK(failed, "an equal copy before the ACK passes", t_data(&t, 0, h, n) ==
	      AFW_PASS_ACCEPT && !t.decided);
	h[n - 3] ^= 1;
	CHECK(failed, "a differing copy before the ACK is denied as evasion",
	      t_data(&t, (uint32_t)n - 3, h + n - 3, 3) == AFW_PASS_DROP && t.decided &&
	      t.res.decision == AFW_DECIDE_DENY && t.res.giveup == AFW_REASON_EVASION);
	afw_engine_free(t.e);
}

/* @spoil makes the fake hello something the server drops; the real one follows. */
static void insertion(const char *what, void (*spoil)(struct t *, struct tb_seg *))
{
	uint8_t good[128], bad[128];
	size_t ng = tb_hello(good, "allowed.test", 0), nb = tb_hello(bad, "blocked.test", 0);
	struct tb_seg s;
	char name[160];
	struct t t;

	t_init(&t, NULL);
	t_handshake(&t);
	s = (struct tb_seg){ .flags = TB_ACK | TB_PSH, .seq = t.isn + 1, .ack = t.sisn + 1,
			     .data = good, .len = ng };
	spoil(&t, &s);
	snprintf(name, sizeof(name), "%s: the fake hello is dropped, not read", what);
	CHECK(failed, name, t_seg(&t, s) == AFW_PASS_DROP && !t.decided);
	snprintf(name, sizeof(name), "%s: the real hello is judged, and denied", what);
	CHECK(failed, name, t_denied(&t, 0, bad, nb));
	afw_engine_free(t.e);
}

static void spoil_csum(struct t *t, struct tb_seg *s)
{
	(void)t;
	s->bad_csum = true;
}

static void spoil_noack(struct t *t, struct tb_seg *s)
{
	(void)t;
	s->flags = TB_PSH;
}

static void spoil_unsent(struct t *t, struct tb_seg *s)
{
	s->ack = t->sisn + 2;
}

static void spoil_old(struct t *t, struct tb_seg *s)
{
	s->ack = t->sisn;
}

static void spoil_md5(struct t *t, struct tb_seg *s)
{
	(void)t;
	s->md5 = true;
}

static void spoil_window(struct t *t, struct tb_seg *s)
{
	s->seq = t->isn + 1 + 65535;
}

static void test_insertions(void)
{
	struct t t;

	insertion("bad checksum", spoil_csum);
	insertion("no ACK flag", spoil_noack);
	insertion("ACK of data never sent", spoil_unsent);
	insertion("ACK older than the window", spoil_old);
	insertion("MD5 option", spoil_md5);
	insertion("past the window", spoil_window);

	/* PAWS, with timestamps on both sides. */
	{
		uint8_t good[128], bad[128];
		size_t ng = tb_hello(good, "allowed.test", 0), nb = tb_hello(bad, "blocked.test", 0);

		t_init(&t, NULL);
		t_seg(&t, (struct tb_seg){ .flags = TB_SYN, .seq = CISN, .has_ts = true,
					   .tsval = 500 });
		t_seg(&t, (struct tb_seg){ .from_server = true, .flags = TB_SYN | TB_ACK,
					   .seq = SISN, .ack = CISN + 1, .has_ts = true,
					   .tsval = 9, .tsecr = 500 });
		CHECK(failed, "PAWS: an older timestamp than the SYN's is dropped",
		      t_seg(&t, (struct tb_seg){ .flags = TB_ACK, .seq = CISN + 1, .ack = SISN + 1,
						 .has_ts = true, .tsval = 400, .data = good,
						 .len = ng }) == AFW_PASS_DROP);
		CHECK(failed, "PAWS: a newer one is read",
		      t_seg(&t, (struct tb_seg){ .flags = TB_ACK, .seq = CISN + 1, .ack = SISN + 1,
						 .has_ts = true, .tsval = 501, .data = bad,
						 .len = nb }) == AFW_PASS_DROP && t.decided &&
		      !strcmp(t.res.host, "blocked.test"));
		afw_engine_free(t.e);
	}

	/* A window scaled by the SYN-ACK's shift. */
	{
		uint8_t bad[128];

		tb_hello(bad, "blocked.test", 0);
		t_init(&t, NULL);
		t_seg(&t, (struct tb_seg){ .flags = TB_SYN, .seq = CISN, .wscale = 1 + 7 });
		t_seg(&t, (struct tb_seg){ .from_server = true, .flags = TB_SYN | TB_ACK,
					   .seq = SISN, .ack = CISN + 1, .wscale = 1 + 7,
					   .win = 1000 });
		CHECK(failed, "a SYN-ACK's window is not scaled: byte 1000 is past it",
		      t_data(&t, 1000, bad, 1) == AFW_PASS_DROP);
		t_seg(&t, (struct tb_seg){ .from_server = true, .flags = TB_ACK, .seq = SISN + 1,
					   .ack = CISN + 1, .win = 1000 });
		CHECK(failed, "a later window is: 1000 << 7 takes byte 100000",
		      t_data(&t, 100000, bad, 1) == AFW_PASS_ACCEPT);
		afw_engine_free(t.e);
	}

	/* Data before the server's SYN-ACK never reaches a stream. */
	{
		uint8_t bad[128];
		size_t nb = tb_hello(bad, "blocked.test", 0);

		t_init(&t, NULL);
		t_seg(&t, (struct tb_seg){ .flags = TB_SYN, .seq = CISN });
		CHECK(failed, "data before the SYN-ACK is dropped",
		      t_data(&t, 0, bad, nb) == AFW_PASS_DROP && !t.decided);
		afw_engine_free(t.e);
	}
}

static void test_syn(void)
{
	uint8_t good[128], bad[128];
	size_t ng = tb_hello(good, "allowed.test", 0), nb = tb_hello(bad, "blocked.test", 0);
	struct t t;

	/* Allowed, reset, then a new connection on the same ports. */
	t_init(&t, NULL);
	t_handshake(&t);
	t_data(&t, 0, good, ng);
	t_sack(&t, (uint32_t)ng);
	CHECK(failed, "reuse: the first connection is allowed", t.decided &&
	      t.res.decision == AFW_DECIDE_ALLOW);
	t_seg(&t, (struct tb_seg){ .flags = TB_RST | TB_ACK, .seq = CISN + 1 + (uint32_t)ng,
				   .ack = SISN + 1 });
	t.isn = 777777;
	t.sisn = 999999;
	t_handshake(&t);
	CHECK(failed, "reuse: the new connection's hello is judged, and denied",
	      t_data(&t, 0, bad, nb) == AFW_PASS_DROP && t.decided &&
	      t.res.decision == AFW_DECIDE_DENY);
	CHECK(failed, "reuse: counted as a restart", afw_engine_stats(t.e)->restarts == 1);
	afw_engine_free(t.e);

	/* The same ISN, after the handshake: still a new connection. */
	t_init(&t, NULL);
	t_handshake(&t);
	t_data(&t, 0, good, ng);
	t_sack(&t, (uint32_t)ng);
	t.sisn = 999999;
	t_handshake(&t);
	CHECK(failed, "reuse with the same ISN after the handshake: judged again",
	      t_data(&t, 0, bad, nb) == AFW_PASS_DROP && t.decided &&
	      t.res.decision == AFW_DECIDE_DENY);
	afw_engine_free(t.e);

	/* A SYN retransmitted before the handshake is just that. */
	t_init(&t, NULL);
	t_seg(&t, (struct tb_seg){ .flags = TB_SYN, .seq = CISN });
	t_seg(&t, (struct tb_seg){ .flags = TB_SYN, .seq = CISN });
	CHECK(failed, "a retransmitted SYN restarts nothing", afw_engine_stats(t.e)->restarts == 0);
	afw_engine_free(t.e);

	/*
	 * Denied; then a SYN with a new ISN that the server does not answer
	 * (its old connection lives on): the old connection stays denied,
	 * during the wait and after.
	 */
	t_init(&t, NULL);
	t_handshake(&t);
	t_data(&t, 0, bad, nb - 1);
	t_data(&t, (uint32_t)nb - 1, bad + nb - 1, 1);
	CHECK(failed, "tentative restart: first denied", t.decided &&
	      t.res.decision == AFW_DECIDE_DENY);
	t_seg(&t, (struct tb_seg){ .flags = TB_SYN, .seq = 424242 });
	CHECK(failed, "tentative restart: the old connection's last byte is still dropped",
	      t_data(&t, (uint32_t)nb - 1, bad + nb - 1, 1) == AFW_PASS_DROP);
	t.now += AFW_ENGINE_WAIT_NS + MS;
	afw_engine_expire(t.e, pol, t.now, false, NULL, NULL);
	CHECK(failed, "tentative restart: and after the wait, without a new decision",
	      t_data(&t, (uint32_t)nb - 1, bad + nb - 1, 1) == AFW_PASS_DROP && !t.decided);
	afw_engine_free(t.e);

	/*
	 * Allowed; a new SYN whose analysis is given up (no answer within the
	 * wait); then the server's SYN-ACK for it after all: the new connection
	 * is analyzed, not passed under the old allow.
	 */
	t_init(&t, NULL);
	t_handshake(&t);
	t_data(&t, 0, good, ng);
	t_sack(&t, (uint32_t)ng);
	t_seg(&t, (struct tb_seg){ .flags = TB_SYN, .seq = 424242 });
	t.now += AFW_ENGINE_WAIT_NS + MS;
	afw_engine_expire(t.e, pol, t.now, false, NULL, NULL);
	t.isn = 424242;
	t.sisn = 999999;
	t_seg(&t, (struct tb_seg){ .from_server = true, .flags = TB_SYN | TB_ACK, .seq = t.sisn,
				   .ack = t.isn + 1 });
	t_seg(&t, (struct tb_seg){ .flags = TB_ACK, .seq = t.isn + 1, .ack = t.sisn + 1 });
	CHECK(failed, "a late SYN-ACK for a given-up restart: the new hello is judged, and denied",
	      t_data(&t, 0, bad, nb) == AFW_PASS_DROP && t.decided &&
	      t.res.decision == AFW_DECIDE_DENY);
	afw_engine_free(t.e);

	/* Fast Open: SYN data the SYN-ACK does not acknowledge must come again, equal. */
	t_init(&t, NULL);
	t_seg(&t, (struct tb_seg){ .flags = TB_SYN, .seq = CISN, .data = good, .len = ng });
	t_seg(&t, (struct tb_seg){ .from_server = true, .flags = TB_SYN | TB_ACK, .seq = SISN,
				   .ack = CISN + 1 });
	CHECK(failed, "SYN data not acknowledged: other bytes after are evasion",
	      t_data(&t, 0, bad, nb) == AFW_PASS_DROP && t.decided &&
	      t.res.giveup == AFW_REASON_EVASION);
	afw_engine_free(t.e);
	t_init(&t, NULL);
	t_seg(&t, (struct tb_seg){ .flags = TB_SYN, .seq = CISN, .data = bad, .len = nb });
	CHECK(failed, "SYN data acknowledged by the SYN-ACK is read there",
	      t_seg(&t, (struct tb_seg){ .from_server = true, .flags = TB_SYN | TB_ACK,
					 .seq = SISN, .ack = CISN + 1 + (uint32_t)nb }) ==
	      AFW_PASS_DROP && t.decided && t.res.decision == AFW_DECIDE_DENY);
	afw_engine_free(t.e);
}

static void test_storage(void)
{
	uint8_t bad[128], x = 'x';
	size_t nb = tb_hello(bad, "blocked.test", 0);
	unsigned int i;
	struct t t;

	t_init(&t, NULL);
	t_seg(&t, (struct tb_seg){ .flags = TB_SYN, .seq = CISN });
	CHECK(failed, "no buffer at the SYN", afw_engine_stats(t.e)->memory == 0);
	t_seg(&t, (struct tb_seg){ .from_server = true, .flags = TB_SYN | TB_ACK, .seq = SISN,
				   .ack = CISN + 1 });
	/* Sixteen holes, then a seventeenth segment that fits nowhere. */
	for (i = 0; i < 16; i++)
		t_data(&t, 200 + 2 * i, &x, 1);
	CHECK(failed, "a buffer once data comes, a small one", afw_engine_stats(t.e)->memory > 0 &&
	      afw_engine_stats(t.e)->memory <= 4096);
	CHECK(failed, "a segment that cannot be stored is dropped",
	      t_data(&t, 300, &x, 1) == AFW_PASS_DROP &&
	      afw_engine_stats(t.e)->unstored == 1);
	afw_engine_free(t.e);

	/* A hello of 16,380 bytes, and one a byte per segment, each acknowledged. */
	{
		static uint8_t big[20000];
		/* 72 bytes of message around the padding, for a 12-letter name */
		size_t n = tb_hello(big, "blocked.test", 16380 - 72);

		t_init(&t, NULL);
		t_handshake(&t);
		for (i = 0; i + 1000 < n; i += 1000)
			t_data(&t, i, big + i, 1000);
		CHECK(failed, "a hello of 16 KiB is read", t_data(&t, i, big + i, n - i) ==
		      AFW_PASS_DROP && t.decided && !strcmp(t.res.host, "blocked.test"));
		afw_engine_free(t.e);
	}
	t_init(&t, NULL);
	t_handshake(&t);
	for (i = 0; i < nb && !t.decided; i++) {
		t_data(&t, i, bad + i, 1);
		if (!t.decided)
			t_sack(&t, i + 1);
	}
	CHECK(failed, "a byte per segment, each acknowledged, is read to the end",
	      t.decided && !strcmp(t.res.host, "blocked.test"));
	afw_engine_free(t.e);

	/* The memory budget: a second flow's buffer is refused, with its reason. */
	{
		struct afw_engine_opts o = { .max_flows = 16, .max_bytes = 1 << 20,
					     .max_packets = 64, .max_ns = 5000 * MS,
					     .max_decided = 64, .max_memory = 3000 };

		t_init(&t, &o);
		t_handshake(&t);
		t_data(&t, 0, bad, 10);
		CHECK(failed, "the budget: 2 KiB for the first flow",
		      afw_engine_stats(t.e)->memory == 2048);
		t_seg(&t, (struct tb_seg){ .sport = 40001, .flags = TB_SYN, .seq = CISN });
		t_seg(&t, (struct tb_seg){ .sport = 40001, .from_server = true,
					   .flags = TB_SYN | TB_ACK, .seq = SISN, .ack = CISN + 1 });
		t_seg(&t, (struct tb_seg){ .sport = 40001, .flags = TB_ACK | TB_PSH,
					   .seq = CISN + 1, .ack = SISN + 1, .data = bad,
					   .len = 10 });
		CHECK(failed, "the budget: none left for a second flow: reason table-full",
		      t.decided && t.res.giveup == AFW_REASON_TABLE_FULL);
		afw_engine_free(t.e);
	}
}

static void expired(const struct afw_result *r, void *data);

/* A ClientHello that offers TLS 1.3 (supported_versions), naming @host, into @b. */
static size_t t_hello13(uint8_t *b, const char *host)
{
	size_t hl = strlen(host), ext = 9 + hl + 7, body = 2 + 32 + 1 + 4 + 2 + 2 + ext, n = 0;

	b[n++] = 22, b[n++] = 3, b[n++] = 1;
	tb_put16(b + n, (uint16_t)(4 + body)), n += 2;
	b[n++] = 1, b[n++] = 0;
	tb_put16(b + n, (uint16_t)body), n += 2;
	b[n++] = 3, b[n++] = 3;
	memset(b + n, 7, 32), n += 32;
	b[n++] = 0;
	tb_put16(b + n, 2), n += 2;
	b[n++] = 0x13, b[n++] = 0x01;
	b[n++] = 1, b[n++] = 0;
	tb_put16(b + n, (uint16_t)ext), n += 2;
	tb_put16(b + n, 0), n += 2;
	tb_put16(b + n, (uint16_t)(5 + hl)), n += 2;
	tb_put16(b + n, (uint16_t)(3 + hl)), n += 2;
	b[n++] = 0;
	tb_put16(b + n, (uint16_t)hl), n += 2;
	memcpy(b + n, host, hl), n += hl;
	tb_put16(b + n, 43), n += 2;
	tb_put16(b + n, 3), n += 2;
	b[n++] = 2, b[n++] = 3, b[n++] = 4;
	return n;
}

/*
 * A router, the client on interface 2 and the server on @sdev, up to the
 * client's segment @d (@len bytes), with the module confirming allows
 * (@kernel).
 */
static void t_routed(struct t *t, bool kernel, uint32_t sdev, const uint8_t *d, size_t len)
{
	t_init(t, NULL);
	afw_engine_kernel_confirm(t->e, kernel);
	t_seg(t, (struct tb_seg){ .flags = TB_SYN, .seq = CISN, .indev = 2 });
	t_seg(t, (struct tb_seg){ .from_server = true, .flags = TB_SYN | TB_ACK, .seq = SISN,
				  .ack = CISN + 1, .indev = sdev });
	t_seg(t, (struct tb_seg){ .flags = TB_ACK, .seq = CISN + 1, .ack = SISN + 1, .indev = 2 });
	t_seg(t, (struct tb_seg){ .flags = TB_ACK | TB_PSH, .seq = CISN + 1, .ack = SISN + 1,
				  .data = d, .len = len, .indev = 2 });
}

/*
 * An allow the module holds unconfirmed: what it must see of the server to
 * confirm it is what afwd would (the judged bytes acknowledged, from the
 * server's interface, no more than the client sent); where afwd must see
 * more, or cannot tell the server by its interface, afwd waits itself.
 */
static void test_kernel_confirm(void)
{
	static const char get[] = "GET / HTTP/1.1\r\nHost: web.test\r\n\r\n";
	const uint32_t n = sizeof(get) - 1;
	struct afw_result r = { 0 };
	uint8_t h[160], bang = '!';
	size_t hn;
	struct t t;

	t_routed(&t, true, 3, (const uint8_t *)get, n);
	CHECK(failed, "kernel confirm: an allowed request passes, undecided, handed to the module",
	      !t.decided && t.res.kernel_confirm && t.res.decision == AFW_DECIDE_ALLOW);
	CHECK(failed, "kernel confirm: to be acknowledged up to its end, from the server's side",
	      t.res.confirm_ack == CISN + 1 + n && t.res.confirm_end == CISN + 1 + n &&
	      t.res.confirm_iif == 3);
	CHECK(failed, "kernel confirm: afwd does not wait for it itself",
	      afw_engine_confirming(t.e) == 0);
	CHECK(failed, "kernel confirm: the told ACK settles it, as confirmed in the module",
	      t_seg(&t, (struct tb_seg){ .from_server = true, .flags = TB_ACK, .seq = SISN + 1,
					 .ack = CISN + 1 + n, .indev = 3 }) == AFW_PASS_ACCEPT &&
	      t.decided && t.res.decision == AFW_DECIDE_ALLOW && t.res.kernel_confirmed &&
	      !t.res.kernel_confirm && !strcmp(t.res.host, "web.test"));
	afw_engine_free(t.e);

	t_routed(&t, false, 3, (const uint8_t *)get, n);
	CHECK(failed, "kernel confirm off: afwd waits for the ACK itself",
	      !t.decided && !t.res.kernel_confirm && afw_engine_confirming(t.e) == 1);
	t_sack(&t, n);
	CHECK(failed, "kernel confirm off: an ACK from the client's side settles nothing",
	      !t.decided);
	CHECK(failed, "kernel confirm off: the server's settles it, not as the module's",
	      t_seg(&t, (struct tb_seg){ .from_server = true, .flags = TB_ACK, .seq = SISN + 1,
					 .ack = CISN + 1 + n, .indev = 3 }) == AFW_PASS_ACCEPT &&
	      t.decided && !t.res.kernel_confirmed);
	afw_engine_free(t.e);

	/* A server on this host: its packets come in on no interface. */
	t_routed(&t, true, 0, (const uint8_t *)get, n);
	CHECK(failed, "kernel confirm: a local server's packets are to come from this host",
	      !t.decided && t.res.kernel_confirm && t.res.confirm_iif == 0);
	afw_engine_free(t.e);

	/* TLS 1.3 offered: the server's answer to the hello must be read. */
	hn = t_hello13(h, "web.test");
	t_routed(&t, true, 3, h, hn);
	CHECK(failed, "kernel confirm: not for a hello that offers TLS 1.3",
	      !t.decided && !t.res.kernel_confirm && afw_engine_confirming(t.e) == 1);
	afw_engine_free(t.e);
	hn = tb_hello(h, "web.test", 0);
	t_routed(&t, true, 3, h, hn);
	CHECK(failed, "kernel confirm: a TLS 1.2 hello's ACK is enough",
	      !t.decided && t.res.kernel_confirm && t.res.confirm_ack == CISN + 1 + hn);
	afw_engine_free(t.e);

	/* An urgent byte among the judged ones: the server must answer with data. */
	t_init(&t, NULL);
	afw_engine_kernel_confirm(t.e, true);
	t_handshake(&t);
	t_data(&t, 0, (const uint8_t *)get, 10);
	t_seg(&t, (struct tb_seg){ .flags = TB_ACK | TB_PSH | TB_URG, .seq = CISN + 11,
				   .ack = SISN + 1, .urg = 1, .data = &bang, .len = 1 });
	t_data(&t, 11, (const uint8_t *)get + 10, n - 10);
	CHECK(failed, "kernel confirm: not with an urgent byte in the judged bytes",
	      !t.decided && !t.res.kernel_confirm && afw_engine_confirming(t.e) == 1);
	afw_engine_free(t.e);

	/* Never acknowledged: the module's flow is to go when afwd gives up. */
	t_routed(&t, true, 3, (const uint8_t *)get, n);
	t.now += 31000 * MS;
	afw_engine_expire(t.e, pol, t.now, false, expired, &r);
	CHECK(failed, "kernel confirm: never acknowledged, the module's flow is to go",
	      r.decision == AFW_DECIDE_ALLOW && r.kernel_unconfirmed &&
	      afw_engine_stats(t.e)->unconfirmed == 1);
	afw_engine_free(t.e);

	/* A new connection on the 5-tuple: the module ends its flow at the SYN. */
	t_routed(&t, true, 3, (const uint8_t *)get, n);
	t_seg(&t, (struct tb_seg){ .flags = TB_SYN, .seq = CISN + 100000, .indev = 2 });
	CHECK(failed, "kernel confirm: a new SYN starts over, with nothing held",
	      afw_engine_confirming(t.e) == 0 && afw_engine_flows(t.e) == 1);
	afw_engine_free(t.e);
}

static void test_urgent(void)
{
	uint8_t bad[128], good[128], bang = '!';
	size_t nb = tb_hello(bad, "blocked.test", 0), ng = tb_hello(good, "allowed.test", 0);
	struct t t;

	t_init(&t, NULL);
	t_handshake(&t);
	t_seg(&t, (struct tb_seg){ .flags = TB_ACK | TB_PSH | TB_URG, .seq = CISN + 1,
				   .ack = SISN + 1, .urg = 1, .data = &bang, .len = 1 });
	CHECK(failed, "an urgent byte before the hello is out of the stream",
	      t_data(&t, 1, bad, nb) == AFW_PASS_DROP && t.decided &&
	      !strcmp(t.res.host, "blocked.test"));
	afw_engine_free(t.e);

	t_init(&t, NULL);
	t_handshake(&t);
	t_seg(&t, (struct tb_seg){ .flags = TB_ACK | TB_PSH | TB_URG, .seq = CISN + 1,
				   .ack = SISN + 1, .urg = 1, .data = &bang, .len = 1 });
	CHECK(failed, "a second urgent byte is evasion",
	      t_seg(&t, (struct tb_seg){ .flags = TB_ACK | TB_PSH | TB_URG, .seq = CISN + 2,
					 .ack = SISN + 1, .urg = 1, .data = &bang, .len = 1 }) ==
	      AFW_PASS_DROP && t.decided && t.res.giveup == AFW_REASON_EVASION);
	afw_engine_free(t.e);

	/* Inside the judged bytes: confirmed only when the server answers with data. */
	t_init(&t, NULL);
	t_handshake(&t);
	t_data(&t, 0, good, 20);
	t_seg(&t, (struct tb_seg){ .flags = TB_ACK | TB_PSH | TB_URG, .seq = CISN + 1 + 20,
				   .ack = SISN + 1, .urg = 1, .data = &bang, .len = 1 });
	t_data(&t, 21, good + 20, ng - 20);
	t_sack(&t, (uint32_t)ng + 1);
	CHECK(failed, "urgent byte in the judged bytes: an ACK alone does not confirm",
	      !t.decided);
	CHECK(failed, "the server's data acknowledging them does",
	      t_seg(&t, (struct tb_seg){ .from_server = true, .flags = TB_ACK | TB_PSH,
					 .seq = SISN + 1, .ack = CISN + 1 + (uint32_t)ng + 1,
					 .data = &bang, .len = 1 }) == AFW_PASS_ACCEPT &&
	      t.decided && t.res.decision == AFW_DECIDE_ALLOW);
	afw_engine_free(t.e);
}

static void expired(const struct afw_result *r, void *data)
{
	*(struct afw_result *)data = *r;
}

static void test_give_ups(void)
{
	uint8_t bad[128], x = 'x';
	bool any;
	size_t nb;
	struct afw_result r = { 0 };
	unsigned int i;
	uint8_t raw[64];
	struct afw_pkt p;
	struct t t;

	nb = tb_hello(bad, "blocked.test", 0);

	/*
	 * The analysis time counts from the last progress, and silence past
	 * it decides nothing: the rest of the hello, however late, is read.
	 */
	t_init(&t, NULL);
	t_handshake(&t);
	for (i = 0; i < 4; i++) {
		t_data(&t, i, bad + i, 1);
		t_sack(&t, i + 1);
		t.now += 4000 * MS;
		afw_engine_expire(t.e, pol, t.now, false, expired, &r);
	}
	CHECK(failed, "4 s between bytes, 16 s in all: nothing timed out", !r.reason[0]);
	t.now += 5001 * MS;
	afw_engine_expire(t.e, pol, t.now, false, expired, &r);
	CHECK(failed, "5 s without progress in a hello: no decision, the flow waits",
	      !r.reason[0] && afw_engine_stats(t.e)->stalled == 1 && afw_engine_flows(t.e) == 1);
	t.now += 3600 * 1000 * MS;
	afw_engine_expire(t.e, pol, t.now, false, expired, &r);
	CHECK(failed, "nor an hour later", !r.reason[0] && afw_engine_flows(t.e) == 1);
	CHECK(failed, "the next byte passes, undecided",
	      t_data(&t, 4, bad + 4, 1) == AFW_PASS_ACCEPT && !t.decided);
	t_sack(&t, 5);
	t_data(&t, 5, bad + 5, nb - 6);
	CHECK(failed, "and the rest of the hello is read: denied by its name",
	      t_denied(&t, (uint32_t)nb - 1, bad + nb - 1, 1));
	afw_engine_free(t.e);

	/* A connection silent from its handshake on: its hello read when it comes. */
	t_init(&t, NULL);
	t_handshake(&t);
	t.now += 60 * 1000 * MS;
	afw_engine_expire(t.e, pol, t.now, false, expired, &r);
	CHECK(failed, "a minute of silence after the handshake: no decision", !r.reason[0]);
	CHECK(failed, "a hello then is read: denied by its name",
	      t_denied(&t, 0, bad, nb));
	afw_engine_free(t.e);

	/*
	 * A server that speaks first (SSH, SMTP) to a client that says
	 * nothing: no hello will come, time decides, the next packet installs.
	 */
	t_init(&t, NULL);
	t_handshake(&t);
	t_greeting(&t);
	t.now += 5001 * MS;
	afw_engine_expire(t.e, pol, t.now, false, expired, &r);
	CHECK(failed, "the server spoke first, the client 5 s silent: reason timeout",
	      r.giveup == AFW_REASON_TIMEOUT && r.decision == AFW_DECIDE_ALLOW);
	CHECK(failed, "installed by the next packet, quietly",
	      t_sack(&t, 0) == AFW_PASS_ACCEPT && t.decided && t.res.quiet);
	afw_engine_free(t.e);

	/*
	 * A client that closed, its FIN taken by the server with every byte
	 * before it: nothing more can come, time decides. A FIN after a hole
	 * the server cannot take yet: the hole may still be filled.
	 */
	memset(&r, 0, sizeof(r));
	t_init(&t, NULL);
	t_handshake(&t);
	t_data(&t, 0, bad, 5);
	t_seg(&t, (struct tb_seg){ .flags = TB_ACK | TB_FIN, .seq = CISN + 1 + 5, .ack = SISN + 1 });
	t_sack(&t, 6);
	t.now += 5001 * MS;
	afw_engine_expire(t.e, pol, t.now, false, expired, &r);
	CHECK(failed, "a FIN the server took, 5 s on: decided, reason timeout",
	      r.giveup == AFW_REASON_TIMEOUT && strstr(r.reason, "closed"));
	afw_engine_free(t.e);
	memset(&r, 0, sizeof(r));
	t_init(&t, NULL);
	t_handshake(&t);
	t_data(&t, 5, bad + 5, 5);
	t_seg(&t, (struct tb_seg){ .flags = TB_ACK | TB_FIN, .seq = CISN + 1 + 10, .ack = SISN + 1 });
	t_sack(&t, 0);
	t.now += 5001 * MS;
	afw_engine_expire(t.e, pol, t.now, false, expired, &r);
	CHECK(failed, "a FIN after a hole, 5 s on: undecided", !r.reason[0] &&
	      afw_engine_stats(t.e)->stalled == 1);
	afw_engine_free(t.e);

	/* The same when the server speaks after the silence began. */
	memset(&r, 0, sizeof(r));
	t_init(&t, NULL);
	t_handshake(&t);
	t.now += 5001 * MS;
	afw_engine_expire(t.e, pol, t.now, false, expired, &r);
	t_greeting(&t);
	t.now += 4000 * MS;
	afw_engine_expire(t.e, pol, t.now, false, expired, &r);
	CHECK(failed, "a server speaking to a stalled client: its time starts then",
	      !r.reason[0]);
	t.now += 1001 * MS;
	afw_engine_expire(t.e, pol, t.now, false, expired, &r);
	CHECK(failed, "and decides it 5 s later", r.giveup == AFW_REASON_TIMEOUT);
	afw_engine_free(t.e);

	/* Not TLS or HTTP. */
	t_init(&t, NULL);
	t_handshake(&t);
	t_data(&t, 0, (const uint8_t *)"SSH-2.0-x\r\n", 11);
	t_sack(&t, 11);
	CHECK(failed, "neither TLS nor HTTP: reason not-tls", t.decided &&
	      t.res.giveup == AFW_REASON_NOT_TLS);
	afw_engine_free(t.e);

	/* Mid-stream. */
	t_init(&t, NULL);
	CHECK(failed, "a flow first seen mid-stream: reason mid-stream",
	      t_data(&t, 0, (const uint8_t *)"SSH-2.0-x\r\n", 11) == AFW_PASS_ACCEPT && t.decided &&
	      t.res.giveup == AFW_REASON_MID_STREAM);
	afw_engine_free(t.e);

	/* Client packets without new bytes count; the server's do not. */
	t_init(&t, NULL);
	t_handshake(&t);
	t_data(&t, 0, bad, 5);
	for (i = 0; i < 200; i++)
		t_sack(&t, 5);
	CHECK(failed, "200 server ACKs are no bound", !t.decided);
	for (i = 0; i < 64 && !t.decided; i++)
		t_data(&t, 0, bad, 5);
	CHECK(failed, "64 client retransmissions are: reason bound",
	      t.decided && t.res.giveup == AFW_REASON_BOUND);
	afw_engine_free(t.e);

	/*
	 * Bare ACKs to a server that has said nothing (keepalives, at
	 * snd_una - 1, and window updates) bring the server nothing: they
	 * are no bound, and a hello after them is read.
	 */
	t_init(&t, NULL);
	t_handshake(&t);
	for (i = 0, any = false; i < 100; i++) {
		t_seg(&t, (struct tb_seg){ .flags = TB_ACK, .seq = CISN, .ack = SISN + 1 });
		any |= t.decided;
		t_seg(&t, (struct tb_seg){ .flags = TB_ACK, .seq = CISN + 1, .ack = SISN + 1,
					   .win = (uint16_t)(1000 + i) });
		any |= t.decided;
	}
	CHECK(failed, "200 keepalives and window updates before the hello are no bound", !any);
	CHECK(failed, "the hello after them is read: denied by its name",
	      t_denied(&t, 0, bad, nb));
	afw_engine_free(t.e);

	/* Once the server has spoken, the client's ACKs count, as before. */
	t_init(&t, NULL);
	t_handshake(&t);
	t_greeting(&t);
	for (i = 0; i < 64 && !t.decided; i++)
		t_seg(&t, (struct tb_seg){ .flags = TB_ACK, .seq = CISN + 1, .ack = SISN + 1 + 7 });
	CHECK(failed, "64 ACKs of a server's data are: reason bound",
	      t.decided && t.res.giveup == AFW_REASON_BOUND);
	afw_engine_free(t.e);

	/* A full table. */
	{
		struct afw_engine_opts o = { .max_flows = 1, .max_bytes = 1 << 20,
					     .max_packets = 64, .max_ns = 5000 * MS,
					     .max_decided = 64, .max_memory = 64 << 20 };

		t_init(&t, &o);
		t_handshake(&t);
		t_data(&t, 0, &x, 1);
		t_seg(&t, (struct tb_seg){ .sport = 40001, .flags = TB_SYN, .seq = 1 });
		CHECK(failed, "a full table: reason table-full", t.decided &&
		      t.res.giveup == AFW_REASON_TABLE_FULL);
		afw_engine_free(t.e);

		/* A flow stalled past its analysis time gives way, undecided. */
		memset(&r, 0, sizeof(r));
		t_init(&t, &o);
		t_handshake(&t);
		t_data(&t, 0, &x, 1);
		t.now += 5001 * MS;
		afw_engine_expire(t.e, pol, t.now, false, expired, &r);
		t_seg(&t, (struct tb_seg){ .sport = 40001, .flags = TB_SYN, .seq = 1 });
		CHECK(failed, "a full table of a stalled flow: the new one takes its room",
		      !t.decided && !r.reason[0] && afw_engine_flows(t.e) == 1 &&
		      afw_engine_stats(t.e)->stalled_forgotten == 1);
		CHECK(failed, "the stalled one, forgotten, is read mid-stream when it speaks",
		      t_data(&t, 1, (const uint8_t *)"SSH-2.0-x\r\n", 11) == AFW_PASS_ACCEPT &&
		      t.decided && t.res.giveup == AFW_REASON_MID_STREAM);
		afw_engine_free(t.e);
	}

	/* Undecodable: IPv4 with a header length past the packet. */
	t_init(&t, NULL);
	memset(raw, 0, sizeof(raw));
	raw[0] = 0x4f;
	raw[3] = 20;
	raw[9] = 6;
	raw[12] = 192;
	raw[16] = 198;
	CHECK(failed, "a packet that does not decode", afw_pkt_decode(&p, AFW_LINK_RAW, raw, 20) !=
	      AFW_PKT_OK);
	afw_engine_undecodable(t.e, pol, &p, false, 0, t.now, &t.res, &t.decided);
	CHECK(failed, "is decided by the policy: reason undecodable, for the packet alone",
	      t.decided && t.res.giveup == AFW_REASON_UNDECODABLE && t.res.per_packet &&
	      t.res.family == 2 && t.res.l4proto == 6);
	afw_engine_undecodable(t.e, pol, &p, false, 0, t.now, &t.res, &t.decided);
	CHECK(failed, "and the same again is answered without asking again", !t.decided);
	afw_engine_free(t.e);
}

/*
 * What a crafting client might send to have a stalled flow decided, so
 * that a later hello would pass unread: none of it decides anything.
 */
static void test_stall_tricks(void)
{
	struct afw_engine_opts small = { .max_flows = 64, .max_bytes = 1 << 20,
					 .max_packets = 64, .max_ns = 5000 * MS,
					 .max_decided = 256, .max_memory = 4 * 8192 + 100 };
	uint8_t bad[9000];
	size_t nb = tb_hello(bad, "blocked.test", 0);
	struct afw_result r = { 0 };
	unsigned int i;
	bool any;
	struct t t;

	/* A FIN at the SYN's sequence number: old, the server drops it. */
	t_init(&t, NULL);
	t_handshake(&t);
	t_seg(&t, (struct tb_seg){ .flags = TB_ACK | TB_FIN, .seq = CISN, .ack = SISN + 1 });
	t.now += 5001 * MS;
	afw_engine_expire(t.e, pol, t.now, false, expired, &r);
	CHECK(failed, "an old FIN at the client's ISN, 5 s on: undecided", !r.reason[0]);
	/* Bytes past a FIN are never read: none passes, sent 70 times. */
	for (i = 0, any = false; i < 70; i++)
		any |= t_data(&t, 0, bad, nb) != AFW_PASS_DROP || t.decided;
	CHECK(failed, "a hello after it, sent 70 times, never passes nor decides", !any);
	afw_engine_free(t.e);

	/* A FIN inside bytes the server holds, and its duplicate ACK. */
	memset(&r, 0, sizeof(r));
	t_init(&t, NULL);
	t_handshake(&t);
	t_data(&t, 0, bad, 10);
	t_sack(&t, 10);
	t.now += 5001 * MS;
	afw_engine_expire(t.e, pol, t.now, false, expired, &r);
	t_seg(&t, (struct tb_seg){ .flags = TB_ACK | TB_FIN, .seq = CISN + 1 + 9, .ack = SISN + 1 });
	t_sack(&t, 10);
	t.now += 5001 * MS;
	afw_engine_expire(t.e, pol, t.now, false, expired, &r);
	CHECK(failed, "a FIN inside the bytes the server holds, 5 s on: undecided", !r.reason[0]);
	for (i = 0, any = false; i < 70; i++)
		any |= t_data(&t, 10, bad + 10, nb - 10) != AFW_PASS_DROP || t.decided;
	CHECK(failed, "the rest of the hello, sent 70 times, never passes nor decides", !any);
	afw_engine_free(t.e);

	/*
	 * A bad ACK in the handshake, which the listener answers with a RST
	 * at that ACK while it keeps the connection it is opening.
	 */
	memset(&r, 0, sizeof(r));
	t_init(&t, NULL);
	t_seg(&t, (struct tb_seg){ .flags = TB_SYN, .seq = CISN });
	t_seg(&t, (struct tb_seg){ .from_server = true, .flags = TB_SYN | TB_ACK, .seq = SISN,
				   .ack = CISN + 1 });
	t_seg(&t, (struct tb_seg){ .flags = TB_ACK, .seq = CISN + 1, .ack = SISN + 77 });
	t_seg(&t, (struct tb_seg){ .from_server = true, .flags = TB_RST, .seq = SISN + 77 });
	t_seg(&t, (struct tb_seg){ .flags = TB_ACK, .seq = CISN + 1, .ack = SISN + 1 });
	t.now += 5001 * MS;
	afw_engine_expire(t.e, pol, t.now, false, expired, &r);
	CHECK(failed, "a listener's RST to a bad ACK is no server speaking first: undecided",
	      !r.reason[0]);
	CHECK(failed, "the hello after it is denied by its name",
	      t_data(&t, 0, bad, nb) == AFW_PASS_DROP && t.decided &&
	      t.res.decision == AFW_DECIDE_DENY);
	afw_engine_free(t.e);

	/*
	 * A request head ended by the client's FIN, which Python's
	 * http.server answers: read as ended there, its last line ended or not.
	 */
	{
		static const char *const heads[] = {
			"GET / HTTP/1.1\r\nHost: blocked.test\r\n",
			"GET / HTTP/1.1\r\nHost: blocked.test",
		};
		unsigned int k;

		for (k = 0; k < 2; k++) {
			uint32_t n = (uint32_t)strlen(heads[k]);

			t_init(&t, NULL);
			t_handshake(&t);
			t_data(&t, 0, (const uint8_t *)heads[k], n);
			CHECK(failed, k ? "a head cut in its Host line, then a FIN: denied by the name" :
					  "a head without its empty line, then a FIN: denied by its name",
			      t_seg(&t, (struct tb_seg){ .flags = TB_ACK | TB_FIN,
							 .seq = CISN + 1 + n,
							 .ack = SISN + 1 }) == AFW_PASS_DROP &&
			      t.decided && t.res.decision == AFW_DECIDE_DENY &&
			      !strcmp(t.res.host, "blocked.test"));
			afw_engine_free(t.e);
		}
	}

	/* Empty urgent pointers and FINs are no bound either. */
	t_init(&t, NULL);
	t_handshake(&t);
	for (i = 0, any = false; i < 100; i++) {
		t_seg(&t, (struct tb_seg){ .flags = TB_ACK | TB_URG, .seq = CISN + 1,
					   .ack = SISN + 1 });
		any |= t.decided;
	}
	CHECK(failed, "100 empty urgent segments before the hello: no bound", !any);
	afw_engine_free(t.e);

	/*
	 * Stalled flows that hold the memory budget give it back to a new
	 * flow, rather than have it decided as a bound.
	 */
	memset(&r, 0, sizeof(r));
	nb = tb_hello(bad, "blocked.test", 8000);
	t_init(&t, &small);
	for (i = 0; i < 4; i++) {
		t_seg(&t, (struct tb_seg){ .sport = (uint16_t)(41000 + i), .flags = TB_SYN,
					   .seq = CISN });
		t_seg(&t, (struct tb_seg){ .sport = (uint16_t)(41000 + i), .from_server = true,
					   .flags = TB_SYN | TB_ACK, .seq = SISN, .ack = CISN + 1 });
		t_seg(&t, (struct tb_seg){ .sport = (uint16_t)(41000 + i), .flags = TB_ACK | TB_PSH,
					   .seq = CISN + 1, .ack = SISN + 1, .data = bad,
					   .len = 4097 });
	}
	t.now += 5001 * MS;
	afw_engine_expire(t.e, pol, t.now, false, expired, &r);
	CHECK(failed, "four flows hold the memory budget, stalled",
	      afw_engine_stats(t.e)->stalled == 4 && !r.reason[0]);
	t_handshake(&t);
	CHECK(failed, "a new flow's hello gets their memory: denied by its name",
	      t_data(&t, 0, bad, nb) == AFW_PASS_DROP && t.decided &&
	      t.res.decision == AFW_DECIDE_DENY && !t.res.giveup &&
	      afw_engine_stats(t.e)->stalled_forgotten >= 1);
	afw_engine_free(t.e);
}

static void test_remembered(void)
{
	uint8_t bad[128], good[128];
	size_t nb = tb_hello(bad, "blocked.test", 0), ng = tb_hello(good, "allowed.test", 0);
	struct afw_result r = { 0 };
	struct t t;

	t_init(&t, NULL);
	t_handshake(&t);
	t_data(&t, 0, bad, nb);
	t.now += 3600 * 1000 * MS;
	afw_engine_expire(t.e, pol, t.now, false, expired, &r);
	CHECK(failed, "a deny an hour old still drops the flow's packets, undecided again",
	      t_data(&t, 0, bad, nb) == AFW_PASS_DROP && !t.decided);
	CHECK(failed, "and a FIN or RST does not end it",
	      (t_seg(&t, (struct tb_seg){ .flags = TB_RST | TB_ACK, .seq = CISN + 1,
					  .ack = SISN + 1 }),
	       t_data(&t, 0, bad, nb) == AFW_PASS_DROP));
	afw_engine_free(t.e);

	t_init(&t, NULL);
	t_handshake(&t);
	t_data(&t, 0, good, ng);
	t_sack(&t, (uint32_t)ng);
	t.now += 3600 * 1000 * MS;
	afw_engine_expire(t.e, pol, t.now, false, expired, &r);
	CHECK(failed, "an allow an hour old is not judged again mid-stream",
	      t_data(&t, (uint32_t)ng, bad, nb) == AFW_PASS_ACCEPT && !t.decided);
	afw_engine_free(t.e);

	/* Never acknowledged: logged, kept out of the kernel, its bytes guarded. */
	t_init(&t, NULL);
	t_handshake(&t);
	t_data(&t, 0, good, ng);
	t.now += AFW_ENGINE_WAIT_NS + MS;
	afw_engine_expire(t.e, pol, t.now, false, expired, &r);
	CHECK(failed, "unconfirmed: logged with its decision", r.decision == AFW_DECIDE_ALLOW &&
	      strstr(r.reason, "not acknowledged"));
	CHECK(failed, "unconfirmed: a segment over the judged bytes is dropped",
	      t_data(&t, 0, bad, nb) == AFW_PASS_DROP && !t.decided);
	CHECK(failed, "unconfirmed: one after them passes",
	      t_data(&t, (uint32_t)ng, bad, nb) == AFW_PASS_ACCEPT && !t.decided);
	CHECK(failed, "unconfirmed: the server's ACK, late, installs it",
	      t_sack(&t, (uint32_t)ng) == AFW_PASS_ACCEPT && t.decided && t.res.quiet &&
	      t.res.decision == AFW_DECIDE_ALLOW);
	afw_engine_free(t.e);
}

/*
 * Packets of an inspected flow with their first bytes only: taken once the
 * flow is a decided record whose judged bytes the server acknowledged,
 * dropped while its bytes are still read, for a SYN, and for a flow afwd
 * does not know.
 */
static void test_headers_only(void)
{
	static const char text[] = "default deny\nprio 10 l7 unknown inspect\n";
	static const uint8_t cmd[] = "not tls, not http: a protocol of its own\n";
	struct afw_policy_error err;
	struct afw_policy *saved = pol;
	uint8_t bulk[1400];
	bool enough = true;
	enum afw_pass pass;
	struct t t;

	pol = afw_policy_parse(text, sizeof(text) - 1, "test", &err);
	if (!pol)
		abort();
	memset(bulk, 'x', sizeof(bulk));
	t_init(&t, NULL);
	t_handshake(&t);
	t_data(&t, 0, cmd, sizeof(cmd) - 1);
	pass = t_seg_head(&t, (struct tb_seg){ .flags = TB_ACK | TB_PSH,
					       .seq = CISN + 1 + sizeof(cmd) - 1, .ack = SISN + 1,
					       .data = bulk, .len = sizeof(bulk) }, 100, &enough);
	CHECK(failed, "bytes still to confirm: the headers are not enough, the cut packet is dropped",
	      !enough && pass == AFW_PASS_DROP && !t.decided);
	t_sack(&t, sizeof(cmd) - 1);
	CHECK(failed, "an unknown protocol is inspected once the server acknowledges its bytes",
	      t.decided && t.res.decision == AFW_DECIDE_INSPECT);
	pass = t_seg_head(&t, (struct tb_seg){ .flags = TB_ACK | TB_PSH,
					       .seq = CISN + 1 + sizeof(cmd) - 1, .ack = SISN + 1,
					       .data = bulk, .len = sizeof(bulk) }, 100, &enough);
	CHECK(failed, "then a data packet's first 100 bytes are enough, and it passes",
	      enough && pass == AFW_PASS_ACCEPT && !t.decided);
	pass = t_seg_head(&t, (struct tb_seg){ .from_server = true, .flags = TB_ACK | TB_PSH,
					       .seq = SISN + 1, .ack = CISN + 1 + 2000,
					       .data = bulk, .len = sizeof(bulk) }, 60, &enough);
	CHECK(failed, "and the server's, cut to its headers", enough && pass == AFW_PASS_ACCEPT);
	pass = t_seg_head(&t, (struct tb_seg){ .flags = TB_SYN, .seq = CISN + 77777,
					       .data = bulk, .len = sizeof(bulk) }, 100, &enough);
	CHECK(failed, "a SYN with bytes cut off is dropped, whatever the flow", pass == AFW_PASS_DROP);
	pass = t_seg_head(&t, (struct tb_seg){ .flags = TB_ACK | TB_PSH, .seq = CISN + 1,
					       .ack = SISN + 1, .sport = 40001, .data = bulk,
					       .len = sizeof(bulk) }, 100, &enough);
	CHECK(failed, "a cut packet of a flow afwd does not know is dropped",
	      !enough && pass == AFW_PASS_DROP && !t.decided);
	afw_engine_free(t.e);
	afw_policy_free(pol);
	pol = saved;
}

/* A client segment of a flow afwd never saw start, from port @sport. */
static enum afw_pass t_mid(struct t *t, uint16_t sport, const uint8_t *d, size_t len)
{
	return t_seg(t, (struct tb_seg){ .flags = TB_ACK | TB_PSH, .seq = CISN + 1, .ack = SISN + 1,
					 .sport = sport, .data = d, .len = len });
}

/*
 * A flow joined mid-stream whose segment holds a whole hello or request
 * head: refused by the name it gives where the policy would let the flow
 * through, else decided as joined mid-stream.
 */
static void test_mid_stream(void)
{
	static const char text[] = "default allow\nprio 10 host blocked.test deny\n"
				   "prio 20 proto tcp dport 443 reason mid-stream reject\n";
	static const uint8_t get[] = "GET / HTTP/1.1\r\nHost: blocked.test\r\n\r\n";
	struct afw_policy_error err;
	struct afw_policy *saved = pol;
	uint8_t blocked[128], allowed[128];
	size_t nb = tb_hello(blocked, "blocked.test", 0), na = tb_hello(allowed, "allowed.test", 0);
	struct t t;

	t_init(&t, NULL);
	CHECK(failed, "mid-stream, a whole hello naming a denied name: denied by that name",
	      t_mid(&t, 41000, blocked, nb) == AFW_PASS_DROP && t.decided &&
	      t.res.decision == AFW_DECIDE_DENY && t.res.giveup == AFW_REASON_NONE &&
	      !strcmp(t.res.host, "blocked.test") &&
	      !strncmp(t.res.reason, "joined mid-stream: tls", 22));
	CHECK(failed, "and its next packet meets the same refusal",
	      t_mid(&t, 41000, blocked, nb) == AFW_PASS_DROP);
	CHECK(failed, "a request head naming it: denied too",
	      t_mid(&t, 41001, get, sizeof(get) - 1) == AFW_PASS_DROP && t.decided &&
	      t.res.decision == AFW_DECIDE_DENY && !strcmp(t.res.host, "blocked.test"));
	CHECK(failed, "a hello naming an allowed name: joined mid-stream, as before",
	      t_mid(&t, 41002, allowed, na) == AFW_PASS_ACCEPT && t.decided &&
	      t.res.giveup == AFW_REASON_MID_STREAM && !t.res.host[0]);
	CHECK(failed, "half a hello: joined mid-stream, as before (not whole: not read)",
	      t_mid(&t, 41003, blocked, nb / 2) == AFW_PASS_ACCEPT && t.decided &&
	      t.res.giveup == AFW_REASON_MID_STREAM);
	afw_engine_free(t.e);

	pol = afw_policy_parse(text, sizeof(text) - 1, "test", &err);
	if (!pol)
		abort();
	t_init(&t, NULL);
	CHECK(failed, "where a line refuses mid-stream flows, it decides, the hello unread",
	      t_mid(&t, 41004, blocked, nb) == AFW_PASS_REJECT && t.decided &&
	      t.res.giveup == AFW_REASON_MID_STREAM && !t.res.host[0]);
	afw_engine_free(t.e);
	afw_policy_free(pol);
	pol = saved;
}

int main(void)
{
	static const char text[] = "default allow\nprio 10 host blocked.test deny\n";
	struct afw_policy_error err;

	pol = afw_policy_parse(text, sizeof(text) - 1, "test", &err);
	if (!pol) {
		printf("not ok - the test policy parses (%s)\n", err.msg);
		return 1;
	}
	test_confirmation();
	test_kernel_confirm();
	test_insertions();
	test_syn();
	test_storage();
	test_urgent();
	test_give_ups();
	test_stall_tricks();
	test_remembered();
	test_headers_only();
	test_mid_stream();
	afw_policy_free(pol);
	return failed;
}
