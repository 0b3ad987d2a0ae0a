// SPDX-License-Identifier: GPL-2.0
/*
 * The "reject" action, built on the kernel's own nf_reject helpers so that
 * RSTs and ICMP errors look exactly like the ones iptables and nftables send.
 */

#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/netfilter.h>
#include <net/netfilter/ipv4/nf_reject.h>
#include <net/netfilter/ipv6/nf_reject.h>
#include <uapi/linux/afw.h>

#include "reject.h"
#include "tuple.h"

void afw_reject(struct sk_buff *skb, const struct nf_hook_state *state,
		const struct afw_tuple *t)
{
	/*
	 * The helpers themselves refuse to answer a RST with a RST or an ICMP
	 * error with an ICMP error, and rate-limit what they send.
	 */
	if (t->family == AFW_FAMILY_IPV4) {
		if (t->proto == IPPROTO_TCP)
			nf_send_reset(state->net, state->sk, skb, state->hook);
		else
			nf_send_unreach(skb, ICMP_PORT_UNREACH, state->hook);
	} else {
		if (t->proto == IPPROTO_TCP)
			nf_send_reset6(state->net, state->sk, skb, state->hook);
		else
			nf_send_unreach6(state->net, skb, ICMPV6_PORT_UNREACH, state->hook);
	}
}
