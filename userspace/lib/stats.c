// SPDX-License-Identifier: GPL-2.0
/*
 * AFW_CMD_STATS_GET.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <linux/afw.h>

#include "attr.h"
#include "stats.h"

static const enum mnl_attr_data_type afw_stats_msg_types[AFW_A_MAX + 1] = {
	[AFW_A_STATS] = MNL_TYPE_NESTED,
};

/* Where each attribute of the AFW_A_STATS nest goes in struct afw_stats. */
struct afw_stats_field {
	uint16_t type;
	enum mnl_attr_data_type kind;	/* MNL_TYPE_U32 or MNL_TYPE_U64 */
	size_t off;
	bool optional;			/* a module older than it leaves it zero */
};

#define AFW_STATS_U64(t, f) { AFW_STATS_A_##t, MNL_TYPE_U64, offsetof(struct afw_stats, f), false }
#define AFW_STATS_U32(t, f) { AFW_STATS_A_##t, MNL_TYPE_U32, offsetof(struct afw_stats, f), false }
#define AFW_STATS_NEWER(t, k, f) { AFW_STATS_A_##t, MNL_TYPE_##k, offsetof(struct afw_stats, f), true }

static const struct afw_stats_field afw_stats_fields[] = {
	AFW_STATS_U64(FLOW_ACCEPT, decided[AFW_STATS_FLOW][AFW_ACTION_ACCEPT]),
	AFW_STATS_U64(FLOW_DROP, decided[AFW_STATS_FLOW][AFW_ACTION_DROP]),
	AFW_STATS_U64(FLOW_REJECT, decided[AFW_STATS_FLOW][AFW_ACTION_REJECT]),
	AFW_STATS_U64(FLOW_INSPECT, decided[AFW_STATS_FLOW][AFW_ACTION_QUEUE]),
	AFW_STATS_U64(RULE_ACCEPT, decided[AFW_STATS_RULE][AFW_ACTION_ACCEPT]),
	AFW_STATS_U64(RULE_DROP, decided[AFW_STATS_RULE][AFW_ACTION_DROP]),
	AFW_STATS_U64(RULE_REJECT, decided[AFW_STATS_RULE][AFW_ACTION_REJECT]),
	AFW_STATS_U64(RULE_QUEUE, decided[AFW_STATS_RULE][AFW_ACTION_QUEUE]),
	AFW_STATS_U64(UNKNOWN_ACCEPT, decided[AFW_STATS_UNKNOWN][AFW_ACTION_ACCEPT]),
	AFW_STATS_U64(UNKNOWN_DROP, decided[AFW_STATS_UNKNOWN][AFW_ACTION_DROP]),
	AFW_STATS_U64(UNKNOWN_QUEUE, decided[AFW_STATS_UNKNOWN][AFW_ACTION_QUEUE]),
	AFW_STATS_U64(MALFORMED, malformed),
	AFW_STATS_U32(RULES, rules),
	AFW_STATS_U32(MAX_RULES, max_rules),
	AFW_STATS_U32(MASKS, masks),
	AFW_STATS_U32(MAX_MASKS, max_masks),
	AFW_STATS_U64(RULESET_GEN, ruleset_gen),
	AFW_STATS_U32(FLOWS, flows),
	AFW_STATS_U32(MAX_FLOWS, max_flows),
	AFW_STATS_U64(FLOWS_INSERTED, flows_inserted),
	AFW_STATS_U64(FLOWS_EXPIRED, flows_expired),
	AFW_STATS_U64(FLOWS_CLOSED, flows_closed),
	AFW_STATS_U64(FLOWS_EVICTED, flows_evicted),
	AFW_STATS_U64(FLOWS_REFUSED, flows_refused),
	AFW_STATS_U64(EXEMPT, exempt),
	AFW_STATS_U64(FLOWS_RESTARTED, flows_restarted),
	AFW_STATS_U64(FLOWS_RULE, flows_rule),
	AFW_STATS_U64(UNSERVED_DROP, unserved_drop),
	AFW_STATS_U64(UNSERVED_PASS, unserved_pass),
	AFW_STATS_NEWER(OWNERS, U32, owners),
	AFW_STATS_NEWER(OWNERS_NOTED, U64, owners_noted),
	AFW_STATS_NEWER(OWNERS_LOST, U64, owners_lost),
	AFW_STATS_NEWER(LEARNED, U32, learned),
	AFW_STATS_NEWER(LEARNED_FLOWS, U64, learned_flows),
	AFW_STATS_NEWER(LEARNED_UNTOLD, U64, learned_untold),
	AFW_STATS_NEWER(LEARNED_FULL, U64, learned_full),
	AFW_STATS_NEWER(HANDSHAKES_TOLD, U64, handshakes_told),
	AFW_STATS_NEWER(HANDSHAKES_QUEUED, U64, handshakes_queued),
	AFW_STATS_NEWER(FLOWS_CONFIRMED, U64, flows_confirmed),
};

#define AFW_STATS_NFIELDS (sizeof(afw_stats_fields) / sizeof(afw_stats_fields[0]))

int afw_stats_parse(const struct nlmsghdr *nlh, struct afw_stats *st)
{
	const struct nlattr *tb[AFW_A_MAX + 1], *stb[AFW_STATS_A_MAX + 1];
	const struct afw_attr_set set = { AFW_A_MAX, afw_stats_msg_types, tb };
	enum mnl_attr_data_type types[AFW_STATS_A_MAX + 1] = { 0 };
	const struct afw_attr_set sset = { AFW_STATS_A_MAX, types, stb };
	const struct afw_stats_field *f;
	size_t i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < AFW_STATS_NFIELDS; i++)
		types[afw_stats_fields[i].type] = afw_stats_fields[i].kind;
	if (afw_attrs_parse_msg(nlh, &set) < 0)
		return MNL_CB_ERROR;
	if (!tb[AFW_A_STATS]) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (afw_attrs_parse_nested(tb[AFW_A_STATS], &sset) < 0)
		return MNL_CB_ERROR;
	for (i = 0; i < AFW_STATS_NFIELDS; i++) {
		f = &afw_stats_fields[i];
		if (!stb[f->type] && f->optional)
			continue;
		if (!stb[f->type]) {
			errno = EBADMSG;
			return MNL_CB_ERROR;
		}
		if (f->kind == MNL_TYPE_U64)
			*(uint64_t *)((char *)st + f->off) = mnl_attr_get_u64(stb[f->type]);
		else
			*(uint32_t *)((char *)st + f->off) = mnl_attr_get_u32(stb[f->type]);
	}
	return MNL_CB_OK;
}

static int afw_stats_cb(const struct nlmsghdr *nlh, void *data)
{
	return afw_stats_parse(nlh, data);
}

int afw_stats_get(struct afw_nl *nl, struct afw_stats *st)
{
	return afw_nl_talk(nl, afw_nl_request(nl, AFW_CMD_STATS_GET, 0), afw_stats_cb, st);
}

const char *afw_stats_source_name(unsigned int src)
{
	switch (src) {
	case AFW_STATS_FLOW:
		return "flow";
	case AFW_STATS_RULE:
		return "rule";
	case AFW_STATS_UNKNOWN:
		return "unknown";
	}
	return "?";
}
