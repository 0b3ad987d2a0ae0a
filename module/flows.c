// SPDX-License-Identifier: GPL-2.0
/*
 * The flow verdict cache: once the analyzer, an admin or an accept rule has
 * decided a flow, the rest of its packets are decided here without rules or
 * queues.
 *
 * The table is an rhashtable: it grows and shrinks with the flows in it,
 * and inserts and removals take only the lock of their bucket, so packets
 * (accept rules install flows) and control requests insert side by side
 * without the namespace mutex. A flow belongs to whoever takes it out of
 * the table: rhashtable_remove_fast() and rhashtable_replace_fast() succeed
 * for one caller only, and that caller frees it after a grace period.
 *
 * Packets write only a flow's second cache line: its expiry (at most once a
 * second), counters, and for TCP the sequence numbers that tell a FIN or
 * RST the peer will act on from one it will not.
 */

#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/rhashtable.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/tcp.h>
#include <uapi/linux/afw.h>

#include "flows.h"
#include "genl.h"
#include "netns.h"

/* After a FIN both ways or an in-window RST, a flow lingers this long. */
#define AFW_FLOW_CLOSING_TIMEOUT (10 * HZ)
/* The collector's pace: entries per run, and the pause between full walks. */
#define AFW_FLOW_GC_BUDGET 2048
#define AFW_FLOW_GC_IDLE (5 * HZ)
/* Unassured flows an insert into a full table weighs for eviction. */
#define AFW_FLOW_EVICT_SCAN 64
/* Flows a flush takes out between two reschedules. */
#define AFW_FLOW_FLUSH_SLICE 1024

static_assert(sizeof(struct afw_flow) <= 128);

static struct kmem_cache *afw_flow_cache __read_mostly;
static struct workqueue_struct *afw_flow_wq __read_mostly;
static hsiphash_key_t afw_flow_secret __read_mostly;

/* rhashtable's own seed changes on rehash; the secret keeps it unguessable. */
static u32 afw_flow_hashfn(const void *data, u32 len, u32 seed)
{
	return afw_flow_key_hash(data, seed, &afw_flow_secret);
}

/* 0 is a match. */
static int afw_flow_cmpfn(struct rhashtable_compare_arg *arg, const void *obj)
{
	return !afw_flow_key_eq(arg->key, &((const struct afw_flow *)obj)->key);
}

static const struct rhashtable_params afw_flow_params = {
	.head_offset = offsetof(struct afw_flow, node),
	.key_offset = offsetof(struct afw_flow, key),
	.key_len = sizeof(struct afw_flow_key),
	.hashfn = afw_flow_hashfn,
	.obj_cmpfn = afw_flow_cmpfn,
	.automatic_shrinking = true,
};

struct afw_flow *afw_flow_lookup(struct afw_flows *fl, const struct afw_flow_key *k)
{
	struct afw_flow *f = rhashtable_lookup(&fl->ht, k, afw_flow_params);

	return f && !afw_flow_expired(f) ? f : NULL;
}

static void afw_flow_free_rcu(struct rcu_head *rcu)
{
	kmem_cache_free(afw_flow_cache, container_of(rcu, struct afw_flow, rcu));
}

static void afw_flow_unlist(struct afw_flows *fl, struct afw_flow *f)
{
	spin_lock_bh(&fl->lru_lock);
	if (test_bit(AFW_FLOW_LISTED, &f->state)) {
		list_del(&f->lru);
		clear_bit(AFW_FLOW_LISTED, &f->state);
	}
	spin_unlock_bh(&fl->lru_lock);
}

/* For the one caller that took @f out of the table: all but the free. */
static void afw_flow_gone(struct afw_flows *fl, struct afw_flow *f)
{
	/*
	 * First, so that a CPU's hint stops finding @f as soon as the table
	 * does (before its FLOW_DEL event goes out), and before the grace
	 * period that frees it: see afw_flow_find(). Ordered after the unlink,
	 * for the reader that sees the new count, then looks up: its walk
	 * must not find @f and hint it under that count.
	 */
	smp_mb__before_atomic();
	atomic64_inc(&fl->gone);
	afw_genl_flow_event(container_of(fl, struct afw_net, flows), f, AFW_CMD_FLOW_DEL);
	afw_flow_unlist(fl, f);
	atomic_dec(&fl->count);
	if (f->origin == AFW_FLOW_ORIGIN_RULE)
		atomic_dec(&fl->rule_flows);
	atomic_inc(&fl->gen);
}

static void afw_flow_retire(struct afw_flows *fl, struct afw_flow *f)
{
	afw_flow_gone(fl, f);
	/* The list is done with: its room becomes the rcu_head. */
	call_rcu(&f->rcu, afw_flow_free_rcu);
}

