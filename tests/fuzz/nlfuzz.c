// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz: random and mutated requests to the afw generic netlink family.
 *
 *   nlfuzz [--seed N] [--count N] [--seconds S] [--sockets N]
 *          [--expect admin|eperm] [--check-flush] [--trace-from N] [--dry-run]
 *
 * Every request goes to the real family id, for every command and beyond
 * (cmd numbers past AFW_CMD_MAX), with attributes drawn from the uapi
 * header's attribute sets: well-formed requests that change state (rules,
 * flows, config, replace transactions), the same requests mutated (lengths,
 * types, flags, truncation, bit flips, garbage), and random attribute trees
 * with nests inside nests. Requests go alone or in batches of up to 16 per
 * datagram, some close to the socket's size limit; dumps are read to the end
 * or left midway (socket closed, or another request sent); replace
 * transactions are begun and abandoned by closing the socket or by a second
 * socket's BEGIN.
 *
 * The run is a function of the seed only (never of the replies), so
 * "--seed S --count N" repeats it; --trace-from N hex-dumps every message
 * from the N-th on to stderr before it is sent, to name the one that
 * crashed a kernel. Every run prints a digest of the messages it made
 * (their family id aside); --dry-run makes them without a kernel, sends
 * nothing and prints the same digest.
 *
 * It checks what the kernel sends back: every reply is well-formed netlink
 * with attributes that tile their message, errors are negative errnos, and
 * the family still answers at the end. With --expect eperm (a user without
 * CAP_NET_ADMIN over the namespace) no admin command may succeed, while the
 * reading ones must; with --expect admin, every admin command must have
 * succeeded at least once and none may be refused with EPERM (but for
 * settings that raise max_flows past the module's bound, which only an admin
 * of the initial user namespace may do); with
 * --check-flush (for a fuzzer alone in its namespace), after a flush the
 * namespace must report no rules and no flows. Exit 0 when all
 * holds, 1 otherwise, 2 on a usage or setup error.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <linux/afw.h>

#include "afwnl.h"

#define NLF_MAX_SOCKS	16
#define NLF_MSG_MAX	(240 * 1024)	/* one request, oversized ones included */
#define NLF_BATCH_MAX	(256 * 1024)
#define NLF_RBUF	(512 * 1024)
#define NLF_RING	4096		/* requests remembered by sequence number */
#define NLF_MAX_ERRNO	160
#define NLF_CMDS	(AFW_CMD_MAX + 2)	/* index AFW_CMD_MAX + 1: unknown commands */
#define NLF_MAX_DEPTH	7

/* ------------------------------------------------------------------ */
/* Randomness: splitmix64, one stream from the seed. */

struct nlf_rng {
	uint64_t s;
};

