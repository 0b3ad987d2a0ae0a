/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_RULE_H
#define _AFW_RULE_H

#include <linux/if.h>
#include <linux/percpu.h>
#include <linux/refcount.h>
#include <linux/u64_stats_sync.h>

/* The lowest (priority, id) first: the order rules are evaluated in. */
static inline u64 afw_rule_order(u32 prio, u32 id)
{
	return (u64)prio << 32 | id;
}

struct afw_rule_pcpu {
	struct u64_stats_sync syncp;
	u64_stats_t packets;
	u64_stats_t bytes;
};

/* afw_rule.fields: which optional fields the rule sets. */
#define AFW_RULE_F_SRC		0x01
#define AFW_RULE_F_DST		0x02
#define AFW_RULE_F_SPORT	0x04
#define AFW_RULE_F_DPORT	0x08
#define AFW_RULE_F_IIF		0x10
#define AFW_RULE_F_OIF		0x20
#define AFW_RULE_F_UID		0x40
#define AFW_RULE_F_GID		0x80

/*
 * A rule as the user gave it. Immutable once created; shared by every
 * ruleset snapshot that contains it, so its counters survive changes to
 * other rules.
 */
struct afw_rule {
	refcount_t ref;
	u32 id;
	u32 prio;
	u8 family;		/* 0: any */
	u8 dirs;		/* set of 1 << AFW_DIR_* */
	u8 proto;		/* 0: any */
	u8 action;
	u8 src_len;
	u8 dst_len;
	u16 fields;		/* AFW_RULE_F_* */
	u16 sport_lo, sport_hi;
	u16 dport_lo, dport_hi;
	u32 uid, gid;
	__be32 src[4];
	__be32 dst[4];
	char iif[IFNAMSIZ];
	char oif[IFNAMSIZ];
	struct afw_rule_pcpu __percpu *stats;
};

struct afw_rule *afw_rule_alloc(void);
void afw_rule_put(struct afw_rule *rule);

static inline struct afw_rule *afw_rule_get(struct afw_rule *rule)
{
	refcount_inc(&rule->ref);
	return rule;
}

static inline u64 afw_rule_key(const struct afw_rule *rule)
{
	return afw_rule_order(rule->prio, rule->id);
}

static inline void afw_rule_count(struct afw_rule *rule, unsigned int len)
{
	struct afw_rule_pcpu *s;
	unsigned long flags;

	s = get_cpu_ptr(rule->stats);
	flags = u64_stats_update_begin_irqsave(&s->syncp);
	u64_stats_inc(&s->packets);
	u64_stats_add(&s->bytes, len);
	u64_stats_update_end_irqrestore(&s->syncp, flags);
	put_cpu_ptr(rule->stats);
}

void afw_rule_read_stats(const struct afw_rule *rule, u64 *packets, u64 *bytes);

#endif /* _AFW_RULE_H */