/* Takes @f out; true for the caller that did, who has then retired it. */
static bool afw_flow_unlink(struct afw_flows *fl, struct afw_flow *f)
{
	if (rhashtable_remove_fast(&fl->ht, &f->node, afw_flow_params))
		return false;
	afw_flow_retire(fl, f);
	return true;
}

/* Counts why a flow whose time is up ended. */
static void afw_flow_count_end(struct afw_flows *fl, const struct afw_flow *f)
{
	if (test_bit(AFW_FLOW_CLOSING, &f->state))
		atomic64_inc(&fl->events.closed);
	else
		atomic64_inc(&fl->events.expired);
}

static unsigned long afw_flow_idle(const struct afw_flow *f)
{
	if (test_bit(AFW_FLOW_CLOSING, &f->state))
		return min_t(unsigned long, f->timeout, AFW_FLOW_CLOSING_TIMEOUT);
	return f->timeout;
}

/*
 * Racing packets all write "now + idle"; any of them will do. The line is
 * written only when the expiry moves by more than a second, or closer.
 */
static void afw_flow_touch(struct afw_flow *f)
{
	unsigned long next = jiffies + afw_flow_idle(f);
	long moved = (long)(next - READ_ONCE(f->expires));

	if (moved > HZ || moved < 0)
		WRITE_ONCE(f->expires, next);
}

/* Inline: a TCP packet of a known flow sets two bits (or finds them set). */
static __always_inline void afw_flow_set(struct afw_flow *f, unsigned int bit)
{
	if (!test_bit(bit, &f->state))
		set_bit(bit, &f->state);
}

/*
 * A RST from @side ends the connection only if its sequence number is the
 * one the peer expects next (RFC 5961): between the last ack the peer sent
 * and the highest byte @side sent. One outside that range is ignored by
 * the peer, so it must not cut the flow short either.
 */
static bool afw_flow_rst_in_window(const struct afw_flow *f, u8 side, u32 seq)
{
	u8 peer = !side;

	if (!test_bit(AFW_FLOW_ACKED + peer, &f->state) ||
	    !test_bit(AFW_FLOW_TRACKED + side, &f->state))
		return false;
	return !before(seq, READ_ONCE(f->ack[peer])) && !after(seq, READ_ONCE(f->nxt[side]));
}

/* Any packet of the flow so far, or a connection it was installed for. */
static bool afw_flow_used(const struct afw_flow *f)
{
	return test_bit(AFW_FLOW_STARTED, &f->state) ||
	       test_bit(AFW_FLOW_TRACKED, &f->state) || test_bit(AFW_FLOW_TRACKED + 1, &f->state);
}

static bool afw_tcp_pure_syn(const struct afw_pkt *p)
{
	return (p->tcp_flags & (TCPHDR_SYN | TCPHDR_ACK)) == TCPHDR_SYN;
}

/* True when the TCP segment starts a new connection on @f's 5-tuple. */
static bool afw_flow_tcp(struct afw_flow *f, u8 side, const struct afw_pkt *p)
{
	u32 end = p->seq + p->len;

	if (afw_tcp_pure_syn(p)) {
		/*
		 * The SYN that made the flow, sent again before anything else
		 * from its side, belongs to it, and so does the first SYN of a
		 * flow installed ahead of its connection. Any other starts a
		 * new connection (after a FIN or RST, or one a client sends to
		 * get past the old decision), which is judged afresh: for a
		 * flow installed for a connection that had begun, every SYN.
		 */
		if (test_bit(AFW_FLOW_OWN_SYN + side, &f->state) ?
		    READ_ONCE(f->ack[side]) != p->seq : afw_flow_used(f))
			return true;
		WRITE_ONCE(f->ack[side], p->seq);
		afw_flow_set(f, AFW_FLOW_OWN_SYN + side);
	} else if (test_bit(AFW_FLOW_OWN_SYN + side, &f->state)) {
		clear_bit(AFW_FLOW_OWN_SYN + side, &f->state);
	}
	if ((p->tcp_flags & TCPHDR_RST) && afw_flow_rst_in_window(f, side, p->seq))
		afw_flow_set(f, AFW_FLOW_CLOSING);

	if (p->tcp_flags & (TCPHDR_SYN | TCPHDR_FIN))
		end++;
	if (!test_bit(AFW_FLOW_TRACKED + side, &f->state) || after(end, READ_ONCE(f->nxt[side])))
		WRITE_ONCE(f->nxt[side], end);
	afw_flow_set(f, AFW_FLOW_TRACKED + side);
	if (p->tcp_flags & TCPHDR_ACK) {
		if (READ_ONCE(f->ack[side]) != p->ack)
			WRITE_ONCE(f->ack[side], p->ack);
		afw_flow_set(f, AFW_FLOW_ACKED + side);
	}
	if (p->tcp_flags & TCPHDR_FIN) {
		afw_flow_set(f, AFW_FLOW_FIN + side);
		if (test_bit(AFW_FLOW_FIN + !side, &f->state))
			afw_flow_set(f, AFW_FLOW_CLOSING);
	}
	return false;
}

