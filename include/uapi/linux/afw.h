/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * afw: application firewall, generic netlink protocol.
 *
 * This header is the only definition of the protocol; the module and the
 * userspace tools both include it.
 *
 * Family "afw", version AFW_GENL_VERSION. All state is per network namespace:
 * a request acts on the namespace of the netlink socket it arrives on.
 *
 * Commands
 * --------
 * AFW_CMD_STATUS_GET (doit, any user)
 *	request: no attributes
 *	reply:   AFW_A_MODULE_VERSION  NLA_NUL_STRING
 *	         AFW_A_MALFORMED       NLA_U64, packets dropped as malformed
 *	         AFW_A_DROPPED         NLA_U64, packets dropped by drop/reject rules
 *	         AFW_A_QUEUED          NLA_U64, packets handed to NFQUEUE
 *	         AFW_A_ACTIVE          NLA_U8, 1 once the namespace has been
 *	                               configured: afw registers its hooks, and
 *	                               counts, only from then on
 *	         AFW_A_UNSERVED_DROPPED NLA_U64, of AFW_A_QUEUED: sent to a queue
 *	                               no analyzer serves (QUEUE_SERVE) while
 *	                               failing closed: NFQUEUE dropped them,
 *	                               unless a program that never said so
 *	                               listens there
 *	         AFW_A_UNSERVED_PASSED NLA_U64, the same while failing open:
 *	                               passed unjudged
 *	         AFW_A_COUNTERS        NLA_NESTED
 *	           AFW_COUNTERS_A_HOOK NLA_NESTED, one per (family, direction):
 *	             AFW_HOOK_A_FAMILY    NLA_U8, AFW_FAMILY_*
 *	             AFW_HOOK_A_DIRECTION NLA_U8, AFW_DIR_*
 *	             AFW_HOOK_A_PACKETS   NLA_U64
 *	             AFW_HOOK_A_BYTES     NLA_U64
 *	Counters start at zero when the namespace is created or the module is
 *	loaded, and again after AFW_CMD_COUNTERS_RESET.
 *
 * AFW_CMD_COUNTERS_RESET (doit, CAP_NET_ADMIN in the namespace's user ns)
 *	request: no attributes
 *	reply:   ack only
 *	Zeroes the counters of STATUS_GET and STATS_GET; the sizes of the rule
 *	and flow tables are not counters and stay as they are.
 *
 * AFW_CMD_STATS_GET (doit, any user)
 *	request: no attributes
 *	reply:   AFW_A_STATS (NLA_NESTED, AFW_STATS_A_*): why packets got their
 *	         verdicts and how full the tables are. Every attribute below is
 *	         always sent.
 *	Packets by what decided them, NLA_U64 each:
 *	  FLOW_ACCEPT, FLOW_DROP, FLOW_REJECT, FLOW_INSPECT: an installed flow
 *	  RULE_ACCEPT, RULE_DROP, RULE_REJECT, RULE_QUEUE: the best matching rule
 *	  UNKNOWN_ACCEPT, UNKNOWN_DROP, UNKNOWN_QUEUE: no flow and no rule, the
 *	    unknown-flow policy (AFW_CFG_A_UNKNOWN)
 *	  MALFORMED: dropped before any of these
 *	  EXEMPT: passed without a decision: afw's own resets at LOCAL_OUT,
 *	    ICMPv6 neighbour discovery and MLD at LOCAL_IN/OUT that no rule took
 *	Every packet a hook counts (STATUS_GET) lands in exactly one of them.
 *	Queue and inspect count packets handed to NFQUEUE; where no analyzer
 *	listens, NFQUEUE then drops them (fail-closed) or accepts them
 *	(fail-open) without telling afw, so the fail mode decides their fate.
 *	Those sent to a queue no analyzer serves (QUEUE_SERVE) are counted
 *	again, by the fail mode: UNSERVED_DROP, UNSERVED_PASS.
 *	Table sizes, not reset:
 *	  RULES, MAX_RULES (NLA_U32): rules in the ruleset, and the bound
 *	  MASKS, MAX_MASKS (NLA_U32): distinct masks (hash tables probed per
 *	    packet) the ruleset needs, and the bound
 *	  RULESET_GEN (NLA_U64): bumped by every ruleset change
 *	  FLOWS, MAX_FLOWS (NLA_U32): flows in the table, and the bound
 *	Flow table events, NLA_U64 each:
 *	  FLOWS_INSERTED: FLOW_NEW requests that took
 *	  FLOWS_EXPIRED: flows removed after their idle timeout
 *	  FLOWS_CLOSED: flows removed after the closing time that a FIN or RST
 *	    started
 *	  FLOWS_EVICTED: live flows pushed out to make room (never assured)
 *	  FLOWS_REFUSED: inserts refused because the table was full of
 *	    assured flows
 *	  FLOWS_RESTARTED: flows a new TCP connection on their 5-tuple ended
 *	  FLOWS_RULE: flows accept rules installed (part of FLOWS_INSERTED)
 *	  FLOWS_CONFIRMED: flows installed unconfirmed that a packet confirmed
 *	Flow owners (AFW_FLOW_A_OWNER):
 *	  OWNERS (NLA_U32): owners recorded, at most MAX_FLOWS (not reset)
 *	  OWNERS_NOTED (NLA_U64): records made
 *	  OWNERS_LOST (NLA_U64): senders not recorded: the owners were at
 *	    MAX_FLOWS, or memory was short
 *
 * AFW_CMD_RULE_NEW (doit, admin)
 *	request: AFW_A_RULE (NLA_NESTED, AFW_RULE_A_*): the rule. AFW_RULE_A_ACTION
 *	         is required; a missing AFW_RULE_A_ID gets the highest id in use
 *	         plus one.
 *	         An id already in use is EEXIST.
 *	reply:   AFW_CMD_RULE_NEW carrying AFW_A_RULE with the rule as stored
 *
 * AFW_CMD_RULE_DEL (doit, admin)
 *	request: AFW_A_RULE with AFW_RULE_A_ID only. An unknown id is ENOENT.
 *
 * AFW_CMD_RULE_GET (dump, admin, like iptables -L)
 *	reply:   one message per rule, in evaluation order, each carrying
 *	         AFW_A_RULE (with AFW_RULE_A_PACKETS and _BYTES) and
 *	         AFW_A_RULESET_GEN. A dump that races with a change is flagged
 *	         NLM_F_DUMP_INTR.
 *
 * AFW_CMD_RULE_FLUSH (doit, admin): removes every rule.
 *
 * AFW_CMD_RULESET_REPLACE (doit, admin): replaces the whole ruleset at once.
 *	A ruleset may need many messages, so replacing is a transaction of the
 *	sending socket: the first message carries AFW_REPLACE_F_BEGIN, the last
 *	AFW_REPLACE_F_COMMIT (one message may carry both), and every message
 *	may carry AFW_A_RULES (NLA_NESTED) holding AFW_A_RULE entries.
 *	request: AFW_A_REPLACE_FLAGS (NLA_U32, AFW_REPLACE_F_*), AFW_A_RULES,
 *	         and with the commit, AFW_A_CONFIG (as CONFIG_SET takes it)
 *	Nothing changes until the commit, which publishes the new ruleset in
 *	one step: a packet sees the old rules or the new ones, never a mix.
 *	Settings sent with the commit take effect with the rules, or not at
 *	all when the commit fails: they are published right after the rules
 *	(a packet that runs between the two sees the new rules with the old
 *	settings), before the flows of rules that went are removed.
 *	Rules without an id get ids above the highest given, in order. Only one
 *	transaction per namespace runs at a time (EBUSY); it is dropped when
 *	its socket closes, or by a new BEGIN from the same socket.
 *
 * Rule matching: a packet matches a rule when every field the rule sets
 * matches; unset fields match anything. Of all matching rules the one with
 * the lowest AFW_RULE_A_PRIORITY wins, then the lowest id. A packet that
 * matches no rule gets the unknown-flow policy. A rule's flows go with the
 * rule (RULE_DEL, RULE_FLUSH, a replace without an accept rule of its id).
 *
 * AFW_CMD_FLOW_NEW (doit, admin): installs or replaces a flow's verdict.
 *	request: AFW_A_FLOW (AFW_FLOW_A_*): FAMILY, PROTO, SRC, DST required;
 *	         SPORT and DPORT for protocols with ports; VERDICT required;
 *	         TIMEOUT optional (idle seconds; default the protocol's:
 *	         AFW_CFG_A_TCP_TIMEOUT, _UDP_TIMEOUT, an echo's 30 s or
 *	         _FLOW_TIMEOUT if less, else _FLOW_TIMEOUT);
 *	         FLAGS optional (AFW_FLOW_F_*); QUEUE optional, with VERDICT
 *	         inspect only: the queue the flow's packets go to, instead of
 *	         one of the unknown-flow queues (so that a listener can take
 *	         them with another copy range, say headers only). The fail
 *	         mode (AFW_CFG_A_FAIL_OPEN) applies to it as to those.
 *	A flow is one entry for both directions; SRC is the side that started
 *	it. With PROTO icmp (FAMILY ipv4) or icmpv6 (ipv6), ICMP_ID makes
 *	it one echo exchange: SRC's echo requests with that identifier and
 *	DST's replies to them, nothing else (an accept rule that passes an
 *	echo request installs one). Without ICMP_ID, an ICMP flow carries all
 *	ICMP between the two addresses, echoes with no flow of their own too.
 *	When the table holds max_flows entries, the unassured flow that
 *	expires first is evicted to make room; assured flows (packets passed
 *	both ways) are never evicted (ENOSPC instead).
 *	A TCP SYN that starts a new connection on an accept or inspect flow
 *	ends it, and goes on as a new flow: only the flow's own SYN, sent
 *	again, and the first SYN of a flow installed without
 *	AFW_FLOW_F_ESTABLISHED belong to it. On a UDP accept flow installed
 *	here, a QUIC long-header Initial from SRC goes to the flow's queue.
 *	Drop and reject flows end only by their timeout.
 *	With CONFIRM (a nest of AFW_CONFIRM_A_*; proto tcp, verdict accept),
 *	the flow is installed unconfirmed: an analyzer allowed it on SRC's
 *	first bytes, up to AFW_CONFIRM_A_ACK, and waits for DST to take them.
 *	Until then the flow is not there for its packets: they meet the
 *	rules and the unknown-flow policy, which send them back to the
 *	analyzer. A packet from DST confirms it, and passes by it, when it
 *	comes in on AFW_CONFIRM_A_IIF (0: sent by this host), has its checksum
 *	to be filled in or verified on receipt, carries ACK and neither SYN
 *	nor RST, acknowledges from AFW_CONFIRM_A_ACK to AFW_CONFIRM_A_END
 *	(past SRC's last byte let through; sequence numbers, modulo 2^32),
 *	and the socket serving the flow's queue asked to be told
 *	(AFW_A_SERVE_TELL): that socket gets an AFW_CMD_CONFIRMED message,
 *	laid out as a told handshake's (below), for that packet; one it has no
 *	room for leaves the flow unconfirmed. A SYN from either side ends an
 *	unconfirmed flow (FLOWS_RESTARTED). Listings show it with
 *	AFW_FLOW_S_UNCONFIRMED; FLOWS_CONFIRMED counts confirmations.
 * AFW_CMD_FLOW_DEL (doit, admin): AFW_A_FLOW with the key fields only.
 * AFW_CMD_FLOW_GET (dump, admin): one message per flow with AFW_A_FLOW,
 *	SRC first, ICMP_ID for an echo's flow (SRC sends the requests),
 *	including PACKETS, BYTES, EXPIRES (seconds left), ORIGIN,
 *	RULE_ID (flows of rules), STATE, QUEUE if it has one, and OWNER if a
 *	local process started it. A dump that races with changes is flagged
 *	NLM_F_DUMP_INTR.
 * AFW_CMD_OWNER_GET (doit, admin): AFW_A_FLOW with a flow's key (either
 *	direction; an echo's, with ICMP_ID, from the side that pings); the
 *	reply is AFW_A_FLOW with the key as given and OWNER.
 *	A flow afwd is still deciding has its owner here before it has an
 *	entry. ENOENT: none recorded (not started by a local process, or its
 *	record is gone: 30 s after the last of its flow).
 * AFW_CMD_FLOW_FLUSH (doit, admin).
 *
 * Learned decisions. A FLOW_NEW with AFW_FLOW_F_LEARN (and AFW_FLOW_A_DIR,
 *	AFW_FLOW_A_LINE) says its verdict is decided by the flow's family,
 *	protocol, direction, destination and destination port alone: the
 *	module keeps that key, and decides the first packet of each new flow
 *	that shares it (a TCP SYN that matched no flow and no rule, where the
 *	unknown-flow policy is queue) itself, installing the flow (origin
 *	LEARNED, LINE) and telling the socket that taught it with an
 *	AFW_CMD_LEARNED message: AFW_A_FLOW with the key (SRC first), DIR,
 *	LINE, VERDICT, IIF, OIF, OWNER if recorded, and PACKET, the packet's
 *	first bytes (up to AFW_LEARN_PACKET_MAX, its IP and TCP headers). A
 *	message its socket has no room for is not sent (LEARNED_UNTOLD, and
 *	ENOBUFS on that socket). An entry lasts until that socket closes or
 *	any LEARN_FLUSH; at most AFW_LEARN_MAX per namespace (ENOSPC; the
 *	flow itself is installed all the same).
 * AFW_CMD_LEARN_FLUSH (doit, admin): forgets every learned decision of the
 *	namespace; the flows they installed stay.
 * AFW_CMD_LEARN_GET (dump, admin): one message per learned decision with
 *	AFW_A_FLOW: FAMILY, PROTO, DIR, DST, DPORT, VERDICT, LINE, HITS,
 *	PORTID.
 *
 * Multicast group AFW_MCGRP_FLOWS (joining needs CAP_NET_ADMIN over the
 *	namespace): a FLOW_NEW message when a flow is installed (by a rule,
 *	afwd or afwctl; again when its verdict is replaced), a FLOW_DEL one
 *	when it is gone (ended, expired, evicted, deleted, flushed), each with
 *	AFW_A_FLOW as FLOW_GET dumps it: OWNER while the record lasts, and at
 *	the end its last PACKETS and BYTES. And, for a live view's rates, a
 *	FLOW_GET message, the same, for a flow that carried packets since the
 *	collector's walk before, as the collector passes it: about every 5 s,
 *	at most AFW_FLOW_COUNTS_PER_WALK flows a walk, each walk beginning
 *	where the one before stopped. Sent only while someone
 *	listens; a listener that falls behind loses messages (ENOBUFS on its
 *	socket).
 *
 * AFW_CMD_QUEUE_SERVE (doit, admin): the sender's socket serves NFQUEUE
 *	queues AFW_A_SERVE_FIRST to AFW_A_SERVE_FIRST + AFW_A_SERVE_COUNT - 1
 *	(NLA_U16 each; COUNT 1 without it), until the socket closes: afwd says
 *	so for each queue it binds. COUNT 0 withdraws all the socket's queues.
 *	A socket may name several ranges, a namespace AFW_SERVE_MAX in all
 *	(ENOSPC beyond). afw only counts what it sends where nobody said so
 *	(UNSERVED_* above); the verdict stays NFQUEUE's and the fail mode's.
 *	With AFW_A_SERVE_TELL (NLA_FLAG), the socket is told, not sent, the
 *	bare handshake packets of new TCP flows on those queues (Told
 *	handshakes below); without it, a range it names again stops that.
 *
 * Told handshakes. A TCP packet of no known flow that a queue rule, or
 *	the unknown-flow policy queue (past the learned decisions), would
 *	queue, that carries no payload and, of the flags, only SYN, SYN and
 *	ACK, or ACK (ECE and CWR aside), and whose checksum is to be filled
 *	in or was verified on receipt (at LOCAL_IN or FORWARD), passes at once
 *	(counted as accepted) when the socket serving its queue asked with
 *	AFW_A_SERVE_TELL. That socket gets an AFW_CMD_HANDSHAKE message:
 *	AFW_A_FLOW with the key (SRC first), DIR, IIF, OIF, OWNER if recorded,
 *	and PACKET, the packet's first bytes (up to AFW_LEARN_PACKET_MAX).
 *	Such a packet holds no byte an analyzer judges; it learns from the
 *	copy what the receiver's TCP was given. A packet the socket has no
 *	room for (ENOBUFS there) is queued as before (HANDSHAKES_QUEUED).
 *	An unconfirmed flow's packets are told or queued as if it were not
 *	there; the one that confirms it is told with AFW_CMD_CONFIRMED.
 *
 * AFW_CMD_CONFIG_GET (doit, admin), AFW_CMD_CONFIG_SET (doit, admin):
 *	AFW_A_CONFIG (AFW_CFG_A_*); SET changes only the attributes given,
 *	and packets see the old settings or the new ones, never a mix.
 *
 * The first RULE_NEW, RULESET_REPLACE commit, FLOW_NEW or CONFIG_SET in a
 * namespace registers afw's hooks there, and IP defragmentation.
 *
 * Verdict order for a packet: afw's own resets pass; then its flow's
 * verdict if the flow is known (an ICMP error takes the verdict of the
 * flow it quotes); else the best matching rule (an accept rule installs a
 * flow for what it passed when replies might not pass otherwise); else
 * ICMPv6 ND and MLD pass at LOCAL_IN/OUT; else, under the unknown-flow
 * policy queue, a TCP SYN to a place afwd taught a decision for gets that
 * decision (see Learned decisions above); else the namespace's
 * unknown-flow policy. Where a rule or that policy queues, a bare
 * handshake packet may be told instead (see Told handshakes above).
 *
 * Every command has a policy of its own: a request carrying an attribute
 * the command does not take is rejected with EINVAL and an extended ack
 * message.
 */
#ifndef _UAPI_LINUX_AFW_H
#define _UAPI_LINUX_AFW_H

#include <linux/types.h>

#define AFW_GENL_NAME		"afw"
/*
 * 2: AFW_RULE_A_MATCH. 3: learned decisions. 4: told handshakes. 5: flows
 * confirmed in the module (AFW_FLOW_A_CONFIRM).
 */
#define AFW_GENL_VERSION	5
/* The multicast group of flow events. */
#define AFW_MCGRP_FLOWS		"flows"
/* Flows a collector's walk tells again with their counts, at most. */
#define AFW_FLOW_COUNTS_PER_WALK	512

enum afw_cmd {
	AFW_CMD_UNSPEC,
	AFW_CMD_STATUS_GET,
	AFW_CMD_COUNTERS_RESET,
	AFW_CMD_RULE_NEW,
	AFW_CMD_RULE_DEL,
	AFW_CMD_RULE_GET,
	AFW_CMD_RULE_FLUSH,
	AFW_CMD_RULESET_REPLACE,
	AFW_CMD_FLOW_NEW,
	AFW_CMD_FLOW_DEL,
	AFW_CMD_FLOW_GET,
	AFW_CMD_FLOW_FLUSH,
	AFW_CMD_CONFIG_GET,
	AFW_CMD_CONFIG_SET,
	AFW_CMD_STATS_GET,
	AFW_CMD_QUEUE_SERVE,
	AFW_CMD_OWNER_GET,
	AFW_CMD_LEARN_FLUSH,
	AFW_CMD_LEARN_GET,
	AFW_CMD_LEARNED,
	AFW_CMD_HANDSHAKE,
	AFW_CMD_CONFIRMED,
	__AFW_CMD_MAX
};

#define AFW_CMD_MAX (__AFW_CMD_MAX - 1)

/* Address families, numerically equal to AF_INET and AF_INET6. */
enum afw_family {
	AFW_FAMILY_IPV4 = 2,
	AFW_FAMILY_IPV6 = 10,
};

/* Where a packet met the firewall. */
enum afw_direction {
	AFW_DIR_IN,		/* NF_INET_LOCAL_IN */
	AFW_DIR_OUT,		/* NF_INET_LOCAL_OUT */
	AFW_DIR_FORWARD,	/* NF_INET_FORWARD */
	__AFW_DIR_MAX
};

#define AFW_DIR_MAX (__AFW_DIR_MAX - 1)

/* Directions as a set, for rules: AFW_RULE_A_DIRECTIONS. */
#define AFW_DIRS_ALL	((1 << AFW_DIR_IN) | (1 << AFW_DIR_OUT) | (1 << AFW_DIR_FORWARD))

enum afw_action {
	AFW_ACTION_ACCEPT,
	AFW_ACTION_DROP,
	AFW_ACTION_REJECT,	/* TCP RST, else ICMP/ICMPv6 port unreachable */
	AFW_ACTION_QUEUE,	/* to the analyzer, as AFW_CFG_A_QUEUE_* say */
	__AFW_ACTION_MAX
};

#define AFW_ACTION_MAX (__AFW_ACTION_MAX - 1)

#define AFW_REPLACE_F_BEGIN	0x1
#define AFW_REPLACE_F_COMMIT	0x2

enum afw_attr {
	AFW_A_UNSPEC,
	AFW_A_MODULE_VERSION,
	AFW_A_COUNTERS,
	AFW_A_PAD,
	AFW_A_RULE,
	AFW_A_RULESET_GEN,
	AFW_A_MALFORMED,
	AFW_A_REPLACE_FLAGS,
	AFW_A_RULES,
	AFW_A_DROPPED,
	AFW_A_FLOW,
	AFW_A_CONFIG,
	AFW_A_QUEUED,
	AFW_A_STATS,
	AFW_A_ACTIVE,
	AFW_A_SERVE_FIRST,
	AFW_A_SERVE_COUNT,
	AFW_A_UNSERVED_DROPPED,
	AFW_A_UNSERVED_PASSED,
	AFW_A_SERVE_TELL,
	__AFW_A_MAX
};

#define AFW_A_MAX (__AFW_A_MAX - 1)

/* Queue ranges QUEUE_SERVE keeps in one namespace, all sockets together. */
#define AFW_SERVE_MAX		64

enum afw_counters_attr {
	AFW_COUNTERS_A_UNSPEC,
	AFW_COUNTERS_A_HOOK,
	__AFW_COUNTERS_A_MAX
};

#define AFW_COUNTERS_A_MAX (__AFW_COUNTERS_A_MAX - 1)

enum afw_hook_attr {
	AFW_HOOK_A_UNSPEC,
	AFW_HOOK_A_PAD,
	AFW_HOOK_A_FAMILY,
	AFW_HOOK_A_DIRECTION,
	AFW_HOOK_A_PACKETS,
	AFW_HOOK_A_BYTES,
	__AFW_HOOK_A_MAX
};

#define AFW_HOOK_A_MAX (__AFW_HOOK_A_MAX - 1)

/*
 * A rule. Addresses are in network byte order, 4 bytes for IPv4 and 16 for
 * IPv6, and need AFW_RULE_A_FAMILY; bits beyond the prefix length must be
 * zero. Port ranges are inclusive and need AFW_RULE_A_PROTO tcp, udp or
 * sctp. UID and GID match the owner of locally generated packets only, and
 * so do EXE and CGROUP (docs/architecture.md, "Rules on programs"):
 *  - EXE is a program's absolute path, as the host sees it; it matches the
 *    packets of processes running that program and sharing the host's root
 *    (not those of a container or a sandboxed service: name their cgroup).
 *  - CGROUP is a cgroup v2 path from the hierarchy's root, "/" or "/a/b"
 *    with no "." or ".." and no empty part; it matches sockets of that
 *    cgroup and of its descendants, whether it exists yet or not.
 */
enum afw_rule_attr {
	AFW_RULE_A_UNSPEC,
	AFW_RULE_A_PAD,
	AFW_RULE_A_ID,		/* NLA_U32, 1..0xffffffff */
	AFW_RULE_A_PRIORITY,	/* NLA_U32, lower is evaluated first; default 0 */
	AFW_RULE_A_FAMILY,	/* NLA_U8, AFW_FAMILY_*; absent: both */
	AFW_RULE_A_DIRECTIONS,	/* NLA_U8, set of 1 << AFW_DIR_*; absent: all */
	AFW_RULE_A_PROTO,	/* NLA_U8, IPPROTO_*; absent: any */
	AFW_RULE_A_SRC,		/* NLA_BINARY, 4 or 16 bytes */
	AFW_RULE_A_SRC_PREFIX,	/* NLA_U8, default: full length */
	AFW_RULE_A_DST,		/* NLA_BINARY, 4 or 16 bytes */
	AFW_RULE_A_DST_PREFIX,	/* NLA_U8 */
	AFW_RULE_A_SPORT_LO,	/* NLA_U16, host byte order */
	AFW_RULE_A_SPORT_HI,	/* NLA_U16, default: SPORT_LO */
	AFW_RULE_A_DPORT_LO,	/* NLA_U16 */
	AFW_RULE_A_DPORT_HI,	/* NLA_U16 */
	AFW_RULE_A_IIF,		/* NLA_NUL_STRING, interface name */
	AFW_RULE_A_OIF,		/* NLA_NUL_STRING */
	AFW_RULE_A_UID,		/* NLA_U32 */
	AFW_RULE_A_GID,		/* NLA_U32 */
	AFW_RULE_A_ACTION,	/* NLA_U8, AFW_ACTION_* */
	AFW_RULE_A_PACKETS,	/* NLA_U64, reply only */
	AFW_RULE_A_BYTES,	/* NLA_U64, reply only */
	AFW_RULE_A_COMMENT,	/* NLA_NUL_STRING, 1..AFW_RULE_COMMENT_MAX bytes */
	AFW_RULE_A_MATCH,	/* struct afw_rule_match and addresses; requests only */
	AFW_RULE_A_EXE,		/* NLA_NUL_STRING, 2..AFW_RULE_PATH_MAX bytes */
	AFW_RULE_A_CGROUP,	/* NLA_NUL_STRING, 1..AFW_RULE_PATH_MAX bytes */
	__AFW_RULE_A_MAX
};

#define AFW_RULE_A_MAX (__AFW_RULE_A_MAX - 1)

/*
 * AFW_RULE_A_MATCH (family version 2 and later): a rule's priority,
 * action, family, directions, protocol, addresses and ports in one
 * attribute, for loading large rulesets: given one attribute each, they
 * are seven or more a rule, each validated on its own, and at a million
 * rules that is a second of a load (docs/performance.md). A rule that
 * carries it gives none of the attributes it stands for (PRIORITY to
 * DPORT_HI, and ACTION); ID, IIF, OIF, UID, GID, EXE, CGROUP and COMMENT stay
 * attributes. The attribute is this struct, then the addresses its flags
 * name, source first, each 4 bytes for AFW_FAMILY_IPV4 and 16 for
 * AFW_FAMILY_IPV6, in network byte order; nothing else. Fields its flags
 * leave out, and @reserved, must be zero. The same rules as for the
 * attributes apply: an address needs the family, bits beyond a prefix
 * length are zero, ports need a protocol with ports and lo <= hi.
 * Replies never carry it.
 */
struct afw_rule_match {
	__u32	priority;	/* lower is evaluated first */
	__u8	action;		/* AFW_ACTION_* */
	__u8	directions;	/* set of 1 << AFW_DIR_*, not empty */
	__u8	family;		/* AFW_FAMILY_*, 0: both */
	__u8	proto;		/* IPPROTO_*, 0: any */
	__u8	flags;		/* AFW_MATCH_F_* */
	__u8	src_prefix;
	__u8	dst_prefix;
	__u8	reserved;
	__u16	sport_lo;	/* host byte order, inclusive */
	__u16	sport_hi;
	__u16	dport_lo;
	__u16	dport_hi;
};

#define AFW_MATCH_F_SRC		0x01	/* src_prefix and a source address */
#define AFW_MATCH_F_DST		0x02	/* dst_prefix and a destination address */
#define AFW_MATCH_F_SPORT	0x04	/* sport_lo, sport_hi */
#define AFW_MATCH_F_DPORT	0x08	/* dport_lo, dport_hi */
#define AFW_MATCH_F_ALL		0x0f

/* A rule's comment, not counting its NUL: the user's note, kept and listed. */
#define AFW_RULE_COMMENT_MAX 63
/* The longest program or cgroup path a rule names, without its NUL. */
#define AFW_RULE_PATH_MAX 255

/* Learned decisions a namespace keeps, at most (AFW_FLOW_F_LEARN). */
#define AFW_LEARN_MAX		16384
/* A learned flow's packet bytes told to afwd, at most. */
#define AFW_LEARN_PACKET_MAX	128

/* What a flow's packets get. */
enum afw_verdict {
	AFW_VERDICT_ACCEPT,
	AFW_VERDICT_DROP,
	AFW_VERDICT_REJECT,
	AFW_VERDICT_INSPECT,	/* every packet keeps going to the analyzer */
	__AFW_VERDICT_MAX
};

#define AFW_VERDICT_MAX (__AFW_VERDICT_MAX - 1)

enum afw_flow_attr {
	AFW_FLOW_A_UNSPEC,
	AFW_FLOW_A_PAD,
	AFW_FLOW_A_FAMILY,	/* NLA_U8 */
	AFW_FLOW_A_PROTO,	/* NLA_U8 */
	AFW_FLOW_A_SRC,		/* NLA_BINARY, 4 or 16 bytes */
	AFW_FLOW_A_DST,		/* NLA_BINARY */
	AFW_FLOW_A_SPORT,	/* NLA_U16, host byte order */
	AFW_FLOW_A_DPORT,	/* NLA_U16 */
	AFW_FLOW_A_VERDICT,	/* NLA_U8, AFW_VERDICT_* */
	AFW_FLOW_A_TIMEOUT,	/* NLA_U32, idle seconds, 1..86400 */
	AFW_FLOW_A_PACKETS,	/* NLA_U64, reply only */
	AFW_FLOW_A_BYTES,	/* NLA_U64, reply only */
	AFW_FLOW_A_EXPIRES,	/* NLA_U32, seconds left, reply only */
	AFW_FLOW_A_ORIGIN,	/* NLA_U8, AFW_FLOW_ORIGIN_*, reply only */
	AFW_FLOW_A_RULE_ID,	/* NLA_U32, the rule that made it, reply only */
	AFW_FLOW_A_STATE,	/* NLA_U32, AFW_FLOW_S_*, reply only */
	AFW_FLOW_A_FLAGS,	/* NLA_U32, AFW_FLOW_F_* */
	AFW_FLOW_A_QUEUE,	/* NLA_U16, an inspect flow's own queue */
	AFW_FLOW_A_OWNER,	/* nest, AFW_OWNER_A_*, reply only: who started it */
	AFW_FLOW_A_DIR,		/* NLA_U8, AFW_DIR_*: with AFW_FLOW_F_LEARN */
	AFW_FLOW_A_LINE,	/* NLA_U32, afwd's policy line, with AFW_FLOW_F_LEARN */
	AFW_FLOW_A_PACKET,	/* NLA_BINARY, LEARNED only: the first packet's headers */
	AFW_FLOW_A_IIF,		/* NLA_U32, LEARNED only: its input interface, or 0 */
	AFW_FLOW_A_OIF,		/* NLA_U32, LEARNED only: its output interface, or 0 */
	AFW_FLOW_A_HITS,	/* NLA_U64, LEARN_GET only: flows the entry decided */
	AFW_FLOW_A_PORTID,	/* NLA_U32, LEARN_GET only: the socket that taught it */
	AFW_FLOW_A_ICMP_ID,	/* NLA_U16, an ICMP or ICMPv6 echo's identifier */
	AFW_FLOW_A_CONFIRM,	/* nest, AFW_CONFIRM_A_*: FLOW_NEW, installed unconfirmed */
	__AFW_FLOW_A_MAX
};

#define AFW_FLOW_A_MAX (__AFW_FLOW_A_MAX - 1)

/*
 * The process that sent a flow's first packet (AFW_FLOW_A_OWNER), recorded
 * as that packet left it, from its own context: only flows started by a
 * local process's socket have one. An inbound flow to a local socket (a
 * listener, a bound UDP socket) has that socket's: LISTENER, the opener's
 * uid and gid, the cgroup; PID 0 and an empty COMM, no EXE.
 */
enum afw_owner_attr {
	AFW_OWNER_A_UNSPEC,
	AFW_OWNER_A_PAD,
	AFW_OWNER_A_UID,	/* NLA_U32, the socket's, in the netns's user ns */
	AFW_OWNER_A_GID,	/* NLA_U32 */
	AFW_OWNER_A_PID,	/* NLA_U32, its thread group, in the initial pid ns */
	AFW_OWNER_A_COMM,	/* NLA_NUL_STRING, the task's name */
	AFW_OWNER_A_EXE,	/* NLA_NUL_STRING, its program, absent for none */
	AFW_OWNER_A_CGROUP,	/* NLA_U64, the socket's cgroup v2 id; absent: none */
	AFW_OWNER_A_AGE,	/* NLA_U32, seconds since it was recorded */
	/*
	 * NLA_NUL_STRING, OWNER_GET only: the cgroup's path in the asker's
	 * cgroup namespace, while the cgroup exists
	 */
	AFW_OWNER_A_CGROUP_PATH,
	AFW_OWNER_A_LISTENER,	/* NLA_FLAG: the local socket an inbound flow came to */
	__AFW_OWNER_A_MAX
};

#define AFW_OWNER_A_MAX (__AFW_OWNER_A_MAX - 1)

/* Who installed a flow. */
enum afw_flow_origin {
	AFW_FLOW_ORIGIN_CONTROL,	/* AFW_CMD_FLOW_NEW: afwd or an admin */
	AFW_FLOW_ORIGIN_RULE,		/* an accept rule that saw it start */
	AFW_FLOW_ORIGIN_LEARNED,	/* a decision afwd taught (AFW_FLOW_F_LEARN) */
};

/* AFW_FLOW_A_FLAGS bits. */
/* TCP: the connection exists already, so any SYN starts a new one. */
#define AFW_FLOW_F_ESTABLISHED	0x1
/*
 * TCP, verdict accept, drop or reject, with AFW_FLOW_A_DIR: the decision
 * holds for every new connection of the family and protocol, in that
 * direction, to that destination address and port (see AFW_CMD_LEARNED).
 */
#define AFW_FLOW_F_LEARN	0x2

/* AFW_FLOW_A_STATE bits. */
#define AFW_FLOW_S_ASSURED	0x1	/* has passed packets both ways */
#define AFW_FLOW_S_CLOSING	0x2	/* FIN both ways or an in-window RST */
#define AFW_FLOW_S_UNCONFIRMED	0x4	/* AFW_FLOW_A_CONFIRM: not confirmed yet */

/* What confirms a flow installed unconfirmed (AFW_FLOW_A_CONFIRM); all required. */
enum afw_confirm_attr {
	AFW_CONFIRM_A_UNSPEC,
	AFW_CONFIRM_A_ACK,	/* NLA_U32: DST acknowledges at least this of SRC's */
	AFW_CONFIRM_A_END,	/* NLA_U32: and no more than this */
	AFW_CONFIRM_A_IIF,	/* NLA_U32: DST's packets come in here; 0: sent by this host */
	__AFW_CONFIRM_A_MAX
};

#define AFW_CONFIRM_A_MAX (__AFW_CONFIRM_A_MAX - 1)

/* What happens to a packet that matches no flow and no rule. */
enum afw_unknown {
	AFW_UNKNOWN_ACCEPT,
	AFW_UNKNOWN_DROP,
	AFW_UNKNOWN_QUEUE,
	__AFW_UNKNOWN_MAX
};

#define AFW_UNKNOWN_MAX (__AFW_UNKNOWN_MAX - 1)

enum afw_cfg_attr {
	AFW_CFG_A_UNSPEC,
	AFW_CFG_A_UNKNOWN,	/* NLA_U8, AFW_UNKNOWN_*; default accept */
	AFW_CFG_A_QUEUE_NUM,	/* NLA_U16, first NFQUEUE number; default 0 */
	AFW_CFG_A_QUEUE_COUNT,	/* NLA_U16, queues N..N+COUNT-1; default 1 */
	/* NLA_U8, 1: accept when no analyzer listens; 0 (default): drop */
	AFW_CFG_A_FAIL_OPEN,
	AFW_CFG_A_MAX_FLOWS,	/* NLA_U32, flow table bound */
	AFW_CFG_A_FLOW_TIMEOUT,	/* NLA_U32, default idle seconds of a flow */
	/*
	 * NLA_U8, 1 (default): afw filters; 0: every packet passes, uncounted,
	 * and the rules, flows and settings stay
	 */
	AFW_CFG_A_ENABLED,
	AFW_CFG_A_TCP_TIMEOUT,	/* NLA_U32, default idle seconds of a TCP flow */
	AFW_CFG_A_UDP_TIMEOUT,	/* NLA_U32, default idle seconds of a UDP flow */
	/*
	 * NLA_U8, 1 (default): record who starts each flow (AFW_FLOW_A_OWNER);
	 * 0: record none (those recorded stay until their flows end)
	 */
	AFW_CFG_A_OWNERS,
	__AFW_CFG_A_MAX
};

#define AFW_CFG_A_MAX (__AFW_CFG_A_MAX - 1)

/* AFW_CMD_STATS_GET's reply; see the comment at the top for each one. */
enum afw_stats_attr {
	AFW_STATS_A_UNSPEC,
	AFW_STATS_A_PAD,
	AFW_STATS_A_FLOW_ACCEPT,	/* NLA_U64 */
	AFW_STATS_A_FLOW_DROP,		/* NLA_U64 */
	AFW_STATS_A_FLOW_REJECT,	/* NLA_U64 */
	AFW_STATS_A_FLOW_INSPECT,	/* NLA_U64 */
	AFW_STATS_A_RULE_ACCEPT,	/* NLA_U64 */
	AFW_STATS_A_RULE_DROP,		/* NLA_U64 */
	AFW_STATS_A_RULE_REJECT,	/* NLA_U64 */
	AFW_STATS_A_RULE_QUEUE,		/* NLA_U64 */
	AFW_STATS_A_UNKNOWN_ACCEPT,	/* NLA_U64 */
	AFW_STATS_A_UNKNOWN_DROP,	/* NLA_U64 */
	AFW_STATS_A_UNKNOWN_QUEUE,	/* NLA_U64 */
	AFW_STATS_A_MALFORMED,		/* NLA_U64 */
	AFW_STATS_A_RULES,		/* NLA_U32 */
	AFW_STATS_A_MAX_RULES,		/* NLA_U32 */
	AFW_STATS_A_MASKS,		/* NLA_U32 */
	AFW_STATS_A_MAX_MASKS,		/* NLA_U32 */
	AFW_STATS_A_RULESET_GEN,	/* NLA_U64 */
	AFW_STATS_A_FLOWS,		/* NLA_U32 */
	AFW_STATS_A_MAX_FLOWS,		/* NLA_U32 */
	AFW_STATS_A_FLOWS_INSERTED,	/* NLA_U64 */
	AFW_STATS_A_FLOWS_EXPIRED,	/* NLA_U64 */
	AFW_STATS_A_FLOWS_CLOSED,	/* NLA_U64 */
	AFW_STATS_A_FLOWS_EVICTED,	/* NLA_U64 */
	AFW_STATS_A_FLOWS_REFUSED,	/* NLA_U64 */
	AFW_STATS_A_EXEMPT,		/* NLA_U64 */
	AFW_STATS_A_FLOWS_RESTARTED,	/* NLA_U64 */
	AFW_STATS_A_FLOWS_RULE,		/* NLA_U64 */
	AFW_STATS_A_UNSERVED_DROP,	/* NLA_U64 */
	AFW_STATS_A_UNSERVED_PASS,	/* NLA_U64 */
	AFW_STATS_A_OWNERS,		/* NLA_U32 */
	AFW_STATS_A_OWNERS_NOTED,	/* NLA_U64 */
	AFW_STATS_A_OWNERS_LOST,	/* NLA_U64 */
	AFW_STATS_A_LEARNED,		/* NLA_U32, learned decisions kept */
	AFW_STATS_A_LEARNED_FLOWS,	/* NLA_U64, flows they decided */
	AFW_STATS_A_LEARNED_UNTOLD,	/* NLA_U64, of those, not told (LEARNED) */
	AFW_STATS_A_LEARNED_FULL,	/* NLA_U64, not learned for want of room */
	AFW_STATS_A_HANDSHAKES_TOLD,	/* NLA_U64, told and passed (HANDSHAKE) */
	AFW_STATS_A_HANDSHAKES_QUEUED,	/* NLA_U64, queued: the tell failed */
	AFW_STATS_A_FLOWS_CONFIRMED,	/* NLA_U64, unconfirmed flows confirmed */
	__AFW_STATS_A_MAX
};

#define AFW_STATS_A_MAX (__AFW_STATS_A_MAX - 1)

#endif /* _UAPI_LINUX_AFW_H */
