/* SPDX-License-Identifier: GPL-2.0 */
#ifndef AFWCTL_H
#define AFWCTL_H

#include <stdbool.h>
#include <stdio.h>

#include "afwnl.h"

/* Command-line options common to every subcommand. */
struct afwctl_opts {
	bool json;
};

struct afw_rule_spec;

/* Rules as fetched from the kernel; free v when done. */
struct afwctl_rules {
	struct afw_rule_spec *v;
	size_t n, cap;
};

/* Fetches the whole ruleset consistently; returns 0 or -errno. */
int afwctl_rules_fetch(struct afw_nl *nl, struct afwctl_rules *rules);

/* Reports a failed netlink call for @what in one line; returns the exit code. */
int afwctl_fail(const char *what, int err, const struct afw_nl *nl);

int afwctl_status(struct afw_nl *nl, const struct afwctl_opts *o, int argc, char **argv);
int afwctl_stats(struct afw_nl *nl, const struct afwctl_opts *o, int argc, char **argv);
int afwctl_load(struct afw_nl *nl, const struct afwctl_opts *o, int argc, char **argv);
int afwctl_save(struct afw_nl *nl, const struct afwctl_opts *o, int argc, char **argv);
int afwctl_flow(struct afw_nl *nl, const struct afwctl_opts *o, int argc, char **argv);
int afwctl_config(struct afw_nl *nl, const struct afwctl_opts *o, int argc, char **argv);
int afwctl_rule(struct afw_nl *nl, const struct afwctl_opts *o, int argc, char **argv);
int afwctl_reset_counters(struct afw_nl *nl, const struct afwctl_opts *o, int argc, char **argv);

void afwctl_json_str(FILE *f, const char *s);

#endif /* AFWCTL_H */
