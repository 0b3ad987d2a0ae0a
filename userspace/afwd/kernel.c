// SPDX-License-Identifier: GPL-2.0
/*
 * FLOW_NEW and FLOW_DEL in batches. Requests go without NLM_F_ACK, so a
 * batch costs one send and nothing comes back unless the kernel refuses a
 * request; refusals are read when the socket says there is something to
 * read, never waited for on the packet path. The socket does not ask for
 * capped acks: a refusal carries the whole request back, so the flow it was
 * about is read from the refusal itself, however many batches have gone
 * since.
 *
 * A decision afwd made by a flow's destination alone is taught to the module
 * with its FLOW_NEW (AFW_FLOW_F_LEARN): the module then decides the next
 * connections like it itself, and tells this socket of each one after the
 * fact (AFW_CMD_LEARNED), which afw_kern_read() hands to the worker. So,
 * where the worker asked, is each new TCP flow's bare handshake packet the
 * module passed without queueing it (AFW_CMD_HANDSHAKE).
 *
 * The same socket hears the generic netlink controller's "notify" group,
 * which announces every family that comes and goes: that is how a worker
 * learns that the module was unloaded, and that it is back (with a new
 * family id) after a modprobe.
 */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <time.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/afw.h>

#include "kernel.h"

static struct nlmsghdr *afw_kern_header(struct afw_kern *k, void *buf, uint16_t type,
					 uint8_t cmd, uint8_t version, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++k->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = version;
	return nlh;
}

/* What a GETFAMILY answer or a controller notification says. */
struct afw_kern_family {
	char name[GENL_NAMSIZ];
	uint16_t id;
	uint32_t version;
	uint32_t notify_grp;		/* nlctrl's "notify" group, when asked for */
};

static void afw_kern_parse_groups(const struct nlattr *nest, struct afw_kern_family *fam)
{
	const struct nlattr *grp, *a;
	const char *name;

	mnl_attr_for_each_nested(grp, nest) {
		name = NULL;
		uint32_t id = 0;

		mnl_attr_for_each_nested(a, grp) {
			if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_NAME &&
			    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
				name = mnl_attr_get_str(a);
			else if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_ID &&
				 mnl_attr_validate(a, MNL_TYPE_U32) == 0)
				id = mnl_attr_get_u32(a);
		}
		if (name && !strcmp(name, "notify"))
			fam->notify_grp = id;
	}
}

static int afw_kern_parse_family(const struct nlmsghdr *nlh, struct afw_kern_family *fam)
{
	const struct nlattr *a;

	memset(fam, 0, sizeof(*fam));
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr))
		return -1;
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case CTRL_ATTR_FAMILY_NAME:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
				snprintf(fam->name, sizeof(fam->name), "%s", mnl_attr_get_str(a));
			break;
		case CTRL_ATTR_FAMILY_ID:
			if (mnl_attr_validate(a, MNL_TYPE_U16) == 0)
				fam->id = mnl_attr_get_u16(a);
			break;
		case CTRL_ATTR_VERSION:
			if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
				fam->version = mnl_attr_get_u32(a);
			break;
		case CTRL_ATTR_MCAST_GROUPS:
			afw_kern_parse_groups(a, fam);
			break;
		}
	}
	return 0;
}

/*
 * News from the controller: the module's family was registered or
 * unregistered. Returns AFW_KERN_* bits.
 */
static int afw_kern_news(struct afw_kern *k, const struct nlmsghdr *nlh)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	struct afw_kern_family fam;

	if (nlh->nlmsg_type != GENL_ID_CTRL || afw_kern_parse_family(nlh, &fam) < 0 ||
	    strcmp(fam.name, AFW_GENL_NAME))
		return 0;
	if (genl->cmd == CTRL_CMD_DELFAMILY && k->family_id) {
		k->family_id = 0;
		k->stats.gone++;
		return AFW_KERN_WENT;
	}
	if (genl->cmd == CTRL_CMD_NEWFAMILY && fam.id && fam.id != k->family_id) {
		k->family_id = fam.id;
		k->family_version = fam.version;
		k->stats.back++;
		return AFW_KERN_CAME;
	}
	return 0;
}

