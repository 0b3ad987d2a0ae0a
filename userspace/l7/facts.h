/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What afwd knows about a flow when it decides: the analyzers fill this in
 * and the policy matcher reads it. It only points into the caller's
 * buffers (the reassembled ClientHello, the HTTP request...), so it costs
 * nothing to build and must not outlive them.
 */
#ifndef AFW_FACTS_H
#define AFW_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The application protocol the analyzers recognised. */
enum afw_l7 {
	AFW_L7_UNKNOWN,
	AFW_L7_TLS,
	AFW_L7_QUIC,
	AFW_L7_HTTP,
	AFW_L7_DNS,
	__AFW_L7_MAX
};
#define AFW_L7_MAX (__AFW_L7_MAX - 1)

/*
 * Why the analyzers could not name a flow (l7 is then "unknown"), so that
 * a policy decides each kind of give-up on its own terms instead of
 * sending them all to the default. AFW_REASON_NONE: the flow was read.
 * The policy word "reason" takes the names in afw_reason_name().
 */
enum afw_reason {
	AFW_REASON_NONE,
	AFW_REASON_TIMEOUT,	/* the analysis time ran out */
	AFW_REASON_BOUND,	/* a byte or packet bound was reached first */
	AFW_REASON_TABLE_FULL,	/* no room to analyze one more flow */
	AFW_REASON_NOT_TLS,	/* the first bytes are none of the protocols afwd reads */
	AFW_REASON_MALFORMED,	/* a protocol afwd reads, but broken */
	AFW_REASON_EVASION,	/* the flow contradicted itself, or tried to mislead */
	AFW_REASON_UNDECODABLE,	/* a packet afwd could not decode at all */
	AFW_REASON_MID_STREAM,	/* first seen after its start */
	__AFW_REASON_MAX
};
#define AFW_REASON_MAX (__AFW_REASON_MAX - 1)

/*
 * Who started the flow, seen from this host: a remote peer (in), this host
 * (out), or neither, the host routing it (forward). Learnt from the hook
 * at which the flow's first packet was queued; UNKNOWN for captures and
 * for hooks that cannot tell (prerouting).
 */
enum afw_dir {
	AFW_FDIR_UNKNOWN,
	AFW_FDIR_IN,
	AFW_FDIR_OUT,
	AFW_FDIR_FORWARD,
};

/*
 * Text from the network, not NUL-terminated; len == 0 means absent. The
 * parsers' spans (span.h) are the same bytes, seen as uint8_t.
 */
struct afw_text {
	const char *ptr;
	size_t len;
};

struct afw_facts;

/* The process that started a flow, as the kernel recorded it at the flow's birth. */
struct afw_owner_info {
	uint32_t uid, gid, pid;
	/* An inbound flow's local socket: no process (pid 0), no task, no program. */
	bool listener;
	char comm[16];
	char exe[4096];			/* "" when it has none (a kernel thread) */
	char cgroup[4096];		/* its path; "" when unknown */
};

/*
 * The owner of the flow being decided, asked for the first time a rule
 * tests it, and then kept for the rest of that decision: a flow whose
 * rules test no owner never costs the question.
 */
struct afw_owner_slot {
	int state;			/* 0: not asked; 1: @info holds it; -1: none */
	/* Fills @out for @f's flow; 0, or -1 when no owner is recorded. */
	int (*fetch)(void *ctx, const struct afw_facts *f, struct afw_owner_info *out);
	void *ctx;
	struct afw_owner_info info;
};

struct afw_facts {
	enum afw_l7 l7;
	enum afw_reason reason;		/* AFW_REASON_NONE unless l7 is unknown */
	/*
	 * The TLS or QUIC SNI, the HTTP Host without its ":port", or the name
	 * a DNS query asks for, as sent:
	 * the matcher ignores case and one trailing dot.
	 */
	struct afw_text host;
	/*
	 * The ALPN protocols the client offers, in its order, as on the wire
	 * (the ProtocolNameList body: a length byte, then that many bytes, for
	 * each id; afw_tls_alpn_next() walks it). The matcher reads every id,
	 * however many there are. len == 0: the client offers none.
	 */
	struct afw_text alpn;
	/* The ClientHello carries encrypted_client_hello: host is the outer, public name. */
	bool ech;
	struct afw_text ja4;		/* e.g. "t13d1516h2_8daaf6152771_e5627efa2ab1" */
	int family;			/* AF_INET or AF_INET6 */
	uint8_t saddr[16], daddr[16];	/* client, server; network order, AF_INET in 4 bytes */
	uint16_t sport, dport;		/* host order; meaningful for port protocols only */
	/*
	 * An ICMP echo's flow: what its client (the pinger, but for a host
	 * pinging itself) sends, AFW_PKT_ECHO_*, and the identifier. For
	 * asking who sent it; rules do not test them.
	 */
	uint8_t echo;
	uint16_t icmp_id;
	uint8_t dir;			/* enum afw_dir of the client's packets */
	uint32_t iif, oif;		/* the client's packets' interfaces; 0: none or unknown */
	uint8_t l4proto;		/* IPPROTO_TCP, IPPROTO_UDP, ... */
	bool has_uid;			/* false for forwarded traffic and unknown owners */
	uint32_t uid;
	/*
	 * Where the owning process is asked for (exe, comm, group, cgroup,
	 * unit); NULL where there is none to ask (a capture, no module).
	 */
	struct afw_owner_slot *owner;
};

/*
 * The flow's owner, asked for through facts->owner the first time in a
 * decision and kept for the rest of it; NULL when it has none, or there is
 * none to ask (policy_match.c).
 */
const struct afw_owner_info *afw_facts_owner(const struct afw_facts *f);

#endif /* AFW_FACTS_H */
