// SPDX-License-Identifier: GPL-2.0
/*
 * afwctl learned: the decisions afwd taught the module (AFW_FLOW_F_LEARN),
 * which it takes itself for every new connection to those places; and
 * flush, which makes the next such connections go to afwd again.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/afw.h>

#include "afwctl.h"
#include "flow.h"
#include "rule.h"
#include "status.h"
#include "words.h"

enum { AFWCTL_LEARNED_LIST, AFWCTL_LEARNED_FLUSH };

struct afwctl_learned {
	uint8_t family, proto, dir, verdict;
	uint8_t dst[16];
	uint16_t dport;
	uint32_t line, portid;
	uint64_t hits;
};

int afwctl_learned_parse(struct afwctl_req *rq, int argc, char **argv)
{
	if (!argc || !strcmp(argv[0], "list"))
		rq->sub = AFWCTL_LEARNED_LIST;
	else if (!strcmp(argv[0], "flush"))
		rq->sub = AFWCTL_LEARNED_FLUSH;
	else
		return afwctl_usage_err("learned: unknown subcommand '%s' (list or flush)", argv[0]);
	if (argc > 1)
		return afwctl_usage_err("learned %s: unexpected argument '%s'", argv[0], argv[1]);
	return 0;
}

/* One LEARN_GET message; every attribute shown is required. */
static int afwctl_learned_read(const struct nlmsghdr *nlh, struct afwctl_learned *l)
{
	static const int need[] = {
		AFW_FLOW_A_FAMILY, AFW_FLOW_A_PROTO, AFW_FLOW_A_DIR, AFW_FLOW_A_DST,
		AFW_FLOW_A_DPORT, AFW_FLOW_A_VERDICT, AFW_FLOW_A_LINE, AFW_FLOW_A_HITS,
		AFW_FLOW_A_PORTID,
	};
	const struct nlattr *tb[AFW_FLOW_A_MAX + 1];
	unsigned int alen, i;

	if (afw_flow_attrs(nlh, tb) < 0)
		goto bad;
	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!tb[need[i]])
			goto bad;
	memset(l, 0, sizeof(*l));
	l->family = mnl_attr_get_u8(tb[AFW_FLOW_A_FAMILY]);
	alen = l->family == AFW_FAMILY_IPV6 ? 16 : 4;
	if (mnl_attr_get_payload_len(tb[AFW_FLOW_A_DST]) != alen)
		goto bad;
	memcpy(l->dst, mnl_attr_get_payload(tb[AFW_FLOW_A_DST]), alen);
	l->proto = mnl_attr_get_u8(tb[AFW_FLOW_A_PROTO]);
	l->dir = mnl_attr_get_u8(tb[AFW_FLOW_A_DIR]);
	l->dport = mnl_attr_get_u16(tb[AFW_FLOW_A_DPORT]);
	l->verdict = mnl_attr_get_u8(tb[AFW_FLOW_A_VERDICT]);
	l->line = mnl_attr_get_u32(tb[AFW_FLOW_A_LINE]);
	l->hits = mnl_attr_get_u64(tb[AFW_FLOW_A_HITS]);
	l->portid = mnl_attr_get_u32(tb[AFW_FLOW_A_PORTID]);
	return 0;
bad:
	errno = EBADMSG;
	return -1;
}

struct afwctl_learned_ctx {
	bool json;
	unsigned int n;
};

static int afwctl_learned_line(const struct nlmsghdr *nlh, void *data)
{
	struct afwctl_learned_ctx *ctx = data;
	char dst[INET6_ADDRSTRLEN], pbuf[16];
	struct afwctl_learned l;
	const char *proto;

	if (afwctl_learned_read(nlh, &l) < 0)
		return MNL_CB_ERROR;
	inet_ntop(l.family == AFW_FAMILY_IPV6 ? AF_INET6 : AF_INET, l.dst, dst, sizeof(dst));
	proto = afw_proto_name(l.proto, pbuf, sizeof(pbuf));
	if (ctx->json)
		printf("%s{\"family\":\"%s\",\"proto\":\"%s\",\"dir\":\"%s\",\"dst\":\"%s\","
		       "\"dport\":%u,\"verdict\":\"%s\",\"line\":%" PRIu32 ",\"flows\":%" PRIu64
		       ",\"portid\":%" PRIu32 "}", ctx->n ? "," : "", afw_family_name(l.family),
		       proto, afw_dir_name(l.dir), dst, l.dport, afw_verdict_name(l.verdict), l.line,
		       l.hits, l.portid);
	else
		printf("%-7s %-5s %-39s %5u %-7s %6" PRIu32 " %10" PRIu64 "\n",
		       afw_dir_name(l.dir), proto, dst, l.dport, afw_verdict_name(l.verdict), l.line,
		       l.hits);
	ctx->n++;
	return MNL_CB_OK;
}

int afwctl_learned_run(struct afw_nl *nl, struct afwctl_req *rq)
{
	struct afwctl_learned_ctx ctx = { rq->json, 0 };
	int ret;

	if (rq->sub == AFWCTL_LEARNED_FLUSH) {
		ret = afw_nl_talk(nl, afw_nl_request(nl, AFW_CMD_LEARN_FLUSH, NLM_F_ACK), NULL,
				  NULL);
		return ret ? afwctl_fail("learned flush", ret, nl) : 0;
	}
	if (rq->json)
		printf("[");
	else
		printf("%-7s %-5s %-39s %5s %-7s %6s %10s\n", "dir", "proto", "to", "dport",
		       "verdict", "line", "flows");
	ret = afw_nl_talk(nl, afw_nl_request(nl, AFW_CMD_LEARN_GET, NLM_F_DUMP),
			  afwctl_learned_line, &ctx);
	if (rq->json)
		printf("]\n");
	if (ret == -EOPNOTSUPP) {
		fprintf(stderr, "afwctl: learned: the loaded afw module is older than this afwctl "
			"and keeps no decisions of afwd's\n");
		return 1;
	}
	return ret ? afwctl_fail("learned", ret, nl) : 0;
}
