// SPDX-License-Identifier: GPL-2.0
/*
 * QUIC client Initials: the RFC 9001 and RFC 9369 examples, ClientHellos
 * split over several packets in any order, damaged packets at every length,
 * and a capture of Chromium's first flight. Run from the top of the tree
 * (tests/run does), which is where the fixtures are looked up.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "quic.h"
#include "quic_seal.h"

#define FIX "tests/fixtures/"

static const uint8_t rfc_dcid[] = { 0x83, 0x94, 0xc8, 0xf0, 0x3e, 0x51, 0x57, 0x08 };

/* RFC 9001 A.2 and RFC 9369 A.2: the one CRYPTO frame before the PADDING. */
static const char rfc_crypto_hex[] =
	"060040f1010000ed0303ebf8fa56f12939b9584a3896472ec40bb863cfd3e868"
	"04fe3a47f06a2b69484c00000413011302010000c000000010000e00000b6578"
	"616d706c652e636f6dff01000100000a00080006001d00170018001000070005"
	"04616c706e000500050100000000003300260024001d00209370b2c9caa47fba"
	"baf4559fedba753de171fa71f50f1ce15d43e994ec74d748002b000302030400"
	"0d0010000e0403050306030203080408050806002d00020101001c0002400100"
	"3900320408ffffffffffffffff05048000ffff07048000ffff08011001048000"
	"75300901100f088394c8f03e51570806048000ffff";

static size_t unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t n = 0;
	unsigned int b;

	while (s[0] && s[1] && n < cap && sscanf(s, "%2x", &b) == 1) {
		out[n++] = b;
		s += 2;
	}
	return n;
}

static size_t slurp(const char *path, uint8_t *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, cap, f);
	fclose(f);
	return n;
}

static int feed1(struct afw_quic_ctx *ctx, const uint8_t *d, size_t len, const char **why)
{
	static uint8_t buf[16384];
	struct afw_quic_flow flow;

	afw_quic_flow_init(&flow, buf, sizeof(buf));
	return afw_quic_feed(ctx, &flow, d, len, why);
}

static void test_rfc(struct afw_quic_ctx *ctx, int *failed, uint32_t version, const char *file,
		     const char *key, const char *iv, const char *hp)
{
	uint8_t pkt[1500], plain[1200], exp[64], crypto[300], resealed[1500], buf[16384];
	struct afw_quic_keys keys;
	struct afw_quic_packet pk;
	struct afw_quic_flow flow;
	const char *why = "";
	const uint8_t *msg;
	size_t len, clen, n, msg_len;
	char name[128];
	int ret;

	len = slurp(file, pkt, sizeof(pkt));
	snprintf(name, sizeof(name), "%08x: RFC example packet is read (1200 bytes)", version);
	CHECK(*failed, name, len == 1200);

	ret = afw_quic_initial_keys(ctx, version, rfc_dcid, sizeof(rfc_dcid), &keys, &why);
	snprintf(name, sizeof(name), "%08x: client key, iv and hp are the RFC's", version);
	CHECK(*failed, name, !ret && unhex(key, exp, 16) == 16 && !memcmp(keys.key, exp, 16) &&
	      unhex(iv, exp, 12) == 12 && !memcmp(keys.iv, exp, 12) &&
	      unhex(hp, exp, 16) == 16 && !memcmp(keys.hp, exp, 16));

	ret = afw_quic_parse_header(pkt, len, &pk, &why);
	snprintf(name, sizeof(name), "%08x: header parses: Initial, 8-byte DCID, 1200 bytes",
		 version);
	CHECK(*failed, name, !ret && pk.version == version && pk.type == AFW_QUIC_INITIAL &&
	      pk.dcid_len == 8 && !memcmp(pk.dcid, rfc_dcid, 8) && pk.scid_len == 0 &&
	      pk.token_len == 0 && pk.pn_offset == 18 && pk.size == 1200);

	ret = afw_quic_open(ctx, &keys, -1, pkt, &pk, &why);
	clen = unhex(rfc_crypto_hex, crypto, sizeof(crypto));
	snprintf(name, sizeof(name), "%08x: decrypts to packet number 2 and 1162 bytes", version);
	CHECK(*failed, name, !ret && pk.pn == 2 && pk.payload_len == 1162);
	memset(plain, 0, sizeof(plain));
	if (!ret)
		memcpy(plain, pk.payload, pk.payload_len);
	snprintf(name, sizeof(name), "%08x: plaintext is the RFC's CRYPTO frame, then PADDING",
		 version);
	for (n = clen; n < 1162 && !plain[n]; n++)
		;
	CHECK(*failed, name, clen == 245 && !memcmp(plain, crypto, clen) && n == 1162);

	/* Sealing the same plaintext must give the RFC's bytes: the test sender is sound. */
	n = afw_test_seal(ctx, version, rfc_dcid, 8, 2, 4, crypto, clen, 1162, resealed,
			  sizeof(resealed));
	snprintf(name, sizeof(name), "%08x: the test sender reproduces the RFC packet exactly",
		 version);
	CHECK(*failed, name, n == 1200 && !memcmp(resealed, pkt, 1200));

	afw_quic_flow_init(&flow, buf, sizeof(buf));
	ret = afw_quic_feed(ctx, &flow, pkt, len, &why);
	snprintf(name, sizeof(name), "%08x: feeding it gives the 241-byte ClientHello", version);
	CHECK(*failed, name, ret == AFW_QUIC_DONE &&
	      !afw_quic_client_hello(&flow, &msg, &msg_len) && msg_len == 241 &&
	      !memcmp(msg, crypto + 4, 241) && flow.version == version && flow.largest_pn == 2);
	if (ret < 0)
		printf("# %s\n", why);
}

