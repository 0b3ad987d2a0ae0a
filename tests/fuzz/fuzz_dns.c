// SPDX-License-Identifier: GPL-2.0
/*
 * Any bytes as a DNS query: no crash, no read outside the input, a name
 * that is what the question says in presentation form; and the same
 * bytes after a TCP length give the same result, while every shorter
 * prefix of a readable query waits for more.
 */

#include <stdlib.h>
#include <string.h>

#include "dns.h"

static uint8_t afw_fuzz_buf[2 + 65535];

static void afw_fuzz_name_ok(const struct afw_dns_query *q)
{
	size_t i;
	char c;

	if (q->name_len > AFW_DNS_MAX_NAME || strlen(q->name) != q->name_len)
		abort();
	for (i = 0; i < q->name_len; i++) {
		c = q->name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '_' || c == '.' || c == '\\'))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct afw_dns_query a, b;
	enum afw_dns_result ra, rb;
	size_t i;

	if (len > 65535)
		return 0;
	ra = afw_dns_parse(data, len, &a);
	if (ra == AFW_DNS_MORE)
		abort();
	if (ra == AFW_DNS_OK) {
		afw_fuzz_name_ok(&a);
		if (a.consumed > len || a.consumed < AFW_DNS_HEADER + 5)
			abort();
	} else if (!a.reason) {
		abort();
	}
	afw_fuzz_buf[0] = (uint8_t)(len >> 8);
	afw_fuzz_buf[1] = (uint8_t)len;
	memcpy(afw_fuzz_buf + 2, data, len);
	rb = afw_dns_parse_stream(afw_fuzz_buf, 2 + len, &b);
	if (rb != ra)
		abort();
	if (ra != AFW_DNS_OK)
		return 0;
	if (b.consumed != a.consumed + 2 || strcmp(a.name, b.name))
		abort();
	/* Cut anywhere before the end of the question: more is needed. */
	for (i = 0; i < b.consumed; i++)
		if (afw_dns_parse_stream(afw_fuzz_buf, i, &b) != AFW_DNS_MORE)
			abort();
	return 0;
}
