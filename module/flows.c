// SPDX-License-Identifier: GPL-2.0
/*
 * The flow verdict cache: once the analyzer (or an admin) has decided a
 * flow, the rest of its packets are decided here without rules or queues.
 *
 * Readers are packets, under RCU, lockless: they only move a flow's expiry
 * and bump its counters. Every insert, removal and the garbage collector
 * hold afw_net.lock; the collector takes it for a bounded slice of buckets
 * at a time so that control requests never wait long behind it.
 */

#include <linux/jhash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <uapi/linux/afw.h>

#include "flows.h"
#include "netns.h"

/* After a FIN or RST a flow lingers this long for the last packets. */
#define AFW_FLOW_CLOSING_TIMEOUT (10 * HZ)
#define AFW_FLOW_GC_INTERVAL HZ
#define AFW_FLOW_GC_SLICE 256
/*
 * Buckets an insert into a full table searches for a flow to evict: enough
 * to find one when max_flows was lowered far below the bucket count, and
 * still a bounded cost when every flow is established.
 */
#define AFW_FLOW_EVICT_SCAN 4096

static struct kmem_cache *afw_flow_cache;

void afw_flow_key_from_tuple(const struct afw_tuple *t, struct afw_flow_key *k)
{
	bool swap;
	int c;

	memset(k, 0, sizeof(*k));
	c = memcmp(t->saddr, t->daddr, sizeof(t->saddr));
	swap = c > 0 || (c == 0 && t->sport > t->dport);
	memcpy(k->a, swap ? t->daddr : t->saddr, sizeof(k->a));
	memcpy(k->b, swap ? t->saddr : t->daddr, sizeof(k->b));
	k->pa = swap ? t->dport : t->sport;
	k->pb = swap ? t->sport : t->dport;
	k->family = t->family;
	k->proto = t->proto;
}

u32 afw_flow_hash(const struct afw_flow_key *k, u32 seed)
{
	return jhash2((const u32 *)k, sizeof(*k) / sizeof(u32), seed);
}

static bool afw_flow_expired(const struct afw_flow *f)
{
	return time_after_eq(jiffies, READ_ONCE(f->expires));
}

struct afw_flow *afw_flow_lookup(struct afw_flows *fl, const struct afw_flow_key *k)
{
	struct hlist_head *buckets = rcu_dereference(fl->buckets);
	struct afw_flow *f;

	if (!buckets)
		return NULL;
	hlist_for_each_entry_rcu(f, &buckets[afw_flow_hash(k, fl->seed) & fl->hmask], node)
		if (!memcmp(&f->key, k, sizeof(*k)))
			return afw_flow_expired(f) ? NULL : f;
	return NULL;
}

void afw_flow_seen(struct afw_flow *f, unsigned int len, bool fin_rst)
{
	unsigned long now = jiffies;

	atomic64_inc(&f->packets);
	atomic64_add(len, &f->bytes);
	if (fin_rst && !READ_ONCE(f->closing))
		WRITE_ONCE(f->closing, 1);
	/* Racing packets all write "now + something": any of them will do. */
	WRITE_ONCE(f->expires, now + (READ_ONCE(f->closing) ?
				      min_t(u32, f->timeout, AFW_FLOW_CLOSING_TIMEOUT) :
				      f->timeout));
}

static struct hlist_head *afw_flows_buckets(struct afw_net *an)
{
	return rcu_dereference_protected(an->flows.buckets, lockdep_is_held(&an->lock));
}

static void afw_flow_free_rcu(struct rcu_head *rcu)
{
	kmem_cache_free(afw_flow_cache, container_of(rcu, struct afw_flow, rcu));
}

static void afw_flow_unlink(struct afw_net *an, struct afw_flow *f)
{
	lockdep_assert_held(&an->lock);
	hlist_del_rcu(&f->node);
	/* Packets read the count locklessly to skip lookups in an empty table. */
	WRITE_ONCE(an->flows.count, an->flows.count - 1);
	call_rcu(&f->rcu, afw_flow_free_rcu);
}

/* Sized once, from max_flows at the first insert: a resize would stall packets. */
static int afw_flows_alloc(struct afw_net *an)
{
	struct hlist_head *buckets;
	u32 n = roundup_pow_of_two(clamp_t(u32, READ_ONCE(an->cfg.max_flows) / 2, 1024, 1U << 20));

	buckets = kvcalloc(n, sizeof(*buckets), GFP_KERNEL_ACCOUNT);
	if (!buckets)
		return -ENOMEM;
	an->flows.hmask = n - 1;
	rcu_assign_pointer(an->flows.buckets, buckets);
	return 0;
}

/* Removes a flow whose time is up, counting why it ended. */
static void afw_flow_expire(struct afw_net *an, struct afw_flow *f)
{
	if (READ_ONCE(f->closing))
		an->flows.events.closed++;
	else
		an->flows.events.expired++;
	afw_flow_unlink(an, f);
}

/* Frees an expired or never-established flow near @bucket, if any. */
static bool afw_flows_evict(struct afw_net *an, u32 bucket)
{
	struct hlist_head *buckets = afw_flows_buckets(an);
	struct afw_flow *f, *victim = NULL;
	u32 i;

	for (i = 0; i < AFW_FLOW_EVICT_SCAN && !victim; i++) {
		hlist_for_each_entry(f, &buckets[(bucket + i) & an->flows.hmask], node) {
			if (afw_flow_expired(f) ||
			    atomic64_read(&f->packets) < AFW_FLOW_ESTABLISHED) {
				victim = f;
				break;
			}
		}
	}
	if (!victim)
		return false;
	if (afw_flow_expired(victim)) {
		afw_flow_expire(an, victim);
	} else {
		an->flows.events.evicted++;
		afw_flow_unlink(an, victim);
	}
	return true;
}

