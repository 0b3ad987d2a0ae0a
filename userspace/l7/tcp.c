// SPDX-License-Identifier: GPL-2.0
/*
 * The server's TCP receiver, as far as afwd sees it. Each bound below is
 * one the server's stack applies itself (Linux 6.1 names in brackets); the
 * values afwd knows are the ones the client can know, so a well-behaved
 * client never trips them, while a segment crafted to be read by afwd and
 * thrown away by the server does.
 */

#include <string.h>

#include "tcp.h"

/* RFC 7323: a shift above 14 is taken as 14. */
#define AFW_TCP_MAX_WSCALE 14

bool afw_tcp_server_side(uint32_t c_indev, uint32_t s_indev, const struct afw_pkt *p)
{
	if (p->indev && p->indev == c_indev && c_indev != 1)
		return false;
	return !s_indev || s_indev == 1 || p->indev == s_indev;
}

/* A checksum the server's stack would refuse. */
static bool afw_tcp_bad_csum(const struct afw_pkt *p, bool offloaded)
{
	return p->csum != AFW_CSUM_TRUSTED && !offloaded && !afw_pkt_csum_ok(p);
}

void afw_tcp_syn(struct afw_tcp *t, const struct afw_pkt *p)
{
	t->c_isn = p->tcp_seq;
	t->syn_len = (uint32_t)p->payload_len;
	t->c_end = p->tcp_seq + 1 + (uint32_t)p->payload_len;
	t->c_indev = p->indev;
	t->flags |= AFW_TCP_C_SYN;
	/* Its shift applies once the SYN-ACK turns scaling on; the SYN's window never. */
	t->c_wscale = p->tcp_opts & AFW_TCPOPT_WSCALE ?
		      (p->tcp_wscale > AFW_TCP_MAX_WSCALE ? AFW_TCP_MAX_WSCALE : p->tcp_wscale) : 0;
	t->max_win = p->tcp_window;
	/* A capture taken on the client holds its checksums before offload filled them. */
	if (p->csum == AFW_CSUM_GUESS && !afw_pkt_csum_ok(p))
		t->flags |= AFW_TCP_NO_CSUM;
	/* A request socket's ts_recent is the SYN's (tcp_openreq_init()). */
	if (p->tcp_opts & AFW_TCPOPT_TS)
		t->ts_recent = p->tcp_tsval;
}

bool afw_tcp_synack(struct afw_tcp *t, const struct afw_pkt *p)
{
	uint32_t ack = p->tcp_ack;
	bool offloaded = p->csum == AFW_CSUM_GUESS && !afw_pkt_csum_ok(p);

	if (!afw_tcp_server_side(t->c_indev, 0, p) || (p->tcp_flags & AFW_TCP_RST) ||
	    afw_tcp_bad_csum(p, offloaded))
		return false;
	if (t->flags & AFW_TCP_C_SYN) {
		/* It acknowledges the SYN, and with Fast Open the SYN's data too. */
		if (ack != t->c_isn + 1 && !(t->syn_len && ack == t->c_isn + 1 + t->syn_len))
			return false;
	} else {
		/* Without the SYN, the client's shift is unknown: take the largest. */
		t->c_isn = ack - 1;
		t->c_end = ack;
		t->c_wscale = AFW_TCP_MAX_WSCALE;
		t->max_win = UINT32_MAX;
	}
	if (offloaded)
		t->flags |= AFW_TCP_S_NO_CSUM;
	t->flags |= AFW_TCP_S_SYNACK | AFW_TCP_S_SEEN;
	t->s_indev = p->indev;
	t->s_isn = p->tcp_seq;
	t->s_end = p->tcp_seq + 1 + (uint32_t)p->payload_len;
	/* The lowest ACK the server takes: SYN_RECV wants exactly this (tcp_check_req()). */
	t->s_una = p->tcp_seq + 1;
	t->s_acked = ack;
	/*
	 * A server offers scaling and timestamps only if the SYN did
	 * (tcp_openreq_init(), tcp_synack_options()): its SYN-ACK says whether
	 * both are on, seen the SYN or not.
	 */
	if (p->tcp_opts & AFW_TCPOPT_WSCALE) {
		t->flags |= AFW_TCP_WS;
		t->s_wscale = p->tcp_wscale > AFW_TCP_MAX_WSCALE ? AFW_TCP_MAX_WSCALE :
								    p->tcp_wscale;
	}
	if (p->tcp_opts & AFW_TCPOPT_TS)
		t->flags |= AFW_TCP_TS;
	/* The window of a SYN-ACK is never scaled. */
	t->edge = ack + p->tcp_window;
	return true;
}

