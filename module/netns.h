/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_NETNS_H
#define _AFW_NETNS_H

#include <linux/mutex.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "classify.h"
#include "flows.h"
#include "stats.h"

/*
 * Settings of one namespace. Written under afw_net.lock, field by field
 * with WRITE_ONCE; the packet path reads each with READ_ONCE.
 */
struct afw_config {
	u8 unknown;		/* AFW_UNKNOWN_* */
	u8 fail_open;
	u16 queue_num;
	u16 queue_count;
	u32 max_flows;
	u32 flow_timeout;	/* seconds */
};

/* Everything afw keeps for one network namespace. */
struct afw_net {
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

	struct afw_config cfg;
	struct afw_flows flows;

	/*
	 * Seeds the queue fan-out hash: a sender who knew it could choose
	 * ports that all land on one queue. Set once at creation.
	 */
	u32 queue_seed;
};

extern unsigned int afw_default_max_flows;

extern unsigned int afw_net_id;

static inline struct afw_net *afw_net(const struct net *net)
{
	return net_generic(net, afw_net_id);
}

int afw_netns_init(void);
void afw_netns_exit(void);

#endif /* _AFW_NETNS_H */
