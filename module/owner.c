// SPDX-License-Identifier: GPL-2.0
/*
 * Flow owners: which process started a flow, recorded in the kernel at the
 * flow's birth.
 *
 * Tools that find a connection's process later, by scanning /proc or from
 * a probe, race the process: one that connects and exits at once is gone
 * before they look. Here the record is made as the flow's first packet
 * leaves through LOCAL_OUT while its sender is still running it (a connect()
 * or sendmsg() in the sender's own context), and lives with the flow.
 *
 * Only a packet sent in task context with bottom halves on, from a socket
 * a process holds open, names a process: a retransmission from a timer, a
 * reply built in softirq or a kernel socket's packet has no sender to name,
 * and records nothing. Bottom halves off in task context mean the stack is
 * at work for someone else in that task's time: a verdict afwd sends
 * reinjects a packet, delivers it to the receiving socket, and the ACK
 * that draws leaves from afwd's own system call. A socket passed to
 * another process names whoever sent the flow's first packet; only a new
 * TCP connection on the flow's ports records its sender afresh.
 *
 * Owners are kept in their own table, not in the flows: a flow that afwd is
 * still deciding has no entry yet, and a flow's entry stays at two cache
 * lines. The collector drops an owner once no flow of its key is left and
 * it is older than the time afwd has to decide one.
 *
 * Programs' paths are shared between owners, one copy per executable file
 * (device, inode, generation) and view (whether the task sees the host's
 * root): d_path() runs once per program, not once per flow. Two hard links
 * to one file share the path the first flow saw. Rules on programs compare
 * a hash of the path taken in the host's view (ident.c), and the hook asks
 * for a packet's program once, for its rules and for its record alike.
 */

#include <linux/cgroup.h>
#include <linux/dcache.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/ipv6.h>
#include <linux/limits.h>
#include <linux/mm_types.h>
#include <linux/netfilter.h>
#include <linux/rhashtable.h>
#include <linux/sched/mm.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/version.h>
#include <net/inet6_hashtables.h>
#include <net/inet_hashtables.h>
#include <net/ip.h>
#include <net/route.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/udp.h>

#include "ident.h"
#include "netns.h"
#include "owner.h"
#include "tuple.h"

/* How long an owner waits for its flow: afwd's time to decide a new flow. */
#define AFW_OWNER_GRACE (30 * HZ)
#define AFW_OWNER_GC_BUDGET 2048
#define AFW_OWNER_GC_IDLE (5 * HZ)

/* An executable file, as it was found. */
struct afw_exe_key {
	u64 ino;
	u32 dev;
	u32 generation;
	u32 host;			/* seen from the host's root */
	u32 pad;
};

/* One program's path, shared by its owners. */
struct afw_exe {
	struct rhash_head node;
	struct afw_exe_key key;
	refcount_t ref;
	bool hashed;			/* in afw_exes; else this owner's alone */
	u64 match;			/* what rules on programs compare; 0: none */
	struct rcu_head rcu;
	char path[];
};

static const struct rhashtable_params afw_exe_params = {
	.head_offset = offsetof(struct afw_exe, node),
	.key_offset = offsetof(struct afw_exe, key),
	.key_len = sizeof(struct afw_exe_key),
	.automatic_shrinking = true,
};

/* Programs are files of the host, not of a namespace: one table for all. */
static struct rhashtable afw_exes;
static hsiphash_key_t afw_owner_secret __read_mostly;

static u32 afw_owner_hashfn(const void *data, u32 len, u32 seed)
{
	return afw_flow_key_hash(data, seed, &afw_owner_secret);
}

static const struct rhashtable_params afw_owner_params = {
	.head_offset = offsetof(struct afw_owner, node),
	.key_offset = offsetof(struct afw_owner, key),
	.key_len = sizeof(struct afw_flow_key),
	.hashfn = afw_owner_hashfn,
	.automatic_shrinking = true,
};

void afw_owner_exe_put(struct afw_exe *e)
{
	if (!e || !refcount_dec_and_test(&e->ref))
		return;
	if (e->hashed)
		rhashtable_remove_fast(&afw_exes, &e->node, afw_exe_params);
	kfree_rcu(e, rcu);
}

