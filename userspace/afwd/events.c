// SPDX-License-Identifier: GPL-2.0
/*
 * The event log's writer. Only the log writer thread uses the connection,
 * so it needs no lock; afwctl log reads beside it (WAL: readers never wait
 * for the writer, nor it for them).
 *
 * A failure to store loses the round's events, counts them and keeps the
 * reason; the decision log on stderr still has them. afwd goes on.
 */

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sqlite3.h>

#include "eventdb.h"
#include "events.h"
#include "report.h"

#define AFW_EVENTS_STR_(x) #x
#define AFW_EVENTS_STR(x) AFW_EVENTS_STR_(x)

/* How often the writer trims the database, at most. */
#define AFW_EVENTS_TRIM_MS 60000
/* What one trim takes off a database over its size: a tenth of its rows. */
#define AFW_EVENTS_TRIM_SHARE 10

struct afw_events {
	sqlite3 *db;
	sqlite3_stmt *insert;
	uint64_t max_age_ms;
	int64_t max_bytes;
	int64_t trimmed_at;		/* CLOCK_MONOTONIC ms of the last trim */
	unsigned int pending;		/* events in the open transaction */
	uint64_t failed;
	bool news;			/* a failure since afw_events_take_error() */
	char error[160];		/* the first of them */
};

