// SPDX-License-Identifier: GPL-2.0
/*
 * afwctl flow list|add|del|flush, afwctl config [set KEY VALUE...].
 */

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <linux/afw.h>

#include "afwctl.h"
#include "flow.h"
#include "rule.h"

struct afwctl_flow_print {
	bool json;
	size_t n;
};

static int afwctl_flow_print(const struct afw_flow_spec *f, void *data)
{
	struct afwctl_flow_print *p = data;
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], pbuf[8];
	int af = f->family == AFW_FAMILY_IPV6 ? AF_INET6 : AF_INET;

	inet_ntop(af, f->src, src, sizeof(src));
	inet_ntop(af, f->dst, dst, sizeof(dst));
	if (p->json) {
		printf("%s{\"proto\":\"%s\",\"src\":\"%s\",\"sport\":%u,\"dst\":\"%s\",\"dport\":%u,"
		       "\"verdict\":\"%s\",\"timeout\":%" PRIu32 ",\"expires\":%" PRIu32
		       ",\"packets\":%" PRIu64 ",\"bytes\":%" PRIu64 "}",
		       p->n ? "," : "", afw_proto_name(f->proto, pbuf, sizeof(pbuf)), src, f->sport,
		       dst, f->dport, afw_verdict_name(f->verdict), f->timeout, f->expires,
		       f->packets, f->bytes);
	} else {
		printf("%-6s %-39s %5u %-39s %5u %-7s %7" PRIu32 " %10" PRIu64 " %12" PRIu64 "\n",
		       afw_proto_name(f->proto, pbuf, sizeof(pbuf)), src, f->sport, dst, f->dport,
		       afw_verdict_name(f->verdict), f->expires, f->packets, f->bytes);
	}
	p->n++;
	return 0;
}

int afwctl_flow(struct afw_nl *nl, const struct afwctl_opts *o, int argc, char **argv)
{
	struct afwctl_flow_print p = { .json = o->json };
	struct afw_flow_spec f;
	char err[256];
	int ret, add;

	if (argc < 1) {
		fprintf(stderr, "afwctl: flow: usage: afwctl flow list|add|del|flush ...\n");
		return 2;
	}
	if (!strcmp(argv[0], "list") || !strcmp(argv[0], "flush")) {
		if (argc != 1) {
			fprintf(stderr, "afwctl: flow %s takes no arguments\n", argv[0]);
			return 2;
		}
		if (argv[0][0] == 'f') {
			ret = afw_flow_flush(nl);
			return ret ? afwctl_fail("flow flush", ret, nl) : 0;
		}
		if (p.json)
			printf("[");
		else
			printf("%-6s %-39s %5s %-39s %5s %-7s %7s %10s %12s\n", "proto", "source",
			       "sport", "destination", "dport", "verdict", "expires", "packets", "bytes");
		ret = afw_flow_dump(nl, afwctl_flow_print, &p);
		if (p.json)
			printf("]\n");
		return ret ? afwctl_fail("flow list", ret, nl) : 0;
	}
	add = !strcmp(argv[0], "add");
	if (!add && strcmp(argv[0], "del")) {
		fprintf(stderr, "afwctl: flow: unknown subcommand '%s'; use list, add, del or flush\n",
			argv[0]);
		return 2;
	}
	if (afw_flow_parse_words(argc - 1, argv + 1, &f, add, err, sizeof(err))) {
		fprintf(stderr, "afwctl: flow %s: %s\n", argv[0], err);
		return 2;
	}
	ret = add ? afw_flow_add(nl, &f) : afw_flow_del(nl, &f);
	return ret ? afwctl_fail(add ? "flow add" : "flow del", ret, nl) : 0;
}

int afwctl_config(struct afw_nl *nl, const struct afwctl_opts *o, int argc, char **argv)
{
	struct afw_config c;
	unsigned int has;
	char err[256];
	int ret;

	if (argc && strcmp(argv[0], "set")) {
		fprintf(stderr, "afwctl: config: usage: afwctl config [set KEY VALUE...]\n");
		return 2;
	}
	ret = afw_config_get(nl, &c);
	if (ret)
		return afwctl_fail("config", ret, nl);
	if (argc) {
		if (afw_config_parse_words(argc - 1, argv + 1, &c, &has, err, sizeof(err))) {
			fprintf(stderr, "afwctl: config set: %s\n", err);
			return 2;
		}
		ret = afw_config_set(nl, &c, has);
		return ret ? afwctl_fail("config set", ret, nl) : 0;
	}
	if (o->json) {
		printf("{\"unknown\":\"%s\",\"queue_num\":%u,\"queue_count\":%u,\"fail\":\"%s\","
		       "\"max_flows\":%" PRIu32 ",\"flow_timeout\":%" PRIu32 "}\n",
		       afw_unknown_name(c.unknown), c.queue_num, c.queue_count,
		       c.fail_open ? "open" : "closed", c.max_flows, c.flow_timeout);
		return 0;
	}
	printf("unknown %s\n", afw_unknown_name(c.unknown));
	if (c.queue_count > 1)
		printf("queue %u-%u\n", c.queue_num, c.queue_num + c.queue_count - 1);
	else
		printf("queue %u\n", c.queue_num);
	printf("fail %s\n", c.fail_open ? "open" : "closed");
	printf("max_flows %" PRIu32 "\n", c.max_flows);
	printf("flow_timeout %" PRIu32 "\n", c.flow_timeout);
	return 0;
}
