/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decisions in words: one line of text or one JSON object per flow, for the
 * decision log and for --pcap.
 */
#ifndef AFW_REPORT_H
#define AFW_REPORT_H

#include <stdio.h>
#include <time.h>

#include "engine.h"

/*
 * Writes @r as one JSON object and a newline; with @when (the daemon's
 * log), its first field is "time", RFC 3339 in UTC.
 */
void afw_report_json(FILE *out, const struct afw_result *r, const struct timespec *when);

/* Writes @r as one line of text; with @when, the time comes first. */
void afw_report_text(FILE *out, const struct afw_result *r, const struct timespec *when);

/* Writes @s as a JSON string, quotes included. */
void afw_json_string(FILE *out, const char *s);

#endif /* AFW_REPORT_H */
