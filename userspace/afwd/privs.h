/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What afwd may do once it runs: after setup (queues bound, the module's
 * sockets open, the control socket made, the policy read) it needs only
 * CAP_NET_ADMIN, for verdicts, flows and conntrack marks on sockets it
 * already holds. It drops the rest: the user, every other capability,
 * the bounding set, and the right to gain any back (no_new_privs).
 */
#ifndef AFW_PRIVS_H
#define AFW_PRIVS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The default --user; "make install" creates it. */
#define AFW_USER "afw"

struct afw_privs {
	const char *user;
	bool switch_user;		/* running as root: become @user */
	uid_t uid;
	gid_t gid;			/* @user's group: the control socket's */
};

/*
 * Resolves @user. Run as root, afwd will become that user, so the user
 * must exist. Otherwise afwd stays who it is (systemd's User=), and @user
 * only names the control socket's group if it exists. Returns 0, or -1
 * with a message in @err.
 */
int afw_privs_init(struct afw_privs *p, const char *user, char *err, size_t errlen);

/*
 * Becomes the user, keeps CAP_NET_ADMIN alone (effective and permitted;
 * the bounding set too where afwd may change it; nothing inheritable or
 * ambient) and sets no_new_privs. Call it from the only thread: the
 * capability sets are per thread, and threads started later inherit them.
 * Returns 0, or -1 with a message in @err.
 */
int afw_privs_drop(const struct afw_privs *p, char *err, size_t errlen);

#endif /* AFW_PRIVS_H */
