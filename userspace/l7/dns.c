// SPDX-License-Identifier: GPL-2.0
/*
 * The question of a DNS query. Everything is read with explicit bounds
 * against the message's length; nothing is allocated.
 */

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "dns.h"

static uint16_t afw_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static bool afw_dns_plain(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

static enum afw_dns_result afw_dns_bad(struct afw_dns_query *q, const char *why)
{
	q->reason = why;
	return AFW_DNS_BAD;
}

/*
 * The question of @msg (@len bytes, or @have of them so far when @more
 * is set): MORE when @have ends before the question does.
 */
static enum afw_dns_result afw_dns_read(const uint8_t *msg, size_t len, size_t have, bool more,
					struct afw_dns_query *q)
{
	size_t off = AFW_DNS_HEADER, wire = 0, n, i;
	uint8_t flags, c;

	if (have < AFW_DNS_HEADER)
		return more && len >= AFW_DNS_HEADER ? AFW_DNS_MORE :
		       afw_dns_bad(q, "shorter than a DNS header");
	q->id = afw_be16(msg);
	flags = msg[2];
	if (flags & 0x80)
		return afw_dns_bad(q, "a response where a query is expected");
	if ((flags >> 3) & 0xf)
		return afw_dns_bad(q, "not a standard query (opcode is not QUERY)");
	if (afw_be16(msg + 4) != 1)
		return afw_dns_bad(q, "a query has exactly one question");
	if (afw_be16(msg + 6) || afw_be16(msg + 8))
		return afw_dns_bad(q, "a query with answer or authority records");
	for (;;) {
		if (off >= have)
			goto short_msg;
		n = msg[off++];
		if (!n)
			break;
		if ((n & 0xc0) == 0xc0)
			return afw_dns_bad(q, "a compression pointer in the question of a query");
		if (n & 0xc0)
			return afw_dns_bad(q, "an extended label type in the question");
		wire += n + 1;
		if (wire + 1 > AFW_DNS_MAX_WIRE)
			return afw_dns_bad(q, "a name longer than 255 bytes");
		if (n > have - off)
			goto short_msg;
		if (q->name_len)
			q->name[q->name_len++] = '.';
		for (i = 0; i < n; i++) {
			c = msg[off + i];
			if (afw_dns_plain(c))
				q->name[q->name_len++] = (char)c;
			else
				q->name_len += (size_t)snprintf(q->name + q->name_len,
								sizeof(q->name) - q->name_len,
								"\\%03u", c);
		}
		off += n;
	}
	q->name[q->name_len] = '\0';
	if (have - off < 4)
		goto short_msg;
	q->qtype = afw_be16(msg + off);
	q->qclass = afw_be16(msg + off + 2);
	q->consumed = off + 4;
	return AFW_DNS_OK;
short_msg:
	q->name_len = 0;
	q->name[0] = '\0';
	if (more && have < len)
		return AFW_DNS_MORE;
	return afw_dns_bad(q, "the message ends inside its question");
}

enum afw_dns_result afw_dns_parse(const uint8_t *msg, size_t len, struct afw_dns_query *q)
{
	memset(q, 0, sizeof(*q));
	return afw_dns_read(msg, len, len, false, q);
}

enum afw_dns_result afw_dns_parse_stream(const uint8_t *data, size_t len,
					 struct afw_dns_query *q)
{
	enum afw_dns_result ret;
	size_t mlen;

	memset(q, 0, sizeof(*q));
	if (len < 2)
		return AFW_DNS_MORE;
	mlen = afw_be16(data);
	ret = afw_dns_read(data + 2, mlen, len - 2 < mlen ? len - 2 : mlen, true, q);
	if (ret == AFW_DNS_OK)
		q->consumed += 2;
	return ret;
}