/*
 * The running task's executable file, with a reference. Its mm is its own
 * and stays while it runs; the file may be swapped by another thread
 * (prctl(PR_SET_MM_EXE_FILE)), hence the RCU-safe get.
 */
static struct file *afw_exe_file(void)
{
	struct mm_struct *mm = current->mm;
	struct file *f;

	if (!mm || (current->flags & PF_KTHREAD))
		return NULL;
	rcu_read_lock();
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
	f = get_file_rcu(&mm->exe_file);
#else
	f = rcu_dereference(mm->exe_file);
	if (f && !get_file_rcu(f))
		f = NULL;
#endif
	rcu_read_unlock();
	return f;
}

/* A new path for @key; never sleeps. */
static struct afw_exe *afw_exe_new(const struct afw_exe_key *key, struct file *f)
{
	struct afw_exe *e = NULL;
	char *buf, *path;
	size_t len;

	buf = kmalloc(PATH_MAX, GFP_ATOMIC | __GFP_NOWARN);
	if (!buf)
		return NULL;
	/* d_path() takes no sleeping lock: it walks under RCU and seqlocks. */
	path = d_path(&f->f_path, buf, PATH_MAX);
	if (IS_ERR(path))
		goto out;
	len = strlen(path);
	e = kmalloc(struct_size(e, path, len + 1), GFP_ATOMIC | __GFP_NOWARN);
	if (!e)
		goto out;
	e->key = *key;
	refcount_set(&e->ref, 1);
	memcpy(e->path, path, len + 1);
	e->match = 0;
	if (key->host) {
		/* A program replaced since it started is still that program. */
		if (d_unlinked(f->f_path.dentry) && len > 10 &&
		    !strcmp(path + len - 10, " (deleted)"))
			len -= 10;
		e->match = afw_ident_hash(path, len);
	}
out:
	kfree(buf);
	return e;
}

/* The running task's program, with a reference; NULL when it has none. */
static struct afw_exe *afw_exe_get(void)
{
	struct afw_exe_key key = {};
	struct afw_exe *e, *old;
	struct inode *inode;
	struct file *f;

	f = afw_exe_file();
	if (!f)
		return NULL;
	inode = file_inode(f);
	key.ino = inode->i_ino;
	key.dev = inode->i_sb->s_dev;
	key.generation = inode->i_generation;
	key.host = afw_ident_host_file(&f->f_path);

	rcu_read_lock();
	e = rhashtable_lookup(&afw_exes, &key, afw_exe_params);
	if (e && !refcount_inc_not_zero(&e->ref))
		e = NULL;
	rcu_read_unlock();
	if (e)
		goto out;

	e = afw_exe_new(&key, f);
	if (!e)
		goto out;
	e->hashed = true;
	old = rhashtable_lookup_get_insert_fast(&afw_exes, &e->node, afw_exe_params);
	if (!old)
		goto out;
	/*
	 * Another owner's insert won, or a dying entry still holds the key:
	 * take the winner if it lives, else keep this copy for this owner.
	 */
	e->hashed = false;
	if (!IS_ERR(old) && refcount_inc_not_zero(&old->ref)) {
		kfree(e);
		e = old;
	}
out:
	fput(f);
	return e;
}

static void afw_owner_free(struct afw_owner *o)
{
	afw_owner_exe_put(o->exe);
	kfree_rcu(o, rcu);
}

const struct afw_owner *afw_owner_lookup(struct afw_owners *ow, const struct afw_flow_key *k)
{
	if (!atomic_read(&ow->count))
		return NULL;
	return rhashtable_lookup(&ow->ht, k, afw_owner_params);
}

const char *afw_owner_exe(const struct afw_owner *o)
{
	return o->exe ? o->exe->path : NULL;
}

