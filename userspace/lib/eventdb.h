/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The event log's database, as afwd writes it and afwctl log reads it: one
 * row per decision, its JSON record (the decision log's line) beside the
 * columns queries filter on.
 */
#ifndef AFW_EVENTDB_H
#define AFW_EVENTDB_H

#define AFW_EVENTS_DEFAULT "/var/lib/afw/events.db"

/* PRAGMA user_version of the schema below; a reader refuses any other. */
#define AFW_EVENTS_VERSION 1

/*
 * time_ms: milliseconds since the epoch, UTC. host: the SNI, HTTP Host or
 * DNS name, "" if none. record: the JSON object of the decision log.
 */
#define AFW_EVENTS_SCHEMA						\
	"CREATE TABLE IF NOT EXISTS events ("				\
	" id INTEGER PRIMARY KEY,"					\
	" time_ms INTEGER NOT NULL,"					\
	" verdict TEXT NOT NULL,"					\
	" l7 TEXT NOT NULL,"						\
	" host TEXT NOT NULL,"						\
	" dst TEXT NOT NULL,"						\
	" dport INTEGER NOT NULL,"					\
	" record TEXT NOT NULL);"					\
	"CREATE INDEX IF NOT EXISTS events_time ON events(time_ms);"

#endif /* AFW_EVENTDB_H */
