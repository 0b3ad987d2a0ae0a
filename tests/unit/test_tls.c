// SPDX-License-Identifier: GPL-2.0
/*
 * The ClientHello parser and JA4 over real clients' first flights and crafted
 * streams (tests/fixtures/tls, expected values in expected.txt written by
 * tests/tools/tls_fixtures.py from an independent reading), fed whole, cut at
 * every byte and one byte at a time; and JA4 against the spec's own examples.
 */

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ja4.h"
#include "tls.h"

#define MAX_FIXTURE 65536

static uint8_t scratch[AFW_TLS_SCRATCH_SIZE];

static const char *fixtures(void)
{
	const char *d = getenv("AFW_FIXTURES");

	return d ? d : "tests/fixtures";
}

static size_t load(const char *name, uint8_t *buf)
{
	char path[512];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tls/%s", fixtures(), name);
	f = fopen(path, "rb");
	if (!f)
		return 0;
	n = fread(buf, 1, MAX_FIXTURE, f);
	fclose(f);
	return n;
}

static bool span_is(const struct afw_span *s, const char *text)
{
	return s->len == strlen(text) && !memcmp(s->p, text, s->len);
}

/* ALPN as expected.txt writes it: the name, or 0x and its hex when not printable. */
static void alpn_text(const struct afw_tls_hello *h, char *out, size_t len)
{
	struct afw_span name;
	size_t off = 0, i;
	bool printable = true;

	if (!h->has_alpn || !afw_tls_alpn_next(&h->alpn, &off, &name)) {
		snprintf(out, len, "-");
		return;
	}
	for (i = 0; i < name.len; i++)
		printable &= name.p[i] >= 0x21 && name.p[i] <= 0x7e;
	if (printable) {
		snprintf(out, len, "%.*s", (int)name.len, (const char *)name.p);
		return;
	}
	snprintf(out, len, "0x");
	for (i = 0; i < name.len && 2 + 2 * i + 3 <= len; i++)
		snprintf(out + 2 + 2 * i, 3, "%02x", name.p[i]);
}

/* Every proper prefix of a good stream is MORE; checks a fresh, exactly sized copy each time. */
static bool prefixes_are_more(const uint8_t *data, size_t len, bool records)
{
	struct afw_tls_hello h;
	size_t i;

	for (i = 0; i < len; i++) {
		uint8_t *copy = malloc(i ? i : 1);
		enum afw_tls_status st;

		memcpy(copy, data, i);
		st = records ? afw_tls_parse_stream(copy, i, scratch, sizeof(scratch), &h) :
			       afw_tls_parse_handshake(copy, i, &h);
		free(copy);
		if (st != AFW_TLS_MORE) {
			printf("# prefix of %zu bytes: %s (%s)\n", i, afw_tls_status_name(st),
			       h.reason ? h.reason : "");
			return false;
		}
	}
	return true;
}

/* A caller receiving one byte per segment: OK exactly when the last hello byte arrives. */
static bool one_byte_at_a_time(struct afw_ja4_ctx *ctx, const uint8_t *data, size_t len,
			       const char *ja4)
{
	uint8_t *stream = malloc(len);
	struct afw_tls_hello h;
	enum afw_tls_status st = AFW_TLS_MORE;
	char fp[AFW_JA4_LEN + 1] = "";
	size_t have = 0;

	while (st == AFW_TLS_MORE && have < len) {
		stream[have] = data[have];
		have++;
		st = afw_tls_parse_stream(stream, have, scratch, sizeof(scratch), &h);
	}
	if (st == AFW_TLS_OK)
		afw_ja4(ctx, &h, AFW_JA4_TCP, fp);
	free(stream);
	return st == AFW_TLS_OK && h.consumed == have && !strcmp(fp, ja4);
}

