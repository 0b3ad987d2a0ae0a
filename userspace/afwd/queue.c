// SPDX-License-Identifier: GPL-2.0
/*
 * NFQUEUE I/O. The cost to beat is the system call: a packet that costs a
 * wait, a receive and a send is three calls. Two ways are built here.
 *
 * With io_uring, a round is one call: io_uring_enter() submits the last
 * batch's verdicts and waits for the next packets, which a multishot
 * receive has already put in a ring of buffers, one packet each. Local work
 * (an eventfd, the module's socket) is watched by multishot polls on the
 * same ring.
 *
 * Where io_uring is missing or forbidden (an old kernel, a seccomp filter,
 * kernel.io_uring_disabled), poll() waits, one recvmmsg() takes every
 * packet that is waiting, up to a batch, and one send answers them.
 *
 * Either way one send answers a whole batch, runs of equal verdicts folded
 * into one NFQNL_MSG_VERDICT_BATCH.
 */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <libmnl/libmnl.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <liburing.h>

#include "pace.h"
#include "queue.h"

/*
 * One packet message: the whole packet (a GSO packet may be 64 KiB) and its
 * attributes. A smaller buffer would cut packets that afwd must see whole.
 */
#define AFW_QUEUE_MSGSIZE (0xffff + 4096)
/* Room for the verdicts of a batch, which are about 40 bytes each. */
#define AFW_QUEUE_TXSIZE 16384

/* What an io_uring completion is for, in its user_data. */
enum {
	AFW_QUEUE_TAG_RECV = 1,
	AFW_QUEUE_TAG_SEND,
	AFW_QUEUE_TAG_AHEAD,		/* afw_queue_send_ahead()'s */
	AFW_QUEUE_TAG_LOCAL,		/* + the watched fd's bit */
};

#define AFW_QUEUE_LOCAL_MAX 2
/*
 * A ring whose kernel takes no submission for this long, and this many
 * tries, is broken: afwd stops rather than go on with verdicts it cannot
 * send in order. Both: a worker kept off the CPU for a second between two
 * failures is not a broken ring.
 */
#define AFW_QUEUE_STUCK_NS 1000000000ull
#define AFW_QUEUE_STUCK_TRIES 100

struct afw_queue {
	struct mnl_socket *nl;
	unsigned int portid;
	uint16_t num;
	bool has_head;
	uint16_t head_num;		/* the headers queue, with has_head */
	int head_errno;			/* why there is none */
	struct afw_queue_opts o;
	uint32_t cfg_seq;		/* the last configuration request's */
	struct afw_queue_stats stats;
	/* The run of equal verdicts, all of one queue, not yet written into tx. */
	unsigned int run_len;
	uint16_t run_queue;
	uint32_t run_id, run_verdict, run_mark;
	bool run_set_mark;
	size_t txlen;
	unsigned int txmsgs;
	/*
	 * With io_uring a send is only queued, and goes with the next
	 * io_uring_enter(); the other buffer takes the next batch's verdicts.
	 * A queued send's buffer is the kernel's to read until it has taken
	 * the entry from the submission queue (the send itself is done in
	 * that call: netlink's to the kernel never waits): the two counts
	 * below fall to zero only once it has taken every entry. tx[txi] is
	 * never one of them (afw_queue_flush()).
	 */
	unsigned int txi;
	unsigned int tx_queued;		/* sends queued, not yet taken */
	bool ahead_queued;		/* a send ahead, not yet taken */
	uint64_t stuck_since;		/* a failing io_uring_enter()'s first time, or 0 */
	unsigned int stuck_tries;	/* and the failed calls since */
	int ahead_err;			/* the last send ahead's failure, or 0 */
	char tx[2][AFW_QUEUE_TXSIZE] __attribute__((aligned(8)));
	/* The queue's socket, then the watched fds (poll() way). */
	struct pollfd pfd[1 + AFW_QUEUE_LOCAL_MAX];
	unsigned int nlocal;
	bool use_ring;
	struct io_uring ring;
	struct io_uring_buf_ring *br;
	bool recv_armed;
	bool local_armed[AFW_QUEUE_LOCAL_MAX];
	bool local_rests[AFW_QUEUE_LOCAL_MAX];	/* afw_queue_rest(): not watched now */
	/* Buffers of the last batch, given back to the ring at the next wait. */
	unsigned int held;		/* packets waiting past their round: no batch verdicts */
	uint16_t used[AFW_QUEUE_BATCH];
	unsigned int nused;
	struct mmsghdr msgs[AFW_QUEUE_BATCH];
	struct iovec iov[AFW_QUEUE_BATCH];
	char rx[] __attribute__((aligned(8)));
};

