// SPDX-License-Identifier: GPL-2.0
/*
 * NFQUEUE I/O. The cost to beat is the system call: a packet that costs a
 * receive and a send is two calls. Here one recvmmsg() takes every packet
 * that is waiting, up to a batch, and one send answers the whole batch,
 * with runs of equal verdicts folded into one NFQNL_MSG_VERDICT_BATCH.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <linux/netlink.h>
#include <libmnl/libmnl.h>
#include <libnetfilter_queue/libnetfilter_queue.h>

#include "queue.h"

/*
 * One packet message: the whole packet (a GSO packet may be 64 KiB) and its
 * attributes. A smaller buffer would cut packets that afwd must see whole.
 */
#define AFW_QUEUE_MSGSIZE (0xffff + 4096)
/* Room for the verdicts of a batch, which are about 40 bytes each. */
#define AFW_QUEUE_TXSIZE 16384

struct afw_queue {
	struct mnl_socket *nl;
	unsigned int portid;
	uint16_t num;
	struct afw_queue_stats stats;
	/* The run of equal verdicts not yet written into tx. */
	unsigned int run_len;
	uint32_t run_id, run_verdict, run_mark;
	bool run_set_mark;
	size_t txlen;
	unsigned int txmsgs;
	char tx[AFW_QUEUE_TXSIZE] __attribute__((aligned(8)));
	struct mmsghdr msgs[AFW_QUEUE_BATCH];
	struct iovec iov[AFW_QUEUE_BATCH];
	char rx[] __attribute__((aligned(8)));
};

/* Sends one configuration message and waits for its ack. */
static int afw_queue_config(struct afw_queue *q, struct nlmsghdr *nlh)
{
	char buf[MNL_SOCKET_BUFFER_SIZE] __attribute__((aligned(8)));
	unsigned int seq = nlh->nlmsg_seq;
	ssize_t n;

	nlh->nlmsg_flags |= NLM_F_ACK;
	if (mnl_socket_sendto(q->nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	n = mnl_socket_recvfrom(q->nl, buf, sizeof(buf));
	if (n < 0)
		return -1;
	return mnl_cb_run(buf, n, seq, q->portid, NULL, NULL) < 0 ? -1 : 0;
}

struct afw_queue *afw_queue_open(uint16_t num, const struct afw_queue_opts *o,
				 char *err, size_t errlen)
{
	char buf[MNL_SOCKET_BUFFER_SIZE] __attribute__((aligned(8)));
	uint32_t flags = NFQA_CFG_F_GSO | NFQA_CFG_F_UID_GID;
	const char *what = "netlink socket";
	struct nlmsghdr *nlh;
	struct afw_queue *q;
	unsigned int i;
	int one = 1, size, saved;

	q = calloc(1, sizeof(*q) + (size_t)AFW_QUEUE_BATCH * AFW_QUEUE_MSGSIZE);
	if (!q) {
		snprintf(err, errlen, "queue %u: out of memory", num);
		return NULL;
	}
	q->num = num;
	for (i = 0; i < AFW_QUEUE_BATCH; i++) {
		q->iov[i].iov_base = q->rx + (size_t)i * AFW_QUEUE_MSGSIZE;
		q->iov[i].iov_len = AFW_QUEUE_MSGSIZE;
		q->msgs[i].msg_hdr.msg_iov = &q->iov[i];
		q->msgs[i].msg_hdr.msg_iovlen = 1;
	}

	q->nl = mnl_socket_open(NETLINK_NETFILTER);
	if (!q->nl)
		goto err;
	if (mnl_socket_bind(q->nl, 0, MNL_SOCKET_AUTOPID) < 0)
		goto err_close;
	q->portid = mnl_socket_get_portid(q->nl);

	/*
	 * When afwd falls behind, the kernel drops what does not fit (or lets
	 * it through, fail-open) rather than failing the next read: the
	 * packets that did arrive are still worth answering.
	 */
	what = "NETLINK_NO_ENOBUFS";
	if (mnl_socket_setsockopt(q->nl, NETLINK_NO_ENOBUFS, &one, sizeof(one)) < 0)
		goto err_close;
	size = (int)o->rcvbuf;
	if (setsockopt(mnl_socket_get_fd(q->nl), SOL_SOCKET, SO_RCVBUFFORCE, &size,
		       sizeof(size)) < 0 &&
	    setsockopt(mnl_socket_get_fd(q->nl), SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)) < 0) {
		what = "SO_RCVBUF";
		goto err_close;
	}

	what = "binding the queue (is another program bound to it?)";
	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, num);
	nfq_nlmsg_cfg_put_cmd(nlh, AF_UNSPEC, NFQNL_CFG_CMD_BIND);
	if (afw_queue_config(q, nlh) < 0)
		goto err_close;

	what = "queue parameters";
	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, num);
	nfq_nlmsg_cfg_put_params(nlh, NFQNL_COPY_PACKET, 0xffff);
	nfq_nlmsg_cfg_put_qmaxlen(nlh, o->maxlen);
	if (o->fail_open)
		flags |= NFQA_CFG_F_FAIL_OPEN;
	mnl_attr_put_u32(nlh, NFQA_CFG_FLAGS, htonl(flags));
	mnl_attr_put_u32(nlh, NFQA_CFG_MASK,
			 htonl(NFQA_CFG_F_GSO | NFQA_CFG_F_UID_GID | NFQA_CFG_F_FAIL_OPEN));
	if (afw_queue_config(q, nlh) < 0)
		goto err_close;
	return q;

