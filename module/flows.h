/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_FLOWS_H
#define _AFW_FLOWS_H

#include <linux/atomic.h>
#include <linux/rculist.h>
#include <linux/workqueue.h>

#include "tuple.h"

struct afw_net;
struct netlink_ext_ack;

/*
 * Both directions of a flow share one key: the endpoint that sorts lower
 * comes first.
 */
struct afw_flow_key {
	__be32 a[4];
	__be32 b[4];
	u16 pa;
	u16 pb;
	u8 family;
	u8 proto;
	u8 pad[2];
};

/* Kept to 128 bytes or less: max_flows of them live in every namespace. */
struct afw_flow {
	struct hlist_node node;
	struct afw_flow_key key;
	unsigned long expires;		/* jiffies; written locklessly */
	u32 timeout;			/* idle jiffies */
	u8 verdict;			/* AFW_VERDICT_* */
	u8 closing;			/* saw a FIN or RST */
	atomic64_t packets;
	atomic64_t bytes;
	struct rcu_head rcu;
};

/*
 * A flow that has seen fewer packets than this may be evicted to make room
 * for a new one; it never got going, so a flood of such flows cannot push
 * out the established ones.
 */
#define AFW_FLOW_ESTABLISHED 4

/*
 * What happened to flows since the last counter reset. Only control
 * requests and the collector change the table, all under afw_net.lock, so
 * plain counters under that lock suffice.
 */
struct afw_flow_events {
	u64 inserted;		/* FLOW_NEW that took, replacements included */
	u64 expired;		/* idle for their whole timeout */
	u64 closed;		/* ran out their closing time after a FIN or RST */
	u64 evicted;		/* pushed out by an insert into a full table */
	u64 refused;		/* inserts refused: full of established flows */
};

struct afw_flows {
	struct hlist_head __rcu *buckets;	/* allocated on first insert */
	u32 hmask;
	u32 count;
	u32 seed;
	u32 gc_next;				/* next bucket to sweep */
	struct afw_flow_events events;		/* under afw_net.lock */
	struct delayed_work gc;
};

void afw_flow_key_from_tuple(const struct afw_tuple *t, struct afw_flow_key *k);
u32 afw_flow_hash(const struct afw_flow_key *k, u32 seed);

/* Under rcu_read_lock(): the live flow of @k, or NULL. */
struct afw_flow *afw_flow_lookup(struct afw_flows *fl, const struct afw_flow_key *k);

/* Notes a packet of @f; @fin_rst shortens its life to the closing timeout. */
void afw_flow_seen(struct afw_flow *f, unsigned int len, bool fin_rst);

/* These need afw_net.lock. */
int afw_flow_insert(struct afw_net *an, const struct afw_flow_key *k, u8 verdict,
		    u32 timeout_s, struct netlink_ext_ack *extack);
int afw_flow_remove(struct afw_net *an, const struct afw_flow_key *k);
void afw_flows_flush(struct afw_net *an);

void afw_flows_init(struct afw_net *an);
void afw_flows_exit(struct afw_net *an);

int afw_flows_module_init(void);
void afw_flows_module_exit(void);

#endif /* _AFW_FLOWS_H */
