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
 * from process context is charged to its memory cgroup. Flows, which packets
 * allocate in softirq, cannot be: so only CAP_NET_ADMIN over the initial user
 * namespace may raise a namespace's max_flows above the module's max_flows.
 */

#include <linux/cgroup.h>
#include <linux/in.h>
#include <linux/netfilter.h>
#include <linux/nsproxy.h>
#include <net/genetlink.h>
#include <net/sock.h>
#include <uapi/linux/afw.h>

#include "genl.h"
#include "netns.h"
#include "owner.h"
#include "ruleset.h"
#include "serve.h"
#include "version.h"

#define AFW_REPLY_ONLY { .type = NLA_REJECT, .reject_message = "reply-only attribute" }

static const struct nla_policy afw_rule_policy[AFW_RULE_A_MAX + 1] = {
	[AFW_RULE_A_PAD] = AFW_REPLY_ONLY,
	[AFW_RULE_A_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[AFW_RULE_A_PRIORITY] = { .type = NLA_U32 },
	[AFW_RULE_A_FAMILY] = { .type = NLA_U8 },
	[AFW_RULE_A_DIRECTIONS] = NLA_POLICY_RANGE(NLA_U8, 1, AFW_DIRS_ALL),
	[AFW_RULE_A_PROTO] = { .type = NLA_U8 },
	[AFW_RULE_A_SRC] = { .type = NLA_BINARY, .len = 16 },
	[AFW_RULE_A_SRC_PREFIX] = NLA_POLICY_MAX(NLA_U8, 128),
	[AFW_RULE_A_DST] = { .type = NLA_BINARY, .len = 16 },
	[AFW_RULE_A_DST_PREFIX] = NLA_POLICY_MAX(NLA_U8, 128),
	[AFW_RULE_A_SPORT_LO] = { .type = NLA_U16 },
	[AFW_RULE_A_SPORT_HI] = { .type = NLA_U16 },
	[AFW_RULE_A_DPORT_LO] = { .type = NLA_U16 },
	[AFW_RULE_A_DPORT_HI] = { .type = NLA_U16 },
	[AFW_RULE_A_IIF] = { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[AFW_RULE_A_OIF] = { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[AFW_RULE_A_UID] = { .type = NLA_U32 },
	[AFW_RULE_A_GID] = { .type = NLA_U32 },
	[AFW_RULE_A_ACTION] = NLA_POLICY_MAX(NLA_U8, AFW_ACTION_MAX),
	[AFW_RULE_A_PACKETS] = AFW_REPLY_ONLY,
	[AFW_RULE_A_BYTES] = AFW_REPLY_ONLY,
	[AFW_RULE_A_COMMENT] = { .type = NLA_NUL_STRING, .len = AFW_RULE_COMMENT_MAX },
	/* Its length is checked against its flags by afw_rule_from_match(). */
	[AFW_RULE_A_MATCH] = { .type = NLA_BINARY, .len = sizeof(struct afw_rule_match) + 32 },
	[AFW_RULE_A_EXE] = { .type = NLA_NUL_STRING, .len = AFW_RULE_PATH_MAX },
	[AFW_RULE_A_CGROUP] = { .type = NLA_NUL_STRING, .len = AFW_RULE_PATH_MAX },
};

/* Not const: 6.1 declares the policy pointer to these without it. */
static struct netlink_range_validation afw_timeout_range __ro_after_init = {
	.min = 1, .max = AFW_TIMEOUT_LIMIT,
};

static struct netlink_range_validation afw_max_flows_range __ro_after_init = {
	.min = 1, .max = AFW_MAX_FLOWS_LIMIT,
};

/* The key of a flow: what FLOW_DEL takes. */
#define AFW_FLOW_KEY_POLICY						\
	[AFW_FLOW_A_FAMILY] = { .type = NLA_U8 },			\
	[AFW_FLOW_A_PROTO] = NLA_POLICY_MIN(NLA_U8, 1),			\
	[AFW_FLOW_A_SRC] = { .type = NLA_BINARY, .len = 16 },		\
	[AFW_FLOW_A_DST] = { .type = NLA_BINARY, .len = 16 },		\
	[AFW_FLOW_A_SPORT] = { .type = NLA_U16 },			\
	[AFW_FLOW_A_DPORT] = { .type = NLA_U16 },			\
	[AFW_FLOW_A_ICMP_ID] = { .type = NLA_U16 },			\
	[AFW_FLOW_A_PAD] = AFW_REPLY_ONLY,				\
	[AFW_FLOW_A_PACKETS] = AFW_REPLY_ONLY,				\
	[AFW_FLOW_A_BYTES] = AFW_REPLY_ONLY,				\
	[AFW_FLOW_A_EXPIRES] = AFW_REPLY_ONLY,				\
	[AFW_FLOW_A_ORIGIN] = AFW_REPLY_ONLY,				\
	[AFW_FLOW_A_RULE_ID] = AFW_REPLY_ONLY,				\
	[AFW_FLOW_A_STATE] = AFW_REPLY_ONLY,				\
	[AFW_FLOW_A_OWNER] = AFW_REPLY_ONLY,				\
	[AFW_FLOW_A_PACKET] = AFW_REPLY_ONLY,				\
	[AFW_FLOW_A_IIF] = AFW_REPLY_ONLY,				\
	[AFW_FLOW_A_OIF] = AFW_REPLY_ONLY,				\
	[AFW_FLOW_A_HITS] = AFW_REPLY_ONLY,				\
	[AFW_FLOW_A_PORTID] = AFW_REPLY_ONLY

static const struct nla_policy afw_confirm_policy[AFW_CONFIRM_A_MAX + 1] = {
	[AFW_CONFIRM_A_ACK] = { .type = NLA_U32 },
	[AFW_CONFIRM_A_END] = { .type = NLA_U32 },
	[AFW_CONFIRM_A_IIF] = { .type = NLA_U32 },
};

static const struct nla_policy afw_flow_policy[AFW_FLOW_A_MAX + 1] = {
	AFW_FLOW_KEY_POLICY,
	[AFW_FLOW_A_CONFIRM] = NLA_POLICY_NESTED(afw_confirm_policy),
	[AFW_FLOW_A_VERDICT] = NLA_POLICY_MAX(NLA_U8, AFW_VERDICT_MAX),
	[AFW_FLOW_A_TIMEOUT] = NLA_POLICY_FULL_RANGE(NLA_U32, &afw_timeout_range),
	[AFW_FLOW_A_FLAGS] = NLA_POLICY_MASK(NLA_U32, AFW_FLOW_F_ESTABLISHED | AFW_FLOW_F_LEARN),
	[AFW_FLOW_A_QUEUE] = { .type = NLA_U16 },
	[AFW_FLOW_A_DIR] = NLA_POLICY_MAX(NLA_U8, AFW_DIR_MAX),
	[AFW_FLOW_A_LINE] = { .type = NLA_U32 },
};

#define AFW_KEY_ONLY {					\
	.type = NLA_REJECT,					\
	.reject_message = "this request takes the flow's key only"	\
}

static const struct nla_policy afw_flow_key_policy[AFW_FLOW_A_MAX + 1] = {
	AFW_FLOW_KEY_POLICY,
	[AFW_FLOW_A_VERDICT] = AFW_KEY_ONLY,
	[AFW_FLOW_A_TIMEOUT] = AFW_KEY_ONLY,
	[AFW_FLOW_A_FLAGS] = AFW_KEY_ONLY,
	[AFW_FLOW_A_QUEUE] = AFW_KEY_ONLY,
	[AFW_FLOW_A_DIR] = AFW_KEY_ONLY,
	[AFW_FLOW_A_LINE] = AFW_KEY_ONLY,
	[AFW_FLOW_A_CONFIRM] = AFW_KEY_ONLY,
};

static const struct nla_policy afw_cfg_policy[AFW_CFG_A_MAX + 1] = {
	[AFW_CFG_A_UNKNOWN] = NLA_POLICY_MAX(NLA_U8, AFW_UNKNOWN_MAX),
	[AFW_CFG_A_QUEUE_NUM] = { .type = NLA_U16 },
	[AFW_CFG_A_QUEUE_COUNT] = NLA_POLICY_MIN(NLA_U16, 1),
	[AFW_CFG_A_FAIL_OPEN] = NLA_POLICY_MAX(NLA_U8, 1),
	[AFW_CFG_A_ENABLED] = NLA_POLICY_MAX(NLA_U8, 1),
	[AFW_CFG_A_OWNERS] = NLA_POLICY_MAX(NLA_U8, 1),
	[AFW_CFG_A_MAX_FLOWS] = NLA_POLICY_FULL_RANGE(NLA_U32, &afw_max_flows_range),
	[AFW_CFG_A_FLOW_TIMEOUT] = NLA_POLICY_FULL_RANGE(NLA_U32, &afw_timeout_range),
	[AFW_CFG_A_TCP_TIMEOUT] = NLA_POLICY_FULL_RANGE(NLA_U32, &afw_timeout_range),
	[AFW_CFG_A_UDP_TIMEOUT] = NLA_POLICY_FULL_RANGE(NLA_U32, &afw_timeout_range),
};

static const struct nla_policy afw_rules_policy[AFW_A_MAX + 1] = {
	[AFW_A_RULE] = NLA_POLICY_NESTED(afw_rule_policy),
};

static const struct nla_policy afw_rule_id_policy[AFW_RULE_A_MAX + 1] = {
	[AFW_RULE_A_ID] = NLA_POLICY_MIN(NLA_U32, 1),
};

/*
 * One policy per command, each naming only what the command takes: with
 * strict validation, netlink refuses any other attribute ("Unsupported
 * attribute", pointing at it), and a reply's attribute in a request says
 * so.
 */
#define AFW_REPLY_ATTRS					\
	[AFW_A_MODULE_VERSION] = AFW_REPLY_ONLY,	\
	[AFW_A_COUNTERS] = AFW_REPLY_ONLY,		\
	[AFW_A_PAD] = AFW_REPLY_ONLY,			\
	[AFW_A_RULESET_GEN] = AFW_REPLY_ONLY,		\
	[AFW_A_MALFORMED] = AFW_REPLY_ONLY,		\
	[AFW_A_DROPPED] = AFW_REPLY_ONLY,		\
	[AFW_A_QUEUED] = AFW_REPLY_ONLY,		\
	[AFW_A_STATS] = AFW_REPLY_ONLY,			\
	[AFW_A_ACTIVE] = AFW_REPLY_ONLY,		\
	[AFW_A_UNSERVED_DROPPED] = AFW_REPLY_ONLY,	\
	[AFW_A_UNSERVED_PASSED] = AFW_REPLY_ONLY

static const struct nla_policy afw_none_policy[AFW_A_MAX + 1] = {
	AFW_REPLY_ATTRS,
};

static const struct nla_policy afw_rule_new_policy[AFW_A_MAX + 1] = {
	AFW_REPLY_ATTRS,
	[AFW_A_RULE] = NLA_POLICY_NESTED(afw_rule_policy),
};

static const struct nla_policy afw_rule_del_policy[AFW_A_MAX + 1] = {
	AFW_REPLY_ATTRS,
	[AFW_A_RULE] = NLA_POLICY_NESTED(afw_rule_id_policy),
};

static const struct nla_policy afw_replace_policy[AFW_A_MAX + 1] = {
	AFW_REPLY_ATTRS,
	[AFW_A_REPLACE_FLAGS] = NLA_POLICY_MASK(NLA_U32,
						AFW_REPLACE_F_BEGIN | AFW_REPLACE_F_COMMIT),
	[AFW_A_RULES] = NLA_POLICY_NESTED(afw_rules_policy),
	[AFW_A_CONFIG] = NLA_POLICY_NESTED(afw_cfg_policy),
};

static const struct nla_policy afw_flow_new_policy[AFW_A_MAX + 1] = {
	AFW_REPLY_ATTRS,
	[AFW_A_FLOW] = NLA_POLICY_NESTED(afw_flow_policy),
};

static const struct nla_policy afw_flow_del_policy[AFW_A_MAX + 1] = {
	AFW_REPLY_ATTRS,
	[AFW_A_FLOW] = NLA_POLICY_NESTED(afw_flow_key_policy),
};

static const struct nla_policy afw_serve_policy[AFW_A_MAX + 1] = {
	AFW_REPLY_ATTRS,
	[AFW_A_SERVE_FIRST] = { .type = NLA_U16 },
	[AFW_A_SERVE_COUNT] = { .type = NLA_U16 },
	[AFW_A_SERVE_TELL] = { .type = NLA_FLAG },
};

static const struct nla_policy afw_config_set_policy[AFW_A_MAX + 1] = {
	AFW_REPLY_ATTRS,
	[AFW_A_CONFIG] = NLA_POLICY_NESTED(afw_cfg_policy),
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
	ret = -EMSGSIZE;
	if (nla_put_u64_64bit(msg, AFW_A_MALFORMED, counts.malformed, AFW_A_PAD) ||
	    nla_put_u64_64bit(msg, AFW_A_DROPPED, counts.dropped, AFW_A_PAD) ||
	    nla_put_u64_64bit(msg, AFW_A_QUEUED, counts.queued, AFW_A_PAD) ||
	    nla_put_u8(msg, AFW_A_ACTIVE, READ_ONCE(an->active)) ||
	    nla_put_u64_64bit(msg, AFW_A_UNSERVED_DROPPED, counts.unserved[0], AFW_A_PAD) ||
	    nla_put_u64_64bit(msg, AFW_A_UNSERVED_PASSED, counts.unserved[1], AFW_A_PAD))
		goto err_free;

	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free:
	nlmsg_free(msg);
	return ret;
}

/* The attribute of each decision counter; 0 for a decision that cannot happen. */
static const u16 afw_decided_attrs[AFW_STATS_NSOURCES][AFW_ACTION_MAX + 1] = {
	[AFW_STATS_FLOW] = {
		[AFW_ACTION_ACCEPT] = AFW_STATS_A_FLOW_ACCEPT,
		[AFW_ACTION_DROP] = AFW_STATS_A_FLOW_DROP,
		[AFW_ACTION_REJECT] = AFW_STATS_A_FLOW_REJECT,
		[AFW_ACTION_QUEUE] = AFW_STATS_A_FLOW_INSPECT,
	},
	[AFW_STATS_RULE] = {
		[AFW_ACTION_ACCEPT] = AFW_STATS_A_RULE_ACCEPT,
		[AFW_ACTION_DROP] = AFW_STATS_A_RULE_DROP,
		[AFW_ACTION_REJECT] = AFW_STATS_A_RULE_REJECT,
		[AFW_ACTION_QUEUE] = AFW_STATS_A_RULE_QUEUE,
	},
	[AFW_STATS_UNKNOWN] = {
		[AFW_ACTION_ACCEPT] = AFW_STATS_A_UNKNOWN_ACCEPT,
		[AFW_ACTION_DROP] = AFW_STATS_A_UNKNOWN_DROP,
		[AFW_ACTION_QUEUE] = AFW_STATS_A_UNKNOWN_QUEUE,
	},
};

/* One consistent view of a namespace for STATS_GET, taken under afw_net.lock. */
struct afw_stats_view {
	struct afw_counts counts;
	struct afw_flow_counts events;
	u64 ruleset_gen;
	u32 rules;
	u32 masks;
	u32 flows;
	u32 max_flows;
	u32 owners;
	u64 owners_noted;
	u64 owners_lost;
	u32 learned;
	u64 learned_flows;
	u64 learned_untold;
	u64 learned_full;
	u64 handshakes_told;
	u64 handshakes_queued;
};

static int afw_put_stats(struct sk_buff *skb, const struct afw_stats_view *v)
{
	const struct afw_flow_counts *ev = &v->events;
	struct nlattr *nest;
	unsigned int src, a;

	nest = nla_nest_start(skb, AFW_A_STATS);
	if (!nest)
		return -EMSGSIZE;
	for (src = 0; src < AFW_STATS_NSOURCES; src++) {
		for (a = 0; a <= AFW_ACTION_MAX; a++) {
			if (afw_decided_attrs[src][a] &&
			    nla_put_u64_64bit(skb, afw_decided_attrs[src][a],
					      v->counts.decided[src][a], AFW_STATS_A_PAD))
				return -EMSGSIZE;
		}
	}
	if (nla_put_u64_64bit(skb, AFW_STATS_A_MALFORMED, v->counts.malformed, AFW_STATS_A_PAD) ||
	    nla_put_u32(skb, AFW_STATS_A_RULES, v->rules) ||
	    nla_put_u32(skb, AFW_STATS_A_MAX_RULES, READ_ONCE(afw_max_rules)) ||
	    nla_put_u32(skb, AFW_STATS_A_MASKS, v->masks) ||
	    nla_put_u32(skb, AFW_STATS_A_MAX_MASKS, afw_max_masks) ||
	    nla_put_u64_64bit(skb, AFW_STATS_A_RULESET_GEN, v->ruleset_gen, AFW_STATS_A_PAD) ||
	    nla_put_u32(skb, AFW_STATS_A_FLOWS, v->flows) ||
	    nla_put_u32(skb, AFW_STATS_A_MAX_FLOWS, v->max_flows) ||
	    nla_put_u64_64bit(skb, AFW_STATS_A_FLOWS_INSERTED, ev->inserted, AFW_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, AFW_STATS_A_FLOWS_EXPIRED, ev->expired, AFW_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, AFW_STATS_A_FLOWS_CLOSED, ev->closed, AFW_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, AFW_STATS_A_FLOWS_EVICTED, ev->evicted, AFW_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, AFW_STATS_A_FLOWS_REFUSED, ev->refused, AFW_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, AFW_STATS_A_FLOWS_RESTARTED, ev->restarted, AFW_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, AFW_STATS_A_FLOWS_RULE, ev->by_rule, AFW_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, AFW_STATS_A_EXEMPT, v->counts.exempt, AFW_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, AFW_STATS_A_UNSERVED_DROP, v->counts.unserved[0],
			      AFW_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, AFW_STATS_A_UNSERVED_PASS, v->counts.unserved[1],
			      AFW_STATS_A_PAD) ||
	    nla_put_u32(skb, AFW_STATS_A_OWNERS, v->owners) ||
	    nla_put_u64_64bit(skb, AFW_STATS_A_OWNERS_NOTED, v->owners_noted, AFW_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, AFW_STATS_A_OWNERS_LOST, v->owners_lost, AFW_STATS_A_PAD) ||
	    nla_put_u32(skb, AFW_STATS_A_LEARNED, v->learned) ||
	    nla_put_u64_64bit(skb, AFW_STATS_A_LEARNED_FLOWS, v->learned_flows, AFW_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, AFW_STATS_A_LEARNED_UNTOLD, v->learned_untold,
			      AFW_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, AFW_STATS_A_LEARNED_FULL, v->learned_full, AFW_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, AFW_STATS_A_HANDSHAKES_TOLD, v->handshakes_told,
			      AFW_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, AFW_STATS_A_HANDSHAKES_QUEUED, v->handshakes_queued,
			      AFW_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, AFW_STATS_A_FLOWS_CONFIRMED, ev->confirmed, AFW_STATS_A_PAD))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int afw_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	struct afw_net *an = afw_net(genl_info_net(info));
	const struct afw_ruleset *rs;
	struct afw_stats_view v;
	struct sk_buff *msg;
	void *hdr;
	int ret;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &afw_genl_family, 0, AFW_CMD_STATS_GET);
	if (!hdr) {
		ret = -EMSGSIZE;
		goto err_free;
	}

	mutex_lock(&an->lock);
	afw_stats_fold(an->stats, &v.counts);
	afw_counts_sub(&v.counts, &an->counts_base);
	afw_flows_read(&an->flows, &v.events);
	rs = afw_ruleset_locked(an);
	v.rules = rs ? rs->nrules : 0;
	v.masks = rs ? rs->ntables : 0;
	v.ruleset_gen = an->ruleset_gen;
	v.flows = atomic_read(&an->flows.count);
	v.max_flows = afw_config_locked(an)->max_flows;
	v.owners = atomic_read(&an->owners.count);
	v.owners_noted = atomic64_read(&an->owners.noted);
	v.owners_lost = atomic64_read(&an->owners.lost);
	v.learned = atomic_read(&an->learn.count);
	v.learned_flows = atomic64_read(&an->learn.flows);
	v.learned_untold = atomic64_read(&an->learn.untold);
	v.learned_full = atomic64_read(&an->learn.full);
	v.handshakes_told = atomic64_read(&an->handshakes_told);
	v.handshakes_queued = atomic64_read(&an->handshakes_queued);
	mutex_unlock(&an->lock);

	ret = afw_put_stats(msg, &v);
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
	/* Not per-CPU, unlike the packet counters: zeroed, not based. */
	afw_flows_reset(&an->flows);
	atomic64_set(&an->owners.noted, 0);
	atomic64_set(&an->owners.lost, 0);
	mutex_unlock(&an->lock);
	return 0;
}

/* Whether @a has no bit set beyond @plen of its @bits. */
static bool afw_prefix_clean(const u8 *a, unsigned int plen, unsigned int bits)
{
	unsigned int i;

	for (i = plen; i < bits; i++)
		if (a[i / 8] & (0x80 >> (i % 8)))
			return false;
	return true;
}

/* Reads an address and its prefix; the caller has checked the family. */
static int afw_parse_prefix(struct nlattr **tb, int addr_type, int len_type,
			    u8 family, __be32 *addr, u8 *plen,
			    struct netlink_ext_ack *extack)
{
	unsigned int alen = family == AFW_FAMILY_IPV6 ? 16 : 4, bits = alen * 8;

	if (!tb[addr_type]) {
		if (tb[len_type]) {
			NL_SET_ERR_MSG_ATTR(extack, tb[len_type], "prefix length without an address");
			return -EINVAL;
		}
		return 0;
	}
	if (!family) {
		NL_SET_ERR_MSG_ATTR(extack, tb[addr_type], "an address needs a family");
		return -EINVAL;
	}
	if (nla_len(tb[addr_type]) != alen) {
		NL_SET_ERR_MSG_ATTR(extack, tb[addr_type], "address length does not match the family");
		return -EINVAL;
	}
	*plen = tb[len_type] ? nla_get_u8(tb[len_type]) : bits;
	if (*plen > bits) {
		NL_SET_ERR_MSG_ATTR(extack, tb[len_type], "prefix length longer than the address");
		return -EINVAL;
	}
	memcpy(addr, nla_data(tb[addr_type]), alen);
	if (!afw_prefix_clean(nla_data(tb[addr_type]), *plen, bits)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[addr_type],
				    "address has bits set beyond the prefix length");
		return -EINVAL;
	}
	return 1;
}

