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
	afw_kern_close(k);
	free(k);
	return failed;
}
