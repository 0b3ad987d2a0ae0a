// SPDX-License-Identifier: GPL-2.0
/*
 * The log writer. Rings are single-producer, single-consumer: the producer
 * alone moves head, the writer alone moves tail, so neither takes a lock.
 *
 * Waking the writer costs a write() to an eventfd, so a producer does it
 * only when the writer has said it is going to sleep (sleeping), once per
 * round at most. The writer sets sleeping, then looks at the rings once
 * more before it sleeps; a producer publishes head, then reads sleeping.
 * Both are sequentially consistent, so one of them sees the other.
 *
 * The writer may block in write() as long as stderr does: that is the
 * point of it. To stop a writer that stderr never lets go, the main thread
 * interrupts it with SIGUSR1, which only the writer does not block.
 */

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "events.h"
#include "log.h"
#include "report.h"

enum afw_log_kind {
	AFW_LOG_RESULT,
	AFW_LOG_TEXT_LINE,
	AFW_LOG_OWNED,
};

struct afw_log_slot {
	uint8_t kind;
	struct timespec when;		/* of a result: when it was decided */
	union {
		struct afw_result res;
		char text[AFW_LOG_TEXT];
		char *owned;
	};
};

struct afw_log_ring {
	struct afw_log *log;
	_Alignas(64) atomic_uint head;		/* the producer's */
	bool fresh;				/* records since the last kick */
	unsigned int fresh_n;			/* how many */
	uint64_t fresh_at;			/* when the first of them came */
	_Alignas(64) atomic_uint tail;		/* the writer's */
	_Alignas(64) atomic_uint_fast64_t dropped;
	struct afw_log_slot slots[AFW_LOG_SLOTS];
};

struct afw_log {
	bool json;
	unsigned int nrings;
	struct afw_log_ring *rings;
	int wake_fd;
	atomic_bool sleeping;
	atomic_bool stop;
	bool started;
	pthread_t thread;
	uint64_t reported;			/* drops the writer has told of */
	uint64_t reported_at;
	struct afw_events *events;		/* the event log, or NULL */
	uint64_t events_reported;		/* failures the writer has told of */
	uint64_t events_reported_at;
};

static uint64_t afw_log_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct afw_log *afw_log_new(unsigned int nrings, bool json)
{
	struct afw_log *l = calloc(1, sizeof(*l));
	unsigned int i;

	if (!l)
		return NULL;
	l->json = json;
	l->nrings = nrings;
	l->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	/* Pages of a ring are touched only as records pass through them. */
	l->rings = calloc(nrings, sizeof(*l->rings));
	if (l->wake_fd < 0 || !l->rings) {
		afw_log_free(l);
		return NULL;
	}
	for (i = 0; i < nrings; i++)
		l->rings[i].log = l;
	return l;
}

void afw_log_set_events(struct afw_log *l, struct afw_events *ev)
{
	l->events = ev;
}

struct afw_log_ring *afw_log_ring(struct afw_log *l, unsigned int i)
{
	return &l->rings[i];
}

/* A free slot of @r, or NULL (and the drop counted) when the ring is full. */
static struct afw_log_slot *afw_log_claim(struct afw_log_ring *r)
{
	unsigned int head = atomic_load_explicit(&r->head, memory_order_relaxed);

	if (head - atomic_load_explicit(&r->tail, memory_order_acquire) >= AFW_LOG_SLOTS) {
		atomic_fetch_add_explicit(&r->dropped, 1, memory_order_relaxed);
		return NULL;
	}
	return &r->slots[head % AFW_LOG_SLOTS];
}

static void afw_log_publish(struct afw_log_ring *r)
{
	atomic_fetch_add(&r->head, 1);
	if (!r->fresh)
		r->fresh_at = afw_log_now();
	r->fresh = true;
	r->fresh_n++;
}

bool afw_log_result(struct afw_log_ring *r, const struct afw_result *res)
{
	struct afw_log_slot *s = afw_log_claim(r);

	if (!s)
		return false;
	s->kind = AFW_LOG_RESULT;
	/* From the vDSO: no system call on the packet path. */
	clock_gettime(CLOCK_REALTIME, &s->when);
	s->res = *res;
	afw_log_publish(r);
	return true;
}

