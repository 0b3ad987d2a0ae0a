// SPDX-License-Identifier: GPL-2.0
/*
 * Conntrack marks through ctnetlink: IPCTNL_MSG_CT_NEW without
 * NLM_F_CREATE updates an existing entry and creates none, and CTA_MARK
 * with CTA_MARK_MASK changes only the bits of the mask, so marks others
 * keep in the upper bits survive.
 */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>
#include <linux/afw.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>

#include "conntrack.h"

struct afw_ct_req {
	struct afw_flow_spec f;
	uint32_t mark, mask;
	uint32_t seq;
};

struct afw_ct {
	struct mnl_socket *sock;
	unsigned int portid, seq;
	unsigned int n;
	struct afw_ct_req reqs[AFW_CT_BATCH];
	struct afw_ct_stats stats;
	char tx[AFW_CT_BATCH * 160] __attribute__((aligned(8)));
	char rx[16384] __attribute__((aligned(8)));
};

struct afw_ct *afw_ct_open(char *err, size_t errlen)
{
	struct afw_ct *c = calloc(1, sizeof(*c));

	if (!c) {
		snprintf(err, errlen, "conntrack: out of memory");
		return NULL;
	}
	c->sock = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!c->sock || mnl_socket_bind(c->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		snprintf(err, errlen, "conntrack netlink socket: %s", strerror(errno));
		afw_ct_close(c);
		return NULL;
	}
	c->portid = mnl_socket_get_portid(c->sock);
	c->seq = (unsigned int)time(NULL);
	return c;
}

void afw_ct_close(struct afw_ct *c)
{
	if (!c)
		return;
	if (c->sock)
		mnl_socket_close(c->sock);
	free(c);
}

const struct afw_ct_stats *afw_ct_stats(const struct afw_ct *c)
{
	return &c->stats;
}

/*
 * One direction of the tuple: @src to @dst, in a CTA_TUPLE_* nest. A ping's
 * entry is keyed by its identifier and message type, as conntrack keeps it:
 * the request's type in the original direction, the reply's in the other.
 */
static void afw_ct_put_tuple(struct nlmsghdr *nlh, uint16_t type, const struct afw_flow_spec *f,
			     const uint8_t *src, const uint8_t *dst, uint16_t sport, uint16_t dport)
{
	bool reply = type == CTA_TUPLE_REPLY;
	bool v6 = f->family == AFW_FAMILY_IPV6;
	struct nlattr *tuple, *ip, *proto;

	tuple = mnl_attr_nest_start(nlh, type);
	ip = mnl_attr_nest_start(nlh, CTA_TUPLE_IP);
	mnl_attr_put(nlh, v6 ? CTA_IP_V6_SRC : CTA_IP_V4_SRC, v6 ? 16 : 4, src);
	mnl_attr_put(nlh, v6 ? CTA_IP_V6_DST : CTA_IP_V4_DST, v6 ? 16 : 4, dst);
	mnl_attr_nest_end(nlh, ip);
	proto = mnl_attr_nest_start(nlh, CTA_TUPLE_PROTO);
	mnl_attr_put_u8(nlh, CTA_PROTO_NUM, f->proto);
	if (f->echo && v6) {
		mnl_attr_put_u16(nlh, CTA_PROTO_ICMPV6_ID, htons(f->icmp_id));
		mnl_attr_put_u8(nlh, CTA_PROTO_ICMPV6_TYPE, reply ? 129 : 128);
		mnl_attr_put_u8(nlh, CTA_PROTO_ICMPV6_CODE, f->icmp_code);
	} else if (f->echo) {
		mnl_attr_put_u16(nlh, CTA_PROTO_ICMP_ID, htons(f->icmp_id));
		mnl_attr_put_u8(nlh, CTA_PROTO_ICMP_TYPE, reply ? 0 : 8);
		mnl_attr_put_u8(nlh, CTA_PROTO_ICMP_CODE, f->icmp_code);
	} else if (sport || dport) {
		mnl_attr_put_u16(nlh, CTA_PROTO_SRC_PORT, htons(sport));
		mnl_attr_put_u16(nlh, CTA_PROTO_DST_PORT, htons(dport));
	}
	mnl_attr_nest_end(nlh, proto);
	mnl_attr_nest_end(nlh, tuple);
}

