// SPDX-License-Identifier: GPL-2.0
/*
 * The ledger of installed flows: found from a packet of either direction;
 * a refused install waits a backoff that doubles up to its bound and is
 * retried until it takes or its flow goes quiet; a full ledger gives up its
 * oldest record and says so; a reload judges every record again from the
 * facts it kept, as the policy judged them the first time.
 */

#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <arpa/inet.h>
#include <linux/afw.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "check.h"
#include "ledger.h"
#include "result.h"

#define MS 1000000ull
#define S 1000000000ull

static const struct afw_ledger_opts opts = {
	.max = 4, .idle_ns = 300 * S, .retry_min_ns = 100 * MS, .retry_max_ns = 10 * S,
};

static struct afw_result result(const char *host, uint16_t sport, enum afw_decision d)
{
	struct afw_result r = t_result(host, sport, d);

	/* As on the wire: a length byte, then the id. */
	memcpy(r.alpn, "\x02h2\x08http/1.1", 12);
	r.alpn_len = 12;
	r.n_alpn = 2;
	r.ech = true;
	r.giveup = AFW_REASON_NONE;
	snprintf(r.ja4, sizeof(r.ja4), "t13d1516h2_8daaf6152771_e5627efa2ab1");
	r.has_uid = true;
	r.uid = 1000;
	r.decision = d;
	r.rule_line = 2;
	return r;
}

/* A connection decided at its SYN, by its ends: nothing of it read. */
static struct afw_result settled(uint16_t sport, enum afw_decision d)
{
	struct afw_result r = result("", sport, d);

	r.l7 = AFW_L7_UNKNOWN;
	r.alpn_len = 0;
	r.n_alpn = 0;
	r.ech = false;
	r.ja4[0] = '\0';
	r.settled = true;
	return r;
}

/* A packet of the flow, from the server when @reply. */
static struct afw_pkt packet(uint16_t sport, bool reply)
{
	struct afw_pkt p;

	memset(&p, 0, sizeof(p));
	p.ipver = 4;
	p.proto = IPPROTO_TCP;
	p.has_l4 = 1;
	inet_pton(AF_INET, reply ? "10.0.0.2" : "10.0.0.1", p.src);
	inet_pton(AF_INET, reply ? "10.0.0.1" : "10.0.0.2", p.dst);
	p.sport = reply ? 443 : sport;
	p.dport = reply ? sport : 443;
	return p;
}

struct sends {
	unsigned int n;
	bool accept;
	uint16_t last_sport;
};

static bool send_cb(struct afw_lrec *r, void *data)
{
	struct sends *s = data;
	struct afw_flow_spec f;

	afw_ledger_flow(r, &f);
	s->n++;
	s->last_sport = f.sport;
	return s->accept;
}

struct change {
	unsigned int n;
	enum afw_decision old[8], now[8];
};

static void changed_cb(struct afw_lrec *r, enum afw_decision old, void *data)
{
	struct change *c = data;

	c->old[c->n] = old;
	c->now[c->n++] = afw_lrec_decision(r);
}

/*
 * A UDP datagram of the flow @client:40000 <-> 10.0.0.2:443, from the
 * server when @reply, its payload @len bytes of @data.
 */
static struct afw_pkt dgram(const char *client, bool reply, const uint8_t *data, size_t len)
{
	struct afw_pkt p;

	memset(&p, 0, sizeof(p));
	p.ipver = 4;
	p.proto = IPPROTO_UDP;
	p.has_l4 = 1;
	inet_pton(AF_INET, reply ? "10.0.0.2" : client, p.src);
	inet_pton(AF_INET, reply ? client : "10.0.0.2", p.dst);
	p.sport = reply ? 443 : 40000;
	p.dport = reply ? 40000 : 443;
	p.payload = data;
	p.payload_len = len;
	return p;
}

