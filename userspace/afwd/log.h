/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The daemon's log, off the packet path. Each producer (a worker, the main
 * thread) owns a ring of records; one writer thread formats them and
 * writes them to stderr. A producer never waits: when its ring is full
 * (stderr is slow, or blocked), the record is dropped and counted, and the
 * writer says how many were dropped as soon as it can write again.
 */
#ifndef AFW_LOG_H
#define AFW_LOG_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"

/* Records a ring holds; a full ring drops. */
#define AFW_LOG_SLOTS 512
/* Longest line of afwd's own text a record carries. */
#define AFW_LOG_TEXT 480
/*
 * How long a worker's new records may wait for a sleeping writer, and how
 * many may: afw_log_kick_lazy() wakes it when either is reached, so that
 * a stream of new flows, one a round, wakes it once a batch, not once a
 * decision (each wake-up is a write(), the writer's poll(), read() and
 * write(), and two context switches). Few records: on a CPU it shares
 * with them, a connection may wait behind the batch's formatting
 * (docs/performance.md, "New connections a second": 64 cost the p99 4x).
 */
#define AFW_LOG_LINGER_NS 20000000ull
#define AFW_LOG_KICK_RECORDS 8
/* How often, at most, the writer says how many records were dropped. */
#define AFW_LOG_DROP_REPORT_NS 10000000000ull

struct afw_events;
struct afw_log;
struct afw_log_ring;

/* A log with @nrings rings, writing decision records as JSON when @json. */
struct afw_log *afw_log_new(unsigned int nrings, bool json);

/*
 * Before the start: the writer also stores each decision in @ev, which the
 * log's owner closes once the log has stopped.
 */
void afw_log_set_events(struct afw_log *l, struct afw_events *ev);

/* Starts the writer thread; it writes to the file descriptor 2 (stderr). */
int afw_log_start(struct afw_log *l, char *err, size_t errlen);

/*
 * Stops the writer once it has written every queued record, or after
 * @wait_ns if stderr does not take them (the rest is then lost).
 */
void afw_log_stop(struct afw_log *l, uint64_t wait_ns);
void afw_log_free(struct afw_log *l);

struct afw_log_ring *afw_log_ring(struct afw_log *l, unsigned int i);

/*
 * The producer's side; only the ring's owner calls these. They never
 * block; false means the record was dropped (and counted).
 */
bool afw_log_result(struct afw_log_ring *r, const struct afw_result *res);
bool afw_log_printf(struct afw_log_ring *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Takes @text (malloc'ed, any length) and frees it once written or dropped. */
bool afw_log_owned(struct afw_log_ring *r, char *text);

/*
 * Wakes the writer if it sleeps and this ring has new records: a producer
 * calls it once per round, so a round costs at most one system call for
 * its log, however many records it made.
 */
void afw_log_kick(struct afw_log_ring *r);

/*
 * afw_log_kick() for a worker at time @now (CLOCK_MONOTONIC): a sleeping
 * writer is woken only once the ring's new records are AFW_LOG_KICK_RECORDS
 * or the oldest is AFW_LOG_LINGER_NS old; afw_log_due() says when that is,
 * for the worker's next wait.
 */
void afw_log_kick_lazy(struct afw_log_ring *r, uint64_t now);
/* When new records of @r are due to the writer; UINT64_MAX if there are none. */
uint64_t afw_log_due(const struct afw_log_ring *r);

/* Whether the writer has said it is going to sleep (tests wait for it). */
bool afw_log_writer_asleep(struct afw_log *l);

/* Records dropped so far, all rings. */
uint64_t afw_log_dropped(const struct afw_log *l);

#endif /* AFW_LOG_H */
