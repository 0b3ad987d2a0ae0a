/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The running daemon: its configuration, the state its threads share, and
 * one worker thread per queue.
 */
#ifndef AFW_DAEMON_H
#define AFW_DAEMON_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ask.h"
#include "conntrack.h"
#include "engine.h"
#include "kernel.h"
#include "ledger.h"
#include "log.h"
#include "policy.h"
#include "queue.h"

enum afw_module_mode {
	AFW_MODULE_AUTO,		/* the module if loaded, else marks */
	AFW_MODULE_ON,			/* the module, or fail to start */
	AFW_MODULE_OFF,			/* marks for iptables/nftables */
};

struct afw_daemon_config {
	const char *policy_path;
	const char *ctl_path;		/* control socket */
	const char *user;		/* runs as this user once set up */
	uint16_t queue_first;
	uint16_t queue_count;
	/*
	 * The headers queues, one per queue (afw_queue_open()): -1 for none,
	 * AFW_HEAD_AUTO for each queue's number with its top bit flipped,
	 * else the first of a range.
	 */
	int head_first;
	struct afw_queue_opts queue;
	struct afw_engine_opts engine;
	enum afw_module_mode module;
	uint32_t flow_timeout;		/* seconds for installed flows; 0: module's */
	uint32_t mark_base;		/* without the module: marks BASE+1..3 */
	unsigned int max_records;	/* ledger records per queue */
	uint64_t gather_ns;		/* under load, the longest a packet waits */
	bool no_learn;			/* --no-learn: never let the module keep a decision */
	bool handshakes_queued;		/* --handshakes queued: never ask to be told them */
	bool log_json;
	bool fail_open_given;		/* --fail-open: else the module's "fail" */
	const char *events_path;	/* the event log's database, or NULL */
	unsigned int events_days;	/* kept this long */
	unsigned int events_mb;		/* and within this size */
	const char *answers_path;	/* "always" answers, a policy file of afwd's; or NULL */
};

#define AFW_HEAD_AUTO (-2)

/* Marks set on a decided flow's packets when the module is not used. */
#define AFW_MARK_ALLOW	1
#define AFW_MARK_DENY	2
#define AFW_MARK_REJECT	3
#define AFW_MARK_MASK	0xff

/*
 * When afwd sets no timeout, a flow the module does not hold is over once
 * this idle: the module's default for the protocols but TCP and UDP, which
 * have their own there (tcp_timeout, udp_timeout).
 */
#define AFW_MODULE_FLOW_TIMEOUT 300u
/* Refused installs are tried again after 100 ms, doubling up to 10 s. */
#define AFW_RETRY_MIN_NS 100000000ull
#define AFW_RETRY_MAX_NS 10000000000ull
/* A packet of a flow installed this long ago means the module lost it. */
#define AFW_RESEND_NS 1000000000ull

struct afw_worker_snapshot {
	struct afw_queue_stats queue;
	struct afw_engine_stats engine;
	struct afw_kern_stats kern;
	struct afw_ledger_stats ledger;
	struct afw_ct_stats ct;
	unsigned int analyzing;
	unsigned int records;
	bool module_up;
	uint64_t head_packets;		/* from the headers queue */
	uint64_t head_back;		/* flows it gave back to whole packets */
	uint64_t owners_asked, owners_found, owner_syscalls;
	uint64_t told_bad;
	bool tell;			/* the module tells its handshakes */
};

struct afw_daemon;

