// SPDX-License-Identifier: GPL-2.0
/*
 * The engine against a client that tries to make it judge other bytes than
 * the server reads. The input is a sequence of steps: client SYNs, data
 * segments cut from a hello naming the allowed host, one naming the denied
 * host (of the same length, so that they differ in the name only) or
 * noise, each with any spoiling (no ACK, a wrong ACK, a bad checksum, an
 * MD5 option, an urgent pointer, out of the window, lost on the way after
 * afwd), resets, FINs, the server's SYN-ACKs and ACKs, time passing, and
 * UDP datagrams. Every packet, in both directions, goes through the
 * kernel's flow or, where that sends it on, afw_engine_packet(), then, if
 * it was let through, to a model of the server's
 * receiver (Linux's rules, an application that reads at once, the urgent
 * byte taken out) that parses what it reads in order.
 *
 * Once afwd has decided, the kernel acts for it, as module/flows.c does
 * with the flow afwd installs (struct kflow below): a denied flow's
 * packets are dropped, all of them, for its whole life, and none reaches
 * afwd again; an allowed flow's reach the server without afwd, but for a
 * SYN (without ACK) that is not the flow's own sent again, which ends the
 * flow and goes to afwd as a new one (afwd installs a flow decided past
 * the client's SYN as established, so that a SYN before any other packet
 * is a new one too), and, on the UDP flow, a QUIC Initial
 * of its client's, which goes to afwd while the flow stays. An inspected
 * flow's packets all go to afwd: whole, or, where afwd installed the flow
 * with its headers queue, their first 256 bytes, as the worker takes them
 * (a packet it cannot judge so is dropped, and the flow installed again
 * without the queue, afw_engine_head_takes()). The worker gives a flow
 * that queue when it is decided with its judged bytes acknowledged: a
 * hello decided on the server's acknowledgement is. A flow idle for
 * its timeout is gone (TCP: a day, UDP: two minutes, the module's
 * defaults; a TCP flow closing after FINs both ways or a RST in the window:
 * 10 s), and its packets go to afwd again. The invariant, checked after
 * every step: never is a flow allowed or inspected while the server's
 * connection has parsed the denied name. The policy denies by default, so
 * that nothing but a read of the allowed name can allow, and of the
 * watched one (as long as the others) inspect.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "queue.h"
#include "tcp_build.h"
#include "tls.h"

#define MS 1000000ull
#define HELLO_PAD 200
#define STREAM_MAX 4096
#define STEPS_MAX 96
#define SISN 0x7ffffff0u
#define WIN 2048

enum { K_NONE, K_ALLOW, K_DENY, K_INSPECT };

#define S_NS (1000 * MS)
#define TCP_TIMEOUT (86400 * S_NS)
#define UDP_TIMEOUT (120 * S_NS)
#define CLOSING_TIMEOUT (10 * S_NS)

/*
 * The module's flow for what afwd decided, ends 0 (the client's, as afwd
 * installs it) and 1: its verdict, K_NONE when there is none, and what
 * module/flows.c keeps of a TCP connection to tell a new one from it and
 * to close it early.
 */
struct kflow {
	int verdict;
	int initiator;			/* the end afwd installed as the source */
	bool started;			/* installed AFW_FLOW_F_ESTABLISHED */
	bool head;			/* inspected by the headers queue */
	bool tracked[2], acked[2], fin[2], closing;
	bool own_syn[2];		/* all the end sent so far was its SYN */
	uint32_t isn[2];		/* that SYN's sequence number */
	uint32_t nxt[2], ack[2];	/* the highest end each sent, the last ack */
	uint64_t timeout, expires;
};

/* The server's receiving side for the current connection. */
struct srv {
	int state;			/* 0 closed/listen, 1 SYN received, 2 established */
	bool synack_sent;
	uint32_t irs, rcv_nxt, iss, snd_nxt, snd_una;
	uint8_t ofo[STREAM_MAX];	/* bytes past rcv_nxt, by offset from irs + 1 */
	bool ofo_have[STREAM_MAX];
	uint8_t stream[STREAM_MAX];	/* what the application read */
	size_t len;
	bool urg;
	uint32_t urg_seq;
	bool fin;
	int parsed;			/* 0 nothing yet, 1 allowed, 2 denied, 3 other or bad */
};

