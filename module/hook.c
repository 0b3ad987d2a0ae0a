// SPDX-License-Identifier: GPL-2.0
/*
 * The netfilter hooks: IPv4 and IPv6 on LOCAL_IN, LOCAL_OUT and FORWARD, in
 * every network namespace.
 */

#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/skbuff.h>

#include "hook.h"
#include "netns.h"
#include "packet.h"
#include "reject.h"

/*
 * Just after the filter tables: a packet the host's own iptables or nftables
 * ruleset drops never costs afw (or its analyzer) any work, and conntrack has
 * already seen the packet by then.
 */
#define AFW_HOOK_PRIORITY (NF_IP_PRI_FILTER + 10)

static enum afw_direction afw_hook_direction(unsigned int hooknum)
{
	switch (hooknum) {
	case NF_INET_LOCAL_IN:
		return AFW_DIR_IN;
	case NF_INET_LOCAL_OUT:
		return AFW_DIR_OUT;
	default:
		return AFW_DIR_FORWARD;
	}
}

static unsigned int afw_hook(void *priv, struct sk_buff *skb,
			     const struct nf_hook_state *state)
{
	struct afw_net *an = afw_net(state->net);
	enum afw_direction dir = afw_hook_direction(state->hook);
	const struct afw_ruleset *rs;
	struct afw_rule *rule;
	struct afw_tuple t;

	afw_stats_count(an->stats,
			state->pf == NFPROTO_IPV6 ? AFW_STATS_IPV6 : AFW_STATS_IPV4,
			dir, skb->len);

	/* Netfilter runs hooks under rcu_read_lock(). */
	rs = rcu_dereference(an->ruleset);
	if (!rs)
		return NF_ACCEPT;
	if (afw_packet_tuple(skb, state, &rs->need, &t)) {
		afw_stats_event(an->stats, AFW_STATS_MALFORMED);
		return NF_DROP;
	}
	t.dir = dir;
	rule = afw_classify(rs, &t);
	if (!rule)
		return NF_ACCEPT;
	afw_rule_count(rule, skb->len);

	switch (rule->action) {
	case AFW_ACTION_ACCEPT:
		return NF_ACCEPT;
	case AFW_ACTION_REJECT:
		afw_reject(skb, state, &t);
		fallthrough;
	default:
		afw_stats_event(an->stats, AFW_STATS_DROPPED);
		return NF_DROP;
	}
}

#define AFW_HOOK_OPS(_pf, _hooknum) {		\
	.hook = afw_hook,			\
	.pf = (_pf),				\
	.hooknum = (_hooknum),			\
	.priority = AFW_HOOK_PRIORITY,		\
}

static const struct nf_hook_ops afw_hook_ops[] = {
	AFW_HOOK_OPS(NFPROTO_IPV4, NF_INET_LOCAL_IN),
	AFW_HOOK_OPS(NFPROTO_IPV4, NF_INET_LOCAL_OUT),
	AFW_HOOK_OPS(NFPROTO_IPV4, NF_INET_FORWARD),
	AFW_HOOK_OPS(NFPROTO_IPV6, NF_INET_LOCAL_IN),
	AFW_HOOK_OPS(NFPROTO_IPV6, NF_INET_LOCAL_OUT),
	AFW_HOOK_OPS(NFPROTO_IPV6, NF_INET_FORWARD),
};

int afw_hooks_register(struct net *net)
{
	return nf_register_net_hooks(net, afw_hook_ops, ARRAY_SIZE(afw_hook_ops));
}

void afw_hooks_unregister(struct net *net)
{
	nf_unregister_net_hooks(net, afw_hook_ops, ARRAY_SIZE(afw_hook_ops));
}