static int afw_queue_ring_open(struct afw_queue *q);
static void afw_queue_ring_close(struct afw_queue *q);
static void afw_queue_ring_push(struct afw_queue *q);
static int afw_queue_config(struct afw_queue *q, struct nlmsghdr *nlh);
static int afw_queue_parse_msg(const struct nlmsghdr *nlh, struct afw_qpkt *p);

/*
 * Binds queue @num to @q's socket, copying @range bytes of each packet.
 * On failure *@what says which step failed, and errno why.
 */
static int afw_queue_bind(struct afw_queue *q, uint16_t num, uint32_t range, const char **what)
{
	char buf[MNL_SOCKET_BUFFER_SIZE] __attribute__((aligned(8)));
	uint32_t flags = NFQA_CFG_F_GSO | NFQA_CFG_F_UID_GID;
	struct nlmsghdr *nlh;

	*what = "binding the queue (is another program bound to it?)";
	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, num);
	nfq_nlmsg_cfg_put_cmd(nlh, AF_UNSPEC, NFQNL_CFG_CMD_BIND);
	if (afw_queue_config(q, nlh) < 0)
		return -1;

	*what = "queue parameters";
	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, num);
	nfq_nlmsg_cfg_put_params(nlh, NFQNL_COPY_PACKET, range);
	nfq_nlmsg_cfg_put_qmaxlen(nlh, q->o.maxlen);
	if (q->o.fail_open)
		flags |= NFQA_CFG_F_FAIL_OPEN;
	mnl_attr_put_u32(nlh, NFQA_CFG_FLAGS, htonl(flags));
	mnl_attr_put_u32(nlh, NFQA_CFG_MASK,
			 htonl(NFQA_CFG_F_GSO | NFQA_CFG_F_UID_GID | NFQA_CFG_F_FAIL_OPEN));
	return afw_queue_config(q, nlh);
}

/* Unbinds queue @num, without an ack: nothing is left for the ring to take. */
static void afw_queue_unbind(struct afw_queue *q, uint16_t num)
{
	char buf[128] __attribute__((aligned(8)));
	struct nlmsghdr *nlh;

	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, num);
	nfq_nlmsg_cfg_put_cmd(nlh, AF_UNSPEC, NFQNL_CFG_CMD_UNBIND);
	mnl_socket_sendto(q->nl, nlh, nlh->nlmsg_len);
}

/* Answers packet @p NF_DROP at once, in a message of its own. */
static void afw_queue_drop_now(struct afw_queue *q, const struct afw_qpkt *p)
{
	char buf[128] __attribute__((aligned(8)));
	struct nlmsghdr *nlh;

	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_VERDICT, p->queue);
	nfq_nlmsg_verdict_put(nlh, (int)p->id, NF_DROP);
	q->stats.syscalls++;
	q->stats.setup_dropped++;
	mnl_socket_sendto(q->nl, nlh, nlh->nlmsg_len);
}

/*
 * Sends one configuration message and waits for its ack. A queue bound
 * already may send packets first (the main queue's while the headers
 * queue is bound, or any between a BIND and its parameters): each is
 * dropped at once, for TCP to send again. Left unread, it would wait for
 * a later batch verdict of its queue, which covers every lower id, to
 * pass it unjudged.
 */
