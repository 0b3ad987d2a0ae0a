// SPDX-License-Identifier: GPL-2.0
/*
 * Packet parsing for the classifier and the flow cache. Every header is
 * read with skb_header_pointer(), so a short or non-linear packet is never
 * read past its end.
 *
 * Treatments (see docs/architecture.md):
 * - Once a namespace is configured, afw sees datagrams reassembled (as
 *   conntrack does). A later fragment that still arrives on its own (a
 *   reassembly the defragmenter gave up on) has no L4 header: it gets no
 *   ports, and so matches only rules that set no port range.
 * - When the ports are needed, a first fragment or packet too short to hold
 *   them (and for TCP, its sequence numbers and flags) is malformed.
 * - ICMP and ICMPv6 errors are classified by their own header (protocol
 *   icmp/ipv6-icmp); the flow they quote decides them first (hook.c).
 */

#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter.h>
#include <linux/skbuff.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <uapi/linux/afw.h>

#include "flows.h"
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

static int afw_packet_l3_ipv6(const struct sk_buff *skb, unsigned int nhoff,
			      struct afw_tuple *t, bool *first_frag)
{
	const struct ipv6hdr *ip6h;
	struct ipv6hdr _ip6h;
	unsigned short frag_off;
	unsigned int off = nhoff;
	int proto;

	ip6h = skb_header_pointer(skb, nhoff, sizeof(_ip6h), &_ip6h);
	if (!ip6h || ip6h->version != 6)
		return -EINVAL;
	t->family = AFW_FAMILY_IPV6;
	memcpy(t->saddr, &ip6h->saddr, sizeof(t->saddr));
	memcpy(t->daddr, &ip6h->daddr, sizeof(t->daddr));
	/*
	 * The last header, as Linux itself walks to it: "no next header"
	 * (59) is a protocol like any other, and a later fragment names the
	 * datagram's protocol in its own header, as IPv4's protocol field
	 * does.
	 */
	proto = ipv6_find_hdr(skb, &off, -1, &frag_off, NULL);
	if (proto < 0)
		return -EINVAL;
	t->proto = proto;
	*first_frag = !frag_off;
	return off;
}

/* The L3 header at @nhoff; the L4 offset, or -EINVAL. Inline: every packet's. */
static __always_inline int afw_packet_l3(const struct sk_buff *skb, unsigned int nhoff,
					 u8 family, struct afw_tuple *t, bool *first_frag)
{
	const struct iphdr *iph;
	/*
	 * Not cleared (INIT_STACK_ALL_ZERO would, on every packet):
	 * skb_header_pointer() fills it before anything reads it, or fails.
	 */
	struct iphdr _iph __uninitialized;

	if (family == AFW_FAMILY_IPV6)
		return afw_packet_l3_ipv6(skb, nhoff, t, first_frag);
	iph = skb_header_pointer(skb, nhoff, sizeof(_iph), &_iph);
	if (!iph || iph->version != 4 || iph->ihl < 5)
		return -EINVAL;
	t->family = AFW_FAMILY_IPV4;
	t->saddr[0] = iph->saddr;
	t->daddr[0] = iph->daddr;
	t->proto = iph->protocol;
	*first_frag = !(iph->frag_off & htons(IP_OFFSET));
	return nhoff + iph->ihl * 4;
}

/* ICMP in IPv4, ICMPv6 in IPv6: the ones whose messages afw reads. */
static bool afw_packet_is_icmp(const struct afw_tuple *t)
{
	return t->family == AFW_FAMILY_IPV4 ? t->proto == IPPROTO_ICMP :
					      t->proto == IPPROTO_ICMPV6;
}

/*
 * The message at @off of a @family packet, if an echo request or reply: its
 * kind (AFW_PKT_ECHO_*), its identifier to @id. 0 for any other message,
 * or one cut short: no echo, and the rules judge it as it is.
 */
static u8 afw_packet_echo(const struct sk_buff *skb, int off, u8 family, u16 *id)
{
	u8 req = family == AFW_FAMILY_IPV4 ? ICMP_ECHO : ICMPV6_ECHO_REQUEST;
	u8 rep = family == AFW_FAMILY_IPV4 ? ICMP_ECHOREPLY : ICMPV6_ECHO_REPLY;
	const struct icmphdr *h;
	struct icmphdr _h;

	/* struct icmp6hdr has the same first eight bytes. */
	BUILD_BUG_ON(sizeof(struct icmp6hdr) != sizeof(struct icmphdr));
	h = skb_header_pointer(skb, off, sizeof(_h), &_h);
	if (!h || (h->type != req && h->type != rep))
		return 0;
	*id = ntohs(h->un.echo.id);
	return h->type == req ? AFW_PKT_ECHO_REQUEST : AFW_PKT_ECHO_REPLY;
}

