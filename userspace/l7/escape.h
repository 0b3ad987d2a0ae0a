/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bytes from the network in the logs. A host name, an ALPN value or any
 * other field a client chose may hold quotes, control characters, NUL or
 * bytes that are not UTF-8; written as they are, they could end a line
 * early, forge a field, or drive the terminal that shows the log. Every
 * such field goes through one of these.
 */
#ifndef AFW_ESCAPE_H
#define AFW_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * A record being written: its bytes gather in @buf and reach @f in one
 * fwrite() when the buffer fills or afw_out_end() is called, so a line
 * costs one stdio call rather than one per field. Start one as
 * { .f = out }.
 */
struct afw_out {
	FILE *f;
	size_t len;
	char buf[512];
};

void afw_out_put(struct afw_out *o, const void *s, size_t n);
void afw_out_str(struct afw_out *o, const char *s);
void afw_out_char(struct afw_out *o, char c);
/* @v in decimal. */
void afw_out_uint(struct afw_out *o, uint64_t v);
/* The @plen bytes of @prefix (at most 6), then @c as two lowercase hex digits. */
void afw_out_hex(struct afw_out *o, const char *prefix, size_t plen, unsigned char c);
/* Writes what gathered. */
void afw_out_end(struct afw_out *o);

/*
 * @n bytes at @p as one JSON string (RFC 8259), quotes included: '"' and
 * '\' escaped, \b \f \n \r \t in their short forms, every other byte
 * below 0x20 or above 0x7e as \u00XX. Bytes above 0x7e are escaped one by
 * one (as the code points U+0080..U+00FF), so the output is ASCII and
 * always valid JSON whatever the input.
 */
void afw_out_json(struct afw_out *o, const void *p, size_t n);

/*
 * @n bytes at @p as one quoted field of the text log: printable ASCII as
 * it is, except '"' and '\', which are escaped with '\'; every other byte
 * as \xHH. Spaces stay inside the quotes, so the field cannot end early.
 */
void afw_out_quoted(struct afw_out *o, const void *p, size_t n);

/*
 * The same without the quotes, for words whose characters afwd chose (a
 * JA4 fingerprint, a reason): anything unexpected is still escaped.
 */
void afw_out_plain(struct afw_out *o, const void *p, size_t n);

/* The three above, written to @out at once. */
void afw_json_bytes(FILE *out, const void *p, size_t n);
void afw_text_quoted(FILE *out, const void *p, size_t n);
void afw_text_plain(FILE *out, const void *p, size_t n);

/* True when afw_text_plain() would write the @n bytes at @p as they are. */
bool afw_text_is_plain(const void *p, size_t n);

#endif /* AFW_ESCAPE_H */