/*
 * A QUIC long-header Initial (RFC 9000 17.2.2; RFC 9369 for v2) or a
 * packet of a version afwd may not know: a client that opens a new QUIC
 * connection from the same UDP socket sends one of these first. Out of
 * line: its copy of the header would give afw_flow_packet() a stack canary
 * on every packet.
 */
static noinline bool afw_flow_quic_initial(const struct sk_buff *skb, const struct afw_pkt *p)
{
	u8 _h[5];
	const u8 *h;
	u32 version;

	h = skb_header_pointer(skb, p->l4off + sizeof(struct udphdr), sizeof(_h), _h);
	if (!h || !(h[0] & 0x80))
		return false;
	version = get_unaligned_be32(h + 1);
	if (version == 1)
		return (h[0] & 0x30) == 0x00;
	if (version == 0x6b3343cf)
		return (h[0] & 0x30) == 0x10;
	/* Version negotiation is the server's, never a client's first packet. */
	return version != 0;
}

static void afw_flow_assure(struct afw_flows *fl, struct afw_flow *f, u8 side)
{
	/*
	 * Most packets: both sides were seen, nothing is left to note, and
	 * the packet writes no shared line here.
	 */
	if (test_bit(AFW_FLOW_ASSURED, &f->state))
		return;
	afw_flow_set(f, AFW_FLOW_SEEN + side);
	/* A host's flow to itself: every packet goes both ways at once. */
	if (test_bit(AFW_FLOW_SYMMETRIC, &f->state))
		afw_flow_set(f, AFW_FLOW_SEEN + !side);
	/*
	 * A ping is never assured, as conntrack never assures an ICMP entry:
	 * anyone may ping from a new identifier a thousand times a second,
	 * the host answers each, and so many flows no new one may push out
	 * would leave no room for a connection's (ENOSPC).
	 */
	if (f->key.echo)
		return;
	if (test_bit(AFW_FLOW_SEEN + !side, &f->state) &&
	    !test_and_set_bit(AFW_FLOW_ASSURED, &f->state))
		afw_flow_unlist(fl, f);
}

int afw_flow_packet(struct afw_flows *fl, struct afw_flow *f, u8 side,
		    const struct afw_tuple *t, const struct afw_pkt *p,
		    const struct sk_buff *skb, unsigned int len)
{
	u8 verdict = f->verdict;

	atomic64_inc(&f->packets);
	atomic64_add(len, &f->bytes);
	/*
	 * A denied flow stays denied for its lifetime: the FINs and RSTs it
	 * drops reach nobody, so they cannot end it, and no packet of it
	 * counts as an answer.
	 */
	if (verdict == AFW_VERDICT_DROP || verdict == AFW_VERDICT_REJECT) {
		afw_flow_touch(f);
		return verdict;
	}
	if (t->proto == IPPROTO_TCP && (t->flags & AFW_TUPLE_PORTS) && afw_flow_tcp(f, side, p)) {
		/* Whoever takes it out counts it; a racing packet finds it gone. */
		if (afw_flow_unlink(fl, f))
			atomic64_inc(&fl->events.restarted);
		return -ENOENT;
	}
	afw_flow_assure(fl, f, side);
	afw_flow_touch(f);
	/*
	 * What afwd allowed was one connection; a QUIC client may start
	 * another on the same UDP socket, so its Initials go to afwd again.
	 * An accept rule's flow is the rule's, whatever runs over it.
	 */
	if (t->proto == IPPROTO_UDP && verdict == AFW_VERDICT_ACCEPT &&
	    f->origin == AFW_FLOW_ORIGIN_CONTROL && side == f->initiator &&
	    (t->flags & AFW_TUPLE_PORTS) && afw_flow_quic_initial(skb, p))
		return AFW_VERDICT_INSPECT;
	return verdict;
}

/*
 * Unconfirmed: no packet passes by @f, so none wrote @f->confirm's words
 * since the insert published them. A packet whose check reads them while
 * another confirms the flow and starts its tracking there may read a mix:
 * the flow is confirmed then all the same, and at worst the analyzer hears
 * of it twice.
 */
