// SPDX-License-Identifier: GPL-2.0
/*
 * afwd: the NFQUEUE verdict daemon of afw. Options, the modes (daemon,
 * --check, --pcap, --stats, --reload), signals and the control socket; the
 * packets are the workers' (worker.c).
 */

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <sys/stat.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/signalfd.h>

#include "afwnl.h"
#include "flow.h"
#include "ctl.h"
#include "pace.h"
#include "daemon.h"
#include "eventdb.h"
#include "events.h"
#include "offline.h"
#include "privs.h"
#include "report.h"
#include "settings.h"

#define AFW_DEFAULT_POLICY "/etc/afw/policy.conf"
#define AFW_DEFAULT_CTL "/run/afw/afwd.sock"

static void afw_usage(FILE *out)
{
	fprintf(out,
		"usage: afwd [options]                 run the verdict daemon\n"
		"       afwd --check FILE              validate a policy file\n"
		"       afwd --pcap FILE [-p FILE] [-j] decide the flows of a capture\n"
		"       afwd --stats | --reload        ask the running daemon\n"
		"       afwd --flows                   the flows it decided, as JSON lines\n"
		"\n"
		"  -p, --policy FILE      policy file (default " AFW_DEFAULT_POLICY ")\n"
		"  -q, --queue N[-M]      NFQUEUE numbers, one thread each (default 0);\n"
		"                         must match 'afwctl config set unknown queue N-M'\n"
		"  -j, --json             decision log (or --pcap output) as JSON lines\n"
		"      --events PATH      also store each decision in the SQLite database\n"
		"                         PATH, for 'afwctl log' (default: none; the\n"
		"                         packaged service: " AFW_EVENTS_DEFAULT ")\n"
		"      --events-days N    keep events N days (default 30)\n"
		"      --events-mb N      keep the database within N MB (default 64)\n"
		"      --answers PATH     where 'afwctl ask ... always' answers are kept, a\n"
		"                         policy file of afwd's own, read with the policy\n"
		"                         (default: none; the packaged service:\n"
		"                         " AFW_ANSWERS_DEFAULT ")\n"
		"      --fail-open        the kernel lets packets through when afwd falls\n"
		"                         behind (queue full); default: as the module's\n"
		"                         'fail' setting says, dropped without the module\n"
		"      --module MODE      auto (default), on, or off: install decided flows\n"
		"                         in the afw module, or mark packets for iptables\n"
		"      --flow-timeout S   idle timeout of installed flows (default: module's)\n"
		"      --mark-base N      without the module: marks N+1 allow, N+2 deny,\n"
		"                         N+3 reject in the low byte; N from 0 to 0xfc\n"
		"                         (default 0xa0)\n"
		"      --max-flows N      flows under analysis at once (default 65536)\n"
		"      --max-bytes N      client bytes read per flow (default 1048576)\n"
		"      --max-packets N    client packets per flow without new bytes (default 64)\n"
		"      --max-time MS      analysis time without progress (default 5000)\n"
		"      --max-memory MB    flow buffers of all queues together (default 256)\n"
		"      --max-decided N    decided flows remembered, all queues\n"
		"                         (default 4 x --max-flows)\n"
		"      --max-records N    flows handed to the module or marked, remembered\n"
		"                         for reloads and retried installs (default 65536;\n"
		"                         0: none)\n"
		"      --queue-maxlen N   packets the kernel holds per queue (default 4096)\n"
		"      --no-learn         with the module: queue every new connection to afwd,\n"
		"                         even where the policy decides it by its\n"
		"                         destination alone (by default the module keeps\n"
		"                         such a decision and takes the next ones itself)\n"
		"      --handshakes MODE  with the module: told (default): a new TCP\n"
		"                         connection's handshake packets without data pass\n"
		"                         at once, and afwd reads copies of them, where the\n"
		"                         policy refuses no connection by its ends alone;\n"
		"                         queued: each waits for afwd\n"
		"      --gather US        under load, let packets gather for up to US\n"
		"                         microseconds before reading them (default 0:\n"
		"                         read each packet as it arrives)\n"
		"      --io MODE          auto (default): io_uring where the kernel allows it,\n"
		"                         else poll(); uring; or poll\n"
		"      --head-queue Q     the queues, one per --queue, whose packets come\n"
		"                         with their first 256 bytes only: those of\n"
		"                         inspected TCP flows whose headers are all afwd\n"
		"                         still reads (with the module); auto (default):\n"
		"                         each queue's number with its top bit flipped (0:\n"
		"                         32768), N: N onwards, off: every packet whole\n"
		"      --ctl PATH         control socket (default " AFW_DEFAULT_CTL "),\n"
		"                         for root and the group of --user\n"
		"      --user NAME        once set up, run as NAME with CAP_NET_ADMIN alone\n"
		"                         (default " AFW_USER ")\n"
		"  -h, --help             this text\n"
		"  -V, --version          afwd's version\n");
}

/* A number in [min, max], decimal or 0x hex; -1 with a message otherwise. */
static int afw_opt_num(const char *opt, const char *s, unsigned long min, unsigned long max,
		       unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || *v < min || *v > max) {
		fprintf(stderr, "afwd: %s: '%s' is not a number from %lu to %lu\n", opt, s, min,
			max);
		return -1;
	}
	return 0;
}

static int afw_opt_queues(const char *s, struct afw_daemon_config *c)
{
	unsigned long lo, hi;
	char buf[32], *dash;

	snprintf(buf, sizeof(buf), "%s", s);
	dash = strchr(buf, '-');
	if (dash)
		*dash = '\0';
	if (afw_opt_num("--queue", buf, 0, 65535, &lo) ||
	    afw_opt_num("--queue", dash ? dash + 1 : buf, 0, 65535, &hi))
		return -1;
	if (hi < lo || hi - lo >= 64) {
		fprintf(stderr, "afwd: --queue: '%s' must be N or N-M with N <= M, at most 64 queues\n",
			s);
		return -1;
	}
	c->queue_first = (uint16_t)lo;
	c->queue_count = (uint16_t)(hi - lo + 1);
	return 0;
}

