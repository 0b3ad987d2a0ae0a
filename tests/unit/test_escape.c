// SPDX-License-Identifier: GPL-2.0
/*
 * Names from the network in the logs: whatever bytes a client puts in a
 * name, the JSON log holds one valid RFC 8259 string and the text log one
 * quoted field, neither with a raw control byte, a raw quote or a newline.
 */

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "escape.h"

static char *render(void (*fn)(FILE *, const void *, size_t), const void *p, size_t n)
{
	static char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	fn(f, p, n);
	fclose(f);
	return buf;
}

/* A JSON string token, per RFC 8259 section 7, and nothing after it. */
static int json_string_ok(const char *s)
{
	if (*s++ != '"')
		return 0;
	while (*s && *s != '"') {
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return 0;
		if (*s == '\\') {
			s++;
			if (strchr("\"\\/bfnrt", *s) && *s) {
				s++;
				continue;
			}
			if (*s != 'u')
				return 0;
			for (int i = 1; i <= 4; i++)
				if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i])
					return 0;
			s += 5;
			continue;
		}
		s++;
	}
	return *s == '"' && s[1] == '\0';
}

static int printable_only(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return 0;
	return 1;
}

int main(void)
{
	static const char evil[] = "a\"b\\c\nd\x1b[31me\0f\xc0\x80g\x7f\xff h\r\t";
	size_t n = sizeof(evil) - 1;
	unsigned char all[256];
	const char *out;
	int failed = 0;

	out = render(afw_json_bytes, evil, n);
	CHECK(failed, "JSON: quote, backslash, controls, NUL and high bytes are escaped",
	      !strcmp(out, "\"a\\\"b\\\\c\\nd\\u001b[31me\\u0000f\\u00c0\\u0080g\\u007f\\u00ff"
			   " h\\r\\t\""));
	CHECK(failed, "JSON: the result is one valid string token", json_string_ok(out));
	CHECK(failed, "JSON: the bytes after a NUL are kept", strstr(out, "\\u0000f") != NULL);

	out = render(afw_text_quoted, evil, n);
	CHECK(failed, "text: quoted, with quote and backslash escaped, the rest as \\xHH",
	      !strcmp(out, "\"a\\\"b\\\\c\\x0ad\\x1b[31me\\x00f\\xc0\\x80g\\x7f\\xff h\\x0d\\x09\""));
	CHECK(failed, "text: only printable ASCII", printable_only(out));

	for (int i = 0; i < 256; i++)
		all[i] = (unsigned char)i;
	out = render(afw_json_bytes, all, sizeof(all));
	CHECK(failed, "JSON: every byte value gives a valid string", json_string_ok(out));
	out = render(afw_text_quoted, all, sizeof(all));
	/* The field ends at the first quote that is not escaped: the last byte. */
	{
		const char *q = out + 1;

		while (*q && *q != '"')
			q += *q == '\\' ? 2 : 1;
		CHECK(failed, "text: every byte value stays inside one quoted field",
		      printable_only(out) && *q == '"' && q[1] == '\0');
	}
	out = render(afw_json_bytes, "", 0);
	CHECK(failed, "JSON: an empty name is \"\"", !strcmp(out, "\"\""));
	out = render(afw_text_plain, "t13d1516h2_8daaf6152771", 23);
	CHECK(failed, "text: a plain word is written as it is", !strcmp(out, "t13d1516h2_8daaf6152771"));
	return failed;
}
