// SPDX-License-Identifier: GPL-2.0
/*
 * Learned decisions: afwd decides a flow by its direction, protocol,
 * destination and destination port alone, and says so (AFW_FLOW_F_LEARN).
 * That decision then holds for every new flow sharing them, so the module
 * takes it itself, at the flow's first packet, instead of queueing the
 * packet to afwd and waiting for its answer: a connection of such a flow
 * never leaves the kernel. afwd is told of each such flow afterwards
 * (genl.c, AFW_CMD_LEARNED), logs it and keeps it as its own.
 *
 * An entry is afwd's: it goes when the socket that taught it closes, and
 * afwd forgets them all (AFW_CMD_LEARN_FLUSH) whenever its policy changes.
 */

#include <linux/netlink.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <net/sock.h>

#include "learn.h"
#include "netns.h"
#include "tuple.h"

static const struct rhashtable_params afw_learn_params = {
	.head_offset = offsetof(struct afw_learned, node),
	.key_offset = offsetof(struct afw_learned, key),
	.key_len = sizeof(struct afw_learn_key),
	.automatic_shrinking = true,
};

int afw_learn_init(struct afw_learn *l)
{
	atomic_set(&l->count, 0);
	atomic64_set(&l->full, 0);
	atomic64_set(&l->flows, 0);
	atomic64_set(&l->untold, 0);
	return rhashtable_init(&l->ht, &afw_learn_params);
}

static void afw_learn_free_one(void *ptr, void *arg)
{
	kfree(ptr);
}

void afw_learn_exit(struct afw_learn *l)
{
	rhashtable_free_and_destroy(&l->ht, afw_learn_free_one, NULL);
}

void afw_learn_key_from_tuple(const struct afw_tuple *t, struct afw_learn_key *k)
{
	memset(k, 0, sizeof(*k));
	memcpy(k->daddr, t->daddr, t->family == AFW_FAMILY_IPV6 ? 16 : 4);
	k->dport = t->dport;
	k->family = t->family;
	k->proto = t->proto;
	k->dir = t->dir;
}

bool afw_learn_taught_by(struct afw_learn *l, u32 portid)
{
	unsigned int i;

	if (!afw_learn_any(l))
		return false;
	if (READ_ONCE(l->crowded))
		return true;
	for (i = 0; i < AFW_LEARN_TEACHERS; i++)
		if (READ_ONCE(l->teachers[i]) == portid)
			return true;
	return false;
}

/* Needs afw_net.lock: @portid among the teachers, before its entry is published. */
static void afw_learn_teacher(struct afw_learn *l, u32 portid)
{
	unsigned int i, free = AFW_LEARN_TEACHERS;

	for (i = 0; i < AFW_LEARN_TEACHERS; i++) {
		if (l->teachers[i] == portid)
			return;
		if (!l->teachers[i] && free == AFW_LEARN_TEACHERS)
			free = i;
	}
	if (free < AFW_LEARN_TEACHERS)
		WRITE_ONCE(l->teachers[free], portid);
	else
		WRITE_ONCE(l->crowded, true);
}

static void afw_learn_unlink(struct afw_learn *l, struct afw_learned *e)
{
	if (rhashtable_remove_fast(&l->ht, &e->node, afw_learn_params))
		return;
	atomic_dec(&l->count);
	kfree_rcu(e, rcu);
}

int afw_learn_add(struct afw_net *an, const struct afw_learn_key *k, u32 portid, u32 line,
		  u8 verdict, struct netlink_ext_ack *extack)
{
	struct afw_learn *l = &an->learn;
	struct afw_learned *e, *old;
	int ret;

	lockdep_assert_held(&an->lock);
	old = rhashtable_lookup_fast(&l->ht, k, afw_learn_params);
	if (!old && atomic_read(&l->count) >= AFW_LEARN_MAX) {
		atomic64_inc(&l->full);
		NL_SET_ERR_MSG_MOD(extack, "the namespace holds AFW_LEARN_MAX learned decisions");
		return -ENOSPC;
	}
	e = kzalloc(sizeof(*e), GFP_KERNEL_ACCOUNT);
	if (!e)
		return -ENOMEM;
	afw_learn_teacher(l, portid);
	e->key = *k;
	e->portid = portid;
	e->line = line;
	e->verdict = verdict;
	/* Set up whole before it is published: nothing after this fails. */
	if (old) {
		ret = rhashtable_replace_fast(&l->ht, &old->node, &e->node, afw_learn_params);
		if (ret)
			goto err_free;
		kfree_rcu(old, rcu);
		return 0;
	}
	ret = rhashtable_insert_fast(&l->ht, &e->node, afw_learn_params);
	if (ret)
		goto err_free;
	atomic_inc(&l->count);
	return 0;

err_free:
	kfree(e);
	return ret;
}

void afw_learn_forget(struct afw_net *an, u32 portid)
{
	struct afw_learn *l = &an->learn;
	struct rhashtable_iter iter;
	struct afw_learned *e;
	unsigned int i;

	lockdep_assert_held(&an->lock);
	for (i = 0; i < AFW_LEARN_TEACHERS; i++)
		if (!portid || l->teachers[i] == portid)
			WRITE_ONCE(l->teachers[i], 0);
	if (!portid)
		WRITE_ONCE(l->crowded, false);
	if (!afw_learn_any(l))
		return;
	rhashtable_walk_enter(&l->ht, &iter);
	rhashtable_walk_start(&iter);
	while ((e = rhashtable_walk_next(&iter))) {
		/* A resize meanwhile: the walk goes on, maybe seeing some twice. */
		if (IS_ERR(e))
			continue;
		if (!portid || e->portid == portid)
			afw_learn_unlink(l, e);
	}
	rhashtable_walk_stop(&iter);
	rhashtable_walk_exit(&iter);
}

struct afw_learned *afw_learn_lookup(struct afw_learn *l, const struct afw_learn_key *k)
{
	return rhashtable_lookup(&l->ht, k, afw_learn_params);
}

/*
 * A dump resumes by count (cb->args[0] entries told), under the lock that
 * keeps the table still while it runs; a change between two of its parts
 * may show an entry twice or not at all, as a flow dump's would.
 */
int afw_learn_dump(struct sk_buff *skb, struct netlink_callback *cb,
		   int (*fill)(struct sk_buff *skb, struct netlink_callback *cb,
			       const struct afw_learned *e))
{
	struct afw_net *an = afw_net(sock_net(cb->skb->sk));
	struct rhashtable_iter iter;
	struct afw_learned *e;
	long i = 0;

	mutex_lock(&an->lock);
	rhashtable_walk_enter(&an->learn.ht, &iter);
	rhashtable_walk_start(&iter);
	while ((e = rhashtable_walk_next(&iter))) {
		if (IS_ERR(e))
			continue;
		if (i++ < cb->args[0])
			continue;
		if (fill(skb, cb, e) < 0) {
			i--;
			break;
		}
	}
	rhashtable_walk_stop(&iter);
	rhashtable_walk_exit(&iter);
	mutex_unlock(&an->lock);
	if (i == cb->args[0])
		return 0;
	cb->args[0] = i;
	return skb->len;
}