/* A record of the UDP flow from @client:40000 to 10.0.0.2:443, decided @d. */
static struct afw_lrec *udp_record(struct afw_ledger *l, const char *client, enum afw_decision d)
{
	struct afw_result r = result("q.test", 40000, d);

	r.l4proto = IPPROTO_UDP;
	r.l7 = AFW_L7_QUIC;
	memset(r.src, 0, sizeof(r.src));
	inet_pton(AF_INET, client, r.src);
	return afw_ledger_put(l, &r, AFW_LREC_SENT, 1000 * S);
}

/*
 * Which packets of a recorded flow the record answers, and which the
 * module sent on purpose for the engine: a QUIC Initial of the client's on
 * an allowed UDP flow may open another connection on the same ports, and
 * must not pass by the record of the connection that was allowed.
 */
static void test_use(int *failed)
{
	/* Long headers: v1 Initial, v1 Handshake, v2 Initial, v2 Retry, another version. */
	static const uint8_t v1_initial[8] = { 0xc3, 0, 0, 0, 1, 8, 1, 2 },
			     v1_handshake[8] = { 0xe3, 0, 0, 0, 1, 8, 1, 2 },
			     v2_initial[8] = { 0xd3, 0x6b, 0x33, 0x43, 0xcf, 8, 1, 2 },
			     v2_retry[8] = { 0xc3, 0x6b, 0x33, 0x43, 0xcf, 8, 1, 2 },
			     other[8] = { 0xc0, 0x1a, 0x2a, 0x3a, 0x4a, 8, 1, 2 },
			     vneg[8] = { 0xc0, 0, 0, 0, 0, 8, 1, 2 },
			     short_hdr[8] = { 0x43, 1, 2, 3, 4, 5, 6, 7 };
	struct afw_ledger *l = afw_ledger_new(&opts);
	struct afw_lrec *rec, *hi;
	struct afw_flow_spec f;
	struct afw_pkt p;

	rec = udp_record(l, "10.0.0.1", AFW_DECIDE_ALLOW);
	afw_lrec_set_established(rec);
	afw_ledger_flow(rec, &f);
	CHECK(*failed, "use: UDP has no SYN: never installed as established", f.flags == 0);
	p = dgram("10.0.0.1", false, v1_initial, sizeof(v1_initial));
	CHECK(*failed, "use: a client's v1 Initial on an allowed UDP flow goes to the engine",
	      rec && afw_ledger_find_pkt(l, &p) == rec && afw_ledger_use(rec, &p) == AFW_LREC_ENGINE);
	p = dgram("10.0.0.1", false, v2_initial, sizeof(v2_initial));
	CHECK(*failed, "use: and a v2 Initial", afw_ledger_use(rec, &p) == AFW_LREC_ENGINE);
	p = dgram("10.0.0.1", false, other, sizeof(other));
	CHECK(*failed, "use: and a long header of a version afwd may not know",
	      afw_ledger_use(rec, &p) == AFW_LREC_ENGINE);
	p = dgram("10.0.0.1", false, short_hdr, sizeof(short_hdr));
	CHECK(*failed, "use: a short-header datagram is the record's to answer",
	      afw_ledger_use(rec, &p) == AFW_LREC_ANSWER);
	p = dgram("10.0.0.1", false, v1_handshake, sizeof(v1_handshake));
	CHECK(*failed, "use: so is a Handshake", afw_ledger_use(rec, &p) == AFW_LREC_ANSWER);
	p = dgram("10.0.0.1", false, v2_retry, sizeof(v2_retry));
	CHECK(*failed, "use: a v2 Retry (type 0, v1's Initial)",
	      afw_ledger_use(rec, &p) == AFW_LREC_ANSWER);
	p = dgram("10.0.0.1", false, vneg, sizeof(vneg));
	CHECK(*failed, "use: and version negotiation (version 0)",
	      afw_ledger_use(rec, &p) == AFW_LREC_ANSWER);
	p = dgram("10.0.0.1", false, v1_initial, 4);
	CHECK(*failed, "use: and a datagram too short to hold a version",
	      afw_ledger_use(rec, &p) == AFW_LREC_ANSWER);
	p = dgram("10.0.0.1", true, v1_initial, sizeof(v1_initial));
	CHECK(*failed, "use: the server's Initial is answered: only the client's come on purpose",
	      afw_ledger_use(rec, &p) == AFW_LREC_ANSWER);
	afw_ledger_drop(l, rec);

	/* The client is the side the result named first, wherever it sorts. */
	hi = udp_record(l, "10.0.0.9", AFW_DECIDE_ALLOW);
	afw_ledger_flow(hi, &f);
	CHECK(*failed, "use: a client that sorts above its server is the flow's source, as "
	      "FLOW_NEW gives it", hi && f.src[3] == 9 && f.dst[3] == 2 && f.sport == 40000 &&
	      f.dport == 443);
	p = dgram("10.0.0.9", false, v1_initial, sizeof(v1_initial));
	CHECK(*failed, "use: and its Initials go to the engine",
	      afw_ledger_find_pkt(l, &p) == hi && afw_ledger_use(hi, &p) == AFW_LREC_ENGINE);
	p = dgram("10.0.0.9", true, v1_initial, sizeof(v1_initial));
	CHECK(*failed, "use: its server's do not", afw_ledger_use(hi, &p) == AFW_LREC_ANSWER);
	afw_ledger_drop(l, hi);

	/* The module never sends a denied flow's packets on purpose. */
	rec = udp_record(l, "10.0.0.1", AFW_DECIDE_DENY);
	p = dgram("10.0.0.1", false, v1_initial, sizeof(v1_initial));
	CHECK(*failed, "use: an Initial on a denied UDP flow is answered: denied",
	      afw_ledger_use(rec, &p) == AFW_LREC_ANSWER);
	afw_ledger_drop(l, rec);
	rec = udp_record(l, "10.0.0.1", AFW_DECIDE_INSPECT);
	p = dgram("10.0.0.1", false, short_hdr, sizeof(short_hdr));
	CHECK(*failed, "use: every packet of an inspected flow is the engine's",
	      afw_ledger_use(rec, &p) == AFW_LREC_ENGINE);
	afw_ledger_drop(l, rec);

	/* TCP: a SYN is a new connection; anything else is answered. */
	{
		struct afw_result r = result("t.test", 40000, AFW_DECIDE_ALLOW);
		struct afw_pkt t = packet(40000, false);

		rec = afw_ledger_put(l, &r, AFW_LREC_SENT, 1000 * S);
		t.tcp_flags = AFW_TCP_SYN;
		CHECK(*failed, "use: a TCP SYN on a recorded flow is a new connection",
		      afw_ledger_use(rec, &t) == AFW_LREC_RESTART);
		t = packet(40000, true);
		t.tcp_flags = AFW_TCP_SYN | AFW_TCP_ACK;
		CHECK(*failed, "use: a SYN-ACK is answered",
		      afw_ledger_use(rec, &t) == AFW_LREC_ANSWER);
		t = packet(40000, false);
		t.tcp_flags = AFW_TCP_ACK;
		t.payload = v1_initial;
		t.payload_len = sizeof(v1_initial);
		CHECK(*failed, "use: bytes like a QUIC Initial over TCP are answered",
		      afw_ledger_use(rec, &t) == AFW_LREC_ANSWER);
	}
	afw_ledger_free(l);
}

