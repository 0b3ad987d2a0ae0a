// SPDX-License-Identifier: GPL-2.0
/*
 * The rule classifier: tuple space search over immutable snapshots.
 *
 * Lookup cost grows with the number of distinct masks, never with the
 * number of rules: each table is probed once with one hash computation.
 * Tables are ordered by the best rule they hold, so the search stops as soon
 * as no later table could beat the match already found.
 */

#include <linux/jhash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <uapi/linux/afw.h>

#include "classify.h"

static_assert(sizeof(struct afw_tuple) % sizeof(u64) == 0);

/* A rule covers at most 3 directions x 30 x 30 port prefixes. */
#define AFW_MAX_PREFIXES 32

static struct workqueue_struct *afw_free_wq;

unsigned int afw_range_prefixes(u16 lo, u16 hi, u16 *val, u8 *len)
{
	u32 cur = lo, size;
	unsigned int n = 0;

	while (cur <= hi) {
		/* The largest aligned block starting at cur that fits. */
		size = cur ? cur & -cur : 1U << 16;
		while (cur + size - 1 > hi)
			size >>= 1;
		val[n] = cur;
		len[n] = 16 - ilog2(size);
		n++;
		cur += size;
	}
	return n;
}

static void afw_prefix_mask(__be32 *mask, unsigned int words, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < words; i++, len = len > 32 ? len - 32 : 0)
		mask[i] = len >= 32 ? htonl(~0U) : len ? htonl(~0U << (32 - len)) : 0;
}

/* Everything about an entry's mask and key except ports and direction. */
static void afw_rule_base(const struct afw_rule *r, struct afw_tuple *mask,
			  struct afw_tuple *key)
{
	unsigned int words = r->family == AFW_FAMILY_IPV6 ? 4 : 1, i;

	memset(mask, 0, sizeof(*mask));
	memset(key, 0, sizeof(*key));
	if (r->family) {
		mask->family = 0xff;
		key->family = r->family;
	}
	if (r->proto) {
		mask->proto = 0xff;
		key->proto = r->proto;
	}
	if (r->fields & AFW_RULE_F_SRC) {
		afw_prefix_mask(mask->saddr, words, r->src_len);
		for (i = 0; i < words; i++)
			key->saddr[i] = r->src[i] & mask->saddr[i];
	}
	if (r->fields & AFW_RULE_F_DST) {
		afw_prefix_mask(mask->daddr, words, r->dst_len);
		for (i = 0; i < words; i++)
			key->daddr[i] = r->dst[i] & mask->daddr[i];
	}
	if (r->fields & AFW_RULE_F_IIF) {
		memset(mask->iif, 0xff, IFNAMSIZ);
		memcpy(key->iif, r->iif, IFNAMSIZ);
	}
	if (r->fields & AFW_RULE_F_OIF) {
		memset(mask->oif, 0xff, IFNAMSIZ);
		memcpy(key->oif, r->oif, IFNAMSIZ);
	}
	if (r->fields & (AFW_RULE_F_SPORT | AFW_RULE_F_DPORT)) {
		mask->flags |= AFW_TUPLE_PORTS;
		key->flags |= AFW_TUPLE_PORTS;
	}
	if (r->fields & (AFW_RULE_F_UID | AFW_RULE_F_GID)) {
		mask->flags |= AFW_TUPLE_OWNER;
		key->flags |= AFW_TUPLE_OWNER;
	}
	if (r->fields & AFW_RULE_F_UID) {
		mask->uid = ~0U;
		key->uid = r->uid;
	}
	if (r->fields & AFW_RULE_F_GID) {
		mask->gid = ~0U;
		key->gid = r->gid;
	}
}