static int afw_queue_config(struct afw_queue *q, struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e;
	struct nlmsghdr *m;
	struct afw_qpkt p;
	uint32_t seq;
	ssize_t n;
	int len;

	seq = ++q->cfg_seq;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_flags |= NLM_F_ACK;
	if (mnl_socket_sendto(q->nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	for (;;) {
		/* The ring takes the buffers only later: the first holds any packet whole. */
		n = mnl_socket_recvfrom(q->nl, q->rx, AFW_QUEUE_MSGSIZE);
		if (n < 0)
			return -1;
		len = (int)n;
		for (m = (struct nlmsghdr *)q->rx; mnl_nlmsg_ok(m, len);
		     m = mnl_nlmsg_next(m, &len)) {
			if (m->nlmsg_type != NLMSG_ERROR) {
				if (!afw_queue_parse_msg(m, &p))
					afw_queue_drop_now(q, &p);
				continue;
			}
			if (m->nlmsg_seq != seq)
				continue;
			if (m->nlmsg_len < mnl_nlmsg_size(sizeof(*e))) {
				errno = EBADMSG;
				return -1;
			}
			e = mnl_nlmsg_get_payload(m);
			if (e->error) {
				errno = -e->error;
				return -1;
			}
			return 0;
		}
	}
}

struct afw_queue *afw_queue_open(uint16_t num, int head, const struct afw_queue_opts *o,
				 char *err, size_t errlen)
{
	const char *what = "netlink socket";
	struct afw_queue *q;
	unsigned int i;
	int one = 1, size, saved, ret;

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

	q->o = *o;
	if (afw_queue_bind(q, num, 0xffff, &what) < 0)
		goto err_close;
	/*
	 * The headers queue now, before the ring's multishot receive would
	 * take the acks. Without it, inspected flows come whole, as before.
	 */
	q->head_errno = ENOENT;
	if (head >= 0 && head != num) {
		if (afw_queue_bind(q, (uint16_t)head, AFW_QUEUE_HEAD_BYTES, &what) < 0) {
			q->head_errno = errno;
			afw_queue_unbind(q, (uint16_t)head);
		} else {
			q->has_head = true;
			q->head_num = (uint16_t)head;
			q->head_errno = 0;
		}
	}
	q->pfd[0] = (struct pollfd){ .fd = afw_queue_fd(q), .events = POLLIN };
	if (o->io != AFW_QUEUE_IO_POLL) {
		ret = afw_queue_ring_open(q);
		if (ret < 0 && o->io == AFW_QUEUE_IO_URING) {
			errno = -ret;
			what = "io_uring";
			goto err_close;
		}
	}
	return q;

err_close:
	saved = errno;
	mnl_socket_close(q->nl);
	errno = saved;
err:
	saved = errno;
	/* EPERM on any of these is missing CAP_NET_ADMIN, not a rival. */
	if (saved == EPERM)
		what = "opening the queue needs CAP_NET_ADMIN (run afwd as root, or as "
		       "afwd.service does)";
	snprintf(err, errlen, "queue %u: %s: %s", num, what, strerror(saved));
	free(q);
	errno = saved;
	return NULL;
}

void afw_queue_close(struct afw_queue *q)
{
	if (!q)
		return;
	/*
	 * Unbind first, in this call: a multishot receive holds the socket
	 * until io_uring's deferred teardown drops it, and until then the
	 * queue would stay bound, refusing the next afwd (EPERM). Without an
	 * ack, so that no answer is left for the ring to take.
	 */
	afw_queue_unbind(q, q->num);
	if (q->has_head)
		afw_queue_unbind(q, q->head_num);
	afw_queue_ring_close(q);
	/* Closing the socket unbinds the queue; the kernel drops what is held. */
	mnl_socket_close(q->nl);
	free(q);
}

int afw_queue_fd(const struct afw_queue *q)
{
	return mnl_socket_get_fd(q->nl);
}

int afw_queue_head(const struct afw_queue *q)
{
	return q->head_errno;
}

/* Fills @p from one packet message, of any queue; -1 if the message is not one. */
static int afw_queue_parse_msg(const struct nlmsghdr *nlh, struct afw_qpkt *p)
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
	p->queue = ntohs(((const struct nfgenmsg *)mnl_nlmsg_get_payload(nlh))->res_id);
	p->hw_proto = ntohs(ph->hw_protocol);
	p->hook = ph->hook;
	p->data = mnl_attr_get_payload(attr[NFQA_PAYLOAD]);
	p->len = mnl_attr_get_payload_len(attr[NFQA_PAYLOAD]);
	p->orig_len = attr[NFQA_CAP_LEN] ? ntohl(mnl_attr_get_u32(attr[NFQA_CAP_LEN])) : p->len;
	if (attr[NFQA_MARK])
		p->mark = ntohl(mnl_attr_get_u32(attr[NFQA_MARK]));
	if (attr[NFQA_SKB_INFO])
		p->skbinfo = ntohl(mnl_attr_get_u32(attr[NFQA_SKB_INFO]));
	if (attr[NFQA_IFINDEX_INDEV])
		p->indev = ntohl(mnl_attr_get_u32(attr[NFQA_IFINDEX_INDEV]));
	if (attr[NFQA_IFINDEX_OUTDEV])
		p->outdev = ntohl(mnl_attr_get_u32(attr[NFQA_IFINDEX_OUTDEV]));
	if (attr[NFQA_UID] && attr[NFQA_GID]) {
		p->has_uid = true;
		p->uid = ntohl(mnl_attr_get_u32(attr[NFQA_UID]));
		p->gid = ntohl(mnl_attr_get_u32(attr[NFQA_GID]));
	}
	return 0;
}

/* Fills @p from one packet message of @q's queues; -1 otherwise. */
static int afw_queue_parse(const struct afw_queue *q, const struct nlmsghdr *nlh,
			   struct afw_qpkt *p)
{
	if (afw_queue_parse_msg(nlh, p) < 0)
		return -1;
	/* Only this socket's queues send here; anything else is not ours to answer. */
	if (p->queue == q->num)
		return 0;
	if (q->has_head && p->queue == q->head_num) {
		p->head = true;
		return 0;
	}
	return -1;
}

/* The poll() way: takes up to a batch of waiting packets, without blocking. */
static int afw_queue_take(struct afw_queue *q, struct afw_qpkt *pkts, unsigned int max)
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
		    afw_queue_parse(q, nlh, &pkts[n]) < 0) {
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

/* Arms the multishot receive: every packet lands in a buffer of the ring. */
static void afw_queue_arm_recv(struct afw_queue *q)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&q->ring);

	if (!sqe)
		return;
	io_uring_prep_recv_multishot(sqe, afw_queue_fd(q), NULL, 0, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = 0;
	io_uring_sqe_set_data64(sqe, AFW_QUEUE_TAG_RECV);
	q->recv_armed = true;
}