static int afw_parse_ports(struct nlattr **tb, int lo_type, int hi_type, u8 proto,
			   u16 *lo, u16 *hi, struct netlink_ext_ack *extack)
{
	if (!tb[lo_type]) {
		if (tb[hi_type]) {
			NL_SET_ERR_MSG_ATTR(extack, tb[hi_type], "high port without a low port");
			return -EINVAL;
		}
		return 0;
	}
	if (!afw_proto_has_ports(proto)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[lo_type],
				    "ports need proto tcp, udp, udplite, sctp or dccp");
		return -EINVAL;
	}
	*lo = nla_get_u16(tb[lo_type]);
	*hi = tb[hi_type] ? nla_get_u16(tb[hi_type]) : *lo;
	if (*lo > *hi) {
		NL_SET_ERR_MSG_ATTR(extack, tb[hi_type], "port range is empty: low port above high port");
		return -EINVAL;
	}
	return 1;
}

/* The address after an AFW_RULE_A_MATCH, if @flag says there is one. */
static int afw_match_addr(const struct afw_rule_match *m, const struct nlattr *attr, u8 flag,
			  u8 plen, const u8 **at, __be32 *addr, u8 *len,
			  struct netlink_ext_ack *extack)
{
	unsigned int alen = m->family == AFW_FAMILY_IPV6 ? 16 : 4;

