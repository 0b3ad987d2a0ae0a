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

const char *afw_flow_origin_name(uint8_t origin)
{
	switch (origin) {
	case AFW_FLOW_ORIGIN_CONTROL:
		return "control";
	case AFW_FLOW_ORIGIN_RULE:
		return "rule";
	case AFW_FLOW_ORIGIN_LEARNED:
		return "learned";
	}
	return "unknown";
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

static int afw_verdict_parse(const char *w)
{
	size_t i;

	for (i = 0; i <= AFW_VERDICT_MAX; i++)
		if (!strcmp(w, afw_verdicts[i]))
			return (int)i;
	if (!strcmp(w, "allow"))
		return AFW_VERDICT_ACCEPT;
	if (!strcmp(w, "deny"))
		return AFW_VERDICT_DROP;
	return -1;
}

enum { AFW_FKW_PROTO, AFW_FKW_FROM, AFW_FKW_TO, AFW_FKW_SPORT, AFW_FKW_DPORT, AFW_FKW_TIMEOUT,
       AFW_FKW_QUEUE, AFW_FKW_ID, AFW_FKW_COUNT };

static const char *const afw_flow_words[] = {
	[AFW_FKW_PROTO] = "proto", [AFW_FKW_FROM] = "from", [AFW_FKW_TO] = "to",
	[AFW_FKW_SPORT] = "sport", [AFW_FKW_DPORT] = "dport", [AFW_FKW_TIMEOUT] = "timeout",
	[AFW_FKW_QUEUE] = "queue", [AFW_FKW_ID] = "id",
	"accept", "drop", "reject", "inspect", "allow", "deny",
};

/* The ICMP of the family: the one whose echoes have identifiers afw reads. */
static bool afw_flow_icmp(uint8_t family, uint8_t proto)
{
	return proto == (family == AFW_FAMILY_IPV6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP);
}

int afw_flow_parse_words(int argc, char **argv, struct afw_flow_spec *f, int need_verdict,
			 struct afw_perr *e)
{
	int a, k, verdict_word = -1, kw_word[AFW_FKW_COUNT], port_word[2] = { -1, -1 };
	const char *hint;
	uint8_t fam;
	unsigned long v;

	memset(f, 0, sizeof(*f));
	e->word = -1;
	for (k = 0; k < AFW_FKW_COUNT; k++)
		kw_word[k] = -1;
	for (a = 0; a < argc; a++) {
		const char *w = argv[a], *val;
		int verdict = afw_verdict_parse(w);

		if (verdict >= 0) {
			if (verdict_word >= 0)
				return afw_perr_set(e, a, "'%s': a flow has one verdict ('%s' is on "
						    "it already)", w, argv[verdict_word]);
			f->verdict = (uint8_t)verdict;
			verdict_word = a;
			continue;
		}
		for (k = 0; k < AFW_FKW_COUNT; k++)
			if (!strcmp(w, afw_flow_words[k]))
				break;
		if (k == AFW_FKW_COUNT) {
			hint = afw_suggest(w, afw_flow_words,
					   sizeof(afw_flow_words) / sizeof(afw_flow_words[0]));
			return afw_perr_set(e, a, "'%s': unknown word" AFW_HINT_FMT, w,
					    AFW_HINT_ARGS(hint));
		}
		if (kw_word[k] >= 0)
			return afw_perr_set(e, a, "'%s': given twice (first as '%s %s')", w, w,
					    argv[kw_word[k] + 1]);
		if (a + 1 >= argc)
			return afw_perr_set(e, a, "'%s': missing its value", w);
		kw_word[k] = a;
		val = argv[++a];
		switch (k) {
		case AFW_FKW_PROTO:
			if (afw_proto_parse(val, &f->proto)) {
				hint = afw_suggest(val, afw_proto_names, afw_nproto_names);
				return afw_perr_set(e, a, "'proto %s': not a protocol name or number "
						    "1-255" AFW_HINT_FMT, val, AFW_HINT_ARGS(hint));
			}
			break;
		case AFW_FKW_FROM:
		case AFW_FKW_TO: {
			uint8_t *addr = k == AFW_FKW_FROM ? f->src : f->dst;

			switch (afw_addr_parse(val, addr)) {
			case AF_INET:
				fam = AFW_FAMILY_IPV4;
				break;
			case AF_INET6:
				fam = AFW_FAMILY_IPV6;
				break;
			default:
				return afw_perr_set(e, a, "'%s %s': not an IPv4 or IPv6 address", w, val);
			}
			if (f->family && f->family != fam)
				return afw_perr_set(e, a, "'%s %s': the addresses' families differ", w, val);
			f->family = fam;
			break;
		}
		case AFW_FKW_SPORT:
		case AFW_FKW_DPORT:
			port_word[k == AFW_FKW_DPORT] = a;
			break;
		case AFW_FKW_TIMEOUT:
			if (afw_num(val, 86400, &v) || !v)
				return afw_perr_set(e, a, "'timeout %s': seconds, 1-86400", val);
			f->timeout = (uint32_t)v;
			break;
		case AFW_FKW_QUEUE:
			if (afw_num(val, 65535, &v))
				return afw_perr_set(e, a, "'queue %s': a queue number, 0-65535", val);
			f->own_queue = true;
			f->queue = (uint16_t)v;
			break;
		case AFW_FKW_ID:
			if (afw_num(val, 65535, &v))
				return afw_perr_set(e, a, "'id %s': an echo's identifier, 0-65535",
						    val);
			f->echo = true;
			f->icmp_id = (uint16_t)v;
			break;
		}
	}
	if (kw_word[AFW_FKW_PROTO] < 0 || kw_word[AFW_FKW_FROM] < 0 || kw_word[AFW_FKW_TO] < 0)
		return afw_perr_set(e, -1, "a flow needs proto, from and to");
	if (!afw_proto_has_ports(f->proto) && (port_word[0] >= 0 || port_word[1] >= 0))
		return afw_perr_set(e, port_word[0] >= 0 ? port_word[0] - 1 : port_word[1] - 1,
				    "'%s': this protocol has no ports",
				    port_word[0] >= 0 ? "sport" : "dport");
	if (afw_proto_has_ports(f->proto) && (port_word[0] < 0 || port_word[1] < 0))
		return afw_perr_set(e, -1, "a %s flow needs sport and dport",
				    f->proto == 6 ? "tcp" : f->proto == 17 ? "udp" : "port-based");
	for (k = 0; k < 2; k++) {
		a = port_word[k];
		if (a >= 0 && afw_port_parse(argv[a], f->proto, k ? &f->dport : &f->sport))
			return afw_perr_set(e, a, "'%s %s': a port is 0-65535 or a service name",
					    argv[a - 1], argv[a]);
	}
	if (f->echo && !afw_flow_icmp(f->family, f->proto))
		return afw_perr_set(e, kw_word[AFW_FKW_ID], "'id': an echo's identifier needs "
				    "proto %s", f->family == AFW_FAMILY_IPV6 ? "icmpv6" : "icmp");
	if (need_verdict && verdict_word < 0)
		return afw_perr_set(e, -1, "no verdict: add accept, drop, reject or inspect");
	if (f->own_queue && f->verdict != AFW_VERDICT_INSPECT)
		return afw_perr_set(e, kw_word[AFW_FKW_QUEUE], "'queue': only an inspect flow has "
				    "a queue of its own");
	return 0;
}

void afw_flow_format(const struct afw_flow_spec *f, char *buf, size_t len)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], pbuf[8], ports[32] = "", queue[16] = "";
	int af = f->family == AFW_FAMILY_IPV6 ? AF_INET6 : AF_INET;

	inet_ntop(af, f->src, src, sizeof(src));
	inet_ntop(af, f->dst, dst, sizeof(dst));
	if (afw_proto_has_ports(f->proto))
		snprintf(ports, sizeof(ports), " sport %u dport %u", f->sport, f->dport);
	else if (f->echo)
		snprintf(ports, sizeof(ports), " id %u", f->icmp_id);
	if (f->own_queue)
		snprintf(queue, sizeof(queue), " queue %u", f->queue);
	snprintf(buf, len, "proto %s from %s to %s%s %s%s",
		 afw_proto_name(f->proto, pbuf, sizeof(pbuf)), src, dst, ports,
		 afw_verdict_name(f->verdict), queue);
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
	if (f->echo)
		mnl_attr_put_u16(nlh, AFW_FLOW_A_ICMP_ID, f->icmp_id);
	if (with_verdict) {
		mnl_attr_put_u8(nlh, AFW_FLOW_A_VERDICT, f->verdict);
		if (f->timeout)
			mnl_attr_put_u32(nlh, AFW_FLOW_A_TIMEOUT, f->timeout);
		if (f->flags)
			mnl_attr_put_u32(nlh, AFW_FLOW_A_FLAGS, f->flags);
		if (f->own_queue)
			mnl_attr_put_u16(nlh, AFW_FLOW_A_QUEUE, f->queue);
		if (f->flags & AFW_FLOW_F_LEARN) {
			mnl_attr_put_u8(nlh, AFW_FLOW_A_DIR, f->dir);
			mnl_attr_put_u32(nlh, AFW_FLOW_A_LINE, f->line);
		}
		if (f->unconfirmed) {
			struct nlattr *c = mnl_attr_nest_start(nlh, AFW_FLOW_A_CONFIRM);

			mnl_attr_put_u32(nlh, AFW_CONFIRM_A_ACK, f->confirm_ack);
			mnl_attr_put_u32(nlh, AFW_CONFIRM_A_END, f->confirm_end);
			mnl_attr_put_u32(nlh, AFW_CONFIRM_A_IIF, f->confirm_iif);
			mnl_attr_nest_end(nlh, c);
		}
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
	[AFW_FLOW_A_ORIGIN] = MNL_TYPE_U8,
	[AFW_FLOW_A_RULE_ID] = MNL_TYPE_U32,
	[AFW_FLOW_A_STATE] = MNL_TYPE_U32,
	[AFW_FLOW_A_FLAGS] = MNL_TYPE_U32,
	[AFW_FLOW_A_QUEUE] = MNL_TYPE_U16,
	[AFW_FLOW_A_OWNER] = MNL_TYPE_NESTED,
	[AFW_FLOW_A_DIR] = MNL_TYPE_U8,
	[AFW_FLOW_A_LINE] = MNL_TYPE_U32,
	[AFW_FLOW_A_IIF] = MNL_TYPE_U32,
	[AFW_FLOW_A_OIF] = MNL_TYPE_U32,
	[AFW_FLOW_A_HITS] = MNL_TYPE_U64,
	[AFW_FLOW_A_PORTID] = MNL_TYPE_U32,
	[AFW_FLOW_A_PACKET] = MNL_TYPE_BINARY,
	[AFW_FLOW_A_ICMP_ID] = MNL_TYPE_U16,
	[AFW_FLOW_A_CONFIRM] = MNL_TYPE_NESTED,
};

