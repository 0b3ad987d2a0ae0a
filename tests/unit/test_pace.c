// SPDX-License-Identifier: GPL-2.0
/*
 * When a worker reads its queue, played against arrival patterns: quiet
 * traffic and handshakes are read the moment they arrive; a stream is read
 * in batches, no packet waits longer than the window, and reading is
 * immediate again soon after the stream stops.
 */

#include <stdlib.h>

#include "check.h"
#include "pace.h"

#define US 1000ull
#define MS 1000000ull
#define BATCH 64

struct run {
	unsigned int reads;		/* rounds that found packets */
	unsigned int waits;		/* rounds that waited on purpose */
	uint64_t max_delay;		/* the longest a packet waited */
	uint64_t max_delay_late;	/* the same, for packets after 10 ms */
	uint64_t last_delay;		/* how long the last packet waited */
	uint64_t first_wait_at;		/* arrival index of the first wait, or ~0 */
};

/*
 * Plays a worker against @n arrivals at @t[i] (sorted), of inspected flows
 * if @bulk, else of flows under analysis: when the pace says
 * 0 it reads as each packet arrives; otherwise it sleeps that long and reads
 * what came, up to a batch, and reads again at once after a full batch.
 * Ends with silent rounds, as the worker's timeout would make.
 */
static struct run play(const uint64_t *t, unsigned int n, uint64_t window, bool bulk,
		       uint64_t *wait_after)
{
	struct afw_pace p;
	struct run r = { .first_wait_at = ~0ull };
	uint64_t now = 0, wait;
	unsigned int i = 0, k;
	bool full = false, waited;

	afw_pace_init(&p, window, BATCH);
	while (i < n) {
		wait = afw_pace_wait_ns(&p);
		waited = false;
		if (full) {
			/* more is waiting: read again now */
		} else if (!wait) {
			if (t[i] > now)
				now = t[i];
		} else {
			if (r.first_wait_at == ~0ull)
				r.first_wait_at = i;
			r.waits++;
			now += wait;
			waited = true;
		}
		for (k = 0; k < BATCH && i < n && t[i] <= now; k++, i++)
		{
			if (now - t[i] > r.max_delay)
				r.max_delay = now - t[i];
			if (t[i] >= 10 * MS && now - t[i] > r.max_delay_late)
				r.max_delay_late = now - t[i];
			r.last_delay = now - t[i];
		}
		full = k == BATCH;
		if (k)
			r.reads++;
		afw_pace_round(&p, now, k, bulk ? k : 0, waited);
	}
	/* The stream is over: a worker woken by its timers sees nothing. */
	for (k = 0; k < 4; k++) {
		wait = afw_pace_wait_ns(&p);
		now += wait ? wait : window;
		afw_pace_round(&p, now, 0, 0, wait != 0);
	}
	if (wait_after)
		*wait_after = afw_pace_wait_ns(&p);
	return r;
}

/*
 * A flow that keeps @k packets in flight: each packet afwd reads comes
 * back as a new arrival @rtt later (its answer, then the next segment).
 * Returns the packets read in @duration; *waits counts the waits.
 */
static unsigned int play_window(unsigned int k, uint64_t rtt, uint64_t window,
				uint64_t duration, unsigned int *waits)
{
	static uint64_t fifo[1024];
	unsigned int head = 0, tail = 0, reads = 0, got;
	struct afw_pace p;
	uint64_t now = 0, wait;
	bool waited;

	afw_pace_init(&p, window, BATCH);
	*waits = 0;
	for (tail = 0; tail < k; tail++)
		fifo[tail] = 0;
	while (now < duration) {
		wait = afw_pace_wait_ns(&p);
		waited = wait != 0;
		if (waited) {
			now += wait;
			(*waits)++;
		} else if (fifo[head % 1024] > now) {
			now = fifo[head % 1024];
		}
		for (got = 0; got < BATCH && head != tail && fifo[head % 1024] <= now; got++) {
			head++;
			fifo[tail++ % 1024] = now + rtt;
		}
		reads += got;
		afw_pace_round(&p, now, got, got, waited);
	}
	return reads;
}

/* @n arrivals @gap apart, from @start. */
static void stream(uint64_t *t, unsigned int n, uint64_t start, uint64_t gap)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		t[i] = start + i * gap;
}

