// SPDX-License-Identifier: GPL-2.0
/*
 * HTTP/1.x request head: request line, then header lines up to the empty
 * line. Only the method, the target and Host are kept; every other header is
 * checked for shape and skipped. Bare LF line ends are accepted, as most
 * servers do, so that a request a server would honour is not missed here.
 */

#include <string.h>

#include "http.h"

static enum afw_http_status afw_http_bad(struct afw_http_request *r, const char *why)
{
	r->reason = why;
	return AFW_HTTP_BAD;
}

static enum afw_http_status afw_http_not(struct afw_http_request *r, const char *why)
{
	r->reason = why;
	return AFW_HTTP_NOT_HTTP;
}

/* RFC 9110 5.6.2 tchar. */
static bool afw_http_tchar(uint8_t c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return true;
	return c && strchr("!#$%&'*+-.^_`|~", c);
}

static bool afw_http_hostchar(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_';
}

static uint8_t afw_http_lower(uint8_t c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

static bool afw_http_eq_nocase(const uint8_t *a, size_t alen, const char *b)
{
	size_t i;

	if (alen != strlen(b))
		return false;
	for (i = 0; i < alen; i++)
		if (afw_http_lower(a[i]) != (uint8_t)b[i])
			return false;
	return true;
}

/*
 * "host", "host:port", "[v6]" or "[v6]:port", as in Host and in the
 * authority of a target. User information is refused: it has no business in
 * a request and only serves to hide the real host from a naive reader.
 */
bool afw_http_authority(const uint8_t *p, size_t n, struct afw_span *host, uint16_t *port)
{
	size_t i = 0, end;
	uint32_t v = 0;

	if (n && p[0] == '[') {
		for (i = 1; i < n && p[i] != ']'; i++) {
			uint8_t c = afw_http_lower(p[i]);

			if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == ':' ||
			      c == '.'))
				return false;
		}
		if (i == n || i == 1)
			return false;
		host->p = p + 1;
		host->len = i - 1;
		i++;
	} else {
		while (i < n && afw_http_hostchar(p[i]))
			i++;
		if (!i)
			return false;
		host->p = p;
		host->len = i;
	}
	end = i;
	*port = 0;
	if (end == n)
		return true;
	if (p[end] != ':')
		return false;
	/* An empty port is allowed by RFC 3986 and means the default. */
	for (i = end + 1; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
		v = v * 10 + (p[i] - '0');
		if (v > 65535)
			return false;
	}
	*port = (uint16_t)v;
	return true;
}

/* The authority of an absolute-form target, "scheme://authority[/?#...]". */
static enum afw_http_status afw_http_target_host(struct afw_http_request *r, bool connect)
{
	const uint8_t *p = r->target.p;
	size_t n = r->target.len, i, a;

	if (connect) {
		if (!afw_http_authority(p, n, &r->host, &r->port))
			return afw_http_bad(r, "CONNECT target is not host:port");
		r->has_host = true;
		return AFW_HTTP_OK;
	}
	if (p[0] == '/' || (n == 1 && p[0] == '*'))
		return AFW_HTTP_OK;
	for (i = 0; i < n && p[i] != ':'; i++) {
		uint8_t c = afw_http_lower(p[i]);

		if (!((c >= 'a' && c <= 'z') || (i && ((c >= '0' && c <= '9') || c == '+' ||
							c == '-' || c == '.'))))
			return afw_http_bad(r, "target is neither a path nor an absolute URI");
	}
	if (!i || n - i < 3 || p[i + 1] != '/' || p[i + 2] != '/')
		return afw_http_bad(r, "target is neither a path nor an absolute URI");
	a = i + 3;
	for (i = a; i < n && p[i] != '/' && p[i] != '?' && p[i] != '#'; i++)
		;
	if (memchr(p + a, '@', i - a))
		return afw_http_bad(r, "user information in the request target");
	if (!afw_http_authority(p + a, i - a, &r->host, &r->port))
		return afw_http_bad(r, "request target has no valid host");
	r->has_host = true;
	return AFW_HTTP_OK;
}