static const enum mnl_attr_data_type afw_owner_types[AFW_OWNER_A_MAX + 1] = {
	[AFW_OWNER_A_UID] = MNL_TYPE_U32,
	[AFW_OWNER_A_GID] = MNL_TYPE_U32,
	[AFW_OWNER_A_PID] = MNL_TYPE_U32,
	[AFW_OWNER_A_COMM] = MNL_TYPE_NUL_STRING,
	[AFW_OWNER_A_EXE] = MNL_TYPE_NUL_STRING,
	[AFW_OWNER_A_CGROUP] = MNL_TYPE_U64,
	[AFW_OWNER_A_AGE] = MNL_TYPE_U32,
	[AFW_OWNER_A_CGROUP_PATH] = MNL_TYPE_NUL_STRING,
	[AFW_OWNER_A_LISTENER] = MNL_TYPE_FLAG,
};

int afw_flow_attrs(const struct nlmsghdr *nlh, const struct nlattr **tb)
{
	const struct nlattr *top[AFW_A_MAX + 1];
	const struct afw_attr_set set = { AFW_A_MAX, afw_top_types, top };
	const struct afw_attr_set fset = { AFW_FLOW_A_MAX, afw_flow_types, tb };

	if (afw_attrs_parse_msg(nlh, &set) < 0)
		return -1;
	if (!top[AFW_A_FLOW]) {
		errno = EBADMSG;
		return -1;
	}
	return afw_attrs_parse_nested(top[AFW_A_FLOW], &fset);
}

