/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decisions in words: one line of text or one JSON object per flow, for the
 * decision log and for --pcap.
 */
#ifndef AFW_REPORT_H
#define AFW_REPORT_H

#include <stdio.h>

#include "engine.h"

/* Writes @r as one JSON object and a newline. */
void afw_report_json(FILE *out, const struct afw_result *r);

/* Writes @r as one line of text. */
void afw_report_text(FILE *out, const struct afw_result *r);

/* Writes @s as a JSON string, quotes included. */
void afw_json_string(FILE *out, const char *s);

#endif /* AFW_REPORT_H */
