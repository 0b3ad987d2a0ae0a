// SPDX-License-Identifier: GPL-2.0
/*
 * Flow analysis: a table of the flows being looked at, bounded in count,
 * bytes, packets and time, and the step from bytes to a decision.
 *
 * Bounds and what they decide (docs/afwd.md):
 * - a flow that reaches max_bytes, max_packets or max_ns without a
 *   complete ClientHello, QUIC Initial or request head, or whose first bytes
 *   are none of them, is decided by the policy as app "unknown";
 * - a new flow that finds the table full is decided at once, the same way;
 * - a ClientHello, QUIC Initial or request head that is malformed, and
 *   retransmitted bytes that differ from the first copy, are denied: real
 *   clients send neither, and a reader that guessed would be evaded.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "engine.h"
#include "h2.h"
#include "http.h"
#include "ja4.h"
#include "quic.h"
#include "reasm.h"
#include "tls.h"

enum afw_eflow_state {
	AFW_EF_ANALYZING,
	AFW_EF_DECIDED,
};

struct afw_eflow {
	struct afw_pkt_key key;
	struct afw_eflow *hnext;		/* hash chain */
	struct afw_eflow *prev, *next;		/* its list, by deadline */
	uint64_t deadline;			/* analysis ends, or the linger does */
	uint32_t hash;
	uint8_t client;				/* the side of key that is the client */
	uint8_t state;
	enum afw_pass pass;			/* once decided */
	unsigned int packets;
	unsigned int idle;			/* packets that brought no new client bytes */
	bool has_uid;
	uint32_t uid;
	uint8_t *buf;				/* client bytes; only while analyzing */
	struct afw_reasm reasm;
	struct afw_quic_flow quic;
	/* An inspected HTTP/1.x flow: every later request head is read too. */
	bool following;
	uint32_t follow_seq;			/* the next client byte to read */
	struct afw_http_follow follow;		/* its buffer is owned here */
};

/* A list in deadline order: every flow of a list gets the same delay. */
struct afw_elist {
	struct afw_eflow *head, *tail;
	unsigned int n;
};

struct afw_engine {
	struct afw_engine_opts o;
	struct afw_eflow **buckets;
	uint32_t hmask;
	uint32_t seed;
	struct afw_elist analyzing, decided;
	struct afw_quic_ctx *quic;
	struct afw_ja4_ctx *ja4;
	struct afw_engine_stats stats;
	uint8_t scratch[AFW_TLS_SCRATCH_SIZE];
};

static void afw_elist_add(struct afw_elist *l, struct afw_eflow *f)
{
	f->next = NULL;
	f->prev = l->tail;
	if (l->tail)
		l->tail->next = f;
	else
		l->head = f;
	l->tail = f;
	l->n++;
}

static void afw_elist_del(struct afw_elist *l, struct afw_eflow *f)
{
	if (f->prev)
		f->prev->next = f->next;
	else
		l->head = f->next;
	if (f->next)
		f->next->prev = f->prev;
	else
		l->tail = f->prev;
	l->n--;
}

struct afw_engine *afw_engine_new(const struct afw_engine_opts *o)
{
	struct afw_engine *e = calloc(1, sizeof(*e));
	uint32_t buckets = 64;

	if (!e)
		return NULL;
	e->o = *o;
	if (e->o.max_bytes > AFW_TLS_SCRATCH_SIZE)
		e->o.max_bytes = AFW_TLS_SCRATCH_SIZE;
	/* Decided flows linger as well: room for both, one per bucket. */
	while (buckets < 2 * o->max_flows && buckets < (1u << 24))
		buckets <<= 1;
	e->hmask = buckets - 1;
	e->buckets = calloc(buckets, sizeof(*e->buckets));
	e->quic = afw_quic_ctx_new();
	e->ja4 = afw_ja4_ctx_new();
	if (!e->buckets || !e->quic || !e->ja4 ||
	    getrandom(&e->seed, sizeof(e->seed), 0) != sizeof(e->seed)) {
		afw_engine_free(e);
		return NULL;
	}
	return e;
}