static void fixture(struct afw_ja4_ctx *ctx, int *failed, char *line)
{
	char name[128], status[16], sni[300], alpn[300], ver[8], ja4[64], got_alpn[300];
	char fp[AFW_JA4_LEN + 1], qfp[AFW_JA4_LEN + 1], what[1024];
	static uint8_t data[MAX_FIXTURE];
	struct afw_tls_hello h, q;
	enum afw_tls_status st;
	const char *why;
	size_t len;
	int n = 0;

	if (sscanf(line, "%127s %15s %n", name, status, &n) != 2)
		return;
	why = line + n;
	line[strcspn(line, "\n")] = '\0';
	len = load(name, data);
	snprintf(what, sizeof(what), "%s: fixture is readable", name);
	CHECK(*failed, what, len > 0);
	if (!len)
		return;
	st = afw_tls_parse_stream(data, len, scratch, sizeof(scratch), &h);

	if (strcmp(status, "ok")) {
		snprintf(what, sizeof(what), "%s: %s", name, status);
		CHECK(*failed, what, !strcmp(afw_tls_status_name(st), status));
		if (st == AFW_TLS_BAD) {
			snprintf(what, sizeof(what), "%s: reason names \"%s\" (got \"%s\")", name,
				 why, h.reason ? h.reason : "");
			CHECK(*failed, what, h.reason && strstr(h.reason, why));
		}
		return;
	}
	if (sscanf(why, "%299s %299s %7s %63s", sni, alpn, ver, ja4) != 4) {
		snprintf(what, sizeof(what), "%s: expected.txt line is complete", name);
		CHECK(*failed, what, false);
		return;
	}
	snprintf(what, sizeof(what), "%s: ok (%s)", name, h.reason ? h.reason : "");
	CHECK(*failed, what, st == AFW_TLS_OK);
	if (st != AFW_TLS_OK)
		return;
	snprintf(what, sizeof(what), "%s: SNI %s", name, sni);
	CHECK(*failed, what, strcmp(sni, "-") ? h.has_sni && span_is(&h.sni, sni) : !h.has_sni);
	alpn_text(&h, got_alpn, sizeof(got_alpn));
	snprintf(what, sizeof(what), "%s: first ALPN %s (got %s)", name, alpn, got_alpn);
	CHECK(*failed, what, !strcmp(got_alpn, alpn));
	snprintf(what, sizeof(what), "%s: version %s", name, ver);
	CHECK(*failed, what, h.version == strtoul(ver, NULL, 16));
	CHECK(*failed, "consumed is within the stream", h.consumed <= len);
	fp[0] = '\0';
	afw_ja4(ctx, &h, AFW_JA4_TCP, fp);
	snprintf(what, sizeof(what), "%s: JA4 %s (got %s)", name, ja4, fp);
	CHECK(*failed, what, !strcmp(fp, ja4));

	snprintf(what, sizeof(what), "%s: every shorter prefix is MORE", name);
	CHECK(*failed, what, prefixes_are_more(data, h.consumed, true));
	snprintf(what, sizeof(what), "%s: fed one byte at a time, OK at the hello's last byte",
		 name);
	CHECK(*failed, what, one_byte_at_a_time(ctx, data, len, ja4));

	/*
	 * The same message without records, as QUIC carries it: the hello is either in
	 * the first record or, reassembled, at the start of the scratch buffer.
	 */
	{
		const uint8_t *msg;
		size_t hs_len, rec = 0;

		/* Past the empty records, the first one that carries bytes. */
		while (rec + 5 <= len && !data[rec + 3] && !data[rec + 4])
			rec += 5;
		afw_tls_parse_stream(data, len, scratch, sizeof(scratch), &h);
		msg = (h.ciphers.p >= scratch && h.ciphers.p < scratch + sizeof(scratch)) ?
			scratch : data + rec + 5;
		hs_len = 4 + ((size_t)msg[1] << 16 | (size_t)msg[2] << 8 | msg[3]);
		st = afw_tls_parse_handshake(msg, hs_len, &q);
		snprintf(what, sizeof(what), "%s: bare handshake parses, JA4 starts with q", name);
		qfp[0] = '\0';
		if (st == AFW_TLS_OK)
			afw_ja4(ctx, &q, AFW_JA4_QUIC, qfp);
		CHECK(*failed, what, st == AFW_TLS_OK && qfp[0] == 'q' && !strcmp(qfp + 1, fp + 1));
		snprintf(what, sizeof(what), "%s: bare handshake, every shorter prefix is MORE",
			 name);
		CHECK(*failed, what, prefixes_are_more(msg, hs_len, false));
	}
}