/*
 * One-shot polls, armed again before each wait unless the fd rests: a
 * multishot one would go on waking the ring while its fd rests.
 */
static void afw_queue_arm_local(struct afw_queue *q, unsigned int bit)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&q->ring);

	if (!sqe)
		return;
	io_uring_prep_poll_add(sqe, q->pfd[1 + bit].fd, POLLIN);
	io_uring_sqe_set_data64(sqe, AFW_QUEUE_TAG_LOCAL + bit);
	q->local_armed[bit] = true;
}

/*
 * Sets up the ring: a buffer per packet of a batch, given to the kernel as
 * a buffer ring. Fails (and the poll() way is used) where io_uring, buffer
 * rings or multishot receives are missing; the last shows only when the
 * first receive completes, in afw_queue_ring_wait().
 */
static int afw_queue_ring_open(struct afw_queue *q)
{
	struct io_uring_buf_reg reg = { .ring_entries = AFW_QUEUE_BATCH, .bgid = 0 };
	unsigned int i;
	void *mem;
	int ret;

	ret = io_uring_queue_init(4 * AFW_QUEUE_BATCH, &q->ring, 0);
	if (ret < 0)
		return ret;
	if (!(q->ring.features & IORING_FEAT_EXT_ARG)) {
		ret = -EOPNOTSUPP;
		goto err_exit;
	}
	if (posix_memalign(&mem, 4096, AFW_QUEUE_BATCH * sizeof(struct io_uring_buf))) {
		ret = -ENOMEM;
		goto err_exit;
	}
	q->br = mem;
	reg.ring_addr = (unsigned long)q->br;
	ret = io_uring_register_buf_ring(&q->ring, &reg, 0);
	if (ret < 0)
		goto err_free;
	io_uring_buf_ring_init(q->br);
	for (i = 0; i < AFW_QUEUE_BATCH; i++)
		io_uring_buf_ring_add(q->br, q->iov[i].iov_base, AFW_QUEUE_MSGSIZE, (uint16_t)i,
				      io_uring_buf_ring_mask(AFW_QUEUE_BATCH), (int)i);
	io_uring_buf_ring_advance(q->br, AFW_QUEUE_BATCH);
	q->use_ring = true;
	afw_queue_arm_recv(q);
	return 0;

err_free:
	free(q->br);
	q->br = NULL;
err_exit:
	io_uring_queue_exit(&q->ring);
	return ret;
}

static void afw_queue_ring_close(struct afw_queue *q)
{
	if (!q->use_ring)
		return;
	/* Verdicts (and a send ahead) still queued go out before the socket closes. */
	if (q->tx_queued || q->ahead_queued)
		afw_queue_ring_push(q);
	io_uring_queue_exit(&q->ring);
	free(q->br);
	q->br = NULL;
	q->use_ring = false;
}

