// SPDX-License-Identifier: GPL-2.0
/*
 * Classifier selftest: random rules and packets, each packet classified by
 * the tuple space search and by a deliberately naive linear scan that reads
 * the rules' own fields, never the masks. Any difference is a bug in one of
 * them. Runs at load time with "selftest=1", with three checks of the
 * pieces beneath: port ranges as prefixes, counter slots that refuse a
 * holder rather than wrap, and the sort that commits use.
 */

#include <linux/in.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <uapi/linux/afw.h>

#include "classify.h"
#include "counters.h"
#include "ident.h"
#include "selftest.h"
#include "sort.h"

static bool afw_selftest_run;
module_param_named(selftest, afw_selftest_run, bool, 0444);
MODULE_PARM_DESC(selftest, "Check the classifier against a linear scan at load");

#define AFW_ST_RULES	2000
#define AFW_ST_PACKETS	12000
/* Random rules make far more masks than real ones; room for all of them. */
#define AFW_ST_MAX_MASKS 65536

static bool afw_st_prefix_match(const __be32 *addr, const __be32 *net, unsigned int len)
{
	const u8 *a = (const u8 *)addr, *n = (const u8 *)net;
	unsigned int i;

	for (i = 0; i < len; i++)
		if ((a[i / 8] ^ n[i / 8]) & (0x80 >> (i % 8)))
			return false;
	return true;
}

/* Programs and cgroups, by path; a packet's cgroup is its path, or NULL. */
static const char *const afw_st_exes[] = { "/usr/bin/curl", "/usr/bin/wget", "/opt/x" };
static const char *const afw_st_rule_cgroups[] = {
	"/", "/system.slice", "/system.slice/a.service", "/user.slice",
	"/user.slice/user-1000.slice",
};

static const char *const afw_st_cgroups[] = {
	"/", "/system.slice/a.service", "/system.slice/b.service",
	"/user.slice/user-1000.slice/session-1.scope", "/system.slice/a.service/x",
};

/* Whether cgroup @q is @p or below it, read from the paths alone. */
static bool afw_st_cgroup_in(const char *p, const char *q)
{
	size_t len = strlen(p);

	if (!q)
		return false;
	if (!strcmp(p, "/"))
		return true;
	return !strncmp(p, q, len) && (!q[len] || q[len] == '/');
}

/* The classifier's question, answered by cutting the path. */
static u64 afw_st_cgroup(const void *arg, u8 level)
{
	const char *q = arg, *end = q;
	unsigned int i;

	if (!q)
		return 0;
	if (!level)
		return afw_ident_cgroup_path("/", 1);
	if (!q[1])
		return 0;
	for (i = 0; i < level; i++) {
		if (!*end)
			return 0;
		end = strchrnul(end + 1, '/');
	}
	return afw_ident_cgroup_path(q, end - q);
}

static bool afw_st_match(const struct afw_rule *r, const struct afw_tuple *t, const char *cg)
{
	const struct afw_rule_ext *ext = afw_rule_ext(r);

	if (r->family && r->family != t->family)
		return false;
	if (!(r->dirs & (1 << t->dir)))
		return false;
	if (r->proto && r->proto != t->proto)
		return false;
	if ((r->fields & AFW_RULE_F_SRC) &&
	    !afw_st_prefix_match(t->saddr, afw_rule_src(r), r->src_len))
		return false;
	if ((r->fields & AFW_RULE_F_DST) &&
	    !afw_st_prefix_match(t->daddr, afw_rule_dst(r), r->dst_len))
		return false;
	if ((r->fields & (AFW_RULE_F_SPORT | AFW_RULE_F_DPORT)) && !(t->flags & AFW_TUPLE_PORTS))
		return false;
	if ((r->fields & AFW_RULE_F_SPORT) && (t->sport < r->sport_lo || t->sport > r->sport_hi))
		return false;
	if ((r->fields & AFW_RULE_F_DPORT) && (t->dport < r->dport_lo || t->dport > r->dport_hi))
		return false;
	if ((r->fields & AFW_RULE_F_IIF) && strncmp(ext->iif, t->iif, IFNAMSIZ))
		return false;
	if ((r->fields & AFW_RULE_F_OIF) && strncmp(ext->oif, t->oif, IFNAMSIZ))
		return false;
	if ((r->fields & (AFW_RULE_F_UID | AFW_RULE_F_GID)) && !(t->flags & AFW_TUPLE_OWNER))
		return false;
	if ((r->fields & AFW_RULE_F_UID) && ext->uid != t->uid)
		return false;
	if ((r->fields & AFW_RULE_F_GID) && ext->gid != t->gid)
		return false;
	if ((r->fields & AFW_RULE_F_EXE) &&
	    (!t->exe || t->exe != afw_ident_hash(ext->exe_path, strlen(ext->exe_path))))
		return false;
	if ((r->fields & AFW_RULE_F_CGROUP) && !afw_st_cgroup_in(ext->cgroup_path, cg))
		return false;
	return true;
}