bool afw_log_printf(struct afw_log_ring *r, const char *fmt, ...)
{
	struct afw_log_slot *s = afw_log_claim(r);
	va_list ap;

	if (!s)
		return false;
	s->kind = AFW_LOG_TEXT_LINE;
	va_start(ap, fmt);
	vsnprintf(s->text, sizeof(s->text), fmt, ap);
	va_end(ap);
	afw_log_publish(r);
	return true;
}

bool afw_log_owned(struct afw_log_ring *r, char *text)
{
	struct afw_log_slot *s = afw_log_claim(r);

	if (!s) {
		free(text);
		return false;
	}
	s->kind = AFW_LOG_OWNED;
	s->owned = text;
	afw_log_publish(r);
	return true;
}

static void afw_log_wake(struct afw_log *l)
{
	uint64_t one = 1;

	(void)!write(l->wake_fd, &one, sizeof(one));
}

void afw_log_kick(struct afw_log_ring *r)
{
	if (!r->fresh)
		return;
	r->fresh = false;
	r->fresh_n = 0;
	if (atomic_exchange(&r->log->sleeping, false))
		afw_log_wake(r->log);
}

void afw_log_kick_lazy(struct afw_log_ring *r, uint64_t now)
{
	/*
	 * A writer that is awake drains this ring before it sleeps (it looks
	 * again after saying it sleeps): kicking it costs nothing then.
	 */
	if (r->fresh && atomic_load(&r->log->sleeping) && r->fresh_n < AFW_LOG_KICK_RECORDS &&
	    now - r->fresh_at < AFW_LOG_LINGER_NS)
		return;
	afw_log_kick(r);
}

uint64_t afw_log_due(const struct afw_log_ring *r)
{
	return r->fresh ? r->fresh_at + AFW_LOG_LINGER_NS : UINT64_MAX;
}

bool afw_log_writer_asleep(struct afw_log *l)
{
	return atomic_load(&l->sleeping);
}

uint64_t afw_log_dropped(const struct afw_log *l)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < l->nrings; i++)
		n += atomic_load_explicit(&l->rings[i].dropped, memory_order_relaxed);
	return n;
}

static bool afw_log_empty(struct afw_log *l)
{
	unsigned int i;

	for (i = 0; i < l->nrings; i++)
		if (atomic_load(&l->rings[i].head) != atomic_load(&l->rings[i].tail))
			return false;
	return true;
}

/*
 * Writes all of @buf to stderr, waiting as long as stderr does, unless the
 * log is stopping. Returns false when the rest must be given up.
 */
static bool afw_log_write(struct afw_log *l, const char *buf, size_t len)
{
	struct pollfd pfd = { .fd = 2, .events = POLLOUT };
	ssize_t n;

	while (len) {
		n = write(2, buf, len);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (atomic_load(&l->stop))
			return false;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			/* Someone made stderr non-blocking: wait here instead. */
			poll(&pfd, 1, 1000);
			continue;
		}
		return false;		/* stderr is gone; nothing to be done */
	}
	return true;
}

/* Formats one record into @out; its slot may be reused afterwards. */
static void afw_log_format(struct afw_log *l, struct afw_log_slot *s, FILE *out)
{
	switch (s->kind) {
	case AFW_LOG_RESULT:
		if (l->events)
			afw_events_add(l->events, &s->res, &s->when);
		if (l->json) {
			afw_report_json(out, &s->res, &s->when);
		} else {
			fputs("afwd: ", out);
			afw_report_text(out, &s->res, &s->when);
		}
		break;
	case AFW_LOG_TEXT_LINE:
		fputs(s->text, out);
		break;
	case AFW_LOG_OWNED:
		fputs(s->owned, out);
		free(s->owned);
		break;
	}
}