static uint64_t nlf_rand(struct nlf_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t nlf_below(struct nlf_rng *r, uint32_t n)
{
	return n ? (uint32_t)(nlf_rand(r) % n) : 0;
}

static bool nlf_chance(struct nlf_rng *r, unsigned int pct)
{
	return nlf_below(r, 100) < pct;
}

#define NLF_PICK(r, arr) ((arr)[nlf_below((r), sizeof(arr) / sizeof((arr)[0]))])

/* ------------------------------------------------------------------ */
/* The attribute sets of the uapi header, as the fuzzer sees them. */

enum nlf_kind { K_U8, K_U16, K_U32, K_U64, K_STR, K_ADDR, K_NEST, K_FLAG, K_BIN, K_NKINDS };

enum nlf_set { S_TOP, S_RULE, S_RULES, S_FLOW, S_CFG, S_COUNTERS, S_HOOK, S_STATS, S_NSETS };

struct nlf_field {
	uint16_t type;
	uint8_t kind;
	uint8_t set;		/* for K_NEST */
};

struct nlf_attrset {
	int max;
	const struct nlf_field *f;
	unsigned int n;
};

static const struct nlf_field nlf_top[] = {
	{ AFW_A_MODULE_VERSION, K_STR, 0 },
	{ AFW_A_COUNTERS, K_NEST, S_COUNTERS },
	{ AFW_A_PAD, K_FLAG, 0 },
	{ AFW_A_RULE, K_NEST, S_RULE },
	{ AFW_A_RULESET_GEN, K_U64, 0 },
	{ AFW_A_MALFORMED, K_U64, 0 },
	{ AFW_A_REPLACE_FLAGS, K_U32, 0 },
	{ AFW_A_RULES, K_NEST, S_RULES },
	{ AFW_A_DROPPED, K_U64, 0 },
	{ AFW_A_FLOW, K_NEST, S_FLOW },
	{ AFW_A_CONFIG, K_NEST, S_CFG },
	{ AFW_A_QUEUED, K_U64, 0 },
	{ AFW_A_STATS, K_NEST, S_STATS },
	{ AFW_A_ACTIVE, K_U8, 0 },
	{ AFW_A_SERVE_FIRST, K_U16, 0 },
	{ AFW_A_SERVE_COUNT, K_U16, 0 },
	{ AFW_A_UNSERVED_DROPPED, K_U64, 0 },
	{ AFW_A_UNSERVED_PASSED, K_U64, 0 },
};

static const struct nlf_field nlf_rule[] = {
	{ AFW_RULE_A_PAD, K_FLAG, 0 },
	{ AFW_RULE_A_ID, K_U32, 0 },
	{ AFW_RULE_A_PRIORITY, K_U32, 0 },
	{ AFW_RULE_A_FAMILY, K_U8, 0 },
	{ AFW_RULE_A_DIRECTIONS, K_U8, 0 },
	{ AFW_RULE_A_PROTO, K_U8, 0 },
	{ AFW_RULE_A_SRC, K_ADDR, 0 },
	{ AFW_RULE_A_SRC_PREFIX, K_U8, 0 },
	{ AFW_RULE_A_DST, K_ADDR, 0 },
	{ AFW_RULE_A_DST_PREFIX, K_U8, 0 },
	{ AFW_RULE_A_SPORT_LO, K_U16, 0 },
	{ AFW_RULE_A_SPORT_HI, K_U16, 0 },
	{ AFW_RULE_A_DPORT_LO, K_U16, 0 },
	{ AFW_RULE_A_DPORT_HI, K_U16, 0 },
	{ AFW_RULE_A_IIF, K_STR, 0 },
	{ AFW_RULE_A_OIF, K_STR, 0 },
	{ AFW_RULE_A_UID, K_U32, 0 },
	{ AFW_RULE_A_GID, K_U32, 0 },
	{ AFW_RULE_A_ACTION, K_U8, 0 },
	{ AFW_RULE_A_MATCH, K_BIN, 0 },
	{ AFW_RULE_A_EXE, K_STR, 0 },
	{ AFW_RULE_A_CGROUP, K_STR, 0 },
	{ AFW_RULE_A_PACKETS, K_U64, 0 },
	{ AFW_RULE_A_BYTES, K_U64, 0 },
};

static const struct nlf_field nlf_rules[] = {
	{ AFW_A_RULE, K_NEST, S_RULE },
};

static const struct nlf_field nlf_flow[] = {
	{ AFW_FLOW_A_PAD, K_FLAG, 0 },
	{ AFW_FLOW_A_FAMILY, K_U8, 0 },
	{ AFW_FLOW_A_PROTO, K_U8, 0 },
	{ AFW_FLOW_A_SRC, K_ADDR, 0 },
	{ AFW_FLOW_A_DST, K_ADDR, 0 },
	{ AFW_FLOW_A_SPORT, K_U16, 0 },
	{ AFW_FLOW_A_DPORT, K_U16, 0 },
	{ AFW_FLOW_A_VERDICT, K_U8, 0 },
	{ AFW_FLOW_A_TIMEOUT, K_U32, 0 },
	{ AFW_FLOW_A_PACKETS, K_U64, 0 },
	{ AFW_FLOW_A_BYTES, K_U64, 0 },
	{ AFW_FLOW_A_EXPIRES, K_U32, 0 },
	{ AFW_FLOW_A_ORIGIN, K_U8, 0 },
	{ AFW_FLOW_A_RULE_ID, K_U32, 0 },
	{ AFW_FLOW_A_STATE, K_U32, 0 },
	{ AFW_FLOW_A_FLAGS, K_U32, 0 },
	{ AFW_FLOW_A_QUEUE, K_U16, 0 },
	{ AFW_FLOW_A_ICMP_ID, K_U16, 0 },
};

static const struct nlf_field nlf_cfg[] = {
	{ AFW_CFG_A_UNKNOWN, K_U8, 0 },
	{ AFW_CFG_A_QUEUE_NUM, K_U16, 0 },
	{ AFW_CFG_A_QUEUE_COUNT, K_U16, 0 },
	{ AFW_CFG_A_FAIL_OPEN, K_U8, 0 },
	{ AFW_CFG_A_MAX_FLOWS, K_U32, 0 },
	{ AFW_CFG_A_FLOW_TIMEOUT, K_U32, 0 },
	{ AFW_CFG_A_TCP_TIMEOUT, K_U32, 0 },
	{ AFW_CFG_A_UDP_TIMEOUT, K_U32, 0 },
};

static const struct nlf_field nlf_counters[] = {
	{ AFW_COUNTERS_A_HOOK, K_NEST, S_HOOK },
};

static const struct nlf_field nlf_hook[] = {
	{ AFW_HOOK_A_PAD, K_FLAG, 0 },
	{ AFW_HOOK_A_FAMILY, K_U8, 0 },
	{ AFW_HOOK_A_DIRECTION, K_U8, 0 },
	{ AFW_HOOK_A_PACKETS, K_U64, 0 },
	{ AFW_HOOK_A_BYTES, K_U64, 0 },
};

static const struct nlf_field nlf_stats[] = {
	{ AFW_STATS_A_FLOW_ACCEPT, K_U64, 0 },
	{ AFW_STATS_A_RULES, K_U32, 0 },
	{ AFW_STATS_A_RULESET_GEN, K_U64, 0 },
	{ AFW_STATS_A_FLOWS, K_U32, 0 },
	{ AFW_STATS_A_FLOWS_REFUSED, K_U64, 0 },
	{ AFW_STATS_A_EXEMPT, K_U64, 0 },
	{ AFW_STATS_A_FLOWS_RESTARTED, K_U64, 0 },
	{ AFW_STATS_A_UNSERVED_DROP, K_U64, 0 },
};

#define NLF_SET(max, arr) { (max), (arr), sizeof(arr) / sizeof((arr)[0]) }

static const struct nlf_attrset nlf_sets[S_NSETS] = {
	[S_TOP] = NLF_SET(AFW_A_MAX, nlf_top),
	[S_RULE] = NLF_SET(AFW_RULE_A_MAX, nlf_rule),
	[S_RULES] = NLF_SET(AFW_A_MAX, nlf_rules),
	[S_FLOW] = NLF_SET(AFW_FLOW_A_MAX, nlf_flow),
	[S_CFG] = NLF_SET(AFW_CFG_A_MAX, nlf_cfg),
	[S_COUNTERS] = NLF_SET(AFW_COUNTERS_A_MAX, nlf_counters),
	[S_HOOK] = NLF_SET(AFW_HOOK_A_MAX, nlf_hook),
	[S_STATS] = NLF_SET(AFW_STATS_A_MAX, nlf_stats),
};

/* Commands that need CAP_NET_ADMIN over the namespace (GENL_UNS_ADMIN_PERM in module/genl.c). */
static bool nlf_cmd_admin(unsigned int cmd)
{
	switch (cmd) {
	case AFW_CMD_COUNTERS_RESET:
	case AFW_CMD_RULE_NEW:
	case AFW_CMD_RULE_DEL:
	case AFW_CMD_RULE_GET:
	case AFW_CMD_RULE_FLUSH:
	case AFW_CMD_RULESET_REPLACE:
	case AFW_CMD_FLOW_NEW:
	case AFW_CMD_FLOW_DEL:
	case AFW_CMD_FLOW_GET:
	case AFW_CMD_FLOW_FLUSH:
	case AFW_CMD_CONFIG_GET:
	case AFW_CMD_CONFIG_SET:
	case AFW_CMD_QUEUE_SERVE:
	case AFW_CMD_OWNER_GET:
		return true;
	default:
		return false;
	}
}

static bool nlf_cmd_dump(unsigned int cmd)
{
	return cmd == AFW_CMD_RULE_GET || cmd == AFW_CMD_FLOW_GET;
}

static const char *const nlf_cmd_names[NLF_CMDS] = {
	[AFW_CMD_UNSPEC] = "unspec",
	[AFW_CMD_STATUS_GET] = "status_get",
	[AFW_CMD_COUNTERS_RESET] = "counters_reset",
	[AFW_CMD_RULE_NEW] = "rule_new",
	[AFW_CMD_RULE_DEL] = "rule_del",
	[AFW_CMD_RULE_GET] = "rule_get",
	[AFW_CMD_RULE_FLUSH] = "rule_flush",
	[AFW_CMD_RULESET_REPLACE] = "ruleset_replace",
	[AFW_CMD_FLOW_NEW] = "flow_new",
	[AFW_CMD_FLOW_DEL] = "flow_del",
	[AFW_CMD_FLOW_GET] = "flow_get",
	[AFW_CMD_FLOW_FLUSH] = "flow_flush",
	[AFW_CMD_CONFIG_GET] = "config_get",
	[AFW_CMD_CONFIG_SET] = "config_set",
	[AFW_CMD_STATS_GET] = "stats_get",
	[AFW_CMD_QUEUE_SERVE] = "queue_serve",
	[AFW_CMD_OWNER_GET] = "owner_get",
	[AFW_CMD_MAX + 1] = "other",
};

/* ------------------------------------------------------------------ */
/* State of a run. */

enum nlf_expect { EXPECT_NONE, EXPECT_ADMIN, EXPECT_EPERM };

struct nlf_sock {
	struct mnl_socket *nl;
	int fd;
	uint32_t portid;
};

struct nlf_req {
	uint32_t seq;
	uint8_t cmd;		/* index into the per-command counters */
	bool admin;		/* an admin command the kernel will see as such */
	bool valid;
	bool big_flows;		/* its settings raise max_flows past the bound */
	uint16_t type;		/* nlmsg_type as sent, mutations and all */
};

struct nlf_cmd_stats {
	uint64_t sent, ok, err;
};

struct nlf_flow_key {
	uint8_t family, proto, src[16], dst[16];
	uint16_t sport, dport;
	bool set;
};

struct nlf {
	struct nlf_rng rng;
	uint64_t seed;
	uint16_t family;
	enum nlf_expect expect;
	bool check_flush, dry;
	/* The module's max_flows; past it only an admin of the initial userns. */
	uint32_t flows_bound;
	bool init_userns;
	uint64_t count, trace_from;
	uint64_t digest;		/* FNV-1a of every message, nlmsg_type aside */
	unsigned int seconds, nsocks;

	struct nlf_sock socks[NLF_MAX_SOCKS];
	uint32_t seq;
	struct nlf_req ring[NLF_RING];

	/* The last rule id and flow key built, which deletes often name. */
	uint32_t last_rule_id;
	struct nlf_flow_key last_flow;

	/* The message being built, and the datagram being assembled. */
	uint8_t *msg;
	size_t len;
	uint8_t *batch;
	size_t blen;
	unsigned int bmsgs;
	uint8_t *rbuf;

	/* What happened. */
	uint64_t messages, datagrams, batches, oversized, send_err;
	uint64_t dumps, dumps_left, dump_msgs, replace_begun, replace_abandoned, reopens;
	uint64_t replies, acks_ok, truncated_replies, enobufs, foreign_replies;
	uint64_t err_by_errno[NLF_MAX_ERRNO + 1];
	struct nlf_cmd_stats cmd[NLF_CMDS];
	uint64_t violations;
};

static void nlf_violation(struct nlf *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void nlf_violation(struct nlf *f, const char *fmt, ...)
{
	va_list ap;

	f->violations++;
	if (f->violations > 20)
		return;
	fprintf(stderr, "nlfuzz: VIOLATION at message %" PRIu64 ": ", f->messages);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ------------------------------------------------------------------ */
/* Building messages. */

static void nlf_put(struct nlf *f, const void *data, size_t n)
{
	if (f->len + n > NLF_MSG_MAX)
		n = NLF_MSG_MAX - f->len;
	memcpy(f->msg + f->len, data, n);
	f->len += n;
}

static void nlf_pad(struct nlf *f)
{
	static const uint8_t zero[4];

	nlf_put(f, zero, (4 - f->len % 4) % 4);
}

static size_t nlf_attr(struct nlf *f, uint16_t type, const void *data, size_t n)
{
	size_t off = f->len;
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + n), .nla_type = type };

	if (f->len + NLA_HDRLEN + n + 4 > NLF_MSG_MAX)
		return off;
	nlf_put(f, &a, sizeof(a));
	if (n)
		nlf_put(f, data, n);
	nlf_pad(f);
	return off;
}

/* As libmnl does: the kernel's strict validation wants NLA_F_NESTED on nests. */
static size_t nlf_nest_start(struct nlf *f, uint16_t type)
{
	return nlf_attr(f, type | NLA_F_NESTED, NULL, 0);
}

static void nlf_nest_end(struct nlf *f, size_t off)
{
	struct nlattr *a = (struct nlattr *)(f->msg + off);
	size_t n = f->len - off;

	a->nla_len = n > 0xffff ? 0xffff : (uint16_t)n;
}

/* Room left in a nest that started at @off before its length overflows. */
static bool nlf_nest_room(const struct nlf *f, size_t off, size_t need)
{
	return f->len - off + need < 0xff00 && f->len + need + 64 < NLF_MSG_MAX;
}

static void nlf_u8(struct nlf *f, uint16_t t, uint8_t v) { nlf_attr(f, t, &v, 1); }
static void nlf_u16(struct nlf *f, uint16_t t, uint16_t v) { nlf_attr(f, t, &v, 2); }
static void nlf_u32(struct nlf *f, uint16_t t, uint32_t v) { nlf_attr(f, t, &v, 4); }

static void nlf_header(struct nlf *f, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr nlh = {
		.nlmsg_type = f->family,
		.nlmsg_flags = NLM_F_REQUEST | flags,
		.nlmsg_seq = ++f->seq,
	};
	struct genlmsghdr g = { .cmd = cmd, .version = AFW_GENL_VERSION };

	f->len = 0;
	nlf_put(f, &nlh, sizeof(nlh));
	nlf_put(f, &g, sizeof(g));
}

static void nlf_finish(struct nlf *f)
{
	((struct nlmsghdr *)f->msg)->nlmsg_len = (uint32_t)f->len;
}

/* Values: the interesting edges of a type, and the plausible ones of a field. */
static uint64_t nlf_edge(struct nlf *f, unsigned int kind)
{
	static const uint64_t edges[] = { 0, 1, 2, 3, 4, 5, 7, 8, 10, 16, 17, 32, 64, 127, 128,
					  129, 255, 256, 1023, 1024, 65535, 65536, 86400, 86401,
					  1U << 24, (1U << 24) + 1, 0x7fffffff, 0x80000000,
					  0xffffffff, 0x100000000ULL, UINT64_MAX };

	if (nlf_chance(&f->rng, 30))
		return nlf_rand(&f->rng) >> (kind == K_U8 ? 56 : kind == K_U16 ? 48 :
					     kind == K_U32 ? 32 : nlf_below(&f->rng, 64));
	return NLF_PICK(&f->rng, edges);
}

static const uint8_t nlf_protos[] = { 0, 1, 6, 17, 58, 132, 136, 33, 47, 255 };

static uint64_t nlf_plausible(struct nlf *f, unsigned int set, uint16_t type, unsigned int kind)
{
	struct nlf_rng *r = &f->rng;

	if (nlf_chance(r, 15))
		return nlf_edge(f, kind);
	switch (set) {
	case S_RULE:
		switch (type) {
		case AFW_RULE_A_ID: return 1 + nlf_below(r, 64);
		case AFW_RULE_A_PRIORITY: return nlf_below(r, 8);
		case AFW_RULE_A_FAMILY: return nlf_chance(r, 50) ? AFW_FAMILY_IPV4 : AFW_FAMILY_IPV6;
		case AFW_RULE_A_DIRECTIONS: return nlf_below(r, 9);
		case AFW_RULE_A_PROTO: return NLF_PICK(r, nlf_protos);
		case AFW_RULE_A_SRC_PREFIX:
		case AFW_RULE_A_DST_PREFIX: return nlf_below(r, 130);
		case AFW_RULE_A_ACTION: return nlf_below(r, AFW_ACTION_MAX + 2);
		case AFW_RULE_A_UID:
		case AFW_RULE_A_GID: return nlf_chance(r, 50) ? 0 : 65534;
		}
		break;
	case S_FLOW:
		switch (type) {
		case AFW_FLOW_A_FAMILY: return nlf_chance(r, 50) ? AFW_FAMILY_IPV4 : AFW_FAMILY_IPV6;
		case AFW_FLOW_A_PROTO: return NLF_PICK(r, nlf_protos);
		case AFW_FLOW_A_VERDICT: return nlf_below(r, AFW_VERDICT_MAX + 2);
		case AFW_FLOW_A_TIMEOUT: return nlf_below(r, 3) ? 1 + nlf_below(r, 600) : 86400;
		case AFW_FLOW_A_FLAGS: return nlf_below(r, 3);
		}
		break;
	case S_CFG:
		switch (type) {
		case AFW_CFG_A_UNKNOWN: return nlf_below(r, AFW_UNKNOWN_MAX + 2);
		case AFW_CFG_A_QUEUE_NUM: return nlf_below(r, 4);
		case AFW_CFG_A_QUEUE_COUNT: return nlf_below(r, 5);
		case AFW_CFG_A_FAIL_OPEN: return nlf_below(r, 3);
		case AFW_CFG_A_MAX_FLOWS: return 1U << nlf_below(r, 25);
		case AFW_CFG_A_FLOW_TIMEOUT:
		case AFW_CFG_A_TCP_TIMEOUT:
		case AFW_CFG_A_UDP_TIMEOUT: return 1 + nlf_below(r, 600);
		}
		break;
	case S_TOP:
		if (type == AFW_A_REPLACE_FLAGS)
			return nlf_below(r, 5);
		break;
	}
	return nlf_edge(f, kind);
}

/* Addresses from small pools, so that deletes find what adds made. */
static void nlf_addr(struct nlf *f, uint8_t family, uint8_t *a, unsigned int plen)
{
	unsigned int alen = family == AFW_FAMILY_IPV6 ? 16 : 4, i;

	memset(a, 0, 16);
	if (family == AFW_FAMILY_IPV6) {
		a[0] = 0x20;
		a[1] = 0x01;
		a[2] = 0x0d;
		a[3] = 0xb8;
		a[7] = (uint8_t)nlf_below(&f->rng, 3);
		a[15] = (uint8_t)(1 + nlf_below(&f->rng, 8));
	} else {
		a[0] = 10;
		a[2] = (uint8_t)nlf_below(&f->rng, 3);
		a[3] = (uint8_t)(1 + nlf_below(&f->rng, 8));
	}
	for (i = plen; i < alen * 8; i++)
		a[i / 8] &= (uint8_t)~(0x80 >> (i % 8));
}

static bool nlf_has_ports(uint8_t proto)
{
	return proto == 6 || proto == 17 || proto == 33 || proto == 132 || proto == 136;
}

/*
 * A valid rule's source (@src) or destination: into @m and, after it in
 * @mbuf, for the rule's AFW_RULE_A_MATCH (@match), or else as attributes.
 */
static void nlf_rule_addr(struct nlf *f, struct afw_rule_match *m, uint8_t *mbuf, size_t *mlen,
			  bool match, bool src)
{
	struct nlf_rng *r = &f->rng;
	size_t alen = m->family == AFW_FAMILY_IPV6 ? 16 : 4;
	uint8_t a[16], plen = (uint8_t)nlf_below(r, (unsigned int)alen * 8 + 1);

	nlf_addr(f, m->family, a, plen);
	m->flags |= src ? AFW_MATCH_F_SRC : AFW_MATCH_F_DST;
	*(src ? &m->src_prefix : &m->dst_prefix) = plen;
	memcpy(mbuf + *mlen, a, alen);
	*mlen += alen;
	if (match)
		return;
	nlf_attr(f, src ? AFW_RULE_A_SRC : AFW_RULE_A_DST, a, alen);
	/* No prefix length is the whole address. */
	if (src || nlf_chance(r, 70) || plen != alen * 8)
		nlf_u8(f, src ? AFW_RULE_A_SRC_PREFIX : AFW_RULE_A_DST_PREFIX, plen);
}

/* A valid rule's source or destination (@dst) ports, as nlf_rule_addr() puts an address. */
static void nlf_rule_ports(struct nlf *f, struct afw_rule_match *m, bool match, bool dst)
{
	struct nlf_rng *r = &f->rng;
	uint16_t lo, hi;

	/* Destinations are often iperf3's, so rules match the traffic beside the fuzzer. */
	if (dst && nlf_chance(r, 50))
		lo = (uint16_t)(5201 + nlf_below(r, 4));
	else
		lo = (uint16_t)nlf_below(r, 65536);
	hi = nlf_chance(r, 50) ? (uint16_t)(lo + nlf_below(r, 65536 - lo)) : lo;
	m->flags |= dst ? AFW_MATCH_F_DPORT : AFW_MATCH_F_SPORT;
	*(dst ? &m->dport_lo : &m->sport_lo) = lo;
	*(dst ? &m->dport_hi : &m->sport_hi) = hi;
	if (match)
		return;
	nlf_u16(f, dst ? AFW_RULE_A_DPORT_LO : AFW_RULE_A_SPORT_LO, lo);
	if (hi != lo || nlf_chance(r, 20))
		nlf_u16(f, dst ? AFW_RULE_A_DPORT_HI : AFW_RULE_A_SPORT_HI, hi);
}

static void nlf_valid_rule(struct nlf *f, uint16_t type)
{
	static const char *const ifs[] = { "lo", "c0", "rc", "rs", "s0", "veth0", "eth0" };
	struct nlf_rng *r = &f->rng;
	uint8_t family = 0, proto;
	size_t nest = nlf_nest_start(f, type), len;
	const char *name;
	/* Half the rules give their matches in one AFW_RULE_A_MATCH, as a load does. */
	bool match = nlf_chance(r, 50);
	struct afw_rule_match m = { .directions = AFW_DIRS_ALL };
	uint8_t mbuf[sizeof(m) + 32] = { 0 };
	size_t mlen = sizeof(m);

	if (nlf_chance(r, 70)) {
		f->last_rule_id = 1 + nlf_below(r, 64);
		nlf_u32(f, AFW_RULE_A_ID, f->last_rule_id);
	}
	if (nlf_chance(r, 30)) {
		m.priority = nlf_below(r, 8);
		if (!match)
			nlf_u32(f, AFW_RULE_A_PRIORITY, m.priority);
	}
	if (nlf_chance(r, 60)) {
		family = nlf_chance(r, 50) ? AFW_FAMILY_IPV4 : AFW_FAMILY_IPV6;
		m.family = family;
		if (!match)
			nlf_u8(f, AFW_RULE_A_FAMILY, family);
	}
	if (nlf_chance(r, 50)) {
		m.directions = (uint8_t)(1 + nlf_below(r, AFW_DIRS_ALL));
		if (!match)
			nlf_u8(f, AFW_RULE_A_DIRECTIONS, m.directions);
	}
	proto = NLF_PICK(r, nlf_protos);
	m.proto = proto;
	if (proto && !match)
		nlf_u8(f, AFW_RULE_A_PROTO, proto);
	if (family && nlf_chance(r, 40))
		nlf_rule_addr(f, &m, mbuf, &mlen, match, true);
	if (family && nlf_chance(r, 40))
		nlf_rule_addr(f, &m, mbuf, &mlen, match, false);
	if (nlf_has_ports(proto) && nlf_chance(r, 50))
		nlf_rule_ports(f, &m, match, false);
	if (nlf_has_ports(proto) && nlf_chance(r, 60))
		nlf_rule_ports(f, &m, match, true);
	if (nlf_chance(r, 10)) {
		name = NLF_PICK(r, ifs);
		nlf_attr(f, nlf_chance(r, 50) ? AFW_RULE_A_IIF : AFW_RULE_A_OIF, name, strlen(name) + 1);
	}
	if (nlf_chance(r, 8))
		nlf_u32(f, nlf_chance(r, 50) ? AFW_RULE_A_UID : AFW_RULE_A_GID,
			nlf_chance(r, 50) ? 0 : 65534);
	m.action = (uint8_t)nlf_below(r, AFW_ACTION_MAX + 1);
	if (match) {
		memcpy(mbuf, &m, sizeof(m));
		len = mlen;
		/* Now and then a byte or the length wrong: the kernel's checks, not the policy's. */
		if (nlf_chance(r, 5))
			mbuf[nlf_below(r, len)] = (uint8_t)nlf_rand(r);
		if (nlf_chance(r, 3))
			len = nlf_below(r, sizeof(mbuf) + 1);
		nlf_attr(f, AFW_RULE_A_MATCH, mbuf, len);
	} else if (nlf_chance(r, 97)) {
		nlf_u8(f, AFW_RULE_A_ACTION, m.action);
	}
	nlf_nest_end(f, nest);
}

static void nlf_valid_flow(struct nlf *f, bool verdict)
{
	static const uint8_t protos[] = { 1, 6, 17, 58, 132, 47 };
	struct nlf_rng *r = &f->rng;
	struct nlf_flow_key k = { .set = true };
	unsigned int alen;
	size_t nest;

	/*
	 * A FLOW_DEL names the last FLOW_NEW's key more often than not: with
	 * a second fuzzer flushing the same table, a key drawn afresh finds
	 * its flow too rarely for every run to see a delete succeed.
	 */
	if (!verdict && f->last_flow.set && nlf_chance(r, 60)) {
		k = f->last_flow;
	} else {
		k.family = nlf_chance(r, 50) ? AFW_FAMILY_IPV4 : AFW_FAMILY_IPV6;
		k.proto = NLF_PICK(r, protos);
		alen = k.family == AFW_FAMILY_IPV6 ? 16 : 4;
		/* Fewer keys than rules have: a FLOW_DEL finds its flow often enough. */
		nlf_addr(f, k.family, k.src, alen * 8);
		k.src[alen == 16 ? 7 : 2] = 0;
		memcpy(k.dst, k.src, sizeof(k.dst));
		k.src[alen - 1] = (uint8_t)(1 + nlf_below(r, 3));
		k.dst[alen - 1] = (uint8_t)(1 + nlf_below(r, 3));
		k.sport = (uint16_t)(40000 + nlf_below(r, 4));
		k.dport = (uint16_t)(5201 + nlf_below(r, 2));
	}
	if (verdict)
		f->last_flow = k;
	alen = k.family == AFW_FAMILY_IPV6 ? 16 : 4;
	nest = nlf_nest_start(f, AFW_A_FLOW);
	nlf_u8(f, AFW_FLOW_A_FAMILY, k.family);
	nlf_u8(f, AFW_FLOW_A_PROTO, k.proto);
	nlf_attr(f, AFW_FLOW_A_SRC, k.src, alen);
	nlf_attr(f, AFW_FLOW_A_DST, k.dst, alen);
	if (nlf_has_ports(k.proto)) {
		nlf_u16(f, AFW_FLOW_A_SPORT, k.sport);
		nlf_u16(f, AFW_FLOW_A_DPORT, k.dport);
	}
	if (verdict) {
		nlf_u8(f, AFW_FLOW_A_VERDICT, (uint8_t)nlf_below(r, AFW_VERDICT_MAX + 1));
		if (nlf_chance(r, 30))
			nlf_u32(f, AFW_FLOW_A_TIMEOUT, 1 + nlf_below(r, 120));
		if (nlf_chance(r, 30))
			nlf_u32(f, AFW_FLOW_A_FLAGS, AFW_FLOW_F_ESTABLISHED);
		/* Valid only with verdict inspect: both answers are wanted. */
		if (nlf_chance(r, 20))
			nlf_u16(f, AFW_FLOW_A_QUEUE, (uint16_t)nlf_below(r, 4));
	}
	nlf_nest_end(f, nest);
}

static void nlf_valid_config(struct nlf *f)
{
	struct nlf_rng *r = &f->rng;
	size_t nest = nlf_nest_start(f, AFW_A_CONFIG);
	unsigned int i;

	for (i = 0; i < sizeof(nlf_cfg) / sizeof(nlf_cfg[0]); i++) {
		if (!nlf_chance(r, 40))
			continue;
		switch (nlf_cfg[i].kind) {
		case K_U8:
			nlf_u8(f, nlf_cfg[i].type, (uint8_t)nlf_plausible(f, S_CFG, nlf_cfg[i].type, K_U8));
			break;
		case K_U16:
			nlf_u16(f, nlf_cfg[i].type, (uint16_t)nlf_plausible(f, S_CFG, nlf_cfg[i].type, K_U16));
			break;
		default:
			nlf_u32(f, nlf_cfg[i].type, (uint32_t)nlf_plausible(f, S_CFG, nlf_cfg[i].type, K_U32));
			break;
		}
	}
	nlf_nest_end(f, nest);
}

/* AFW_A_RULES with @n rules, fewer if the nest would overflow. */
static void nlf_valid_rules(struct nlf *f, unsigned int n)
{
	size_t nest = nlf_nest_start(f, AFW_A_RULES);
	unsigned int i;

	for (i = 0; i < n && nlf_nest_room(f, nest, 160); i++)
		nlf_valid_rule(f, AFW_A_RULE);
	nlf_nest_end(f, nest);
}

static unsigned int nlf_rules_count(struct nlf *f)
{
	unsigned int p = nlf_below(&f->rng, 100);

	return p < 70 ? nlf_below(&f->rng, 5) : p < 96 ? 5 + nlf_below(&f->rng, 60) :
	       400 + nlf_below(&f->rng, 2000);
}

/* A request that a correct client could send, for @cmd. */
static void nlf_valid_body(struct nlf *f, uint8_t cmd)
{
	struct nlf_rng *r = &f->rng;
	size_t nest;

	switch (cmd) {
	case AFW_CMD_RULE_NEW:
		nlf_valid_rule(f, AFW_A_RULE);
		break;
	case AFW_CMD_RULE_DEL:
		/* As for flows: an id drawn afresh finds its rule too rarely. */
		nest = nlf_nest_start(f, AFW_A_RULE);
		nlf_u32(f, AFW_RULE_A_ID, f->last_rule_id && nlf_chance(r, 60) ?
			f->last_rule_id : 1 + nlf_below(r, 64));
		nlf_nest_end(f, nest);
		break;
	case AFW_CMD_RULESET_REPLACE:
		if (nlf_chance(r, 90))
			nlf_u32(f, AFW_A_REPLACE_FLAGS, nlf_below(r, 4));
		if (nlf_chance(r, 80))
			nlf_valid_rules(f, nlf_rules_count(f));
		break;
	case AFW_CMD_FLOW_NEW:
		nlf_valid_flow(f, true);
		break;
	case AFW_CMD_FLOW_DEL:
	case AFW_CMD_OWNER_GET:
		nlf_valid_flow(f, false);
		break;
	case AFW_CMD_CONFIG_SET:
		nlf_valid_config(f);
		break;
	case AFW_CMD_QUEUE_SERVE:
		/* A queue afwd would bind, or its headers queue; a range, or a withdrawal. */
		nlf_u16(f, AFW_A_SERVE_FIRST, (uint16_t)(nlf_below(r, 4) |
							 (nlf_chance(r, 30) ? 0x8000 : 0)));
		if (nlf_chance(r, 30))
			nlf_u16(f, AFW_A_SERVE_COUNT, (uint16_t)nlf_below(r, 5));
		break;
	default:
		break;
	}
}

static void nlf_random_attrs(struct nlf *f, unsigned int set, unsigned int depth);

/* The lengths an AFW_RULE_A_MATCH takes: no address, one or two, IPv4 or IPv6. */
static const size_t nlf_match_lens[] = { 20, 24, 28, 36, 52 };

/* One attribute of @kind with a payload that is usually, not always, the right size. */
static void nlf_random_attr(struct nlf *f, unsigned int set, uint16_t type, unsigned int kind,
			    unsigned int sub, unsigned int depth)
{
	struct nlf_rng *r = &f->rng;
	uint8_t buf[64];
	uint64_t v;
	size_t n, i, nest;

	/*
	 * An address payload may run past the family's bytes: zeros, not the
	 * stack's leftovers, or the same seed would not make the same bytes.
	 */
	memset(buf, 0, sizeof(buf));
	if (nlf_chance(r, 5))
		type |= nlf_chance(r, 50) ? NLA_F_NESTED : NLA_F_NET_BYTEORDER;
	switch (kind) {
	case K_NEST:
		if (depth >= NLF_MAX_DEPTH || !nlf_nest_room(f, 0, 4096))
			break;
		nest = nlf_attr(f, type | (nlf_chance(r, 80) ? NLA_F_NESTED : 0), NULL, 0);
		nlf_random_attrs(f, nlf_chance(r, 85) ? sub : nlf_below(r, S_NSETS), depth + 1);
		nlf_nest_end(f, nest);
		return;
	case K_STR:
		n = nlf_below(r, 24);
		for (i = 0; i < n; i++)
			buf[i] = (uint8_t)(nlf_chance(r, 90) ? 'a' + nlf_below(r, 26) : nlf_rand(r));
		if (nlf_chance(r, 80))
			buf[n++] = 0;
		nlf_attr(f, type, buf, n);
		return;
	case K_ADDR:
		n = nlf_chance(r, 80) ? (nlf_chance(r, 50) ? 4 : 16) : nlf_below(r, 21);
		nlf_addr(f, n == 16 ? AFW_FAMILY_IPV6 : AFW_FAMILY_IPV4, buf, 128);
		if (nlf_chance(r, 20))
			for (i = 0; i < n; i++)
				buf[i] = (uint8_t)nlf_rand(r);
		nlf_attr(f, type, buf, n);
		return;
	case K_FLAG:
		nlf_attr(f, type, NULL, 0);
		return;
	case K_BIN:
		/* Mostly a length a struct afw_rule_match and its addresses could have. */
		n = nlf_chance(r, 70) ? NLF_PICK(r, nlf_match_lens) : nlf_below(r, 61);
		for (i = 0; i < n; i++)
			buf[i] = (uint8_t)(nlf_chance(r, 60) ? 0 : nlf_rand(r));
		nlf_attr(f, type, buf, n);
		return;
	default:
		v = nlf_plausible(f, set, type, kind);
		n = kind == K_U8 ? 1 : kind == K_U16 ? 2 : kind == K_U32 ? 4 : 8;
		if (nlf_chance(r, 10))
			n = nlf_below(r, 13);
		memset(buf, 0, sizeof(buf));
		memcpy(buf, &v, n < 8 ? n : 8);
		nlf_attr(f, type, buf, n);
		return;
	}
}

static void nlf_random_attrs(struct nlf *f, unsigned int set, unsigned int depth)
{
	const struct nlf_attrset *s = &nlf_sets[set];
	struct nlf_rng *r = &f->rng;
	unsigned int n = nlf_chance(r, 10) ? nlf_below(r, 40) : nlf_below(r, 6), i;
	const struct nlf_field *fl;

	for (i = 0; i < n; i++) {
		if (nlf_chance(r, 85)) {
			fl = &s->f[nlf_below(r, s->n)];
			nlf_random_attr(f, set, fl->type, fl->kind, fl->set, depth);
		} else {
			nlf_random_attr(f, set, (uint16_t)nlf_below(r, s->max + 4),
					nlf_below(r, K_NKINDS), nlf_below(r, S_NSETS), depth);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Mutations of a built message. */

/* Offsets of the attributes in [start, end), nested ones too, up to @max. */
static unsigned int nlf_attr_offsets(const uint8_t *m, size_t start, size_t end,
				     size_t *offs, unsigned int n, unsigned int max, int depth)
{
	const struct nlattr *a;
	size_t off = start;

	while (off + NLA_HDRLEN <= end && n < max) {
		a = (const struct nlattr *)(m + off);
		if (a->nla_len < NLA_HDRLEN || off + a->nla_len > end)
			break;
		offs[n++] = off;
		if (depth < NLF_MAX_DEPTH && a->nla_len >= 2 * NLA_HDRLEN)
			n = nlf_attr_offsets(m, off + NLA_HDRLEN, off + a->nla_len, offs, n, max,
					     depth + 1);
		off += NLA_ALIGN(a->nla_len);
	}
	return n;
}

static void nlf_mutate(struct nlf *f)
{
	struct nlf_rng *r = &f->rng;
	const size_t base = NLMSG_HDRLEN + GENL_HDRLEN;
	struct nlmsghdr *nlh = (struct nlmsghdr *)f->msg;
	struct genlmsghdr *g = (struct genlmsghdr *)(f->msg + NLMSG_HDRLEN);
	static const uint16_t lens[] = { 0, 1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 20, 0xffff };
	size_t offs[256], off, i, n;
	unsigned int nattrs, times = 1 + nlf_below(r, 3);
	struct nlattr *a;

	while (times--) {
		nattrs = nlf_attr_offsets(f->msg, base, f->len, offs, 0, 256, 0);
		switch (nlf_below(r, 10)) {
		case 0:	/* flip bits anywhere past the netlink header */
			for (i = 1 + nlf_below(r, 4); i > 0 && f->len > NLMSG_HDRLEN; i--)
				f->msg[NLMSG_HDRLEN + nlf_below(r, (uint32_t)(f->len - NLMSG_HDRLEN))] ^=
					(uint8_t)(1 << nlf_below(r, 8));
			break;
		case 1:	/* an attribute's length */
			if (!nattrs)
				break;
			a = (struct nlattr *)(f->msg + offs[nlf_below(r, nattrs)]);
			a->nla_len = nlf_chance(r, 50) ? NLF_PICK(r, lens) :
				     (uint16_t)(a->nla_len + (int)nlf_below(r, 9) - 4);
			break;
		case 2:	/* an attribute's type, and its flag bits */
			if (!nattrs)
				break;
			a = (struct nlattr *)(f->msg + offs[nlf_below(r, nattrs)]);
			a->nla_type = (uint16_t)(nlf_chance(r, 70) ? nlf_below(r, 32) : nlf_rand(r));
			break;
		case 3:	/* truncation, of the datagram and the length alike */
			if (f->len > NLMSG_HDRLEN)
				f->len = NLMSG_HDRLEN + nlf_below(r, (uint32_t)(f->len - NLMSG_HDRLEN));
			break;
		case 4:	/* nlmsg_len disagrees with the datagram */
			nlf_finish(f);
			nlh->nlmsg_len = nlf_chance(r, 50) ? nlf_below(r, (uint32_t)f->len + 1) :
					 (uint32_t)f->len + 1 + nlf_below(r, 64);
			return;
		case 5:	/* garbage appended */
			for (i = 1 + nlf_below(r, 64); i > 0; i--) {
				uint8_t b = (uint8_t)nlf_rand(r);

				nlf_put(f, &b, 1);
			}
			break;
		case 6:	/* an attribute repeated at the top level */
			if (!nattrs)
				break;
			off = offs[nlf_below(r, nattrs)];
			n = ((struct nlattr *)(f->msg + off))->nla_len;
			if (f->len + NLA_ALIGN(n) < NLF_MSG_MAX / 2) {
				memmove(f->msg + f->len, f->msg + off, n);
				f->len += n;
				nlf_pad(f);
			}
			break;
		case 7:	/* a random attribute tree added */
			nlf_random_attrs(f, nlf_below(r, S_NSETS), 1);
			break;
		case 8:	/* the generic netlink header */
			if (nlf_chance(r, 50))
				g->cmd = (uint8_t)nlf_below(r, AFW_CMD_MAX + 4);
			else if (nlf_chance(r, 50))
				g->version = (uint8_t)nlf_rand(r);
			else
				g->reserved = (uint16_t)nlf_rand(r);
			break;
		default: /* the netlink flags */
			nlh->nlmsg_flags ^= (uint16_t)(1 << nlf_below(r, 12));
			break;
		}
	}
	nlf_finish(f);
}

/* ------------------------------------------------------------------ */
/* Sockets, sending and receiving. */

static int nlf_sock_open(struct nlf *f, struct nlf_sock *s)
{
	int on = 1, big = 1 << 20;

	if (f->dry) {
		/* The same draws as below, so that a dry run makes the same messages. */
		nlf_chance(&f->rng, 70);
		nlf_chance(&f->rng, 50);
		s->nl = NULL;
		s->fd = -1;
		return 0;
	}
	s->nl = mnl_socket_open(NETLINK_GENERIC);
	if (!s->nl)
		return -errno;
	if (mnl_socket_bind(s->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		mnl_socket_close(s->nl);
		s->nl = NULL;
		return -errno;
	}
	s->fd = mnl_socket_get_fd(s->nl);
	s->portid = mnl_socket_get_portid(s->nl);
	/* Extended acks and capped acks on some sockets, not on others. */
	if (nlf_chance(&f->rng, 70))
		mnl_socket_setsockopt(s->nl, NETLINK_EXT_ACK, &on, sizeof(on));
	if (nlf_chance(&f->rng, 50))
		mnl_socket_setsockopt(s->nl, NETLINK_CAP_ACK, &on, sizeof(on));
	/* Room for the oversized requests; a user without the right keeps the default. */
	if (setsockopt(s->fd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big)) < 0)
		setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	if (setsockopt(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)) < 0)
		setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	return 0;
}

static void nlf_sock_close(struct nlf_sock *s)
{
	if (s->nl)
		mnl_socket_close(s->nl);
	s->nl = NULL;
}

static unsigned int nlf_cmd_index(unsigned int cmd)
{
	return cmd <= AFW_CMD_MAX ? cmd : AFW_CMD_MAX + 1;
}

/*
 * The last attribute of @type in @len bytes at @p, as the kernel's parser
 * keeps it, or NULL; stops at the first attribute that does not fit.
 */
static const struct nlattr *nlf_last_attr(const uint8_t *p, size_t len, uint16_t type)
{
	const struct nlattr *a, *last = NULL;
	size_t off = 0;

	while (len - off >= NLA_HDRLEN) {
		a = (const struct nlattr *)(p + off);
		if (a->nla_len < NLA_HDRLEN || a->nla_len > len - off)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			last = a;
		off += NLA_ALIGN(a->nla_len);
		if (off > len)
			break;
	}
	return last;
}

/* Whether the settings of a request raise max_flows past f->flows_bound. */
static bool nlf_big_flows(const struct nlf *f, const uint8_t *p, size_t len)
{
	const struct nlattr *cfg = nlf_last_attr(p, len, AFW_A_CONFIG), *mf;
	uint32_t v;

	if (!cfg)
		return false;
	mf = nlf_last_attr((const uint8_t *)cfg + NLA_HDRLEN, cfg->nla_len - NLA_HDRLEN,
			   AFW_CFG_A_MAX_FLOWS);
	if (!mf || mf->nla_len < NLA_HDRLEN + sizeof(v))
		return false;
	memcpy(&v, (const uint8_t *)mf + NLA_HDRLEN, sizeof(v));
	return v > f->flows_bound;
}

/* Remembers what the kernel should make of the request now in f->msg. */
static void nlf_remember(struct nlf *f)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)f->msg;
	const struct genlmsghdr *g = (const struct genlmsghdr *)(f->msg + NLMSG_HDRLEN);
	struct nlf_req *q = &f->ring[nlh->nlmsg_seq % NLF_RING];
	bool whole = f->len >= NLMSG_HDRLEN + GENL_HDRLEN &&
		     nlh->nlmsg_len >= NLMSG_HDRLEN + GENL_HDRLEN && nlh->nlmsg_len <= f->len;

	q->seq = nlh->nlmsg_seq;
	q->type = nlh->nlmsg_type;
	q->cmd = (uint8_t)(whole ? nlf_cmd_index(g->cmd) : AFW_CMD_MAX + 1);
	/* Only a request the kernel hands to the family is judged by its rights. */
	q->valid = whole && (nlh->nlmsg_flags & NLM_F_REQUEST) && nlh->nlmsg_type == f->family;
	q->admin = q->valid && nlf_cmd_admin(g->cmd);
	q->big_flows = q->admin && nlf_big_flows(f, f->msg + NLMSG_HDRLEN + GENL_HDRLEN,
						 nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN);
	f->cmd[q->cmd].sent++;
	if (f->len > 64 * 1024)
		f->oversized++;
}

static void nlf_trace(struct nlf *f)
{
	size_t i;

	if (!f->trace_from || f->messages + 1 < f->trace_from)
		return;
	fprintf(stderr, "msg %" PRIu64 " len %zu:", f->messages + 1, f->len);
	for (i = 0; i < f->len; i++)
		fprintf(stderr, "%s%02x", i % 32 ? "" : "\n ", f->msg[i]);
	fputc('\n', stderr);
	fflush(stderr);
}

/* Appends the message in f->msg to the datagram being assembled. */
static void nlf_queue(struct nlf *f)
{
	size_t n = NLMSG_ALIGN(f->len);

	size_t i;

	if (f->blen + n > NLF_BATCH_MAX)
		return;
	nlf_trace(f);
	for (i = 0; i < f->len; i++) {
		if (i == offsetof(struct nlmsghdr, nlmsg_type) ||
		    i == offsetof(struct nlmsghdr, nlmsg_type) + 1)
			continue;
		f->digest = (f->digest ^ f->msg[i]) * 0x100000001b3ULL;
	}
	nlf_remember(f);
	memcpy(f->batch + f->blen, f->msg, f->len);
	memset(f->batch + f->blen + f->len, 0, n - f->len);
	f->blen += n;
	f->bmsgs++;
	f->messages++;
}

static struct nlf_req *nlf_lookup(struct nlf *f, uint32_t seq)
{
	struct nlf_req *q = &f->ring[seq % NLF_RING];

	return q->seq == seq ? q : NULL;
}

/*
 * A reply of another family's type is that family's: the generic netlink
 * core stamps afw's replies with afw's id, whatever the request held. A
 * mutation sends a request there by its type, or by a length that makes
 * the kernel read a header inside the request's attributes (seen in the
 * 1M run: type 20, seq 0x40005, which is an attribute header's bytes).
 * Other families answer in the initial namespace. Not afw's to judge.
 */
static bool nlf_foreign_reply(const struct nlf *f, const struct nlmsghdr *nlh)
{
	return nlh->nlmsg_type >= NLMSG_MIN_TYPE && nlh->nlmsg_type != f->family;
}

static bool nlf_attrs_tile(const uint8_t *p, size_t len)
{
	const struct nlattr *a;
	size_t off = 0;

	while (off < len) {
		if (len - off < NLA_HDRLEN)
			return false;
		a = (const struct nlattr *)(p + off);
		if (a->nla_len < NLA_HDRLEN || a->nla_len > len - off)
			return false;
		if (a->nla_type & NLA_F_NESTED &&
		    !nlf_attrs_tile(p + off + NLA_HDRLEN, a->nla_len - NLA_HDRLEN))
			return false;
		off += NLA_ALIGN(a->nla_len);
	}
	return true;
}

/* The nests of a reply the uapi header defines, checked one level down. */
static bool nlf_reply_ok(const struct nlmsghdr *nlh)
{
	const uint8_t *p = (const uint8_t *)nlh + NLMSG_HDRLEN + GENL_HDRLEN;
	size_t len, off = 0;
	const struct nlattr *a;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return false;
	len = nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	if (!nlf_attrs_tile(p, len))
		return false;
	while (off < len) {
		a = (const struct nlattr *)(p + off);
		switch (a->nla_type & NLA_TYPE_MASK) {
		case AFW_A_COUNTERS:
		case AFW_A_RULE:
		case AFW_A_FLOW:
		case AFW_A_CONFIG:
		case AFW_A_STATS:
			if (!nlf_attrs_tile(p + off + NLA_HDRLEN, a->nla_len - NLA_HDRLEN))
				return false;
			break;
		}
		off += NLA_ALIGN(a->nla_len);
	}
	return true;
}

static void nlf_result(struct nlf *f, uint32_t seq, int error, bool data)
{
	struct nlf_req *q = nlf_lookup(f, seq);

	if (!q)
		return;
	if (error) {
		f->cmd[q->cmd].err++;
		if (error < 0 && -error <= NLF_MAX_ERRNO)
			f->err_by_errno[-error]++;
		if (f->expect == EXPECT_ADMIN && q->valid && error == -EPERM &&
		    (f->init_userns || !q->big_flows))
			nlf_violation(f, "%s refused with EPERM to an admin of the namespace",
				      nlf_cmd_names[q->cmd]);
		return;
	}
	f->cmd[q->cmd].ok++;
	if (f->expect == EXPECT_EPERM && q->admin)
		nlf_violation(f, "%s %s without CAP_NET_ADMIN over the namespace",
			      nlf_cmd_names[q->cmd], data ? "answered with data" : "acknowledged");
	/* One success per request is enough to count. */
	q->seq = 0;
}

/*
 * Reads what is waiting on @s without blocking; at most @max datagrams
 * (0: until none is left, which also runs a dump to its end, since each
 * read makes the kernel fill the next part). Returns the datagrams read.
 */
static unsigned int nlf_drain(struct nlf *f, struct nlf_sock *s, unsigned int max)
{
	const struct nlmsghdr *nlh;
	const struct nlmsgerr *e;
	unsigned int got = 0;
	ssize_t n;
	int rem;

	if (f->dry)
		return 0;
	while (!max || got < max) {
		n = recv(s->fd, f->rbuf, NLF_RBUF, MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				f->enobufs++;
				continue;
			}
			break;
		}
		got++;
		if (n > NLF_RBUF) {
			f->truncated_replies++;
			continue;
		}
		rem = (int)n;
		for (nlh = (const struct nlmsghdr *)f->rbuf; mnl_nlmsg_ok(nlh, rem);
		     nlh = mnl_nlmsg_next(nlh, &rem)) {
			f->replies++;
			if (nlh->nlmsg_pid != s->portid)
				nlf_violation(f, "reply for port %u on port %u", nlh->nlmsg_pid,
					      s->portid);
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*e)) {
					nlf_violation(f, "error message of %u bytes", nlh->nlmsg_len);
					continue;
				}
				e = mnl_nlmsg_get_payload(nlh);
				if (e->error > 0)
					nlf_violation(f, "positive error %d", e->error);
				if (!e->error)
					f->acks_ok++;
				nlf_result(f, nlh->nlmsg_seq, e->error, false);
			} else if (nlh->nlmsg_type == NLMSG_DONE) {
				int err = 0;

				f->dump_msgs++;
				if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(err))
					memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
				nlf_result(f, nlh->nlmsg_seq, err, false);
			} else if (nlh->nlmsg_type == f->family) {
				if (!nlf_reply_ok(nlh))
					nlf_violation(f, "malformed reply, cmd %u, %u bytes",
						      ((const struct genlmsghdr *)
						       mnl_nlmsg_get_payload(nlh))->cmd, nlh->nlmsg_len);
				if (nlh->nlmsg_flags & NLM_F_MULTI)
					f->dump_msgs++;
				nlf_result(f, nlh->nlmsg_seq, 0, true);
			} else if (nlf_foreign_reply(f, nlh)) {
				f->foreign_replies++;
			} else if (nlh->nlmsg_type != NLMSG_NOOP && nlh->nlmsg_type != NLMSG_OVERRUN) {
				const struct nlf_req *q = nlf_lookup(f, nlh->nlmsg_seq);

				nlf_violation(f, "reply of type %u, flags %#x, seq %u (%s %d), %u bytes",
					      nlh->nlmsg_type, nlh->nlmsg_flags, nlh->nlmsg_seq,
					      q ? "a request of type" : "no request of ours",
					      q ? q->type : -1, nlh->nlmsg_len);
			}
		}
		if (rem > 0 && rem >= (int)sizeof(struct nlmsghdr))
			nlf_violation(f, "%d bytes of a reply do not form a message", rem);
	}
	return got;
}

