/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_CLASSIFY_H
#define _AFW_CLASSIFY_H

#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/workqueue.h>

#include "rule.h"
#include "tuple.h"

struct netlink_ext_ack;

/*
 * Tuple space search: one exact-match hash table per distinct mask. A rule
 * becomes one entry per (source port prefix, destination port prefix) it
 * covers; each entry lives in the table of its mask. The rest of the key is
 * the rule's own fields, so an entry holds only what differs per entry.
 */
struct afw_entry {
	struct afw_rule *rule;
	u16 sport;			/* already masked */
	u16 dport;
} __packed __aligned(4);		/* 12 bytes, not 16: 4 MB a million rules */

/*
 * A table never changes once built, so it stores its hash chains back to
 * back, in bucket order and, within a bucket, in rule order: bucket b is
 * entries[start[b]] up to entries[start[b + 1]]. No per-entry links, and a
 * chain is one contiguous read. Snapshots share the tables a change does
 * not touch, so a table is reference counted.
 */
struct afw_table {
	refcount_t ref;
	u32 seed;
	u64 best;			/* lowest order of any entry */
	u32 hmask;			/* buckets - 1 */
	u32 words;			/* the tuple's 32-bit words the mask covers */
	u32 nentries;
	u32 *start;			/* hmask + 2 chain starts */
	struct afw_entry *entries;
	struct afw_tuple mask;
};

/*
 * An immutable snapshot of a namespace's rules. Changes build a new one and
 * publish it with one pointer swap, so a packet sees either the old rules
 * or the new ones, never a mix.
 */
struct afw_ruleset {
	u64 gen;
	u32 nrules;
	u32 ntables;
	struct afw_tuple need;		/* union of all masks, and flags below */
	/* A rule may refuse what another accepted: accept rules keep flows. */
	bool stateful;
	/* Rules whose action makes the hook read the ports, and others. */
	u32 nports;
	u32 nrefusing;
	struct afw_rule **rules;	/* in evaluation order */
	struct afw_table **tables;	/* by ascending best order */
	struct rcu_work free_work;
};

/*
 * Builds a snapshot of @rules (sorted by afw_rule_key, unique ids). On
 * success the snapshot takes its own reference on each rule and owns the
 * @rules array; on failure both stay the caller's. Sleeps.
 */
struct afw_ruleset *afw_ruleset_build(struct afw_rule **rules, u32 nrules, u64 gen,
				      u32 max_masks, struct netlink_ext_ack *extack);

/*
 * @old with @rule (its id unused there) added, or with rules[@index]
 * removed: only the tables the rule has entries in are built again, the
 * others are shared. @old stays as it is. Sleeps.
 */
struct afw_ruleset *afw_ruleset_with(const struct afw_ruleset *old, struct afw_rule *rule,
				     u64 gen, u32 max_masks, struct netlink_ext_ack *extack);
struct afw_ruleset *afw_ruleset_without(const struct afw_ruleset *old, u32 index, u64 gen);

/* Frees @rs once every packet that may still see it is done. */
void afw_ruleset_free_rcu(struct afw_ruleset *rs);
/*
 * Process context: waits, when snapshots freed by afw_ruleset_free_rcu()
 * and not yet gone are past their bounds, until they are gone.
 */
void afw_ruleset_retired_wait(void);

/* Frees @rs now; only when no packet can see it. */
void afw_ruleset_free(struct afw_ruleset *rs);

/* The value of the packet's cgroup @level deep, as afw_ident_cgroup(). */
typedef u64 (*afw_cgroup_fn)(const void *arg, u8 level);

/*
 * The best rule matching @t, or NULL. @cgroup(@arg, level) is asked only
 * when a ruleset has rules on cgroups. Runs under rcu_read_lock().
 */
struct afw_rule *afw_classify(const struct afw_ruleset *rs, const struct afw_tuple *t,
			      afw_cgroup_fn cgroup, const void *arg);

/* Port range to prefixes: fills @val/@len (room for 32), returns the count. */
unsigned int afw_range_prefixes(u16 lo, u16 hi, u16 *val, u8 *len);

int afw_classify_init(void);
void afw_classify_exit(void);

#endif /* _AFW_CLASSIFY_H */
