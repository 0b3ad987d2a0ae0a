// SPDX-License-Identifier: GPL-2.0
/*
 * Rule counters, 256 rules to a block. Each block holds, for every possible
 * CPU, a 4 KiB array on that CPU's node: a rule's counters on a CPU are 16
 * bytes of that CPU's array, and nothing else. The per-CPU allocator would
 * cost more than the counters themselves: with memory accounting on (as
 * Debian's kernels have it) it keeps an 8-byte pointer for every 4 bytes of
 * every chunk, 32 bytes of bookkeeping for a rule's 16; and one allocation
 * per rule cost a call into its global mutex and chunk search each, most of
 * a million-rule load.
 *
 * Slots are reference counted, so that a ruleset replace can hand a rule's
 * counters to its successor of the same id while packets still count on
 * the old snapshot for a grace period. Everything here runs in process
 * context under afw_counters.lock; packets only touch their CPU's array.
 */

#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/topology.h>

#include "counters.h"

static struct {
	struct mutex lock;		/* guards the list, the blocks' refs and counts */
	struct list_head partial;
	unsigned long blocks;
} afw_counters = {
	.lock = __MUTEX_INITIALIZER(afw_counters.lock),
	.partial = LIST_HEAD_INIT(afw_counters.partial),
};

static void afw_counters_block_free(struct afw_counter_block *b)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		kvfree(b->cpu[cpu]);
	kfree(b);
}

static struct afw_counter_block *afw_counters_block_new(void)
{
	struct afw_counter_block *b;
	unsigned int cpu;

	b = kzalloc(struct_size(b, cpu, nr_cpu_ids), GFP_KERNEL_ACCOUNT);
	if (!b)
		return NULL;
	for_each_possible_cpu(cpu) {
		b->cpu[cpu] = kvzalloc_node(AFW_COUNTERS_PER_BLOCK * sizeof(struct afw_rule_pcpu),
					    GFP_KERNEL_ACCOUNT, cpu_to_node(cpu));
		if (!b->cpu[cpu]) {
			afw_counters_block_free(b);
			return NULL;
		}
	}
	list_add(&b->partial, &afw_counters.partial);
	afw_counters.blocks++;
	return b;
}

struct afw_counter_block *afw_counters_new(u16 *slot)
{
	struct afw_counter_block *b;
	unsigned int i, cpu;

	mutex_lock(&afw_counters.lock);
	b = list_first_entry_or_null(&afw_counters.partial, struct afw_counter_block, partial);
	if (!b)
		b = afw_counters_block_new();
	if (!b)
		goto out;
	for (i = b->hint; b->refs[i]; i = (i + 1) % AFW_COUNTERS_PER_BLOCK)
		;
	b->refs[i] = 1;
	b->hint = (i + 1) % AFW_COUNTERS_PER_BLOCK;
	if (++b->used == AFW_COUNTERS_PER_BLOCK)
		list_del(&b->partial);
	/* A slot that served another rule starts again from zero. */
	for_each_possible_cpu(cpu) {
		struct afw_rule_pcpu *p = &b->cpu[cpu][i];

		memset(p, 0, sizeof(*p));
		u64_stats_init(&p->syncp);
	}
	*slot = i;
out:
	mutex_unlock(&afw_counters.lock);
	return b;
}

bool afw_counters_share(struct afw_counter_block *b, u32 slot)
{
	bool shared;

	mutex_lock(&afw_counters.lock);
	/*
	 * A rule holds a reference, so the slot is live. Each snapshot that
	 * kept the rule holds one more until its grace period ends, which
	 * retired snapshots' bound (ruleset.c) keeps far below U16_MAX; at
	 * U16_MAX the new rule counts in a slot of its own, never a wrapped
	 * one.
	 */
	shared = b->refs[slot] < U16_MAX;
	if (shared)
		b->refs[slot]++;
	mutex_unlock(&afw_counters.lock);
	return shared;
}

void afw_counters_put(struct afw_counter_block *b, u32 slot)
{
	mutex_lock(&afw_counters.lock);
	if (--b->refs[slot])
		goto out;
	if (b->used-- == AFW_COUNTERS_PER_BLOCK)
		list_add(&b->partial, &afw_counters.partial);
	if (b->used)
		goto out;
	/* Nobody counts here any more: the last rule went after a grace period. */
	list_del(&b->partial);
	afw_counters.blocks--;
	afw_counters_block_free(b);
out:
	mutex_unlock(&afw_counters.lock);
}

/* Every rule, and so every slot, is gone by now. */
void afw_counters_exit(void)
{
	WARN_ON(afw_counters.blocks);
}
