/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A worker's ledger: a compact, bounded record of each flow it decided and
 * handed on (to the module, or to conntrack as a mark). A record keeps the
 * flow, its verdict, and the facts the policy read (the host, ALPN values,
 * JA4, l7, reason, uid; the port and address come from the flow), so that
 *  - a policy reload judges every recorded flow again, and the ones whose
 *    verdict changed are updated where they are installed;
 *  - a flow the module refused, or lost (flushed, unloaded and loaded
 *    again), is installed again with a bounded backoff, and until then
 *    afwd answers its packets itself, by the recorded verdict.
 * The ledger holds at most opts.max records; when full, the oldest goes and
 * the ledger says it lost one (afw_ledger_lost()), since that flow may
 * still be installed with no record to judge it by.
 *
 * One thread owns a ledger; nothing here locks or does I/O.
 */
#ifndef AFW_LEDGER_H
#define AFW_LEDGER_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "facts.h"
#include "flow.h"
#include "pkt.h"
#include "policy.h"

struct afw_ledger_opts {
	unsigned int max;		/* records kept */
	uint64_t idle_ns;		/* a flow silent this long is over */
	uint64_t retry_min_ns;		/* the first retry after a refusal */
	uint64_t retry_max_ns;		/* the backoff doubles up to this */
};

enum afw_lrec_state {
	AFW_LREC_SENT,		/* given to the module; no refusal seen */
	AFW_LREC_WAIT,		/* not in the module: to send at retry_at */
	AFW_LREC_MARKED,	/* no module: the verdict is a conntrack mark */
};

struct afw_lrec;

struct afw_ledger_stats {
	uint64_t recorded;		/* records made */
	uint64_t evicted;		/* dropped to make room: unrecorded flows may remain */
	uint64_t refused;		/* installs the module refused */
	uint64_t retries;		/* installs sent again */
	uint64_t given_up;		/* records of flows gone idle while waiting */
	uint64_t answered;		/* packets afwd answered by a record */
	uint64_t rejudged;		/* records judged again by a reload */
	uint64_t changed;		/* of those, verdicts that changed */
};

struct afw_ledger;

struct afw_ledger *afw_ledger_new(const struct afw_ledger_opts *o);
void afw_ledger_free(struct afw_ledger *l);
unsigned int afw_ledger_count(const struct afw_ledger *l);
const struct afw_ledger_stats *afw_ledger_stats(const struct afw_ledger *l);

/*
 * Records @res's flow, decision and facts (the facts as afw_facts_from_result()
 * rebuilds them) in @state; replaces an older record of the same flow. The
 * oldest record goes first when the ledger is full. NULL when out of memory.
 */
struct afw_lrec *afw_ledger_put(struct afw_ledger *l, const struct afw_result *res,
				enum afw_lrec_state state, uint64_t now);

/* The record of @p's flow, either direction; NULL if none. */
struct afw_lrec *afw_ledger_find_pkt(struct afw_ledger *l, const struct afw_pkt *p);
/* The record of flow @f (as afw_ledger_flow() gives it, either direction). */
struct afw_lrec *afw_ledger_find(struct afw_ledger *l, const struct afw_flow_spec *f);
void afw_ledger_drop(struct afw_ledger *l, struct afw_lrec *r);

/*
 * The flow, client to server, with the verdict the module takes for the
 * decision, and AFW_FLOW_F_ESTABLISHED for a TCP connection that was past
 * its SYN when it was decided (afw_lrec_set_established()).
 */
void afw_ledger_flow(const struct afw_lrec *r, struct afw_flow_spec *f);
/*
 * The same for a flow afwd keeps no record of: from @src:@sport (client)
 * to @dst:@dport, 16-byte addresses of IP version @ipver.
 */
void afw_ledger_spec(struct afw_flow_spec *f, int ipver, uint8_t proto, const uint8_t *src,
		     uint16_t sport, const uint8_t *dst, uint16_t dport, enum afw_decision d,
		     bool established);
/*
 * Makes @f, so filled, the flow of one ping: @echo is what its client
 * sends (AFW_PKT_ECHO_REQUEST or _REPLY, as in struct afw_result; NONE
 * leaves @f as it is), with its identifier and code. The module's flow
 * names the pinger as its source.
 */
void afw_ledger_spec_echo(struct afw_flow_spec *f, uint8_t echo, uint16_t id, uint8_t code);
/* The verdict (AFW_VERDICT_*) a flow decided @d is installed with. */
uint8_t afw_ledger_verdict(enum afw_decision d);
/*
 * The connection was past the client's SYN when it was decided: the
 * module is to take any SYN on its ports for a new connection. A flow
 * decided at its SYN is installed ahead of its connection, and that SYN,
 * sent again, still belongs to it.
 */
void afw_lrec_set_established(struct afw_lrec *r);
/*
 * An inspected flow whose headers are all afwd reads (afw_engine_headers_enough()):
 * installed with the worker's headers queue as its own.
 */
