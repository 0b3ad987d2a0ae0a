// SPDX-License-Identifier: GPL-2.0
/*
 * Decoding of STATS_GET replies: every counter lands in its own field, and
 * a reply that lacks a counter or misstates its size is refused rather than
 * shown as a zero.
 */

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <linux/genetlink.h>

#include <linux/afw.h>

#include "check.h"
#include "genl_msg.h"
#include "stats.h"

static int is_u32(int type)
{
	return type == AFW_STATS_A_RULES || type == AFW_STATS_A_MAX_RULES ||
	       type == AFW_STATS_A_MASKS || type == AFW_STATS_A_MAX_MASKS ||
	       type == AFW_STATS_A_FLOWS || type == AFW_STATS_A_MAX_FLOWS ||
	       type == AFW_STATS_A_OWNERS || type == AFW_STATS_A_LEARNED;
}

/* Damage put_stats() can do to the nest. */
enum { S_OK, S_SKIP = 1, S_SHORT = 2, S_EXTRA = 4 };

/*
 * Every attribute gets a value of its own: 100 + type, plus 2^40 for the
 * 64-bit ones so that a lost high half shows. @victim is the attribute
 * that S_SKIP leaves out or S_SHORT sends as 2 bytes.
 */
static void put_stats(struct msg *m, unsigned int damage, int victim)
{
	struct nlattr *nest;
	int t;

	nest = mnl_attr_nest_start(m->nlh, AFW_A_STATS);
	for (t = AFW_STATS_A_FLOW_ACCEPT; t <= AFW_STATS_A_MAX; t++) {
		if (t == victim && (damage & S_SKIP))
			continue;
		if (t == victim && (damage & S_SHORT))
			mnl_attr_put_u16(m->nlh, t, 1);
		else if (is_u32(t))
			mnl_attr_put_u32(m->nlh, t, 100 + t);
		else
			mnl_attr_put_u64(m->nlh, t, (1ULL << 40) + 100 + t);
	}
	if (damage & S_EXTRA)
		mnl_attr_put_u32(m->nlh, AFW_STATS_A_MAX + 1, 42);
	mnl_attr_nest_end(m->nlh, nest);
}

static uint64_t want64(int type)
{
	return (1ULL << 40) + 100 + type;
}

