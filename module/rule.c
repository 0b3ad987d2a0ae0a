// SPDX-License-Identifier: GPL-2.0
/*
 * Rule objects: their compact layout, reference counting and counters.
 */

#include <linux/slab.h>
#include <linux/string.h>

#include "ident.h"
#include "rule.h"

/* A rule keeps its slot in a block in a u16. */
/* The common rule's 48 bytes (IPv4): what precedes the addresses stays 40. */
static_assert(offsetof(struct afw_rule, addr) == 40);
static_assert(AFW_COUNTERS_PER_BLOCK <= 1UL << (8 * sizeof(((struct afw_rule *)0)->slot)));

/* Rules without interface or owner matches, by address size. */
static struct kmem_cache *afw_rule4_cache __read_mostly;
static struct kmem_cache *afw_rule6_cache __read_mostly;

static unsigned int afw_rule_words(u8 family)
{
	return family == AFW_FAMILY_IPV6 ? 4 : 1;
}

static size_t afw_rule_size(unsigned int words, u16 fields, u8 comment_len)
{
	size_t size = struct_size_t(struct afw_rule, addr, 2 * words);

	if (fields & AFW_RULE_F_EXT)
		size += sizeof(struct afw_rule_ext);
	return comment_len ? size + comment_len + 1 : size;
}

/* The common rule's cache; NULL for a rule with rare fields or a comment. */
static struct kmem_cache *afw_rule_cache(unsigned int words, u16 fields, u8 comment_len)
{
	if ((fields & AFW_RULE_F_EXT) || comment_len)
		return NULL;
	return words == 4 ? afw_rule6_cache : afw_rule4_cache;
}

struct afw_rule *afw_rule_create(const struct afw_rule_spec *spec)
{
	unsigned int words = afw_rule_words(spec->family);
	struct kmem_cache *cache = afw_rule_cache(words, spec->fields, spec->comment_len);
	struct afw_rule_ext *ext;
	struct afw_rule *r;

	if (cache)
		r = kmem_cache_alloc(cache, GFP_KERNEL_ACCOUNT);
	else
		r = kmalloc(afw_rule_size(words, spec->fields, spec->comment_len),
			    GFP_KERNEL_ACCOUNT);
	if (!r)
		return NULL;
	r->counters = afw_counters_new(&r->slot);
	if (!r->counters)
		goto err;
	refcount_set(&r->ref, 1);
	r->id = spec->id;
	r->prio = spec->prio;
	r->family = spec->family;
	r->dirs = spec->dirs;
	r->proto = spec->proto;
	r->action = spec->action;
	r->src_len = spec->src_len;
	r->dst_len = spec->dst_len;
	r->fields = spec->fields;
	r->words = words;
	r->sport_lo = spec->sport_lo;
	r->sport_hi = spec->sport_hi;
	r->dport_lo = spec->dport_lo;
	r->dport_hi = spec->dport_hi;
	/* The classifier compares whole words: unset addresses stay zero. */
	memcpy(r->addr, spec->src, words * sizeof(__be32));
	memcpy(r->addr + words, spec->dst, words * sizeof(__be32));
	if (spec->fields & AFW_RULE_F_EXT) {
		ext = (struct afw_rule_ext *)afw_rule_ext(r);
		ext->uid = spec->uid;
		ext->gid = spec->gid;
		memcpy(ext->iif, spec->iif, IFNAMSIZ);
		memcpy(ext->oif, spec->oif, IFNAMSIZ);
		ext->exe = 0;
		ext->cgroup = 0;
		ext->exe_path = NULL;
		ext->cgroup_path = NULL;
		if (spec->fields & AFW_RULE_F_EXE) {
			ext->exe_path = kstrdup(spec->exe, GFP_KERNEL_ACCOUNT);
			if (!ext->exe_path)
				goto err_paths;
			ext->exe = afw_ident_hash(ext->exe_path, strlen(ext->exe_path));
		}
		if (spec->fields & AFW_RULE_F_CGROUP) {
			ext->cgroup_path = kstrdup(spec->cgroup, GFP_KERNEL_ACCOUNT);
			if (!ext->cgroup_path)
				goto err_paths;
			ext->cgroup = afw_ident_cgroup_path(ext->cgroup_path,
							    strlen(ext->cgroup_path));
		}
	}
	r->comment_len = spec->comment_len;
	if (r->comment_len) {
		char *comment = (char *)afw_rule_comment(r);

		memcpy(comment, spec->comment, r->comment_len);
		comment[r->comment_len] = '\0';
	}
	return r;

err_paths:
	kfree(ext->exe_path);
	afw_counters_put(r->counters, r->slot);
err:
	if (cache)
		kmem_cache_free(cache, r);
	else
		kfree(r);
	return NULL;
}

