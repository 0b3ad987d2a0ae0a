/* SPDX-License-Identifier: GPL-2.0 */
/*
 * afwd's side of the event log (userspace/lib/eventdb.h): the log writer
 * thread stores each decision it writes, a round's worth in one
 * transaction, and keeps the database within its age and size.
 */
#ifndef AFW_EVENTS_H
#define AFW_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "engine.h"

struct afw_events;

/*
 * Opens (or creates) the database at @path, kept to @max_days of events
 * and @max_mb megabytes. Called before afwd drops its privileges: the
 * files it needs stay open.
 */
struct afw_events *afw_events_open(const char *path, unsigned int max_days, unsigned int max_mb,
				   char *err, size_t errlen);
void afw_events_close(struct afw_events *ev);

/* Only the log writer calls these. */
void afw_events_add(struct afw_events *ev, const struct afw_result *r, const struct timespec *when);
/* Ends the round's transaction; trims the database when it is due. */
void afw_events_commit(struct afw_events *ev);

/* Events that could not be stored (trims that failed lose none). */
uint64_t afw_events_failed(const struct afw_events *ev);
/*
 * The first failure (storing or trimming) since the last call, in words,
 * or NULL if none; valid until the next call into @ev.
 */
const char *afw_events_take_error(struct afw_events *ev);

#endif /* AFW_EVENTS_H */
