/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_FLOWS_H
#define _AFW_FLOWS_H

#include <linux/atomic.h>
#include <linux/rhashtable-types.h>
#include <linux/siphash.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <uapi/linux/afw.h>

#include "tuple.h"

struct afw_net;
struct netlink_ext_ack;
struct netlink_callback;
struct sk_buff;

/*
 * Both directions of a flow share one key: the endpoint that sorts lower
 * is side 0 (a), the other side 1 (b). An ICMP or ICMPv6 echo exchange is
 * a flow of its own: @pa and @pb both hold its identifier, and @echo says
 * which side sent the requests, so that a request from the other side, or
 * a reply from this one, is not part of it.
 */
struct afw_flow_key {
	__be32 a[4];
	__be32 b[4];
	u16 pa;
	u16 pb;
	u8 family;
	u8 proto;
	u8 echo;			/* AFW_FLOW_ECHO_*, 0: not an echo */
	u8 pad;
} __aligned(8);	/* compared as five words */

/* afw_flow_key.echo: the side that sends the echo requests. */
enum {
	AFW_FLOW_ECHO_A = 1,
	AFW_FLOW_ECHO_B,
};

/* afw_flow.state bits; only ever set, never cleared, but LISTED and OWN_SYN. */
enum {
	AFW_FLOW_SEEN,			/* + side: a packet from it passed */
	AFW_FLOW_TRACKED = 2,		/* + side: nxt[side] holds its sequence */
	AFW_FLOW_ACKED = 4,		/* + side: ack[side] holds its last ack */
	AFW_FLOW_FIN = 6,		/* + side: it sent a FIN that passed */
	AFW_FLOW_CLOSING = 8,		/* FIN both ways, or an in-window RST */
	AFW_FLOW_ASSURED,		/* SEEN both ways: never evicted */
	AFW_FLOW_LIVE,			/* in the table; eviction may take it */
	AFW_FLOW_LISTED,		/* on afw_flows.unassured, under lru_lock */
	AFW_FLOW_STARTED,		/* its connection began before the flow */
	AFW_FLOW_OWN_SYN,		/* + side: all it sent was the flow's SYN */
	AFW_FLOW_SYMMETRIC = 15,	/* both sides are one: a host to itself */
};

/*
 * One installed flow, at most 128 bytes: max_flows of them may live in
 * every namespace. Lookups read the first cache line; packets of the flow
 * write only the second, so a busy flow does not slow lookups of the
 * others that share its bucket.
 */
struct afw_flow {
	struct rhash_head node;
	struct afw_flow_key key;
	u32 timeout;			/* idle jiffies */
	u32 rule_id;			/* AFW_FLOW_ORIGIN_RULE: the rule */
	u8 verdict;			/* AFW_VERDICT_* */
	u8 origin;			/* AFW_FLOW_ORIGIN_* */
	u8 initiator;			/* the side that started it */
	bool own_queue;			/* inspect: to @queue, not the fan-out */
	u16 queue;

	unsigned long expires ____cacheline_aligned;	/* jiffies */
	unsigned long state;		/* AFW_FLOW_* bits */
	atomic64_t packets;
	atomic64_t bytes;
	u32 nxt[2];			/* TCP: highest seq + len each side sent */
	/*
	 * TCP: the last ack each side sent; while all a side sent is its
	 * SYN (OWN_SYN), which carries no ack, that SYN's sequence number.
	 */
	u32 ack[2];
	/* The list only while unassured and in the table, then the free. */
	union {
		struct list_head lru;
		struct rcu_head rcu;
	};
};

/*
 * What happened to flows since the last counter reset. Inserts come from
 * control requests and, for accept rules, from packets; so these are
 * atomic rather than under a lock.
 */
struct afw_flow_events {
	atomic64_t inserted;	/* inserts that took, replacements included */
	atomic64_t expired;	/* idle for their whole timeout */
	atomic64_t closed;	/* ran out their closing time */
	atomic64_t evicted;	/* pushed out by an insert into a full table */
	atomic64_t refused;	/* inserts refused: full of assured flows */
	atomic64_t restarted;	/* ended by a new connection on their 5-tuple */
	atomic64_t by_rule;	/* inserted by accept rules */
};

/* The same, read out for STATS_GET. */
struct afw_flow_counts {
	u64 inserted, expired, closed, evicted, refused, restarted, by_rule;
};

struct afw_flows {
	struct rhashtable ht;
	atomic_t count;
	atomic_t rule_flows;		/* of them, accept rules' */
	/* Bumped by every insert and removal; flags dumps that race them. */
	atomic_t gen;
	struct afw_flow_events events;
	/* Eviction candidates, oldest first. */
	spinlock_t lru_lock;
	struct list_head unassured;
	/* The collector: a walk resumed from run to run. */
	struct delayed_work gc;
	struct rhashtable_iter gc_iter;
	bool gc_walking;
	/*
	 * When this walk and the one before began; where in the walk's
	 * order it begins telling flows their counts, where it is, where it
	 * stopped telling (0: it did not), and how many it told
	 * (afw_flow_tell_counts()). The collector's alone.
	 */
	unsigned long gc_start, gc_prev_start;
	unsigned int gc_skip, gc_pos, gc_stop, gc_told;
	bool ready;
	/*
	 * The tick in which eviction last found nothing: inserts in the same
	 * tick are refused at once. An equality, not a time_before(): a stale
	 * tick never comes back as a future one, even where jiffies wraps.
	 */
	unsigned long full_tick;
};