void afw_daemon_say(struct afw_daemon *d, const char *fmt, ...)
{
	char line[AFW_LOG_TEXT];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (d->log_ring) {
		afw_log_printf(d->log_ring, "%s", line);
		afw_log_kick(d->log_ring);
	} else {
		fputs(line, stderr);
	}
}

/*
 * Wakes @w and waits until its @done has reached @gen: the worker serves
 * the main thread's requests at its local work, after its packets.
 */
static void afw_daemon_wait(struct afw_worker *w, atomic_uint_fast64_t *done, uint64_t gen)
{
	struct timespec ms = { 0, 1000000 };

	afw_worker_wake(w);
	while (atomic_load(done) < gen)
		nanosleep(&ms, NULL);
}

void afw_daemon_set_policy(struct afw_daemon *d, struct afw_policy *p)
{
	struct afw_policy *old = atomic_exchange(&d->policy, p);
	uint64_t gen = atomic_fetch_add(&d->policy_gen, 1) + 1;
	unsigned int i;

	/* A worker that has recorded gen has finished its batch with the old one. */
	for (i = 0; i < d->nworkers; i++)
		if (d->workers[i].started)
			afw_daemon_wait(&d->workers[i], &d->workers[i].seen_gen, gen);
	afw_policy_free(old);
}

/*
 * After the module's flows were flushed: every worker installs every flow
 * it has a record of again. Returns once all have sent them.
 */
static void afw_daemon_resync(struct afw_daemon *d)
{
	uint64_t gen = atomic_fetch_add(&d->resync_gen, 1) + 1;
	unsigned int i;

	for (i = 0; i < d->nworkers; i++)
		if (d->workers[i].started)
			afw_daemon_wait(&d->workers[i], &d->workers[i].resync_done, gen);
}

/*
 * Every worker lists the flows of its ledger (afw_ctl_flow_json()), at its
 * next local work, after its packets; their lines go to @out in queue order.
 */
static void afw_daemon_flows(struct afw_daemon *d, FILE *out)
{
	uint64_t gen = atomic_fetch_add(&d->flows_gen, 1) + 1;
	struct afw_worker *w;
	unsigned int i;

	for (i = 0; i < d->nworkers; i++) {
		w = &d->workers[i];
		if (!w->started)
			continue;
		afw_daemon_wait(w, &w->flows_done, gen);
		pthread_mutex_lock(&w->lock);
		if (w->flows_text)
			fwrite(w->flows_text, 1, w->flows_len, out);
		else
			fprintf(out, "{\"queue\":%u,\"error\":\"out of memory\"}\n", w->qnum);
		free(w->flows_text);
		w->flows_text = NULL;
		pthread_mutex_unlock(&w->lock);
	}
}

/*
 * The module's unknown-flow settings against afwd's queues and fail-open:
 * each disagreement as a warning of its own, at start and on reload. A
 * connection of its own: the settings are read twice in afwd's life.
 */
static void afw_daemon_check_module(struct afw_daemon *d)
{
	const struct afw_daemon_config *cfg = d->cfg;
	struct afw_config mod;
	struct afw_nl nl;
	char out[1024], *line, *save = NULL;
	int ret;

	if (!atomic_load(&d->module_up) || afw_nl_open(&nl))
		return;
	ret = afw_config_get(&nl, &mod);
	afw_nl_close(&nl);
	if (ret) {
		afw_daemon_say(d, "afwd: cannot read the module's settings: %s\n", strerror(-ret));
		return;
	}
	if (!afw_settings_compare(&mod, cfg->queue_first, cfg->queue_count, cfg->queue.fail_open,
				  out, sizeof(out)))
		return;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		afw_daemon_say(d, "afwd: warning: %s\n", line);
}

struct afw_daemon_claim {
	const struct afw_daemon *d;
	struct afw_flow_spec *v;
	unsigned int n, cap;
};

static int afw_daemon_claim_one(const struct afw_flow_spec *f, void *data)
{
	struct afw_daemon_claim *c = data;
	struct afw_flow_spec *v;
	unsigned int i;

	if (!f->own_queue)
		return 0;
	for (i = 0; i < c->d->nworkers; i++)
		if (c->d->workers[i].head == f->queue)
			return 0;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		v = realloc(c->v, c->cap * sizeof(*v));
		if (!v)
			return -1;
		c->v = v;
	}
	c->v[c->n++] = *f;
	return 0;
}

/*
 * Inspected flows that an earlier afwd gave a headers queue this one did
 * not bind (--head-queue off, other queues, a bind that failed): nobody
 * reads that queue, so its packets would pass unread (fail open) or not
 * at all (fail closed). They go back to the unknown-flow queues, inspected
 * whole. A flow afwd's own queue still holds is this afwd's to give back,
 * packet by packet (worker.c).
 */
static void afw_daemon_claim_flows(struct afw_daemon *d)
{
	struct afw_daemon_claim c = { .d = d };
	struct afw_nl nl;
	unsigned int i, moved = 0;
	int ret;

	if (!atomic_load(&d->module_up) || afw_nl_open(&nl))
		return;
	/* A dump that raced with changes still lists flows that exist. */
	ret = afw_flow_dump(&nl, afw_daemon_claim_one, &c);
	for (i = 0; (!ret || ret == -EINTR) && i < c.n; i++) {
		c.v[i].own_queue = false;
		/* The connection exists: any SYN on its ports starts another. */
		if (c.v[i].proto == IPPROTO_TCP)
			c.v[i].flags = AFW_FLOW_F_ESTABLISHED;
		moved += !afw_flow_add(&nl, &c.v[i]);
	}
	afw_nl_close(&nl);
	if (ret && ret != -EINTR)
		fprintf(stderr, "afwd: warning: listing the module's flows: %s\n", strerror(-ret));
	if (moved)
		fprintf(stderr, "afwd: %u inspected flows had a headers queue nobody reads: "
			"inspected whole again\n", moved);
	free(c.v);
}

