// SPDX-License-Identifier: GPL-2.0
/*
 * afwctl log: the decisions afwd stored in its event log (afwd --events),
 * oldest first. Read-only, beside a running afwd; needs no module.
 */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sqlite3.h>

#include "afwctl.h"
#include "escape.h"
#include "eventdb.h"
#include "words.h"

static const char *const afwctl_log_opts[] = { "--since", "--host", "--verdict", "--last", "--db" };
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

int afwctl_log_parse(struct afwctl_req *rq, int argc, char **argv)
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
			return afwctl_usage_err("log: unknown option '%s'" AFW_HINT_FMT, argv[a],
						AFW_HINT_ARGS(hint));
		}
		if (a + 1 >= argc)
			return afwctl_usage_err("log: %s needs a value", argv[a]);
		switch (i) {
		case 0:
			if (afwctl_log_since(argv[a + 1], &rq->log.since_ms))
				return afwctl_usage_err("log: --since '%s' is neither a time ago (30s, "
							"15m, 2h, 7d) nor a UTC date "
							"(2026-12-03 or 2026-12-03T15:04:05)",
							argv[a + 1]);
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
				return afwctl_usage_err("log: --verdict '%s' is none of allow, deny, "
							"reject, inspect", argv[a + 1]);
			break;
		case 3:
			errno = 0;
			rq->log.limit = strtoll(argv[a + 1], &end, 10);
			if (errno || end == argv[a + 1] || *end || rq->log.limit < 1)
				return afwctl_usage_err("log: --last '%s' is not a count of 1 or more",
							argv[a + 1]);
			break;
		default:
			rq->log.db = argv[a + 1];
			break;
		}
	}
	return 0;
}

/*
 * The query; the bound values are, in order: since, host, verdict, limit.
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
	" 'dport', dport, 'malformed_record', record) END FROM ("		\
	" SELECT *, json_valid(record) AS ok FROM events WHERE time_ms >= ?1"	\
	" AND (?2 IS NULL OR lower(host) GLOB lower(?2))"			\
	" AND (?3 IS NULL OR verdict = ?3)"					\
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

static void afwctl_log_row(FILE *out, sqlite3_stmt *st, const struct afwctl_req *rq,
			   unsigned long long n)
{
	bool v6 = strchr(afwctl_log_col(st, 5), ':');
	char t[40];

	if (rq->json) {
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

int afwctl_log_run(struct afw_nl *nl, struct afwctl_req *rq)
{
	unsigned long long n = 0;
	sqlite3_stmt *st = NULL;
	sqlite3 *db = NULL;
	int ret = 1, rc, version = -1;
	char *text = NULL;
	size_t len = 0;
	FILE *out = NULL;

	(void)nl;
	rc = sqlite3_open_v2(rq->log.db, &db, SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK) {
		errno = db ? sqlite3_system_errno(db) : ENOMEM;
		fprintf(stderr, "afwctl: log: %s: %s%s\n", rq->log.db,
			errno ? strerror(errno) : db ? sqlite3_errmsg(db) : "out of memory",
			errno == ENOENT ? " (afwd stores its decisions there when run with "
			"--events; see afwd(8))" : errno == EACCES ? " (the event log is afwd's: "
			"run afwctl log as root)" : "");
		goto out;
	}
	sqlite3_busy_timeout(db, 2000);
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (version != AFW_EVENTS_VERSION) {
		fprintf(stderr, "afwctl: log: %s is not an afw event log of this version "
			"(schema %d, expected %d)\n", rq->log.db, version, AFW_EVENTS_VERSION);
		goto out;
	}
	if (sqlite3_prepare_v2(db, AFWCTL_LOG_SQL, -1, &st, NULL) != SQLITE_OK)
		goto err;
	sqlite3_bind_int64(st, 1, rq->log.since_ms < 0 ? LLONG_MIN : rq->log.since_ms);
	if (rq->log.host)
		sqlite3_bind_text(st, 2, rq->log.host, -1, SQLITE_STATIC);
	if (rq->log.verdict)
		sqlite3_bind_text(st, 3, rq->log.verdict, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, rq->log.limit);
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
	fprintf(stderr, "afwctl: log: %s: %s\n", rq->log.db, sqlite3_errmsg(db));
out:
	if (out)
		fclose(out);
	free(text);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return ret;
}
