/* SPDX-License-Identifier: GPL-2.0 */
/*
 * When a worker reads its queue. Reading costs a wait, a receive and a send
 * however many packets it brings. When the queue is quiet, a packet is read
 * the moment it arrives, so a new flow's handshake never waits. Under load
 * the worker waits on purpose and lets packets gather, as NAPI does with
 * interrupts, but never longer than the window, and not at all for a while
 * after a wait that gathered little.
 */
#ifndef AFW_PACE_H
#define AFW_PACE_H

#include <stdbool.h>
#include <stdint.h>

struct afw_pace {
	uint64_t window_ns;	/* the longest a packet is left waiting, at most
				 * 100 ms (the sums stay in 64 bits); 0: never */
	unsigned int batch;	/* the most packets one read takes */
	uint64_t last_ns;	/* the previous round */
	uint64_t load;		/* bulk packets per window, estimated, in 1/256 */
	uint64_t idle_pkts;	/* packets (in 1/256) and time of the rounds */
	uint64_t idle_ns;	/* read without waiting, averaged */
	uint64_t hold_until_ns;	/* no waiting before this */
	uint64_t backoff;	/* windows of the next hold */
	bool busy;
};

/* CLOCK_MONOTONIC in ns: the clock of afwd's rounds, deadlines and timers. */
uint64_t afw_now_ns(void);

void afw_pace_init(struct afw_pace *p, uint64_t window_ns, unsigned int batch);

/*
 * Records a round at @now_ns that read @n packets, @bulk of them of flows
 * that stream through afwd (inspected), @waited telling whether it waited
 * on purpose before reading. Only @bulk counts towards starting to wait:
 * packets of flows under analysis, a handshake's, are never made to wait
 * for their own sake.
 */
void afw_pace_round(struct afw_pace *p, uint64_t now_ns, unsigned int n, unsigned int bulk,
		    bool waited);

/*
 * How long to wait before the next read: 0 means read as soon as a packet
 * arrives; otherwise at most the window.
 */
uint64_t afw_pace_wait_ns(const struct afw_pace *p);

#endif /* AFW_PACE_H */
