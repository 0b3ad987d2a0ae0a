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
 * "host", "host:port", "[v6]" or "[v6]:port" at @p (@n bytes), as in Host
 * and in HTTP/2's :authority: the host without brackets in @host (a span
 * of @p) and the port, 0 when none. False for anything else, user
 * information included.
 */
bool afw_http_authority(const uint8_t *p, size_t n, struct afw_span *host, uint16_t *port);

#endif /* AFW_HTTP_H */