/* A synthetic ClientHello: type 1, 24-bit length, deterministic bytes. */
static void make_hello(uint8_t *h, size_t len, uint32_t seed)
{
	size_t i;

	h[0] = 1;
	h[1] = (len - 4) >> 16;
	h[2] = (len - 4) >> 8;
	h[3] = len - 4;
	for (i = 4; i < len; i++) {
		seed = seed * 1103515245 + 12345;
		h[i] = seed >> 16;
	}
}

struct chunk {
	size_t off, len;
	int pkt;
};

/*
 * Splits hello into CRYPTO frames at scrambled offsets over three packets,
 * with PING, PADDING and both ACK types between them, as browsers do.
 */
static size_t build_three(struct afw_quic_ctx *ctx, uint32_t version, const uint8_t *dcid,
			  const uint8_t *hello, size_t hlen, uint8_t dg[3][1500], size_t dlen[3])
{
	static const unsigned int cuts[] = { 7, 13, 29, 31, 44, 61, 70, 83, 97, 100 };
	static const int owner[] = { 2, 0, 1, 2, 1, 0, 2, 1, 0, 1 };
	static const int order[] = { 6, 2, 9, 0, 4, 8, 1, 5, 3, 7 };
	struct chunk ch[10];
	uint8_t frames[3][1500];
	size_t fl[3] = { 0, 0, 0 }, prev = 0, i, total = 0;
	int p;

	for (i = 0; i < 10; i++) {
		size_t end = hlen * cuts[i] / 100;

		ch[i] = (struct chunk){ prev, end - prev, owner[i] };
		prev = end;
	}
	for (p = 0; p < 3; p++) {
		uint8_t *f = frames[p];

		if (p == 1) {		/* ACK: largest 0, delay 0, no more ranges */
			memcpy(f + fl[p], "\x02\x00\x00\x00\x00", 5);
			fl[p] += 5;
		}
		if (p == 2) {		/* ACK_ECN with one extra range, and counts */
			memcpy(f + fl[p], "\x03\x0a\x01\x01\x02\x01\x03\x00\x00\x05", 10);
			fl[p] += 10;
		}
		for (i = 0; i < 10; i++) {
			struct chunk *c = &ch[order[i]];

			if (c->pkt != p)
				continue;
			fl[p] += afw_test_crypto_frame(f + fl[p], c->off, hello + c->off, c->len);
			f[fl[p]++] = (i & 1) ? 0x01 : 0x00;	/* PING or PADDING */
		}
		dlen[p] = afw_test_seal(ctx, version, dcid, 8, p, 1 + p, f, fl[p],
					fl[p] < 1170 ? 1170 : fl[p], dg[p], 1500);
		total += dlen[p] ? 1 : 0;
	}
	return total;
}

