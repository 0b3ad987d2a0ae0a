// SPDX-License-Identifier: GPL-2.0
/*
 * Changing a namespace's ruleset: every change builds a complete new
 * snapshot off to the side and publishes it with one RCU pointer swap.
 */

#include <linux/module.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sort.h>

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

void afw_stage_free(struct afw_stage *stage)
{
	u32 i;

	if (!stage)
		return;
	for (i = 0; i < stage->n; i++) {
		afw_rule_put(stage->rules[i]);
		if (!(i & 1023))
			cond_resched();
	}
	kvfree(stage->rules);
	kfree(stage);
}

void afw_stage_drop(struct afw_net *an, u32 portid)
{
	lockdep_assert_held(&an->lock);
	if (an->stage && an->stage->portid == portid) {
		afw_stage_free(an->stage);
		an->stage = NULL;
	}
}

int afw_stage_begin(struct afw_net *an, u32 portid, struct netlink_ext_ack *extack)
{
	lockdep_assert_held(&an->lock);
	if (an->stage && an->stage->portid != portid) {
		NL_SET_ERR_MSG_MOD(extack, "another ruleset replace is in progress in this namespace");
		return -EBUSY;
	}
	afw_stage_drop(an, portid);
	an->stage = kzalloc(sizeof(*an->stage), GFP_KERNEL_ACCOUNT);
	if (!an->stage)
		return -ENOMEM;
	an->stage->portid = portid;
	return 0;
}

static struct afw_stage *afw_stage_of(struct afw_net *an, u32 portid,
				      struct netlink_ext_ack *extack)
{
	if (!an->stage || an->stage->portid != portid) {
		NL_SET_ERR_MSG_MOD(extack, "no ruleset replace in progress: send AFW_REPLACE_F_BEGIN first");
		return NULL;
	}
	return an->stage;
}

int afw_stage_add(struct afw_net *an, u32 portid, struct afw_rule *rule,
		  struct netlink_ext_ack *extack)
{
	struct afw_stage *st = afw_stage_of(an, portid, extack);
	struct afw_rule **grown;
	u32 cap;

	lockdep_assert_held(&an->lock);
	if (!st)
		goto err;
	if (st->n >= READ_ONCE(afw_max_rules)) {
		NL_SET_ERR_MSG_MOD(extack, "the new ruleset has more than max_rules rules");
		goto err;
	}
	if (st->n == st->cap) {
		cap = max(64U, st->cap * 2);
		grown = kvmalloc_array(cap, sizeof(*grown), GFP_KERNEL_ACCOUNT);
		if (!grown)
			goto err;
		if (st->n)
			memcpy(grown, st->rules, st->n * sizeof(*grown));
		kvfree(st->rules);
		st->rules = grown;
		st->cap = cap;
	}
	st->rules[st->n++] = rule;
	return 0;

err:
	afw_rule_put(rule);
	return st ? (st->n >= READ_ONCE(afw_max_rules) ? -ENOSPC : -ENOMEM) : -ENOENT;
}

static int afw_rule_id_cmp(const void *a, const void *b)
{
	u32 x = (*(struct afw_rule * const *)a)->id, y = (*(struct afw_rule * const *)b)->id;

	return x < y ? -1 : x > y;
}

static int afw_rule_order_cmp(const void *a, const void *b)
{
	u64 x = afw_rule_key(*(struct afw_rule * const *)a);
	u64 y = afw_rule_key(*(struct afw_rule * const *)b);

	return x < y ? -1 : x > y;
}

int afw_stage_commit(struct afw_net *an, u32 portid, struct netlink_ext_ack *extack)
{
	struct afw_stage *st = afw_stage_of(an, portid, extack);
	u32 i, max_id = 0;
	int ret;

	lockdep_assert_held(&an->lock);
	if (!st)
		return -ENOENT;
	for (i = 0; i < st->n; i++)
		max_id = max(max_id, st->rules[i]->id);
	for (i = 0; i < st->n; i++) {
		if (st->rules[i]->id)
			continue;
		if (max_id == U32_MAX) {
			NL_SET_ERR_MSG_MOD(extack, "no free id above the highest given");
			ret = -ENOSPC;
			goto out;
		}
		st->rules[i]->id = ++max_id;
	}
	sort(st->rules, st->n, sizeof(*st->rules), afw_rule_id_cmp, NULL);
	for (i = 1; i < st->n; i++) {
		if (st->rules[i]->id == st->rules[i - 1]->id) {
			NL_SET_ERR_MSG_MOD(extack, "two rules of the new ruleset have the same id");
			ret = -EEXIST;
			goto out;
		}
	}
	sort(st->rules, st->n, sizeof(*st->rules), afw_rule_order_cmp, NULL);

	if (!st->n) {
		afw_ruleset_publish(an, NULL);
		ret = 0;
		goto out;
	}
	/* The snapshot keeps this array: trim the room left by doubling. */
	if (st->cap > st->n) {
		struct afw_rule **exact;

		exact = kvmalloc_array(st->n, sizeof(*exact), GFP_KERNEL_ACCOUNT);
		if (!exact) {
			ret = -ENOMEM;
			goto out;
		}
		memcpy(exact, st->rules, st->n * sizeof(*exact));
		kvfree(st->rules);
		st->rules = exact;
		st->cap = st->n;
	}
	ret = afw_ruleset_swap(an, st->rules, st->n, extack);
	if (!ret) {
		/* The ruleset owns the array and its own references now. */
		for (i = 0; i < st->n; i++)
			afw_rule_put(st->rules[i]);
		st->rules = NULL;
		st->n = 0;
	}
out:
	/* Committed or failed, the transaction is over. */
	afw_stage_drop(an, portid);
	return ret;
}