static void afw_eflow_free(struct afw_eflow *f)
{
	free(f->buf);
	free(f->follow.buf);
	free(f);
}

static void afw_engine_unlink(struct afw_engine *e, struct afw_eflow *f)
{
	struct afw_eflow **pp = &e->buckets[f->hash & e->hmask];

	while (*pp != f)
		pp = &(*pp)->hnext;
	*pp = f->hnext;
	afw_elist_del(f->state == AFW_EF_ANALYZING ? &e->analyzing : &e->decided, f);
}

void afw_engine_free(struct afw_engine *e)
{
	struct afw_eflow *f;

	if (!e)
		return;
	if (e->buckets) {
		while ((f = e->analyzing.head ? e->analyzing.head : e->decided.head)) {
			afw_engine_unlink(e, f);
			afw_eflow_free(f);
		}
	}
	afw_ja4_ctx_free(e->ja4);
	afw_quic_ctx_free(e->quic);
	free(e->buckets);
	free(e);
}

static struct afw_eflow *afw_engine_find(struct afw_engine *e, const struct afw_pkt_key *k,
					 uint32_t hash)
{
	struct afw_eflow *f;

	for (f = e->buckets[hash & e->hmask]; f; f = f->hnext)
		if (f->hash == hash && !memcmp(&f->key, k, sizeof(*k)))
			return f;
	return NULL;
}

static struct afw_text afw_text_of(const struct afw_span *s)
{
	return (struct afw_text){ (const char *)s->p, s->len };
}

static void afw_copy_span(char *dst, size_t cap, const struct afw_span *s)
{
	size_t n = s->len < cap - 1 ? s->len : cap - 1;

	memcpy(dst, s->p, n);
	dst[n] = '\0';
}

/* The flow's endpoints, client first, into @res and @facts. */
static void afw_engine_describe(const struct afw_eflow *f, struct afw_result *res,
				struct afw_facts *facts)
{
	int c = f->client, s = !f->client;

	memset(res, 0, sizeof(*res));
	memset(facts, 0, sizeof(*facts));
	res->family = f->key.ipver == 6 ? AF_INET6 : AF_INET;
	res->l4proto = f->key.proto;
	memcpy(res->src, f->key.addr[c], 16);
	memcpy(res->dst, f->key.addr[s], 16);
	res->sport = f->key.port[c];
	res->dport = f->key.port[s];
	res->has_uid = f->has_uid;
	res->uid = f->uid;
	res->packets = f->packets;
	facts->app = AFW_APP_UNKNOWN;
	facts->family = res->family;
	memcpy(facts->daddr, res->dst, 16);
	facts->dport = res->dport;
	facts->l4proto = res->l4proto;
	facts->has_uid = f->has_uid;
	facts->uid = f->uid;
}

static enum afw_pass afw_decision_pass(enum afw_decision d)
{
	switch (d) {
	case AFW_DECIDE_DENY:
		return AFW_PASS_DROP;
	case AFW_DECIDE_REJECT:
		return AFW_PASS_REJECT;
	default:
		return AFW_PASS_ACCEPT;
	}
}

/* Marks @f decided with @res's decision; it lingers to answer late packets. */
static enum afw_pass afw_engine_settle(struct afw_engine *e, struct afw_eflow *f,
				       struct afw_result *res, uint64_t now)
{
	afw_elist_del(&e->analyzing, f);
	free(f->buf);
	f->buf = NULL;
	f->state = AFW_EF_DECIDED;
	/*
	 * Only the deciding packet is rejected (re-injected, so that the module
	 * answers it); late packets of the flow are dropped, which also ends
	 * the loop should the flow not have reached the module.
	 */
	f->pass = afw_decision_pass(res->decision);
	if (f->pass == AFW_PASS_REJECT)
		f->pass = AFW_PASS_DROP;
	f->deadline = now + e->o.linger_ns;
	afw_elist_add(&e->decided, f);
	e->stats.decided[res->decision]++;
	return afw_decision_pass(res->decision);
}

