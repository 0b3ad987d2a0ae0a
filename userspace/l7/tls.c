// SPDX-License-Identifier: GPL-2.0
/*
 * The TLS ClientHello: record layer, handshake reassembly, extensions.
 *
 * Every length field is checked against the bytes its parent really has
 * before anything behind it is read; a field that claims more than its
 * parent is a lie, and the hello is BAD. Bytes that have not arrived yet
 * are never a reason for BAD, only for MORE.
 */

#include <string.h>

#include "tls.h"

#define AFW_TLS_RECORD_HANDSHAKE	22
#define AFW_TLS_HS_CLIENT_HELLO		1
#define AFW_TLS_RECORD_HDR		5
#define AFW_TLS_HS_HDR			4
/* RFC 8446 5.1: a plaintext record carries at most 2^14 bytes. */
#define AFW_TLS_MAX_RECORD		16384

static const char afw_tls_not_hello[] = "first handshake message is not a ClientHello";
static const char afw_tls_too_big[] = "fragmented ClientHello larger than the scratch buffer";

/* A cursor over one length-delimited piece of the hello. */
struct afw_tls_rd {
	const uint8_t *p;
	size_t len;
	size_t off;
};

static bool afw_tls_u8(struct afw_tls_rd *r, uint8_t *v)
{
	if (r->len - r->off < 1)
		return false;
	*v = r->p[r->off++];
	return true;
}

static bool afw_tls_u16(struct afw_tls_rd *r, uint16_t *v)
{
	if (r->len - r->off < 2)
		return false;
	*v = (uint16_t)(r->p[r->off] << 8 | r->p[r->off + 1]);
	r->off += 2;
	return true;
}

static bool afw_tls_bytes(struct afw_tls_rd *r, size_t n, struct afw_span *s)
{
	if (r->len - r->off < n)
		return false;
	s->p = r->p + r->off;
	s->len = n;
	r->off += n;
	return true;
}

static uint16_t afw_tls_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t afw_tls_get24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static enum afw_tls_status afw_tls_bad(struct afw_tls_hello *h, const char *why)
{
	h->reason = why;
	return AFW_TLS_BAD;
}

/*
 * Host names only: a policy compares them with configured names, so a NUL,
 * a slash or a space in them could only serve to confuse that comparison.
 */