/* AFW_FUZZ_TRACE=1 in the environment: every packet and its fate on stderr. */
static int trace = -1;

#define TRACE(...) do { if (trace > 0) fprintf(stderr, __VA_ARGS__); } while (0)

struct h {
	struct afw_engine *e;
	const struct afw_policy *pol;
	uint64_t now;
	struct kflow k;			/* the TCP flow in the kernel */
	struct kflow ku;		/* the UDP flow in the kernel */
	struct srv s;
	uint32_t isn;			/* the client's current ISN */
	uint8_t good[512], bad[512], noise[512], watched[512];
	size_t hlen;
	uint8_t scratch[AFW_TLS_SCRATCH_SIZE];
};

static void srv_parse(struct h *h)
{
	struct afw_tls_hello th;
	enum afw_tls_status st;

	if (h->s.parsed)
		return;
	st = afw_tls_parse_stream(h->s.stream, h->s.len, h->scratch, sizeof(h->scratch), &th);
	if (st == AFW_TLS_MORE)
		return;
	if (st == AFW_TLS_OK && th.has_sni && th.sni.len == 12 &&
	    !memcmp(th.sni.p, "allowed.test", 12))
		h->s.parsed = 1;
	else if (st == AFW_TLS_OK && th.has_sni && th.sni.len == 12 &&
		 !memcmp(th.sni.p, "blocked.test", 12))
		h->s.parsed = 2;
	else
		h->s.parsed = 3;
}

/* In-order bytes from the out-of-order store to the application. */
static void srv_deliver(struct h *h)
{
	struct srv *s = &h->s;
	uint32_t off;

	for (;;) {
		off = s->rcv_nxt - (s->irs + 1);
		if (off >= STREAM_MAX || !s->ofo_have[off])
			break;
		if (!(s->urg && s->rcv_nxt == s->urg_seq) && s->len < STREAM_MAX)
			s->stream[s->len++] = s->ofo[off];
		if (s->urg && s->rcv_nxt == s->urg_seq)
			s->urg = false;
		s->rcv_nxt++;
	}
	srv_parse(h);
}

/* A client segment reaches the server's stack: what Linux would do with it. */
static void srv_client(struct h *h, const struct tb_seg *g, bool csum_checked)
{
	struct srv *s = &h->s;
	uint32_t i, off, end = g->seq + (uint32_t)g->len;

	if (g->bad_csum && csum_checked)
		return;
	if (g->md5)
		return;
	if (g->flags & TB_SYN) {
		if (g->flags & TB_ACK)
			return;
		/* A new connection only where none is (or after its reset). */
		if (s->state == 2 || (s->state == 1 && g->seq != s->irs))
			return;
		if (s->state == 0) {
			memset(s, 0, sizeof(*s));
			s->state = 1;
			s->irs = g->seq;
			s->rcv_nxt = g->seq + 1;
			s->iss = SISN + h->isn * 7;
			s->snd_nxt = s->iss + 1;
			s->snd_una = s->iss;
		}
		/* No Fast Open cookie: the SYN's data is not taken. */
		return;
	}
	if (s->state == 0)
		return;
	if (g->flags & TB_RST) {
		if (g->seq == s->rcv_nxt)
			s->state = 0;
		return;
	}
	if (!(g->flags & TB_ACK))
		return;
	if (s->state == 1) {
		if (!s->synack_sent || g->ack != s->iss + 1)
			return;
		s->state = 2;
		s->snd_una = s->iss + 1;
	}
	if ((int32_t)(g->ack - s->snd_nxt) > 0 || (int32_t)(g->ack - s->snd_una) < 0)
		return;
	s->snd_una = g->ack;
	if (g->len && (int32_t)(g->seq - (s->rcv_nxt + WIN)) >= 0)
		return;
	if ((int32_t)(end - s->rcv_nxt) < 0 && g->len)
		return;
	if (s->fin && g->len)
		return;
	/* tcp_check_urg(): the newest pointer at bytes not yet read. */
	if ((g->flags & TB_URG) && g->len) {
		uint32_t t = g->seq + g->urg - (g->urg ? 1 : 0);

		if ((int32_t)(t - s->rcv_nxt) >= 0 && !(s->urg && (int32_t)(t - s->urg_seq) <= 0)) {
			s->urg = true;
			s->urg_seq = t;
		}
	}
	for (i = 0; i < g->len; i++) {
		off = g->seq + i - (s->irs + 1);
		if (off >= STREAM_MAX || (int32_t)(g->seq + i - s->rcv_nxt) < 0)
			continue;
		if (!s->ofo_have[off]) {
			s->ofo[off] = g->data[i];
			s->ofo_have[off] = true;
		}
	}
	if (g->flags & TB_FIN)
		s->fin = true;
	srv_deliver(h);
}

