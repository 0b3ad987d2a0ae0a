// SPDX-License-Identifier: GPL-2.0
/*
 * The ledger: a hash table of records by flow key, a list in age order
 * (the oldest is evicted first), and a list of the records waiting to be
 * installed, so that retries never scan the whole table.
 *
 * A record is one allocation: its fixed part, then the facts packed as
 * lengths and bytes (afw_lrec_pack()), typically under 200 bytes in all.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <linux/afw.h>

#include "ledger.h"
#include "quic.h"

struct afw_lrec {
	struct afw_lrec *hnext;			/* hash chain */
	struct afw_lrec *prev, *next;		/* age list, oldest first */
	struct afw_lrec *wprev, *wnext;		/* wait list */
	struct afw_pkt_key key;
	uint32_t hash;
	uint8_t client;				/* the side of key that is the client */
	uint8_t decision;
	uint8_t state;
	uint8_t tries;				/* refusals in a row */
	bool judged;				/* by the policy, not refused by a reader */
	bool waiting;
	bool established;			/* TCP: decided past the client's SYN */
	uint8_t icmp_code;			/* an echo's (key.icmp): for conntrack's tuple */
	bool head;				/* inspected by its headers alone */
	bool settled;				/* decided by its ends, unread */
	uint8_t dir;				/* enum afw_dir */
	uint32_t iif, oif;
	uint64_t seen;				/* the last sign of life */
	uint64_t sent_at;
	uint64_t retry_at;
	uint16_t flen;
	uint8_t facts[];			/* afw_lrec_pack() */
};

struct afw_ledger {
	struct afw_ledger_opts o;
	struct afw_lrec **buckets;
	uint32_t hmask;
	uint32_t seed;
	unsigned int n;
	struct afw_lrec *oldest, *newest;
	struct afw_lrec *whead;
	uint64_t next_due;
	bool lost;
	struct afw_ledger_stats stats;
	/* Who started a flow, asked again when a reload's rules test it. */
	struct afw_owner_slot owner;
};

struct afw_ledger *afw_ledger_new(const struct afw_ledger_opts *o)
{
	struct afw_ledger *l = calloc(1, sizeof(*l));
	uint32_t buckets = 64;

	if (!l)
		return NULL;
	l->o = *o;
	while (buckets < o->max && buckets < (1u << 24))
		buckets <<= 1;
	l->hmask = buckets - 1;
	l->buckets = calloc(buckets, sizeof(*l->buckets));
	l->next_due = UINT64_MAX;
	if (!l->buckets || getrandom(&l->seed, sizeof(l->seed), 0) != sizeof(l->seed)) {
		afw_ledger_free(l);
		return NULL;
	}
	return l;
}

void afw_ledger_free(struct afw_ledger *l)
{
	struct afw_lrec *r, *next;

	if (!l)
		return;
	for (r = l->oldest; r; r = next) {
		next = r->next;
		free(r);
	}
	free(l->buckets);
	free(l);
}

unsigned int afw_ledger_count(const struct afw_ledger *l)
{
	return l->n;
}

const struct afw_ledger_stats *afw_ledger_stats(const struct afw_ledger *l)
{
	return &l->stats;
}

static struct afw_lrec *afw_ledger_lookup(struct afw_ledger *l, const struct afw_pkt_key *k)
{
	uint32_t hash = afw_pkt_key_hash(k, l->seed);
	struct afw_lrec *r;

	for (r = l->buckets[hash & l->hmask]; r; r = r->hnext)
		if (r->hash == hash && !memcmp(&r->key, k, sizeof(*k)))
			return r;
	return NULL;
}

static void afw_ledger_unwait(struct afw_ledger *l, struct afw_lrec *r)
{
	if (!r->waiting)
		return;
	if (r->wprev)
		r->wprev->wnext = r->wnext;
	else
		l->whead = r->wnext;
	if (r->wnext)
		r->wnext->wprev = r->wprev;
	r->waiting = false;
}

void afw_ledger_drop(struct afw_ledger *l, struct afw_lrec *r)
{
	struct afw_lrec **pp = &l->buckets[r->hash & l->hmask];

	while (*pp != r)
		pp = &(*pp)->hnext;
	*pp = r->hnext;
	if (r->prev)
		r->prev->next = r->next;
	else
		l->oldest = r->next;
	if (r->next)
		r->next->prev = r->prev;
	else
		l->newest = r->prev;
	afw_ledger_unwait(l, r);
	l->n--;
	free(r);
}

