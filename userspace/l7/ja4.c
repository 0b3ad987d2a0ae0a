// SPDX-License-Identifier: GPL-2.0
/*
 * JA4 of a ClientHello. The three parts are: a readable summary (transport,
 * version, SNI or not, counts, ALPN), a hash of the sorted cipher suites and
 * a hash of the sorted extensions followed by the signature algorithms in the
 * client's order. GREASE values count nowhere.
 */

#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "ja4.h"

#define AFW_JA4_HASH_LEN	12

/*
 * EVP_Digest() with EVP_sha256() looks the algorithm up and builds a digest
 * context on each call, which cost more than the hashing itself.
 */
struct afw_ja4_ctx {
	EVP_MD *sha256;
	EVP_MD_CTX *md;
};

/* Hex list "xxxx,xxxx,..." of up to 512 values, plus the signature algorithms. */
#define AFW_JA4_TEXT_MAX \
	((AFW_TLS_MAX_CIPHERS + AFW_TLS_MAX_EXTS + AFW_TLS_MAX_SIGALGS) * 5 + 2)

static const char afw_ja4_hex[] = "0123456789abcdef";

/*
 * Shell sort with Ciura's gaps: real hellos list 10 to 60 values, where it
 * takes a fraction of qsort's indirect comparisons or of a plain insertion
 * sort's moves, and the 512 values a crafted hello may carry stay cheap too.
 */
static void afw_ja4_sort(uint16_t *v, size_t n)
{
	static const size_t gaps[] = { 301, 132, 57, 23, 10, 4, 1 };
	size_t g, i, j;

	for (g = 0; g < sizeof(gaps) / sizeof(gaps[0]); g++) {
		size_t gap = gaps[g];

		for (i = gap; i < n; i++) {
			uint16_t x = v[i];

			for (j = i; j >= gap && v[j - gap] > x; j -= gap)
				v[j] = v[j - gap];
			v[j] = x;
		}
	}
}

static const char *afw_ja4_version(uint16_t v)
{
	switch (v) {
	case 0x0304:
		return "13";
	case 0x0303:
		return "12";
	case 0x0302:
		return "11";
	case 0x0301:
		return "10";
	case 0x0300:
		return "s3";
	case 0x0002:
		return "s2";
	case 0xfeff:
		return "d1";
	case 0xfefd:
		return "d2";
	case 0xfefc:
		return "d3";
	}
	return "00";
}

static bool afw_ja4_alnum(uint8_t c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* First and last character of the first ALPN name, or of its hex when not alphanumeric. */
static void afw_ja4_alpn(const struct afw_tls_hello *h, char out[2])
{
	struct afw_span name;
	size_t off = 0;
	uint8_t first, last;

	if (!h->has_alpn || !afw_tls_alpn_next(&h->alpn, &off, &name) || !name.len) {
		out[0] = '0';
		out[1] = '0';
		return;
	}
	first = name.p[0];
	last = name.p[name.len - 1];
	if (afw_ja4_alnum(first) && afw_ja4_alnum(last)) {
		out[0] = (char)first;
		out[1] = (char)last;
	} else {
		out[0] = afw_ja4_hex[first >> 4];
		out[1] = afw_ja4_hex[last & 0xf];
	}
}

/* "xxxx,xxxx,...": formatted by hand, as sprintf cost more than all the rest of JA4. */
static size_t afw_ja4_list(char *text, size_t pos, const uint16_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i)
			text[pos++] = ',';
		text[pos++] = afw_ja4_hex[v[i] >> 12];
		text[pos++] = afw_ja4_hex[(v[i] >> 8) & 0xf];
		text[pos++] = afw_ja4_hex[(v[i] >> 4) & 0xf];
		text[pos++] = afw_ja4_hex[v[i] & 0xf];
	}
	return pos;
}

struct afw_ja4_ctx *afw_ja4_ctx_new(void)
{
	struct afw_ja4_ctx *ctx;

	ctx = OPENSSL_zalloc(sizeof(*ctx));
	if (!ctx)
		return NULL;
	ctx->sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
	if (!ctx->sha256)
		goto err;
	ctx->md = EVP_MD_CTX_new();
	if (!ctx->md)
		goto err;
	return ctx;

err:
	afw_ja4_ctx_free(ctx);
	return NULL;
}