/* The invariant. */
static void check(const struct h *h)
{
	if ((h->k.verdict == K_ALLOW || h->k.verdict == K_INSPECT) && h->s.parsed == 2)
		abort();
}

/*
 * afwd's decision, installed: FLOW_NEW with the client as the source, and,
 * @started, AFW_FLOW_F_ESTABLISHED (afwd decided past the client's SYN).
 * A FLOW_NEW of a flow the module has replaces it, tracking and all.
 */
static void kflow_install(struct kflow *k, const struct afw_result *res, int initiator,
			  bool started, uint64_t timeout, uint64_t now)
{
	memset(k, 0, sizeof(*k));
	k->verdict = res->decision == AFW_DECIDE_ALLOW ? K_ALLOW :
		     res->decision == AFW_DECIDE_INSPECT ? K_INSPECT : K_DENY;
	k->initiator = initiator;
	k->started = started;
	k->timeout = timeout;
	k->expires = now + timeout;
}

/*
 * The worker's FLOW_NEW that gives an inspected flow back to whole
 * packets: the same flow, verdict and start, in a new entry.
 */
static void kflow_reinstall(struct kflow *k, uint64_t now)
{
	struct kflow was = *k;

	memset(k, 0, sizeof(*k));
	k->verdict = was.verdict;
	k->initiator = was.initiator;
	k->started = was.started;
	k->timeout = was.timeout;
	k->expires = now + was.timeout;
}

/* The flow's idle time starts again; a closing flow has 10 s at most. */
static void kflow_touch(struct kflow *k, uint64_t now)
{
	k->expires = now + (k->closing && k->timeout > CLOSING_TIMEOUT ? CLOSING_TIMEOUT :
			    k->timeout);
}

/* Whether the kernel still has the flow at @now; an expired one is a miss, gone. */
static bool kflow_live(struct kflow *k, uint64_t now)
{
	if (k->verdict != K_NONE && now >= k->expires)
		k->verdict = K_NONE;
	return k->verdict != K_NONE;
}

/*
 * A TCP segment from end @side meets the kernel's flow, as afw_flow_packet()
 * and afw_flow_tcp() take it: K_NONE when it goes to afwd as a new flow's
 * (there is no flow, or the segment ended it), K_INSPECT when it goes to
 * afwd as an inspected flow's, else what it gets.
 */
static int kflow_tcp(struct kflow *k, int side, const struct tb_seg *g, uint64_t now)
{
	uint32_t end = g->seq + (uint32_t)g->len + ((g->flags & (TB_SYN | TB_FIN)) ? 1 : 0);
	int peer = !side;

	if (!kflow_live(k, now))
		return K_NONE;
	/* A denied flow stays denied: what it drops ends nothing. */
	if (k->verdict == K_DENY) {
		kflow_touch(k, now);
		return K_DENY;
	}
	/*
	 * Only the flow's SYN sent again, before anything else from that end,
	 * belongs to it, and the first SYN of a flow installed ahead of its
	 * connection (not started, nothing seen yet): any other is a new
	 * connection.
	 */
	if ((g->flags & (TB_SYN | TB_ACK)) == TB_SYN) {
		if (k->own_syn[side] ? k->isn[side] != g->seq :
		    k->started || k->tracked[0] || k->tracked[1]) {
			k->verdict = K_NONE;
			return K_NONE;
		}
		k->own_syn[side] = true;
		k->isn[side] = g->seq;
	} else {
		k->own_syn[side] = false;
	}
	/* A RST the peer would take (RFC 5961) starts the closing time. */
	if ((g->flags & TB_RST) && k->acked[peer] && k->tracked[side] &&
	    (int32_t)(g->seq - k->ack[peer]) >= 0 && (int32_t)(g->seq - k->nxt[side]) <= 0)
		k->closing = true;
	if (!k->tracked[side] || (int32_t)(end - k->nxt[side]) > 0)
		k->nxt[side] = end;
	k->tracked[side] = true;
	if (g->flags & TB_ACK) {
		k->ack[side] = g->ack;
		k->acked[side] = true;
	}
	if (g->flags & TB_FIN) {
		k->fin[side] = true;
		if (k->fin[peer])
			k->closing = true;
	}
	kflow_touch(k, now);
	return k->verdict;
}

