/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_LEARN_H
#define _AFW_LEARN_H

#include <linux/atomic.h>
#include <linux/rhashtable-types.h>
#include <uapi/linux/afw.h>

struct afw_net;
struct afw_tuple;
struct netlink_callback;
struct netlink_ext_ack;
struct sk_buff;

/*
 * What a learned decision is kept by: afwd decided a flow by these alone
 * (AFW_FLOW_F_LEARN), so it holds for every new flow that shares them.
 * Every byte is written, the padding too: the key is hashed whole.
 */
struct afw_learn_key {
	__be32 daddr[4];
	u16 dport;		/* host byte order, as the tuple has it */
	u8 family;
	u8 proto;
	u8 dir;
	u8 pad[3];
};

/* Sockets a namespace's learned decisions are told apart by, before a close walks them all. */
#define AFW_LEARN_TEACHERS 16

struct afw_learned {
	struct rhash_head node;
	struct afw_learn_key key;
	u32 portid;		/* the socket that taught it, and is told */
	u32 line;		/* afwd's policy line, told back as the flow's */
	u8 verdict;		/* AFW_VERDICT_ACCEPT, _DROP or _REJECT */
	atomic64_t hits;	/* flows it decided */
	struct rcu_head rcu;
};

/*
 * A namespace's learned decisions. Writers hold afw_net.lock; the packet
 * path reads under RCU. At most AFW_LEARN_MAX entries.
 */
struct afw_learn {
	struct rhashtable ht;
	atomic_t count;
	/*
	 * The sockets that taught the entries (afwd's workers), so that the
	 * close of any other generic netlink socket in the namespace costs
	 * no walk: read locklessly by the release notifier. More of them
	 * than fit: @crowded, and every close walks.
	 */
	u32 teachers[AFW_LEARN_TEACHERS];
	bool crowded;
	atomic64_t full;	/* decisions not learned for want of room */
	atomic64_t flows;	/* flows decided by learned entries */
	atomic64_t untold;	/* of those, the ones afwd was not told of */
};

int afw_learn_init(struct afw_learn *l);
/* At the namespace's end, no packet or request left to use it. */
void afw_learn_exit(struct afw_learn *l);

void afw_learn_key_from_tuple(const struct afw_tuple *t, struct afw_learn_key *k);

/* Needs afw_net.lock; replaces an entry of the same key. */
int afw_learn_add(struct afw_net *an, const struct afw_learn_key *k, u32 portid, u32 line,
		  u8 verdict, struct netlink_ext_ack *extack);
/* Needs afw_net.lock: @portid's entries, or every one for 0. */
void afw_learn_forget(struct afw_net *an, u32 portid);

/* Under rcu_read_lock(). */
struct afw_learned *afw_learn_lookup(struct afw_learn *l, const struct afw_learn_key *k);

static inline bool afw_learn_any(struct afw_learn *l)
{
	return atomic_read(&l->count) != 0;
}

/* Whether socket @portid may have taught some of @l's entries; no lock needed. */
bool afw_learn_taught_by(struct afw_learn *l, u32 portid);

int afw_learn_dump(struct sk_buff *skb, struct netlink_callback *cb,
		   int (*fill)(struct sk_buff *skb, struct netlink_callback *cb,
			       const struct afw_learned *e));

#endif /* _AFW_LEARN_H */