static bool afw_http_same_host(const struct afw_span *a, const struct afw_span *b)
{
	size_t i;

	if (a->len != b->len)
		return false;
	for (i = 0; i < a->len; i++)
		if (afw_http_lower(a->p[i]) != afw_http_lower(b->p[i]))
			return false;
	return true;
}

static bool afw_http_sp(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

/*
 * The request line; on OK, *@next is the offset of the first header line,
 * or, for an HTTP/0.9 request (no version, no headers), the end of the
 * head, and *@simple is set. What is read here is a superset of what nginx
 * 1.22 and Python's http.server accept (docs/afwd.md): leading empty lines
 * and white space, any token as the method, runs of blanks between the
 * parts, trailing blanks, any HTTP/1 minor version. A request one of them
 * would serve is never "not HTTP" here.
 */
static enum afw_http_status afw_http_request_line(const uint8_t *data, size_t len,
						  struct afw_http_request *r, size_t *next,
						  bool *simple)
{
	size_t i = 0, t, v;

	/* RFC 9112 2.2: empty lines before a request are ignored. */
	while (i < len && (afw_http_sp(data[i]) || data[i] == '\r' || data[i] == '\n')) {
		if (i >= AFW_HTTP_MAX_HEADER)
			return afw_http_not(r, "only blank lines");
		i++;
	}
	if (i == len)
		return AFW_HTTP_MORE;
	r->lead = i;
	for (t = i; i < len && afw_http_tchar(data[i]); i++)
		if (i - t >= AFW_HTTP_MAX_HEADER)
			return afw_http_not(r, "method longer than the header bound");
	if (i == len)
		return AFW_HTTP_MORE;
	if (i == t || !afw_http_sp(data[i]))
		return afw_http_not(r, "request does not start with a method");
	r->method.p = data + t;
	r->method.len = i - t;

	while (i < len && afw_http_sp(data[i]))
		i++;
	for (t = i; i < len && !afw_http_sp(data[i]) && data[i] != '\r' && data[i] != '\n';
	     i++) {
		if (data[i] < 0x21 || data[i] > 0x7e)
			return afw_http_bad(r, "request target has a control or non-ASCII byte");
		if (i >= AFW_HTTP_MAX_HEADER)
			return afw_http_bad(r, "request line longer than the header bound");
	}
	if (i == len)
		return AFW_HTTP_MORE;
	if (i == t)
		return afw_http_not(r, "request line has no target");
	r->target.p = data + t;
	r->target.len = i - t;

	while (i < len && afw_http_sp(data[i]))
		i++;
	if (i == len)
		return AFW_HTTP_MORE;
	if (data[i] == '\r' || data[i] == '\n') {
		/* "GET /path": an HTTP/0.9 request, which nginx and Python serve. */
		if (r->method.len != 3 || memcmp(r->method.p, "GET", 3))
			return afw_http_not(r, "request line has no HTTP version");
		if (data[i] == '\r' && ++i == len)
			return AFW_HTTP_MORE;
		if (data[i] != '\n')
			return afw_http_bad(r, "request line does not end after the target");
		*next = i + 1;
		*simple = true;
		r->minor = 9;
		return AFW_HTTP_OK;
	}
	for (v = i; i < len && i - v < 5; i++)
		if (afw_http_lower(data[i]) != (uint8_t)"http/"[i - v])
			return afw_http_not(r, "version is not HTTP/1.x");
	if (i == len)
		return AFW_HTTP_MORE;
	if (data[i] != '1')
		return afw_http_not(r, "version is not HTTP/1.x");
	if (++i == len)
		return AFW_HTTP_MORE;
	if (data[i] != '.')
		return afw_http_not(r, "version is not HTTP/1.x");
	if (++i == len)
		return AFW_HTTP_MORE;
	for (v = i; i < len && data[i] >= '0' && data[i] <= '9'; i++)
		if (i - v >= 3)
			return afw_http_bad(r, "HTTP minor version of more than 3 digits");
	if (i == len)
		return AFW_HTTP_MORE;
	if (i == v)
		return afw_http_not(r, "version is not HTTP/1.x");
	r->minor = (uint8_t)(i - v > 1 ? 99 : data[v] - '0');
	while (i < len && (data[i] == ' ' || data[i] == '\t'))
		i++;
	if (i < len && data[i] == '\r' && ++i == len)
		return AFW_HTTP_MORE;
	if (i == len)
		return AFW_HTTP_MORE;
	if (data[i] != '\n')
		return afw_http_bad(r, "request line does not end after the version");
	*next = i + 1;
	return AFW_HTTP_OK;
}

/* Content-Length, Transfer-Encoding and Upgrade: where the body ends. */
static void afw_http_framing(const uint8_t *line, size_t name, size_t n,
			     struct afw_http_request *r)
{
	size_t b = name + 1, e = n, i;
	uint64_t v = 0;

	while (b < e && (line[b] == ' ' || line[b] == '\t'))
		b++;
	while (e > b && (line[e - 1] == ' ' || line[e - 1] == '\t'))
		e--;
	if (afw_http_eq_nocase(line, name, "upgrade")) {
		r->upgrade = true;
	} else if (afw_http_eq_nocase(line, name, "content-length")) {
		for (i = b; i < e && v < (1ull << 50); i++) {
			if (line[i] < '0' || line[i] > '9')
				break;
			v = v * 10 + (line[i] - '0');
		}
		if (i != e || b == e)
			r->framing = "Content-Length is not a number";
		else if (r->has_length && v != r->content_length)
			r->framing = "two Content-Lengths that differ";
		r->content_length = v;
		r->has_length = true;
	} else if (afw_http_eq_nocase(line, name, "transfer-encoding")) {
		/* The last coding must be chunked: RFC 9112 6.3. */
		r->chunked = e - b >= 7 && afw_http_eq_nocase(line + e - 7, 7, "chunked") &&
			     (e - b == 7 || line[e - 8] == ',' || line[e - 8] == ' ' ||
			      line[e - 8] == '\t');
		if (!r->chunked)
			r->framing = "Transfer-Encoding does not end in chunked";
		if (r->has_te)
			r->framing = "Transfer-Encoding given twice";
		r->has_te = true;
	}
	if (r->has_te && r->has_length)
		r->framing = "both Content-Length and Transfer-Encoding";
}

static enum afw_http_status afw_http_header(const uint8_t *line, size_t n,
					    struct afw_http_request *r, struct afw_span *host_hdr,
					    uint16_t *host_port)
{
	size_t i, b, e;

	if (line[0] == ' ' || line[0] == '\t')
		return afw_http_bad(r, "obsolete folded header line");
	for (i = 0; i < n && line[i] != ':'; i++)
		if (!afw_http_tchar(line[i]))
			return afw_http_bad(r, "header name has a byte not allowed in a token");
	if (i == n || !i)
		return afw_http_bad(r, "header line without a name and a colon");
	for (b = i + 1; b < n; b++)
		if (line[b] == '\r' || line[b] == '\0')
			return afw_http_bad(r, "stray CR or NUL in a header value");
	if (!afw_http_eq_nocase(line, i, "host")) {
		afw_http_framing(line, i, n, r);
		return AFW_HTTP_OK;
	}
	if (host_hdr->p)
		return afw_http_bad(r, "duplicate Host header");
	for (b = i + 1; b < n && (line[b] == ' ' || line[b] == '\t'); b++)
		;
	for (e = n; e > b && (line[e - 1] == ' ' || line[e - 1] == '\t'); e--)
		;
	if (!afw_http_authority(line + b, e - b, host_hdr, host_port))
		return afw_http_bad(r, "Host is not a host name or address");
	return AFW_HTTP_OK;
}

enum afw_http_status afw_http_parse(const uint8_t *data, size_t len, struct afw_http_request *r)
{
	struct afw_span host_hdr = { NULL, 0 };
	enum afw_http_status st;
	uint16_t host_port = 0;
	bool simple = false;
	size_t off;

	memset(r, 0, sizeof(*r));
	st = afw_http_request_line(data, len, r, &off, &simple);
	if (st != AFW_HTTP_OK)
		return st;

	while (!simple) {
		const uint8_t *lf;
		size_t n;

		lf = off < len ? memchr(data + off, '\n', len - off) : NULL;
		if (!lf || (size_t)(lf - data) >= AFW_HTTP_MAX_HEADER) {
			if (len >= AFW_HTTP_MAX_HEADER)
				return afw_http_bad(r, "header block longer than 8192 bytes");
			return AFW_HTTP_MORE;
		}
		n = (size_t)(lf - (data + off));
		if (n && data[off + n - 1] == '\r')
			n--;
		if (!n) {
			off = (size_t)(lf - data) + 1;
			break;
		}
		st = afw_http_header(data + off, n, r, &host_hdr, &host_port);
		if (st != AFW_HTTP_OK)
			return st;
		off = (size_t)(lf - data) + 1;
	}
	r->header_len = off;
	if (!r->has_te && !r->has_length)
		r->content_length = 0;

	if (afw_http_eq_nocase(r->method.p, r->method.len, "connect"))
		r->upgrade = true;
	st = afw_http_target_host(r, afw_http_eq_nocase(r->method.p, r->method.len, "connect"));
	if (st != AFW_HTTP_OK)
		return st;
	if (r->has_host && host_hdr.p && !afw_http_same_host(&r->host, &host_hdr))
		return afw_http_bad(r, "Host header names another host than the request target");
	if (!r->has_host && host_hdr.p) {
		r->host = host_hdr;
		r->port = host_port;
		r->has_host = true;
	}
	if (!r->has_host && r->minor >= 1 && !simple)
		return afw_http_bad(r, "HTTP/1.1 request without Host");
	return AFW_HTTP_OK;
}

enum {
	AFW_FOLLOW_HEAD,
	AFW_FOLLOW_BODY,
	AFW_FOLLOW_SIZE,	/* chunk size, hex digits */
	AFW_FOLLOW_EXT,		/* chunk extensions, to the end of the line */
	AFW_FOLLOW_DATA,
	AFW_FOLLOW_DATA_END,	/* the CRLF after chunk data */
	AFW_FOLLOW_TRAILER,
};

/* The state after the head of @r: its body, or the next head. */
static enum afw_http_status afw_http_follow_body(struct afw_http_follow *fl,
						 struct afw_http_request *r)
{
	fl->upgrade = r->upgrade;
	if (r->framing)
		return afw_http_bad(r, r->framing);
	if (r->chunked) {
		fl->state = AFW_FOLLOW_SIZE;
		fl->digits = false;
		fl->left = 0;
	} else if (r->content_length) {
		fl->state = AFW_FOLLOW_BODY;
		fl->left = r->content_length;
	} else {
		fl->state = AFW_FOLLOW_HEAD;
	}
	return AFW_HTTP_OK;
}

void afw_http_follow_init(struct afw_http_follow *fl, uint8_t *buf,
			  const struct afw_http_request *first)
{
	struct afw_http_request r = *first;

	memset(fl, 0, sizeof(*fl));
	fl->buf = buf;
	/* A first head whose framing is unclear fails at the first byte after it. */
	if (afw_http_follow_body(fl, &r) != AFW_HTTP_OK)
		fl->broken = r.reason;
}

static int afw_http_hex(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = afw_http_lower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

enum afw_http_status afw_http_follow_feed(struct afw_http_follow *fl, const uint8_t *data,
					  size_t len, size_t *used, struct afw_http_request *req)
{
	enum afw_http_status st;
	size_t i = 0, take;
	int h;

	memset(req, 0, sizeof(*req));
	*used = len;
	if (fl->broken && len)
		return afw_http_bad(req, fl->broken);
	while (i < len) {
		uint8_t c = data[i];

		switch (fl->state) {
		case AFW_FOLLOW_HEAD:
			take = len - i;
			if (take > AFW_HTTP_MAX_HEADER - fl->have)
				take = AFW_HTTP_MAX_HEADER - fl->have;
			memcpy(fl->buf + fl->have, data + i, take);
			fl->have += take;
			st = afw_http_parse(fl->buf, fl->have, req);
			if (st == AFW_HTTP_MORE) {
				if (fl->have == AFW_HTTP_MAX_HEADER)
					return afw_http_bad(req, "header block longer than 8192 bytes");
				i += take;
				continue;
			}
			if (st != AFW_HTTP_OK)
				return st;
			/* Bytes past the head go back to the caller. */
			*used = i + take - (fl->have - req->header_len);
			fl->have = 0;
			return afw_http_follow_body(fl, req);
		case AFW_FOLLOW_BODY:
		case AFW_FOLLOW_DATA:
			take = len - i < fl->left ? len - i : (size_t)fl->left;
			fl->left -= take;
			i += take;
			if (!fl->left)
				fl->state = fl->state == AFW_FOLLOW_BODY ? AFW_FOLLOW_HEAD :
					    AFW_FOLLOW_DATA_END;
			continue;
		case AFW_FOLLOW_SIZE:
			h = afw_http_hex(c);
			if (h >= 0) {
				if (fl->left >> 56)
					return afw_http_bad(req, "chunk size past 2^60");
				fl->left = fl->left << 4 | (uint64_t)h;
				fl->digits = true;
			} else if (!fl->digits) {
				return afw_http_bad(req, "chunk size is not hexadecimal");
			} else if (c == ';' || c == ' ' || c == '\t' || c == '\r') {
				fl->state = AFW_FOLLOW_EXT;
			} else if (c == '\n') {
				goto size_done;
			} else {
				return afw_http_bad(req, "chunk size is not hexadecimal");
			}
			break;
		case AFW_FOLLOW_EXT:
			if (c == '\n')
				goto size_done;
			break;
		case AFW_FOLLOW_DATA_END:
			if (c == '\n') {
				fl->state = AFW_FOLLOW_SIZE;
				fl->digits = false;
			} else if (c != '\r') {
				return afw_http_bad(req, "chunk data longer than its size");
			}
			break;
		case AFW_FOLLOW_TRAILER:
			if (c == '\n') {
				if (fl->empty_line)
					fl->state = AFW_FOLLOW_HEAD;
				fl->empty_line = true;
			} else if (c != '\r') {
				fl->empty_line = false;
			}
			break;
		}
		i++;
		continue;
size_done:
		i++;
		fl->digits = false;
		if (fl->left) {
			fl->state = AFW_FOLLOW_DATA;
		} else {
			fl->state = AFW_FOLLOW_TRAILER;
			fl->empty_line = true;
		}
	}
	return AFW_HTTP_MORE;
}

bool afw_http_follow_in_body(const struct afw_http_follow *fl)
{
	return fl->state != AFW_FOLLOW_HEAD;
}

enum afw_http_status afw_http_shadow_feed(struct afw_http_shadow *sh, const uint8_t *data,
					  size_t len, size_t *used, struct afw_http_request *req)
{
	enum afw_http_status st;
	size_t take = len;

	memset(req, 0, sizeof(*req));
	*used = len;
	if (take > AFW_HTTP_MAX_HEADER - sh->have)
		take = AFW_HTTP_MAX_HEADER - sh->have;
	memcpy(sh->buf + sh->have, data, take);
	sh->have += take;
	st = afw_http_parse(sh->buf, sh->have, req);
	if (st == AFW_HTTP_MORE) {
		if (sh->have < AFW_HTTP_MAX_HEADER)
			return AFW_HTTP_MORE;
		st = afw_http_bad(req, "header block longer than 8192 bytes");
	}
	if (st != AFW_HTTP_OK) {
		sh->on = false;
		sh->have = 0;
		return st;
	}
	/* The bytes past the head were taken from @data, and go back. */
	*used = take - (sh->have - req->header_len);
	sh->have = 0;
	return AFW_HTTP_OK;
}

const char *afw_http_status_name(enum afw_http_status st)
{
	switch (st) {
	case AFW_HTTP_OK:
		return "ok";
	case AFW_HTTP_MORE:
		return "more";
	case AFW_HTTP_NOT_HTTP:
		return "not-http";
	case AFW_HTTP_BAD:
		return "bad";
	}
	return "?";
}
