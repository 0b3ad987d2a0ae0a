/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DNS queries (RFC 1035 4.1), as a client sends them to port 53: over
 * UDP one message per datagram, over TCP each message after a two-byte
 * length. afwd reads the header and the one question, for the name asked.
 *
 * A query that a resolver would refuse, or read otherwise than afwd, is
 * malformed: not a standard query, not exactly one question, answer or
 * authority records, a compressed or extended label in the question (a
 * query's question is the first name of the message, so nothing earlier
 * can be pointed to: a pointer there only serves to mislead), a name over
 * 255 bytes, or a message that ends inside its question.
 */
#ifndef AFW_DNS_H
#define AFW_DNS_H

#include <stddef.h>
#include <stdint.h>

#define AFW_DNS_PORT 53
#define AFW_DNS_HEADER 12
/* On the wire a name is at most 255 bytes (RFC 1035 3.1). */
#define AFW_DNS_MAX_WIRE 255
/* In presentation form a byte takes at most 4 characters ("\DDD"). */
#define AFW_DNS_MAX_NAME (4 * AFW_DNS_MAX_WIRE)

enum afw_dns_result {
	AFW_DNS_OK,
	AFW_DNS_MORE,		/* TCP: the question is not all there yet */
	AFW_DNS_BAD,		/* malformed; reason says how */
};

struct afw_dns_query {
	/*
	 * The name in presentation form, without the final dot ("" for the
	 * root): labels joined by '.', and every byte of a label that is
	 * not a letter, digit, '-' or '_' escaped as "\DDD", so that a label
	 * holding a '.' is never read as two labels, and such a name is no
	 * valid host name for the policy.
	 */
	char name[AFW_DNS_MAX_NAME + 1];
	size_t name_len;
	uint16_t id, qtype, qclass;
	size_t consumed;	/* bytes up to the end of the question (TCP: with the length) */
	const char *reason;	/* static text, for AFW_DNS_BAD */
};

/* One message of @len bytes at @msg (a UDP payload). Never MORE. */
enum afw_dns_result afw_dns_parse(const uint8_t *msg, size_t len, struct afw_dns_query *q);

/* The first message of a TCP stream: @len bytes received so far. */
enum afw_dns_result afw_dns_parse_stream(const uint8_t *data, size_t len,
					 struct afw_dns_query *q);

#endif /* AFW_DNS_H */
