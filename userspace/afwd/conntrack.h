/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Without the module, a decided flow's verdict lives in its conntrack
 * mark (docs/afwd.md). When a reload changes a recorded flow's verdict,
 * afwd rewrites that mark (ctnetlink), so the firewall's chain acts on the
 * new verdict from the flow's next packet.
 */
#ifndef AFW_CONNTRACK_H
#define AFW_CONNTRACK_H

#include <stdint.h>

#include "flow.h"

/* Updates sent per batch. */
#define AFW_CT_BATCH 32

struct afw_ct_stats {
	uint64_t updated;		/* conntrack entries whose mark was rewritten */
	uint64_t missing;		/* flows conntrack no longer has */
	uint64_t syscalls;
};

struct afw_ct;

/* The ctnetlink socket; NULL with a message in @err. */
struct afw_ct *afw_ct_open(char *err, size_t errlen);
void afw_ct_close(struct afw_ct *c);

/*
 * Sets the bits @mask of flow @f's conntrack mark to @mark. The entry is
 * looked up by the flow as afwd saw it (client to server); if conntrack has
 * no such original tuple (NAT changed an address before afwd's hook), by
 * the reply tuple. Waits for conntrack's answers: for reloads, never for
 * packets.
 */
void afw_ct_mark(struct afw_ct *c, const struct afw_flow_spec *f, uint32_t mark, uint32_t mask);

/* Sends what afw_ct_mark() queued and reads the answers. */
void afw_ct_flush(struct afw_ct *c);

const struct afw_ct_stats *afw_ct_stats(const struct afw_ct *c);

#endif /* AFW_CONNTRACK_H */
