/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_FLOWS_H
#define _AFW_FLOWS_H

#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rhashtable-types.h>
#include <linux/siphash.h>
#include <linux/spinlock.h>
#include <linux/string.h>
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

/*
 * afw_flow.state bits; only ever set, never cleared, but LISTED, OWN_SYN,
 * UNCONFIRMED and CONFIRMING.
 */
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
	AFW_FLOW_UNCONFIRMED,		/* waits for @confirm; cleared once, never set again */
	AFW_FLOW_CONFIRMING,		/* a packet is confirming it: the only one */
};

/*
 * What confirms a flow installed unconfirmed (AFW_FLOW_A_CONFIRM): an ACK
 * from the side that did not start it, from @ack to @end, coming in on
 * @iif. It lives where the sequence numbers will: until the flow is
 * confirmed no packet passes by it, so none is tracked.
 */
struct afw_flow_confirm {
	u32 ack;
	u32 end;
	u32 iif;
	u32 unused;
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
	union {
		struct {
			u32 nxt[2];	/* TCP: highest seq + len each side sent */
			/*
			 * TCP: the last ack each side sent; while all a
			 * side sent is its SYN (OWN_SYN), which carries no
			 * ack, that SYN's sequence number.
			 */
			u32 ack[2];
		};
		struct afw_flow_confirm confirm;	/* while UNCONFIRMED */
	};
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
	atomic64_t confirmed;	/* installed unconfirmed, then confirmed */
};

/* The same, read out for STATS_GET. */
struct afw_flow_counts {
	u64 inserted, expired, closed, evicted, refused, restarted, by_rule, confirmed;
};

/*
 * The flow a CPU's hook found last, kept for the packets after it, which
 * most often belong to it too (a burst, a stream, a ping and its reply):
 * a hit costs a compare of the key, not its hash and a walk of the table.
 * @gone is afw_flows.gone as it was before that lookup.
 */
struct afw_flow_hint {
	struct afw_flow *flow;
	u64 gone;
};

struct afw_flows {
	struct rhashtable ht;
	atomic_t count;
	atomic_t rule_flows;		/* of them, accept rules' */
	/* Bumped by every insert and removal; flags dumps that race them. */
	atomic_t gen;
	/*
	 * Bumped by every removal, before the flow's grace period starts: a
	 * hint taken while it held the same value points at a flow not yet
	 * freed. 64 bits, so that it never comes round again.
	 */
	atomic64_t gone;
	struct afw_flow_hint __percpu *hint;
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
	bool unconfirmed;		/* AFW_FLOW_A_CONFIRM given: @confirm holds it */
	struct afw_flow_confirm confirm;
	const struct afw_tuple *first_t;
	const struct afw_pkt *first;
};

/* afw_pkt.echo */
enum {
	AFW_PKT_ECHO_REQUEST = 1,
	AFW_PKT_ECHO_REPLY,
};

/* Five word compares, not a call to memcmp(): the table's and the hint's. */
static inline bool afw_flow_key_eq(const struct afw_flow_key *a, const struct afw_flow_key *b)
{
	const u64 *x = (const u64 *)a, *y = (const u64 *)b;

	static_assert(sizeof(struct afw_flow_key) == 5 * sizeof(u64));
	return !((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3]) |
		 (x[4] ^ y[4]));
}

/*
 * The lower address (as memcmp() orders them: the first byte that differs)
 * is side a: @k's addresses, family and protocol from @t, its padding and
 * echo byte cleared (the key is hashed and compared whole). Returns 1 when
 * @t's source is side b, 0 when side a, -1 when the addresses are the same.
 */
static inline int afw_flow_key_addrs(const struct afw_tuple *t, struct afw_flow_key *k)
{
	int swap = -1;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t->saddr); i++) {
		if (t->saddr[i] != t->daddr[i]) {
			swap = be32_to_cpu(t->saddr[i]) > be32_to_cpu(t->daddr[i]);
			break;
		}
	}
	memcpy(k->a, swap > 0 ? t->daddr : t->saddr, sizeof(k->a));
	memcpy(k->b, swap > 0 ? t->saddr : t->daddr, sizeof(k->b));
	k->family = t->family;
	k->proto = t->proto;
	k->echo = 0;
	k->pad = 0;
	return swap;
}

/*
 * Fills @k from @t; returns the side @t's source is on. Between two equal
 * addresses the lower port is side a. Inline, as the next two: every
 * packet's.
 */
