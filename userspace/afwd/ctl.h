/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control socket: a unix stream socket under /run/afw where root or a
 * member of the group afw asks the running daemon for its counters or for
 * a policy reload, one line per request, one reply per request.
 */
#ifndef AFW_CTL_H
#define AFW_CTL_H

#include <stdio.h>
#include <sys/types.h>

#include "daemon.h"

/*
 * The listening socket at @path, mode 0660, group @gid, from its creation
 * on; a directory made for it belongs to @uid and @gid. Returns -1 with a
 * message in @err, also when another afwd answers at @path.
 */
int afw_ctl_listen(const char *path, uid_t uid, gid_t gid, char *err, size_t errlen);

/*
 * Serves one connection that is waiting on @lfd. @reload is called for
 * "reload" and fills @msg; returns 0 when the new policy is in force.
 */
void afw_ctl_serve(int lfd, struct afw_daemon *d,
		   int (*reload)(struct afw_daemon *d, char *msg, size_t len));

/* The daemon's counters as one JSON object. */
void afw_ctl_stats_json(struct afw_daemon *d, FILE *out);

/* Client side: sends @cmd to the daemon at @path and copies the reply to stdout. */
int afw_ctl_request(const char *path, const char *cmd);

#endif /* AFW_CTL_H */
