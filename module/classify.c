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
#include <linux/slab.h>
#include <linux/sort.h>
#include <uapi/linux/afw.h>

#include "classify.h"

static_assert(sizeof(struct afw_tuple) % sizeof(u64) == 0);

/* A port range expands to at most 30 prefixes. */
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

/* Everything about an entry's mask and key except the ports. */
static void afw_rule_base(const struct afw_rule *r, struct afw_tuple *mask,
			  struct afw_tuple *key)
{
	const struct afw_rule_ext *ext = NULL;
	unsigned int i;

	memset(mask, 0, sizeof(*mask));
	memset(key, 0, sizeof(*key));
	if (r->fields & AFW_RULE_F_EXT)
		ext = afw_rule_ext(r);
	if (r->family) {
		mask->family = 0xff;
		key->family = r->family;
	}
	if (r->proto) {
		mask->proto = 0xff;
		key->proto = r->proto;
	}
	if (r->fields & AFW_RULE_F_SRC) {
		afw_prefix_mask(mask->saddr, r->words, r->src_len);
		for (i = 0; i < r->words; i++)
			key->saddr[i] = afw_rule_src(r)[i];
	}
	if (r->fields & AFW_RULE_F_DST) {
		afw_prefix_mask(mask->daddr, r->words, r->dst_len);
		for (i = 0; i < r->words; i++)
			key->daddr[i] = afw_rule_dst(r)[i];
	}
	if (r->fields & AFW_RULE_F_IIF) {
		memset(mask->iif, 0xff, IFNAMSIZ);
		memcpy(key->iif, ext->iif, IFNAMSIZ);
	}
	if (r->fields & AFW_RULE_F_OIF) {
		memset(mask->oif, 0xff, IFNAMSIZ);
		memcpy(key->oif, ext->oif, IFNAMSIZ);
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
		key->uid = ext->uid;
	}
	if (r->fields & AFW_RULE_F_GID) {
		mask->gid = ~0U;
		key->gid = ext->gid;
	}
}

typedef int (*afw_entry_fn)(void *ctx, const struct afw_tuple *mask, const struct afw_tuple *key);

/*
 * Calls @fn for every (mask, key) entry of rule @r. Directions are not part
 * of the key: a rule for several directions stays one entry, and the match
 * checks the packet's direction against the rule.
 */
static int afw_rule_expand(const struct afw_rule *r, afw_entry_fn fn, void *ctx)
{
	u16 sval[AFW_MAX_PREFIXES], dval[AFW_MAX_PREFIXES];
	u8 slen[AFW_MAX_PREFIXES], dlen[AFW_MAX_PREFIXES];
	unsigned int ns = 1, nd = 1, s, d;
	struct afw_tuple mask, key;
	int ret;

	afw_rule_base(r, &mask, &key);
	sval[0] = dval[0] = 0;
	slen[0] = dlen[0] = 0;
	if (r->fields & AFW_RULE_F_SPORT)
		ns = afw_range_prefixes(r->sport_lo, r->sport_hi, sval, slen);
	if (r->fields & AFW_RULE_F_DPORT)
		nd = afw_range_prefixes(r->dport_lo, r->dport_hi, dval, dlen);

	for (s = 0; s < ns; s++) {
		for (d = 0; d < nd; d++) {
			mask.sport = slen[s] ? (u16)(0xffff << (16 - slen[s])) : 0;
			key.sport = sval[s];
			mask.dport = dlen[d] ? (u16)(0xffff << (16 - dlen[d])) : 0;
			key.dport = dval[d];
			ret = fn(ctx, &mask, &key);
			if (ret)
				return ret;
		}
	}
	return 0;
}

struct afw_build {
	struct afw_ruleset *rs;
	u32 max_masks;
	u32 index;			/* of the rule being expanded */
	u64 order;			/* its afw_rule_key() */
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

/* Pass 1: the tables and their sizes. */
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
	tb->best = min(tb->best, b->order);
	return 0;
}

/* Pass 2: each chain's length. */
static int afw_build_chains(void *ctx, const struct afw_tuple *mask, const struct afw_tuple *key)
{
	struct afw_build *b = ctx;
	struct afw_table *tb = afw_build_table(b, mask, false);

	tb->start[afw_hash(key, b->rs->seed) & tb->hmask]++;
	return 0;
}

/*
 * Pass 3, over the rules from the last: each entry goes just before the
 * ones placed already, so every chain ends up in rule order and each start
 * moves down to where its chain begins.
 */
