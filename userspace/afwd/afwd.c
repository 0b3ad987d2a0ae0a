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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>

#include "afwnl.h"
#include "ctl.h"
#include "daemon.h"
#include "offline.h"
#include "report.h"

#define AFW_DEFAULT_POLICY "/etc/afw/policy.conf"
#define AFW_DEFAULT_CTL "/run/afw/afwd.sock"

static void afw_usage(FILE *out)
{
	fprintf(out,
		"usage: afwd [options]                 run the verdict daemon\n"
		"       afwd --check FILE              validate a policy file\n"
		"       afwd --pcap FILE [-p FILE] [-j] decide the flows of a capture\n"
		"       afwd --stats | --reload        ask the running daemon\n"
		"\n"
		"  -p, --policy FILE      policy file (default " AFW_DEFAULT_POLICY ")\n"
		"  -q, --queue N[-M]      NFQUEUE numbers, one thread each (default 0);\n"
		"                         must match 'afwctl config set unknown queue N-M'\n"
		"  -j, --json             decision log (or --pcap output) as JSON lines\n"
		"      --fail-open        the kernel lets packets through when afwd falls\n"
		"                         behind (queue full); default: they are dropped\n"
		"      --module MODE      auto (default), on, or off: install decided flows\n"
		"                         in the afw module, or mark packets for iptables\n"
		"      --flow-timeout S   idle timeout of installed flows (default: module's)\n"
		"      --mark-base N      without the module: marks N+1 allow, N+2 deny,\n"
		"                         N+3 reject in the low byte (default 0xa0)\n"
		"      --max-flows N      flows under analysis at once (default 65536)\n"
		"      --max-bytes N      client bytes read per flow (default 1048576)\n"
		"      --max-packets N    client packets per flow without new bytes (default 64)\n"
		"      --max-time MS      analysis time without progress (default 5000)\n"
		"      --max-memory MB    flow buffers of all queues together (default 256)\n"
		"      --max-decided N    decided flows remembered, all queues\n"
		"                         (default 4 x --max-flows)\n"
		"      --queue-maxlen N   packets the kernel holds per queue (default 4096)\n"
		"      --gather US        under load, let packets gather for up to US\n"
		"                         microseconds before reading them (default 4000;\n"
		"                         0: read each packet as it arrives)\n"
		"      --io MODE          auto (default): io_uring where the kernel allows it,\n"
		"                         else poll(); uring; or poll\n"
		"      --ctl PATH         control socket (default " AFW_DEFAULT_CTL ")\n"
		"  -h, --help, --version\n");
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

void afw_daemon_log(struct afw_daemon *d, const struct afw_result *r)
{
	pthread_mutex_lock(&d->log_lock);
	if (d->cfg->log_json) {
		afw_report_json(stderr, r);
	} else {
		fputs("afwd: ", stderr);
		afw_report_text(stderr, r);
	}
	pthread_mutex_unlock(&d->log_lock);
}

void afw_daemon_set_policy(struct afw_daemon *d, struct afw_policy *p)
{
	struct afw_policy *old = atomic_exchange(&d->policy, p);
	uint64_t gen = atomic_fetch_add(&d->policy_gen, 1) + 1;
	struct timespec ms = { 0, 1000000 };
	unsigned int i;

	/* A worker that has recorded gen has finished its batch with the old one. */
	for (i = 0; i < d->nworkers; i++) {
		if (!d->workers[i].started)
			continue;
		afw_worker_wake(&d->workers[i]);
		while (atomic_load(&d->workers[i].seen_gen) < gen)
			nanosleep(&ms, NULL);
	}
	afw_policy_free(old);
}

static int afw_daemon_reload(struct afw_daemon *d, char *msg, size_t len)
{
	struct afw_policy_error err;
	struct afw_policy *p;

	p = afw_policy_load(d->cfg->policy_path, &err);
	if (!p) {
		snprintf(msg, len, "%s (the old policy stays)", err.msg);
		fprintf(stderr, "afwd: reload failed: %s\n", msg);
		return -1;
	}
	snprintf(msg, len, "%s: %zu rules", d->cfg->policy_path, afw_policy_rules(p));
	afw_daemon_set_policy(d, p);
	fprintf(stderr, "afwd: reloaded %s\n", msg);
	return 0;
}

static int afw_daemon_run(struct afw_daemon_config *cfg)
{
	struct afw_daemon d = { .cfg = cfg };
	struct afw_policy_error perr;
	struct signalfd_siginfo si;
	struct afw_kern probe;
	struct pollfd pfd[2];
	char err[512], msg[512];
	int sfd = -1, lfd = -1, ret = 1, probed;
	unsigned int i;
	sigset_t mask;

	pthread_mutex_init(&d.log_lock, NULL);
	atomic_init(&d.policy, afw_policy_load(cfg->policy_path, &perr));
	if (!atomic_load(&d.policy)) {
		fprintf(stderr, "afwd: %s\n", perr.msg);
		return 1;
	}

	/* Whether flows go to the module: said once, plainly, at start. */
	probed = cfg->module == AFW_MODULE_OFF ? -ENOENT : afw_kern_open(&probe);
	if (!probed)
		afw_kern_close(&probe);
	if (probed && cfg->module == AFW_MODULE_ON) {
		fprintf(stderr, "afwd: --module on, but the afw module cannot be reached: %s\n",
			strerror(-probed));
		goto out;
	}
	d.use_module = !probed;
	fprintf(stderr, "afwd: %s; queues %u-%u; policy %s (%zu rules)\n",
		d.use_module ? "decided flows go to the afw module" :
		"afw module not used: decided flows are marked for iptables/nftables (afwd(8))",
		cfg->queue_first, cfg->queue_first + cfg->queue_count - 1, cfg->policy_path,
		afw_policy_rules(atomic_load(&d.policy)));

	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	/* Blocked before the threads start, so only the main thread takes them. */
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	lfd = afw_ctl_listen(cfg->ctl_path, err, sizeof(err));
	if (sfd < 0 || lfd < 0) {
		fprintf(stderr, "afwd: %s\n", lfd < 0 ? err : strerror(errno));
		goto out;
	}

	d.nworkers = cfg->queue_count;
	d.workers = calloc(d.nworkers, sizeof(*d.workers));
	if (!d.workers)
		goto out;
	for (i = 0; i < d.nworkers; i++) {
		d.workers[i].d = &d;
		d.workers[i].wake_fd = -1;
		d.workers[i].qnum = (uint16_t)(cfg->queue_first + i);
		if (afw_worker_start(&d.workers[i], err, sizeof(err)) < 0) {
			fprintf(stderr, "afwd: %s\n", err);
			d.nworkers = i + 1;
			goto stop;
		}
	}
	fprintf(stderr, "afwd: ready; queues wait with %s, gathering for up to %llu us under load\n",
		afw_queue_io_name(d.workers[0].q), (unsigned long long)(cfg->gather_ns / 1000));

	pfd[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = lfd, .events = POLLIN };
	for (;;) {
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents & POLLIN)
			afw_ctl_serve(lfd, &d, afw_daemon_reload);
		if (!(pfd[0].revents & POLLIN))
			continue;
		if (read(sfd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo == SIGHUP) {
			afw_daemon_reload(&d, msg, sizeof(msg));
			continue;
		}
		fprintf(stderr, "afwd: %s, stopping\n", strsignal((int)si.ssi_signo));
		break;
	}
	ret = 0;
stop:
	atomic_store(&d.stop, true);
	for (i = 0; i < d.nworkers; i++)
		afw_worker_wake(&d.workers[i]);
	/* The last counters, for whoever reads the log after a stop. */
	if (ret == 0) {
		pthread_mutex_lock(&d.log_lock);
		fputs("afwd: final counters ", stderr);
		afw_ctl_stats_json(&d, stderr);
		pthread_mutex_unlock(&d.log_lock);
	}
	for (i = 0; i < d.nworkers; i++)
		afw_worker_join(&d.workers[i]);
	free(d.workers);
out:
	if (lfd >= 0) {
		close(lfd);
		unlink(cfg->ctl_path);
	}
	if (sfd >= 0)
		close(sfd);
	afw_policy_free(atomic_load(&d.policy));
	pthread_mutex_destroy(&d.log_lock);
	return ret;
}

enum {
	AFW_OPT_CHECK = 256, AFW_OPT_PCAP, AFW_OPT_FAIL_OPEN, AFW_OPT_MODULE, AFW_OPT_FLOW_TIMEOUT,
	AFW_OPT_MARK_BASE, AFW_OPT_MAX_FLOWS, AFW_OPT_MAX_BYTES, AFW_OPT_MAX_PACKETS,
	AFW_OPT_MAX_TIME, AFW_OPT_QUEUE_MAXLEN, AFW_OPT_GATHER, AFW_OPT_IO, AFW_OPT_CTL,
	AFW_OPT_STATS, AFW_OPT_RELOAD, AFW_OPT_MAX_MEMORY, AFW_OPT_MAX_DECIDED,
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
		{ "version", no_argument, NULL, AFW_OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	struct afw_daemon_config cfg = {
		.policy_path = AFW_DEFAULT_POLICY,
		.ctl_path = AFW_DEFAULT_CTL,
		.queue_count = 1,
		.queue = { .maxlen = 4096, .rcvbuf = 8 << 20 },
		.engine = { .max_flows = AFW_ENGINE_MAX_FLOWS, .max_bytes = AFW_ENGINE_MAX_BYTES,
			    .max_packets = AFW_ENGINE_MAX_PACKETS, .max_ns = AFW_ENGINE_MAX_NS,
			    .max_memory = AFW_ENGINE_MAX_MEMORY },
		.mark_base = 0xa0,
		.gather_ns = 4000000,
	};
	const char *check = NULL, *pcap = NULL, *ask = NULL;
	bool policy_given = false;
	struct afw_policy_error perr;
	struct afw_policy *pol;
	unsigned long v;
	int c, ret;

	while ((c = getopt_long(argc, argv, "p:q:jh", opts, NULL)) != -1) {
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
			if (afw_opt_num("--mark-base", optarg, 0, 0xfc, &v))
				return 2;
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
		default:
			afw_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "afwd: unexpected argument '%s'; see afwd --help\n", argv[optind]);
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
	return afw_daemon_run(&cfg);
}
