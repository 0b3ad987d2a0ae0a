// SPDX-License-Identifier: GPL-2.0
/*
 * Flows and configuration: words, and netlink.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/genetlink.h>

#include <linux/afw.h>

#include "attr.h"
#include "flow.h"
#include "rule.h"

static const char *const afw_verdicts[] = {
	[AFW_VERDICT_ACCEPT] = "accept",
	[AFW_VERDICT_DROP] = "drop",
	[AFW_VERDICT_REJECT] = "reject",
	[AFW_VERDICT_INSPECT] = "inspect",
};

static const char *const afw_unknowns[] = {
	[AFW_UNKNOWN_ACCEPT] = "accept",
	[AFW_UNKNOWN_DROP] = "drop",
	[AFW_UNKNOWN_QUEUE] = "queue",
};

const char *afw_verdict_name(uint8_t verdict)
{
	return verdict <= AFW_VERDICT_MAX ? afw_verdicts[verdict] : "unknown";
}

const char *afw_unknown_name(uint8_t unknown)
{
	return unknown <= AFW_UNKNOWN_MAX ? afw_unknowns[unknown] : "unknown";
}

static int afw_num(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || *end || *v > max ? -1 : 0;
}

int afw_flow_parse_words(int argc, char **argv, struct afw_flow_spec *f, int need_verdict,
			 char *err, size_t errlen)
{
	int a, have_verdict = 0, have_src = 0, have_dst = 0, have_sport = 0, have_dport = 0;
	unsigned long v;
	uint8_t fam;
	size_t i;

	memset(f, 0, sizeof(*f));
	for (a = 0; a < argc; a++) {
		const char *w = argv[a];

		for (i = 0; i <= AFW_VERDICT_MAX; i++)
			if (!strcmp(w, afw_verdicts[i]))
				break;
		if (i <= AFW_VERDICT_MAX) {
			f->verdict = (uint8_t)i;
			have_verdict = 1;
			continue;
		}
		if (a + 1 >= argc)
			return afw_err(err, errlen, "'%s': unknown word, or a keyword missing its value", w);
		const char *val = argv[++a];

		if (!strcmp(w, "proto")) {
			if (afw_proto_parse(val, &f->proto))
				return afw_err(err, errlen, "'proto %s': not a protocol name or number 1-255", val);
		} else if (!strcmp(w, "from") || !strcmp(w, "to")) {
			uint8_t *addr = w[0] == 'f' ? f->src : f->dst;

			if (inet_pton(AF_INET, val, addr) == 1)
				fam = AFW_FAMILY_IPV4;
			else if (inet_pton(AF_INET6, val, addr) == 1)
				fam = AFW_FAMILY_IPV6;
			else
				return afw_err(err, errlen, "'%s %s': not an IPv4 or IPv6 address", w, val);
			if (f->family && f->family != fam)
				return afw_err(err, errlen, "'%s %s': the addresses' families differ", w, val);
			f->family = fam;
			*(w[0] == 'f' ? &have_src : &have_dst) = 1;
		} else if (!strcmp(w, "sport") || !strcmp(w, "dport")) {
			if (afw_num(val, 65535, &v))
				return afw_err(err, errlen, "'%s %s': a port is 0-65535", w, val);
			*(w[0] == 's' ? &f->sport : &f->dport) = (uint16_t)v;
			*(w[0] == 's' ? &have_sport : &have_dport) = 1;
		} else if (!strcmp(w, "timeout")) {
			if (afw_num(val, 86400, &v) || !v)
				return afw_err(err, errlen, "'timeout %s': seconds, 1-86400", val);
			f->timeout = (uint32_t)v;
		} else {
			return afw_err(err, errlen, "'%s': unknown word", w);
		}
	}
	if (!f->proto || !have_src || !have_dst)
		return afw_err(err, errlen, "a flow needs proto, from and to");
	if (afw_proto_has_ports(f->proto) && (!have_sport || !have_dport))
		return afw_err(err, errlen, "a %s flow needs sport and dport",
				f->proto == 6 ? "tcp" : f->proto == 17 ? "udp" : "port-based");
	if (!afw_proto_has_ports(f->proto) && (have_sport || have_dport))
		return afw_err(err, errlen, "'%s': this protocol has no ports", have_sport ? "sport" : "dport");
	if (need_verdict && !have_verdict)
		return afw_err(err, errlen, "no verdict: add accept, drop, reject or inspect");
	return 0;
}

void afw_flow_put(struct nlmsghdr *nlh, const struct afw_flow_spec *f, int with_verdict)
{
	size_t alen = f->family == AFW_FAMILY_IPV6 ? 16 : 4;
	struct nlattr *nest = mnl_attr_nest_start(nlh, AFW_A_FLOW);

	mnl_attr_put_u8(nlh, AFW_FLOW_A_FAMILY, f->family);
	mnl_attr_put_u8(nlh, AFW_FLOW_A_PROTO, f->proto);
	mnl_attr_put(nlh, AFW_FLOW_A_SRC, alen, f->src);
	mnl_attr_put(nlh, AFW_FLOW_A_DST, alen, f->dst);
	if (afw_proto_has_ports(f->proto)) {
		mnl_attr_put_u16(nlh, AFW_FLOW_A_SPORT, f->sport);
		mnl_attr_put_u16(nlh, AFW_FLOW_A_DPORT, f->dport);
	}
	if (with_verdict) {
		mnl_attr_put_u8(nlh, AFW_FLOW_A_VERDICT, f->verdict);
		if (f->timeout)
			mnl_attr_put_u32(nlh, AFW_FLOW_A_TIMEOUT, f->timeout);
	}
	mnl_attr_nest_end(nlh, nest);
}

int afw_flow_add(struct afw_nl *nl, const struct afw_flow_spec *f)
{
	struct nlmsghdr *nlh = afw_nl_request(nl, AFW_CMD_FLOW_NEW, 0);

	afw_flow_put(nlh, f, 1);
	return afw_nl_talk(nl, nlh, NULL, NULL);
}

int afw_flow_del(struct afw_nl *nl, const struct afw_flow_spec *f)
{
	struct nlmsghdr *nlh = afw_nl_request(nl, AFW_CMD_FLOW_DEL, 0);

	afw_flow_put(nlh, f, 0);
	return afw_nl_talk(nl, nlh, NULL, NULL);
}

int afw_flow_flush(struct afw_nl *nl)
{
	return afw_nl_talk(nl, afw_nl_request(nl, AFW_CMD_FLOW_FLUSH, 0), NULL, NULL);
}

static const enum mnl_attr_data_type afw_top_types[AFW_A_MAX + 1] = {
	[AFW_A_FLOW] = MNL_TYPE_NESTED,
	[AFW_A_CONFIG] = MNL_TYPE_NESTED,
};

static const enum mnl_attr_data_type afw_flow_types[AFW_FLOW_A_MAX + 1] = {
	[AFW_FLOW_A_FAMILY] = MNL_TYPE_U8,
	[AFW_FLOW_A_PROTO] = MNL_TYPE_U8,
	[AFW_FLOW_A_SRC] = MNL_TYPE_BINARY,
	[AFW_FLOW_A_DST] = MNL_TYPE_BINARY,
	[AFW_FLOW_A_SPORT] = MNL_TYPE_U16,
	[AFW_FLOW_A_DPORT] = MNL_TYPE_U16,
	[AFW_FLOW_A_VERDICT] = MNL_TYPE_U8,
	[AFW_FLOW_A_TIMEOUT] = MNL_TYPE_U32,
	[AFW_FLOW_A_PACKETS] = MNL_TYPE_U64,
	[AFW_FLOW_A_BYTES] = MNL_TYPE_U64,
	[AFW_FLOW_A_EXPIRES] = MNL_TYPE_U32,
};

struct afw_flow_dump_ctx {
	int (*fn)(const struct afw_flow_spec *f, void *data);
	void *data;
};

static int afw_flow_dump_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *top[AFW_A_MAX + 1], *tb[AFW_FLOW_A_MAX + 1];
	const struct afw_attr_set set = { AFW_A_MAX, afw_top_types, top };
	const struct afw_attr_set fset = { AFW_FLOW_A_MAX, afw_flow_types, tb };
	struct afw_flow_dump_ctx *ctx = data;
	struct afw_flow_spec f = { 0 };
	size_t alen;

	if (afw_attrs_parse_msg(nlh, &set) < 0 || !top[AFW_A_FLOW] ||
	    afw_attrs_parse_nested(top[AFW_A_FLOW], &fset) < 0)
		goto bad;
	if (!tb[AFW_FLOW_A_FAMILY] || !tb[AFW_FLOW_A_PROTO] || !tb[AFW_FLOW_A_SRC] ||
	    !tb[AFW_FLOW_A_DST] || !tb[AFW_FLOW_A_VERDICT])
		goto bad;
	f.family = mnl_attr_get_u8(tb[AFW_FLOW_A_FAMILY]);
	alen = f.family == AFW_FAMILY_IPV6 ? 16 : 4;
	if (mnl_attr_get_payload_len(tb[AFW_FLOW_A_SRC]) != alen ||
	    mnl_attr_get_payload_len(tb[AFW_FLOW_A_DST]) != alen)
		goto bad;
	f.proto = mnl_attr_get_u8(tb[AFW_FLOW_A_PROTO]);
	memcpy(f.src, mnl_attr_get_payload(tb[AFW_FLOW_A_SRC]), alen);
	memcpy(f.dst, mnl_attr_get_payload(tb[AFW_FLOW_A_DST]), alen);
	f.verdict = mnl_attr_get_u8(tb[AFW_FLOW_A_VERDICT]);
	if (tb[AFW_FLOW_A_SPORT])
		f.sport = mnl_attr_get_u16(tb[AFW_FLOW_A_SPORT]);
	if (tb[AFW_FLOW_A_DPORT])
		f.dport = mnl_attr_get_u16(tb[AFW_FLOW_A_DPORT]);
	if (tb[AFW_FLOW_A_TIMEOUT])
		f.timeout = mnl_attr_get_u32(tb[AFW_FLOW_A_TIMEOUT]);
	if (tb[AFW_FLOW_A_EXPIRES])
		f.expires = mnl_attr_get_u32(tb[AFW_FLOW_A_EXPIRES]);
	if (tb[AFW_FLOW_A_PACKETS])
		f.packets = mnl_attr_get_u64(tb[AFW_FLOW_A_PACKETS]);
	if (tb[AFW_FLOW_A_BYTES])
		f.bytes = mnl_attr_get_u64(tb[AFW_FLOW_A_BYTES]);
	return ctx->fn(&f, ctx->data) ? MNL_CB_ERROR : MNL_CB_OK;
bad:
	errno = EBADMSG;
	return MNL_CB_ERROR;
}

int afw_flow_dump(struct afw_nl *nl, int (*fn)(const struct afw_flow_spec *f, void *data),
		  void *data)
{
	struct afw_flow_dump_ctx ctx = { fn, data };

	return afw_nl_talk(nl, afw_nl_request(nl, AFW_CMD_FLOW_GET, NLM_F_DUMP),
			   afw_flow_dump_cb, &ctx);
}

int afw_config_parse_words(int argc, char **argv, struct afw_config *c, unsigned int *has,
			   char *err, size_t errlen)
{
	unsigned long v, hi;
	char *dash;
	size_t i;
	int a;

	*has = 0;
	if (argc == 0 || argc % 2)
		return afw_err(err, errlen, "give KEY VALUE pairs: unknown, queue, fail, max_flows, flow_timeout");
	for (a = 0; a < argc; a += 2) {
		const char *k = argv[a], *val = argv[a + 1];

		if (!strcmp(k, "unknown")) {
			for (i = 0; i <= AFW_UNKNOWN_MAX; i++)
				if (!strcmp(val, afw_unknowns[i]))
					break;
			if (i > AFW_UNKNOWN_MAX)
				return afw_err(err, errlen, "'unknown %s': accept, drop or queue", val);
			c->unknown = (uint8_t)i;
			*has |= AFW_CFG_HAS_UNKNOWN;
		} else if (!strcmp(k, "queue")) {
			char buf[32];

			snprintf(buf, sizeof(buf), "%s", val);
			dash = strchr(buf, '-');
			if (dash)
				*dash++ = '\0';
			if (afw_num(buf, 65535, &v) || (dash && (afw_num(dash, 65535, &hi) || hi < v)))
				return afw_err(err, errlen, "'queue %s': a queue number N or a range N-M", val);
			c->queue_num = (uint16_t)v;
			c->queue_count = (uint16_t)(dash ? hi - v + 1 : 1);
			*has |= AFW_CFG_HAS_QUEUE;
		} else if (!strcmp(k, "fail")) {
			if (strcmp(val, "open") && strcmp(val, "closed"))
				return afw_err(err, errlen, "'fail %s': open or closed", val);
			c->fail_open = !strcmp(val, "open");
			*has |= AFW_CFG_HAS_FAIL;
		} else if (!strcmp(k, "max_flows")) {
			if (afw_num(val, 1UL << 24, &v) || !v)
				return afw_err(err, errlen, "'max_flows %s': 1 to 16777216", val);
			c->max_flows = (uint32_t)v;
			*has |= AFW_CFG_HAS_MAX_FLOWS;
		} else if (!strcmp(k, "flow_timeout")) {
			if (afw_num(val, 86400, &v) || !v)
				return afw_err(err, errlen, "'flow_timeout %s': seconds, 1-86400", val);
			c->flow_timeout = (uint32_t)v;
			*has |= AFW_CFG_HAS_TIMEOUT;
		} else {
			return afw_err(err, errlen, "'%s': unknown setting", k);
		}
	}
	return 0;
}

static const enum mnl_attr_data_type afw_cfg_types[AFW_CFG_A_MAX + 1] = {
	[AFW_CFG_A_UNKNOWN] = MNL_TYPE_U8,
	[AFW_CFG_A_QUEUE_NUM] = MNL_TYPE_U16,
	[AFW_CFG_A_QUEUE_COUNT] = MNL_TYPE_U16,
	[AFW_CFG_A_FAIL_OPEN] = MNL_TYPE_U8,
	[AFW_CFG_A_MAX_FLOWS] = MNL_TYPE_U32,
	[AFW_CFG_A_FLOW_TIMEOUT] = MNL_TYPE_U32,
};

static int afw_config_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *top[AFW_A_MAX + 1], *tb[AFW_CFG_A_MAX + 1];
	const struct afw_attr_set set = { AFW_A_MAX, afw_top_types, top };
	const struct afw_attr_set cset = { AFW_CFG_A_MAX, afw_cfg_types, tb };
	struct afw_config *c = data;
	int i;

	if (afw_attrs_parse_msg(nlh, &set) < 0 || !top[AFW_A_CONFIG] ||
	    afw_attrs_parse_nested(top[AFW_A_CONFIG], &cset) < 0)
		goto bad;
	for (i = 1; i <= AFW_CFG_A_MAX; i++)
		if (!tb[i])
			goto bad;
	c->unknown = mnl_attr_get_u8(tb[AFW_CFG_A_UNKNOWN]);
	c->queue_num = mnl_attr_get_u16(tb[AFW_CFG_A_QUEUE_NUM]);
	c->queue_count = mnl_attr_get_u16(tb[AFW_CFG_A_QUEUE_COUNT]);
	c->fail_open = mnl_attr_get_u8(tb[AFW_CFG_A_FAIL_OPEN]);
	c->max_flows = mnl_attr_get_u32(tb[AFW_CFG_A_MAX_FLOWS]);
	c->flow_timeout = mnl_attr_get_u32(tb[AFW_CFG_A_FLOW_TIMEOUT]);
	return MNL_CB_OK;
bad:
	errno = EBADMSG;
	return MNL_CB_ERROR;
}

int afw_config_get(struct afw_nl *nl, struct afw_config *c)
{
	return afw_nl_talk(nl, afw_nl_request(nl, AFW_CMD_CONFIG_GET, 0), afw_config_cb, c);
}

int afw_config_set(struct afw_nl *nl, const struct afw_config *c, unsigned int has)
{
	struct nlmsghdr *nlh = afw_nl_request(nl, AFW_CMD_CONFIG_SET, 0);
	struct nlattr *nest = mnl_attr_nest_start(nlh, AFW_A_CONFIG);

	if (has & AFW_CFG_HAS_UNKNOWN)
		mnl_attr_put_u8(nlh, AFW_CFG_A_UNKNOWN, c->unknown);
	if (has & AFW_CFG_HAS_QUEUE) {
		mnl_attr_put_u16(nlh, AFW_CFG_A_QUEUE_NUM, c->queue_num);
		mnl_attr_put_u16(nlh, AFW_CFG_A_QUEUE_COUNT, c->queue_count);
	}
	if (has & AFW_CFG_HAS_FAIL)
		mnl_attr_put_u8(nlh, AFW_CFG_A_FAIL_OPEN, c->fail_open);
	if (has & AFW_CFG_HAS_MAX_FLOWS)
		mnl_attr_put_u32(nlh, AFW_CFG_A_MAX_FLOWS, c->max_flows);
	if (has & AFW_CFG_HAS_TIMEOUT)
		mnl_attr_put_u32(nlh, AFW_CFG_A_FLOW_TIMEOUT, c->flow_timeout);
	mnl_attr_nest_end(nlh, nest);
	return afw_nl_talk(nl, nlh, NULL, NULL);
}
