// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC v1 (RFC 9000, RFC 9001) and v2 (RFC 9369) client Initial packets:
 * keys from the Destination Connection ID, header protection, AES-128-GCM,
 * the frames an Initial may carry, and reassembly of the CRYPTO stream.
 */

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include "quic.h"

#define AFW_QUIC_TAG_LEN	16
#define AFW_QUIC_SAMPLE_LEN	16
#define AFW_QUIC_VARINT_MAX	((1ULL << 62) - 1)

struct afw_quic_ctx {
	EVP_KDF_CTX *kdf;
	EVP_CIPHER *ecb, *gcm;
	EVP_CIPHER_CTX *hp, *aead;
	/* One datagram's plaintext: Initials are decrypted here, not in place. */
	uint8_t plain[AFW_QUIC_DGRAM_MAX];
};

struct afw_quic_version {
	uint32_t version;
	uint8_t salt[20];
	const char *key, *iv, *hp;	/* HKDF-Expand-Label labels */
	uint8_t type_bits[4];		/* long-header type bits, by enum afw_quic_type */
};

static const struct afw_quic_version afw_quic_versions[] = {
	{
		.version = AFW_QUIC_V1,
		.salt = { 0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17,
			  0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad, 0xcc, 0xbb, 0x7f, 0x0a },
		.key = "quic key", .iv = "quic iv", .hp = "quic hp",
		.type_bits = { 0, 1, 2, 3 },
	},
	{
		.version = AFW_QUIC_V2,
		.salt = { 0x0d, 0xed, 0xe3, 0xde, 0xf7, 0x00, 0xa6, 0xdb, 0x81, 0x93,
			  0x81, 0xbe, 0x6e, 0x26, 0x9d, 0xcb, 0xf9, 0xbd, 0x2e, 0xd9 },
		.key = "quicv2 key", .iv = "quicv2 iv", .hp = "quicv2 hp",
		.type_bits = { 1, 2, 3, 0 },
	},
};

static const struct afw_quic_version *afw_quic_version_find(uint32_t version)
{
	size_t i;

	for (i = 0; i < sizeof(afw_quic_versions) / sizeof(afw_quic_versions[0]); i++)
		if (afw_quic_versions[i].version == version)
			return &afw_quic_versions[i];
	return NULL;
}

static int afw_quic_fail(const char **why, int err, const char *reason)
{
	if (why)
		*why = reason;
	return err;
}

struct afw_quic_ctx *afw_quic_ctx_new(void)
{
	struct afw_quic_ctx *ctx;
	EVP_KDF *kdf;

	ctx = OPENSSL_zalloc(sizeof(*ctx));
	if (!ctx)
		return NULL;
	kdf = EVP_KDF_fetch(NULL, OSSL_KDF_NAME_HKDF, NULL);
	if (!kdf)
		goto err;
	/* The context holds its own reference to the algorithm. */
	ctx->kdf = EVP_KDF_CTX_new(kdf);
	EVP_KDF_free(kdf);
	if (!ctx->kdf)
		goto err;
	ctx->ecb = EVP_CIPHER_fetch(NULL, "AES-128-ECB", NULL);
	ctx->gcm = EVP_CIPHER_fetch(NULL, "AES-128-GCM", NULL);
	if (!ctx->ecb || !ctx->gcm)
		goto err;
	ctx->hp = EVP_CIPHER_CTX_new();
	ctx->aead = EVP_CIPHER_CTX_new();
	if (!ctx->hp || !ctx->aead)
		goto err;
	return ctx;

err:
	afw_quic_ctx_free(ctx);
	return NULL;
}

void afw_quic_ctx_free(struct afw_quic_ctx *ctx)
{
	if (!ctx)
		return;
	EVP_CIPHER_CTX_free(ctx->aead);
	EVP_CIPHER_CTX_free(ctx->hp);
	EVP_CIPHER_free(ctx->gcm);
	EVP_CIPHER_free(ctx->ecb);
	EVP_KDF_CTX_free(ctx->kdf);
	OPENSSL_free(ctx);
}

