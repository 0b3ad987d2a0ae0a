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

#include "engine.h"
#include "kernel.h"
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
	uint16_t queue_first;
	uint16_t queue_count;
	struct afw_queue_opts queue;
	struct afw_engine_opts engine;
	enum afw_module_mode module;
	uint32_t flow_timeout;		/* seconds for installed flows; 0: module's */
	uint32_t mark_base;		/* without the module: marks BASE+1..3 */
	uint64_t gather_ns;		/* under load, the longest a packet waits */
	bool log_json;
};

/* Marks set on a decided flow's packets when the module is not used. */
#define AFW_MARK_ALLOW	1
#define AFW_MARK_DENY	2
#define AFW_MARK_REJECT	3
#define AFW_MARK_MASK	0xff

struct afw_worker_snapshot {
	struct afw_queue_stats queue;
	struct afw_engine_stats engine;
	struct afw_kern_stats kern;
	unsigned int analyzing;
};

struct afw_daemon;

struct afw_worker {
	struct afw_daemon *d;
	uint16_t qnum;
	pthread_t thread;
	bool started;
	int wake_fd;			/* eventfd: stop, or a new policy */
	struct afw_queue *q;
	struct afw_kern *kern;		/* NULL without the module */
	struct afw_engine *engine;
	atomic_uint_fast64_t seen_gen;	/* the policy generation it last used */
	pthread_mutex_t lock;		/* guards snap */
	struct afw_worker_snapshot snap;
};

struct afw_daemon {
	const struct afw_daemon_config *cfg;
	bool use_module;
	/* Readers load it once per batch; see afw_daemon_set_policy(). */
	_Atomic(struct afw_policy *) policy;
	atomic_uint_fast64_t policy_gen;
	atomic_bool stop;
	pthread_mutex_t log_lock;	/* one decision line at a time */
	unsigned int nworkers;
	struct afw_worker *workers;
};

int afw_worker_start(struct afw_worker *w, char *err, size_t errlen);
void afw_worker_wake(struct afw_worker *w);
void afw_worker_join(struct afw_worker *w);
void afw_worker_snapshot(struct afw_worker *w, struct afw_worker_snapshot *s);

/*
 * Publishes @p to every worker and frees the policy it replaces once no
 * worker can still be using it. Main thread only.
 */
void afw_daemon_set_policy(struct afw_daemon *d, struct afw_policy *p);

/* Writes one decision record to the log (stderr). */
void afw_daemon_log(struct afw_daemon *d, const struct afw_result *r);

#endif /* AFW_DAEMON_H */