int afw_flow_owner_parse(const struct nlattr *nest, struct afw_flow_owner *o)
{
	const struct nlattr *tb[AFW_OWNER_A_MAX + 1];
	const struct afw_attr_set set = { AFW_OWNER_A_MAX, afw_owner_types, tb };

	if (afw_attrs_parse_nested(nest, &set) < 0 || !tb[AFW_OWNER_A_UID] ||
	    !tb[AFW_OWNER_A_GID] || !tb[AFW_OWNER_A_PID] || !tb[AFW_OWNER_A_COMM])
		return -1;
	o->uid = mnl_attr_get_u32(tb[AFW_OWNER_A_UID]);
	o->gid = mnl_attr_get_u32(tb[AFW_OWNER_A_GID]);
	o->pid = mnl_attr_get_u32(tb[AFW_OWNER_A_PID]);
	snprintf(o->comm, sizeof(o->comm), "%s", mnl_attr_get_str(tb[AFW_OWNER_A_COMM]));
	if (tb[AFW_OWNER_A_EXE])
		o->exe = mnl_attr_get_str(tb[AFW_OWNER_A_EXE]);
	if (tb[AFW_OWNER_A_CGROUP])
		o->cgroup = mnl_attr_get_u64(tb[AFW_OWNER_A_CGROUP]);
	if (tb[AFW_OWNER_A_AGE])
		o->age = mnl_attr_get_u32(tb[AFW_OWNER_A_AGE]);
	if (tb[AFW_OWNER_A_CGROUP_PATH])
		o->cgroup_path = mnl_attr_get_str(tb[AFW_OWNER_A_CGROUP_PATH]);
	o->listener = tb[AFW_OWNER_A_LISTENER];
	o->known = true;
	return 0;
}

