// SPDX-License-Identifier: GPL-2.0
/*
 * Changing a namespace's ruleset: every change builds a complete new
 * snapshot off to the side and publishes it with one RCU pointer swap.
 */

#include <linux/module.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/rcupdate.h>

#include "netns.h"
#include "ruleset.h"

unsigned int afw_max_rules __read_mostly = 2000000;
module_param_named(max_rules, afw_max_rules, uint, 0644);
MODULE_PARM_DESC(max_rules, "Most rules one network namespace may hold");

/*
 * Every distinct mask costs one hash probe per classified packet, and port
 * ranges multiply masks: the cap bounds the per-packet cost that a ruleset
 * (or someone crafting one) can impose.
 */
unsigned int afw_max_masks __read_mostly = 128;
module_param_named(max_masks, afw_max_masks, uint, 0444);
MODULE_PARM_DESC(max_masks, "Most distinct rule masks (hash tables) per namespace");

struct afw_ruleset *afw_ruleset_locked(struct afw_net *an)
{
	return rcu_dereference_protected(an->ruleset, lockdep_is_held(&an->lock));
}

static void afw_ruleset_publish(struct afw_net *an, struct afw_ruleset *rs)
{
	struct afw_ruleset *old = afw_ruleset_locked(an);

	rcu_assign_pointer(an->ruleset, rs);
	WRITE_ONCE(an->ruleset_gen, rs ? rs->gen : an->ruleset_gen + 1);
	if (old)
		afw_ruleset_free_rcu(old);
}

/* Builds and publishes a snapshot of @rules; takes @rules on success. */
static int afw_ruleset_swap(struct afw_net *an, struct afw_rule **rules, u32 n,
			    struct netlink_ext_ack *extack)
{
	struct afw_ruleset *rs;

	rs = afw_ruleset_build(rules, n, an->ruleset_gen + 1, afw_max_masks, extack);
	if (IS_ERR(rs))
		return PTR_ERR(rs);
	afw_ruleset_publish(an, rs);
	return 0;
}

int afw_ruleset_add(struct afw_net *an, struct afw_rule *rule, struct netlink_ext_ack *extack)
{
	struct afw_ruleset *cur = afw_ruleset_locked(an);
	u32 n = cur ? cur->nrules : 0, i, pos, max_id = 0;
	struct afw_rule **rules;
	int ret;

	lockdep_assert_held(&an->lock);
	if (n >= READ_ONCE(afw_max_rules)) {
		NL_SET_ERR_MSG_MOD(extack, "the namespace holds max_rules rules already");
		return -ENOSPC;
	}
	for (i = 0; i < n; i++) {
		if (rule->id && cur->rules[i]->id == rule->id) {
			NL_SET_ERR_MSG_MOD(extack, "a rule with this id exists");
			return -EEXIST;
		}
		max_id = max(max_id, cur->rules[i]->id);
	}
	if (!rule->id) {
		if (max_id == U32_MAX) {
			NL_SET_ERR_MSG_MOD(extack, "no id above the highest in use is free; give an id");
			return -ENOSPC;
		}
		rule->id = max_id + 1;
	}

	rules = kvmalloc_array(n + 1, sizeof(*rules), GFP_KERNEL_ACCOUNT);
	if (!rules)
		return -ENOMEM;
	for (pos = 0; pos < n && afw_rule_key(cur->rules[pos]) < afw_rule_key(rule); pos++)
		;
	if (pos)
		memcpy(rules, cur->rules, pos * sizeof(*rules));
	rules[pos] = rule;
	if (n > pos)
		memcpy(rules + pos + 1, cur->rules + pos, (n - pos) * sizeof(*rules));

	ret = afw_ruleset_swap(an, rules, n + 1, extack);
	if (ret) {
		kvfree(rules);
		return ret;
	}
	/* The snapshot holds its own reference now. */
	afw_rule_put(rule);
	return 0;
}

int afw_ruleset_del(struct afw_net *an, u32 id, struct netlink_ext_ack *extack)
{
	struct afw_ruleset *cur = afw_ruleset_locked(an);
	struct afw_rule **rules;
	u32 i, n = cur ? cur->nrules : 0;
	int ret;

	lockdep_assert_held(&an->lock);
	for (i = 0; i < n && cur->rules[i]->id != id; i++)
		;
	if (i == n) {
		NL_SET_ERR_MSG_MOD(extack, "no rule with this id");
		return -ENOENT;
	}
	if (n == 1) {
		afw_ruleset_publish(an, NULL);
		return 0;
	}
	rules = kvmalloc_array(n - 1, sizeof(*rules), GFP_KERNEL_ACCOUNT);
	if (!rules)
		return -ENOMEM;
	memcpy(rules, cur->rules, i * sizeof(*rules));
	memcpy(rules + i, cur->rules + i + 1, (n - i - 1) * sizeof(*rules));
	ret = afw_ruleset_swap(an, rules, n - 1, extack);
	if (ret)
		kvfree(rules);
	return ret;
}

void afw_ruleset_flush(struct afw_net *an)
{
	lockdep_assert_held(&an->lock);
	afw_ruleset_publish(an, NULL);
}
