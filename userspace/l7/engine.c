// SPDX-License-Identifier: GPL-2.0
/*
 * Flow analysis: a table of the flows being looked at, bounded in count,
 * bytes, packets and time; the step from bytes to a decision; and a table
 * of decided flows, so that a late packet is never taken for a new flow.
 *
 * A TCP flow goes through three states (docs/afwd.md, "What afwd
 * guarantees"):
 * - HANDSHAKE: the client's SYN, not yet answered by the server. Only
 *   SYNs pass; no byte is read, no time is counted, nothing is decided.
 * - ANALYZING: the client's bytes are read, as the server's stack would
 *   take them (tcp.h): a segment it would discard is dropped, not read.
 * - CONFIRMING: the policy allowed (or inspects) what was read; the flow
 *   is handed to the kernel only once the server has acknowledged those
 *   bytes, and until then every client segment must agree with them.
 * A deny is final at once. Whatever afwd cannot read is decided by the
 * policy with its reason (facts.h): never silently by luck.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "dns.h"
#include "engine.h"
#include "h2.h"
#include "http.h"
#include "ja4.h"
#include "quic.h"
#include "reasm.h"
#include "tcp.h"
#include "tls.h"

enum afw_eflow_state {
	AFW_EF_HANDSHAKE,
	AFW_EF_ANALYZING,
	AFW_EF_CONFIRMING,
	/*
	 * Decided, but kept whole for what a record cannot hold: a QUIC flow's
	 * connection (to tell its Initials from another connection's), an
	 * inspected HTTP/1.x flow's request follower.
	 */
	AFW_EF_KEPT,
	/*
	 * Under analysis, but silent past the analysis time: silence decides
	 * nothing, for the bytes the client sends next are what its server
	 * acts on, however late. No timer: such a flow waits for its next
	 * bytes, or for a new flow that needs its room (afw_engine_make_room()).
	 * A FIN its server took lets time decide it (afw_engine_time_decides());
	 * a RST, or a FIN the server may not take, frees nothing, or a client
	 * could send one to have its flow read mid-stream.
	 */
	AFW_EF_STALLED,
	__AFW_EF_MAX
};

/* struct afw_drec.flags */
enum {
	AFW_DR_ESTABLISHED = 1 << 0,	/* past the handshake: a SYN now opens a new connection */
	AFW_DR_CLOSED = 1 << 1,		/* a FIN or RST went by */
	AFW_DR_INSTALL = 1 << 2,	/* decided without a packet: the next one installs it */
	AFW_DR_UNCONFIRMED = 1 << 3,	/* the server never acknowledged the judged bytes */
	AFW_DR_READ_PAST = 1 << 4,	/* ... and must answer them with data */
	AFW_DR_PER_PACKET = 1 << 5,	/* undecodable packets: nothing to install */
	AFW_DR_HAS_ISN = 1 << 6,
	/*
	 * A connection still under analysis when a new SYN came on its
	 * 5-tuple: should the server ignore that SYN, the old connection goes
	 * on, with bytes afwd has stopped reading (evasion).
	 */
	AFW_DR_OPEN = 1 << 7,
};

/*
 * A decided flow, kept small: it answers the flow's late packets (a deny
 * stays a deny), tells a retransmitted SYN from a new connection, and holds
 * what an unconfirmed allow must still refuse.
 */
struct afw_drec {
	struct afw_pkt_key key;
	struct afw_drec *hnext;
	struct afw_drec *prev, *next;	/* least recently seen first */
	uint32_t hash;
	uint32_t c_isn;
	uint32_t guard_lo, guard_hi;	/* UNCONFIRMED: the judged bytes */
	uint32_t c_end;			/* UNCONFIRMED: past the client's last byte let through */
	uint32_t c_indev, s_indev;
	uint8_t client;
	uint8_t pass;			/* enum afw_pass, for late packets */
	uint8_t decision;		/* enum afw_decision, to install */
	uint8_t flags;
};

/*
 * Where a ClientHello sent as TLS records stands, so that the parser runs
 * when it can finish rather than on every byte: a hello of 128 KiB sent a
 * byte per segment costs one pass, not one per segment.
 */
struct afw_tls_walk {
	uint32_t off;		/* the next record header */
	uint32_t payload;	/* handshake bytes in the whole records before off */
	uint32_t need;		/* the hello with its header; 0 until known */
	uint8_t hdr[4];		/* the handshake header, as its bytes come */
	bool stop;		/* not plain handshake records: leave it to the parser */
};

/* Where an allowed TLS flow stands with the server's answer to its hello. */
enum afw_tls_wait {
	AFW_TLS_WAIT_NONE,	/* no other hello can come: an acknowledgement will do */
	AFW_TLS_WAIT_ANSWER,	/* the server's first message says whether one may */
	AFW_TLS_WAIT_SECOND,	/* a HelloRetryRequest came: the second hello must be read */
};

/* A ServerHello's record and handshake headers, version and random. */
#define AFW_SERVER_HELLO (5 + 4 + 2 + 32)

struct afw_eflow {
	struct afw_pkt_key key;
	struct afw_eflow *hnext;		/* hash chain */
	struct afw_eflow *prev, *next;		/* its state's list, by deadline */
	uint64_t deadline;
	uint32_t hash;
	uint8_t client;				/* the side of key that is the client */
	uint8_t state;
	bool has_uid;
	bool has_prev;				/* prev_rec holds the record a new SYN replaced */
	bool urg;				/* urg_seq: an urgent byte, out of the stream */
	bool read_past;				/* CONFIRMING: the judged bytes hold urg_seq */
	bool install;				/* KEPT, decided without a packet: install with the next */
	bool client_seen;			/* a packet of the client's came to afwd */
	bool kconfirm;				/* CONFIRMING: the module holds it unconfirmed */
	uint8_t dir;				/* enum afw_dir of the client's packets */
	uint32_t iif, oif;			/* the client's packets' interfaces */
	uint8_t pass;				/* KEPT: enum afw_pass for its packets */
	uint8_t decision;			/* KEPT: enum afw_decision, to install */
	uint32_t uid;
	unsigned int packets;
	unsigned int idle;			/* client packets that brought no new bytes */
	uint32_t urg_seq;
	uint32_t judged;			/* CONFIRMING: the judged bytes end here */
	struct afw_result *res;			/* CONFIRMING: the decision, to log when final */
	struct afw_drec prev_rec;
	uint8_t *buf;				/* client bytes, growing; only while analyzing */
	uint32_t bufsize;
	union {					/* by the key's protocol */
		struct {
			struct afw_tcp tcp;
			struct afw_reasm reasm;
			struct afw_tls_walk walk;
			/*
			 * A TLS flow allowed on a hello that offers TLS 1.3: until
			 * the server answers, it may ask for a second hello
			 * (HelloRetryRequest), whose names are read too.
			 */
			uint8_t tls_wait;		/* enum afw_tls_wait */
			uint8_t s_have;
			uint8_t s_hello[AFW_SERVER_HELLO];	/* the server's first bytes */
			uint32_t tls_next;		/* stream bytes up to a second hello read, or 0 */
			/* An inspected HTTP/1.x flow: every later request head is read too. */
			bool following;
			uint32_t follow_seq;		/* the next client byte to read */
			struct afw_http_follow follow;	/* its buffer is owned here */
			struct afw_http_shadow shadow;	/* and this one's */
		};
		struct afw_quic_flow quic;
	};
};

/* A list in deadline order: every flow of a list gets the same delay. */
struct afw_elist {
	struct afw_eflow *head, *tail;
	unsigned int n;
};

struct afw_engine {
	struct afw_engine_opts o;
	struct afw_eflow **fbuckets;
	struct afw_drec **dbuckets;
	uint32_t fmask, dmask;
	uint32_t seed;
	struct afw_elist lists[__AFW_EF_MAX];
	struct afw_drec *lru_head, *lru_tail;
	unsigned int ndecided;
	struct afw_quic_ctx *quic;
	struct afw_ja4_ctx *ja4;
	struct afw_engine_stats stats;
	struct afw_owner_slot owner;		/* of the decision at hand */
	uint64_t now;				/* of the packet or the timer at hand */
	uint8_t *scratch;			/* a ClientHello over several records */
	uint8_t *scratch2;			/* and a second one, to compare */
	uint8_t *strip;				/* the stream without its urgent byte */
	size_t strip_size;
	bool kernel_confirm;			/* afw_engine_kernel_confirm() */
	unsigned int kconfirming;		/* flows with kconfirm */
};

#define AFW_BUF_MIN 2048
/* A kept flow idle this long becomes a record (QUIC) or is forgotten (HTTP follower). */
#define AFW_KEEP_NS (300 * 1000000000ull)

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

/* Moves @f to @state's list, to end at @deadline. */
static void afw_flow_arm(struct afw_engine *e, struct afw_eflow *f, unsigned int state,
			 uint64_t deadline)
{
	afw_elist_del(&e->lists[f->state], f);
	f->state = (uint8_t)state;
	f->deadline = deadline;
	afw_elist_add(&e->lists[state], f);
}

/* Reading the client's first bytes: their analysis time running, or past it. */
static bool afw_flow_analyzing(const struct afw_eflow *f)
{
	return f->state == AFW_EF_ANALYZING || f->state == AFW_EF_STALLED;
}

static uint32_t afw_pow2(uint64_t n)
{
	uint32_t b = 64;

	while (b < n && b < (1u << 24))
		b <<= 1;
	return b;
}

struct afw_engine *afw_engine_new(const struct afw_engine_opts *o)
{
	struct afw_engine *e = calloc(1, sizeof(*e));
	uint32_t fb, db;

	if (!e)
		return NULL;
	e->o = *o;
	if (!e->o.max_decided)
		e->o.max_decided = 4 * (e->o.max_flows ? e->o.max_flows : 1);
	if (!e->o.max_memory)
		e->o.max_memory = AFW_ENGINE_MAX_MEMORY;
	if (e->o.max_bytes > AFW_REASM_MAX_CAP)
		e->o.max_bytes = AFW_REASM_MAX_CAP;
	fb = afw_pow2(e->o.max_flows);
	db = afw_pow2(e->o.max_decided);
	e->fmask = fb - 1;
	e->dmask = db - 1;
	e->fbuckets = calloc(fb, sizeof(*e->fbuckets));
	e->dbuckets = calloc(db, sizeof(*e->dbuckets));
	e->scratch = malloc(AFW_ENGINE_MAX_HELLO);
	e->scratch2 = malloc(AFW_ENGINE_MAX_HELLO);
	e->quic = afw_quic_ctx_new();
	e->ja4 = afw_ja4_ctx_new();
	if (!e->fbuckets || !e->dbuckets || !e->scratch || !e->scratch2 || !e->quic || !e->ja4 ||
	    getrandom(&e->seed, sizeof(e->seed), 0) != sizeof(e->seed)) {
		afw_engine_free(e);
		return NULL;
	}
	return e;
}

/* Buffers count against max_memory, as one budget for all flows. */
static bool afw_mem_take(struct afw_engine *e, uint64_t n)
{
	if (e->stats.memory + n > e->o.max_memory)
		return false;
	e->stats.memory += n;
	return true;
}

static void afw_engine_restore(struct afw_engine *e, struct afw_eflow *f);

/* A stalled flow gives way, undecided: its next packet is read as joined mid-stream. */
static void afw_engine_forget_stalled(struct afw_engine *e, struct afw_eflow *f)
{
	e->stats.stalled_forgotten++;
	afw_engine_restore(e, f);
}

/*
 * Memory for @keep: when the budget is spent, the flows stalled longest
 * give theirs back, forgotten undecided as for room (afw_engine_make_room()),
 * or a client could leave stalled flows holding the budget for good and
 * have every later flow decided as a bound.
 */
static bool afw_engine_mem_take(struct afw_engine *e, const struct afw_eflow *keep, uint64_t n)
{
	struct afw_eflow *g;

	while (!afw_mem_take(e, n)) {
		g = e->lists[AFW_EF_STALLED].head;
		if (g == keep)
			g = g->next;
		if (!g)
			return false;
		afw_engine_forget_stalled(e, g);
	}
	return true;
}

static void afw_flow_release(struct afw_engine *e, struct afw_eflow *f)
{
	if (f->kconfirm) {
		f->kconfirm = false;
		e->kconfirming--;
	}
	e->stats.memory -= f->bufsize;
	free(f->buf);
	f->buf = NULL;
	f->bufsize = 0;
	/* A follower stopped (a later request denied, an Upgrade) still has its buffers. */
	if (f->key.proto == IPPROTO_TCP) {
		free(f->follow.buf);
		f->follow.buf = NULL;
		free(f->shadow.buf);
		f->shadow.buf = NULL;
		f->shadow.on = false;
		f->following = false;
	}
	if (f->res) {
		e->stats.memory -= sizeof(*f->res);
		free(f->res);
		f->res = NULL;
	}
}

static void afw_flow_unlink(struct afw_engine *e, struct afw_eflow *f)
{
	struct afw_eflow **pp = &e->fbuckets[f->hash & e->fmask];

	while (*pp != f)
		pp = &(*pp)->hnext;
	*pp = f->hnext;
	afw_elist_del(&e->lists[f->state], f);
}

static void afw_flow_free(struct afw_engine *e, struct afw_eflow *f)
{
	afw_flow_unlink(e, f);
	afw_flow_release(e, f);
	free(f);
}

static void afw_rec_lru_del(struct afw_engine *e, struct afw_drec *d)
{
	if (d->prev)
		d->prev->next = d->next;
	else
		e->lru_head = d->next;
	if (d->next)
		d->next->prev = d->prev;
	else
		e->lru_tail = d->prev;
}

static void afw_rec_lru_add(struct afw_engine *e, struct afw_drec *d)
{
	d->next = NULL;
	d->prev = e->lru_tail;
	if (e->lru_tail)
		e->lru_tail->next = d;
	else
		e->lru_head = d;
	e->lru_tail = d;
}

static void afw_rec_unlink(struct afw_engine *e, struct afw_drec *d)
{
	struct afw_drec **pp = &e->dbuckets[d->hash & e->dmask];

	while (*pp != d)
		pp = &(*pp)->hnext;
	*pp = d->hnext;
	afw_rec_lru_del(e, d);
	e->ndecided--;
}

/* Remembers a copy of @tmpl; the least recently seen record goes to make room. */
static void afw_rec_add(struct afw_engine *e, const struct afw_drec *tmpl)
{
	struct afw_drec *d;

	if (e->ndecided >= e->o.max_decided && e->lru_head) {
		d = e->lru_head;
		afw_rec_unlink(e, d);
	} else {
		d = malloc(sizeof(*d));
		if (!d)
			return;
	}
	*d = *tmpl;
	d->hnext = e->dbuckets[d->hash & e->dmask];
	e->dbuckets[d->hash & e->dmask] = d;
	afw_rec_lru_add(e, d);
	e->ndecided++;
}

/* Every flow and record goes; the tables stay, empty. */
static void afw_engine_forget(struct afw_engine *e)
{
	struct afw_drec *d;
	unsigned int i;

	if (e->fbuckets)
		for (i = 0; i < __AFW_EF_MAX; i++)
			while (e->lists[i].head)
				afw_flow_free(e, e->lists[i].head);
	while ((d = e->lru_head)) {
		afw_rec_unlink(e, d);
		free(d);
	}
}