static int afw_quic_hkdf(struct afw_quic_ctx *ctx, const char *mode, const uint8_t *key,
			 size_t key_len, const uint8_t *salt_or_info, size_t sl, int is_salt,
			 uint8_t *out, size_t out_len)
{
	OSSL_PARAM params[5], *p = params;

	*p++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, "SHA256", 0);
	*p++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_MODE, (char *)mode, 0);
	*p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)key, key_len);
	*p++ = OSSL_PARAM_construct_octet_string(is_salt ? OSSL_KDF_PARAM_SALT :
						 OSSL_KDF_PARAM_INFO, (void *)salt_or_info, sl);
	*p = OSSL_PARAM_construct_end();
	/* A reused context would otherwise keep the previous call's info. */
	EVP_KDF_CTX_reset(ctx->kdf);
	return EVP_KDF_derive(ctx->kdf, out, out_len, params) == 1 ? 0 : -ENOMEM;
}

/* HKDF-Expand-Label of TLS 1.3 (RFC 8446 section 7.1), with an empty context. */
static int afw_quic_expand_label(struct afw_quic_ctx *ctx, const uint8_t secret[32],
				 const char *label, uint8_t *out, size_t out_len)
{
	static const char prefix[] = "tls13 ";
	uint8_t info[2 + 1 + 255 + 1];
	size_t plen = sizeof(prefix) - 1, llen = strlen(label), n = 0;

	info[n++] = out_len >> 8;
	info[n++] = out_len & 0xff;
	info[n++] = plen + llen;
	memcpy(info + n, prefix, plen);
	n += plen;
	memcpy(info + n, label, llen);
	n += llen;
	info[n++] = 0;
	return afw_quic_hkdf(ctx, "EXPAND_ONLY", secret, 32, info, n, 0, out, out_len);
}

int afw_quic_initial_keys(struct afw_quic_ctx *ctx, uint32_t version, const uint8_t *dcid,
			  size_t dcid_len, struct afw_quic_keys *keys, const char **why)
{
	const struct afw_quic_version *v = afw_quic_version_find(version);
	uint8_t initial[32], client[32];
	int err;

	if (!v)
		return afw_quic_fail(why, -EPROTONOSUPPORT, "not QUIC version 1 or 2");
	if (dcid_len < AFW_QUIC_CID_MIN || dcid_len > AFW_QUIC_CID_MAX)
		return afw_quic_fail(why, -EINVAL,
				     "client's first Destination Connection ID is not 8 to 20 bytes");
	err = afw_quic_hkdf(ctx, "EXTRACT_ONLY", dcid, dcid_len, v->salt, sizeof(v->salt), 1,
			    initial, sizeof(initial));
	if (!err)
		err = afw_quic_expand_label(ctx, initial, "client in", client, sizeof(client));
	if (!err)
		err = afw_quic_expand_label(ctx, client, v->key, keys->key, sizeof(keys->key));
	if (!err)
		err = afw_quic_expand_label(ctx, client, v->iv, keys->iv, sizeof(keys->iv));
	if (!err)
		err = afw_quic_expand_label(ctx, client, v->hp, keys->hp, sizeof(keys->hp));
	OPENSSL_cleanse(initial, sizeof(initial));
	OPENSSL_cleanse(client, sizeof(client));
	if (err)
		return afw_quic_fail(why, err, "OpenSSL HKDF failed");
	return 0;
}

/* RFC 9000 section 16; never reads past len. */
static int afw_quic_varint(const uint8_t *p, size_t len, size_t *pos, uint64_t *val)
{
	size_t i, n;

	if (*pos >= len)
		return -1;
	n = (size_t)1 << (p[*pos] >> 6);
	if (len - *pos < n)
		return -1;
	*val = p[*pos] & 0x3f;
	for (i = 1; i < n; i++)
		*val = (*val << 8) | p[*pos + i];
	*pos += n;
	return 0;
}

