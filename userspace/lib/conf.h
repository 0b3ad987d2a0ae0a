/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The afw configuration file (/etc/afw/afw.conf): settings as
 * "set KEY VALUE [KEY VALUE]..." lines and the ruleset, one rule per line.
 * "afwctl save" writes it, "afwctl check" and "afwctl load" read it.
 */
#ifndef AFW_CONF_H
#define AFW_CONF_H

#include <stdio.h>

#include "flow.h"
#include "rule.h"

struct afw_conf {
	struct afw_config cfg;
	unsigned int has;		/* AFW_CFG_HAS_* of the settings given */
	struct afw_rule_list rules;	/* in the file's order */
	uint32_t max_id;		/* the highest id a rule gives, 0: none */
};

/*
 * Reads all of @f into @c, checking every line. On the first error writes
 * "NAME:LINE:COL: 'WORD': reason" (or NAME:LINE: or NAME: where there is no
 * word) to @msg and returns -1; @c then holds nothing.
 */
int afw_conf_read(FILE *f, const char *name, struct afw_conf *c, char *msg, size_t len);
void afw_conf_free(struct afw_conf *c);

#endif /* AFW_CONF_H */
