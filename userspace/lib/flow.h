/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flows and configuration on the wire, and in words.
 */
#ifndef AFW_FLOW_H
#define AFW_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "afwnl.h"
#include "rule.h"

/* The process that started a flow, as the kernel recorded it (AFW_OWNER_A_*). */
struct afw_flow_owner {
	bool known;
	bool listener;			/* an inbound flow's local socket: no pid */
	uint32_t uid, gid, pid;
	uint32_t age;			/* seconds since recorded */
	uint64_t cgroup;		/* cgroup v2 id; 0: none */
	char comm[16];
	const char *exe;		/* NULL: none; in the message parsed */
	const char *cgroup_path;	/* OWNER_GET only; NULL: none */
};

/* Room for an owner's strings, each at most PATH_MAX bytes from the kernel. */
struct afw_owner_buf {
	char exe[4096];
	char cgroup[4096];
};

struct afw_flow_spec {
	uint8_t family;
	uint8_t proto;
	uint8_t verdict;		/* AFW_VERDICT_* */
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	bool echo;			/* an ICMP echo's flow: SRC pings DST */
	uint16_t icmp_id;		/* and its identifier */
	uint8_t icmp_code;		/* and its code, for conntrack's tuple (afwd) */
	uint32_t timeout;		/* seconds; 0: the namespace's default */
	uint32_t flags;			/* AFW_FLOW_F_*, for FLOW_NEW */
	uint8_t dir;			/* AFW_DIR_*, with AFW_FLOW_F_LEARN */
	uint32_t line;			/* a learned decision's policy line */
	uint32_t expires;		/* from the kernel */
	uint64_t packets, bytes;	/* from the kernel */
	uint8_t origin;			/* AFW_FLOW_ORIGIN_*, from the kernel */
	uint32_t rule_id;		/* the rule of an AFW_FLOW_ORIGIN_RULE flow */
	uint32_t state;			/* AFW_FLOW_S_*, from the kernel */
	bool own_queue;			/* inspect: its packets go to @queue */
	uint16_t queue;
	/* FLOW_NEW: installed unconfirmed, until DST acknowledges this (afwd). */
	bool unconfirmed;
	uint32_t confirm_ack, confirm_end, confirm_iif;	/* AFW_CONFIRM_A_* */
	struct afw_flow_owner owner;	/* from the kernel */
};

/*
 * "proto P from ADDR to ADDR [sport N dport N | id N] [VERDICT] [timeout S]
 * [queue N]" (id: an ICMP echo's identifier, with proto icmp or icmpv6;
 * queue: an inspect flow's own queue),
 * ports by number or service name, each keyword once. With @need_verdict
 * the verdict is required. Returns -1 with @e naming the bad word.
 */
int afw_flow_parse_words(int argc, char **argv, struct afw_flow_spec *f, int need_verdict,
			 struct afw_perr *e);
const char *afw_verdict_name(uint8_t verdict);
/* "control" (installed by FLOW_NEW: afwd or an admin) or "rule". */
const char *afw_flow_origin_name(uint8_t origin);
/* The flow in the words flow add reads: "proto P from A to B [sport N dport N | id N] VERDICT". */
void afw_flow_format(const struct afw_flow_spec *f, char *buf, size_t len);

/* The AFW_A_FLOW nest of @f, key and (with @with_verdict) verdict, timeout and flags. */
void afw_flow_put(struct nlmsghdr *nlh, const struct afw_flow_spec *f, int with_verdict);
int afw_flow_add(struct afw_nl *nl, const struct afw_flow_spec *f);
int afw_flow_del(struct afw_nl *nl, const struct afw_flow_spec *f);
int afw_flow_flush(struct afw_nl *nl);
/*
 * Decodes one FLOW_GET dump message. A rule's flow must name its rule.
 * Returns MNL_CB_OK, or MNL_CB_ERROR with errno set.
 */
