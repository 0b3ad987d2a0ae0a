/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_REJECT_H
#define _AFW_REJECT_H

struct sk_buff;
struct nf_hook_state;
struct afw_tuple;

/* Answers @skb with a TCP RST, else an ICMP(v6) port unreachable. */
void afw_reject(struct sk_buff *skb, const struct nf_hook_state *state,
		const struct afw_tuple *t);

#endif /* _AFW_REJECT_H */
