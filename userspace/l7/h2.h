/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HTTP/2 with prior knowledge (RFC 9113 3.3): the client preface, its
 * frames, and the name of the first request, read from :authority or Host
 * in the first HEADERS block (with its CONTINUATION frames) by a real
 * HPACK decoder, libnghttp2's. Like the other readers this keeps no state
 * between calls: the caller passes the stream received so far and calls
 * again after AFW_H2_MORE.
 */
#ifndef AFW_H2_H
#define AFW_H2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "span.h"

enum afw_h2_status {
	AFW_H2_OK,		/* the first HEADERS block is complete and decoded */
	AFW_H2_MORE,		/* consistent so far, incomplete */
	AFW_H2_NOT_H2,		/* the stream does not start with the HTTP/2 preface */
	AFW_H2_BAD,		/* HTTP/2, but malformed: see afw_h2_request.reason */
};

#define AFW_H2_PREFACE		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
#define AFW_H2_PREFACE_LEN	24
/* SETTINGS_MAX_FRAME_SIZE before the client can know the server's: RFC 9113 4.2. */
#define AFW_H2_MAX_FRAME	16384
#define AFW_H2_MAX_NAME		255

struct afw_h2_request {
	char host[AFW_H2_MAX_NAME + 1];	/* without port or brackets; "" if none */
	size_t host_len;
	bool has_host;
	uint16_t port;
	char method[17];		/* :method, cut short; "" if none */
	uint32_t stream;		/* of the first HEADERS */
	size_t consumed;		/* bytes up to the end of the header block */
	const char *reason;		/* with AFW_H2_BAD or AFW_H2_NOT_H2: why */
};

/*
 * Reads @data (@len bytes), a client's stream. @scratch (@scratch_len
 * bytes, AFW_TLS_SCRATCH_SIZE is plenty) gathers the header block when it
 * spans frames. The host comes from :authority, else from a host field;
 * both present and naming different hosts, or either given twice, is BAD.
 */
enum afw_h2_status afw_h2_parse(const uint8_t *data, size_t len, uint8_t *scratch,
				size_t scratch_len, struct afw_h2_request *r);

const char *afw_h2_status_name(enum afw_h2_status st);

#endif /* AFW_H2_H */
