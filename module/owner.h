/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_OWNER_H
#define _AFW_OWNER_H

#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/rhashtable-types.h>
#include <linux/sched.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>

#include "flows.h"

struct afw_net;
struct nf_hook_state;
struct sk_buff;
struct afw_exe;
struct afw_tuple;

/*
 * Who started a flow: the process that sent its first packet, recorded in
 * that process's own context as the packet left it, so that the record
 * outlives the process (docs/architecture.md, "Who started a flow").
 */
struct afw_owner {
	struct rhash_head node;
	struct afw_flow_key key;
	unsigned long born;		/* jiffies */
	kuid_t uid;			/* the socket's opener, as uid rules read it */
	kgid_t gid;
	pid_t tgid;			/* in the initial pid namespace */
	u64 cgroup;			/* the socket's cgroup v2 id; 0: none */
	bool listener;			/* an inbound flow's local socket: no task */
	char comm[TASK_COMM_LEN];
	struct afw_exe *exe;		/* NULL for a task without a program */
	struct rcu_head rcu;
};

/* The owners of one namespace's flows, at most its max_flows of them. */
struct afw_owners {
	struct rhashtable ht;
	atomic_t count;
	atomic64_t noted;		/* owners recorded */
	atomic64_t lost;		/* not recorded: full, or no memory */
	/* The collector of owners whose flows are gone: a resumed walk. */
	struct delayed_work gc;
	struct rhashtable_iter gc_iter;
	bool gc_walking;
	bool ready;
};

/*
 * From the hooks, at LOCAL_OUT, for a packet of @k that no flow decided and
 * that starts or goes to one (an accept rule's, or afwd's to decide):
 * records its sender when the packet left a user socket in the sender's
 * own call. A flow whose owner is recorded keeps that record, unless
 * @restart (a TCP SYN: a new connection on its ports) comes from another.
 */
void afw_owner_note(struct afw_net *an, const struct afw_flow_key *k, const struct sk_buff *skb,
		    const struct nf_hook_state *state, bool restart, struct afw_exe **exe);

/*
 * The same at LOCAL_IN, for an inbound packet of @k (@t, its L4 header at
 * @l4off) that starts a flow: records the local socket it goes to (a
 * listener, or a bound UDP socket), its opener's uid and gid and its
 * cgroup; no task is known, and none is named.
 */
void afw_owner_note_in(struct afw_net *an, const struct afw_flow_key *k,
		       const struct afw_tuple *t, unsigned int l4off, struct sk_buff *skb,
		       const struct nf_hook_state *state, bool restart);

/* A hook's *exe before it is looked up: the hook asks for it at most once. */
#define AFW_EXE_UNSEEN ((struct afw_exe *)ERR_PTR(-EAGAIN))

/*
 * For rules on programs, at LOCAL_OUT: the value (ident.c) of the program
 * of @skb's sender when the packet leaves in the sender's own call, as
 * afw_owner_note() would record it; else of the owner recorded for @k; 0
 * when neither names one. *@exe, AFW_EXE_UNSEEN at first, keeps the
 * sender's program (a reference) for afw_owner_note(); the hook drops it
 * with afw_owner_exe_done().
 */
u64 afw_owner_exe_match(struct afw_net *an, const struct afw_flow_key *k,
			const struct sk_buff *skb, const struct nf_hook_state *state,
			struct afw_exe **exe);
/* Drops a reference to a program (NULL: none). */
void afw_owner_exe_put(struct afw_exe *exe);

/* Inline: every packet comes here, and few took a program to drop. */
static inline void afw_owner_exe_done(struct afw_exe *exe)
{
	if (exe != AFW_EXE_UNSEEN)
		afw_owner_exe_put(exe);
}

/* Under rcu_read_lock(): the owner recorded for @k, or NULL. */
const struct afw_owner *afw_owner_lookup(struct afw_owners *ow, const struct afw_flow_key *k);

/* Under rcu_read_lock(): the program's path, or NULL. */
const char *afw_owner_exe(const struct afw_owner *o);

int afw_owners_init(struct afw_net *an);
void afw_owners_exit(struct afw_net *an);

int afw_owner_module_init(void);
void afw_owner_module_exit(void);

#endif /* _AFW_OWNER_H */
