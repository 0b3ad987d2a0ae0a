/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_RULESET_H
#define _AFW_RULESET_H

#include "classify.h"

struct afw_net;
struct netlink_ext_ack;

/* Limits of one namespace's ruleset; see docs/architecture.md. */
extern unsigned int afw_max_rules;
extern unsigned int afw_max_masks;

/*
 * All of these need afw_net.lock. add takes @rule's reference whatever it
 * returns; it and stage_commit register @net's hooks (afw_net_activate())
 * once nothing else can fail, right before the new rules are published,
 * so that a refused request leaves none behind.
 */
int afw_ruleset_add(struct net *net, struct afw_rule *rule, struct netlink_ext_ack *extack);
int afw_ruleset_del(struct afw_net *an, u32 id, struct netlink_ext_ack *extack);
void afw_ruleset_flush(struct afw_net *an);

/*
 * A whole-ruleset replace, built up over several messages of one socket
 * (@portid). All of these need afw_net.lock; stage_add takes @rule's
 * reference whatever it returns.
 */
struct afw_stage {
	u32 portid;
	u32 n;
	u32 cap;
	struct afw_rule **rules;
};

int afw_stage_begin(struct afw_net *an, u32 portid, struct netlink_ext_ack *extack);
int afw_stage_add(struct afw_net *an, u32 portid, struct afw_rule *rule,
		  struct netlink_ext_ack *extack);
/*
 * Publishes @portid's transaction, and with it *@cfg if set (which it then
 * owns: *@cfg becomes NULL), right after the rules, before the flows of
 * rules that went are pruned.
 */
int afw_stage_commit(struct net *net, u32 portid, struct afw_config **cfg,
		     struct netlink_ext_ack *extack);
/* Abandons @portid's transaction, if it has one. */
void afw_stage_drop(struct afw_net *an, u32 portid);
void afw_stage_free(struct afw_stage *stage);

/* The namespace's current ruleset, for writers holding afw_net.lock. */
struct afw_ruleset *afw_ruleset_locked(struct afw_net *an);

#endif /* _AFW_RULESET_H */