/* An ICMP echo of 10.0.0.1 and 10.0.0.2: a request when @request, sent by @from. */
static struct afw_pkt echo(const char *from, bool request, uint16_t id)
{
	struct afw_pkt p;

	memset(&p, 0, sizeof(p));
	p.ipver = 4;
	p.proto = IPPROTO_ICMP;
	p.has_l4 = 1;
	p.icmp_type = request ? 8 : 0;
	p.echo = request ? AFW_PKT_ECHO_REQUEST : AFW_PKT_ECHO_REPLY;
	p.echo_id = id;
	inet_pton(AF_INET, from, p.src);
	inet_pton(AF_INET, strcmp(from, "10.0.0.1") ? "10.0.0.1" : "10.0.0.2", p.dst);
	return p;
}

/*
 * A ping's record gives the module the ping's own flow, its pinger as the
 * source, whichever side afwd took for the client; and it answers only
 * that ping's packets.
 */
static void test_echo(int *failed)
{
	struct afw_ledger *l = afw_ledger_new(&opts);
	struct afw_result r = settled(0, AFW_DECIDE_ALLOW);
	uint8_t one[16] = { 0 }, two[16] = { 0 };
	struct afw_lrec *rec;
	struct afw_flow_spec f;
	struct afw_pkt p;

	inet_pton(AF_INET, "10.0.0.1", one);
	inet_pton(AF_INET, "10.0.0.2", two);
	/* First seen: 10.0.0.1's reply, so 10.0.0.2 pings. */
	r.l4proto = IPPROTO_ICMP;
	r.sport = r.dport = 0;
	r.echo = AFW_PKT_ECHO_REPLY;
	r.icmp_id = 4242;
	rec = afw_ledger_put(l, &r, AFW_LREC_SENT, 1000 * S);
	afw_ledger_flow(rec, &f);
	CHECK(*failed, "echo: the flow is the ping's, from its pinger, no ports",
	      rec && f.echo && f.icmp_id == 4242 && f.sport == 0 && f.dport == 0 &&
	      !memcmp(f.src, two, 16) && !memcmp(f.dst, one, 16) && f.verdict == AFW_VERDICT_ACCEPT);
	CHECK(*failed, "echo: found again by that flow, as the module gives it back",
	      rec && afw_ledger_find(l, &f) == rec);
	p = echo("10.0.0.2", true, 4242);
	CHECK(*failed, "echo: its requests are the record's", rec && afw_ledger_find_pkt(l, &p) == rec);
	p = echo("10.0.0.1", false, 4242);
	CHECK(*failed, "echo: and its replies", rec && afw_ledger_find_pkt(l, &p) == rec);
	p = echo("10.0.0.1", true, 4242);
	CHECK(*failed, "echo: a request the other way, same identifier, is not",
	      !afw_ledger_find_pkt(l, &p));
	p = echo("10.0.0.2", true, 4243);
	CHECK(*failed, "echo: nor one with another identifier", !afw_ledger_find_pkt(l, &p));
	f.echo = false;
	f.icmp_id = 0;
	CHECK(*failed, "echo: nor a flow of the two hosts without one", !afw_ledger_find(l, &f));
	afw_ledger_free(l);
}

