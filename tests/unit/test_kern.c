// SPDX-License-Identifier: GPL-2.0
/*
 * afwd's requests to the module, as they leave: a round that decides many
 * flows sends them in batches, each request whole and in the batch's own
 * room, never in the receive buffer beside it (a told message may still be
 * read from there). No module here: the requests go to a family id nobody
 * holds, and genetlink sends each back refused (ENOENT) with the request
 * itself, which afw_kern_read() reads back as a refusal.
 */

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/afw.h>

#include "check.h"
#include "kernel.h"

/* Past 64 of the largest requests: the batch's count alone would not send in time. */
#define T_FLOWS 100
#define T_PORT 20000

struct t_refused {
	unsigned int n, enoent, bad;
	unsigned char seen[T_FLOWS];
};

static void t_refused(const struct afw_kern_refusal *r, void *data)
{
	static const uint8_t dst[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
	struct t_refused *t = data;
	unsigned int i = r->flow.sport - T_PORT;

	t->n++;
	if (r->error == ENOENT)
		t->enoent++;
	if (r->cmd != AFW_CMD_FLOW_NEW || r->flow.family != AFW_FAMILY_IPV6 ||
	    r->flow.dport != 443 || memcmp(r->flow.dst, dst, 16) || i >= T_FLOWS || t->seen[i]) {
		t->bad++;
		return;
	}
	t->seen[i] = 1;
}

static struct afw_flow_spec t_flow(unsigned int i)
{
	struct afw_flow_spec f = {
		.family = AFW_FAMILY_IPV6, .proto = IPPROTO_TCP, .verdict = AFW_VERDICT_ACCEPT,
		.src = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 },
		.dst = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 },
		.sport = (uint16_t)(T_PORT + i), .dport = 443, .timeout = 300,
	};

	/* Every other one waits for its server's acknowledgement. */
	if (i % 2) {
		f.unconfirmed = true;
		f.confirm_ack = 1000 + i;
		f.confirm_end = 2000 + i;
		f.confirm_iif = 7;
	}
	return f;
}

/* A ring as afw_queue's: it holds a handed batch and sends it, on the socket, when made to. */
struct t_ring {
	struct afw_kern *k;
	bool take;			/* it has room */
	unsigned int aheads, submits;
	int fd;
	const void *buf;
	size_t len;
	uint64_t sends_at_submit;	/* the socket's own sends when it was made to send */
};

static bool t_ahead(void *ctx, int fd, const void *buf, size_t len)
{
	struct t_ring *r = ctx;

	r->aheads++;
	if (!r->take)
		return false;
	r->fd = fd;
	r->buf = buf;
	r->len = len;
	return true;
}

static void t_submit(void *ctx)
{
	struct t_ring *r = ctx;

	r->submits++;
	r->sends_at_submit = r->k->stats.syscalls;
	if (r->buf && send(r->fd, r->buf, r->len, 0) < 0)
		r->len = 0;
	r->buf = NULL;
}

/* The refusals' flows, by port, in the order they came. */
struct t_order {
	unsigned int n;
	uint16_t port[16];
	int error[16];
};

static void t_order(const struct afw_kern_refusal *r, void *data)
{
	struct t_order *o = data;

	if (o->n < 16) {
		o->port[o->n] = r->flow.sport;
		o->error[o->n] = r->error;
	}
	o->n++;
}

/* Queues FLOW_NEW for the flows @from to @to - 1. */
static bool t_add(struct afw_kern *k, unsigned int from, unsigned int to)
{
	struct afw_flow_spec f;
	bool took = true;

	for (; from < to; from++) {
		f = t_flow(from);
		took &= afw_kern_add(k, &f);
	}
	return took;
}

/* Reads refusals until @n came, or a second passes with none. */
static void t_read(struct afw_kern *k, struct t_order *o, unsigned int n)
{
	struct afw_kern_calls calls = { .refused = t_order, .data = o };
	struct pollfd pfd = { .fd = afw_kern_fd(k), .events = POLLIN };

	while (o->n < n && poll(&pfd, 1, 1000) > 0)
		afw_kern_read(k, &calls);
	/* ENOENT with no word of the module's: it asked, found none; it is "back". */
	k->family_id = 0xfff0;
}

static bool t_ports(const struct t_order *o, unsigned int from, unsigned int to)
{
	unsigned int i;

	if (o->n != to - from)
		return false;
	for (i = 0; i < o->n; i++)
		if (o->port[i] != T_PORT + from + i)
			return false;
	return true;
}

/*
 * Batches handed to the queue's ring (afw_kern_flush_ahead()): no send of
 * the socket's own, the bytes kept until the ring's call has returned, a
 * later send of the socket's after the ring's, and a ring's failed send
 * reported request by request.
 */
