/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_COUNTERS_H
#define _AFW_COUNTERS_H

#include <linux/list.h>
#include <linux/smp.h>
#include <linux/u64_stats_sync.h>

/* A rule's packet and byte counters on one CPU. */
struct afw_rule_pcpu {
	struct u64_stats_sync syncp;
	u64_stats_t packets;
	u64_stats_t bytes;
};

#define AFW_COUNTERS_PER_BLOCK 256	/* a slot fits the rule's u16 */

/*
 * The counters of 256 rules: for each possible CPU, an array of its own
 * (on that CPU's node), so that a CPU only ever writes its own lines.
 */
struct afw_counter_block {
	struct list_head partial;	/* on the pool's list while not full */
	u16 used;
	u16 hint;			/* where to look for a free slot first */
	u16 refs[AFW_COUNTERS_PER_BLOCK];	/* 0: the slot is free */
	struct afw_rule_pcpu *cpu[];	/* nr_cpu_ids arrays */
};

/*
 * Zeroed counters with one reference: a block and the slot in it (@slot).
 * Sleeps. NULL when out of memory.
 */
struct afw_counter_block *afw_counters_new(u16 *slot);
/*
 * Another holder of a slot's counters: a rule of the same id, say. False,
 * and no reference taken, when the slot has U16_MAX holders already.
 */
bool afw_counters_share(struct afw_counter_block *b, u32 slot);
/* Drops a reference; the last one frees the slot, and an empty block. Sleeps. */
void afw_counters_put(struct afw_counter_block *b, u32 slot);

/* This CPU's counters of @slot; the caller keeps the CPU (get_cpu()). */
static inline struct afw_rule_pcpu *afw_counters_on(struct afw_counter_block *b, u32 slot,
						    int cpu)
{
	return &b->cpu[cpu][slot];
}

void afw_counters_exit(void);

#endif /* _AFW_COUNTERS_H */
