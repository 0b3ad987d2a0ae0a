/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The analysis of new flows, the same for live queues and for captures:
 * packets in, one decision per flow out. Reassembly, the TLS, QUIC and HTTP
 * readers and the policy meet here.
 *
 * While a flow is being analyzed its packets pass (they are accepted and
 * the flow stays queued); the packet that completes the ClientHello or the
 * request head is the one that gets the decision, so a denied flow's server
 * never receives a complete ClientHello. A TCP flow that is allowed is
 * handed over only once the server has acknowledged the bytes judged, and
 * until then every client segment must agree with them. docs/afwd.md,
 * "What afwd guarantees", says why.
 */
#ifndef AFW_ENGINE_H
#define AFW_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "facts.h"
#include "pkt.h"
#include "policy.h"

struct afw_result;

struct afw_engine_opts {
	unsigned int max_flows;		/* flows under analysis at once */
	uint32_t max_bytes;		/* client bytes reassembled per flow */
	unsigned int max_packets;	/* client packets per flow that bring no new bytes */
	uint64_t max_ns;		/* analysis time without progress */
	unsigned int max_decided;	/* decided flows remembered (least recently seen go) */
	uint64_t max_memory;		/* bytes of all flows' buffers together */
	/*
	 * Asks who started a flow, when a rule tests it (facts.h); NULL:
	 * nobody to ask, and such rules never match.
	 */
	int (*owner_fetch)(void *ctx, const struct afw_facts *f, struct afw_owner_info *out);
	void *owner_ctx;
	/*
	 * The policy said ask for the flow of @res: returns what an answer
	 * given earlier decides (allow, deny or reject), or AFW_DECIDE_ASK to
	 * hold the flow until afw_engine_answer(); may add to res->reason.
	 * NULL: nobody to ask, and the policy's ask-default decides at once.
	 */
	enum afw_decision (*ask)(void *ctx, const struct afw_policy *pol, struct afw_result *res);
	void *ask_ctx;
};

/* Defaults, and why, in docs/afwd.md ("What afwd guarantees"). */
#define AFW_ENGINE_MAX_FLOWS	65536
#define AFW_ENGINE_MAX_BYTES	(1u << 20)
#define AFW_ENGINE_MAX_PACKETS	64
#define AFW_ENGINE_MAX_NS	5000000000ull
#define AFW_ENGINE_MAX_MEMORY	(256ull << 20)
/* A SYN the server does not answer, or judged bytes it does not acknowledge. */
#define AFW_ENGINE_WAIT_NS	30000000000ull
/* OpenSSL's CLIENT_HELLO_MAX_LENGTH (ssl/statem/statem_srvr.c) and its header. */
#define AFW_ENGINE_MAX_HELLO	(131396 + 4)

/* What happens to one packet. */
enum afw_pass {
	AFW_PASS_ACCEPT,
	AFW_PASS_DROP,
	AFW_PASS_REJECT,		/* drop and answer: RST or ICMP unreachable */
};

#define AFW_RESULT_HOST 256
#define AFW_RESULT_ALPN 256