/*
 * A datagram from @side meets the kernel's UDP flow: K_NONE when it goes
 * to afwd, as a packet of no flow or, on an allowed flow, as one of its
 * client's QUIC Initials (module/flows.c, afw_flow_quic_initial()).
 */
static int kflow_udp(struct kflow *k, int side, const uint8_t *d, size_t len, uint64_t now)
{
	uint32_t version;

	if (!kflow_live(k, now))
		return K_NONE;
	kflow_touch(k, now);
	if (k->verdict != K_ALLOW || side != k->initiator || len < 5 || !(d[0] & 0x80))
		return k->verdict;
	version = (uint32_t)d[1] << 24 | (uint32_t)d[2] << 16 | (uint32_t)d[3] << 8 | d[4];
	if (version == 1)
		return (d[0] & 0x30) == 0x00 ? K_NONE : K_ALLOW;
	if (version == 0x6b3343cf)
		return (d[0] & 0x30) == 0x10 ? K_NONE : K_ALLOW;
	return version ? K_NONE : K_ALLOW;
}

/*
 * A packet through afwd, whole or, @head, from the headers queue; returns
 * whether it passed. Installs what afwd decides, as the worker does.
 */
static bool through(struct h *h, const struct tb_seg *g, bool trusted, bool head)
{
	uint8_t buf[STREAM_MAX + 200], hbuf[AFW_PKT_HEAD_MAX];
	struct afw_result res;
	struct afw_pkt p;
	enum afw_pass pass;
	bool decided;
	size_t n = tb_build(buf, g);

	if (head) {
		/* What the worker cannot judge cut is dropped, the flow given back whole. */
		if (afw_pkt_decode_head(&p, hbuf, buf, n < AFW_QUEUE_HEAD_BYTES ? n :
					AFW_QUEUE_HEAD_BYTES, n) != AFW_PKT_OK ||
		    !afw_engine_head_takes(h->e, &p)) {
			TRACE("  afwd headers queue: %s seq %u len %zu: back to whole packets\n",
			      g->from_server ? "server" : "client", g->seq, g->len);
			kflow_reinstall(&h->k, h->now);
			return false;
		}
		TRACE("  afwd headers queue: %s seq %u len %zu, %zu bytes cut\n",
		      g->from_server ? "server" : "client", g->seq, g->len, p.cut);
		/* Cut: no bytes to check the sum over, as the worker takes it. */
		p.csum = p.cut || trusted ? AFW_CSUM_TRUSTED : AFW_CSUM_CHECK;
	} else {
		if (afw_pkt_decode(&p, AFW_LINK_RAW, buf, n) != AFW_PKT_OK)
			abort();
		p.csum = trusted ? AFW_CSUM_TRUSTED : AFW_CSUM_CHECK;
	}
	pass = afw_engine_packet(h->e, h->pol, &p, false, 0, h->now, &res, &decided);
	TRACE("  afwd %s: seq %u ack %u flags %02x len %zu%s -> %s%s%s %s%s\n",
	      g->from_server ? "server" : "client", g->seq, g->ack, g->flags, g->len,
	      g->bad_csum ? " badcsum" : "", afw_pass_name(pass), decided ? " decided " : "",
	      decided ? afw_decision_name(res.decision) : "", decided ? res.reason : "",
	      decided && res.quiet ? " (quiet)" : "");
	/*
	 * As afwd's worker installs it: established unless decided on the
	 * client's SYN; inspected by the headers queue while its headers are
	 * all afwd reads.
	 */
	if (decided && !res.per_packet) {
		kflow_install(&h->k, &res, res.sport == 40000 ? 0 : 1,
			      (g->flags & (TB_SYN | TB_ACK)) != TB_SYN, TCP_TIMEOUT, h->now);
		h->k.head = res.decision == AFW_DECIDE_INSPECT &&
			    afw_engine_headers_enough(h->e, &p);
	}
	return pass == AFW_PASS_ACCEPT;
}