/* What the flow cache reads of a packet beyond the classifier's tuple. */
struct afw_pkt {
	u32 seq;
	u32 ack;
	u32 len;			/* TCP payload bytes */
	u8 tcp_flags;			/* TCPHDR_*; 0 unless TCP with ports */
	u8 icmp_error;			/* @quoted is the flow an ICMP error quotes */
	u8 echo;			/* AFW_PKT_ECHO_*: an echo request or reply */
	u16 echo_id;			/* and its identifier */
	u8 nd;				/* ICMPv6 neighbour discovery or MLD */
	int l4off;			/* where the L4 header starts */
	struct afw_flow_key quoted;
};

/* A flow to insert; @first, for a rule's flow, is the packet that made it. */
struct afw_flow_new {
	struct afw_flow_key key;
	u8 initiator;
	u8 verdict;
	u8 origin;
	u32 rule_id;
	u32 timeout_s;			/* 0: the protocol's default */
	u32 flags;			/* AFW_FLOW_F_* */
	bool own_queue;			/* AFW_FLOW_A_QUEUE given */
	u16 queue;
	const struct afw_tuple *first_t;
	const struct afw_pkt *first;
};

/* afw_pkt.echo */
enum {
	AFW_PKT_ECHO_REQUEST = 1,
	AFW_PKT_ECHO_REPLY,
};

/* Fills @k from @t; returns the side @t's source is on. */
u8 afw_flow_key_from_tuple(const struct afw_tuple *t, struct afw_flow_key *k);
/*
 * Fills @k with the echo exchange of @t's addresses and @id, @t a request
 * (AFW_PKT_ECHO_REQUEST) or a reply; returns the side @t's source is on.
 */
u8 afw_flow_key_echo(const struct afw_tuple *t, u16 id, u8 echo, struct afw_flow_key *k);

/*
 * Every packet of a known flow pays for this hash: an IPv4 key's addresses
 * are one word of four (the other three are zero), so it hashes the 16
 * bytes that can differ, half the rounds of all 40, with @seed folded into
 * the word that holds 16 bits. An IPv6 key mixes @seed into a copy of @key.
 */
static inline u32 afw_flow_key_hash(const struct afw_flow_key *k, u32 seed,
				    const hsiphash_key_t *key)
{
	hsiphash_key_t mixed;

	if (k->family == AFW_FAMILY_IPV4)
		return hsiphash_4u32((__force u32)k->a[0], (__force u32)k->b[0],
				     (u32)k->pa << 16 | k->pb,
				     ((u32)k->echo << 16 | (u32)k->family << 8 | k->proto) ^ seed,
				     key);
	mixed = *key;
	mixed.key[0] ^= seed;
	return hsiphash(k, sizeof(*k), &mixed);
}

/* Under rcu_read_lock(): the live flow of @k, or NULL. */
struct afw_flow *afw_flow_lookup(struct afw_flows *fl, const struct afw_flow_key *k);

/*
 * Notes a packet of @f from @side. Returns the AFW_VERDICT_* it gets, or
 * -ENOENT when the packet starts a new connection on the flow's 5-tuple,
 * which then goes on as if the flow were not there. @skb is read for a
 * QUIC Initial on a UDP flow.
 */
int afw_flow_packet(struct afw_flows *fl, struct afw_flow *f, u8 side,
		    const struct afw_tuple *t, const struct afw_pkt *p,
		    const struct sk_buff *skb, unsigned int len);

/* Any context: sleeps only with GFP_KERNEL. */
int afw_flow_insert(struct afw_net *an, const struct afw_flow_new *req, gfp_t gfp,
		    struct netlink_ext_ack *extack);
int afw_flow_remove(struct afw_net *an, const struct afw_flow_key *k);
/* Process context. */
void afw_flows_flush(struct afw_net *an);
/*
 * Removes the flows of accept rules that @rule_keeps (given a rule id)
 * no longer keeps: a rule's flows go with it.
 */
void afw_flows_prune_rules(struct afw_net *an, bool (*rule_keeps)(u32 rule_id, const void *ctx),
			   const void *ctx);
void afw_flows_read(struct afw_flows *fl, struct afw_flow_counts *c);
void afw_flows_reset(struct afw_flows *fl);

/* The flow dump: FLOW_GET's start, dumpit and done. */
int afw_flows_dump_start(struct netlink_callback *cb);
int afw_flows_dump(struct sk_buff *skb, struct netlink_callback *cb,
		   int (*put)(struct sk_buff *skb, struct netlink_callback *cb,
			      const struct afw_flow *f));
int afw_flows_dump_done(struct netlink_callback *cb);

int afw_flows_init(struct afw_net *an);
void afw_flows_exit(struct afw_net *an);

int afw_flows_module_init(void);
void afw_flows_module_exit(void);

#endif /* _AFW_FLOWS_H */
