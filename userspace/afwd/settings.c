// SPDX-License-Identifier: GPL-2.0
/* The module's unknown-flow settings against afwd's own (settings.h). */

#include <stdarg.h>
#include <stdio.h>
#include <linux/afw.h>

#include "settings.h"

struct afw_out {
	char *buf;
	size_t len, off;
	unsigned int lines;
};

__attribute__((format(printf, 2, 3)))
static void afw_line(struct afw_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	o->lines++;
	if (o->off + 1 >= o->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->off, o->len - o->off, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	/* Cut short: the buffer is full and NUL-terminated. */
	o->off += (size_t)n;
	if (o->off + 1 >= o->len) {
		o->off = o->len;
		return;
	}
	o->buf[o->off++] = '\n';
	o->buf[o->off] = '\0';
}

static void afw_range(char *buf, size_t len, unsigned int lo, unsigned int hi)
{
	if (lo == hi)
		snprintf(buf, len, "%u", lo);
	else
		snprintf(buf, len, "%u-%u", lo, hi);
}

unsigned int afw_settings_compare(const struct afw_config *mod, unsigned int first,
				  unsigned int count, bool fail_open, char *out, size_t len)
{
	struct afw_out o = { out, len, 0, 0 };
	unsigned int a = mod->queue_num, b = mod->queue_num + (mod->queue_count ?
					      mod->queue_count : 1) - 1;
	unsigned int last = first + (count ? count : 1) - 1;
	char mr[24], ar[24], lost[64] = "";
	const char *fate = mod->fail_open ? "let through unjudged (fail open)" :
			   "dropped (fail closed)";

	if (len)
		out[0] = '\0';
	afw_range(mr, sizeof(mr), a, b);
	afw_range(ar, sizeof(ar), first, last);
	/*
	 * The range is where every queued packet goes: unknown flows under
	 * "unknown queue", and the flows of rules whose action is queue.
	 */
	if (a < first || b > last) {
		if (a < first && b > last) {
			char lo[24], hi[24];

			afw_range(lo, sizeof(lo), a, first - 1);
			afw_range(hi, sizeof(hi), last + 1, b);
			snprintf(lost, sizeof(lost), "%s and %s", lo, hi);
		} else if (a < first) {
			afw_range(lost, sizeof(lost), a, b < first ? b : first - 1);
		} else {
			afw_range(lost, sizeof(lost), a > last ? a : last + 1, b);
		}
		afw_line(&o, "the module queues flows (unknown flows%s, rules whose action is "
			 "queue) to queues %s, but afwd serves %s: the flows sent to %s are %s; "
			 "start afwd with --queue %s, or run 'afwctl config set queue %s'",
			 mod->unknown == AFW_UNKNOWN_QUEUE ? "" : " once 'unknown queue'",
			 mr, ar, lost, fate, mr, ar);
	}
	if (!mod->fail_open != !fail_open)
		afw_line(&o, "the module fails %s (queued packets %s while no afwd reads them) "
			 "but afwd was started %s (packets %s when its queue is full); make them "
			 "one: 'afwctl config set fail %s' or afwd %s",
			 mod->fail_open ? "open" : "closed",
			 mod->fail_open ? "pass" : "are dropped",
			 fail_open ? "with --fail-open" : "without --fail-open",
			 fail_open ? "pass" : "are dropped",
			 fail_open ? "open" : "closed",
			 fail_open ? "without --fail-open" : "with --fail-open");
	return o.lines;
}