/* By the policy, from @facts. @why prefixes the reason. */
static void afw_engine_judge(const struct afw_policy *pol, const struct afw_facts *facts,
			     struct afw_result *res, const char *why)
{
	struct afw_policy_match m = { 0 };

	res->app = facts->app;
	res->giveup = facts->reason;
	res->decision = afw_policy_match(pol, facts, &m);
	res->rule_line = m.line;
	res->is_default = m.is_default;
	if (m.unnamed)
		snprintf(res->reason, sizeof(res->reason), "%s%sno rule names reason %s", why,
			 *why ? ", " : "", afw_reason_name(facts->reason));
	else if (m.is_default)
		snprintf(res->reason, sizeof(res->reason), "%s%sdefault (line %u)", why,
			 *why ? ", " : "", m.line);
	else
		snprintf(res->reason, sizeof(res->reason), "%s%spolicy line %u", why,
			 *why ? ", " : "", m.line);
}

/* Denied without asking the policy: the flow tried to mislead a reader. */
static void afw_engine_refuse(struct afw_result *res, enum afw_app app, const char *fmt,
			      const char *detail)
{
	res->app = app;
	res->decision = AFW_DECIDE_DENY;
	snprintf(res->reason, sizeof(res->reason), fmt, detail);
}

static void afw_engine_hello(struct afw_engine *e, const struct afw_tls_hello *h,
			     enum afw_ja4_transport t, struct afw_result *res,
			     struct afw_facts *facts)
{
	struct afw_span name;
	size_t off = 0;

	facts->app = t == AFW_JA4_QUIC ? AFW_APP_QUIC : AFW_APP_TLS;
	res->tls_version = h->version;
	if (h->has_sni) {
		facts->host = afw_text_of(&h->sni);
		afw_copy_span(res->host, sizeof(res->host), &h->sni);
	}
	facts->ech = res->ech = h->has_ech;
	/* The policy reads every id; the record keeps those that fit. */
	if (h->has_alpn)
		facts->alpn = afw_text_of(&h->alpn);
	while (h->has_alpn && afw_tls_alpn_next(&h->alpn, &off, &name)) {
		if (res->alpn_len + 1 + name.len <= sizeof(res->alpn)) {
			res->alpn[res->alpn_len++] = (uint8_t)name.len;
			memcpy(res->alpn + res->alpn_len, name.p, name.len);
			res->alpn_len += name.len;
		}
		res->n_alpn++;
	}
	if (!afw_ja4(e->ja4, h, t, res->ja4)) {
		facts->ja4.ptr = res->ja4;
		facts->ja4.len = strlen(res->ja4);
	}
}

/*
 * A flow the readers could not name, for @reason: decided by the policy's
 * rules for that reason (evasion and malformed only by a rule naming them).
 * @app is what the report shows; the policy sees app "unknown".
 */
static void afw_engine_giveup(const struct afw_policy *pol, struct afw_facts *facts,
			      struct afw_result *res, enum afw_reason reason, enum afw_app app,
			      const char *why)
{
	facts->app = AFW_APP_UNKNOWN;
	facts->reason = reason;
	afw_engine_judge(pol, facts, res, why);
	res->app = app;
}

/*
 * Reads the request heads in @data, the next @len bytes of an inspected
 * HTTP/1.x flow, and judges each. Returns true when one is to be stopped
 * (@res filled): its host is denied or rejected, or what follows a request
 * is not one (docs/afwd.md: "HTTP requests after the first").
 */