/* Moves @r to the young end: it is the last the ledger would give up. */
static void afw_ledger_touch(struct afw_ledger *l, struct afw_lrec *r)
{
	if (l->newest == r)
		return;
	if (r->prev)
		r->prev->next = r->next;
	else
		l->oldest = r->next;
	r->next->prev = r->prev;
	r->prev = l->newest;
	r->next = NULL;
	l->newest->next = r;
	l->newest = r;
}

/*
 * The facts in bytes: l7, reason, ech, uid (flag and value), then the
 * host, the JA4 and the ALPN list (as on the wire: a length byte, then
 * the id, for each) as a length and its bytes; then, if the decision asked
 * who started the flow, its gid, pid, task name, program and cgroup. The
 * address, port and protocol are the flow's own and are not repeated.
 */
static size_t afw_lrec_pack(const struct afw_facts *f, const struct afw_result *res,
			    uint8_t *out)
{
	size_t n = 0, len;

#define AFW_PUT(p, l) do { if (out) memcpy(out + n, (p), (l)); n += (l); } while (0)
	uint8_t head[8] = { (uint8_t)f->l7, (uint8_t)f->reason, f->ech, f->has_uid, 0, 0, 0, 0 };

	memcpy(head + 4, &f->uid, 4);
	AFW_PUT(head, sizeof(head));
	len = f->host.len > 0xffff ? 0xffff : f->host.len;
	AFW_PUT(&(uint16_t){ (uint16_t)len }, 2);
	AFW_PUT(f->host.ptr, len);
	len = f->ja4.len > 0xff ? 0xff : f->ja4.len;
	AFW_PUT(&(uint8_t){ (uint8_t)len }, 1);
	AFW_PUT(f->ja4.ptr, len);
	/* The list is whole ids only (the result keeps those that fit): never cut. */
	len = f->alpn.len > 0xffff ? 0 : f->alpn.len;
	AFW_PUT(&(uint16_t){ (uint16_t)len }, 2);
	AFW_PUT(f->alpn.ptr, len);
	/* 1: a process's; 2: an inbound flow's local socket. */
	AFW_PUT(&(uint8_t){ res->has_owner ? res->owner_listener ? 2 : 1 : 0 }, 1);
	if (res->has_owner) {
		AFW_PUT(&res->owner_gid, 4);
		AFW_PUT(&res->owner_pid, 4);
		AFW_PUT(res->owner_comm, sizeof(res->owner_comm));
		len = strnlen(res->owner_exe, sizeof(res->owner_exe) - 1);
		AFW_PUT(&(uint16_t){ (uint16_t)len }, 2);
		AFW_PUT(res->owner_exe, len);
		len = strnlen(res->owner_cgroup, sizeof(res->owner_cgroup) - 1);
		AFW_PUT(&(uint16_t){ (uint16_t)len }, 2);
		AFW_PUT(res->owner_cgroup, len);
	}
#undef AFW_PUT
	return n;
}

/*
 * The owner @r recorded, into @s as known; or, when its decision never
 * asked, @s left to ask the module (its record lives as long as the flow).
 */
static void afw_lrec_owner(const struct afw_lrec *r, struct afw_owner_slot *s)
{
	const uint8_t *p = r->facts + 8;
	uint16_t len;
	uint8_t kind;

	s->state = 0;
	memcpy(&len, p, 2);
	p += 2 + len;
	p += 1 + *p;
	memcpy(&len, p, 2);
	p += 2 + len;
	kind = *p++;
	if (!kind)
		return;
	memset(&s->info, 0, sizeof(s->info));
	s->info.uid = UINT32_MAX;
	s->info.listener = kind == 2;
	memcpy(&s->info.gid, p, 4);
	memcpy(&s->info.pid, p + 4, 4);
	memcpy(s->info.comm, p + 8, sizeof(s->info.comm));
	s->info.comm[sizeof(s->info.comm) - 1] = '\0';
	p += 8 + sizeof(s->info.comm);
	memcpy(&len, p, 2);
	memcpy(s->info.exe, p + 2, len);
	p += 2 + len;
	memcpy(&len, p, 2);
	memcpy(s->info.cgroup, p + 2, len);
	s->state = 1;
}