/*
 * One read of an answer to a request of ours. The controller and the module
 * answer within sendto(), so the answer is normally there already; the
 * socket is non-blocking for the packet path's sake, so wait a little.
 */
static int afw_kern_recv_answer(struct afw_kern *k)
{
	struct pollfd pfd = { .fd = afw_kern_fd(k), .events = POLLIN };
	int n;

	for (;;) {
		k->stats.syscalls++;
		n = (int)recv(pfd.fd, k->buf, sizeof(k->buf), MSG_DONTWAIT);
		if (n >= 0)
			return n;
		if (errno == EINTR || errno == ENOBUFS)
			continue;
		if (errno != EAGAIN || poll(&pfd, 1, 1000) != 1)
			return -errno;
	}
}

/*
 * GETFAMILY for @name, waiting for the answer. Messages that are not the
 * answer are news (acted on); refusals cannot be among them, since the
 * caller has read the socket dry first. Returns 0 or a negative errno.
 */
static int afw_kern_getfamily(struct afw_kern *k, const char *name, struct afw_kern_family *out)
{
	char req[256] __attribute__((aligned(8)));
	const struct nlmsgerr *e;
	struct nlmsghdr *nlh;
	const struct nlmsghdr *m;
	int n, ret = -ETIMEDOUT, tries;
	unsigned int seq;

	nlh = afw_kern_header(k, req, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, NLM_F_ACK);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	seq = nlh->nlmsg_seq;
	k->stats.syscalls++;
	if (mnl_socket_sendto(k->sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	memset(out, 0, sizeof(*out));
	/* The answer is queued before sendto() returns; a few reads find it. */
	for (tries = 0; tries < 64; tries++) {
		n = afw_kern_recv_answer(k);
		if (n < 0)
			return n;
		for (m = (const struct nlmsghdr *)k->buf; mnl_nlmsg_ok(m, n);
		     m = mnl_nlmsg_next(m, &n)) {
			if (m->nlmsg_seq != seq || m->nlmsg_pid != k->portid) {
				afw_kern_news(k, m);
				continue;
			}
			if (m->nlmsg_type == NLMSG_ERROR) {
				e = mnl_nlmsg_get_payload(m);
				if (mnl_nlmsg_get_payload_len(m) < sizeof(*e))
					return -EBADMSG;
				return e->error ? e->error : ret;
			}
			if (m->nlmsg_type == GENL_ID_CTRL && afw_kern_parse_family(m, out) == 0)
				ret = 0;
		}
	}
	return ret;
}

int afw_kern_resolve(struct afw_kern *k)
{
	struct afw_kern_family fam;
	int ret = afw_kern_getfamily(k, AFW_GENL_NAME, &fam);

	if (ret == 0 && fam.id) {
		if (fam.id != k->family_id)
			k->stats.back++;
		k->family_id = fam.id;
		k->family_version = fam.version;
		return 0;
	}
	if (k->family_id)
		k->stats.gone++;
	k->family_id = 0;
	return ret ? ret : -ENOENT;
}

int afw_kern_open(struct afw_kern *k, bool news)
{
	struct afw_kern_family ctrl;
	int one = 1, ret;

	memset(k, 0, offsetof(struct afw_kern, batch));
	k->sock = mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!k->sock)
		return -errno;
	if (mnl_socket_bind(k->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		goto err;
	}
	/* The module's reason in each refusal; best effort on old kernels. */
	mnl_socket_setsockopt(k->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	/*
	 * Learned flows are told here one message each, and read a round at a
	 * time: room for a burst of them (past rmem_max, as root may; best
	 * effort, a lost one is counted).
	 */
	afw_nl_rcvbuf(k->sock, 4 << 20);
	k->portid = mnl_socket_get_portid(k->sock);
	k->seq = (unsigned int)time(NULL);
	ret = afw_kern_getfamily(k, "nlctrl", &ctrl);
	if (ret < 0)
		goto err;
	if (news && ctrl.notify_grp &&
	    mnl_socket_setsockopt(k->sock, NETLINK_ADD_MEMBERSHIP, &ctrl.notify_grp,
				  sizeof(ctrl.notify_grp)) < 0) {
		ret = -errno;
		goto err;
	}
	ret = afw_kern_resolve(k);
	if (ret < 0 && ret != -ENOENT)
		goto err;
	k->stats.back = 0;
	return 0;
err:
	mnl_socket_close(k->sock);
	k->sock = NULL;
	return ret;
}

void afw_kern_close(struct afw_kern *k)
{
	if (k->sock)
		mnl_socket_close(k->sock);
	k->sock = NULL;
}

int afw_kern_fd(const struct afw_kern *k)
{
	return mnl_socket_get_fd(k->sock);
}

/*
 * The next request of the batch, its header written, the batch sent first
 * when full; NULL while the module is not there. afw_kern_queued() takes
 * it in once its attributes are put.
 */
static struct nlmsghdr *afw_kern_slot(struct afw_kern *k, uint8_t cmd)
{
	if (!k->family_id)
		return NULL;
	if (k->pending == AFW_KERN_BATCH || sizeof(k->batch) - k->len < AFW_KERN_MSG_MAX)
		afw_kern_flush(k, NULL, NULL);
	return afw_kern_header(k, k->batch + k->len, k->family_id, cmd, AFW_GENL_VERSION, 0);
}

static void afw_kern_queued(struct afw_kern *k, const struct nlmsghdr *nlh)
{
	k->len += NLMSG_ALIGN(nlh->nlmsg_len);
	k->pending++;
}

static bool afw_kern_queue(struct afw_kern *k, const struct afw_flow_spec *f, uint8_t cmd)
{
	struct nlmsghdr *nlh = afw_kern_slot(k, cmd);

	if (!nlh)
		return false;
	afw_flow_put(nlh, f, cmd == AFW_CMD_FLOW_NEW);
	afw_kern_queued(k, nlh);
	if (cmd == AFW_CMD_FLOW_NEW)
		k->stats.installed++;
	if (cmd == AFW_CMD_FLOW_NEW && f->unconfirmed)
		k->stats.unconfirmed++;
	else if (cmd != AFW_CMD_FLOW_NEW)
		k->stats.deleted++;
	return true;
}

bool afw_kern_add(struct afw_kern *k, const struct afw_flow_spec *f)
{
	/*
	 * Never an ICMP flow without an echo's identifier: the module would
	 * carry all ICMP between the two hosts by it, pings either way. The
	 * engine answers such ICMP packet by packet; this holds should any
	 * path ever ask otherwise.
	 */
	if (!f->echo && f->proto == (f->family == AFW_FAMILY_IPV6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP))
		return true;
	return afw_kern_queue(k, f, AFW_CMD_FLOW_NEW);
}

bool afw_kern_del(struct afw_kern *k, const struct afw_flow_spec *f)
{
	return afw_kern_queue(k, f, AFW_CMD_FLOW_DEL);
}

bool afw_kern_learn(struct afw_kern *k, const struct afw_flow_spec *f, uint8_t dir,
		    uint32_t line)
{
	struct afw_flow_spec l = *f;

	l.flags |= AFW_FLOW_F_LEARN;
	l.dir = dir;
	l.line = line;
	if (!afw_kern_queue(k, &l, AFW_CMD_FLOW_NEW))
		return false;
	k->stats.learned++;
	return true;
}

bool afw_kern_forget(struct afw_kern *k)
{
	struct nlmsghdr *nlh = afw_kern_slot(k, AFW_CMD_LEARN_FLUSH);

	if (!nlh)
		return false;
	afw_kern_queued(k, nlh);
	return true;
}

bool afw_kern_serve(struct afw_kern *k, uint16_t num, bool tell)
{
	struct nlmsghdr *nlh = afw_kern_slot(k, AFW_CMD_QUEUE_SERVE);

	if (!nlh)
		return false;
	mnl_attr_put_u16(nlh, AFW_A_SERVE_FIRST, num);
	if (tell)
		mnl_attr_put(nlh, AFW_A_SERVE_TELL, 0, NULL);
	afw_kern_queued(k, nlh);
	return true;
}

/*
 * A LEARNED, HANDSHAKE or CONFIRMED message's flow; -1 when it lacks what
 * the worker needs.
 */
static int afw_kern_parse_told(const struct nlmsghdr *nlh, uint8_t cmd, struct afw_kern_told *t)
{
	const struct nlattr *tb[AFW_FLOW_A_MAX + 1];
	struct afw_flow_owner o = { 0 };
	bool handshake = cmd != AFW_CMD_LEARNED;

	if (afw_flow_attrs(nlh, tb) < 0 || !tb[AFW_FLOW_A_PACKET] || !tb[AFW_FLOW_A_DIR] ||
	    (!handshake && !tb[AFW_FLOW_A_VERDICT]))
		return -1;
	memset(t, 0, sizeof(*t));
	t->handshake = handshake;
	t->confirmed = cmd == AFW_CMD_CONFIRMED;
	t->dir = mnl_attr_get_u8(tb[AFW_FLOW_A_DIR]);
	/* A handshake's packet passed, as did a confirmation's. */
	t->verdict = handshake ? AFW_VERDICT_ACCEPT : mnl_attr_get_u8(tb[AFW_FLOW_A_VERDICT]);
	if (tb[AFW_FLOW_A_LINE])
		t->line = mnl_attr_get_u32(tb[AFW_FLOW_A_LINE]);
	if (tb[AFW_FLOW_A_IIF])
		t->iif = mnl_attr_get_u32(tb[AFW_FLOW_A_IIF]);
	if (tb[AFW_FLOW_A_OIF])
		t->oif = mnl_attr_get_u32(tb[AFW_FLOW_A_OIF]);
	t->packet = mnl_attr_get_payload(tb[AFW_FLOW_A_PACKET]);
	t->len = mnl_attr_get_payload_len(tb[AFW_FLOW_A_PACKET]);
	/* The owner's uid, as NFQUEUE gives a local socket's. */
	if (tb[AFW_FLOW_A_OWNER] && !afw_flow_owner_parse(tb[AFW_FLOW_A_OWNER], &o) &&
	    !o.listener) {
		t->has_uid = true;
		t->uid = o.uid;
	}
	return 0;
}

/*
 * The flow of a request in @nlh (ours, echoed back), or a QUEUE_SERVE
 * (with no flow); -1 if it is neither.
 */
static int afw_kern_parse_request(const struct nlmsghdr *nlh, struct afw_kern_refusal *r)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);

	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(*genl) && genl->cmd == AFW_CMD_QUEUE_SERVE) {
		memset(&r->flow, 0, sizeof(r->flow));
		r->cmd = genl->cmd;
		return 0;
	}
	if (afw_flow_parse_request(nlh, &r->flow) != MNL_CB_OK)
		return -1;
	r->cmd = genl->cmd;
	return 0;
}

