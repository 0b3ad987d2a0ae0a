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

static int afwctl_ask_connect(const char *path, const char *req)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char line[256];
	int fd, len;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "afwctl: %s: path too long\n", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "afwctl: afwd at %s: %s%s\n", path, strerror(errno),
			errno == EACCES ? " (only root and the group afw may ask afwd)" :
			errno == ENOENT || errno == ECONNREFUSED ? " (is afwd running?)" : "");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	len = snprintf(line, sizeof(line), "%s\n", req);
	if (send(fd, line, (size_t)len, MSG_NOSIGNAL) != len) {
		fprintf(stderr, "afwctl: afwd at %s: %s\n", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* The value of @key in afwd's JSON @line, as written (a string without its quotes). */
static void afwctl_ask_field(const char *line, const char *key, char *out, size_t len)
{
	char pat[32];
	const char *p, *e;
	size_t n;

	*out = '\0';
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(line, pat);
	if (!p)
		return;
	p += strlen(pat);
	if (*p == '"') {
		for (e = ++p; *e && *e != '"'; e++)
			if (*e == '\\' && e[1])
				e++;
	} else {
		e = p + strcspn(p, ",}");
	}
	n = (size_t)(e - p) < len - 1 ? (size_t)(e - p) : len - 1;
	memcpy(out, p, n);
	out[n] = '\0';
}

/* One of afwd's lines in words: a question, or its end. */
static void afwctl_ask_words(const char *line)
{
	char ev[16], id[24], exe[280], pid[16], uid[16], dst[64], dport[8], host[280], left[16];
	char dec[16], how[128], proto[8];

	afwctl_ask_field(line, "event", ev, sizeof(ev));
	afwctl_ask_field(line, "id", id, sizeof(id));
	if (!strcmp(ev, "done")) {
		afwctl_ask_field(line, "decision", dec, sizeof(dec));
		afwctl_ask_field(line, "how", how, sizeof(how));
		printf("question %s: %s (%s)\n", id, dec, how);
		return;
	}
	if (strcmp(ev, "ask"))
		return;
	afwctl_ask_field(line, "exe", exe, sizeof(exe));
	afwctl_ask_field(line, "pid", pid, sizeof(pid));
	afwctl_ask_field(line, "uid", uid, sizeof(uid));
	afwctl_ask_field(line, "dst", dst, sizeof(dst));
	afwctl_ask_field(line, "dport", dport, sizeof(dport));
	afwctl_ask_field(line, "proto", proto, sizeof(proto));
	afwctl_ask_field(line, "host", host, sizeof(host));
	afwctl_ask_field(line, "left_s", left, sizeof(left));
	printf("question %s: %s%s%s%s%s wants %s %s%s%s:%s%s%s; %s s left\n", id,
	       exe[0] ? exe : "(no program)", pid[0] ? " pid " : "", pid,
	       uid[0] ? " uid " : "", uid, !strcmp(proto, "6") ? "tcp" :
	       !strcmp(proto, "17") ? "udp" : "ip", strchr(dst, ':') ? "[" : "", dst,
	       strchr(dst, ':') ? "]" : "", dport, host[0] ? " host " : "", host, left);
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
	fd = afwctl_ask_connect(rq->afwd, rq->ask);
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