int afw_quic_parse_header(const uint8_t *pkt, size_t len, struct afw_quic_packet *pk,
			  const char **why)
{
	const struct afw_quic_version *v;
	uint64_t token_len, length;
	size_t pos = 5;
	unsigned int bits, t;

	memset(pk, 0, sizeof(*pk));
	if (len < 7)
		return afw_quic_fail(why, -EINVAL, "long header truncated");
	if (!(pkt[0] & 0x80))
		return afw_quic_fail(why, -EINVAL, "not a long-header packet");
	pk->version = (uint32_t)pkt[1] << 24 | pkt[2] << 16 | pkt[3] << 8 | pkt[4];
	v = afw_quic_version_find(pk->version);
	if (!v)
		return afw_quic_fail(why, -EPROTONOSUPPORT, "not QUIC version 1 or 2");
	/* Only an extension negotiated later lets the fixed bit be zero. */
	if (!(pkt[0] & 0x40))
		return afw_quic_fail(why, -EINVAL, "fixed bit is zero");

	pk->dcid_len = pkt[pos++];
	if (pk->dcid_len > AFW_QUIC_CID_MAX)
		return afw_quic_fail(why, -EINVAL, "Destination Connection ID longer than 20 bytes");
	if (len - pos < pk->dcid_len + 1u)
		return afw_quic_fail(why, -EINVAL, "Destination Connection ID past the end");
	pk->dcid = pkt + pos;
	pos += pk->dcid_len;
	pk->scid_len = pkt[pos++];
	if (pk->scid_len > AFW_QUIC_CID_MAX)
		return afw_quic_fail(why, -EINVAL, "Source Connection ID longer than 20 bytes");
	if (len - pos < pk->scid_len)
		return afw_quic_fail(why, -EINVAL, "Source Connection ID past the end");
	pk->scid = pkt + pos;
	pos += pk->scid_len;

	bits = (pkt[0] >> 4) & 3;
	for (t = 0; t < 4; t++)
		if (v->type_bits[t] == bits)
			pk->type = t;
	if (pk->type == AFW_QUIC_RETRY)
		return afw_quic_fail(why, -EPROTONOSUPPORT, "Retry packet from a client");

	if (pk->type == AFW_QUIC_INITIAL) {
		if (afw_quic_varint(pkt, len, &pos, &token_len))
			return afw_quic_fail(why, -EINVAL, "Token Length truncated");
		if (token_len > len - pos)
			return afw_quic_fail(why, -EINVAL, "token past the end");
		pk->token = pkt + pos;
		pk->token_len = token_len;
		pos += token_len;
	}
	if (afw_quic_varint(pkt, len, &pos, &length))
		return afw_quic_fail(why, -EINVAL, "Length truncated");
	if (length > len - pos)
		return afw_quic_fail(why, -EINVAL, "Length past the end of the datagram");
	pk->pn_offset = pos;
	pk->size = pos + length;
	return 0;
}

/* RFC 9000 appendix A.3. */
static uint64_t afw_quic_pn_expand(int64_t largest, uint64_t truncated, unsigned int pn_len)
{
	uint64_t expected = (uint64_t)(largest + 1);
	uint64_t win = 1ULL << (pn_len * 8), hwin = win / 2, mask = win - 1;
	uint64_t candidate = (expected & ~mask) | truncated;

	if (candidate + hwin <= expected && candidate < (1ULL << 62) - win)
		return candidate + win;
	if (candidate > expected + hwin && candidate >= win)
		return candidate - win;
	return candidate;
}