	if (!(m->flags & flag)) {
		if (plen) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "a prefix length without its address flag");
			return -EINVAL;
		}
		return 0;
	}
	if (plen > alen * 8) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "prefix length longer than the address");
		return -EINVAL;
	}
	if (!afw_prefix_clean(*at, plen, alen * 8)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "address has bits set beyond the prefix length");
		return -EINVAL;
	}
	memcpy(addr, *at, alen);
	*len = plen;
	*at += alen;
	return 1;
}

/* The ports of an AFW_RULE_A_MATCH, if @flag says it has them. */
static int afw_match_ports(const struct afw_rule_match *m, const struct nlattr *attr, u8 flag,
			   u16 lo, u16 hi, u16 *rlo, u16 *rhi, struct netlink_ext_ack *extack)
{
	if (!(m->flags & flag)) {
		if (lo || hi) {
			NL_SET_ERR_MSG_ATTR(extack, attr, "ports without their flag");
			return -EINVAL;
		}
		return 0;
	}
	if (!afw_proto_has_ports(m->proto)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "ports need proto tcp, udp, udplite, sctp or dccp");
		return -EINVAL;
	}
	if (lo > hi) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "port range is empty: low port above high port");
		return -EINVAL;
	}
	*rlo = lo;
	*rhi = hi;
	return 1;
}

/*
 * A rule's matches from its AFW_RULE_A_MATCH: the checks the policy and
 * afw_rule_from_fields() make of the attributes it stands for, here in
 * code, on a struct whose length the policy has bounded only from above.
 */
static int afw_rule_from_match(struct nlattr **tb, struct afw_rule_spec *r,
			       struct netlink_ext_ack *extack)
{
	const struct nlattr *attr = tb[AFW_RULE_A_MATCH];
	const struct afw_rule_match *m = nla_data(attr);
	unsigned int alen, need;
	const u8 *at;
	int t, ret;

	BUILD_BUG_ON(sizeof(*m) != 20);
	for (t = AFW_RULE_A_PRIORITY; t <= AFW_RULE_A_ACTION; t++) {
		/* IIF, OIF, UID and GID lie between; they stay attributes. */
		if (t > AFW_RULE_A_DPORT_HI && t < AFW_RULE_A_ACTION)
			continue;
		if (tb[t]) {
			NL_SET_ERR_MSG_ATTR(extack, tb[t],
					    "given beside AFW_RULE_A_MATCH, which stands for it");
			return -EINVAL;
		}
	}
	if (nla_len(attr) < sizeof(*m)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "shorter than struct afw_rule_match");
		return -EINVAL;
	}
	if (m->reserved || (m->flags & ~AFW_MATCH_F_ALL)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "unknown flags or reserved byte set");
		return -EINVAL;
	}
	if (m->action > AFW_ACTION_MAX || !m->directions || m->directions > AFW_DIRS_ALL) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "no such action or directions");
		return -EINVAL;
	}
	if (m->family && m->family != AFW_FAMILY_IPV4 && m->family != AFW_FAMILY_IPV6) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "family must be ipv4 or ipv6");
		return -EINVAL;
	}
	if (!m->family && (m->flags & (AFW_MATCH_F_SRC | AFW_MATCH_F_DST))) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "an address needs a family");
		return -EINVAL;
	}
	alen = m->family == AFW_FAMILY_IPV6 ? 16 : 4;
	need = sizeof(*m) + alen * !!(m->flags & AFW_MATCH_F_SRC) +
	       alen * !!(m->flags & AFW_MATCH_F_DST);
	if (nla_len(attr) != need) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "length does not match the flags and the family");
		return -EINVAL;
	}
	r->prio = m->priority;
	r->action = m->action;
	r->dirs = m->directions;
	r->family = m->family;
	r->proto = m->proto;
	at = (const u8 *)(m + 1);
	ret = afw_match_addr(m, attr, AFW_MATCH_F_SRC, m->src_prefix, &at, r->src, &r->src_len,
			     extack);
	if (ret < 0)
		return ret;
	r->fields |= ret ? AFW_RULE_F_SRC : 0;
	ret = afw_match_addr(m, attr, AFW_MATCH_F_DST, m->dst_prefix, &at, r->dst, &r->dst_len,
			     extack);
	if (ret < 0)
		return ret;
	r->fields |= ret ? AFW_RULE_F_DST : 0;
	ret = afw_match_ports(m, attr, AFW_MATCH_F_SPORT, m->sport_lo, m->sport_hi,
			      &r->sport_lo, &r->sport_hi, extack);
	if (ret < 0)
		return ret;
	r->fields |= ret ? AFW_RULE_F_SPORT : 0;
	ret = afw_match_ports(m, attr, AFW_MATCH_F_DPORT, m->dport_lo, m->dport_hi,
			      &r->dport_lo, &r->dport_hi, extack);
	if (ret < 0)
		return ret;
	r->fields |= ret ? AFW_RULE_F_DPORT : 0;
	return 0;
}

/* A rule's matches from the attributes of each (AFW_RULE_A_PRIORITY to _DPORT_HI). */
static int afw_rule_from_fields(struct nlattr **tb, struct nlattr *nest, struct afw_rule_spec *r,
				struct netlink_ext_ack *extack)
{
	int ret;

	if (!tb[AFW_RULE_A_ACTION]) {
		NL_SET_ERR_ATTR_MISS(extack, nest, AFW_RULE_A_ACTION);
		NL_SET_ERR_MSG_MOD(extack, "a rule needs an action");
		return -EINVAL;
	}
	r->prio = tb[AFW_RULE_A_PRIORITY] ? nla_get_u32(tb[AFW_RULE_A_PRIORITY]) : 0;
	r->action = nla_get_u8(tb[AFW_RULE_A_ACTION]);
	r->dirs = tb[AFW_RULE_A_DIRECTIONS] ? nla_get_u8(tb[AFW_RULE_A_DIRECTIONS]) : AFW_DIRS_ALL;
	r->proto = tb[AFW_RULE_A_PROTO] ? nla_get_u8(tb[AFW_RULE_A_PROTO]) : 0;
	if (tb[AFW_RULE_A_FAMILY]) {
		r->family = nla_get_u8(tb[AFW_RULE_A_FAMILY]);
		if (r->family != AFW_FAMILY_IPV4 && r->family != AFW_FAMILY_IPV6) {
			NL_SET_ERR_MSG_ATTR(extack, tb[AFW_RULE_A_FAMILY], "family must be ipv4 or ipv6");
			return -EINVAL;
		}
	}
	ret = afw_parse_prefix(tb, AFW_RULE_A_SRC, AFW_RULE_A_SRC_PREFIX, r->family,
			       r->src, &r->src_len, extack);
	if (ret < 0)
		return ret;
	r->fields |= ret ? AFW_RULE_F_SRC : 0;
	ret = afw_parse_prefix(tb, AFW_RULE_A_DST, AFW_RULE_A_DST_PREFIX, r->family,
			       r->dst, &r->dst_len, extack);
	if (ret < 0)
		return ret;
	r->fields |= ret ? AFW_RULE_F_DST : 0;
	ret = afw_parse_ports(tb, AFW_RULE_A_SPORT_LO, AFW_RULE_A_SPORT_HI, r->proto,
			      &r->sport_lo, &r->sport_hi, extack);
	if (ret < 0)
		return ret;
	r->fields |= ret ? AFW_RULE_F_SPORT : 0;
	ret = afw_parse_ports(tb, AFW_RULE_A_DPORT_LO, AFW_RULE_A_DPORT_HI, r->proto,
			      &r->dport_lo, &r->dport_hi, extack);
	if (ret < 0)
		return ret;
	r->fields |= ret ? AFW_RULE_F_DPORT : 0;
	return 0;
}

/* "/" or "/a/b": what d_path() and kernfs give, the only forms they match. */
static bool afw_path_canonical(const char *p)
{
	const char *part;

	if (p[0] != '/')
		return false;
	if (!p[1])
		return true;
	for (part = p + 1; ; part = strchr(part, '/') + 1) {
		size_t len = strchrnul(part, '/') - part;

		if (!len || (len == 1 && part[0] == '.') ||
		    (len == 2 && part[0] == '.' && part[1] == '.'))
			return false;
		if (!part[len])
			return true;
	}
}

/*
 * A rule from its nest, which the command's policy (RULE_NEW's, or
 * RULESET_REPLACE's rules in their nest) has validated already, every
 * attribute of it, strictly: no type above AFW_RULE_A_MAX, nothing left
 * over. So one walk files them where nla_parse_nested() would; parsing
 * the nest again, even without a policy, was a tenth of a million-rule
 * load (docs/performance.md).
 */