static bool afw_engine_follow_feed(const struct afw_policy *pol, struct afw_eflow *f,
				   const uint8_t *data, size_t len, struct afw_result *res)
{
	struct afw_http_request req;
	enum afw_http_status st;
	struct afw_facts facts;
	char why[120];
	size_t used;

	while (f->following && len) {
		st = afw_http_follow_feed(&f->follow, data, len, &used, &req);
		data += used;
		len -= used;
		if (st == AFW_HTTP_MORE)
			return false;
		afw_engine_describe(f, res, &facts);
		if (st == AFW_HTTP_OK) {
			facts.app = AFW_APP_HTTP;
			if (req.has_host) {
				facts.host = afw_text_of(&req.host);
				afw_copy_span(res->host, sizeof(res->host), &req.host);
			}
			afw_copy_span(res->http_method, sizeof(res->http_method), &req.method);
			afw_engine_judge(pol, &facts, res, "http, a later request");
			if (res->decision == AFW_DECIDE_DENY || res->decision == AFW_DECIDE_REJECT)
				return true;
			continue;
		}
		/* After an Upgrade or a CONNECT, bytes that are not HTTP are the new protocol. */
		if (st == AFW_HTTP_NOT_HTTP && f->follow.upgrade) {
			f->following = false;
			return false;
		}
		snprintf(why, sizeof(why), "what follows a request is not a request: %s",
			 req.reason);
		afw_engine_giveup(pol, &facts, res, AFW_REASON_MALFORMED, AFW_APP_HTTP, why);
		return true;
	}
	return false;
}

/*
 * An inspected HTTP/1.x flow decided on its first request: from now on its
 * later requests are read too. Bytes that came with the first head are
 * read at once; @res becomes the decision of a later request if one of
 * them is stopped.
 */
static void afw_engine_follow_start(const struct afw_policy *pol, struct afw_eflow *f,
				    const struct afw_http_request *req, struct afw_result *res)
{
	struct afw_result later;
	uint8_t *buf;

	/* Bytes held past a hole went to the server unread: nothing after them can be trusted. */
	buf = f->reasm.nranges ? NULL : malloc(AFW_HTTP_MAX_HEADER);
	if (!buf) {
		res->decision = AFW_DECIDE_DENY;
		snprintf(res->reason, sizeof(res->reason), "%s",
			 f->reasm.nranges ? "inspect: bytes past a hole were not read before the "
			 "first request was decided" : "inspect: out of memory to follow requests");
		return;
	}
	afw_http_follow_init(&f->follow, buf, req);
	f->following = true;
	f->follow_seq = f->reasm.base + f->reasm.have;
	if (afw_engine_follow_feed(pol, f, f->buf + req->header_len,
				   f->reasm.have - req->header_len, &later)) {
		later.packets = res->packets;
		*res = later;
		f->following = false;
	}
}

/*
 * A client segment of a followed flow. Out-of-order segments are dropped
 * (the client sends them again once the hole is filled), so that every
 * byte the server reads has been read here first.
 */
static enum afw_pass afw_engine_follow(const struct afw_policy *pol, struct afw_eflow *f,
				       const struct afw_pkt *p, struct afw_result *res,
				       bool *decided)
{
	int32_t rel = (int32_t)(p->tcp_seq - f->follow_seq);
	size_t skip;

	if (!p->payload_len)
		return f->pass;
	if (rel > 0)
		return AFW_PASS_DROP;
	skip = (size_t)-(int64_t)rel;
	if (skip >= p->payload_len)
		return f->pass;
	f->follow_seq += (uint32_t)(p->payload_len - skip);
	if (!afw_engine_follow_feed(pol, f, p->payload + skip, p->payload_len - skip, res))
		return f->pass;
	*decided = true;
	f->following = false;
	res->packets = ++f->packets;
	f->pass = afw_decision_pass(res->decision) == AFW_PASS_ACCEPT ? AFW_PASS_ACCEPT :
		  AFW_PASS_DROP;
	return afw_decision_pass(res->decision);
}

/*
 * Reads the client's bytes so far. Returns true when the flow is decided
 * (@res filled), false to wait for more.
 */