void afw_ledger_facts(const struct afw_lrec *r, struct afw_facts *f)
{
	const uint8_t *p = r->facts;
	uint16_t host_len, alpn_len;
	int s = !r->client;

	memset(f, 0, sizeof(*f));
	f->l7 = (enum afw_l7)p[0];
	f->reason = (enum afw_reason)p[1];
	f->ech = p[2];
	f->has_uid = p[3];
	memcpy(&f->uid, p + 4, 4);
	p += 8;
	memcpy(&host_len, p, 2);
	p += 2;
	f->host = (struct afw_text){ (const char *)p, host_len };
	p += host_len;
	f->ja4 = (struct afw_text){ (const char *)p + 1, *p };
	p += 1 + *p;
	memcpy(&alpn_len, p, 2);
	p += 2;
	f->alpn = (struct afw_text){ (const char *)p, alpn_len };
	if (!f->host.len)
		f->host.ptr = NULL;
	if (!f->ja4.len)
		f->ja4.ptr = NULL;
	if (!f->alpn.len)
		f->alpn.ptr = NULL;
	f->family = r->key.ipver == 6 ? AF_INET6 : AF_INET;
	memcpy(f->saddr, r->key.addr[r->client], 16);
	memcpy(f->daddr, r->key.addr[s], 16);
	f->sport = r->key.port[r->client];
	f->dport = r->key.port[s];
	/* An echo's key holds its identifier where ports would be. */
	if (afw_pkt_key_echo(&r->key)) {
		f->sport = f->dport = 0;
		f->echo = afw_pkt_key_echo_sent(&r->key, r->client);
		f->icmp_id = r->key.port[0];
	}
	f->l4proto = r->key.proto;
	f->dir = r->dir;
	f->iif = r->iif;
	f->oif = r->oif;
}

void afw_facts_from_result(const struct afw_result *res, struct afw_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->l7 = res->l7;
	f->reason = res->giveup;
	f->ech = res->ech;
	if (*res->host)
		f->host = (struct afw_text){ res->host, strlen(res->host) };
	if (*res->ja4)
		f->ja4 = (struct afw_text){ res->ja4, strlen(res->ja4) };
	if (res->alpn_len)
		f->alpn = (struct afw_text){ (const char *)res->alpn, res->alpn_len };
	f->family = res->family;
	memcpy(f->saddr, res->src, 16);
	memcpy(f->daddr, res->dst, 16);
	f->sport = res->sport;
	f->dport = res->dport;
	f->echo = res->echo;
	f->icmp_id = res->icmp_id;
	f->l4proto = res->l4proto;
	f->dir = res->dir;
	f->iif = res->iif;
	f->oif = res->oif;
	f->has_uid = res->has_uid;
	f->uid = res->uid;
}

struct afw_lrec *afw_ledger_put(struct afw_ledger *l, const struct afw_result *res,
				enum afw_lrec_state state, uint64_t now)
{
	struct afw_facts facts;
	struct afw_pkt_key k;
	struct afw_lrec *r, *old;
	size_t flen;
	int side;

	if (!l->o.max)
		return NULL;
	afw_facts_from_result(res, &facts);
	side = afw_result_flow_key(res, &k);
	old = afw_ledger_lookup(l, &k);
	if (old)
		afw_ledger_drop(l, old);
	/* Full: the oldest goes, and its flow may outlive its record. */
	while (l->n >= l->o.max) {
		afw_ledger_drop(l, l->oldest);
		l->stats.evicted++;
		l->lost = true;
	}
	flen = afw_lrec_pack(&facts, res, NULL);
	r = malloc(sizeof(*r) + flen);
	if (!r)
		return NULL;
	memset(r, 0, sizeof(*r));
	afw_lrec_pack(&facts, res, r->facts);
	r->flen = (uint16_t)flen;
	r->key = k;
	r->hash = afw_pkt_key_hash(&k, l->seed);
	r->client = (uint8_t)side;
	r->decision = (uint8_t)res->decision;
	r->icmp_code = res->icmp_code;
	/*
	 * A flow that lied to a reader (a malformed hello, conflicting
	 * retransmits) was denied without the policy: no policy may allow it.
	 */
	r->judged = res->is_default || res->rule_line;
	r->settled = res->settled;
	r->dir = res->dir;
	r->iif = res->iif;
	r->oif = res->oif;
	r->state = (uint8_t)state;
	r->seen = now;
	r->sent_at = now;
	r->hnext = l->buckets[r->hash & l->hmask];
	l->buckets[r->hash & l->hmask] = r;
	r->prev = l->newest;
	if (l->newest)
		l->newest->next = r;
	else
		l->oldest = r;
	l->newest = r;
	l->n++;
	l->stats.recorded++;
	if (state == AFW_LREC_WAIT)
		afw_ledger_wait(l, r, now);
	return r;
}