int afw_quic_open(struct afw_quic_ctx *ctx, const struct afw_quic_keys *keys, int64_t largest_pn,
		  const uint8_t *pkt, struct afw_quic_packet *pk, const char **why)
{
	uint8_t mask[AFW_QUIC_SAMPLE_LEN + 16], nonce[12], tag[AFW_QUIC_TAG_LEN], pnb[4];
	size_t pn_len, ct_off, ct_len, i;
	uint64_t truncated = 0;
	int outl, n;

	if (pk->type != AFW_QUIC_INITIAL)
		return afw_quic_fail(why, -EINVAL, "not an Initial packet");
	/* Also keeps every length below handed to OpenSSL within an int. */
	if (pk->size > AFW_QUIC_DGRAM_MAX)
		return afw_quic_fail(why, -EINVAL, "packet larger than a UDP datagram");
	/* The sample is taken as if the packet number were 4 bytes long. */
	if (pk->size < pk->pn_offset + 4 + AFW_QUIC_SAMPLE_LEN)
		return afw_quic_fail(why, -EINVAL, "packet too short to sample for header protection");

	if (EVP_EncryptInit_ex2(ctx->hp, ctx->ecb, keys->hp, NULL, NULL) != 1 ||
	    EVP_CIPHER_CTX_set_padding(ctx->hp, 0) != 1 ||
	    EVP_EncryptUpdate(ctx->hp, mask, &outl, pkt + pk->pn_offset + 4,
			      AFW_QUIC_SAMPLE_LEN) != 1 || outl != AFW_QUIC_SAMPLE_LEN)
		return afw_quic_fail(why, -ENOMEM, "OpenSSL AES-128-ECB failed");

	pk->first = pkt[0] ^ (mask[0] & 0x0f);
	pn_len = (pk->first & 3) + 1;
	for (i = 0; i < pn_len; i++) {
		pnb[i] = pkt[pk->pn_offset + i] ^ mask[1 + i];
		truncated = truncated << 8 | pnb[i];
	}
	pk->pn = afw_quic_pn_expand(largest_pn, truncated, pn_len);

	ct_off = pk->pn_offset + pn_len;
	ct_len = pk->size - ct_off - AFW_QUIC_TAG_LEN;
	memcpy(tag, pkt + ct_off + ct_len, sizeof(tag));
	memcpy(nonce, keys->iv, sizeof(nonce));
	for (i = 0; i < 8; i++)
		nonce[sizeof(nonce) - 1 - i] ^= (pk->pn >> (8 * i)) & 0xff;

	/* The associated data is the header as it is without protection. */
	if (EVP_DecryptInit_ex2(ctx->aead, ctx->gcm, keys->key, nonce, NULL) != 1 ||
	    EVP_DecryptUpdate(ctx->aead, NULL, &outl, &pk->first, 1) != 1 ||
	    EVP_DecryptUpdate(ctx->aead, NULL, &outl, pkt + 1, pk->pn_offset - 1) != 1 ||
	    EVP_DecryptUpdate(ctx->aead, NULL, &outl, pnb, pn_len) != 1 ||
	    EVP_DecryptUpdate(ctx->aead, ctx->plain, &outl, pkt + ct_off, ct_len) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ctx->aead, EVP_CTRL_AEAD_SET_TAG, sizeof(tag), tag) != 1)
		return afw_quic_fail(why, -ENOMEM, "OpenSSL AES-128-GCM failed");
	if (EVP_DecryptFinal_ex(ctx->aead, ctx->plain + outl, &n) != 1)
		return afw_quic_fail(why, -EBADMSG, "Initial packet does not authenticate");

	/* Checked only now, so that the check reveals nothing about the keys. */
	if (pk->first & 0x0c)
		return afw_quic_fail(why, -EPROTO, "reserved header bits are set");
	pk->payload = ctx->plain;
	pk->payload_len = ct_len;
	return 0;
}

void afw_quic_flow_init(struct afw_quic_flow *flow, uint8_t *buf, size_t cap)
{
	memset(flow, 0, sizeof(*flow));
	flow->buf = buf;
	flow->cap = flow->size = cap;
	flow->largest_pn = -1;
}

/*
 * Bytes seen twice must be the same bytes: otherwise the firewall and the
 * server could each read a different ClientHello.
 */
static int afw_quic_crypto(struct afw_quic_flow *flow, uint64_t off, const uint8_t *data,
			   size_t len, const char **why)
{
	struct afw_quic_range *r = flow->ranges, merged = { off, off + len };
	unsigned int i, first, last, n = flow->nranges;

	if (!len)
		return 0;
	if (merged.end > flow->cap)
		return afw_quic_fail(why, -ENOBUFS, "CRYPTO data past the end of the buffer");
	if (merged.end > flow->size)
		return afw_quic_fail(why, -EMSGSIZE, "CRYPTO data past the bytes held");
	for (i = 0; i < n; i++) {
		uint64_t lo = r[i].start > off ? r[i].start : off;
		uint64_t hi = r[i].end < merged.end ? r[i].end : merged.end;

		if (lo < hi && memcmp(flow->buf + lo, data + (lo - off), hi - lo))
			return afw_quic_fail(why, -EILSEQ,
					     "CRYPTO data differs from the same offsets sent before");
	}

	/* Ranges [first, last) touch the new one and fold into it. */
	for (first = 0; first < n && r[first].end < merged.start; first++)
		;
	for (last = first; last < n && r[last].start <= merged.end; last++) {
		if (r[last].start < merged.start)
			merged.start = r[last].start;
		if (r[last].end > merged.end)
			merged.end = r[last].end;
	}
	if (n - (last - first) + 1 > AFW_QUIC_RANGES)
		return afw_quic_fail(why, -ENOBUFS, "CRYPTO data in too many pieces");

	memcpy(flow->buf + off, data, len);
	memmove(&r[first + 1], &r[last], (n - last) * sizeof(*r));
	r[first] = merged;
	flow->nranges = n - (last - first) + 1;
	return 0;
}

