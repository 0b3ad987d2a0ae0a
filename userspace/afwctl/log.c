// SPDX-License-Identifier: GPL-2.0
/*
 * afwctl log: the decisions afwd stored in its event log (afwd --events),
 * oldest first; afwctl monitor: then each new one as afwd stores it, as
 * "nft monitor" follows the ruleset. Read-only, beside a running afwd;
 * needs no module.
 */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sqlite3.h>

#include "afwctl.h"
#include "escape.h"
#include "eventdb.h"
#include "words.h"

static const char *const afwctl_log_opts[] = { "--since", "--host", "--verdict", "--last", "--db",
						"--exe" };
static const char *const afwctl_log_verdicts[] = { "allow", "deny", "reject", "inspect" };

/* @s as "N" and a unit (s, m, h, d) ago, or a UTC date: YYYY-MM-DD[THH:MM[:SS]][Z]. */
static int afwctl_log_since(const char *s, long long *ms)
{
	struct tm tm = { 0 };
	unsigned long long n;
	char *end;
	time_t t;

	if (*s >= '0' && *s <= '9' && !strchr(s, '-')) {
		errno = 0;
		n = strtoull(s, &end, 10);
		if (errno || end == s || !*end || end[1] || n > 36500ull * 86400)
			return -1;
		switch (*end) {
		case 'd':
			n *= 24;
			/* fall through */
		case 'h':
			n *= 60;
			/* fall through */
		case 'm':
			n *= 60;
			/* fall through */
		case 's':
			break;
		default:
			return -1;
		}
		*ms = ((long long)time(NULL) - (long long)n) * 1000;
		return 0;
	}
	end = strptime(s, "%Y-%m-%d", &tm);
	if (end && (*end == 'T' || *end == ' '))
		end = strptime(end + 1, "%H:%M", &tm);
	if (end && *end == ':')
		end = strptime(end + 1, "%S", &tm);
	if (end && *end == 'Z')
		end++;
	if (!end || *end)
		return -1;
	t = timegm(&tm);
	if (t == (time_t)-1)
		return -1;
	*ms = (long long)t * 1000;
	return 0;
}

static int afwctl_log_opts_parse(struct afwctl_req *rq, int argc, char **argv, const char *cmd)
{
	const char *hint;
	char *end;
	size_t i;
	int a;

	rq->log.db = AFW_EVENTS_DEFAULT;
	rq->log.since_ms = -1;
	rq->log.limit = -1;
	for (a = 0; a < argc; a += 2) {
		for (i = 0; i < sizeof(afwctl_log_opts) / sizeof(afwctl_log_opts[0]); i++)
			if (!strcmp(argv[a], afwctl_log_opts[i]))
				break;
		if (i == sizeof(afwctl_log_opts) / sizeof(afwctl_log_opts[0])) {
			hint = afw_suggest(argv[a], afwctl_log_opts, i);
			return afwctl_usage_err("%s: unknown option '%s'" AFW_HINT_FMT, cmd, argv[a],
						AFW_HINT_ARGS(hint));
		}
		if (a + 1 >= argc)
			return afwctl_usage_err("%s: %s needs a value", cmd, argv[a]);
		switch (i) {
		case 0:
			if (afwctl_log_since(argv[a + 1], &rq->log.since_ms))
				return afwctl_usage_err("%s: --since '%s' is neither a time ago "
							"(30s, 15m, 2h, 7d) nor a UTC date "
							"(2026-12-03 or 2026-12-03T15:04:05)",
							cmd, argv[a + 1]);
			break;
		case 1:
			rq->log.host = argv[a + 1];
			break;
		case 2:
			/* The rules' words too: accept is allow, drop is deny. */
			rq->log.verdict = !strcmp(argv[a + 1], "accept") ? "allow" :
					  !strcmp(argv[a + 1], "drop") ? "deny" : argv[a + 1];
			for (i = 0; i < 4; i++)
				if (!strcmp(rq->log.verdict, afwctl_log_verdicts[i]))
					break;
			if (i == 4)
				return afwctl_usage_err("%s: --verdict '%s' is none of allow, "
							"deny, reject, inspect", cmd, argv[a + 1]);
			break;
		case 3:
			errno = 0;
			rq->log.limit = strtoll(argv[a + 1], &end, 10);
			if (errno || end == argv[a + 1] || *end || rq->log.limit < 1)
				return afwctl_usage_err("%s: --last '%s' is not a count of 1 or "
							"more", cmd, argv[a + 1]);
			break;
		case 4:
			rq->log.db = argv[a + 1];
			break;
		default:
			rq->log.exe = argv[a + 1];
			break;
		}
	}
	return 0;
}

int afwctl_log_parse(struct afwctl_req *rq, int argc, char **argv)
{
	return afwctl_log_opts_parse(rq, argc, argv, "log");
}