static bool afw_engine_tcp(struct afw_engine *e, const struct afw_policy *pol,
			   struct afw_eflow *f, struct afw_result *res, struct afw_facts *facts)
{
	const uint8_t *data = f->buf;
	size_t len = f->reasm.have;
	struct afw_http_request req;
	struct afw_h2_request h2;
	struct afw_tls_hello h;
	char why[100];

	switch (afw_tls_parse_stream(data, len, e->scratch, sizeof(e->scratch), &h)) {
	case AFW_TLS_OK:
		afw_engine_hello(e, &h, AFW_JA4_TCP, res, facts);
		afw_engine_judge(pol, facts, res, "tls");
		return true;
	case AFW_TLS_MORE:
		return false;
	case AFW_TLS_BAD:
		/*
		 * A flow first seen mid-stream (its module entry expired, say) may
		 * start with anything, even the server's bytes: only a flow seen
		 * from its SYN is held to a well-formed ClientHello.
		 */
		if (!f->reasm.syn_seen) {
			afw_engine_giveup(pol, facts, res, AFW_REASON_MID_STREAM, AFW_APP_UNKNOWN,
					  "joined mid-stream");
			return true;
		}
		snprintf(why, sizeof(why), "malformed ClientHello: %s", h.reason);
		afw_engine_giveup(pol, facts, res, AFW_REASON_MALFORMED, AFW_APP_TLS, why);
		return true;
	case AFW_TLS_NOT_TLS:
		break;
	}
	switch (afw_h2_parse(data, len, e->scratch, sizeof(e->scratch), &h2)) {
	case AFW_H2_OK:
		facts->app = AFW_APP_HTTP;
		if (h2.has_host) {
			facts->host = (struct afw_text){ h2.host, h2.host_len };
			snprintf(res->host, sizeof(res->host), "%s", h2.host);
		}
		snprintf(res->http_method, sizeof(res->http_method), "%s", h2.method);
		afw_engine_judge(pol, facts, res, "http/2");
		return true;
	case AFW_H2_MORE:
		return false;
	case AFW_H2_BAD:
		snprintf(why, sizeof(why), "malformed HTTP/2: %s", h2.reason);
		afw_engine_giveup(pol, facts, res, AFW_REASON_MALFORMED, AFW_APP_HTTP, why);
		return true;
	case AFW_H2_NOT_H2:
		break;
	}
	switch (afw_http_parse(data, len, &req)) {
	case AFW_HTTP_OK:
		facts->app = AFW_APP_HTTP;
		if (req.has_host) {
			facts->host = afw_text_of(&req.host);
			afw_copy_span(res->host, sizeof(res->host), &req.host);
		}
		afw_copy_span(res->http_method, sizeof(res->http_method), &req.method);
		afw_engine_judge(pol, facts, res, "http");
		if (res->decision == AFW_DECIDE_INSPECT && f->reasm.syn_seen)
			afw_engine_follow_start(pol, f, &req, res);
		return true;
	case AFW_HTTP_MORE:
		return false;
	case AFW_HTTP_BAD:
		if (!f->reasm.syn_seen) {
			afw_engine_giveup(pol, facts, res, AFW_REASON_MID_STREAM, AFW_APP_UNKNOWN,
					  "joined mid-stream");
			return true;
		}
		snprintf(why, sizeof(why), "malformed HTTP request: %s", req.reason);
		afw_engine_giveup(pol, facts, res, AFW_REASON_MALFORMED, AFW_APP_HTTP, why);
		return true;
	case AFW_HTTP_NOT_HTTP:
		break;
	}
	afw_engine_giveup(pol, facts, res, f->reasm.syn_seen ? AFW_REASON_NOT_TLS :
			  AFW_REASON_MID_STREAM, AFW_APP_UNKNOWN, f->reasm.syn_seen ?
			  "neither TLS nor HTTP" : "joined mid-stream");
	return true;
}

