/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JA4, the TLS client fingerprint published by FoxIO, of a parsed ClientHello.
 */
#ifndef AFW_JA4_H
#define AFW_JA4_H

#include "tls.h"

/* "t13d1516h2_8daaf6152771_e5627efa2ab1": 10 + 1 + 12 + 1 + 12 characters. */
#define AFW_JA4_LEN	36

enum afw_ja4_transport {
	AFW_JA4_TCP = 't',
	AFW_JA4_QUIC = 'q',
};

/*
 * What afw_ja4() hashes with, looked up once: one per thread, as it is
 * written to on every call.
 */
struct afw_ja4_ctx;

struct afw_ja4_ctx *afw_ja4_ctx_new(void);
void afw_ja4_ctx_free(struct afw_ja4_ctx *ctx);

/*
 * Writes the fingerprint of @h, a hello that afw_tls_parse_* returned OK for,
 * and its terminating NUL to @out. Returns 0, or -1 if hashing failed.
 */
int afw_ja4(struct afw_ja4_ctx *ctx, const struct afw_tls_hello *h,
	    enum afw_ja4_transport transport, char out[AFW_JA4_LEN + 1]);

#endif /* AFW_JA4_H */