/*
 * After an io_uring_enter() that returned @ret: the queued sends' buffers
 * are free again once the kernel has taken every entry. Taken is sent:
 * netlink's sends to the kernel are done within the call, and no send is
 * linked to another (afw_queue_send_ahead()). A call can fail before it
 * takes them (no memory for a request: -EAGAIN); they stay queued, in
 * order, for the next call, and their buffers stay as they are. A ring
 * that keeps failing would have afwd spin, receive nothing, and hold
 * verdicts it can send no other way in order: past AFW_QUEUE_STUCK_NS and
 * AFW_QUEUE_STUCK_TRIES it stops afwd, and the queue fails open or closed
 * as configured. -EBADR only says that completions were dropped.
 */
static void afw_queue_ring_taken(struct afw_queue *q, int ret)
{
	bool failed = ret < 0 && ret != -ETIME && ret != -EINTR && ret != -EBADR;
	uint64_t now;

	if (!io_uring_sq_ready(&q->ring)) {
		q->tx_queued = 0;
		q->ahead_queued = false;
	} else {
		failed = true;
	}
	if (!failed) {
		q->stuck_since = 0;
		q->stuck_tries = 0;
		return;
	}
	q->stats.ring_failed++;
	now = afw_now_ns();
	if (!q->stuck_since)
		q->stuck_since = now;
	if (++q->stuck_tries >= AFW_QUEUE_STUCK_TRIES && now - q->stuck_since >= AFW_QUEUE_STUCK_NS) {
		fprintf(stderr, "afwd: queue %u: io_uring has failed for a second (%s); "
			"stopping\n", q->num, ret < 0 ? strerror(-ret) : "entries not taken");
		_exit(EXIT_FAILURE);
	}
	/* Not a busy loop while the kernel is short of memory. */
	nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
}

/* Submits until the kernel has taken every queued entry. */
static void afw_queue_ring_push(struct afw_queue *q)
{
	int ret;

	while (io_uring_sq_ready(&q->ring)) {
		q->stats.syscalls++;
		ret = io_uring_submit(&q->ring);
		afw_queue_ring_taken(q, ret);
	}
}

/*
 * The io_uring way. One io_uring_enter() submits what is queued (verdicts,
 * buffers given back, re-armed receives) and sleeps until @want
 * completions or @ts.
 */
static int afw_queue_ring_wait(struct afw_queue *q, struct afw_qpkt *pkts, unsigned int want,
			       struct __kernel_timespec *ts, unsigned int *ready)
{
	const struct nlmsghdr *nlh;
	struct io_uring_cqe *cqe;
	unsigned int head, seen = 0, n = 0, i, bid;
	uint64_t tag;
	int ret;

	/* The last batch is answered: its buffers go back to the kernel. */
	for (i = 0; i < q->nused; i++)
		io_uring_buf_ring_add(q->br, q->iov[q->used[i]].iov_base, AFW_QUEUE_MSGSIZE,
				      q->used[i], io_uring_buf_ring_mask(AFW_QUEUE_BATCH), (int)i);
	io_uring_buf_ring_advance(q->br, (int)q->nused);
	q->nused = 0;
	if (!q->recv_armed)
		afw_queue_arm_recv(q);
	for (i = 0; i < q->nlocal; i++)
		if (!q->local_armed[i] && !q->local_rests[i])
			afw_queue_arm_local(q, i);

	q->stats.syscalls++;
	ret = io_uring_submit_and_wait_timeout(&q->ring, &cqe, want, ts, NULL);
	/*
	 * A failed call still reads what completed before it: the packets,
	 * and a send's failure that is to be reported for the right batch.
	 */
	afw_queue_ring_taken(q, ret);

