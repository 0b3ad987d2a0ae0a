/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_PACKET_H
#define _AFW_PACKET_H

#include "tuple.h"

struct sk_buff;
struct nf_hook_state;

/*
 * Fills @t from the packet, reading only the fields @need asks for. Returns
 * 0, or -EINVAL for a packet whose headers are truncated or malformed.
 */
int afw_packet_tuple(struct sk_buff *skb, const struct nf_hook_state *state,
		     const struct afw_tuple *need, struct afw_tuple *t);

#endif /* _AFW_PACKET_H */