int main(void)
{
	const uint64_t *unknown;
	struct afw_stats st;
	struct msg m;
	int failed = 0, ret;

	msg_start(&m, AFW_CMD_STATS_GET);
	put_stats(&m, S_OK, 0);
	ret = afw_stats_parse(m.nlh, &st);
	CHECK(failed, "a complete reply parses", ret == MNL_CB_OK);
	CHECK(failed, "flow verdicts land by verdict",
	      st.decided[AFW_STATS_FLOW][AFW_ACTION_ACCEPT] == want64(AFW_STATS_A_FLOW_ACCEPT) &&
	      st.decided[AFW_STATS_FLOW][AFW_ACTION_DROP] == want64(AFW_STATS_A_FLOW_DROP) &&
	      st.decided[AFW_STATS_FLOW][AFW_ACTION_REJECT] == want64(AFW_STATS_A_FLOW_REJECT) &&
	      st.decided[AFW_STATS_FLOW][AFW_ACTION_QUEUE] == want64(AFW_STATS_A_FLOW_INSPECT));
	CHECK(failed, "rule actions land by action",
	      st.decided[AFW_STATS_RULE][AFW_ACTION_ACCEPT] == want64(AFW_STATS_A_RULE_ACCEPT) &&
	      st.decided[AFW_STATS_RULE][AFW_ACTION_DROP] == want64(AFW_STATS_A_RULE_DROP) &&
	      st.decided[AFW_STATS_RULE][AFW_ACTION_REJECT] == want64(AFW_STATS_A_RULE_REJECT) &&
	      st.decided[AFW_STATS_RULE][AFW_ACTION_QUEUE] == want64(AFW_STATS_A_RULE_QUEUE));
	unknown = st.decided[AFW_STATS_UNKNOWN];
	CHECK(failed, "unknown-policy decisions land by policy, reject stays zero",
	      unknown[AFW_ACTION_ACCEPT] == want64(AFW_STATS_A_UNKNOWN_ACCEPT) &&
	      unknown[AFW_ACTION_DROP] == want64(AFW_STATS_A_UNKNOWN_DROP) &&
	      unknown[AFW_ACTION_QUEUE] == want64(AFW_STATS_A_UNKNOWN_QUEUE) &&
	      unknown[AFW_ACTION_REJECT] == 0);
	CHECK(failed, "malformed and the ruleset generation keep their high bits",
	      st.malformed == want64(AFW_STATS_A_MALFORMED) &&
	      st.ruleset_gen == want64(AFW_STATS_A_RULESET_GEN));
	CHECK(failed, "table sizes and their bounds are read",
	      st.rules == 100 + AFW_STATS_A_RULES && st.max_rules == 100 + AFW_STATS_A_MAX_RULES &&
	      st.masks == 100 + AFW_STATS_A_MASKS && st.max_masks == 100 + AFW_STATS_A_MAX_MASKS &&
	      st.flows == 100 + AFW_STATS_A_FLOWS && st.max_flows == 100 + AFW_STATS_A_MAX_FLOWS);
	CHECK(failed, "flow table events are read",
	      st.flows_inserted == want64(AFW_STATS_A_FLOWS_INSERTED) &&
	      st.flows_expired == want64(AFW_STATS_A_FLOWS_EXPIRED) &&
	      st.flows_closed == want64(AFW_STATS_A_FLOWS_CLOSED) &&
	      st.flows_evicted == want64(AFW_STATS_A_FLOWS_EVICTED) &&
	      st.flows_refused == want64(AFW_STATS_A_FLOWS_REFUSED));
	CHECK(failed, "exempt packets, restarted flows and rules' flows are read",
	      st.exempt == want64(AFW_STATS_A_EXEMPT) &&
	      st.flows_restarted == want64(AFW_STATS_A_FLOWS_RESTARTED) &&
	      st.flows_rule == want64(AFW_STATS_A_FLOWS_RULE));
	CHECK(failed, "packets queued where no analyzer serves are read, by fail mode",
	      st.unserved_drop == want64(AFW_STATS_A_UNSERVED_DROP) &&
	      st.unserved_pass == want64(AFW_STATS_A_UNSERVED_PASS));
	CHECK(failed, "flow owners are read",
	      st.owners == 100 + AFW_STATS_A_OWNERS &&
	      st.owners_noted == want64(AFW_STATS_A_OWNERS_NOTED) &&
	      st.owners_lost == want64(AFW_STATS_A_OWNERS_LOST));
	CHECK(failed, "afwd's learned decisions are read",
	      st.learned == 100 + AFW_STATS_A_LEARNED &&
	      st.learned_flows == want64(AFW_STATS_A_LEARNED_FLOWS) &&
	      st.learned_untold == want64(AFW_STATS_A_LEARNED_UNTOLD) &&
	      st.learned_full == want64(AFW_STATS_A_LEARNED_FULL));
	CHECK(failed, "source names",
	      !strcmp(afw_stats_source_name(AFW_STATS_FLOW), "flow") &&
	      !strcmp(afw_stats_source_name(AFW_STATS_RULE), "rule") &&
	      !strcmp(afw_stats_source_name(AFW_STATS_UNKNOWN), "unknown"));

	msg_start(&m, AFW_CMD_STATS_GET);
	mnl_attr_put_u32(m.nlh, AFW_A_MAX + 1, 99);
	put_stats(&m, S_EXTRA, 0);
	CHECK(failed, "attributes from a newer module are skipped",
	      afw_stats_parse(m.nlh, &st) == MNL_CB_OK &&
	      st.flows_refused == want64(AFW_STATS_A_FLOWS_REFUSED));

	msg_start(&m, AFW_CMD_STATS_GET);
	errno = 0;
	CHECK(failed, "a reply without the stats nest is refused",
	      afw_stats_parse(m.nlh, &st) == MNL_CB_ERROR && errno == EBADMSG);

	msg_start(&m, AFW_CMD_STATS_GET);
	put_stats(&m, S_SKIP, AFW_STATS_A_RULE_DROP);
	errno = 0;
	CHECK(failed, "a reply missing a counter is refused, not shown as zero",
	      afw_stats_parse(m.nlh, &st) == MNL_CB_ERROR && errno == EBADMSG);

	msg_start(&m, AFW_CMD_STATS_GET);
	put_stats(&m, S_SKIP, AFW_STATS_A_EXEMPT);
	CHECK(failed, "a reply without the exempt count is refused",
	      afw_stats_parse(m.nlh, &st) == MNL_CB_ERROR);

	msg_start(&m, AFW_CMD_STATS_GET);
	put_stats(&m, S_SKIP, AFW_STATS_A_UNSERVED_DROP);
	CHECK(failed, "a reply without the unserved drops is refused",
	      afw_stats_parse(m.nlh, &st) == MNL_CB_ERROR);

	msg_start(&m, AFW_CMD_STATS_GET);
	put_stats(&m, S_SKIP, AFW_STATS_A_MAX_FLOWS);
	CHECK(failed, "a reply missing a table bound is refused",
	      afw_stats_parse(m.nlh, &st) == MNL_CB_ERROR);

	msg_start(&m, AFW_CMD_STATS_GET);
	put_stats(&m, S_SKIP, AFW_STATS_A_OWNERS_LOST);
	CHECK(failed, "a module older than the owners' counters is read, those left zero",
	      afw_stats_parse(m.nlh, &st) == MNL_CB_OK && st.owners_lost == 0 &&
	      st.owners_noted == want64(AFW_STATS_A_OWNERS_NOTED));

	msg_start(&m, AFW_CMD_STATS_GET);
	put_stats(&m, S_SKIP, AFW_STATS_A_LEARNED_FULL);
	CHECK(failed, "a module without a learned counter is read, that one left zero",
	      afw_stats_parse(m.nlh, &st) == MNL_CB_OK && st.learned_full == 0 &&
	      st.learned_flows == want64(AFW_STATS_A_LEARNED_FLOWS));

	msg_start(&m, AFW_CMD_STATS_GET);
	put_stats(&m, S_SHORT, AFW_STATS_A_LEARNED);
	CHECK(failed, "a learned count of the wrong size is refused",
	      afw_stats_parse(m.nlh, &st) == MNL_CB_ERROR);

	msg_start(&m, AFW_CMD_STATS_GET);
	put_stats(&m, S_SHORT, AFW_STATS_A_OWNERS_NOTED);
	CHECK(failed, "an owners' counter of the wrong size is refused",
	      afw_stats_parse(m.nlh, &st) == MNL_CB_ERROR);

	msg_start(&m, AFW_CMD_STATS_GET);
	put_stats(&m, S_SHORT, AFW_STATS_A_UNKNOWN_DROP);
	CHECK(failed, "a 2-byte value where 8 are due is refused",
	      afw_stats_parse(m.nlh, &st) == MNL_CB_ERROR);

	msg_start(&m, AFW_CMD_STATS_GET);
	put_stats(&m, S_SHORT, AFW_STATS_A_FLOWS);
	CHECK(failed, "a 2-byte value where 4 are due is refused",
	      afw_stats_parse(m.nlh, &st) == MNL_CB_ERROR);

	msg_start(&m, AFW_CMD_STATS_GET);
	mnl_attr_put_u32(m.nlh, AFW_A_STATS, 5);
	CHECK(failed, "stats that are not a nest are refused",
	      afw_stats_parse(m.nlh, &st) == MNL_CB_ERROR);

	msg_start(&m, AFW_CMD_STATS_GET);
	put_stats(&m, S_OK, 0);
	/* The last counter claims 8 bytes more than the message holds. */
	m.nlh->nlmsg_len -= 8;
	errno = 0;
	CHECK(failed, "a reply cut short inside the nest is refused",
	      afw_stats_parse(m.nlh, &st) == MNL_CB_ERROR && errno == EBADMSG);

	msg_start(&m, AFW_CMD_STATS_GET);
	m.nlh->nlmsg_len = MNL_NLMSG_HDRLEN + 2;
	errno = 0;
	CHECK(failed, "a reply shorter than the genl header is refused",
	      afw_stats_parse(m.nlh, &st) == MNL_CB_ERROR && errno == EBADMSG);

	return failed;
}
