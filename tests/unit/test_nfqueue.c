// SPDX-License-Identifier: GPL-2.0
/*
 * The NFQUEUE listener table as the kernel writes it: bound queues read,
 * a queue not listed has no listener, a damaged line is refused.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "nfqueue.h"

static int read_text(const char *text, struct afw_nfqueue_stat *out, unsigned int max)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int n;

	if (!f)
		return -ENOMEM;
	n = afw_nfqueue_read(f, out, max);
	fclose(f);
	return n;
}

int main(void)
{
	/* As nfnetlink_queue prints it: two queues bound, one with drops. */
	static const char two[] =
		"    3 4134760920     0 2 65531     0     0        0  1\n"
		"    4 4184460414    17 2 65531    12     5      901  1\n";
	struct afw_nfqueue_stat s[4];
	const struct afw_nfqueue_stat *b;
	int failed = 0, n;

	n = read_text(two, s, 4);
	CHECK(failed, "two bound queues are read", n == 2);
	b = afw_nfqueue_find(s, 2, 4);
	CHECK(failed, "queue 4: its listener, waiting packets and both drop counts",
	      b && b->portid == 4184460414u && b->waiting == 17 && b->dropped == 12 &&
	      b->user_dropped == 5);
	CHECK(failed, "queue 3 is found", afw_nfqueue_find(s, 2, 3) != NULL);
	CHECK(failed, "queue 0, not listed, has no listener", afw_nfqueue_find(s, 2, 0) == NULL);
	CHECK(failed, "an empty table: no queue bound", read_text("", s, 4) == 0);
	CHECK(failed, "more queues than room: the first ones, counted", read_text(two, s, 1) == 1 &&
	      s[0].queue == 3);
	CHECK(failed, "a line with a field missing is refused",
	      read_text("    3 4134760920     0 2 65531     0     0  1\n", s, 4) == -EINVAL);
	CHECK(failed, "a queue number past 65535 is refused",
	      read_text("65536 1 0 2 65531 0 0 0 1\n", s, 4) == -EINVAL);
	CHECK(failed, "words are refused", read_text("queue portid total\n", s, 4) == -EINVAL);
	return failed;
}