/* Takes up to a ring's worth of records from each ring and writes them. */
static void afw_log_drain(struct afw_log *l)
{
	unsigned int i, tail, head;
	uint64_t dropped, now;
	const char *why;
	size_t len = 0;
	char *buf = NULL;
	FILE *out;

	out = open_memstream(&buf, &len);
	if (!out)
		return;
	for (i = 0; i < l->nrings; i++) {
		struct afw_log_ring *r = &l->rings[i];

		tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
		head = atomic_load_explicit(&r->head, memory_order_acquire);
		for (; tail != head; tail++)
			afw_log_format(l, &r->slots[tail % AFW_LOG_SLOTS], out);
		/* The slots are formatted: the producer may have them back. */
		atomic_store_explicit(&r->tail, tail, memory_order_release);
	}
	now = afw_log_now();
	if (l->events) {
		afw_events_commit(l->events);
		/* As often as drops are told of, at most: a full disk is no flood. */
		if ((now - l->events_reported_at >= AFW_LOG_DROP_REPORT_NS ||
		     atomic_load(&l->stop)) && (why = afw_events_take_error(l->events))) {
			fprintf(out, "afwd: event log: %llu decisions not stored (%llu in all); "
				"first error: %s\n",
				(unsigned long long)(afw_events_failed(l->events) -
						     l->events_reported),
				(unsigned long long)afw_events_failed(l->events), why);
			l->events_reported = afw_events_failed(l->events);
			l->events_reported_at = now;
		}
	}
	dropped = afw_log_dropped(l);
	if (dropped != l->reported &&
	    (now - l->reported_at >= AFW_LOG_DROP_REPORT_NS || atomic_load(&l->stop))) {
		fprintf(out, "afwd: %llu log records dropped: the log could not keep up "
			"(%llu in all)\n", (unsigned long long)(dropped - l->reported),
			(unsigned long long)dropped);
		l->reported = dropped;
		l->reported_at = now;
	}
	fclose(out);
	if (len)
		afw_log_write(l, buf, len);
	free(buf);
}

static void afw_log_nothing(int sig)
{
	(void)sig;
}

static void *afw_log_main(void *arg)
{
	struct afw_log *l = arg;
	struct pollfd pfd = { .fd = l->wake_fd, .events = POLLIN };
	uint64_t counter;
	sigset_t usr1;
	int timeout;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
	for (;;) {
		afw_log_drain(l);
		if (atomic_load(&l->stop) && afw_log_empty(l))
			break;
		atomic_store(&l->sleeping, true);
		if (!afw_log_empty(l) || atomic_load(&l->stop)) {
			atomic_store(&l->sleeping, false);
			continue;
		}
		/* Drops not told of yet are told when the report is due. */
		timeout = afw_log_dropped(l) != l->reported ?
			  (int)(AFW_LOG_DROP_REPORT_NS / 1000000u) : -1;
		poll(&pfd, 1, timeout);
		(void)!read(l->wake_fd, &counter, sizeof(counter));
		atomic_store(&l->sleeping, false);
	}
	/* The last word on drops, even if it came too early for the period. */
	if (afw_log_dropped(l) != l->reported)
		afw_log_drain(l);
	return NULL;
}

int afw_log_start(struct afw_log *l, char *err, size_t errlen)
{
	struct sigaction sa = { .sa_handler = afw_log_nothing };
	sigset_t usr1, old;
	int ret;

	/* No SA_RESTART: a blocked write() must return so that a stop can end it. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	/* Every other thread blocks SIGUSR1; the writer unblocks it for itself. */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, &old);
	ret = pthread_create(&l->thread, NULL, afw_log_main, l);
	if (ret) {
		snprintf(err, errlen, "log writer thread: %s", strerror(ret));
		return -1;
	}
	l->started = true;
	return 0;
}

void afw_log_stop(struct afw_log *l, uint64_t wait_ns)
{
	struct timespec until;

	if (!l->started)
		return;
	atomic_store(&l->stop, true);
	afw_log_wake(l);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)(wait_ns / 1000000000u);
	until.tv_nsec += (long)(wait_ns % 1000000000u);
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	if (pthread_timedjoin_np(l->thread, NULL, &until)) {
		/* stderr does not take the last records: interrupt its write(). */
		while (pthread_tryjoin_np(l->thread, NULL)) {
			pthread_kill(l->thread, SIGUSR1);
			usleep(10000);
		}
	}
	l->started = false;
}

void afw_log_free(struct afw_log *l)
{
	unsigned int i, t;

	if (!l)
		return;
	for (i = 0; l->rings && i < l->nrings; i++) {
		struct afw_log_ring *r = &l->rings[i];

		for (t = atomic_load(&r->tail); t != atomic_load(&r->head); t++)
			if (r->slots[t % AFW_LOG_SLOTS].kind == AFW_LOG_OWNED)
				free(r->slots[t % AFW_LOG_SLOTS].owned);
	}
	free(l->rings);
	if (l->wake_fd >= 0)
		close(l->wake_fd);
	free(l);
}
