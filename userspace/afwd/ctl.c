// SPDX-License-Identifier: GPL-2.0
/*
 * Control requests are rare and small; they are served by the main thread,
 * so they cannot delay a packet. The one piece a worker runs,
 * afw_ctl_flow_json(), it runs at its local work, after its packets, on
 * its own ledger.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/fsuid.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "ctl.h"
#include "escape.h"
#include "privs.h"
#include "report.h"

/* True when a daemon answers at @sa: its socket is not stale. */
static bool afw_ctl_alive(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool alive;

	if (fd < 0)
		return false;
	alive = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0;
	close(fd);
	return alive;
}

int afw_ctl_listen(const char *path, uid_t uid, gid_t gid, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[sizeof(sa.sun_path)], *slash;
	int fd, saved = 0, bound;
	gid_t old_fsgid;
	mode_t old_umask;
	struct stat st;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "control socket path too long: %s", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0750) == 0) {
			/*
			 * Made here, it is afwd's: once it runs as its user it can
			 * still remove its socket, and the group may reach it.
			 */
			if (geteuid() == 0 && chown(dir, uid, gid) < 0) {
				snprintf(err, errlen, "%s: %s", dir, strerror(errno));
				return -1;
			}
		} else if (errno != EEXIST) {
			snprintf(err, errlen, "%s: %s", dir, strerror(errno));
			return -1;
		}
	}
	if (afw_ctl_alive(&sa)) {
		snprintf(err, errlen, "%s: another afwd answers there; stop it first", path);
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		snprintf(err, errlen, "control socket: %s", strerror(errno));
		return -1;
	}
	/* A socket left by a daemon that died is stale: nobody listens on it. */
	unlink(path);
	/*
	 * Stats name queues and counters, and reload changes the policy: root
	 * and the group only. The socket is born with that mode and group (the
	 * umask and the fsgid are what bind() uses), so no chmod() after it
	 * leaves a moment when anyone could connect. Only this thread runs now.
	 */
	old_umask = umask(0117);
	old_fsgid = (gid_t)setfsgid(gid);
	bound = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	if (bound < 0)
		saved = errno;
	setfsgid(old_fsgid);
	umask(old_umask);
	/* A set-group-ID directory gives its own group instead: narrow it to ours. */
	if (!bound && !stat(path, &st) && st.st_gid != gid && chown(path, (uid_t)-1, gid) < 0)
		saved = errno, bound = -1;
	if (bound < 0 || listen(fd, 8) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(bound < 0 ? saved : errno));
		close(fd);
		return -1;
	}
	return fd;
}