/*
 * A UDP flow: QUIC Initials, decrypted and reassembled up to the
 * ClientHello. Datagrams that bring no new CRYPTO bytes count towards the
 * packet bound; those that do are bounded by AFW_QUIC_MAX_FRESH and by
 * the CRYPTO buffer, so a hello spread over many Initials is still read.
 */
static bool afw_engine_udp(struct afw_engine *e, const struct afw_policy *pol,
			   struct afw_eflow *f, const struct afw_pkt *p,
			   struct afw_result *res, struct afw_facts *facts)
{
	unsigned int fresh = f->quic.fresh;
	const char *why = "";
	struct afw_tls_hello h;
	const uint8_t *msg;
	char text[120];
	size_t len;
	int ret;

	ret = afw_quic_feed(e->quic, &f->quic, p->payload, p->payload_len, &why);
	if (f->quic.fresh == fresh)
		f->idle++;
	if (ret == AFW_QUIC_DONE) {
		afw_quic_client_hello(&f->quic, &msg, &len);
		if (afw_tls_parse_handshake(msg, len, &h) != AFW_TLS_OK) {
			snprintf(text, sizeof(text), "malformed ClientHello in QUIC: %s",
				 h.reason ? h.reason : "incomplete");
			afw_engine_giveup(pol, facts, res, AFW_REASON_MALFORMED, AFW_APP_QUIC, text);
			return true;
		}
		afw_engine_hello(e, &h, AFW_JA4_QUIC, res, facts);
		afw_engine_judge(pol, facts, res, "quic");
		return true;
	}
	if (ret == AFW_QUIC_MORE) {
		if (f->quic.fresh < AFW_QUIC_MAX_FRESH)
			return false;
		e->stats.bounds++;
		afw_engine_giveup(pol, facts, res, AFW_REASON_BOUND, AFW_APP_QUIC,
				  "bound: QUIC Initials without a whole ClientHello");
		return true;
	}
	/*
	 * Before any Initial authenticated this is not QUIC that afwd reads:
	 * another protocol, an unknown QUIC version, or junk. Should a real
	 * Initial follow on the installed flow, the kernel sends it here again
	 * and it is judged as a connection of its own.
	 */
	if (!f->quic.initials) {
		snprintf(text, sizeof(text), "not QUIC: %s", why);
		afw_engine_giveup(pol, facts, res, AFW_REASON_NOT_TLS, AFW_APP_UNKNOWN, text);
		return true;
	}
	snprintf(text, sizeof(text), "QUIC: %s", why);
	/* A QUIC flow that contradicts itself is trying to mislead. */
	if (ret == -EILSEQ) {
		e->stats.evasions++;
		afw_engine_giveup(pol, facts, res, AFW_REASON_EVASION, AFW_APP_QUIC, text);
		return true;
	}
	if (ret == -ENOBUFS) {
		e->stats.bounds++;
		afw_engine_giveup(pol, facts, res, AFW_REASON_BOUND, AFW_APP_QUIC, text);
		return true;
	}
	if (ret == -EPROTO) {
		afw_engine_giveup(pol, facts, res, AFW_REASON_MALFORMED, AFW_APP_QUIC, text);
		return true;
	}
	/* A forged or damaged datagram changes nothing; wait for the real ones. */
	return false;
}

/*
 * A client Initial of another connection on a decided UDP flow: the flow
 * is analyzed again, from this packet on, and decided anew. Returns false
 * when there is no room to, and the flow keeps its decision.
 */
static bool afw_engine_reopen(struct afw_engine *e, struct afw_eflow *f, uint64_t now)
{
	if (e->analyzing.n >= e->o.max_flows) {
		e->stats.table_full++;
		return false;
	}
	afw_elist_del(&e->decided, f);
	f->state = AFW_EF_ANALYZING;
	f->deadline = now + e->o.max_ns;
	f->packets = 0;
	f->idle = 0;
	memset(&f->quic, 0, sizeof(f->quic));
	afw_elist_add(&e->analyzing, f);
	e->stats.flows++;
	return true;
}

