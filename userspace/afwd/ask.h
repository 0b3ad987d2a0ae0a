/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ask mode: a flow the policy says "ask" about waits while a person
 * decides. The parts:
 *  - the board, shared by the workers and the main thread under one
 *    mutex: the questions waiting (prompts), the answers given for a
 *    while (until a program exits, for N minutes), and who listens;
 *  - a worker holds the deciding packet of each of its flows asked about
 *    in its NFQUEUE queue (never a copy), drops the flow's later packets,
 *    and applies an answer, or the policy's ask-default when the time is
 *    up, at its local work;
 *  - the main thread serves "ask" requests on the control socket: lists,
 *    answers, and the watchers that keep a connection open to hear of each
 *    new question. While no watcher listens, ask means the ask-default.
 * An answer "always" becomes a rule of the answers file, which the policy
 * consults where it says ask (afw_policy_set_answers()), through the same
 * reload as any policy change.
 *
 * Nothing here is on the path of a packet of a flow not asked about: a
 * worker with no question waiting looks at nothing.
 */
#ifndef AFW_ASK_H
#define AFW_ASK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "engine.h"
#include "queue.h"

/* The packaged service's --answers; afwd makes the folder, its own, at start. */
#define AFW_ANSWERS_DEFAULT "/var/lib/afw/answers/answers.conf"

/* Questions waiting at once, all workers together; past it, the ask-default. */
#define AFW_ASK_MAX		256u
/* Answers for a while (exit, minutes), kept at once; past it, the oldest goes. */
#define AFW_ASK_KEPT_MAX	1024u
/* Connections listening for questions. */
#define AFW_ASK_WATCHERS	8u
/* The longest "minutes N". */
#define AFW_ASK_MINUTES_MAX	(7u * 24u * 60u)

enum afw_ask_scope {
	AFW_ASK_ONCE,		/* this flow */
	AFW_ASK_EXIT,		/* the program's flows until that process exits */
	AFW_ASK_MINUTES,	/* for N minutes */
	AFW_ASK_ALWAYS,		/* a rule of the answers file */
};

/* A question: a flow held until it is answered, or its time is up. */
struct afw_ask_prompt {
	uint64_t id;
	unsigned int worker;		/* the index of the worker that holds it */
	uint64_t born_ns, deadline_ns;	/* CLOCK_MONOTONIC */
	struct timespec born;		/* CLOCK_REALTIME, for people */
	struct afw_result res;		/* the flow, its facts, its owner */
	/* The worker's alone. */
	struct afw_qpkt held;		/* the deciding packet, still in the queue */
	bool has_held;
	bool established;		/* decided past the client's SYN */
	uint32_t dropped;		/* later packets of the flow, dropped meanwhile */
	/* Set by the main thread, taken by the worker. */
	bool answered;
	enum afw_decision answer;
	char how[96];			/* "answered allow, until pid 123 exits", ... */
};

/* An answer given for a while, which decides asked flows it covers. */
struct afw_ask_kept {
	uint64_t id;			/* the prompt's */
	enum afw_decision d;
	enum afw_ask_scope scope;
	char exe[256];			/* "" for any program (flows without one) */
	char host[AFW_RESULT_HOST];	/* "" for any host */
	bool by_dst;			/* no host: the destination instead */
	int family;
	uint8_t proto;
	uint8_t dst[16];
	uint16_t dport;
	uint32_t pid;			/* EXIT: that process */
	int pidfd;			/* EXIT: readable once it has exited; -1 */
	uint64_t until_ns;		/* MINUTES: CLOCK_MONOTONIC */
};

struct afw_ask_stats {
	uint64_t asked;			/* questions made */
	uint64_t answered;		/* answered by a person */
	uint64_t timed_out;		/* the ask-default after the timeout */
	uint64_t unheard;		/* the ask-default: nobody listening */
	uint64_t full;			/* the ask-default: AFW_ASK_MAX waiting */
	uint64_t by_kept;		/* decided by an answer given for a while */
	uint64_t dropped;		/* later packets of held flows, dropped */
};

