// SPDX-License-Identifier: GPL-2.0
/*
 * Changing a namespace's ruleset: every change builds a new snapshot off to
 * the side and publishes it with one RCU pointer swap. A single rule added
 * or removed builds again only the tables it has entries in; a replace
 * builds all.
 */

#include <linux/bsearch.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "netns.h"
#include "ruleset.h"
#include "sort.h"

/* Bounds of the parameters: a ruleset's arrays grow by doubling a u32. */
#define AFW_MAX_RULES_LIMIT	BIT(24)
#define AFW_MAX_MASKS_LIMIT	4096

static int afw_param_max_rules_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, AFW_MAX_RULES_LIMIT);
}

static const struct kernel_param_ops afw_param_max_rules_ops = {
	.set = afw_param_max_rules_set,
	.get = param_get_uint,
};

unsigned int afw_max_rules __read_mostly = 2000000;
module_param_cb(max_rules, &afw_param_max_rules_ops, &afw_max_rules, 0644);
MODULE_PARM_DESC(max_rules, "Most rules one network namespace may hold, 0-16777216");

/*
 * Every distinct mask costs one hash probe per classified packet, and port
 * ranges multiply masks: the cap bounds the per-packet cost that a ruleset
 * (or someone crafting one) can impose. Set at load only.
 */
static int afw_param_max_masks_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, AFW_MAX_MASKS_LIMIT);
}

static const struct kernel_param_ops afw_param_max_masks_ops = {
	.set = afw_param_max_masks_set,
	.get = param_get_uint,
};

unsigned int afw_max_masks __read_mostly = 128;
module_param_cb(max_masks, &afw_param_max_masks_ops, &afw_max_masks, 0444);
MODULE_PARM_DESC(max_masks, "Most distinct rule masks (hash tables) per namespace, 1-4096");

struct afw_ruleset *afw_ruleset_locked(struct afw_net *an)
{
	return rcu_dereference_protected(an->ruleset, lockdep_is_held(&an->lock));
}

static void afw_ruleset_publish(struct afw_net *an, struct afw_ruleset *rs)
{
	struct afw_ruleset *old = afw_ruleset_locked(an);

	/* Bounds what replaced snapshots hold until they are freed. */
	afw_ruleset_retired_wait();
	rcu_assign_pointer(an->ruleset, rs);
	WRITE_ONCE(an->ruleset_gen, rs ? rs->gen : an->ruleset_gen + 1);
	if (old)
		afw_ruleset_free_rcu(old);
}

/*
 * Publishes @rs, built for @net, once the namespace's hooks are there:
 * registering them is the last thing that can fail, so a request refused
 * for its rules leaves no hooks behind. On failure @rs goes.
 */
static int afw_ruleset_activate_publish(struct net *net, struct afw_ruleset *rs,
					struct netlink_ext_ack *extack)
{
	int ret = afw_net_activate(net, extack);

	if (ret) {
		afw_ruleset_free(rs);
		return ret;
	}
	afw_ruleset_publish(afw_net(net), rs);
	return 0;
}

int afw_ruleset_add(struct net *net, struct afw_rule *rule, struct netlink_ext_ack *extack)
{
	struct afw_net *an = afw_net(net);
	struct afw_ruleset *cur = afw_ruleset_locked(an);
	u32 n = cur ? cur->nrules : 0, i, max_id = 0;
	struct afw_ruleset *rs;
	int ret;

	lockdep_assert_held(&an->lock);
	ret = -ENOSPC;
	if (n >= READ_ONCE(afw_max_rules)) {
		NL_SET_ERR_MSG_MOD(extack, "the namespace holds max_rules rules already");
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (rule->id && cur->rules[i]->id == rule->id) {
			NL_SET_ERR_MSG_MOD(extack, "a rule with this id exists");
			ret = -EEXIST;
			goto out;
		}
		max_id = max(max_id, cur->rules[i]->id);
		/* Millions of rules: a single change must not hog the CPU. */
		if (!(i & 1023))
			cond_resched();
	}
	if (!rule->id) {
		if (max_id == U32_MAX) {
			NL_SET_ERR_MSG_MOD(extack, "no id above the highest in use is free; give an id");
			goto out;
		}
		rule->id = max_id + 1;
	}

	/* Only the tables the rule has entries in are built again. */
	rs = afw_ruleset_with(cur, rule, an->ruleset_gen + 1, afw_max_masks, extack);
	ret = PTR_ERR_OR_ZERO(rs);
	if (!ret)
		ret = afw_ruleset_activate_publish(net, rs, extack);
out:
	/* The snapshot, if any, holds its own reference now. */
	afw_rule_put(rule);
	return ret;
}