struct afw_lrec *afw_ledger_find_pkt(struct afw_ledger *l, const struct afw_pkt *p)
{
	struct afw_pkt_key k;

	if (!l->n)
		return NULL;
	afw_pkt_flow_key(p, &k);
	return afw_ledger_lookup(l, &k);
}

struct afw_lrec *afw_ledger_find(struct afw_ledger *l, const struct afw_flow_spec *f)
{
	struct afw_result res;
	struct afw_pkt_key k;

	memset(&res, 0, sizeof(res));
	res.family = f->family == AFW_FAMILY_IPV6 ? AF_INET6 : AF_INET;
	res.l4proto = f->proto;
	memcpy(res.src, f->src, 16);
	memcpy(res.dst, f->dst, 16);
	res.sport = f->sport;
	res.dport = f->dport;
	/* The module's echo flow has the pinger for its source. */
	if (f->echo) {
		res.echo = AFW_PKT_ECHO_REQUEST;
		res.icmp_id = f->icmp_id;
	}
	afw_result_flow_key(&res, &k);
	return afw_ledger_lookup(l, &k);
}

uint8_t afw_ledger_verdict(enum afw_decision d)
{
	switch (d) {
	case AFW_DECIDE_DENY:
	case AFW_DECIDE_ASK:	/* never installed as such; never open by mistake */
		return AFW_VERDICT_DROP;
	case AFW_DECIDE_REJECT:
		return AFW_VERDICT_REJECT;
	case AFW_DECIDE_INSPECT:
		return AFW_VERDICT_INSPECT;
	default:
		return AFW_VERDICT_ACCEPT;
	}
}

void afw_ledger_spec(struct afw_flow_spec *f, int ipver, uint8_t proto, const uint8_t *src,
		     uint16_t sport, const uint8_t *dst, uint16_t dport, enum afw_decision d,
		     bool established)
{
	memset(f, 0, sizeof(*f));
	f->family = ipver == 6 ? AFW_FAMILY_IPV6 : AFW_FAMILY_IPV4;
	f->proto = proto;
	memcpy(f->src, src, 16);
	memcpy(f->dst, dst, 16);
	f->sport = sport;
	f->dport = dport;
	f->verdict = afw_ledger_verdict(d);
	if (established && proto == IPPROTO_TCP)
		f->flags = AFW_FLOW_F_ESTABLISHED;
}

void afw_ledger_spec_echo(struct afw_flow_spec *f, uint8_t echo, uint16_t id, uint8_t code)
{
	uint8_t a[16];

	if (echo == AFW_PKT_ECHO_NONE)
		return;
	if (echo == AFW_PKT_ECHO_REPLY) {
		memcpy(a, f->src, 16);
		memcpy(f->src, f->dst, 16);
		memcpy(f->dst, a, 16);
	}
	f->sport = f->dport = 0;
	f->echo = true;
	f->icmp_id = id;
	f->icmp_code = code;
}

void afw_ledger_flow(const struct afw_lrec *r, struct afw_flow_spec *f)
{
	int c = r->client, s = !r->client;

	afw_ledger_spec(f, r->key.ipver, r->key.proto, r->key.addr[c], r->key.port[c],
			r->key.addr[s], r->key.port[s], (enum afw_decision)r->decision,
			r->established);
	if (afw_pkt_key_echo(&r->key))
		afw_ledger_spec_echo(f, afw_pkt_key_echo_sent(&r->key, c), r->key.port[0],
				     r->icmp_code);
}

void afw_lrec_set_established(struct afw_lrec *r)
{
	r->established = true;
}

void afw_lrec_set_head(struct afw_lrec *r, bool head)
{
	r->head = head;
}

bool afw_lrec_head(const struct afw_lrec *r)
{
	return r->head;
}

enum afw_decision afw_lrec_decision(const struct afw_lrec *r)
{
	return (enum afw_decision)r->decision;
}