static inline u8 afw_flow_key_from_tuple(const struct afw_tuple *t, struct afw_flow_key *k)
{
	int swap = afw_flow_key_addrs(t, k);

	if (swap < 0)
		swap = t->sport > t->dport;
	k->pa = swap ? t->dport : t->sport;
	k->pb = swap ? t->sport : t->dport;
	return swap;
}

/*
 * Fills @k with the echo exchange of @t's addresses and @id, @t a request
 * (AFW_PKT_ECHO_REQUEST) or a reply; returns the side @t's source is on.
 * The identifier on both sides, and the side the requests come from; a
 * host pinging itself is side a both ways.
 */
static inline u8 afw_flow_key_echo(const struct afw_tuple *t, u16 id, u8 echo,
				   struct afw_flow_key *k)
{
	bool request = echo == AFW_PKT_ECHO_REQUEST;
	int swap = afw_flow_key_addrs(t, k);

	k->pa = id;
	k->pb = id;
	k->echo = AFW_FLOW_ECHO_A;
	/* The sender is side b (swap): the requester is too, for a request. */
	if (swap >= 0 && swap == request)
		k->echo = AFW_FLOW_ECHO_B;
	return swap > 0;
}

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

static inline bool afw_flow_expired(const struct afw_flow *f)
{
	return time_after_eq(jiffies, READ_ONCE(f->expires));
}

/*
 * The same, for a hook: this CPU's hint first (struct afw_flow_hint), in
 * softirq context or with bottom halves off, where nothing else on the CPU
 * runs a hook meanwhile; inline, as every packet of a known flow comes here.
 *
 * A hint is used only while no flow has left the table since it was taken.
 * A flow leaves, then @gone is bumped (a full barrier between the two:
 * afw_flow_gone()), then its grace period starts (call_rcu() or
 * synchronize_rcu() after it); a hook that still reads the old @gone is in
 * a read-side section that began before that grace period, so the flow it
 * points at is not freed under it. The value is read, with acquire, before
 * the lookup whose result becomes the hint: a lookup after a read of the
 * new count cannot find a flow whose leaving bumped it, and a flow that
 * leaves during the lookup makes the hint stale at once.
 */
static inline struct afw_flow *afw_flow_find(struct afw_flows *fl,
					     const struct afw_flow_key *k)
{
	struct afw_flow_hint *h;
	struct afw_flow *f;
	u64 gone;

	/*
	 * A local sender's LOCAL_OUT runs in process context, where a softirq
	 * could run a hook on this CPU between the two words of a hint; and
	 * under PREEMPT_RT bottom halves off do not keep the task on its CPU.
	 * in_softirq() also holds in a hard interrupt or NMI that came in
	 * during a softirq: no hook runs there, and one that did must not
	 * write the hint the softirq is halfway through.
	 */
	if (IS_ENABLED(CONFIG_PREEMPT_RT) || !in_softirq() || in_hardirq())
		return afw_flow_lookup(fl, k);
	h = this_cpu_ptr(fl->hint);
	gone = atomic64_read_acquire(&fl->gone);
	f = h->flow;
	if (f && h->gone == gone && afw_flow_key_eq(k, &f->key))
		return afw_flow_expired(f) ? NULL : f;
	f = afw_flow_lookup(fl, k);
	if (f) {
		h->flow = f;
		h->gone = gone;
	}
	return f;
}

/*
 * Notes a packet of @f from @side. Returns the AFW_VERDICT_* it gets, or
 * -ENOENT when the packet starts a new connection on the flow's 5-tuple,
 * which then goes on as if the flow were not there. @skb is read for a
 * QUIC Initial on a UDP flow.
 */
int afw_flow_packet(struct afw_flows *fl, struct afw_flow *f, u8 side,
		    const struct afw_tuple *t, const struct afw_pkt *p,
		    const struct sk_buff *skb, unsigned int len);

/*
 * A packet of @f, installed unconfirmed, from @side, come in on @iif (0:
 * sent by this host): whether it confirms the flow, as AFW_FLOW_A_CONFIRM
 * says, the checksum aside, which the caller checks. A SYN ends the flow.
 * The caller tells the analyzer, then confirms it with afw_flow_confirm().
 */
bool afw_flow_confirms(struct afw_flows *fl, struct afw_flow *f, u8 side,
		       const struct afw_pkt *p, u32 iif);
void afw_flow_confirm(struct afw_flows *fl, struct afw_flow *f);

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