/* Looks at the contiguous start of the stream for one whole handshake message. */
static int afw_quic_hello_check(struct afw_quic_flow *flow, const char **why)
{
	uint64_t have;
	size_t msg_len;

	if (!flow->nranges || flow->ranges[0].start)
		return AFW_QUIC_MORE;
	have = flow->ranges[0].end;
	if (flow->buf[0] != 1)
		return afw_quic_fail(why, -EPROTO, "first handshake message is not a ClientHello");
	if (have < 4)
		return AFW_QUIC_MORE;
	msg_len = 4 + ((size_t)flow->buf[1] << 16 | flow->buf[2] << 8 | flow->buf[3]);
	if (msg_len > flow->cap)
		return afw_quic_fail(why, -ENOBUFS, "ClientHello larger than the buffer");
	if (have < msg_len)
		return AFW_QUIC_MORE;
	flow->hello_len = msg_len;
	return AFW_QUIC_DONE;
}

static int afw_quic_ack(const uint8_t *p, size_t len, size_t *pos, int ecn, const char **why)
{
	uint64_t largest, delay, count, range, gap, i;

	if (afw_quic_varint(p, len, pos, &largest) || afw_quic_varint(p, len, pos, &delay) ||
	    afw_quic_varint(p, len, pos, &count) || afw_quic_varint(p, len, pos, &range))
		return afw_quic_fail(why, -EINVAL, "ACK frame truncated");
	if (range > largest)
		return afw_quic_fail(why, -EPROTO, "ACK frame acknowledges packets below zero");
	largest -= range;	/* now the smallest acknowledged so far */
	/* Each range takes at least two bytes, so len bounds the loop. */
	for (i = 0; i < count; i++) {
		if (afw_quic_varint(p, len, pos, &gap) || afw_quic_varint(p, len, pos, &range))
			return afw_quic_fail(why, -EINVAL, "ACK range truncated");
		if (gap + 2 > largest || range > largest - gap - 2)
			return afw_quic_fail(why, -EPROTO,
					     "ACK frame acknowledges packets below zero");
		largest -= gap + 2 + range;
	}
	if (ecn) {
		for (i = 0; i < 3; i++)
			if (afw_quic_varint(p, len, pos, &gap))
				return afw_quic_fail(why, -EINVAL, "ACK ECN counts truncated");
	}
	return 0;
}