static int afw_flow_parse(const struct nlmsghdr *nlh, struct afw_flow_spec *f, bool need_verdict)
{
	const struct nlattr *tb[AFW_FLOW_A_MAX + 1];
	size_t alen;

	memset(f, 0, sizeof(*f));
	if (afw_flow_attrs(nlh, tb) < 0)
		goto bad;
	if (!tb[AFW_FLOW_A_FAMILY] || !tb[AFW_FLOW_A_PROTO] || !tb[AFW_FLOW_A_SRC] ||
	    !tb[AFW_FLOW_A_DST] || (need_verdict && !tb[AFW_FLOW_A_VERDICT]))
		goto bad;
	f->family = mnl_attr_get_u8(tb[AFW_FLOW_A_FAMILY]);
	alen = f->family == AFW_FAMILY_IPV6 ? 16 : 4;
	if (mnl_attr_get_payload_len(tb[AFW_FLOW_A_SRC]) != alen ||
	    mnl_attr_get_payload_len(tb[AFW_FLOW_A_DST]) != alen)
		goto bad;
	f->proto = mnl_attr_get_u8(tb[AFW_FLOW_A_PROTO]);
	memcpy(f->src, mnl_attr_get_payload(tb[AFW_FLOW_A_SRC]), alen);
	memcpy(f->dst, mnl_attr_get_payload(tb[AFW_FLOW_A_DST]), alen);
	if (tb[AFW_FLOW_A_VERDICT])
		f->verdict = mnl_attr_get_u8(tb[AFW_FLOW_A_VERDICT]);
	if (tb[AFW_FLOW_A_SPORT])
		f->sport = mnl_attr_get_u16(tb[AFW_FLOW_A_SPORT]);
	if (tb[AFW_FLOW_A_DPORT])
		f->dport = mnl_attr_get_u16(tb[AFW_FLOW_A_DPORT]);
	if (tb[AFW_FLOW_A_ICMP_ID]) {
		f->echo = true;
		f->icmp_id = mnl_attr_get_u16(tb[AFW_FLOW_A_ICMP_ID]);
	}
	if (tb[AFW_FLOW_A_TIMEOUT])
		f->timeout = mnl_attr_get_u32(tb[AFW_FLOW_A_TIMEOUT]);
	if (tb[AFW_FLOW_A_EXPIRES])
		f->expires = mnl_attr_get_u32(tb[AFW_FLOW_A_EXPIRES]);
	if (tb[AFW_FLOW_A_PACKETS])
		f->packets = mnl_attr_get_u64(tb[AFW_FLOW_A_PACKETS]);
	if (tb[AFW_FLOW_A_BYTES])
		f->bytes = mnl_attr_get_u64(tb[AFW_FLOW_A_BYTES]);
	if (tb[AFW_FLOW_A_ORIGIN])
		f->origin = mnl_attr_get_u8(tb[AFW_FLOW_A_ORIGIN]);
	if (tb[AFW_FLOW_A_STATE])
		f->state = mnl_attr_get_u32(tb[AFW_FLOW_A_STATE]);
	if (tb[AFW_FLOW_A_FLAGS])
		f->flags = mnl_attr_get_u32(tb[AFW_FLOW_A_FLAGS]);
	if (tb[AFW_FLOW_A_QUEUE]) {
		f->own_queue = true;
		f->queue = mnl_attr_get_u16(tb[AFW_FLOW_A_QUEUE]);
	}
	if (tb[AFW_FLOW_A_OWNER] && afw_flow_owner_parse(tb[AFW_FLOW_A_OWNER], &f->owner))
		goto bad;
	/* "rule 0" would name a rule that cannot exist. */
	if (f->origin == AFW_FLOW_ORIGIN_RULE) {
		if (!tb[AFW_FLOW_A_RULE_ID])
			goto bad;
		f->rule_id = mnl_attr_get_u32(tb[AFW_FLOW_A_RULE_ID]);
	}
	if (tb[AFW_FLOW_A_LINE])
		f->line = mnl_attr_get_u32(tb[AFW_FLOW_A_LINE]);
	return MNL_CB_OK;
bad:
	errno = EBADMSG;
	return MNL_CB_ERROR;
}

