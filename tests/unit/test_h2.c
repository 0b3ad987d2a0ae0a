// SPDX-License-Identifier: GPL-2.0
/*
 * HTTP/2 with prior knowledge: header blocks encoded by libnghttp2's own
 * HPACK deflater (Huffman, the dynamic table), framed as curl and nginx
 * frame them, then split, padded, interrupted and lied about.
 */

#include <stdlib.h>
#include <string.h>

#include <nghttp2/nghttp2.h>

#include "check.h"
#include "h2.h"

static uint8_t scratch[16384];

struct stream {
	uint8_t b[70000];
	size_t n;
};

static void frame(struct stream *s, uint8_t type, uint8_t flags, uint32_t sid, const void *p,
		  size_t len)
{
	uint8_t *h = s->b + s->n;

	h[0] = (uint8_t)(len >> 16);
	h[1] = (uint8_t)(len >> 8);
	h[2] = (uint8_t)len;
	h[3] = type;
	h[4] = flags;
	h[5] = (uint8_t)(sid >> 24);
	h[6] = (uint8_t)(sid >> 16);
	h[7] = (uint8_t)(sid >> 8);
	h[8] = (uint8_t)sid;
	memcpy(h + 9, p, len);
	s->n += 9 + len;
}

/* The preface and a SETTINGS frame, as curl sends them. */
static void start(struct stream *s)
{
	static const uint8_t settings[] = { 0, 3, 0, 0, 0, 100, 0, 4, 0, 0x60, 0, 0 };

	memcpy(s->b, AFW_H2_PREFACE, AFW_H2_PREFACE_LEN);
	s->n = AFW_H2_PREFACE_LEN;
	frame(s, 0x4, 0, 0, settings, sizeof(settings));
}

/* A header block of @n fields "name", "value", ... by nghttp2's deflater. */
static size_t block(uint8_t *out, size_t cap, const char *const *fields, size_t n)
{
	nghttp2_hd_deflater *d;
	nghttp2_nv nv[16];
	ssize_t len;
	size_t i;

	for (i = 0; i < n; i++)
		nv[i] = (nghttp2_nv){ (uint8_t *)fields[2 * i], (uint8_t *)fields[2 * i + 1],
				      strlen(fields[2 * i]), strlen(fields[2 * i + 1]),
				      NGHTTP2_NV_FLAG_NONE };
	if (nghttp2_hd_deflate_new(&d, 4096))
		return 0;
	len = nghttp2_hd_deflate_hd(d, out, cap, nv, n);
	nghttp2_hd_deflate_del(d);
	return len < 0 ? 0 : (size_t)len;
}

#define REQ(auth) ":method", "GET", ":scheme", "http", ":authority", auth, ":path", "/"

static bool prefixes_more(const struct stream *s, size_t upto)
{
	struct afw_h2_request r;
	size_t i;

	for (i = 0; i < upto; i++) {
		uint8_t *c = malloc(i ? i : 1);
		enum afw_h2_status st;

		memcpy(c, s->b, i);
		st = afw_h2_parse(c, i, scratch, sizeof(scratch), &r);
		free(c);
		if (st != AFW_H2_MORE) {
			printf("# prefix %zu: %s %s\n", i, afw_h2_status_name(st),
			       r.reason ? r.reason : "");
			return false;
		}
	}
	return true;
}

static enum afw_h2_status parse(const struct stream *s, struct afw_h2_request *r)
{
	return afw_h2_parse(s->b, s->n, scratch, sizeof(scratch), r);
}