static void nlf_send(struct nlf *f, struct nlf_sock *s)
{
	if (!f->bmsgs)
		return;
	f->datagrams++;
	if (f->bmsgs > 1)
		f->batches++;
	if (!f->dry && send(s->fd, f->batch, f->blen, 0) < 0)
		f->send_err++;
	f->blen = 0;
	f->bmsgs = 0;
}

/* ------------------------------------------------------------------ */
/* What one step of the run does. */

static const uint8_t nlf_cmds[] = {
	AFW_CMD_STATUS_GET, AFW_CMD_COUNTERS_RESET, AFW_CMD_RULE_NEW, AFW_CMD_RULE_NEW,
	AFW_CMD_RULE_NEW, AFW_CMD_RULE_DEL, AFW_CMD_RULE_DEL, AFW_CMD_RULE_GET,
	AFW_CMD_RULE_FLUSH, AFW_CMD_RULESET_REPLACE, AFW_CMD_RULESET_REPLACE,
	AFW_CMD_RULESET_REPLACE, AFW_CMD_FLOW_NEW, AFW_CMD_FLOW_NEW, AFW_CMD_FLOW_NEW,
	AFW_CMD_FLOW_DEL, AFW_CMD_FLOW_DEL, AFW_CMD_FLOW_GET, AFW_CMD_FLOW_FLUSH,
	AFW_CMD_CONFIG_GET, AFW_CMD_CONFIG_SET, AFW_CMD_CONFIG_SET, AFW_CMD_STATS_GET,
	AFW_CMD_QUEUE_SERVE, AFW_CMD_OWNER_GET, AFW_CMD_UNSPEC, AFW_CMD_MAX + 1,
};

