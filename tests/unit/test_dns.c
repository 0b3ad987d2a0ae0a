// SPDX-License-Identifier: GPL-2.0
/*
 * The DNS query reader: the name it reads, and every way a query that a
 * resolver would read otherwise is refused, over UDP and over TCP.
 */

#include <stdbool.h>
#include <string.h>

#include "check.h"
#include "dns.h"

/* A query: the header's flags and counts, then the question's wire name @wire (@wlen bytes). */
static size_t msg(uint8_t *out, uint8_t flags, uint16_t qd, uint16_t an, uint16_t ar,
		  const void *wire, size_t wlen)
{
	uint8_t h[12] = { 0xab, 0xcd, flags, 0, qd >> 8, qd & 0xff, an >> 8, an & 0xff, 0, 0,
			  ar >> 8, ar & 0xff };

	memcpy(out, h, 12);
	memcpy(out + 12, wire, wlen);
	memcpy(out + 12 + wlen, "\0\x1c\0\x01", 4);	/* AAAA IN */
	return 12 + wlen + 4;
}

#define NAME(s) s, sizeof(s)	/* a wire name literal, with its final zero byte */

static bool bad(const uint8_t *m, size_t len, const char *why)
{
	struct afw_dns_query q;
	enum afw_dns_result ret = afw_dns_parse(m, len, &q);

	if (ret != AFW_DNS_BAD || !strstr(q.reason, why)) {
		printf("# result %d, %s\n", ret, ret == AFW_DNS_BAD ? q.reason : q.name);
		return false;
	}
	return true;
}

int main(void)
{
	uint8_t m[600], t[602], wire[300];
	struct afw_dns_query q;
	enum afw_dns_result ret;
	size_t n, i;
	int failed = 0;
	bool ok;

	n = msg(m, 0x01, 1, 0, 1, NAME("\3www\7example\3com"));
	CHECK(failed, "a query's name, type and class",
	      afw_dns_parse(m, n, &q) == AFW_DNS_OK && !strcmp(q.name, "www.example.com") &&
	      q.name_len == 15 && q.qtype == 28 && q.qclass == 1 && q.consumed == n &&
	      q.id == 0xabcd);
	/* An EDNS OPT record after the question is read past. */
	memcpy(m + n, "\0\0\x29\x10\0\0\0\0\0\0\0", 11);
	CHECK(failed, "with an OPT record after it",
	      afw_dns_parse(m, n + 11, &q) == AFW_DNS_OK && !strcmp(q.name, "www.example.com") &&
	      q.consumed == n);
	n = msg(m, 0x00, 1, 0, 0, NAME(""));
	CHECK(failed, "the root: no name", afw_dns_parse(m, n, &q) == AFW_DNS_OK &&
	      q.name_len == 0 && !strcmp(q.name, ""));
	n = msg(m, 0x01, 1, 0, 0, NAME("\7a.b\\c d\3com"));
	CHECK(failed, "bytes outside a host name are escaped, a dot in a label too",
	      afw_dns_parse(m, n, &q) == AFW_DNS_OK &&
	      !strcmp(q.name, "a\\046b\\092c\\032d.com"));

	n = msg(m, 0x81, 1, 0, 0, NAME("\1a"));
	CHECK(failed, "a response is refused", bad(m, n, "a response"));
	n = msg(m, 0x28, 1, 0, 0, NAME("\1a"));	/* opcode 5, UPDATE */
	CHECK(failed, "another opcode is refused", bad(m, n, "not a standard query"));
	n = msg(m, 0x01, 2, 0, 0, NAME("\1a"));
	CHECK(failed, "two questions are refused", bad(m, n, "exactly one question"));
	n = msg(m, 0x01, 0, 0, 0, NAME("\1a"));
	CHECK(failed, "no question is refused", bad(m, n, "exactly one question"));
	n = msg(m, 0x01, 1, 1, 0, NAME("\1a"));
	CHECK(failed, "answer records in a query are refused", bad(m, n, "answer or authority"));
	n = msg(m, 0x01, 1, 0, 0, NAME("\1a\xc0\x0c"));
	CHECK(failed, "a compression pointer in the question is refused",
	      bad(m, n, "compression pointer"));
	n = msg(m, 0x01, 1, 0, 0, NAME("\x41\x01"));
	CHECK(failed, "an extended label type is refused", bad(m, n, "extended label"));
	CHECK(failed, "a short header is refused", bad(m, 11, "shorter than a DNS header"));
	n = msg(m, 0x01, 1, 0, 0, NAME("\3www\7example\3com"));
	for (ok = true, i = 12; i < n; i++)
		ok &= bad(m, i, "ends inside its question");
	CHECK(failed, "every cut inside the question is refused", ok);
	/* 4 labels of 63 bytes: 256 bytes with the lengths and the zero: one too many. */
	for (i = 0, n = 0; i < 4; i++) {
		wire[n++] = 63;
		memset(wire + n, 'a', 63);
		n += 63;
	}
	wire[n++] = 0;
	n = msg(m, 0x01, 1, 0, 0, wire, n);
	CHECK(failed, "a name over 255 bytes is refused", bad(m, n, "longer than 255"));
	wire[3 * 64] = 61;	/* 63, 63, 63, 61: 3 x 64 + 62 + 1 = 255 bytes, the longest */
	wire[3 * 64 + 62] = 0;
	n = msg(m, 0x01, 1, 0, 0, wire, 3 * 64 + 62 + 1);
	ret = afw_dns_parse(m, n, &q);
	CHECK(failed, "a name of 255 bytes is read",
	      ret == AFW_DNS_OK && q.name_len == 3 * 64 + 61);

	/* TCP: every prefix of the message waits for more; the whole is read. */
	n = msg(m, 0x01, 1, 0, 1, NAME("\4mail\7example\3org"));
	t[0] = 0, t[1] = (uint8_t)n;
	memcpy(t + 2, m, n);
	for (ok = true, i = 0; i < 2 + n; i++)
		ok &= afw_dns_parse_stream(t, i, &q) == AFW_DNS_MORE;
	CHECK(failed, "tcp: a query in pieces waits for its question", ok);
	CHECK(failed, "tcp: the whole query is read",
	      afw_dns_parse_stream(t, 2 + n, &q) == AFW_DNS_OK &&
	      !strcmp(q.name, "mail.example.org") && q.consumed == 2 + n);
	t[1] = (uint8_t)(n - 3);
	CHECK(failed, "tcp: a length that ends inside the question is refused",
	      afw_dns_parse_stream(t, 2 + n, &q) == AFW_DNS_BAD &&
	      strstr(q.reason, "ends inside"));
	t[1] = 5;
	CHECK(failed, "tcp: a length shorter than a header is refused",
	      afw_dns_parse_stream(t, 2 + n, &q) == AFW_DNS_BAD);
	return failed;
}