void afw_lrec_set_head(struct afw_lrec *r, bool head);
bool afw_lrec_head(const struct afw_lrec *r);
/* The facts, pointing into @r: valid while @r is. */
void afw_ledger_facts(const struct afw_lrec *r, struct afw_facts *f);
enum afw_decision afw_lrec_decision(const struct afw_lrec *r);
enum afw_lrec_state afw_lrec_state(const struct afw_lrec *r);
/* Decided by the policy; false for a flow a reader refused, which keeps its deny. */
bool afw_lrec_judged(const struct afw_lrec *r);
unsigned int afw_lrec_tries(const struct afw_lrec *r);
uint64_t afw_lrec_retry_at(const struct afw_lrec *r);

/* What a packet of a recorded flow that the module queued to afwd calls for. */
enum afw_lrec_use {
	AFW_LREC_ANSWER,	/* the module does not hold the flow: the record answers */
	AFW_LREC_ENGINE,	/* the engine's, the record left as it is */
	AFW_LREC_RESTART,	/* a new connection on the flow's ports: the record goes */
};

/*
 * Which, for @p, a packet of @r's flow. The module sends some packets of
 * flows it holds on purpose, and those are not for the record to answer:
 * every packet of an inspected flow; a client's QUIC Initial on an allowed
 * UDP flow (afw_quic_requeued()), which may open another connection on
 * the same ports, for the engine to tell from the allowed one; a TCP SYN
 * (without ACK), which ended the flow in the module, is a new connection
 * there and here. A denied flow's packets never come back on purpose.
 */
enum afw_lrec_use afw_ledger_use(const struct afw_lrec *r, const struct afw_pkt *p);

/*
 * A packet of the flow came to afwd at @now, which the module would not
 * have sent if it held the flow: a sign of life, and, for a record given
 * to the module more than @resend_ns ago, a sign that the module does not
 * have it any more: it is sent again. Returns the record's decision.
 */
enum afw_decision afw_ledger_answered(struct afw_ledger *l, struct afw_lrec *r, uint64_t now,
				      uint64_t resend_ns);

/* States: given to the module; refused by it; to be sent at @at. */
void afw_ledger_sent(struct afw_ledger *l, struct afw_lrec *r, uint64_t now);
void afw_ledger_refused(struct afw_ledger *l, struct afw_lrec *r, uint64_t now);
void afw_ledger_wait(struct afw_ledger *l, struct afw_lrec *r, uint64_t at);
/* Every record to be sent at @now, each counted alive from @now (the module is back). */
void afw_ledger_wait_all(struct afw_ledger *l, uint64_t now);

/*
 * Calls @send for every waiting record whose time has come; @send returns
 * whether it went to the module (afw_ledger_sent() is then done here), else
 * the record waits the backoff again. A waiting record idle for idle_ns is
 * dropped instead: its flow is over. Returns how many were sent.
 */
unsigned int afw_ledger_due(struct afw_ledger *l, uint64_t now,
			    bool (*send)(struct afw_lrec *r, void *data), void *data);

/* When afw_ledger_due() next has work; UINT64_MAX when nothing waits. */
uint64_t afw_ledger_next_due(const struct afw_ledger *l);

/* The wait after the @tries-th refusal in a row: retry_min_ns doubling, at most retry_max_ns. */
uint64_t afw_ledger_backoff_ns(const struct afw_ledger_opts *o, unsigned int tries);

/*
 * Where afw_ledger_rejudge() asks who started a flow, for rules that test
 * it (facts.h); unset, such rules never match.
 */
void afw_ledger_set_owner(struct afw_ledger *l,
			  int (*fetch)(void *ctx, const struct afw_facts *f,
				       struct afw_owner_info *out),
			  void *ctx);

/*
 * Judges every record by @pol again and calls @changed for each whose
 * decision changed (the record holds the new one; @old is the former).
 * Flows denied without the policy (a reader refused them) keep their
 * verdict. Returns how many changed.
 */
unsigned int afw_ledger_rejudge(struct afw_ledger *l, const struct afw_policy *pol,
				void (*changed)(struct afw_lrec *r, enum afw_decision old,
						void *data), void *data);

/* Calls @fn for every record, oldest first. */
void afw_ledger_each(struct afw_ledger *l, void (*fn)(struct afw_lrec *r, void *data), void *data);

/* Whether a record was evicted since the last afw_ledger_clear_lost(). */
bool afw_ledger_lost(const struct afw_ledger *l);
void afw_ledger_clear_lost(struct afw_ledger *l);

/*
 * The facts of a decided flow, as the policy read them, rebuilt from the
 * decision's record (@res); they point into @res. Every field
 * the policy reads must come through here: a new one in facts.h needs its
 * line, and a place in the ledger's record (ledger.c, afw_lrec_pack()).
 */
void afw_facts_from_result(const struct afw_result *res, struct afw_facts *f);

#endif /* AFW_LEDGER_H */
