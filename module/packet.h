/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_PACKET_H
#define _AFW_PACKET_H

#include "tuple.h"

struct sk_buff;
struct nf_hook_state;
struct afw_pkt;

/*
 * Fills @t from the packet, reading only the fields asked for: @flags
 * (AFW_TUPLE_PORTS, AFW_TUPLE_OWNER) and, when @need is given, the
 * interface names it sets. Fills @p with what the flow cache reads
 * besides, all of it but @p->quoted (afw_packet_icmp()'s). Returns 0, or
 * -EINVAL for a packet whose headers are truncated or malformed.
 */
int afw_packet_tuple(struct sk_buff *skb, const struct nf_hook_state *state, u8 flags,
		     const struct afw_tuple *need, struct afw_tuple *t, struct afw_pkt *p);

/*
 * For an ICMP or ICMPv6 packet: fills @p->quoted with the flow an error
 * quotes (and sets @p->icmp_error), or sets @p->nd for neighbour discovery
 * and MLD. Anything else, or an error too short to quote ports, sets
 * neither.
 */
void afw_packet_icmp(const struct sk_buff *skb, const struct afw_tuple *t, struct afw_pkt *p);

#endif /* _AFW_PACKET_H */
