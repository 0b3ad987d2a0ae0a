/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_RULE_H
#define _AFW_RULE_H

#include <linux/if.h>
#include <linux/percpu.h>
#include <linux/refcount.h>
#include <linux/u64_stats_sync.h>
#include <uapi/linux/afw.h>

#include "counters.h"

/* The lowest (priority, id) first: the order rules are evaluated in. */
static inline u64 afw_rule_order(u32 prio, u32 id)
{
	return (u64)prio << 32 | id;
}

/* Which optional fields a rule sets. */
#define AFW_RULE_F_SRC		0x01
#define AFW_RULE_F_DST		0x02
#define AFW_RULE_F_SPORT	0x04
#define AFW_RULE_F_DPORT	0x08
#define AFW_RULE_F_IIF		0x10
#define AFW_RULE_F_OIF		0x20
#define AFW_RULE_F_UID		0x40
#define AFW_RULE_F_GID		0x80
#define AFW_RULE_F_EXE		0x100
#define AFW_RULE_F_CGROUP	0x200
/* The fields kept out of line, in struct afw_rule_ext. */
#define AFW_RULE_F_EXT		(AFW_RULE_F_IIF | AFW_RULE_F_OIF | AFW_RULE_F_UID | \
				 AFW_RULE_F_GID | AFW_RULE_F_EXE | AFW_RULE_F_CGROUP)
/* The fields only a locally generated packet's sender gives. */
#define AFW_RULE_F_SENDER	(AFW_RULE_F_UID | AFW_RULE_F_GID | AFW_RULE_F_EXE | \
				 AFW_RULE_F_CGROUP)

/*
 * A rule as the user gives it and gets it back: what netlink parsing fills
 * in and dumps read. It lives on the stack; the kernel keeps struct afw_rule.
 */
struct afw_rule_spec {
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
	__be32 src[4];		/* zero beyond the prefix */
	__be32 dst[4];
	char iif[IFNAMSIZ];
	char oif[IFNAMSIZ];
	/* Into the request's attributes, or the rule's own copies. */
	const char *exe;
	const char *cgroup;
	/* Into the request's attribute, or the rule's own copy; 0 long: none. */
	const char *comment;
	u8 comment_len;
};

/* Interface and owner matches, which few rules use, kept after the addresses. */
struct afw_rule_ext {
	u32 uid, gid;
	char iif[IFNAMSIZ];
	char oif[IFNAMSIZ];
	u64 exe;		/* afw_ident_hash() of @exe_path */
	u64 cgroup;		/* afw_ident_cgroup_path() of @cgroup_path */
	const char *exe_path;	/* the rule's own copies, or NULL */
	const char *cgroup_path;
};

/*
 * A rule as the kernel keeps it: immutable once published, and shared by
 * every ruleset snapshot that contains it, so its counters survive changes
 * to other rules. Rulesets run to millions of rules, so the common rule is
 * packed into 48 bytes (IPv4) or 72 (IPv6) of its own slab cache: addresses
 * take only their family's size, and the rare fields follow them only when
 * set.
 */
struct afw_rule {
	struct afw_counter_block *counters;
	refcount_t ref;
	u16 slot;		/* its counters' in @counters */
	u8 comment_len;		/* 0: none; else it follows, NUL-terminated */
	u8 words;		/* of each address: 1 (IPv4 or none) or 4 */
	u32 id;
	u32 prio;
	u8 family;
	u8 dirs;
	u8 proto;
	u8 action;
	u8 src_len;
	u8 dst_len;
	u16 fields;
	u16 sport_lo, sport_hi;
	u16 dport_lo, dport_hi;
	__be32 addr[];		/* src[words], dst[words], afw_rule_ext, comment */
};

static inline const __be32 *afw_rule_src(const struct afw_rule *r)
{
	return r->addr;
}

static inline const __be32 *afw_rule_dst(const struct afw_rule *r)
{
	return r->addr + r->words;
}

/* Only for a rule whose fields include one of AFW_RULE_F_EXT. */
static inline const struct afw_rule_ext *afw_rule_ext(const struct afw_rule *r)
{
	return (const struct afw_rule_ext *)(r->addr + 2 * r->words);
}

/* The comment, after the addresses and the rare fields, when comment_len. */
static inline const char *afw_rule_comment(const struct afw_rule *r)
{
	const char *p = (const char *)(r->addr + 2 * r->words);

	return r->fields & AFW_RULE_F_EXT ? p + sizeof(struct afw_rule_ext) : p;
}

/* A new rule with one reference, or NULL. Sleeps. */
struct afw_rule *afw_rule_create(const struct afw_rule_spec *spec);
void afw_rule_put(struct afw_rule *rule);
void afw_rule_to_spec(const struct afw_rule *rule, struct afw_rule_spec *spec);

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

	/* LOCAL_OUT runs preemptible: keep the CPU whose counters these are. */
	s = afw_counters_on(rule->counters, rule->slot, get_cpu());
	flags = u64_stats_update_begin_irqsave(&s->syncp);
	u64_stats_inc(&s->packets);
	u64_stats_add(&s->bytes, len);
	u64_stats_update_end_irqrestore(&s->syncp, flags);
	put_cpu();
}

void afw_rule_read_stats(const struct afw_rule *rule, u64 *packets, u64 *bytes);

/*
 * @rule, not yet published, counts on from where @old's counters are: a
 * replace keeps the counts of the rules it keeps by id. Sleeps.
 */
void afw_rule_take_counters(struct afw_rule *rule, const struct afw_rule *old);

int afw_rule_init(void);
void afw_rule_exit(void);

#endif /* _AFW_RULE_H */
