// SPDX-License-Identifier: GPL-2.0
/*
 * afwctl: configure the afw kernel module. Every invocation is parsed whole
 * first (files included), and only then is the kernel asked: a mistake is
 * reported as the mistake, with exit status 2, whether or not the module is
 * loaded.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "afwctl.h"

#ifndef AFW_VERSION
#error "AFW_VERSION must be set by the build"
#endif

struct afwctl_cmd {
	const char *name;
	int (*parse)(struct afwctl_req *rq, int argc, char **argv);
	int (*run)(struct afw_nl *nl, struct afwctl_req *rq);
	bool offline;			/* needs no module */
	const char *help;
};

#define CMD(n, fn, off, h) { n, afwctl_##fn##_parse, afwctl_##fn##_run, off, h }

static const struct afwctl_cmd afwctl_cmds[] = {
	CMD("status", status, false, "show module version and per-hook packet counters"),
	CMD("stats", stats, false, "show what decided the packets, and how full the tables are"),
	CMD("reset-counters", reset_counters, false, "zero the counters of this network namespace"),
	CMD("rule", rule, false, "add RULE | del ID | list | flush: manage rules"),
	CMD("load", load, false, "[--yes] FILE: apply FILE's settings and replace all rules with its rules"),
	CMD("save", save, false, "print the settings and rules in the format load reads"),
	CMD("check", check, true, "FILE: check a configuration file, without the module"),
	CMD("flow", flow, false, "list | add FLOW VERDICT [timeout S] | del FLOW | flush | owner FLOW | "
	    "watch: the flow table, who started a flow, flows as they come and go"),
	CMD("learned", learned, false, "list | flush: decisions afwd taught the module, which "
	    "it takes itself for new connections to those places"),
	CMD("enable", enable, false, "[--yes]: turn afw on again; asks first if an SSH session would be cut"),
	CMD("disable", disable, false, "let every packet pass, keeping rules, flows and settings"),
	CMD("log", log, true, "[--since T] [--host GLOB] [--exe GLOB] [--verdict V] [--last N] "
	    "[--db PATH]: afwd's stored decisions"),
	CMD("monitor", monitor, true, "[--since T] [--host GLOB] [--exe GLOB] [--verdict V] [--last N] "
	    "[--db PATH]: afwd's decisions as it stores them, until interrupted"),
	CMD("ask", ask, true, "list | watch | allow|deny|reject ID [once|exit|minutes N|always] "
	    "[host|any]: afwd's questions about flows its policy asks about"),
	CMD("top", top, true, "a live view of flows, programs, hosts and afwd's questions, "
	    "which it answers"),
	CMD("config", config, false, "show, or set [--yes] KEY VALUE: unknown, queue, fail, "
	    "max_flows, tcp_timeout, udp_timeout, flow_timeout, enabled, owners"),
};

#define AFWCTL_NCMDS (sizeof(afwctl_cmds) / sizeof(afwctl_cmds[0]))

static void afwctl_usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: afwctl [-j] [-n NS] COMMAND [ARGS]\n"
		   "  -j, --json     print JSON instead of tables\n"
		   "  -n, --netns NS act in network namespace NS, as ip -n: a name from\n"
		   "                 'ip netns', or a path such as /proc/PID/ns/net\n"
		   "      --afwd SOCK where flow list asks afwd for host names (default\n"
		   "                 " AFWCTL_AFWD_SOCK ", not asked with -n)\n"
		   "  -h, --help     show this help\n"
		   "  -V, --version  show afwctl's version\n"
		   "Commands:\n");
	for (i = 0; i < AFWCTL_NCMDS; i++)
		fprintf(f, "  %-16s %s\n", afwctl_cmds[i].name, afwctl_cmds[i].help);
	fprintf(f, "RULE: [id N] [prio N] [family ipv4|ipv6] [dir in|out|forward[,..]]\n"
		   "      [proto NAME|N] [from ADDR[/LEN]] [to ADDR[/LEN]] [sport P[-P]]\n"
		   "      [dport P[-P]] [iif NAME] [oif NAME] [uid USER] [gid GROUP]\n"
		   "      [exe PATH] [cgroup PATH]\n"
		   "      accept|drop|reject|queue (allow = accept, deny = drop) [comment \"TEXT\"]\n"
		   "FLOW: proto P from ADDR to ADDR [sport N dport N | id N]; VERDICT: accept|drop|reject|inspect\n");
}