/* A rule's flows go with it: the rule no longer accepts their packets. */
static bool afw_rule_keeps_not(u32 rule_id, const void *ctx)
{
	return rule_id != *(const u32 *)ctx;
}

static bool afw_rule_keeps_none(u32 rule_id, const void *ctx)
{
	return false;
}

static int afw_u32_cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

struct afw_accept_ids {
	u32 n;
	u32 ids[];
};

static bool afw_rule_keeps_accepting(u32 rule_id, const void *ctx)
{
	const struct afw_accept_ids *a = ctx;

	return bsearch(&rule_id, a->ids, a->n, sizeof(u32), afw_u32_cmp);
}

/*
 * After a replace, the flows of the accept rules that are gone (or accept
 * no more) go: those of rules kept under their id stay. With no accept
 * rule, or out of memory, all go; the next packet an accept rule passes
 * installs its flow again.
 */
static void afw_ruleset_prune_flows(struct afw_net *an)
{
	const struct afw_ruleset *rs = afw_ruleset_locked(an);
	struct afw_accept_ids *a;
	u32 i, n;

	/*
	 * No test of rule_flows here: a packet an old accept rule passed may
	 * be about to insert the first rule flow. afw_flows_prune_rules()
	 * waits for it before it looks.
	 */
	for (i = 0, n = 0; rs && i < rs->nrules; i++)
		n += rs->rules[i]->action == AFW_ACTION_ACCEPT;
	a = n ? kvmalloc(struct_size(a, ids, n), GFP_KERNEL) : NULL;
	if (!a) {
		afw_flows_prune_rules(an, afw_rule_keeps_none, NULL);
		return;
	}
	a->n = 0;
	for (i = 0; i < rs->nrules; i++)
		if (rs->rules[i]->action == AFW_ACTION_ACCEPT)
			a->ids[a->n++] = rs->rules[i]->id;
	afw_sort(a->ids, a->n, sizeof(u32), afw_u32_cmp);
	afw_flows_prune_rules(an, afw_rule_keeps_accepting, a);
	kvfree(a);
}

int afw_ruleset_del(struct afw_net *an, u32 id, struct netlink_ext_ack *extack)
{
	struct afw_ruleset *cur = afw_ruleset_locked(an), *rs;
	u32 i, n = cur ? cur->nrules : 0;
	bool accept;

	lockdep_assert_held(&an->lock);
	for (i = 0; i < n && cur->rules[i]->id != id; i++)
		if (!(i & 1023))
			cond_resched();
	if (i == n) {
		NL_SET_ERR_MSG_MOD(extack, "no rule with this id");
		return -ENOENT;
	}
	/* Only accept rules install flows. Read now: publishing frees @cur. */
	accept = cur->rules[i]->action == AFW_ACTION_ACCEPT;
	if (n == 1) {
		afw_ruleset_publish(an, NULL);
		goto out;
	}
	rs = afw_ruleset_without(cur, i, an->ruleset_gen + 1);
	if (IS_ERR(rs))
		return PTR_ERR(rs);
	afw_ruleset_publish(an, rs);
out:
	if (accept)
		afw_flows_prune_rules(an, afw_rule_keeps_not, &id);
	return 0;
}

void afw_ruleset_flush(struct afw_net *an)
{
	lockdep_assert_held(&an->lock);
	afw_ruleset_publish(an, NULL);
	afw_flows_prune_rules(an, afw_rule_keeps_none, NULL);
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
		/* WRITE_ONCE: the socket-release notifier peeks without the lock. */
		WRITE_ONCE(an->stage, NULL);
	}
}