static bool afw_tls_host_ok(const struct afw_span *s)
{
	size_t i;

	for (i = 0; i < s->len; i++) {
		uint8_t c = s->p[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_'))
			return false;
	}
	return true;
}

static enum afw_tls_status afw_tls_sni(const struct afw_span *ext, struct afw_tls_hello *h)
{
	struct afw_tls_rd r = { ext->p, ext->len, 0 };
	uint16_t list_len;

	if (!afw_tls_u16(&r, &list_len) || list_len != ext->len - 2)
		return afw_tls_bad(h, "server_name list length does not match its extension");
	if (!list_len)
		return afw_tls_bad(h, "empty server_name list");
	while (r.off < r.len) {
		struct afw_span name;
		uint16_t name_len;
		uint8_t type;

		if (!afw_tls_u8(&r, &type) || !afw_tls_u16(&r, &name_len) ||
		    !afw_tls_bytes(&r, name_len, &name))
			return afw_tls_bad(h, "server_name entry overruns its list");
		if (type != 0)
			continue;
		/* RFC 6066 3: one name per type; two host names are an evasion attempt. */
		if (h->has_sni)
			return afw_tls_bad(h, "duplicate SNI host_name");
		if (!name_len)
			return afw_tls_bad(h, "empty SNI host_name");
		if (name_len > AFW_TLS_MAX_SNI)
			return afw_tls_bad(h, "SNI host_name longer than 255 bytes");
		if (!afw_tls_host_ok(&name))
			return afw_tls_bad(h, "SNI host_name has a byte no host name has");
		h->sni = name;
		h->has_sni = true;
	}
	return AFW_TLS_OK;
}

static enum afw_tls_status afw_tls_alpn(const struct afw_span *ext, struct afw_tls_hello *h)
{
	struct afw_tls_rd r = { ext->p, ext->len, 0 };
	uint16_t list_len;

	if (!afw_tls_u16(&r, &list_len) || list_len != ext->len - 2)
		return afw_tls_bad(h, "ALPN list length does not match its extension");
	if (!list_len)
		return afw_tls_bad(h, "empty ALPN list");
	while (r.off < r.len) {
		struct afw_span name;
		uint8_t name_len;

		if (!afw_tls_u8(&r, &name_len) || !afw_tls_bytes(&r, name_len, &name))
			return afw_tls_bad(h, "ALPN name overruns its list");
		if (!name_len)
			return afw_tls_bad(h, "empty ALPN name");
	}
	h->alpn.p = ext->p + 2;
	h->alpn.len = list_len;
	h->has_alpn = true;
	return AFW_TLS_OK;
}

static enum afw_tls_status afw_tls_versions(const struct afw_span *ext, struct afw_tls_hello *h)
{
	uint16_t best = 0;
	size_t i;

	if (ext->len < 1 || ext->p[0] != ext->len - 1)
		return afw_tls_bad(h, "supported_versions length does not match its extension");
	if (!ext->p[0] || ext->p[0] % 2)
		return afw_tls_bad(h, "supported_versions length is zero or odd");
	for (i = 1; i < ext->len; i += 2) {
		uint16_t v = afw_tls_get16(ext->p + i);

		if (!afw_tls_is_grease(v) && v > best)
			best = v;
	}
	if (!best)
		return afw_tls_bad(h, "supported_versions lists only GREASE");
	h->supported_versions.p = ext->p + 1;
	h->supported_versions.len = ext->len - 1;
	h->version = best;
	h->has_supported_versions = true;
	return AFW_TLS_OK;
}

static enum afw_tls_status afw_tls_sig_algs(const struct afw_span *ext, struct afw_tls_hello *h)
{
	uint16_t list_len;

	if (ext->len < 2 || (list_len = afw_tls_get16(ext->p)) != ext->len - 2)
		return afw_tls_bad(h, "signature_algorithms length does not match its extension");
	if (!list_len || list_len % 2)
		return afw_tls_bad(h, "signature_algorithms length is zero or odd");
	if (list_len / 2 > AFW_TLS_MAX_SIGALGS)
		return afw_tls_bad(h, "more than 128 signature algorithms");
	h->sig_algs.p = ext->p + 2;
	h->sig_algs.len = list_len;
	h->has_sig_algs = true;
	return AFW_TLS_OK;
}

/*
 * encrypted_client_hello (RFC 9849, draft-ietf-tls-esni-25): in the outer
 * hello, a cipher suite, a config id, the encapsulated key and the
 * encrypted inner hello; the inner type is empty. Only its shape is read:
 * the inner hello stays secret, and the SNI beside it is the public name.
 */
static enum afw_tls_status afw_tls_ech(const struct afw_span *ext, struct afw_tls_hello *h)
{
	struct afw_tls_rd r = { ext->p, ext->len, 0 };
	struct afw_span skip;
	uint16_t n;
	uint8_t type;

	if (!afw_tls_u8(&r, &type) || type > 1)
		return afw_tls_bad(h, "encrypted_client_hello of an unknown type");
	if (type == 0 &&
	    (!afw_tls_bytes(&r, 5, &skip) || !afw_tls_u16(&r, &n) || !afw_tls_bytes(&r, n, &skip) ||
	     !afw_tls_u16(&r, &n) || !n || !afw_tls_bytes(&r, n, &skip)))
		return afw_tls_bad(h, "encrypted_client_hello overruns its extension");
	if (r.off != r.len)
		return afw_tls_bad(h, "encrypted_client_hello length does not match its extension");
	h->has_ech = true;
	return AFW_TLS_OK;
}

static enum afw_tls_status afw_tls_extensions(struct afw_tls_rd *r, struct afw_tls_hello *h)
{
	enum afw_tls_status st;
	uint16_t block_len;
	unsigned int i;

	/* No extensions at all is legal (RFC 5246 7.4.1.2), if rare. */
	if (r->off == r->len)
		return AFW_TLS_OK;
	if (!afw_tls_u16(r, &block_len) || block_len != r->len - r->off)
		return afw_tls_bad(h, "extensions length does not match the ClientHello length");
	while (r->off < r->len) {
		struct afw_span ext;
		uint16_t type, len;

		if (!afw_tls_u16(r, &type) || !afw_tls_u16(r, &len) ||
		    !afw_tls_bytes(r, len, &ext))
			return afw_tls_bad(h, "extension overruns the extensions block");
		for (i = 0; i < h->n_exts; i++)
			if (h->exts[i] == type)
				return afw_tls_bad(h, "duplicate extension");
		if (h->n_exts == AFW_TLS_MAX_EXTS)
			return afw_tls_bad(h, "more than 64 extensions");
		h->exts[h->n_exts++] = type;

		switch (type) {
		case AFW_TLS_EXT_SNI:
			st = afw_tls_sni(&ext, h);
			break;
		case AFW_TLS_EXT_ALPN:
			st = afw_tls_alpn(&ext, h);
			break;
		case AFW_TLS_EXT_SUPPORTED_VERSIONS:
			st = afw_tls_versions(&ext, h);
			break;
		case AFW_TLS_EXT_SIG_ALGS:
			st = afw_tls_sig_algs(&ext, h);
			break;
		case AFW_TLS_EXT_ECH:
			st = afw_tls_ech(&ext, h);
			break;
		default:
			st = AFW_TLS_OK;
		}
		if (st != AFW_TLS_OK)
			return st;
	}
	return AFW_TLS_OK;
}

/* The ClientHello body, after the handshake header; @len is exactly its length. */
static enum afw_tls_status afw_tls_body(const uint8_t *p, size_t len, struct afw_tls_hello *h)
{
	struct afw_tls_rd r = { p, len, 0 };
	struct afw_span skip;
	uint16_t cs_len;
	uint8_t n;

	if (!afw_tls_u16(&r, &h->legacy_version) || !afw_tls_bytes(&r, 32, &skip))
		return afw_tls_bad(h, "ClientHello shorter than version and random");
	if ((h->legacy_version >> 8) != 3)
		return afw_tls_bad(h, "ClientHello version is not 3.x");
	h->version = h->legacy_version;
	if (!afw_tls_u8(&r, &n) || n > 32 || !afw_tls_bytes(&r, n, &skip))
		return afw_tls_bad(h, "session_id longer than 32 bytes or than the ClientHello");
	if (!afw_tls_u16(&r, &cs_len) || !afw_tls_bytes(&r, cs_len, &h->ciphers))
		return afw_tls_bad(h, "cipher_suites overrun the ClientHello");
	if (!cs_len || cs_len % 2)
		return afw_tls_bad(h, "cipher_suites length is zero or odd");
	if (cs_len / 2 > AFW_TLS_MAX_CIPHERS)
		return afw_tls_bad(h, "more than 512 cipher suites");
	if (!afw_tls_u8(&r, &n) || !n || !afw_tls_bytes(&r, n, &skip))
		return afw_tls_bad(h, "compression_methods empty or overrun the ClientHello");
	return afw_tls_extensions(&r, h);
}

static void afw_tls_reset(struct afw_tls_hello *h)
{
	memset(h, 0, sizeof(*h));
}

enum afw_tls_status afw_tls_parse_handshake(const uint8_t *data, size_t len,
					    struct afw_tls_hello *h)
{
	enum afw_tls_status st;
	uint32_t hs_len;

	afw_tls_reset(h);
	if (len >= 1 && data[0] != AFW_TLS_HS_CLIENT_HELLO)
		return afw_tls_bad(h, "handshake message is not a ClientHello");
	if (len < AFW_TLS_HS_HDR)
		return AFW_TLS_MORE;
	hs_len = afw_tls_get24(data + 1);
	if (len - AFW_TLS_HS_HDR < hs_len)
		return AFW_TLS_MORE;
	st = afw_tls_body(data + AFW_TLS_HS_HDR, hs_len, h);
	if (st == AFW_TLS_OK)
		h->consumed = h->msg_len = AFW_TLS_HS_HDR + hs_len;
	return st;
}

/*
 * Checks the record header at @p, of which @have bytes (1 to 5) are there.
 * @first: the stream's first record, where a mismatch means "not TLS at all".
 */
static enum afw_tls_status afw_tls_record_hdr(const uint8_t *p, size_t have, bool first,
					      struct afw_tls_hello *h)
{
	enum afw_tls_status st = first ? AFW_TLS_NOT_TLS : AFW_TLS_BAD;
	uint16_t rec_len;

	if (p[0] != AFW_TLS_RECORD_HANDSHAKE) {
		h->reason = first ? "first byte is not a TLS handshake record" :
				    "ClientHello continues in a record that is not handshake";
		return st;
	}
	/*
	 * Before a version is agreed, OpenSSL takes any record version 3.x
	 * (3.0 to 3.255) and refuses every other major version: so does this.
	 */
	if (have >= 2 && p[1] != 3) {
		h->reason = "record version is not TLS (3.x)";
		return st;
	}
	if (have < AFW_TLS_RECORD_HDR)
		return AFW_TLS_MORE;
	rec_len = afw_tls_get16(p + 3);
	if (rec_len > AFW_TLS_MAX_RECORD)
		return afw_tls_bad(h, "record longer than 16384 bytes");
	return AFW_TLS_OK;
}

enum afw_tls_status afw_tls_parse_stream(const uint8_t *data, size_t len, uint8_t *scratch,
					 size_t scratch_len, struct afw_tls_hello *h)
{
	size_t off = 0, have = 0, need = 0, take, i;
	uint8_t hdr[AFW_TLS_HS_HDR];
	unsigned int empty = 0;
	enum afw_tls_status st;
	uint16_t rec_len;

	afw_tls_reset(h);
	for (;;) {
		if (len - off < AFW_TLS_RECORD_HDR) {
			if (len > off) {
				st = afw_tls_record_hdr(data + off, len - off, off == 0, h);
				if (st != AFW_TLS_OK)
					return st;
			}
			return AFW_TLS_MORE;
		}
		st = afw_tls_record_hdr(data + off, AFW_TLS_RECORD_HDR, off == 0, h);
		if (st != AFW_TLS_OK)
			return st;
		rec_len = afw_tls_get16(data + off + 3);
		off += AFW_TLS_RECORD_HDR;
		/*
		 * OpenSSL skips empty records, up to 32 in a row, anywhere in
		 * the hello: they must not hide it from this reader either.
		 */
		if (!rec_len) {
			if (++empty > AFW_TLS_MAX_EMPTY)
				return afw_tls_bad(h, "more than 32 empty handshake records in a row");
			continue;
		}
		empty = 0;
		take = len - off < rec_len ? len - off : rec_len;
		if (!take)
			return AFW_TLS_MORE;
		if (!have && data[off] != AFW_TLS_HS_CLIENT_HELLO)
			return afw_tls_bad(h, afw_tls_not_hello);
		if (!have && take >= AFW_TLS_HS_HDR) {
			need = AFW_TLS_HS_HDR + afw_tls_get24(data + off + 1);
			if (need <= rec_len) {
				/* The common case: the whole hello in one record, no copy. */
				if (take < need)
					return AFW_TLS_MORE;
				st = afw_tls_parse_handshake(data + off, need, h);
				if (st == AFW_TLS_OK)
					h->consumed = off + need;
				return st;
			}
		}
		/* Fragmented: gather the record payloads until the message is whole. */
		if (!need && have + take >= AFW_TLS_HS_HDR) {
			/* Even the handshake header may be split over records: rare, but legal. */
			for (i = 0; i < AFW_TLS_HS_HDR; i++)
				hdr[i] = i < have ? scratch[i] : data[off + i - have];
			need = AFW_TLS_HS_HDR + afw_tls_get24(hdr + 1);
		}
		if ((need ? need : have + take) > scratch_len)
			return afw_tls_bad(h, afw_tls_too_big);
		/* Another message after the hello in this record: not ours to read. */
		if (need && have + take > need)
			take = need - have;
		memcpy(scratch + have, data + off, take);
		have += take;
		if (need && have == need) {
			st = afw_tls_parse_handshake(scratch, need, h);
			if (st == AFW_TLS_OK)
				h->consumed = off + take;
			return st;
		}
		if (take < rec_len)
			return AFW_TLS_MORE;
		off += rec_len;
	}
}

const uint8_t afw_tls_hrr_random[32] = {
	0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91,
	0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e, 0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c,
};

#define AFW_TLS_RECORD_CCS	20
#define AFW_TLS_RECORD_ALERT	21
#define AFW_TLS_RECORD_APPDATA	23
/* RFC 8446 5.2: a protected record carries at most 2^14 + 256 bytes. */
#define AFW_TLS_MAX_PROTECTED	(16384 + 256)

/* Record types the client may send after its first hello, before the server answers. */
static bool afw_tls_later_type(uint8_t type)
{
	return type == AFW_TLS_RECORD_HANDSHAKE || type == AFW_TLS_RECORD_CCS ||
	       type == AFW_TLS_RECORD_APPDATA || type == AFW_TLS_RECORD_ALERT;
}

enum afw_tls_status afw_tls_parse_next(const uint8_t *data, size_t len, size_t first,
				       uint8_t *scratch, size_t scratch_len,
				       struct afw_tls_hello *h)
{
	size_t off = 0, p, hs = 0, have = 0, need = 0, avail, skip, c;
	enum afw_tls_status st;
	uint16_t rec_len;
	uint8_t type;

	afw_tls_reset(h);
	for (;;) {
		if (len - off < AFW_TLS_RECORD_HDR) {
			if (len > off && !afw_tls_later_type(data[off]))
				return afw_tls_bad(h, "a record of a type no TLS server reads");
			return AFW_TLS_MORE;
		}
		type = data[off];
		rec_len = afw_tls_get16(data + off + 3);
		if (!afw_tls_later_type(type))
			return afw_tls_bad(h, "a record of a type no TLS server reads");
		if (data[off + 1] != 3)
			return afw_tls_bad(h, "record version is not TLS (3.x)");
		if (rec_len > (type == AFW_TLS_RECORD_HANDSHAKE || type == AFW_TLS_RECORD_CCS ?
			       AFW_TLS_MAX_RECORD : AFW_TLS_MAX_PROTECTED))
			return afw_tls_bad(h, "record longer than TLS allows");
		p = off + AFW_TLS_RECORD_HDR;
		avail = len - p < rec_len ? len - p : rec_len;
		if (type == AFW_TLS_RECORD_CCS && (rec_len != 1 || (avail && data[p] != 1)))
			return afw_tls_bad(h, "change_cipher_spec record other than the one byte 1");
		if (type == AFW_TLS_RECORD_HANDSHAKE) {
			/* The first hello's bytes, then the next message's, then no more. */
			skip = hs < first ? first - hs : 0;
			if (skip > avail)
				skip = avail;
			hs += avail;
			c = avail - skip;
			if (need && c > need - have)
				c = need - have;
			if (!need && c > scratch_len - have)
				c = scratch_len - have;
			memcpy(scratch + have, data + p + skip, c);
			have += c;
			if (!need && have && scratch[0] != AFW_TLS_HS_CLIENT_HELLO)
				return afw_tls_bad(h, "a handshake message after the ClientHello that is "
						   "no ClientHello");
			if (!need && have >= AFW_TLS_HS_HDR) {
				need = AFW_TLS_HS_HDR + afw_tls_get24(scratch + 1);
				if (need > scratch_len)
					return afw_tls_bad(h, afw_tls_too_big);
				if (have > need) {
					c -= have - need;
					have = need;
				}
			}
			if (need && have == need) {
				st = afw_tls_parse_handshake(scratch, need, h);
				if (st == AFW_TLS_OK)
					h->consumed = p + skip + c;
				return st;
			}
		}
		if (avail < rec_len)
			return AFW_TLS_MORE;
		off = p + rec_len;
	}
}

bool afw_tls_alpn_next(const struct afw_span *alpn, size_t *off, struct afw_span *name)
{
	size_t n;

	if (*off >= alpn->len)
		return false;
	n = alpn->p[*off];
	if (n > alpn->len - *off - 1)
		return false;
	name->p = alpn->p + *off + 1;
	name->len = n;
	*off += 1 + n;
	return true;
}

const char *afw_tls_status_name(enum afw_tls_status st)
{
	switch (st) {
	case AFW_TLS_OK:
		return "ok";
	case AFW_TLS_MORE:
		return "more";
	case AFW_TLS_NOT_TLS:
		return "not-tls";
	case AFW_TLS_BAD:
		return "bad";
	}
	return "?";
}
