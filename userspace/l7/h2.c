// SPDX-License-Identifier: GPL-2.0
/*
 * HTTP/2 with prior knowledge: the preface, then frames up to the end of
 * the first header block, decoded by libnghttp2's HPACK inflater. Frames
 * are checked as a server checks them before it acts on a request: the
 * preface must be followed by SETTINGS, a header block must not be
 * interrupted, and no frame may be larger than 16384 bytes.
 */

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <nghttp2/nghttp2.h>

#include "h2.h"
#include "http.h"

#define AFW_H2_FRAME_HDR	9
#define AFW_H2_DATA		0x0
#define AFW_H2_HEADERS		0x1
#define AFW_H2_SETTINGS		0x4
#define AFW_H2_PUSH_PROMISE	0x5
#define AFW_H2_CONTINUATION	0x9
#define AFW_H2_END_HEADERS	0x4
#define AFW_H2_PADDED		0x8
#define AFW_H2_PRIORITY		0x20
#define AFW_H2_ACK		0x1

static enum afw_h2_status afw_h2_bad(struct afw_h2_request *r, const char *why)
{
	r->reason = why;
	return AFW_H2_BAD;
}

/* A field value kept past the inflater's next call. */
struct afw_h2_field {
	char v[AFW_H2_MAX_NAME + 1];
	size_t len;
	bool seen;
};

static enum afw_h2_status afw_h2_keep(struct afw_h2_request *r, struct afw_h2_field *f,
				      const nghttp2_nv *nv, const char *twice)
{
	if (f->seen)
		return afw_h2_bad(r, twice);
	if (!nv->valuelen || nv->valuelen > AFW_H2_MAX_NAME)
		return afw_h2_bad(r, "host field empty or longer than 255 bytes");
	memcpy(f->v, nv->value, nv->valuelen);
	f->len = nv->valuelen;
	f->seen = true;
	return AFW_H2_OK;
}

static bool afw_h2_name_is(const nghttp2_nv *nv, const char *name)
{
	return nv->namelen == strlen(name) && !strncasecmp((const char *)nv->name, name, nv->namelen);
}

/* The first header block, whole: the request's name. */
static enum afw_h2_status afw_h2_decode(const uint8_t *in, size_t inlen,
					struct afw_h2_request *r)
{
	struct afw_h2_field auth = { .seen = false }, host = { .seen = false };
	enum afw_h2_status st = AFW_H2_OK;
	struct afw_span a = { NULL, 0 }, h = { NULL, 0 };
	uint16_t aport = 0, hport = 0;
	nghttp2_hd_inflater *inf;
	bool regular = false;

	if (nghttp2_hd_inflate_new(&inf))
		return afw_h2_bad(r, "the HPACK decoder could not be set up");
	for (;;) {
		int flags = 0;
		nghttp2_nv nv;
		ssize_t n = nghttp2_hd_inflate_hd2(inf, &nv, &flags, in, inlen, 1);

		if (n < 0) {
			st = afw_h2_bad(r, "the header block does not decode (HPACK)");
			break;
		}
		in += n;
		inlen -= (size_t)n;
		if (flags & NGHTTP2_HD_INFLATE_EMIT) {
			if (nv.namelen && nv.name[0] == ':') {
				if (regular)
					st = afw_h2_bad(r, "a pseudo-header after a regular field");
				else if (afw_h2_name_is(&nv, ":authority"))
					st = afw_h2_keep(r, &auth, &nv, "duplicate :authority");
				else if (afw_h2_name_is(&nv, ":method") && !r->method[0])
					snprintf(r->method, sizeof(r->method), "%.*s",
						 (int)nv.valuelen, (const char *)nv.value);
			} else {
				regular = true;
				/* HPACK names are lower case; a server that takes others reads them so. */
				if (afw_h2_name_is(&nv, "host"))
					st = afw_h2_keep(r, &host, &nv, "duplicate host field");
			}
			if (st != AFW_H2_OK)
				break;
		}
		if (flags & NGHTTP2_HD_INFLATE_FINAL) {
			nghttp2_hd_inflate_end_headers(inf);
			break;
		}
		if (!(flags & NGHTTP2_HD_INFLATE_EMIT) && !inlen) {
			st = afw_h2_bad(r, "the header block ends inside a field");
			break;
		}
	}
	nghttp2_hd_inflate_del(inf);
	if (st != AFW_H2_OK)
		return st;
	if (auth.seen && !afw_http_authority((const uint8_t *)auth.v, auth.len, &a, &aport))
		return afw_h2_bad(r, ":authority is not a host name or address");
	if (host.seen && !afw_http_authority((const uint8_t *)host.v, host.len, &h, &hport))
		return afw_h2_bad(r, "host is not a host name or address");
	if (auth.seen && host.seen &&
	    (a.len != h.len || strncasecmp((const char *)a.p, (const char *)h.p, a.len)))
		return afw_h2_bad(r, "host names another host than :authority");
	if (!auth.seen && host.seen) {
		a = h;
		aport = hport;
	}
	if (auth.seen || host.seen) {
		memcpy(r->host, a.p, a.len);
		r->host[a.len] = '\0';
		r->host_len = a.len;
		r->port = aport;
		r->has_host = true;
	}
	return AFW_H2_OK;
}