/*
 * One setting for both fail modes: what the kernel does with queued
 * packets while no afwd reads them (the module's "fail") and while afwd
 * falls behind (its queues' NFQA_CFG_F_FAIL_OPEN). Without --fail-open,
 * afwd takes the module's, before it opens its queues.
 */
static void afw_daemon_take_fail(struct afw_daemon_config *cfg, bool up)
{
	struct afw_config mod;
	struct afw_nl nl;

	if (!up || cfg->fail_open_given || afw_nl_open(&nl))
		return;
	if (!afw_config_get(&nl, &mod))
		cfg->queue.fail_open = mod.fail_open;
	afw_nl_close(&nl);
}

/*
 * The policy, and the answers people gave for good to its asks (--answers,
 * once there is one): both load, or neither does.
 */
static struct afw_policy *afw_daemon_load(const struct afw_daemon_config *cfg,
					  struct afw_policy_error *err)
{
	struct afw_policy *p = afw_policy_load(cfg->policy_path, err), *a;

	if (!p || !cfg->answers_path || (access(cfg->answers_path, F_OK) < 0 && errno == ENOENT))
		return p;
	a = afw_policy_load(cfg->answers_path, err);
	if (a && afw_policy_default(a) != AFW_DECIDE_ASK) {
		snprintf(err->msg, sizeof(err->msg), "%s: the answers file's default must be ask "
			 "(its rules decide only what they name)", cfg->answers_path);
		afw_policy_free(a);
		a = NULL;
	}
	if (!a) {
		afw_policy_free(p);
		return NULL;
	}
	afw_policy_set_answers(p, a);
	return p;
}

static int afw_daemon_reload(struct afw_daemon *d, char *msg, size_t len)
{
	struct afw_policy_error err;
	struct afw_policy *p;
	unsigned int i, changed;
	bool lost = false;
	size_t n;

	p = afw_daemon_load(d->cfg, &err);
	if (!p) {
		snprintf(msg, len, "%s (the old policy stays)", err.msg);
		afw_daemon_say(d, "afwd: reload failed: %s\n", msg);
		return -1;
	}
	n = (size_t)snprintf(msg, len, "%s: %zu rules", d->cfg->policy_path, afw_policy_rules(p));
	atomic_store(&d->reload_changed, 0);
	/* Returns once every worker has judged its recorded flows by the new policy. */
	afw_daemon_set_policy(d, p);
	changed = atomic_exchange(&d->reload_changed, 0);
	for (i = 0; i < d->nworkers; i++)
		lost |= atomic_exchange(&d->workers[i].lost, false);
	if (n < len)
		n += (size_t)snprintf(msg + n, len - n, "; %u recorded flow%s changed verdict",
				      changed, changed == 1 ? "" : "s");
	/*
	 * Flows whose record was given up for room may still be installed,
	 * with a verdict nobody can judge again: the module forgets them all,
	 * the recorded ones are installed again at once, and the others come
	 * back to afwd, to be judged as flows joined mid-stream.
	 */
	if (lost && d->kern && afw_kern_flow_flush(d->kern) == 0) {
		afw_daemon_resync(d);
		if (n < len)
			n += (size_t)snprintf(msg + n, len - n, "; flows without a record were "
					      "flushed from the module");
	}
	if ((lost || d->marks_lost) && d->marks) {
		d->marks_lost = true;
		if (n < len)
			snprintf(msg + n, len - n, "; flows decided before their record was given up "
				 "keep their conntrack marks (afwd(8), RELOAD)");
	}
	afw_daemon_say(d, "afwd: reloaded %s\n", msg);
	afw_daemon_check_module(d);
	return 0;
}

/*
 * Writes @tmp whole and flushed to disk: @old (@oldlen bytes, may be
 * NULL), then, if @rule, the line that adds it (with the file's header
 * first when there was no file). 0, or -1 with errno.
 */