/* Builds one message in f->msg: valid, mutated, or random. */
static void nlf_build(struct nlf *f)
{
	struct nlf_rng *r = &f->rng;
	uint8_t cmd = NLF_PICK(r, nlf_cmds);
	unsigned int mode = nlf_below(r, 100);
	uint16_t flags = nlf_chance(r, 90) ? NLM_F_ACK : 0;

	if (nlf_cmd_dump(cmd) && nlf_chance(r, 90))
		flags |= NLM_F_DUMP;
	else if (nlf_chance(r, 3))
		flags |= NLM_F_DUMP;
	if (mode < 80) {
		nlf_header(f, cmd, flags);
		nlf_valid_body(f, cmd);
		nlf_finish(f);
		if (mode >= 45)
			nlf_mutate(f);
	} else {
		nlf_header(f, nlf_chance(r, 90) ? cmd : (uint8_t)nlf_rand(r), flags);
		nlf_random_attrs(f, nlf_chance(r, 80) ? S_TOP : nlf_below(r, S_NSETS), 0);
		nlf_finish(f);
	}
}

/* Requests near the socket's size limit: three full AFW_A_RULES nests. */
static void nlf_oversized(struct nlf *f)
{
	unsigned int i;

	nlf_header(f, AFW_CMD_RULESET_REPLACE, NLM_F_ACK);
	nlf_u32(f, AFW_A_REPLACE_FLAGS, nlf_below(&f->rng, 4));
	for (i = 0; i < 3; i++)
		nlf_valid_rules(f, 100000);
	nlf_finish(f);
	if (nlf_chance(&f->rng, 50))
		nlf_mutate(f);
}