static struct afw_rule *afw_rule_from_attrs(struct nlattr *nest, struct netlink_ext_ack *extack)
{
	struct nlattr *tb[AFW_RULE_A_MAX + 1] = {}, *a;
	struct afw_rule_spec spec = {}, *r = &spec;
	struct afw_rule *rule;
	int rem, ret;

	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) > AFW_RULE_A_MAX)
			continue;
		/*
		 * The last of an attribute given twice counts, as with
		 * nla_parse(); the policy has checked each. A MATCH it has
		 * only bounded: one that would be passed over is refused.
		 */
		if (nla_type(a) == AFW_RULE_A_MATCH && tb[AFW_RULE_A_MATCH]) {
			NL_SET_ERR_MSG_ATTR(extack, a, "AFW_RULE_A_MATCH given twice");
			return ERR_PTR(-EINVAL);
		}
		tb[nla_type(a)] = a;
	}
	r->id = tb[AFW_RULE_A_ID] ? nla_get_u32(tb[AFW_RULE_A_ID]) : 0;
	if (tb[AFW_RULE_A_MATCH])
		ret = afw_rule_from_match(tb, r, extack);
	else
		ret = afw_rule_from_fields(tb, nest, r, extack);
	if (ret < 0)
		goto err;

	if (tb[AFW_RULE_A_IIF]) {
		nla_strscpy(r->iif, tb[AFW_RULE_A_IIF], IFNAMSIZ);
		r->fields |= AFW_RULE_F_IIF;
	}
	if (tb[AFW_RULE_A_OIF]) {
		nla_strscpy(r->oif, tb[AFW_RULE_A_OIF], IFNAMSIZ);
		r->fields |= AFW_RULE_F_OIF;
	}
	if (tb[AFW_RULE_A_UID]) {
		r->uid = nla_get_u32(tb[AFW_RULE_A_UID]);
		r->fields |= AFW_RULE_F_UID;
	}
	if (tb[AFW_RULE_A_GID]) {
		r->gid = nla_get_u32(tb[AFW_RULE_A_GID]);
		r->fields |= AFW_RULE_F_GID;
	}
	if (tb[AFW_RULE_A_EXE]) {
		r->exe = nla_data(tb[AFW_RULE_A_EXE]);
		if (!afw_path_canonical(r->exe) || !strcmp(r->exe, "/")) {
			NL_SET_ERR_MSG_ATTR(extack, tb[AFW_RULE_A_EXE],
					    "a program is named by its absolute path, without \".\", \"..\", \"//\" or a trailing \"/\"");
			return ERR_PTR(-EINVAL);
		}
		r->fields |= AFW_RULE_F_EXE;
	}
	if (tb[AFW_RULE_A_CGROUP]) {
		r->cgroup = nla_data(tb[AFW_RULE_A_CGROUP]);
		if (!afw_path_canonical(r->cgroup)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[AFW_RULE_A_CGROUP],
					    "a cgroup is named by its path from the hierarchy's root, \"/\" or \"/a/b\", without \".\", \"..\", \"//\" or a trailing \"/\"");
			return ERR_PTR(-EINVAL);
		}
		r->fields |= AFW_RULE_F_CGROUP;
	}
	if (tb[AFW_RULE_A_COMMENT]) {
		/* The policy bounds it; the NUL is within the attribute. */
		r->comment = nla_data(tb[AFW_RULE_A_COMMENT]);
		r->comment_len = strnlen(r->comment, AFW_RULE_COMMENT_MAX + 1);
		if (!r->comment_len) {
			NL_SET_ERR_MSG_ATTR(extack, tb[AFW_RULE_A_COMMENT], "an empty comment");
			return ERR_PTR(-EINVAL);
		}
	}
	ret = -EINVAL;
	if ((r->fields & AFW_RULE_F_SENDER) && !(r->dirs & (1 << AFW_DIR_OUT))) {
		NL_SET_ERR_MSG_MOD(extack, "uid, gid, exe and cgroup match only locally generated packets: direction must include out");
		goto err;
	}
	if ((r->fields & AFW_RULE_F_IIF) && r->dirs == (1 << AFW_DIR_OUT)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[AFW_RULE_A_IIF], "outgoing packets have no input interface");
		goto err;
	}
	if ((r->fields & AFW_RULE_F_OIF) && r->dirs == (1 << AFW_DIR_IN)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[AFW_RULE_A_OIF], "incoming packets have no output interface");
		goto err;
	}
	rule = afw_rule_create(r);
	return rule ?: ERR_PTR(-ENOMEM);

err:
	return ERR_PTR(ret);
}

static int afw_put_rule(struct sk_buff *skb, const struct afw_rule *rule)
{
	unsigned int alen = rule->family == AFW_FAMILY_IPV6 ? 16 : 4;
	struct afw_rule_spec spec, *r = &spec;
	struct nlattr *nest;
	u64 packets, bytes;

	nest = nla_nest_start(skb, AFW_A_RULE);
	if (!nest)
		return -EMSGSIZE;
	afw_rule_to_spec(rule, r);
	afw_rule_read_stats(rule, &packets, &bytes);
	if (nla_put_u32(skb, AFW_RULE_A_ID, r->id) ||
	    nla_put_u32(skb, AFW_RULE_A_PRIORITY, r->prio) ||
	    nla_put_u8(skb, AFW_RULE_A_DIRECTIONS, r->dirs) ||
	    nla_put_u8(skb, AFW_RULE_A_ACTION, r->action) ||
	    (r->family && nla_put_u8(skb, AFW_RULE_A_FAMILY, r->family)) ||
	    (r->proto && nla_put_u8(skb, AFW_RULE_A_PROTO, r->proto)) ||
	    ((r->fields & AFW_RULE_F_SRC) &&
	     (nla_put(skb, AFW_RULE_A_SRC, alen, r->src) ||
	      nla_put_u8(skb, AFW_RULE_A_SRC_PREFIX, r->src_len))) ||
	    ((r->fields & AFW_RULE_F_DST) &&
	     (nla_put(skb, AFW_RULE_A_DST, alen, r->dst) ||
	      nla_put_u8(skb, AFW_RULE_A_DST_PREFIX, r->dst_len))) ||
	    ((r->fields & AFW_RULE_F_SPORT) &&
	     (nla_put_u16(skb, AFW_RULE_A_SPORT_LO, r->sport_lo) ||
	      nla_put_u16(skb, AFW_RULE_A_SPORT_HI, r->sport_hi))) ||
	    ((r->fields & AFW_RULE_F_DPORT) &&
	     (nla_put_u16(skb, AFW_RULE_A_DPORT_LO, r->dport_lo) ||
	      nla_put_u16(skb, AFW_RULE_A_DPORT_HI, r->dport_hi))) ||
	    ((r->fields & AFW_RULE_F_IIF) && nla_put_string(skb, AFW_RULE_A_IIF, r->iif)) ||
	    ((r->fields & AFW_RULE_F_OIF) && nla_put_string(skb, AFW_RULE_A_OIF, r->oif)) ||
	    ((r->fields & AFW_RULE_F_UID) && nla_put_u32(skb, AFW_RULE_A_UID, r->uid)) ||
	    ((r->fields & AFW_RULE_F_GID) && nla_put_u32(skb, AFW_RULE_A_GID, r->gid)) ||
	    ((r->fields & AFW_RULE_F_EXE) && nla_put_string(skb, AFW_RULE_A_EXE, r->exe)) ||
	    ((r->fields & AFW_RULE_F_CGROUP) &&
	     nla_put_string(skb, AFW_RULE_A_CGROUP, r->cgroup)) ||
	    (r->comment_len && nla_put_string(skb, AFW_RULE_A_COMMENT, r->comment)) ||
	    nla_put_u64_64bit(skb, AFW_RULE_A_PACKETS, packets, AFW_RULE_A_PAD) ||
	    nla_put_u64_64bit(skb, AFW_RULE_A_BYTES, bytes, AFW_RULE_A_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int afw_rule_new(struct sk_buff *skb, struct genl_info *info)
{
	struct afw_net *an = afw_net(genl_info_net(info));
	struct sk_buff *msg;
	struct afw_rule *r;
	void *hdr;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, AFW_A_RULE))
		return -EINVAL;
	r = afw_rule_from_attrs(info->attrs[AFW_A_RULE], info->extack);
	if (IS_ERR(r))
		return PTR_ERR(r);

	/* Prepared before the change, so that a change is never unreported. */
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		afw_rule_put(r);
		return -ENOMEM;
	}
	/* Our reference goes to the ruleset; this one keeps r alive for the reply. */
	afw_rule_get(r);
	mutex_lock(&an->lock);
	ret = afw_ruleset_add(genl_info_net(info), r, info->extack);
	mutex_unlock(&an->lock);
	if (ret) {
		afw_rule_put(r);
		nlmsg_free(msg);
		return ret;
	}

	hdr = genlmsg_put_reply(msg, info, &afw_genl_family, 0, AFW_CMD_RULE_NEW);
	if (!hdr || afw_put_rule(msg, r)) {
		afw_rule_put(r);
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	afw_rule_put(r);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int afw_rule_del(struct sk_buff *skb, struct genl_info *info)
{
	struct afw_net *an = afw_net(genl_info_net(info));
	struct nlattr *tb[AFW_RULE_A_MAX + 1];
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, AFW_A_RULE))
		return -EINVAL;
	ret = nla_parse_nested(tb, AFW_RULE_A_MAX, info->attrs[AFW_A_RULE],
			       afw_rule_id_policy, info->extack);
	if (ret)
		return ret;
	if (!tb[AFW_RULE_A_ID]) {
		NL_SET_ERR_ATTR_MISS(info->extack, info->attrs[AFW_A_RULE], AFW_RULE_A_ID);
		NL_SET_ERR_MSG_MOD(info->extack, "deleting needs the rule's id");
		return -EINVAL;
	}
	mutex_lock(&an->lock);
	ret = afw_ruleset_del(an, nla_get_u32(tb[AFW_RULE_A_ID]), info->extack);
	mutex_unlock(&an->lock);
	return ret;
}

static int afw_rule_flush(struct sk_buff *skb, struct genl_info *info)
{
	struct afw_net *an = afw_net(genl_info_net(info));

	mutex_lock(&an->lock);
	afw_ruleset_flush(an);
	mutex_unlock(&an->lock);
	return 0;
}

/*
 * The settings now in force, changed as @nest says: a new copy to publish,
 * or an error. Needs afw_net.lock. @skb is the request, whose sender's
 * rights bound max_flows (see the top of this file).
 */
static struct afw_config *afw_config_from_attrs(struct afw_net *an, const struct sk_buff *skb,
						const struct nlattr *nest,
						struct netlink_ext_ack *extack)
{
	struct nlattr *tb[AFW_CFG_A_MAX + 1];
	struct afw_config *c;
	int ret;

	lockdep_assert_held(&an->lock);
	ret = nla_parse_nested(tb, AFW_CFG_A_MAX, nest, afw_cfg_policy, extack);
	if (ret)
		return ERR_PTR(ret);
	c = kmalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return ERR_PTR(-ENOMEM);
	*c = *afw_config_locked(an);
	if (tb[AFW_CFG_A_UNKNOWN])
		c->unknown = nla_get_u8(tb[AFW_CFG_A_UNKNOWN]);
	if (tb[AFW_CFG_A_QUEUE_NUM])
		c->queue_num = nla_get_u16(tb[AFW_CFG_A_QUEUE_NUM]);
	if (tb[AFW_CFG_A_QUEUE_COUNT])
		c->queue_count = nla_get_u16(tb[AFW_CFG_A_QUEUE_COUNT]);
	if (tb[AFW_CFG_A_FAIL_OPEN])
		c->fail_open = nla_get_u8(tb[AFW_CFG_A_FAIL_OPEN]);
	if (tb[AFW_CFG_A_MAX_FLOWS])
		c->max_flows = nla_get_u32(tb[AFW_CFG_A_MAX_FLOWS]);
	if (c->max_flows > afw_config_locked(an)->max_flows &&
	    c->max_flows > READ_ONCE(afw_default_max_flows) &&
	    !netlink_capable(skb, CAP_NET_ADMIN)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "max_flows above the module's max_flows needs CAP_NET_ADMIN in the initial user namespace");
		kfree(c);
		return ERR_PTR(-EPERM);
	}
	if (tb[AFW_CFG_A_FLOW_TIMEOUT])
		c->flow_timeout = nla_get_u32(tb[AFW_CFG_A_FLOW_TIMEOUT]);
	if (tb[AFW_CFG_A_TCP_TIMEOUT])
		c->tcp_timeout = nla_get_u32(tb[AFW_CFG_A_TCP_TIMEOUT]);
	if (tb[AFW_CFG_A_UDP_TIMEOUT])
		c->udp_timeout = nla_get_u32(tb[AFW_CFG_A_UDP_TIMEOUT]);
	if (tb[AFW_CFG_A_ENABLED])
		c->enabled = nla_get_u8(tb[AFW_CFG_A_ENABLED]);
	if (tb[AFW_CFG_A_OWNERS])
		c->owners = nla_get_u8(tb[AFW_CFG_A_OWNERS]);
	if (c->queue_num + c->queue_count - 1 > U16_MAX) {
		NL_SET_ERR_MSG_MOD(extack, "queue range goes past queue 65535");
		kfree(c);
		return ERR_PTR(-EINVAL);
	}
	return c;
}

