// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU packet and byte counters of the hooks of one network namespace.
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

void afw_stats_fold(struct afw_pcpu_stats __percpu *stats, struct afw_counts *sum)
{
	struct afw_hook_count one[AFW_STATS_NFAMILIES][AFW_DIR_MAX + 1];
	const struct afw_pcpu_stats *s;
	unsigned int start, f, d;
	u64 malformed, dropped, queued;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(stats, cpu);
		do {
			start = u64_stats_fetch_begin(&s->syncp);
			for (f = 0; f < AFW_STATS_NFAMILIES; f++) {
				for (d = 0; d <= AFW_DIR_MAX; d++) {
					one[f][d].packets = u64_stats_read(&s->hook[f][d].packets);
					one[f][d].bytes = u64_stats_read(&s->hook[f][d].bytes);
				}
			}
			malformed = u64_stats_read(&s->malformed);
			dropped = u64_stats_read(&s->dropped);
			queued = u64_stats_read(&s->queued);
		} while (u64_stats_fetch_retry(&s->syncp, start));
		sum->queued += queued;
		sum->malformed += malformed;
		sum->dropped += dropped;

		for (f = 0; f < AFW_STATS_NFAMILIES; f++) {
			for (d = 0; d <= AFW_DIR_MAX; d++) {
				sum->hook[f][d].packets += one[f][d].packets;
				sum->hook[f][d].bytes += one[f][d].bytes;
			}
		}
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
	a->malformed -= b->malformed;
	a->dropped -= b->dropped;
	a->queued -= b->queued;
}