int afwctl_usage_err(const char *fmt, ...)
{
	va_list ap;

	fputs("afwctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

int afwctl_fail(const char *what, int err, const struct afw_nl *nl)
{
	/*
	 * The kernel's own words first: an EPERM with a message is a refusal
	 * of one value (max_flows), not the family's rights check, which
	 * comes without one.
	 */
	if (nl && nl->ext_msg[0]) {
		fprintf(stderr, "afwctl: %s: %s (%s)\n", what, nl->ext_msg, strerror(-err));
	} else if (err == -EPERM || err == -EACCES) {
		fprintf(stderr, "afwctl: %s: permission denied: this needs CAP_NET_ADMIN "
			"in the current network namespace (run it as root)\n", what);
	} else {
		fprintf(stderr, "afwctl: %s: %s\n", what, strerror(-err));
	}
	return 1;
}

/*
 * -n NETNS, as ip -n: the namespace "ip netns" named NETNS, or the one at
 * NETNS when it holds a slash. Entered before the socket is opened, so that
 * the family, /proc/net (the SSH guard's view of connections, the queues'
 * listeners) and interface names are all that namespace's, and only once
 * the command has parsed: a mistake stays a mistake, whatever the name.
 */
static int afwctl_enter_netns(const char *netns)
{
	char path[PATH_MAX];
	int fd, n;

	if (strchr(netns, '/'))
		n = snprintf(path, sizeof(path), "%s", netns);
	else if (!*netns || !strcmp(netns, ".") || !strcmp(netns, ".."))
		return afwctl_usage_err("-n: '%s' is not a namespace name", netns);
	else
		n = snprintf(path, sizeof(path), "/run/netns/%s", netns);
	if (n < 0 || (size_t)n >= sizeof(path))
		return afwctl_usage_err("-n: the namespace's path is too long");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "afwctl: network namespace %s: %s%s\n", netns, strerror(errno),
			errno == ENOENT && !strchr(netns, '/') ? " (see 'ip netns list')" : "");
		return 1;
	}
	if (setns(fd, CLONE_NEWNET)) {
		fprintf(stderr, "afwctl: entering network namespace %s: %s\n", netns,
			errno == EPERM ? "permission denied: this needs CAP_SYS_ADMIN (run it as root)" :
			errno == EINVAL ? "not a network namespace" : strerror(errno));
		close(fd);
		return 1;
	}
	close(fd);
	return 0;
}

static int afwctl_open(struct afw_nl *nl)
{
	int ret = afw_nl_open(nl);

	if (ret == -ENOENT) {
		if (access("/proc/modules", F_OK) != 0)
			fprintf(stderr, "afwctl: the afw kernel module is not loaded, and this "
				"kernel cannot load modules; try 'make vm-demo' in the afw source tree\n");
		else
			fprintf(stderr, "afwctl: the afw kernel module is not loaded; "
				"load it with 'modprobe afw' (as root)\n");
		return 1;
	}
	if (ret)
		return afwctl_fail("cannot talk to the kernel", ret, NULL);
	return 0;
}

static const struct afwctl_cmd *afwctl_find(const char *name)
{
	const char *names[AFWCTL_NCMDS], *hint;
	size_t i;

	for (i = 0; i < AFWCTL_NCMDS; i++) {
		if (!strcmp(name, afwctl_cmds[i].name))
			return &afwctl_cmds[i];
		names[i] = afwctl_cmds[i].name;
	}
	hint = afw_suggest(name, names, AFWCTL_NCMDS);
	afwctl_usage_err("unknown command '%s'" AFW_HINT_FMT "; see 'afwctl --help'", name,
			 AFW_HINT_ARGS(hint));
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "netns", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "afwd", required_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 },
	};
	struct afwctl_req rq = { 0 };
	const struct afwctl_cmd *cmd;
	struct afw_nl *nl = NULL;
	const char *netns = NULL, *afwd = NULL;
	int c, ret;

	while ((c = getopt_long(argc, argv, "+jn:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			rq.json = true;
			break;
		case 'n':
			netns = optarg;
			break;
		case 'A':
			afwd = optarg;
			break;
		case 'h':
			afwctl_usage(stdout);
			return 0;
		case 'V':
			printf("afwctl " AFW_VERSION "\n");
			return 0;
		default:
			afwctl_usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		afwctl_usage(stderr);
		return 2;
	}
	/* The afwd of the initial namespace knows nothing of another's flows. */
	rq.afwd = afwd ? afwd : netns ? NULL : AFWCTL_AFWD_SOCK;
	cmd = afwctl_find(argv[optind]);
	if (!cmd)
		return 2;
	ret = cmd->parse(&rq, argc - optind - 1, argv + optind + 1);
	if (ret)
		goto out;
	if (!cmd->offline) {
		ret = netns ? afwctl_enter_netns(netns) : 0;
		if (ret)
			goto out;
		nl = malloc(sizeof(*nl));
		if (!nl) {
			perror("afwctl");
			ret = 1;
			goto out;
		}
		ret = afwctl_open(nl);
		if (ret)
			goto out;
	}
	ret = cmd->run(nl, &rq);
	/* A full disk or a closed pipe must not pass for success. */
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "afwctl: writing the output: %s\n", strerror(errno));
		ret = 1;
	}
out:
	if (nl) {
		afw_nl_close(nl);
		free(nl);
	}
	afw_conf_free(&rq.conf);
	return ret;
}
