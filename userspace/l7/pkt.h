/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Packet decoding for afwd: from a link header (pcap) or from the IP header
 * (NFQUEUE) down to the transport header and its payload, plus the flow key
 * that maps both directions of a flow to one entry.
 *
 * Decoding never reads outside [data, data + len) and never allocates. The
 * decoded struct points into the caller's buffer (payload), so it is valid
 * only as long as that buffer is.
 */
#ifndef AFW_PKT_H
#define AFW_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Link types, numbered as in pcap files (LINKTYPE_*). */
enum {
	AFW_LINK_NULL = 0,	/* 4-byte address family in the writer's byte order */
	AFW_LINK_EN10MB = 1,	/* Ethernet, up to two VLAN tags */
	AFW_LINK_RAW = 101,	/* IPv4 or IPv6 by the version nibble; also NFQUEUE */
	AFW_LINK_LOOP = 108,	/* as NULL, but always big-endian */
	AFW_LINK_LINUX_SLL = 113,
	AFW_LINK_IPV4 = 228,
	AFW_LINK_IPV6 = 229,
	AFW_LINK_LINUX_SLL2 = 276,
};

enum afw_pkt_err {
	AFW_PKT_OK = 0,
	AFW_PKT_ETRUNC,		/* a header or a length field runs past the buffer */
	AFW_PKT_EMALFORMED,	/* a field holds an impossible value */
	AFW_PKT_EUNSUPP,	/* well-formed, but not something afwd decodes (ARP, ...) */
};

/* afw_pkt.frag */
#define AFW_PKT_FRAG		0x1	/* part of a fragmented datagram */
#define AFW_PKT_FRAG_LATER	0x2	/* not the first fragment: no transport header */

/* TCP flags as on the wire */
#define AFW_TCP_FIN	0x01
#define AFW_TCP_SYN	0x02
#define AFW_TCP_RST	0x04
#define AFW_TCP_PSH	0x08
#define AFW_TCP_ACK	0x10
#define AFW_TCP_URG	0x20

/* afw_pkt.tcp_opts: the TCP options a receiver acts on */
#define AFW_TCPOPT_WSCALE	0x1	/* tcp_wscale is valid */
#define AFW_TCPOPT_TS		0x2	/* tcp_tsval and tcp_tsecr are valid */
#define AFW_TCPOPT_SIG		0x4	/* MD5 signature (RFC 2385) or TCP-AO (RFC 5925) */
#define AFW_TCPOPT_BAD		0x8	/* an option runs past the header */

/* afw_pkt.echo */
enum {
	AFW_PKT_ECHO_NONE,
	AFW_PKT_ECHO_REQUEST,
	AFW_PKT_ECHO_REPLY,
};

/* afw_pkt_key.icmp: 0 for any other protocol, else one of these plus a side */
#define AFW_PKT_KEY_ECHO	1	/* + the pinger's side */
#define AFW_PKT_KEY_ICMP_SENT	3	/* + the sender's side */

/* afw_pkt.csum: what is known of the transport checksum */
enum afw_pkt_csum {
	AFW_CSUM_CHECK,		/* the field is final: a receiver checks it, so compute it */
	AFW_CSUM_TRUSTED,	/* not filled in yet, or checked already by the kernel */
	AFW_CSUM_GUESS,		/* a capture: a flow whose SYN fails was taken before offload */
};

struct afw_pkt {
	uint8_t ipver;		/* 4 or 6; 0 when no IP header was reached */
	uint8_t proto;		/* transport protocol (after IPv6 extension headers) */
	uint8_t frag;		/* AFW_PKT_FRAG* */
	uint8_t has_l4;		/* ports (and TCP fields) below are valid */
	uint8_t nvlan;		/* VLAN tags skipped on Ethernet */
	uint8_t ttl;		/* TTL or hop limit */
	uint8_t src[16], dst[16];	/* IPv4 uses the first 4 bytes, the rest is zero */
	uint16_t sport, dport;	/* TCP, UDP, UDP-Lite, SCTP, DCCP; ICMP: icmp_type/code */
	uint8_t icmp_type, icmp_code;
	uint8_t echo;		/* AFW_PKT_ECHO_*: an ICMP or ICMPv6 echo, with echo_id */
	uint16_t echo_id;
	uint8_t tcp_flags;
	uint16_t tcp_window;
	uint32_t tcp_seq, tcp_ack;
	uint16_t tcp_urg_ptr;
	uint8_t tcp_opts;	/* AFW_TCPOPT_* */
	uint8_t tcp_wscale;	/* shift, as sent (a receiver caps it at 14) */
	uint32_t tcp_tsval, tcp_tsecr;
	uint8_t csum;		/* enum afw_pkt_csum; decoding leaves AFW_CSUM_CHECK */
	uint32_t indev;		/* interface it came in on; 0: sent by this host, or unknown */
	uint32_t outdev;	/* interface it leaves by; 0: for this host, or unknown */
	uint8_t dir;		/* enum afw_dir (facts.h) of this packet, from its hook */
	size_t l3_off, l4_off;	/* offsets from the start of the buffer */
	const uint8_t *l3;	/* the IP header */
	const uint8_t *l4;	/* the transport header; l4_len bytes with the payload */
	size_t l4_len;
	const uint8_t *payload;	/* transport payload (for a later fragment: IP payload) */
	size_t payload_len;
	/*
	 * Bytes the packet carries past the end of @payload, not captured (a
	 * headers queue's packet, afw_pkt_decode_head()): 0 for a whole one.
	 */
	size_t cut;
	const char *reason;	/* static text when decoding failed */
};