int afw_flow_parse_msg(const struct nlmsghdr *nlh, struct afw_flow_spec *f)
{
	return afw_flow_parse(nlh, f, true);
}

int afw_flow_parse_request(const struct nlmsghdr *nlh, struct afw_flow_spec *f)
{
	return afw_flow_parse(nlh, f, false);
}

struct afw_flow_dump_ctx {
	int (*fn)(const struct afw_flow_spec *f, void *data);
	void *data;
};

static int afw_flow_dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct afw_flow_dump_ctx *ctx = data;
	struct afw_flow_spec f;

	if (afw_flow_parse_msg(nlh, &f) != MNL_CB_OK)
		return MNL_CB_ERROR;
	return ctx->fn(&f, ctx->data) ? MNL_CB_ERROR : MNL_CB_OK;
}

int afw_flow_dump(struct afw_nl *nl, int (*fn)(const struct afw_flow_spec *f, void *data),
		  void *data)
{
	struct afw_flow_dump_ctx ctx = { fn, data };
	int ret;

	ret = afw_nl_talk(nl, afw_nl_request(nl, AFW_CMD_FLOW_GET, NLM_F_DUMP),
			  afw_flow_dump_cb, &ctx);
	return !ret && nl->dump_intr ? -EINTR : ret;
}

struct afw_flow_owner_ctx {
	struct afw_flow_spec *f;
	struct afw_owner_buf *b;
};

static int afw_flow_owner_cb(const struct nlmsghdr *nlh, void *data)
{
	struct afw_flow_owner_ctx *ctx = data;
	struct afw_flow_spec got;

	if (afw_flow_parse(nlh, &got, false) != MNL_CB_OK)
		return MNL_CB_ERROR;
	if (!got.owner.known) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	ctx->f->owner = got.owner;
	if (got.owner.exe) {
		snprintf(ctx->b->exe, sizeof(ctx->b->exe), "%s", got.owner.exe);
		ctx->f->owner.exe = ctx->b->exe;
	}
	if (got.owner.cgroup_path) {
		snprintf(ctx->b->cgroup, sizeof(ctx->b->cgroup), "%s", got.owner.cgroup_path);
		ctx->f->owner.cgroup_path = ctx->b->cgroup;
	}
	return MNL_CB_OK;
}

