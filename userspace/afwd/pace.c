// SPDX-License-Identifier: GPL-2.0
/*
 * The load estimate: each round ages it linearly by the time since the
 * previous round, one window taking it to zero, and adds the packets read
 * of inspected flows (a stream of them is what waiting helps; a crowd of
 * handshakes is what it would slow).
 * At a steady rate r it settles at r * window whether the worker reads each
 * packet on its own or waits and reads many, so it means the same thing in
 * both modes.
 *
 * Waiting can also cost: a TCP flow that has its whole window queued sends
 * nothing more until afwd answers, so a wait only adds to its round trip,
 * and a slower flow makes the next wait longer. A wait that brings less than
 * a quarter of what the rate before waiting promised (and less than a
 * batch) is taken as that case, and waiting backs off. That rate, of all
 * packets, is kept apart from the load, over the last rounds read without
 * waiting, as packets and time in 1/8 steps.
 */

#include <time.h>

#include "pace.h"

#define AFW_PACE_ONE 256u
/* Back-off after a wait that did not pay: 16 windows, doubling up to 512. */
#define AFW_PACE_BACKOFF_MIN 16u
#define AFW_PACE_BACKOFF_MAX 512u

uint64_t afw_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void afw_pace_init(struct afw_pace *p, uint64_t window_ns, unsigned int batch)
{
	*p = (struct afw_pace){ .window_ns = window_ns, .batch = batch ? batch : 1,
				.backoff = AFW_PACE_BACKOFF_MIN };
}

void afw_pace_round(struct afw_pace *p, uint64_t now_ns, unsigned int n, unsigned int bulk,
		    bool waited)
{
	uint64_t dt = now_ns > p->last_ns ? now_ns - p->last_ns : 0, expected;

	p->last_ns = now_ns;
	if (!p->window_ns)
		return;
	if (waited) {
		/* What the rate seen before waiting promised for this wait. */
		expected = p->idle_ns ? p->idle_pkts * dt / p->idle_ns : 0;
		if (!n || (n < p->batch && (uint64_t)n * AFW_PACE_ONE * 4 < expected)) {
			p->load = 0;
			p->busy = false;
			/* Nothing at all: the traffic stopped, no reason to back off. */
			if (n) {
				p->hold_until_ns = now_ns + p->backoff * p->window_ns;
				if (p->backoff < AFW_PACE_BACKOFF_MAX)
					p->backoff *= 2;
			}
			return;
		}
		p->backoff = AFW_PACE_BACKOFF_MIN;
	} else if (n) {
		/* The rate when each packet is read as it comes, over rounds. */
		p->idle_pkts = p->idle_pkts - p->idle_pkts / 8 + (uint64_t)n * AFW_PACE_ONE;
		p->idle_ns = p->idle_ns - p->idle_ns / 8 + (dt < p->window_ns ? dt : p->window_ns);
	}
	if (dt >= p->window_ns)
		p->load = 0;
	else
		p->load -= p->load * dt / p->window_ns;
	p->load += (uint64_t)bulk * AFW_PACE_ONE;
	if (now_ns < p->hold_until_ns) {
		p->busy = false;
		return;
	}
	/*
	 * Waiting pays once a window brings an eighth of a batch; it stops
	 * when a window brings less than a thirty-second, so that the mode
	 * does not flap around one rate.
	 */
	if (p->load >= (uint64_t)p->batch * AFW_PACE_ONE / 8)
		p->busy = true;
	else if (p->load < (uint64_t)p->batch * AFW_PACE_ONE / 32)
		p->busy = false;
}

uint64_t afw_pace_wait_ns(const struct afw_pace *p)
{
	uint64_t fill;

	if (!p->busy || !p->window_ns)
		return 0;
	/* The time a batch takes to arrive at the rate seen, up to the window. */
	fill = p->window_ns * p->batch * AFW_PACE_ONE / p->load;
	if (fill >= p->window_ns)
		return p->window_ns;
	return fill > 1000 ? fill : 1000;
}
