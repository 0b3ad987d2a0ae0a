/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flows and configuration on the wire, and in words.
 */
#ifndef AFW_FLOW_H
#define AFW_FLOW_H

#include <stddef.h>
#include <stdint.h>

#include "afwnl.h"

struct afw_flow_spec {
	uint8_t family;
	uint8_t proto;
	uint8_t verdict;		/* AFW_VERDICT_* */
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	uint32_t timeout;		/* seconds; 0: the namespace's default */
	uint32_t expires;		/* from the kernel */
	uint64_t packets, bytes;	/* from the kernel */
};

/*
 * "proto P from ADDR to ADDR [sport N dport N] [VERDICT] [timeout S]".
 * With @need_verdict the verdict is required. Returns -1 with a message
 * naming the bad word in @err.
 */
int afw_flow_parse_words(int argc, char **argv, struct afw_flow_spec *f, int need_verdict,
			 char *err, size_t errlen);
const char *afw_verdict_name(uint8_t verdict);

/* The AFW_A_FLOW nest of @f, key and (with @with_verdict) verdict and timeout. */
void afw_flow_put(struct nlmsghdr *nlh, const struct afw_flow_spec *f, int with_verdict);
int afw_flow_add(struct afw_nl *nl, const struct afw_flow_spec *f);
int afw_flow_del(struct afw_nl *nl, const struct afw_flow_spec *f);
int afw_flow_flush(struct afw_nl *nl);
int afw_flow_dump(struct afw_nl *nl, int (*fn)(const struct afw_flow_spec *f, void *data),
		  void *data);

struct afw_config {
	uint8_t unknown;		/* AFW_UNKNOWN_* */
	uint8_t fail_open;
	uint16_t queue_num, queue_count;
	uint32_t max_flows, flow_timeout;
};

#define AFW_CFG_HAS_UNKNOWN	0x01
#define AFW_CFG_HAS_QUEUE	0x02
#define AFW_CFG_HAS_FAIL	0x04
#define AFW_CFG_HAS_MAX_FLOWS	0x08
#define AFW_CFG_HAS_TIMEOUT	0x10

/* "KEY VALUE ...": sets the fields given and their AFW_CFG_HAS_* bits. */
int afw_config_parse_words(int argc, char **argv, struct afw_config *c, unsigned int *has,
			   char *err, size_t errlen);
const char *afw_unknown_name(uint8_t unknown);
int afw_config_get(struct afw_nl *nl, struct afw_config *c);
int afw_config_set(struct afw_nl *nl, const struct afw_config *c, unsigned int has);

#endif /* AFW_FLOW_H */