int afw_flow_parse_msg(const struct nlmsghdr *nlh, struct afw_flow_spec *f);
/*
 * The AFW_A_FLOW nest of @nlh into @tb (AFW_FLOW_A_MAX + 1 slots), each
 * attribute's length checked against its type; 0, or -1 with errno set.
 * For messages afw_flow_parse_msg() does not take whole (LEARN_GET, LEARNED).
 */
int afw_flow_attrs(const struct nlmsghdr *nlh, const struct nlattr **tb);
/*
 * An AFW_FLOW_A_OWNER nest into @o; its strings stay in the message (@o->exe
 * points there). 0, or -1 when it lacks uid, gid, pid or task name.
 */
int afw_flow_owner_parse(const struct nlattr *nest, struct afw_flow_owner *o);
/* The same for a FLOW_NEW or FLOW_DEL request (one the kernel echoes): no verdict needed. */
int afw_flow_parse_request(const struct nlmsghdr *nlh, struct afw_flow_spec *f);
/*
 * The owner of @f's flow (OWNER_GET), @f's key in either direction (an
 * echo's: from its pinger): fills @f->owner, its strings in @b. Returns 0, or -ENOENT when none is
 * recorded, or another -errno.
 */
int afw_flow_owner_get(struct afw_nl *nl, struct afw_flow_spec *f, struct afw_owner_buf *b);
/*
 * Calls @fn for every flow; returns 0 or -errno, and -EINTR when the table
 * changed during the dump: @fn has then seen all it sent, which may miss a
 * flow or hold one twice.
 */
int afw_flow_dump(struct afw_nl *nl, int (*fn)(const struct afw_flow_spec *f, void *data),
		  void *data);

struct afw_config {
	uint8_t unknown;		/* AFW_UNKNOWN_* */
	uint8_t fail_open;
	uint16_t queue_num, queue_count;
	uint32_t max_flows;
	/* Default idle seconds of a flow: TCP, UDP, and every other protocol. */
	uint32_t tcp_timeout, udp_timeout, flow_timeout;
	uint8_t enabled;		/* 0: afwctl disable: everything passes */
	uint8_t owners;			/* 1: the module records who starts each flow */
};

/* In the order the keys are listed, shown and saved. */
#define AFW_CFG_HAS_UNKNOWN	0x01
#define AFW_CFG_HAS_QUEUE	0x02
#define AFW_CFG_HAS_FAIL	0x04
#define AFW_CFG_HAS_MAX_FLOWS	0x08
#define AFW_CFG_HAS_TCP_TIMEOUT	0x10
#define AFW_CFG_HAS_UDP_TIMEOUT	0x20
#define AFW_CFG_HAS_FLOW_TIMEOUT 0x40
#define AFW_CFG_HAS_ENABLED	0x80
#define AFW_CFG_HAS_OWNERS	0x100
#define AFW_CFG_HAS_ALL		0x1ff

/*
 * "KEY VALUE ...": sets the fields given and adds their AFW_CFG_HAS_* bits
 * to *@has; a key already in *@has is refused, as is an unknown key (the
 * message lists the valid ones).
 */
int afw_config_parse_words(int argc, char **argv, struct afw_config *c, unsigned int *has,
			   struct afw_perr *e);
/* Calls @line with "PREFIXKEY VALUE" for each setting in @has. */
void afw_config_format(const struct afw_config *c, unsigned int has, const char *prefix,
		       void (*line)(const char *text, void *data), void *data);
const char *afw_unknown_name(uint8_t unknown);
int afw_config_get(struct afw_nl *nl, struct afw_config *c);
int afw_config_set(struct afw_nl *nl, const struct afw_config *c, unsigned int has);
/* Writes the AFW_A_CONFIG nest of the fields @has names into @nlh. */
void afw_config_put(struct nlmsghdr *nlh, const struct afw_config *c, unsigned int has);

#endif /* AFW_FLOW_H */
