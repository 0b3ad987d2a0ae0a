/* SPDX-License-Identifier: GPL-2.0 */
/* A generic netlink reply of the afw family, built by hand for decoder tests. */
#ifndef AFW_TEST_GENL_MSG_H
#define AFW_TEST_GENL_MSG_H

#include <stdint.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/afw.h>

struct msg {
	char buf[4096];
	struct nlmsghdr *nlh;
};

/* Starts an empty reply to command @cmd; attributes follow on m->nlh. */
static inline void msg_start(struct msg *m, uint8_t cmd)
{
	struct genlmsghdr *g;

	memset(m->buf, 0, sizeof(m->buf));
	m->nlh = mnl_nlmsg_put_header(m->buf);
	m->nlh->nlmsg_type = 0x20;
	g = mnl_nlmsg_put_extra_header(m->nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = AFW_GENL_VERSION;
}

#endif /* AFW_TEST_GENL_MSG_H */
