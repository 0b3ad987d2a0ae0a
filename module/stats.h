/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_STATS_H
#define _AFW_STATS_H

#include <linux/percpu.h>
#include <linux/u64_stats_sync.h>
#include <uapi/linux/afw.h>

/* Index of an address family in the counter arrays: IPv4 first, IPv6 second. */
enum afw_stats_family {
	AFW_STATS_IPV4,
	AFW_STATS_IPV6,
	AFW_STATS_NFAMILIES
};

struct afw_hook_count {
	u64 packets;
	u64 bytes;
};

/* What decided a packet's verdict, in the order the hook asks. */
enum afw_stats_source {
	AFW_STATS_FLOW,		/* the flow verdict cache */
	AFW_STATS_RULE,		/* the best matching rule */
	AFW_STATS_UNKNOWN,	/* the unknown-flow policy */
	AFW_STATS_NSOURCES
};

struct afw_counts {
	struct afw_hook_count hook[AFW_STATS_NFAMILIES][AFW_DIR_MAX + 1];
	/* Packets by source and AFW_ACTION_* (a flow's inspect is queue). */
	u64 decided[AFW_STATS_NSOURCES][AFW_ACTION_MAX + 1];
	u64 malformed;
	u64 exempt;		/* passed undecided: own resets, ND and MLD */
	u64 unserved[2];	/* queued where nobody serves, by fail_open */
	u64 dropped;		/* by a drop or reject verdict, from decided[] */
	u64 queued;		/* handed to NFQUEUE, from decided[] */
};

/*
 * Per-CPU so that the packet path never writes a cache line that another CPU
 * also writes; readers fold all CPUs together.
 */
struct afw_pcpu_stats {
	struct u64_stats_sync syncp;
	struct {
		u64_stats_t packets;
		u64_stats_t bytes;
	} hook[AFW_STATS_NFAMILIES][AFW_DIR_MAX + 1];
	u64_stats_t decided[AFW_STATS_NSOURCES][AFW_ACTION_MAX + 1];
	u64_stats_t malformed;
	u64_stats_t exempt;
	u64_stats_t unserved[2];
};

struct afw_pcpu_stats __percpu *afw_stats_alloc(void);
void afw_stats_free(struct afw_pcpu_stats __percpu *stats);
void afw_stats_fold(struct afw_pcpu_stats __percpu *stats, struct afw_counts *sum);
void afw_counts_sub(struct afw_counts *a, const struct afw_counts *b);

/*
 * Bumps one of this CPU's counters: @fn picks it from the CPU's copy.
 * LOCAL_OUT runs in process context with preemption enabled, so the CPU is
 * pinned; the irqsave variant keeps 32-bit writers consistent when a
 * softirq on the same CPU counts an incoming packet meanwhile.
 */
static inline void afw_stats_bump(struct afw_pcpu_stats __percpu *stats,
				  u64_stats_t *(*fn)(struct afw_pcpu_stats *s, unsigned int a,
						     unsigned int b),
				  unsigned int a, unsigned int b)
{
	struct afw_pcpu_stats *s = get_cpu_ptr(stats);
	unsigned long flags = u64_stats_update_begin_irqsave(&s->syncp);

	u64_stats_inc(fn(s, a, b));
	u64_stats_update_end_irqrestore(&s->syncp, flags);
	put_cpu_ptr(stats);
}

static inline u64_stats_t *afw_stats_malformed_of(struct afw_pcpu_stats *s, unsigned int a,
						  unsigned int b)
{
	return &s->malformed;
}

static inline u64_stats_t *afw_stats_exempt_of(struct afw_pcpu_stats *s, unsigned int a,
					       unsigned int b)
{
	return &s->exempt;
}

static inline u64_stats_t *afw_stats_unserved_of(struct afw_pcpu_stats *s,
						 unsigned int fail_open, unsigned int b)
{
	return &s->unserved[fail_open];
}

static inline u64_stats_t *afw_stats_decided_of(struct afw_pcpu_stats *s, unsigned int src,
						unsigned int action)
{
	return &s->decided[src][action];
}

static inline void afw_stats_malformed(struct afw_pcpu_stats __percpu *stats)
{
	afw_stats_bump(stats, afw_stats_malformed_of, 0, 0);
}

/* A packet passed without a decision: afw's own reset, ND or MLD. */
static inline void afw_stats_exempt(struct afw_pcpu_stats __percpu *stats)
{
	afw_stats_bump(stats, afw_stats_exempt_of, 0, 0);
}

/* A packet queued where no analyzer said it serves, failing open or not. */
static inline void afw_stats_unserved(struct afw_pcpu_stats __percpu *stats, bool fail_open)
{
	afw_stats_bump(stats, afw_stats_unserved_of, fail_open, 0);
}

/* Notes that @src gave a packet @action (AFW_ACTION_*). */
static inline void afw_stats_decided(struct afw_pcpu_stats __percpu *stats,
				     enum afw_stats_source src, u8 action)
{
	afw_stats_bump(stats, afw_stats_decided_of, src, action);
}

/*
 * Counts a packet at a hook. @idle says that nothing is configured, so the
 * unknown-flow policy accepts it without further work: that decision is
 * counted in the same update, keeping the idle path to one.
 */
static inline void afw_stats_count(struct afw_pcpu_stats __percpu *stats,
				   enum afw_stats_family fam,
				   enum afw_direction dir, unsigned int len, bool idle)
{
	struct afw_pcpu_stats *s;
	unsigned long flags;

	/*
	 * LOCAL_OUT runs in process context with preemption enabled, so pin
	 * the CPU; the irqsave variant keeps 32-bit writers consistent when a
	 * softirq on the same CPU counts an incoming packet meanwhile.
	 */
	s = get_cpu_ptr(stats);
	flags = u64_stats_update_begin_irqsave(&s->syncp);
	u64_stats_inc(&s->hook[fam][dir].packets);
	u64_stats_add(&s->hook[fam][dir].bytes, len);
	if (idle)
		u64_stats_inc(&s->decided[AFW_STATS_UNKNOWN][AFW_ACTION_ACCEPT]);
	u64_stats_update_end_irqrestore(&s->syncp, flags);
	put_cpu_ptr(stats);
}

#endif /* _AFW_STATS_H */