/* @sk, when a process holds it open, with its opener's ids; else NULL. */
static struct sock *afw_owner_held(struct sock *sk, const struct nf_hook_state *state,
				   kuid_t *uid, kgid_t *gid)
{
	const struct file *filp;
	bool open;

	if (!sk || !sk_fullsock(sk) || !net_eq(sock_net(sk), state->net))
		return NULL;
	/* The file goes when the socket is orphaned, under this lock. */
	read_lock_bh(&sk->sk_callback_lock);
	filp = sk->sk_socket ? sk->sk_socket->file : NULL;
	open = filp;
	if (open) {
		*uid = filp->f_cred->fsuid;
		*gid = filp->f_cred->fsgid;
	}
	read_unlock_bh(&sk->sk_callback_lock);
	return open ? sk : NULL;
}

/* The socket @skb left by, when a process holds it open; else NULL. */
static struct sock *afw_owner_sock(const struct sk_buff *skb,
				   const struct nf_hook_state *state, kuid_t *uid, kgid_t *gid)
{
	return afw_owner_held(skb->sk, state, uid, gid);
}

static u64 afw_owner_cgroup(struct sock *sk)
{
#ifdef CONFIG_SOCK_CGROUP_DATA
	return cgroup_id(sock_cgroup_ptr(&sk->sk_cgrp_data));
#else
	return 0;
#endif
}

/* The record would say what @o says already. */
static bool afw_owner_same(const struct afw_owner *o, const struct afw_owner *n)
{
	return o->tgid == n->tgid && uid_eq(o->uid, n->uid) && gid_eq(o->gid, n->gid) &&
	       o->cgroup == n->cgroup && o->listener == n->listener;
}

/* The UDP sockets' table: one for all namespaces before 6.2. */
static struct udp_table *afw_owner_udp_table(const struct net *net)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	return net->ipv4.udp_table;
#else
	return &udp_table;
#endif
}

static void afw_owner_gc_kick(struct afw_owners *ow)
{
	if (!delayed_work_pending(&ow->gc))
		queue_delayed_work(system_power_efficient_wq, &ow->gc, AFW_OWNER_GC_IDLE);
}

/*
 * Softirq, timers and interrupts run on behalf of nobody in particular, and
 * so does the stack with bottom halves off in a task (see the top of this
 * file); nor may alloc_lock be taken there.
 */
static bool afw_owner_in_sender(const struct nf_hook_state *state)
{
	return state->hook == NF_INET_LOCAL_OUT && in_task() && !in_softirq();
}

/* The running task's program, looked up at most once per packet. */
static struct afw_exe *afw_owner_exe_of(struct afw_exe **exe)
{
	if (*exe == AFW_EXE_UNSEEN)
		*exe = afw_exe_get();
	return *exe;
}

u64 afw_owner_exe_match(struct afw_net *an, const struct afw_flow_key *k,
			const struct sk_buff *skb, const struct nf_hook_state *state,
			struct afw_exe **exe)
{
	const struct afw_owner *o;
	const struct afw_exe *e;
	kuid_t uid;
	kgid_t gid;

	if (afw_owner_in_sender(state) && afw_owner_sock(skb, state, &uid, &gid)) {
		e = afw_owner_exe_of(exe);
		return e ? e->match : 0;
	}
	/* A retransmission, or a reply in softirq: the flow's first sender. */
	o = afw_owner_lookup(&an->owners, k);
	return o && o->exe ? o->exe->match : 0;
}

/*
 * Records @cur as the owner of @k: see afw_owner_note(). @exe: the task's
 * program cache (afw_owner_exe_of()), or NULL for a listener's record,
 * which names no task.
 */
static void afw_owner_record(struct afw_net *an, const struct afw_flow_key *k,
			     const struct afw_owner *cur, bool restart, struct afw_exe **exe)
{
	struct afw_owners *ow = &an->owners;
	struct afw_owner *n, *o;
	u32 max;

	o = rhashtable_lookup(&ow->ht, k, afw_owner_params);
	if (o && (!restart || afw_owner_same(o, cur)))
		return;
	max = rcu_dereference(an->cfg)->max_flows;
	if (!o && atomic_read(&ow->count) >= max)
		goto lost;
	n = kmalloc(sizeof(*n), GFP_ATOMIC | __GFP_NOWARN);
	if (!n)
		goto lost;
	*n = *cur;
	n->key = *k;
	n->born = jiffies;
	n->exe = NULL;
	if (exe) {
		__get_task_comm(n->comm, sizeof(n->comm), current);
		/* Set before the owner is published: readers never see it change. */
		n->exe = afw_owner_exe_of(exe);
		if (n->exe)
			refcount_inc(&n->exe->ref);
	}

	/* Started again by another process: the new one owns it. */
	if (o && !rhashtable_replace_fast(&ow->ht, &o->node, &n->node, afw_owner_params)) {
		afw_owner_free(o);
	} else {
		/* (Or the collector took the old one meanwhile.) */
		o = rhashtable_lookup_get_insert_fast(&ow->ht, &n->node, afw_owner_params);
		/* A packet of the same flow on another CPU was first: it stays. */
		if (o)
			goto lost_free;
		atomic_inc(&ow->count);
	}
	atomic64_inc(&ow->noted);
	afw_owner_gc_kick(ow);
	return;

lost_free:
	afw_owner_exe_put(n->exe);
	kfree(n);
lost:
	atomic64_inc(&ow->lost);
}