bool afw_flow_confirms(struct afw_flows *fl, struct afw_flow *f, u8 side,
		       const struct afw_pkt *p, u32 iif)
{
	/*
	 * A SYN either way starts a connection on the flow's ports, or is
	 * an old one's: what the analyzer allowed was the connection it
	 * read, and an acknowledgment in the new one's sequence space
	 * must not confirm it. The flow goes, and the SYN with it to the
	 * analyzer.
	 */
	if (p->tcp_flags & TCPHDR_SYN) {
		if (afw_flow_unlink(fl, f))
			atomic64_inc(&fl->events.restarted);
		return false;
	}
	/* Only the side that did not start it can take what the other sent. */
	if (side == f->initiator || test_bit(AFW_FLOW_SYMMETRIC, &f->state) ||
	    (p->tcp_flags & (TCPHDR_ACK | TCPHDR_RST)) != TCPHDR_ACK ||
	    iif != READ_ONCE(f->confirm.iif))
		return false;
	return !before(p->ack, READ_ONCE(f->confirm.ack)) &&
	       !after(p->ack, READ_ONCE(f->confirm.end));
}

void afw_flow_confirm(struct afw_flows *fl, struct afw_flow *f)
{
	if (test_and_clear_bit(AFW_FLOW_UNCONFIRMED, &f->state))
		atomic64_inc(&fl->events.confirmed);
}

/*
 * A rule's flow starts with the packet the rule passed, so that its SYN,
 * sent again, still belongs to it. Not yet published: plain writes.
 */
static void afw_flow_first(struct afw_flow *f, u8 side, const struct afw_tuple *t,
			   const struct afw_pkt *p)
{
	__set_bit(AFW_FLOW_SEEN + side, &f->state);
	if (t->proto != IPPROTO_TCP || !(t->flags & AFW_TUPLE_PORTS))
		return;
	f->nxt[side] = p->seq + p->len + !!(p->tcp_flags & (TCPHDR_SYN | TCPHDR_FIN));
	__set_bit(AFW_FLOW_TRACKED + side, &f->state);
	if (afw_tcp_pure_syn(p)) {
		f->ack[side] = p->seq;
		__set_bit(AFW_FLOW_OWN_SYN + side, &f->state);
	}
	if (p->tcp_flags & TCPHDR_ACK) {
		f->ack[side] = p->ack;
		__set_bit(AFW_FLOW_ACKED + side, &f->state);
	}
	if (p->tcp_flags & TCPHDR_FIN)
		__set_bit(AFW_FLOW_FIN + side, &f->state);
}

/*
 * Makes room in a full table: of the oldest unassured flows, the one that
 * expires first goes. Flows that have had an answer are never pushed out,
 * so a flood of new flows (spoofed ones included) cannot end real ones.
 */
static bool afw_flows_evict(struct afw_flows *fl)
{
	struct afw_flow *f, *victim = NULL;
	unsigned int n = 0;

	spin_lock_bh(&fl->lru_lock);
	list_for_each_entry(f, &fl->unassured, lru) {
		if (!test_bit(AFW_FLOW_LIVE, &f->state))
			continue;
		if (!victim || time_before(READ_ONCE(f->expires), READ_ONCE(victim->expires)))
			victim = f;
		if (++n == AFW_FLOW_EVICT_SCAN || afw_flow_expired(victim))
			break;
	}
	if (victim) {
		list_del(&victim->lru);
		clear_bit(AFW_FLOW_LISTED, &victim->state);
	}
	spin_unlock_bh(&fl->lru_lock);
	if (!victim)
		return false;
	/* Gone already: whoever took it has made the room. */
	if (rhashtable_remove_fast(&fl->ht, &victim->node, afw_flow_params))
		return true;
	if (afw_flow_expired(victim))
		afw_flow_count_end(fl, victim);
	else
		atomic64_inc(&fl->events.evicted);
	afw_flow_retire(fl, victim);
	return true;
}

/*
 * Takes one place in the table for a new flow, evicting to make room. The
 * victim leaves the list before it leaves the table, and whoever removes it
 * from the table meanwhile frees it after a grace period: the read-side
 * section keeps it alive until this CPU is done with it, also for
 * FLOW_NEW, which comes here from process context.
 */
static bool afw_flows_reserve(struct afw_flows *fl, u32 max)
{
	bool room;

	if (atomic_inc_return(&fl->count) <= max)
		return true;
	rcu_read_lock();
	room = afw_flows_evict(fl);
	rcu_read_unlock();
	if (!room)
		atomic_dec(&fl->count);
	return room;
}

/*
 * A ping's flow lives for as long as conntrack keeps an ICMP entry
 * (nf_conntrack_icmp_timeout): a ping sends a request a second, and the
 * unanswered ones of a ping that ended are no use for long.
 */