struct afw_ask {
	pthread_mutex_t lock;		/* guards all below but listeners */
	uint64_t next_id;
	struct afw_ask_prompt *prompts[AFW_ASK_MAX];
	unsigned int nprompts;
	struct afw_ask_kept *kept;
	unsigned int nkept;
	struct afw_ask_stats stats;
	atomic_uint listeners;		/* watchers connected */
	/* Written by workers when a prompt comes or goes: the main thread tells the watchers. */
	int notify_fd;
	char *news;			/* lines for the watchers, under lock */
	size_t news_len;
};

int afw_ask_init(struct afw_ask *a, char *err, size_t errlen);
void afw_ask_destroy(struct afw_ask *a);

/*
 * Worker side, called with the lock NOT held. Whether an answer kept for
 * a while decides @res (its owner filled in if known): the decision, with
 * the answer named in res->reason; else AFW_DECIDE_ASK.
 */
enum afw_decision afw_ask_kept_match(struct afw_ask *a, struct afw_result *res, uint64_t now);

/*
 * Adds a question for @res held by worker @worker, due at @deadline_ns;
 * NULL when AFW_ASK_MAX wait already (counted in stats.full). The caller
 * fills the worker's fields of the prompt it gets; the board owns it.
 */
struct afw_ask_prompt *afw_ask_add(struct afw_ask *a, unsigned int worker,
				   const struct afw_result *res, uint64_t now,
				   uint64_t deadline_ns);
/*
 * The worker's prompt of @p's flow (either direction), or NULL. Takes the
 * lock: called only while the worker has prompts.
 */
struct afw_ask_prompt *afw_ask_find(struct afw_ask *a, unsigned int worker,
				    const struct afw_pkt *p);
/*
 * The worker's next prompt that is answered, or due by @now (then marked
 * answered with the ask-default @dflt, "timed out"); removed from the board,
 * for the caller to apply and free. NULL when none.
 */
struct afw_ask_prompt *afw_ask_take(struct afw_ask *a, unsigned int worker, uint64_t now,
				    enum afw_decision dflt);
/* The earliest deadline of the worker's prompts, UINT64_MAX for none. */
uint64_t afw_ask_next_due(struct afw_ask *a, unsigned int worker);
/* Counts under the lock. */
void afw_ask_count(struct afw_ask *a, uint64_t *field, uint64_t n);

/*
 * Main thread. Parses and applies "answer ID allow|deny|reject
 * [once|exit|minutes N|always] [host|any]": the prompt is marked answered
 * (the caller wakes its worker), a kept answer added; for "always", @rule
 * gets the answers file's line to add. Returns the worker's index, or -1
 * with @msg saying why.
 */
int afw_ask_answer(struct afw_ask *a, const char *args, char *rule, size_t rulelen,
		   char *msg, size_t msglen);
/* Drops kept answers whose time or process is over. */
void afw_ask_expire(struct afw_ask *a, uint64_t now);
/* Whether any kept answer waits for its time: the main thread's timer. */
bool afw_ask_has_kept(struct afw_ask *a);
/* The questions waiting, one JSON object a line. */
void afw_ask_list(struct afw_ask *a, FILE *out);
/* One question as JSON ("event":"ask"), or its end ("event":"done"). */
void afw_ask_prompt_json(FILE *out, const struct afw_ask_prompt *pr, bool done);
/*
 * Queues @pr's line (a question, or its end) for the watchers; false when
 * nobody listens. The caller wakes the main thread with afw_ask_kick(),
 * once a round.
 */
bool afw_ask_tell(struct afw_ask *a, const struct afw_ask_prompt *pr, bool done);
/* A decision, as the log's JSON record, for the watchers ("event":"decision"). */
bool afw_ask_tell_decision(struct afw_ask *a, const struct afw_result *res);
void afw_ask_kick(struct afw_ask *a);
/* Takes the lines queued for the watchers (free() it); NULL if none. */
char *afw_ask_take_news(struct afw_ask *a, size_t *len);

/* The answers file's rule for @k (an ALWAYS answer), in the policy syntax. */
int afw_ask_rule_line(const struct afw_ask_kept *k, char *buf, size_t len);

#endif /* AFW_ASK_H */
