// SPDX-License-Identifier: GPL-2.0
/*
 * Program and cgroup paths as rules match them.
 *
 * A rule names a program or a cgroup by where it is, not by the file or
 * the cgroup it is today: an upgrade replaces /usr/bin/curl with a new
 * file, and a restarted unit gets a new cgroup at the same path, and the
 * rule still means them. So the classifier compares a keyed hash of the
 * path, one u64 in the tuple, and the hash tables stay exact-match.
 *
 * A path means what it says only in the host's tree. An unprivileged user
 * may make a tree of their own (a user namespace, then a mount namespace
 * or a chroot) where any file sits at /usr/bin/firefox, and a container
 * has its own root: their programs match no rule (owner.c asks
 * afw_ident_host_file()), nor does a file a host process runs from such a
 * tree (/proc/PID/root/usr/bin/firefox). A process of the initial user namespace with the
 * host's root directory, in the host's mount namespace or a copy of it (a
 * sandboxed service's, "ip netns exec"'s), sees what root made of it:
 * only root could have mounted anything there. Cgroup paths are the
 * hierarchy's own, from its root, whatever cgroup namespace the process is
 * in.
 */

#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/fs_struct.h>
#include <linux/kernfs.h>
#include <linux/mount.h>
#include <linux/path.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/siphash.h>
#include <linux/skbuff.h>
#include <linux/user_namespace.h>
#include <net/inet_sock.h>
#include <net/sock.h>
#include <uapi/linux/afw.h>

#include "ident.h"

static siphash_key_t afw_ident_key __read_mostly;
/* The root of the host's init; a reference held while the module lives. */
static struct path afw_ident_root;

u64 afw_ident_hash(const char *path, size_t len)
{
	return siphash(path, len, &afw_ident_key) ?: 1;
}

u64 afw_ident_cgroup_path(const char *path, size_t len)
{
	return afw_ident_cgroup_value(afw_ident_hash(path, len), path, len);
}

u64 afw_ident_cgroup(const struct sk_buff *skb, u8 level)
{
#ifdef CONFIG_SOCK_CGROUP_DATA
	struct sock *sk = skb_to_full_sk(skb);
	/* One byte more than a rule's path: a longer one is cut to it, not to a rule's. */
	char buf[AFW_RULE_PATH_MAX + 2];
	struct cgroup *cg;
	int len;

	if (!sk || !sk_fullsock(sk))
		return 0;
	/* The socket holds its cgroup, and a cgroup its ancestors. */
	cg = cgroup_ancestor(sock_cgroup_ptr(&sk->sk_cgrp_data), level);
	if (!cg)
		return 0;
	/* Takes only a spinlock, with interrupts off: any context. */
	len = kernfs_path(cg->kn, buf, sizeof(buf));
	if (len <= 0 || len > AFW_RULE_PATH_MAX)
		return 0;
	return afw_ident_cgroup_path(buf, len);
#else
	return 0;
#endif
}

bool afw_ident_host_file(const struct path *file)
{
	struct fs_struct *fs = current->fs;
	bool host = false;

	if (!fs)
		return false;
	/* Only this task's own chroot() or setns() changes it, under this lock. */
	spin_lock(&fs->lock);
	if (path_equal(&fs->root, &afw_ident_root) ||
	    (current_user_ns() == &init_user_ns && fs->root.dentry == afw_ident_root.dentry))
		/*
		 * And the file is in that tree: not one reached through
		 * another namespace's mount (/proc/PID/root/..., a passed
		 * descriptor, a detached mount), where its path names
		 * whatever that namespace shows there.
		 */
		host = path_is_under(file, &fs->root);
	spin_unlock(&fs->lock);
	return host;
}

int afw_ident_init(void)
{
	struct task_struct *init = NULL;
	struct pid *pid;

	get_random_bytes(&afw_ident_key, sizeof(afw_ident_key));
	rcu_read_lock();
	pid = find_pid_ns(1, &init_pid_ns);
	if (pid)
		init = pid_task(pid, PIDTYPE_PID);
	if (init)
		get_task_struct(init);
	rcu_read_unlock();
	if (!init)
		return -ESRCH;
	/* Its root, after an initramfs handed over: the system's. */
	task_lock(init);
	if (init->fs)
		get_fs_root(init->fs, &afw_ident_root);
	task_unlock(init);
	put_task_struct(init);
	return afw_ident_root.mnt ? 0 : -ESRCH;
}

void afw_ident_exit(void)
{
	path_put(&afw_ident_root);
}