enum afw_lrec_state afw_lrec_state(const struct afw_lrec *r)
{
	return (enum afw_lrec_state)r->state;
}

bool afw_lrec_judged(const struct afw_lrec *r)
{
	return r->judged;
}

unsigned int afw_lrec_tries(const struct afw_lrec *r)
{
	return r->tries;
}

uint64_t afw_lrec_retry_at(const struct afw_lrec *r)
{
	return r->retry_at;
}

uint64_t afw_ledger_backoff_ns(const struct afw_ledger_opts *o, unsigned int tries)
{
	uint64_t d = o->retry_min_ns;

	while (tries-- > 1 && d < o->retry_max_ns)
		d *= 2;
	return d < o->retry_max_ns ? d : o->retry_max_ns;
}

void afw_ledger_wait(struct afw_ledger *l, struct afw_lrec *r, uint64_t at)
{
	r->state = AFW_LREC_WAIT;
	r->retry_at = at;
	if (!r->waiting) {
		r->wprev = NULL;
		r->wnext = l->whead;
		if (l->whead)
			l->whead->wprev = r;
		l->whead = r;
		r->waiting = true;
	}
	if (at < l->next_due)
		l->next_due = at;
}

void afw_ledger_sent(struct afw_ledger *l, struct afw_lrec *r, uint64_t now)
{
	afw_ledger_unwait(l, r);
	r->state = AFW_LREC_SENT;
	r->sent_at = now;
	/*
	 * A connection decided at its SYN is installed ahead of it, to pass
	 * its handshake. Once passed, it has started: an entry made for it
	 * again (a reload, the module back, a flush) must not take a new SYN
	 * on its ports, of any sequence number, as its own (flows.c), for
	 * that one is a new connection, maybe one a reading rule now wants.
	 */
	if (r->settled && r->decision == AFW_DECIDE_ALLOW)
		r->established = true;
}

void afw_ledger_refused(struct afw_ledger *l, struct afw_lrec *r, uint64_t now)
{
	l->stats.refused++;
	if (r->tries < 255)
		r->tries++;
	afw_ledger_wait(l, r, now + afw_ledger_backoff_ns(&l->o, r->tries));
}

void afw_ledger_wait_all(struct afw_ledger *l, uint64_t now)
{
	struct afw_lrec *r;

	for (r = l->oldest; r; r = r->next) {
		r->seen = now;
		r->tries = 0;
		afw_ledger_wait(l, r, now);
	}
}

enum afw_lrec_use afw_ledger_use(const struct afw_lrec *r, const struct afw_pkt *p)
{
	struct afw_pkt_key k;

	if (r->decision == AFW_DECIDE_INSPECT)
		return AFW_LREC_ENGINE;
	if (!p->has_l4)
		return AFW_LREC_ANSWER;
	if (p->proto == IPPROTO_TCP &&
	    (p->tcp_flags & (AFW_TCP_SYN | AFW_TCP_ACK)) == AFW_TCP_SYN)
		return AFW_LREC_RESTART;
	/* Only the client's, as the module sends them, and only on an allowed flow. */
	if (p->proto == IPPROTO_UDP && r->decision == AFW_DECIDE_ALLOW &&
	    afw_pkt_flow_key(p, &k) == r->client &&
	    afw_quic_requeued(p->payload, p->payload_len))
		return AFW_LREC_ENGINE;
	return AFW_LREC_ANSWER;
}

enum afw_decision afw_ledger_answered(struct afw_ledger *l, struct afw_lrec *r, uint64_t now,
				      uint64_t resend_ns)
{
	l->stats.answered++;
	r->seen = now;
	afw_ledger_touch(l, r);
	/*
	 * @now may come from before the send: a round reads the clock once,
	 * and a flow installed in it (by a told handshake, or an earlier
	 * packet of the round) is sent later. That is the install's race, too.
	 */
	if (r->state == AFW_LREC_SENT && now > r->sent_at && now - r->sent_at >= resend_ns)
		afw_ledger_wait(l, r, now);
	return (enum afw_decision)r->decision;
}