/* A hello as the JA4 description's example lists it, to check against its published values. */
static void ja4_spec(struct afw_ja4_ctx *ctx, int *failed)
{
	static const uint8_t ciphers[] = {
		0x13, 0x01, 0x13, 0x02, 0x13, 0x03, 0xc0, 0x2b, 0xc0, 0x2f, 0xc0, 0x2c, 0xc0, 0x30,
		0xcc, 0xa9, 0xcc, 0xa8, 0xc0, 0x13, 0xc0, 0x14, 0x00, 0x9c, 0x00, 0x9d, 0x00, 0x2f,
		0x00, 0x35,
	};
	static const uint16_t exts[] = {
		0x001b, 0x0000, 0x0033, 0x0010, 0x4469, 0x0017, 0x002d, 0x000d,
		0x0005, 0x0023, 0x0012, 0x002b, 0xff01, 0x000b, 0x000a, 0x0015,
	};
	static const uint8_t sigs[] = {
		0x04, 0x03, 0x08, 0x04, 0x04, 0x01, 0x05, 0x03, 0x08, 0x05, 0x05, 0x01, 0x08, 0x06,
		0x06, 0x01,
	};
	static const struct {
		uint8_t alpn[6];
		const char *chars;
	} alpns[] = {
		{ { 1, 0xab }, "ab" },
		{ { 2, 0xab, 0xcd }, "ad" },
		{ { 2, 0x30, 0xab }, "3b" },
		{ { 4, 0x30, 0x31, 0xab, 0xcd }, "3d" },
		{ { 4, 0x30, 0xab, 0xcd, 0x31 }, "01" },
		{ { 1, 'x' }, "xx" },
	};
	static const uint8_t h2[] = { 2, 'h', '2', 8, 'h', 't', 't', 'p', '/', '1', '.', '1' };
	struct afw_tls_hello h;
	char fp[AFW_JA4_LEN + 1], what[128];
	unsigned int i;

	memset(&h, 0, sizeof(h));
	h.version = 0x0304;
	h.has_sni = true;
	h.has_alpn = true;
	h.alpn.p = h2;
	h.alpn.len = sizeof(h2);
	h.ciphers.p = ciphers;
	h.ciphers.len = sizeof(ciphers);
	memcpy(h.exts, exts, sizeof(exts));
	h.n_exts = sizeof(exts) / sizeof(exts[0]);
	h.has_sig_algs = true;
	h.sig_algs.p = sigs;
	h.sig_algs.len = sizeof(sigs);
	CHECK(*failed, "JA4 of the spec's example", !afw_ja4(ctx, &h, AFW_JA4_TCP, fp) &&
	      !strcmp(fp, "t13d1516h2_8daaf6152771_e5627efa2ab1"));

	h.has_sig_algs = false;
	afw_ja4(ctx, &h, AFW_JA4_TCP, fp);
	CHECK(*failed, "JA4 of the spec's example without signature algorithms",
	      !strcmp(fp + 24, "6d807ffa2a79"));

	for (i = 0; i < sizeof(alpns) / sizeof(alpns[0]); i++) {
		h.alpn.p = alpns[i].alpn;
		h.alpn.len = (size_t)alpns[i].alpn[0] + 1;
		afw_ja4(ctx, &h, AFW_JA4_TCP, fp);
		snprintf(what, sizeof(what), "JA4 ALPN characters, spec case %s", alpns[i].chars);
		CHECK(*failed, what, !strncmp(fp + 8, alpns[i].chars, 2));
	}

	h.has_alpn = false;
	h.has_sni = false;
	h.version = 0x0301;
	h.n_exts = 0;
	h.ciphers.len = 0;
	afw_ja4(ctx, &h, AFW_JA4_QUIC, fp);
	CHECK(*failed, "JA4 with nothing: no SNI, no ALPN, empty lists are twelve zeros",
	      !strcmp(fp, "q10i000000_000000000000_000000000000"));

	/* GREASE counts nowhere, and a count over 99 shows as 99. */
	{
		static uint8_t many[2 * 120];

		for (i = 0; i < 120; i++) {
			many[2 * i] = 0x00;
			many[2 * i + 1] = (uint8_t)i;
		}
		many[0] = 0x3a;
		many[1] = 0x3a;
		h.ciphers.p = many;
		h.ciphers.len = sizeof(many);
		h.exts[0] = 0x1a1a;
		h.exts[1] = 0x0017;
		h.n_exts = 2;
		afw_ja4(ctx, &h, AFW_JA4_TCP, fp);
		CHECK(*failed, "JA4 counts: 99 for over 99 ciphers, GREASE extensions not counted",
		      !strncmp(fp, "t10i9901", 8));
	}

	/*
	 * The cipher hash is of the sorted list: the client's order must not
	 * change it, for short lists and for long ones, where the sort takes wider gaps.
	 */
	{
		/* None is a multiple of 7, so i -> (7i + 3) mod n permutes each list. */
		static const unsigned int counts[] = { 2, 31, 64, 65, 200 };
		static uint8_t up[2 * 200], shuffled[2 * 200];
		char sorted_fp[AFW_JA4_LEN + 1];
		unsigned int k, j;

		h.n_exts = 0;
		for (k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
			unsigned int n = counts[k];

			for (i = 0; i < n; i++) {
				up[2 * i] = (uint8_t)(1 + i / 256);
				up[2 * i + 1] = (uint8_t)(1 + i % 256);
			}
			for (i = 0; i < n; i++) {
				j = (i * 7 + 3) % n;
				shuffled[2 * i] = up[2 * j];
				shuffled[2 * i + 1] = up[2 * j + 1];
			}
			h.ciphers.p = up;
			h.ciphers.len = 2 * n;
			afw_ja4(ctx, &h, AFW_JA4_TCP, sorted_fp);
			h.ciphers.p = shuffled;
			afw_ja4(ctx, &h, AFW_JA4_TCP, fp);
			snprintf(what, sizeof(what),
				 "JA4 of %u ciphers does not depend on their order", n);
			CHECK(*failed, what, !strcmp(fp, sorted_fp) &&
			      memcmp(up, shuffled, 2 * n));
		}
	}
}

