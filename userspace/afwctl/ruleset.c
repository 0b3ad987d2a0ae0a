// SPDX-License-Identifier: GPL-2.0
/*
 * afwctl load FILE, afwctl save: whole rulesets as text.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afwctl.h"
#include "rule.h"

#ifndef AFW_VERSION
#error "AFW_VERSION must be set by the build"
#endif

/*
 * Reads every rule of @f; on a bad line reports FILE:LINE and the reason and
 * returns -1, having loaded nothing.
 */
static int afwctl_read_rules(FILE *f, const char *name, struct afw_rule_spec **out, size_t *count)
{
	struct afw_rule_spec *v = NULL, *grown;
	size_t n = 0, cap = 0, lineno = 0, linecap = 0;
	char *line = NULL, err[256];
	ssize_t len;
	bool empty;

	while ((len = getline(&line, &linecap, f)) != -1) {
		lineno++;
		if (memchr(line, '\0', (size_t)len)) {
			fprintf(stderr, "afwctl: %s:%zu: NUL byte in a rule file\n", name, lineno);
			goto err;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			grown = realloc(v, cap * sizeof(*v));
			if (!grown) {
				fprintf(stderr, "afwctl: %s: out of memory at line %zu\n", name, lineno);
				goto err;
			}
			v = grown;
		}
		if (afw_rule_parse_line(line, &v[n], &empty, err, sizeof(err))) {
			fprintf(stderr, "afwctl: %s:%zu: %s\n", name, lineno, err);
			goto err;
		}
		n += !empty;
	}
	if (ferror(f)) {
		fprintf(stderr, "afwctl: %s: read error: %s\n", name, strerror(errno));
		goto err;
	}
	free(line);
	*out = v;
	*count = n;
	return 0;

err:
	free(line);
	free(v);
	return -1;
}

int afwctl_load(struct afw_nl *nl, const struct afwctl_opts *o, int argc, char **argv)
{
	struct afw_rule_spec *rules;
	size_t n;
	FILE *f;
	int ret;

	(void)o;
	if (argc != 1) {
		fprintf(stderr, "afwctl: load: usage: afwctl load FILE (- for standard input)\n");
		return 2;
	}
	f = strcmp(argv[0], "-") ? fopen(argv[0], "r") : stdin;
	if (!f) {
		fprintf(stderr, "afwctl: load: %s: %s\n", argv[0], strerror(errno));
		return 1;
	}
	ret = afwctl_read_rules(f, argv[0], &rules, &n);
	if (f != stdin)
		fclose(f);
	if (ret)
		return 1;
	ret = afw_ruleset_replace(nl, rules, n);
	free(rules);
	if (ret)
		return afwctl_fail("load", ret, nl);
	return 0;
}

int afwctl_save(struct afw_nl *nl, const struct afwctl_opts *o, int argc, char **argv)
{
	struct afwctl_rules rules = { 0 };
	char text[512];
	size_t i;
	int ret;

	(void)o;
	(void)argv;
	if (argc) {
		fprintf(stderr, "afwctl: save takes no arguments; redirect its output to a file\n");
		return 2;
	}
	ret = afwctl_rules_fetch(nl, &rules);
	if (ret) {
		free(rules.v);
		return afwctl_fail("save", ret, nl);
	}
	printf("# afw ruleset, saved by afwctl " AFW_VERSION "\n");
	for (i = 0; i < rules.n; i++) {
		afw_rule_format(&rules.v[i], true, text, sizeof(text));
		printf("%s\n", text);
	}
	free(rules.v);
	return 0;
}