err_close:
	saved = errno;
	mnl_socket_close(q->nl);
	errno = saved;
err:
	saved = errno;
	snprintf(err, errlen, "queue %u: %s: %s", num, what, strerror(errno));
	free(q);
	errno = saved;
	return NULL;
}

void afw_queue_close(struct afw_queue *q)
{
	if (!q)
		return;
	/* Closing the socket unbinds the queue; the kernel drops what is held. */
	mnl_socket_close(q->nl);
	free(q);
}

int afw_queue_fd(const struct afw_queue *q)
{
	return mnl_socket_get_fd(q->nl);
}

/* Fills @p from one packet message; -1 if the message is not one. */
static int afw_queue_parse(const struct nlmsghdr *nlh, struct afw_qpkt *p)
{
	struct nlattr *attr[NFQA_MAX + 1] = { NULL };
	struct nfqnl_msg_packet_hdr *ph;

	if (NFNL_MSG_TYPE(nlh->nlmsg_type) != NFQNL_MSG_PACKET)
		return -1;
	if (nfq_nlmsg_parse(nlh, attr) < 0 || !attr[NFQA_PACKET_HDR] || !attr[NFQA_PAYLOAD])
		return -1;
	if (mnl_attr_get_payload_len(attr[NFQA_PACKET_HDR]) < sizeof(*ph))
		return -1;
	ph = mnl_attr_get_payload(attr[NFQA_PACKET_HDR]);
	memset(p, 0, sizeof(*p));
	p->id = ntohl(ph->packet_id);
	p->hw_proto = ntohs(ph->hw_protocol);
	p->hook = ph->hook;
	p->data = mnl_attr_get_payload(attr[NFQA_PAYLOAD]);
	p->len = mnl_attr_get_payload_len(attr[NFQA_PAYLOAD]);
	p->orig_len = attr[NFQA_CAP_LEN] ? ntohl(mnl_attr_get_u32(attr[NFQA_CAP_LEN])) : p->len;
	if (attr[NFQA_MARK])
		p->mark = ntohl(mnl_attr_get_u32(attr[NFQA_MARK]));
	if (attr[NFQA_UID] && attr[NFQA_GID]) {
		p->has_uid = true;
		p->uid = ntohl(mnl_attr_get_u32(attr[NFQA_UID]));
		p->gid = ntohl(mnl_attr_get_u32(attr[NFQA_GID]));
	}
	return 0;
}