static int afw_ruleset_replace(struct sk_buff *skb, struct genl_info *info)
{
	struct afw_net *an = afw_net(genl_info_net(info));
	u32 flags = 0, portid = info->snd_portid;
	struct afw_config *cfg = NULL;
	struct afw_rule *r;
	struct nlattr *a;
	int rem, ret = 0;

	if (info->attrs[AFW_A_REPLACE_FLAGS])
		flags = nla_get_u32(info->attrs[AFW_A_REPLACE_FLAGS]);
	if (info->attrs[AFW_A_CONFIG] && !(flags & AFW_REPLACE_F_COMMIT)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[AFW_A_CONFIG],
				    "settings go with the commit of a replace");
		return -EINVAL;
	}

	mutex_lock(&an->lock);
	if (flags & AFW_REPLACE_F_BEGIN) {
		ret = afw_stage_begin(an, portid, info->extack);
		if (ret)
			goto out;
	}
	if (info->attrs[AFW_A_RULES]) {
		nla_for_each_nested(a, info->attrs[AFW_A_RULES], rem) {
			if (nla_type(a) != AFW_A_RULE)
				continue;
			r = afw_rule_from_attrs(a, info->extack);
			if (IS_ERR(r)) {
				ret = PTR_ERR(r);
				break;
			}
			ret = afw_stage_add(an, portid, r, info->extack);
			if (ret)
				break;
		}
		if (ret) {
			/* A half-added batch would leave the user guessing. */
			afw_stage_drop(an, portid);
			goto out;
		}
	}
	if (flags & AFW_REPLACE_F_COMMIT) {
		/*
		 * Settings that come with the commit are checked first and
		 * published right after the rules: all or nothing.
		 */
		if (info->attrs[AFW_A_CONFIG]) {
			cfg = afw_config_from_attrs(an, skb, info->attrs[AFW_A_CONFIG],
						    info->extack);
			ret = PTR_ERR_OR_ZERO(cfg);
			if (ret) {
				cfg = NULL;
				afw_stage_drop(an, portid);
				goto out;
			}
		}
		ret = afw_stage_commit(genl_info_net(info), portid, &cfg, info->extack);
	} else if (!flags && !info->attrs[AFW_A_RULES]) {
		NL_SET_ERR_MSG_MOD(info->extack, "neither flags nor rules: nothing to do");
		ret = -EINVAL;
	}
out:
	mutex_unlock(&an->lock);
	kfree(cfg);
	return ret;
}

/*
 * The sender serves a range of queues until its socket closes. Not a
 * configuration: it activates nothing.
 */
static int afw_queue_serve(struct sk_buff *skb, struct genl_info *info)
{
	struct afw_net *an = afw_net(genl_info_net(info));
	u16 first, count;
	int ret;

	if (!info->attrs[AFW_A_SERVE_FIRST] && !info->attrs[AFW_A_SERVE_COUNT]) {
		NL_SET_ERR_MSG_MOD(info->extack, "no queue: give AFW_A_SERVE_FIRST, or COUNT 0");
		return -EINVAL;
	}
	first = info->attrs[AFW_A_SERVE_FIRST] ? nla_get_u16(info->attrs[AFW_A_SERVE_FIRST]) : 0;
	count = info->attrs[AFW_A_SERVE_COUNT] ? nla_get_u16(info->attrs[AFW_A_SERVE_COUNT]) : 1;
	mutex_lock(&an->lock);
	ret = afw_serve_add(an, info->snd_portid, first, count,
			    nla_get_flag(info->attrs[AFW_A_SERVE_TELL]), info->extack);
	mutex_unlock(&an->lock);
	return ret;
}

/*
 * A closed socket can no longer commit: its transaction goes with it; nor
 * serve a queue.
 */
static int afw_genl_notify(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct netlink_notify *n = ptr;
	struct afw_net *an;

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC)
		return NOTIFY_DONE;
	an = afw_net(n->net);
	/*
	 * Every generic netlink socket's close comes here, afw's or not: with
	 * no transaction open and no queue served, none waits for the lock
	 * (and for a replace that holds it for seconds). A socket is released
	 * only after its last sendmsg() dropped its file reference, a fully
	 * ordered atomic, so a BEGIN or QUEUE_SERVE of its own is seen here.
	 */
	if (!READ_ONCE(an->stage) && !rcu_access_pointer(an->serve) &&
	    !afw_learn_taught_by(&an->learn, n->portid))
		return NOTIFY_DONE;
	mutex_lock(&an->lock);
	afw_stage_drop(an, n->portid);
	afw_serve_release(an, n->portid);
	/* What afwd learned is afwd's: it goes with the socket that taught it. */
	afw_learn_forget(an, n->portid);
	mutex_unlock(&an->lock);
	return NOTIFY_DONE;
}

static struct notifier_block afw_genl_notifier = {
	.notifier_call = afw_genl_notify,
};

/* Fills @k; returns the side the request's source is on, or an error. */
static int afw_flow_key_from_attrs(struct nlattr **tb, struct afw_flow_key *k,
				   struct netlink_ext_ack *extack)
{
	struct afw_tuple t = { };
	unsigned int alen;

	if (!tb[AFW_FLOW_A_FAMILY] || !tb[AFW_FLOW_A_PROTO] ||
	    !tb[AFW_FLOW_A_SRC] || !tb[AFW_FLOW_A_DST]) {
		NL_SET_ERR_MSG_MOD(extack, "a flow needs family, proto, src and dst");
		return -EINVAL;
	}
	t.family = nla_get_u8(tb[AFW_FLOW_A_FAMILY]);
	if (t.family != AFW_FAMILY_IPV4 && t.family != AFW_FAMILY_IPV6) {
		NL_SET_ERR_MSG_ATTR(extack, tb[AFW_FLOW_A_FAMILY], "family must be ipv4 or ipv6");
		return -EINVAL;
	}
	alen = t.family == AFW_FAMILY_IPV6 ? 16 : 4;
	if (nla_len(tb[AFW_FLOW_A_SRC]) != alen || nla_len(tb[AFW_FLOW_A_DST]) != alen) {
		NL_SET_ERR_MSG_MOD(extack, "address length does not match the family");
		return -EINVAL;
	}
	t.proto = nla_get_u8(tb[AFW_FLOW_A_PROTO]);
	memcpy(t.saddr, nla_data(tb[AFW_FLOW_A_SRC]), alen);
	memcpy(t.daddr, nla_data(tb[AFW_FLOW_A_DST]), alen);
	if (afw_proto_has_ports(t.proto)) {
		if (!tb[AFW_FLOW_A_SPORT] || !tb[AFW_FLOW_A_DPORT]) {
			NL_SET_ERR_MSG_MOD(extack, "a flow of this protocol needs sport and dport");
			return -EINVAL;
		}
		t.sport = nla_get_u16(tb[AFW_FLOW_A_SPORT]);
		t.dport = nla_get_u16(tb[AFW_FLOW_A_DPORT]);
	} else if (tb[AFW_FLOW_A_SPORT] || tb[AFW_FLOW_A_DPORT]) {
		NL_SET_ERR_MSG_MOD(extack, "ports need proto tcp, udp, udplite, sctp or dccp");
		return -EINVAL;
	}
	if (tb[AFW_FLOW_A_ICMP_ID]) {
		if (t.proto != (t.family == AFW_FAMILY_IPV4 ? IPPROTO_ICMP : IPPROTO_ICMPV6)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[AFW_FLOW_A_ICMP_ID],
					    "an echo's id needs proto icmp (ipv4) or icmpv6 (ipv6)");
			return -EINVAL;
		}
		/* SRC sends the requests. */
		return afw_flow_key_echo(&t, nla_get_u16(tb[AFW_FLOW_A_ICMP_ID]),
					 AFW_PKT_ECHO_REQUEST, k);
	}
	return afw_flow_key_from_tuple(&t, k);
}

/* What a decision must be for the module to take it for others (learn.c). */
static int afw_flow_learn_check(struct nlattr **tb, const struct afw_flow_new *req,
				struct netlink_ext_ack *extack)
{
	if (!tb[AFW_FLOW_A_DIR]) {
		NL_SET_ERR_MSG_MOD(extack, "a learned decision needs the flow's direction");
		return -EINVAL;
	}
	if (req->key.proto != IPPROTO_TCP) {
		NL_SET_ERR_MSG_MOD(extack, "only TCP decisions are learned");
		return -EINVAL;
	}
	if (req->verdict == AFW_VERDICT_INSPECT || tb[AFW_FLOW_A_QUEUE]) {
		NL_SET_ERR_MSG_MOD(extack, "an inspected flow's decision is not learned");
		return -EINVAL;
	}
	return 0;
}

/*
 * Keeps @req's decision for the flows that share its destination. Not
 * learning is no error: the flow is installed, and the next one of its
 * kind goes to afwd as any other (a full table is counted).
 */
static void afw_flow_learn(struct afw_net *an, struct nlattr **tb,
			   const struct afw_flow_new *req, u32 portid)
{
	struct afw_learn_key k = { };
	unsigned int alen = req->key.family == AFW_FAMILY_IPV6 ? 16 : 4;
	bool b = req->initiator;

	memcpy(k.daddr, b ? req->key.a : req->key.b, alen);
	k.dport = b ? req->key.pa : req->key.pb;
	k.family = req->key.family;
	k.proto = req->key.proto;
	k.dir = nla_get_u8(tb[AFW_FLOW_A_DIR]);
	mutex_lock(&an->lock);
	afw_learn_add(an, &k, portid, tb[AFW_FLOW_A_LINE] ? nla_get_u32(tb[AFW_FLOW_A_LINE]) : 0,
		      req->verdict, NULL);
	mutex_unlock(&an->lock);
}

/*
 * The attributes of @nest into @tb, where nla_parse_nested() would file
 * them (the last of one given twice counts), for a nest that the
 * command's policy names with NLA_POLICY_NESTED: genetlink has validated
 * it, every attribute strictly, before the handler runs. Validating it
 * again took as long as genetlink's own validation (docs/performance.md).
 */
static void afw_genl_file(struct nlattr **tb, int max, const struct nlattr *nest)
{
	struct nlattr *a;
	int rem;

	memset(tb, 0, (max + 1) * sizeof(*tb));
	nla_for_each_nested(a, nest, rem)
		if (nla_type(a) <= max)
			tb[nla_type(a)] = a;
}

/* What confirms a flow installed unconfirmed (AFW_FLOW_A_CONFIRM): into @req. */
static int afw_flow_confirm_attrs(struct nlattr **tb, struct afw_flow_new *req,
				  struct netlink_ext_ack *extack)
{
	struct nlattr *ct[AFW_CONFIRM_A_MAX + 1];