static struct nlf_sock *nlf_pick_sock(struct nlf *f)
{
	return &f->socks[nlf_below(&f->rng, f->nsocks)];
}

static int nlf_reopen(struct nlf *f, struct nlf_sock *s)
{
	nlf_sock_close(s);
	f->reopens++;
	return nlf_sock_open(f, s);
}

/* A dump read for a while, then left: closed, interrupted, or read to its end. */
static int nlf_dump_step(struct nlf *f)
{
	struct nlf_rng *r = &f->rng;
	struct nlf_sock *s = nlf_pick_sock(f);
	unsigned int parts = nlf_below(r, 4);

	nlf_header(f, nlf_chance(r, 50) ? AFW_CMD_RULE_GET : AFW_CMD_FLOW_GET,
		   NLM_F_DUMP | (nlf_chance(r, 50) ? NLM_F_ACK : 0));
	nlf_finish(f);
	nlf_queue(f);
	nlf_send(f, s);
	f->dumps++;
	switch (nlf_below(r, 4)) {
	case 0:
		nlf_drain(f, s, 0);
		return 0;
	case 1:	/* the reader goes away in the middle */
		nlf_drain(f, s, parts);
		f->dumps_left++;
		return nlf_reopen(f, s);
	case 2:	/* another request, dump or not, before the first is done */
		nlf_drain(f, s, parts);
		f->dumps_left++;
		nlf_build(f);
		nlf_queue(f);
		nlf_send(f, s);
		nlf_drain(f, s, 0);
		return 0;
	default: /* left as it is; the socket's next use reads the rest */
		nlf_drain(f, s, parts);
		f->dumps_left++;
		return 0;
	}
}