/* Each request of the batch at @buf, @len bytes, refused with @err, which its send failed with. */
static void afw_kern_failed(struct afw_kern *k, const char *buf, size_t len, int err,
			    void (*refused)(const struct afw_kern_refusal *r, void *data),
			    void *data)
{
	const struct nlmsghdr *nlh;
	struct afw_kern_refusal r;
	int left = (int)len;

	for (nlh = (const struct nlmsghdr *)buf; mnl_nlmsg_ok(nlh, left);
	     nlh = mnl_nlmsg_next(nlh, &left)) {
		if (afw_kern_parse_request(nlh, &r) < 0)
			continue;
		r.error = err;
		r.msg = strerror(err);
		if (r.cmd == AFW_CMD_FLOW_NEW)
			k->stats.failed++;
		if (refused)
			refused(&r, data);
	}
}

int afw_kern_flush(struct afw_kern *k, void (*refused)(const struct afw_kern_refusal *r,
						       void *data), void *data)
{
	int ret = 0;

	if (!k->pending)
		return 0;
	/* A batch the ring holds goes first: the module takes requests in order. */
	if (k->handed_open) {
		k->ring->submit(k->ring->ctx);
		k->handed_open = false;
	}
	k->stats.syscalls++;
	if (mnl_socket_sendto(k->sock, k->batch, k->len) < 0) {
		ret = -errno;
		/* Nothing of the batch reached the module: each request failed. */
		afw_kern_failed(k, k->batch, k->len, -ret, refused, data);
	}
	k->pending = 0;
	k->len = 0;
	return ret;
}