void afw_owner_note(struct afw_net *an, const struct afw_flow_key *k, const struct sk_buff *skb,
		    const struct nf_hook_state *state, bool restart, struct afw_exe **exe)
{
	struct afw_owner cur = {};
	struct sock *sk;

	if (!afw_owner_in_sender(state))
		return;
	/* Netfilter runs hooks under rcu_read_lock(). */
	if (!rcu_dereference(an->cfg)->owners)
		return;
	sk = afw_owner_sock(skb, state, &cur.uid, &cur.gid);
	if (!sk)
		return;
	cur.tgid = task_tgid_nr(current);
	cur.cgroup = afw_owner_cgroup(sk);
	afw_owner_record(an, k, &cur, restart, exe);
}

/*
 * The local socket an inbound packet of a new flow is for, as the stack
 * will find it: the one early demux set, else the listening (TCP) or bound
 * (UDP) socket of its own lookup. Such sockets are freed after a grace
 * period (SOCK_RCU_FREE), and hooks run under rcu_read_lock(): no
 * reference is taken. No skb goes to the lookups: a reuseport group's BPF
 * program expects the transport header at skb->data, which here is the IP
 * header's, and may pull the skb; without one the group picks by hash, so
 * its pick may differ from the stack's. A group serves one port, and is
 * normally one service's.
 */
static struct sock *afw_owner_local_sock(struct sk_buff *skb, const struct nf_hook_state *state,
					 const struct afw_tuple *t, unsigned int l4off)
{
	struct net *net = state->net;
	struct inet_hashinfo *tcp = net->ipv4.tcp_death_row.hashinfo;
	__be16 sport = htons(t->sport), dport = htons(t->dport);
	const struct tcphdr *th;
	struct tcphdr _th;

	if (skb->sk)
		return sk_fullsock(skb->sk) ? skb->sk : NULL;
	if (!(t->flags & AFW_TUPLE_PORTS))
		return NULL;
	if (t->family == AFW_FAMILY_IPV4) {
		if (t->proto == IPPROTO_UDP)
			return __udp4_lib_lookup(net, t->saddr[0], sport, t->daddr[0], dport,
						 inet_iif(skb), inet_sdif(skb),
						 afw_owner_udp_table(net), NULL);
		if (t->proto != IPPROTO_TCP)
			return NULL;
		th = skb_header_pointer(skb, l4off, sizeof(_th), &_th);
		return th ? __inet_lookup_listener(net, tcp, NULL, __tcp_hdrlen(th), t->saddr[0],
						   sport, t->daddr[0], t->dport, inet_iif(skb),
						   inet_sdif(skb)) : NULL;
	}
#if IS_ENABLED(CONFIG_IPV6)
	if (t->proto == IPPROTO_UDP)
		return __udp6_lib_lookup(net, (const struct in6_addr *)t->saddr, sport,
					 (const struct in6_addr *)t->daddr, dport, inet6_iif(skb),
					 inet6_sdif(skb), afw_owner_udp_table(net), NULL);
	if (t->proto != IPPROTO_TCP)
		return NULL;
	th = skb_header_pointer(skb, l4off, sizeof(_th), &_th);
	if (!th)
		return NULL;
	return inet6_lookup_listener(net, tcp, NULL, __tcp_hdrlen(th),
				     (const struct in6_addr *)t->saddr, sport,
				     (const struct in6_addr *)t->daddr, t->dport, inet6_iif(skb),
				     inet6_sdif(skb));
#else
	return NULL;
#endif
}

