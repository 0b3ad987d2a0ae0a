// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU counters of one network namespace: packets and bytes per hook,
 * and what decided each packet.
 */

#include "stats.h"

struct afw_pcpu_stats __percpu *afw_stats_alloc(void)
{
	struct afw_pcpu_stats __percpu *stats;
	int cpu;

	stats = alloc_percpu_gfp(struct afw_pcpu_stats, GFP_KERNEL_ACCOUNT);
	if (!stats)
		return NULL;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(stats, cpu)->syncp);
	return stats;
}

void afw_stats_free(struct afw_pcpu_stats __percpu *stats)
{
	free_percpu(stats);
}

/* One CPU's counters, consistent with each other even on 32-bit kernels. */
static void afw_stats_read_cpu(const struct afw_pcpu_stats *s, struct afw_counts *c)
{
	unsigned int start, i, j;

	do {
		start = u64_stats_fetch_begin(&s->syncp);
		for (i = 0; i < AFW_STATS_NFAMILIES; i++) {
			for (j = 0; j <= AFW_DIR_MAX; j++) {
				c->hook[i][j].packets = u64_stats_read(&s->hook[i][j].packets);
				c->hook[i][j].bytes = u64_stats_read(&s->hook[i][j].bytes);
			}
		}
		for (i = 0; i < AFW_STATS_NSOURCES; i++)
			for (j = 0; j <= AFW_ACTION_MAX; j++)
				c->decided[i][j] = u64_stats_read(&s->decided[i][j]);
		c->malformed = u64_stats_read(&s->malformed);
		c->exempt = u64_stats_read(&s->exempt);
		c->unserved[0] = u64_stats_read(&s->unserved[0]);
		c->unserved[1] = u64_stats_read(&s->unserved[1]);
	} while (u64_stats_fetch_retry(&s->syncp, start));
}

void afw_stats_fold(struct afw_pcpu_stats __percpu *stats, struct afw_counts *sum)
{
	struct afw_counts one;
	unsigned int i, j;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		afw_stats_read_cpu(per_cpu_ptr(stats, cpu), &one);
		for (i = 0; i < AFW_STATS_NFAMILIES; i++) {
			for (j = 0; j <= AFW_DIR_MAX; j++) {
				sum->hook[i][j].packets += one.hook[i][j].packets;
				sum->hook[i][j].bytes += one.hook[i][j].bytes;
			}
		}
		for (i = 0; i < AFW_STATS_NSOURCES; i++)
			for (j = 0; j <= AFW_ACTION_MAX; j++)
				sum->decided[i][j] += one.decided[i][j];
		sum->malformed += one.malformed;
		sum->exempt += one.exempt;
		sum->unserved[0] += one.unserved[0];
		sum->unserved[1] += one.unserved[1];
	}
	/* Derived rather than counted: one write per packet decision is enough. */
	for (i = 0; i < AFW_STATS_NSOURCES; i++) {
		sum->dropped += sum->decided[i][AFW_ACTION_DROP];
		sum->dropped += sum->decided[i][AFW_ACTION_REJECT];
		sum->queued += sum->decided[i][AFW_ACTION_QUEUE];
	}
}

/* a -= b, for reporting counters relative to the last reset. */
void afw_counts_sub(struct afw_counts *a, const struct afw_counts *b)
{
	unsigned int f, d;

	for (f = 0; f < AFW_STATS_NFAMILIES; f++) {
		for (d = 0; d <= AFW_DIR_MAX; d++) {
			a->hook[f][d].packets -= b->hook[f][d].packets;
			a->hook[f][d].bytes -= b->hook[f][d].bytes;
		}
	}
	for (f = 0; f < AFW_STATS_NSOURCES; f++)
		for (d = 0; d <= AFW_ACTION_MAX; d++)
			a->decided[f][d] -= b->decided[f][d];
	a->malformed -= b->malformed;
	a->exempt -= b->exempt;
	a->unserved[0] -= b->unserved[0];
	a->unserved[1] -= b->unserved[1];
	a->dropped -= b->dropped;
	a->queued -= b->queued;
}
