/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QUIC client Initial packets (versions 1 and 2): decryption and CRYPTO
 * stream reassembly, up to the bytes of the ClientHello.
 *
 * A caller keeps one struct afw_quic_ctx per thread (OpenSSL contexts and a
 * plaintext scratch buffer) and one struct afw_quic_flow per flow, which it
 * finds by addresses and ports. It hands every client-to-server datagram of
 * the flow to afw_quic_feed() until that returns AFW_QUIC_DONE, then reads the
 * ClientHello with afw_quic_client_hello().
 *
 * Errors are negative errno values, and *why (when why is not NULL) points
 * to a static sentence saying what was wrong:
 *   -EINVAL           malformed packet (lengths, connection IDs, varints)
 *   -EPROTONOSUPPORT  not QUIC v1 or v2, or not a packet a client sends first
 *   -EBADMSG          the packet does not authenticate
 *   -EPROTO           protocol violation: a frame not allowed in Initial
 *                     packets, a small datagram...
 *   -EILSEQ           the flow contradicts itself: CRYPTO bytes that differ
 *                     from the same offsets sent before, a changed version
 *                     or connection ID
 *   -ENOBUFS          the CRYPTO stream does not fit the caller's buffer or
 *                     is too fragmented
 *   -ECONNABORTED     the client sent CONNECTION_CLOSE
 *   -ENOMEM           OpenSSL failed
 * A datagram that fails leaves the flow as it was before the failing packet,
 * so a forged or corrupt datagram does not spoil the flow; the caller decides
 * whether to go on feeding.
 */
#ifndef AFW_QUIC_H
#define AFW_QUIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AFW_QUIC_V1		0x00000001u
#define AFW_QUIC_V2		0x6b3343cfu

#define AFW_QUIC_CID_MAX	20
/* A client's first Destination Connection ID is at least this long. */
#define AFW_QUIC_CID_MIN	8
/* Servers drop client Initials carried in smaller datagrams. */
#define AFW_QUIC_DGRAM_MIN	1200
#define AFW_QUIC_DGRAM_MAX	65527
/* Disjoint pieces of CRYPTO data held at once, before they join up. */
#define AFW_QUIC_RANGES		32
/*
 * Initials that bring new CRYPTO bytes, at most. A ClientHello is a few
 * KiB at most (Chromium's with ML-KEM: 1.9 KB in 2 Initials); servers bound
 * the CRYPTO bytes they buffer, not the packets, so this is generous: a
 * hello spread 8 bytes per Initial still fits.
 */
#define AFW_QUIC_MAX_FRESH	256

enum {
	AFW_QUIC_MORE = 0,	/* no complete ClientHello yet: feed more */
	AFW_QUIC_DONE = 1,	/* afw_quic_client_hello() has the message */
};

enum afw_quic_type {
	AFW_QUIC_INITIAL,
	AFW_QUIC_0RTT,
	AFW_QUIC_HANDSHAKE,
	AFW_QUIC_RETRY,
};

struct afw_quic_keys {
	uint8_t key[16];	/* AES-128-GCM packet protection */
	uint8_t iv[12];
	uint8_t hp[16];		/* AES-128-ECB header protection */
};

/* One long-header packet, as parsed and (for Initials) decrypted. */
struct afw_quic_packet {
	uint32_t version;
	enum afw_quic_type type;
	const uint8_t *dcid, *scid, *token;	/* point into the datagram */
	uint8_t dcid_len, scid_len;
	size_t token_len;
	size_t pn_offset;	/* where the packet number starts */
	size_t size;		/* bytes of the datagram the packet takes */
	/* Set by afw_quic_open(): */
	uint8_t first;		/* first byte without header protection */
	uint64_t pn;
	const uint8_t *payload;	/* plaintext, in the ctx, until its next use */
	size_t payload_len;
};

struct afw_quic_range {
	uint64_t start, end;
};

/*
 * Per-flow state, owned by the caller; initialise with afw_quic_flow_init().
 * Fields are read-only for the caller.
 */
struct afw_quic_flow {
	uint8_t *buf;		/* the caller's CRYPTO reassembly buffer */
	size_t cap;
	size_t size;		/* bytes at buf: cap, or fewer that the caller grows (-EMSGSIZE) */
	uint32_t version;	/* 0 until the first Initial authenticates */
	uint8_t dcid_len;
	uint8_t dcid[AFW_QUIC_CID_MAX];
	uint8_t scid_len;
	uint8_t scid[AFW_QUIC_CID_MAX];
	struct afw_quic_keys keys;
	int64_t largest_pn;	/* -1 before the first Initial */
	unsigned int initials;	/* Initial packets accepted */
	unsigned int fresh;	/* of them, those that brought new CRYPTO bytes */
	unsigned int nranges;
	struct afw_quic_range ranges[AFW_QUIC_RANGES];	/* sorted, disjoint */
	size_t hello_len;	/* 0 until the ClientHello is complete */
};

