// SPDX-License-Identifier: GPL-2.0
/*
 * The "afw" generic netlink family: the only control surface of the module.
 *
 * Rights: reading is open to any user of the namespace, like "ip -s link".
 * Changes need CAP_NET_ADMIN over the namespace's owning user namespace
 * (GENL_UNS_ADMIN_PERM), not over the initial one (GENL_ADMIN_PERM): every
 * piece of afw state belongs to a single network namespace, so a container's
 * own root may manage its firewall without gaining any power over the host
 * or over other containers. Memory that such a user makes the module allocate
 * is charged to its memory cgroup.
 */

#include <net/genetlink.h>
#include <uapi/linux/afw.h>

#include "genl.h"
#include "netns.h"
#include "version.h"

/*
 * No request takes attributes yet; the ones defined are reply-only, and a
 * request carrying one is refused with a message saying so.
 */
static const struct nla_policy afw_genl_policy[AFW_A_MAX + 1] = {
	[AFW_A_MODULE_VERSION] = { .type = NLA_REJECT, .reject_message = "reply-only attribute" },
	[AFW_A_COUNTERS] = { .type = NLA_REJECT, .reject_message = "reply-only attribute" },
};

static struct genl_family afw_genl_family;

static const u8 afw_families[AFW_STATS_NFAMILIES] = {
	[AFW_STATS_IPV4] = AFW_FAMILY_IPV4,
	[AFW_STATS_IPV6] = AFW_FAMILY_IPV6,
};

static int afw_put_counts(struct sk_buff *skb, const struct afw_counts *c)
{
	struct nlattr *counters, *hook;
	unsigned int f, d;

	counters = nla_nest_start(skb, AFW_A_COUNTERS);
	if (!counters)
		return -EMSGSIZE;
	for (f = 0; f < AFW_STATS_NFAMILIES; f++) {
		for (d = 0; d <= AFW_DIR_MAX; d++) {
			hook = nla_nest_start(skb, AFW_COUNTERS_A_HOOK);
			if (!hook)
				return -EMSGSIZE;
			if (nla_put_u8(skb, AFW_HOOK_A_FAMILY, afw_families[f]) ||
			    nla_put_u8(skb, AFW_HOOK_A_DIRECTION, d) ||
			    nla_put_u64_64bit(skb, AFW_HOOK_A_PACKETS,
					      c->hook[f][d].packets, AFW_HOOK_A_PAD) ||
			    nla_put_u64_64bit(skb, AFW_HOOK_A_BYTES,
					      c->hook[f][d].bytes, AFW_HOOK_A_PAD))
				return -EMSGSIZE;
			nla_nest_end(skb, hook);
		}
	}
	nla_nest_end(skb, counters);
	return 0;
}

static int afw_status_get(struct sk_buff *skb, struct genl_info *info)
{
	struct afw_net *an = afw_net(genl_info_net(info));
	struct afw_counts counts;
	struct sk_buff *msg;
	void *hdr;
	int ret;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &afw_genl_family, 0, AFW_CMD_STATUS_GET);
	if (!hdr) {
		ret = -EMSGSIZE;
		goto err_free;
	}

	mutex_lock(&an->lock);
	afw_stats_fold(an->stats, &counts);
	afw_counts_sub(&counts, &an->counts_base);
	mutex_unlock(&an->lock);

	ret = -EMSGSIZE;
	if (nla_put_string(msg, AFW_A_MODULE_VERSION, AFW_VERSION))
		goto err_free;
	ret = afw_put_counts(msg, &counts);
	if (ret)
		goto err_free;

	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free:
	nlmsg_free(msg);
	return ret;
}

static int afw_counters_reset(struct sk_buff *skb, struct genl_info *info)
{
	struct afw_net *an = afw_net(genl_info_net(info));

	mutex_lock(&an->lock);
	afw_stats_fold(an->stats, &an->counts_base);
	mutex_unlock(&an->lock);
	return 0;
}

static const struct genl_small_ops afw_genl_ops[] = {
	{
		.cmd = AFW_CMD_STATUS_GET,
		.doit = afw_status_get,
	},
	{
		.cmd = AFW_CMD_COUNTERS_RESET,
		.doit = afw_counters_reset,
		.flags = GENL_UNS_ADMIN_PERM,
	},
};

static struct genl_family afw_genl_family __ro_after_init = {
	.name = AFW_GENL_NAME,
	.version = AFW_GENL_VERSION,
	.maxattr = AFW_A_MAX,
	.policy = afw_genl_policy,
	.netnsok = true,
	.module = THIS_MODULE,
	.small_ops = afw_genl_ops,
	.n_small_ops = ARRAY_SIZE(afw_genl_ops),
};

int __init afw_genl_init(void)
{
	return genl_register_family(&afw_genl_family);
}

void afw_genl_exit(void)
{
	genl_unregister_family(&afw_genl_family);
}