#define AFW_ECHO_TIMEOUT 30

static u32 afw_flow_default_timeout(const struct afw_config *cfg, const struct afw_flow_key *k)
{
	if (k->echo)
		return min_t(u32, cfg->flow_timeout, AFW_ECHO_TIMEOUT);
	switch (k->proto) {
	case IPPROTO_TCP:
		return cfg->tcp_timeout;
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
		return cfg->udp_timeout;
	default:
		return cfg->flow_timeout;
	}
}

int afw_flow_insert(struct afw_net *an, const struct afw_flow_new *req, gfp_t gfp,
		    struct netlink_ext_ack *extack)
{
	struct afw_flows *fl = &an->flows;
	const struct afw_config *cfg;
	struct afw_flow *f, *old;
	u32 max, timeout_s;
	unsigned long now;
	int ret;

	f = kmem_cache_zalloc(afw_flow_cache, gfp);
	if (!f)
		return -ENOMEM;
	rcu_read_lock();
	cfg = rcu_dereference(an->cfg);
	max = cfg->max_flows;
	timeout_s = req->timeout_s ?: afw_flow_default_timeout(cfg, &req->key);
	rcu_read_unlock();

	f->key = req->key;
	f->verdict = req->verdict;
	f->origin = req->origin;
	f->initiator = req->initiator;
	f->rule_id = req->rule_id;
	f->own_queue = req->own_queue;
	f->queue = req->queue;
	f->timeout = timeout_s * HZ;
	f->expires = jiffies + f->timeout;
	if (req->first)
		afw_flow_first(f, req->initiator, req->first_t, req->first);
	if (req->flags & AFW_FLOW_F_ESTABLISHED)
		__set_bit(AFW_FLOW_STARTED, &f->state);
	if (req->unconfirmed) {
		f->confirm = req->confirm;
		__set_bit(AFW_FLOW_UNCONFIRMED, &f->state);
	}
	if (!memcmp(f->key.a, f->key.b, sizeof(f->key.a)) && f->key.pa == f->key.pb)
		__set_bit(AFW_FLOW_SYMMETRIC, &f->state);

	now = jiffies;
	if (READ_ONCE(fl->full_tick) == now || !afw_flows_reserve(fl, max)) {
		atomic64_inc(&fl->events.refused);
		/*
		 * Until the next tick, further inserts are refused at once; and
		 * the collector may find room that eviction could not take.
		 */
		if (READ_ONCE(fl->full_tick) != now) {
			WRITE_ONCE(fl->full_tick, now);
			mod_delayed_work(system_power_efficient_wq, &fl->gc, 0);
		}
		NL_SET_ERR_MSG_MOD(extack, "the flow table is full of assured flows (max_flows)");
		ret = -ENOSPC;
		goto err_free;
	}
	/* Listed before it is published: whoever removes it unlists it. */
	spin_lock_bh(&fl->lru_lock);
	list_add_tail(&f->lru, &fl->unassured);
	set_bit(AFW_FLOW_LISTED, &f->state);
	spin_unlock_bh(&fl->lru_lock);

	rcu_read_lock();
	for (;;) {
		old = rhashtable_lookup_get_insert_fast(&fl->ht, &f->node, afw_flow_params);
		if (!old)
			break;
		if (IS_ERR(old)) {
			ret = PTR_ERR(old);
			rcu_read_unlock();
			goto err_unlist;
		}
		/* A new decision for a known flow takes its place in one step. */
		if (!rhashtable_replace_fast(&fl->ht, &old->node, &f->node, afw_flow_params)) {
			afw_flow_retire(fl, old);
			break;
		}
		/* It went meanwhile: insert again. */
	}
	set_bit(AFW_FLOW_LIVE, &f->state);
	/* Published: only RCU keeps @f from whoever may remove it now. */
	afw_genl_flow_event(an, f, AFW_CMD_FLOW_NEW);
	rcu_read_unlock();

	atomic_inc(&fl->gen);
	atomic64_inc(&fl->events.inserted);
	if (req->origin == AFW_FLOW_ORIGIN_RULE) {
		atomic_inc(&fl->rule_flows);
		atomic64_inc(&fl->events.by_rule);
	}
	/* The collector runs only while there are flows; no-op if queued. */
	queue_delayed_work(system_power_efficient_wq, &fl->gc, AFW_FLOW_GC_IDLE);
	return 0;

err_unlist:
	afw_flow_unlist(fl, f);
	atomic_dec(&fl->count);
err_free:
	kmem_cache_free(afw_flow_cache, f);
	return ret;
}

