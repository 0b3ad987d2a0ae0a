/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AFW_CMD_STATUS_GET: request and reply decoding.
 */
#ifndef AFW_STATUS_H
#define AFW_STATUS_H

#include <stdbool.h>
#include <stdint.h>

#include <libmnl/libmnl.h>

#include "afwnl.h"

/* IPv4 and IPv6, each on in, out and forward. */
#define AFW_STATUS_MAX_HOOKS 6

struct afw_hook_stat {
	uint8_t family;		/* AFW_FAMILY_* */
	uint8_t direction;	/* AFW_DIR_* */
	uint64_t packets;
	uint64_t bytes;
};

struct afw_status {
	char module_version[64];
	uint64_t malformed;		/* packets dropped as malformed */
	uint64_t dropped;		/* packets dropped by rules */
	uint64_t queued;		/* packets handed to NFQUEUE */
	/*
	 * False until the namespace is first configured: afw has no hooks
	 * there yet, so it neither filters nor counts. A module that does
	 * not say is an older one, whose hooks are always there.
	 */
	bool active;
	/*
	 * Of @queued, what went to a queue no analyzer said it serves
	 * (AFW_CMD_QUEUE_SERVE): NFQUEUE dropped it (failing closed) or
	 * passed it unjudged (failing open). @has_unserved is false for an
	 * older module, which does not count them.
	 */
	bool has_unserved;
	uint64_t unserved_dropped;
	uint64_t unserved_passed;
	unsigned int nhooks;
	struct afw_hook_stat hooks[AFW_STATUS_MAX_HOOKS];
};

/*
 * Decodes one STATUS_GET reply. Every attribute's type and length is
 * checked; returns MNL_CB_OK, or MNL_CB_ERROR with errno set for a reply
 * this program cannot trust.
 */
int afw_status_parse(const struct nlmsghdr *nlh, struct afw_status *st);

/* Queries the module. Returns 0 or a negative errno. */
int afw_status_get(struct afw_nl *nl, struct afw_status *st);

/* Zeroes the counters (status and stats) of the caller's namespace. */
int afw_counters_reset(struct afw_nl *nl);

const char *afw_family_name(uint8_t family);
const char *afw_direction_name(uint8_t direction);

#endif /* AFW_STATUS_H */