static struct afw_rule *afw_st_linear(struct afw_rule **rules, u32 n, const struct afw_tuple *t,
				      const char *cg)
{
	struct afw_rule *best = NULL;
	u32 i;

	for (i = 0; i < n; i++)
		if (afw_st_match(rules[i], t, cg) &&
		    (!best || afw_rule_key(rules[i]) < afw_rule_key(best)))
			best = rules[i];
	return best;
}

/* Small pools, so that random packets hit random rules often. */
static const u8 afw_st_families[] = { 0, AFW_FAMILY_IPV4, AFW_FAMILY_IPV6 };
static const u8 afw_st_protos[] = { 0, IPPROTO_TCP, IPPROTO_UDP };
static const u8 afw_st_packet_protos[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP };
static const char *const afw_st_ifs[] = { "", "eth0", "eth1", "veth-long-name1" };
static const u16 afw_st_ports[] = { 0, 1, 22, 80, 443, 1023, 1024, 8080, 32768, 65535 };

static void afw_st_addr(struct rnd_state *rnd, u8 family, __be32 *a)
{
	unsigned int words = family == AFW_FAMILY_IPV6 ? 4 : 1, i;

	memset(a, 0, 16);
	for (i = 0; i < words; i++)
		a[i] = htonl(0xc0000200 | (prandom_u32_state(rnd) & 0x0303010f));
}

static void afw_st_mask_prefix(__be32 *a, unsigned int len)
{
	u8 *b = (u8 *)a;
	unsigned int i;

	for (i = len; i < 128; i++)
		b[i / 8] &= ~(0x80 >> (i % 8));
}

static u16 afw_st_port(struct rnd_state *rnd)
{
	if (!(prandom_u32_state(rnd) % 4))
		return (u16)prandom_u32_state(rnd);
	return afw_st_ports[prandom_u32_state(rnd) % ARRAY_SIZE(afw_st_ports)];
}

static void afw_st_range(struct rnd_state *rnd, u16 *lo, u16 *hi)
{
	u16 a = afw_st_port(rnd), b = afw_st_port(rnd);

	*lo = min(a, b);
	*hi = prandom_u32_state(rnd) % 4 ? *lo : max(a, b);
}