/*
 * Decodes @data (@len bytes) captured with @linktype (AFW_LINK_*). Returns
 * AFW_PKT_OK, or an error with @p->reason describing it; the fields decoded
 * before the error stay filled. Trailing link padding after the IP datagram
 * is not part of the payload.
 */
enum afw_pkt_err afw_pkt_decode(struct afw_pkt *p, unsigned int linktype, const uint8_t *data,
				size_t len);

/* What afw_pkt_decode_head() copies the first bytes into. */
#define AFW_PKT_HEAD_MAX 512

/*
 * Decodes the first @len bytes of an IP packet (no link header) of
 * @orig_len bytes, as a queue with a short copy range delivers it: the
 * headers, maybe a few payload bytes. They are copied into @buf (which @p
 * then points into) with the IP length field cut to @len, and decoded as
 * a packet that ends there; @p->cut says how many bytes did not come.
 * Headers that run past @len, or more than AFW_PKT_HEAD_MAX bytes, fail
 * as AFW_PKT_ETRUNC.
 */
enum afw_pkt_err afw_pkt_decode_head(struct afw_pkt *p, uint8_t buf[AFW_PKT_HEAD_MAX],
				     const uint8_t *data, size_t len, size_t orig_len);

/*
 * Whether @p's transport checksum (TCP or UDP, over the pseudo-header) is
 * right, and for IPv4 its header checksum too. Only for packets that
 * decoded whole; a UDP checksum of zero over IPv4 means "none" and passes.
 */
bool afw_pkt_csum_ok(const struct afw_pkt *p);

/*
 * Both directions of a flow give the same key; compare and hash it as bytes.
 * An ICMP echo's flow is the one ping, as conntrack and the module keep it:
 * @icmp is 1 + the side that sends the requests, both ports hold the
 * identifier; a ping the other way, or with another identifier, is another
 * flow, decided on its own. Other ICMP has no identifier to tell one
 * exchange from the next: its key is its sender's (@icmp 3 + that side),
 * so that what one host sends is never taken for what the other may.
 */
struct afw_pkt_key {
	uint8_t ipver;
	uint8_t proto;
	uint8_t icmp;
	uint16_t port[2];
	uint8_t addr[2][16];
};

/*
 * Fills @k for a decoded packet and returns the side (0 or 1) of @k that
 * sent @p. Endpoint 0 is the lower (address, port) pair, so the key does not
 * depend on direction; the caller stores, per flow, which side is the client
 * (afw_pkt_client_side() on the flow's first packet). An echo's requests
 * and replies give the same key, its pinger's side in @k->icmp.
 */
int afw_pkt_flow_key(const struct afw_pkt *p, struct afw_pkt_key *k);

/* ICMP of the packet's own family (ICMPv6 over IPv6): the one with echoes. */
static inline bool afw_pkt_icmp(const struct afw_pkt *p)
{
	return (p->ipver == 4 && p->proto == 1) || (p->ipver == 6 && p->proto == 58);
}

/* Whether @k is an ICMP echo's: its ports hold the identifier. */
static inline bool afw_pkt_key_echo(const struct afw_pkt_key *k)
{
	return k->icmp == AFW_PKT_KEY_ECHO || k->icmp == AFW_PKT_KEY_ECHO + 1;
}

/* What side @side of an echo's key @k sends: AFW_PKT_ECHO_REQUEST if it pings. */
static inline uint8_t afw_pkt_key_echo_sent(const struct afw_pkt_key *k, int side)
{
	return k->icmp - AFW_PKT_KEY_ECHO == side ? AFW_PKT_ECHO_REQUEST : AFW_PKT_ECHO_REPLY;
}

/*
 * The client's side for a flow whose first seen packet is @p, sent by @side:
 * the sender, except for a SYN+ACK, which the server sends, an echo reply,
 * whose flow is the pinger's, and for TCP without a SYN, where the lower
 * port is taken for the server's.
 */
int afw_pkt_client_side(const struct afw_pkt *p, int side);

/* A 32-bit hash of the key; @seed is the caller's, random per table. */
uint32_t afw_pkt_key_hash(const struct afw_pkt_key *k, uint32_t seed);

const char *afw_pkt_err_name(enum afw_pkt_err err);

#endif /* AFW_PKT_H */