	if (req->key.proto != IPPROTO_TCP || req->verdict != AFW_VERDICT_ACCEPT ||
	    (req->flags & AFW_FLOW_F_LEARN)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[AFW_FLOW_A_CONFIRM],
				    "an unconfirmed flow is a TCP flow's accept, not learned");
		return -EINVAL;
	}
	afw_genl_file(ct, AFW_CONFIRM_A_MAX, tb[AFW_FLOW_A_CONFIRM]);
	if (NL_REQ_ATTR_CHECK(extack, tb[AFW_FLOW_A_CONFIRM], ct, AFW_CONFIRM_A_ACK) ||
	    NL_REQ_ATTR_CHECK(extack, tb[AFW_FLOW_A_CONFIRM], ct, AFW_CONFIRM_A_END) ||
	    NL_REQ_ATTR_CHECK(extack, tb[AFW_FLOW_A_CONFIRM], ct, AFW_CONFIRM_A_IIF)) {
		NL_SET_ERR_MSG_MOD(extack, "confirming a flow needs ack, end and iif");
		return -EINVAL;
	}
	req->unconfirmed = true;
	req->confirm.ack = nla_get_u32(ct[AFW_CONFIRM_A_ACK]);
	req->confirm.end = nla_get_u32(ct[AFW_CONFIRM_A_END]);
	req->confirm.iif = nla_get_u32(ct[AFW_CONFIRM_A_IIF]);
	return 0;
}

static int afw_flow_new(struct sk_buff *skb, struct genl_info *info)
{
	struct afw_net *an = afw_net(genl_info_net(info));
	struct nlattr *tb[AFW_FLOW_A_MAX + 1];
	struct afw_flow_new req = { .origin = AFW_FLOW_ORIGIN_CONTROL };
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, AFW_A_FLOW))
		return -EINVAL;
	afw_genl_file(tb, AFW_FLOW_A_MAX, info->attrs[AFW_A_FLOW]);
	ret = afw_flow_key_from_attrs(tb, &req.key, info->extack);
	if (ret < 0)
		return ret;
	/* The source of the request started the flow: listings say so. */
	req.initiator = ret;
	if (!tb[AFW_FLOW_A_VERDICT]) {
		NL_SET_ERR_ATTR_MISS(info->extack, info->attrs[AFW_A_FLOW], AFW_FLOW_A_VERDICT);
		NL_SET_ERR_MSG_MOD(info->extack, "a flow needs a verdict");
		return -EINVAL;
	}
	req.verdict = nla_get_u8(tb[AFW_FLOW_A_VERDICT]);
	if (tb[AFW_FLOW_A_TIMEOUT])
		req.timeout_s = nla_get_u32(tb[AFW_FLOW_A_TIMEOUT]);
	if (tb[AFW_FLOW_A_FLAGS])
		req.flags = nla_get_u32(tb[AFW_FLOW_A_FLAGS]);
	if (req.flags & AFW_FLOW_F_LEARN) {
		ret = afw_flow_learn_check(tb, &req, info->extack);
		if (ret)
			return ret;
	}
	if (tb[AFW_FLOW_A_QUEUE]) {
		/* Other verdicts never queue the flow's packets as its own. */
		if (req.verdict != AFW_VERDICT_INSPECT) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[AFW_FLOW_A_QUEUE],
					    "a flow's own queue needs verdict inspect");
			return -EINVAL;
		}
		req.own_queue = true;
		req.queue = nla_get_u16(tb[AFW_FLOW_A_QUEUE]);
	}
	if (tb[AFW_FLOW_A_CONFIRM]) {
		ret = afw_flow_confirm_attrs(tb, &req, info->extack);
		if (ret)
			return ret;
	}
	/* Only the first request of a namespace takes the lock. */
	if (!READ_ONCE(an->active)) {
		mutex_lock(&an->lock);
		ret = afw_net_activate(genl_info_net(info), info->extack);
		mutex_unlock(&an->lock);
		if (ret)
			return ret;
	}
	ret = afw_flow_insert(an, &req, GFP_KERNEL_ACCOUNT, info->extack);
	if (req.flags & AFW_FLOW_F_LEARN)
		afw_flow_learn(an, tb, &req, info->snd_portid);
	return ret;
}

/* A request that names a flow by its key alone (FLOW_DEL, OWNER_GET): @tb and @k. */
static int afw_flow_key_request(struct genl_info *info, struct nlattr **tb,
				struct afw_flow_key *k)
{
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, AFW_A_FLOW))
		return -EINVAL;
	ret = nla_parse_nested(tb, AFW_FLOW_A_MAX, info->attrs[AFW_A_FLOW], afw_flow_key_policy,
			       info->extack);
	if (ret)
		return ret;
	ret = afw_flow_key_from_attrs(tb, k, info->extack);
	return ret < 0 ? ret : 0;
}

static int afw_flow_del(struct sk_buff *skb, struct genl_info *info)
{
	struct afw_net *an = afw_net(genl_info_net(info));
	struct nlattr *tb[AFW_FLOW_A_MAX + 1];
	struct afw_flow_key k;
	int ret;

	ret = afw_flow_key_request(info, tb, &k);
	if (ret)
		return ret;
	ret = afw_flow_remove(an, &k);
	if (ret)
		NL_SET_ERR_MSG_MOD(info->extack, "no such flow");
	return ret;
}

static int afw_flow_flush(struct sk_buff *skb, struct genl_info *info)
{
	afw_flows_flush(afw_net(genl_info_net(info)));
	return 0;
}

static u32 afw_flow_state(const struct afw_flow *f)
{
	return (test_bit(AFW_FLOW_ASSURED, &f->state) ? AFW_FLOW_S_ASSURED : 0) |
	       (test_bit(AFW_FLOW_CLOSING, &f->state) ? AFW_FLOW_S_CLOSING : 0) |
	       (test_bit(AFW_FLOW_UNCONFIRMED, &f->state) ? AFW_FLOW_S_UNCONFIRMED : 0);
}

/*
 * Under rcu_read_lock(): the AFW_FLOW_A_OWNER nest of owner record @o, if
 * there is one; with @cgroup_path, the path of its cgroup @cgroup_id, if
 * that is still the owner's.
 */
static int afw_put_owner_rec(struct sk_buff *skb, struct net *net, const struct afw_owner *o,
			     u64 cgroup_id, const char *cgroup_path)
{
	struct nlattr *nest;
	const char *exe;

	if (!o)
		return 0;
	exe = afw_owner_exe(o);
	nest = nla_nest_start(skb, AFW_FLOW_A_OWNER);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, AFW_OWNER_A_UID, from_kuid_munged(net->user_ns, o->uid)) ||
	    nla_put_u32(skb, AFW_OWNER_A_GID, from_kgid_munged(net->user_ns, o->gid)) ||
	    nla_put_u32(skb, AFW_OWNER_A_PID, o->tgid) ||
	    nla_put_string(skb, AFW_OWNER_A_COMM, o->comm) ||
	    (exe && nla_put_string(skb, AFW_OWNER_A_EXE, exe)) ||
	    (o->cgroup &&
	     nla_put_u64_64bit(skb, AFW_OWNER_A_CGROUP, o->cgroup, AFW_OWNER_A_PAD)) ||
	    nla_put_u32(skb, AFW_OWNER_A_AGE, jiffies_to_msecs(jiffies - o->born) / MSEC_PER_SEC) ||
	    (cgroup_path && o->cgroup == cgroup_id &&
	     nla_put_string(skb, AFW_OWNER_A_CGROUP_PATH, cgroup_path)) ||
	    (o->listener && nla_put_flag(skb, AFW_OWNER_A_LISTENER))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* The same, of @k's owner. */
static int afw_put_owner(struct sk_buff *skb, struct net *net, const struct afw_flow_key *k,
			 u64 cgroup_id, const char *cgroup_path)
{
	return afw_put_owner_rec(skb, net, afw_owner_lookup(&afw_net(net)->owners, k),
				 cgroup_id, cgroup_path);
}

/* An owner nest's room (afw_put_owner() without a cgroup path), its program aside. */
#define AFW_OWNER_SIZE							\
	(nla_total_size(0) + 4 * nla_total_size(sizeof(u32)) +		\
	 nla_total_size(TASK_COMM_LEN) + nla_total_size_64bit(sizeof(u64)) + \
	 nla_total_size(0))

/* The room afw_put_owner_rec() takes for @o, without a cgroup path; under RCU. */
static size_t afw_owner_size(const struct afw_owner *o)
{
	const char *exe;

	if (!o)
		return 0;
	exe = afw_owner_exe(o);
	return AFW_OWNER_SIZE + (exe ? nla_total_size(strlen(exe) + 1) : 0);
}

/* A flow message's room (afw_fill_flow()), its owner aside. */
#define AFW_FLOW_MSG_SIZE						\
	(nla_total_size(0) + 4 * nla_total_size(sizeof(u8)) +		\
	 2 * nla_total_size(16) + 3 * nla_total_size(sizeof(u16)) +	\
	 4 * nla_total_size(sizeof(u32)) + 2 * nla_total_size_64bit(sizeof(u64)))

/* A flow as its initiator sees it: source first, as afwd logs it. */
/* Flow @f as a message @cmd: a FLOW_GET dump's line, or an event. */
static void *afw_fill_flow(struct sk_buff *skb, struct net *net, const struct afw_flow *f,
			   u32 portid, u32 seq, int flags, u8 cmd)
{
	unsigned int alen = f->key.family == AFW_FAMILY_IPV6 ? 16 : 4;
	long left = (long)(READ_ONCE(f->expires) - jiffies);
	const struct afw_flow_key *k = &f->key;
	bool b = f->initiator;
	struct nlattr *nest;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &afw_genl_family, flags, cmd);
	if (!hdr)
		return NULL;
	nest = nla_nest_start(skb, AFW_A_FLOW);
	if (!nest)
		goto err;
	if (nla_put_u8(skb, AFW_FLOW_A_FAMILY, k->family) ||
	    nla_put_u8(skb, AFW_FLOW_A_PROTO, k->proto) ||
	    nla_put(skb, AFW_FLOW_A_SRC, alen, b ? k->b : k->a) ||
	    nla_put(skb, AFW_FLOW_A_DST, alen, b ? k->a : k->b) ||
	    (afw_proto_has_ports(k->proto) &&
	     (nla_put_u16(skb, AFW_FLOW_A_SPORT, b ? k->pb : k->pa) ||
	      nla_put_u16(skb, AFW_FLOW_A_DPORT, b ? k->pa : k->pb))) ||
	    (k->echo && nla_put_u16(skb, AFW_FLOW_A_ICMP_ID, k->pa)) ||
	    nla_put_u8(skb, AFW_FLOW_A_VERDICT, f->verdict) ||
	    nla_put_u32(skb, AFW_FLOW_A_TIMEOUT, f->timeout / HZ) ||
	    nla_put_u32(skb, AFW_FLOW_A_EXPIRES, left > 0 ? DIV_ROUND_UP(left, HZ) : 0) ||
	    nla_put_u8(skb, AFW_FLOW_A_ORIGIN, f->origin) ||
	    (f->origin == AFW_FLOW_ORIGIN_RULE &&
	     nla_put_u32(skb, AFW_FLOW_A_RULE_ID, f->rule_id)) ||
	    (f->origin == AFW_FLOW_ORIGIN_LEARNED &&
	     nla_put_u32(skb, AFW_FLOW_A_LINE, f->rule_id)) ||
	    nla_put_u32(skb, AFW_FLOW_A_STATE, afw_flow_state(f)) ||
	    (f->own_queue && nla_put_u16(skb, AFW_FLOW_A_QUEUE, f->queue)) ||
	    nla_put_u64_64bit(skb, AFW_FLOW_A_PACKETS, atomic64_read(&f->packets),
			      AFW_FLOW_A_PAD) ||
	    nla_put_u64_64bit(skb, AFW_FLOW_A_BYTES, atomic64_read(&f->bytes), AFW_FLOW_A_PAD) ||
	    afw_put_owner(skb, net, k, 0, NULL))
		goto err;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return hdr;

