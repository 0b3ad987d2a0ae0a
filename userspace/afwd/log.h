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

/* Records dropped so far, all rings. */
uint64_t afw_log_dropped(const struct afw_log *l);

#endif /* AFW_LOG_H */