int afw_flow_remove(struct afw_net *an, const struct afw_flow_key *k)
{
	struct afw_flow *f;
	int ret = -ENOENT;

	rcu_read_lock();
	f = rhashtable_lookup(&an->flows.ht, k, afw_flow_params);
	if (f && afw_flow_unlink(&an->flows, f))
		ret = 0;
	rcu_read_unlock();
	return ret;
}

/*
 * Frees a batch of removed flows after one grace period, rather than one
 * callback each: a flush of a million flows is a thousand of these.
 */
struct afw_flow_batch {
	struct rcu_work rwork;
	unsigned int n;
	struct afw_flow *flows[AFW_FLOW_FLUSH_SLICE];
};

static void afw_flow_batch_free(struct work_struct *work)
{
	struct afw_flow_batch *b = container_of(to_rcu_work(work), struct afw_flow_batch, rwork);
	unsigned int i;

	for (i = 0; i < b->n; i++)
		kmem_cache_free(afw_flow_cache, b->flows[i]);
	kvfree(b);
}

/*
 * Resumes a walk. When the table was resized while the walk was stopped,
 * the walk starts over from the new table's first bucket; kernels before
 * the fix that clears it there keep the entry the walk stopped at, which
 * may have been freed since, and step from it. Not there, nor here.
 */
static int afw_flows_walk_start(struct rhashtable_iter *iter)
	__acquires(RCU)
{
	int ret = rhashtable_walk_start_check(iter);

	if (ret == -EAGAIN)
		iter->p = NULL;
	return ret;
}

/* One walk over the table, a slice at a time; returns the flows it took. */
static unsigned long afw_flows_sweep(struct afw_flows *fl,
				     bool (*keep)(const struct afw_flow *f, const void *ctx),
				     const void *ctx)
{
	struct afw_flow_batch *b = NULL;
	struct rhashtable_iter iter;
	unsigned long taken = 0;
	struct afw_flow *f;
	bool end = false;

	rhashtable_walk_enter(&fl->ht, &iter);
	while (!end) {
		if (!b)
			b = kvmalloc(sizeof(*b), GFP_KERNEL);
		if (b)
			b->n = 0;
		afw_flows_walk_start(&iter);
		while (!b || b->n < AFW_FLOW_FLUSH_SLICE) {
			f = rhashtable_walk_next(&iter);
			if (!f) {
				end = true;
				break;
			}
			if (IS_ERR(f) || (keep && keep(f, ctx)) ||
			    rhashtable_remove_fast(&fl->ht, &f->node, afw_flow_params))
				continue;
			afw_flow_gone(fl, f);
			taken++;
			if (b)
				b->flows[b->n++] = f;
			else
				call_rcu(&f->rcu, afw_flow_free_rcu);
		}
		rhashtable_walk_stop(&iter);
		if (b && b->n) {
			INIT_RCU_WORK(&b->rwork, afw_flow_batch_free);
			queue_rcu_work(afw_flow_wq, &b->rwork);
			b = NULL;
		}
		cond_resched();
	}
	rhashtable_walk_exit(&iter);
	kvfree(b);
	return taken;
}

/*
 * Removes every flow @keep does not keep (every flow, without it). A walk
 * resumed after a pause may step over a few flows of the bucket it paused
 * in, so a second walk follows; flows that packets insert meanwhile may
 * stay, as if they came just after.
 */
static void afw_flows_remove_all(struct afw_flows *fl,
				 bool (*keep)(const struct afw_flow *f, const void *ctx),
				 const void *ctx)
{
	if (afw_flows_sweep(fl, keep, ctx))
		afw_flows_sweep(fl, keep, ctx);
}

void afw_flows_flush(struct afw_net *an)
{
	afw_flows_remove_all(&an->flows, NULL, NULL);
}

struct afw_flows_prune_ctx {
	bool (*rule_keeps)(u32 rule_id, const void *ctx);
	const void *ctx;
};

static bool afw_flow_keep_rule(const struct afw_flow *f, const void *ctx)
{
	const struct afw_flows_prune_ctx *p = ctx;

	return f->origin != AFW_FLOW_ORIGIN_RULE || p->rule_keeps(f->rule_id, p->ctx);
}

void afw_flows_prune_rules(struct afw_net *an, bool (*rule_keeps)(u32 rule_id, const void *ctx),
			   const void *ctx)
{
	struct afw_flows_prune_ctx p = { .rule_keeps = rule_keeps, .ctx = ctx };

	/*
	 * The new rules are published, but a packet that matched an accept
	 * rule of the old ones may still be about to insert that rule's flow;
	 * after a grace period every such flow is in the table, to be found.
	 * Without the wait, a flow of a deleted rule could live on for a day.
	 */
	synchronize_net();
	if (atomic_read(&an->flows.rule_flows))
		afw_flows_remove_all(&an->flows, afw_flow_keep_rule, &p);
}

