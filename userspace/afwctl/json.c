// SPDX-License-Identifier: GPL-2.0
/*
 * JSON for afwctl: its -j output, and the fields of afwd's lines.
 */

#include <string.h>

#include "afwctl.h"

void afwctl_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

void afwctl_json_field(const char *line, const char *key, char *out, size_t len)
{
	const char *p, *e;
	char pat[32];
	size_t n;

	*out = '\0';
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(line, pat);
	if (!p)
		return;
	p += strlen(pat);
	if (!strncmp(p, "null", 4))
		return;
	if (*p == '"') {
		for (e = ++p; *e && *e != '"'; e++)
			if (*e == '\\' && e[1])
				e++;
	} else {
		e = p + strcspn(p, ",}");
	}
	n = (size_t)(e - p) < len - 1 ? (size_t)(e - p) : len - 1;
	memcpy(out, p, n);
	out[n] = '\0';
}