int afw_flow_owner_get(struct afw_nl *nl, struct afw_flow_spec *f, struct afw_owner_buf *b)
{
	struct nlmsghdr *nlh = afw_nl_request(nl, AFW_CMD_OWNER_GET, 0);
	struct afw_flow_owner_ctx ctx = { f, b };
	int ret;

	memset(&f->owner, 0, sizeof(f->owner));
	afw_flow_put(nlh, f, 0);
	ret = afw_nl_talk(nl, nlh, afw_flow_owner_cb, &ctx);
	if (!ret && !f->owner.known)
		ret = -EBADMSG;
	return ret;
}

/* In the order of the AFW_CFG_HAS_* bits: key i sets bit 1 << i. */
static const char *const afw_cfg_keys[] = {
	"unknown", "queue", "fail", "max_flows", "tcp_timeout", "udp_timeout", "flow_timeout",
	"enabled", "owners",
};

_Static_assert(AFW_CFG_HAS_ALL == (1u << (sizeof(afw_cfg_keys) / sizeof(afw_cfg_keys[0]))) - 1,
	       "a key for every AFW_CFG_HAS_* bit");

static int afw_unknown_parse(const char *w)
{
	size_t i;

	for (i = 0; i <= AFW_UNKNOWN_MAX; i++)
		if (!strcmp(w, afw_unknowns[i]))
			return (int)i;
	if (!strcmp(w, "allow"))
		return AFW_UNKNOWN_ACCEPT;
	if (!strcmp(w, "deny"))
		return AFW_UNKNOWN_DROP;
	return -1;
}

int afw_config_parse_words(int argc, char **argv, struct afw_config *c, unsigned int *has,
			   struct afw_perr *e)
{
	unsigned long v, hi;
	const char *hint;
	unsigned int bit;
	char *dash;
	size_t k;
	int a, i;

	e->word = -1;
	if (argc == 0)
		return afw_perr_set(e, -1, "give KEY VALUE pairs: unknown, queue, fail, max_flows, "
				    "tcp_timeout, udp_timeout, flow_timeout, enabled, owners");
	for (a = 0; a < argc; a += 2) {
		const char *key = argv[a], *val;

		for (k = 0; k < sizeof(afw_cfg_keys) / sizeof(afw_cfg_keys[0]); k++)
			if (!strcmp(key, afw_cfg_keys[k]))
				break;
		if (k == sizeof(afw_cfg_keys) / sizeof(afw_cfg_keys[0])) {
			hint = afw_suggest(key, afw_cfg_keys, k);
			return afw_perr_set(e, a, "'%s': unknown setting" AFW_HINT_FMT "; the "
					    "settings are unknown, queue, fail, max_flows, "
					    "tcp_timeout, udp_timeout, flow_timeout, enabled and "
					    "owners",
					    key, AFW_HINT_ARGS(hint));
		}
		bit = 1u << k;
		if (*has & bit)
			return afw_perr_set(e, a, "'%s': set twice", key);
		if (a + 1 >= argc)
			return afw_perr_set(e, a, "'%s': missing its value", key);
		val = argv[a + 1];
		switch (bit) {
		case AFW_CFG_HAS_UNKNOWN:
			i = afw_unknown_parse(val);
			if (i < 0)
				return afw_perr_set(e, a + 1, "'unknown %s': accept, drop or queue", val);
			c->unknown = (uint8_t)i;
			break;
		case AFW_CFG_HAS_QUEUE: {
			char buf[32];

			snprintf(buf, sizeof(buf), "%s", val);
			dash = strchr(buf, '-');
			if (dash)
				*dash++ = '\0';
			if (afw_num(buf, 65535, &v) || (dash && (afw_num(dash, 65535, &hi) || hi < v)))
				return afw_perr_set(e, a + 1, "'queue %s': a queue number N or a "
						    "range N-M", val);
			c->queue_num = (uint16_t)v;
			c->queue_count = (uint16_t)(dash ? hi - v + 1 : 1);
			break;
		}
		case AFW_CFG_HAS_FAIL:
			if (strcmp(val, "open") && strcmp(val, "closed"))
				return afw_perr_set(e, a + 1, "'fail %s': open or closed", val);
			c->fail_open = !strcmp(val, "open");
			break;
		case AFW_CFG_HAS_MAX_FLOWS:
			if (afw_num(val, 1UL << 24, &v) || !v)
				return afw_perr_set(e, a + 1, "'max_flows %s': 1 to 16777216", val);
			c->max_flows = (uint32_t)v;
			break;
		case AFW_CFG_HAS_TCP_TIMEOUT:
		case AFW_CFG_HAS_UDP_TIMEOUT:
		case AFW_CFG_HAS_FLOW_TIMEOUT:
			if (afw_num(val, 86400, &v) || !v)
				return afw_perr_set(e, a + 1, "'%s %s': seconds, 1-86400", key, val);
			if (bit == AFW_CFG_HAS_TCP_TIMEOUT)
				c->tcp_timeout = (uint32_t)v;
			else if (bit == AFW_CFG_HAS_UDP_TIMEOUT)
				c->udp_timeout = (uint32_t)v;
			else
				c->flow_timeout = (uint32_t)v;
			break;
		case AFW_CFG_HAS_ENABLED:
		case AFW_CFG_HAS_OWNERS:
			if (strcmp(val, "yes") && strcmp(val, "no"))
				return afw_perr_set(e, a + 1, "'%s %s': yes or no", key, val);
			if (bit == AFW_CFG_HAS_ENABLED)
				c->enabled = !strcmp(val, "yes");
			else
				c->owners = !strcmp(val, "yes");
			break;
		}
		*has |= bit;
	}
	return 0;
}

