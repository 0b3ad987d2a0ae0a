// SPDX-License-Identifier: GPL-2.0
/*
 * afwctl rule add|del|list|flush.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/afw.h>

#include "afwctl.h"

enum { AFWCTL_RULE_ADD, AFWCTL_RULE_DEL, AFWCTL_RULE_LIST, AFWCTL_RULE_FLUSH };

static const char *const afwctl_rule_subs[] = {
	[AFWCTL_RULE_ADD] = "add", [AFWCTL_RULE_DEL] = "del",
	[AFWCTL_RULE_LIST] = "list", [AFWCTL_RULE_FLUSH] = "flush",
};

static int afwctl_rules_push(const struct afw_rule_spec *r, void *data)
{
	struct afwctl_rules *rules = data;
	struct afw_rule_spec *v;

	if (rules->n == rules->cap) {
		rules->cap = rules->cap ? rules->cap * 2 : 64;
		v = realloc(rules->v, rules->cap * sizeof(*v));
		if (!v)
			return -1;
		rules->v = v;
	}
	rules->v[rules->n++] = *r;
	return 0;
}

/* A dump that raced with a change is retried: the user wants one ruleset. */
int afwctl_rules_fetch(struct afw_nl *nl, struct afwctl_rules *rules)
{
	int ret, tries;

	for (tries = 0; tries < 10; tries++) {
		rules->n = 0;
		ret = afw_rule_dump(nl, afwctl_rules_push, rules);
		if (ret != -EINTR)
			return ret;
	}
	return ret;
}

int afwctl_rule_parse(struct afwctl_req *rq, int argc, char **argv)
{
	struct afw_perr e;
	const char *hint;
	size_t i, n = sizeof(afwctl_rule_subs) / sizeof(afwctl_rule_subs[0]);

	if (argc < 1)
		return afwctl_usage_err("rule: usage: afwctl rule add|del|list|flush ...");
	for (i = 0; i < n; i++)
		if (!strcmp(argv[0], afwctl_rule_subs[i]))
			break;
	if (i == n) {
		hint = afw_suggest(argv[0], afwctl_rule_subs, n);
		return afwctl_usage_err("rule: unknown subcommand '%s'" AFW_HINT_FMT
					"; use add, del, list or flush", argv[0], AFW_HINT_ARGS(hint));
	}
	rq->sub = (int)i;
	switch (rq->sub) {
	case AFWCTL_RULE_ADD:
		if (afw_rule_parse_words(argc - 1, argv + 1, &rq->rule, &e))
			return afwctl_usage_err("rule add: %s", e.msg);
		return 0;
	case AFWCTL_RULE_DEL:
		if (argc != 2)
			return afwctl_usage_err("rule del: usage: afwctl rule del ID");
		if (!afw_parse_u32(argv[1], &rq->id) || !rq->id)
			return afwctl_usage_err("rule del: '%s' is not a rule id (1 to 4294967295)",
						argv[1]);
		return 0;
	default:
		if (argc != 1)
			return afwctl_usage_err("rule %s takes no arguments", argv[0]);
		return 0;
	}
}

static void afwctl_json_prefix(const char *key, uint8_t family, const uint8_t *addr,
			       uint8_t len, bool set)
{
	char buf[INET6_ADDRSTRLEN];

	printf(",\"%s\":", key);
	if (!set) {
		printf("null");
		return;
	}
	inet_ntop(family == AFW_FAMILY_IPV6 ? AF_INET6 : AF_INET, addr, buf, sizeof(buf));
	printf("\"%s/%u\"", buf, len);
}

static void afwctl_json_ports(const char *key, uint16_t lo, uint16_t hi, bool set)
{
	if (set)
		printf(",\"%s\":{\"lo\":%u,\"hi\":%u}", key, lo, hi);
	else
		printf(",\"%s\":null", key);
}

static void afwctl_json_opt_str(const char *key, const char *name, bool set)
{
	printf(",\"%s\":", key);
	if (set)
		afwctl_json_str(stdout, name);
	else
		printf("null");
}

static void afwctl_json_u32(const char *key, uint32_t v, bool set)
{
	if (set)
		printf(",\"%s\":%" PRIu32, key, v);
	else
		printf(",\"%s\":null", key);
}

