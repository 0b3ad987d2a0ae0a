/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the server's TCP stack makes of a flow's first client segments: its
 * sequence state as far as afwd can see it from both directions, so that
 * a segment the server would discard never feeds the judged stream, and so
 * that afwd knows when the server has acknowledged the bytes it judged.
 *
 * The rules follow Linux (net/ipv4/tcp_input.c, tcp_minisocks.c,
 * tcp_ipv4.c): tcp_validate_incoming() (PAWS, tcp_sequence()), the ACK
 * flag test of tcp_rcv_established(), tcp_ack()'s discard of an ACK for
 * data never sent or older than the window, tcp_check_req()'s exact ACK of
 * the SYN-ACK, tcp_inbound_md5_hash() and checksums. afwd's view lags the
 * server's in one direction only: a bound it computes is never looser than
 * the server's, except where a packet afwd let through was lost on the way,
 * which the server's acknowledgement (afw_tcp_acked()) settles.
 */
#ifndef AFW_TCP_H
#define AFW_TCP_H

#include <stdbool.h>
#include <stdint.h>

#include "pkt.h"

/* struct afw_tcp.flags */
enum {
	AFW_TCP_C_SYN = 1 << 0,		/* the client's SYN: c_isn is its */
	AFW_TCP_S_SYNACK = 1 << 1,	/* the server's SYN-ACK for it */
	AFW_TCP_C_ACKED = 1 << 2,	/* the client acknowledged the SYN-ACK */
	AFW_TCP_WS = 1 << 3,		/* window scaling on: both offered it */
	AFW_TCP_TS = 1 << 4,		/* timestamps on: both offered them */
	AFW_TCP_C_FIN = 1 << 5,		/* fin_seq is the client's FIN */
	AFW_TCP_C_RST = 1 << 6,
	AFW_TCP_S_RST = 1 << 7,
	AFW_TCP_S_SEEN = 1 << 8,	/* a server packet afwd may trust */
	AFW_TCP_S_DATA = 1 << 9,	/* s_data_ack is the server's last data segment's ACK */
	AFW_TCP_NO_CSUM = 1 << 10,	/* a capture's client checksums are not final (offload) */
	AFW_TCP_S_NO_CSUM = 1 << 11,	/* nor its server's */
};

struct afw_tcp {
	uint32_t c_isn;
	uint32_t c_end;		/* past the client's highest byte (or FIN) let through */
	uint32_t s_isn;
	uint32_t s_end;		/* past the server's highest byte (or SYN, FIN) */
	uint32_t s_una;		/* the client's highest ACK let through: the server's snd_una */
	uint32_t s_acked;	/* the server's highest ACK: client bytes it holds in order */
	uint32_t s_data_ack;	/* the ACK of the server's latest data segment */
	uint32_t edge;		/* the server's receive window ends before here */
	uint32_t max_win;	/* the largest window the client offered, scaled */
	uint32_t ts_recent;	/* the client's newest timestamp let through */
	uint32_t fin_seq;
	uint32_t syn_len;	/* data on the client's SYN (TCP Fast Open) */
	uint32_t c_indev;	/* where the client's packets come in */
	uint32_t s_indev;	/* where the server's SYN-ACK came in */
	uint16_t flags;
	uint8_t s_wscale;	/* the server's window shift, once WS is on */
	uint8_t c_wscale;	/* the client's */
};

/* From the client's SYN (@p, with SYN and without ACK). */
void afw_tcp_syn(struct afw_tcp *t, const struct afw_pkt *p);

/*
 * From the server's SYN-ACK. False, changing nothing, when it does not
 * acknowledge the client's SYN. Without the SYN (afwd started since),
 * the SYN-ACK tells the client's ISN.
 */
bool afw_tcp_synack(struct afw_tcp *t, const struct afw_pkt *p);

/*
 * Would the server take this client segment (after the handshake)? NULL if
 * it would, else why not. Only segments that carry data, FIN or URG reach
 * the stream; a pure ACK changes nothing of it and is not asked about.
 */
const char *afw_tcp_check(const struct afw_tcp *t, const struct afw_pkt *p);

/* A client segment afwd lets through. */
void afw_tcp_client(struct afw_tcp *t, const struct afw_pkt *p);

/* A server segment other than the SYN-ACK; false when it cannot be the server's. */
bool afw_tcp_server(struct afw_tcp *t, const struct afw_pkt *p);

/*
 * Could @p, sent with the server's address, come from the server? Not if it
 * comes in where the client's packets do, nor where the SYN-ACK did not
 * (loopback, where both sides are, tells nothing).
 */
bool afw_tcp_server_side(uint32_t c_indev, uint32_t s_indev, const struct afw_pkt *p);

/*
 * Has the server acknowledged every client byte up to @seq? With
 * @read_past, it must also have sent data in answer to them: proof that
 * its application read past them, not only its stack.
 */
bool afw_tcp_acked(const struct afw_tcp *t, uint32_t seq, bool read_past);

/* Sequence comparisons across the wrap. */
static inline bool afw_seq_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static inline bool afw_seq_after(uint32_t a, uint32_t b)
{
	return (int32_t)(b - a) < 0;
}

#endif /* AFW_TCP_H */