int afw_packet_tuple(struct sk_buff *skb, const struct nf_hook_state *state, u8 flags,
		     const struct afw_tuple *need, struct afw_tuple *t, struct afw_pkt *p)
{
	bool first_frag;
	u8 _l4[20] __uninitialized;	/* as _iph in afw_packet_l3() */
	const u8 *l4;
	int thoff;

	memset(t, 0, sizeof(*t));
	p->seq = 0;
	p->ack = 0;
	p->len = 0;
	p->tcp_flags = 0;
	p->icmp_error = 0;
	p->echo = 0;
	p->nd = 0;
	thoff = afw_packet_l3(skb, skb_network_offset(skb),
			      state->pf == NFPROTO_IPV6 ? AFW_FAMILY_IPV6 : AFW_FAMILY_IPV4,
			      t, &first_frag);
	if (thoff < 0)
		return thoff;
	p->l4off = thoff;

	if ((flags & AFW_TUPLE_PORTS) && first_frag && afw_proto_has_ports(t->proto)) {
		/* Ports lead every such header; TCP's numbers and flags follow. */
		l4 = skb_header_pointer(skb, thoff, t->proto == IPPROTO_TCP ? 20 : 4, _l4);
		if (!l4)
			return -EINVAL;
		t->sport = get_unaligned_be16(l4);
		t->dport = get_unaligned_be16(l4 + 2);
		t->flags |= AFW_TUPLE_PORTS;
		if (t->proto == IPPROTO_TCP) {
			unsigned int hlen = (l4[12] >> 4) * 4;

			if (hlen < sizeof(struct tcphdr) || skb->len < thoff + hlen)
				return -EINVAL;
			p->seq = get_unaligned_be32(l4 + 4);
			p->ack = get_unaligned_be32(l4 + 8);
			p->tcp_flags = l4[13];
			p->len = skb->len - thoff - hlen;
			if (p->tcp_flags & (TCPHDR_FIN | TCPHDR_RST))
				t->flags |= AFW_TUPLE_FINRST;
			if (p->tcp_flags & TCPHDR_RST)
				t->flags |= AFW_TUPLE_RST;
		}
	} else if ((flags & AFW_TUPLE_PORTS) && first_frag && afw_packet_is_icmp(t)) {
		/* Where another protocol's flow has its ports: an echo's identifier. */
		p->echo = afw_packet_echo(skb, thoff, t->family, &p->echo_id);
	}
	if (need && need->iif[0] && state->in)
		strscpy_pad(t->iif, state->in->name, IFNAMSIZ);
	if (need && need->oif[0] && state->out)
		strscpy_pad(t->oif, state->out->name, IFNAMSIZ);
	if ((flags & AFW_TUPLE_OWNER) && state->hook == NF_INET_LOCAL_OUT)
		afw_packet_owner(skb, state, t);
	return 0;
}

static bool afw_icmp_is_error(u8 family, u8 type)
{
	if (family == AFW_FAMILY_IPV4)
		return type == ICMP_DEST_UNREACH || type == ICMP_SOURCE_QUENCH ||
		       type == ICMP_REDIRECT || type == ICMP_TIME_EXCEEDED ||
		       type == ICMP_PARAMETERPROB;
	/* ICMPv6 errors are the types below 128 (RFC 4443 2.1). */
	return type < 128;
}

/* Router and neighbour solicitations and adverts, redirects, and MLD. */
static bool afw_icmp_is_nd(u8 type)
{
	switch (type) {
	case ICMPV6_MGM_QUERY:
	case ICMPV6_MGM_REPORT:
	case ICMPV6_MGM_REDUCTION:
	case NDISC_ROUTER_SOLICITATION:
	case NDISC_ROUTER_ADVERTISEMENT:
	case NDISC_NEIGHBOUR_SOLICITATION:
	case NDISC_NEIGHBOUR_ADVERTISEMENT:
	case NDISC_REDIRECT:
	case ICMPV6_MLD2_REPORT:
		return true;
	default:
		return false;
	}
}

void afw_packet_icmp(const struct sk_buff *skb, const struct afw_tuple *t, struct afw_pkt *p)
{
	struct afw_tuple inner = { };
	bool first_frag;
	u8 _type, _ports[4];
	const u8 *type, *ports;
	int off;

	if (!(t->proto == IPPROTO_ICMP && t->family == AFW_FAMILY_IPV4) &&
	    !(t->proto == IPPROTO_ICMPV6 && t->family == AFW_FAMILY_IPV6))
		return;
	type = skb_header_pointer(skb, p->l4off, sizeof(_type), &_type);
	if (!type)
		return;
	if (t->family == AFW_FAMILY_IPV6 && afw_icmp_is_nd(*type)) {
		p->nd = 1;
		return;
	}
	if (!afw_icmp_is_error(t->family, *type))
		return;
	/*
	 * One level, as nf_conntrack_proto_icmp reads it: the quoted header
	 * follows the 8 bytes of the error's own, and an error is never
	 * about another error.
	 */
	off = afw_packet_l3(skb, p->l4off + 8, t->family, &inner, &first_frag);
	if (off < 0 || !first_frag)
		return;
	/*
	 * An error goes back to whoever sent what it quotes, as conntrack
	 * checks too: one sent anywhere else is no answer, and a flow's key
	 * alone must not carry a made-up error to any host.
	 */
	if (memcmp(t->daddr, inner.saddr, sizeof(t->daddr)))
		return;
	/*
	 * An error about an echo (a traceroute's time exceeded, say) is one
	 * about its exchange; about any other ICMP message, it is about none.
	 */
	if (inner.proto == IPPROTO_ICMP || inner.proto == IPPROTO_ICMPV6) {
		u8 echo = 0;
		u16 id;

		if (afw_packet_is_icmp(&inner))
			echo = afw_packet_echo(skb, off, inner.family, &id);
		if (!echo)
			return;
		afw_flow_key_echo(&inner, id, echo, &p->quoted);
		p->icmp_error = 1;
		return;
	}
	if (afw_proto_has_ports(inner.proto)) {
		ports = skb_header_pointer(skb, off, sizeof(_ports), _ports);
		if (!ports)
			return;
		inner.sport = get_unaligned_be16(ports);
		inner.dport = get_unaligned_be16(ports + 2);
	}
	afw_flow_key_from_tuple(&inner, &p->quoted);
	p->icmp_error = 1;
}
