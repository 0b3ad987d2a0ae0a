/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_GENL_H
#define _AFW_GENL_H

#include <linux/types.h>

struct afw_net;
struct afw_flow;
struct afw_flow_key;
struct afw_learned;
struct afw_tuple;
struct nf_hook_state;
struct sk_buff;

/* The family's multicast groups, by index. */
enum {
	AFW_GENL_MCGRP_FLOWS,
};

/*
 * Tells the flows group of @an's namespace that flow @f was installed
 * (AFW_CMD_FLOW_NEW), is gone (AFW_CMD_FLOW_DEL), or has these counts
 * (AFW_CMD_FLOW_GET), while someone listens. Any context; a message that
 * cannot be made in GFP_ATOMIC is not sent.
 */
void afw_genl_flow_event(struct afw_net *an, const struct afw_flow *f, u8 cmd);
/* Whether anyone listens to @an's flow events now. */
bool afw_genl_flow_heard(struct afw_net *an);

/*
 * Tells the socket that taught @e of the flow @k it decided, started by the
 * packet @skb (@t) in the hook @state (AFW_CMD_LEARNED). Packet path, under
 * rcu_read_lock(); a message that cannot be made or has no room is counted
 * as untold.
 */
void afw_genl_tell_learned(struct afw_net *an, const struct nf_hook_state *state,
			   const struct sk_buff *skb, const struct afw_tuple *t,
			   const struct afw_flow_key *k, const struct afw_learned *e);

/*
 * Tells socket @portid of the bare handshake packet @skb (@t) of the new
 * flow @k in the hook @state (AFW_CMD_HANDSHAKE). Packet path, under
 * rcu_read_lock(); 0 once the socket holds it, else an error and nothing
 * told.
 */
int afw_genl_tell_handshake(struct afw_net *an, const struct nf_hook_state *state,
			    const struct sk_buff *skb, const struct afw_tuple *t,
			    const struct afw_flow_key *k, u32 portid);

/*
 * Tells socket @portid of the packet @skb (@t) in the hook @state that
 * confirms its unconfirmed flow (AFW_CMD_CONFIRMED). Packet path, under
 * rcu_read_lock(); 0 once the socket holds it, else an error and nothing
 * told.
 */
int afw_genl_tell_confirmed(const struct nf_hook_state *state, const struct sk_buff *skb,
			    const struct afw_tuple *t, u32 portid);

int afw_genl_init(void);
void afw_genl_exit(void);

#endif /* _AFW_GENL_H */
