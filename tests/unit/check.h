/* SPDX-License-Identifier: GPL-2.0 */
/* One TAP line per check; main returns non-zero when any check failed. */
#ifndef AFW_TEST_CHECK_H
#define AFW_TEST_CHECK_H

#include <stdio.h>

#define CHECK(failed, name, cond)						\
	do {									\
		if (cond) {							\
			printf("ok - %s\n", (name));				\
		} else {							\
			printf("not ok - %s (%s:%d: %s)\n", (name),		\
			       __FILE__, __LINE__, #cond);			\
			(failed) = 1;						\
		}								\
	} while (0)

#endif /* AFW_TEST_CHECK_H */