int afw_queue_recv(struct afw_queue *q, struct afw_qpkt *pkts, unsigned int max)
{
	const struct nlmsghdr *nlh;
	unsigned int i, n = 0;
	int got, len;

	if (max > AFW_QUEUE_BATCH)
		max = AFW_QUEUE_BATCH;
	q->stats.syscalls++;
	got = recvmmsg(afw_queue_fd(q), q->msgs, max, MSG_DONTWAIT, NULL);
	if (got < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
	/*
	 * The kernel sends each queued packet in a datagram of its own, so a
	 * batch of datagrams is a batch of packets. Anything else (an error
	 * report for a verdict, say) is counted and skipped.
	 */
	for (i = 0; i < (unsigned int)got; i++) {
		nlh = q->iov[i].iov_base;
		len = (int)q->msgs[i].msg_len;
		if ((q->msgs[i].msg_hdr.msg_flags & MSG_TRUNC) || !mnl_nlmsg_ok(nlh, len) ||
		    afw_queue_parse(nlh, &pkts[n]) < 0) {
			q->stats.errors++;
			continue;
		}
		n++;
	}
	if (n) {
		q->stats.packets += n;
		q->stats.batches++;
	}
	return (int)n;
}

/* Writes the pending run of verdicts as one message. */
static void afw_queue_emit(struct afw_queue *q)
{
	struct nlmsghdr *nlh;

	if (!q->run_len)
		return;
	/*
	 * A batch verdict applies to every packet of the queue with an id up
	 * to run_id that is still waiting: the earlier runs of this send come
	 * first in the same datagram and are done by then, and afwd answers
	 * every packet of a batch, so only this run's packets are left.
	 */
	nlh = nfq_nlmsg_put(q->tx + q->txlen,
			    q->run_len > 1 ? NFQNL_MSG_VERDICT_BATCH : NFQNL_MSG_VERDICT, q->num);
	nfq_nlmsg_verdict_put(nlh, (int)q->run_id, (int)q->run_verdict);
	if (q->run_set_mark)
		nfq_nlmsg_verdict_put_mark(nlh, q->run_mark);
	q->txlen += NLMSG_ALIGN(nlh->nlmsg_len);
	q->txmsgs++;
	q->run_len = 0;
}

void afw_queue_verdict(struct afw_queue *q, uint32_t id, uint32_t verdict, uint32_t mark,
		       bool set_mark)
{
	if (q->run_len && q->run_verdict == verdict && q->run_set_mark == set_mark &&
	    (!set_mark || q->run_mark == mark)) {
		q->run_id = id;
		q->run_len++;
		return;
	}
	afw_queue_emit(q);
	/* A full buffer goes out early rather than overflow. */
	if (q->txlen > AFW_QUEUE_TXSIZE - 256)
		afw_queue_flush(q);
	q->run_id = id;
	q->run_verdict = verdict;
	q->run_mark = mark;
	q->run_set_mark = set_mark;
	q->run_len = 1;
}

int afw_queue_flush(struct afw_queue *q)
{
	int ret = 0;

	afw_queue_emit(q);
	if (!q->txlen)
		return 0;
	q->stats.syscalls++;
	if (mnl_socket_sendto(q->nl, q->tx, q->txlen) < 0) {
		q->stats.errors++;
		ret = -1;
	}
	q->stats.verdict_msgs += q->txmsgs;
	q->txlen = 0;
	q->txmsgs = 0;
	return ret;
}

const struct afw_queue_stats *afw_queue_stats(const struct afw_queue *q)
{
	return &q->stats;
}

void afw_queue_count_syscall(struct afw_queue *q)
{
	q->stats.syscalls++;
}