int afw_stage_begin(struct afw_net *an, u32 portid, struct netlink_ext_ack *extack)
{
	struct afw_stage *stage;

	lockdep_assert_held(&an->lock);
	if (an->stage && an->stage->portid != portid) {
		NL_SET_ERR_MSG_MOD(extack, "another ruleset replace is in progress in this namespace");
		return -EBUSY;
	}
	afw_stage_drop(an, portid);
	stage = kzalloc(sizeof(*stage), GFP_KERNEL_ACCOUNT);
	if (!stage)
		return -ENOMEM;
	stage->portid = portid;
	WRITE_ONCE(an->stage, stage);
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

/*
 * Sorts @n pointers with @cmp, unless they are in order already, as a file
 * of rules written by hand or by afwctl save mostly is: heapsort would
 * spend a second of a million-rule load on what one pass can tell.
 */
static void afw_sort_rules(struct afw_rule **rules, u32 n,
			   int (*cmp)(const void *a, const void *b))
{
	u32 i;

	for (i = 1; i < n && cmp(&rules[i - 1], &rules[i]) <= 0; i++)
		if (!(i & 65535))
			cond_resched();
	if (i < n)
		afw_sort(rules, n, sizeof(*rules), cmp);
}

static int afw_rule_order_cmp(const void *a, const void *b)
{
	u64 x = afw_rule_key(*(struct afw_rule * const *)a);
	u64 y = afw_rule_key(*(struct afw_rule * const *)b);

	return x < y ? -1 : x > y;
}

/*
 * A replace keeps the counts of the rules it keeps: a new rule with an id
 * in use takes over that rule's counters. @st is sorted by id. Out of
 * memory for the lookup, the counts start again from zero.
 */
static void afw_stage_keep_counts(struct afw_net *an, struct afw_stage *st)
{
	const struct afw_ruleset *cur = afw_ruleset_locked(an);
	struct afw_rule **old;
	u32 i, j;

	if (!cur)
		return;
	old = kvmalloc_array(cur->nrules, sizeof(*old), GFP_KERNEL);
	if (!old)
		return;
	memcpy(old, cur->rules, cur->nrules * sizeof(*old));
	afw_sort_rules(old, cur->nrules, afw_rule_id_cmp);
	for (i = 0, j = 0; i < st->n && j < cur->nrules;) {
		if (st->rules[i]->id < old[j]->id) {
			i++;
		} else if (st->rules[i]->id > old[j]->id) {
			j++;
		} else {
			afw_rule_take_counters(st->rules[i++], old[j++]);
			if (!(i & 1023))
				cond_resched();
		}
	}
	kvfree(old);
}

/*
 * The settings that come with a commit follow its rules at once: only the
 * prune's grace period comes after them, not between.
 */
static void afw_stage_settings(struct afw_net *an, struct afw_config **cfg)
{
	if (*cfg) {
		afw_config_publish(an, *cfg);
		*cfg = NULL;
	}
}

int afw_stage_commit(struct net *net, u32 portid, struct afw_config **cfg,
		     struct netlink_ext_ack *extack)
{
	struct afw_net *an = afw_net(net);
	struct afw_stage *st = afw_stage_of(an, portid, extack);
	struct afw_ruleset *rs;
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
	afw_sort_rules(st->rules, st->n, afw_rule_id_cmp);
	for (i = 1; i < st->n; i++) {
		if (st->rules[i]->id == st->rules[i - 1]->id) {
			NL_SET_ERR_MSG_MOD(extack, "two rules of the new ruleset have the same id");
			ret = -EEXIST;
			goto out;
		}
	}
	afw_stage_keep_counts(an, st);
	afw_sort_rules(st->rules, st->n, afw_rule_order_cmp);

	if (!st->n) {
		ret = afw_net_activate(net, extack);
		if (ret)
			goto out;
		afw_ruleset_publish(an, NULL);
		afw_stage_settings(an, cfg);
		afw_flows_prune_rules(an, afw_rule_keeps_none, NULL);
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
	rs = afw_ruleset_build(st->rules, st->n, an->ruleset_gen + 1, afw_max_masks, extack);
	ret = PTR_ERR_OR_ZERO(rs);
	if (ret)
		goto out;
	/* The snapshot owns the array and its own references now. */
	for (i = 0; i < st->n; i++)
		afw_rule_put(st->rules[i]);
	st->rules = NULL;
	st->n = 0;
	ret = afw_ruleset_activate_publish(net, rs, extack);
	if (!ret) {
		afw_stage_settings(an, cfg);
		afw_ruleset_prune_flows(an);
	}
out:
	/* Committed or failed, the transaction is over. */
	afw_stage_drop(an, portid);
	return ret;
}