struct afw_quic_ctx;

/* NULL when OpenSSL lacks HKDF, AES-128-ECB or AES-128-GCM, or on ENOMEM. */
struct afw_quic_ctx *afw_quic_ctx_new(void);
void afw_quic_ctx_free(struct afw_quic_ctx *ctx);

/*
 * buf holds the CRYPTO stream. 16 KiB is ample: Chromium's ClientHello, with
 * an ML-KEM key share, is under 2 KiB.
 */
void afw_quic_flow_init(struct afw_quic_flow *flow, uint8_t *buf, size_t cap);

/*
 * Feeds one UDP payload sent by the client. Long-header packets coalesced in
 * it are walked; Initial packets are decrypted and their frames applied,
 * 0-RTT and Handshake packets are skipped, and a short-header packet ends the
 * walk. Returns AFW_QUIC_MORE, AFW_QUIC_DONE or a negative errno; -EMSGSIZE
 * when CRYPTO data lands past flow->size (below cap): grow buf, feed again.
 */
int afw_quic_feed(struct afw_quic_ctx *ctx, struct afw_quic_flow *flow,
		  const uint8_t *dgram, size_t len, const char **why);

/*
 * The same for a connection afwd decided already: its Initials may go to
 * another Destination Connection ID (the server's) as long as they
 * authenticate with the connection's keys. CRYPTO bytes must agree with
 * those read before (-EILSEQ), and bytes past the ClientHello are kept
 * (a second hello, after a HelloRetryRequest).
 */
int afw_quic_feed_more(struct afw_quic_ctx *ctx, struct afw_quic_flow *flow,
		       const uint8_t *dgram, size_t len, const char **why);

/*
 * Whether the module sends @dgram, a datagram of an allowed UDP flow that
 * afwd installed, to afwd again: one from the flow's client with a long
 * header of the Initial type (v1 type 0, v2 type 1) or of a version afwd
 * may not know (any but 0, version negotiation, which is the server's).
 * The module's own test (module/flows.c, afw_flow_quic_initial()): a client
 * that opens another QUIC connection on the same socket sends one first.
 */
bool afw_quic_requeued(const uint8_t *dgram, size_t len);

/*
 * What a client datagram is to a flow that afw_quic_feed() has bound to a
 * connection (flow->version set), or to none. The kernel sends afwd every
 * client Initial of an installed UDP flow again (afw_quic_requeued()), so
 * that a new connection on the same addresses and ports is judged on its
 * own.
 */
enum afw_quic_kind {
	AFW_QUIC_OTHER,		/* not a client Initial (or not one worth a look) */
	AFW_QUIC_SAME,		/* an Initial of the flow's connection */
	AFW_QUIC_NEW,		/* an Initial of another connection */
};

/*
 * An Initial is the flow's connection's when it carries the client's first
 * Destination Connection ID, or, under any other (the server's, that the
 * client switched to), when it authenticates with the flow's Initial keys:
 * they come from the first DCID and stay for the whole connection, so a
 * server could not read such a packet as a new connection. Anything else
 * that looks like a client Initial (long header, fixed bit, non-zero
 * version, a datagram of at least 1200 bytes) is NEW, but for a version
 * afwd cannot read on a flow decided without QUIC: that is OTHER.
 */
enum afw_quic_kind afw_quic_classify(struct afw_quic_ctx *ctx, const struct afw_quic_flow *flow,
				     const uint8_t *dgram, size_t len);

/* The complete ClientHello (with its 4-byte header), or -EAGAIN. */
int afw_quic_client_hello(const struct afw_quic_flow *flow, const uint8_t **msg, size_t *len);

/* The client's Initial keys for a version and Destination Connection ID. */
int afw_quic_initial_keys(struct afw_quic_ctx *ctx, uint32_t version, const uint8_t *dcid,
			  size_t dcid_len, struct afw_quic_keys *keys, const char **why);

/* Parses the long header at pkt; returns 0 and fills pk up to ->size. */
int afw_quic_parse_header(const uint8_t *pkt, size_t len, struct afw_quic_packet *pk,
			  const char **why);

/*
 * Removes header protection from, and decrypts, the Initial packet pk that
 * afw_quic_parse_header() found at pkt. largest_pn is the largest packet
 * number accepted so far in the flow (-1 for none), needed to expand the
 * truncated packet number.
 */
int afw_quic_open(struct afw_quic_ctx *ctx, const struct afw_quic_keys *keys, int64_t largest_pn,
		  const uint8_t *pkt, struct afw_quic_packet *pk, const char **why);

/*
 * Applies the frames of a decrypted Initial payload to the flow: PADDING,
 * PING, ACK, CRYPTO and CONNECTION_CLOSE are allowed, anything else is a
 * protocol violation. Returns like afw_quic_feed().
 */
int afw_quic_frames(struct afw_quic_flow *flow, const uint8_t *p, size_t len, const char **why);

#endif /* AFW_QUIC_H */
