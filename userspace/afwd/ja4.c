// SPDX-License-Identifier: GPL-2.0
/*
 * JA4 of a ClientHello. The three parts are: a readable summary (transport,
 * version, SNI or not, counts, ALPN), a hash of the sorted cipher suites and
 * a hash of the sorted extensions followed by the signature algorithms in the
 * client's order. GREASE values count nowhere.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "ja4.h"

#define AFW_JA4_HASH_LEN	12

/* Hex list "xxxx,xxxx,..." of up to 512 values, plus the signature algorithms. */
#define AFW_JA4_TEXT_MAX \
	((AFW_TLS_MAX_CIPHERS + AFW_TLS_MAX_EXTS + AFW_TLS_MAX_SIGALGS) * 5 + 2)

/* Past this, insertion sort's quadratic worst case would cost more than qsort's calls. */
#define AFW_JA4_INSERTION_MAX	64

static const char afw_ja4_hex[] = "0123456789abcdef";

static int afw_ja4_cmp(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

/*
 * Real hellos list 10 to 60 values, where an insertion sort is several times
 * cheaper than qsort's indirect comparisons; a crafted list of hundreds still
 * gets n log n.
 */
static void afw_ja4_sort(uint16_t *v, size_t n)
{
	size_t i, j;

	if (n > AFW_JA4_INSERTION_MAX) {
		qsort(v, n, sizeof(v[0]), afw_ja4_cmp);
		return;
	}
	for (i = 1; i < n; i++) {
		uint16_t x = v[i];

		for (j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
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

/* The first 12 hex digits of SHA-256 of @text, or twelve zeros for an empty list. */
static int afw_ja4_hash(const char *text, size_t len, bool empty, char *out)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int md_len;
	int i;

	if (empty) {
		memset(out, '0', AFW_JA4_HASH_LEN);
		return 0;
	}
	if (!EVP_Digest(text, len, md, &md_len, EVP_sha256(), NULL))
		return -1;
	for (i = 0; i < AFW_JA4_HASH_LEN / 2; i++) {
		out[2 * i] = afw_ja4_hex[md[i] >> 4];
		out[2 * i + 1] = afw_ja4_hex[md[i] & 0xf];
	}
	return 0;
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

int afw_ja4(const struct afw_tls_hello *h, enum afw_ja4_transport transport,
	    char out[AFW_JA4_LEN + 1])
{
	uint16_t ciphers[AFW_TLS_MAX_CIPHERS], exts[AFW_TLS_MAX_EXTS], sigs[AFW_TLS_MAX_SIGALGS];
	size_t n_ciphers, n_exts = 0, n_hashed, n_sigs = 0, pos;
	char text[AFW_JA4_TEXT_MAX], alpn[2];
	unsigned int i;

	n_ciphers = afw_ja4_values(&h->ciphers, ciphers);
	for (i = 0; i < h->n_exts; i++)
		if (!afw_tls_is_grease(h->exts[i]))
			exts[n_exts++] = h->exts[i];
	if (h->has_sig_algs)
		n_sigs = afw_ja4_values(&h->sig_algs, sigs);
	afw_ja4_alpn(h, alpn);

	snprintf(out, AFW_JA4_LEN + 1, "%c%s%c%02zu%02zu%c%c_", (char)transport,
		 afw_ja4_version(h->version), h->has_sni ? 'd' : 'i',
		 n_ciphers > 99 ? 99 : n_ciphers, n_exts > 99 ? 99 : n_exts, alpn[0], alpn[1]);

	afw_ja4_sort(ciphers, n_ciphers);
	pos = afw_ja4_list(text, 0, ciphers, n_ciphers);
	if (afw_ja4_hash(text, pos, !n_ciphers, out + 11))
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
	if (afw_ja4_hash(text, pos, !n_hashed, out + 24))
		return -1;
	out[AFW_JA4_LEN] = '\0';
	return 0;
}
