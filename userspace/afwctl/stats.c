// SPDX-License-Identifier: GPL-2.0
/*
 * afwctl stats: what decided the packets, and how full the tables are.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include <linux/afw.h>

#include "afwctl.h"
#include "flow.h"
#include "rule.h"
#include "stats.h"

/* A flow's queue is its inspect verdict; the other sources speak of actions. */
static const char *afwctl_stats_action(unsigned int src, unsigned int a)
{
	return src == AFW_STATS_FLOW ? afw_verdict_name(a) : afw_action_name(a);
}

/* The unknown-flow policy cannot reject: that cell is not a counter. */
static bool afwctl_stats_cell(unsigned int src, unsigned int a)
{
	return !(src == AFW_STATS_UNKNOWN && a == AFW_ACTION_REJECT);
}

static void afwctl_stats_json(const struct afw_stats *st)
{
	unsigned int src, a;
	const char *sep;

	printf("{\"decided\":{");
	for (src = 0; src < AFW_STATS_NSOURCES; src++) {
		printf("%s\"%s\":{", src ? "," : "", afw_stats_source_name(src));
		sep = "";
		for (a = 0; a <= AFW_ACTION_MAX; a++) {
			if (!afwctl_stats_cell(src, a))
				continue;
			printf("%s\"%s\":%" PRIu64, sep, afwctl_stats_action(src, a),
			       st->decided[src][a]);
			sep = ",";
		}
		printf("}");
	}
	printf("},\"malformed\":%" PRIu64 ",\"exempt\":%" PRIu64 ",\"rules\":%" PRIu32
	       ",\"max_rules\":%" PRIu32 ",\"masks\":%" PRIu32 ",\"max_masks\":%" PRIu32
	       ",\"ruleset_gen\":%" PRIu64 ",\"flows\":%" PRIu32 ",\"max_flows\":%" PRIu32,
	       st->malformed, st->exempt, st->rules, st->max_rules, st->masks, st->max_masks,
	       st->ruleset_gen, st->flows, st->max_flows);
	printf(",\"unserved\":{\"dropped\":%" PRIu64 ",\"passed\":%" PRIu64 "}",
	       st->unserved_drop, st->unserved_pass);
	printf(",\"owners\":{\"recorded\":%" PRIu32 ",\"noted\":%" PRIu64 ",\"lost\":%" PRIu64 "}",
	       st->owners, st->owners_noted, st->owners_lost);
	printf(",\"learned\":{\"kept\":%" PRIu32 ",\"flows\":%" PRIu64 ",\"untold\":%" PRIu64
	       ",\"full\":%" PRIu64 "}",
	       st->learned, st->learned_flows, st->learned_untold, st->learned_full);
	printf(",\"handshakes\":{\"told\":%" PRIu64 ",\"queued\":%" PRIu64 "}",
	       st->handshakes_told, st->handshakes_queued);
	printf(",\"flow_events\":{\"inserted\":%" PRIu64 ",\"by_rule\":%" PRIu64
	       ",\"expired\":%" PRIu64 ",\"closed\":%" PRIu64 ",\"restarted\":%" PRIu64
	       ",\"evicted\":%" PRIu64 ",\"refused\":%" PRIu64 ",\"confirmed\":%" PRIu64 "}}\n",
	       st->flows_inserted, st->flows_rule, st->flows_expired, st->flows_closed,
	       st->flows_restarted, st->flows_evicted, st->flows_refused, st->flows_confirmed);
}

static void afwctl_stats_table(const struct afw_stats *st)
{
	unsigned int src, a;

	printf("%-10s %14s %14s %14s %14s\n", "decided by", "accept", "drop", "reject",
	       "queue/inspect");
	for (src = 0; src < AFW_STATS_NSOURCES; src++) {
		printf("%-10s", afw_stats_source_name(src));
		for (a = 0; a <= AFW_ACTION_MAX; a++) {
			if (afwctl_stats_cell(src, a))
				printf(" %14" PRIu64, st->decided[src][a]);
			else
				printf(" %14s", "-");
		}
		printf("\n");
	}
	printf("%-10s %14" PRIu64 "\n", "malformed", st->malformed);
	printf("%-10s %14" PRIu64 "\n", "exempt", st->exempt);
	/* Of queue/inspect: where NFQUEUE had nobody to give them to. */
	printf("%-10s %14" PRIu64 " %14" PRIu64 "   (queued where no analyzer serves: "
	       "passed failing open, dropped failing closed)\n\n", "unserved",
	       st->unserved_pass, st->unserved_drop);
	printf("rules        %" PRIu32 " of %" PRIu32 "\n", st->rules, st->max_rules);
	printf("masks        %" PRIu32 " of %" PRIu32 "\n", st->masks, st->max_masks);
	printf("ruleset gen  %" PRIu64 "\n", st->ruleset_gen);
	printf("flows        %" PRIu32 " of %" PRIu32 "\n", st->flows, st->max_flows);
	printf("flow events  inserted %" PRIu64 ", expired %" PRIu64 ", closed %" PRIu64
	       ", evicted %" PRIu64 ", refused %" PRIu64 "\n",
	       st->flows_inserted, st->flows_expired, st->flows_closed, st->flows_evicted,
	       st->flows_refused);
	printf("             from rules %" PRIu64 ", restarted %" PRIu64
	       ", confirmed by the server %" PRIu64 "\n", st->flows_rule, st->flows_restarted,
	       st->flows_confirmed);
	printf("owners       %" PRIu32 " recorded; noted %" PRIu64 ", lost %" PRIu64 "\n",
	       st->owners, st->owners_noted, st->owners_lost);
	printf("learned      %" PRIu32 " of %u afwd decisions kept; flows %" PRIu64
	       ", untold %" PRIu64 ", not kept (full) %" PRIu64 "\n",
	       st->learned, AFW_LEARN_MAX, st->learned_flows, st->learned_untold, st->learned_full);
	printf("handshakes   told to afwd and passed %" PRIu64 ", queued (no room to tell) %"
	       PRIu64 "\n", st->handshakes_told, st->handshakes_queued);
}

int afwctl_stats_parse(struct afwctl_req *rq, int argc, char **argv)
{
	(void)rq;
	if (argc)
		return afwctl_usage_err("stats: unexpected argument '%s'", argv[0]);
	return 0;
}

int afwctl_stats_run(struct afw_nl *nl, struct afwctl_req *rq)
{
	struct afw_stats st;
	int ret;

	ret = afw_stats_get(nl, &st);
	if (ret == -EOPNOTSUPP) {
		fprintf(stderr, "afwctl: stats: the loaded afw module is older than this afwctl "
			"and cannot report statistics; 'afwctl status' still works\n");
		return 1;
	}
	if (ret)
		return afwctl_fail("stats", ret, nl);
	if (rq->json)
		afwctl_stats_json(&st);
	else
		afwctl_stats_table(&st);
	return 0;
}