unsigned int afw_engine_forget_answers(struct afw_engine *e)
{
	struct afw_drec *d, *next;
	unsigned int n = 0;

	for (d = e->lru_head; d; d = next) {
		next = d->next;
		if (!(d->flags & AFW_DR_PER_PACKET))
			continue;
		afw_rec_unlink(e, d);
		free(d);
		n++;
	}
	return n;
}

uint64_t afw_engine_reset(struct afw_engine *e)
{
	uint64_t left;

	afw_engine_forget(e);
	left = e->stats.memory;
	memset(&e->stats, 0, sizeof(e->stats));
	e->now = 0;
	return left;
}

void afw_engine_free(struct afw_engine *e)
{
	if (!e)
		return;
	afw_engine_forget(e);
	afw_ja4_ctx_free(e->ja4);
	afw_quic_ctx_free(e->quic);
	free(e->strip);
	free(e->scratch);
	free(e->scratch2);
	free(e->fbuckets);
	free(e->dbuckets);
	free(e);
}

static struct afw_eflow *afw_flow_find(struct afw_engine *e, const struct afw_pkt_key *k,
				       uint32_t hash)
{
	struct afw_eflow *f;

	for (f = e->fbuckets[hash & e->fmask]; f; f = f->hnext)
		if (f->hash == hash && !memcmp(&f->key, k, sizeof(*k)))
			return f;
	return NULL;
}