static uint32_t afw_h2_get24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

enum afw_h2_status afw_h2_parse(const uint8_t *data, size_t len, uint8_t *scratch,
				size_t scratch_len, struct afw_h2_request *r)
{
	size_t off = AFW_H2_PREFACE_LEN, have = 0, b, e;
	bool settings = false, in_block = false;
	uint32_t flen, sid;
	uint8_t type, flags;
	const uint8_t *pl;

	memset(r, 0, sizeof(*r));
	if (memcmp(data, AFW_H2_PREFACE, len < AFW_H2_PREFACE_LEN ? len : AFW_H2_PREFACE_LEN)) {
		r->reason = "the stream does not start with the HTTP/2 preface";
		return AFW_H2_NOT_H2;
	}
	for (;;) {
		if (len < AFW_H2_PREFACE_LEN || len - off < AFW_H2_FRAME_HDR)
			return AFW_H2_MORE;
		flen = afw_h2_get24(data + off);
		type = data[off + 3];
		flags = data[off + 4];
		sid = ((uint32_t)data[off + 5] << 24 | (uint32_t)data[off + 6] << 16 |
		       (uint32_t)data[off + 7] << 8 | data[off + 8]) & 0x7fffffff;
		if (flen > AFW_H2_MAX_FRAME)
			return afw_h2_bad(r, "a frame larger than 16384 bytes");
		if (!settings && type != AFW_H2_SETTINGS)
			return afw_h2_bad(r, "the preface is not followed by SETTINGS");
		if (in_block && (type != AFW_H2_CONTINUATION || sid != r->stream))
			return afw_h2_bad(r, "a header block interrupted by another frame");
		if (len - off - AFW_H2_FRAME_HDR < flen)
			return AFW_H2_MORE;
		pl = data + off + AFW_H2_FRAME_HDR;
		off += AFW_H2_FRAME_HDR + flen;
		b = 0;
		e = flen;
		switch (type) {
		case AFW_H2_SETTINGS:
			if (sid || (flags & AFW_H2_ACK ? flen != 0 : flen % 6 != 0))
				return afw_h2_bad(r, "a SETTINGS frame of a wrong length or stream");
			settings = true;
			continue;
		case AFW_H2_HEADERS:
			if (!sid)
				return afw_h2_bad(r, "HEADERS on stream 0");
			if (flags & AFW_H2_PADDED) {
				if (!flen || pl[0] > flen - 1)
					return afw_h2_bad(r, "HEADERS padding longer than the frame");
				b = 1;
				e = flen - pl[0];
			}
			if ((flags & AFW_H2_PRIORITY) && (b += 5) > e)
				return afw_h2_bad(r, "HEADERS too short for its priority");
			r->stream = sid;
			break;
		case AFW_H2_CONTINUATION:
			if (!in_block)
				return afw_h2_bad(r, "CONTINUATION without HEADERS");
			break;
		case AFW_H2_DATA:
		case AFW_H2_PUSH_PROMISE:
			return afw_h2_bad(r, "DATA or PUSH_PROMISE before any request");
		default:
			/* PRIORITY, PING, WINDOW_UPDATE, unknown types: nothing to read. */
			continue;
		}
		if (have + (e - b) > scratch_len)
			return afw_h2_bad(r, "a header block larger than the scratch buffer");
		memcpy(scratch + have, pl + b, e - b);
		have += e - b;
		in_block = !(flags & AFW_H2_END_HEADERS);
		if (!in_block) {
			r->consumed = off;
			return afw_h2_decode(scratch, have, r);
		}
	}
}

const char *afw_h2_status_name(enum afw_h2_status st)
{
	switch (st) {
	case AFW_H2_OK:
		return "ok";
	case AFW_H2_MORE:
		return "more";
	case AFW_H2_NOT_H2:
		return "not-h2";
	case AFW_H2_BAD:
		return "bad";
	}
	return "?";
}
