/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sending side of a QUIC client Initial, for tests only: frames in,
 * protected packet out, so tests can build the packets a browser would send.
 */
#ifndef AFW_TEST_QUIC_SEAL_H
#define AFW_TEST_QUIC_SEAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <openssl/evp.h>

#include "quic.h"

/*
 * Seals payload_len bytes (frames, then zero PADDING) into a client Initial
 * with no token and no Source Connection ID, the reserved header bits set
 * to the two bits of reserved. Returns its size, 0 on error.
 */
/*
 * The same with the keys of @key_dcid, the client's first DCID, under the
 * DCID @dcid in the header: as a client sends once it switched to the
 * server's connection ID.
 */
static inline size_t afw_test_seal_keyed(struct afw_quic_ctx *ctx, uint32_t version,
					 const uint8_t *key_dcid, const uint8_t *dcid,
					 size_t dcid_len, uint64_t pn, unsigned int pn_len,
					 const uint8_t *frames, size_t frames_len,
					 size_t payload_len, unsigned int reserved, uint8_t *out,
					 size_t cap)
{
	/*
	 * The last keys made: deriving them is a dozen allocations in
	 * OpenSSL, and fuzz_quic seals with one DCID over and over.
	 */
	static struct {
		bool set;
		uint32_t version;
		size_t dcid_len;
		uint8_t dcid[AFW_QUIC_CID_MAX];
		struct afw_quic_keys keys;
	} last;
	struct afw_quic_keys keys;
	EVP_CIPHER_CTX *c = NULL;
	uint8_t mask[32], nonce[12];
	size_t pos = 0, pn_off, length, i;
	int outl, ok = 0;

	if (!last.set || last.version != version || last.dcid_len != dcid_len ||
	    memcmp(last.dcid, key_dcid, dcid_len)) {
		if (dcid_len > sizeof(last.dcid) ||
		    afw_quic_initial_keys(ctx, version, key_dcid, dcid_len, &last.keys, NULL)) {
			last.set = false;
			return 0;
		}
		last.set = true;
		last.version = version;
		last.dcid_len = dcid_len;
		memcpy(last.dcid, key_dcid, dcid_len);
	}
	keys = last.keys;
	if (payload_len < frames_len || pn_len < 1 || pn_len > 4)
		return 0;
	length = pn_len + payload_len + 16;
	if (length > 0x3fff || 1 + 4 + 1 + dcid_len + 1 + 1 + 2 + length > cap)
		return 0;
	out[pos++] = 0xc0 | (version == AFW_QUIC_V2 ? 0x10 : 0x00) | (reserved & 3) << 2 |
		     (pn_len - 1);
	out[pos++] = version >> 24;
	out[pos++] = version >> 16;
	out[pos++] = version >> 8;
	out[pos++] = version;
	out[pos++] = dcid_len;
	memcpy(out + pos, dcid, dcid_len);
	pos += dcid_len;
	out[pos++] = 0;			/* Source Connection ID length */
	out[pos++] = 0;			/* Token Length */
	out[pos++] = 0x40 | length >> 8;
	out[pos++] = length & 0xff;
	pn_off = pos;
	for (i = 0; i < pn_len; i++)
		out[pos++] = pn >> (8 * (pn_len - 1 - i));
	memcpy(out + pos, frames, frames_len);
	memset(out + pos + frames_len, 0, payload_len - frames_len);

	memcpy(nonce, keys.iv, sizeof(nonce));
	for (i = 0; i < 8; i++)
		nonce[11 - i] ^= pn >> (8 * i);
	c = EVP_CIPHER_CTX_new();
	if (!c ||
	    EVP_EncryptInit_ex(c, EVP_aes_128_gcm(), NULL, keys.key, nonce) != 1 ||
	    EVP_EncryptUpdate(c, NULL, &outl, out, (int)pos) != 1 ||
	    EVP_EncryptUpdate(c, out + pos, &outl, out + pos, (int)payload_len) != 1 ||
	    EVP_EncryptFinal_ex(c, out + pos + outl, &outl) != 1 ||
	    EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, out + pos + payload_len) != 1)
		goto out;
	if (EVP_EncryptInit_ex(c, EVP_aes_128_ecb(), NULL, keys.hp, NULL) != 1 ||
	    EVP_CIPHER_CTX_set_padding(c, 0) != 1 ||
	    EVP_EncryptUpdate(c, mask, &outl, out + pn_off + 4, 16) != 1)
		goto out;
	out[0] ^= mask[0] & 0x0f;
	for (i = 0; i < pn_len; i++)
		out[pn_off + i] ^= mask[1 + i];
	ok = 1;
out:
	EVP_CIPHER_CTX_free(c);
	return ok ? pos + payload_len + 16 : 0;
}

static inline size_t afw_test_seal_bits(struct afw_quic_ctx *ctx, uint32_t version,
					const uint8_t *dcid, size_t dcid_len, uint64_t pn,
					unsigned int pn_len, const uint8_t *frames,
					size_t frames_len, size_t payload_len, unsigned int reserved,
					uint8_t *out, size_t cap)
{
	return afw_test_seal_keyed(ctx, version, dcid, dcid, dcid_len, pn, pn_len, frames,
				   frames_len, payload_len, reserved, out, cap);
}

static inline size_t afw_test_seal(struct afw_quic_ctx *ctx, uint32_t version,
				   const uint8_t *dcid, size_t dcid_len, uint64_t pn,
				   unsigned int pn_len, const uint8_t *frames, size_t frames_len,
				   size_t payload_len, uint8_t *out, size_t cap)
{
	return afw_test_seal_bits(ctx, version, dcid, dcid_len, pn, pn_len, frames, frames_len,
				  payload_len, 0, out, cap);
}

/* Appends a CRYPTO frame (8-byte varints for brevity of the code). */
static inline size_t afw_test_crypto_frame(uint8_t *p, uint64_t off, const uint8_t *data,
					   size_t len)
{
	size_t n = 0;
	int i;

	p[n++] = 0x06;
	for (i = 7; i >= 0; i--)
		p[n++] = (i == 7 ? 0xc0 : 0) | ((off >> (8 * i)) & 0xff);
	p[n++] = 0x40 | len >> 8;
	p[n++] = len & 0xff;
	memcpy(p + n, data, len);
	return n + len;
}

#endif /* AFW_TEST_QUIC_SEAL_H */