void afw_ctl_stats_json(struct afw_daemon *d, FILE *out)
{
	struct afw_worker_snapshot s;
	uint64_t pkts = 0, calls = 0;
	unsigned int i, k;

	fprintf(out, "{\"module\":%s,\"marks\":%s,\"queues\":[",
		atomic_load(&d->module_up) ? "true" : "false", d->marks ? "true" : "false");
	for (i = 0; i < d->nworkers; i++) {
		afw_worker_snapshot(&d->workers[i], &s);
		pkts += s.queue.packets;
		calls += s.queue.syscalls + s.kern.syscalls + s.ct.syscalls + s.owner_syscalls;
		fprintf(out, "%s{\"queue\":%u,\"io\":\"%s\",\"packets\":%llu,\"batches\":%llu,"
			"\"verdict_msgs\":%llu,\"syscalls\":%llu,\"polls\":%llu,\"waits\":%llu,"
			"\"errors\":%llu,\"ring_failed\":%llu,\"setup_dropped\":%llu,"
			"\"analyzing\":%u,\"flows\":%llu,\"bounds\":%llu,\"evasions\":%llu,"
			"\"table_full\":%llu,\"installed\":%llu,\"install_failed\":%llu",
			i ? "," : "", d->workers[i].qnum, afw_queue_io_name(d->workers[i].q),
			(unsigned long long)s.queue.packets, (unsigned long long)s.queue.batches,
			(unsigned long long)s.queue.verdict_msgs,
			(unsigned long long)(s.queue.syscalls + s.kern.syscalls + s.ct.syscalls +
					     s.owner_syscalls),
			(unsigned long long)s.queue.polls, (unsigned long long)s.queue.waits,
			(unsigned long long)s.queue.errors, (unsigned long long)s.queue.ring_failed,
			(unsigned long long)s.queue.setup_dropped, s.analyzing, (unsigned long long)s.engine.flows,
			(unsigned long long)s.engine.bounds, (unsigned long long)s.engine.evasions,
			(unsigned long long)s.engine.table_full,
			(unsigned long long)s.kern.installed, (unsigned long long)s.kern.failed);
		if (d->workers[i].head >= 0)
			fprintf(out, ",\"head_queue\":%d", d->workers[i].head);
		else
			fprintf(out, ",\"head_queue\":null");
		fprintf(out, ",\"head_packets\":%llu,\"head_back\":%llu",
			(unsigned long long)s.head_packets, (unsigned long long)s.head_back);
		/* Who started a flow, asked of the module for rules on programs. */
		fprintf(out, ",\"owners_asked\":%llu,\"owners_found\":%llu",
			(unsigned long long)s.owners_asked, (unsigned long long)s.owners_found);
		/* Decisions the module was taught, and the connections it took by them. */
		fprintf(out, ",\"learned\":%llu,\"told\":%llu,\"told_unreadable\":%llu,"
			"\"module_overruns\":%llu",
			(unsigned long long)s.kern.learned, (unsigned long long)s.kern.told,
			(unsigned long long)s.told_bad, (unsigned long long)s.kern.overruns);
		/* New connections' bare handshakes the module passed and told. */
		fprintf(out, ",\"handshakes_told\":%s,\"handshakes\":%llu",
			s.tell ? "true" : "false", (unsigned long long)s.kern.handshakes);
		/* Allowed flows the module held unconfirmed, and those it confirmed. */
		fprintf(out, ",\"module_unconfirmed\":%llu,\"module_confirmed\":%llu",
			(unsigned long long)s.kern.unconfirmed,
			(unsigned long long)s.kern.confirmed);
		fprintf(out, ",\"install_retries\":%llu,\"answered\":%llu,\"records\":%u,"
			"\"records_given_up\":%llu,\"records_evicted\":%llu,\"rejudged\":%llu,"
			"\"reload_changed\":%llu,\"ct_updated\":%llu,\"ct_missing\":%llu,"
			"\"module_up\":%s,\"module_gone\":%llu,\"module_back\":%llu",
			(unsigned long long)s.ledger.retries, (unsigned long long)s.ledger.answered,
			s.records, (unsigned long long)s.ledger.given_up,
			(unsigned long long)s.ledger.evicted, (unsigned long long)s.ledger.rejudged,
			(unsigned long long)s.ledger.changed, (unsigned long long)s.ct.updated,
			(unsigned long long)s.ct.missing, s.module_up ? "true" : "false",
			(unsigned long long)s.kern.gone, (unsigned long long)s.kern.back);
		for (k = 0; k <= AFW_DECIDE_MAX; k++)
			fprintf(out, ",\"%s\":%llu", afw_decision_name(k),
				(unsigned long long)s.engine.decided[k]);
		fprintf(out, ",\"discarded\":%llu,\"unstored\":%llu,\"restarts\":%llu,"
			"\"confirmed\":%llu,\"unconfirmed\":%llu,\"undecodable\":%llu,"
			"\"buffer_bytes\":%llu,\"replies\":%llu,\"settled\":%llu,"
			"\"stalled\":%llu,\"stalled_forgotten\":%llu",
			(unsigned long long)s.engine.discarded, (unsigned long long)s.engine.unstored,
			(unsigned long long)s.engine.restarts, (unsigned long long)s.engine.confirmed,
			(unsigned long long)s.engine.unconfirmed,
			(unsigned long long)s.engine.malformed,
			(unsigned long long)s.engine.memory,
			(unsigned long long)s.engine.replies,
			(unsigned long long)s.engine.settled,
			(unsigned long long)s.engine.stalled,
			(unsigned long long)s.engine.stalled_forgotten);
		fputc('}', out);
	}
	pthread_mutex_lock(&d->ask.lock);
	fprintf(out, "],\"ask\":{\"waiting\":%u,\"listeners\":%u,\"asked\":%llu,\"answered\":%llu,"
		"\"timed_out\":%llu,\"unheard\":%llu,\"full\":%llu,\"by_kept\":%llu,"
		"\"kept\":%u,\"dropped\":%llu}", d->ask.nprompts, atomic_load(&d->ask.listeners),
		(unsigned long long)d->ask.stats.asked, (unsigned long long)d->ask.stats.answered,
		(unsigned long long)d->ask.stats.timed_out, (unsigned long long)d->ask.stats.unheard,
		(unsigned long long)d->ask.stats.full, (unsigned long long)d->ask.stats.by_kept,
		d->ask.nkept, (unsigned long long)d->ask.stats.dropped);
	pthread_mutex_unlock(&d->ask.lock);
	fprintf(out, ",\"packets\":%llu,\"syscalls\":%llu,\"syscalls_per_packet\":%.4f,"
		"\"log_dropped\":%llu}\n",
		(unsigned long long)pkts, (unsigned long long)calls,
		pkts ? (double)calls / (double)pkts : 0.0,
		(unsigned long long)(d->log ? afw_log_dropped(d->log) : 0));
}

static const char *afw_ctl_where(const struct afw_lrec *rec)
{
	switch (afw_lrec_state(rec)) {
	case AFW_LREC_SENT:
		return "module";
	case AFW_LREC_WAIT:
		return "waiting";
	default:
		return "mark";
	}
}

