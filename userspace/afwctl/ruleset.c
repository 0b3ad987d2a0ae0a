// SPDX-License-Identifier: GPL-2.0
/*
 * afwctl load FILE, afwctl check FILE, afwctl save: the configuration file,
 * settings and ruleset, as text.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afwctl.h"

#ifndef AFW_VERSION
#error "AFW_VERSION must be set by the build"
#endif

int afwctl_read_conf(struct afwctl_req *rq, const char *cmd, int argc, char **argv)
{
	char msg[512];
	FILE *f;
	int ret;

	if (argc != 1)
		return afwctl_usage_err("%s: usage: afwctl %s%s FILE (- for standard input)", cmd, cmd,
					strcmp(cmd, "load") ? "" : " [--yes]");
	rq->file = argv[0];
	f = strcmp(argv[0], "-") ? fopen(argv[0], "r") : stdin;
	if (!f) {
		fprintf(stderr, "afwctl: %s: %s: %s\n", cmd, argv[0], strerror(errno));
		return 1;
	}
	ret = afw_conf_read(f, f == stdin ? "<stdin>" : argv[0], &rq->conf, msg, sizeof(msg));
	if (f != stdin)
		fclose(f);
	if (ret) {
		fprintf(stderr, "afwctl: %s\n", msg);
		return 1;
	}
	return 0;
}

int afwctl_check_parse(struct afwctl_req *rq, int argc, char **argv)
{
	return afwctl_read_conf(rq, "check", argc, argv);
}

int afwctl_check_run(struct afw_nl *nl, struct afwctl_req *rq)
{
	unsigned int nset = 0, has;

	(void)nl;
	for (has = rq->conf.has; has; has &= has - 1)
		nset++;
	if (rq->json) {
		printf("{\"file\":");
		afwctl_json_str(stdout, rq->file);
		printf(",\"settings\":%u,\"rules\":%zu}\n", nset, rq->conf.rules.n);
	} else {
		printf("%s: %u setting%s, %zu rule%s, no error\n", rq->file, nset,
		       nset == 1 ? "" : "s", rq->conf.rules.n, rq->conf.rules.n == 1 ? "" : "s");
	}
	return 0;
}

int afwctl_load_parse(struct afwctl_req *rq, int argc, char **argv)
{
	if (argc && afwctl_is_yes(argv[0])) {
		rq->yes = true;
		argc--;
		argv++;
	}
	return afwctl_read_conf(rq, "load", argc, argv);
}

/*
 * Whether loading the file could cut an SSH session, judged as config set
 * judges it, but by the file's rules, which replace those in force. They
 * are decoded only when there is a session to judge.
 */
static int afwctl_load_guard(struct afw_nl *nl, struct afwctl_req *rq)
{
	struct afwctl_rules rules = { .list = &rq->conf.rules, .auto_id = rq->conf.max_id };

	return afwctl_settings_guard(nl, rq, &rq->conf.cfg, rq->conf.has, &rules, "load");
}

static void afwctl_load_settings(struct nlmsghdr *nlh, const void *data)
{
	const struct afw_conf *conf = data;

	afw_config_put(nlh, &conf->cfg, conf->has);
}

int afwctl_load_run(struct afw_nl *nl, struct afwctl_req *rq)
{
	int ret;

	ret = afwctl_load_guard(nl, rq);
	if (ret)
		return ret;
	/*
	 * The settings go with the commit: the kernel publishes them and the
	 * rules together, or, when it refuses either, neither.
	 */
	ret = afw_ruleset_replace(nl, &rq->conf.rules, rq->conf.has ? afwctl_load_settings : NULL,
				  &rq->conf);
	if (ret) {
		afwctl_fail("load", ret, nl);
		fprintf(stderr, "afwctl: load: nothing changed: the rules and settings in force "
			"are those from before\n");
		return 1;
	}
	return 0;
}

int afwctl_save_parse(struct afwctl_req *rq, int argc, char **argv)
{
	(void)rq;
	if (argc)
		return afwctl_usage_err("save: unexpected argument '%s'; save prints to standard "
					"output: redirect it to a file", argv[0]);
	return 0;
}

static void afwctl_save_line(const char *text, void *data)
{
	(void)data;
	printf("%s\n", text);
}

int afwctl_save_run(struct afw_nl *nl, struct afwctl_req *rq)
{
	struct afwctl_rules rules = { 0 };
	struct afw_config c;
	char text[512];
	size_t i;
	int ret;

	(void)rq;
	ret = afw_config_get(nl, &c);
	if (ret)
		return afwctl_fail("save", ret, nl);
	ret = afwctl_rules_fetch(nl, &rules);
	if (ret) {
		free(rules.v);
		return afwctl_fail("save", ret, nl);
	}
	printf("# afw settings and ruleset, saved by afwctl " AFW_VERSION "\n"
	       "# \"afwctl load FILE\" restores them; see afwctl(8).\n");
	/*
	 * "set enabled no" only when disabled: a file saved from a working
	 * firewall, loaded into a disabled one, leaves the switch to the admin.
	 * "set owners no" likewise only when turned off, its default being on.
	 */
	afw_config_format(&c, AFW_CFG_HAS_ALL & ~(c.enabled ? AFW_CFG_HAS_ENABLED : 0u) &
			  ~(c.owners ? AFW_CFG_HAS_OWNERS : 0u), "set ", afwctl_save_line, NULL);
	printf("\n");
	for (i = 0; i < rules.n; i++) {
		afw_rule_format(&rules.v[i], true, text, sizeof(text));
		printf("%s\n", text);
	}
	free(rules.v);
	return 0;
}