void afw_rule_to_spec(const struct afw_rule *r, struct afw_rule_spec *spec)
{
	const struct afw_rule_ext *ext;

	memset(spec, 0, sizeof(*spec));
	spec->id = r->id;
	spec->prio = r->prio;
	spec->family = r->family;
	spec->dirs = r->dirs;
	spec->proto = r->proto;
	spec->action = r->action;
	spec->src_len = r->src_len;
	spec->dst_len = r->dst_len;
	spec->fields = r->fields;
	spec->sport_lo = r->sport_lo;
	spec->sport_hi = r->sport_hi;
	spec->dport_lo = r->dport_lo;
	spec->dport_hi = r->dport_hi;
	memcpy(spec->src, afw_rule_src(r), r->words * sizeof(__be32));
	memcpy(spec->dst, afw_rule_dst(r), r->words * sizeof(__be32));
	if (r->fields & AFW_RULE_F_EXT) {
		ext = afw_rule_ext(r);
		spec->uid = ext->uid;
		spec->gid = ext->gid;
		memcpy(spec->iif, ext->iif, IFNAMSIZ);
		memcpy(spec->oif, ext->oif, IFNAMSIZ);
		spec->exe = ext->exe_path;
		spec->cgroup = ext->cgroup_path;
	}
	spec->comment_len = r->comment_len;
	spec->comment = r->comment_len ? afw_rule_comment(r) : NULL;
}

/*
 * Only ruleset snapshots and rules still being built hold references, and a
 * snapshot drops them after a grace period, so no packet can still be
 * counting on a rule freed here.
 */
void afw_rule_put(struct afw_rule *r)
{
	struct kmem_cache *cache;

	if (!refcount_dec_and_test(&r->ref))
		return;
	afw_counters_put(r->counters, r->slot);
	if (r->fields & AFW_RULE_F_EXT) {
		kfree(afw_rule_ext(r)->exe_path);
		kfree(afw_rule_ext(r)->cgroup_path);
	}
	cache = afw_rule_cache(r->words, r->fields, r->comment_len);
	if (cache)
		kmem_cache_free(cache, r);
	else
		kfree(r);
}

void afw_rule_read_stats(const struct afw_rule *rule, u64 *packets, u64 *bytes)
{
	const struct afw_rule_pcpu *s;
	unsigned int start;
	u64 p, b;
	int cpu;

	*packets = 0;
	*bytes = 0;
	for_each_possible_cpu(cpu) {
		s = afw_counters_on(rule->counters, rule->slot, cpu);
		do {
			start = u64_stats_fetch_begin(&s->syncp);
			p = u64_stats_read(&s->packets);
			b = u64_stats_read(&s->bytes);
		} while (u64_stats_fetch_retry(&s->syncp, start));
		*packets += p;
		*bytes += b;
	}
}

void afw_rule_take_counters(struct afw_rule *rule, const struct afw_rule *old)
{
	/* A slot shared by too many snapshots: @rule keeps its own, from zero. */
	if (!afw_counters_share(old->counters, old->slot))
		return;
	afw_counters_put(rule->counters, rule->slot);
	rule->counters = old->counters;
	rule->slot = old->slot;
}

int afw_rule_init(void)
{
	afw_rule4_cache = kmem_cache_create("afw_rule4", afw_rule_size(1, 0, 0), 0,
					    SLAB_ACCOUNT, NULL);
	if (!afw_rule4_cache)
		return -ENOMEM;
	afw_rule6_cache = kmem_cache_create("afw_rule6", afw_rule_size(4, 0, 0), 0,
					    SLAB_ACCOUNT, NULL);
	if (!afw_rule6_cache) {
		kmem_cache_destroy(afw_rule4_cache);
		return -ENOMEM;
	}
	return 0;
}

/* After rcu_barrier(): every snapshot, and so every rule, is gone. */
void afw_rule_exit(void)
{
	afw_counters_exit();
	kmem_cache_destroy(afw_rule6_cache);
	kmem_cache_destroy(afw_rule4_cache);
}