int main(void)
{
	static uint64_t t[200000];
	uint64_t after;
	struct run r;
	int failed = 0;
	unsigned int i, c;

	/* A handshake: SYN, SYN-ACK, ACK, ClientHello 100 us apart, 50 times. */
	for (c = 0; c < 50; c++)
		for (i = 0; i < 4; i++)
			t[c * 4 + i] = c * 20 * MS + i * 100 * US;
	r = play(t, 200, 2 * MS, true, NULL);
	CHECK(failed, "handshakes 20 ms apart are read as they arrive", r.waits == 0);
	CHECK(failed, "so none of their packets waits", r.max_delay == 0);

	/* A stream at 10 packets per ms (the inspected transfer in the VM). */
	stream(t, 20000, 0, 100 * US);
	r = play(t, 20000, 4 * MS, true, &after);
	CHECK(failed, "a stream of 10 packets/ms makes the worker wait", r.waits > 0);
	CHECK(failed, "within its first 16 packets", r.first_wait_at <= 16);
	CHECK(failed, "no packet of it waits longer than the window", r.max_delay <= 4 * MS);
	printf("# 10/ms, 4 ms window: %u reads for 20000 packets, longest wait %llu us\n",
	       r.reads, (unsigned long long)(r.max_delay / US));
	CHECK(failed, "and it is read in batches of 30 or more",
	      r.reads * 30 <= 20000);
	CHECK(failed, "after it stops, packets are read as they arrive", after == 0);

	/* A fast stream fills batches before the window ends. */
	stream(t, 200000, 0, 2 * US);
	r = play(t, 200000, 4 * MS, true, &after);
	printf("# 500/ms, 4 ms window: %u reads for 200000 packets, longest wait %llu us"
	       " (%llu us after 10 ms)\n", r.reads, (unsigned long long)(r.max_delay / US),
	       (unsigned long long)(r.max_delay_late / US));
	CHECK(failed, "at 500 packets/ms nearly every read is a full batch",
	      r.reads <= 200000 / BATCH + 200000 / BATCH / 10);
	CHECK(failed, "once the rate is known, packets wait far less than the window",
	      r.max_delay_late <= 1 * MS);
	CHECK(failed, "and after it, reading is immediate again", after == 0);

	/* Handshakes of many new flows: 500 packets/ms, none of them inspected. */
	stream(t, 200000, 0, 2 * US);
	r = play(t, 200000, 4 * MS, false, NULL);
	CHECK(failed, "a crowd of flows under analysis, 500 packets/ms, is read as it arrives",
	      r.waits == 0);

	/* A slow stream is not worth waiting for. */
	stream(t, 2000, 0, 1 * MS);
	r = play(t, 2000, 4 * MS, true, NULL);
	CHECK(failed, "a packet a millisecond is read as it arrives", r.waits == 0);

	/* A window of 0 turns waiting off. */
	stream(t, 20000, 0, 10 * US);
	r = play(t, 20000, 0, true, NULL);
	CHECK(failed, "with no window, even a fast stream is read as it arrives",
	      r.waits == 0 && r.max_delay == 0);

	/*
	 * A flow with 6 packets in flight and a 100 us round trip: 60
	 * packets/ms, plenty to start waiting, but a wait gathers at most its
	 * 6 packets and only stretches its round trip. Waiting must back off
	 * and keep the flow near its speed without waits.
	 */
	{
		unsigned int fast, held, w0, w;

		fast = play_window(6, 100 * US, 0, 1000 * MS, &w0);
		held = play_window(6, 100 * US, 4 * MS, 1000 * MS, &w);
		printf("# window-limited flow: %u packets/s without waiting, %u with a"
		       " 4 ms window (%u waits)\n", fast, held, w);
		CHECK(failed, "a window-limited flow keeps 90% of its speed",
		      (uint64_t)held * 10 >= (uint64_t)fast * 9);
		CHECK(failed, "because waiting backs off (few waits)", w < 100);
	}

	/* A burst after a stream: the first packet after silence is not held. */
	stream(t, 5000, 0, 100 * US);
	t[5000] = 5000 * 100 * US + 50 * MS;
	r = play(t, 5001, 4 * MS, true, NULL);
	CHECK(failed, "the stream before it waited", r.waits > 0);
	CHECK(failed, "a lone packet after 50 ms of silence is read as it arrives",
	      r.last_delay == 0);
	return failed;
}
