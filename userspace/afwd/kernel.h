/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Installing decided flows in the afw module, a batch at a time: the
 * FLOW_NEW requests of one packet batch leave in one send, and the kernel
 * answers only the ones that fail.
 */
#ifndef AFW_KERNEL_H
#define AFW_KERNEL_H

#include <stdint.h>

#include "afwnl.h"
#include "flow.h"

/* Requests held before a send; a batch of packets decides at most this many flows. */
#define AFW_KERN_BATCH 64

struct afw_kern_stats {
	uint64_t installed;		/* FLOW_NEW sent */
	uint64_t failed;		/* refused by the kernel */
	uint64_t syscalls;
};

struct afw_kern {
	struct afw_nl nl;
	unsigned int pending;
	size_t len;
	struct afw_kern_stats stats;
	char last_error[256];		/* the kernel's reason for the last refusal */
	char batch[AFW_KERN_BATCH * 128] __attribute__((aligned(8)));
};

/* 0, -ENOENT when the module is not loaded, or another negative errno. */
int afw_kern_open(struct afw_kern *k);
void afw_kern_close(struct afw_kern *k);
int afw_kern_fd(const struct afw_kern *k);

/* Queues FLOW_NEW for @f; sends first when the batch is full. */
void afw_kern_add(struct afw_kern *k, const struct afw_flow_spec *f);

/* Sends the queued requests in one call. Returns 0 or a negative errno. */
int afw_kern_flush(struct afw_kern *k);

/*
 * Reads the kernel's reports of refused requests without blocking, when
 * the socket is readable. Returns how many were refused.
 */
int afw_kern_read_errors(struct afw_kern *k);

#endif /* AFW_KERNEL_H */