static int64_t afw_events_ms(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void afw_events_fail(struct afw_events *ev, const char *what, unsigned int lost)
{
	if (!ev->news)
		snprintf(ev->error, sizeof(ev->error), "%s: %s", what, sqlite3_errmsg(ev->db));
	ev->news = true;
	ev->failed += lost;
}

static int afw_events_exec(struct afw_events *ev, const char *sql)
{
	return sqlite3_exec(ev->db, sql, NULL, NULL, NULL);
}

struct afw_events *afw_events_open(const char *path, unsigned int max_days, unsigned int max_mb,
				   char *err, size_t errlen)
{
	struct afw_events *ev = calloc(1, sizeof(*ev));
	const char *step = "open";
	sqlite3_stmt *st;
	char *msg = NULL;
	int version;

	if (!ev) {
		snprintf(err, errlen, "event log %s: out of memory", path);
		return NULL;
	}
	ev->max_age_ms = (uint64_t)max_days * 86400000u;
	ev->max_bytes = (int64_t)max_mb << 20;
	ev->trimmed_at = afw_events_ms(CLOCK_MONOTONIC) - AFW_EVENTS_TRIM_MS;
	if (sqlite3_open_v2(path, &ev->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
		goto err;
	/*
	 * WAL: afwctl log reads while afwd writes. NORMAL: a crash of the
	 * machine may lose the last transactions, never the database.
	 * Creating the schema writes: the write-ahead log and its index are
	 * open from here on, whatever user afwd becomes.
	 */
	/* afwctl log may hold the file a moment (a reader's recovery). */
	sqlite3_busy_timeout(ev->db, 2000);
	step = "read";
	if (sqlite3_prepare_v2(ev->db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		goto err;
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		goto err;
	}
	version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	/* 0: new. Another version's rows are not ours to write beside. */
	if (version && version != AFW_EVENTS_VERSION) {
		snprintf(err, errlen, "event log %s: schema %d, not %d: move it away", path,
			 version, AFW_EVENTS_VERSION);
		afw_events_close(ev);
		return NULL;
	}
	step = "set up";
	if (sqlite3_exec(ev->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
			 AFW_EVENTS_SCHEMA, NULL, NULL, &msg) != SQLITE_OK)
		goto err;
	step = "version";
	if (sqlite3_exec(ev->db, "PRAGMA user_version=" AFW_EVENTS_STR(AFW_EVENTS_VERSION),
			 NULL, NULL, &msg) != SQLITE_OK)
		goto err;
	step = "prepare";
	if (sqlite3_prepare_v2(ev->db, "INSERT INTO events (time_ms, verdict, l7, host, dst, dport, "
			       "record) VALUES (?, ?, ?, ?, ?, ?, ?)", -1, &ev->insert,
			       NULL) != SQLITE_OK)
		goto err;
	return ev;

err:
	snprintf(err, errlen, "event log %s: cannot %s: %s", path, step,
		 msg ? msg : ev->db ? sqlite3_errmsg(ev->db) : "out of memory");
	sqlite3_free(msg);
	afw_events_close(ev);
	return NULL;
}

void afw_events_close(struct afw_events *ev)
{
	if (!ev)
		return;
	if (ev->pending)
		afw_events_commit(ev);
	sqlite3_finalize(ev->insert);
	sqlite3_close(ev->db);
	free(ev);
}

void afw_events_add(struct afw_events *ev, const struct afw_result *r, const struct timespec *when)
{
	char dst[INET6_ADDRSTRLEN] = "", *rec = NULL;
	size_t len = 0;
	FILE *f;

	if (!ev->pending && afw_events_exec(ev, "BEGIN") != SQLITE_OK) {
		afw_events_fail(ev, "begin", 1);
		return;
	}
	ev->pending++;
	f = open_memstream(&rec, &len);
	if (!f) {
		afw_events_fail(ev, "record", 1);
		ev->pending--;
		return;
	}
	afw_report_json(f, r, when);
	fclose(f);
	/* The record without its newline. */
	if (len && rec[len - 1] == '\n')
		len--;
	inet_ntop(r->family, r->dst, dst, sizeof(dst));
	sqlite3_bind_int64(ev->insert, 1, (int64_t)when->tv_sec * 1000 + when->tv_nsec / 1000000);
	sqlite3_bind_text(ev->insert, 2, afw_decision_name(r->decision), -1, SQLITE_STATIC);
	sqlite3_bind_text(ev->insert, 3, afw_l7_name(r->l7), -1, SQLITE_STATIC);
	sqlite3_bind_text(ev->insert, 4, r->host, -1, SQLITE_STATIC);
	sqlite3_bind_text(ev->insert, 5, dst, -1, SQLITE_STATIC);
	sqlite3_bind_int(ev->insert, 6, r->dport);
	sqlite3_bind_text(ev->insert, 7, rec, (int)len, SQLITE_STATIC);
	if (sqlite3_step(ev->insert) != SQLITE_DONE) {
		/*
		 * Some errors (a full disk, I/O) roll the whole transaction
		 * back: the round's events so far are lost with this one.
		 */
		if (sqlite3_get_autocommit(ev->db)) {
			afw_events_fail(ev, "insert", ev->pending);
			ev->pending = 0;
		} else {
			afw_events_fail(ev, "insert", 1);
			ev->pending--;
		}
	}
	sqlite3_reset(ev->insert);
	sqlite3_clear_bindings(ev->insert);
	free(rec);
}

/* Bytes the database's rows take (free pages are reused, not counted); -1 on error. */
static int64_t afw_events_used(struct afw_events *ev)
{
	sqlite3_stmt *st;
	int64_t used = -1;

	if (sqlite3_prepare_v2(ev->db, "SELECT (page_count - freelist_count) * page_size FROM "
			       "pragma_page_count, pragma_freelist_count, pragma_page_size",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		used = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return used;
}

/*
 * Past their age, events go. Over its size, the database loses its oldest
 * tenth until it fits: the pages they held are reused, so the file stops
 * growing there.
 */
static void afw_events_trim(struct afw_events *ev, int64_t now)
{
	char sql[160];
	int64_t used;
	int i;

	snprintf(sql, sizeof(sql), "DELETE FROM events WHERE time_ms < %lld",
		 (long long)(now - (int64_t)ev->max_age_ms));
	if (afw_events_exec(ev, sql) != SQLITE_OK) {
		afw_events_fail(ev, "trim by age", 0);
		return;
	}
	snprintf(sql, sizeof(sql), "DELETE FROM events WHERE id <= (SELECT min(id) + "
		 "(max(id) - min(id)) / %d FROM events)", AFW_EVENTS_TRIM_SHARE);
	/* Each pass takes a tenth of what is left: a bounded number of them. */
	for (i = 0; i < 4 * AFW_EVENTS_TRIM_SHARE; i++) {
		used = afw_events_used(ev);
		if (used < 0) {
			afw_events_fail(ev, "size", 0);
			return;
		}
		if (used <= ev->max_bytes)
			return;
		if (afw_events_exec(ev, sql) != SQLITE_OK) {
			afw_events_fail(ev, "trim by size", 0);
			return;
		}
	}
}

void afw_events_commit(struct afw_events *ev)
{
	int64_t now = afw_events_ms(CLOCK_MONOTONIC);

	/* An insert's error may have ended the transaction already. */
	if (!sqlite3_get_autocommit(ev->db) && afw_events_exec(ev, "COMMIT") != SQLITE_OK) {
		afw_events_fail(ev, "commit", ev->pending);
		afw_events_exec(ev, "ROLLBACK");
	}
	ev->pending = 0;
	if (now - ev->trimmed_at >= AFW_EVENTS_TRIM_MS) {
		ev->trimmed_at = now;
		afw_events_trim(ev, afw_events_ms(CLOCK_REALTIME));
	}
}

uint64_t afw_events_failed(const struct afw_events *ev)
{
	return ev->failed;
}

const char *afw_events_take_error(struct afw_events *ev)
{
	if (!ev->news)
		return NULL;
	ev->news = false;
	return ev->error;
}