	io_uring_for_each_cqe(&q->ring, head, cqe) {
		seen++;
		tag = io_uring_cqe_get_data64(cqe);
		if (tag >= AFW_QUEUE_TAG_LOCAL) {
			*ready |= 1u << (tag - AFW_QUEUE_TAG_LOCAL);
			if (!(cqe->flags & IORING_CQE_F_MORE))
				q->local_armed[tag - AFW_QUEUE_TAG_LOCAL] = false;
			continue;
		}
		if (tag == AFW_QUEUE_TAG_SEND) {
			/* Only failed sends complete. */
			q->stats.errors++;
			continue;
		}
		if (tag == AFW_QUEUE_TAG_AHEAD) {
			q->ahead_err = cqe->res;
			continue;
		}
		if (!(cqe->flags & IORING_CQE_F_MORE))
			q->recv_armed = false;
		if (cqe->res == -EINVAL && !q->stats.packets)
			return -2;	/* no multishot receive in this kernel */
		if (!(cqe->flags & IORING_CQE_F_BUFFER))
			continue;	/* -ENOBUFS: re-armed once buffers are back */
		bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
		q->used[q->nused++] = (uint16_t)bid;
		nlh = q->iov[bid].iov_base;
		if (cqe->res <= 0 || !mnl_nlmsg_ok(nlh, cqe->res) ||
		    afw_queue_parse(q, nlh, &pkts[n]) < 0) {
			q->stats.errors++;
			continue;
		}
		n++;
	}
	io_uring_cq_advance(&q->ring, seen);
	if (n) {
		q->stats.packets += n;
		q->stats.batches++;
	}
	return (int)n;
}

int afw_queue_watch(struct afw_queue *q, int fd)
{
	if (q->nlocal == AFW_QUEUE_LOCAL_MAX)
		return -1;
	q->pfd[1 + q->nlocal] = (struct pollfd){ .fd = fd, .events = POLLIN };
	return (int)q->nlocal++;
}

void afw_queue_rest(struct afw_queue *q, int bit, bool rest)
{
	if (bit < 0 || (unsigned int)bit >= q->nlocal)
		return;
	q->local_rests[bit] = rest;
	/* poll() leaves out an entry with no events but errors. */
	q->pfd[1 + bit].events = rest ? 0 : POLLIN;
}

int afw_queue_wait(struct afw_queue *q, struct afw_qpkt *pkts, uint64_t timeout_ns,
		   uint64_t gather_ns, unsigned int *ready, bool *gathered)
{
	uint64_t t = gather_ns ? gather_ns : timeout_ns;
	struct __kernel_timespec kts = { .tv_sec = (long long)(t / 1000000000u),
					 .tv_nsec = (long long)(t % 1000000000u) };
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000u),
			       .tv_nsec = (long)(t % 1000000000u) };
	unsigned int i;
	int n, ret;

	*ready = 0;
	*gathered = false;
	if (t || gather_ns)
		q->stats.polls++;
	if (q->use_ring) {
		/*
		 * Gathering asks for a whole batch, so only the time (or local
		 * work) ends the wait early; otherwise the first packet does.
		 */
		n = afw_queue_ring_wait(q, pkts, gather_ns ? AFW_QUEUE_BATCH : 1, &kts, ready);
		if (n != -2) {
			/*
			 * liburing reports the timeout only when nothing came, so
			 * a gathering that ends short of a batch, with no local
			 * work, ran its course.
			 */
			*gathered = gather_ns && n >= 0 && n < AFW_QUEUE_BATCH && !*ready;
			q->stats.waits += *gathered;
			return n;
		}
		/* This kernel has io_uring but not multishot receives. */
		afw_queue_ring_close(q);
		q->stats.io_fell_back = true;
	}
	if (!t && !gather_ns)
		return afw_queue_take(q, pkts, AFW_QUEUE_BATCH);
	for (i = 0; i <= q->nlocal; i++)
		q->pfd[i].revents = 0;
	q->stats.syscalls++;
	/* While gathering, the queue's socket is left out of the set. */
	ret = gather_ns ? ppoll(q->pfd + 1, q->nlocal, &ts, NULL) :
			  ppoll(q->pfd, q->nlocal + 1, &ts, NULL);
	for (i = 0; i < q->nlocal; i++)
		if (q->pfd[1 + i].revents & POLLIN)
			*ready |= 1u << i;
	*gathered = gather_ns && ret == 0;
	q->stats.waits += *gathered;
	if (!gather_ns && (ret <= 0 || !(q->pfd[0].revents & POLLIN)))
		return 0;
	return afw_queue_take(q, pkts, AFW_QUEUE_BATCH);
}

const char *afw_queue_io_name(const struct afw_queue *q)
{
	return q->use_ring ? "io_uring" : "poll";
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
	nlh = nfq_nlmsg_put(q->tx[q->txi] + q->txlen,
			    q->run_len > 1 ? NFQNL_MSG_VERDICT_BATCH : NFQNL_MSG_VERDICT, q->run_queue);
	nfq_nlmsg_verdict_put(nlh, (int)q->run_id, (int)q->run_verdict);
	if (q->run_set_mark)
		nfq_nlmsg_verdict_put_mark(nlh, q->run_mark);
	q->txlen += NLMSG_ALIGN(nlh->nlmsg_len);
	q->txmsgs++;
	q->run_len = 0;
}