static void test_three(struct afw_quic_ctx *ctx, int *failed, uint32_t version)
{
	static const uint8_t dcid[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint8_t hello[2500], dg[3][1500], buf[16384], bad[1500], frames[64], alt[40];
	struct afw_quic_flow flow;
	const char *why = "";
	const uint8_t *msg;
	size_t dlen[3], msg_len, n, cut, total;
	int r0, r1, r2, r3, ret, crashed;
	char name[160];

	make_hello(hello, sizeof(hello), version);
	n = build_three(ctx, version, dcid, hello, sizeof(hello), dg, dlen);
	snprintf(name, sizeof(name), "%08x: three Initials are built", version);
	CHECK(*failed, name, n == 3);

	afw_quic_flow_init(&flow, buf, sizeof(buf));
	r0 = afw_quic_feed(ctx, &flow, dg[2], dlen[2], &why);
	r1 = afw_quic_feed(ctx, &flow, dg[0], dlen[0], &why);
	r2 = afw_quic_feed(ctx, &flow, dg[1], dlen[1], &why);
	snprintf(name, sizeof(name), "%08x: packets 3, 1, 2: more, more, done", version);
	CHECK(*failed, name, r0 == AFW_QUIC_MORE && r1 == AFW_QUIC_MORE && r2 == AFW_QUIC_DONE);
	if (r2 != AFW_QUIC_DONE)
		printf("# got %d %d %d (%s)\n", r0, r1, r2, why);
	snprintf(name, sizeof(name), "%08x: reassembled ClientHello equals the original",
		 version);
	CHECK(*failed, name, !afw_quic_client_hello(&flow, &msg, &msg_len) &&
	      msg_len == sizeof(hello) && !memcmp(msg, hello, sizeof(hello)));
	snprintf(name, sizeof(name), "%08x: packet numbers 0..2 expanded, largest 2", version);
	CHECK(*failed, name, flow.largest_pn == 2 && flow.initials == 3 && flow.nranges == 1);

	r3 = afw_quic_feed(ctx, &flow, dg[0], dlen[0], &why);
	snprintf(name, sizeof(name), "%08x: a duplicate packet is harmless", version);
	CHECK(*failed, name, r3 == AFW_QUIC_DONE);

	/* A retransmission cut differently, overlapping what is there. */
	n = afw_test_crypto_frame(frames, 100, hello + 100, 40);
	n = afw_test_seal(ctx, version, dcid, 8, 3, 2, frames, n, 1170, bad, sizeof(bad));
	ret = afw_quic_feed(ctx, &flow, bad, n, &why);
	snprintf(name, sizeof(name), "%08x: an overlapping retransmission with equal bytes is fine",
		 version);
	CHECK(*failed, name, ret == AFW_QUIC_DONE && flow.largest_pn == 3);

	memcpy(alt, hello + 500, sizeof(alt));
	alt[20] ^= 0x55;
	n = afw_test_crypto_frame(frames, 500, alt, sizeof(alt));
	n = afw_test_seal(ctx, version, dcid, 8, 4, 2, frames, n, 1170, bad, sizeof(bad));
	ret = afw_quic_feed(ctx, &flow, bad, n, &why);
	snprintf(name, sizeof(name),
		 "%08x: an overlap with different bytes is refused as a contradiction (-EILSEQ)",
		 version);
	CHECK(*failed, name, ret == -EILSEQ && strstr(why, "differs"));
	snprintf(name, sizeof(name), "%08x: and leaves the ClientHello as it was", version);
	CHECK(*failed, name, !afw_quic_client_hello(&flow, &msg, &msg_len) &&
	      msg_len == sizeof(hello) && !memcmp(msg, hello, sizeof(hello)) &&
	      flow.largest_pn == 3);

	/* Every length of every packet: an error, and nothing read out of bounds. */
	crashed = 0;
	total = 0;
	for (n = 0; n < 3; n++) {
		for (cut = 0; cut < dlen[n]; cut++) {
			struct afw_quic_packet pk;

			total++;
			if (feed1(ctx, dg[n], cut, &why) >= 0)
				crashed++;
			/* Also with Length rewritten to fit, so decryption runs on it. */
			memcpy(bad, dg[n], cut);
			if (cut >= 18) {
				size_t l = cut - 18;

				bad[16] = 0x40 | l >> 8;
				bad[17] = l & 0xff;
				if (!afw_quic_parse_header(bad, cut, &pk, &why) &&
				    !afw_quic_open(ctx, &flow.keys, -1, bad, &pk, &why))
					crashed++;
			}
		}
	}
	snprintf(name, sizeof(name), "%08x: all %zu truncations are refused", version, total);
	CHECK(*failed, name, total > 3000 && crashed == 0);
}

/* PADDING first, so that the frames end where the payload ends. */
static size_t seal_frames(struct afw_quic_ctx *ctx, const uint8_t *frames, size_t n,
			  uint8_t *out)
{
	static const uint8_t dcid[8] = { 9, 9, 9, 9, 9, 9, 9, 9 };
	uint8_t f[1400];
	size_t pad = n < 1170 ? 1170 - n : 0;

	if (pad + n > sizeof(f))
		return 0;
	memset(f, 0, pad);
	memcpy(f + pad, frames, n);
	return afw_test_seal(ctx, AFW_QUIC_V1, dcid, 8, 0, 1, f, pad + n, pad + n, out, 1500);
}

struct frame_case {
	const char *name, *frames;
	int want;
};

static void test_frames(struct afw_quic_ctx *ctx, int *failed)
{
	static const struct frame_case cases[] = {
		{ "ACK, ACK_ECN, PING and a whole ClientHello in CRYPTO: done",
		  "0205000002" "0305000000000000" "01" "06000401000000" "00", AFW_QUIC_DONE },
		{ "ACK with two ranges", "021000020101030203" "06000401000000", AFW_QUIC_DONE },
		{ "part of a ClientHello: more", "060002010000", AFW_QUIC_MORE },
		{ "zero-length CRYPTO far away is a no-op", "06804000000000", AFW_QUIC_MORE },
		{ "STREAM frame: protocol violation", "080000", -EPROTO },
		{ "application CONNECTION_CLOSE (0x1d): protocol violation", "1d0000", -EPROTO },
		{ "HANDSHAKE_DONE: protocol violation", "1e", -EPROTO },
		{ "PING in a 2-byte encoding: protocol violation", "4001", -EPROTO },
		{ "CONNECTION_CLOSE: the client gave up", "1c0a0603616263", -ECONNABORTED },
		{ "CONNECTION_CLOSE truncated", "1c0a0609616263", -EINVAL },
		{ "ACK below packet 0", "0203000005", -EPROTO },
		{ "ACK gap below packet 0", "0205000101040000", -EPROTO },
		{ "ACK truncated", "0205", -EINVAL },
		{ "CRYPTO length past the packet", "0600bfff0100", -EINVAL },
		{ "CRYPTO offset near 2^62", "06ffffffffffffffff050102030405", -EPROTO },
		{ "CRYPTO past the 16 KiB buffer", "06804000000401020304", -ENOBUFS },
		{ "first message is not a ClientHello", "060004020000000000", -EPROTO },
		{ "ClientHello longer than the buffer", "06000401ffffff", -ENOBUFS },
		{ "only PADDING: more", "00", AFW_QUIC_MORE },
	};
	uint8_t pkt[1500], f[1400];
	const char *why;
	size_t i, n;
	int ret;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		why = "";
		n = unhex(cases[i].frames, f, sizeof(f));
		n = seal_frames(ctx, f, n, pkt);
		ret = feed1(ctx, pkt, n, &why);
		CHECK(*failed, cases[i].name, n >= 1200 && ret == cases[i].want);
		if (ret != cases[i].want)
			printf("# got %d (%s)\n", ret, why);
	}

	/* Every other byte: pieces that never join. */
	for (i = 0, n = 0; i < AFW_QUIC_RANGES; i++)
		n += afw_test_crypto_frame(f + n, 2 + 2 * i, (const uint8_t *)"x", 1);
	ret = feed1(ctx, pkt, seal_frames(ctx, f, n, pkt), &why);
	CHECK(*failed, "32 separate pieces of CRYPTO data are held", ret == AFW_QUIC_MORE);
	n += afw_test_crypto_frame(f + n, 2 + 2 * i, (const uint8_t *)"x", 1);
	ret = feed1(ctx, pkt, seal_frames(ctx, f, n, pkt), &why);
	CHECK(*failed, "a 33rd is refused (-ENOBUFS)", ret == -ENOBUFS);
}

