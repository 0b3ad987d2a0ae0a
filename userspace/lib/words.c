// SPDX-License-Identifier: GPL-2.0
/*
 * Words shared by the ruleset syntax (afwctl) and the policy syntax (afwd):
 * numbers and IP protocol names. Needs nothing but libc, so afwd's fuzzers
 * link it alone.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "words.h"

static const struct {
	const char *name;
	uint8_t num;
} afw_protos[] = {
	{ "icmp", 1 }, { "tcp", 6 }, { "udp", 17 }, { "dccp", 33 },
	{ "icmpv6", 58 }, { "sctp", 132 }, { "udplite", 136 },
};

bool afw_parse_u32(const char *s, uint32_t *v)
{
	unsigned long long x;
	char *end;

	/* Digits only: strtoull would take a sign or leading blanks. */
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

const char *afw_proto_name(uint8_t proto, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(afw_protos) / sizeof(afw_protos[0]); i++)
		if (afw_protos[i].num == proto)
			return afw_protos[i].name;
	snprintf(buf, len, "%u", proto);
	return buf;
}

int afw_proto_parse(const char *s, uint8_t *proto)
{
	uint32_t n;
	size_t i;

	for (i = 0; i < sizeof(afw_protos) / sizeof(afw_protos[0]); i++) {
		if (!strcmp(s, afw_protos[i].name)) {
			*proto = afw_protos[i].num;
			return 0;
		}
	}
	if (!afw_parse_u32(s, &n) || n < 1 || n > 255)
		return -1;
	*proto = (uint8_t)n;
	return 0;
}

bool afw_proto_has_ports(uint8_t proto)
{
	return proto == 6 || proto == 17 || proto == 33 || proto == 132 || proto == 136;
}