void afw_kern_ring(struct afw_kern *k, const struct afw_kern_ring *ring)
{
	k->ring = ring;
}

int afw_kern_flush_ahead(struct afw_kern *k,
			 void (*refused)(const struct afw_kern_refusal *r, void *data), void *data)
{
	if (!k->pending)
		return 0;
	/*
	 * Its own copy: the batch takes the round's later requests, which go
	 * by a send of their own (after the ring's) or with the next round.
	 */
	if (!k->ring || k->handed_len)
		return afw_kern_flush(k, refused, data);
	memcpy(k->handed, k->batch, k->len);
	if (!k->ring->ahead(k->ring->ctx, afw_kern_fd(k), k->handed, k->len))
		return afw_kern_flush(k, refused, data);
	k->handed_len = k->len;
	k->handed_open = true;
	k->pending = 0;
	k->len = 0;
	return 0;
}

void afw_kern_handed(struct afw_kern *k, int err,
		     void (*refused)(const struct afw_kern_refusal *r, void *data), void *data)
{
	if (!k->handed_len)
		return;
	if (err < 0)
		afw_kern_failed(k, k->handed, k->handed_len, -err, refused, data);
	k->handed_len = 0;
	k->handed_open = false;
}

/* The module's words in the extended ack of @nlh, if any. */
static const char *afw_kern_ext_msg(const struct nlmsghdr *nlh, const struct nlmsgerr *e)
{
	const struct nlattr *a;
	size_t off;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NULL;
	off = sizeof(*e) - sizeof(e->msg) + NLMSG_ALIGN(e->msg.nlmsg_len);
	if (nlh->nlmsg_flags & NLM_F_CAPPED)
		off = sizeof(*e);
	if (off > mnl_nlmsg_get_payload_len(nlh))
		return NULL;
	mnl_attr_for_each(a, nlh, off)
		if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
			return mnl_attr_get_str(a);
	return NULL;
}

