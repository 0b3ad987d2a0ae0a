/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The inside of a loaded policy, shared by the parser (policy.c) and the
 * matcher (policy_match.c). Every list a rule has is a range of one of
 * the policy-wide arrays, so a policy is a handful of allocations however
 * many rules it has.
 */
#ifndef AFW_POLICY_IMPL_H
#define AFW_POLICY_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"

/* What "name" tests: a flow has no name, one that is no valid host name, or a valid one. */
#define AFW_PNAME_NONE		0x1
#define AFW_PNAME_INVALID	0x2
#define AFW_PNAME_VALID		0x4

/* What "ech" tests, of TLS and QUIC flows only. */
#define AFW_PECH_YES		0x1
#define AFW_PECH_NO		0x2

/* A growable array; @size is the element size. */
struct afw_vec {
	void *a;
	size_t n, cap, size;
};

#define AFW_VEC(type) { NULL, 0, 0, sizeof(type) }
#define AFW_AT(v, type, i) (&((type *)(v)->a)[i])

/* A range of one of the value arrays; n == 0: the rule does not test it. */
struct afw_range {
	uint32_t off, n;
};

/* A string in the policy's string pool. */
struct afw_str {
	uint32_t off, len;
	bool wild;		/* a host "*.suffix"; off/len name the suffix */
};

struct afw_ports {
	uint16_t lo, hi;
};

struct afw_net {
	int family;		/* AF_INET or AF_INET6 */
	uint8_t len;
	uint8_t addr[16];
};

/* An interface of "iif" or "oif": its index, looked up when the file is loaded. */
struct afw_pif {
	uint32_t index;
	char name[16];
};

/* Each test is one afw_rule_ends() or afw_rule_uid() (the flow's ends) or afw_rule_reads() (its bytes) knows. */
struct afw_prule {
	uint32_t prio;
	uint32_t line;
	enum afw_decision verdict;
	uint8_t l7s;		/* 1 << AFW_L7_*; 0: any */
	uint8_t names;		/* AFW_PNAME_*; 0: any */
	uint8_t ech;		/* AFW_PECH_*; 0: any */
	uint16_t reasons;	/* 1 << AFW_REASON_*; 0: any, but see afw_policy_match() */
	uint8_t dirs;		/* 1 << AFW_DIR_*; 0: any */
	struct afw_range hosts, alpn, ja4;	/* into strs */
	struct afw_range protos;		/* into protos */
	struct afw_range ports, sports;		/* into ports */
	struct afw_range nets, snets;		/* into nets: "to", "from" */
	struct afw_range iifs, oifs;		/* into ifs */
	struct afw_range uids;			/* into uids */
	/* The process that started the flow (afw_rule_owner()). */
	struct afw_range exes, comms, cgroups, units;	/* into strs, each NUL-terminated */
	struct afw_range gids;			/* into gids */
};

/* A host name or suffix and the rules (indexes in evaluation order) naming it. */
struct afw_hkey {
	uint64_t hash;
	uint32_t str, len;	/* into pool */
	uint32_t idx_off, idx_n;	/* into idx */
};

/* Open addressing; slot holds a key number + 1, 0 is empty. */
struct afw_htable {
	uint32_t *slots;
	uint32_t mask;
	struct afw_vec keys;	/* struct afw_hkey */
};

struct afw_policy {
	enum afw_decision dflt;
	uint32_t dflt_line;
	enum afw_decision ask_dflt;	/* ask-default */
	uint32_t ask_timeout;		/* ask-timeout, seconds */
	uint32_t ask_dflt_line, ask_timeout_line;
	bool asks;			/* a rule or the default says ask */
	struct afw_policy *answers;	/* afw_policy_set_answers(); owned */
	struct afw_vec rules;	/* struct afw_prule, in evaluation order once loaded */
	struct afw_vec pool;	/* char */
	struct afw_vec strs;	/* struct afw_str */
	struct afw_vec protos;	/* uint8_t */
	struct afw_vec ports;	/* struct afw_ports */
	struct afw_vec nets;	/* struct afw_net */
	struct afw_vec uids;	/* uint32_t */
	struct afw_vec gids;	/* uint32_t */
	struct afw_vec ifs;	/* struct afw_pif */
	/* The host index, built once all rules are read. */
	struct afw_vec generic;	/* uint32_t: rules without a host test */
	struct afw_vec idx;	/* uint32_t */
	struct afw_htable exact, suffix;
};

void *afw_vec_push(struct afw_vec *v);
void afw_vec_free(struct afw_vec *v);

uint64_t afw_policy_hash(const char *s, size_t len);

/* Sorts the rules into evaluation order and builds the host index. */
int afw_policy_index(struct afw_policy *p);
void afw_policy_index_free(struct afw_policy *p);

#endif /* AFW_POLICY_IMPL_H */