static int afw_quic_frames_apply(struct afw_quic_flow *flow, const uint8_t *p, size_t len,
				 const char **why)
{
	uint64_t off, n, code;
	size_t pos = 0;
	int err;

	if (!len)
		return afw_quic_fail(why, -EPROTO, "Initial packet without frames");
	while (pos < len) {
		uint8_t type = p[pos++];

		switch (type) {
		case 0x00:	/* PADDING */
			while (pos < len && !p[pos])
				pos++;
			break;
		case 0x01:	/* PING */
			break;
		case 0x02:	/* ACK */
		case 0x03:	/* ACK with ECN counts */
			err = afw_quic_ack(p, len, &pos, type == 0x03, why);
			if (err)
				return err;
			break;
		case 0x06:	/* CRYPTO */
			if (afw_quic_varint(p, len, &pos, &off) ||
			    afw_quic_varint(p, len, &pos, &n))
				return afw_quic_fail(why, -EINVAL, "CRYPTO frame truncated");
			if (n > len - pos)
				return afw_quic_fail(why, -EINVAL, "CRYPTO data past the end");
			if (off + n > AFW_QUIC_VARINT_MAX)
				return afw_quic_fail(why, -EPROTO, "CRYPTO data past 2^62");
			err = afw_quic_crypto(flow, off, p + pos, n, why);
			if (err)
				return err;
			pos += n;
			break;
		case 0x1c:	/* CONNECTION_CLOSE, transport error */
			if (afw_quic_varint(p, len, &pos, &code) ||
			    afw_quic_varint(p, len, &pos, &off) ||
			    afw_quic_varint(p, len, &pos, &n) || n > len - pos)
				return afw_quic_fail(why, -EINVAL, "CONNECTION_CLOSE frame truncated");
			return afw_quic_fail(why, -ECONNABORTED, "client closed the connection");
		default:
			/*
			 * Includes frame types in a longer encoding than they
			 * need (first byte 0x40 and up), which RFC 9000
			 * section 12.4 forbids as well.
			 */
			return afw_quic_fail(why, -EPROTO, "frame type not allowed in an Initial packet");
		}
	}
	return afw_quic_hello_check(flow, why);
}

int afw_quic_frames(struct afw_quic_flow *flow, const uint8_t *p, size_t len, const char **why)
{
	struct afw_quic_range saved[AFW_QUIC_RANGES];
	unsigned int nsaved = flow->nranges;
	int ret;

	/*
	 * Bytes outside the ranges are free, and bytes inside were only ever
	 * rewritten with equal ones, so the ranges alone undo a bad packet.
	 */
	memcpy(saved, flow->ranges, nsaved * sizeof(*saved));
	ret = afw_quic_frames_apply(flow, p, len, why);
	if (ret < 0) {
		memcpy(flow->ranges, saved, nsaved * sizeof(*saved));
		flow->nranges = nsaved;
		flow->hello_len = 0;
		if (nsaved)
			afw_quic_hello_check(flow, NULL);
	}
	return ret;
}

/* CRYPTO bytes held: grows only when a packet brings bytes not seen before. */
static uint64_t afw_quic_covered(const struct afw_quic_flow *flow)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < flow->nranges; i++)
		n += flow->ranges[i].end - flow->ranges[i].start;
	return n;
}

static int afw_quic_initial(struct afw_quic_ctx *ctx, struct afw_quic_flow *flow,
			    const uint8_t *pkt, struct afw_quic_packet *pk, const char **why)
{
	struct afw_quic_keys keys;
	const struct afw_quic_keys *k = &flow->keys;
	uint64_t before = afw_quic_covered(flow);
	int err;

	if (!flow->version) {
		err = afw_quic_initial_keys(ctx, pk->version, pk->dcid, pk->dcid_len, &keys, why);
		if (err)
			return err;
		k = &keys;
	}
	err = afw_quic_open(ctx, k, flow->largest_pn, pkt, pk, why);
	if (err)
		return err;
	err = afw_quic_frames(flow, pk->payload, pk->payload_len, why);
	if (err < 0)
		return err;

	/* The flow is bound to this connection only once a packet proved it. */
	if (!flow->version) {
		flow->version = pk->version;
		flow->keys = keys;
		flow->dcid_len = pk->dcid_len;
		memcpy(flow->dcid, pk->dcid, pk->dcid_len);
		flow->scid_len = pk->scid_len;
		memcpy(flow->scid, pk->scid, pk->scid_len);
		OPENSSL_cleanse(&keys, sizeof(keys));
	}
	if ((int64_t)pk->pn > flow->largest_pn)
		flow->largest_pn = pk->pn;
	flow->initials++;
	if (afw_quic_covered(flow) > before)
		flow->fresh++;
	return err;
}