static int t_handed(struct afw_kern *k)
{
	struct t_ring r = { .k = k, .take = true };
	const struct afw_kern_ring ring = { t_ahead, t_submit, &r };
	struct t_order o = { 0 };
	uint64_t sends;
	size_t len;
	int failed = 0;

	afw_kern_ring(k, &ring);
	k->family_id = 0xfff0;
	sends = k->stats.syscalls;
	t_add(k, 0, 3);
	len = k->len;
	afw_kern_flush_ahead(k, t_order, &o);
	CHECK(failed, "a batch handed to the ring is not sent by the socket",
	      r.aheads == 1 && k->stats.syscalls == sends && k->pending == 0 && k->len == 0);
	CHECK(failed, "the ring holds the whole batch, in bytes of its own",
	      r.len == len && r.buf && r.buf != (const void *)k->batch &&
	      r.fd == afw_kern_fd(k));
	t_add(k, 3, 5);
	afw_kern_flush(k, t_order, &o);
	CHECK(failed, "a later send of the socket's makes the ring send first",
	      r.submits == 1 && r.sends_at_submit == sends && k->stats.syscalls == sends + 1);
	t_read(k, &o, 5);
	CHECK(failed, "the module gets the requests in the order they were made", t_ports(&o, 0, 5));
	afw_kern_handed(k, 0, t_order, &o);
	CHECK(failed, "a handed batch that went is not refused", o.n == 5 && k->handed_len == 0);

	memset(&o, 0, sizeof(o));
	t_add(k, 5, 7);
	afw_kern_flush_ahead(k, t_order, &o);
	afw_kern_handed(k, -ENOBUFS, t_order, &o);
	CHECK(failed, "a handed batch whose send failed: each request refused, with the error",
	      t_ports(&o, 5, 7) && o.error[0] == ENOBUFS && o.error[1] == ENOBUFS &&
	      k->handed_len == 0);
	r.buf = NULL;

	memset(&o, 0, sizeof(o));
	r.take = false;
	sends = k->stats.syscalls;
	t_add(k, 7, 8);
	afw_kern_flush_ahead(k, t_order, &o);
	CHECK(failed, "a ring with no room: the socket sends the batch itself",
	      k->stats.syscalls == sends + 1 && k->handed_len == 0 && k->pending == 0);
	r.take = true;
	t_add(k, 8, 9);
	afw_kern_flush_ahead(k, t_order, &o);
	t_add(k, 9, 10);
	afw_kern_flush_ahead(k, t_order, &o);
	CHECK(failed, "one batch held by the ring at a time: the next is sent, after it",
	      k->stats.syscalls == sends + 2 && r.submits == 2);
	t_read(k, &o, 3);
	CHECK(failed, "and the module gets them in order", t_ports(&o, 7, 10));
	afw_kern_handed(k, 0, t_order, &o);
	afw_kern_ring(k, NULL);
	return failed;
}

int main(void)
{
	struct afw_kern_calls calls;
	struct t_refused got = { 0 };
	bool in_room = true, took = true, buf_kept = true;
	struct afw_flow_spec f;
	struct afw_kern *k;
	struct pollfd pfd;
	unsigned int i, all = 1;
	uint64_t sends;
	int failed = 0;
	size_t j;

	k = calloc(1, sizeof(*k));
	if (!k || afw_kern_open(k, false) < 0) {
		printf("not ok - a generic netlink socket opens\n");
		return 1;
	}
	/* As if the module were there, under an id no family holds. */
	k->family_id = 0xfff0;
	k->family_version = AFW_GENL_VERSION;
	memset(k->buf, 0xa5, sizeof(k->buf));
	sends = k->stats.syscalls;

	for (i = 0; i < T_FLOWS; i++) {
		f = t_flow(i);
		/* The largest request afwd sends: an IPv6 decision taught. */
		if (i % 2)
			took &= afw_kern_add(k, &f);
		else
			took &= afw_kern_learn(k, &f, AFW_DIR_FORWARD, 42);
		in_room &= k->len <= sizeof(k->batch);
	}
	for (j = 0; j < sizeof(k->buf); j++)
		buf_kept &= (unsigned char)k->buf[j] == 0xa5;
	CHECK(failed, "every request queued", took);
	CHECK(failed, "the batch never runs past its room", in_room);
	CHECK(failed, "the receive buffer beside the batch is untouched", buf_kept);
	CHECK(failed, "what was held went out before the batch ran out of room",
	      k->stats.syscalls - sends >= 1 && k->pending < T_FLOWS);
	afw_kern_flush(k, NULL, NULL);
	CHECK(failed, "the flush leaves nothing held", k->pending == 0 && k->len == 0);

	calls = (struct afw_kern_calls){ .refused = t_refused, .data = &got };
	pfd = (struct pollfd){ .fd = afw_kern_fd(k), .events = POLLIN };
	while (got.n < T_FLOWS && poll(&pfd, 1, 1000) > 0)
		afw_kern_read(k, &calls);
	for (i = 0; i < T_FLOWS; i++)
		all &= got.seen[i];
	printf("# %u of %u requests came back, %u with ENOENT, %u malformed\n", got.n, T_FLOWS,
	       got.enoent, got.bad);
	CHECK(failed, "each request reached the kernel whole, once, in its own words",
	      got.n == T_FLOWS && got.bad == 0 && all);
	CHECK(failed, "each was refused for the family, as the kernel says", got.enoent == T_FLOWS);
	CHECK(failed, "installs counted, the unconfirmed among them",
	      k->stats.installed == T_FLOWS && k->stats.unconfirmed == T_FLOWS / 2 &&
	      k->stats.learned == T_FLOWS / 2);
	failed |= t_handed(k);
	afw_kern_close(k);
	free(k);
	return failed;
}
