// SPDX-License-Identifier: GPL-2.0
/*
 * afwctl status, afwctl reset-counters.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <linux/afw.h>

#include "afwctl.h"
#include "flow.h"
#include "nfqueue.h"
#include "status.h"

/*
 * Where unknown flows go, and who listens there. A queue with no listener
 * drops what it is given (fail closed) or passes it unjudged (fail open).
 * The module counts what it sends where no analyzer said it serves
 * (AFW_CMD_QUEUE_SERVE); status adds those drops to the dropped, and says
 * which queues have nobody.
 */
struct afwctl_queues {
	bool have_cfg, queueing;
	struct afw_config cfg;
	struct afw_nfqueue_stat bound[64];
	int nbound;			/* -errno when the listeners could not be read */
	unsigned int served, unserved;
	uint64_t dropped;		/* at served queues: full queue or full socket */
};

static void afwctl_queues_read(struct afw_nl *nl, struct afwctl_queues *q)
{
	const struct afw_nfqueue_stat *b;
	unsigned int i;
	FILE *f;

	q->have_cfg = !afw_config_get(nl, &q->cfg);
	q->queueing = q->have_cfg && q->cfg.unknown == AFW_UNKNOWN_QUEUE;
	if (!q->queueing)
		return;
	f = fopen(AFW_NFQUEUE_PROC, "re");
	if (f) {
		q->nbound = afw_nfqueue_read(f, q->bound, sizeof(q->bound) / sizeof(q->bound[0]));
		fclose(f);
	} else {
		/* Without nfnetlink_queue loaded, nothing has ever bound a queue. */
		q->nbound = errno == ENOENT ? 0 : -errno;
	}
	if (q->nbound < 0)
		return;
	for (i = 0; i < q->cfg.queue_count; i++) {
		b = afw_nfqueue_find(q->bound, (unsigned int)q->nbound,
				     (uint16_t)(q->cfg.queue_num + i));
		if (!b) {
			q->unserved++;
			continue;
		}
		q->served++;
		q->dropped += (uint64_t)b->dropped + b->user_dropped;
	}
}

/* "N", "N-M" or "N,M,..." of the queues in the range that are (not) served. */
static void afwctl_queues_list(FILE *out, const struct afwctl_queues *q, bool served)
{
	unsigned int i, n = 0;
	uint16_t num;
	bool b;

	for (i = 0; i < q->cfg.queue_count; i++) {
		num = (uint16_t)(q->cfg.queue_num + i);
		b = afw_nfqueue_find(q->bound, (unsigned int)q->nbound, num);
		if (b != served)
			continue;
		fprintf(out, "%s%u", n++ ? "," : "", num);
	}
}

static int afwctl_no_args(const char *cmd, int argc, char **argv)
{
	if (argc == 0)
		return 0;
	return afwctl_usage_err("%s: unexpected argument '%s'", cmd, argv[0]);
}

int afwctl_status_parse(struct afwctl_req *rq, int argc, char **argv)
{
	(void)rq;
	return afwctl_no_args("status", argc, argv);
}

int afwctl_reset_counters_parse(struct afwctl_req *rq, int argc, char **argv)
{
	(void)rq;
	return afwctl_no_args("reset-counters", argc, argv);
}

static void afwctl_queues_json(const struct afwctl_queues *q)
{
	const struct afw_nfqueue_stat *b;
	unsigned int i;

	if (!q->queueing || q->nbound < 0)
		return;
	printf(",\"fail\":\"%s\",\"queues\":[", q->cfg.fail_open ? "open" : "closed");
	for (i = 0; i < q->cfg.queue_count; i++) {
		b = afw_nfqueue_find(q->bound, (unsigned int)q->nbound,
				     (uint16_t)(q->cfg.queue_num + i));
		printf("%s{\"queue\":%u,\"listener\":%s", i ? "," : "",
		       q->cfg.queue_num + i, b ? "true" : "false");
		if (b)
			printf(",\"waiting\":%" PRIu32 ",\"dropped\":%" PRIu32
			       ",\"user_dropped\":%" PRIu32, b->waiting, b->dropped,
			       b->user_dropped);
		putchar('}');
	}
	printf("],\"unserved_queues\":%u,\"queue_dropped\":%" PRIu64, q->unserved, q->dropped);
}