/* Calls @fn for every (mask, key) entry of rule @r. */
static int afw_rule_expand(const struct afw_rule *r,
			   int (*fn)(void *ctx, const struct afw_tuple *mask,
				     const struct afw_tuple *key),
			   void *ctx)
{
	u16 sval[AFW_MAX_PREFIXES], dval[AFW_MAX_PREFIXES];
	u8 slen[AFW_MAX_PREFIXES], dlen[AFW_MAX_PREFIXES];
	unsigned int ns = 1, nd = 1, s, d, dir;
	struct afw_tuple bmask, bkey, mask, key;
	int ret;

	afw_rule_base(r, &bmask, &bkey);
	sval[0] = dval[0] = 0;
	slen[0] = dlen[0] = 0;
	if (r->fields & AFW_RULE_F_SPORT)
		ns = afw_range_prefixes(r->sport_lo, r->sport_hi, sval, slen);
	if (r->fields & AFW_RULE_F_DPORT)
		nd = afw_range_prefixes(r->dport_lo, r->dport_hi, dval, dlen);

	for (dir = 0; dir <= AFW_DIR_MAX; dir++) {
		if (r->dirs != AFW_DIRS_ALL && !(r->dirs & (1 << dir)))
			continue;
		for (s = 0; s < ns; s++) {
			for (d = 0; d < nd; d++) {
				mask = bmask;
				key = bkey;
				if (r->dirs != AFW_DIRS_ALL) {
					mask.dir = 0xff;
					key.dir = dir;
				}
				mask.sport = slen[s] ? (u16)(0xffff << (16 - slen[s])) : 0;
				key.sport = sval[s];
				mask.dport = dlen[d] ? (u16)(0xffff << (16 - dlen[d])) : 0;
				key.dport = dval[d];
				ret = fn(ctx, &mask, &key);
				if (ret)
					return ret;
			}
		}
		if (r->dirs == AFW_DIRS_ALL)
			break;
	}
	return 0;
}

struct afw_build {
	struct afw_ruleset *rs;
	u32 max_masks;
	const struct afw_rule *rule;
	struct netlink_ext_ack *extack;
	u32 *slots;			/* open addressing: table index + 1 */
	u32 nslots;
};

static u32 afw_hash(const struct afw_tuple *t, u32 seed)
{
	return jhash2((const u32 *)t, sizeof(*t) / sizeof(u32), seed);
}

static struct afw_table *afw_build_table(struct afw_build *b, const struct afw_tuple *mask,
					 bool create)
{
	struct afw_ruleset *rs = b->rs;
	u32 i = afw_hash(mask, 0) & (b->nslots - 1);

	for (;; i = (i + 1) & (b->nslots - 1)) {
		if (!b->slots[i])
			break;
		if (afw_tuple_eq(&rs->tables[b->slots[i] - 1].mask, mask))
			return &rs->tables[b->slots[i] - 1];
	}
	if (!create || rs->ntables == b->max_masks)
		return NULL;
	b->slots[i] = ++rs->ntables;
	rs->tables[rs->ntables - 1].mask = *mask;
	rs->tables[rs->ntables - 1].best = U64_MAX;
	return &rs->tables[rs->ntables - 1];
}

static int afw_build_count(void *ctx, const struct afw_tuple *mask, const struct afw_tuple *key)
{
	struct afw_build *b = ctx;
	struct afw_table *tb = afw_build_table(b, mask, true);

	if (!tb) {
		NL_SET_ERR_MSG_MOD(b->extack,
				   "the rules need more distinct masks than max_masks allows; use fewer distinct prefix lengths and port ranges");
		return -ENOSPC;
	}
	tb->nentries++;
	tb->best = min(tb->best, afw_rule_key(b->rule));
	return 0;
}

static int afw_build_insert(void *ctx, const struct afw_tuple *mask, const struct afw_tuple *key)
{
	struct afw_build *b = ctx;
	struct afw_table *tb = afw_build_table(b, mask, false);
	struct afw_entry *e = &tb->entries[tb->nentries++], *pos, *last = NULL;
	struct hlist_head *head = &tb->buckets[afw_hash(key, b->rs->seed) & tb->hmask];

	e->rule = (struct afw_rule *)b->rule;
	e->order = afw_rule_key(b->rule);
	e->key = *key;
	/* Rules arrive in order, so appending keeps each bucket sorted. */
	hlist_for_each_entry(pos, head, node)
		last = pos;
	if (last)
		hlist_add_behind_rcu(&e->node, &last->node);
	else
		hlist_add_head_rcu(&e->node, head);
	return 0;
}

static int afw_table_cmp(const void *a, const void *b)
{
	const struct afw_table *x = a, *y = b;

	return x->best < y->best ? -1 : x->best > y->best;
}

static void afw_tables_free(struct afw_ruleset *rs)
{
	u32 i;

	for (i = 0; i < rs->ntables; i++) {
		kvfree(rs->tables[i].buckets);
		kvfree(rs->tables[i].entries);
	}
	kvfree(rs->tables);
}

