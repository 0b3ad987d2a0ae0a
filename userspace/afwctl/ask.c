// SPDX-License-Identifier: GPL-2.0
/*
 * afwctl ask: afwd's questions about flows its policy says "ask" about,
 * without a terminal UI. "list" shows those waiting, "watch" follows them
 * as they come (and, while it runs, is what makes afwd hold them: with
 * nobody listening, ask means the policy's ask-default), and
 * "allow|deny|reject ID [once|exit|minutes N|always] [host|any]" answers.
 * Everything goes through afwd's control socket.
 */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "afwctl.h"

enum { AFWCTL_ASK_LIST, AFWCTL_ASK_WATCH, AFWCTL_ASK_ANSWER };

int afwctl_ask_parse(struct afwctl_req *rq, int argc, char **argv)
{
	size_t n;
	int i;

	if (argc < 1)
		return afwctl_usage_err("ask: list, watch, or allow|deny|reject ID [once|exit|"
					"minutes N|always] [host|any]");
	if (!rq->afwd)
		return afwctl_usage_err("ask: afwd's questions are those of the initial network "
					"namespace's afwd; give --afwd PATH for another");
	if (!strcmp(argv[0], "list") || !strcmp(argv[0], "watch")) {
		if (argc > 1)
			return afwctl_usage_err("ask %s takes nothing more", argv[0]);
		rq->sub = !strcmp(argv[0], "list") ? AFWCTL_ASK_LIST : AFWCTL_ASK_WATCH;
		snprintf(rq->ask, sizeof(rq->ask), "ask %s", argv[0]);
		return 0;
	}
	if (strcmp(argv[0], "allow") && strcmp(argv[0], "deny") && strcmp(argv[0], "reject"))
		return afwctl_usage_err("ask: '%s': say list, watch, allow, deny or reject", argv[0]);
	if (argc < 2)
		return afwctl_usage_err("ask %s: which question? (afwctl ask list)", argv[0]);
	rq->sub = AFWCTL_ASK_ANSWER;
	/* afwd checks the words, so that afwctl and afwd never disagree on them. */
	n = (size_t)snprintf(rq->ask, sizeof(rq->ask), "ask answer %s %s", argv[1], argv[0]);
	for (i = 2; i < argc && n < sizeof(rq->ask); i++)
		n += (size_t)snprintf(rq->ask + n, sizeof(rq->ask) - n, " %s", argv[i]);
	if (n >= sizeof(rq->ask) || strpbrk(rq->ask, "\n\r"))
		return afwctl_usage_err("ask: the answer is too long");
	return 0;
}

int afwctl_afwd_connect(const char *path, const char *req, bool say)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, len, saved;
	char line[256];

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		if (say)
			fprintf(stderr, "afwctl: %s: path too long\n", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	len = snprintf(line, sizeof(line), "%s\n", req);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	    send(fd, line, (size_t)len, MSG_NOSIGNAL) == len)
		return fd;
	saved = errno;
	if (say)
		fprintf(stderr, "afwctl: afwd at %s: %s%s\n", path, strerror(saved),
			saved == EACCES ? " (only root and the group afw may ask afwd)" :
			saved == ENOENT || saved == ECONNREFUSED ? " (is afwd running?)" : "");
	if (fd >= 0)
		close(fd);
	errno = saved;
	return -1;
}

void afwctl_ask_describe(const char *line, char *buf, size_t len)
{
	char exe[256], pid[16], uid[16], dst[64], dport[8], proto[8], host[280];

	afwctl_json_field(line, "exe", exe, sizeof(exe));
	afwctl_json_field(line, "pid", pid, sizeof(pid));
	afwctl_json_field(line, "uid", uid, sizeof(uid));
	afwctl_json_field(line, "dst", dst, sizeof(dst));
	afwctl_json_field(line, "dport", dport, sizeof(dport));
	afwctl_json_field(line, "proto", proto, sizeof(proto));
	afwctl_json_field(line, "host", host, sizeof(host));
	snprintf(buf, len, "%s%s%s%s%s wants %s %s%s%s:%s%s%s",
		 exe[0] ? exe : "(no program)", pid[0] ? " pid " : "", pid, uid[0] ? " uid " : "",
		 uid, !strcmp(proto, "6") ? "tcp" : !strcmp(proto, "17") ? "udp" : "ip",
		 strchr(dst, ':') ? "[" : "", dst, strchr(dst, ':') ? "]" : "", dport,
		 host[0] ? " host " : "", host);
}

/* One of afwd's lines in words: a question, or its end. */
static void afwctl_ask_words(const char *line)
{
	char ev[16], id[24], dec[16], how[128], left[16], what[700];

	afwctl_json_field(line, "event", ev, sizeof(ev));
	afwctl_json_field(line, "id", id, sizeof(id));
	if (!strcmp(ev, "done")) {
		afwctl_json_field(line, "decision", dec, sizeof(dec));
		afwctl_json_field(line, "how", how, sizeof(how));
		printf("question %s: %s (%s)\n", id, dec, how);
		return;
	}
	if (strcmp(ev, "ask"))
		return;
	afwctl_json_field(line, "left_s", left, sizeof(left));
	afwctl_ask_describe(line, what, sizeof(what));
	printf("question %s: %s; %s s left\n", id, what, left);
}

int afwctl_ask_run(struct afw_nl *nl, struct afwctl_req *rq)
{
	char buf[8192], line[8192];
	size_t have = 0;
	bool error = false, first = true;
	ssize_t n;
	char *nl_at;
	int fd;

	(void)nl;
	fd = afwctl_afwd_connect(rq->afwd, rq->ask, true);
	if (fd < 0)
		return 1;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		size_t off = 0;

		while (off < (size_t)n) {
			size_t take = (size_t)n - off;

			if (take > sizeof(line) - 1 - have)
				take = sizeof(line) - 1 - have;
			memcpy(line + have, buf + off, take);
			have += take;
			off += take;
			line[have] = '\0';
			while ((nl_at = strchr(line, '\n'))) {
				*nl_at = '\0';
				if (first && !strncmp(line, "error", 5))
					error = true;
				first = false;
				if (rq->sub == AFWCTL_ASK_ANSWER || error)
					fprintf(error ? stderr : stdout, "%s%s\n",
						error ? "afwctl: afwd: " : "",
						line + (error ? 6 : !strncmp(line, "ok ", 3) ? 3 : 0));
				else if (rq->json && !strstr(line, "\"event\":\"decision\""))
					printf("%s\n", line);
				else
					afwctl_ask_words(line);
				have -= (size_t)(nl_at + 1 - line);
				memmove(line, nl_at + 1, have + 1);
			}
			/* A line longer than the buffer is afwd's fault: dropped. */
			if (have == sizeof(line) - 1)
				have = 0;
		}
		/* watch: each line as it comes, for whoever reads the other end of a pipe. */
		fflush(stdout);
	}
	close(fd);
	if (rq->sub == AFWCTL_ASK_LIST && first && !rq->json)
		printf("no question waits\n");
	return error ? 1 : 0;
}