/* Results that the caller may rely on beyond the status. */
static void api(int *failed)
{
	static uint8_t data[MAX_FIXTURE];
	struct afw_tls_hello h;
	size_t len;

	len = load("crafted-two-records.bin", data);
	CHECK(*failed, "a fragmented hello without a scratch buffer is BAD, not a crash",
	      len && afw_tls_parse_stream(data, len, NULL, 0, &h) == AFW_TLS_BAD &&
	      strstr(h.reason, "scratch"));
	CHECK(*failed, "a fragmented hello larger than the scratch buffer is BAD",
	      len && afw_tls_parse_stream(data, len, scratch, 200, &h) == AFW_TLS_BAD);
	CHECK(*failed, "a fragmented hello with a scratch buffer is OK",
	      len && afw_tls_parse_stream(data, len, scratch, sizeof(scratch), &h) == AFW_TLS_OK &&
	      h.consumed == len);

	len = load("crafted-one-record.bin", data);
	CHECK(*failed, "a hello in one record is read in place, not copied",
	      len && afw_tls_parse_stream(data, len, NULL, 0, &h) == AFW_TLS_OK &&
	      h.sni.p > data && h.sni.p < data + len);
	CHECK(*failed, "bytes after the hello are not read",
	      len && afw_tls_parse_stream(data, len + 3, NULL, 0, &h) == AFW_TLS_OK &&
	      h.consumed == len);
	CHECK(*failed, "an empty stream is MORE",
	      afw_tls_parse_stream(data, 0, NULL, 0, &h) == AFW_TLS_MORE);
	CHECK(*failed, "a bare handshake that is not a ClientHello is BAD",
	      afw_tls_parse_handshake((const uint8_t *)"\x02", 1, &h) == AFW_TLS_BAD);
}

/* encrypted_client_hello is reported, and the SNI beside it is the public name. */
static void ech(int *failed)
{
	static const char *const cases[][2] = {
		{ "crafted-ech.bin", "public.afw.test" },
		{ "crafted-ech-inner.bin", "crafted.afw.test" },
		{ "crafted-one-record.bin", NULL },
		{ "chromium.bin", "chromium.afw.test" },
	};
	static uint8_t data[MAX_FIXTURE];
	struct afw_tls_hello h;
	char what[128];
	size_t i, len;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		len = load(cases[i][0], data);
		snprintf(what, sizeof(what), "%s: %s", cases[i][0],
			 cases[i][1] ? "ECH reported, with the outer name as SNI" : "no ECH");
		CHECK(*failed, what,
		      len && afw_tls_parse_stream(data, len, scratch, sizeof(scratch), &h) ==
		      AFW_TLS_OK && h.has_ech == (cases[i][1] != NULL) &&
		      (!cases[i][1] || span_is(&h.sni, cases[i][1])));
	}
}

int main(void)
{
	struct afw_ja4_ctx *ctx = afw_ja4_ctx_new();
	char path[512], line[1024];
	int failed = 0, lines = 0;
	FILE *f;

	CHECK(failed, "a JA4 context can be set up", ctx);
	if (!ctx)
		return failed;
	snprintf(path, sizeof(path), "%s/tls/expected.txt", fixtures());
	f = fopen(path, "r");
	CHECK(failed, "tests/fixtures/tls/expected.txt is readable", f);
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			fixture(ctx, &failed, line);
			lines++;
		}
		fclose(f);
	}
	CHECK(failed, "expected.txt lists real clients and crafted cases", lines >= 40);
	ja4_spec(ctx, &failed);
	api(&failed);
	ech(&failed);
	afw_ja4_ctx_free(ctx);
	return failed;
}