err:
	genlmsg_cancel(skb, hdr);
	return NULL;
}

/* A FLOW_GET dump's line. */
static int afw_put_flow(struct sk_buff *skb, struct netlink_callback *cb,
			const struct afw_flow *f)
{
	void *hdr;

	hdr = afw_fill_flow(skb, sock_net(cb->skb->sk), f, NETLINK_CB(cb->skb).portid,
			    cb->nlh->nlmsg_seq, NLM_F_MULTI, AFW_CMD_FLOW_GET);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(cb, hdr);
	return 0;
}

/* Cleared, and waited for, before the family and its groups go. */
static bool afw_genl_events_on __read_mostly;

bool afw_genl_flow_heard(struct afw_net *an)
{
	struct net *net = read_pnet(&an->net);

	return check_net(net) && genl_has_listeners(&afw_genl_family, net, AFW_GENL_MCGRP_FLOWS);
}

void afw_genl_flow_event(struct afw_net *an, const struct afw_flow *f, u8 cmd)
{
	struct net *net = read_pnet(&an->net);
	struct sk_buff *skb;
	size_t size;

	/*
	 * A namespace going away ends its flows after its owners' table is
	 * gone: tell nobody of them then.
	 */
	if (!check_net(net) || !genl_has_listeners(&afw_genl_family, net, AFW_GENL_MCGRP_FLOWS))
		return;
	/* The owner's record is read under RCU, as dumps read it. */
	rcu_read_lock();
	if (!READ_ONCE(afw_genl_events_on))
		goto out;
	/*
	 * Sized to the message: a listener's buffer holds four times as many
	 * as of page-sized ones (a walk tells up to 512 at once). An owner
	 * whose record changed between the sizing and the fill takes a page.
	 */
	size = AFW_FLOW_MSG_SIZE + afw_owner_size(afw_owner_lookup(&an->owners, &f->key));
	skb = genlmsg_new(size, GFP_ATOMIC | __GFP_NOWARN);
	if (skb && !afw_fill_flow(skb, net, f, 0, 0, 0, cmd)) {
		nlmsg_free(skb);
		skb = genlmsg_new(NLMSG_GOODSIZE, GFP_ATOMIC | __GFP_NOWARN);
		if (skb && !afw_fill_flow(skb, net, f, 0, 0, 0, cmd)) {
			nlmsg_free(skb);
			skb = NULL;
		}
	}
	if (skb)
		genlmsg_multicast_netns(&afw_genl_family, net, skb, 0, AFW_GENL_MCGRP_FLOWS,
					GFP_ATOMIC);
out:
	rcu_read_unlock();
}

static int afw_flow_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return afw_flows_dump(skb, cb, afw_put_flow);
}

/*
 * What a told packet's message takes, its owner aside: @alen-byte
 * addresses, @len bytes of the packet, and with @verdict a LEARNED
 * message's verdict and line.
 */
static size_t afw_genl_told_size(unsigned int alen, unsigned int len, bool verdict)
{
	return nla_total_size(0) + 3 * nla_total_size(sizeof(u8)) +
	       2 * nla_total_size(alen) + 2 * nla_total_size(sizeof(u16)) +
	       2 * nla_total_size(sizeof(u32)) + nla_total_size(len) +
	       (verdict ? nla_total_size(sizeof(u8)) + nla_total_size(sizeof(u32)) : 0);
}

/*
 * Attribute @type, @len bytes of @data, written at @at, which has room for
 * it: what nla_put() writes, without its checks and its skb_put() each.
 * Returns where the next one goes.
 */
static void *afw_genl_told_attr(void *at, int type, const void *data, int len)
{
	struct nlattr *nla = at;

	nla->nla_type = type;
	nla->nla_len = nla_attr_size(len);
	memcpy(nla_data(nla), data, len);
	memset((u8 *)nla_data(nla) + len, 0, nla_padlen(len));
	return (u8 *)at + nla_total_size(len);
}

/*
 * The packet @skb (@t) of flow @k in the hook @state, told to @portid as
 * @cmd: for LEARNED, with @e's verdict and line. Never waits: a socket
 * with no room is not told (ENOBUFS there).
 */
static int afw_genl_tell(const struct nf_hook_state *state, const struct sk_buff *skb,
			 const struct afw_tuple *t, const struct afw_owner *o, u8 cmd,
			 const struct afw_learned *e, u32 portid)
{
	unsigned int alen = t->family == AFW_FAMILY_IPV6 ? 16 : 4;
	u32 iif = state->in ? state->in->ifindex : 0;
	u32 oif = state->out ? state->out->ifindex : 0;
	int off = skb_network_offset(skb);
	u8 buf[AFW_LEARN_PACKET_MAX];
	struct nlattr *nest;
	struct sk_buff *msg;
	const void *data;
	unsigned int len;
	size_t size;
	void *hdr;
	void *at;

	/* The family is going (afw_genl_exit()): its id may not be used. */
	if (!READ_ONCE(afw_genl_events_on))
		return -ESHUTDOWN;
	len = min_t(unsigned int, skb->len - off, AFW_LEARN_PACKET_MAX);
	data = skb_header_pointer(skb, off, len, buf);
	if (!data)
		return -EINVAL;
	/*
	 * Sized to the message: a burst of them shares afwd's receive buffer,
	 * and the buffer is zeroed when allocated (init_on_alloc, on in
	 * Debian's kernels): an IPv4 handshake's fits half the slab object
	 * that room for any packet would take.
	 */
	size = afw_genl_told_size(alen, len, e);
	msg = genlmsg_new(size + afw_owner_size(o), GFP_ATOMIC | __GFP_NOWARN);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put(msg, 0, 0, &afw_genl_family, 0, cmd);
	if (!hdr || skb_tailroom(msg) < size)
		goto err;
	/*
	 * The flow's attributes, a dozen a message and a few messages a
	 * connection, written into room taken once: each nla_put() checked
	 * and took its own, which the size above has already settled.
	 */
	nest = skb_put(msg, size);
	nest->nla_type = NLA_F_NESTED | AFW_A_FLOW;
	at = afw_genl_told_attr(nest + 1, AFW_FLOW_A_FAMILY, &t->family, sizeof(u8));
	at = afw_genl_told_attr(at, AFW_FLOW_A_PROTO, &t->proto, sizeof(u8));
	at = afw_genl_told_attr(at, AFW_FLOW_A_SRC, t->saddr, alen);
	at = afw_genl_told_attr(at, AFW_FLOW_A_DST, t->daddr, alen);
	at = afw_genl_told_attr(at, AFW_FLOW_A_SPORT, &t->sport, sizeof(u16));
	at = afw_genl_told_attr(at, AFW_FLOW_A_DPORT, &t->dport, sizeof(u16));
	at = afw_genl_told_attr(at, AFW_FLOW_A_DIR, &t->dir, sizeof(u8));
	if (e) {
		at = afw_genl_told_attr(at, AFW_FLOW_A_VERDICT, &e->verdict, sizeof(u8));
		at = afw_genl_told_attr(at, AFW_FLOW_A_LINE, &e->line, sizeof(u32));
	}
	at = afw_genl_told_attr(at, AFW_FLOW_A_IIF, &iif, sizeof(u32));
	at = afw_genl_told_attr(at, AFW_FLOW_A_OIF, &oif, sizeof(u32));
	afw_genl_told_attr(at, AFW_FLOW_A_PACKET, data, len);
	/* The record the message was sized for: it fits. */
	afw_put_owner_rec(msg, state->net, o, 0, NULL);
	nla_nest_end(msg, nest);
	genlmsg_end(msg, hdr);
	return genlmsg_unicast(state->net, msg, portid);

err:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

void afw_genl_tell_learned(struct afw_net *an, const struct nf_hook_state *state,
			   const struct sk_buff *skb, const struct afw_tuple *t,
			   const struct afw_flow_key *k, const struct afw_learned *e)
{
	if (afw_genl_tell(state, skb, t, afw_owner_lookup(&an->owners, k), AFW_CMD_LEARNED, e,
			  e->portid))
		atomic64_inc(&an->learn.untold);
}

int afw_genl_tell_handshake(struct afw_net *an, const struct nf_hook_state *state,
			    const struct sk_buff *skb, const struct afw_tuple *t,
			    const struct afw_flow_key *k, u32 portid)
{
	return afw_genl_tell(state, skb, t, afw_owner_lookup(&an->owners, k), AFW_CMD_HANDSHAKE,
			     NULL, portid);
}

/* afwd has the flow's owner from its first packet: none again. */
int afw_genl_tell_confirmed(const struct nf_hook_state *state, const struct sk_buff *skb,
			    const struct afw_tuple *t, u32 portid)
{
	return afw_genl_tell(state, skb, t, NULL, AFW_CMD_CONFIRMED, NULL, portid);
}

static int afw_learn_flush(struct sk_buff *skb, struct genl_info *info)
{
	struct afw_net *an = afw_net(genl_info_net(info));

	mutex_lock(&an->lock);
	afw_learn_forget(an, 0);
	mutex_unlock(&an->lock);
	return 0;
}

static int afw_put_learned(struct sk_buff *skb, struct netlink_callback *cb,
			   const struct afw_learned *e)
{
	unsigned int alen = e->key.family == AFW_FAMILY_IPV6 ? 16 : 4;
	struct nlattr *nest;
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &afw_genl_family, NLM_F_MULTI, AFW_CMD_LEARN_GET);
	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, AFW_A_FLOW);
	if (!nest ||
	    nla_put_u8(skb, AFW_FLOW_A_FAMILY, e->key.family) ||
	    nla_put_u8(skb, AFW_FLOW_A_PROTO, e->key.proto) ||
	    nla_put_u8(skb, AFW_FLOW_A_DIR, e->key.dir) ||
	    nla_put(skb, AFW_FLOW_A_DST, alen, e->key.daddr) ||
	    nla_put_u16(skb, AFW_FLOW_A_DPORT, e->key.dport) ||
	    nla_put_u8(skb, AFW_FLOW_A_VERDICT, e->verdict) ||
	    nla_put_u32(skb, AFW_FLOW_A_LINE, e->line) ||
	    nla_put_u64_64bit(skb, AFW_FLOW_A_HITS, atomic64_read(&e->hits), AFW_FLOW_A_PAD) ||
	    nla_put_u32(skb, AFW_FLOW_A_PORTID, e->portid)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
}

static int afw_learn_dump_all(struct sk_buff *skb, struct netlink_callback *cb)
{
	return afw_learn_dump(skb, cb, afw_put_learned);
}

/*
 * The path of cgroup @id as the asker sees it, in @buf (PATH_MAX bytes).
 * Not for dumps: a dump walks under RCU, and the lookup wants process
 * context. A cgroup that is gone has no path, and that is no error.
 */