/*
 * Packets that bring new client bytes are bounded by max_bytes: a ClientHello
 * sent a byte per segment is still read. The packet bound counts the rest.
 */
static bool afw_engine_bound(const struct afw_engine *e, const struct afw_eflow *f)
{
	return f->idle >= e->o.max_packets ||
	       (f->key.proto == IPPROTO_TCP && f->buf && f->reasm.have >= e->o.max_bytes);
}

enum afw_pass afw_engine_packet(struct afw_engine *e, const struct afw_policy *pol,
				const struct afw_pkt *p, bool has_uid, uint32_t uid,
				uint64_t now, struct afw_result *res, bool *decided)
{
	struct afw_facts facts;
	struct afw_pkt_key k;
	struct afw_eflow *f;
	unsigned int st;
	uint32_t hash;
	int side;

	*decided = false;
	e->stats.packets++;
	side = afw_pkt_flow_key(p, &k);
	hash = afw_pkt_key_hash(&k, e->seed);
	f = afw_engine_find(e, &k, hash);
	if (f && f->state == AFW_EF_DECIDED && k.proto == IPPROTO_UDP && side == f->client &&
	    p->has_l4 && p->payload_len &&
	    afw_quic_classify(e->quic, &f->quic, p->payload, p->payload_len) == AFW_QUIC_NEW)
		afw_engine_reopen(e, f, now);
	if (f && f->state == AFW_EF_DECIDED) {
		/* An inspected flow keeps coming: it lingers while it is alive. */
		e->stats.decided_packets++;
		afw_elist_del(&e->decided, f);
		f->deadline = now + e->o.linger_ns;
		afw_elist_add(&e->decided, f);
		if (f->following && side == f->client && p->has_l4)
			return afw_engine_follow(pol, f, p, res, decided);
		return f->pass;
	}

	if (!f) {
		f = calloc(1, sizeof(*f));
		/* No room to look: decide now, by what the first packet shows. */
		if (!f || e->analyzing.n >= e->o.max_flows) {
			struct afw_eflow tmp = { .key = k, .client = (uint8_t)afw_pkt_client_side(p, side),
						 .has_uid = has_uid, .uid = uid, .packets = 1 };

			free(f);
			e->stats.table_full++;
			afw_engine_describe(&tmp, res, &facts);
			afw_engine_judge(pol, &facts, res, "bound: too many flows under analysis");
			e->stats.decided[res->decision]++;
			e->stats.bounds++;
			*decided = true;
			return afw_decision_pass(res->decision);
		}
		f->key = k;
		f->hash = hash;
		f->client = (uint8_t)afw_pkt_client_side(p, side);
		f->deadline = now + e->o.max_ns;
		f->hnext = e->buckets[hash & e->hmask];
		e->buckets[hash & e->hmask] = f;
		afw_elist_add(&e->analyzing, f);
		e->stats.flows++;
		/* Decided flows linger within a bound too: the oldest goes first. */
		if (e->decided.n > e->o.max_flows) {
			struct afw_eflow *old = e->decided.head;

			afw_engine_unlink(e, old);
			afw_eflow_free(old);
		}
	}
	f->packets++;
	/* The socket owner is known on the client's own host, for its packets. */
	if (has_uid && side == f->client) {
		f->has_uid = true;
		f->uid = uid;
	}

	afw_engine_describe(f, res, &facts);
	if (!p->has_l4) {
		afw_engine_judge(pol, &facts, res, "no ports to follow");
		goto decide;
	}
	if (side == f->client && p->payload_len) {
		if (!f->buf) {
			f->buf = malloc(p->proto == IPPROTO_UDP ? AFW_TLS_SCRATCH_SIZE : e->o.max_bytes);
			if (!f->buf) {
				afw_engine_judge(pol, &facts, res, "bound: out of memory");
				e->stats.bounds++;
				goto decide;
			}
			if (p->proto == IPPROTO_UDP)
				afw_quic_flow_init(&f->quic, f->buf, AFW_TLS_SCRATCH_SIZE);
			else
				afw_reasm_init(&f->reasm, f->buf, e->o.max_bytes);
		}
		if (p->proto == IPPROTO_TCP) {
			st = afw_reasm_add(&f->reasm, p->tcp_seq, p->tcp_flags & AFW_TCP_SYN,
					   p->payload, p->payload_len);
			if (st & AFW_REASM_CONFLICT) {
				e->stats.evasions++;
				afw_engine_refuse(res, AFW_APP_UNKNOWN, "%s",
						  "evasion: retransmitted bytes differ from the first copy");
				goto decide;
			}
			if (!(st & (AFW_REASM_ADVANCED | AFW_REASM_HELD)))
				f->idle++;
			if ((st & AFW_REASM_ADVANCED) && afw_engine_tcp(e, pol, f, res, &facts))
				goto decide;
		} else if (p->proto == IPPROTO_UDP) {
			if (afw_engine_udp(e, pol, f, p, res, &facts))
				goto decide;
		} else {
			afw_engine_judge(pol, &facts, res, "not TCP or UDP");
			goto decide;
		}
	} else if (!(p->proto == IPPROTO_TCP && side == f->client && !f->buf &&
		     (p->tcp_flags & AFW_TCP_SYN))) {
		f->idle++;
	} else {
		/* The SYN fixes where the stream starts, before any data. */
		f->buf = malloc(e->o.max_bytes);
		if (f->buf) {
			afw_reasm_init(&f->reasm, f->buf, e->o.max_bytes);
			afw_reasm_add(&f->reasm, p->tcp_seq, true, NULL, 0);
		}
	}
	if (afw_engine_bound(e, f)) {
		e->stats.bounds++;
		afw_engine_judge(pol, &facts, res, f->idle >= e->o.max_packets ?
				 "bound: packets without new client bytes" :
				 "bound: client bytes without a ClientHello or request head");
		goto decide;
	}
	return AFW_PASS_ACCEPT;

decide:
	*decided = true;
	res->packets = f->packets;
	return afw_engine_settle(e, f, res, now);
}

