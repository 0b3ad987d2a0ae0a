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

/* Reports a failed netlink call for @what in one line; returns the exit code. */
int afwctl_fail(const char *what, int err, const struct afw_nl *nl);

int afwctl_status(struct afw_nl *nl, const struct afwctl_opts *o, int argc, char **argv);
int afwctl_rule(struct afw_nl *nl, const struct afwctl_opts *o, int argc, char **argv);
int afwctl_reset_counters(struct afw_nl *nl, const struct afwctl_opts *o, int argc, char **argv);

void afwctl_json_str(FILE *f, const char *s);

#endif /* AFWCTL_H */