/* A replace transaction begun on one socket and never committed by it. */
static int nlf_replace_step(struct nlf *f)
{
	struct nlf_rng *r = &f->rng;
	struct nlf_sock *a = nlf_pick_sock(f), *b = nlf_pick_sock(f);
	unsigned int i, parts = nlf_below(r, 3);

	nlf_header(f, AFW_CMD_RULESET_REPLACE, NLM_F_ACK);
	nlf_u32(f, AFW_A_REPLACE_FLAGS, AFW_REPLACE_F_BEGIN);
	if (nlf_chance(r, 70))
		nlf_valid_rules(f, nlf_rules_count(f));
	nlf_finish(f);
	nlf_queue(f);
	nlf_send(f, a);
	nlf_drain(f, a, 0);
	f->replace_begun++;
	for (i = 0; i < parts; i++) {
		nlf_header(f, AFW_CMD_RULESET_REPLACE, NLM_F_ACK);
		nlf_valid_rules(f, nlf_rules_count(f));
		nlf_finish(f);
		if (nlf_chance(r, 20))
			nlf_mutate(f);
		nlf_queue(f);
		nlf_send(f, a);
		nlf_drain(f, a, 0);
	}
	switch (nlf_below(r, 3)) {
	case 0:	/* the socket closes with the transaction open */
		f->replace_abandoned++;
		return nlf_reopen(f, a);
	case 1:	/* another socket begins (EBUSY), or commits one it never began */
		nlf_header(f, AFW_CMD_RULESET_REPLACE, NLM_F_ACK);
		nlf_u32(f, AFW_A_REPLACE_FLAGS,
			nlf_chance(r, 50) ? AFW_REPLACE_F_BEGIN : AFW_REPLACE_F_COMMIT);
		nlf_finish(f);
		nlf_queue(f);
		nlf_send(f, b);
		nlf_drain(f, b, 0);
		f->replace_abandoned++;
		return 0;
	default: /* left open; a later BEGIN or close ends it */
		f->replace_abandoned++;
		return 0;
	}
}