/*
 * One datagram of @n bytes at @buf: refusals, learned flows and news, each
 * handed on; sets *@ask when the module's family must be asked for.
 */
static int afw_kern_datagram(struct afw_kern *k, const char *buf, int n,
			     const struct afw_kern_calls *c, bool *ask)
{
	const struct genlmsghdr *genl;
	const struct nlmsghdr *nlh;
	const struct nlmsgerr *e;
	struct afw_kern_refusal r;
	struct afw_kern_told t;
	int news = 0;

	for (nlh = (const struct nlmsghdr *)buf; mnl_nlmsg_ok(nlh, n);
	     nlh = mnl_nlmsg_next(nlh, &n)) {
		genl = mnl_nlmsg_get_payload(nlh);
		if (k->family_id && nlh->nlmsg_type == k->family_id &&
		    mnl_nlmsg_get_payload_len(nlh) >= sizeof(*genl) &&
		    (genl->cmd == AFW_CMD_LEARNED || genl->cmd == AFW_CMD_HANDSHAKE ||
		     genl->cmd == AFW_CMD_CONFIRMED)) {
			if (afw_kern_parse_told(nlh, genl->cmd, &t) < 0)
				continue;
			if (t.confirmed)
				k->stats.confirmed++;
			else if (t.handshake)
				k->stats.handshakes++;
			else
				k->stats.told++;
			if (c->told)
				c->told(&t, c->data);
			continue;
		}
		if (nlh->nlmsg_type != NLMSG_ERROR) {
			news |= afw_kern_news(k, nlh);
			continue;
		}
		e = mnl_nlmsg_get_payload(nlh);
		if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e) || !e->error)
			continue;
		r.error = -e->error;
		r.msg = afw_kern_ext_msg(nlh, e);
		/*
		 * ENOENT with no word from the module is genetlink's: no family
		 * with the id the request carried. The module was unloaded, or
		 * came back with another id.
		 */
		if (r.error == ENOENT && !r.msg)
			*ask = true;
		if (!r.msg)
			r.msg = strerror(r.error);
		if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e) - sizeof(e->msg) +
		    e->msg.nlmsg_len || afw_kern_parse_request(&e->msg, &r) < 0)
			continue;
		if (r.cmd == AFW_CMD_FLOW_NEW)
			k->stats.failed++;
		if (c->refused)
			c->refused(&r, c->data);
	}
	return news;
}