int afwctl_monitor_parse(struct afwctl_req *rq, int argc, char **argv)
{
	rq->log.follow = true;
	return afwctl_log_opts_parse(rq, argc, argv, "monitor");
}

/*
 * The query; the bound values are, in order: since, host, verdict, limit,
 * the rows' ids after ?5 up to ?6 (monitor's rounds: each takes the rows
 * stored since the last), and the program (a glob; only decisions whose
 * rules asked for the program know it). The row's id is the last column.
 * A record that is not JSON (an edited file, a torn disk) would end the
 * whole query in json_extract(): its row is listed from the columns, and
 * -j gives it as a string under "malformed_record", so the output stays
 * JSON.
 */
#define AFWCTL_LOG_SQL								\
	"SELECT time_ms, verdict, l7,"						\
	" CASE WHEN ok THEN json_extract(record, '$.src') END,"		\
	" CASE WHEN ok THEN json_extract(record, '$.sport') END, dst, dport,"	\
	" host, CASE WHEN ok THEN json_extract(record, '$.reason')"		\
	" ELSE 'malformed record' END,"						\
	" CASE WHEN ok THEN record ELSE json_object('time_ms', time_ms,"	\
	" 'verdict', verdict, 'l7', l7, 'host', host, 'dst', dst,"		\
	" 'dport', dport, 'malformed_record', record) END, id FROM ("	\
	" SELECT *, json_valid(record) AS ok FROM events WHERE time_ms >= ?1"	\
	" AND (?2 IS NULL OR lower(host) GLOB lower(?2))"			\
	" AND (?3 IS NULL OR verdict = ?3) AND id > ?5 AND id <= ?6"		\
	" AND (?7 IS NULL OR (json_valid(record)"				\
	" AND json_extract(record, '$.exe') GLOB ?7))"			\
	" ORDER BY time_ms DESC, id DESC LIMIT ?4)"				\
	" ORDER BY time_ms, id"

static void afwctl_log_time(long long ms, char *buf, size_t len)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	size_t n;

	gmtime_r(&t, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%03lldZ", ms % 1000);
}

static const char *afwctl_log_col(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? (const char *)s : "";
}

/*
 * A stored text column on a terminal: afwd writes only checked names and
 * its own words, but the file is a database anyone with the rights can
 * edit, and a control byte printed as it is would drive the terminal.
 */
static void afwctl_log_text(FILE *out, sqlite3_stmt *st, int i, const char *none, int width)
{
	const char *s = afwctl_log_col(st, i);
	int n = sqlite3_column_bytes(st, i);

	if (!n)
		fprintf(out, "%-*s", width, none);
	else if (afw_text_is_plain(s, (size_t)n))
		fprintf(out, "%-*s", width, s);
	else
		afw_text_plain(out, s, (size_t)n);
}

/* A row: -j as an element of the array log prints, or monitor's line of its own. */
static void afwctl_log_row(FILE *out, sqlite3_stmt *st, const struct afwctl_req *rq,
			   unsigned long long n)
{
	bool v6 = strchr(afwctl_log_col(st, 5), ':');
	char t[40];

	if (rq->json) {
		if (rq->log.follow)
			fprintf(out, "%s\n", afwctl_log_col(st, 9));
		else
			fprintf(out, "%s%s", n ? "," : "", afwctl_log_col(st, 9));
		return;
	}
	afwctl_log_time(sqlite3_column_int64(st, 0), t, sizeof(t));
	fprintf(out, "%s ", t);
	afwctl_log_text(out, st, 1, "-", 7);
	fputc(' ', out);
	afwctl_log_text(out, st, 2, "-", 7);
	fputs(v6 ? " [" : " ", out);
	afwctl_log_text(out, st, 3, "", 0);
	fprintf(out, "%s:%d -> %s", v6 ? "]" : "", sqlite3_column_int(st, 4), v6 ? "[" : "");
	afwctl_log_text(out, st, 5, "", 0);
	fprintf(out, "%s:%d ", v6 ? "]" : "", sqlite3_column_int(st, 6));
	afwctl_log_text(out, st, 7, "-", 0);
	fputs(" (", out);
	afwctl_log_text(out, st, 8, "", 0);
	fputs(")\n", out);
}