static int nlf_step(struct nlf *f)
{
	struct nlf_rng *r = &f->rng;
	unsigned int p = nlf_below(r, 1000), i, n;
	struct nlf_sock *s;

	if (p < 10)
		return nlf_reopen(f, nlf_pick_sock(f));
	if (p < 40)
		return nlf_replace_step(f);
	if (p < 90)
		return nlf_dump_step(f);
	s = nlf_pick_sock(f);
	if (p < 95) {
		nlf_oversized(f);
		nlf_queue(f);
	} else if (p < 195) {
		n = 2 + nlf_below(r, 15);
		for (i = 0; i < n; i++) {
			nlf_build(f);
			nlf_queue(f);
		}
	} else {
		nlf_build(f);
		nlf_queue(f);
	}
	nlf_send(f, s);
	nlf_drain(f, s, 0);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The end of a run: the family answers, and what the rights allow holds. */

struct nlf_stats_view {
	int64_t rules, flows;
};

static int nlf_stats_attr(const struct nlattr *a, void *data)
{
	struct nlf_stats_view *v = data;

	if (mnl_attr_get_type(a) == AFW_STATS_A_RULES && mnl_attr_validate(a, MNL_TYPE_U32) == 0)
		v->rules = mnl_attr_get_u32(a);
	if (mnl_attr_get_type(a) == AFW_STATS_A_FLOWS && mnl_attr_validate(a, MNL_TYPE_U32) == 0)
		v->flows = mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

static int nlf_stats_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN)
		if (mnl_attr_get_type(a) == AFW_A_STATS)
			mnl_attr_parse_nested(a, nlf_stats_attr, data);
	return MNL_CB_OK;
}