/* A client segment: through afwd, or the kernel, then maybe the network, then the server. */
static void client(struct h *h, const struct tb_seg *g, bool trusted, bool lost)
{
	int k = kflow_tcp(&h->k, 0, g, h->now);
	bool pass;

	pass = k == K_NONE || k == K_INSPECT ? through(h, g, trusted, k == K_INSPECT && h->k.head) :
	       k == K_ALLOW;
	if (pass && !lost)
		srv_client(h, g, !trusted);
	TRACE("client seq +%d len %zu flags %02x: %s%s; server state %d rcv_nxt +%d parsed %d; kernel %d\n",
	      (int)(g->seq - h->isn - 1), g->len, g->flags, pass ? "passed" : "dropped",
	      lost ? " (lost)" : "", h->s.state, (int)(h->s.rcv_nxt - h->s.irs - 1), h->s.parsed,
	      h->k.verdict);
	check(h);
}

static void server(struct h *h, struct tb_seg g)
{
	int k;

	g.from_server = true;
	k = kflow_tcp(&h->k, 1, &g, h->now);
	if (k == K_NONE || k == K_INSPECT)
		through(h, &g, false, k == K_INSPECT && h->k.head);
	check(h);
}

/* A datagram, client's unless @from_server: through the kernel's flow, or afwd. */
static void udp(struct h *h, bool from_server, const uint8_t *d, size_t len)
{
	uint8_t buf[2000], payload[1400];
	struct afw_result res;
	struct afw_pkt p;
	bool decided;
	size_t i;
	int k;

	if (len > sizeof(payload))
		len = sizeof(payload);
	for (i = 0; i < len; i++)
		payload[i] = d[i % h->hlen];
	k = kflow_udp(&h->ku, from_server, payload, len, h->now);
	if (k == K_ALLOW || k == K_DENY)
		return;
	if (afw_pkt_decode(&p, AFW_LINK_RAW, buf, tb_udp(buf, from_server, payload, len)) !=
	    AFW_PKT_OK)
		abort();
	afw_engine_packet(h->e, h->pol, &p, false, 0, h->now, &res, &decided);
	if (decided && !res.per_packet)
		kflow_install(&h->ku, &res, res.sport == 40000 ? 0 : 1, false, UDP_TIMEOUT, h->now);
}