/* The event log at @path, read-only, if it is one of this version; else says why. */
static sqlite3 *afwctl_log_open(const char *path, const char *cmd)
{
	sqlite3_stmt *st = NULL;
	sqlite3 *db = NULL;
	int rc, version = -1;

	rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK) {
		errno = db ? sqlite3_system_errno(db) : ENOMEM;
		fprintf(stderr, "afwctl: %s: %s: %s%s\n", cmd, path,
			errno ? strerror(errno) : db ? sqlite3_errmsg(db) : "out of memory",
			errno == ENOENT ? " (afwd stores its decisions there when run with "
			"--events; see afwd(8))" : errno == EACCES ? " (the event log is afwd's: "
			"run afwctl as root)" : "");
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, 2000);
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (version != AFW_EVENTS_VERSION) {
		fprintf(stderr, "afwctl: %s: %s is not an afw event log of this version "
			"(schema %d, expected %d)\n", cmd, path, version, AFW_EVENTS_VERSION);
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

/* The highest id stored, 0 for none, -1 on an error. */
static long long afwctl_log_last_id(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	long long id = -1;

	if (sqlite3_prepare_v2(db, "SELECT coalesce(max(id), 0) FROM events", -1, &st,
			       NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return id;
}

/*
 * monitor: the rows the options ask for that are stored already (none
 * without --since or --last), then every 250 ms the rows stored since,
 * each line written and flushed as it comes, until killed. afwd writes a
 * round of decisions in one transaction, so a round is never seen in part.
 * Retention deletes the oldest rows; a table emptied whole starts its ids
 * again, which the next round sees as a highest id below the last shown.
 */
static int afwctl_monitor_follow(sqlite3 *db, sqlite3_stmt *st, struct afwctl_req *rq)
{
	const struct timespec tick = { 0, 250 * 1000 * 1000 };
	long long last = afwctl_log_last_id(db), top;
	bool past = rq->log.since_ms >= 0 || rq->log.limit > 0;
	int rc;

	if (last < 0)
		return -1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (;;) {
		top = afwctl_log_last_id(db);
		if (top < 0)
			return -1;
		if (top < last)
			last = 0;
		if (top > last || past) {
			sqlite3_reset(st);
			sqlite3_bind_int64(st, 5, past ? -1 : last);
			sqlite3_bind_int64(st, 6, top);
			/* Past the rows asked for, every new row, whatever its time. */
			if (!past) {
				sqlite3_bind_int64(st, 1, LLONG_MIN);
				sqlite3_bind_int64(st, 4, -1);
			}
			while ((rc = sqlite3_step(st)) == SQLITE_ROW)
				afwctl_log_row(stdout, st, rq, 1);
			if (rc != SQLITE_DONE)
				return -1;
			if (ferror(stdout) || fflush(stdout))
				return 0;	/* the reader went away */
			last = top;
			past = false;
		}
		nanosleep(&tick, NULL);
	}
}

int afwctl_log_run(struct afw_nl *nl, struct afwctl_req *rq)
{
	const char *cmd = rq->log.follow ? "monitor" : "log";
	unsigned long long n = 0;
	sqlite3_stmt *st = NULL;
	sqlite3 *db;
	int ret = 1, rc;
	char *text = NULL;
	size_t len = 0;
	FILE *out = NULL;

	(void)nl;
	db = afwctl_log_open(rq->log.db, cmd);
	if (!db)
		return 1;
	if (sqlite3_prepare_v2(db, AFWCTL_LOG_SQL, -1, &st, NULL) != SQLITE_OK)
		goto err;
	sqlite3_bind_int64(st, 1, rq->log.since_ms < 0 ? LLONG_MIN : rq->log.since_ms);
	if (rq->log.host)
		sqlite3_bind_text(st, 2, rq->log.host, -1, SQLITE_STATIC);
	if (rq->log.verdict)
		sqlite3_bind_text(st, 3, rq->log.verdict, -1, SQLITE_STATIC);
	if (rq->log.exe)
		sqlite3_bind_text(st, 7, rq->log.exe, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, rq->log.limit);
	sqlite3_bind_int64(st, 5, -1);
	sqlite3_bind_int64(st, 6, LLONG_MAX);
	if (rq->log.follow) {
		if (afwctl_monitor_follow(db, st, rq))
			goto err;
		ret = 0;
		goto out;
	}
	/* Nothing reaches stdout unless all of it does. */
	out = open_memstream(&text, &len);
	if (!out) {
		fprintf(stderr, "afwctl: log: out of memory\n");
		goto out;
	}
	if (rq->json)
		fputc('[', out);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		afwctl_log_row(out, st, rq, n++);
	if (rc != SQLITE_DONE)
		goto err;
	if (rq->json)
		fputs("]\n", out);
	fclose(out);
	out = NULL;
	fwrite(text, 1, len, stdout);
	ret = 0;
	goto out;
err:
	fprintf(stderr, "afwctl: %s: %s: %s\n", cmd, rq->log.db, sqlite3_errmsg(db));
out:
	if (out)
		fclose(out);
	free(text);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return ret;
}

int afwctl_monitor_run(struct afw_nl *nl, struct afwctl_req *rq)
{
	return afwctl_log_run(nl, rq);
}
