// SPDX-License-Identifier: GPL-2.0
/*
 * Rule objects: allocation, reference counting and counters.
 */

#include <linux/slab.h>

#include "rule.h"

struct afw_rule *afw_rule_alloc(void)
{
	struct afw_rule *rule;
	int cpu;

	rule = kzalloc(sizeof(*rule), GFP_KERNEL_ACCOUNT);
	if (!rule)
		return NULL;
	rule->stats = alloc_percpu_gfp(struct afw_rule_pcpu, GFP_KERNEL_ACCOUNT);
	if (!rule->stats) {
		kfree(rule);
		return NULL;
	}
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(rule->stats, cpu)->syncp);
	refcount_set(&rule->ref, 1);
	return rule;
}

/*
 * Only ruleset snapshots hold references, and a snapshot drops them after a
 * grace period, so no packet can still be counting on a rule freed here.
 */
void afw_rule_put(struct afw_rule *rule)
{
	if (!refcount_dec_and_test(&rule->ref))
		return;
	free_percpu(rule->stats);
	kfree(rule);
}

void afw_rule_read_stats(const struct afw_rule *rule, u64 *packets, u64 *bytes)
{
	const struct afw_rule_pcpu *s;
	unsigned int start;
	u64 p, b;
	int cpu;

	*packets = 0;
	*bytes = 0;
	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(rule->stats, cpu);
		do {
			start = u64_stats_fetch_begin(&s->syncp);
			p = u64_stats_read(&s->packets);
			b = u64_stats_read(&s->bytes);
		} while (u64_stats_fetch_retry(&s->syncp, start));
		*packets += p;
		*bytes += b;
	}
}