/* Only an API caller, never UDP, can hand over more than 65527 bytes. */
static void test_oversize(struct afw_quic_ctx *ctx, int *failed, const uint8_t *rfc)
{
	static uint8_t big[70000];
	size_t l = sizeof(big) - 20;
	const char *why = "";

	memcpy(big, rfc, 16);
	big[16] = 0x80 | l >> 24;
	big[17] = l >> 16;
	big[18] = l >> 8;
	big[19] = l;
	memcpy(big + 20, rfc + 18, 1200 - 18);
	CHECK(*failed, "a 70000-byte Initial is refused (-EINVAL)",
	      feed1(ctx, big, sizeof(big), &why) == -EINVAL && strstr(why, "larger than"));
}

static void test_headers(struct afw_quic_ctx *ctx, int *failed)
{
	static const uint8_t other[8] = { 7, 7, 7, 7, 7, 7, 7, 7 };
	uint8_t rfc[1200], pkt[1500], buf[16384], hs[1500];
	struct afw_quic_flow flow;
	const char *why = "";
	size_t n;
	int ret;

	if (slurp(FIX "quic/rfc9001-client-initial.bin", rfc, sizeof(rfc)) != 1200) {
		CHECK(*failed, "RFC 9001 packet for header cases is read", 0);
		return;
	}

	memcpy(pkt, rfc, 1200);
	pkt[5] = 21;
	CHECK(*failed, "DCID of 21 bytes is refused (-EINVAL)",
	      feed1(ctx, pkt, 1200, &why) == -EINVAL && strstr(why, "longer than 20"));
	CHECK(*failed, "no keys for a first DCID of 4 bytes (-EINVAL)",
	      afw_quic_initial_keys(ctx, AFW_QUIC_V1, rfc_dcid, 4, &flow.keys, &why) == -EINVAL);
	memcpy(pkt, rfc, 1200);
	pkt[15] = 0x7f;
	pkt[16] = 0xff;
	CHECK(*failed, "token length past the end is refused (-EINVAL)",
	      feed1(ctx, pkt, 1200, &why) == -EINVAL && strstr(why, "token past the end"));
	memcpy(pkt, rfc, 1200);
	pkt[16] = 0x7f;
	pkt[17] = 0xff;
	CHECK(*failed, "Length past the end is refused (-EINVAL)",
	      feed1(ctx, pkt, 1200, &why) == -EINVAL && strstr(why, "Length past the end"));
	memcpy(pkt, rfc, 1200);
	pkt[4] = 0x02;
	CHECK(*failed, "an unknown version is refused (-EPROTONOSUPPORT)",
	      feed1(ctx, pkt, 1200, &why) == -EPROTONOSUPPORT);
	memcpy(pkt, rfc, 1200);
	pkt[0] = 0xf0;
	CHECK(*failed, "a Retry from a client is refused (-EPROTONOSUPPORT)",
	      feed1(ctx, pkt, 1200, &why) == -EPROTONOSUPPORT);
	memcpy(pkt, rfc, 1200);
	pkt[0] = 0x80;
	CHECK(*failed, "a zero fixed bit is refused (-EINVAL)",
	      feed1(ctx, pkt, 1200, &why) == -EINVAL);
	CHECK(*failed, "a short-header packet is no start of a flow (-EINVAL)",
	      feed1(ctx, rfc + 1, 1199, &why) == -EINVAL);
	CHECK(*failed, "an empty datagram is refused (-EINVAL)",
	      feed1(ctx, rfc, 0, &why) == -EINVAL);

	afw_quic_flow_init(&flow, buf, sizeof(buf));
	memcpy(pkt, rfc, 1200);
	pkt[600] ^= 1;
	ret = afw_quic_feed(ctx, &flow, pkt, 1200, &why);
	CHECK(*failed, "a changed ciphertext byte fails authentication (-EBADMSG)",
	      ret == -EBADMSG && strstr(why, "authenticate"));
	memcpy(pkt, rfc, 1200);
	pkt[1199] ^= 0x80;
	ret = afw_quic_feed(ctx, &flow, pkt, 1200, &why);
	CHECK(*failed, "a changed tag byte fails authentication (-EBADMSG)", ret == -EBADMSG);
	ret = afw_quic_feed(ctx, &flow, rfc, 1200, &why);
	CHECK(*failed, "the genuine packet still works after forged ones",
	      ret == AFW_QUIC_DONE && flow.initials == 1);

	n = afw_test_seal(ctx, AFW_QUIC_V1, other, 8, 3, 1,
			  (const uint8_t *)"\x06\x00\x01\x01", 4, 1170, pkt, sizeof(pkt));
	ret = afw_quic_feed(ctx, &flow, pkt, n, &why);
	CHECK(*failed, "another DCID in the same flow is refused as a contradiction (-EILSEQ)",
	      ret == -EILSEQ);

	n = afw_test_seal_bits(ctx, AFW_QUIC_V1, other, 8, 0, 1,
			       (const uint8_t *)"\x06\x00\x01\x01", 4, 1170, 2, pkt, sizeof(pkt));
	CHECK(*failed, "an Initial with reserved bits set is refused (-EPROTO)",
	      n >= 1200 && feed1(ctx, pkt, n, &why) == -EPROTO && strstr(why, "reserved"));

	n = afw_test_seal(ctx, AFW_QUIC_V1, other, 8, 0, 1,
			  (const uint8_t *)"\x06\x00\x01\x01", 4, 500, pkt, sizeof(pkt));
	CHECK(*failed, "an Initial in a 500-byte datagram is refused (-EPROTO)",
	      n > 500 && feed1(ctx, pkt, n, &why) == -EPROTO);

	test_oversize(ctx, failed, rfc);

	/* Coalesced: Initial, a Handshake packet, a packet for another DCID, zeros. */
	memcpy(hs, rfc, 1200);
	n = 1200;
	memcpy(hs + n, "\xe0\x00\x00\x00\x01\x08\x83\x94\xc8\xf0\x3e\x51\x57\x08\x00\x14", 16);
	memset(hs + n + 16, 0xab, 20);
	n += 36;
	memcpy(hs + n, "\xc0\x00\x00\x00\x01\x01\x01\x00\x00\x14", 10);
	memset(hs + n + 10, 0xcd, 20);
	n += 30;
	memset(hs + n, 0, 40);
	n += 40;
	CHECK(*failed, "coalesced Initial + Handshake + foreign packet + zeros: done",
	      feed1(ctx, hs, n, &why) == AFW_QUIC_DONE);
	hs[1200 + 15] = 0x40;	/* Handshake Length runs past the end */
	CHECK(*failed, "a coalesced packet's Length past the end is refused (-EINVAL)",
	      feed1(ctx, hs, n, &why) == -EINVAL);
}