static int afw_answers_write(const char *tmp, const char *old, size_t oldlen, const char *rule)
{
	time_t now = time(NULL);
	char when[32];
	struct tm tm;
	FILE *out;
	int ok, err;

	out = fopen(tmp, "w");
	if (!out)
		return -1;
	if (old) {
		fwrite(old, 1, oldlen, out);
		if (rule && oldlen && old[oldlen - 1] != '\n')
			fputc('\n', out);
	} else if (rule) {
		fputs("# afwd's answers given 'always' (afwctl ask): read with the policy, they\n"
		      "# decide the flows it says ask about. Edit, then reload afwd.\n"
		      "default ask\n", out);
	}
	if (rule) {
		gmtime_r(&now, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
		fprintf(out, "%s  # %s\n", rule, when);
	}
	ok = !fflush(out) && !fsync(fileno(out));
	err = errno;
	ok = !fclose(out) && ok;
	if (!ok) {
		errno = err ? err : EIO;
		unlink(tmp);
		return -1;
	}
	return 0;
}

/*
 * Adds @rule to the answers file and reloads: the file is written whole
 * beside the old one and renamed over it, so a crash leaves one or the
 * other. If the reload refuses the result, the old file is put back the
 * same way.
 */
static int afw_daemon_save_answer(struct afw_daemon *d, const char *rule, char *msg, size_t len)
{
	const char *path = d->cfg->answers_path;
	struct afw_policy_error err;
	struct afw_policy *check;
	char tmp[4096];
	char *old = NULL;
	size_t oldlen = 0;
	FILE *in;
	int ok;

	if (snprintf(tmp, sizeof(tmp), "%s.new", path) >= (int)sizeof(tmp)) {
		snprintf(msg, len, "%s: path too long", path);
		return -1;
	}
	in = fopen(path, "r");
	if (in) {
		old = malloc(AFW_POLICY_MAX_FILE + 1);
		oldlen = old ? fread(old, 1, AFW_POLICY_MAX_FILE + 1, in) : 0;
		ok = old && !ferror(in) && oldlen <= AFW_POLICY_MAX_FILE;
		fclose(in);
		if (!ok) {
			free(old);
			snprintf(msg, len, "%s: cannot read it, or it is too large", path);
			return -1;
		}
	} else if (errno != ENOENT) {
		snprintf(msg, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (afw_answers_write(tmp, old, oldlen, rule)) {
		snprintf(msg, len, "%s.new: %s", path, strerror(errno));
		goto err;
	}
	/* The new file must load with the policy before it replaces the old. */
	check = afw_policy_load(tmp, &err);
	if (!check) {
		snprintf(msg, len, "%s", err.msg);
		unlink(tmp);
		goto err;
	}
	afw_policy_free(check);
	if (rename(tmp, path) < 0) {
		snprintf(msg, len, "%s: %s", path, strerror(errno));
		unlink(tmp);
		goto err;
	}
	if (afw_daemon_reload(d, msg, len)) {
		/* Put back what was there: the answer holds for this flow only. */
		if (!old)
			unlink(path);
		else if (afw_answers_write(tmp, old, oldlen, NULL) || rename(tmp, path) < 0)
			afw_daemon_say(d, "afwd: ask: %s: the file before this answer could not be "
				       "put back: %s\n", path, strerror(errno));
		goto err;
	}
	free(old);
	return 0;

err:
	free(old);
	return -1;
}

/* "ask answer ARGS" from the control socket. */
static int afw_daemon_answer(struct afw_daemon *d, const char *args, char *msg, size_t len)
{
	char rule[600], why[512];
	size_t n;
	int w;

	w = afw_ask_answer(&d->ask, args, rule, sizeof(rule), msg, len);
	if (w < 0)
		return -1;
	afw_worker_wake(&d->workers[w]);
	if (!rule[0])
		return 0;
	n = strlen(msg);
	if (!d->cfg->answers_path) {
		snprintf(msg + n, len - n, "; not kept for good: afwd runs without --answers");
		return -1;
	}
	if (afw_daemon_save_answer(d, rule, why, sizeof(why))) {
		snprintf(msg + n, len - n, "; not kept for good: %s", why);
		return -1;
	}
	snprintf(msg + n, len - n, "; %s: %s", d->cfg->answers_path, rule);
	afw_daemon_say(d, "afwd: ask: kept for good in %s: %s\n", d->cfg->answers_path, rule);
	return 0;
}

/*
 * The answers file's folder, made now, as root, for afwd's user: it writes
 * the file beside itself and renames it, so it needs the folder.
 */
static void afw_daemon_answers_dir(const char *path, uid_t uid, gid_t gid)
{
	char dir[4096], *slash;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return;
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return;
	*slash = '\0';
	if (mkdir(dir, 0750) == 0 && geteuid() == 0 && chown(dir, uid, gid) < 0)
		fprintf(stderr, "afwd: warning: %s: %s\n", dir, strerror(errno));
}

struct afw_daemon_watchers {
	int fd[AFW_ASK_WATCHERS];
	unsigned int n;
};

static void afw_daemon_unwatch(struct afw_daemon *d, struct afw_daemon_watchers *wt,
			       unsigned int i)
{
	close(wt->fd[i]);
	wt->fd[i] = wt->fd[--wt->n];
	atomic_store(&d->ask.listeners, wt->n);
}

/*
 * Lines to every watcher. A watcher that does not take them at once is
 * let go: the main thread never waits on one.
 */
static void afw_daemon_watch_send(struct afw_daemon *d, struct afw_daemon_watchers *wt,
				  const char *text, size_t len)
{
	unsigned int i;

	for (i = wt->n; i-- > 0;)
		if (send(wt->fd[i], text, len, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)len)
			afw_daemon_unwatch(d, wt, i);
}

/* A new "ask watch": the questions waiting now, then each as it comes. */
static void afw_daemon_watch(struct afw_daemon *d, struct afw_daemon_watchers *wt, int fd)
{
	static const char full[] = "error too many watchers already\n";
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	if (wt->n == AFW_ASK_WATCHERS) {
		(void)!send(fd, full, sizeof(full) - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
		close(fd);
		return;
	}
	wt->fd[wt->n++] = fd;
	atomic_store(&d->ask.listeners, wt->n);
	m = open_memstream(&text, &len);
	if (!m)
		return;
	fputs("{\"event\":\"watching\"}\n", m);
	afw_ask_list(&d->ask, m);
	if (!fclose(m) && send(fd, text, len, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)len)
		afw_daemon_unwatch(d, wt, wt->n - 1);
	free(text);
}

/* Written through the log, so a stuck stderr cannot hold the stop. */
static void afw_daemon_final_counters(struct afw_daemon *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return;
	fputs("afwd: final counters ", out);
	afw_ctl_stats_json(d, out);
	fclose(out);
	afw_log_owned(d->log_ring, buf);
	afw_log_kick(d->log_ring);
}

static int afw_daemon_run(struct afw_daemon_config *cfg)
{
	struct afw_daemon d = { .cfg = cfg };
	struct afw_policy_error perr;
	struct afw_events *events = NULL;
	struct signalfd_siginfo si;
	struct afw_privs privs;
	struct pollfd pfd[3 + AFW_ASK_WATCHERS];
	struct afw_daemon_watchers wt = { .n = 0 };
	const struct afw_ctl_ops ops = {
		.reload = afw_daemon_reload,
		.flows = afw_daemon_flows,
		.answer = afw_daemon_answer,
	};
	char err[512], msg[512], head[64];
	int sfd = -1, lfd = -1, ret = 1;
	bool up = false;
	unsigned int i;
	sigset_t mask;

	if (afw_privs_init(&privs, cfg->user, err, sizeof(err)) < 0) {
		fprintf(stderr, "afwd: %s\n", err);
		return 1;
	}
	if (afw_ask_init(&d.ask, err, sizeof(err)) < 0) {
		fprintf(stderr, "afwd: %s\n", err);
		return 1;
	}
	atomic_init(&d.policy, afw_daemon_load(cfg, &perr));
	if (!atomic_load(&d.policy)) {
		fprintf(stderr, "afwd: %s\n", perr.msg);
		if (access(cfg->policy_path, F_OK) < 0 && errno == ENOENT)
			fprintf(stderr, "afwd: give a policy file with -p FILE; 'make install' "
				"puts the shipped one at %s\n", AFW_DEFAULT_POLICY);
		return 1;
	}

	/*
	 * Whether flows go to the module: said once, plainly, at start. The
	 * socket stays open for afwd's life, so that the module may come later.
	 */
	if (cfg->module != AFW_MODULE_OFF) {
		d.kern = calloc(1, sizeof(*d.kern));
		ret = d.kern ? afw_kern_open(d.kern, false) : -ENOMEM;
		if (ret < 0) {
			fprintf(stderr, "afwd: generic netlink: %s\n", strerror(-ret));
			free(d.kern);
			d.kern = NULL;
			ret = 1;
			goto out;
		}
		ret = 1;
		up = afw_kern_up(d.kern);
	}
	if (!up && cfg->module == AFW_MODULE_ON) {
		fprintf(stderr, "afwd: --module on, but the afw module is not loaded (modprobe afw)\n");
		goto out;
	}
	d.marks = !up;
	atomic_init(&d.module_up, up);
	afw_daemon_take_fail(cfg, up);
	fprintf(stderr, "afwd: %s; queues %u-%u; policy %s (%zu rules)\n",
		up ? "decided flows go to the afw module" :
		cfg->module == AFW_MODULE_OFF ?
		"afw module not used (--module off): decided flows are marked for iptables/nftables "
		"(afwd(8))" :
		"afw module not used: decided flows are marked for iptables/nftables (afwd(8)); "
		"should the module appear, they go to it too",
		cfg->queue_first, cfg->queue_first + cfg->queue_count - 1, cfg->policy_path,
		afw_policy_rules(atomic_load(&d.policy)));
	afw_daemon_check_module(&d);

	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	/* Blocked before the threads start, so only the main thread takes them. */
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	lfd = afw_ctl_listen(cfg->ctl_path, privs.uid, privs.gid, err, sizeof(err));
	if (sfd < 0 || lfd < 0) {
		fprintf(stderr, "afwd: %s\n", lfd < 0 ? err : strerror(errno));
		goto out;
	}

	d.nworkers = cfg->queue_count;
	d.workers = calloc(d.nworkers, sizeof(*d.workers));
	d.log = afw_log_new(d.nworkers + 1, cfg->log_json);
	if (!d.workers || !d.log) {
		fprintf(stderr, "afwd: out of memory\n");
		goto out;
	}
	/* Before the queues are bound: nobody reads them while it opens. */
	if (cfg->events_path) {
		events = afw_events_open(cfg->events_path, cfg->events_days, cfg->events_mb, err,
					 sizeof(err));
		if (!events) {
			fprintf(stderr, "afwd: %s\n", err);
			d.nworkers = 0;		/* none is set up yet */
			goto close;
		}
		afw_log_set_events(d.log, events);
	}
	for (i = 0; i < d.nworkers; i++) {
		d.workers[i].d = &d;
		d.workers[i].wake_fd = -1;
		d.workers[i].qnum = (uint16_t)(cfg->queue_first + i);
		d.workers[i].log = afw_log_ring(d.log, i);
		if (afw_worker_setup(&d.workers[i], err, sizeof(err)) < 0) {
			fprintf(stderr, "afwd: %s\n", err);
			d.nworkers = i + 1;
			goto close;
		}
	}
	afw_daemon_claim_flows(&d);
	if (cfg->answers_path)
		afw_daemon_answers_dir(cfg->answers_path, privs.uid, privs.gid);
	/* Everything that needs more than CAP_NET_ADMIN is done: drop the rest. */
	if (afw_privs_drop(&privs, err, sizeof(err)) < 0) {
		fprintf(stderr, "afwd: %s\n", err);
		goto close;
	}
	if (access(cfg->policy_path, R_OK) < 0)
		fprintf(stderr, "afwd: warning: user %s cannot read %s (%s): reloads will fail\n",
			privs.user, cfg->policy_path, strerror(errno));
	/* From here on, nothing that logs may wait for stderr. */
	if (afw_log_start(d.log, err, sizeof(err)) < 0) {
		fprintf(stderr, "afwd: %s\n", err);
		goto close;
	}
	d.log_ring = afw_log_ring(d.log, d.nworkers);
	for (i = 0; i < d.nworkers; i++) {
		if (afw_worker_start(&d.workers[i], err, sizeof(err)) < 0) {
			afw_daemon_say(&d, "afwd: %s\n", err);
			goto stop;
		}
	}
	if (d.workers[0].head >= 0)
		snprintf(head, sizeof(head), "by their headers from queue %d%s", d.workers[0].head,
			 d.nworkers > 1 ? " onwards" : "");
	else
		snprintf(head, sizeof(head), "whole");
	afw_daemon_say(&d, "afwd: ready; queues wait with %s, gathering for up to %llu us under "
		       "load (0: never); a full queue fails %s (%s); inspected flows come %s\n",
		       afw_queue_io_name(d.workers[0].q), (unsigned long long)(cfg->gather_ns / 1000),
		       cfg->queue.fail_open ? "open" : "closed",
		       cfg->fail_open_given ? "--fail-open" :
		       up ? "the module's fail setting" : "the default without the module", head);
	if (events)
		afw_daemon_say(&d, "afwd: decisions are stored in %s for afwctl log, %u days and "
			       "%u MB at most\n", cfg->events_path, cfg->events_days, cfg->events_mb);

	for (;;) {
		pfd[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		pfd[2] = (struct pollfd){ .fd = d.ask.notify_fd, .events = POLLIN };
		for (i = 0; i < wt.n; i++)
			pfd[3 + i] = (struct pollfd){ .fd = wt.fd[i], .events = POLLIN };
		/* Answers kept for a while end on time: looked at once a second. */
		if (poll(pfd, 3 + wt.n, afw_ask_has_kept(&d.ask) ? 1000 : -1) < 0 && errno != EINTR)
			break;
		afw_ask_expire(&d.ask, afw_now_ns());
		/* A watcher says nothing: anything readable is its end. */
		for (i = wt.n; i-- > 0;)
			if (pfd[3 + i].revents)
				afw_daemon_unwatch(&d, &wt, i);
		if (pfd[2].revents & POLLIN) {
			uint64_t counter;
			size_t len;
			char *news;

			(void)!read(d.ask.notify_fd, &counter, sizeof(counter));
			news = afw_ask_take_news(&d.ask, &len);
			if (news)
				afw_daemon_watch_send(&d, &wt, news, len);
			free(news);
		}
		if (pfd[1].revents & POLLIN) {
			int wfd = afw_ctl_serve(lfd, &d, &ops);

			if (wfd >= 0)
				afw_daemon_watch(&d, &wt, wfd);
		}
		if (!(pfd[0].revents & POLLIN))
			continue;
		if (read(sfd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo == SIGHUP) {
			afw_daemon_reload(&d, msg, sizeof(msg));
			continue;
		}
		afw_daemon_say(&d, "afwd: %s, stopping\n", strsignal((int)si.ssi_signo));
		break;
	}
	ret = 0;
stop:
	atomic_store(&d.stop, true);
	for (i = 0; i < d.nworkers; i++)
		afw_worker_wake(&d.workers[i]);
	for (i = 0; i < d.nworkers; i++)
		afw_worker_join(&d.workers[i]);
	/* The last counters, for whoever reads the log after a stop. */
	if (ret == 0)
		afw_daemon_final_counters(&d);
close:
	/* The writer gets a moment for what is queued; a stuck stderr does not hold the stop. */
	if (d.log)
		afw_log_stop(d.log, 2000000000u);
	d.log_ring = NULL;
	for (i = 0; d.workers && i < d.nworkers; i++)
		afw_worker_close(&d.workers[i]);
	free(d.workers);
	afw_log_free(d.log);
	afw_events_close(events);
out:
	while (wt.n)
		afw_daemon_unwatch(&d, &wt, wt.n - 1);
	afw_ask_destroy(&d.ask);
	if (lfd >= 0) {
		close(lfd);
		unlink(cfg->ctl_path);
	}
	if (sfd >= 0)
		close(sfd);
	if (d.kern) {
		afw_kern_close(d.kern);
		free(d.kern);
	}
	afw_policy_free(atomic_load(&d.policy));
	return ret;
}

enum {
	AFW_OPT_CHECK = 256, AFW_OPT_PCAP, AFW_OPT_FAIL_OPEN, AFW_OPT_MODULE, AFW_OPT_FLOW_TIMEOUT,
	AFW_OPT_MARK_BASE, AFW_OPT_MAX_FLOWS, AFW_OPT_MAX_BYTES, AFW_OPT_MAX_PACKETS,
	AFW_OPT_MAX_TIME, AFW_OPT_QUEUE_MAXLEN, AFW_OPT_GATHER, AFW_OPT_IO, AFW_OPT_CTL,
	AFW_OPT_STATS, AFW_OPT_RELOAD, AFW_OPT_FLOWS, AFW_OPT_MAX_MEMORY, AFW_OPT_MAX_DECIDED,
	AFW_OPT_USER, AFW_OPT_MAX_RECORDS, AFW_OPT_HEAD_QUEUE, AFW_OPT_EVENTS, AFW_OPT_EVENTS_DAYS,
	AFW_OPT_EVENTS_MB, AFW_OPT_ANSWERS, AFW_OPT_NO_LEARN, AFW_OPT_HANDSHAKES,
	AFW_OPT_VERSION,
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "queue", required_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "check", required_argument, NULL, AFW_OPT_CHECK },
		{ "pcap", required_argument, NULL, AFW_OPT_PCAP },
		{ "fail-open", no_argument, NULL, AFW_OPT_FAIL_OPEN },
		{ "module", required_argument, NULL, AFW_OPT_MODULE },
		{ "flow-timeout", required_argument, NULL, AFW_OPT_FLOW_TIMEOUT },
		{ "mark-base", required_argument, NULL, AFW_OPT_MARK_BASE },
		{ "max-flows", required_argument, NULL, AFW_OPT_MAX_FLOWS },
		{ "max-bytes", required_argument, NULL, AFW_OPT_MAX_BYTES },
		{ "max-packets", required_argument, NULL, AFW_OPT_MAX_PACKETS },
		{ "max-time", required_argument, NULL, AFW_OPT_MAX_TIME },
		{ "max-memory", required_argument, NULL, AFW_OPT_MAX_MEMORY },
		{ "max-decided", required_argument, NULL, AFW_OPT_MAX_DECIDED },
		{ "queue-maxlen", required_argument, NULL, AFW_OPT_QUEUE_MAXLEN },
		{ "gather", required_argument, NULL, AFW_OPT_GATHER },
		{ "io", required_argument, NULL, AFW_OPT_IO },
		{ "ctl", required_argument, NULL, AFW_OPT_CTL },
		{ "stats", no_argument, NULL, AFW_OPT_STATS },
		{ "reload", no_argument, NULL, AFW_OPT_RELOAD },
		{ "flows", no_argument, NULL, AFW_OPT_FLOWS },
		{ "user", required_argument, NULL, AFW_OPT_USER },
		{ "max-records", required_argument, NULL, AFW_OPT_MAX_RECORDS },
		{ "head-queue", required_argument, NULL, AFW_OPT_HEAD_QUEUE },
		{ "events", required_argument, NULL, AFW_OPT_EVENTS },
		{ "events-days", required_argument, NULL, AFW_OPT_EVENTS_DAYS },
		{ "events-mb", required_argument, NULL, AFW_OPT_EVENTS_MB },
		{ "answers", required_argument, NULL, AFW_OPT_ANSWERS },
		{ "no-learn", no_argument, NULL, AFW_OPT_NO_LEARN },
		{ "handshakes", required_argument, NULL, AFW_OPT_HANDSHAKES },
		{ "version", no_argument, NULL, AFW_OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	struct afw_daemon_config cfg = {
		.policy_path = AFW_DEFAULT_POLICY,
		.ctl_path = AFW_DEFAULT_CTL,
		.user = AFW_USER,
		.queue_count = 1,
		.queue = { .maxlen = 4096, .rcvbuf = 8 << 20 },
		.engine = { .max_flows = AFW_ENGINE_MAX_FLOWS, .max_bytes = AFW_ENGINE_MAX_BYTES,
			    .max_packets = AFW_ENGINE_MAX_PACKETS, .max_ns = AFW_ENGINE_MAX_NS,
			    .max_memory = AFW_ENGINE_MAX_MEMORY },
		.mark_base = 0xa0,
		.max_records = 65536,
		.events_days = 30,
		.events_mb = 64,
		.head_first = AFW_HEAD_AUTO,
		/*
		 * No gathering: a stream whose window sits in the queue can
		 * only lose by a wait, and the back-off does not always see it
		 * (iperf3 inspected on its own host: 0.336 of no firewall,
		 * against 0.761 without; docs/performance.md).
		 */
		.gather_ns = 0,
	};
	const char *check = NULL, *pcap = NULL, *ask = NULL;
	bool policy_given = false;
	struct afw_policy_error perr;
	struct afw_policy *pol;
	unsigned long v;
	int c, ret;

	while ((c = getopt_long(argc, argv, "p:q:jhV", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			cfg.policy_path = optarg;
			policy_given = true;
			break;
		case 'q':
			if (afw_opt_queues(optarg, &cfg))
				return 2;
			break;
		case 'j':
			cfg.log_json = true;
			break;
		case 'h':
			afw_usage(stdout);
			return 0;
		case 'V':
		case AFW_OPT_VERSION:
			printf("afwd " AFW_VERSION "\n");
			return 0;
		case AFW_OPT_CHECK:
			check = optarg;
			break;
		case AFW_OPT_PCAP:
			pcap = optarg;
			break;
		case AFW_OPT_FAIL_OPEN:
			cfg.queue.fail_open = true;
			cfg.fail_open_given = true;
			break;
		case AFW_OPT_MODULE:
			if (!strcmp(optarg, "auto")) {
				cfg.module = AFW_MODULE_AUTO;
			} else if (!strcmp(optarg, "on")) {
				cfg.module = AFW_MODULE_ON;
			} else if (!strcmp(optarg, "off")) {
				cfg.module = AFW_MODULE_OFF;
			} else {
				fprintf(stderr, "afwd: --module: '%s' is not auto, on or off\n", optarg);
				return 2;
			}
			break;
		case AFW_OPT_FLOW_TIMEOUT:
			if (afw_opt_num("--flow-timeout", optarg, 1, 86400 * 7, &v))
				return 2;
			cfg.flow_timeout = (uint32_t)v;
			break;
		case AFW_OPT_MARK_BASE:
			/* The marks BASE+1..BASE+3 must fit the mask, and none may be 0. */
			if (afw_opt_num("--mark-base", optarg, 0, AFW_MARK_MASK - AFW_MARK_REJECT, &v)) {
				fprintf(stderr, "afwd: --mark-base: the marks N+1 to N+3 must fit in "
					"the mark's low byte (0x%x), so N is 0 to 0x%x\n",
					AFW_MARK_MASK, AFW_MARK_MASK - AFW_MARK_REJECT);
				return 2;
			}
			cfg.mark_base = (uint32_t)v;
			break;
		case AFW_OPT_MAX_FLOWS:
			if (afw_opt_num("--max-flows", optarg, 1, 1u << 22, &v))
				return 2;
			cfg.engine.max_flows = (unsigned int)v;
			break;
		case AFW_OPT_MAX_BYTES:
			if (afw_opt_num("--max-bytes", optarg, 512, 1u << 26, &v))
				return 2;
			cfg.engine.max_bytes = (uint32_t)v;
			break;
		case AFW_OPT_MAX_PACKETS:
			if (afw_opt_num("--max-packets", optarg, 1, 10000, &v))
				return 2;
			cfg.engine.max_packets = (unsigned int)v;
			break;
		case AFW_OPT_MAX_TIME:
			if (afw_opt_num("--max-time", optarg, 1, 600000, &v))
				return 2;
			cfg.engine.max_ns = (uint64_t)v * 1000000u;
			break;
		case AFW_OPT_MAX_MEMORY:
			if (afw_opt_num("--max-memory", optarg, 1, 1u << 20, &v))
				return 2;
			cfg.engine.max_memory = (uint64_t)v << 20;
			break;
		case AFW_OPT_MAX_DECIDED:
			if (afw_opt_num("--max-decided", optarg, 1, 1u << 24, &v))
				return 2;
			cfg.engine.max_decided = (unsigned int)v;
			break;
		case AFW_OPT_QUEUE_MAXLEN:
			if (afw_opt_num("--queue-maxlen", optarg, 1, 1u << 20, &v))
				return 2;
			cfg.queue.maxlen = (uint32_t)v;
			break;
		case AFW_OPT_NO_LEARN:
			cfg.no_learn = true;
			break;
		case AFW_OPT_HANDSHAKES:
			if (!strcmp(optarg, "told")) {
				cfg.handshakes_queued = false;
			} else if (!strcmp(optarg, "queued")) {
				cfg.handshakes_queued = true;
			} else {
				fprintf(stderr, "afwd: --handshakes: '%s' is not told or queued\n",
					optarg);
				return 2;
			}
			break;
		case AFW_OPT_GATHER:
			/* pace.h's sums stay in 64 bits up to 100 ms. */
			if (afw_opt_num("--gather", optarg, 0, 100000, &v))
				return 2;
			cfg.gather_ns = (uint64_t)v * 1000u;
			break;
		case AFW_OPT_IO:
			if (!strcmp(optarg, "auto")) {
				cfg.queue.io = AFW_QUEUE_IO_AUTO;
			} else if (!strcmp(optarg, "uring")) {
				cfg.queue.io = AFW_QUEUE_IO_URING;
			} else if (!strcmp(optarg, "poll")) {
				cfg.queue.io = AFW_QUEUE_IO_POLL;
			} else {
				fprintf(stderr, "afwd: --io: '%s' is not auto, uring or poll\n", optarg);
				return 2;
			}
			break;
		case AFW_OPT_CTL:
			cfg.ctl_path = optarg;
			break;
		case AFW_OPT_STATS:
			ask = "stats";
			break;
		case AFW_OPT_RELOAD:
			ask = "reload";
			break;
		case AFW_OPT_FLOWS:
			ask = "flows";
			break;
		case AFW_OPT_USER:
			cfg.user = optarg;
			break;
		case AFW_OPT_ANSWERS:
			cfg.answers_path = optarg;
			break;
		case AFW_OPT_EVENTS:
			cfg.events_path = optarg;
			break;
		case AFW_OPT_EVENTS_DAYS:
			if (afw_opt_num("--events-days", optarg, 1, 36500, &v))
				return 2;
			cfg.events_days = (unsigned int)v;
			break;
		case AFW_OPT_EVENTS_MB:
			if (afw_opt_num("--events-mb", optarg, 1, 1u << 20, &v))
				return 2;
			cfg.events_mb = (unsigned int)v;
			break;
		case AFW_OPT_MAX_RECORDS:
			if (afw_opt_num("--max-records", optarg, 0, 1u << 24, &v))
				return 2;
			cfg.max_records = (unsigned int)v;
			break;
		case AFW_OPT_HEAD_QUEUE:
			if (!strcmp(optarg, "auto")) {
				cfg.head_first = AFW_HEAD_AUTO;
			} else if (!strcmp(optarg, "off")) {
				cfg.head_first = -1;
			} else {
				if (afw_opt_num("--head-queue", optarg, 0, 65535, &v))
					return 2;
				cfg.head_first = (int)v;
			}
			break;
		default:
			afw_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "afwd: unexpected argument '%s'; see afwd --help\n", argv[optind]);
		return 2;
	}
	/* An explicit range must fit, and keep clear of the queues themselves. */
	if (cfg.head_first >= 0 &&
	    (cfg.head_first + cfg.queue_count - 1 > 65535 ||
	     (cfg.head_first < cfg.queue_first + cfg.queue_count &&
	      cfg.head_first + cfg.queue_count > cfg.queue_first))) {
		fprintf(stderr, "afwd: --head-queue: %d-%d must lie within 0-65535 and not overlap "
			"--queue %u-%u\n", cfg.head_first, cfg.head_first + cfg.queue_count - 1,
			cfg.queue_first, cfg.queue_first + cfg.queue_count - 1);
		return 2;
	}
	if (check)
		return afw_policy_check(check, stdout, stderr);
	if (ask)
		return afw_ctl_request(cfg.ctl_path, ask);
	if (pcap) {
		/* Looking at a capture needs no policy: then everything is allowed. */
		if (!policy_given && access(cfg.policy_path, F_OK) < 0)
			pol = afw_policy_parse("default allow\n", 14, "(built-in)", &perr);
		else
			pol = afw_policy_load(cfg.policy_path, &perr);
		if (!pol) {
			fprintf(stderr, "afwd: %s\n", perr.msg);
			return 1;
		}
		ret = afw_offline_run(pcap, pol, &cfg.engine, cfg.log_json);
		afw_policy_free(pol);
		return ret;
	}
	/* The bounds are the daemon's: each queue's thread gets its share. */
	if (!cfg.engine.max_decided)
		cfg.engine.max_decided = 4 * cfg.engine.max_flows;
	cfg.engine.max_flows = (cfg.engine.max_flows + cfg.queue_count - 1) / cfg.queue_count;
	cfg.engine.max_decided = (cfg.engine.max_decided + cfg.queue_count - 1) / cfg.queue_count;
	cfg.engine.max_memory /= cfg.queue_count;
	cfg.max_records = (cfg.max_records + cfg.queue_count - 1) / cfg.queue_count;
	return afw_daemon_run(&cfg);
}