int afw_flow_insert(struct afw_net *an, const struct afw_flow_key *k, u8 verdict,
		    u32 timeout_s, struct netlink_ext_ack *extack)
{
	struct hlist_head *buckets;
	struct afw_flow *f;
	u32 bucket;
	int ret;

	lockdep_assert_held(&an->lock);
	if (!afw_flows_buckets(an)) {
		ret = afw_flows_alloc(an);
		if (ret)
			return ret;
	}
	buckets = afw_flows_buckets(an);
	bucket = afw_flow_hash(k, an->flows.seed) & an->flows.hmask;

	hlist_for_each_entry(f, &buckets[bucket], node) {
		if (memcmp(&f->key, k, sizeof(*k)))
			continue;
		/* A new decision for a known flow: replace it, counters and all. */
		afw_flow_unlink(an, f);
		break;
	}
	if (an->flows.count >= READ_ONCE(an->cfg.max_flows) && !afw_flows_evict(an, bucket)) {
		an->flows.events.refused++;
		NL_SET_ERR_MSG_MOD(extack, "the flow table is full of established flows (max_flows)");
		return -ENOSPC;
	}

	f = kmem_cache_zalloc(afw_flow_cache, GFP_KERNEL_ACCOUNT);
	if (!f)
		return -ENOMEM;
	f->key = *k;
	f->verdict = verdict;
	f->timeout = timeout_s * HZ;
	f->expires = jiffies + f->timeout;
	hlist_add_head_rcu(&f->node, &buckets[bucket]);
	WRITE_ONCE(an->flows.count, an->flows.count + 1);
	an->flows.events.inserted++;
	/* The collector runs only while there are flows; no-op if queued. */
	queue_delayed_work(system_power_efficient_wq, &an->flows.gc, AFW_FLOW_GC_INTERVAL);
	return 0;
}

int afw_flow_remove(struct afw_net *an, const struct afw_flow_key *k)
{
	struct hlist_head *buckets = afw_flows_buckets(an);
	struct afw_flow *f;

	lockdep_assert_held(&an->lock);
	if (!buckets)
		return -ENOENT;
	hlist_for_each_entry(f, &buckets[afw_flow_hash(k, an->flows.seed) & an->flows.hmask], node) {
		if (!memcmp(&f->key, k, sizeof(*k))) {
			afw_flow_unlink(an, f);
			return 0;
		}
	}
	return -ENOENT;
}

/* Removes the flows of buckets [from, to) that @all or expiry says must go. */
static void afw_flows_sweep(struct afw_net *an, u32 from, u32 to, bool all)
{
	struct hlist_head *buckets = afw_flows_buckets(an);
	struct hlist_node *tmp;
	struct afw_flow *f;
	u32 i;

	for (i = from; i < to; i++) {
		hlist_for_each_entry_safe(f, tmp, &buckets[i], node) {
			if (all)
				afw_flow_unlink(an, f);
			else if (afw_flow_expired(f))
				afw_flow_expire(an, f);
		}
	}
}

void afw_flows_flush(struct afw_net *an)
{
	lockdep_assert_held(&an->lock);
	if (afw_flows_buckets(an))
		afw_flows_sweep(an, 0, an->flows.hmask + 1, true);
}

static void afw_flows_gc(struct work_struct *work)
{
	struct afw_net *an = container_of(to_delayed_work(work), struct afw_net, flows.gc);
	u32 from, to;

	bool more;

	/* One full sweep per run, a slice at a time. */
	for (from = 0;; from = to) {
		mutex_lock(&an->lock);
		if (!afw_flows_buckets(an)) {
			mutex_unlock(&an->lock);
			return;
		}
		to = min(from + AFW_FLOW_GC_SLICE, an->flows.hmask + 1);
		afw_flows_sweep(an, from, to, false);
		more = an->flows.count;
		mutex_unlock(&an->lock);
		if (to > an->flows.hmask)
			break;
		cond_resched();
	}
	if (more)
		queue_delayed_work(system_power_efficient_wq, &an->flows.gc, AFW_FLOW_GC_INTERVAL);
}

void afw_flows_init(struct afw_net *an)
{
	an->flows.seed = get_random_u32();
	INIT_DELAYED_WORK(&an->flows.gc, afw_flows_gc);
}

/* Packets and control requests are gone; only the collector may still run. */
void afw_flows_exit(struct afw_net *an)
{
	cancel_delayed_work_sync(&an->flows.gc);
	mutex_lock(&an->lock);
	afw_flows_flush(an);
	kvfree(rcu_dereference_protected(an->flows.buckets, lockdep_is_held(&an->lock)));
	RCU_INIT_POINTER(an->flows.buckets, NULL);
	mutex_unlock(&an->lock);
}

int afw_flows_module_init(void)
{
	afw_flow_cache = KMEM_CACHE(afw_flow, 0);
	return afw_flow_cache ? 0 : -ENOMEM;
}

void afw_flows_module_exit(void)
{
	/* Flows are freed after a grace period: wait for that before the cache goes. */
	rcu_barrier();
	kmem_cache_destroy(afw_flow_cache);
}
