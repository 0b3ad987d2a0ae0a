// SPDX-License-Identifier: GPL-2.0
/*
 * The HTTP/1.x request head: which host a request names, when the parser
 * must wait, and what it refuses.
 */

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "http.h"

static const struct {
	const char *req;
	enum afw_http_status st;
	const char *host;	/* with OK: expected host, or NULL for none */
	unsigned int port;
	const char *why;	/* with BAD or NOT_HTTP: words of the reason */
} cases[] = {
	{ "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n", AFW_HTTP_OK, "example.com", 0, NULL },
	{ "GET / HTTP/1.1\r\nUser-Agent: x\r\nhOsT:   Example.COM:8080  \r\nAccept: */*\r\n\r\n",
	  AFW_HTTP_OK, "Example.COM", 8080, NULL },
	{ "GET / HTTP/1.1\nHost: lf.test\n\n", AFW_HTTP_OK, "lf.test", 0, NULL },
	{ "GET http://abs.test:81/x?y HTTP/1.1\r\nHost: abs.test\r\n\r\n", AFW_HTTP_OK, "abs.test",
	  81, NULL },
	{ "GET HTTP://abs.test HTTP/1.1\r\n\r\n", AFW_HTTP_OK, "abs.test", 0, NULL },
	{ "CONNECT tunnel.test:443 HTTP/1.1\r\nHost: tunnel.test:443\r\n\r\n", AFW_HTTP_OK,
	  "tunnel.test", 443, NULL },
	{ "GET / HTTP/1.1\r\nHost: [2001:db8::1]:8080\r\n\r\n", AFW_HTTP_OK, "2001:db8::1", 8080,
	  NULL },
	{ "GET / HTTP/1.0\r\n\r\n", AFW_HTTP_OK, NULL, 0, NULL },
	{ "OPTIONS * HTTP/1.1\r\nHost: o.test\r\n\r\n", AFW_HTTP_OK, "o.test", 0, NULL },

	/* What nginx 1.22 or Python's http.server serve, so read here (docs/afwd.md). */
	{ "\r\nGET / HTTP/1.1\r\nHost: crlf.test\r\n\r\n", AFW_HTTP_OK, "crlf.test", 0, NULL },
	{ "\r\n\r\n\n\rGET / HTTP/1.1\r\nHost: crlfs.test\r\n\r\n", AFW_HTTP_OK, "crlfs.test", 0,
	  NULL },
	{ " GET / HTTP/1.1\r\nHost: sp.test\r\n\r\n", AFW_HTTP_OK, "sp.test", 0, NULL },
	{ "X-Y / HTTP/1.1\r\nHost: dash.test\r\n\r\n", AFW_HTTP_OK, "dash.test", 0, NULL },
	{ "A_B / HTTP/1.1\r\nHost: us.test\r\n\r\n", AFW_HTTP_OK, "us.test", 0, NULL },
	{ "get / HTTP/1.1\r\nHost: lower.test\r\n\r\n", AFW_HTTP_OK, "lower.test", 0, NULL },
	{ "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFG / HTTP/1.1\r\nHost: long.test\r\n\r\n", AFW_HTTP_OK,
	  "long.test", 0, NULL },
	{ "GET  /\t HTTP/1.1 \r\nHost: blanks.test\r\n\r\n", AFW_HTTP_OK, "blanks.test", 0, NULL },
	{ "GET\t/ HTTP/1.1\r\nHost: tab.test\r\n\r\n", AFW_HTTP_OK, "tab.test", 0, NULL },
	{ "GET / http/1.1\r\nHost: case.test\r\n\r\n", AFW_HTTP_OK, "case.test", 0, NULL },
	{ "GET / HTTP/1.10\r\nHost: minor.test\r\n\r\n", AFW_HTTP_OK, "minor.test", 0, NULL },
	{ "GET /\r\n", AFW_HTTP_OK, NULL, 0, NULL },
	{ "GET http://old.test/\r\n", AFW_HTTP_OK, "old.test", 0, NULL },

	{ "\x16\x03\x01\x02\x00", AFW_HTTP_NOT_HTTP, NULL, 0, "method" },
	{ "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", AFW_HTTP_NOT_HTTP, NULL, 0, "HTTP/1.x" },
	{ "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n", AFW_HTTP_NOT_HTTP, NULL, 0,
	  "no HTTP version" },
	{ "EHLO mail.test\r\n", AFW_HTTP_NOT_HTTP, NULL, 0, "no HTTP version" },
	{ "POST /\r\n", AFW_HTTP_NOT_HTTP, NULL, 0, "no HTTP version" },
	{ "(GET) / HTTP/1.1\r\n", AFW_HTTP_NOT_HTTP, NULL, 0, "method" },

	{ "GET / HTTP/1.1\r\n\r\n", AFW_HTTP_BAD, NULL, 0, "without Host" },
	{ "GET / HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\n\r\n", AFW_HTTP_BAD, NULL, 0,
	  "duplicate Host" },
	{ "GET http://a.test/ HTTP/1.1\r\nHost: b.test\r\n\r\n", AFW_HTTP_BAD, NULL, 0,
	  "another host" },
	{ "GET http://user@a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n", AFW_HTTP_BAD, NULL, 0,
	  "user information" },
	{ "GET / HTTP/1.1\r\nHost: a.test/evil\r\n\r\n", AFW_HTTP_BAD, NULL, 0, "Host is not" },
	{ "GET / HTTP/1.1\r\nHost: a.test:99999\r\n\r\n", AFW_HTTP_BAD, NULL, 0, "Host is not" },
	{ "GET / HTTP/1.1\r\nHost:\r\n\r\n", AFW_HTTP_BAD, NULL, 0, "Host is not" },
	{ "GET / HTTP/1.1\r\nHost: a.test\r\n folded\r\n\r\n", AFW_HTTP_BAD, NULL, 0, "folded" },
	{ "GET / HTTP/1.1\r\nHo st: a.test\r\n\r\n", AFW_HTTP_BAD, NULL, 0, "token" },
	{ "GET / HTTP/1.1\r\nNoColon\r\n\r\n", AFW_HTTP_BAD, NULL, 0, "colon" },
	{ "GET / HTTP/1.1\r\nHost: a.test\rX: y\r\n\r\n", AFW_HTTP_BAD, NULL, 0, "stray CR" },
	{ "GET /\x01 HTTP/1.1\r\n", AFW_HTTP_BAD, NULL, 0, "control" },
	{ "GET / HTTP/1.1 x\r\n", AFW_HTTP_BAD, NULL, 0, "does not end" },
	{ "GET / HTTP/1.1000\r\n", AFW_HTTP_BAD, NULL, 0, "3 digits" },
	{ "CONNECT /path HTTP/1.1\r\n\r\n", AFW_HTTP_BAD, NULL, 0, "CONNECT" },
	{ "GET a.test HTTP/1.1\r\nHost: a.test\r\n\r\n", AFW_HTTP_BAD, NULL, 0, "neither" },
};

