// SPDX-License-Identifier: GPL-2.0
/*
 * afwctl rule add|del|list|flush.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afwctl.h"
#include "rule.h"

static int afwctl_rules_push(const struct afw_rule_spec *r, void *data)
{
	struct afwctl_rules *rules = data;
	struct afw_rule_spec *v;

	if (rules->n == rules->cap) {
		rules->cap = rules->cap ? rules->cap * 2 : 64;
		v = realloc(rules->v, rules->cap * sizeof(*v));
		if (!v)
			return -1;
		rules->v = v;
	}
	rules->v[rules->n++] = *r;
	return 0;
}

/* A dump that raced with a change is retried: the user wants one ruleset. */
int afwctl_rules_fetch(struct afw_nl *nl, struct afwctl_rules *rules)
{
	int ret, tries;

	for (tries = 0; tries < 10; tries++) {
		rules->n = 0;
		ret = afw_rule_dump(nl, afwctl_rules_push, rules);
		if (ret != -EINTR)
			return ret;
	}
	return ret;
}

static int afwctl_rule_add(struct afw_nl *nl, int argc, char **argv)
{
	struct afw_rule_spec r;
	char err[256];
	int ret;

	if (afw_rule_parse_words(argc, argv, &r, err, sizeof(err))) {
		fprintf(stderr, "afwctl: rule add: %s\n", err);
		return 2;
	}
	ret = afw_rule_add(nl, &r);
	if (ret)
		return afwctl_fail("rule add", ret, nl);
	return 0;
}

static int afwctl_rule_del(struct afw_nl *nl, int argc, char **argv)
{
	unsigned long id;
	char *end;
	int ret;

	if (argc != 1) {
		fprintf(stderr, "afwctl: rule del: usage: afwctl rule del ID\n");
		return 2;
	}
	errno = 0;
	id = strtoul(argv[0], &end, 10);
	if (errno || *end || !id || id > UINT32_MAX || argv[0][0] == '-') {
		fprintf(stderr, "afwctl: rule del: '%s' is not a rule id\n", argv[0]);
		return 2;
	}
	ret = afw_rule_del(nl, (uint32_t)id);
	if (ret)
		return afwctl_fail("rule del", ret, nl);
	return 0;
}

static void afwctl_rule_json(const struct afw_rule_spec *r, bool first)
{
	char text[512];

	afw_rule_format(r, false, text, sizeof(text));
	printf("%s{\"id\":%" PRIu32 ",\"prio\":%" PRIu32 ",\"action\":\"%s\",\"rule\":",
	       first ? "" : ",", r->id, r->prio, afw_action_name(r->action));
	afwctl_json_str(stdout, text);
	printf(",\"packets\":%" PRIu64 ",\"bytes\":%" PRIu64 "}", r->packets, r->bytes);
}

static int afwctl_rule_list(struct afw_nl *nl, const struct afwctl_opts *o, int argc)
{
	struct afwctl_rules rules = { 0 };
	char text[512];
	size_t i;
	int ret;

	if (argc) {
		fprintf(stderr, "afwctl: rule list takes no arguments\n");
		return 2;
	}
	ret = afwctl_rules_fetch(nl, &rules);
	if (ret) {
		free(rules.v);
		return afwctl_fail("rule list", ret, nl);
	}
	if (o->json) {
		printf("[");
		for (i = 0; i < rules.n; i++)
			afwctl_rule_json(&rules.v[i], i == 0);
		printf("]\n");
	} else {
		printf("%10s %12s %14s  %s\n", "id", "packets", "bytes", "rule");
		for (i = 0; i < rules.n; i++) {
			afw_rule_format(&rules.v[i], false, text, sizeof(text));
			printf("%10" PRIu32 " %12" PRIu64 " %14" PRIu64 "  %s\n", rules.v[i].id,
			       rules.v[i].packets, rules.v[i].bytes, text);
		}
	}
	free(rules.v);
	return 0;
}

int afwctl_rule(struct afw_nl *nl, const struct afwctl_opts *o, int argc, char **argv)
{
	int ret;

	if (argc < 1) {
		fprintf(stderr, "afwctl: rule: usage: afwctl rule add|del|list|flush ...\n");
		return 2;
	}
	if (!strcmp(argv[0], "add"))
		return afwctl_rule_add(nl, argc - 1, argv + 1);
	if (!strcmp(argv[0], "del"))
		return afwctl_rule_del(nl, argc - 1, argv + 1);
	if (!strcmp(argv[0], "list"))
		return afwctl_rule_list(nl, o, argc - 1);
	if (!strcmp(argv[0], "flush")) {
		if (argc != 1) {
			fprintf(stderr, "afwctl: rule flush takes no arguments\n");
			return 2;
		}
		ret = afw_rule_flush(nl);
		return ret ? afwctl_fail("rule flush", ret, nl) : 0;
	}
	fprintf(stderr, "afwctl: rule: unknown subcommand '%s'; use add, del, list or flush\n",
		argv[0]);
	return 2;
}
