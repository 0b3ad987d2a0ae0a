/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The TLS ClientHello, read from the client's first bytes.
 *
 * Nothing here allocates or keeps state between calls: the caller hands in
 * the contiguous client stream received so far (or, for QUIC, the CRYPTO
 * stream) and calls again with more bytes after AFW_TLS_MORE. Results are
 * spans into the caller's input, or into the caller's scratch buffer when
 * the ClientHello was fragmented over several TLS records; they are valid
 * while those buffers are.
 */
#ifndef AFW_TLS_H
#define AFW_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "span.h"

enum afw_tls_status {
	AFW_TLS_OK,		/* a complete, well-formed ClientHello */
	AFW_TLS_MORE,		/* consistent so far, incomplete: call again with more */
	AFW_TLS_NOT_TLS,	/* the first bytes are not a TLS handshake record */
	AFW_TLS_BAD,		/* TLS, but malformed: see afw_tls_hello.reason */
};

/*
 * Bounds on what one ClientHello may carry. Real clients stay far below
 * them; a hello beyond them is refused as BAD rather than read partially.
 */
#define AFW_TLS_MAX_EXTS	64
#define AFW_TLS_MAX_CIPHERS	512
#define AFW_TLS_MAX_SIGALGS	128
#define AFW_TLS_MAX_SNI		255
/* A scratch buffer of this size holds any ClientHello worth reading. */
#define AFW_TLS_SCRATCH_SIZE	16384

#define AFW_TLS_EXT_SNI			0x0000
#define AFW_TLS_EXT_SIG_ALGS		0x000d
#define AFW_TLS_EXT_ALPN		0x0010
#define AFW_TLS_EXT_SUPPORTED_VERSIONS	0x002b
#define AFW_TLS_EXT_ECH			0xfe0d
/* OpenSSL reads past this many empty records in a row, and refuses one more. */
#define AFW_TLS_MAX_EMPTY		32

struct afw_tls_hello {
	uint16_t legacy_version;	/* the ClientHello's client_version field */
	uint16_t version;		/* highest non-GREASE supported_versions, else legacy */
	bool has_supported_versions;
	bool has_sni;
	bool has_alpn;
	bool has_sig_algs;
	bool has_ech;			/* encrypted_client_hello: sni is the public name */
	struct afw_span sni;		/* the host_name, without terminator */
	struct afw_span alpn;		/* ProtocolNameList body: 1-byte length, name, ... */
	struct afw_span ciphers;	/* 2-byte big-endian values, GREASE included */
	struct afw_span sig_algs;	/* 2-byte big-endian values, in client order */
	struct afw_span supported_versions;	/* 2-byte big-endian values */
	uint16_t exts[AFW_TLS_MAX_EXTS];	/* extension types in wire order */
	unsigned int n_exts;
	/* Bytes of input the ClientHello took: records included, or just the message. */
	size_t consumed;
	size_t msg_len;			/* the handshake message, with its 4-byte header */
	const char *reason;		/* with AFW_TLS_BAD or AFW_TLS_NOT_TLS: why */
};

/*
 * Parses the ClientHello at the start of @data, a TCP client stream of TLS
 * records, as OpenSSL reads it: any record version 3.x, empty handshake
 * records skipped (at most AFW_TLS_MAX_EMPTY in a row). @scratch (AFW_TLS_SCRATCH_SIZE is enough) is written only when the
 * handshake message spans several records; it may be NULL if @scratch_len is 0,
 * and then such a hello is BAD.
 */
enum afw_tls_status afw_tls_parse_stream(const uint8_t *data, size_t len, uint8_t *scratch,
					 size_t scratch_len, struct afw_tls_hello *h);

/*
 * After a server's HelloRetryRequest (RFC 8446 4.1.4) a client sends a
 * second ClientHello, and the server reads its extensions anew: OpenSSL
 * runs its server_name callback again. This reads the hello that follows
 * the first @first bytes of handshake messages in @data, the client's
 * stream from its start, as the server's record layer hands them on:
 * handshake records carry them, a change_cipher_spec record may come
 * between (middlebox compatibility, RFC 8446 D.4), and application_data
 * or alert records carry none (early data a server skips, or an end).
 * OK: the next hello, *h as afw_tls_parse_stream() fills it (consumed:
 * the stream bytes up to its end); MORE: none whole yet; BAD: handshake
 * bytes that are no ClientHello, or records no server would read.
 */
enum afw_tls_status afw_tls_parse_next(const uint8_t *data, size_t len, size_t first,
				       uint8_t *scratch, size_t scratch_len,
				       struct afw_tls_hello *h);

/* A ServerHello's random that makes it a HelloRetryRequest (RFC 8446 4.1.3). */
extern const uint8_t afw_tls_hrr_random[32];

/*
 * Parses a bare handshake message (type, 24-bit length, ClientHello body),
 * as QUIC carries it in CRYPTO frames. Bytes after the message are not read.
 */
enum afw_tls_status afw_tls_parse_handshake(const uint8_t *data, size_t len,
					    struct afw_tls_hello *h);

/* GREASE values (RFC 8701): 0x?a?a with both bytes equal. */
static inline bool afw_tls_is_grease(uint16_t v)
{
	return (v & 0x0f0f) == 0x0a0a && (v >> 8) == (v & 0xff);
}

/*
 * Steps through the names of a parsed ALPN list: start with *@off = 0; returns
 * false after the last name. The parser checked the list, so this cannot
 * overrun it.
 */
bool afw_tls_alpn_next(const struct afw_span *alpn, size_t *off, struct afw_span *name);

const char *afw_tls_status_name(enum afw_tls_status st);

#endif /* AFW_TLS_H */