static bool span_is(const struct afw_span *s, const char *text)
{
	return s->len == strlen(text) && !memcmp(s->p, text, s->len);
}

int main(void)
{
	struct afw_http_request r;
	enum afw_http_status st;
	char what[256];
	unsigned int i;
	int failed = 0;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = strlen(cases[i].req), n;
		bool more = true;

		st = afw_http_parse((const uint8_t *)cases[i].req, len, &r);
		snprintf(what, sizeof(what), "case %u: %s (got %s: %s)", i,
			 afw_http_status_name(cases[i].st), afw_http_status_name(st),
			 r.reason ? r.reason : "");
		CHECK(failed, what, st == cases[i].st);
		if (st == AFW_HTTP_OK) {
			snprintf(what, sizeof(what), "case %u: host %s port %u", i,
				 cases[i].host ? cases[i].host : "(none)", cases[i].port);
			CHECK(failed, what, cases[i].host ? r.has_host && r.port == cases[i].port &&
			      span_is(&r.host, cases[i].host) : !r.has_host);
			snprintf(what, sizeof(what), "case %u: the head is the whole request", i);
			CHECK(failed, what, r.header_len == len);
			snprintf(what, sizeof(what), "case %u: the method is a span of the request", i);
			CHECK(failed, what, r.method.len && r.method.p == (const uint8_t *)cases[i].req +
			      r.lead);
		} else if (cases[i].why) {
			snprintf(what, sizeof(what), "case %u: reason names \"%s\"", i,
				 cases[i].why);
			CHECK(failed, what, r.reason && strstr(r.reason, cases[i].why));
		}
		if (cases[i].st != AFW_HTTP_OK)
			continue;
		/* Every cut of a good request must wait, from an exactly sized buffer. */
		for (n = 0; n < len && more; n++) {
			uint8_t *copy = malloc(n ? n : 1);

			memcpy(copy, cases[i].req, n);
			more = afw_http_parse(copy, n, &r) == AFW_HTTP_MORE;
			free(copy);
		}
		snprintf(what, sizeof(what), "case %u: every shorter prefix is MORE", i);
		CHECK(failed, what, more);
	}

	{
		static uint8_t big[AFW_HTTP_MAX_HEADER + 100];
		const char *head = "GET / HTTP/1.1\r\nHost: a.test\r\nX-Pad: ";
		size_t n = strlen(head);

		memcpy(big, head, n);
		memset(big + n, 'a', sizeof(big) - n);
		st = afw_http_parse(big, AFW_HTTP_MAX_HEADER - 1, &r);
		CHECK(failed, "a head still open below the bound is MORE", st == AFW_HTTP_MORE);
		st = afw_http_parse(big, sizeof(big), &r);
		CHECK(failed, "a header block past 8192 bytes is BAD",
		      st == AFW_HTTP_BAD && strstr(r.reason, "8192"));
		big[sizeof(big) - 4] = '\r';
		big[sizeof(big) - 3] = '\n';
		big[sizeof(big) - 2] = '\r';
		big[sizeof(big) - 1] = '\n';
		st = afw_http_parse(big, sizeof(big), &r);
		CHECK(failed, "a head ending past 8192 bytes is still BAD", st == AFW_HTTP_BAD);
	}
	{
		const char *req = "POST /form HTTP/1.1\r\nHost: body.test\r\n\r\nname=value";

		st = afw_http_parse((const uint8_t *)req, strlen(req), &r);
		CHECK(failed, "a body after the head is not read; method and target are spans",
		      st == AFW_HTTP_OK && r.header_len == strlen(req) - 10 &&
		      span_is(&r.method, "POST") && span_is(&r.target, "/form") && r.minor == 1);
	}
	return failed;
}
