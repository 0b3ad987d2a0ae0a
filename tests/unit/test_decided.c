// SPDX-License-Identifier: GPL-2.0
/*
 * afwctl's reading of afwd's "flows" lines (userspace/afwctl/decided.c):
 * the flow, the decision and the strings as afwd escaped them, whatever a
 * client put in its host name; and a line it cannot trust is refused.
 */

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../userspace/afwctl/afwctl.h"

#define HEAD "{\"queue\":1,\"family\":\"ipv4\",\"proto\":6,\"src\":\"192.0.2.1\",\"sport\":40000," \
	"\"dst\":\"198.51.100.2\",\"dport\":443,"

static int refused(const char *line)
{
	struct afwctl_decided d;

	return afwctl_decided_parse(line, &d) == -1 && !d.host && !d.by && !d.decision;
}

int main(void)
{
	struct afwctl_decided d, *v;
	struct afwctl_decided_set set = { 0 };
	struct afw_flow_spec f = { .family = AFW_FAMILY_IPV4, .proto = 6 };
	uint8_t a[4];
	int failed = 0;

	CHECK(failed, "a line of afwd's is read",
	      afwctl_decided_parse(HEAD "\"decision\":\"allow\",\"where\":\"module\",\"l7\":\"tls\","
				   "\"by\":\"/etc/afw/policy.conf:12\",\"host\":\"example.com\"}",
				   &d) == 0);
	inet_pton(AF_INET, "192.0.2.1", a);
	CHECK(failed, "its flow", d.family == AFW_FAMILY_IPV4 && d.proto == 6 &&
	      !memcmp(d.src, a, 4) && d.sport == 40000 && d.dport == 443);
	CHECK(failed, "its strings, quotes kept", !strcmp(d.decision, "\"allow\"") &&
	      !strcmp(d.by, "\"/etc/afw/policy.conf:12\"") && !strcmp(d.host, "\"example.com\""));

	/* A host that imitates the fields after it stays the host. */
	set.v = calloc(1, sizeof(*set.v));
	set.n = set.cap = 1;
	CHECK(failed, "a host with escaped quotes and keys inside",
	      afwctl_decided_parse(HEAD "\"decision\":\"deny\",\"where\":\"mark\",\"l7\":\"tls\","
				   "\"reason\":\"evasion\",\"by\":\"reader: evasion\","
				   "\"host\":\"a\\\",\\\"by\\\":\\\"x\\\\\"}", &set.v[0]) == 0 &&
	      !strcmp(set.v[0].host, "\"a\\\",\\\"by\\\":\\\"x\\\\\"") &&
	      !strcmp(set.v[0].by, "\"reader: evasion\""));
	memcpy(f.src, set.v[0].src, 16);
	memcpy(f.dst, set.v[0].dst, 16);
	f.sport = 40000;
	f.dport = 443;
	v = set.v;
	CHECK(failed, "found by its flow", afwctl_decided_find(&set, &f) == v);
	memcpy(f.src, v->dst, 16);
	memcpy(f.dst, v->src, 16);
	f.sport = 443;
	f.dport = 40000;
	CHECK(failed, "and by the reverse", afwctl_decided_find(&set, &f) == v);
	f.dport = 40001;
	CHECK(failed, "not by another port", afwctl_decided_find(&set, &f) == NULL);
	afwctl_decided_free(&set);
	free(d.decision);
	free(d.by);
	free(d.host);

	{
		/* A ping's: its identifier; the module's flow names the same pinger first. */
		struct afwctl_decided_set one = { .v = calloc(1, sizeof(*one.v)), .n = 1, .cap = 1 };
		struct afw_flow_spec g = { .family = AFW_FAMILY_IPV4, .proto = 1, .echo = true,
					   .icmp_id = 4711 };

		CHECK(failed, "a ping's line is read with its identifier",
		      one.v && afwctl_decided_parse("{\"queue\":0,\"family\":\"ipv4\",\"proto\":1,"
						    "\"src\":\"192.0.2.1\",\"sport\":0,"
						    "\"dst\":\"192.0.2.2\",\"dport\":0,"
						    "\"decision\":\"allow\",\"where\":\"module\","
						    "\"l7\":\"unknown\",\"icmp_id\":4711,"
						    "\"reason\":\"not-tls\",\"by\":\"p:2\","
						    "\"host\":\"\"}", &one.v[0]) == 0 &&
		      one.v[0].echo && one.v[0].icmp_id == 4711);
		inet_pton(AF_INET, "192.0.2.1", g.src);
		inet_pton(AF_INET, "192.0.2.2", g.dst);
		CHECK(failed, "found by the module's flow of that ping",
		      one.v && afwctl_decided_find(&one, &g) == one.v);
		memcpy(g.src, one.v[0].dst, 16);
		memcpy(g.dst, one.v[0].src, 16);
		CHECK(failed, "not by the other host's ping with the same identifier",
		      afwctl_decided_find(&one, &g) == NULL);
		memcpy(g.src, one.v[0].src, 16);
		memcpy(g.dst, one.v[0].dst, 16);
		g.icmp_id = 4712;
		CHECK(failed, "nor by another identifier", afwctl_decided_find(&one, &g) == NULL);
		g.echo = false;
		g.icmp_id = 0;
		CHECK(failed, "nor by a flow of the two hosts without one",
		      afwctl_decided_find(&one, &g) == NULL);
		afwctl_decided_free(&one);
	}

	{
		/* afwd's whole answer: every line counts, a bad or empty one is skipped. */
		char text[] = HEAD "\"decision\":\"allow\",\"by\":\"a\",\"host\":\"a.test\"}\n"
			      "\n"
			      "not a line of afwd's\n"
			      "{\"queue\":0,\"family\":\"ipv6\",\"proto\":17,\"src\":\"2001:db8::1\","
			      "\"sport\":5353,\"dst\":\"2001:db8::2\",\"dport\":53,"
			      "\"decision\":\"deny\",\"by\":\"b\",\"host\":\"b.test\"}\n"
			      HEAD "\"decision\":\"deny\",\"by\":\"c\",\"host\":\"c.test\"}";
		struct afwctl_decided_set all;
		struct afw_flow_spec g = { .family = AFW_FAMILY_IPV6, .proto = 17,
					   .sport = 5353, .dport = 53 };

		CHECK(failed, "an answer of five lines gives its three flows",
		      afwctl_decided_read(text, &all) == 0 && all.n == 3);
		inet_pton(AF_INET6, "2001:db8::1", g.src);
		inet_pton(AF_INET6, "2001:db8::2", g.dst);
		CHECK(failed, "the one after the bad line is found by its flow",
		      afwctl_decided_find(&all, &g) &&
		      !strcmp(afwctl_decided_find(&all, &g)->host, "\"b.test\""));
		afwctl_decided_free(&all);
	}
	CHECK(failed, "an error line is refused", refused("error unknown request"));
	CHECK(failed, "fields out of order are refused",
	      refused("{\"family\":\"ipv4\",\"queue\":1,\"proto\":6}"));
	CHECK(failed, "a bad address is refused",
	      refused("{\"queue\":1,\"family\":\"ipv4\",\"proto\":6,\"src\":\"192.0.2.300\","
		      "\"sport\":1,\"dst\":\"198.51.100.2\",\"dport\":443,\"decision\":\"allow\","
		      "\"by\":\"x\",\"host\":\"\"}"));
	CHECK(failed, "a port past 65535 is refused",
	      refused(HEAD "\"decision\":\"allow\",\"by\":\"x\",\"host\":\"\"}") == 0 &&
	      refused("{\"queue\":1,\"family\":\"ipv4\",\"proto\":6,\"src\":\"192.0.2.1\","
		      "\"sport\":65536,\"dst\":\"198.51.100.2\",\"dport\":443,"
		      "\"decision\":\"allow\",\"by\":\"x\",\"host\":\"\"}"));
	CHECK(failed, "a number as a string is refused",
	      refused("{\"queue\":1,\"family\":\"ipv4\",\"proto\":\"6\",\"src\":\"192.0.2.1\","
		      "\"sport\":1,\"dst\":\"198.51.100.2\",\"dport\":443,"
		      "\"decision\":\"allow\",\"by\":\"x\",\"host\":\"\"}"));
	CHECK(failed, "an unclosed host is refused",
	      refused(HEAD "\"decision\":\"allow\",\"by\":\"x\",\"host\":\"abc"));
	CHECK(failed, "a host ending in a lone backslash is refused",
	      refused(HEAD "\"decision\":\"allow\",\"by\":\"x\",\"host\":\"abc\\"));
	CHECK(failed, "a line without the host is refused",
	      refused(HEAD "\"decision\":\"allow\",\"by\":\"x\"}"));
	return failed;
}
