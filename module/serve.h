/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_SERVE_H
#define _AFW_SERVE_H

#include <linux/rcupdate.h>
#include <linux/types.h>

struct afw_net;
struct netlink_ext_ack;

/*
 * The NFQUEUE queues an analyzer said it serves (AFW_CMD_QUEUE_SERVE), each
 * range kept for the socket that said so. Replaced whole under
 * afw_net.lock; the packet path reads it under RCU.
 */
struct afw_serve {
	struct rcu_head rcu;
	unsigned int n;
	struct afw_serve_range {
		u32 portid;
		u16 first;
		u16 count;
		bool tell;	/* AFW_A_SERVE_TELL: told the bare handshakes */
	} r[];
};

int afw_serve_add(struct afw_net *an, u32 portid, u16 first, u16 count, bool tell,
		  struct netlink_ext_ack *extack);
void afw_serve_release(struct afw_net *an, u32 portid);
void afw_serve_free(struct afw_net *an);

/* Whether a socket said it serves queue @num; under rcu_read_lock(). */
bool afw_serve_has(const struct afw_net *an, u16 num);

/*
 * The socket that serves queue @num and asked to be told its bare
 * handshakes, or 0 (the kernel's own, never one that serves); under
 * rcu_read_lock().
 */
u32 afw_serve_teller(const struct afw_net *an, u16 num);

#endif /* _AFW_SERVE_H */