/* UDP payloads to port 443 from a pcap of Ethernet frames carrying IPv4. */
static size_t pcap_udp443(const uint8_t *p, size_t len, const uint8_t **dg, size_t *dl, size_t max)
{
	size_t off = 24, n = 0;

	if (len < 24 || p[0] != 0xd4 || p[1] != 0xc3 || p[2] != 0xb2 || p[3] != 0xa1 || p[20] != 1)
		return 0;
	while (off + 16 <= len && n < max) {
		size_t cap = p[off + 8] | p[off + 9] << 8 | p[off + 10] << 16 |
			     (size_t)p[off + 11] << 24;
		const uint8_t *f = p + off + 16;
		size_t ihl, ulen;

		off += 16;
		if (cap > len - off)
			break;
		off += cap;
		if (cap < 14 + 20 + 8 || f[12] != 0x08 || f[13] != 0x00 || f[23] != 17)
			continue;
		ihl = (f[14] & 0x0f) * 4;
		if (cap < 14 + ihl + 8)
			continue;
		f += 14 + ihl;
		ulen = (size_t)(f[4] << 8 | f[5]);
		if ((f[2] << 8 | f[3]) != 443 || ulen < 8 || ulen > cap - 14 - ihl)
			continue;
		dg[n] = f + 8;
		dl[n++] = ulen - 8;
	}
	return n;
}