/*
 * Every field, null where the rule does not set it, so that a script can
 * select on any of them; "rule" is the text form, as rule add reads it.
 */
static void afwctl_rule_json(const struct afw_rule_spec *r, bool first)
{
	char text[512], pbuf[8];
	const char *sep = "";
	unsigned int d;

	afw_rule_format(r, false, text, sizeof(text));
	printf("%s{\"id\":%" PRIu32 ",\"prio\":%" PRIu32, first ? "" : ",", r->id, r->prio);
	if (r->family)
		printf(",\"family\":\"%s\"", r->family == AFW_FAMILY_IPV6 ? "ipv6" : "ipv4");
	else
		printf(",\"family\":null");
	printf(",\"dirs\":[");
	for (d = 0; d <= AFW_DIR_MAX; d++) {
		if (r->dirs & (1 << d)) {
			printf("%s\"%s\"", sep, afw_dir_name(d));
			sep = ",";
		}
	}
	printf("]");
	if (r->proto)
		printf(",\"proto\":\"%s\"", afw_proto_name(r->proto, pbuf, sizeof(pbuf)));
	else
		printf(",\"proto\":null");
	afwctl_json_prefix("src", r->family, r->src, r->src_len, r->has & AFW_R_SRC);
	afwctl_json_prefix("dst", r->family, r->dst, r->dst_len, r->has & AFW_R_DST);
	afwctl_json_ports("sport", r->sport_lo, r->sport_hi, r->has & AFW_R_SPORT);
	afwctl_json_ports("dport", r->dport_lo, r->dport_hi, r->has & AFW_R_DPORT);
	afwctl_json_opt_str("iif", r->iif, r->has & AFW_R_IIF);
	afwctl_json_opt_str("oif", r->oif, r->has & AFW_R_OIF);
	afwctl_json_u32("uid", r->uid, r->has & AFW_R_UID);
	afwctl_json_u32("gid", r->gid, r->has & AFW_R_GID);
	afwctl_json_opt_str("exe", r->exe, r->has & AFW_R_EXE);
	afwctl_json_opt_str("cgroup", r->cgroup, r->has & AFW_R_CGROUP);
	afwctl_json_opt_str("comment", r->comment, r->has & AFW_R_COMMENT);
	printf(",\"action\":\"%s\",\"packets\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"rule\":",
	       afw_action_name(r->action), r->packets, r->bytes);
	afwctl_json_str(stdout, text);
	printf("}");
}

static int afwctl_rule_list(struct afw_nl *nl, const struct afwctl_req *rq)
{
	struct afwctl_rules rules = { 0 };
	char text[512];
	size_t i;
	int ret;

	ret = afwctl_rules_fetch(nl, &rules);
	if (ret) {
		free(rules.v);
		return afwctl_fail("rule list", ret, nl);
	}
	if (rq->json) {
		printf("[");
		for (i = 0; i < rules.n; i++)
			afwctl_rule_json(&rules.v[i], i == 0);
		printf("]\n");
	} else {
		printf("%10s %12s %14s  %s\n", "id", "packets", "bytes", "rule");
		for (i = 0; i < rules.n; i++) {
			afw_rule_format(&rules.v[i], false, text, sizeof(text));
			printf("%10" PRIu32 " %12" PRIu64 " %14" PRIu64 "  %s\n", rules.v[i].id,
			       rules.v[i].packets, rules.v[i].bytes, text);
		}
	}
	free(rules.v);
	return 0;
}

int afwctl_rule_run(struct afw_nl *nl, struct afwctl_req *rq)
{
	int ret;

	switch (rq->sub) {
	case AFWCTL_RULE_ADD:
		ret = afw_rule_add(nl, &rq->rule);
		return ret ? afwctl_fail("rule add", ret, nl) : 0;
	case AFWCTL_RULE_DEL:
		ret = afw_rule_del(nl, rq->id);
		return ret ? afwctl_fail("rule del", ret, nl) : 0;
	case AFWCTL_RULE_LIST:
		return afwctl_rule_list(nl, rq);
	default:
		ret = afw_rule_flush(nl);
		return ret ? afwctl_fail("rule flush", ret, nl) : 0;
	}
}