static void afw_st_rule(struct rnd_state *rnd, struct afw_rule_spec *r, u32 id)
{
	static const u8 plens[] = { 0, 16, 24, 32 };
	unsigned int bits;

	r->id = id;
	r->prio = prandom_u32_state(rnd) % 50;
	r->action = prandom_u32_state(rnd) % (AFW_ACTION_MAX + 1);
	r->dirs = 1 + prandom_u32_state(rnd) % AFW_DIRS_ALL;
	r->family = afw_st_families[prandom_u32_state(rnd) % ARRAY_SIZE(afw_st_families)];
	r->proto = afw_st_protos[prandom_u32_state(rnd) % ARRAY_SIZE(afw_st_protos)];
	bits = r->family == AFW_FAMILY_IPV6 ? 128 : 32;
	if (r->family && prandom_u32_state(rnd) % 2) {
		afw_st_addr(rnd, r->family, r->src);
		r->src_len = plens[prandom_u32_state(rnd) % ARRAY_SIZE(plens)] * bits / 32;
		afw_st_mask_prefix(r->src, r->src_len);
		r->fields |= AFW_RULE_F_SRC;
	}
	if (r->family && prandom_u32_state(rnd) % 2) {
		afw_st_addr(rnd, r->family, r->dst);
		r->dst_len = plens[prandom_u32_state(rnd) % ARRAY_SIZE(plens)] * bits / 32;
		afw_st_mask_prefix(r->dst, r->dst_len);
		r->fields |= AFW_RULE_F_DST;
	}
	if (r->proto && prandom_u32_state(rnd) % 6 == 0) {
		afw_st_range(rnd, &r->sport_lo, &r->sport_hi);
		r->fields |= AFW_RULE_F_SPORT;
	}
	if (r->proto && prandom_u32_state(rnd) % 2) {
		afw_st_range(rnd, &r->dport_lo, &r->dport_hi);
		r->fields |= AFW_RULE_F_DPORT;
	}
	if (prandom_u32_state(rnd) % 10 == 0) {
		strscpy(r->iif, afw_st_ifs[1 + prandom_u32_state(rnd) % 3], IFNAMSIZ);
		r->fields |= AFW_RULE_F_IIF;
	}
	if (prandom_u32_state(rnd) % 10 == 0) {
		strscpy(r->oif, afw_st_ifs[1 + prandom_u32_state(rnd) % 3], IFNAMSIZ);
		r->fields |= AFW_RULE_F_OIF;
	}
	if (prandom_u32_state(rnd) % 8 == 0) {
		r->uid = prandom_u32_state(rnd) % 2 ? 1000 : 0;
		r->fields |= AFW_RULE_F_UID;
	}
	if (prandom_u32_state(rnd) % 10 == 0) {
		r->gid = prandom_u32_state(rnd) % 2 ? 100 : 0;
		r->fields |= AFW_RULE_F_GID;
	}
	if (prandom_u32_state(rnd) % 10 == 0) {
		r->exe = afw_st_exes[prandom_u32_state(rnd) % ARRAY_SIZE(afw_st_exes)];
		r->fields |= AFW_RULE_F_EXE;
	}
	if (prandom_u32_state(rnd) % 10 == 0) {
		r->cgroup = afw_st_rule_cgroups[prandom_u32_state(rnd) %
						ARRAY_SIZE(afw_st_rule_cgroups)];
		r->fields |= AFW_RULE_F_CGROUP;
	}
}

static void afw_st_packet(struct rnd_state *rnd, struct afw_tuple *t, const char **cg)
{
	const char *exe;

	memset(t, 0, sizeof(*t));
	*cg = NULL;
	t->family = prandom_u32_state(rnd) % 2 ? AFW_FAMILY_IPV4 : AFW_FAMILY_IPV6;
	t->dir = prandom_u32_state(rnd) % (AFW_DIR_MAX + 1);
	t->proto = afw_st_packet_protos[prandom_u32_state(rnd) % ARRAY_SIZE(afw_st_packet_protos)];
	afw_st_addr(rnd, t->family, t->saddr);
	afw_st_addr(rnd, t->family, t->daddr);
	if (t->proto != IPPROTO_ICMP && prandom_u32_state(rnd) % 10) {
		t->sport = afw_st_port(rnd);
		t->dport = afw_st_port(rnd);
		t->flags |= AFW_TUPLE_PORTS;
	}
	if (t->dir != AFW_DIR_OUT)
		strscpy_pad(t->iif, afw_st_ifs[prandom_u32_state(rnd) % 4], IFNAMSIZ);
	if (t->dir != AFW_DIR_IN)
		strscpy_pad(t->oif, afw_st_ifs[prandom_u32_state(rnd) % 4], IFNAMSIZ);
	if (t->dir == AFW_DIR_OUT && prandom_u32_state(rnd) % 2) {
		t->uid = prandom_u32_state(rnd) % 2 ? 1000 : 0;
		t->gid = prandom_u32_state(rnd) % 2 ? 100 : 0;
		t->flags |= AFW_TUPLE_OWNER;
	}
	if (t->dir == AFW_DIR_OUT && prandom_u32_state(rnd) % 3) {
		exe = afw_st_exes[prandom_u32_state(rnd) % ARRAY_SIZE(afw_st_exes)];
		t->exe = afw_ident_hash(exe, strlen(exe));
	}
	if (t->dir == AFW_DIR_OUT && prandom_u32_state(rnd) % 3)
		*cg = afw_st_cgroups[prandom_u32_state(rnd) % ARRAY_SIZE(afw_st_cgroups)];
}