/* One decided flow: what was seen, what was decided and why. */
struct afw_result {
	int family;			/* AF_INET or AF_INET6 */
	uint8_t l4proto;
	uint8_t src[16], dst[16];	/* client, server */
	uint16_t sport, dport;
	/*
	 * An ICMP echo's flow: what its client sends (AFW_PKT_ECHO_REQUEST
	 * when the client pings, AFW_PKT_ECHO_REPLY when the server does) and
	 * the identifier; the ports stay 0, as for any ICMP.
	 */
	uint8_t echo;
	uint16_t icmp_id;
	uint8_t icmp_code;		/* the echo's code: conntrack keys it */
	enum afw_l7 l7;
	char host[AFW_RESULT_HOST];	/* SNI or HTTP Host; "" if none */
	/*
	 * The offered ALPN ids as on the wire (a length byte, then the id),
	 * the first ones that fit whole; n_alpn counts them all, so more
	 * were offered when it exceeds those in alpn. Ids are bytes: ',' and
	 * NUL among them are possible, and the report escapes them.
	 */
	uint8_t alpn[AFW_RESULT_ALPN];
	size_t alpn_len;
	unsigned int n_alpn;
	bool ech;			/* encrypted_client_hello: host is the outer name */
	enum afw_reason giveup;		/* why the flow could not be named, or NONE */
	char ja4[40];
	uint16_t tls_version;		/* 0 if not TLS or QUIC */
	char http_method[17];
	enum afw_decision decision;
	unsigned int rule_line;		/* policy line that decided; 0 for none */
	bool is_default;
	/*
	 * quiet: an earlier decision (logged then) reaching its flow's first
	 * packet since: install it, do not log it again. per_packet: for this
	 * packet only (it could not be decoded): no flow to install or mark.
	 */
	bool quiet, per_packet;
	char reason[128];		/* why, in words */
	bool has_uid;
	uint32_t uid;
	/*
	 * Who started it, when the policy asked (a rule tested its program):
	 * its pid, task name and program, the program's path cut to fit.
	 */
	bool has_owner;
	bool owner_listener;		/* the local socket of an inbound flow: no process */
	uint32_t owner_pid, owner_gid;
	char owner_comm[16];
	char owner_exe[256];
	bool owner_exe_cut;		/* longer than owner_exe: "..." ends it */
	char owner_cgroup[192];
	uint8_t dir;			/* enum afw_dir, as the policy saw it */
	uint32_t iif, oif;
	/* Decided by its ends alone, unread (afw_policy_settled()). */
	bool settled;
	/*
	 * And by its key alone (afw_policy_match.keyed): the module may take
	 * the decision for every new connection to the same place.
	 */
	bool keyed;
	/*
	 * An answered ask allowed a connection whose judged bytes the server
	 * has not acknowledged: not to install yet. Its packets keep coming,
	 * and the acknowledgement brings the flow back, quiet, to install.
	 */
	bool deferred;
	/*
	 * With afw_engine_kernel_confirm() on: an allow, not final, that the
	 * module is to hold unconfirmed (AFW_FLOW_A_CONFIRM) until the server
	 * acknowledges the judged bytes, up to @confirm_ack and no further
	 * than @confirm_end, in a packet that comes in on @confirm_iif.
	 */
	bool kernel_confirm;
	uint32_t confirm_ack, confirm_end, confirm_iif;
	/* Final: the module confirmed the flow it holds, as told (installed). */
	bool kernel_confirmed;
	/* Final, never acknowledged: the module's unconfirmed flow is to go. */
	bool kernel_unconfirmed;
	uint64_t packets;		/* seen before the decision */
};

struct afw_engine_stats {
	uint64_t packets;
	uint64_t decided_packets;	/* of flows decided already: inspected */
	uint64_t flows;			/* flows that started analysis */
	uint64_t decided[__AFW_DECIDE_MAX];
	uint64_t bounds;		/* decided because a bound was hit */
	uint64_t evasions;		/* conflicting data: dropped */
	uint64_t malformed;		/* packets that could not be decoded */
	uint64_t table_full;		/* new flows decided at once: no room */
	uint64_t discarded;		/* client segments the server would discard: dropped */
	uint64_t unstored;		/* client segments afwd could not store: dropped */
	uint64_t restarts;		/* a new connection on a known 5-tuple */
	uint64_t confirmed;		/* allowed once the server acknowledged the judged bytes */
	uint64_t unconfirmed;		/* never acknowledged: kept out of the kernel */
	uint64_t memory;		/* bytes held in flow buffers now */
	uint64_t replies;		/* server packets of flows afwd never saw start: passed */
	uint64_t settled;		/* new flows decided by their ends alone, unread */
	uint64_t stalled;		/* past the analysis time, undecided: waiting */
	uint64_t stalled_forgotten;	/* of those, forgotten to make room */
};

struct afw_engine;

struct afw_engine *afw_engine_new(const struct afw_engine_opts *o);
void afw_engine_free(struct afw_engine *e);

/*
 * The flow key (afw_pkt_flow_key()) of the flow @res describes, as its
 * packets give it; returns the client's side of it.
 */
int afw_result_flow_key(const struct afw_result *res, struct afw_pkt_key *k);

/*
 * Forgets the answers given packet by packet (ICMP other than echoes,
 * packets that did not decode): nothing of them is installed, so a reload
 * reaches them only so, and their next packet meets the new policy.
 * Returns how many went.
 */