static void afwctl_status_json(const struct afw_nl *nl, const struct afw_status *st,
			       const struct afwctl_queues *q)
{
	unsigned int i;

	printf("{\"module_version\":");
	afwctl_json_str(stdout, st->module_version);
	printf(",\"protocol\":%u,\"active\":%s,\"dropped\":%" PRIu64 ",\"queued\":%" PRIu64
	       ",\"malformed\":%" PRIu64, nl->version, st->active ? "true" : "false",
	       st->dropped + st->unserved_dropped, st->queued, st->malformed);
	printf(",\"dropped_by_rules\":%" PRIu64, st->dropped);
	/* null from a module that does not count them, as unknown, not zero. */
	if (st->has_unserved)
		printf(",\"unserved_dropped\":%" PRIu64 ",\"unserved_passed\":%" PRIu64,
		       st->unserved_dropped, st->unserved_passed);
	else
		printf(",\"unserved_dropped\":null,\"unserved_passed\":null");
	if (q->have_cfg)
		printf(",\"enabled\":%s", q->cfg.enabled ? "true" : "false");
	afwctl_queues_json(q);
	printf(",\"counters\":[");
	for (i = 0; i < st->nhooks; i++) {
		const struct afw_hook_stat *h = &st->hooks[i];

		printf("%s{\"family\":\"%s\",\"direction\":\"%s\","
		       "\"packets\":%" PRIu64 ",\"bytes\":%" PRIu64 "}",
		       i ? "," : "", afw_family_name(h->family),
		       afw_direction_name(h->direction), h->packets, h->bytes);
	}
	printf("]}\n");
}

static void afwctl_queues_table(const struct afwctl_queues *q)
{
	unsigned int last = q->cfg.queue_num + q->cfg.queue_count - 1;

	if (!q->queueing)
		return;
	printf("unknown flows: queue %u", q->cfg.queue_num);
	if (q->cfg.queue_count > 1)
		printf("-%u", last);
	printf(", fail %s", q->cfg.fail_open ? "open" : "closed");
	if (q->nbound < 0) {
		printf("; listeners unknown (%s: %s)\n", AFW_NFQUEUE_PROC, strerror(-q->nbound));
		return;
	}
	if (q->served) {
		printf("; listening: ");
		afwctl_queues_list(stdout, q, true);
		printf(" (dropped there, queue or listener full: %" PRIu64 ")", q->dropped);
	}
	putchar('\n');
	if (!q->unserved)
		return;
	fprintf(stderr, "afwctl: warning: no listener on queue ");
	afwctl_queues_list(stderr, q, false);
	fprintf(stderr, ": the packets of unknown flows sent there are %s; start afwd with "
		"-q %u", q->cfg.fail_open ? "passed unjudged (fail open)" : "dropped (fail closed)",
		q->cfg.queue_num);
	if (q->cfg.queue_count > 1)
		fprintf(stderr, "-%u", last);
	fprintf(stderr, "\n");
}

static void afwctl_status_table(const struct afw_nl *nl, const struct afw_status *st,
				const struct afwctl_queues *q)
{
	unsigned int i;

	printf("afw module %s, protocol %u\n", st->module_version, nl->version);
	/* Zero counters would otherwise read as a firewall that saw no traffic. */
	if (!st->active)
		printf("NOT ACTIVE: nothing is configured in this namespace yet, so afw is not "
		       "filtering or counting here (the first rule, flow, load or config set turns "
		       "it on)\n");
	if (q->have_cfg && !q->cfg.enabled)
		printf("DISABLED: every packet passes, uncounted ('afwctl enable' turns afw on)\n");
	printf("dropped: %" PRIu64, st->dropped + st->unserved_dropped);
	if (st->unserved_dropped)
		printf(" (%" PRIu64 " by verdicts, %" PRIu64 " queued where no analyzer "
		       "serves, failing closed)", st->dropped, st->unserved_dropped);
	printf(", queued: %" PRIu64 ", malformed: %" PRIu64 "\n", st->queued, st->malformed);
	if (st->unserved_passed)
		printf("passed unjudged: %" PRIu64 " (queued where no analyzer serves, failing "
		       "open)\n", st->unserved_passed);
	afwctl_queues_table(q);
	putchar('\n');
	printf("%-6s %-9s %15s %18s\n", "family", "direction", "packets", "bytes");
	for (i = 0; i < st->nhooks; i++) {
		const struct afw_hook_stat *h = &st->hooks[i];

		printf("%-6s %-9s %15" PRIu64 " %18" PRIu64 "\n",
		       afw_family_name(h->family), afw_direction_name(h->direction),
		       h->packets, h->bytes);
	}
}

int afwctl_status_run(struct afw_nl *nl, struct afwctl_req *rq)
{
	struct afwctl_queues q = { 0 };
	struct afw_status st;
	int ret;

	ret = afw_status_get(nl, &st);
	if (ret)
		return afwctl_fail("status", ret, nl);
	afwctl_queues_read(nl, &q);
	if (rq->json)
		afwctl_status_json(nl, &st, &q);
	else
		afwctl_status_table(nl, &st, &q);
	return 0;
}

int afwctl_reset_counters_run(struct afw_nl *nl, struct afwctl_req *rq)
{
	int ret;

	(void)rq;
	ret = afw_counters_reset(nl);
	if (ret)
		return afwctl_fail("reset-counters", ret, nl);
	return 0;
}
