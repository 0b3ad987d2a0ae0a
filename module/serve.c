// SPDX-License-Identifier: GPL-2.0
/*
 * Who serves afw's queues. NFQUEUE drops (or, failing open, passes) a
 * packet sent to a queue nobody listens on, and tells no one: afwd says
 * which queues it has bound, for as long as its socket lives, so that afw
 * can count what it sends elsewhere and status can say where packets went.
 */

#include <linux/netlink.h>
#include <linux/slab.h>

#include "netns.h"
#include "serve.h"

static struct afw_serve *afw_serve_locked(struct afw_net *an)
{
	return rcu_dereference_protected(an->serve, lockdep_is_held(&an->lock));
}

/*
 * A copy of the current ranges but @portid's (all of them when @portid is
 * 0), with room for @extra more; NULL when out of memory.
 */
static struct afw_serve *afw_serve_copy(const struct afw_serve *cur, u32 portid,
					unsigned int extra)
{
	unsigned int i, n = cur ? cur->n : 0;
	struct afw_serve *s;

	s = kmalloc(struct_size(s, r, n + extra), GFP_KERNEL_ACCOUNT);
	if (!s)
		return NULL;
	s->n = 0;
	for (i = 0; i < n; i++)
		if (cur->r[i].portid != portid && cur->r[i].count)
			s->r[s->n++] = cur->r[i];
	return s;
}

static void afw_serve_publish(struct afw_net *an, struct afw_serve *s)
{
	struct afw_serve *old = afw_serve_locked(an);

	/* An empty set is no set: the socket notifier looks at the pointer. */
	if (s && !s->n) {
		kfree(s);
		s = NULL;
	}
	rcu_assign_pointer(an->serve, s);
	if (old)
		kfree_rcu(old, rcu);
}

/* Where in @s @portid's range @first, @count is; @s->n when it is not there. */
static unsigned int afw_serve_find(const struct afw_serve *s, u32 portid, u16 first, u16 count)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (s->r[i].portid == portid && s->r[i].first == first && s->r[i].count == count)
			break;
	return i;
}

int afw_serve_add(struct afw_net *an, u32 portid, u16 first, u16 count, bool tell,
		  struct netlink_ext_ack *extack)
{
	struct afw_serve *cur = afw_serve_locked(an), *s;
	bool said = false;
	unsigned int i;

	lockdep_assert_held(&an->lock);
	if (!count) {
		afw_serve_release(an, portid);
		return 0;
	}
	if ((u32)first + count > 65536) {
		NL_SET_ERR_MSG_MOD(extack, "the queue range runs past queue 65535");
		return -EINVAL;
	}
	if (cur) {
		i = afw_serve_find(cur, portid, first, count);
		if (i < cur->n && cur->r[i].tell == tell)
			return 0;
		said = i < cur->n;
	}
	if (!said && cur && cur->n >= AFW_SERVE_MAX) {
		NL_SET_ERR_MSG_MOD(extack, "the namespace's AFW_SERVE_MAX ranges are all taken");
		return -ENOSPC;
	}
	/*
	 * Everything the socket said before, and this range after it; a
	 * range said again changes whether it is told, in a copy as well:
	 * the packet path reads the published one.
	 */
	s = afw_serve_copy(cur, 0, !said);
	if (!s)
		return -ENOMEM;
	i = afw_serve_find(s, portid, first, count);
	if (i == s->n)
		s->r[s->n++] = (struct afw_serve_range){ .portid = portid, .first = first,
							 .count = count };
	s->r[i].tell = tell;
	afw_serve_publish(an, s);
	return 0;
}

void afw_serve_release(struct afw_net *an, u32 portid)
{
	struct afw_serve *cur = afw_serve_locked(an), *s;
	unsigned int i;

	lockdep_assert_held(&an->lock);
	for (i = 0; cur && i < cur->n; i++)
		if (cur->r[i].portid == portid)
			break;
	if (!cur || i == cur->n)
		return;
	s = afw_serve_copy(cur, portid, 0);
	if (!s) {
		/*
		 * No memory for a smaller copy: clear the socket's ranges in
		 * place instead. A reader sees each range whole or empty.
		 */
		for (i = 0; i < cur->n; i++)
			if (cur->r[i].portid == portid)
				WRITE_ONCE(cur->r[i].count, 0);
		return;
	}
	afw_serve_publish(an, s);
}

/* At the namespace's end, its hooks gone and a grace period after. */
void afw_serve_free(struct afw_net *an)
{
	kfree(rcu_dereference_protected(an->serve, true));
	RCU_INIT_POINTER(an->serve, NULL);
}

bool afw_serve_has(const struct afw_net *an, u16 num)
{
	const struct afw_serve *s = rcu_dereference(an->serve);
	unsigned int i;

	for (i = 0; s && i < s->n; i++)
		if ((u16)(num - s->r[i].first) < READ_ONCE(s->r[i].count))
			return true;
	return false;
}

u32 afw_serve_teller(const struct afw_net *an, u16 num)
{
	const struct afw_serve *s = rcu_dereference(an->serve);
	unsigned int i;

	for (i = 0; s && i < s->n; i++)
		if (s->r[i].tell && (u16)(num - s->r[i].first) < READ_ONCE(s->r[i].count))
			return s->r[i].portid;
	return 0;
}