struct afw_worker {
	struct afw_daemon *d;
	uint16_t qnum;
	int head;			/* its headers queue, bound; -1 for none */
	uint64_t head_packets;		/* packets from it */
	uint64_t head_back;		/* flows it gave back to whole packets */
	pthread_t thread;
	bool started;
	int wake_fd;			/* eventfd: stop, or a new policy */
	struct afw_queue *q;
	struct afw_kern *kern;		/* the module's socket; NULL with --module off */
	struct afw_kern_ring ring;	/* its batches go with the queue's calls */
	/* Asks the module who started a flow (OWNER_GET); NULL with --module off. */
	struct afw_nl *owner_nl;
	struct afw_owner_buf *owner_buf;	/* its answers' strings */
	uint64_t owners_asked, owners_found;
	uint64_t told_bad;		/* learned flows told with packets afwd cannot read */
	/*
	 * Whether the module tells this worker its new connections' bare
	 * handshakes, as last asked; whether copies told before it last
	 * stopped may still wait in its socket; whether the module refused to
	 * (then never asked again), and whether the queue is to be served
	 * again.
	 */
	bool tell;
	bool tell_draining;
	bool tell_refused;
	bool serve_again;
	uint64_t kern_rest_until;	/* the module's socket rests until then; 0: watched */
	int kern_bit;			/* its watch on the queue's wait; -1 for none */
	unsigned int asking;		/* its questions on the ask board */
	bool told;			/* lines for the watchers this round */
	bool owner_warned;		/* a failed question was said, once */
	struct afw_ct *ct;		/* with marks: conntrack, for reloads */
	struct afw_ledger *ledger;	/* the flows it handed on */
	uint64_t ledger_gen;		/* the policy generation the ledger was judged by */
	uint64_t resync_seen;		/* the last resync request it served */
	atomic_uint_fast64_t resync_done;	/* the same, for the main thread */
	atomic_bool lost;		/* its ledger dropped a record: for the main thread */
	uint64_t flows_seen;		/* the last listing request it served */
	atomic_uint_fast64_t flows_done;	/* the same, for the main thread */
	char *flows_text;		/* its listing, under lock until the main thread takes it */
	size_t flows_len;
	uint64_t refusals;		/* since the last line that told of them */
	uint64_t refusal_said;
	struct afw_engine *engine;
	struct afw_log_ring *log;	/* its own: never waits */
	atomic_uint_fast64_t seen_gen;	/* the policy generation it last used */
	pthread_mutex_t lock;		/* guards snap and flows_text */
	struct afw_worker_snapshot snap;
};

struct afw_daemon {
	const struct afw_daemon_config *cfg;
	/*
	 * Marks are set when afwd started without the module (or with
	 * --module off): the firewall's chain that queues packets to it then
	 * needs them, even after the module appears.
	 */
	bool marks;
	struct afw_kern *kern;		/* the main thread's: FLOW_FLUSH; NULL with --module off */
	atomic_bool module_up;		/* as the workers last saw it: said once per change */
	atomic_uint_fast64_t resync_gen;	/* every worker installs every record again */
	atomic_uint reload_changed;	/* verdicts changed by the reload under way */
	atomic_uint_fast64_t flows_gen;	/* a listing of every worker's flows is asked for */
	bool marks_lost;		/* flows marked before their record went: for good */
	/* Readers load it once per batch; see afw_daemon_set_policy(). */
	_Atomic(struct afw_policy *) policy;
	atomic_uint_fast64_t policy_gen;
	atomic_bool stop;
	struct afw_log *log;		/* rings: one per worker, then the main thread's */
	struct afw_log_ring *log_ring;	/* the main thread's, once the writer runs */
	unsigned int nworkers;
	struct afw_worker *workers;
	struct afw_ask ask;		/* ask mode's questions and answers */
};

/* Opens the worker's queue and sockets; the thread starts later. */
int afw_worker_setup(struct afw_worker *w, char *err, size_t errlen);
int afw_worker_start(struct afw_worker *w, char *err, size_t errlen);
void afw_worker_wake(struct afw_worker *w);
/* Waits for the thread to end; afw_worker_close() then frees the rest. */
void afw_worker_join(struct afw_worker *w);
void afw_worker_close(struct afw_worker *w);
void afw_worker_snapshot(struct afw_worker *w, struct afw_worker_snapshot *s);

/*
 * Publishes @p to every worker and frees the policy it replaces once no
 * worker can still be using it. Main thread only.
 */
void afw_daemon_set_policy(struct afw_daemon *d, struct afw_policy *p);

/*
 * A line of the main thread's: to the log writer once it runs, else
 * straight to stderr (at start, before any packet).
 */
void afw_daemon_say(struct afw_daemon *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* AFW_DAEMON_H */
