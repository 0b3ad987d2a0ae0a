/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who listens on which NFQUEUE: /proc/net/netfilter/nfnetlink_queue, as the
 * kernel writes it for the reader's network namespace.
 */
#ifndef AFW_NFQUEUE_H
#define AFW_NFQUEUE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define AFW_NFQUEUE_PROC "/proc/net/netfilter/nfnetlink_queue"

/* One bound queue: its listener, what waits, and what the kernel dropped. */
struct afw_nfqueue_stat {
	uint16_t queue;
	uint32_t portid;
	uint32_t waiting;		/* queue_total: packets waiting for a verdict */
	uint32_t dropped;		/* queue_dropped: the queue was full */
	uint32_t user_dropped;		/* user_dropped: the listener's socket was full */
};

/*
 * Reads up to @max bound queues from @f into @out; returns how many, or
 * -EINVAL at a line that is not the kernel's format.
 */
int afw_nfqueue_read(FILE *f, struct afw_nfqueue_stat *out, unsigned int max);

/* The entry of @queue among @n, or NULL when nothing listens there. */
const struct afw_nfqueue_stat *afw_nfqueue_find(const struct afw_nfqueue_stat *s, unsigned int n,
						uint16_t queue);

#endif
