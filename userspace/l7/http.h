/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The request line and Host of an HTTP/1.x request, read from the client's
 * first bytes. Like the TLS parser, this keeps no state: the caller passes
 * the stream received so far and calls again after AFW_HTTP_MORE.
 */
#ifndef AFW_HTTP_H
#define AFW_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "span.h"

enum afw_http_status {
	AFW_HTTP_OK,		/* the header block is complete and well-formed */
	AFW_HTTP_MORE,		/* consistent so far, incomplete */
	AFW_HTTP_NOT_HTTP,	/* the first bytes are not an HTTP/1.x request line */
	AFW_HTTP_BAD,		/* HTTP/1.x, but malformed: see afw_http_request.reason */
};

/* A header block that has not ended within this many bytes is BAD. */
#define AFW_HTTP_MAX_HEADER	8192

struct afw_http_request {
	struct afw_span method;		/* "GET", "CONNECT", ... */
	struct afw_span target;		/* the request-target as sent */
	struct afw_span host;		/* host name or address, no port, no brackets */
	uint16_t port;			/* from Host or the target; 0 if none was given */
	bool has_host;
	uint8_t minor;			/* HTTP/1.<minor>; 9 for an HTTP/0.9 request, 99 for 1.10+ */
	size_t lead;			/* empty lines and blanks before the request line */
	size_t header_len;		/* bytes up to and including the empty line */
	/*
	 * Where the body ends, for a reader of the requests that follow:
	 * content_length bytes, or chunked; framing says why that cannot be
	 * told (Content-Length and Transfer-Encoding both, two lengths that
	 * differ, a coding other than chunked last...), NULL when it can.
	 */
	uint64_t content_length;
	bool chunked;
	bool upgrade;			/* Upgrade or CONNECT: the stream may change protocol */
	bool has_length, has_te;
	const char *framing;
	const char *reason;		/* with AFW_HTTP_BAD or AFW_HTTP_NOT_HTTP: why */
};

/*
 * The host comes from an absolute-form target ("http://host:port/...") or
 * the authority of CONNECT, else from the Host header. Both present and
 * naming different hosts is BAD: servers disagree about which one wins.
 */
enum afw_http_status afw_http_parse(const uint8_t *data, size_t len, struct afw_http_request *r);

const char *afw_http_status_name(enum afw_http_status st);

/*
 * The requests that follow the first on one connection, for a flow under
 * inspection: the body of each (Content-Length bytes, or chunks up to the
 * last and its trailer) is skipped, and each next request head is read as
 * afw_http_parse() reads the first. The caller feeds the client's bytes in
 * order.
 */
struct afw_http_follow {
	uint8_t *buf;		/* the head being gathered; AFW_HTTP_MAX_HEADER bytes */
	size_t have;
	uint64_t left;		/* body or chunk bytes still to skip */
	uint8_t state;
	bool upgrade;		/* the last request may have switched protocols */
	bool empty_line;	/* in a trailer: the line so far is empty */
	bool digits;		/* in a chunk size: a digit was seen */
	const char *broken;	/* the first request's body cannot be delimited: why */
};

/* Starts after @first, whose head ended where the next bytes begin. */
void afw_http_follow_init(struct afw_http_follow *fl, uint8_t *buf,
			  const struct afw_http_request *first);

/*
 * Feeds @len in-order bytes. Returns AFW_HTTP_MORE when they are all used
 * and no head completed; AFW_HTTP_OK when a head completed, in *@req
 * (spans into fl->buf, valid until the next call), with *@used bytes of
 * @data taken: feed the rest again; AFW_HTTP_BAD or AFW_HTTP_NOT_HTTP, with
 * req->reason, when what follows cannot be read as requests (after one
 * that asked for an Upgrade or a CONNECT, NOT_HTTP means the protocol
 * changed).
 */
enum afw_http_status afw_http_follow_feed(struct afw_http_follow *fl, const uint8_t *data,
					  size_t len, size_t *used, struct afw_http_request *req);

/* Is the follower inside a body: did the last head announce one? */
bool afw_http_follow_in_body(const struct afw_http_follow *fl);

/*
 * The same bytes as a server reads them that never reads a body: Python's
 * http.server with a handler that ignores it, or any endpoint that answers
 * without reading what was sent (a "CL.0" desynchronisation). There a
 * body is the next request head, and its own body the one after. Started
 * where a body starts, a shadow reads heads back to back, ignoring their
 * framing, until the bytes are no request at all (NOT_HTTP: the shadow is
 * off, as such a server refuses them and closes).
 */
struct afw_http_shadow {
	uint8_t *buf;		/* AFW_HTTP_MAX_HEADER bytes */
	size_t have;
	bool on;
};

/*
 * Feeds @len in-order bytes, as afw_http_follow_feed() does: MORE when they
 * are all taken; OK with a head in *@req (spans into sh->buf, valid until
 * the next call) and *@used bytes taken; NOT_HTTP when the shadow ends;
 * BAD for a head a lenient server might still act on.
 */
enum afw_http_status afw_http_shadow_feed(struct afw_http_shadow *sh, const uint8_t *data,
					  size_t len, size_t *used, struct afw_http_request *req);

/*
 * "host", "host:port", "[v6]" or "[v6]:port" at @p (@n bytes), as in Host
 * and in HTTP/2's :authority: the host without brackets in @host (a span
 * of @p) and the port, 0 when none. False for anything else, user
 * information included.
 */
bool afw_http_authority(const uint8_t *p, size_t n, struct afw_span *host, uint16_t *port);

#endif /* AFW_HTTP_H */
