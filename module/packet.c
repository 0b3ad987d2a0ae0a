// SPDX-License-Identifier: GPL-2.0
/*
 * Packet parsing for the classifier. Every header is read with
 * skb_header_pointer(), so a short or non-linear packet is never read past
 * its end.
 *
 * Treatments (see docs/architecture.md):
 * - A non-first fragment has no L4 header: it gets no ports, and so matches
 *   only rules that set no port range. Its protocol is the datagram's.
 * - When the ports are needed, a first fragment or packet too short to hold
 *   them (and for TCP, the flags) is malformed.
 * - ICMP and ICMPv6 errors are classified by their own header (protocol
 *   icmp/ipv6-icmp), not by the flow they quote.
 */

#include <linux/icmp.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter.h>
#include <linux/skbuff.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <uapi/linux/afw.h>

#include "packet.h"

static void afw_packet_owner(struct sk_buff *skb, const struct nf_hook_state *state,
			     struct afw_tuple *t)
{
	struct sock *sk = skb_to_full_sk(skb);
	const struct file *filp;

	if (!sk || !sk_fullsock(sk) || !net_eq(sock_net(sk), state->net))
		return;
	/* The socket's file, and so its credentials, may be going away. */
	read_lock_bh(&sk->sk_callback_lock);
	filp = sk->sk_socket ? sk->sk_socket->file : NULL;
	if (filp) {
		t->uid = from_kuid_munged(state->net->user_ns, filp->f_cred->fsuid);
		t->gid = from_kgid_munged(state->net->user_ns, filp->f_cred->fsgid);
		t->flags |= AFW_TUPLE_OWNER;
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

int afw_packet_tuple(struct sk_buff *skb, const struct nf_hook_state *state,
		     const struct afw_tuple *need, struct afw_tuple *t)
{
	unsigned int nhoff = skb_network_offset(skb);
	bool first_frag = true;
	u8 _l4[14];
	const u8 *l4;
	int thoff;

	memset(t, 0, sizeof(*t));
	if (state->pf == NFPROTO_IPV4) {
		const struct iphdr *iph;
		struct iphdr _iph;

		iph = skb_header_pointer(skb, nhoff, sizeof(_iph), &_iph);
		if (!iph || iph->version != 4 || iph->ihl < 5)
			return -EINVAL;
		t->family = AFW_FAMILY_IPV4;
		t->saddr[0] = iph->saddr;
		t->daddr[0] = iph->daddr;
		t->proto = iph->protocol;
		thoff = nhoff + iph->ihl * 4;
		first_frag = !(iph->frag_off & htons(IP_OFFSET));
	} else {
		const struct ipv6hdr *ip6h;
		struct ipv6hdr _ip6h;
		__be16 frag_off = 0;
		u8 nexthdr, _nh;
		const u8 *nh;

		ip6h = skb_header_pointer(skb, nhoff, sizeof(_ip6h), &_ip6h);
		if (!ip6h || ip6h->version != 6)
			return -EINVAL;
		t->family = AFW_FAMILY_IPV6;
		memcpy(t->saddr, &ip6h->saddr, sizeof(t->saddr));
		memcpy(t->daddr, &ip6h->daddr, sizeof(t->daddr));
		nexthdr = ip6h->nexthdr;
		thoff = ipv6_skip_exthdr(skb, nhoff + sizeof(_ip6h), &nexthdr, &frag_off);
		if (thoff < 0)
			return -EINVAL;
		first_frag = !(frag_off & htons(~0x7));
		if (!first_frag) {
			/*
			 * The walk stops at a later fragment's own header. Its
			 * next header names the protocol, as IPv4's protocol
			 * field does, so "proto udp" sees both families alike.
			 */
			nh = skb_header_pointer(skb, thoff, sizeof(_nh), &_nh);
			if (!nh)
				return -EINVAL;
			nexthdr = *nh;
		}
		t->proto = nexthdr;
	}

	if ((need->flags & AFW_TUPLE_PORTS) && first_frag && afw_proto_has_ports(t->proto)) {
		/* Ports lead every such header; TCP's flags sit at byte 13. */
		l4 = skb_header_pointer(skb, thoff, t->proto == IPPROTO_TCP ? 14 : 4, _l4);
		if (!l4)
			return -EINVAL;
		t->sport = l4[0] << 8 | l4[1];
		t->dport = l4[2] << 8 | l4[3];
		t->flags |= AFW_TUPLE_PORTS;
		if (t->proto == IPPROTO_TCP && (l4[13] & (TCPHDR_FIN | TCPHDR_RST)))
			t->flags |= AFW_TUPLE_FINRST;
		if (t->proto == IPPROTO_TCP && (l4[13] & TCPHDR_RST))
			t->flags |= AFW_TUPLE_RST;
	}
	if (need->iif[0] && state->in)
		strscpy_pad(t->iif, state->in->name, IFNAMSIZ);
	if (need->oif[0] && state->out)
		strscpy_pad(t->oif, state->out->name, IFNAMSIZ);
	if ((need->flags & AFW_TUPLE_OWNER) && state->hook == NF_INET_LOCAL_OUT)
		afw_packet_owner(skb, state, t);
	return 0;
}