static void expired(const struct afw_result *r, void *data)
{
	(void)r;
	(void)data;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char text[] = "default deny\nprio 10 host allowed.test allow\n"
				   "prio 15 host watched.test inspect\n"
				   "prio 20 host blocked.test deny\n";
	static struct afw_policy *pol;
	static struct afw_engine *e;
	struct afw_engine_opts o = { .max_flows = 4, .max_bytes = 2048, .max_packets = 24,
				     .max_ns = 5000 * MS, .max_decided = 8,
				     .max_memory = 1 << 20 };
	struct afw_policy_error err;
	static struct h h;
	int steps;

	if (trace < 0)
		trace = getenv("AFW_FUZZ_TRACE") != NULL;
	if (!pol) {
		pol = afw_policy_parse(text, sizeof(text) - 1, "fuzz", &err);
		if (!pol)
			abort();
	}
	/*
	 * One engine, reset for each input: making one costs two 128 KiB
	 * scratch buffers and the crypto contexts, most of an input's time.
	 */
	if (!e) {
		e = afw_engine_new(&o);
		if (!e)
			abort();
	}
	memset(&h, 0, sizeof(h));
	h.e = e;
	h.pol = pol;
	h.now = 1000 * MS;
	h.hlen = tb_hello(h.good, "allowed.test", HELLO_PAD);
	tb_hello(h.bad, "blocked.test", HELLO_PAD);
	tb_hello(h.watched, "watched.test", HELLO_PAD);
	memcpy(h.noise, h.good, h.hlen);
	h.noise[h.hlen / 2] ^= 0x5a;
	h.isn = 1000;

	for (steps = 0; size >= 8 && steps < STEPS_MAX; data += 8, size -= 8, steps++) {
		const uint8_t *b = data;
		struct tb_seg g = { 0 };
		uint32_t off = (uint32_t)(b[2] | b[3] << 8) % (h.hlen + 16), len;
		const uint8_t *src = b[1] % 4 == 0 ? h.good : b[1] % 4 == 1 ? h.bad :
				     b[1] % 4 == 2 ? h.noise : h.watched;
		bool trusted = b[7] & 0x40, lost = (b[7] & 0x1f) == 0x1f;

		h.now += MS;
		g.seq = h.isn + 1 + off;
		g.ack = h.s.iss + 1 + (h.s.snd_nxt - h.s.iss - 1);
		g.flags = TB_ACK;
		switch (b[0] % 11) {
		case 0:		/* SYN: this ISN, or a new one */
			if (b[1] & 1)
				h.isn = 1000 + (uint32_t)b[2] * 100003u;
			g = (struct tb_seg){ .flags = TB_SYN, .seq = h.isn, .bad_csum = b[5] & 1 };
			if (b[4] & 1) {
				g.data = src;
				g.len = h.hlen;
			}
			client(&h, &g, trusted, lost);
			break;
		case 1:		/* SYN-ACK */
			if (h.s.state != 1)
				break;
			h.s.synack_sent = true;
			server(&h, (struct tb_seg){ .flags = TB_SYN | TB_ACK, .seq = h.s.iss,
						    .ack = h.s.irs + 1, .win = WIN });
			break;
		case 2:		/* the server's ACK, with data once it has read a hello */
		case 3:
			if (h.s.state != 2)
				break;
			g = (struct tb_seg){ .flags = TB_ACK, .seq = h.s.snd_nxt, .ack = h.s.rcv_nxt,
					     .win = WIN };
			if (h.s.parsed && (b[1] & 1)) {
				g.flags |= TB_PSH;
				g.data = (const uint8_t *)"server hello";
				g.len = 12;
				h.s.snd_nxt += 12;
			}
			server(&h, g);
			break;
		case 4:		/* data, spoiled or not */
		case 5:
		case 6:
			len = 1 + (uint32_t)b[4] % 64;
			if (b[5] & 0x80)
				len = (uint32_t)h.hlen;
			if (off >= h.hlen)
				off = h.hlen - 1;
			if (off + len > h.hlen)
				len = (uint32_t)h.hlen - off;
			g.seq = h.isn + 1 + off;
			g.data = src + off;
			g.len = len;
			g.flags = TB_ACK | TB_PSH;
			if (b[5] & 0x01)
				g.flags &= (uint8_t)~TB_ACK;
			if (b[5] & 0x02)
				g.ack += 1 + b[6] % 200;
			if (b[5] & 0x04)
				g.ack -= 1 + b[6];
			g.bad_csum = b[5] & 0x08;
			g.md5 = (b[5] & 0x30) == 0x30;
			if ((b[5] & 0x60) == 0x40) {
				g.flags |= TB_URG;
				g.urg = (uint16_t)(b[6] % 8);
			}
			if ((b[7] & 0x30) == 0x20)
				g.seq += WIN;
			if ((b[7] & 0x80) && off + len == h.hlen)
				g.flags |= TB_FIN;
			client(&h, &g, trusted, lost);
			break;
		case 7:		/* the handshake's ACK, or a pure ACK */
			g.seq = h.isn + 1 + (b[2] % 2 ? off : 0);
			client(&h, &g, trusted, lost);
			break;
		case 8:		/* RST */
			g.seq = h.s.state ? h.s.rcv_nxt : h.isn + 1;
			if (b[1] & 1)
				g.seq += off;
			g.flags = TB_RST | TB_ACK;
			client(&h, &g, trusted, lost);
			break;
		case 9:		/* time */
			h.now += (uint64_t)b[1] * 100 * MS;
			afw_engine_expire(h.e, pol, h.now, false, expired, NULL);
			break;
		case 10:	/* a datagram, either way: the UDP path must hold too */
			udp(&h, b[1] & 1, src + off % h.hlen, 1 + (size_t)b[4] * 5);
			break;
		}
	}
	/* The end: what afwd decides by its timers reaches the kernel with the next packet. */
	afw_engine_expire(h.e, pol, h.now, true, expired, NULL);
	if (!kflow_live(&h.k, h.now))
		client(&h, &(struct tb_seg){ .flags = TB_ACK, .seq = h.s.rcv_nxt,
					     .ack = h.s.snd_nxt }, false, false);
	check(&h);
	/* With every flow gone, the memory the engine counts must be too. */
	if (afw_engine_reset(e)) {
		fprintf(stderr, "the engine still counts flow memory with no flow left\n");
		abort();
	}
	return 0;
}
