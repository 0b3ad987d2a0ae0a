// SPDX-License-Identifier: GPL-2.0
/*
 * FLOW_NEW in batches. Requests go without NLM_F_ACK, so a batch costs one
 * send and nothing comes back unless the kernel refuses a flow; refusals
 * are read when the socket says there is something to read, never waited
 * for on the packet path.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/afw.h>

#include "kernel.h"

int afw_kern_open(struct afw_kern *k)
{
	memset(k, 0, offsetof(struct afw_kern, batch));
	return afw_nl_open(&k->nl);
}

void afw_kern_close(struct afw_kern *k)
{
	if (k->nl.sock)
		afw_nl_close(&k->nl);
	k->nl.sock = NULL;
}

int afw_kern_fd(const struct afw_kern *k)
{
	return mnl_socket_get_fd(k->nl.sock);
}

void afw_kern_add(struct afw_kern *k, const struct afw_flow_spec *f)
{
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;

	if (k->pending == AFW_KERN_BATCH)
		afw_kern_flush(k);
	nlh = mnl_nlmsg_put_header(k->batch + k->len);
	nlh->nlmsg_type = k->nl.family_id;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = ++k->nl.seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = AFW_CMD_FLOW_NEW;
	genl->version = AFW_GENL_VERSION;
	afw_flow_put(nlh, f, 1);
	k->len += NLMSG_ALIGN(nlh->nlmsg_len);
	k->pending++;
}

int afw_kern_flush(struct afw_kern *k)
{
	int ret = 0;

	if (!k->pending)
		return 0;
	k->stats.syscalls++;
	if (mnl_socket_sendto(k->nl.sock, k->batch, k->len) < 0) {
		ret = -errno;
		k->stats.failed += k->pending;
	}
	k->stats.installed += k->pending;
	k->pending = 0;
	k->len = 0;
	return ret;
}

int afw_kern_read_errors(struct afw_kern *k)
{
	const struct nlmsgerr *e;
	const struct nlmsghdr *nlh;
	int n, refused = 0;

	for (;;) {
		k->stats.syscalls++;
		n = (int)recv(afw_kern_fd(k), k->nl.buf, sizeof(k->nl.buf), MSG_DONTWAIT);
		if (n <= 0)
			break;
		for (nlh = (const struct nlmsghdr *)k->nl.buf; mnl_nlmsg_ok(nlh, n);
		     nlh = mnl_nlmsg_next(nlh, &n)) {
			if (nlh->nlmsg_type != NLMSG_ERROR)
				continue;
			e = mnl_nlmsg_get_payload(nlh);
			if (!e->error)
				continue;
			refused++;
			k->stats.failed++;
			snprintf(k->last_error, sizeof(k->last_error), "%s", strerror(-e->error));
		}
	}
	return refused;
}