const char *afw_tcp_check(const struct afw_tcp *t, const struct afw_pkt *p)
{
	uint32_t ack = p->tcp_ack, seq = p->tcp_seq, lo, back;
	uint32_t end = seq + (uint32_t)p->payload_len;

	/* tcp_v4_rcv(), tcp_checksum_complete() */
	if (afw_tcp_bad_csum(p, t->flags & AFW_TCP_NO_CSUM))
		return "bad checksum";
	/* tcp_inbound_md5_hash(): a signed segment to a socket without a key */
	if (p->tcp_opts & AFW_TCPOPT_SIG)
		return "MD5 or TCP-AO signature, for which the server has no key";
	/* tcp_rcv_established(), tcp_check_req(): no ACK, no data taken */
	if (!(p->tcp_flags & AFW_TCP_ACK))
		return "no ACK flag";
	/*
	 * tcp_ack(): an ACK of data the server never sent, or older than its
	 * latest by more than the client's largest window or than all the
	 * client acknowledged so far.
	 */
	if (afw_seq_after(ack, t->s_end))
		return "acknowledges data the server never sent";
	back = t->s_una - (t->s_isn + 1);
	if (back > t->max_win)
		back = t->max_win;
	lo = t->s_una - back;
	if (afw_seq_before(ack, lo))
		return "acknowledges data older than the server's window";
	/* tcp_paws_discard(): a timestamp older than the last one taken */
	if ((t->flags & AFW_TCP_TS) && (p->tcp_opts & AFW_TCPOPT_TS) &&
	    (int32_t)(t->ts_recent - p->tcp_tsval) > 1)
		return "timestamp older than the last (PAWS)";
	/*
	 * tcp_sequence(), tcp_data_queue(): data that starts at or past the
	 * right edge of the window the server offered is dropped.
	 */
	if (p->payload_len ? !afw_seq_before(seq, t->edge) : afw_seq_after(seq, t->edge))
		return "beyond the server's receive window";
	/* After its FIN, nothing the client sends is read. */
	if ((t->flags & AFW_TCP_C_FIN) &&
	    (afw_seq_after(end, t->fin_seq) ||
	     ((p->tcp_flags & AFW_TCP_FIN) && end != t->fin_seq)))
		return "data past the client's FIN";
	return NULL;
}

void afw_tcp_client(struct afw_tcp *t, const struct afw_pkt *p)
{
	uint32_t end = p->tcp_seq + (uint32_t)p->payload_len, win;

	if (p->tcp_flags & AFW_TCP_ACK) {
		if (afw_seq_after(p->tcp_ack, t->s_una))
			t->s_una = p->tcp_ack;
		if ((t->flags & AFW_TCP_S_SYNACK) && !afw_seq_before(p->tcp_ack, t->s_isn + 1))
			t->flags |= AFW_TCP_C_ACKED;
	}
	if ((t->flags & AFW_TCP_TS) && (p->tcp_opts & AFW_TCPOPT_TS) &&
	    (int32_t)(p->tcp_tsval - t->ts_recent) > 0)
		t->ts_recent = p->tcp_tsval;
	win = (uint32_t)p->tcp_window << ((t->flags & AFW_TCP_WS) ? t->c_wscale : 0);
	if (win > t->max_win)
		t->max_win = win;
	if ((p->tcp_flags & AFW_TCP_FIN) && !(t->flags & AFW_TCP_C_FIN)) {
		t->flags |= AFW_TCP_C_FIN;
		t->fin_seq = end;
	}
	if (p->tcp_flags & AFW_TCP_FIN)
		end++;
	if (afw_seq_after(end, t->c_end))
		t->c_end = end;
}

bool afw_tcp_server(struct afw_tcp *t, const struct afw_pkt *p)
{
	uint32_t end = p->tcp_seq + (uint32_t)p->payload_len, ack = p->tcp_ack, win;

	if (!afw_tcp_server_side(t->c_indev, t->s_indev, p) ||
	    afw_tcp_bad_csum(p, t->flags & AFW_TCP_S_NO_CSUM))
		return false;
	if (p->tcp_flags & AFW_TCP_FIN)
		end++;
	/*
	 * A reset sends no byte: s_end stays where the server's bytes end (a
	 * listener answers a bad ACK with a RST at that ACK and keeps the
	 * connection it is opening).
	 */
	if (p->tcp_flags & AFW_TCP_RST) {
		t->flags |= AFW_TCP_S_RST;
		return true;
	}
	/* An ACK of bytes the client never sent is no server's. */
	if (!(p->tcp_flags & AFW_TCP_ACK) || afw_seq_after(ack, t->c_end))
		return false;
	if (afw_seq_after(end, t->s_end))
		t->s_end = end;
	t->flags |= AFW_TCP_S_SEEN;
	if (afw_seq_after(ack, t->s_acked))
		t->s_acked = ack;
	if (p->payload_len && (!(t->flags & AFW_TCP_S_DATA) || afw_seq_after(ack, t->s_data_ack))) {
		t->flags |= AFW_TCP_S_DATA;
		t->s_data_ack = ack;
	}
	win = (uint32_t)p->tcp_window << ((t->flags & AFW_TCP_WS) ? t->s_wscale : 0);
	if (afw_seq_after(ack + win, t->edge))
		t->edge = ack + win;
	return true;
}

bool afw_tcp_acked(const struct afw_tcp *t, uint32_t seq, bool read_past)
{
	if (!(t->flags & AFW_TCP_S_SEEN) || afw_seq_before(t->s_acked, seq))
		return false;
	return !read_past ||
	       ((t->flags & AFW_TCP_S_DATA) && !afw_seq_before(t->s_data_ack, seq));
}