void afw_config_format(const struct afw_config *c, unsigned int has, const char *prefix,
		       void (*line)(const char *text, void *data), void *data)
{
	char buf[64];

	if (has & AFW_CFG_HAS_UNKNOWN) {
		snprintf(buf, sizeof(buf), "%sunknown %s", prefix, afw_unknown_name(c->unknown));
		line(buf, data);
	}
	if (has & AFW_CFG_HAS_QUEUE) {
		if (c->queue_count > 1)
			snprintf(buf, sizeof(buf), "%squeue %u-%u", prefix, c->queue_num,
				 c->queue_num + c->queue_count - 1);
		else
			snprintf(buf, sizeof(buf), "%squeue %u", prefix, c->queue_num);
		line(buf, data);
	}
	if (has & AFW_CFG_HAS_FAIL) {
		snprintf(buf, sizeof(buf), "%sfail %s", prefix, c->fail_open ? "open" : "closed");
		line(buf, data);
	}
	if (has & AFW_CFG_HAS_MAX_FLOWS) {
		snprintf(buf, sizeof(buf), "%smax_flows %u", prefix, (unsigned int)c->max_flows);
		line(buf, data);
	}
	if (has & AFW_CFG_HAS_TCP_TIMEOUT) {
		snprintf(buf, sizeof(buf), "%stcp_timeout %u", prefix, (unsigned int)c->tcp_timeout);
		line(buf, data);
	}
	if (has & AFW_CFG_HAS_UDP_TIMEOUT) {
		snprintf(buf, sizeof(buf), "%sudp_timeout %u", prefix, (unsigned int)c->udp_timeout);
		line(buf, data);
	}
	if (has & AFW_CFG_HAS_FLOW_TIMEOUT) {
		snprintf(buf, sizeof(buf), "%sflow_timeout %u", prefix, (unsigned int)c->flow_timeout);
		line(buf, data);
	}
	if (has & AFW_CFG_HAS_ENABLED) {
		snprintf(buf, sizeof(buf), "%senabled %s", prefix, c->enabled ? "yes" : "no");
		line(buf, data);
	}
	if (has & AFW_CFG_HAS_OWNERS) {
		snprintf(buf, sizeof(buf), "%sowners %s", prefix, c->owners ? "yes" : "no");
		line(buf, data);
	}
}