void afw_queue_verdict(struct afw_queue *q, const struct afw_qpkt *p, uint32_t verdict,
		       uint32_t mark, bool set_mark)
{
	/* Each queue numbers its own packets: a run never spans two, nor a held one. */
	if (q->run_len && !q->held && q->run_queue == p->queue && q->run_verdict == verdict &&
	    q->run_set_mark == set_mark && (!set_mark || q->run_mark == mark)) {
		q->run_id = p->id;
		q->run_len++;
		return;
	}
	afw_queue_emit(q);
	/* A full buffer goes out early rather than overflow. */
	if (q->txlen > AFW_QUEUE_TXSIZE - 256)
		afw_queue_flush(q);
	q->run_queue = p->queue;
	q->run_id = p->id;
	q->run_verdict = verdict;
	q->run_mark = mark;
	q->run_set_mark = set_mark;
	q->run_len = 1;
}

void afw_queue_hold(struct afw_queue *q)
{
	/* The run so far ends below the held packet's id. */
	afw_queue_emit(q);
	q->held++;
}

void afw_queue_release(struct afw_queue *q)
{
	if (q->held)
		q->held--;
}

int afw_queue_flush(struct afw_queue *q)
{
	struct io_uring_sqe *sqe;
	int ret = 0;

	afw_queue_emit(q);
	if (!q->txlen)
		return 0;
	q->stats.verdict_msgs += q->txmsgs;
	if (q->use_ring) {
		/* A full submission queue: the kernel takes it first. */
		if (!(sqe = io_uring_get_sqe(&q->ring))) {
			afw_queue_ring_push(q);
			sqe = io_uring_get_sqe(&q->ring);
		}
		if (sqe) {
			/* Success posts nothing, so that it never ends a wait. */
			io_uring_prep_send(sqe, afw_queue_fd(q), q->tx[q->txi], q->txlen, 0);
			sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
			io_uring_sqe_set_data64(sqe, AFW_QUEUE_TAG_SEND);
			q->tx_queued++;
			q->txi ^= 1;
			/*
			 * The next verdicts are written into the other buffer
			 * at once: it must be free before then, not only
			 * before the next send.
			 */
			if (q->tx_queued == 2)
				afw_queue_ring_push(q);
		} else {
			q->stats.errors++;
			ret = -1;
		}
	} else {
		q->stats.syscalls++;
		if (mnl_socket_sendto(q->nl, q->tx[q->txi], q->txlen) < 0) {
			q->stats.errors++;
			ret = -1;
		}
	}
	q->txlen = 0;
	q->txmsgs = 0;
	return ret;
}

bool afw_queue_send_ahead(struct afw_queue *q, int fd, const void *buf, size_t len)
{
	struct io_uring_sqe *sqe;

	/* Verdicts queued already would go first. */
	if (!q->use_ring || q->tx_queued || q->ahead_queued || !(sqe = io_uring_get_sqe(&q->ring)))
		return false;
	io_uring_prep_send(sqe, fd, buf, len, 0);
	/*
	 * The verdicts after it go after it: the kernel issues entries in
	 * order, and a netlink send to the kernel is done within its issue,
	 * so a flow is installed before the packet that its server answers
	 * goes on. Not linked: a link whose chain a submission ends before
	 * its next entry is done later, by an io-wq thread, after the call
	 * has returned and while afwd may reuse the buffer. Success posts
	 * nothing, so that it never ends a wait.
	 */
	sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
	io_uring_sqe_set_data64(sqe, AFW_QUEUE_TAG_AHEAD);
	q->ahead_queued = true;
	return true;
}

int afw_queue_ahead_err(struct afw_queue *q)
{
	int err = q->ahead_err;

	q->ahead_err = 0;
	return err;
}

bool afw_queue_ahead_pending(const struct afw_queue *q)
{
	return q->ahead_queued;
}

void afw_queue_submit(struct afw_queue *q)
{
	if (!q->use_ring || (!q->tx_queued && !q->ahead_queued))
		return;
	afw_queue_ring_push(q);
}

const struct afw_queue_stats *afw_queue_stats(const struct afw_queue *q)
{
	return &q->stats;
}