static int afw_st_cmp(const void *a, const void *b)
{
	u64 x = afw_rule_key(*(struct afw_rule * const *)a);
	u64 y = afw_rule_key(*(struct afw_rule * const *)b);

	return x < y ? -1 : x > y;
}

/* Classifies @npackets random packets both ways; returns mismatches. */
static unsigned int afw_st_check(struct rnd_state *rnd, const struct afw_ruleset *rs,
				 struct afw_rule **rules, u32 n, unsigned int npackets,
				 unsigned int *hits)
{
	struct afw_rule *fast, *slow;
	unsigned int i, bad = 0;
	struct afw_tuple t;
	const char *cg;

	rcu_read_lock();
	for (i = 0; i < npackets; i++) {
		afw_st_packet(rnd, &t, &cg);
		fast = rs ? afw_classify(rs, &t, afw_st_cgroup, cg) : NULL;
		slow = afw_st_linear(rules, n, &t, cg);
		*hits += !!slow;
		if (fast != slow) {
			if (bad++ < 5)
				pr_err("selftest: packet %u: tuple space says rule %u, linear scan says rule %u\n",
				       i, fast ? fast->id : 0, slow ? slow->id : 0);
		}
		if (!(i & 255)) {
			rcu_read_unlock();
			cond_resched();
			rcu_read_lock();
		}
	}
	rcu_read_unlock();
	return bad;
}

/* The first @n of @rules built at once, checked with @npackets packets. */
static unsigned int afw_st_compare(struct rnd_state *rnd, struct afw_rule **rules, u32 n,
				   unsigned int npackets, unsigned int *hits, unsigned int *masks)
{
	struct afw_ruleset *rs;
	struct afw_rule **copy;
	unsigned int bad;

	copy = kvmalloc_array(n, sizeof(*copy), GFP_KERNEL);
	if (!copy)
		return npackets;
	memcpy(copy, rules, n * sizeof(*copy));
	rs = afw_ruleset_build(copy, n, 1, AFW_ST_MAX_MASKS, NULL);
	if (IS_ERR(rs)) {
		pr_err("selftest: building %u rules failed: %ld\n", n, PTR_ERR(rs));
		kvfree(copy);
		return npackets;
	}
	*masks = max(*masks, rs->ntables);
	bad = afw_st_check(rnd, rs, rules, n, npackets, hits);
	afw_ruleset_free(rs);
	return bad;
}

/*
 * Snapshots changed a rule at a time, as RULE_NEW and RULE_DEL change
 * them: @n rules added in a random order, then half of them removed at
 * random, checked along the way with @npackets packets in all.
 */