/* Datagrams one afw_kern_read() call takes, each in its slice of the buffer. */
#define AFW_KERN_SLOTS 8

int afw_kern_read(struct afw_kern *k, const struct afw_kern_calls *c)
{
	const size_t slot = sizeof(k->buf) / AFW_KERN_SLOTS;
	struct mmsghdr mm[AFW_KERN_SLOTS];
	struct iovec iov[AFW_KERN_SLOTS];
	bool ask = false;
	int got, i, news = 0;
	uint16_t before;

	/*
	 * Learned flows come a message each, and a rested socket holds a run
	 * of them: one recvmmsg() takes up to a slot's worth at a time.
	 */
	for (;;) {
		for (i = 0; i < AFW_KERN_SLOTS; i++) {
			iov[i] = (struct iovec){ k->buf + (size_t)i * slot, slot };
			mm[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i], .msg_iovlen = 1 } };
		}
		k->stats.syscalls++;
		got = recvmmsg(afw_kern_fd(k), mm, AFW_KERN_SLOTS, MSG_DONTWAIT, NULL);
		if (got < 0 && errno == ENOBUFS) {
			/* News may have been lost: ask once the socket is dry. */
			k->stats.overruns++;
			ask = true;
			continue;
		}
		if (got <= 0)
			break;
		for (i = 0; i < got; i++) {
			/* Cut to fit a slot (a big family's news): the family is asked for. */
			if (mm[i].msg_hdr.msg_flags & MSG_TRUNC) {
				ask = true;
				continue;
			}
			news |= afw_kern_datagram(k, k->buf + (size_t)i * slot, (int)mm[i].msg_len,
						  c, &ask);
		}
		/* Fewer than asked for: the socket is dry. */
		if (got < AFW_KERN_SLOTS)
			break;
	}
	if (ask) {
		before = k->family_id;
		afw_kern_resolve(k);
		if (before && k->family_id != before)
			news |= AFW_KERN_WENT;
		if (k->family_id && k->family_id != before)
			news |= AFW_KERN_CAME;
	}
	return news;
}

int afw_kern_flow_flush(struct afw_kern *k)
{
	char req[64] __attribute__((aligned(8)));
	const struct nlmsghdr *m;
	const struct nlmsgerr *e;
	struct nlmsghdr *nlh;
	unsigned int seq;
	int n, tries;

	/* This socket hears no news: ask, the module may have come back since. */
	if (afw_kern_resolve(k) < 0)
		return -ENOENT;
	nlh = afw_kern_header(k, req, k->family_id, AFW_CMD_FLOW_FLUSH, AFW_GENL_VERSION,
			      NLM_F_ACK);
	seq = nlh->nlmsg_seq;
	k->stats.syscalls++;
	if (mnl_socket_sendto(k->sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (tries = 0; tries < 64; tries++) {
		n = afw_kern_recv_answer(k);
		if (n < 0)
			return n;
		for (m = (const struct nlmsghdr *)k->buf; mnl_nlmsg_ok(m, n);
		     m = mnl_nlmsg_next(m, &n)) {
			if (m->nlmsg_type != NLMSG_ERROR || m->nlmsg_seq != seq) {
				afw_kern_news(k, m);
				continue;
			}
			e = mnl_nlmsg_get_payload(m);
			return mnl_nlmsg_get_payload_len(m) < sizeof(*e) ? -EBADMSG : e->error;
		}
	}
	return -ETIMEDOUT;
}