static int afw_quic_feed_dcid(struct afw_quic_ctx *ctx, struct afw_quic_flow *flow,
			      const uint8_t *dgram, size_t len, bool any_dcid, const char **why)
{
	struct afw_quic_packet pk;
	size_t off = 0;
	int err, ret = flow->hello_len ? AFW_QUIC_DONE : AFW_QUIC_MORE;

	if (!len)
		return afw_quic_fail(why, -EINVAL, "empty datagram");
	while (off < len) {
		/* A short-header packet runs to the end of the datagram. */
		if (off && !(dgram[off] & 0x80))
			break;
		err = afw_quic_parse_header(dgram + off, len - off, &pk, why);
		if (err)
			return err;
		if (flow->version &&
		    (pk.version != flow->version ||
		     (!any_dcid && (pk.dcid_len != flow->dcid_len ||
				    memcmp(pk.dcid, flow->dcid, flow->dcid_len))))) {
			/* RFC 9000 section 12.2: ignore such coalesced packets. */
			if (off)
				break;
			return afw_quic_fail(why, -EILSEQ,
					     "version or Destination Connection ID changed in the flow");
		}
		if (pk.type == AFW_QUIC_INITIAL) {
			if (len < AFW_QUIC_DGRAM_MIN)
				return afw_quic_fail(why, -EPROTO,
						     "Initial packet in a datagram under 1200 bytes");
			err = afw_quic_initial(ctx, flow, dgram + off, &pk, why);
			if (err < 0)
				return err;
			ret = err;
		}
		off += pk.size;
	}
	return ret;
}

int afw_quic_feed(struct afw_quic_ctx *ctx, struct afw_quic_flow *flow,
		  const uint8_t *dgram, size_t len, const char **why)
{
	return afw_quic_feed_dcid(ctx, flow, dgram, len, false, why);
}

int afw_quic_feed_more(struct afw_quic_ctx *ctx, struct afw_quic_flow *flow,
		       const uint8_t *dgram, size_t len, const char **why)
{
	return afw_quic_feed_dcid(ctx, flow, dgram, len, true, why);
}

bool afw_quic_requeued(const uint8_t *dgram, size_t len)
{
	uint32_t version;

	if (len < 5 || !(dgram[0] & 0x80))
		return false;
	version = (uint32_t)dgram[1] << 24 | dgram[2] << 16 | dgram[3] << 8 | dgram[4];
	if (version == AFW_QUIC_V1)
		return (dgram[0] & 0x30) == 0x00;
	if (version == AFW_QUIC_V2)
		return (dgram[0] & 0x30) == 0x10;
	return version != 0;
}

enum afw_quic_kind afw_quic_classify(struct afw_quic_ctx *ctx, const struct afw_quic_flow *flow,
				     const uint8_t *dgram, size_t len)
{
	struct afw_quic_packet pk;
	uint32_t version;

	/*
	 * What may open a connection: long header, fixed bit, a version, 1200
	 * bytes. The kernel sends more again (afw_quic_requeued()); the rest
	 * passes as the flow's.
	 */
	if (len < AFW_QUIC_DGRAM_MIN || (dgram[0] & 0xc0) != 0xc0)
		return AFW_QUIC_OTHER;
	version = (uint32_t)dgram[1] << 24 | dgram[2] << 16 | dgram[3] << 8 | dgram[4];
	if (!version)
		return AFW_QUIC_OTHER;
	/*
	 * A version afwd cannot read is never the connection it decided; on a
	 * flow decided without QUIC it teaches nothing new, so it is not read
	 * again (else every large datagram of another protocol would be).
	 */
	if (afw_quic_parse_header(dgram, len, &pk, NULL))
		return version == AFW_QUIC_V1 || version == AFW_QUIC_V2 || !flow->version ?
		       AFW_QUIC_OTHER : AFW_QUIC_NEW;
	if (pk.type != AFW_QUIC_INITIAL)
		return AFW_QUIC_OTHER;
	if (!flow->version || pk.version != flow->version)
		return AFW_QUIC_NEW;
	if (pk.dcid_len == flow->dcid_len && !memcmp(pk.dcid, flow->dcid, flow->dcid_len))
		return AFW_QUIC_SAME;
	return afw_quic_open(ctx, &flow->keys, flow->largest_pn, dgram, &pk, NULL) ?
	       AFW_QUIC_NEW : AFW_QUIC_SAME;
}

int afw_quic_client_hello(const struct afw_quic_flow *flow, const uint8_t **msg, size_t *len)
{
	if (!flow->hello_len)
		return -EAGAIN;
	*msg = flow->buf;
	*len = flow->hello_len;
	return 0;
}