static unsigned int afw_st_incremental(struct rnd_state *rnd, struct afw_rule **rules, u32 n,
				       unsigned int npackets, unsigned int *hits)
{
	unsigned int bad = 0, checks = 16, every = n / 8 + 1;
	struct afw_ruleset *rs = NULL, *next;
	struct afw_rule **live;
	u32 nlive = 0, i, j, k;

	live = kvmalloc_array(n, sizeof(*live), GFP_KERNEL);
	if (!live)
		return npackets;
	memcpy(live, rules, n * sizeof(*live));
	/* A random order of adding: shuffled in place, then taken in turn. */
	for (i = n; i > 1; i--) {
		j = prandom_u32_state(rnd) % i;
		swap(live[i - 1], live[j]);
	}
	for (i = 0; i < n; i++) {
		next = afw_ruleset_with(rs, live[i], i + 1, AFW_ST_MAX_MASKS, NULL);
		if (IS_ERR(next)) {
			pr_err("selftest: adding rule %u failed: %ld\n", live[i]->id,
			       PTR_ERR(next));
			bad = npackets;
			goto out;
		}
		if (rs)
			afw_ruleset_free(rs);
		rs = next;
		nlive = i + 1;
		if (!(i % every))
			bad += afw_st_check(rnd, rs, live, nlive, npackets / checks, hits);
	}
	for (i = 0; i < n / 2; i++) {
		j = prandom_u32_state(rnd) % rs->nrules;
		for (k = 0; live[k] != rs->rules[j]; k++)
			;
		nlive--;
		swap(live[k], live[nlive]);
		next = nlive ? afw_ruleset_without(rs, j, n + i + 1) : NULL;
		if (IS_ERR(next)) {
			pr_err("selftest: removing a rule failed: %ld\n", PTR_ERR(next));
			bad = npackets;
			goto out;
		}
		afw_ruleset_free(rs);
		rs = next;
		if (!(i % every))
			bad += afw_st_check(rnd, rs, live, nlive, npackets / checks, hits);
	}
	bad += afw_st_check(rnd, rs, live, nlive, npackets / checks, hits);
out:
	if (rs)
		afw_ruleset_free(rs);
	kvfree(live);
	return bad;
}

/* The port bits a prefix of @len fixes. */
static u16 afw_st_port_mask(u8 len)
{
	return len ? (u16)(0xffff << (16 - len)) : 0;
}

static bool afw_st_ranges(void)
{
	u16 val[32];
	u8 len[32];
	unsigned int n, i, lo, hi, p, covered;
	struct rnd_state rnd;

	prandom_seed_state(&rnd, 42);
	for (i = 0; i < 2000; i++) {
		lo = prandom_u32_state(&rnd) & 0xffff;
		hi = i < 3 ? 65535 : min(65535U, lo + (prandom_u32_state(&rnd) % 5000));
		if (i == 1)
			lo = 0;
		n = afw_range_prefixes(lo, hi, val, len);
		if (n > 30)
			return false;
		for (p = lo ? lo - 1 : 0; p <= min(hi + 1, 65535U); p++) {
			unsigned int k;

			covered = 0;
			for (k = 0; k < n; k++)
				covered += !((p ^ val[k]) & afw_st_port_mask(len[k]));
			if (covered != (p >= lo && p <= hi))
				return false;
			if (p == 65535)
				break;
		}
	}
	return true;
}

/* A counter slot takes U16_MAX holders, then refuses the next: never wraps. */
static bool afw_st_counters(void)
{
	struct afw_counter_block *b;
	u32 i, holders = 1;
	bool ok;
	u16 slot;

	b = afw_counters_new(&slot);
	if (!b)
		return false;
	while (holders < U16_MAX + 1 && afw_counters_share(b, slot))
		holders++;
	ok = holders == U16_MAX;
	for (i = 0; i < holders; i++)
		afw_counters_put(b, slot);
	return ok;
}

static int afw_st_u32_cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