void afw_engine_expire(struct afw_engine *e, const struct afw_policy *pol, uint64_t now, bool all,
		       afw_result_fn fn, void *data)
{
	struct afw_facts facts;
	struct afw_result res;
	struct afw_eflow *f;

	while ((f = e->analyzing.head) && (all || f->deadline <= now)) {
		e->stats.bounds++;
		afw_engine_describe(f, &res, &facts);
		afw_engine_judge(pol, &facts, &res, all ? "end of capture before a decision" :
					 "bound: analysis time");
		afw_engine_settle(e, f, &res, now);
		fn(&res, data);
	}
	while ((f = e->decided.head) && (all || f->deadline <= now)) {
		afw_engine_unlink(e, f);
		afw_eflow_free(f);
	}
}

uint64_t afw_engine_next_deadline(const struct afw_engine *e)
{
	uint64_t a = e->analyzing.head ? e->analyzing.head->deadline : UINT64_MAX;
	uint64_t d = e->decided.head ? e->decided.head->deadline : UINT64_MAX;

	return a < d ? a : d;
}

const struct afw_engine_stats *afw_engine_stats(const struct afw_engine *e)
{
	return &e->stats;
}

unsigned int afw_engine_flows(const struct afw_engine *e)
{
	return e->analyzing.n;
}

const char *afw_pass_name(enum afw_pass pass)
{
	static const char *const names[] = { "accept", "drop", "reject" };

	return (unsigned int)pass < 3 ? names[pass] : "?";
}

const char *afw_app_name(enum afw_app app)
{
	static const char *const names[] = { "unknown", "tls", "quic", "http" };

	return (unsigned int)app <= AFW_APP_MAX ? names[app] : "?";
}