struct afw_ruleset *afw_ruleset_build(struct afw_rule **rules, u32 nrules, u64 gen,
				      u32 max_masks, struct netlink_ext_ack *extack)
{
	struct afw_build b = { .max_masks = max_masks, .extack = extack };
	struct afw_ruleset *rs;
	struct afw_table *tb;
	u32 i, w;
	int ret = -ENOMEM;

	rs = kzalloc(sizeof(*rs), GFP_KERNEL_ACCOUNT);
	if (!rs)
		return ERR_PTR(-ENOMEM);
	rs->gen = gen;
	rs->seed = get_random_u32();
	b.rs = rs;
	b.nslots = roundup_pow_of_two(max_masks * 2);
	b.slots = kvcalloc(b.nslots, sizeof(*b.slots), GFP_KERNEL);
	rs->tables = kvcalloc(max_masks, sizeof(*rs->tables), GFP_KERNEL_ACCOUNT);
	if (!b.slots || !rs->tables)
		goto err;

	for (i = 0; i < nrules; i++) {
		b.rule = rules[i];
		ret = afw_rule_expand(rules[i], afw_build_count, &b);
		if (ret)
			goto err;
		cond_resched();
	}

	ret = -ENOMEM;
	for (i = 0; i < rs->ntables; i++) {
		tb = &rs->tables[i];
		tb->hmask = roundup_pow_of_two(tb->nentries) - 1;
		tb->buckets = kvcalloc(tb->hmask + 1, sizeof(*tb->buckets), GFP_KERNEL_ACCOUNT);
		tb->entries = kvmalloc_array(tb->nentries, sizeof(*tb->entries), GFP_KERNEL_ACCOUNT);
		if (!tb->buckets || !tb->entries)
			goto err;
		tb->nentries = 0;
	}
	for (i = 0; i < nrules; i++) {
		b.rule = rules[i];
		afw_rule_expand(rules[i], afw_build_insert, &b);
		cond_resched();
	}
	kvfree(b.slots);
	b.slots = NULL;

	/* The entries point into their table, not at it: sorting is safe. */
	sort(rs->tables, rs->ntables, sizeof(*rs->tables), afw_table_cmp, NULL);
	for (i = 0; i < rs->ntables; i++)
		for (w = 0; w < AFW_TUPLE_WORDS; w++)
			((u64 *)&rs->need)[w] |= ((u64 *)&rs->tables[i].mask)[w];
	/*
	 * A queue rule picks the queue by flow hash, ports included. Without
	 * them, a flow would move to another queue as soon as anything else
	 * made the hook read the ports (a first flow entry, a port rule).
	 */
	for (i = 0; i < nrules; i++)
		if (rules[i]->action == AFW_ACTION_QUEUE)
			rs->need.flags |= AFW_TUPLE_PORTS;

	for (i = 0; i < nrules; i++)
		afw_rule_get(rules[i]);
	rs->rules = rules;
	rs->nrules = nrules;
	return rs;

err:
	kvfree(b.slots);
	afw_tables_free(rs);
	kfree(rs);
	return ERR_PTR(ret);
}

void afw_ruleset_free(struct afw_ruleset *rs)
{
	u32 i;

	for (i = 0; i < rs->nrules; i++) {
		afw_rule_put(rs->rules[i]);
		if (!(i & 1023))
			cond_resched();
	}
	kvfree(rs->rules);
	afw_tables_free(rs);
	kfree(rs);
}

static void afw_ruleset_free_work(struct work_struct *work)
{
	afw_ruleset_free(container_of(to_rcu_work(work), struct afw_ruleset, free_work));
}

void afw_ruleset_free_rcu(struct afw_ruleset *rs)
{
	/* A big ruleset takes a while to free: not in softirq, so via a work. */
	INIT_RCU_WORK(&rs->free_work, afw_ruleset_free_work);
	queue_rcu_work(afw_free_wq, &rs->free_work);
}

struct afw_rule *afw_classify(const struct afw_ruleset *rs, const struct afw_tuple *t)
{
	const struct afw_table *tb;
	struct afw_rule *best = NULL;
	u64 best_order = U64_MAX;
	struct afw_tuple k;
	struct afw_entry *e;
	u32 i;

	for (i = 0; i < rs->ntables; i++) {
		tb = &rs->tables[i];
		/* Tables are sorted by best: none from here on can win. */
		if (tb->best >= best_order)
			break;
		afw_tuple_and(&k, t, &tb->mask);
		hlist_for_each_entry_rcu(e, &tb->buckets[afw_hash(&k, rs->seed) & tb->hmask], node) {
			if (e->order >= best_order)
				break;
			if (afw_tuple_eq(&e->key, &k)) {
				best = e->rule;
				best_order = e->order;
				break;
			}
		}
	}
	return best;
}

int afw_classify_init(void)
{
	afw_free_wq = alloc_workqueue("afw_free", WQ_UNBOUND, 0);
	return afw_free_wq ? 0 : -ENOMEM;
}

void afw_classify_exit(void)
{
	/* Every queued snapshot free is an RCU callback first, then a work. */
	rcu_barrier();
	destroy_workqueue(afw_free_wq);
}
