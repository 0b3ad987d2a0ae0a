// SPDX-License-Identifier: GPL-2.0
/*
 * The privilege drop, with libcap. The order matters: the bounding set can
 * only shrink while CAP_SETPCAP is held, the groups and the gid only while
 * CAP_SETGID is, and the uid last, with PR_SET_KEEPCAPS so that the
 * permitted set survives the switch away from root.
 */

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#include "privs.h"

int afw_privs_init(struct afw_privs *p, const char *user, char *err, size_t errlen)
{
	struct passwd *pw;

	p->user = user;
	p->switch_user = geteuid() == 0;
	p->uid = geteuid();
	p->gid = getegid();
	errno = 0;
	pw = getpwnam(user);
	if (!pw) {
		if (!p->switch_user)
			return 0;
		snprintf(err, errlen, "user '%s' %s; afwd runs as that user once set up. "
			 "Create it (make install does: useradd --system %s) or name another "
			 "with --user", user, errno ? strerror(errno) : "does not exist", user);
		return -1;
	}
	if (p->switch_user || pw->pw_uid == geteuid()) {
		p->uid = pw->pw_uid;
		p->gid = pw->pw_gid;
	}
	return 0;
}

static bool afw_privs_have(cap_value_t c, cap_flag_t set)
{
	cap_flag_value_t v = CAP_CLEAR;
	cap_t now = cap_get_proc();

	if (now) {
		cap_get_flag(now, c, set, &v);
		cap_free(now);
	}
	return v == CAP_SET;
}

int afw_privs_drop(const struct afw_privs *p, char *err, size_t errlen)
{
	const cap_value_t keep[] = { CAP_NET_ADMIN };
	cap_value_t c, last = cap_max_bits();
	const char *what;
	cap_t caps = NULL;
	uid_t r, e, s;
	int ret = -1;

	/* Nothing above CAP_NET_ADMIN can come back, even through execve(). */
	if (afw_privs_have(CAP_SETPCAP, CAP_EFFECTIVE)) {
		what = "dropping from the bounding set";
		for (c = 0; c < last; c++)
			if (c != CAP_NET_ADMIN && CAP_IS_SUPPORTED(c) && cap_drop_bound(c))
				goto fail;
	}
	if (p->switch_user) {
		what = "setting the groups";
		if (initgroups(p->user, p->gid))
			goto fail;
		what = "setting the gid";
		if (setresgid(p->gid, p->gid, p->gid))
			goto fail;
		what = "PR_SET_KEEPCAPS";
		if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
			goto fail;
		what = "setting the uid";
		if (setresuid(p->uid, p->uid, p->uid))
			goto fail;
		prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
	}
	what = "setting the capabilities";
	caps = cap_init();
	if (!caps || cap_set_flag(caps, CAP_PERMITTED, 1, keep, CAP_SET) ||
	    cap_set_flag(caps, CAP_EFFECTIVE, 1, keep, CAP_SET) || cap_set_proc(caps))
		goto fail;
	what = "clearing the ambient capabilities";
	if (CAP_AMBIENT_SUPPORTED() && cap_reset_ambient())
		goto fail;
	what = "PR_SET_NO_NEW_PRIVS";
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		goto fail;

	/* Trust, but verify: a drop that did not take must not go unnoticed. */
	what = "checking the result";
	errno = EPERM;
	if (getresuid(&r, &e, &s) || r != p->uid || e != p->uid || s != p->uid ||
	    (p->switch_user && (getgid() != p->gid || getegid() != p->gid)) ||
	    !afw_privs_have(CAP_NET_ADMIN, CAP_EFFECTIVE) ||
	    afw_privs_have(CAP_SETUID, CAP_PERMITTED) || afw_privs_have(CAP_SYS_ADMIN, CAP_PERMITTED))
		goto fail;
	ret = 0;
	goto out;
fail:
	snprintf(err, errlen, "dropping privileges to user %s: %s: %s", p->user, what,
		 strerror(errno));
out:
	if (caps)
		cap_free(caps);
	return ret;
}
