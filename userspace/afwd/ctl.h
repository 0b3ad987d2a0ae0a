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

/* What the main thread does for the requests that change or list things. */
struct afw_ctl_ops {
	/* "reload": fills @msg; returns 0 when the new policy is in force. */
	int (*reload)(struct afw_daemon *d, char *msg, size_t len);
	/* "flows": the listing. */
	void (*flows)(struct afw_daemon *d, FILE *out);
	/* "ask answer ARGS": fills @msg; returns 0 when the answer was taken. */
	int (*answer)(struct afw_daemon *d, const char *args, char *msg, size_t len);
};

/*
 * Serves one connection that is waiting on @lfd: "stats", "reload",
 * "flows", "ask list", "ask answer ...". Returns the connection of an
 * "ask watch", for the main thread to keep and write questions to; else
 * -1, the connection answered and closed.
 */
int afw_ctl_serve(int lfd, struct afw_daemon *d, const struct afw_ctl_ops *ops);

/*
 * One flow of a worker's ledger as a JSON line: the flow client to server,
 * the decision and where it is in force, the facts a person looks for (the
 * host, the l7 protocol, the reason), and what decided it, judged by @pol (the
 * policy in force, which a reload has judged every record by): "by" is
 * "FILE:LINE" for a rule, "FILE:LINE default", or the reader that refused
 * the flow. The first fields come in a fixed order: "queue", "family",
 * "proto" (a number), "src", "sport", "dst", "dport"; afwctl flow list
 * reads them to join these lines to the module's flows.
 */
void afw_ctl_flow_json(FILE *out, const struct afw_worker *w, const struct afw_lrec *rec,
		       const struct afw_policy *pol);

/* The daemon's counters as one JSON object. */
void afw_ctl_stats_json(struct afw_daemon *d, FILE *out);

/* Client side: sends @cmd to the daemon at @path and copies the reply to stdout. */
int afw_ctl_request(const char *path, const char *cmd);

#endif /* AFW_CTL_H */