static int afw_st_u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * afw_sort() of random arrays of both sizes (with repeats, and sizes
 * around the heap's levels) and of one in order and one reversed: each
 * comes out in order, with the same values (sum and sum of squares).
 */
static bool afw_st_sort(struct rnd_state *rnd)
{
	static const u32 sizes[] = { 0, 1, 2, 3, 7, 8, 9, 255, 256, 4097, 10000 };
	u64 *a, sum, sq, sum2, sq2;
	u32 *b, i, k, n, shape;
	bool ok = true;

	a = kvmalloc_array(10000, sizeof(*a), GFP_KERNEL);
	b = kvmalloc_array(10000, sizeof(*b), GFP_KERNEL);
	if (!a || !b) {
		ok = false;
		goto out;
	}
	for (k = 0; k < ARRAY_SIZE(sizes) * 4 && ok; k++) {
		n = sizes[k % ARRAY_SIZE(sizes)];
		shape = k / ARRAY_SIZE(sizes);
		sum = 0;
		sq = 0;
		for (i = 0; i < n; i++) {
			if (shape == 0)
				a[i] = i;
			else if (shape == 1)
				a[i] = n - i;
			else
				a[i] = prandom_u32_state(rnd) % (shape == 2 ? 16 : U32_MAX);
			b[i] = a[i];
			a[i] |= (u64)a[i] << 32;
			sum += b[i];
			sq += (u64)b[i] * b[i];
		}
		afw_sort(a, n, sizeof(*a), afw_st_u64_cmp);
		afw_sort(b, n, sizeof(*b), afw_st_u32_cmp);
		sum2 = 0;
		sq2 = 0;
		for (i = 0; i < n; i++) {
			if ((i && (a[i - 1] > a[i] || b[i - 1] > b[i])) || (u32)a[i] != b[i])
				ok = false;
			sum2 += b[i];
			sq2 += (u64)b[i] * b[i];
		}
		ok = ok && sum == sum2 && sq == sq2;
	}
out:
	kvfree(a);
	kvfree(b);
	return ok;
}

int afw_selftest(void)
{
	struct afw_rule **rules;
	struct rnd_state rnd;
	unsigned int i, n = 0, bad, hits = 0, masks = 0;
	int ret = -ENOMEM;

	if (!afw_selftest_run)
		return 0;
	if (!afw_st_ranges()) {
		pr_err("selftest: port range to prefix expansion is wrong\n");
		return -EINVAL;
	}
	if (!afw_st_counters()) {
		pr_err("selftest: a counter slot's holders are not bounded at U16_MAX\n");
		return -EINVAL;
	}
	prandom_seed_state(&rnd, get_random_u64());
	if (!afw_st_sort(&rnd)) {
		pr_err("selftest: afw_sort() left an array out of order or changed it\n");
		return -EINVAL;
	}
	rules = kvcalloc(AFW_ST_RULES, sizeof(*rules), GFP_KERNEL);
	if (!rules)
		return -ENOMEM;
	for (i = 0; i < AFW_ST_RULES; i++) {
		struct afw_rule_spec spec = {};

		afw_st_rule(&rnd, &spec, i + 1);
		rules[i] = afw_rule_create(&spec);
		if (!rules[i])
			goto out;
		n++;
	}
	sort(rules, n, sizeof(*rules), afw_st_cmp, NULL);

	/* Growing rulesets, then one with every other rule removed. */
	bad = afw_st_compare(&rnd, rules, 10, AFW_ST_PACKETS / 3, &hits, &masks);
	bad += afw_st_compare(&rnd, rules, 300, AFW_ST_PACKETS / 3, &hits, &masks);
	bad += afw_st_compare(&rnd, rules, n, AFW_ST_PACKETS / 3, &hits, &masks);
	for (i = 0; i < n / 2; i++)
		swap(rules[i], rules[2 * i]);
	bad += afw_st_compare(&rnd, rules, n / 2, AFW_ST_PACKETS / 3, &hits, &masks);
	/* The same rules a change at a time, each change rebuilding what it touches. */
	bad += afw_st_incremental(&rnd, rules, n, AFW_ST_PACKETS, &hits);

	ret = bad ? -EINVAL : 0;
	if (bad)
		pr_err("selftest: FAIL: %u of %u packets classified differently\n",
		       bad, AFW_ST_PACKETS / 3 * 4 + AFW_ST_PACKETS);
	else
		pr_info("selftest: pass: %u rules, %u packets (%u matched a rule), tuple space == linear scan, built whole and a rule at a time\n",
			n, AFW_ST_PACKETS / 3 * 4 + AFW_ST_PACKETS, hits);
	pr_info("selftest: the largest ruleset used %u masks\n", masks);
out:
	for (i = 0; i < n; i++)
		afw_rule_put(rules[i]);
	kvfree(rules);
	return ret;
}