/*
 * While someone listens for flow events, a flow that carried packets
 * since the walk before this one is told again with its counts, as the
 * collector passes it: a live view's rates, every walk (about 5 s), and
 * never more than AFW_FLOW_COUNTS_PER_WALK a walk, whatever the table
 * holds. Its last packet is its expiry less its idle time, to the second
 * (afw_flow_touch()). With more live flows than that, a walk that stops
 * telling notes where (the first live flow it had to pass over), and the
 * next walk begins telling there: none waits for ever behind the first
 * ones in the table's order.
 */
static void afw_flow_tell_counts(struct afw_flows *fl, const struct afw_flow *f)
{
	unsigned long seen = READ_ONCE(f->expires) - afw_flow_idle(f);
	unsigned int pos = fl->gc_pos++;

	if (pos < fl->gc_skip || !time_after(seen, fl->gc_prev_start))
		return;
	if (fl->gc_told >= AFW_FLOW_COUNTS_PER_WALK) {
		if (!fl->gc_stop)
			fl->gc_stop = pos;
		return;
	}
	fl->gc_told++;
	afw_genl_flow_event(container_of(fl, struct afw_net, flows), f, AFW_CMD_FLOW_GET);
}

/*
 * The collector frees expired flows. Lookups already take them for gone,
 * so it only gives memory back (and tells listeners of the live flows'
 * counts on the way), and it keeps to a budget per run: it runs
 * again soon while it finds many expired flows or has not finished its
 * walk, and rests between walks otherwise.
 */
static void afw_flows_gc(struct work_struct *work)
{
	struct afw_flows *fl = container_of(to_delayed_work(work), struct afw_flows, gc);
	bool heard = afw_genl_flow_heard(container_of(fl, struct afw_net, flows));
	unsigned int scanned = 0, expired = 0;
	unsigned long next;
	struct afw_flow *f;
	bool done = false;

	if (!fl->gc_walking) {
		rhashtable_walk_enter(&fl->ht, &fl->gc_iter);
		fl->gc_walking = true;
		fl->gc_prev_start = fl->gc_start;
		fl->gc_start = jiffies;
		fl->gc_pos = 0;
		fl->gc_stop = 0;
		fl->gc_told = 0;
	}
	afw_flows_walk_start(&fl->gc_iter);
	while (scanned < AFW_FLOW_GC_BUDGET) {
		f = rhashtable_walk_next(&fl->gc_iter);
		if (!f) {
			done = true;
			break;
		}
		if (IS_ERR(f))
			continue;
		scanned++;
		if (!afw_flow_expired(f)) {
			if (heard)
				afw_flow_tell_counts(fl, f);
			continue;
		}
		expired++;
		if (!rhashtable_remove_fast(&fl->ht, &f->node, afw_flow_params)) {
			afw_flow_count_end(fl, f);
			afw_flow_retire(fl, f);
		}
	}
	rhashtable_walk_stop(&fl->gc_iter);
	if (done) {
		rhashtable_walk_exit(&fl->gc_iter);
		fl->gc_walking = false;
		/* Where this walk stopped telling, or from the start. */
		fl->gc_skip = fl->gc_stop;
	}
	if (!atomic_read(&fl->count) && done)
		return;
	if (expired * 4 > scanned)
		next = 1;
	else
		next = done ? AFW_FLOW_GC_IDLE : HZ / 10;
	queue_delayed_work(system_power_efficient_wq, &fl->gc, next);
}

/* cb->args[0]: the walk, cb->args[1]: restarts seen, which flag the dump. */
int afw_flows_dump_start(struct netlink_callback *cb)
{
	struct afw_net *an = afw_net(sock_net(cb->skb->sk));
	struct rhashtable_iter *iter;

	iter = kmalloc(sizeof(*iter), GFP_KERNEL);
	if (!iter)
		return -ENOMEM;
	rhashtable_walk_enter(&an->flows.ht, iter);
	cb->args[0] = (long)iter;
	cb->args[1] = 0;
	return 0;
}

int afw_flows_dump_done(struct netlink_callback *cb)
{
	struct rhashtable_iter *iter = (struct rhashtable_iter *)cb->args[0];

	if (iter) {
		rhashtable_walk_exit(iter);
		kfree(iter);
	}
	return 0;
}

/*
 * A dump sees each flow once unless the table is resized under it or
 * flows come and go meanwhile; then its messages are flagged
 * NLM_F_DUMP_INTR, and afwctl says the listing may be off.
 */
