// SPDX-License-Identifier: GPL-2.0
/*
 * The configuration file parser (afwctl load and check) on arbitrary bytes.
 * A file either loads or is refused with a message naming its line; every
 * rule that loads prints (as list and save print it) to text that parses
 * back to the same rule.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct afw_rule_spec again;
	struct afw_conf conf;
	struct afw_perr e;
	char msg[512], text[512];
	bool empty;
	size_t i;
	FILE *f;

	/* Service, user and group names would make the run depend on the host. */
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	msg[0] = '\0';
	if (afw_conf_read(f, "fuzz", &conf, msg, sizeof(msg))) {
		if (strncmp(msg, "fuzz:", 5))
			abort();
		fclose(f);
		return 0;
	}
	fclose(f);
	for (i = 0; i < conf.nrules; i++) {
		afw_rule_format(&conf.rules[i], true, text, sizeof(text));
		if (afw_rule_parse_line(text, &again, &empty, &e) || empty)
			abort();
		if (memcmp(&again, &conf.rules[i], sizeof(again)))
			abort();
	}
	afw_conf_free(&conf);
	return 0;
}