int main(void)
{
	static const char *const basic[] = { REQ("a.test:8080"), "user-agent", "curl/7.88.1",
					     "accept", "*/*" };
	static const char *const host_only[] = { ":method", "GET", ":scheme", "http", ":path",
						 "/", "host", "Host.Test" };
	static const char *const differ[] = { REQ("a.test"), "host", "b.test" };
	static const char *const same[] = { REQ("a.test"), "host", "A.TEST:80" };
	static const char *const twice[] = { REQ("a.test"), ":authority", "b.test" };
	static const char *const late[] = { ":method", "GET", "x", "y", ":authority", "a.test" };
	static const char *const evil[] = { REQ("user@a.test") };
	static const char *const none[] = { ":method", "GET", ":scheme", "http", ":path", "/" };
	struct afw_h2_request r;
	uint8_t hb[4096], pad[300];
	struct stream *s = malloc(sizeof(*s));
	size_t n, cut;
	int failed = 0;

	if (!s)
		return 1;
	start(s);
	n = block(hb, sizeof(hb), basic, 6);
	frame(s, 0x4, 0x1, 0, NULL, 0);		/* a SETTINGS ACK */
	frame(s, 0x8, 0, 0, "\x00\x3f\x00\x01", 4);	/* WINDOW_UPDATE */
	frame(s, 0x1, 0x4 | 0x1, 1, hb, n);
	CHECK(failed, "curl's shape: :authority read, port apart",
	      parse(s, &r) == AFW_H2_OK && !strcmp(r.host, "a.test") && r.port == 8080 &&
	      !strcmp(r.method, "GET") && r.stream == 1 && r.consumed == s->n);
	CHECK(failed, "every shorter prefix is MORE", prefixes_more(s, s->n));

	start(s);
	cut = n / 3;
	frame(s, 0x1, 0, 3, hb, cut);
	frame(s, 0x9, 0, 3, hb + cut, cut);
	frame(s, 0x9, 0x4, 3, hb + 2 * cut, n - 2 * cut);
	CHECK(failed, "a header block over HEADERS and two CONTINUATIONs",
	      parse(s, &r) == AFW_H2_OK && !strcmp(r.host, "a.test") && r.stream == 3);
	CHECK(failed, "every shorter prefix of it is MORE", prefixes_more(s, s->n));

	start(s);
	pad[0] = 10;				/* pad length */
	memcpy(pad + 1, "\x80\x00\x00\x00\x10", 5);	/* exclusive, stream 0, weight 16 */
	memcpy(pad + 6, hb, n);
	memset(pad + 6 + n, 0, 10);
	frame(s, 0x1, 0x4 | 0x8 | 0x20, 1, pad, 6 + n + 10);
	CHECK(failed, "HEADERS padded and with a priority",
	      parse(s, &r) == AFW_H2_OK && !strcmp(r.host, "a.test"));

	start(s);
	frame(s, 0x1, 0x4, 1, hb, block(hb, sizeof(hb), host_only, 4));
	CHECK(failed, "a host field without :authority",
	      parse(s, &r) == AFW_H2_OK && !strcmp(r.host, "Host.Test"));
	start(s);
	frame(s, 0x1, 0x4, 1, hb, block(hb, sizeof(hb), same, 5));
	CHECK(failed, ":authority and host naming the same host",
	      parse(s, &r) == AFW_H2_OK && !strcmp(r.host, "a.test"));
	start(s);
	frame(s, 0x1, 0x4, 1, hb, block(hb, sizeof(hb), none, 3));
	CHECK(failed, "no name at all: OK, without a host", parse(s, &r) == AFW_H2_OK && !r.has_host);

	start(s);
	frame(s, 0x1, 0x4, 1, hb, block(hb, sizeof(hb), differ, 5));
	CHECK(failed, ":authority and host naming different hosts is BAD",
	      parse(s, &r) == AFW_H2_BAD && strstr(r.reason, "another host"));
	start(s);
	frame(s, 0x1, 0x4, 1, hb, block(hb, sizeof(hb), twice, 5));
	CHECK(failed, "two :authority fields are BAD",
	      parse(s, &r) == AFW_H2_BAD && strstr(r.reason, "duplicate"));
	start(s);
	frame(s, 0x1, 0x4, 1, hb, block(hb, sizeof(hb), late, 3));
	CHECK(failed, "a pseudo-header after a regular field is BAD",
	      parse(s, &r) == AFW_H2_BAD && strstr(r.reason, "pseudo-header"));
	start(s);
	frame(s, 0x1, 0x4, 1, hb, block(hb, sizeof(hb), evil, 4));
	CHECK(failed, "user information in :authority is BAD",
	      parse(s, &r) == AFW_H2_BAD && strstr(r.reason, ":authority"));

	start(s);
	frame(s, 0x1, 0, 1, hb, n / 2);
	frame(s, 0x6, 0, 0, "12345678", 8);	/* PING */
	frame(s, 0x9, 0x4, 1, hb + n / 2, n - n / 2);
	CHECK(failed, "a header block interrupted by PING is BAD",
	      parse(s, &r) == AFW_H2_BAD && strstr(r.reason, "interrupted"));
	start(s);
	frame(s, 0x1, 0, 1, hb, n / 2);
	frame(s, 0x9, 0x4, 5, hb + n / 2, n - n / 2);
	CHECK(failed, "a CONTINUATION of another stream is BAD",
	      parse(s, &r) == AFW_H2_BAD && strstr(r.reason, "interrupted"));
	memcpy(s->b, AFW_H2_PREFACE, AFW_H2_PREFACE_LEN);
	s->n = AFW_H2_PREFACE_LEN;
	frame(s, 0x1, 0x4, 1, hb, n);
	CHECK(failed, "HEADERS before SETTINGS is BAD",
	      parse(s, &r) == AFW_H2_BAD && strstr(r.reason, "SETTINGS"));
	start(s);
	s->b[s->n] = 0, s->b[s->n + 1] = 0x40, s->b[s->n + 2] = 1;	/* 16385 bytes */
	s->b[s->n + 3] = 1;
	s->n += 9;
	CHECK(failed, "a frame over 16384 bytes is BAD at its header",
	      parse(s, &r) == AFW_H2_BAD && strstr(r.reason, "16384"));
	start(s);
	frame(s, 0x1, 0x4, 1, "\xff\xff\xff\xff\xff\xff", 6);
	CHECK(failed, "a block HPACK cannot decode is BAD",
	      parse(s, &r) == AFW_H2_BAD && strstr(r.reason, "HPACK"));
	start(s);
	frame(s, 0x0, 0, 1, "x", 1);
	CHECK(failed, "DATA before a request is BAD", parse(s, &r) == AFW_H2_BAD);

	memcpy(s->b, "PRI * HTTP/1.1\r\n", 16);
	s->n = 16;
	CHECK(failed, "another preface is not HTTP/2",
	      parse(s, &r) == AFW_H2_NOT_H2 && strstr(r.reason, "preface"));
	memcpy(s->b, "GET / HTTP/1.1\r\n", 16);
	CHECK(failed, "HTTP/1.1 is not HTTP/2", parse(s, &r) == AFW_H2_NOT_H2);
	s->n = 3;
	memcpy(s->b, "PRI", 3);
	CHECK(failed, "the start of the preface is MORE", parse(s, &r) == AFW_H2_MORE);
	free(s);
	return failed;
}