static struct afw_drec *afw_rec_find(struct afw_engine *e, const struct afw_pkt_key *k,
				     uint32_t hash)
{
	struct afw_drec *d;

	for (d = e->dbuckets[hash & e->dmask]; d; d = d->hnext)
		if (d->hash == hash && !memcmp(&d->key, k, sizeof(*k)))
			return d;
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

/* A flow's endpoints, client first, into @res and @facts. */
static void afw_describe(const struct afw_pkt_key *k, int client, bool has_uid, uint32_t uid,
			 struct afw_result *res, struct afw_facts *facts)
{
	int c = client, s = !client;

	memset(res, 0, sizeof(*res));
	memset(facts, 0, sizeof(*facts));
	res->family = (k->ipver & 0x7f) == 6 ? AF_INET6 : (k->ipver & 0x7f) == 4 ? AF_INET : 0;
	res->l4proto = k->proto;
	memcpy(res->src, k->addr[c], 16);
	memcpy(res->dst, k->addr[s], 16);
	res->sport = k->port[c];
	res->dport = k->port[s];
	if (afw_pkt_key_echo(k)) {
		res->echo = afw_pkt_key_echo_sent(k, c);
		res->icmp_id = k->port[0];
		res->sport = res->dport = 0;
	}
	res->has_uid = has_uid;
	res->uid = uid;
	facts->l7 = AFW_L7_UNKNOWN;
	facts->family = res->family;
	memcpy(facts->saddr, res->src, 16);
	memcpy(facts->daddr, res->dst, 16);
	facts->sport = res->sport;
	facts->dport = res->dport;
	facts->echo = res->echo;
	facts->icmp_id = res->icmp_id;
	facts->l4proto = res->l4proto;
	facts->has_uid = has_uid;
	facts->uid = uid;
}

/*
 * Who started a flow, from one of its packets, @p, sent by the client
 * (@from_client) or by the server: a reply goes the other way, so its
 * direction is turned round and its interfaces swapped.
 */
static void afw_orient(const struct afw_pkt *p, bool from_client, uint8_t *dir, uint32_t *iif,
		       uint32_t *oif)
{
	if (from_client) {
		*dir = p->dir;
		*iif = p->indev;
		*oif = p->outdev;
		return;
	}
	*dir = p->dir == AFW_FDIR_IN ? AFW_FDIR_OUT : p->dir == AFW_FDIR_OUT ? AFW_FDIR_IN : p->dir;
	*iif = p->outdev;
	*oif = p->indev;
}

static void afw_flow_orient(struct afw_eflow *f, const struct afw_pkt *p, int side)
{
	afw_orient(p, side == f->client, &f->dir, &f->iif, &f->oif);
	if (side == f->client)
		f->client_seen = true;
}

/* The owner's question, not yet asked, for the decision at hand (facts.h). */
static struct afw_owner_slot *afw_engine_owner(struct afw_engine *e)
{
	if (!e->o.owner_fetch)
		return NULL;
	e->owner.state = 0;
	e->owner.fetch = e->o.owner_fetch;
	e->owner.ctx = e->o.owner_ctx;
	return &e->owner;
}

static void afw_engine_describe(struct afw_engine *e, const struct afw_eflow *f,
				struct afw_result *res, struct afw_facts *facts)
{
	afw_describe(&f->key, f->client, f->has_uid, f->uid, res, facts);
	facts->owner = afw_engine_owner(e);
	facts->dir = res->dir = f->dir;
	facts->iif = res->iif = f->iif;
	facts->oif = res->oif = f->oif;
	res->packets = f->packets;
}

enum afw_pass afw_decision_pass(enum afw_decision d)
{
	switch (d) {
	case AFW_DECIDE_DENY:
	case AFW_DECIDE_ASK:	/* the caller holds it */
		return AFW_PASS_DROP;
	case AFW_DECIDE_REJECT:
		return AFW_PASS_REJECT;
	default:
		return AFW_PASS_ACCEPT;
	}
}

/*
 * What a decided flow's later packets get: a refused flow's are dropped,
 * whatever refused it, since only the deciding packet is rejected (the
 * module answers that one).
 */
static enum afw_pass afw_decision_later(enum afw_decision d)
{
	return afw_decision_pass(d) == AFW_PASS_ACCEPT ? AFW_PASS_ACCEPT : AFW_PASS_DROP;
}

/* @src into @dst of @size: a path too long for the log is cut, and says so. */
static void afw_result_path(char *dst, size_t size, const char *src, size_t max)
{
	size_t len = strnlen(src, max);

	if (len >= size) {
		len = size - 4;
		memcpy(dst + len, "...", 4);
	} else {
		dst[len] = '\0';
	}
	memcpy(dst, src, len);
}

/* The owner the policy asked about, for the log and for a reload's judging. */
static void afw_result_owner(struct afw_result *res, const struct afw_facts *facts)
{
	const struct afw_owner_slot *s = facts->owner;

	if (!s || s->state <= 0)
		return;
	res->has_owner = true;
	res->owner_listener = s->info.listener;
	res->owner_pid = s->info.pid;
	res->owner_gid = s->info.gid;
	snprintf(res->owner_comm, sizeof(res->owner_comm), "%s", s->info.comm);
	afw_result_path(res->owner_exe, sizeof(res->owner_exe), s->info.exe,
			sizeof(s->info.exe));
	res->owner_exe_cut = strnlen(s->info.exe, sizeof(s->info.exe)) >= sizeof(res->owner_exe);
	afw_result_path(res->owner_cgroup, sizeof(res->owner_cgroup), s->info.cgroup,
			sizeof(s->info.cgroup));
}

/*
 * "@why, @words@name@tail" (no comma with no @why) into @res's reason, cut
 * to fit as snprintf() would; @line in decimal for a NULL @name. Every
 * decision's reason, built once a flow without a format to parse.
 */
static void afw_engine_reason(struct afw_result *res, const char *why, const char *words,
			      const char *name, unsigned int line, const char *tail)
{
	char num[12], *p = num + sizeof(num);
	size_t n = 0, cap = sizeof(res->reason) - 1;
	const char *parts[5] = { why, *why ? ", " : "", words, name, tail };
	size_t i, len;

	if (!name) {
		*--p = '\0';
		do
			*--p = (char)('0' + line % 10);
		while (line /= 10);
		parts[3] = p;
	}
	for (i = 0; i < 5 && n < cap; i++) {
		len = strlen(parts[i]);
		if (len > cap - n)
			len = cap - n;
		memcpy(res->reason + n, parts[i], len);
		n += len;
	}
	res->reason[n] = '\0';
}

/*
 * By the policy, from @facts; facts->reason says why afwd could not read
 * the flow, if it could not. @why prefixes the words.
 */
static void afw_engine_judge(const struct afw_policy *pol, const struct afw_facts *facts,
			     struct afw_result *res, const char *why)
{
	struct afw_policy_match m = { 0 };

	res->l7 = facts->l7;
	res->giveup = facts->reason;
	res->decision = afw_policy_match(pol, facts, &m);
	res->rule_line = m.line;
	res->is_default = m.is_default;
	/*
	 * Asked about: who started the flow, also where no rule asked, for
	 * the person to see and for an answer kept by program to match.
	 */
	if (res->decision == AFW_DECIDE_ASK)
		afw_facts_owner(facts);
	afw_result_owner(res, facts);
	if (m.unnamed)
		afw_engine_reason(res, why, "no rule names reason ",
				  afw_reason_name(facts->reason), 0, "");
	else if (m.answered)
		afw_engine_reason(res, why, "answers line ", NULL, m.line, "");
	else if (m.is_default)
		afw_engine_reason(res, why, "default (line ", NULL, m.line, ")");
	else
		afw_engine_reason(res, why, "policy line ", NULL, m.line, "");
}

/*
 * A flow the readers could not name, for @reason: decided by the policy's
 * rules for that reason (evasion and malformed only by a rule naming them).
 * @l7 is what the report shows; the policy sees l7 "unknown".
 */
static void afw_engine_giveup(const struct afw_policy *pol, struct afw_facts *facts,
			      struct afw_result *res, enum afw_reason reason, enum afw_l7 l7,
			      const char *why)
{
	facts->l7 = AFW_L7_UNKNOWN;
	facts->reason = reason;
	afw_engine_judge(pol, facts, res, why);
	res->l7 = l7;
}

static void afw_engine_hello(struct afw_engine *e, const struct afw_tls_hello *h,
			     enum afw_ja4_transport t, struct afw_result *res,
			     struct afw_facts *facts)
{
	struct afw_span name;
	size_t off = 0;

	facts->l7 = t == AFW_JA4_QUIC ? AFW_L7_QUIC : AFW_L7_TLS;
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

/* What an HTTP/1.x request head @req tells: its host and method. */
static void afw_engine_request(const struct afw_http_request *req, struct afw_result *res,
			       struct afw_facts *facts)
{
	facts->l7 = AFW_L7_HTTP;
	if (req->has_host) {
		facts->host = afw_text_of(&req->host);
		afw_copy_span(res->host, sizeof(res->host), &req->host);
	}
	afw_copy_span(res->http_method, sizeof(res->http_method), &req->method);
}

/* One request head of an inspected flow, judged: true when it is to be stopped. */
static bool afw_engine_follow_judge(struct afw_engine *e, const struct afw_policy *pol, struct afw_eflow *f,
				    const struct afw_http_request *req, const char *why,
				    struct afw_result *res)
{
	struct afw_facts facts;

	afw_engine_describe(e, f, res, &facts);
	afw_engine_request(req, res, &facts);
	afw_engine_judge(pol, &facts, res, why);
	/* The flow runs already: a later request is not held for a person. */
	if (res->decision == AFW_DECIDE_ASK)
		res->decision = afw_policy_ask_default(pol);
	return res->decision == AFW_DECIDE_DENY || res->decision == AFW_DECIDE_REJECT;
}

/*
 * A body starts: a server that does not read it (docs/afwd.md, "HTTP
 * requests after the first") reads requests from here. False when out of
 * memory to read them too.
 */
static bool afw_engine_shadow_start(struct afw_eflow *f)
{
	if (!f->shadow.buf)
		f->shadow.buf = malloc(AFW_HTTP_MAX_HEADER);
	f->shadow.have = 0;
	f->shadow.on = f->shadow.buf != NULL;
	return f->shadow.on;
}

/* The bytes the follower took, read again as such a server reads them. */
static bool afw_engine_shadow_feed(struct afw_engine *e, const struct afw_policy *pol, struct afw_eflow *f,
				   const uint8_t *data, size_t len, struct afw_result *res)
{
	struct afw_http_request req;
	enum afw_http_status st;
	struct afw_facts facts;
	char why[160];
	size_t used;

	while (f->shadow.on && len) {
		st = afw_http_shadow_feed(&f->shadow, data, len, &used, &req);
		data += used;
		len -= used;
		if (st == AFW_HTTP_MORE || st == AFW_HTTP_NOT_HTTP)
			return false;
		if (st == AFW_HTTP_OK) {
			if (afw_engine_follow_judge(e, pol, f, &req, "http, a body read as a request "
						    "by a server that does not read it", res))
				return true;
			continue;
		}
		afw_engine_describe(e, f, res, &facts);
		snprintf(why, sizeof(why), "a body a server that does not read it would read as a "
			 "malformed request: %s", req.reason);
		afw_engine_giveup(pol, &facts, res, AFW_REASON_MALFORMED, AFW_L7_HTTP, why);
		return true;
	}
	return false;
}

/*
 * Reads the request heads in @data, the next @len bytes of an inspected
 * HTTP/1.x flow, and judges each, as well as any a server that does not
 * read bodies would find in a body. Returns true when one is to be stopped
 * (@res filled): its host is denied or rejected, or what follows a request
 * is not one (docs/afwd.md: "HTTP requests after the first").
 */
static bool afw_engine_follow_feed(struct afw_engine *e, const struct afw_policy *pol, struct afw_eflow *f,
				   const uint8_t *data, size_t len, struct afw_result *res)
{
	struct afw_http_request req;
	enum afw_http_status st;
	struct afw_facts facts;
	char why[120];
	size_t used;

	while (f->following && len) {
		st = afw_http_follow_feed(&f->follow, data, len, &used, &req);
		if (afw_engine_shadow_feed(e, pol, f, data, used, res))
			return true;
		data += used;
		len -= used;
		if (st == AFW_HTTP_MORE)
			return false;
		if (st == AFW_HTTP_OK) {
			if (afw_engine_follow_judge(e, pol, f, &req, "http, a later request", res))
				return true;
			if (afw_http_follow_in_body(&f->follow) && !afw_engine_shadow_start(f)) {
				res->decision = AFW_DECIDE_DENY;
				snprintf(res->reason, sizeof(res->reason), "%s",
					 "inspect: out of memory to follow requests");
				return true;
			}
			continue;
		}
		afw_engine_describe(e, f, res, &facts);
		/* After an Upgrade or a CONNECT, bytes that are not HTTP are the new protocol. */
		if (st == AFW_HTTP_NOT_HTTP && f->follow.upgrade) {
			f->following = false;
			return false;
		}
		snprintf(why, sizeof(why), "what follows a request is not a request: %s",
			 req.reason);
		afw_engine_giveup(pol, &facts, res, AFW_REASON_MALFORMED, AFW_L7_HTTP, why);
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
static void afw_engine_follow_start(struct afw_engine *e, const struct afw_policy *pol, struct afw_eflow *f,
				    const uint8_t *data, size_t len,
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
	if (afw_http_follow_in_body(&f->follow) && !afw_engine_shadow_start(f)) {
		res->decision = AFW_DECIDE_DENY;
		snprintf(res->reason, sizeof(res->reason), "%s",
			 "inspect: out of memory to follow requests");
		return;
	}
	if (afw_engine_follow_feed(e, pol, f, data + req->header_len, len - req->header_len,
				   &later)) {
		later.packets = res->packets;
		*res = later;
		free(f->follow.buf);
		f->follow.buf = NULL;
		f->following = false;
	}
}

/*
 * A client segment of a followed flow. Out-of-order segments are dropped
 * (the client sends them again once the hole is filled), so that every
 * byte the server reads has been read here first.
 */
static enum afw_pass afw_engine_follow(struct afw_engine *e, const struct afw_policy *pol, struct afw_eflow *f,
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
	if (!afw_engine_follow_feed(e, pol, f, p->payload + skip, p->payload_len - skip, res))
		return f->pass;
	*decided = true;
	f->following = false;
	res->packets = ++f->packets;
	f->pass = afw_decision_later(res->decision);
	return afw_decision_pass(res->decision);
}

/*
 * A DNS query to port 53, over TCP (@stream) or in one datagram: judged by
 * the name it asks for. Returns false while a TCP query's question is not
 * all there.
 */
static bool afw_engine_dns(const struct afw_policy *pol, const uint8_t *data, size_t len,
			   bool stream, struct afw_result *res, struct afw_facts *facts,
			   size_t *judged)
{
	struct afw_dns_query q;
	enum afw_dns_result ret;
	char why[100];

	ret = stream ? afw_dns_parse_stream(data, len, &q) : afw_dns_parse(data, len, &q);
	if (ret == AFW_DNS_MORE)
		return false;
	if (ret == AFW_DNS_BAD) {
		snprintf(why, sizeof(why), "malformed DNS query: %s", q.reason);
		afw_engine_giveup(pol, facts, res, AFW_REASON_MALFORMED, AFW_L7_DNS, why);
		return true;
	}
	facts->l7 = AFW_L7_DNS;
	facts->host = (struct afw_text){ q.name, q.name_len };
	afw_copy_span(res->host, sizeof(res->host),
		      &(struct afw_span){ (const uint8_t *)q.name, q.name_len });
	afw_engine_judge(pol, facts, res, "dns");
	if (judged)
		*judged = q.consumed;
	return true;
}

/*
 * Reads the client's bytes so far, @data (@len bytes, as the server's
 * application reads them). Returns true when the flow is decided (@res
 * filled, *@judged the bytes the decision rests on), false to wait for more.
 */
static bool afw_engine_tcp(struct afw_engine *e, const struct afw_policy *pol,
			   struct afw_eflow *f, const uint8_t *data, size_t len,
			   struct afw_result *res, struct afw_facts *facts, size_t *judged)
{
	struct afw_http_request req;
	struct afw_h2_request h2;
	struct afw_tls_hello h;
	char why[100];

	*judged = len;
	if (facts->dport == AFW_DNS_PORT)
		return afw_engine_dns(pol, data, len, true, res, facts, judged);
	switch (afw_tls_parse_stream(data, len, e->scratch, AFW_ENGINE_MAX_HELLO, &h)) {
	case AFW_TLS_OK:
		afw_engine_hello(e, &h, AFW_JA4_TCP, res, facts);
		afw_engine_judge(pol, facts, res, "tls");
		*judged = h.consumed;
		/* Only a server that negotiates TLS 1.3 may ask for another hello. */
		f->tls_wait = h.version >= 0x0304 ? AFW_TLS_WAIT_ANSWER : AFW_TLS_WAIT_NONE;
		return true;
	case AFW_TLS_MORE:
		return false;
	case AFW_TLS_BAD:
		snprintf(why, sizeof(why), "malformed ClientHello: %s", h.reason);
		afw_engine_giveup(pol, facts, res, AFW_REASON_MALFORMED, AFW_L7_TLS, why);
		return true;
	case AFW_TLS_NOT_TLS:
		break;
	}
	switch (afw_h2_parse(data, len, e->scratch, AFW_ENGINE_MAX_HELLO, &h2)) {
	case AFW_H2_OK:
		facts->l7 = AFW_L7_HTTP;
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
		afw_engine_giveup(pol, facts, res, AFW_REASON_MALFORMED, AFW_L7_HTTP, why);
		return true;
	case AFW_H2_NOT_H2:
		break;
	}
	switch (afw_http_parse(data, len, &req)) {
	case AFW_HTTP_OK:
		afw_engine_request(&req, res, facts);
		afw_engine_judge(pol, facts, res, "http");
		*judged = req.header_len;
		if (res->decision == AFW_DECIDE_INSPECT)
			afw_engine_follow_start(e, pol, f, data, len, &req, res);
		return true;
	case AFW_HTTP_MORE:
		return false;
	case AFW_HTTP_BAD:
		snprintf(why, sizeof(why), "malformed HTTP request: %s", req.reason);
		afw_engine_giveup(pol, facts, res, AFW_REASON_MALFORMED, AFW_L7_HTTP, why);
		return true;
	case AFW_HTTP_NOT_HTTP:
		break;
	}
	afw_engine_giveup(pol, facts, res, AFW_REASON_NOT_TLS, AFW_L7_UNKNOWN,
			  "neither TLS nor HTTP");
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
			afw_engine_giveup(pol, facts, res, AFW_REASON_MALFORMED, AFW_L7_QUIC, text);
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
		afw_engine_giveup(pol, facts, res, AFW_REASON_BOUND, AFW_L7_QUIC,
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
		afw_engine_giveup(pol, facts, res, AFW_REASON_NOT_TLS, AFW_L7_UNKNOWN, text);
		return true;
	}
	snprintf(text, sizeof(text), "QUIC: %s", why);
	/* A QUIC flow that contradicts itself is trying to mislead. */
	if (ret == -EILSEQ) {
		e->stats.evasions++;
		afw_engine_giveup(pol, facts, res, AFW_REASON_EVASION, AFW_L7_QUIC, text);
		return true;
	}
	if (ret == -ENOBUFS) {
		e->stats.bounds++;
		afw_engine_giveup(pol, facts, res, AFW_REASON_BOUND, AFW_L7_QUIC, text);
		return true;
	}
	if (ret == -EPROTO) {
		afw_engine_giveup(pol, facts, res, AFW_REASON_MALFORMED, AFW_L7_QUIC, text);
		return true;
	}
	/* A forged or damaged datagram changes nothing; wait for the real ones. */
	return false;
}

/*
 * An allowed QUIC connection keeps the CRYPTO bytes it was judged on: its
 * later Initials must agree with them (a copy that died on the way, then
 * another hello in its place, is evasion), and a second hello, after a
 * HelloRetryRequest, is read past them.
 */
static void afw_engine_quic_keep(struct afw_engine *e, struct afw_eflow *f)
{
	struct afw_quic_flow *q = &f->quic;
	size_t keep = q->nranges ? q->ranges[q->nranges - 1].end : 0;
	uint8_t *n;

	if (keep < q->hello_len)
		keep = q->hello_len;
	n = keep < f->bufsize ? realloc(f->buf, keep) : NULL;
	if (n) {
		e->stats.memory -= f->bufsize - keep;
		f->buf = n;
		f->bufsize = (uint32_t)keep;
	}
	q->buf = f->buf;
	q->size = f->bufsize;
	q->cap = q->hello_len + AFW_TLS_SCRATCH_SIZE;
}

/* A record from @f, as its decision @d leaves it. */
static void afw_rec_from_flow(const struct afw_eflow *f, enum afw_decision d,
			      struct afw_drec *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->key = f->key;
	rec->hash = f->hash;
	rec->client = f->client;
	rec->decision = (uint8_t)d;
	/*
	 * Only the deciding packet is rejected (the module answers it); late
	 * packets are dropped, which also ends the loop should the flow not
	 * have reached the module.
	 */
	rec->pass = afw_decision_later(d);
	/*
	 * An asked connection keeps what an answered allow must still guard
	 * until the server acknowledges it: the judged bytes (afw_engine_decide()).
	 */
	if (d == AFW_DECIDE_ASK && f->key.proto == IPPROTO_TCP && f->judged) {
		rec->guard_lo = f->tcp.c_isn;
		rec->guard_hi = f->judged;
		rec->c_end = f->tcp.c_end;
		if (f->read_past)
			rec->flags |= AFW_DR_READ_PAST;
	}
	if (f->key.proto == IPPROTO_TCP) {
		rec->c_isn = f->tcp.c_isn;
		rec->c_indev = f->tcp.c_indev;
		rec->s_indev = f->tcp.s_indev;
		rec->flags |= AFW_DR_HAS_ISN;
		if (f->tcp.flags & AFW_TCP_C_ACKED)
			rec->flags |= AFW_DR_ESTABLISHED;
		if (f->tcp.flags & (AFW_TCP_C_FIN | AFW_TCP_C_RST | AFW_TCP_S_RST))
			rec->flags |= AFW_DR_CLOSED;
	}
}

static void afw_engine_unkeep(struct afw_engine *e, struct afw_eflow *f);

/*
 * @f is decided for good (@res): it becomes a record and its packet gets
 * the decision's verdict. @timer: no packet carries it, so the next one
 * will install it.
 */
static enum afw_pass afw_engine_settle(struct afw_engine *e, struct afw_eflow *f,
				       struct afw_result *res, bool timer)
{
	bool accept = afw_decision_later(res->decision) == AFW_PASS_ACCEPT;
	struct afw_drec rec;

	res->packets = f->packets;
	e->stats.decided[res->decision]++;
	if ((f->key.proto == IPPROTO_UDP && f->quic.version) ||
	    (f->key.proto == IPPROTO_TCP && f->following && accept)) {
		if (f->key.proto == IPPROTO_UDP && accept && f->quic.hello_len) {
			afw_engine_quic_keep(e, f);
		} else {
			e->stats.memory -= f->bufsize;
			free(f->buf);
			f->buf = NULL;
			f->bufsize = 0;
			if (f->key.proto == IPPROTO_UDP)
				f->quic.buf = NULL;
		}
		if (f->res) {
			e->stats.memory -= sizeof(*f->res);
			free(f->res);
			f->res = NULL;
		}
		f->decision = (uint8_t)res->decision;
		f->pass = afw_decision_later(res->decision);
		f->install = timer;
		afw_flow_arm(e, f, AFW_EF_KEPT, e->now + AFW_KEEP_NS);
		/* As many kept as analyzed at most: the least recently seen give way. */
		if (e->lists[AFW_EF_KEPT].n > e->o.max_flows)
			afw_engine_unkeep(e, e->lists[AFW_EF_KEPT].head);
		return afw_decision_pass(res->decision);
	}
	afw_rec_from_flow(f, res->decision, &rec);
	if (timer)
		rec.flags |= AFW_DR_INSTALL;
	afw_flow_free(e, f);
	afw_rec_add(e, &rec);
	return afw_decision_pass(res->decision);
}

/*
 * A kept flow that idled or made room: a QUIC flow becomes a record (its
 * Initials are then all taken for new connections), an HTTP follower is
 * forgotten (its next request is then mid-stream, for the policy).
 */
static void afw_engine_unkeep(struct afw_engine *e, struct afw_eflow *f)
{
	struct afw_drec rec;

	if (f->key.proto == IPPROTO_UDP) {
		afw_rec_from_flow(f, f->decision, &rec);
		if (f->install)
			rec.flags |= AFW_DR_INSTALL;
		afw_flow_free(e, f);
		afw_rec_add(e, &rec);
		return;
	}
	afw_flow_free(e, f);
}

/*
 * An allow (or inspect) the server has not acknowledged, and that afwd can
 * no longer wait for: it is never handed to the kernel blind. The record
 * keeps answering the flow's packets, refuses any client segment that
 * touches the judged bytes (their copy is gone), and installs the flow if
 * the server's acknowledgement comes after all.
 */
static void afw_engine_unconfirmed(struct afw_engine *e, struct afw_eflow *f,
				   struct afw_result *res)
{
	struct afw_drec rec;

	afw_rec_from_flow(f, res->decision, &rec);
	rec.flags |= AFW_DR_UNCONFIRMED | (f->read_past ? AFW_DR_READ_PAST : 0);
	rec.guard_lo = f->tcp.c_isn;
	rec.guard_hi = f->judged;
	/*
	 * Without the server's answer to the hello, another hello may still
	 * be read by the server: no client byte goes on, and the flow is
	 * never installed.
	 */
	if (f->key.proto == IPPROTO_TCP && f->tls_wait)
		rec.guard_hi = f->tcp.c_isn + 0x7fffffffu;
	rec.c_end = f->tcp.c_end;
	res->packets = f->packets;
	res->kernel_unconfirmed = f->kconfirm;
	snprintf(res->reason + strlen(res->reason), sizeof(res->reason) - strlen(res->reason), "%s",
		 f->key.proto == IPPROTO_TCP && f->tls_wait ?
		 "; not acknowledged by the server with its answer to the hello: kept out of the kernel" :
		 "; not acknowledged by the server: kept out of the kernel");
	afw_flow_free(e, f);
	afw_rec_add(e, &rec);
	e->stats.decided[res->decision]++;
	e->stats.unconfirmed++;
}

/*
 * An allow of @f that waits for the server (CONFIRMING), with the packet
 * that carries the judged bytes at hand: when the module can tell that
 * acknowledgement from any other as afwd would (afw_tcp_server(),
 * afw_tcp_acked()), it holds the flow unconfirmed and lets the server's
 * packet through itself, so that the server's answer never waits for
 * afwd. Not when more than an acknowledgement must be seen: the server's
 * answer to a TLS 1.3 hello (tls_wait), data sent past an urgent byte
 * (read_past). Nor for an inspect, whose packets all come here, nor for
 * an HTTP follower, whose later requests must.
 */
static void afw_engine_hand_over(struct afw_engine *e, struct afw_eflow *f,
				 struct afw_result *res)
{
	const struct afw_tcp *t = &f->tcp;

	if (!e->kernel_confirm || f->tls_wait || f->read_past || f->following ||
	    res->decision != AFW_DECIDE_ALLOW || !(t->flags & AFW_TCP_S_SYNACK))
		return;
	f->kconfirm = true;
	e->kconfirming++;
	res->kernel_confirm = true;
	res->confirm_ack = f->judged;
	res->confirm_end = t->c_end;
	res->confirm_iif = t->s_indev;
}

/*
 * @f was judged (@res) on its first @judged bytes of the stream as the
 * server's application reads it. A deny is final; an allow or inspect of a
 * TCP flow waits for the server to acknowledge the judged bytes. Returns
 * what the packet at hand gets; *@final when the decision is final and
 * @res is to be logged. @timer: no packet is at hand.
 */
static enum afw_pass afw_engine_decide(struct afw_engine *e, struct afw_eflow *f,
				       struct afw_result *res, size_t judged, uint64_t now,
				       bool timer, bool *final)
{
	uint32_t end, u;

	*final = true;
	res->packets = f->packets;
	/* Asked: what an answered allow would have to see acknowledged. */
	if (res->decision == AFW_DECIDE_ASK && f->key.proto == IPPROTO_TCP && f->buf && judged) {
		u = f->urg_seq - f->reasm.base;
		if (f->urg && u < f->reasm.have && u < judged)
			judged++;
		f->judged = f->reasm.base + (uint32_t)judged;
		f->read_past = f->urg && afw_seq_before(f->urg_seq, f->judged) &&
			       !afw_seq_before(f->urg_seq, f->reasm.base);
		return afw_engine_settle(e, f, res, timer);
	}
	if (f->key.proto != IPPROTO_TCP ||
	    (res->decision != AFW_DECIDE_ALLOW && res->decision != AFW_DECIDE_INSPECT) ||
	    !f->buf || !judged)
		return afw_engine_settle(e, f, res, timer);
	/* The judged bytes, in sequence numbers: the urgent byte may be among them. */
	u = f->urg_seq - f->reasm.base;
	if (f->urg && u < f->reasm.have && u < judged)
		judged++;
	end = f->reasm.base + (uint32_t)judged;
	f->read_past = f->urg && afw_seq_before(f->urg_seq, end) &&
		       !afw_seq_before(f->urg_seq, f->reasm.base);
	if (!f->tls_wait && afw_tcp_acked(&f->tcp, end, f->read_past)) {
		e->stats.confirmed++;
		return afw_engine_settle(e, f, res, timer);
	}
	f->judged = end;
	if (!afw_engine_mem_take(e, f, sizeof(*f->res)))
		goto unconfirmed;
	f->res = malloc(sizeof(*f->res));
	if (!f->res) {
		e->stats.memory -= sizeof(*f->res);
		goto unconfirmed;
	}
	*f->res = *res;
	f->pass = AFW_PASS_ACCEPT;
	/*
	 * Later segments are compared with the judged bytes, and no more is
	 * kept; unless a second hello may follow, which is read as it comes.
	 */
	if (!f->tls_wait)
		afw_reasm_limit(&f->reasm, (uint32_t)judged);
	afw_flow_arm(e, f, AFW_EF_CONFIRMING, now + AFW_ENGINE_WAIT_NS);
	if (!timer)
		afw_engine_hand_over(e, f, res);
	*final = false;
	return AFW_PASS_ACCEPT;

unconfirmed:
	afw_engine_unconfirmed(e, f, res);
	return afw_decision_pass(res->decision);
}

/* The client's bytes so far, as the server's application reads them. */
static size_t afw_engine_app_len(const struct afw_eflow *f)
{
	uint32_t u = f->urg_seq - f->reasm.base;

	if (!f->buf)
		return 0;
	return f->reasm.have - (f->urg && u < f->reasm.have ? 1 : 0);
}

/*
 * The client's FIN ends the bytes held in order: the stream the server
 * reads ends there. A FIN among bytes the server holds already (an old one
 * it drops, with an ACK past it all the same) or past a hole does not.
 */
static bool afw_engine_fin_ends(const struct afw_eflow *f)
{
	uint32_t in_order = f->buf && f->reasm.started ? f->reasm.base + f->reasm.have :
							 f->tcp.c_isn + 1;

	return (f->tcp.flags & AFW_TCP_C_FIN) && f->tcp.fin_seq == in_order;
}

/*
 * The server sent bytes or a FIN, taken as the server's (afw_tcp_server()).
 * Not a reset: a listener answers a bad ACK with one and keeps the
 * connection it is opening, and a connection truly reset takes nothing
 * more from its client anyway.
 */
static bool afw_engine_server_spoke(const struct afw_tcp *t)
{
	return t->s_end != t->s_isn + 1;
}

/*
 * The analysis time of @f is over: true when time may decide it, which is
 * when no first message can come any more: its server took the client's
 * FIN, every byte before it in order; or its server spoke first while its
 * client sent nothing (SSH, SMTP, a server's push: no ClientHello or
 * request head will come, and the server's bytes would go through afwd
 * forever). Otherwise the client has a first message to send, or the rest
 * of one: whenever it comes, it is what the server acts on, and is read
 * (AFW_EF_STALLED).
 */
static bool afw_engine_time_decides(const struct afw_eflow *f)
{
	const struct afw_tcp *t = &f->tcp;

	if (f->key.proto != IPPROTO_TCP)
		return false;
	/* The FIN that ends the stream, acknowledged by the server. */
	if (afw_engine_fin_ends(f) && (t->flags & AFW_TCP_S_SEEN) &&
	    afw_seq_after(t->s_acked, t->fin_seq))
		return true;
	if (afw_engine_app_len(f) || t->c_end != t->c_isn + 1)
		return false;
	return afw_engine_server_spoke(t);
}

/*
 * Does the client's packet count toward --max-packets (client packets
 * that bring no new bytes)? One without data to a server that has said
 * nothing acknowledges nothing: a keepalive, a window update, an empty
 * FIN or urgent pointer, which a client sends as often as it likes
 * (TCP_KEEPINTVL) while its server waits for its first bytes. Counted,
 * 64 of them would decide the flow as a bound and let a later hello
 * through unread; so they count only once the server has spoken (its data
 * acknowledged, as a client does).
 */
static bool afw_engine_idle_counts(const struct afw_eflow *f, const struct afw_pkt *p)
{
	return p->payload_len || afw_engine_server_spoke(&f->tcp);
}

/*
 * Is it worth running the TLS parser on @have bytes? Walks the record
 * headers once, whatever the number of calls, and says yes only when the
 * hello may be whole, or when the parser has something to say about bytes
 * that are not plain handshake records.
 */
static bool afw_tls_walk(struct afw_tls_walk *w, const uint8_t *b, uint32_t have)
{
	uint32_t rec_len, part = 0, got, i;

	if (w->stop || have < 6)
		return true;
	for (;;) {
		if (w->off + 5 > have)
			break;
		if (b[w->off] != 22) {
			w->stop = true;
			return true;
		}
		rec_len = (uint32_t)b[w->off + 3] << 8 | b[w->off + 4];
		if (!rec_len) {
			w->stop = true;
			return true;
		}
		if (w->off + 5 + rec_len > have) {
			part = have - w->off - 5;
			break;
		}
		for (i = 0; i < rec_len && w->payload + i < 4; i++)
			w->hdr[w->payload + i] = b[w->off + 5 + i];
		w->payload += rec_len;
		w->off += 5 + rec_len;
	}
	if (!w->need) {
		got = w->payload;
		for (i = 0; got < 4 && i < part; i++, got++)
			w->hdr[got] = b[w->off + 5 + i];
		if (got < 4)
			return true;
		if (w->hdr[0] != 1) {
			w->stop = true;
			return true;
		}
		w->need = 4 + ((uint32_t)w->hdr[1] << 16 | (uint32_t)w->hdr[2] << 8 | w->hdr[3]);
	}
	return w->payload + part >= w->need;
}

/*
 * The client's stream as the server's application reads it: without the
 * urgent byte, which the server's stack takes out (tcp_urg(), tcp_recvmsg()
 * without SO_OOBINLINE). NULL when out of memory.
 */
static const uint8_t *afw_engine_stream(struct afw_engine *e, struct afw_eflow *f,
					size_t *len)
{
	uint32_t u = f->urg_seq - f->reasm.base;

	*len = f->reasm.have;
	if (!f->urg || u >= f->reasm.have)
		return f->buf;
	if (e->strip_size < f->reasm.have) {
		uint8_t *n = realloc(e->strip, f->reasm.have);

		if (!n)
			return NULL;
		e->strip = n;
		e->strip_size = f->reasm.have;
	}
	memcpy(e->strip, f->buf, u);
	memcpy(e->strip + u, f->buf + u + 1, f->reasm.have - u - 1);
	*len = f->reasm.have - 1;
	return e->strip;
}

/* Reads @f's bytes, if worth it. True when decided (@res, *@judged). */
static bool afw_engine_read(struct afw_engine *e, const struct afw_policy *pol,
			    struct afw_eflow *f, struct afw_result *res, struct afw_facts *facts,
			    size_t *judged)
{
	const uint8_t *data;
	size_t len;

	if (!f->buf || !f->reasm.have)
		return false;
	if (!f->urg && !afw_tls_walk(&f->walk, f->buf, f->reasm.have))
		return false;
	data = afw_engine_stream(e, f, &len);
	if (!data) {
		afw_engine_giveup(pol, facts, res, AFW_REASON_BOUND, AFW_L7_UNKNOWN,
				  "bound: out of memory");
		*judged = afw_engine_app_len(f);
		e->stats.bounds++;
		return true;
	}
	return afw_engine_tcp(e, pol, f, data, len, res, facts, judged);
}

/*
 * The client's FIN ends the bytes held in order, and they are an HTTP/1.x
 * head still without its end: a server that reads lines (Python's
 * http.server) takes the end of the stream as the end of the head and
 * answers it, so it is read as ended there. Other servers refuse it
 * (nginx), or wait for more (OpenSSL, for a hello), which can never come.
 */
static bool afw_engine_eof(struct afw_engine *e, const struct afw_policy *pol,
			   struct afw_eflow *f, struct afw_result *res, struct afw_facts *facts,
			   size_t *judged)
{
	struct afw_http_request req;
	const uint8_t *data;
	size_t len, add;
	uint8_t *copy;
	bool done;

	if (!f->buf || !f->reasm.have || facts->dport == AFW_DNS_PORT || !afw_engine_fin_ends(f))
		return false;
	data = afw_engine_stream(e, f, &len);
	if (!data || afw_http_parse(data, len, &req) != AFW_HTTP_MORE)
		return false;
	/* Its last line ended, or not: either way it is the last. */
	add = data[len - 1] == '\n' ? 2 : 4;
	copy = malloc(len + add);
	if (!copy)
		return false;
	memcpy(copy, data, len);
	memcpy(copy + len, "\r\n\r\n", add);
	done = afw_engine_tcp(e, pol, f, copy, len + add, res, facts, judged);
	free(copy);
	if (done && *judged > len)
		*judged = len;
	return done;
}

/* The sequence number just past @len bytes of the stream as the application reads it. */
static uint32_t afw_engine_seq_at(const struct afw_eflow *f, size_t len)
{
	uint32_t u = f->urg_seq - f->reasm.base;

	if (f->urg && u < f->reasm.have && u < len)
		len++;
	return f->reasm.base + (uint32_t)len;
}

/* Do two hellos name the same server, with the same protocols? */
static bool afw_tls_same(const struct afw_tls_hello *a, const struct afw_tls_hello *b)
{
	return a->has_sni == b->has_sni && a->has_alpn == b->has_alpn && a->has_ech == b->has_ech &&
	       (!a->has_sni || (a->sni.len == b->sni.len && !memcmp(a->sni.p, b->sni.p, a->sni.len))) &&
	       (!a->has_alpn ||
		(a->alpn.len == b->alpn.len && !memcmp(a->alpn.p, b->alpn.p, a->alpn.len)));
}

/*
 * An allowed TLS flow whose server may still ask for another hello: the
 * client's bytes after the judged hello are read as the server would read
 * them after a HelloRetryRequest. Every further hello must name what the
 * first named (RFC 8446 4.1.2 lets a client change its key shares, a
 * cookie, early data and padding, never its names): else evasion. Returns
 * 0, or the give-up reason with *@why.
 */
static enum afw_reason afw_engine_tls_next(struct afw_engine *e, struct afw_eflow *f,
					   const char **why)
{
	struct afw_tls_hello first, next;
	const uint8_t *data;
	enum afw_tls_status st;
	size_t len, done;

	data = afw_engine_stream(e, f, &len);
	if (!data) {
		*why = "bound: out of memory";
		return AFW_REASON_BOUND;
	}
	if (afw_tls_parse_stream(data, len, e->scratch, AFW_ENGINE_MAX_HELLO, &first) !=
	    AFW_TLS_OK) {
		*why = "malformed ClientHello: read again, it is not what was judged";
		return AFW_REASON_MALFORMED;
	}
	for (done = first.msg_len;; done += next.msg_len) {
		st = afw_tls_parse_next(data, len, done, e->scratch2, AFW_ENGINE_MAX_HELLO, &next);
		if (st == AFW_TLS_MORE)
			return AFW_REASON_NONE;
		if (st != AFW_TLS_OK) {
			*why = "malformed: after the ClientHello, what only a second hello may be";
			return AFW_REASON_MALFORMED;
		}
		if (!afw_tls_same(&first, &next)) {
			*why = "evasion: a second ClientHello names another server or protocols";
			return AFW_REASON_EVASION;
		}
		f->tls_next = (uint32_t)next.consumed;
	}
}

/*
 * The server's first bytes, as they come in order, up to its first
 * message's random: that says whether it is a HelloRetryRequest.
 */
static void afw_engine_server_bytes(struct afw_eflow *f, const struct afw_pkt *p)
{
	uint32_t off = p->tcp_seq - (f->tcp.s_isn + 1), skip;
	size_t n;

	if (!p->payload_len || off > f->s_have)
		return;
	skip = f->s_have - off;
	if (skip >= p->payload_len)
		return;
	n = p->payload_len - skip;
	if (n > sizeof(f->s_hello) - f->s_have)
		n = sizeof(f->s_hello) - f->s_have;
	memcpy(f->s_hello + f->s_have, p->payload + skip, n);
	f->s_have += (uint8_t)n;
}

/* 1: the server answered with a HelloRetryRequest; -1: with anything else; 0: not yet. */
static int afw_engine_tls_answer(const struct afw_eflow *f)
{
	const uint8_t *b = f->s_hello;

	if ((f->s_have >= 1 && b[0] != 22) || (f->s_have >= 6 && b[5] != 2))
		return -1;
	if (f->s_have < AFW_SERVER_HELLO)
		return 0;
	return memcmp(b + 11, afw_tls_hrr_random, 32) ? -1 : 1;
}

/* A second hello was read where one was awaited: the judged bytes now end after it. */
static void afw_engine_tls_second(struct afw_eflow *f)
{
	f->judged = afw_engine_seq_at(f, f->tls_next);
	f->read_past = f->urg && afw_seq_before(f->urg_seq, f->judged) &&
		       !afw_seq_before(f->urg_seq, f->reasm.base);
	f->tls_wait = AFW_TLS_WAIT_NONE;
}

/* Makes room in @f's buffer for @need stream bytes; false when the budget is spent. */
static bool afw_engine_room(struct afw_engine *e, struct afw_eflow *f, uint32_t need)
{
	uint32_t size = f->bufsize ? f->bufsize : AFW_BUF_MIN;
	uint8_t *n;

	if (need <= f->bufsize)
		return true;
	while (size < need)
		size = size > UINT32_MAX / 2 ? UINT32_MAX : size * 2;
	if (size > f->reasm.cap)
		size = f->reasm.cap;
	if (!afw_engine_mem_take(e, f, size - f->bufsize))
		return false;
	n = realloc(f->buf, size);
	if (!n) {
		e->stats.memory -= size - f->bufsize;
		return false;
	}
	f->buf = n;
	f->bufsize = size;
	afw_reasm_grow(&f->reasm, n, size);
	return true;
}

/* The stream starts after the client's ISN; the buffer comes with the first byte. */
static void afw_engine_stream_init(struct afw_engine *e, struct afw_eflow *f)
{
	afw_reasm_init(&f->reasm, NULL, e->o.max_bytes);
	afw_reasm_grow(&f->reasm, NULL, 0);
	afw_reasm_add(&f->reasm, f->tcp.c_isn, true, NULL, 0);
	memset(&f->walk, 0, sizeof(f->walk));
}

/* Result bits of afw_engine_store() beyond the reassembler's */
#define AFW_STORE_NOMEM (1u << 16)

/* Stores the bytes of client segment @p; returns AFW_REASM_* bits or AFW_STORE_NOMEM. */
static unsigned int afw_engine_store(struct afw_engine *e, struct afw_eflow *f,
				     const struct afw_pkt *p)
{
	bool syn = p->tcp_flags & AFW_TCP_SYN;
	uint32_t need;

	need = afw_reasm_need(&f->reasm, p->tcp_seq, syn, p->payload_len);
	if (need && (f->state != AFW_EF_CONFIRMING || f->tls_wait) && !afw_engine_room(e, f, need))
		return AFW_STORE_NOMEM;
	return afw_reasm_add(&f->reasm, p->tcp_seq, syn, p->payload, p->payload_len);
}

/*
 * The urgent pointer of a client segment the server takes. Linux keeps the
 * latest one only: the byte it points at is taken out of the stream, unless
 * it points at bytes the server already holds (tcp_check_urg()). A second
 * urgent byte, or one that may or may not land in the server's stream
 * depending on what it holds, makes the stream ambiguous: -1.
 */
static int afw_engine_urgent(struct afw_eflow *f, const struct afw_pkt *p)
{
	uint32_t ptr = p->tcp_urg_ptr, target = p->tcp_seq + ptr - (ptr ? 1 : 0);

	if (!(p->tcp_flags & AFW_TCP_URG))
		return 0;
	if (f->urg && target == f->urg_seq)
		return 0;
	/* Bytes the server holds in order: it ignores the pointer. */
	if (afw_seq_before(target, f->tcp.s_acked))
		return 0;
	if (f->state == AFW_EF_CONFIRMING) {
		/* A new pointer would put an urgent byte of the judged ones back inline. */
		if (f->urg && afw_seq_before(f->urg_seq, f->judged))
			return -1;
		if (afw_seq_before(target, f->judged))
			return -1;
	} else {
		if (f->urg)
			return -1;
		/* Bytes afwd has that the server may not have yet: ignored, or not. */
		if (f->buf && afw_seq_before(target, f->reasm.base + f->reasm.have))
			return -1;
	}
	f->urg = true;
	f->urg_seq = target;
	return 0;
}

/* A new connection on @f's 5-tuple: its SYN @p starts the analysis over. */
static void afw_engine_restart(struct afw_engine *e, struct afw_eflow *f,
			       const struct afw_pkt *p, int side, uint64_t now)
{
	afw_flow_release(e, f);
	memset(&f->tcp, 0, sizeof(f->tcp));
	memset(&f->walk, 0, sizeof(f->walk));
	f->client = (uint8_t)side;
	f->urg = f->read_past = false;
	f->tls_wait = f->s_have = 0;
	f->tls_next = 0;
	f->packets = 1;
	f->idle = 0;
	f->judged = 0;
	afw_tcp_syn(&f->tcp, p);
	afw_engine_stream_init(e, f);
	afw_flow_arm(e, f, AFW_EF_HANDSHAKE, now + AFW_ENGINE_WAIT_NS);
	e->stats.restarts++;
}

static struct afw_eflow *afw_flow_new(struct afw_engine *e, const struct afw_pkt_key *k,
				      uint32_t hash, int client, unsigned int state,
				      uint64_t deadline)
{
	struct afw_eflow *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->key = *k;
	f->hash = hash;
	f->client = (uint8_t)client;
	f->state = (uint8_t)state;
	f->deadline = deadline;
	f->hnext = e->fbuckets[hash & e->fmask];
	e->fbuckets[hash & e->fmask] = f;
	afw_elist_add(&e->lists[state], f);
	e->stats.flows++;
	return f;
}

/* The record a restarted flow replaced comes back: its new SYN was refused. */
static void afw_engine_restore(struct afw_engine *e, struct afw_eflow *f)
{
	f->prev_rec.flags &= (uint8_t)~AFW_DR_OPEN;
	if (f->has_prev)
		afw_rec_add(e, &f->prev_rec);
	afw_flow_free(e, f);
}

/*
 * Room for one more flow: the oldest flow still in its handshake gives
 * way, as it holds no byte and no decision; else the one stalled longest,
 * undecided: its next packet is read as a flow's seen mid-stream. False
 * when there is neither.
 */
static bool afw_engine_make_room(struct afw_engine *e)
{
	if (afw_engine_flows(e) < e->o.max_flows)
		return true;
	if (e->lists[AFW_EF_HANDSHAKE].head) {
		afw_engine_restore(e, e->lists[AFW_EF_HANDSHAKE].head);
		return true;
	}
	if (!e->lists[AFW_EF_STALLED].head)
		return false;
	afw_engine_forget_stalled(e, e->lists[AFW_EF_STALLED].head);
	return true;
}

/*
 * The flow contradicted itself (@why): a give-up named evasion, which the
 * policy denies unless a rule names it.
 */
static enum afw_pass afw_engine_evasion(struct afw_engine *e, const struct afw_policy *pol,
					struct afw_eflow *f, struct afw_result *res,
					struct afw_facts *facts, const char *why, uint64_t now,
					bool *decided)
{
	e->stats.evasions++;
	afw_engine_giveup(pol, facts, res, AFW_REASON_EVASION, AFW_L7_UNKNOWN, why);
	if (f->state == AFW_EF_CONFIRMING || res->decision == AFW_DECIDE_DENY ||
	    res->decision == AFW_DECIDE_REJECT) {
		*decided = true;
		return afw_engine_settle(e, f, res, false);
	}
	return afw_engine_decide(e, f, res, afw_engine_app_len(f), now, false, decided);
}

/*
 * The client's bytes after the judged hello of a TLS flow the server may
 * yet ask for another (docs/afwd.md, "What afwd guarantees"): a further
 * hello must name what the first did; the packet that would complete one
 * that does not is dropped, and the flow with it.
 */
static enum afw_pass afw_engine_tls_check(struct afw_engine *e, const struct afw_policy *pol,
					  struct afw_eflow *f, struct afw_result *res,
					  struct afw_facts *facts, uint64_t now, bool *decided)
{
	const char *why = "";
	enum afw_reason r = afw_engine_tls_next(e, f, &why);

	/* The log shows the name the first hello gave. */
	if (r != AFW_REASON_NONE && f->res)
		memcpy(res->host, f->res->host, sizeof(res->host));
	if (r == AFW_REASON_EVASION)
		return afw_engine_evasion(e, pol, f, res, facts, why, now, decided);
	if (r != AFW_REASON_NONE) {
		afw_engine_giveup(pol, facts, res, r, AFW_L7_TLS, why);
		*decided = true;
		return afw_engine_settle(e, f, res, false);
	}
	if (f->tls_wait == AFW_TLS_WAIT_SECOND && f->tls_next) {
		afw_engine_tls_second(f);
		afw_reasm_limit(&f->reasm, f->judged - f->reasm.base);
	}
	return AFW_PASS_ACCEPT;
}

/* afw_engine_decide() for a packet at hand, then what came with the judged bytes. */
static enum afw_pass afw_engine_judged(struct afw_engine *e, const struct afw_policy *pol,
				       struct afw_eflow *f, struct afw_result *res,
				       struct afw_facts *facts, size_t judged, uint64_t now,
				       bool *decided)
{
	enum afw_pass pass = afw_engine_decide(e, f, res, judged, now, false, decided);

	if (*decided || f->state != AFW_EF_CONFIRMING || !f->tls_wait)
		return pass;
	return afw_engine_tls_check(e, pol, f, res, facts, now, decided);
}

/* A client TCP segment of a flow under analysis. */
static enum afw_pass afw_engine_tcp_client(struct afw_engine *e, const struct afw_policy *pol,
					   struct afw_eflow *f, const struct afw_pkt *p,
					   int side, uint64_t now, struct afw_result *res,
					   struct afw_facts *facts, bool *decided)
{
	uint8_t fl = p->tcp_flags;
	struct afw_tcp *t = &f->tcp;
	bool content = p->payload_len || (fl & (AFW_TCP_FIN | AFW_TCP_URG));
	size_t judged;
	unsigned int st;

	if ((fl & (AFW_TCP_SYN | AFW_TCP_ACK)) == AFW_TCP_SYN) {
		/* The same SYN again, before the handshake is through: a retransmission. */
		if (p->tcp_seq == t->c_isn &&
		    !(t->flags & (AFW_TCP_C_ACKED | AFW_TCP_C_RST | AFW_TCP_S_RST | AFW_TCP_C_FIN))) {
			/* One the server would drop must not put data in the stream. */
			if ((p->csum == AFW_CSUM_CHECK && !afw_pkt_csum_ok(p)) ||
			    (p->tcp_opts & AFW_TCPOPT_SIG)) {
				e->stats.discarded++;
				return AFW_PASS_DROP;
			}
			if (!p->payload_len)
				return AFW_PASS_ACCEPT;
			st = afw_engine_store(e, f, p);
			if (st & AFW_REASM_CONFLICT)
				return afw_engine_evasion(e, pol, f, res, facts,
							  "evasion: a SYN again with other data",
							  now, decided);
			if (st & (AFW_REASM_DROPPED | AFW_REASM_NOROOM | AFW_STORE_NOMEM)) {
				e->stats.unstored++;
				return AFW_PASS_DROP;
			}
			return AFW_PASS_ACCEPT;
		}
		/*
		 * Another ISN, or a SYN after the handshake or a reset: a new
		 * connection. The one under analysis is refused until the server
		 * answers the SYN: a server that ignores it (RFC 5961 4.2) keeps
		 * the old connection, whose bytes are read no more.
		 */
		if (f->state != AFW_EF_HANDSHAKE && !f->has_prev) {
			afw_rec_from_flow(f, AFW_DECIDE_DENY, &f->prev_rec);
			f->prev_rec.flags |= AFW_DR_OPEN;
			f->has_prev = true;
		}
		afw_engine_restart(e, f, p, side, now);
		return afw_engine_tcp_client(e, pol, f, p, side, now, res, facts, decided);
	}
	/* A client does not answer its own SYN; crossed SYNs are not worth the doubt. */
	if (fl & AFW_TCP_SYN)
		return AFW_PASS_DROP;
	if (fl & AFW_TCP_RST) {
		t->flags |= AFW_TCP_C_RST;
		return AFW_PASS_ACCEPT;
	}
	if (f->state == AFW_EF_HANDSHAKE) {
		/* No connection yet: nothing may reach the server's stream. */
		if (content || (f->has_prev && f->prev_rec.pass != AFW_PASS_ACCEPT))
			return AFW_PASS_DROP;
		return AFW_PASS_ACCEPT;
	}
	if (afw_tcp_check(t, p)) {
		/* A pure ACK changes nothing in the stream: it passes, and counts. */
		if (!content && afw_flow_analyzing(f)) {
			if (afw_engine_idle_counts(f, p))
				f->idle++;
			goto bound;
		}
		if (!content)
			return AFW_PASS_ACCEPT;
		e->stats.discarded++;
		return AFW_PASS_DROP;
	}
	if (content && afw_engine_urgent(f, p))
		return afw_engine_evasion(e, pol, f, res, facts,
					  "evasion: urgent data that makes the stream ambiguous",
					  now, decided);
	if (p->payload_len) {
		st = afw_engine_store(e, f, p);
		if (st & AFW_REASM_CONFLICT)
			return afw_engine_evasion(e, pol, f, res, facts,
						  f->state == AFW_EF_CONFIRMING ?
						  "evasion: bytes that differ from the ones judged" :
						  "evasion: retransmitted bytes differ from the first copy",
						  now, decided);
		if (st & AFW_STORE_NOMEM) {
			e->stats.bounds++;
			afw_engine_giveup(pol, facts, res, f->buf ? AFW_REASON_BOUND :
					  AFW_REASON_TABLE_FULL, AFW_L7_UNKNOWN,
					  "bound: the buffers of all flows are full");
			return afw_engine_decide(e, f, res, afw_engine_app_len(f), now, false,
						 decided);
		}
		/* Bytes the server would take but afwd cannot keep: it must not take them. */
		if (st & (AFW_REASM_DROPPED | AFW_REASM_NOROOM)) {
			e->stats.unstored++;
			return AFW_PASS_DROP;
		}
	} else {
		st = 0;
	}
	afw_tcp_client(t, p);
	if (f->state == AFW_EF_CONFIRMING && f->following && p->payload_len) {
		/* Requests after the judged one are read as they come, as once decided. */
		enum afw_pass pass = afw_engine_follow(e, pol, f, p, res, decided);

		return *decided ? afw_engine_settle(e, f, res, false) : pass;
	}
	if (f->state == AFW_EF_CONFIRMING && f->tls_wait && (st & AFW_REASM_ADVANCED))
		return afw_engine_tls_check(e, pol, f, res, facts, now, decided);
	if (!afw_flow_analyzing(f))
		return AFW_PASS_ACCEPT;
	if (st & (AFW_REASM_ADVANCED | AFW_REASM_HELD))
		afw_flow_arm(e, f, AFW_EF_ANALYZING, now + e->o.max_ns);
	else if (afw_engine_idle_counts(f, p))
		f->idle++;
	if ((st & AFW_REASM_ADVANCED) && afw_engine_read(e, pol, f, res, facts, &judged))
		return afw_engine_judged(e, pol, f, res, facts, judged, now, decided);
	if ((p->tcp_flags & AFW_TCP_FIN) && afw_engine_eof(e, pol, f, res, facts, &judged))
		return afw_engine_judged(e, pol, f, res, facts, judged, now, decided);
bound:
	if (f->idle >= e->o.max_packets || (f->buf && f->reasm.have >= f->reasm.cap)) {
		e->stats.bounds++;
		afw_engine_giveup(pol, facts, res, AFW_REASON_BOUND, AFW_L7_UNKNOWN,
				  f->idle >= e->o.max_packets ?
				  "bound: client packets without new bytes" :
				  "bound: client bytes without a ClientHello or request head");
		return afw_engine_decide(e, f, res, afw_engine_app_len(f), now, false, decided);
	}
	return AFW_PASS_ACCEPT;
}

/* A server TCP segment of a flow under analysis. */
static enum afw_pass afw_engine_tcp_server(struct afw_engine *e, const struct afw_policy *pol,
					   struct afw_eflow *f, const struct afw_pkt *p,
					   uint64_t now, struct afw_result *res,
					   struct afw_facts *facts, bool *decided)
{
	const uint8_t synack = AFW_TCP_SYN | AFW_TCP_ACK;
	enum afw_pass old = f->has_prev ? f->prev_rec.pass : AFW_PASS_ACCEPT;
	size_t judged;

	if ((p->tcp_flags & synack) == synack) {
		if (f->tcp.flags & AFW_TCP_S_SYNACK)
			return p->tcp_seq == f->tcp.s_isn ? AFW_PASS_ACCEPT : old;
		if (!afw_tcp_synack(&f->tcp, p))
			return old;
		/* The server took the new connection: the old one is gone. */
		f->has_prev = false;
		afw_flow_arm(e, f, AFW_EF_ANALYZING, now + e->o.max_ns);
		/* Data on the SYN (TCP Fast Open) is read now, whoever holds it. */
		if (f->buf && f->reasm.have && afw_engine_read(e, pol, f, res, facts, &judged))
			return afw_engine_judged(e, pol, f, res, facts, judged, now, decided);
		return AFW_PASS_ACCEPT;
	}
	if (f->state == AFW_EF_HANDSHAKE) {
		if (p->tcp_flags & AFW_TCP_RST)
			f->tcp.flags |= AFW_TCP_S_RST;
		return old;
	}
	if (afw_tcp_server(&f->tcp, p) && f->state == AFW_EF_CONFIRMING &&
	    f->tls_wait == AFW_TLS_WAIT_ANSWER) {
		/* Whether the server asks for another hello, or no other can come. */
		afw_engine_server_bytes(f, p);
		switch (afw_engine_tls_answer(f)) {
		case 1:
			if (!f->tls_next) {
				f->tls_wait = AFW_TLS_WAIT_SECOND;
				break;
			}
			afw_engine_tls_second(f);
			afw_reasm_limit(&f->reasm, f->judged - f->reasm.base);
			break;
		case -1:
			f->tls_wait = AFW_TLS_WAIT_NONE;
			afw_reasm_limit(&f->reasm, f->judged - f->reasm.base);
			break;
		}
	}
	/* Stalled, and now no first message can come (a server speaking first, a FIN taken). */
	if (f->state == AFW_EF_STALLED && afw_engine_time_decides(f))
		afw_flow_arm(e, f, AFW_EF_ANALYZING, now + e->o.max_ns);
	if (f->state == AFW_EF_CONFIRMING && !f->tls_wait &&
	    afw_tcp_acked(&f->tcp, f->judged, f->read_past)) {
		*res = *f->res;
		res->packets = f->packets;
		res->kernel_confirmed = f->kconfirm;
		e->stats.confirmed++;
		*decided = true;
		return afw_engine_settle(e, f, res, false);
	}
	return AFW_PASS_ACCEPT;
}

/* A datagram of a UDP flow under analysis. */
static enum afw_pass afw_engine_udp_packet(struct afw_engine *e, const struct afw_policy *pol,
					   struct afw_eflow *f, const struct afw_pkt *p, int side,
					   uint64_t now, struct afw_result *res,
					   struct afw_facts *facts, bool *decided)
{
	unsigned int idle;

	if (side != f->client || !p->payload_len)
		return AFW_PASS_ACCEPT;
	if (facts->dport == AFW_DNS_PORT) {
		afw_engine_dns(pol, p->payload, p->payload_len, false, res, facts, NULL);
		return afw_engine_decide(e, f, res, 0, now, false, decided);
	}
	if (!f->buf) {
		if (!afw_engine_mem_take(e, f, AFW_TLS_SCRATCH_SIZE)) {
			e->stats.bounds++;
			afw_engine_giveup(pol, facts, res, AFW_REASON_TABLE_FULL, AFW_L7_UNKNOWN,
					  "bound: the buffers of all flows are full");
			return afw_engine_decide(e, f, res, 0, now, false, decided);
		}
		f->buf = malloc(AFW_TLS_SCRATCH_SIZE);
		if (!f->buf) {
			e->stats.memory -= AFW_TLS_SCRATCH_SIZE;
			e->stats.bounds++;
			afw_engine_giveup(pol, facts, res, AFW_REASON_TABLE_FULL, AFW_L7_UNKNOWN,
					  "bound: out of memory");
			return afw_engine_decide(e, f, res, 0, now, false, decided);
		}
		f->bufsize = AFW_TLS_SCRATCH_SIZE;
		afw_quic_flow_init(&f->quic, f->buf, AFW_TLS_SCRATCH_SIZE);
	}
	idle = f->idle;
	if (afw_engine_udp(e, pol, f, p, res, facts))
		return afw_engine_decide(e, f, res, 0, now, false, decided);
	/*
	 * Datagrams that bring no new CRYPTO bytes (PINGs, copies, what
	 * afwd cannot decrypt) are the client's to send at will: past the
	 * bound they decide nothing, which would let a later hello through
	 * unread, and pass no more, for each is a datagram its server acts
	 * on, unjudged. The flow's CRYPTO bytes are still read.
	 */
	if (f->idle != idle && f->idle > e->o.max_packets) {
		e->stats.discarded++;
		return AFW_PASS_DROP;
	}
	return AFW_PASS_ACCEPT;
}

/*
 * A client Initial of another connection on a decided UDP flow: the flow
 * is analyzed again, from this packet on, and decided anew (the kernel
 * sends afwd every client Initial of an installed UDP flow). @f is the kept
 * flow, or NULL for a record, which @d is then and goes.
 */
static enum afw_pass afw_engine_reopen(struct afw_engine *e, const struct afw_policy *pol,
				       struct afw_eflow *f, struct afw_drec *d,
				       const struct afw_pkt *p, int side, uint64_t now,
				       struct afw_result *res, bool *decided)
{
	struct afw_facts facts;
	struct afw_drec old;

	if (d) {
		old = *d;
		afw_rec_unlink(e, d);
		free(d);
		f = afw_engine_make_room(e) ?
		    afw_flow_new(e, &old.key, old.hash, old.client, AFW_EF_ANALYZING,
				 now + e->o.max_ns) : NULL;
		if (!f) {
			e->stats.table_full++;
			afw_rec_add(e, &old);
			return (enum afw_pass)old.pass;
		}
	} else {
		if (!afw_engine_make_room(e)) {
			e->stats.table_full++;
			return (enum afw_pass)f->pass;
		}
		e->stats.memory -= f->bufsize;
		free(f->buf);
		f->buf = NULL;
		f->bufsize = 0;
		memset(&f->quic, 0, sizeof(f->quic));
		f->install = false;
		afw_flow_arm(e, f, AFW_EF_ANALYZING, now + e->o.max_ns);
		e->stats.flows++;
	}
	f->packets = 1;
	f->idle = 0;
	afw_flow_orient(f, p, side);
	afw_engine_describe(e, f, res, &facts);
	return afw_engine_udp_packet(e, pol, f, p, side, now, res, &facts, decided);
}

/*
 * An Initial of an allowed QUIC connection (@p): its CRYPTO bytes must
 * agree with those judged, and every hello after the judged one (after a
 * HelloRetryRequest) must name what it named. True when the connection is
 * decided anew (@res), as evasion, malformed or a bound.
 */
static bool afw_engine_quic_more(struct afw_engine *e, const struct afw_policy *pol,
				 struct afw_eflow *f, const struct afw_pkt *p,
				 struct afw_result *res)
{
	struct afw_quic_flow *q = &f->quic;
	struct afw_tls_hello first, next;
	enum afw_reason reason = AFW_REASON_NONE;
	const char *why = "";
	struct afw_facts facts;
	size_t off, need;
	uint8_t *n;
	int ret;

	ret = afw_quic_feed_more(e->quic, q, p->payload, p->payload_len, &why);
	if (ret == -EMSGSIZE && afw_engine_mem_take(e, f, q->cap - q->size)) {
		n = realloc(f->buf, q->cap);
		if (!n) {
			e->stats.memory -= q->cap - q->size;
		} else {
			f->buf = q->buf = n;
			f->bufsize = (uint32_t)q->cap;
			q->size = q->cap;
			ret = afw_quic_feed_more(e->quic, q, p->payload, p->payload_len, &why);
		}
	}
	if (ret == -EILSEQ) {
		reason = AFW_REASON_EVASION;
	} else if (ret == -ENOBUFS || ret == -EMSGSIZE) {
		reason = AFW_REASON_BOUND;
		why = "bound: a second ClientHello past what afwd reads";
	} else if (ret >= 0 && q->nranges && !q->ranges[0].start &&
		   afw_tls_parse_handshake(q->buf, q->hello_len, &first) == AFW_TLS_OK) {
		for (off = q->hello_len; q->ranges[0].end >= off + 4; off += need) {
			need = 4 + ((size_t)q->buf[off + 1] << 16 | (size_t)q->buf[off + 2] << 8 |
				    q->buf[off + 3]);
			if (q->buf[off] != 1 || need > q->cap - off) {
				reason = AFW_REASON_MALFORMED;
				why = "malformed: after the ClientHello, CRYPTO data that is no hello";
				break;
			}
			if (q->ranges[0].end < off + need)
				break;
			if (afw_tls_parse_handshake(q->buf + off, need, &next) != AFW_TLS_OK) {
				reason = AFW_REASON_MALFORMED;
				why = "malformed: a second ClientHello";
				break;
			}
			if (!afw_tls_same(&first, &next)) {
				reason = AFW_REASON_EVASION;
				why = "evasion: a second ClientHello names another server or protocols";
				break;
			}
		}
	}
	if (reason == AFW_REASON_NONE)
		return false;
	afw_engine_describe(e, f, res, &facts);
	if (reason == AFW_REASON_EVASION)
		e->stats.evasions++;
	afw_engine_giveup(pol, &facts, res, reason, AFW_L7_QUIC, why);
	e->stats.decided[res->decision]++;
	f->decision = (uint8_t)res->decision;
	f->pass = afw_decision_later(res->decision);
	f->install = false;
	return true;
}

/*
 * A packet of a flow kept whole after its decision: a QUIC flow's Initials
 * of another connection reopen it; an HTTP follower reads each request;
 * a new SYN starts over.
 */
static enum afw_pass afw_engine_kept(struct afw_engine *e, const struct afw_policy *pol,
				     struct afw_eflow *f, const struct afw_pkt *p, int side,
				     uint64_t now, struct afw_result *res, bool *decided)
{
	struct afw_facts facts;
	bool client = side == f->client;
	uint8_t fl = p->tcp_flags;
	enum afw_pass pass;

	e->stats.decided_packets++;
	afw_flow_arm(e, f, AFW_EF_KEPT, now + AFW_KEEP_NS);
	if (f->key.proto == IPPROTO_UDP) {
		enum afw_quic_kind kind = client && p->has_l4 && p->payload_len ?
			afw_quic_classify(e->quic, &f->quic, p->payload, p->payload_len) :
			AFW_QUIC_OTHER;

		if (kind == AFW_QUIC_NEW)
			return afw_engine_reopen(e, pol, f, NULL, p, side, now, res, decided);
		if (kind == AFW_QUIC_SAME && f->pass == AFW_PASS_ACCEPT && f->quic.buf &&
		    afw_engine_quic_more(e, pol, f, p, res)) {
			res->packets = ++f->packets;
			*decided = true;
			return afw_decision_pass(res->decision);
		}
	} else if (p->has_l4 && client && (fl & (AFW_TCP_SYN | AFW_TCP_ACK)) == AFW_TCP_SYN) {
		/* A new connection: analyzed from its SYN; this decision waits for its answer. */
		afw_rec_from_flow(f, f->decision, &f->prev_rec);
		f->has_prev = true;
		afw_engine_restart(e, f, p, side, now);
		afw_engine_describe(e, f, res, &facts);
		return afw_engine_tcp_client(e, pol, f, p, side, now, res, &facts, decided);
	} else if (p->has_l4 && client) {
		bool content = p->payload_len || (fl & (AFW_TCP_FIN | AFW_TCP_URG));

		/* What the server would discard must not be read as a request. */
		if (content && afw_tcp_check(&f->tcp, p))
			return AFW_PASS_DROP;
		afw_tcp_client(&f->tcp, p);
		if (f->following) {
			pass = afw_engine_follow(e, pol, f, p, res, decided);
			if (*decided) {
				f->decision = (uint8_t)res->decision;
				f->install = false;
			}
			if (*decided || pass != AFW_PASS_ACCEPT)
				return pass;
		}
	} else if (p->has_l4) {
		afw_tcp_server(&f->tcp, p);
	}
	if (f->install) {
		f->install = false;
		afw_describe(&f->key, f->client, false, 0, res, &facts);
		res->decision = f->decision;
		res->quiet = true;
		*decided = true;
		return f->decision == AFW_DECIDE_REJECT ? AFW_PASS_REJECT : (enum afw_pass)f->pass;
	}
	return (enum afw_pass)f->pass;
}

bool afw_engine_headers_enough(struct afw_engine *e, const struct afw_pkt *p)
{
	struct afw_pkt_key k;
	struct afw_drec *d;
	uint32_t hash;

	if (p->proto != IPPROTO_TCP || !p->has_l4 || (p->frag & AFW_PKT_FRAG))
		return false;
	afw_pkt_flow_key(p, &k);
	hash = afw_pkt_key_hash(&k, e->seed);
	if (afw_flow_find(e, &k, hash))
		return false;
	d = afw_rec_find(e, &k, hash);
	return d && !(d->flags & (AFW_DR_UNCONFIRMED | AFW_DR_PER_PACKET | AFW_DR_INSTALL));
}

bool afw_engine_head_takes(struct afw_engine *e, const struct afw_pkt *p)
{
	return !p->cut || (!(p->tcp_flags & AFW_TCP_SYN) && afw_engine_headers_enough(e, p));
}

static bool afw_engine_settled(struct afw_engine *e, const struct afw_policy *pol,
			       const struct afw_pkt_key *k, uint32_t hash, int client,
			       const struct afw_pkt *p, bool has_uid, uint32_t uid,
			       struct afw_result *res, bool *decided);

/* A packet of a decided flow. */
static enum afw_pass afw_engine_late(struct afw_engine *e, const struct afw_policy *pol,
				     struct afw_drec *d, const struct afw_pkt *p, int side,
				     bool has_uid, uint32_t uid, uint64_t now,
				     struct afw_result *res, bool *decided)
{
	struct afw_facts facts;
	struct afw_eflow *f;
	bool client = side == d->client;
	uint8_t fl = p->tcp_flags;
	uint32_t end;

	e->stats.decided_packets++;
	afw_rec_lru_del(e, d);
	afw_rec_lru_add(e, d);
	if (d->key.proto == IPPROTO_UDP && client && p->has_l4 && p->payload_len &&
	    !(d->flags & AFW_DR_PER_PACKET)) {
		static const struct afw_quic_flow none;

		/* No connection kept to compare with: any client Initial is a new one. */
		if (afw_quic_classify(e->quic, &none, p->payload, p->payload_len) == AFW_QUIC_NEW)
			return afw_engine_reopen(e, pol, NULL, d, p, side, now, res, decided);
	}
	if (d->key.proto == IPPROTO_TCP && p->has_l4 && !(d->flags & AFW_DR_PER_PACKET)) {
		if (client && (fl & (AFW_TCP_SYN | AFW_TCP_ACK)) == AFW_TCP_SYN &&
		    !((d->flags & AFW_DR_HAS_ISN) && p->tcp_seq == d->c_isn &&
		      !(d->flags & (AFW_DR_ESTABLISHED | AFW_DR_CLOSED)))) {
			/*
			 * A new connection: analyzed from its SYN. The record goes with
			 * it until the server answers the SYN, for the old connection's
			 * packets should that one still be alive.
			 */
			struct afw_drec old = *d;

			afw_rec_unlink(e, d);
			free(d);
			/* Decided by its ends, as the first one could have been. */
			if (afw_engine_settled(e, pol, &old.key, old.hash, side, p, has_uid, uid, res,
					       decided)) {
				e->stats.restarts++;
				return afw_decision_pass(res->decision);
			}
			f = afw_engine_make_room(e) ?
			    afw_flow_new(e, &old.key, old.hash, side, AFW_EF_HANDSHAKE,
					 now + AFW_ENGINE_WAIT_NS) : NULL;
			if (!f) {
				afw_rec_add(e, &old);
				return (enum afw_pass)old.pass;
			}
			f->has_prev = true;
			f->prev_rec = old;
			f->has_uid = has_uid;
			f->uid = uid;
			f->packets = 1;
			afw_flow_orient(f, p, side);
			afw_tcp_syn(&f->tcp, p);
			afw_engine_stream_init(e, f);
			e->stats.restarts++;
			afw_engine_describe(e, f, res, &facts);
			return afw_engine_tcp_client(e, pol, f, p, side, now, res, &facts, decided);
		}
		/*
		 * The server answering a SYN this record is not about: a new
		 * connection it took (the SYN's own analysis having been given
		 * up, say). It is analyzed from here, never passed as the old.
		 */
		if (!client && (fl & (AFW_TCP_SYN | AFW_TCP_ACK)) == (AFW_TCP_SYN | AFW_TCP_ACK) &&
		    !((d->flags & AFW_DR_HAS_ISN) && p->tcp_ack == d->c_isn + 1)) {
			struct afw_drec old = *d;

			afw_rec_unlink(e, d);
			free(d);
			f = afw_engine_make_room(e) ?
			    afw_flow_new(e, &old.key, old.hash, old.client, AFW_EF_HANDSHAKE,
					 now + AFW_ENGINE_WAIT_NS) : NULL;
			if (!f) {
				afw_rec_add(e, &old);
				return AFW_PASS_DROP;
			}
			f->tcp.c_isn = p->tcp_ack - 1;
			f->packets = 1;
			afw_flow_orient(f, p, side);
			afw_engine_stream_init(e, f);
			e->stats.restarts++;
			afw_engine_describe(e, f, res, &facts);
			return afw_engine_tcp_server(e, pol, f, p, now, res, &facts, decided);
		}
		if (client && (fl & AFW_TCP_ACK))
			d->flags |= AFW_DR_ESTABLISHED;
		if (fl & (AFW_TCP_FIN | AFW_TCP_RST))
			d->flags |= AFW_DR_CLOSED;
		if (d->flags & AFW_DR_UNCONFIRMED) {
			if (client) {
				end = p->tcp_seq + (uint32_t)p->payload_len + ((fl & AFW_TCP_FIN) ? 1 : 0);
				if ((fl & AFW_TCP_URG) ||
				    (p->payload_len && afw_seq_before(p->tcp_seq, d->guard_hi) &&
				     afw_seq_after(end, d->guard_lo)))
					return AFW_PASS_DROP;
				if (afw_seq_after(end, d->c_end) &&
				    afw_seq_before(end, d->c_end + (1u << 30)))
					d->c_end = end;
			} else if ((fl & AFW_TCP_ACK) && !(fl & (AFW_TCP_RST | AFW_TCP_SYN)) &&
				   !afw_seq_before(p->tcp_ack, d->guard_hi) &&
				   !afw_seq_after(p->tcp_ack, d->c_end) &&
				   (!(d->flags & AFW_DR_READ_PAST) || p->payload_len) &&
				   afw_tcp_server_side(d->c_indev, d->s_indev, p) &&
				   (p->csum != AFW_CSUM_CHECK || afw_pkt_csum_ok(p))) {
				d->flags &= (uint8_t)~AFW_DR_UNCONFIRMED;
				d->flags |= AFW_DR_INSTALL;
			}
		}
	}
	if ((d->flags & (AFW_DR_INSTALL | AFW_DR_UNCONFIRMED | AFW_DR_PER_PACKET)) ==
	    AFW_DR_INSTALL) {
		d->flags &= (uint8_t)~AFW_DR_INSTALL;
		afw_describe(&d->key, d->client, false, 0, res, &facts);
		res->decision = d->decision;
		res->quiet = true;
		*decided = true;
		return d->pass == AFW_PASS_DROP && d->decision == AFW_DECIDE_REJECT ?
		       AFW_PASS_REJECT : (enum afw_pass)d->pass;
	}
	return (enum afw_pass)d->pass;
}

/*
 * A new flow, from its first packet @p (sent by the client when
 * @from_client): what the result and the policy know of it before any byte
 * is read.
 */
static void afw_engine_first(struct afw_engine *e, const struct afw_pkt_key *k, int client,
			     const struct afw_pkt *p, bool from_client, bool has_uid, uint32_t uid,
			     struct afw_result *res, struct afw_facts *facts)
{
	afw_describe(k, client, has_uid, uid, res, facts);
	/* Linux answers an echo whatever its code, and copies the code. */
	if (res->echo)
		res->icmp_code = p->icmp_code;
	facts->owner = afw_engine_owner(e);
	afw_orient(p, from_client, &facts->dir, &facts->iif, &facts->oif);
	res->dir = facts->dir;
	res->iif = facts->iif;
	res->oif = facts->oif;
	res->packets = 1;
}

/*
 * Remembers a flow decided at its first packet @p, so that its later
 * packets, should any come to afwd, meet the same verdict.
 */
static void afw_engine_remember(struct afw_engine *e, const struct afw_pkt_key *k, uint32_t hash,
				int client, const struct afw_pkt *p, enum afw_decision d,
				uint8_t flags)
{
	struct afw_drec rec;

	memset(&rec, 0, sizeof(rec));
	rec.key = *k;
	rec.hash = hash;
	rec.client = (uint8_t)client;
	rec.decision = (uint8_t)d;
	rec.pass = afw_decision_later(d);
	rec.flags = flags;
	if (p->proto == IPPROTO_TCP && p->has_l4) {
		rec.c_isn = p->tcp_seq;
		rec.c_indev = p->indev;
		rec.flags |= AFW_DR_HAS_ISN;
		if ((p->tcp_flags & (AFW_TCP_SYN | AFW_TCP_ACK)) != AFW_TCP_SYN)
			rec.flags |= AFW_DR_ESTABLISHED;
	}
	afw_rec_add(e, &rec);
	e->stats.decided[d]++;
}

/* An ask with nobody to ask: the policy's ask-default, and the reason says so. */
static enum afw_decision afw_engine_nobody_asked(const struct afw_policy *pol,
						 struct afw_result *res)
{
	size_t n = strlen(res->reason);

	snprintf(res->reason + n, sizeof(res->reason) - n, "; nobody to ask: ask-default");
	return afw_policy_ask_default(pol);
}

/* Decided on the spot, from what the first packet shows; remembered. */
static enum afw_pass afw_engine_at_once(struct afw_engine *e, const struct afw_policy *pol,
					const struct afw_pkt_key *k, uint32_t hash, int client,
					const struct afw_pkt *p, bool from_client, bool has_uid,
					uint32_t uid, enum afw_reason reason, const char *why,
					uint8_t flags, struct afw_result *res, bool *decided)
{
	struct afw_facts facts;

	afw_engine_first(e, k, client, p, from_client, has_uid, uid, res, &facts);
	afw_engine_giveup(pol, &facts, res, reason, AFW_L7_UNKNOWN, why);
	afw_engine_remember(e, k, hash, client, p, res->decision, flags);
	*decided = true;
	return afw_decision_pass(res->decision);
}

/*
 * Decided for this packet alone, with nothing to install or mark: an
 * ask has no flow to hold the packet by, so the ask-default decides now.
 * Remembered, so that the same packets later take the answer unlogged,
 * until a reload forgets it (afw_engine_forget_answers()).
 */
static enum afw_pass afw_engine_per_packet(struct afw_engine *e, const struct afw_policy *pol,
					   const struct afw_pkt_key *k, uint32_t hash, int client,
					   const struct afw_pkt *p, bool from_client, bool has_uid,
					   uint32_t uid, enum afw_reason reason, const char *why,
					   struct afw_result *res, bool *decided)
{
	struct afw_facts facts;

	afw_engine_first(e, k, client, p, from_client, has_uid, uid, res, &facts);
	afw_engine_giveup(pol, &facts, res, reason, AFW_L7_UNKNOWN, why);
	if (res->decision == AFW_DECIDE_ASK)
		res->decision = afw_engine_nobody_asked(pol, res);
	afw_engine_remember(e, k, hash, client, p, res->decision, AFW_DR_PER_PACKET);
	res->per_packet = true;
	*decided = true;
	return afw_decision_pass(res->decision);
}

/*
 * A client segment of a TCP flow afwd never saw start (afwd restarted, or
 * the bounds made it forget the flow) that holds a whole ClientHello or
 * HTTP request head at its start. afwd cannot tell the middle of a stream
 * from its start, but the server may well read these bytes first: a
 * hello afwd denied, retransmitted by the client's stack once afwd has
 * forgotten its flow, is one. Where the policy would let the flow through
 * as joined mid-stream, they are read, and the flow refused if the policy
 * refuses what they name. Anything else is decided as joined mid-stream,
 * as before: bytes read at an offset afwd cannot know never allow more
 * than that, and refuse only what it would let through. Nor is a segment
 * read that its server would discard (a checksum, a signature), nor bytes
 * that are not whole.
 */
static bool afw_engine_mid_read(struct afw_engine *e, const struct afw_policy *pol,
				const struct afw_pkt_key *k, uint32_t hash, int client,
				const struct afw_pkt *p, bool has_uid, uint32_t uid,
				struct afw_result *res, bool *decided)
{
	struct afw_http_request req;
	struct afw_tls_hello h;
	struct afw_facts facts;

	if (!p->payload_len || (p->tcp_flags & AFW_TCP_RST) || (p->tcp_opts & AFW_TCPOPT_SIG) ||
	    (p->csum == AFW_CSUM_CHECK && !afw_pkt_csum_ok(p)))
		return false;
	afw_engine_first(e, k, client, p, true, has_uid, uid, res, &facts);
	afw_engine_giveup(pol, &facts, res, AFW_REASON_MID_STREAM, AFW_L7_UNKNOWN, "");
	if (res->decision != AFW_DECIDE_ALLOW && res->decision != AFW_DECIDE_INSPECT)
		return false;
	afw_engine_first(e, k, client, p, true, has_uid, uid, res, &facts);
	if (afw_tls_parse_stream(p->payload, p->payload_len, e->scratch, AFW_ENGINE_MAX_HELLO,
				 &h) == AFW_TLS_OK) {
		afw_engine_hello(e, &h, AFW_JA4_TCP, res, &facts);
		afw_engine_judge(pol, &facts, res, "joined mid-stream: tls");
	} else if (afw_http_parse(p->payload, p->payload_len, &req) == AFW_HTTP_OK) {
		afw_engine_request(&req, res, &facts);
		afw_engine_judge(pol, &facts, res, "joined mid-stream: http");
	} else {
		return false;
	}
	if (res->decision != AFW_DECIDE_DENY && res->decision != AFW_DECIDE_REJECT)
		return false;
	afw_engine_remember(e, k, hash, client, p, res->decision, 0);
	*decided = true;
	return true;
}

/*
 * A new TCP flow, at its client's SYN, that the policy decides by its
 * ends alone (afw_policy_settled()): decided now, unread, and remembered.
 * No analysis slot is taken.
 */
static bool afw_engine_settled(struct afw_engine *e, const struct afw_policy *pol,
			       const struct afw_pkt_key *k, uint32_t hash, int client,
			       const struct afw_pkt *p, bool has_uid, uint32_t uid,
			       struct afw_result *res, bool *decided)
{
	struct afw_policy_match m;
	struct afw_facts facts;

	afw_engine_first(e, k, client, p, true, has_uid, uid, res, &facts);
	if (!afw_policy_settled(pol, &facts, AFW_POLICY_SETTLE_RULES, &m))
		return false;
	res->settled = true;
	res->keyed = m.keyed;
	res->decision = m.verdict;
	res->rule_line = m.line;
	res->is_default = m.is_default;
	afw_result_owner(res, &facts);
	snprintf(res->reason, sizeof(res->reason), m.is_default ?
		 "unread, by its ends: default (line %u)" : "unread, by its ends: policy line %u",
		 m.line);
	afw_engine_remember(e, k, hash, client, p, m.verdict, 0);
	e->stats.settled++;
	*decided = true;
	return true;
}

static enum afw_pass afw_engine_packet_one(struct afw_engine *e, const struct afw_policy *pol,
					   const struct afw_pkt *p, bool has_uid, uint32_t uid,
					   uint64_t now, struct afw_result *res, bool *decided)
{
	const uint8_t synack = AFW_TCP_SYN | AFW_TCP_ACK;
	struct afw_facts facts;
	struct afw_pkt_key k;
	struct afw_eflow *f;
	struct afw_drec *d;
	uint32_t hash;
	int side, client;
	bool own, tcp = p->proto == IPPROTO_TCP && p->has_l4;

	*decided = false;
	e->stats.packets++;
	e->now = now;
	/*
	 * Only the first bytes came (a flow's own queue, afwd's headers
	 * queue): enough for a flow whose headers are all afwd reads, and
	 * nothing to read or judge bytes by for any other, nor in a SYN,
	 * which may start a connection to read. Dropped, TCP sends it again,
	 * whole once its flow is moved back (the caller's part, which checks
	 * first).
	 */
	if (p->cut && ((p->tcp_flags & AFW_TCP_SYN) || !afw_engine_headers_enough(e, p))) {
		e->stats.discarded++;
		return AFW_PASS_DROP;
	}
	/*
	 * A fragment holds part of a datagram that the receiver puts together
	 * before its transport reads it. A host's LOCAL_IN and conntrack do so
	 * before afwd; a router without conntrack, or a raw socket on the
	 * guarded host, hands afwd the pieces. afwd reads no segment in
	 * pieces, and no TCP stack sends them (it sets DF): dropped, the
	 * datagram is never whole.
	 */
	if ((p->frag & AFW_PKT_FRAG) && p->proto == IPPROTO_TCP) {
		e->stats.discarded++;
		return AFW_PASS_DROP;
	}
	side = afw_pkt_flow_key(p, &k);
	hash = afw_pkt_key_hash(&k, e->seed);
	f = afw_flow_find(e, &k, hash);
	/*
	 * The first fragment of a UDP datagram: a flow afwd reads (QUIC, which
	 * may not be fragmented: RFC 9000 14) gets none of it; a decided one
	 * gets its verdict, unread; a new flow that starts so is decided at
	 * once, as undecodable.
	 */
	if ((p->frag & AFW_PKT_FRAG) && p->has_l4 && p->proto == IPPROTO_UDP) {
		if (f) {
			e->stats.discarded++;
			return AFW_PASS_DROP;
		}
		d = afw_rec_find(e, &k, hash);
		if (d) {
			e->stats.decided_packets++;
			return (enum afw_pass)d->pass;
		}
		client = afw_pkt_client_side(p, side);
		return afw_engine_at_once(e, pol, &k, hash, client, p, side == client,
					  has_uid && side == client, uid, AFW_REASON_UNDECODABLE,
					  "a fragment: afwd reads no datagram in pieces", 0, res,
					  decided);
	}
	if (f && f->state == AFW_EF_KEPT)
		return afw_engine_kept(e, pol, f, p, side, now, res, decided);
	if (!f) {
		d = afw_rec_find(e, &k, hash);
		if (d)
			return afw_engine_late(e, pol, d, p, side, has_uid && side == d->client, uid,
					       now, res, decided);
		client = afw_pkt_client_side(p, side);
		own = has_uid && side == client;
		if (!p->has_l4 || (p->proto != IPPROTO_TCP && p->proto != IPPROTO_UDP)) {
			/*
			 * ICMP other than an echo (a later fragment of one
			 * too) has no identifier to keep a flow by: a flow
			 * installed for it would carry all ICMP between the
			 * two hosts, pings either way among it. Each such
			 * packet is answered on its own (the record makes the
			 * next ones cheap, until a reload forgets it); each
			 * ping is a flow of its own.
			 */
			bool icmp = afw_pkt_icmp(p) && (!p->has_l4 || !p->echo);

			if (!icmp)
				return afw_engine_at_once(e, pol, &k, hash, client, p,
							  side == client, own, uid,
							  AFW_REASON_NOT_TLS,
							  "neither TCP nor UDP: nothing to read", 0,
							  res, decided);
			return afw_engine_per_packet(e, pol, &k, hash, client, p, side == client,
						     own, uid, AFW_REASON_NOT_TLS,
						     "neither TCP nor UDP: nothing to read", res,
						     decided);
		}
		/*
		 * A reply to a connection afwd never saw start: its client's
		 * packets were let through before afwd (a rule, an installed
		 * flow). It is not afwd's to judge: passed, and nothing is
		 * installed for it, so that the client's side stays as its rule
		 * left it. Should the client's packets come here, they are judged.
		 */
		if (tcp && !(p->tcp_flags & AFW_TCP_SYN) && side != client) {
			e->stats.replies++;
			return AFW_PASS_ACCEPT;
		}
		/* Without its SYN, a flow's bytes cannot be told from the middle of its stream. */
		if (tcp && !(p->tcp_flags & AFW_TCP_SYN)) {
			if (afw_engine_mid_read(e, pol, &k, hash, client, p, own, uid, res, decided))
				return afw_decision_pass(res->decision);
			return afw_engine_at_once(e, pol, &k, hash, client, p, side == client,
						  own, uid,
						  AFW_REASON_MID_STREAM, "joined mid-stream", 0, res,
						  decided);
		}
		/*
		 * Here a connection starts: its client's SYN (a SYN-ACK is the
		 * server's side). Decided by where it goes, it needs no
		 * reading, and no trip through afwd for the rest of its
		 * handshake. Not a UDP flow: the module sends afwd a QUIC
		 * flow's later Initials, which only a flow that was read can
		 * tell from a new connection's.
		 */
		if (tcp && side == client &&
		    afw_engine_settled(e, pol, &k, hash, client, p, own, uid, res, decided))
			return afw_decision_pass(res->decision);
		if (!afw_engine_make_room(e)) {
			e->stats.table_full++;
			e->stats.bounds++;
			return afw_engine_at_once(e, pol, &k, hash, client, p, side == client,
						  own, uid,
						  AFW_REASON_TABLE_FULL,
						  "bound: too many flows under analysis", 0, res,
						  decided);
		}
		f = afw_flow_new(e, &k, hash, client,
				 tcp ? AFW_EF_HANDSHAKE : AFW_EF_ANALYZING,
				 now + (tcp ? AFW_ENGINE_WAIT_NS : e->o.max_ns));
		if (!f) {
			e->stats.table_full++;
			return afw_engine_at_once(e, pol, &k, hash, client, p, side == client,
						  own, uid,
						  AFW_REASON_TABLE_FULL, "bound: out of memory", 0,
						  res, decided);
		}
		if (tcp) {
			if ((p->tcp_flags & synack) == synack) {
				/* Seen from the server's SYN-ACK: it tells the client's ISN. */
				f->tcp.c_isn = p->tcp_ack - 1;
			} else {
				afw_tcp_syn(&f->tcp, p);
			}
			afw_engine_stream_init(e, f);
		}
	}
	f->packets++;
	/* Who started it, from the first packet, or better, the client's own first. */
	if (f->packets == 1 || (side == f->client && !f->client_seen))
		afw_flow_orient(f, p, side);
	/* The socket owner is known on the client's own host, for its packets. */
	if (has_uid && side == f->client) {
		f->has_uid = true;
		f->uid = uid;
	}
	afw_engine_describe(e, f, res, &facts);
	if (tcp) {
		if (side == f->client)
			return afw_engine_tcp_client(e, pol, f, p, side, now, res, &facts, decided);
		return afw_engine_tcp_server(e, pol, f, p, now, res, &facts, decided);
	}

	return afw_engine_udp_packet(e, pol, f, p, side, now, res, &facts, decided);
}

int afw_result_flow_key(const struct afw_result *res, struct afw_pkt_key *k)
{
	struct afw_pkt p;

	/* A packet the client sent: its ends, ports, and for a ping its echo. */
	memset(&p, 0, sizeof(p));
	p.ipver = res->family == AF_INET6 ? 6 : 4;
	p.proto = res->l4proto;
	p.has_l4 = 1;
	memcpy(p.src, res->src, 16);
	memcpy(p.dst, res->dst, 16);
	p.sport = res->sport;
	p.dport = res->dport;
	p.echo = res->echo;
	p.echo_id = res->icmp_id;
	return afw_pkt_flow_key(&p, k);
}

/* The flow key of @res. */
static uint32_t afw_engine_res_key(struct afw_engine *e, const struct afw_result *res,
				   struct afw_pkt_key *k)
{
	afw_result_flow_key(res, k);
	return afw_pkt_key_hash(k, e->seed);
}

/* The record of the flow of @res, which the engine decided. */
static struct afw_drec *afw_engine_res_rec(struct afw_engine *e, const struct afw_result *res)
{
	struct afw_pkt_key k;
	uint32_t hash = afw_engine_res_key(e, res, &k);

	return afw_rec_find(e, &k, hash);
}

/*
 * A QUIC flow decided ask is kept, not a record, for its later Initials
 * (afw_engine_settle()): it takes the answer @v. False if there is none.
 */
static bool afw_engine_kept_answer(struct afw_engine *e, const struct afw_result *res,
				   enum afw_decision v)
{
	struct afw_pkt_key k;
	uint32_t hash = afw_engine_res_key(e, res, &k);
	struct afw_eflow *f = afw_flow_find(e, &k, hash);

	if (!f || f->state != AFW_EF_KEPT || f->decision != AFW_DECIDE_ASK)
		return false;
	f->decision = (uint8_t)v;
	f->pass = afw_decision_later(v);
	e->stats.decided[v]++;
	return true;
}

/*
 * The asked flow @d is decided as @v at last. An allowed connection read
 * past its handshake is not installed before the server acknowledges the
 * judged bytes, as any allow (afw_engine_decide()): until then its record
 * refuses client segments that touch them. Returns true in that case.
 */
static bool afw_engine_rec_answer(struct afw_engine *e, struct afw_drec *d, enum afw_decision v)
{
	d->decision = (uint8_t)v;
	d->pass = afw_decision_later(v);
	d->flags &= (uint8_t)~AFW_DR_INSTALL;
	e->stats.decided[v]++;
	if (d->pass == AFW_PASS_ACCEPT && d->key.proto == IPPROTO_TCP && d->guard_hi != d->guard_lo) {
		d->flags |= AFW_DR_UNCONFIRMED;
		return true;
	}
	return false;
}

int afw_engine_answer(struct afw_engine *e, const struct afw_result *res, enum afw_decision d)
{
	struct afw_drec *rec = afw_engine_res_rec(e, res);

	if (!rec || rec->decision != AFW_DECIDE_ASK)
		return afw_engine_kept_answer(e, res, d) ? 1 : -1;
	return afw_engine_rec_answer(e, rec, d) ? 0 : 1;
}

/*
 * @res, just decided, says ask: an earlier answer may decide it, or
 * nobody is there to ask, and the ask-default decides. Otherwise it stays
 * ask, for the caller to hold. @timer: no packet is at hand, and the next
 * one installs what is decided.
 */
static enum afw_pass afw_engine_resolve(struct afw_engine *e, const struct afw_policy *pol,
					struct afw_result *res, bool timer)
{
	enum afw_decision d = AFW_DECIDE_ASK;
	struct afw_drec *rec;

	if (e->o.ask)
		d = e->o.ask(e->o.ask_ctx, pol, res);
	else
		d = afw_engine_nobody_asked(pol, res);
	rec = afw_engine_res_rec(e, res);
	if (d == AFW_DECIDE_ASK) {
		if (rec)
			rec->flags &= (uint8_t)~AFW_DR_INSTALL;
		return AFW_PASS_DROP;
	}
	res->decision = d;
	if (rec && afw_engine_rec_answer(e, rec, d))
		res->deferred = true;
	else if (rec && timer)
		rec->flags |= AFW_DR_INSTALL;
	if (!rec && !afw_engine_kept_answer(e, res, d))
		e->stats.decided[d]++;
	return afw_decision_pass(d);
}

enum afw_pass afw_engine_packet(struct afw_engine *e, const struct afw_policy *pol,
				const struct afw_pkt *p, bool has_uid, uint32_t uid,
				uint64_t now, struct afw_result *res, bool *decided)
{
	enum afw_pass pass = afw_engine_packet_one(e, pol, p, has_uid, uid, now, res, decided);

	if (!*decided || res->quiet || res->decision != AFW_DECIDE_ASK)
		return pass;
	return afw_engine_resolve(e, pol, res, false);
}

enum afw_pass afw_engine_undecodable(struct afw_engine *e, const struct afw_policy *pol,
				     const struct afw_pkt *p, bool has_uid, uint32_t uid,
				     uint64_t now, struct afw_result *res, bool *decided)
{
	struct afw_pkt copy = *p;
	struct afw_pkt_key k;
	struct afw_drec *d;
	uint32_t hash;
	int side;

	(void)now;
	*decided = false;
	e->stats.packets++;
	e->stats.malformed++;
	/*
	 * A fragment whose transport header is cut short (RFC 1858): its
	 * receiver reads it once the rest comes, afwd never could.
	 */
	if (p->frag & AFW_PKT_FRAG) {
		e->stats.discarded++;
		return AFW_PASS_DROP;
	}
	/* What the decoder reached: family, addresses, protocol; no ports. */
	copy.has_l4 = 0;
	side = afw_pkt_flow_key(&copy, &k);
	/* Apart from the flows of packets that decode. */
	k.ipver |= 0x80;
	hash = afw_pkt_key_hash(&k, e->seed);
	d = afw_rec_find(e, &k, hash);
	if (d) {
		e->stats.decided_packets++;
		afw_rec_lru_del(e, d);
		afw_rec_lru_add(e, d);
		return (enum afw_pass)d->pass;
	}
	return afw_engine_per_packet(e, pol, &k, hash, side, &copy, true, has_uid, uid,
				     AFW_REASON_UNDECODABLE, p->reason ? p->reason : "undecodable",
				     res, decided);
}

/* A decision the timer made, to @fn: an ask is resolved first, if it can be. */
static void afw_engine_timed(struct afw_engine *e, const struct afw_policy *pol,
			     struct afw_result *res, afw_result_fn fn, void *data)
{
	if (res->decision == AFW_DECIDE_ASK)
		afw_engine_resolve(e, pol, res, true);
	fn(res, data);
}

/* A flow under analysis decided by time (@why), as reason timeout, to @fn. */
static void afw_engine_timeout(struct afw_engine *e, const struct afw_policy *pol,
			       struct afw_eflow *f, const char *why, uint64_t now,
			       afw_result_fn fn, void *data)
{
	struct afw_facts facts;
	struct afw_result res;
	bool final;

	e->stats.bounds++;
	afw_engine_describe(e, f, &res, &facts);
	afw_engine_giveup(pol, &facts, &res, AFW_REASON_TIMEOUT, AFW_L7_UNKNOWN, why);
	afw_engine_decide(e, f, &res, f->key.proto == IPPROTO_TCP ? afw_engine_app_len(f) : 0,
			  now, true, &final);
	/* An allow still to be confirmed is logged when it is. */
	if (final)
		afw_engine_timed(e, pol, &res, fn, data);
}

void afw_engine_expire(struct afw_engine *e, const struct afw_policy *pol, uint64_t now, bool all,
		       afw_result_fn fn, void *data)
{
	struct afw_facts facts;
	struct afw_result res;
	struct afw_eflow *f;

	e->now = now;
	/*
	 * A SYN the server never answered: forgotten, as if never seen. A
	 * capture's end still reports it, as what it is.
	 */
	while ((f = e->lists[AFW_EF_HANDSHAKE].head) && (all || f->deadline <= now)) {
		/* The server ignored the new SYN: the old connection, unread, is decided now. */
		if (f->has_prev && (f->prev_rec.flags & AFW_DR_OPEN)) {
			afw_engine_describe(e, f, &res, &facts);
			afw_engine_giveup(pol, &facts, &res, AFW_REASON_EVASION, AFW_L7_UNKNOWN,
					  "evasion: a new SYN the server did not answer, in a "
					  "connection under analysis");
			/* An old connection, running already: not held for a person. */
			if (res.decision == AFW_DECIDE_ASK)
				res.decision = afw_policy_ask_default(pol);
			f->prev_rec.decision = (uint8_t)res.decision;
			f->prev_rec.pass = afw_decision_later(res.decision);
			e->stats.decided[res.decision]++;
			e->stats.evasions++;
			afw_engine_restore(e, f);
			fn(&res, data);
			continue;
		}
		if (!all || f->has_prev) {
			afw_engine_restore(e, f);
			continue;
		}
		afw_engine_describe(e, f, &res, &facts);
		afw_engine_giveup(pol, &facts, &res, AFW_REASON_TIMEOUT, AFW_L7_UNKNOWN,
				  "end of capture in the handshake");
		afw_engine_settle(e, f, &res, true);
		afw_engine_timed(e, pol, &res, fn, data);
	}
	while ((f = e->lists[AFW_EF_ANALYZING].head) && (all || f->deadline <= now)) {
		/*
		 * Only the server's side came here (the flow was seen from its
		 * SYN-ACK): replies to a connection let through before afwd.
		 * Forgotten, never judged: a verdict would cut the client's side too.
		 */
		if (f->key.proto == IPPROTO_TCP && !f->client_seen) {
			e->stats.replies++;
			afw_engine_restore(e, f);
			continue;
		}
		if (!all && !afw_engine_time_decides(f)) {
			e->stats.stalled++;
			afw_flow_arm(e, f, AFW_EF_STALLED, UINT64_MAX);
			continue;
		}
		afw_engine_timeout(e, pol, f, all ? "end of capture before a decision" :
					    f->tcp.flags & AFW_TCP_C_FIN ?
					    "the client closed without a first message" :
					    "the server spoke first, the client nothing within "
					    "the analysis time", now, fn, data);
	}
	/* A capture's end: what never came is reported as such. */
	while (all && (f = e->lists[AFW_EF_STALLED].head))
		afw_engine_timeout(e, pol, f, "end of capture before a decision", now, fn, data);
	while ((f = e->lists[AFW_EF_CONFIRMING].head) && (all || f->deadline <= now)) {
		res = *f->res;
		afw_engine_unconfirmed(e, f, &res);
		afw_engine_timed(e, pol, &res, fn, data);
	}
	while ((f = e->lists[AFW_EF_KEPT].head) && !all && f->deadline <= now)
		afw_engine_unkeep(e, f);
}

uint64_t afw_engine_next_deadline(const struct afw_engine *e)
{
	uint64_t t = UINT64_MAX;
	unsigned int i;

	for (i = 0; i < __AFW_EF_MAX; i++)
		if (e->lists[i].head && e->lists[i].head->deadline < t)
			t = e->lists[i].head->deadline;
	return t;
}

const struct afw_engine_stats *afw_engine_stats(const struct afw_engine *e)
{
	return &e->stats;
}

unsigned int afw_engine_flows(const struct afw_engine *e)
{
	return e->lists[AFW_EF_HANDSHAKE].n + e->lists[AFW_EF_ANALYZING].n +
	       e->lists[AFW_EF_CONFIRMING].n + e->lists[AFW_EF_STALLED].n;
}

unsigned int afw_engine_confirming(const struct afw_engine *e)
{
	return e->lists[AFW_EF_CONFIRMING].n - e->kconfirming;
}

void afw_engine_kernel_confirm(struct afw_engine *e, bool on)
{
	e->kernel_confirm = on;
}

const char *afw_pass_name(enum afw_pass pass)
{
	static const char *const names[] = { "accept", "drop", "reject" };

	return (unsigned int)pass < 3 ? names[pass] : "?";
}

const char *afw_l7_name(enum afw_l7 l7)
{
	static const char *const names[] = { "unknown", "tls", "quic", "http", "dns" };

	return (unsigned int)l7 <= AFW_L7_MAX ? names[l7] : "?";
}
