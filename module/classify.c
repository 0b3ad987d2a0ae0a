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
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <uapi/linux/afw.h>

#include "classify.h"
#include "ident.h"

static_assert(sizeof(struct afw_tuple) % sizeof(u64) == 0);
static_assert(sizeof(struct afw_entry) == 12);

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
	if (r->fields & AFW_RULE_F_EXE) {
		mask->exe = ~0ULL;
		key->exe = ext->exe;
	}
	if (r->fields & AFW_RULE_F_CGROUP) {
		mask->cgroup = afw_ident_cgroup_mask(afw_ident_cgroup_level(ext->cgroup));
		key->cgroup = ext->cgroup;
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
	sval[0] = 0;
	dval[0] = 0;
	slen[0] = 0;
	dlen[0] = 0;
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

#define AFW_TUPLE_U32 (sizeof(struct afw_tuple) / sizeof(u32))
static_assert(AFW_TUPLE_U32 <= 32);

/* A set of masks: every word counts. */
static u32 afw_mask_hash(const struct afw_tuple *mask)
{
	return jhash2((const u32 *)mask, AFW_TUPLE_U32, 0);
}

/* The 32-bit words @mask covers, as a bitmap. */
static u32 afw_mask_words(const struct afw_tuple *mask)
{
	const u32 *m = (const u32 *)mask;
	u32 words = 0;
	unsigned int i;

	for (i = 0; i < AFW_TUPLE_U32; i++)
		if (m[i])
			words |= 1U << i;
	return words;
}

/*
 * The hash of a key of a table whose mask covers @words: those words
 * alone, as every other word of every key the table holds or is asked
 * for is zero. A mask covers a handful of the tuple's 32, and hashing all
 * of them was most of a table's probe (bench/hookpath.sh).
 */
static u32 afw_hash(const struct afw_tuple *t, u32 words, u32 seed)
{
	const u32 *w = (const u32 *)t;
	u32 v[AFW_TUPLE_U32] __uninitialized;
	unsigned int n = 0;

	while (words) {
		v[n++] = w[__ffs(words)];
		words &= words - 1;
	}
	return jhash2(v, n, seed);
}

static void afw_table_free(struct afw_table *tb)
{
	kvfree(tb->start);
	kvfree(tb->entries);
	kfree(tb);
}

static void afw_table_put(struct afw_table *tb)
{
	if (refcount_dec_and_test(&tb->ref))
		afw_table_free(tb);
}

static struct afw_table *afw_table_alloc(const struct afw_tuple *mask, u32 nentries, u32 hmask,
					 u32 seed)
{
	struct afw_table *tb;

	tb = kzalloc(sizeof(*tb), GFP_KERNEL_ACCOUNT);
	if (!tb)
		return NULL;
	tb->start = kvcalloc(hmask + 2, sizeof(*tb->start), GFP_KERNEL_ACCOUNT);
	tb->entries = kvmalloc_array(nentries, sizeof(*tb->entries), GFP_KERNEL_ACCOUNT);
	if (!tb->start || !tb->entries) {
		afw_table_free(tb);
		return NULL;
	}
	refcount_set(&tb->ref, 1);
	tb->mask = *mask;
	tb->words = afw_mask_words(mask);
	tb->hmask = hmask;
	tb->nentries = nentries;
	tb->seed = seed;
	tb->best = U64_MAX;
	return tb;
}

/* The bucket of @e in @tb, a table of its mask: the hash of its whole key. */
static u32 afw_entry_bucket(const struct afw_table *tb, const struct afw_entry *e)
{
	struct afw_tuple mask, key;

	afw_rule_base(e->rule, &mask, &key);
	key.sport = e->sport;
	key.dport = e->dport;
	return afw_hash(&key, tb->words, tb->seed) & tb->hmask;
}

/*
 * Puts each chain of @tb in rule order (a chain holds a couple of entries:
 * an insertion sort, which does nothing to chains in order already), and
 * notes the table's best.
 */
static void afw_table_order(struct afw_table *tb)
{
	struct afw_entry *c, x;
	u32 b, i, j, n;
	u64 order;

	for (b = 0; b <= tb->hmask; b++) {
		c = &tb->entries[tb->start[b]];
		n = tb->start[b + 1] - tb->start[b];
		for (i = 1; i < n; i++) {
			x = c[i];
			order = afw_rule_key(x.rule);
			for (j = i; j > 0 && afw_rule_key(c[j - 1].rule) > order; j--)
				c[j] = c[j - 1];
			c[j] = x;
		}
		if (n)
			tb->best = min(tb->best, afw_rule_key(c[0].rule));
		if (!(b & 4095))
			cond_resched();
	}
}

/* Two entries per bucket on average. */
static u32 afw_table_hmask(u32 n)
{
	return roundup_pow_of_two(DIV_ROUND_UP(n, 2)) - 1;
}

/* Fills @tb with the @n entries @in, in the buckets @bucket names. */
static void afw_table_place(struct afw_table *tb, const struct afw_entry *in, const u32 *bucket,
			    u32 n)
{
	u32 i, b;

	for (i = 0; i < n; i++)
		tb->start[bucket[i]]++;
	/* Lengths to where each chain ends, then filled from the back. */
	for (b = 1; b <= tb->hmask; b++)
		tb->start[b] += tb->start[b - 1];
	tb->start[tb->hmask + 1] = n;
	for (i = n; i-- > 0;)
		tb->entries[--tb->start[bucket[i]]] = in[i];
	afw_table_order(tb);
}

/* A table of @mask holding the @n entries @in, hashed afresh under a seed of its own. */
static struct afw_table *afw_table_build(const struct afw_tuple *mask, const struct afw_entry *in,
					 u32 n)
{
	struct afw_table *tb;
	u32 *bucket, i;

	tb = afw_table_alloc(mask, n, afw_table_hmask(n), get_random_u32());
	bucket = kvmalloc_array(n, sizeof(*bucket), GFP_KERNEL);
	if (!tb || !bucket) {
		if (tb)
			afw_table_free(tb);
		kvfree(bucket);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		bucket[i] = afw_entry_bucket(tb, &in[i]);
		if (!(i & 1023))
			cond_resched();
	}
	afw_table_place(tb, in, bucket, n);
	kvfree(bucket);
	return tb;
}

/* @old's entries and the @nadd of @add, hashed afresh. */
static struct afw_table *afw_table_rebuild(const struct afw_table *old,
					   const struct afw_entry *add, u32 nadd,
					   const struct afw_rule *drop)
{
	struct afw_table *tb;
	struct afw_entry *all;
	u32 i, n = 0;

	all = kvmalloc_array(old->nentries + nadd, sizeof(*all), GFP_KERNEL);
	if (!all)
		return NULL;
	for (i = 0; i < old->nentries; i++)
		if (old->entries[i].rule != drop)
			all[n++] = old->entries[i];
	memcpy(all + n, add, nadd * sizeof(*add));
	tb = afw_table_build(&old->mask, all, n + nadd);
	kvfree(all);
	return tb;
}

static int afw_entry_bucket_cmp(const void *a, const void *b)
{
	const u32 *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/*
 * @old with the @nadd entries @add of one new rule. While the buckets
 * suffice (four entries per bucket on average, at most), this is a copy:
 * each chain as it was, the new entries slotted in by rule order. Past
 * that, the table is hashed again, at twice as many buckets as it had.
 * @order_b is room for 2 * @nadd numbers.
 */
static struct afw_table *afw_table_with(const struct afw_table *old, const struct afw_entry *add,
					u32 nadd, u32 *order_b)
{
	u64 order = afw_rule_key(add[0].rule);
	u32 n = old->nentries + nadd;
	struct afw_table *tb;
	u32 b, s, e, i, j = 0, pos = 0;

	if (n > 4 * (old->hmask + 1))
		return afw_table_rebuild(old, add, nadd, NULL);
	tb = afw_table_alloc(&old->mask, n, old->hmask, old->seed);
	if (!tb)
		return NULL;
	/* (bucket, index) pairs of the new entries, by bucket. */
	for (i = 0; i < nadd; i++) {
		order_b[2 * i] = afw_entry_bucket(tb, &add[i]);
		order_b[2 * i + 1] = i;
	}
	sort(order_b, nadd, 2 * sizeof(u32), afw_entry_bucket_cmp, NULL);
	for (b = 0; b <= tb->hmask; b++) {
		tb->start[b] = pos;
		s = old->start[b];
		e = old->start[b + 1];
		for (; s < e && afw_rule_key(old->entries[s].rule) < order; s++)
			tb->entries[pos++] = old->entries[s];
		for (; j < nadd && order_b[2 * j] == b; j++)
			tb->entries[pos++] = add[order_b[2 * j + 1]];
		for (; s < e; s++)
			tb->entries[pos++] = old->entries[s];
		if (!(b & 4095))
			cond_resched();
	}
	tb->start[tb->hmask + 1] = pos;
	tb->best = min(old->best, order);
	return tb;
}

/*
 * @old without the entries of @rule: NULL when none would be left, an
 * ERR_PTR when out of memory. A copy, or a table hashed again at fewer
 * buckets when fewer than one in sixteen would hold an entry.
 */
static struct afw_table *afw_table_without(const struct afw_table *old, const struct afw_rule *rule)
{
	struct afw_table *tb;
	u32 b, i, n = 0, pos = 0;

	for (i = 0; i < old->nentries; i++)
		n += old->entries[i].rule != rule;
	if (!n)
		return NULL;
	if (16 * n < old->hmask + 1)
		tb = afw_table_rebuild(old, NULL, 0, rule);
	else
		tb = afw_table_alloc(&old->mask, n, old->hmask, old->seed);
	if (!tb)
		return ERR_PTR(-ENOMEM);
	if (16 * n < old->hmask + 1)
		return tb;
	for (b = 0; b <= tb->hmask; b++) {
		tb->start[b] = pos;
		for (i = old->start[b]; i < old->start[b + 1]; i++) {
			if (old->entries[i].rule == rule)
				continue;
			tb->entries[pos++] = old->entries[i];
			tb->best = min(tb->best, afw_rule_key(old->entries[i].rule));
		}
		if (!(b & 4095))
			cond_resched();
	}
	tb->start[tb->hmask + 1] = pos;
	return tb;
}

static int afw_table_cmp(const void *a, const void *b)
{
	const struct afw_table *x = *(const struct afw_table * const *)a;
	const struct afw_table *y = *(const struct afw_table * const *)b;

	return x->best < y->best ? -1 : x->best > y->best;
}

/* What a rule asks of every packet beyond its mask: read the ports. */
static bool afw_rule_needs_ports(const struct afw_rule *r)
{
	/* A queue rule picks the queue by flow hash, ports included. */
	if (r->action == AFW_ACTION_QUEUE)
		return true;
	/* afw's own resets pass by their flags: read them. */
	return r->action == AFW_ACTION_REJECT && (!r->proto || r->proto == IPPROTO_TCP);
}

/*
 * Sorts the tables, derives what the hook must read of every packet (the
 * union of the masks, and the ports wherever a rule needs them), and takes
 * the snapshot's own reference on each of its rules.
 */
static void afw_ruleset_finish(struct afw_ruleset *rs)
{
	u32 i, w;

	sort(rs->tables, rs->ntables, sizeof(*rs->tables), afw_table_cmp, NULL);
	memset(&rs->need, 0, sizeof(rs->need));
	for (i = 0; i < rs->ntables; i++)
		for (w = 0; w < AFW_TUPLE_WORDS; w++)
			((u64 *)&rs->need)[w] |= ((u64 *)&rs->tables[i]->mask)[w];
	/*
	 * Without the ports for a queue rule, a flow would move to another
	 * queue as soon as anything else made the hook read them.
	 */
	if (rs->nports)
		rs->need.flags |= AFW_TUPLE_PORTS;
	rs->stateful = rs->nrefusing;
	for (i = 0; i < rs->nrules; i++) {
		afw_rule_get(rs->rules[i]);
		if (!(i & 1023))
			cond_resched();
	}
}

static void afw_ruleset_count(struct afw_ruleset *rs, const struct afw_rule *r, int sign)
{
	rs->nports += sign * afw_rule_needs_ports(r);
	rs->nrefusing += sign * (r->action != AFW_ACTION_ACCEPT);
}

#define AFW_MAX_EXPANSION (AFW_MAX_PREFIXES * AFW_MAX_PREFIXES)

/* Every (mask, key) of one rule, as the entries it becomes, and room to work. */
struct afw_expansion {
	const struct afw_rule *rule;
	u32 n;
	struct afw_tuple mask[AFW_MAX_EXPANSION];
	struct afw_entry entry[AFW_MAX_EXPANSION];
	struct afw_entry group[AFW_MAX_EXPANSION];
	bool taken[AFW_MAX_EXPANSION];
	u32 scratch[2 * AFW_MAX_EXPANSION];
};

static int afw_expansion_add(void *ctx, const struct afw_tuple *mask, const struct afw_tuple *key)
{
	struct afw_expansion *x = ctx;

	x->mask[x->n] = *mask;
	x->entry[x->n] = (struct afw_entry){
		.rule = (struct afw_rule *)x->rule,
		.sport = key->sport,
		.dport = key->dport,
	};
	x->n++;
	return 0;
}

static struct afw_expansion *afw_expand(const struct afw_rule *r)
{
	struct afw_expansion *x = kvmalloc(sizeof(*x), GFP_KERNEL);

	if (!x)
		return NULL;
	x->rule = r;
	x->n = 0;
	afw_rule_expand(r, afw_expansion_add, x);
	memset(x->taken, 0, sizeof(x->taken));
	return x;
}

/*
 * The next of @x's masks not yet taken, with its entries gathered in
 * @x->group: how many, or 0 when every mask is taken. @first is where to
 * look from, and moves on.
 */
static u32 afw_expansion_group(struct afw_expansion *x, u32 *first)
{
	u32 i = *first, j, n = 0;

	while (i < x->n && x->taken[i])
		i++;
	*first = i;
	if (i == x->n)
		return 0;
	for (j = i; j < x->n; j++) {
		if (x->taken[j] || !afw_tuple_eq(&x->mask[j], &x->mask[i]))
			continue;
		x->taken[j] = true;
		x->group[n++] = x->entry[j];
	}
	return n;
}

/* The index in @rs->tables of the table of @mask, or -1. */
static int afw_ruleset_table_of(const struct afw_ruleset *rs, const struct afw_tuple *mask)
{
	u32 i;

	for (i = 0; i < rs->ntables; i++)
		if (afw_tuple_eq(&rs->tables[i]->mask, mask))
			return i;
	return -1;
}

static void afw_ruleset_release(struct afw_ruleset *rs)
{
	u32 i;

	for (i = 0; i < rs->ntables; i++)
		afw_table_put(rs->tables[i]);
	kvfree(rs->tables);
	kvfree(rs->rules);
	kfree(rs);
}

/* @rs's tables are @old's, one more reference each, in room for @max. */
static int afw_ruleset_share(struct afw_ruleset *rs, const struct afw_ruleset *old, u32 max)
{
	u32 i;

	rs->tables = kvcalloc(max, sizeof(*rs->tables), GFP_KERNEL_ACCOUNT);
	if (!rs->tables)
		return -ENOMEM;
	for (i = 0; old && i < old->ntables; i++) {
		refcount_inc(&old->tables[i]->ref);
		rs->tables[i] = old->tables[i];
	}
	rs->ntables = old ? old->ntables : 0;
	rs->nports = old ? old->nports : 0;
	rs->nrefusing = old ? old->nrefusing : 0;
	return 0;
}

struct afw_ruleset *afw_ruleset_with(const struct afw_ruleset *old, struct afw_rule *rule,
				     u64 gen, u32 max_masks, struct netlink_ext_ack *extack)
{
	u32 n = old ? old->nrules : 0, pos, i = 0, nadd;
	struct afw_expansion *x = NULL;
	struct afw_table *tb;
	struct afw_ruleset *rs;
	int t, ret = -ENOMEM;

	rs = kzalloc(sizeof(*rs), GFP_KERNEL_ACCOUNT);
	if (!rs)
		return ERR_PTR(-ENOMEM);
	rs->gen = gen;
	rs->rules = kvmalloc_array(n + 1, sizeof(*rs->rules), GFP_KERNEL_ACCOUNT);
	x = afw_expand(rule);
	/* Room for a new table per mask of the rule, within max_masks. */
	if (!rs->rules || !x ||
	    afw_ruleset_share(rs, old, min(max_masks, (old ? old->ntables : 0) + x->n)))
		goto err;
	for (pos = 0; pos < n && afw_rule_key(old->rules[pos]) < afw_rule_key(rule); pos++)
		;
	if (pos)
		memcpy(rs->rules, old->rules, pos * sizeof(*rs->rules));
	rs->rules[pos] = rule;
	if (n > pos)
		memcpy(rs->rules + pos + 1, old->rules + pos, (n - pos) * sizeof(*rs->rules));
	rs->nrules = n + 1;

	/* The rule's entries, a mask at a time: they go together into its table. */
	while ((nadd = afw_expansion_group(x, &i))) {
		t = afw_ruleset_table_of(rs, &x->mask[i]);
		if (t < 0 && rs->ntables >= max_masks) {
			NL_SET_ERR_MSG_MOD(extack,
					   "the rules need more distinct masks than max_masks allows; use fewer distinct prefix lengths and port ranges");
			ret = -ENOSPC;
			goto err;
		}
		tb = t < 0 ? afw_table_build(&x->mask[i], x->group, nadd) :
			     afw_table_with(rs->tables[t], x->group, nadd, x->scratch);
		if (!tb)
			goto err;
		if (t < 0) {
			rs->tables[rs->ntables++] = tb;
		} else {
			afw_table_put(rs->tables[t]);
			rs->tables[t] = tb;
		}
	}
	kvfree(x);
	afw_ruleset_count(rs, rule, 1);
	afw_ruleset_finish(rs);
	return rs;

err:
	kvfree(x);
	afw_ruleset_release(rs);
	return ERR_PTR(ret);
}

struct afw_ruleset *afw_ruleset_without(const struct afw_ruleset *old, u32 index, u64 gen)
{
	const struct afw_rule *rule = old->rules[index];
	struct afw_expansion *x;
	struct afw_ruleset *rs;
	struct afw_table *tb;
	u32 first = 0;
	int t;

	rs = kzalloc(sizeof(*rs), GFP_KERNEL_ACCOUNT);
	if (!rs)
		return ERR_PTR(-ENOMEM);
	rs->gen = gen;
	rs->rules = kvmalloc_array(old->nrules - 1, sizeof(*rs->rules), GFP_KERNEL_ACCOUNT);
	x = afw_expand(rule);
	if (!rs->rules || !x || afw_ruleset_share(rs, old, old->ntables))
		goto err;
	memcpy(rs->rules, old->rules, index * sizeof(*rs->rules));
	memcpy(rs->rules + index, old->rules + index + 1,
	       (old->nrules - index - 1) * sizeof(*rs->rules));
	rs->nrules = old->nrules - 1;

	/* Only the tables of the rule's masks hold its entries. */
	while (afw_expansion_group(x, &first)) {
		t = afw_ruleset_table_of(rs, &x->mask[first]);
		if (t < 0)
			continue;
		tb = afw_table_without(rs->tables[t], rule);
		if (IS_ERR(tb))
			goto err;
		afw_table_put(rs->tables[t]);
		if (tb) {
			rs->tables[t] = tb;
		} else {
			rs->tables[t] = rs->tables[--rs->ntables];
			rs->tables[rs->ntables] = NULL;
		}
	}
	kvfree(x);
	afw_ruleset_count(rs, rule, -1);
	afw_ruleset_finish(rs);
	return rs;

err:
	kvfree(x);
	afw_ruleset_release(rs);
	return ERR_PTR(-ENOMEM);
}

/*
 * A full build. Each rule is expanded once: its entries are kept, with
 * their masks and the hashes of their keys under their tables' seeds,
 * and placed in the tables once the tables' sizes are known. (Expanding
 * twice, to count and then to fill, was a sixth of a million-rule load.)
 */
struct afw_build_mask {
	struct afw_tuple mask;
	u32 words;			/* afw_mask_words() */
	u32 seed;
	u32 n;
	struct afw_table *table;
};

struct afw_build_item {
	struct afw_entry e;
	u32 hash;			/* of the entry's key, under its table's seed */
	u32 mask;			/* index into afw_build.masks */
};

/*
 * The items, in chunks of 1 MiB allocated as they fill: a ruleset of wide
 * port ranges may expand to more than one kvmalloc() takes (INT_MAX
 * bytes, past which it warns), and one that needs too many masks fails at
 * its first rule that does, before it has taken much.
 */
#define AFW_BUILD_CHUNK_BYTES	SZ_1M

struct afw_build_chunk {
	struct afw_build_chunk *next;
	u32 n;
	struct afw_build_item items[];
};

#define AFW_BUILD_CHUNK_ITEMS							\
	((AFW_BUILD_CHUNK_BYTES - sizeof(struct afw_build_chunk)) / sizeof(struct afw_build_item))

struct afw_build {
	u32 max_masks;
	u32 nmasks;
	struct afw_build_mask *masks;
	struct afw_build_mask *last;	/* a rule's neighbour mostly has its masks */
	u32 *slots;			/* open addressing: mask index + 1 */
	u32 nslots;
	struct afw_rule *rule;		/* the rule being expanded */
	struct afw_build_chunk *first, *tail;
	struct netlink_ext_ack *extack;
};

static struct afw_build_mask *afw_build_mask_of(struct afw_build *b, const struct afw_tuple *mask)
{
	u32 i;

	if (b->last && afw_tuple_eq(&b->last->mask, mask))
		return b->last;
	i = afw_mask_hash(mask) & (b->nslots - 1);

	for (;; i = (i + 1) & (b->nslots - 1)) {
		if (!b->slots[i])
			break;
		if (afw_tuple_eq(&b->masks[b->slots[i] - 1].mask, mask)) {
			b->last = &b->masks[b->slots[i] - 1];
			return b->last;
		}
	}
	if (b->nmasks == b->max_masks)
		return NULL;
	b->slots[i] = ++b->nmasks;
	b->last = &b->masks[b->nmasks - 1];
	b->last->mask = *mask;
	b->last->seed = get_random_u32();
	b->last->words = afw_mask_words(mask);
	return b->last;
}

/* Room for one more item; the memory is charged as the tables' is. */
static struct afw_build_item *afw_build_item_new(struct afw_build *b)
{
	struct afw_build_chunk *c = b->tail;

	if (!c || c->n == AFW_BUILD_CHUNK_ITEMS) {
		c = kvmalloc(AFW_BUILD_CHUNK_BYTES, GFP_KERNEL_ACCOUNT);
		if (!c)
			return NULL;
		c->next = NULL;
		c->n = 0;
		if (b->tail)
			b->tail->next = c;
		else
			b->first = c;
		b->tail = c;
	}
	return &c->items[c->n++];
}

static void afw_build_items_free(struct afw_build *b)
{
	struct afw_build_chunk *c, *next;

	for (c = b->first; c; c = next) {
		next = c->next;
		kvfree(c);
	}
	b->first = NULL;
	b->tail = NULL;
}

static int afw_build_entry(void *ctx, const struct afw_tuple *mask, const struct afw_tuple *key)
{
	struct afw_build *b = ctx;
	struct afw_build_mask *m = afw_build_mask_of(b, mask);
	struct afw_build_item *it;

	if (!m) {
		NL_SET_ERR_MSG_MOD(b->extack,
				   "the rules need more distinct masks than max_masks allows; use fewer distinct prefix lengths and port ranges");
		return -ENOSPC;
	}
	it = afw_build_item_new(b);
	if (!it)
		return -ENOMEM;
	m->n++;
	it->e = (struct afw_entry){ .rule = b->rule, .sport = key->sport, .dport = key->dport };
	it->hash = afw_hash(key, m->words, m->seed);
	it->mask = m - b->masks;
	return 0;
}

static int afw_build_pass(struct afw_build *b, struct afw_rule **rules, u32 nrules)
{
	u32 i;
	int ret;

	for (i = 0; i < nrules; i++) {
		b->rule = rules[i];
		ret = afw_rule_expand(rules[i], afw_build_entry, b);
		if (ret)
			return ret;
		if (!(i & 1023))
			cond_resched();
	}
	return 0;
}

/*
 * The tables, filled from the items: each chain's length counted, the
 * chains' starts summed, each entry placed at its chain's next free slot
 * (which moves each start to the next chain's), and the starts moved back.
 */
static int afw_build_tables(struct afw_build *b, struct afw_ruleset *rs)
{
	const struct afw_build_item *it;
	const struct afw_build_chunk *c;
	struct afw_table *tb;
	u32 i, k;

	for (i = 0; i < b->nmasks; i++) {
		tb = afw_table_alloc(&b->masks[i].mask, b->masks[i].n,
				     afw_table_hmask(b->masks[i].n), b->masks[i].seed);
		if (!tb)
			return -ENOMEM;
		b->masks[i].table = tb;
		rs->tables[rs->ntables++] = tb;
	}
	for (c = b->first; c; c = c->next) {
		for (k = 0, it = c->items; k < c->n; k++, it++) {
			tb = b->masks[it->mask].table;
			tb->start[(it->hash & tb->hmask) + 1]++;
		}
		cond_resched();
	}
	for (i = 0; i < b->nmasks; i++) {
		tb = b->masks[i].table;
		for (k = 1; k <= tb->hmask + 1; k++) {
			tb->start[k] += tb->start[k - 1];
			if (!(k & 0xffff))
				cond_resched();
		}
	}
	for (c = b->first; c; c = c->next) {
		for (k = 0, it = c->items; k < c->n; k++, it++) {
			tb = b->masks[it->mask].table;
			tb->entries[tb->start[it->hash & tb->hmask]++] = it->e;
		}
		cond_resched();
	}
	for (i = 0; i < b->nmasks; i++) {
		tb = b->masks[i].table;
		memmove(tb->start + 1, tb->start, (tb->hmask + 1) * sizeof(*tb->start));
		tb->start[0] = 0;
		afw_table_order(tb);
	}
	return 0;
}

struct afw_ruleset *afw_ruleset_build(struct afw_rule **rules, u32 nrules, u64 gen,
				      u32 max_masks, struct netlink_ext_ack *extack)
{
	struct afw_build b = { .max_masks = max_masks, .extack = extack };
	struct afw_ruleset *rs;
	u32 i;
	int ret = -ENOMEM;

	rs = kzalloc(sizeof(*rs), GFP_KERNEL_ACCOUNT);
	if (!rs)
		return ERR_PTR(-ENOMEM);
	rs->gen = gen;
	b.nslots = roundup_pow_of_two(max_masks * 2);
	b.slots = kvcalloc(b.nslots, sizeof(*b.slots), GFP_KERNEL);
	b.masks = kvcalloc(max_masks, sizeof(*b.masks), GFP_KERNEL);
	rs->tables = kvcalloc(max_masks, sizeof(*rs->tables), GFP_KERNEL_ACCOUNT);
	if (!b.slots || !b.masks || !rs->tables)
		goto err;

	ret = afw_build_pass(&b, rules, nrules);
	if (!ret)
		ret = afw_build_tables(&b, rs);
	if (ret)
		goto err;
	for (i = 0; i < nrules; i++)
		afw_ruleset_count(rs, rules[i], 1);
	rs->rules = rules;
	rs->nrules = nrules;
	afw_ruleset_finish(rs);
err:
	afw_build_items_free(&b);
	kvfree(b.masks);
	kvfree(b.slots);
	if (!ret)
		return rs;
	afw_ruleset_release(rs);
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
	afw_ruleset_release(rs);
}

/*
 * Snapshots replaced but not yet freed, in every namespace: each waits for
 * a grace period, then for its work. A writer that changes rules faster
 * than grace periods end (RULE_NEW in a loop, on a loaded machine) would
 * pile them up, each as large as its ruleset's tables, and with them the
 * references to their rules' counter slots. Past these bounds the next
 * writer waits for them to go.
 */
#define AFW_RETIRED_SNAPSHOTS_MAX	64
#define AFW_RETIRED_RULES_MAX		(4UL << 20)
static atomic_t afw_retired_snapshots = ATOMIC_INIT(0);
static atomic_long_t afw_retired_rules = ATOMIC_LONG_INIT(0);

static void afw_ruleset_free_work(struct work_struct *work)
{
	struct afw_ruleset *rs = container_of(to_rcu_work(work), struct afw_ruleset, free_work);
	u32 nrules = rs->nrules;

	afw_ruleset_free(rs);
	atomic_long_sub(nrules, &afw_retired_rules);
	atomic_dec(&afw_retired_snapshots);
}

void afw_ruleset_free_rcu(struct afw_ruleset *rs)
{
	atomic_inc(&afw_retired_snapshots);
	atomic_long_add(rs->nrules, &afw_retired_rules);
	/* A big ruleset takes a while to free: not in softirq, so via a work. */
	INIT_RCU_WORK(&rs->free_work, afw_ruleset_free_work);
	queue_rcu_work(afw_free_wq, &rs->free_work);
}

void afw_ruleset_retired_wait(void)
{
	might_sleep();
	if (atomic_read(&afw_retired_snapshots) < AFW_RETIRED_SNAPSHOTS_MAX &&
	    atomic_long_read(&afw_retired_rules) < AFW_RETIRED_RULES_MAX)
		return;
	/* Their callbacks queue their works: both done, every one is freed. */
	rcu_barrier();
	flush_workqueue(afw_free_wq);
}

/* One or four words: compared in line, where memcmp() is a call each. */
static bool afw_addr_eq(const __be32 *a, const __be32 *b, unsigned int words)
{
	unsigned int i;

	for (i = 0; i < words; i++)
		if (a[i] != b[i])
			return false;
	return true;
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
	if (!afw_addr_eq(k->saddr, afw_rule_src(r), r->words) ||
	    !afw_addr_eq(k->daddr, afw_rule_dst(r), r->words))
		return false;
	if (likely(!(r->fields & AFW_RULE_F_EXT)))
		return true;
	ext = afw_rule_ext(r);
	return (!(r->fields & AFW_RULE_F_IIF) || !memcmp(k->iif, ext->iif, IFNAMSIZ)) &&
	       (!(r->fields & AFW_RULE_F_OIF) || !memcmp(k->oif, ext->oif, IFNAMSIZ)) &&
	       (!(r->fields & AFW_RULE_F_UID) || k->uid == ext->uid) &&
	       (!(r->fields & AFW_RULE_F_GID) || k->gid == ext->gid) &&
	       (!(r->fields & AFW_RULE_F_EXE) || k->exe == ext->exe) &&
	       (!(r->fields & AFW_RULE_F_CGROUP) || k->cgroup == ext->cgroup);
}

struct afw_rule *afw_classify(const struct afw_ruleset *rs, const struct afw_tuple *t,
			      afw_cgroup_fn cgroup, const void *arg)
{
	const struct afw_entry *e, *end;
	const struct afw_table *tb;
	struct afw_rule *best = NULL, *r;
	u64 best_order = U64_MAX, order;
	u64 cg_value = 0;
	int cg_level = -1;
	/* Filled whole by afw_tuple_and() before any use: not cleared on entry. */
	struct afw_tuple k __uninitialized;
	u32 i, bucket;

	for (i = 0; i < rs->ntables; i++) {
		tb = rs->tables[i];
		/* Tables are sorted by best: none from here on can win. */
		if (tb->best >= best_order)
			break;
		/* A rule with ports never matches a packet whose ports are unknown. */
		if ((t->flags & tb->mask.flags) != tb->mask.flags)
			continue;
		afw_tuple_and(&k, t, &tb->mask);
		/* The socket's cgroup at this table's level, once per level. */
		if (unlikely(tb->mask.cgroup)) {
			if (cg_level != afw_ident_cgroup_level(tb->mask.cgroup)) {
				cg_level = afw_ident_cgroup_level(tb->mask.cgroup);
				cg_value = cgroup(arg, cg_level);
			}
			k.cgroup = cg_value & tb->mask.cgroup;
		}
		bucket = afw_hash(&k, tb->words, tb->seed) & tb->hmask;
		e = &tb->entries[tb->start[bucket]];
		end = &tb->entries[tb->start[bucket + 1]];
		for (; e < end; e++) {
			r = e->rule;
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