static size_t afw_ct_put(struct afw_ct *c, char *buf, struct afw_ct_req *r, bool reply)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfgenmsg *nfg;

	nlh->nlmsg_type = (NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_NEW;
	/* No NLM_F_CREATE: only an entry that exists is changed. */
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = r->seq = ++c->seq;
	nfg = mnl_nlmsg_put_extra_header(nlh, sizeof(*nfg));
	nfg->nfgen_family = r->f.family == AFW_FAMILY_IPV6 ? AF_INET6 : AF_INET;
	nfg->version = NFNETLINK_V0;
	nfg->res_id = 0;
	if (reply)
		afw_ct_put_tuple(nlh, CTA_TUPLE_REPLY, &r->f, r->f.dst, r->f.src, r->f.dport,
				 r->f.sport);
	else
		afw_ct_put_tuple(nlh, CTA_TUPLE_ORIG, &r->f, r->f.src, r->f.dst, r->f.sport,
				 r->f.dport);
	mnl_attr_put_u32(nlh, CTA_MARK, htonl(r->mark));
	mnl_attr_put_u32(nlh, CTA_MARK_MASK, htonl(r->mask));
	return NLMSG_ALIGN(nlh->nlmsg_len);
}

/*
 * Sends an update for each of @reqs[0..@n), by the original tuple or by the
 * reply tuple, and reads every answer. Moves the requests conntrack did not
 * find to the front of @reqs; returns their number.
 */
static unsigned int afw_ct_send(struct afw_ct *c, struct afw_ct_req *reqs, unsigned int n,
				bool reply)
{
	struct pollfd pfd = { .fd = mnl_socket_get_fd(c->sock), .events = POLLIN };
	const struct nlmsghdr *nlh;
	const struct nlmsgerr *e;
	unsigned int i, answered = 0, missing = 0;
	bool found[AFW_CT_BATCH] = { false };
	size_t len = 0;
	int got;

	for (i = 0; i < n; i++)
		len += afw_ct_put(c, c->tx + len, &reqs[i], reply);
	c->stats.syscalls++;
	if (mnl_socket_sendto(c->sock, c->tx, len) < 0)
		return n;
	/* ctnetlink answers within sendto(); the poll only covers a slow path. */
	while (answered < n) {
		c->stats.syscalls++;
		got = (int)recv(pfd.fd, c->rx, sizeof(c->rx), MSG_DONTWAIT);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN && poll(&pfd, 1, 1000) == 1)
				continue;
			break;
		}
		for (nlh = (const struct nlmsghdr *)c->rx; mnl_nlmsg_ok(nlh, got);
		     nlh = mnl_nlmsg_next(nlh, &got)) {
			if (nlh->nlmsg_type != NLMSG_ERROR ||
			    mnl_nlmsg_get_payload_len(nlh) < sizeof(*e))
				continue;
			e = mnl_nlmsg_get_payload(nlh);
			for (i = 0; i < n; i++) {
				if (reqs[i].seq != nlh->nlmsg_seq)
					continue;
				found[i] = e->error == 0;
				answered++;
				break;
			}
		}
	}
	for (i = 0; i < n; i++) {
		if (found[i])
			c->stats.updated++;
		else
			reqs[missing++] = reqs[i];
	}
	return missing;
}

void afw_ct_flush(struct afw_ct *c)
{
	unsigned int missing;

	if (!c->n)
		return;
	missing = afw_ct_send(c, c->reqs, c->n, false);
	if (missing)
		missing = afw_ct_send(c, c->reqs, missing, true);
	c->stats.missing += missing;
	c->n = 0;
}

void afw_ct_mark(struct afw_ct *c, const struct afw_flow_spec *f, uint32_t mark, uint32_t mask)
{
	if (c->n == AFW_CT_BATCH)
		afw_ct_flush(c);
	c->reqs[c->n].f = *f;
	c->reqs[c->n].mark = mark & mask;
	c->reqs[c->n].mask = mask;
	c->n++;
}