static int nlf_final_checks(struct nlf *f)
{
	struct nlf_stats_view v = { -1, -1 };
	struct afw_nl *nl = malloc(sizeof(*nl));
	unsigned int c;
	int ret;

	if (!nl)
		return -ENOMEM;
	ret = afw_nl_open(nl);
	if (ret) {
		nlf_violation(f, "the family no longer answers: %s", strerror(-ret));
		free(nl);
		return ret;
	}
	ret = afw_nl_talk(nl, afw_nl_request(nl, AFW_CMD_STATUS_GET, 0), NULL, NULL);
	if (ret)
		nlf_violation(f, "STATUS_GET fails after the run: %s", strerror(-ret));
	if (f->check_flush) {
		if (afw_nl_talk(nl, afw_nl_request(nl, AFW_CMD_RULE_FLUSH, 0), NULL, NULL) ||
		    afw_nl_talk(nl, afw_nl_request(nl, AFW_CMD_FLOW_FLUSH, 0), NULL, NULL))
			nlf_violation(f, "flushing rules and flows fails after the run");
		ret = afw_nl_talk(nl, afw_nl_request(nl, AFW_CMD_STATS_GET, 0), nlf_stats_cb, &v);
		if (ret || v.rules != 0 || v.flows != 0)
			nlf_violation(f, "after a flush STATS_GET says %" PRId64 " rules, %" PRId64
				      " flows (%s)", v.rules, v.flows, ret ? strerror(-ret) : "ok");
	}
	if (f->expect == EXPECT_ADMIN) {
		/*
		 * No process sends through the fuzzer's namespace: OWNER_GET
		 * finds no owner there, and answers ENOENT.
		 */
		for (c = 0; c <= AFW_CMD_MAX; c++)
			if (nlf_cmd_admin(c) && !f->cmd[c].ok && c != AFW_CMD_OWNER_GET)
				nlf_violation(f, "%s never succeeded for an admin of the namespace",
					      nlf_cmd_names[c]);
	}
	if (f->expect == EXPECT_EPERM && f->err_by_errno[EPERM] == 0)
		nlf_violation(f, "no request was refused with EPERM");
	if (f->expect != EXPECT_NONE &&
	    (!f->cmd[AFW_CMD_STATUS_GET].ok || !f->cmd[AFW_CMD_STATS_GET].ok))
		nlf_violation(f, "a reading command never succeeded");
	afw_nl_close(nl);
	free(nl);
	return 0;
}

static void nlf_report(const struct nlf *f, double secs)
{
	unsigned int c, e;

	printf("nlfuzz: seed %" PRIu64 ", %" PRIu64 " messages in %" PRIu64 " datagrams (%" PRIu64
	       " batches, %" PRIu64 " oversized) in %.1f s, %.0f messages/s\n",
	       f->seed, f->messages, f->datagrams, f->batches, f->oversized, secs,
	       secs > 0 ? f->messages / secs : 0.0);
	printf("nlfuzz: %" PRIu64 " dumps (%" PRIu64 " left midway), %" PRIu64
	       " replace transactions begun and abandoned, %" PRIu64 " socket reopens\n",
	       f->dumps, f->dumps_left, f->replace_abandoned, f->reopens);
	printf("nlfuzz: %" PRIu64 " reply messages, %" PRIu64 " acks, %" PRIu64 " send errors, %"
	       PRIu64 " ENOBUFS, %" PRIu64 " truncated, %" PRIu64 " from other families\n",
	       f->replies, f->acks_ok, f->send_err, f->enobufs, f->truncated_replies,
	       f->foreign_replies);
	printf("nlfuzz: per command (sent ok err):");
	for (c = 0; c < NLF_CMDS; c++)
		printf(" %s %" PRIu64 "/%" PRIu64 "/%" PRIu64, nlf_cmd_names[c], f->cmd[c].sent,
		       f->cmd[c].ok, f->cmd[c].err);
	printf("\nnlfuzz: errors:");
	for (e = 1; e <= NLF_MAX_ERRNO; e++)
		if (f->err_by_errno[e])
			printf(" %s %" PRIu64, strerrorname_np((int)e) ?: "?", f->err_by_errno[e]);
	printf("\nnlfuzz: messages digest %016" PRIx64 "\n", f->digest);
	printf("nlfuzz: %" PRIu64 " violations\n", f->violations);
}

static void nlf_usage(FILE *out)
{
	fprintf(out, "usage: nlfuzz [--seed N] [--count N] [--seconds S] [--sockets N]\n"
		     "              [--expect admin|eperm] [--check-flush] [--trace-from N]\n"
		     "              [--dry-run]\n");
}

static double nlf_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * What the kernel's max_flows check will make of this process: the module's
 * bound (65536 unless the parameter says otherwise), and whether we are in
 * the initial user namespace, whose admin may go past it.
 */
static void nlf_rights(struct nlf *f)
{
	unsigned long lo, hi, n;
	FILE *fp;

	f->flows_bound = 65536;
	fp = fopen("/sys/module/afw/parameters/max_flows", "r");
	if (fp) {
		if (fscanf(fp, "%lu", &n) == 1 && n <= UINT32_MAX)
			f->flows_bound = (uint32_t)n;
		fclose(fp);
	}
	f->init_userns = false;
	fp = fopen("/proc/self/uid_map", "r");
	if (fp) {
		f->init_userns = fscanf(fp, "%lu %lu %lu", &lo, &hi, &n) == 3 && !lo && !hi &&
				 n == 4294967295UL;
		fclose(fp);
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 't' },
		{ "sockets", required_argument, NULL, 'k' },
		{ "expect", required_argument, NULL, 'e' },
		{ "trace-from", required_argument, NULL, 'T' },
		{ "check-flush", no_argument, NULL, 'F' },
		{ "dry-run", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct nlf *f = calloc(1, sizeof(*f));
	struct afw_nl *nl = malloc(sizeof(*nl));
	uint64_t next_report = 100000;
	unsigned int i;
	double start;
	int c, ret;

	if (!f || !nl)
		return 2;
	f->seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	f->count = 10000;
	f->nsocks = 4;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's': f->seed = strtoull(optarg, NULL, 0); break;
		case 'n': f->count = strtoull(optarg, NULL, 0); break;
		case 't': f->seconds = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'k': f->nsocks = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'T': f->trace_from = strtoull(optarg, NULL, 0); break;
		case 'F': f->check_flush = true; break;
		case 'D': f->dry = true; break;
		case 'e':
			if (!strcmp(optarg, "admin"))
				f->expect = EXPECT_ADMIN;
			else if (!strcmp(optarg, "eperm"))
				f->expect = EXPECT_EPERM;
			else {
				nlf_usage(stderr);
				return 2;
			}
			break;
		case 'h':
			nlf_usage(stdout);
			return 0;
		default:
			nlf_usage(stderr);
			return 2;
		}
	}
	if (optind != argc || !f->nsocks || f->nsocks > NLF_MAX_SOCKS) {
		nlf_usage(stderr);
		return 2;
	}
	printf("nlfuzz: seed %" PRIu64 " (repeat: --seed %" PRIu64 " --count %" PRIu64 ")\n",
	       f->seed, f->seed, f->count);
	fflush(stdout);
	f->rng.s = f->seed;
	/* Far from the small numbers a mangled message carries as its sequence. */
	f->seq = 0x40000000 + (uint32_t)(nlf_rand(&f->rng) >> 34);

	f->digest = 0xcbf29ce484222325ULL;
	nlf_rights(f);
	if (f->dry) {
		f->family = 0x20;
	} else {
		ret = afw_nl_open(nl);
		if (ret) {
			fprintf(stderr, "nlfuzz: cannot reach the afw family: %s\n", strerror(-ret));
			return 2;
		}
		f->family = nl->family_id;
		afw_nl_close(nl);
	}
	free(nl);

	f->msg = malloc(NLF_MSG_MAX + 64);
	f->batch = malloc(NLF_BATCH_MAX);
	f->rbuf = malloc(NLF_RBUF);
	if (!f->msg || !f->batch || !f->rbuf)
		return 2;
	for (i = 0; i < f->nsocks; i++) {
		ret = nlf_sock_open(f, &f->socks[i]);
		if (ret) {
			fprintf(stderr, "nlfuzz: netlink socket: %s\n", strerror(-ret));
			return 2;
		}
	}

	start = nlf_now();
	while (f->messages < f->count) {
		if (f->seconds && nlf_now() - start > f->seconds)
			break;
		ret = nlf_step(f);
		if (ret) {
			fprintf(stderr, "nlfuzz: reopening a socket: %s\n", strerror(-ret));
			return 2;
		}
		if (f->messages >= next_report) {
			printf("nlfuzz: %" PRIu64 " messages, %.0f s\n", f->messages, nlf_now() - start);
			fflush(stdout);
			next_report += 100000;
		}
	}
	for (i = 0; i < f->nsocks; i++) {
		nlf_drain(f, &f->socks[i], 0);
		nlf_sock_close(&f->socks[i]);
	}
	if (!f->dry)
		nlf_final_checks(f);
	nlf_report(f, nlf_now() - start);
	return f->violations ? 1 : 0;
}