unsigned int afw_ledger_due(struct afw_ledger *l, uint64_t now,
			    bool (*send)(struct afw_lrec *r, void *data), void *data)
{
	struct afw_lrec *r, *next;
	unsigned int sent = 0;

	if (now < l->next_due)
		return 0;
	l->next_due = UINT64_MAX;
	for (r = l->whead; r; r = next) {
		next = r->wnext;
		/*
		 * @seen may be later than @now: a round reads the clock once,
		 * and a told copy read in it notes its flow by a clock read
		 * since. Taken as a wrapped difference, that flow would be
		 * given up as silent for ages, its install never retried.
		 */
		if (now > r->seen && now - r->seen >= l->o.idle_ns) {
			/* Nothing from this flow for that long: it is over. */
			l->stats.given_up++;
			afw_ledger_drop(l, r);
			continue;
		}
		if (r->retry_at <= now) {
			if (r->tries)
				l->stats.retries++;
			if (send(r, data)) {
				afw_ledger_sent(l, r, now);
				sent++;
				continue;
			}
			r->retry_at = now + afw_ledger_backoff_ns(&l->o, r->tries ? r->tries : 1);
		}
		if (r->retry_at < l->next_due)
			l->next_due = r->retry_at;
	}
	/* Idle waiting records are dropped on time too. */
	for (r = l->whead; r; r = r->wnext)
		if (r->seen + l->o.idle_ns < l->next_due)
			l->next_due = r->seen + l->o.idle_ns;
	return sent;
}

uint64_t afw_ledger_next_due(const struct afw_ledger *l)
{
	return l->whead ? l->next_due : UINT64_MAX;
}

/*
 * @r's decision under @pol, from its recorded @facts. A flow decided by its
 * ends was never read: if @pol still decides it so, that decision. If a
 * rule that reads could now take it, a connection refused at its SYN never
 * started, and keeps its refusal: nothing of it may pass as mid-stream, and
 * a new SYN on its ports is a new connection, judged afresh (and read). One
 * that passed its SYN has bytes past reading, as those of a flow first seen
 * mid-stream, and the policy decides it as one.
 */
static enum afw_decision afw_ledger_judge(const struct afw_lrec *r, const struct afw_policy *pol,
					  struct afw_facts *facts)
{
	struct afw_policy_match m;

	if (!r->settled)
		return afw_policy_match(pol, facts, NULL);
	if (afw_policy_settled(pol, facts, AFW_POLICY_SETTLE_RULES, &m))
		return m.verdict;
	if (r->decision != AFW_DECIDE_ALLOW)
		return (enum afw_decision)r->decision;
	facts->reason = AFW_REASON_MID_STREAM;
	return afw_policy_match(pol, facts, NULL);
}

unsigned int afw_ledger_rejudge(struct afw_ledger *l, const struct afw_policy *pol,
				void (*changed)(struct afw_lrec *r, enum afw_decision old,
						void *data), void *data)
{
	struct afw_facts facts;
	enum afw_decision d, old;
	struct afw_lrec *r, *next;
	unsigned int n = 0;

	for (r = l->oldest; r; r = next) {
		next = r->next;
		if (!r->judged)
			continue;
		l->stats.rejudged++;
		afw_ledger_facts(r, &facts);
		afw_lrec_owner(r, &l->owner);
		if (l->owner.fetch || l->owner.state)
			facts.owner = &l->owner;
		d = afw_ledger_judge(r, pol, &facts);
		/*
		 * A flow a person (or the ask-default) decided is not asked
		 * again: it keeps that answer until a rule decides otherwise.
		 */
		if (d == AFW_DECIDE_ASK || d == (enum afw_decision)r->decision)
			continue;
		old = (enum afw_decision)r->decision;
		r->decision = (uint8_t)d;
		l->stats.changed++;
		n++;
		changed(r, old, data);
	}
	return n;
}

void afw_ledger_set_owner(struct afw_ledger *l,
			  int (*fetch)(void *ctx, const struct afw_facts *f,
				       struct afw_owner_info *out),
			  void *ctx)
{
	l->owner.fetch = fetch;
	l->owner.ctx = ctx;
}

void afw_ledger_each(struct afw_ledger *l, void (*fn)(struct afw_lrec *r, void *data), void *data)
{
	struct afw_lrec *r, *next;

	for (r = l->oldest; r; r = next) {
		next = r->next;
		fn(r, data);
	}
}

bool afw_ledger_lost(const struct afw_ledger *l)
{
	return l->lost;
}

void afw_ledger_clear_lost(struct afw_ledger *l)
{
	l->lost = false;
}