void afw_owner_note_in(struct afw_net *an, const struct afw_flow_key *k,
		       const struct afw_tuple *t, unsigned int l4off, struct sk_buff *skb,
		       const struct nf_hook_state *state, bool restart)
{
	struct afw_owner cur = { .listener = true };
	struct sock *sk;

	if (state->hook != NF_INET_LOCAL_IN || !rcu_dereference(an->cfg)->owners)
		return;
	sk = afw_owner_local_sock(skb, state, t, l4off);
	if (!afw_owner_held(sk, state, &cur.uid, &cur.gid))
		return;
	cur.cgroup = afw_owner_cgroup(sk);
	/* Another listener may have the port by now: a new connection says. */
	afw_owner_record(an, k, &cur, restart, NULL);
}

/* Only while afwd may still be deciding it, or while its flow lives. */
static bool afw_owner_stale(struct afw_net *an, const struct afw_owner *o)
{
	return time_after(jiffies, o->born + AFW_OWNER_GRACE) &&
	       !afw_flow_lookup(&an->flows, &o->key);
}

static void afw_owners_gc(struct work_struct *work)
{
	struct afw_owners *ow = container_of(to_delayed_work(work), struct afw_owners, gc);
	struct afw_net *an = container_of(ow, struct afw_net, owners);
	unsigned int scanned = 0;
	struct afw_owner *o;
	bool done = false;

	if (!ow->gc_walking) {
		rhashtable_walk_enter(&ow->ht, &ow->gc_iter);
		ow->gc_walking = true;
	}
	/* As the flows' collector resumes, and for the same reason. */
	if (rhashtable_walk_start_check(&ow->gc_iter) == -EAGAIN)
		ow->gc_iter.p = NULL;
	while (scanned < AFW_OWNER_GC_BUDGET) {
		o = rhashtable_walk_next(&ow->gc_iter);
		if (!o) {
			done = true;
			break;
		}
		if (IS_ERR(o))
			continue;
		scanned++;
		if (!afw_owner_stale(an, o))
			continue;
		if (!rhashtable_remove_fast(&ow->ht, &o->node, afw_owner_params)) {
			atomic_dec(&ow->count);
			afw_owner_free(o);
		}
	}
	rhashtable_walk_stop(&ow->gc_iter);
	if (done) {
		rhashtable_walk_exit(&ow->gc_iter);
		ow->gc_walking = false;
	}
	if (!atomic_read(&ow->count) && done)
		return;
	queue_delayed_work(system_power_efficient_wq, &ow->gc,
			   done ? AFW_OWNER_GC_IDLE : 1);
}

int afw_owners_init(struct afw_net *an)
{
	struct afw_owners *ow = &an->owners;
	int ret;

	INIT_DELAYED_WORK(&ow->gc, afw_owners_gc);
	ret = rhashtable_init(&ow->ht, &afw_owner_params);
	if (ret)
		return ret;
	ow->ready = true;
	return 0;
}

static void afw_owner_free_now(void *ptr, void *arg)
{
	afw_owner_free(ptr);
}

/* The hooks and requests are gone; only the collector may still run. */
void afw_owners_exit(struct afw_net *an)
{
	struct afw_owners *ow = &an->owners;

	if (!ow->ready)
		return;
	cancel_delayed_work_sync(&ow->gc);
	if (ow->gc_walking)
		rhashtable_walk_exit(&ow->gc_iter);
	rhashtable_free_and_destroy(&ow->ht, afw_owner_free_now, NULL);
}

int afw_owner_module_init(void)
{
	get_random_bytes(&afw_owner_secret, sizeof(afw_owner_secret));
	return rhashtable_init(&afw_exes, &afw_exe_params);
}

void afw_owner_module_exit(void)
{
	/* Every owner is gone; their paths go after the last grace period. */
	rcu_barrier();
	WARN_ON(atomic_read(&afw_exes.nelems));
	rhashtable_destroy(&afw_exes);
}
