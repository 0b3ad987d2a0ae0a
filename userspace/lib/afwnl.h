/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Talking to the afw module over generic netlink: socket, family lookup,
 * request/response with the kernel's extended ack messages.
 */
#ifndef AFW_NL_H
#define AFW_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libmnl/libmnl.h>

/*
 * Large enough for any message the kernel sends in one datagram, dump
 * batches included (libmnl's own constant is not a compile-time one).
 */
#define AFW_NL_BUFSIZE 65536

struct afw_nl {
	struct mnl_socket *sock;
	unsigned int portid;
	unsigned int seq;
	uint16_t family_id;
	uint32_t version;		/* protocol version the module speaks */
	uint32_t mcgrp_flows;		/* AFW_MCGRP_FLOWS's id; 0: the module has none */
	bool dump_intr;			/* the last reply had NLM_F_DUMP_INTR */
	uint64_t syscalls;		/* sends and receives, for those who count them */
	char ext_msg[256];		/* kernel's message for the last error */
	char buf[AFW_NL_BUFSIZE];
};

/*
 * Opens the socket and resolves the "afw" family. Returns 0, -ENOENT when
 * the module is not loaded, or another negative errno.
 */
int afw_nl_open(struct afw_nl *nl);
/*
 * Asks for a receive buffer of @bytes on @sock: past net.core.rmem_max
 * where the caller may (SO_RCVBUFFORCE, CAP_NET_ADMIN), else up to it.
 */
void afw_nl_rcvbuf(struct mnl_socket *sock, int bytes);
/* The receive buffer a listener of the flows group asks for. */
#define AFW_NL_FLOWS_RCVBUF (8 << 20)
/*
 * Joins the flows multicast group (AFW_MCGRP_FLOWS) of the namespace the
 * socket is in, with a receive buffer for a walk's burst of counts: 0,
 * -EOPNOTSUPP for a module without it, or -errno (EPERM without
 * CAP_NET_ADMIN there).
 */
int afw_nl_join_flows(struct afw_nl *nl);
/*
 * The socket alone, without looking for the module: its credentials are
 * the opener's, so a daemon opens it before it gives root up, and sets
 * family_id from what it learns elsewhere. Returns 0 or a negative errno.
 */
int afw_nl_socket(struct afw_nl *nl);
void afw_nl_close(struct afw_nl *nl);

/* Starts a request for @cmd in nl->buf; attributes may be added after. */
struct nlmsghdr *afw_nl_request(struct afw_nl *nl, uint8_t cmd, uint16_t flags);

/*
 * Sends @nlh and runs @cb on every reply message until the kernel's ack or
 * the end of a dump. Returns 0 or a negative errno; on error nl->ext_msg
 * holds the kernel's explanation, or is empty. nl->dump_intr says whether
 * any message of a dump (its end included) was flagged NLM_F_DUMP_INTR:
 * the kernel's table changed while it was dumped.
 */
int afw_nl_talk(struct afw_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data);

#endif /* AFW_NL_H */
