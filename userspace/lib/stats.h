/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AFW_CMD_STATS_GET: request and reply decoding.
 */
#ifndef AFW_STATS_H
#define AFW_STATS_H

#include <stdint.h>

#include <libmnl/libmnl.h>

#include <linux/afw.h>

#include "afwnl.h"

/* What decided packets: indexes of afw_stats.decided. */
enum afw_stats_source {
	AFW_STATS_FLOW,
	AFW_STATS_RULE,
	AFW_STATS_UNKNOWN,
	AFW_STATS_NSOURCES
};

struct afw_stats {
	/*
	 * Packets by source and AFW_ACTION_* (a flow's inspect is queue).
	 * The unknown-flow policy never rejects: that slot stays zero.
	 */
	uint64_t decided[AFW_STATS_NSOURCES][AFW_ACTION_MAX + 1];
	uint64_t malformed;
	/* Passed without a decision: afw's own resets, ND and MLD that no rule took. */
	uint64_t exempt;
	uint32_t rules, max_rules;
	uint32_t masks, max_masks;
	uint64_t ruleset_gen;
	uint32_t flows, max_flows;
	uint64_t flows_inserted, flows_expired, flows_closed, flows_evicted, flows_refused;
	uint64_t flows_restarted;	/* ended by a new TCP connection on their 5-tuple */
	uint64_t flows_rule;		/* of flows_inserted, those accept rules installed */
	uint64_t flows_confirmed;	/* installed unconfirmed, then confirmed */
	/* Of the queued, sent where no analyzer serves: failing closed, open. */
	uint64_t unserved_drop, unserved_pass;
	/* Flow owners recorded now, ever, and not recorded (table full, no memory). */
	uint32_t owners;
	uint64_t owners_noted, owners_lost;
	/*
	 * afwd's decisions the module keeps now; the flows they decided, those
	 * afwd was not told of, and decisions not kept for want of room.
	 */
	uint32_t learned;
	uint64_t learned_flows, learned_untold, learned_full;
	/* Bare handshakes told to afwd and passed; queued as the tell failed. */
	uint64_t handshakes_told, handshakes_queued;
};

/*
 * Decodes one STATS_GET reply. Every attribute's type and length is
 * checked, and every attribute this program shows must be present: a
 * missing one would read as a zero that was never counted. Returns
 * MNL_CB_OK, or MNL_CB_ERROR with errno set.
 */
int afw_stats_parse(const struct nlmsghdr *nlh, struct afw_stats *st);

/* Queries the module. Returns 0 or a negative errno. */
int afw_stats_get(struct afw_nl *nl, struct afw_stats *st);

const char *afw_stats_source_name(unsigned int src);

#endif /* AFW_STATS_H */
