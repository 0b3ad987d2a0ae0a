// SPDX-License-Identifier: GPL-2.0
/*
 * afwd against the module's unknown-flow settings: every queue range the
 * module may send to that afwd does not read is named, with what happens
 * to its packets and the commands that make them agree.
 */

#include <stdbool.h>
#include <string.h>
#include <linux/afw.h>

#include "check.h"
#include "settings.h"

static struct afw_config mod(uint8_t unknown, uint16_t num, uint16_t count, bool fail_open)
{
	return (struct afw_config){ .unknown = unknown, .queue_num = num, .queue_count = count,
				    .fail_open = fail_open };
}

/* The comparison's lines, and whether each of @want (NULL-terminated) is in them. */
static bool says(struct afw_config m, unsigned int first, unsigned int count, bool fo,
		 unsigned int lines, const char *const *want)
{
	char out[1024];
	unsigned int n = afw_settings_compare(&m, first, count, fo, out, sizeof(out));
	bool ok = n == lines;

	for (; *want; want++)
		ok &= strstr(out, *want) != NULL;
	if (!ok)
		printf("# %u lines: %s\n", n, out);
	return ok;
}

#define W(...) ((const char *const[]){ __VA_ARGS__, NULL })

int main(void)
{
	char small[40];
	int failed = 0;
	struct afw_config m;

	CHECK(failed, "the same range, the same fail mode: nothing to say",
	      says(mod(AFW_UNKNOWN_QUEUE, 0, 4, false), 0, 4, false, 0, W("")));
	CHECK(failed, "afwd serving more queues than the module uses is fine",
	      says(mod(AFW_UNKNOWN_QUEUE, 2, 2, false), 0, 8, false, 0, W("")));
	CHECK(failed, "module 0-3, afwd 0: queues 1-3 named, dropped when closed",
	      says(mod(AFW_UNKNOWN_QUEUE, 0, 4, false), 0, 1, false, 1,
		   W("to queues 0-3, but afwd serves 0:", "sent to 1-3 are dropped (fail closed)",
		     "--queue 0-3", "afwctl config set queue 0'")));
	CHECK(failed, "module 0-3, afwd 2-5: queues 0-1, let through when open",
	      says(mod(AFW_UNKNOWN_QUEUE, 0, 4, true), 2, 4, true, 1,
		   W("sent to 0-1 are let through unjudged (fail open)")));
	CHECK(failed, "module 0-7, afwd 2-3: both ends named",
	      says(mod(AFW_UNKNOWN_QUEUE, 0, 8, false), 2, 2, false, 1,
		   W("sent to 0-1 and 4-7 are dropped")));
	CHECK(failed, "module 4, afwd 0-3: a single queue, wholly outside",
	      says(mod(AFW_UNKNOWN_QUEUE, 4, 1, false), 0, 4, false, 1,
		   W("to queues 4, but afwd serves 0-3", "sent to 4 are dropped")));
	CHECK(failed, "module 65535, afwd 0: no overflow at the top",
	      says(mod(AFW_UNKNOWN_QUEUE, 65535, 1, false), 0, 1, false, 1,
		   W("sent to 65535 are dropped")));
	CHECK(failed, "unknown flows accepted: the range still matters, for queue rules",
	      says(mod(AFW_UNKNOWN_ACCEPT, 0, 4, false), 0, 1, false, 1,
		   W("once 'unknown queue', rules whose action is queue", "sent to 1-3")));
	CHECK(failed, "unknown flows accepted, the ranges agree: nothing to say",
	      says(mod(AFW_UNKNOWN_ACCEPT, 0, 2, false), 0, 2, false, 0, W("")));
	CHECK(failed, "module fails open, afwd closed: one line, both commands",
	      says(mod(AFW_UNKNOWN_QUEUE, 0, 1, true), 0, 1, false, 1,
		   W("module fails open", "without --fail-open", "config set fail closed")));
	CHECK(failed, "module fails closed, afwd open",
	      says(mod(AFW_UNKNOWN_QUEUE, 0, 1, false), 0, 1, true, 1,
		   W("module fails closed", "with --fail-open", "config set fail open")));
	CHECK(failed, "a range and a fail mismatch: two lines",
	      says(mod(AFW_UNKNOWN_QUEUE, 0, 4, true), 0, 1, false, 2, W("1-3", "fails open")));
	m = mod(AFW_UNKNOWN_QUEUE, 0, 4, true);
	CHECK(failed, "a small buffer is cut short, NUL-terminated, lines still counted",
	      afw_settings_compare(&m, 0, 1, false, small, sizeof(small)) == 2 &&
	      strlen(small) == sizeof(small) - 1);
	return failed;
}