static int afw_build_place(void *ctx, const struct afw_tuple *mask, const struct afw_tuple *key)
{
	struct afw_build *b = ctx;
	struct afw_table *tb = afw_build_table(b, mask, false);
	u32 bucket = afw_hash(key, b->rs->seed) & tb->hmask;
	struct afw_entry *e = &tb->entries[--tb->start[bucket]];

	e->rule = b->index;
	e->sport = key->sport;
	e->dport = key->dport;
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
		kvfree(rs->tables[i].start);
		kvfree(rs->tables[i].entries);
	}
	kvfree(rs->tables);
}

static void afw_build_pass(struct afw_build *b, struct afw_rule **rules, u32 i, afw_entry_fn fn)
{
	b->index = i;
	b->order = afw_rule_key(rules[i]);
	afw_rule_expand(rules[i], fn, b);
	if (!(i & 1023))
		cond_resched();
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
		b.index = i;
		b.order = afw_rule_key(rules[i]);
		ret = afw_rule_expand(rules[i], afw_build_count, &b);
		if (ret)
			goto err;
		if (!(i & 1023))
			cond_resched();
	}

	ret = -ENOMEM;
	for (i = 0; i < rs->ntables; i++) {
		tb = &rs->tables[i];
		/* Two entries per bucket on average: chains are contiguous. */
		tb->hmask = roundup_pow_of_two(DIV_ROUND_UP(tb->nentries, 2)) - 1;
		tb->start = kvcalloc(tb->hmask + 2, sizeof(*tb->start), GFP_KERNEL_ACCOUNT);
		tb->entries = kvmalloc_array(tb->nentries, sizeof(*tb->entries), GFP_KERNEL_ACCOUNT);
		if (!tb->start || !tb->entries)
			goto err;
		tb->start[tb->hmask + 1] = tb->nentries;
	}
	for (i = 0; i < nrules; i++)
		afw_build_pass(&b, rules, i, afw_build_chains);
	/* Lengths to where each chain ends; pass 3 moves them to the starts. */
	for (i = 0; i < rs->ntables; i++) {
		tb = &rs->tables[i];
		for (w = 1; w <= tb->hmask; w++)
			tb->start[w] += tb->start[w - 1];
	}
	for (i = nrules; i-- > 0;)
		afw_build_pass(&b, rules, i, afw_build_place);
	kvfree(b.slots);
	b.slots = NULL;

	/* Entries name their rule by index, never their table: sorting is safe. */
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

/*
 * Whether rule @r, whose entry matched @k's ports in a table of @r's own
 * mask, matches the rest of @k: the fields an entry leaves to its rule.
 * @k is masked, and a rule stores its prefixes with the host bits clear and
 * unused address words zero, so whole words compare.
 */
static bool afw_rule_match(const struct afw_rule *r, const struct afw_tuple *k, u8 dir)
{
	const struct afw_rule_ext *ext;

	if (!(r->dirs & (1 << dir)) || k->family != r->family || k->proto != r->proto)
		return false;
	if (memcmp(k->saddr, afw_rule_src(r), r->words * sizeof(__be32)) ||
	    memcmp(k->daddr, afw_rule_dst(r), r->words * sizeof(__be32)))
		return false;
	if (likely(!(r->fields & AFW_RULE_F_EXT)))
		return true;
	ext = afw_rule_ext(r);
	return (!(r->fields & AFW_RULE_F_IIF) || !memcmp(k->iif, ext->iif, IFNAMSIZ)) &&
	       (!(r->fields & AFW_RULE_F_OIF) || !memcmp(k->oif, ext->oif, IFNAMSIZ)) &&
	       (!(r->fields & AFW_RULE_F_UID) || k->uid == ext->uid) &&
	       (!(r->fields & AFW_RULE_F_GID) || k->gid == ext->gid);
}

struct afw_rule *afw_classify(const struct afw_ruleset *rs, const struct afw_tuple *t)
{
	const struct afw_entry *e, *end;
	const struct afw_table *tb;
	struct afw_rule *best = NULL, *r;
	u64 best_order = U64_MAX, order;
	struct afw_tuple k;
	u32 i, bucket;

	for (i = 0; i < rs->ntables; i++) {
		tb = &rs->tables[i];
		/* Tables are sorted by best: none from here on can win. */
		if (tb->best >= best_order)
			break;
		/* A rule with ports never matches a packet whose ports are unknown. */
		if ((t->flags & tb->mask.flags) != tb->mask.flags)
			continue;
		afw_tuple_and(&k, t, &tb->mask);
		bucket = afw_hash(&k, rs->seed) & tb->hmask;
		e = &tb->entries[tb->start[bucket]];
		end = &tb->entries[tb->start[bucket + 1]];
		for (; e < end; e++) {
			r = rs->rules[e->rule];
			order = afw_rule_key(r);
			if (order >= best_order)
				break;
			if (e->sport == k.sport && e->dport == k.dport &&
			    afw_rule_match(r, &k, t->dir)) {
				best = r;
				best_order = order;
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