static struct afw_policy *policy(const char *text)
{
	struct afw_policy_error err;

	return afw_policy_parse(text, strlen(text), "test", &err);
}

int main(void)
{
	struct afw_ledger *l = afw_ledger_new(&opts);
	struct afw_result r = result("a.test", 40000, AFW_DECIDE_ALLOW);
	struct afw_lrec *rec, *found;
	struct sends sends = { 0 };
	struct change ch = { 0 };
	struct afw_flow_spec f;
	struct afw_facts facts, orig;
	struct afw_policy *p1, *p2;
	struct afw_pkt pkt;
	uint64_t now = 1000 * S, d, prev;
	int failed = 0, ok;
	unsigned int i;

	/* Backoff: 100 ms, doubling, never above 10 s. */
	CHECK(failed, "backoff: the first retry after 100 ms", afw_ledger_backoff_ns(&opts, 1) == 100 * MS);
	CHECK(failed, "backoff: 200 ms, then 400 ms", afw_ledger_backoff_ns(&opts, 2) == 200 * MS &&
	      afw_ledger_backoff_ns(&opts, 3) == 400 * MS);
	ok = 1;
	prev = 0;
	for (i = 1; i < 300; i++) {
		d = afw_ledger_backoff_ns(&opts, i);
		ok &= d >= prev && d <= 10 * S && d > 0;
		prev = d;
	}
	CHECK(failed, "backoff: grows and stays within 10 s for any number of refusals",
	      ok && afw_ledger_backoff_ns(&opts, 299) == 10 * S);

	/* A record, found from either direction. */
	rec = afw_ledger_put(l, &r, AFW_LREC_SENT, now);
	pkt = packet(40000, false);
	found = afw_ledger_find_pkt(l, &pkt);
	CHECK(failed, "a record is found from a client packet", rec && found == rec);
	pkt = packet(40000, true);
	CHECK(failed, "and from a server packet", afw_ledger_find_pkt(l, &pkt) == rec);
	pkt = packet(40001, false);
	CHECK(failed, "another port is another flow", afw_ledger_find_pkt(l, &pkt) == NULL);
	afw_ledger_flow(rec, &f);
	CHECK(failed, "its flow goes client to server, verdict accept",
	      f.family == AFW_FAMILY_IPV4 && f.sport == 40000 && f.dport == 443 &&
	      f.src[3] == 1 && f.dst[3] == 2 && f.verdict == AFW_VERDICT_ACCEPT);
	CHECK(failed, "and afw_ledger_find() finds it by that flow", afw_ledger_find(l, &f) == rec);
	CHECK(failed, "a flow decided at its SYN goes without flags: ahead of its connection",
	      f.flags == 0);
	afw_lrec_set_established(rec);
	afw_ledger_flow(rec, &f);
	CHECK(failed, "one decided past it is installed as established: any SYN is a new one",
	      f.flags == AFW_FLOW_F_ESTABLISHED);

	/* Facts kept are the facts the policy read. */
	afw_facts_from_result(&r, &orig);
	afw_ledger_facts(rec, &facts);
	CHECK(failed, "facts: host, JA4, both ALPN values, uid, l7, port and address come back",
	      facts.host.len == 6 && !memcmp(facts.host.ptr, "a.test", 6) &&
	      facts.ja4.len == orig.ja4.len && !memcmp(facts.ja4.ptr, orig.ja4.ptr, orig.ja4.len) &&
	      facts.alpn.len == 12 && !memcmp(facts.alpn.ptr, "\x02h2\x08http/1.1", 12) &&
	      facts.ech &&
	      facts.has_uid && facts.uid == 1000 && facts.l7 == AFW_L7_TLS &&
	      facts.dport == 443 && facts.family == AF_INET && facts.l4proto == IPPROTO_TCP &&
	      !memcmp(facts.daddr, r.dst, 16));
	p1 = policy("default deny\nprio 1 alpn h2 uid 1000 dport 443 to 10.0.0.0/24 "
		    "ja4 t13d1516h2_8daaf6152771_e5627efa2ab1 host a.test allow\n");
	CHECK(failed, "facts: a rule on every field decides the same from the record",
	      p1 && afw_policy_match(p1, &orig, NULL) == AFW_DECIDE_ALLOW &&
	      afw_policy_match(p1, &facts, NULL) == AFW_DECIDE_ALLOW);
	afw_policy_free(p1);
	/* The give-up reason and ECH are facts too: a reload judges them again. */
	p1 = policy("default allow\nprio 1 ech yes alpn http/1.1 deny\n");
	CHECK(failed, "facts: ECH and the second ALPN id decide the same from the record",
	      p1 && afw_policy_match(p1, &orig, NULL) == AFW_DECIDE_DENY &&
	      afw_policy_match(p1, &facts, NULL) == AFW_DECIDE_DENY);
	afw_policy_free(p1);
	{
		struct afw_result g = result("", 40100, AFW_DECIDE_ALLOW);
		struct afw_lrec *grec;

		g.l7 = AFW_L7_UNKNOWN;
		g.giveup = AFW_REASON_TIMEOUT;
		g.alpn_len = 0;
		g.ech = false;
		grec = afw_ledger_put(l, &g, AFW_LREC_SENT, now);
		afw_ledger_facts(grec, &facts);
		p1 = policy("default allow\nprio 1 dport 443 reason timeout deny\n");
		CHECK(failed, "facts: a give-up's reason comes back, and a rule on it decides",
		      grec && facts.reason == AFW_REASON_TIMEOUT && facts.l7 == AFW_L7_UNKNOWN &&
		      p1 && afw_policy_match(p1, &facts, NULL) == AFW_DECIDE_DENY);
		afw_policy_free(p1);
		afw_ledger_drop(l, grec);
	}

	/* Refused: retried after the backoff, until the module takes it. */
	afw_ledger_refused(l, rec, now);
	CHECK(failed, "refused: the record waits", afw_lrec_state(rec) == AFW_LREC_WAIT &&
	      afw_ledger_next_due(l) == now + 100 * MS);
	CHECK(failed, "nothing is sent before the backoff",
	      afw_ledger_due(l, now + 99 * MS, send_cb, &sends) == 0 && sends.n == 0);
	sends.accept = false;
	afw_ledger_due(l, now + 100 * MS, send_cb, &sends);
	CHECK(failed, "at 100 ms the install is tried again", sends.n == 1 && sends.last_sport == 40000);
	afw_ledger_refused(l, rec, now + 100 * MS);
	CHECK(failed, "refused again: the next try 200 ms later",
	      afw_lrec_tries(rec) == 2 && afw_lrec_retry_at(rec) == now + 300 * MS);
	for (i = 0; i < 20; i++)
		afw_ledger_refused(l, rec, now);
	CHECK(failed, "refused again and again: at most 10 s apart",
	      afw_lrec_retry_at(rec) == now + 10 * S);
	sends.accept = true;
	sends.n = 0;
	CHECK(failed, "when it takes, the record is in the module again",
	      afw_ledger_due(l, now + 10 * S, send_cb, &sends) == 1 &&
	      afw_lrec_state(rec) == AFW_LREC_SENT && afw_ledger_next_due(l) == UINT64_MAX);
	CHECK(failed, "retries are counted", afw_ledger_stats(l)->retries == 2 &&
	      afw_ledger_stats(l)->refused == 22);

	/*
	 * A round's clock is read once, before its told copies: one of a
	 * waiting flow may note it by a later clock than the round's.
	 */
	{
		struct afw_result w = result("", 40200, AFW_DECIDE_ALLOW);
		struct afw_lrec *wrec = afw_ledger_put(l, &w, AFW_LREC_SENT, now);

		afw_ledger_refused(l, wrec, now);
		afw_ledger_answered(l, wrec, now + 150 * MS, 1 * S);
		sends.n = 0;
		afw_ledger_due(l, now + 120 * MS, send_cb, &sends);
		CHECK(failed, "a flow noted by a clock later than the round's is retried, not "
		      "given up", sends.n == 1 && sends.last_sport == 40200 &&
		      afw_ledger_count(l) == 2 && afw_ledger_stats(l)->given_up == 0);
		if (afw_ledger_count(l) == 2)
			afw_ledger_drop(l, wrec);
	}

	/* Packets afwd answers keep a flow alive; a silent one is given up. */
	afw_ledger_refused(l, rec, now);
	afw_ledger_answered(l, rec, now + 200 * S, 1 * S);
	sends.n = 0;
	afw_ledger_due(l, now + 299 * S, send_cb, &sends);
	CHECK(failed, "a flow whose packets still come is still retried", sends.n == 1 &&
	      afw_ledger_count(l) == 1);
	afw_ledger_refused(l, rec, now + 299 * S);
	sends.n = 0;
	afw_ledger_due(l, now + 500 * S + 1, send_cb, &sends);
	CHECK(failed, "a flow silent for the idle time is given up, not retried forever",
	      sends.n == 0 && afw_ledger_count(l) == 0 && afw_ledger_stats(l)->given_up == 1);

	/* A packet of a flow the module should hold means it does not. */
	rec = afw_ledger_put(l, &r, AFW_LREC_SENT, now);
	afw_ledger_answered(l, rec, now + 500 * MS, 1 * S);
	CHECK(failed, "a packet right after the install is the install's race: not resent",
	      afw_lrec_state(rec) == AFW_LREC_SENT);
	afw_ledger_answered(l, rec, now - 1, 1 * S);
	CHECK(failed, "a packet whose round read the clock before the install: not resent",
	      afw_lrec_state(rec) == AFW_LREC_SENT);
	afw_ledger_answered(l, rec, now + 2 * S, 1 * S);
	CHECK(failed, "a packet long after it: the flow is installed again at once",
	      afw_lrec_state(rec) == AFW_LREC_WAIT && afw_ledger_next_due(l) == now + 2 * S);
	afw_ledger_due(l, now + 2 * S, send_cb, &sends);

	/* Full: the oldest goes, and the ledger says a record was lost. */
	for (i = 1; i <= 4; i++) {
		struct afw_result ri = result("b.test", (uint16_t)(40000 + i), AFW_DECIDE_DENY);

		afw_ledger_put(l, &ri, AFW_LREC_SENT, now);
	}
	pkt = packet(40000, false);
	CHECK(failed, "a full ledger gives up its oldest record",
	      afw_ledger_count(l) == 4 && !afw_ledger_find_pkt(l, &pkt) &&
	      afw_ledger_lost(l) && afw_ledger_stats(l)->evicted == 1);
	pkt = packet(40001, false);
	afw_ledger_answered(l, afw_ledger_find_pkt(l, &pkt), now, 1 * S);
	r = result("c.test", 40009, AFW_DECIDE_ALLOW);
	afw_ledger_put(l, &r, AFW_LREC_SENT, now);
	CHECK(failed, "a flow afwd still answers is not the oldest",
	      afw_ledger_find_pkt(l, &pkt) != NULL);
	afw_ledger_clear_lost(l);
	CHECK(failed, "the loss is forgotten once dealt with", !afw_ledger_lost(l));

	/* The module is back: every record goes again. */
	afw_ledger_wait_all(l, now);
	sends.n = 0;
	CHECK(failed, "once the module is back, every record is installed again",
	      afw_ledger_due(l, now, send_cb, &sends) == 4 && sends.n == 4);

	/* A reload: every record judged again, from its facts. */
	afw_ledger_free(l);
	l = afw_ledger_new(&opts);
	r = result("a.test", 40000, AFW_DECIDE_ALLOW);
	afw_ledger_put(l, &r, AFW_LREC_SENT, now);
	r = result("b.test", 40001, AFW_DECIDE_DENY);
	afw_ledger_put(l, &r, AFW_LREC_SENT, now);
	r = result("c.test", 40002, AFW_DECIDE_DENY);
	r.rule_line = 0;	/* a malformed hello: refused by the reader */
	afw_ledger_put(l, &r, AFW_LREC_SENT, now);
	p2 = policy("default allow\nprio 1 host a.test deny\nprio 2 host c.test deny\n");
	afw_ledger_rejudge(l, p2, changed_cb, &ch);
	CHECK(failed, "reload: the allowed name now denied, the denied one now allowed",
	      ch.n == 2 && ch.old[0] == AFW_DECIDE_ALLOW && ch.now[0] == AFW_DECIDE_DENY &&
	      ch.old[1] == AFW_DECIDE_DENY && ch.now[1] == AFW_DECIDE_ALLOW);
	pkt = packet(40002, false);
	CHECK(failed, "a flow a reader refused stays denied whatever the policy says",
	      afw_lrec_decision(afw_ledger_find_pkt(l, &pkt)) == AFW_DECIDE_DENY);
	ch.n = 0;
	afw_ledger_rejudge(l, p2, changed_cb, &ch);
	CHECK(failed, "the same policy again changes nothing", ch.n == 0);
	afw_policy_free(p2);
	afw_ledger_free(l);

	/* A reload sees every end the first decision saw: source, direction, interfaces. */
	l = afw_ledger_new(&opts);
	r = result("a.test", 40000, AFW_DECIDE_ALLOW);
	r.dir = AFW_FDIR_OUT;
	r.oif = if_nametoindex("lo");
	afw_ledger_put(l, &r, AFW_LREC_SENT, now);
	p2 = policy("default deny\nprio 1 dir out oif lo sport 40000 from 10.0.0.1 allow\n");
	ch.n = 0;
	afw_ledger_rejudge(l, p2, changed_cb, &ch);
	CHECK(failed, "reload: a flow decided by its direction and source stays as it was",
	      r.oif && ch.n == 0);
	afw_policy_free(p2);
	afw_ledger_free(l);

	/* A flow decided unread, by its ends: judged again by them, or as past reading. */
	l = afw_ledger_new(&opts);
	r = settled(40000, AFW_DECIDE_ALLOW);
	afw_ledger_put(l, &r, AFW_LREC_SENT, now);
	p2 = policy("default deny\nprio 10 proto tcp dport 443 allow\n");
	ch.n = 0;
	afw_ledger_rejudge(l, p2, changed_cb, &ch);
	CHECK(failed, "reload: a policy that still decides it by its ends keeps it", ch.n == 0);
	afw_policy_free(p2);
	p2 = policy("default deny\nprio 5 host bad.test deny\nprio 8 reason mid-stream deny\n"
		    "prio 10 proto tcp dport 443 allow\n");
	afw_ledger_rejudge(l, p2, changed_cb, &ch);
	CHECK(failed, "one with a name rule before: its name unknown, judged as mid-stream",
	      ch.n == 1 && ch.old[0] == AFW_DECIDE_ALLOW && ch.now[0] == AFW_DECIDE_DENY);
	afw_policy_free(p2);
	afw_ledger_free(l);

	/*
	 * Refused at its SYN, a connection never started: a reload that would
	 * read it keeps the refusal, and never lets it pass as mid-stream.
	 */
	l = afw_ledger_new(&opts);
	r = settled(40000, AFW_DECIDE_DENY);
	rec = afw_ledger_put(l, &r, AFW_LREC_SENT, now);
	p2 = policy("default deny\nprio 10 proto tcp dport 443 host evil.test deny\n"
		    "prio 20 proto tcp dport 443 allow\n");
	ch.n = 0;
	afw_ledger_rejudge(l, p2, changed_cb, &ch);
	afw_ledger_flow(rec, &f);
	CHECK(failed, "reload: a connection refused at its SYN stays refused when it would be read",
	      ch.n == 0 && afw_lrec_decision(rec) == AFW_DECIDE_DENY &&
	      f.verdict == AFW_VERDICT_DROP);
	afw_policy_free(p2);
	p2 = policy("default deny\nprio 20 proto tcp dport 443 allow\n");
	afw_ledger_rejudge(l, p2, changed_cb, &ch);
	afw_ledger_flow(rec, &f);
	CHECK(failed, "and one that allows it by its ends lets its SYN, sent again, pass",
	      ch.n == 1 && ch.now[0] == AFW_DECIDE_ALLOW && f.verdict == AFW_VERDICT_ACCEPT &&
	      !(f.flags & AFW_FLOW_F_ESTABLISHED));
	afw_ledger_sent(l, rec, now);
	afw_ledger_flow(rec, &f);
	CHECK(failed, "once installed so, it has started: installed again, it takes no new SYN",
	      f.flags & AFW_FLOW_F_ESTABLISHED);
	afw_policy_free(p2);
	afw_ledger_free(l);

	test_use(&failed);
	test_echo(&failed);
	return failed;
}
