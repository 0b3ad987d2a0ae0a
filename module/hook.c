// SPDX-License-Identifier: GPL-2.0
/*
 * The netfilter hooks: IPv4 and IPv6 on LOCAL_IN, LOCAL_OUT and FORWARD, in
 * every network namespace.
 */

#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/reciprocal_div.h>
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

/* A flow's verdict is a rule action, with inspect meaning "keep queueing". */
static_assert((int)AFW_VERDICT_ACCEPT == (int)AFW_ACTION_ACCEPT &&
	      (int)AFW_VERDICT_DROP == (int)AFW_ACTION_DROP &&
	      (int)AFW_VERDICT_REJECT == (int)AFW_ACTION_REJECT &&
	      (int)AFW_VERDICT_INSPECT == (int)AFW_ACTION_QUEUE);

static unsigned int afw_queue(struct afw_net *an, const struct afw_tuple *t)
{
	u16 num = READ_ONCE(an->cfg.queue_num), count = READ_ONCE(an->cfg.queue_count);
	struct afw_flow_key k;
	unsigned int verdict;

	/* Both directions hash alike, so a flow stays on one queue. */
	if (count > 1) {
		afw_flow_key_from_tuple(t, &k);
		num += reciprocal_scale(afw_flow_hash(&k, an->queue_seed), count);
	}
	verdict = NF_QUEUE_NR(num);
	/* Fail-open: with nobody listening, the packet goes on as accepted. */
	if (READ_ONCE(an->cfg.fail_open))
		verdict |= NF_VERDICT_FLAG_QUEUE_BYPASS;
	return verdict;
}

static unsigned int afw_act(struct afw_net *an, struct sk_buff *skb,
			    const struct nf_hook_state *state, const struct afw_tuple *t,
			    enum afw_stats_source src, u8 action)
{
	afw_stats_decided(an->stats, src, action);
	switch (action) {
	case AFW_ACTION_ACCEPT:
		return NF_ACCEPT;
	case AFW_ACTION_QUEUE:
		return afw_queue(an, t);
	case AFW_ACTION_REJECT:
		/*
		 * The reset that rejecting sends belongs to the rejected flow and
		 * leaves through LOCAL_OUT: letting resets pass is what lets it
		 * out. A reset ends the connection anyway.
		 */
		if (t->flags & AFW_TUPLE_RST)
			return NF_ACCEPT;
		afw_reject(skb, state, t);
		fallthrough;
	default:
		return NF_DROP;
	}
}

static unsigned int afw_hook(void *priv, struct sk_buff *skb,
			     const struct nf_hook_state *state)
{
	struct afw_net *an = afw_net(state->net);
	enum afw_direction dir = afw_hook_direction(state->hook);
	struct afw_tuple t, need = { };
	const struct afw_ruleset *rs;
	struct afw_flow_key k;
	struct afw_rule *rule;
	struct afw_flow *f;
	bool flows, idle;
	u8 unknown;

	/* Netfilter runs hooks under rcu_read_lock(). */
	rs = rcu_dereference(an->ruleset);
	flows = READ_ONCE(an->flows.count);
	unknown = READ_ONCE(an->cfg.unknown);
	idle = !rs && !flows && unknown == AFW_UNKNOWN_ACCEPT;
	afw_stats_count(an->stats,
			state->pf == NFPROTO_IPV6 ? AFW_STATS_IPV6 : AFW_STATS_IPV4,
			dir, skb->len, idle);
	if (idle)
		return NF_ACCEPT;

	if (rs)
		need = rs->need;
	/*
	 * Flow keys and queue fan-out both need the ports; a ruleset with a
	 * queue rule asks for them itself.
	 */
	if (flows || unknown == AFW_UNKNOWN_QUEUE)
		need.flags |= AFW_TUPLE_PORTS;
	if (afw_packet_tuple(skb, state, &need, &t)) {
		afw_stats_malformed(an->stats);
		return NF_DROP;
	}
	t.dir = dir;

	if (flows) {
		afw_flow_key_from_tuple(&t, &k);
		f = afw_flow_lookup(&an->flows, &k);
		if (f) {
			afw_flow_seen(f, skb->len, t.flags & AFW_TUPLE_FINRST);
			return afw_act(an, skb, state, &t, AFW_STATS_FLOW,
				       READ_ONCE(f->verdict));
		}
	}
	if (rs) {
		rule = afw_classify(rs, &t);
		if (rule) {
			afw_rule_count(rule, skb->len);
			return afw_act(an, skb, state, &t, AFW_STATS_RULE, rule->action);
		}
	}
	switch (unknown) {
	case AFW_UNKNOWN_QUEUE:
		return afw_act(an, skb, state, &t, AFW_STATS_UNKNOWN, AFW_ACTION_QUEUE);
	case AFW_UNKNOWN_DROP:
		return afw_act(an, skb, state, &t, AFW_STATS_UNKNOWN, AFW_ACTION_DROP);
	default:
		return afw_act(an, skb, state, &t, AFW_STATS_UNKNOWN, AFW_ACTION_ACCEPT);
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
