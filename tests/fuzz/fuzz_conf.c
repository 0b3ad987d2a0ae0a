// SPDX-License-Identifier: GPL-2.0
/*
 * The configuration file parser (afwctl load and check) on arbitrary bytes.
 * A file either loads or is refused with a message naming its line; every
 * rule that loads decodes from the attributes it is kept in, prints (as
 * list and save print it) to text that parses back to the same rule, and
 * that rule encodes to the same attributes.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct afw_rule_list one = { 0 };
	struct afw_rule_spec r, again;
	const struct nlattr *a, *b;
	struct afw_conf conf;
	struct afw_perr e;
	char msg[512], text[512];
	bool empty;
	size_t n = 0;
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
	for (a = afw_rule_list_next(&conf.rules, NULL); a; a = afw_rule_list_next(&conf.rules, a)) {
		if (afw_rule_parse_nest(a, &r) != MNL_CB_OK)
			abort();
		afw_rule_format(&r, true, text, sizeof(text));
		if (afw_rule_parse_line(text, &again, &empty, &e) || empty)
			abort();
		if (memcmp(&again, &r, sizeof(again)))
			abort();
		if (afw_rule_list_add(&one, &again))
			abort();
		b = afw_rule_list_next(&one, NULL);
		if (b->nla_len != a->nla_len || memcmp(a, b, a->nla_len))
			abort();
		afw_rule_list_free(&one);
		n++;
	}
	if (n != conf.rules.n)
		abort();
	afw_conf_free(&conf);
	return 0;
}