static bool afw_cgroup_path(u64 id, char *buf)
{
	struct cgroup *cgrp;
	int len;

	if (!id)
		return false;
	cgrp = cgroup_get_from_id(id);
	if (IS_ERR_OR_NULL(cgrp))
		return false;
	len = cgroup_path_ns(cgrp, buf, PATH_MAX, current->nsproxy->cgroup_ns);
	cgroup_put(cgrp);
	return len > 0 && len < PATH_MAX;
}

static int afw_owner_get(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct nlattr *tb[AFW_FLOW_A_MAX + 1];
	const struct afw_owner *o;
	struct afw_flow_key k;
	struct nlattr *nest;
	struct sk_buff *msg;
	bool has_path;
	char *path;
	u64 cgroup;
	void *hdr;
	int ret;

	ret = afw_flow_key_request(info, tb, &k);
	if (ret)
		return ret;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	ret = -EMSGSIZE;
	hdr = genlmsg_put_reply(msg, info, &afw_genl_family, 0, AFW_CMD_OWNER_GET);
	if (!hdr)
		goto err_free;
	nest = nla_nest_start(msg, AFW_A_FLOW);
	if (!nest)
		goto err_free;
	/* The key as the request gave it: the caller knows which way it asked. */
	if (nla_put_u8(msg, AFW_FLOW_A_FAMILY, k.family) ||
	    nla_put_u8(msg, AFW_FLOW_A_PROTO, k.proto) ||
	    nla_put(msg, AFW_FLOW_A_SRC, nla_len(tb[AFW_FLOW_A_SRC]),
		    nla_data(tb[AFW_FLOW_A_SRC])) ||
	    nla_put(msg, AFW_FLOW_A_DST, nla_len(tb[AFW_FLOW_A_DST]),
		    nla_data(tb[AFW_FLOW_A_DST])) ||
	    (tb[AFW_FLOW_A_SPORT] &&
	     (nla_put_u16(msg, AFW_FLOW_A_SPORT, nla_get_u16(tb[AFW_FLOW_A_SPORT])) ||
	      nla_put_u16(msg, AFW_FLOW_A_DPORT, nla_get_u16(tb[AFW_FLOW_A_DPORT])))) ||
	    (k.echo && nla_put_u16(msg, AFW_FLOW_A_ICMP_ID, k.pa)))
		goto err_free;
	rcu_read_lock();
	o = afw_owner_lookup(&afw_net(net)->owners, &k);
	cgroup = o ? o->cgroup : 0;
	rcu_read_unlock();
	if (!o) {
		NL_SET_ERR_MSG_MOD(info->extack, "no owner recorded for this flow");
		ret = -ENOENT;
		goto err_free;
	}
	path = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!path) {
		ret = -ENOMEM;
		goto err_free;
	}
	/*
	 * The path is looked up outside RCU, and the record may go or be
	 * replaced meanwhile: it is looked up again, and the path given only
	 * if its cgroup is still the owner's.
	 */
	has_path = afw_cgroup_path(cgroup, path);
	rcu_read_lock();
	if (afw_owner_lookup(&afw_net(net)->owners, &k))
		ret = afw_put_owner(msg, net, &k, cgroup, has_path ? path : NULL);
	else
		ret = -ENOENT;
	rcu_read_unlock();
	kfree(path);
	if (ret)
		goto err_free;
	nla_nest_end(msg, nest);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free:
	nlmsg_free(msg);
	return ret;
}

static int afw_put_config(struct sk_buff *skb, const struct afw_config *c)
{
	struct nlattr *nest = nla_nest_start(skb, AFW_A_CONFIG);

	if (!nest ||
	    nla_put_u8(skb, AFW_CFG_A_UNKNOWN, c->unknown) ||
	    nla_put_u16(skb, AFW_CFG_A_QUEUE_NUM, c->queue_num) ||
	    nla_put_u16(skb, AFW_CFG_A_QUEUE_COUNT, c->queue_count) ||
	    nla_put_u8(skb, AFW_CFG_A_FAIL_OPEN, c->fail_open) ||
	    nla_put_u32(skb, AFW_CFG_A_MAX_FLOWS, c->max_flows) ||
	    nla_put_u32(skb, AFW_CFG_A_FLOW_TIMEOUT, c->flow_timeout) ||
	    nla_put_u32(skb, AFW_CFG_A_TCP_TIMEOUT, c->tcp_timeout) ||
	    nla_put_u32(skb, AFW_CFG_A_UDP_TIMEOUT, c->udp_timeout) ||
	    nla_put_u8(skb, AFW_CFG_A_ENABLED, c->enabled) ||
	    nla_put_u8(skb, AFW_CFG_A_OWNERS, c->owners))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int afw_config_get(struct sk_buff *skb, struct genl_info *info)
{
	struct afw_net *an = afw_net(genl_info_net(info));
	struct afw_config cfg;
	struct sk_buff *msg;
	void *hdr;

	rcu_read_lock();
	cfg = *rcu_dereference(an->cfg);
	rcu_read_unlock();
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &afw_genl_family, 0, AFW_CMD_CONFIG_GET);
	if (!hdr || afw_put_config(msg, &cfg)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int afw_config_set(struct sk_buff *skb, struct genl_info *info)
{
	struct afw_net *an = afw_net(genl_info_net(info));
	struct afw_config *c;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, AFW_A_CONFIG))
		return -EINVAL;
	mutex_lock(&an->lock);
	c = afw_config_from_attrs(an, skb, info->attrs[AFW_A_CONFIG], info->extack);
	ret = PTR_ERR_OR_ZERO(c);
	if (ret)
		goto out;
	ret = afw_net_activate(genl_info_net(info), info->extack);
	if (ret) {
		kfree(c);
		goto out;
	}
	/* Packets see the old settings or the new ones, never a mix. */
	afw_config_publish(an, c);
out:
	mutex_unlock(&an->lock);
	return ret;
}

/* cb->args[0]: index of the next rule to dump in evaluation order. */
static int afw_rule_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct afw_net *an = afw_net(sock_net(skb->sk));
	const struct afw_ruleset *rs;
	unsigned long i = cb->args[0];
	u64 gen;
	void *hdr;

	rcu_read_lock();
	rs = rcu_dereference(an->ruleset);
	gen = rs ? rs->gen : READ_ONCE(an->ruleset_gen);
	/*
	 * A different generation between two parts flags the dump; 0 would
	 * turn the check off, so it is never used.
	 */
	cb->seq = (u32)gen + 1 ?: 1;
	for (; rs && i < rs->nrules; i++) {
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				  &afw_genl_family, NLM_F_MULTI, AFW_CMD_RULE_GET);
		if (!hdr)
			break;
		genl_dump_check_consistent(cb, hdr);
		if (nla_put_u64_64bit(skb, AFW_A_RULESET_GEN, gen, AFW_A_PAD) ||
		    afw_put_rule(skb, rs->rules[i])) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	rcu_read_unlock();
	cb->args[0] = i;
	return skb->len;
}

#define AFW_OP(_cmd, _policy)				\
	.cmd = (_cmd),					\
	.policy = (_policy),				\
	.maxattr = AFW_A_MAX

static const struct genl_ops afw_genl_ops[] = {
	{
		AFW_OP(AFW_CMD_STATUS_GET, afw_none_policy),
		.doit = afw_status_get,
	},
	{
		AFW_OP(AFW_CMD_COUNTERS_RESET, afw_none_policy),
		.doit = afw_counters_reset,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		AFW_OP(AFW_CMD_RULE_NEW, afw_rule_new_policy),
		.doit = afw_rule_new,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		AFW_OP(AFW_CMD_RULE_DEL, afw_rule_del_policy),
		.doit = afw_rule_del,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		AFW_OP(AFW_CMD_RULE_GET, afw_none_policy),
		.dumpit = afw_rule_dump,
		/* Like iptables -L: the rules tell what a host protects. */
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		AFW_OP(AFW_CMD_RULE_FLUSH, afw_none_policy),
		.doit = afw_rule_flush,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		AFW_OP(AFW_CMD_RULESET_REPLACE, afw_replace_policy),
		.doit = afw_ruleset_replace,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		AFW_OP(AFW_CMD_FLOW_NEW, afw_flow_new_policy),
		.doit = afw_flow_new,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		AFW_OP(AFW_CMD_FLOW_DEL, afw_flow_del_policy),
		.doit = afw_flow_del,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		AFW_OP(AFW_CMD_FLOW_GET, afw_none_policy),
		.start = afw_flows_dump_start,
		.dumpit = afw_flow_dump,
		.done = afw_flows_dump_done,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		AFW_OP(AFW_CMD_FLOW_FLUSH, afw_none_policy),
		.doit = afw_flow_flush,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		/* Settings tell what a host lets through: the admin's. */
		AFW_OP(AFW_CMD_CONFIG_GET, afw_none_policy),
		.doit = afw_config_get,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		AFW_OP(AFW_CMD_CONFIG_SET, afw_config_set_policy),
		.doit = afw_config_set,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		/* Like STATUS_GET: counts and sizes, nothing about what is protected. */
		AFW_OP(AFW_CMD_STATS_GET, afw_none_policy),
		.doit = afw_stats_get,
	},
	{
		AFW_OP(AFW_CMD_QUEUE_SERVE, afw_serve_policy),
		.doit = afw_queue_serve,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		/* Who runs what: like the flows, the admin's to read. */
		AFW_OP(AFW_CMD_OWNER_GET, afw_flow_del_policy),
		.doit = afw_owner_get,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		AFW_OP(AFW_CMD_LEARN_FLUSH, afw_none_policy),
		.doit = afw_learn_flush,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		/* Like the flows: what afwd lets through, the admin's to read. */
		AFW_OP(AFW_CMD_LEARN_GET, afw_none_policy),
		.dumpit = afw_learn_dump_all,
		.flags = GENL_UNS_ADMIN_PERM,
	},
};

/*
 * Every handler serialises on its namespace's own mutex (or on none: the
 * flow table locks per bucket), so nothing needs genetlink's global one,
 * and a busy namespace never holds up another family or namespace.
 */
/* Flows' lives may name programs and users: only admins hear of them. */
static const struct genl_multicast_group afw_genl_mcgrps[] = {
	[AFW_GENL_MCGRP_FLOWS] = { .name = AFW_MCGRP_FLOWS, .flags = GENL_MCAST_CAP_NET_ADMIN },
};

static struct genl_family afw_genl_family __ro_after_init = {
	.name = AFW_GENL_NAME,
	.version = AFW_GENL_VERSION,
	.maxattr = AFW_A_MAX,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = afw_genl_ops,
	.n_ops = ARRAY_SIZE(afw_genl_ops),
	.mcgrps = afw_genl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(afw_genl_mcgrps),
};

int __init afw_genl_init(void)
{
	int ret;

	ret = netlink_register_notifier(&afw_genl_notifier);
	if (ret)
		goto err_notifier;
	ret = genl_register_family(&afw_genl_family);
	if (ret)
		goto err_family;
	WRITE_ONCE(afw_genl_events_on, true);
	return 0;

err_family:
	netlink_unregister_notifier(&afw_genl_notifier);
err_notifier:
	return ret;
}

void afw_genl_exit(void)
{
	/*
	 * Flows still end until the namespaces go, after this: none may be
	 * told to a group number the family gives back.
	 */
	WRITE_ONCE(afw_genl_events_on, false);
	synchronize_rcu();
	genl_unregister_family(&afw_genl_family);
	netlink_unregister_notifier(&afw_genl_notifier);
}
