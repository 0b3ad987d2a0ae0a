// SPDX-License-Identifier: GPL-2.0
/*
 * Any bytes, as a client stream of TLS records and as a bare handshake
 * message: no crash, no read outside the input, spans inside the input or
 * the scratch buffer, and a hello that parses is MORE one byte shorter.
 */

#include <stdlib.h>
#include <string.h>

#include "ja4.h"
#include "tls.h"

static uint8_t scratch[AFW_TLS_SCRATCH_SIZE];

static void afw_fuzz_inside(const struct afw_span *s, const uint8_t *data, size_t len)
{
	bool in_data = s->p >= data && s->p + s->len <= data + len;
	bool in_scratch = s->p >= scratch && s->p + s->len <= scratch + sizeof(scratch);

	if (s->len && !in_data && !in_scratch)
		abort();
}

static void afw_fuzz_check(enum afw_tls_status st, const struct afw_tls_hello *h,
			   const uint8_t *data, size_t len, enum afw_ja4_transport t)
{
	static struct afw_ja4_ctx *ctx;
	char fp[AFW_JA4_LEN + 1];
	struct afw_span name;
	size_t off = 0;

	if ((st == AFW_TLS_BAD || st == AFW_TLS_NOT_TLS) && !h->reason)
		abort();
	if (st != AFW_TLS_OK)
		return;
	if (!h->consumed || h->consumed > len || h->n_exts > AFW_TLS_MAX_EXTS)
		abort();
	afw_fuzz_inside(&h->sni, data, len);
	afw_fuzz_inside(&h->alpn, data, len);
	afw_fuzz_inside(&h->ciphers, data, len);
	afw_fuzz_inside(&h->sig_algs, data, len);
	afw_fuzz_inside(&h->supported_versions, data, len);
	if (h->has_sni && (!h->sni.len || h->sni.len > AFW_TLS_MAX_SNI || memchr(h->sni.p, 0,
										 h->sni.len)))
		abort();
	while (afw_tls_alpn_next(&h->alpn, &off, &name))
		if (!name.len)
			abort();
	if (h->has_alpn && off != h->alpn.len)
		abort();
	/* Made once: the fuzzer calls in for every input of a long run. */
	if (!ctx)
		ctx = afw_ja4_ctx_new();
	if (!ctx || afw_ja4(ctx, h, t, fp) || strlen(fp) != AFW_JA4_LEN || fp[0] != (char)t)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct afw_tls_hello h;
	enum afw_tls_status st;
	size_t consumed;

	st = afw_tls_parse_stream(data, len, scratch, sizeof(scratch), &h);
	afw_fuzz_check(st, &h, data, len, AFW_JA4_TCP);
	if (st == AFW_TLS_OK) {
		consumed = h.consumed;
		if (afw_tls_parse_stream(data, consumed - 1, scratch, sizeof(scratch), &h) !=
		    AFW_TLS_MORE)
			abort();
	}
	/* A small scratch buffer must refuse, never overflow. */
	st = afw_tls_parse_stream(data, len, scratch, 64, &h);
	afw_fuzz_check(st, &h, data, len, AFW_JA4_TCP);

	st = afw_tls_parse_handshake(data, len, &h);
	afw_fuzz_check(st, &h, data, len, AFW_JA4_QUIC);
	if (st == AFW_TLS_OK) {
		consumed = h.consumed;
		if (afw_tls_parse_handshake(data, consumed - 1, &h) != AFW_TLS_MORE)
			abort();
	}
	return 0;
}
