// SPDX-License-Identifier: GPL-2.0
/*
 * afwctl: configure the afw kernel module.
 */

#include <errno.h>
#include <getopt.h>
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
	int (*run)(struct afw_nl *nl, const struct afwctl_opts *o, int argc, char **argv);
	const char *help;
};

static const struct afwctl_cmd afwctl_cmds[] = {
	{ "status", afwctl_status, "show module version and per-hook packet counters" },
	{ "stats", afwctl_stats, "show what decided the packets, and how full the tables are" },
	{ "reset-counters", afwctl_reset_counters, "zero the counters of this network namespace" },
	{ "rule", afwctl_rule, "add RULE | del ID | list | flush: manage rules" },
	{ "load", afwctl_load, "FILE: replace all rules with FILE's, atomically" },
	{ "save", afwctl_save, "print the rules in the format load reads" },
	{ "flow", afwctl_flow, "list | add FLOW VERDICT [timeout S] | del FLOW | flush" },
	{ "config", afwctl_config, "show, or set KEY VALUE: unknown, queue, fail, max_flows, flow_timeout" },
};

static void afwctl_usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: afwctl [-j] COMMAND [ARGS]\n"
		   "  -j, --json     print JSON instead of tables\n"
		   "  -h, --help     show this help\n"
		   "  -V, --version  show afwctl's version\n"
		   "Commands:\n");
	for (i = 0; i < sizeof(afwctl_cmds) / sizeof(afwctl_cmds[0]); i++)
		fprintf(f, "  %-16s %s\n", afwctl_cmds[i].name, afwctl_cmds[i].help);
	fprintf(f, "RULE: [id N] [prio N] [family ipv4|ipv6] [dir in|out|forward[,..]]\n"
		   "      [proto NAME|N] [from ADDR[/LEN]] [to ADDR[/LEN]] [sport P[-P]]\n"
		   "      [dport P[-P]] [iif NAME] [oif NAME] [uid N] [gid N]\n"
		   "      accept|drop|reject|queue\n"
		   "FLOW: proto P from ADDR to ADDR [sport N dport N]; VERDICT: accept|drop|reject|inspect\n");
}

int afwctl_fail(const char *what, int err, const struct afw_nl *nl)
{
	if (err == -EPERM || err == -EACCES) {
		fprintf(stderr, "afwctl: %s: permission denied: this needs CAP_NET_ADMIN "
			"in the current network namespace (run it as root)\n", what);
	} else if (nl && nl->ext_msg[0]) {
		fprintf(stderr, "afwctl: %s: %s (%s)\n", what, nl->ext_msg, strerror(-err));
	} else {
		fprintf(stderr, "afwctl: %s: %s\n", what, strerror(-err));
	}
	return 1;
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

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct afwctl_opts opts = { 0 };
	const struct afwctl_cmd *cmd = NULL;
	struct afw_nl *nl;
	size_t i;
	int c, ret;

	while ((c = getopt_long(argc, argv, "+jhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opts.json = true;
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
	for (i = 0; i < sizeof(afwctl_cmds) / sizeof(afwctl_cmds[0]); i++)
		if (!strcmp(argv[optind], afwctl_cmds[i].name))
			cmd = &afwctl_cmds[i];
	if (!cmd) {
		fprintf(stderr, "afwctl: unknown command '%s'; see 'afwctl --help'\n",
			argv[optind]);
		return 2;
	}

	nl = malloc(sizeof(*nl));
	if (!nl) {
		perror("afwctl");
		return 1;
	}
	ret = afwctl_open(nl);
	if (!ret)
		ret = cmd->run(nl, &opts, argc - optind - 1, argv + optind + 1);
	afw_nl_close(nl);
	free(nl);
	return ret;
}