void afw_ja4_ctx_free(struct afw_ja4_ctx *ctx)
{
	if (!ctx)
		return;
	EVP_MD_CTX_free(ctx->md);
	EVP_MD_free(ctx->sha256);
	OPENSSL_free(ctx);
}

/* The first 12 hex digits of SHA-256 of @text, or twelve zeros for an empty list. */
static int afw_ja4_hash(struct afw_ja4_ctx *ctx, const char *text, size_t len, bool empty,
			char *out)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int md_len;
	int i;

	if (empty) {
		memset(out, '0', AFW_JA4_HASH_LEN);
		return 0;
	}
	if (!EVP_DigestInit_ex(ctx->md, ctx->sha256, NULL) ||
	    !EVP_DigestUpdate(ctx->md, text, len) || !EVP_DigestFinal_ex(ctx->md, md, &md_len))
		return -1;
	for (i = 0; i < AFW_JA4_HASH_LEN / 2; i++) {
		out[2 * i] = afw_ja4_hex[md[i] >> 4];
		out[2 * i + 1] = afw_ja4_hex[md[i] & 0xf];
	}
	return 0;
}

/* Two decimal digits, 99 for anything larger. */
static void afw_ja4_count(size_t n, char *out)
{
	if (n > 99)
		n = 99;
	out[0] = (char)('0' + n / 10);
	out[1] = (char)('0' + n % 10);
}

/* Copies the non-GREASE 2-byte values of @s to @v; returns how many. */
static size_t afw_ja4_values(const struct afw_span *s, uint16_t *v)
{
	size_t i, n = 0;

	for (i = 0; i + 1 < s->len; i += 2) {
		uint16_t x = (uint16_t)(s->p[i] << 8 | s->p[i + 1]);

		if (!afw_tls_is_grease(x))
			v[n++] = x;
	}
	return n;
}

int afw_ja4(struct afw_ja4_ctx *ctx, const struct afw_tls_hello *h,
	    enum afw_ja4_transport transport, char out[AFW_JA4_LEN + 1])
{
	uint16_t ciphers[AFW_TLS_MAX_CIPHERS], exts[AFW_TLS_MAX_EXTS], sigs[AFW_TLS_MAX_SIGALGS];
	size_t n_ciphers, n_exts = 0, n_hashed, n_sigs = 0, pos;
	char text[AFW_JA4_TEXT_MAX];
	unsigned int i;

	n_ciphers = afw_ja4_values(&h->ciphers, ciphers);
	for (i = 0; i < h->n_exts; i++)
		if (!afw_tls_is_grease(h->exts[i]))
			exts[n_exts++] = h->exts[i];
	if (h->has_sig_algs)
		n_sigs = afw_ja4_values(&h->sig_algs, sigs);

	/* "t13d1516h2_", put together by hand: snprintf cost more than parsing the hello. */
	out[0] = (char)transport;
	memcpy(out + 1, afw_ja4_version(h->version), 2);
	out[3] = h->has_sni ? 'd' : 'i';
	afw_ja4_count(n_ciphers, out + 4);
	afw_ja4_count(n_exts, out + 6);
	afw_ja4_alpn(h, out + 8);
	out[10] = '_';

	afw_ja4_sort(ciphers, n_ciphers);
	pos = afw_ja4_list(text, 0, ciphers, n_ciphers);
	if (afw_ja4_hash(ctx, text, pos, !n_ciphers, out + 11))
		return -1;
	out[23] = '_';

	/* SNI and ALPN already show in the first part; leaving them out keeps this one stable. */
	n_hashed = 0;
	for (i = 0; i < n_exts; i++)
		if (exts[i] != AFW_TLS_EXT_SNI && exts[i] != AFW_TLS_EXT_ALPN)
			exts[n_hashed++] = exts[i];
	afw_ja4_sort(exts, n_hashed);
	pos = afw_ja4_list(text, 0, exts, n_hashed);
	if (n_sigs) {
		text[pos++] = '_';
		pos = afw_ja4_list(text, pos, sigs, n_sigs);
	}
	if (afw_ja4_hash(ctx, text, pos, !n_hashed, out + 24))
		return -1;
	out[AFW_JA4_LEN] = '\0';
	return 0;
}