void afw_ctl_flow_json(FILE *out, const struct afw_worker *w, const struct afw_lrec *rec,
		       const struct afw_policy *pol)
{
	const char *path = w->d->cfg->policy_path;
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], by[512];
	struct afw_policy_match m;
	struct afw_facts facts;
	struct afw_flow_spec f;
	int fam;

	afw_ledger_flow(rec, &f);
	afw_ledger_facts(rec, &facts);
	fam = f.family == AFW_FAMILY_IPV6 ? AF_INET6 : AF_INET;
	inet_ntop(fam, f.src, src, sizeof(src));
	inet_ntop(fam, f.dst, dst, sizeof(dst));
	if (!afw_lrec_judged(rec)) {
		snprintf(by, sizeof(by), "reader: %s", afw_reason_name(facts.reason));
	} else {
		afw_policy_match(pol, &facts, &m);
		if (m.unnamed)
			snprintf(by, sizeof(by), "%s: reason %s, which no rule names", path,
				 afw_reason_name(facts.reason));
		else
			snprintf(by, sizeof(by), "%s:%u%s",
				 m.answered ? w->d->cfg->answers_path : path, m.line,
				 m.is_default ? " default" : "");
	}
	fprintf(out, "{\"queue\":%u,\"family\":\"%s\",\"proto\":%u,\"src\":\"%s\",\"sport\":%u,"
		"\"dst\":\"%s\",\"dport\":%u,\"decision\":\"%s\",\"where\":\"%s\",\"l7\":\"%s\"",
		w->qnum, fam == AF_INET6 ? "ipv6" : "ipv4", f.proto, src, f.sport, dst, f.dport,
		afw_decision_name(afw_lrec_decision(rec)), afw_ctl_where(rec),
		afw_l7_name(facts.l7));
	if (f.echo)
		fprintf(out, ",\"icmp_id\":%u", f.icmp_id);
	if (facts.reason != AFW_REASON_NONE)
		fprintf(out, ",\"reason\":\"%s\"", afw_reason_name(facts.reason));
	if (facts.ech)
		fputs(",\"ech\":true", out);
	fputs(",\"by\":", out);
	afw_json_string(out, by);
	fputs(",\"host\":", out);
	afw_json_bytes(out, facts.host.ptr, facts.host.len);
	fputs("}\n", out);
}

int afw_ctl_serve(int lfd, struct afw_daemon *d, const struct afw_ctl_ops *ops)
{
	char line[192] = "", msg[1024];
	struct pollfd pfd;
	size_t len = 0;
	ssize_t n;
	FILE *out;
	int fd;

	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return -1;
	/* A client that says nothing does not hold the main thread. */
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	if (poll(&pfd, 1, 1000) != 1) {
		close(fd);
		return -1;
	}
	/* One line, however the client's bytes were cut up on the way. */
	while (len < sizeof(line) - 1) {
		n = read(fd, line + len, sizeof(line) - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
		if (memchr(line, '\n', len) || poll(&pfd, 1, 1000) != 1)
			break;
	}
	if (!len) {
		close(fd);
		return -1;
	}
	line[len] = '\0';
	line[strcspn(line, "\r\n")] = '\0';
	/* Kept open: the main thread writes each question as it comes. */
	if (!strcmp(line, "ask watch"))
		return fd;
	out = fdopen(fd, "w");
	if (!out) {
		close(fd);
		return -1;
	}
	if (!strcmp(line, "stats"))
		afw_ctl_stats_json(d, out);
	else if (!strcmp(line, "reload"))
		fprintf(out, "%s %s\n", ops->reload(d, msg, sizeof(msg)) ? "error" : "ok", msg);
	else if (!strcmp(line, "flows"))
		ops->flows(d, out);
	else if (!strcmp(line, "ask list"))
		afw_ask_list(&d->ask, out);
	else if (!strncmp(line, "ask answer ", 11))
		fprintf(out, "%s %s\n", ops->answer(d, line + 11, msg, sizeof(msg)) ? "error" : "ok",
			msg);
	else
		fprintf(out, "error unknown request \"%.20s\": say stats, reload, flows, ask list, "
			"ask watch or ask answer\n", line);
	fclose(out);
	return -1;
}

int afw_ctl_request(const char *path, const char *cmd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[4096];
	int fd, ok = 1;
	ssize_t n;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "afwd: control socket path too long: %s\n", path);
		return 1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "afwd: %s: %s%s\n", path, strerror(errno),
			errno == EACCES ? " (only root and the group " AFW_USER " may ask afwd)" :
			" (is afwd running?)");
		if (fd >= 0)
			close(fd);
		return 1;
	}
	snprintf(buf, sizeof(buf), "%s\n", cmd);
	if (send(fd, buf, strlen(buf), MSG_NOSIGNAL) < 0) {
		fprintf(stderr, "afwd: %s: %s\n", path, strerror(errno));
		close(fd);
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (ok == 1 && !strncmp(buf, "error", 5))
			ok = 0;
		fwrite(buf, 1, (size_t)n, stdout);
		if (ok == 1)
			ok = 2;
	}
	close(fd);
	return ok ? 0 : 1;
}
