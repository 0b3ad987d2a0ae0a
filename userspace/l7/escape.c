// SPDX-License-Identifier: GPL-2.0
/*
 * Escaping for the logs. Output is built in a small buffer and written in
 * pieces, so a long field costs a few stdio calls, not one per byte.
 */

#include <string.h>

#include "escape.h"

struct afw_esc {
	FILE *out;
	size_t len;
	char buf[256];
};

static void afw_esc_put(struct afw_esc *e, const char *s, size_t n)
{
	if (e->len + n > sizeof(e->buf)) {
		fwrite(e->buf, 1, e->len, e->out);
		e->len = 0;
	}
	memcpy(e->buf + e->len, s, n);
	e->len += n;
}

static void afw_esc_hex(struct afw_esc *e, const char *prefix, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	char s[8];
	size_t n = strlen(prefix);

	memcpy(s, prefix, n);
	s[n++] = hex[c >> 4];
	s[n++] = hex[c & 15];
	afw_esc_put(e, s, n);
}

static void afw_esc_end(struct afw_esc *e)
{
	fwrite(e->buf, 1, e->len, e->out);
}

void afw_json_bytes(FILE *out, const void *p, size_t n)
{
	const unsigned char *c = p;
	struct afw_esc e = { .out = out };
	size_t i;

	afw_esc_put(&e, "\"", 1);
	for (i = 0; i < n; i++) {
		switch (c[i]) {
		case '"':
			afw_esc_put(&e, "\\\"", 2);
			break;
		case '\\':
			afw_esc_put(&e, "\\\\", 2);
			break;
		case '\b':
			afw_esc_put(&e, "\\b", 2);
			break;
		case '\f':
			afw_esc_put(&e, "\\f", 2);
			break;
		case '\n':
			afw_esc_put(&e, "\\n", 2);
			break;
		case '\r':
			afw_esc_put(&e, "\\r", 2);
			break;
		case '\t':
			afw_esc_put(&e, "\\t", 2);
			break;
		default:
			if (c[i] < 0x20 || c[i] > 0x7e)
				afw_esc_hex(&e, "\\u00", c[i]);
			else
				afw_esc_put(&e, (const char *)&c[i], 1);
		}
	}
	afw_esc_put(&e, "\"", 1);
	afw_esc_end(&e);
}

/* A byte the text log writes as it is. */
static bool afw_text_byte_plain(unsigned char c)
{
	return c >= 0x20 && c <= 0x7e && c != '"' && c != '\\';
}

bool afw_text_is_plain(const void *p, size_t n)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (!afw_text_byte_plain(c[i]))
			return false;
	return true;
}

static void afw_text_bytes(struct afw_esc *e, const unsigned char *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (c[i] == '"' || c[i] == '\\') {
			char s[2] = { '\\', (char)c[i] };

			afw_esc_put(e, s, 2);
		} else if (!afw_text_byte_plain(c[i])) {
			afw_esc_hex(e, "\\x", c[i]);
		} else {
			afw_esc_put(e, (const char *)&c[i], 1);
		}
	}
}

void afw_text_quoted(FILE *out, const void *p, size_t n)
{
	struct afw_esc e = { .out = out };

	afw_esc_put(&e, "\"", 1);
	afw_text_bytes(&e, p, n);
	afw_esc_put(&e, "\"", 1);
	afw_esc_end(&e);
}

void afw_text_plain(FILE *out, const void *p, size_t n)
{
	struct afw_esc e = { .out = out };

	afw_text_bytes(&e, p, n);
	afw_esc_end(&e);
}
