/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_NETNS_H
#define _AFW_NETNS_H

#include <linux/mutex.h>
#include <linux/siphash.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "classify.h"
#include "flows.h"
#include "learn.h"
#include "owner.h"
#include "stats.h"

struct nf_hook_ops;

/*
 * Settings of one namespace. Never changed in place: a change publishes a
 * new copy, so a packet reads one consistent set (the queue number and
 * count of one setting, never one of each).
 */
struct afw_config {
	u8 unknown;		/* AFW_UNKNOWN_* */
	u8 fail_open;
	u8 enabled;		/* 0: the hooks pass everything at once */
	u8 owners;		/* 1: record who starts each flow (owner.c) */
	u16 queue_num;
	u16 queue_count;
	u32 max_flows;
	u32 flow_timeout;	/* seconds, protocols but TCP and UDP */
	u32 tcp_timeout;
	u32 udp_timeout;
	struct rcu_head rcu;
};

/* Everything afw keeps for one network namespace. */
struct afw_net {
	/* The namespace this is the state of. */
	possible_net_t net;
	/* Read locklessly by the packet path; lives as long as the netns. */
	struct afw_pcpu_stats __percpu *stats;

	/*
	 * Serialises every control-plane change in this namespace. The
	 * packet path never takes it.
	 */
	struct mutex lock;

	/* Counter values at the last reset; status reports the difference. */
	struct afw_counts counts_base;

	/* Replaced whole under @lock; NULL when there are no rules. */
	struct afw_ruleset __rcu *ruleset;
	/* Bumped by every change, under @lock; read by dumps without it. */
	u64 ruleset_gen;

	/* The ruleset replace transaction in progress, under @lock. */
	struct afw_stage *stage;

	/* Replaced whole under @lock, never NULL. */
	struct afw_config __rcu *cfg;
	struct afw_flows flows;
	/* Who started the flows, kept beside them (owner.c). */
	struct afw_owners owners;

	/*
	 * The hooks (and IP defragmentation) are registered the first time
	 * the namespace is configured, under @lock: a namespace that never
	 * uses afw never pays for it. Read without the lock by status.
	 */
	bool active;

	/*
	 * This namespace's copy of the hook ops, whose @priv is this
	 * structure: the hook finds its namespace without net_generic()'s
	 * lookup. Set with @active; freed in afw_net_exit(), a grace period
	 * after the hooks went (a hook dump may still read the old array).
	 */
	struct nf_hook_ops *hook_ops;

	/*
	 * Set once, before the hooks go (at unload, or at the namespace's
	 * end): from then on a packet that would be queued meets the fail
	 * setting at once (see afw_net_flush()). Read locklessly by the
	 * packet path.
	 */
	bool draining;

	/*
	 * Keys the queue fan-out hash: a sender who knew it could choose
	 * ports that all land on one queue. Set once at creation.
	 */
	hsiphash_key_t queue_key;
	/* The queues analyzers serve (serve.h); NULL for none. */
	struct afw_serve __rcu *serve;
	/* afwd's learned decisions (learn.c); written under @lock. */
	struct afw_learn learn;
	/*
	 * Bare handshakes told to the socket serving their queue and
	 * passed, and those queued because the tell failed (hook.c).
	 */
	atomic64_t handshakes_told;
	atomic64_t handshakes_queued;
};

/* Defaults of new namespaces, and the bounds requests may set. */
#define AFW_FLOW_TIMEOUT_DEFAULT	300
#define AFW_TCP_TIMEOUT_DEFAULT		86400
#define AFW_UDP_TIMEOUT_DEFAULT		120
#define AFW_TIMEOUT_LIMIT		86400
#define AFW_MAX_FLOWS_LIMIT		BIT(24)

extern unsigned int afw_default_max_flows;

extern unsigned int afw_net_id;

static inline struct afw_net *afw_net(const struct net *net)
{
	return net_generic(net, afw_net_id);
}

/* For writers holding afw_net.lock. */
static inline struct afw_config *afw_config_locked(struct afw_net *an)
{
	return rcu_dereference_protected(an->cfg, lockdep_is_held(&an->lock));
}

/* Publishes @cfg in place of the current settings; needs afw_net.lock. */
void afw_config_publish(struct afw_net *an, struct afw_config *cfg);

/*
 * Registers the namespace's hooks if they are not yet; needs afw_net.lock.
 * Every request that configures anything calls it once nothing else it
 * does can fail, right before its change is published: a refused request
 * leaves no hooks. (A FLOW_NEW that then finds no memory is the one
 * exception: the hooks stay.)
 */
int afw_net_activate(struct net *net, struct netlink_ext_ack *extack);

int afw_netns_init(void);
void afw_netns_exit(void);

#endif /* _AFW_NETNS_H */