static void afw_flows_dump_seq(struct netlink_callback *cb, struct afw_flows *fl)
{
	/* Never 0, which would turn the check off. */
	cb->seq = (u32)(atomic_read(&fl->gen) + cb->args[1]) + 1 ?: 1;
}

int afw_flows_dump(struct sk_buff *skb, struct netlink_callback *cb,
		   int (*put)(struct sk_buff *skb, struct netlink_callback *cb,
			      const struct afw_flow *f))
{
	struct afw_net *an = afw_net(sock_net(skb->sk));
	struct rhashtable_iter *iter = (struct rhashtable_iter *)cb->args[0];
	struct afw_flow *f;

	afw_flows_dump_seq(cb, &an->flows);
	if (afw_flows_walk_start(iter) == -EAGAIN) {
		cb->args[1]++;
		afw_flows_dump_seq(cb, &an->flows);
	}
	/* The flow a full message left behind comes first. */
	for (f = rhashtable_walk_peek(iter); f; f = rhashtable_walk_next(iter)) {
		if (IS_ERR(f)) {
			cb->args[1]++;
			afw_flows_dump_seq(cb, &an->flows);
			continue;
		}
		if (afw_flow_expired(f))
			continue;
		if (put(skb, cb, f))
			break;
	}
	rhashtable_walk_stop(iter);
	return skb->len;
}

void afw_flows_read(struct afw_flows *fl, struct afw_flow_counts *c)
{
	c->inserted = atomic64_read(&fl->events.inserted);
	c->expired = atomic64_read(&fl->events.expired);
	c->closed = atomic64_read(&fl->events.closed);
	c->evicted = atomic64_read(&fl->events.evicted);
	c->refused = atomic64_read(&fl->events.refused);
	c->restarted = atomic64_read(&fl->events.restarted);
	c->by_rule = atomic64_read(&fl->events.by_rule);
	c->confirmed = atomic64_read(&fl->events.confirmed);
}

void afw_flows_reset(struct afw_flows *fl)
{
	atomic64_set(&fl->events.inserted, 0);
	atomic64_set(&fl->events.expired, 0);
	atomic64_set(&fl->events.closed, 0);
	atomic64_set(&fl->events.evicted, 0);
	atomic64_set(&fl->events.refused, 0);
	atomic64_set(&fl->events.restarted, 0);
	atomic64_set(&fl->events.by_rule, 0);
	atomic64_set(&fl->events.confirmed, 0);
}

int afw_flows_init(struct afw_net *an)
{
	struct afw_flows *fl = &an->flows;
	int ret;

	spin_lock_init(&fl->lru_lock);
	fl->full_tick = jiffies - 1;
	INIT_LIST_HEAD(&fl->unassured);
	INIT_DELAYED_WORK(&fl->gc, afw_flows_gc);
	fl->hint = alloc_percpu_gfp(struct afw_flow_hint, GFP_KERNEL_ACCOUNT);
	if (!fl->hint)
		return -ENOMEM;
	ret = rhashtable_init(&fl->ht, &afw_flow_params);
	if (ret)
		goto err_hint;
	fl->ready = true;
	return 0;

err_hint:
	free_percpu(fl->hint);
	return ret;
}

static void afw_flow_free_now(void *ptr, void *arg)
{
	kmem_cache_free(afw_flow_cache, ptr);
}

/* Packets and control requests are gone; only the collector may still run. */
void afw_flows_exit(struct afw_net *an)
{
	struct afw_flows *fl = &an->flows;

	if (!fl->ready)
		return;
	cancel_delayed_work_sync(&fl->gc);
	if (fl->gc_walking)
		rhashtable_walk_exit(&fl->gc_iter);
	/* No reader is left, so nothing needs a grace period, nor the list. */
	rhashtable_free_and_destroy(&fl->ht, afw_flow_free_now, NULL);
	free_percpu(fl->hint);
}

int afw_flows_module_init(void)
{
	get_random_bytes(&afw_flow_secret, sizeof(afw_flow_secret));
	afw_flow_cache = KMEM_CACHE(afw_flow, 0);
	if (!afw_flow_cache)
		goto err_cache;
	afw_flow_wq = alloc_workqueue("afw_flows", WQ_UNBOUND, 0);
	if (!afw_flow_wq)
		goto err_wq;
	return 0;

err_wq:
	kmem_cache_destroy(afw_flow_cache);
err_cache:
	return -ENOMEM;
}

void afw_flows_module_exit(void)
{
	/*
	 * Flows are freed after a grace period, one by one or in batches:
	 * the barrier runs the callbacks, which queue the batches, and
	 * destroying the queue runs those.
	 */
	rcu_barrier();
	destroy_workqueue(afw_flow_wq);
	kmem_cache_destroy(afw_flow_cache);
}