unsigned int afw_engine_forget_answers(struct afw_engine *e);

/*
 * Forgets every flow and decided record, and zeroes the counters: the
 * engine as afw_engine_new() left it, but for the allocations it keeps
 * (its tables and scratch buffers, which a fuzzer would otherwise make
 * again for every input). Returns the flow buffer memory the books still
 * showed once every flow was gone: 0, unless they are wrong.
 */
uint64_t afw_engine_reset(struct afw_engine *e);

/*
 * One packet of @p, sent at @now (ns) by a socket of @uid when @has_uid.
 * Returns what to do with it. When this packet decided its flow, *@res is
 * filled and *@decided set; the caller logs it and installs the flow.
 */
enum afw_pass afw_engine_packet(struct afw_engine *e, const struct afw_policy *pol,
				const struct afw_pkt *p, bool has_uid, uint32_t uid,
				uint64_t now, struct afw_result *res, bool *decided);

/*
 * Whether the headers of @p's flow are all afwd still reads: a decided TCP
 * flow kept as a record alone (no stream read, no HTTP request followed),
 * whose judged bytes the server has acknowledged. Such a flow's packets may
 * come from a queue that copies their first bytes only (@p->cut), and
 * afw_engine_packet() takes them but a SYN's; for any other flow it drops
 * them.
 */
bool afw_engine_headers_enough(struct afw_engine *e, const struct afw_pkt *p);

/*
 * Whether @p, from the headers queue, can be judged as it came: whole (it
 * fit the copy), or cut, not a SYN, of a flow whose headers are all afwd
 * reads. Otherwise afwd drops it and gives its flow back to whole packets.
 */
bool afw_engine_head_takes(struct afw_engine *e, const struct afw_pkt *p);

/*
 * A packet afw_pkt_decode() failed on: decided by the policy as reason
 * "undecodable", with what the decoder got to (family, addresses,
 * protocol). Packets that end alike are answered alike without asking
 * again. *@decided as afw_engine_packet(); the result is per_packet.
 */
enum afw_pass afw_engine_undecodable(struct afw_engine *e, const struct afw_policy *pol,
				     const struct afw_pkt *p, bool has_uid, uint32_t uid,
				     uint64_t now, struct afw_result *res, bool *decided);

typedef void (*afw_result_fn)(const struct afw_result *res, void *data);

/*
 * Decides the flows whose analysis time ran out by @now. With @all, decides
 * every flow still open (the end of a capture). Calls @fn for each decision
 * to log; the flow is installed from its next packet (a quiet result).
 */
void afw_engine_expire(struct afw_engine *e, const struct afw_policy *pol, uint64_t now, bool all,
		       afw_result_fn fn, void *data);

/*
 * A person answered @d (allow, deny or reject) for the held flow of @res,
 * a flow this engine decided as ask. Returns 1 when the caller installs it
 * now, 0 when it waits for the server to acknowledge its judged bytes (an
 * allowed TCP connection read past its handshake: res->deferred), -1 when
 * the engine no longer knows the flow (the caller installs it all the same).
 */
int afw_engine_answer(struct afw_engine *e, const struct afw_result *res, enum afw_decision d);

/* When afw_engine_expire() next has work, in ns; UINT64_MAX for never. */
uint64_t afw_engine_next_deadline(const struct afw_engine *e);

const struct afw_engine_stats *afw_engine_stats(const struct afw_engine *e);
unsigned int afw_engine_flows(const struct afw_engine *e);

/*
 * Flows allowed but for the server's acknowledgement of their judged bytes
 * that afwd must see itself: not those the module holds unconfirmed.
 */
unsigned int afw_engine_confirming(const struct afw_engine *e);

/*
 * Whether allows wait for the server in the module (res->kernel_confirm):
 * on while the module tells afwd of the packets that confirm them.
 */
void afw_engine_kernel_confirm(struct afw_engine *e, bool on);

/* What a flow's deciding packet gets for decision @d (ask: dropped, for the caller to hold). */
enum afw_pass afw_decision_pass(enum afw_decision d);
const char *afw_pass_name(enum afw_pass pass);
const char *afw_l7_name(enum afw_l7 l7);

#endif /* AFW_ENGINE_H */