static void test_chromium(struct afw_quic_ctx *ctx, int *failed)
{
	static uint8_t cap[65536];
	uint8_t buf[16384];
	const uint8_t *dg[16], *msg;
	size_t dl[16], n, i, len, msg_len;
	struct afw_quic_flow flow;
	const char *why = "";
	int ret[16], retrans_ok = 1;

	len = slurp(FIX "pcap/chromium-quic-initial.pcap", cap, sizeof(cap));
	n = pcap_udp443(cap, len, dg, dl, 16);
	CHECK(*failed, "Chromium capture holds 6 datagrams to port 443", n == 6);
	if (n != 6)
		return;
	afw_quic_flow_init(&flow, buf, sizeof(buf));
	for (i = 0; i < n; i++) {
		ret[i] = afw_quic_feed(ctx, &flow, dg[i], dl[i], &why);
		if (ret[i] < 0)
			printf("# datagram %zu: %s\n", i, why);
		if (i >= 2 && i < 5 && ret[i] != AFW_QUIC_DONE)
			retrans_ok = 0;
	}
	CHECK(*failed, "Chromium: the ClientHello spans two Initials (more, then done)",
	      ret[0] == AFW_QUIC_MORE && ret[1] == AFW_QUIC_DONE);
	CHECK(*failed, "Chromium: its three retransmissions agree with the first flight",
	      retrans_ok);
	/* Nobody answered, so Chromium gave up with a CONNECTION_CLOSE. */
	CHECK(*failed, "Chromium: its last Initial closes the connection (-ECONNABORTED)",
	      ret[5] == -ECONNABORTED);
	CHECK(*failed, "Chromium: QUIC v1 with a fresh 8-byte DCID",
	      flow.version == AFW_QUIC_V1 && flow.dcid_len == 8);
	CHECK(*failed, "Chromium: the ClientHello names www.example.org and is over 1200 bytes",
	      !afw_quic_client_hello(&flow, &msg, &msg_len) && msg_len > 1200 &&
	      memmem(msg, msg_len, "www.example.org", 15));
	printf("# Chromium ClientHello: %zu bytes over %u Initial packets\n", msg_len,
	       flow.initials);
}

int main(void)
{
	struct afw_quic_ctx *ctx = afw_quic_ctx_new();
	int failed = 0;

	CHECK(failed, "OpenSSL gives HKDF, AES-128-ECB and AES-128-GCM", ctx);
	if (!ctx)
		return 1;
	test_rfc(ctx, &failed, AFW_QUIC_V1, FIX "quic/rfc9001-client-initial.bin",
		 "1f369613dd76d5467730efcbe3b1a22d", "fa044b2f42a3fd3b46fb255c",
		 "9f50449e04a0e810283a1e9933adedd2");
	test_rfc(ctx, &failed, AFW_QUIC_V2, FIX "quic/rfc9369-client-initial.bin",
		 "8b1a0bc121284290a29e0971b5cd045d", "91f73e2351d8fa91660e909f",
		 "45b95e15235d6f45a6b19cbcb0294ba9");
	test_three(ctx, &failed, AFW_QUIC_V1);
	test_three(ctx, &failed, AFW_QUIC_V2);
	test_frames(ctx, &failed);
	test_headers(ctx, &failed);
	test_chromium(ctx, &failed);
	afw_quic_ctx_free(ctx);
	return failed;
}
