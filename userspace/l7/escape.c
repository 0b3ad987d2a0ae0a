// SPDX-License-Identifier: GPL-2.0
/*
 * Escaping for the logs, and the buffer records are built in. afwd writes
 * a record for every flow it decides; built with stdio's formatting, one
 * took some 10,000 instructions, more than deciding the flow, so fields are
 * copied and numbers converted here, and printable runs go in one copy.
 */

#include <string.h>

#include "escape.h"

void afw_out_put(struct afw_out *o, const void *s, size_t n)
{
	if (o->len + n > sizeof(o->buf)) {
		afw_out_end(o);
		if (n > sizeof(o->buf)) {
			fwrite(s, 1, n, o->f);
			return;
		}
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

void afw_out_str(struct afw_out *o, const char *s)
{
	afw_out_put(o, s, strlen(s));
}

void afw_out_char(struct afw_out *o, char c)
{
	afw_out_put(o, &c, 1);
}

void afw_out_uint(struct afw_out *o, uint64_t v)
{
	char d[20];
	unsigned int n = 0;

	do {
		d[sizeof(d) - ++n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	afw_out_put(o, d + sizeof(d) - n, n);
}

void afw_out_end(struct afw_out *o)
{
	if (o->len)
		fwrite(o->buf, 1, o->len, o->f);
	o->len = 0;
}

void afw_out_hex(struct afw_out *o, const char *prefix, size_t plen, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	char s[8];

	memcpy(s, prefix, plen);
	s[plen] = hex[c >> 4];
	s[plen + 1] = hex[c & 15];
	afw_out_put(o, s, plen + 2);
}

/* A byte both logs write as it is: printable ASCII but the quote and '\'. */
static bool afw_byte_plain(unsigned char c)
{
	return c >= 0x20 && c <= 0x7e && c != '"' && c != '\\';
}

/* How many bytes from @c on are plain. */
static size_t afw_plain_run(const unsigned char *c, size_t n)
{
	size_t i = 0;

	while (i < n && afw_byte_plain(c[i]))
		i++;
	return i;
}

/* Plain runs as they are, one copy each; every other byte through @esc. */
static void afw_out_escaped(struct afw_out *o, const unsigned char *c, size_t n,
			    void (*esc)(struct afw_out *o, unsigned char c))
{
	size_t i = 0, run;

	while (i < n) {
		run = afw_plain_run(c + i, n - i);
		afw_out_put(o, c + i, run);
		i += run;
		if (i < n)
			esc(o, c[i++]);
	}
}

static void afw_esc_json(struct afw_out *o, unsigned char c)
{
	static const char short_form[] = { ['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n',
					   ['\r'] = 'r', ['\t'] = 't', ['"'] = '"',
					   ['\\'] = '\\' };

	if (c < sizeof(short_form) && short_form[c]) {
		char s[2] = { '\\', short_form[c] };

		afw_out_put(o, s, 2);
	} else {
		afw_out_hex(o, "\\u00", 4, c);
	}
}

static void afw_esc_text(struct afw_out *o, unsigned char c)
{
	if (c == '"' || c == '\\') {
		char s[2] = { '\\', (char)c };

		afw_out_put(o, s, 2);
	} else {
		afw_out_hex(o, "\\x", 2, c);
	}
}

void afw_out_json(struct afw_out *o, const void *p, size_t n)
{
	afw_out_char(o, '"');
	afw_out_escaped(o, p, n, afw_esc_json);
	afw_out_char(o, '"');
}

bool afw_text_is_plain(const void *p, size_t n)
{
	return afw_plain_run(p, n) == n;
}

void afw_out_plain(struct afw_out *o, const void *p, size_t n)
{
	afw_out_escaped(o, p, n, afw_esc_text);
}

void afw_out_quoted(struct afw_out *o, const void *p, size_t n)
{
	afw_out_char(o, '"');
	afw_out_plain(o, p, n);
	afw_out_char(o, '"');
}

void afw_json_bytes(FILE *out, const void *p, size_t n)
{
	struct afw_out o = { .f = out };

	afw_out_json(&o, p, n);
	afw_out_end(&o);
}

void afw_text_quoted(FILE *out, const void *p, size_t n)
{
	struct afw_out o = { .f = out };

	afw_out_quoted(&o, p, n);
	afw_out_end(&o);
}

void afw_text_plain(FILE *out, const void *p, size_t n)
{
	struct afw_out o = { .f = out };

	afw_out_plain(&o, p, n);
	afw_out_end(&o);
}