static const enum mnl_attr_data_type afw_cfg_types[AFW_CFG_A_MAX + 1] = {
	[AFW_CFG_A_UNKNOWN] = MNL_TYPE_U8,
	[AFW_CFG_A_QUEUE_NUM] = MNL_TYPE_U16,
	[AFW_CFG_A_QUEUE_COUNT] = MNL_TYPE_U16,
	[AFW_CFG_A_FAIL_OPEN] = MNL_TYPE_U8,
	[AFW_CFG_A_MAX_FLOWS] = MNL_TYPE_U32,
	[AFW_CFG_A_FLOW_TIMEOUT] = MNL_TYPE_U32,
	[AFW_CFG_A_ENABLED] = MNL_TYPE_U8,
	[AFW_CFG_A_TCP_TIMEOUT] = MNL_TYPE_U32,
	[AFW_CFG_A_UDP_TIMEOUT] = MNL_TYPE_U32,
	[AFW_CFG_A_OWNERS] = MNL_TYPE_U8,
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
	/* A module older than owners records them never: it says nothing. */
	for (i = 1; i <= AFW_CFG_A_MAX; i++)
		if (!tb[i] && i != AFW_CFG_A_OWNERS)
			goto bad;
	c->unknown = mnl_attr_get_u8(tb[AFW_CFG_A_UNKNOWN]);
	c->queue_num = mnl_attr_get_u16(tb[AFW_CFG_A_QUEUE_NUM]);
	c->queue_count = mnl_attr_get_u16(tb[AFW_CFG_A_QUEUE_COUNT]);
	c->fail_open = mnl_attr_get_u8(tb[AFW_CFG_A_FAIL_OPEN]);
	c->max_flows = mnl_attr_get_u32(tb[AFW_CFG_A_MAX_FLOWS]);
	c->tcp_timeout = mnl_attr_get_u32(tb[AFW_CFG_A_TCP_TIMEOUT]);
	c->udp_timeout = mnl_attr_get_u32(tb[AFW_CFG_A_UDP_TIMEOUT]);
	c->flow_timeout = mnl_attr_get_u32(tb[AFW_CFG_A_FLOW_TIMEOUT]);
	c->enabled = mnl_attr_get_u8(tb[AFW_CFG_A_ENABLED]);
	c->owners = tb[AFW_CFG_A_OWNERS] ? mnl_attr_get_u8(tb[AFW_CFG_A_OWNERS]) : 0;
	return MNL_CB_OK;
bad:
	errno = EBADMSG;
	return MNL_CB_ERROR;
}

int afw_config_get(struct afw_nl *nl, struct afw_config *c)
{
	return afw_nl_talk(nl, afw_nl_request(nl, AFW_CMD_CONFIG_GET, 0), afw_config_cb, c);
}

void afw_config_put(struct nlmsghdr *nlh, const struct afw_config *c, unsigned int has)
{
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
	if (has & AFW_CFG_HAS_TCP_TIMEOUT)
		mnl_attr_put_u32(nlh, AFW_CFG_A_TCP_TIMEOUT, c->tcp_timeout);
	if (has & AFW_CFG_HAS_UDP_TIMEOUT)
		mnl_attr_put_u32(nlh, AFW_CFG_A_UDP_TIMEOUT, c->udp_timeout);
	if (has & AFW_CFG_HAS_FLOW_TIMEOUT)
		mnl_attr_put_u32(nlh, AFW_CFG_A_FLOW_TIMEOUT, c->flow_timeout);
	if (has & AFW_CFG_HAS_ENABLED)
		mnl_attr_put_u8(nlh, AFW_CFG_A_ENABLED, c->enabled);
	if (has & AFW_CFG_HAS_OWNERS)
		mnl_attr_put_u8(nlh, AFW_CFG_A_OWNERS, c->owners);
	mnl_attr_nest_end(nlh, nest);
}

int afw_config_set(struct afw_nl *nl, const struct afw_config *c, unsigned int has)
{
	struct nlmsghdr *nlh = afw_nl_request(nl, AFW_CMD_CONFIG_SET, 0);

	afw_config_put(nlh, c, has);
	return afw_nl_talk(nl, nlh, NULL, NULL);
}
