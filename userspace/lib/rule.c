// SPDX-License-Identifier: GPL-2.0
/*
 * Rules in text and on the wire.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/genetlink.h>

#include <linux/afw.h>

#include "attr.h"
#include "rule.h"

static const char *const afw_actions[] = {
	[AFW_ACTION_ACCEPT] = "accept",
	[AFW_ACTION_DROP] = "drop",
	[AFW_ACTION_REJECT] = "reject",
	[AFW_ACTION_QUEUE] = "queue",
};

static const char *const afw_dir_names[] = {
	[AFW_DIR_IN] = "in",
	[AFW_DIR_OUT] = "out",
	[AFW_DIR_FORWARD] = "forward",
};


const char *afw_action_name(uint8_t action)
{
	return action <= AFW_ACTION_MAX ? afw_actions[action] : "unknown";
}

int afw_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static bool afw_parse_ports(const char *s, uint16_t *lo, uint16_t *hi)
{
	char buf[16], *dash;
	uint32_t a, b;

	if (strlen(s) >= sizeof(buf))
		return false;
	strcpy(buf, s);
	dash = strchr(buf, '-');
	if (dash)
		*dash++ = '\0';
	if (!afw_parse_u32(buf, &a) || a > 65535)
		return false;
	b = a;
	if (dash && (!afw_parse_u32(dash, &b) || b > 65535))
		return false;
	*lo = (uint16_t)a;
	*hi = (uint16_t)b;
	return true;
}

static int afw_parse_prefix(const char *s, uint8_t *family, uint8_t *addr, uint8_t *plen,
			    const char *word, char *err, size_t errlen)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash;
	unsigned int bits, i;
	uint8_t fam;
	uint32_t len;

	if (strlen(s) >= sizeof(buf))
		return afw_err(err, errlen, "'%s': not an address or prefix", s);
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	memset(addr, 0, 16);
	if (inet_pton(AF_INET, buf, addr) == 1)
		fam = AFW_FAMILY_IPV4;
	else if (inet_pton(AF_INET6, buf, addr) == 1)
		fam = AFW_FAMILY_IPV6;
	else
		return afw_err(err, errlen, "'%s': not an IPv4 or IPv6 address", s);
	if (*family && *family != fam)
		return afw_err(err, errlen, "'%s %s': address is not of the rule's family", word, s);
	*family = fam;
	bits = fam == AFW_FAMILY_IPV6 ? 128 : 32;
	len = bits;
	if (slash && (!afw_parse_u32(slash, &len) || len > bits))
		return afw_err(err, errlen, "'%s': prefix length must be 0 to %u", s, bits);
	for (i = len; i < bits; i++)
		if (addr[i / 8] & (0x80 >> (i % 8)))
			return afw_err(err, errlen,
				       "'%s': address has bits set beyond the prefix length", s);
	*plen = (uint8_t)len;
	return 0;
}

int afw_rule_parse_words(int argc, char **argv, struct afw_rule_spec *r,
			 char *err, size_t errlen)
{
	bool have_action = false;
	const char *w, *v;
	size_t i;
	int a;

	memset(r, 0, sizeof(*r));
	r->dirs = AFW_DIRS_ALL;
	for (a = 0; a < argc; a++) {
		w = argv[a];
		for (i = 0; i <= AFW_ACTION_MAX; i++)
			if (!strcmp(w, afw_actions[i]))
				break;
		if (i <= AFW_ACTION_MAX) {
			if (have_action)
				return afw_err(err, errlen, "'%s': a rule has one action", w);
			r->action = (uint8_t)i;
			have_action = true;
			continue;
		}
		if (a + 1 >= argc)
			return afw_err(err, errlen, "'%s': unknown word, or a keyword missing its value", w);
		v = argv[++a];
		if (!strcmp(w, "id")) {
			if (!afw_parse_u32(v, &r->id) || !r->id)
				return afw_err(err, errlen, "'id %s': id must be 1 to 4294967295", v);
			r->has |= AFW_R_ID;
		} else if (!strcmp(w, "prio")) {
			if (!afw_parse_u32(v, &r->prio))
				return afw_err(err, errlen, "'prio %s': priority must be 0 to 4294967295", v);
		} else if (!strcmp(w, "family")) {
			uint8_t fam = !strcmp(v, "ipv4") ? AFW_FAMILY_IPV4 :
				      !strcmp(v, "ipv6") ? AFW_FAMILY_IPV6 : 0;

			if (!fam)
				return afw_err(err, errlen, "'family %s': family is ipv4 or ipv6", v);
			if (r->family && r->family != fam)
				return afw_err(err, errlen, "'family %s': conflicts with an address given before", v);
			r->family = fam;
		} else if (!strcmp(w, "dir")) {
			char buf[64], *tok, *save;

			if (strlen(v) >= sizeof(buf))
				return afw_err(err, errlen, "'dir %s': directions are in, out, forward", v);
			strcpy(buf, v);
			r->dirs = 0;
			for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				for (i = 0; i <= AFW_DIR_MAX; i++)
					if (!strcmp(tok, afw_dir_names[i]))
						break;
				if (i > AFW_DIR_MAX)
					return afw_err(err, errlen, "'dir %s': '%s' is not in, out or forward", v, tok);
				r->dirs |= 1 << i;
			}
			if (!r->dirs)
				return afw_err(err, errlen, "'dir %s': no direction given", v);
		} else if (!strcmp(w, "proto")) {
			if (afw_proto_parse(v, &r->proto))
				return afw_err(err, errlen, "'proto %s': not a protocol name or number 1-255", v);
		} else if (!strcmp(w, "from") || !strcmp(w, "to")) {
			bool src = w[0] == 'f';

			if (afw_parse_prefix(v, &r->family, src ? r->src : r->dst,
					     src ? &r->src_len : &r->dst_len, w, err, errlen))
				return -1;
			r->has |= src ? AFW_R_SRC : AFW_R_DST;
		} else if (!strcmp(w, "sport") || !strcmp(w, "dport")) {
			bool src = w[0] == 's';

			if (!afw_parse_ports(v, src ? &r->sport_lo : &r->dport_lo,
					     src ? &r->sport_hi : &r->dport_hi))
				return afw_err(err, errlen, "'%s %s': a port is 0-65535, a range LO-HI", w, v);
			if ((src ? r->sport_lo > r->sport_hi : r->dport_lo > r->dport_hi))
				return afw_err(err, errlen, "'%s %s': range is empty, low port above high", w, v);
			r->has |= src ? AFW_R_SPORT : AFW_R_DPORT;
		} else if (!strcmp(w, "iif") || !strcmp(w, "oif")) {
			if (!*v || strlen(v) >= IF_NAMESIZE)
				return afw_err(err, errlen, "'%s %s': interface names are 1-15 bytes", w, v);
			strcpy(w[0] == 'i' ? r->iif : r->oif, v);
			r->has |= w[0] == 'i' ? AFW_R_IIF : AFW_R_OIF;
		} else if (!strcmp(w, "uid") || !strcmp(w, "gid")) {
			if (!afw_parse_u32(v, w[0] == 'u' ? &r->uid : &r->gid))
				return afw_err(err, errlen, "'%s %s': not a number", w, v);
			r->has |= w[0] == 'u' ? AFW_R_UID : AFW_R_GID;
		} else {
			return afw_err(err, errlen, "'%s': unknown word", w);
		}
	}
	if (!have_action)
		return afw_err(err, errlen, "no action: end the rule with accept, drop, reject or queue");
	if ((r->has & (AFW_R_SPORT | AFW_R_DPORT)) && !afw_proto_has_ports(r->proto))
		return afw_err(err, errlen, "'%s': ports need proto tcp, udp, udplite, sctp or dccp",
			       r->has & AFW_R_SPORT ? "sport" : "dport");
	return 0;
}

int afw_rule_parse_line(char *line, struct afw_rule_spec *r, bool *empty,
			char *err, size_t errlen)
{
	char *words[64], *save, *tok, *hash;
	int n = 0;

	hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	for (tok = strtok_r(line, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == (int)(sizeof(words) / sizeof(words[0])))
			return afw_err(err, errlen, "too many words in one rule");
		words[n++] = tok;
	}
	*empty = n == 0;
	return n ? afw_rule_parse_words(n, words, r, err, errlen) : 0;
}

static void afw_append(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n > 0)
		*off += (size_t)n;
}

static void afw_format_ports(char *buf, size_t len, size_t *off, const char *kw,
			     uint16_t lo, uint16_t hi)
{
	if (lo == hi)
		afw_append(buf, len, off, " %s %u", kw, lo);
	else
		afw_append(buf, len, off, " %s %u-%u", kw, lo, hi);
}

void afw_rule_format(const struct afw_rule_spec *r, bool with_id, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN], pbuf[8];
	int af = r->family == AFW_FAMILY_IPV6 ? AF_INET6 : AF_INET;
	size_t off = 0, i;
	const char *sep = "";

	buf[0] = '\0';
	if (with_id && (r->has & AFW_R_ID))
		afw_append(buf, len, &off, " id %" PRIu32, r->id);
	afw_append(buf, len, &off, " prio %" PRIu32, r->prio);
	if (r->family)
		afw_append(buf, len, &off, " family %s", r->family == AFW_FAMILY_IPV6 ? "ipv6" : "ipv4");
	if (r->dirs != AFW_DIRS_ALL) {
		afw_append(buf, len, &off, " dir ");
		for (i = 0; i <= AFW_DIR_MAX; i++) {
			if (r->dirs & (1 << i)) {
				afw_append(buf, len, &off, "%s%s", sep, afw_dir_names[i]);
				sep = ",";
			}
		}
	}
	if (r->proto)
		afw_append(buf, len, &off, " proto %s", afw_proto_name(r->proto, pbuf, sizeof(pbuf)));
	if (r->has & AFW_R_SRC)
		afw_append(buf, len, &off, " from %s/%u", inet_ntop(af, r->src, addr, sizeof(addr)),
			   r->src_len);
	if (r->has & AFW_R_DST)
		afw_append(buf, len, &off, " to %s/%u", inet_ntop(af, r->dst, addr, sizeof(addr)),
			   r->dst_len);
	if (r->has & AFW_R_SPORT)
		afw_format_ports(buf, len, &off, "sport", r->sport_lo, r->sport_hi);
	if (r->has & AFW_R_DPORT)
		afw_format_ports(buf, len, &off, "dport", r->dport_lo, r->dport_hi);
	if (r->has & AFW_R_IIF)
		afw_append(buf, len, &off, " iif %s", r->iif);
	if (r->has & AFW_R_OIF)
		afw_append(buf, len, &off, " oif %s", r->oif);
	if (r->has & AFW_R_UID)
		afw_append(buf, len, &off, " uid %" PRIu32, r->uid);
	if (r->has & AFW_R_GID)
		afw_append(buf, len, &off, " gid %" PRIu32, r->gid);
	afw_append(buf, len, &off, " %s", afw_action_name(r->action));
	/* Drop the leading blank. */
	memmove(buf, buf + 1, strlen(buf));
}

void afw_rule_put(struct nlmsghdr *nlh, const struct afw_rule_spec *r)
{
	unsigned int alen = r->family == AFW_FAMILY_IPV6 ? 16 : 4;
	struct nlattr *nest = mnl_attr_nest_start(nlh, AFW_A_RULE);

	if (r->has & AFW_R_ID)
		mnl_attr_put_u32(nlh, AFW_RULE_A_ID, r->id);
	mnl_attr_put_u32(nlh, AFW_RULE_A_PRIORITY, r->prio);
	mnl_attr_put_u8(nlh, AFW_RULE_A_ACTION, r->action);
	mnl_attr_put_u8(nlh, AFW_RULE_A_DIRECTIONS, r->dirs);
	if (r->family)
		mnl_attr_put_u8(nlh, AFW_RULE_A_FAMILY, r->family);
	if (r->proto)
		mnl_attr_put_u8(nlh, AFW_RULE_A_PROTO, r->proto);
	if (r->has & AFW_R_SRC) {
		mnl_attr_put(nlh, AFW_RULE_A_SRC, alen, r->src);
		mnl_attr_put_u8(nlh, AFW_RULE_A_SRC_PREFIX, r->src_len);
	}
	if (r->has & AFW_R_DST) {
		mnl_attr_put(nlh, AFW_RULE_A_DST, alen, r->dst);
		mnl_attr_put_u8(nlh, AFW_RULE_A_DST_PREFIX, r->dst_len);
	}
	if (r->has & AFW_R_SPORT) {
		mnl_attr_put_u16(nlh, AFW_RULE_A_SPORT_LO, r->sport_lo);
		mnl_attr_put_u16(nlh, AFW_RULE_A_SPORT_HI, r->sport_hi);
	}
	if (r->has & AFW_R_DPORT) {
		mnl_attr_put_u16(nlh, AFW_RULE_A_DPORT_LO, r->dport_lo);
		mnl_attr_put_u16(nlh, AFW_RULE_A_DPORT_HI, r->dport_hi);
	}
	if (r->has & AFW_R_IIF)
		mnl_attr_put_strz(nlh, AFW_RULE_A_IIF, r->iif);
	if (r->has & AFW_R_OIF)
		mnl_attr_put_strz(nlh, AFW_RULE_A_OIF, r->oif);
	if (r->has & AFW_R_UID)
		mnl_attr_put_u32(nlh, AFW_RULE_A_UID, r->uid);
	if (r->has & AFW_R_GID)
		mnl_attr_put_u32(nlh, AFW_RULE_A_GID, r->gid);
	mnl_attr_nest_end(nlh, nest);
}

static const enum mnl_attr_data_type afw_msg_types[AFW_A_MAX + 1] = {
	[AFW_A_RULE] = MNL_TYPE_NESTED,
	[AFW_A_RULESET_GEN] = MNL_TYPE_U64,
};

static const enum mnl_attr_data_type afw_rule_types[AFW_RULE_A_MAX + 1] = {
	[AFW_RULE_A_ID] = MNL_TYPE_U32,
	[AFW_RULE_A_PRIORITY] = MNL_TYPE_U32,
	[AFW_RULE_A_FAMILY] = MNL_TYPE_U8,
	[AFW_RULE_A_DIRECTIONS] = MNL_TYPE_U8,
	[AFW_RULE_A_PROTO] = MNL_TYPE_U8,
	[AFW_RULE_A_SRC] = MNL_TYPE_BINARY,
	[AFW_RULE_A_SRC_PREFIX] = MNL_TYPE_U8,
	[AFW_RULE_A_DST] = MNL_TYPE_BINARY,
	[AFW_RULE_A_DST_PREFIX] = MNL_TYPE_U8,
	[AFW_RULE_A_SPORT_LO] = MNL_TYPE_U16,
	[AFW_RULE_A_SPORT_HI] = MNL_TYPE_U16,
	[AFW_RULE_A_DPORT_LO] = MNL_TYPE_U16,
	[AFW_RULE_A_DPORT_HI] = MNL_TYPE_U16,
	[AFW_RULE_A_IIF] = MNL_TYPE_NUL_STRING,
	[AFW_RULE_A_OIF] = MNL_TYPE_NUL_STRING,
	[AFW_RULE_A_UID] = MNL_TYPE_U32,
	[AFW_RULE_A_GID] = MNL_TYPE_U32,
	[AFW_RULE_A_ACTION] = MNL_TYPE_U8,
	[AFW_RULE_A_PACKETS] = MNL_TYPE_U64,
	[AFW_RULE_A_BYTES] = MNL_TYPE_U64,
};

static int afw_bad(void)
{
	errno = EBADMSG;
	return MNL_CB_ERROR;
}

static int afw_get_addr(const struct nlattr *a, const struct nlattr *plen, uint8_t family,
			uint8_t *addr, uint8_t *len)
{
	size_t alen = family == AFW_FAMILY_IPV6 ? 16 : 4;

	if (!family || mnl_attr_get_payload_len(a) != alen || !plen ||
	    mnl_attr_get_u8(plen) > alen * 8)
		return -1;
	memcpy(addr, mnl_attr_get_payload(a), alen);
	*len = mnl_attr_get_u8(plen);
	return 0;
}

int afw_rule_parse_msg(const struct nlmsghdr *nlh, struct afw_rule_spec *r)
{
	const struct nlattr *top[AFW_A_MAX + 1], *tb[AFW_RULE_A_MAX + 1];
	const struct afw_attr_set set = { AFW_A_MAX, afw_msg_types, top };
	const struct afw_attr_set rset = { AFW_RULE_A_MAX, afw_rule_types, tb };

	memset(r, 0, sizeof(*r));
	if (afw_attrs_parse_msg(nlh, &set) < 0)
		return MNL_CB_ERROR;
	if (!top[AFW_A_RULE] || afw_attrs_parse_nested(top[AFW_A_RULE], &rset) < 0)
		return top[AFW_A_RULE] ? MNL_CB_ERROR : afw_bad();
	if (!tb[AFW_RULE_A_ID] || !tb[AFW_RULE_A_ACTION] || !tb[AFW_RULE_A_DIRECTIONS])
		return afw_bad();
	r->has = AFW_R_ID;
	r->id = mnl_attr_get_u32(tb[AFW_RULE_A_ID]);
	r->action = mnl_attr_get_u8(tb[AFW_RULE_A_ACTION]);
	r->dirs = mnl_attr_get_u8(tb[AFW_RULE_A_DIRECTIONS]);
	if (tb[AFW_RULE_A_PRIORITY])
		r->prio = mnl_attr_get_u32(tb[AFW_RULE_A_PRIORITY]);
	if (tb[AFW_RULE_A_FAMILY])
		r->family = mnl_attr_get_u8(tb[AFW_RULE_A_FAMILY]);
	if (tb[AFW_RULE_A_PROTO])
		r->proto = mnl_attr_get_u8(tb[AFW_RULE_A_PROTO]);
	if (tb[AFW_RULE_A_SRC]) {
		if (afw_get_addr(tb[AFW_RULE_A_SRC], tb[AFW_RULE_A_SRC_PREFIX], r->family,
				 r->src, &r->src_len))
			return afw_bad();
		r->has |= AFW_R_SRC;
	}
	if (tb[AFW_RULE_A_DST]) {
		if (afw_get_addr(tb[AFW_RULE_A_DST], tb[AFW_RULE_A_DST_PREFIX], r->family,
				 r->dst, &r->dst_len))
			return afw_bad();
		r->has |= AFW_R_DST;
	}
	if (tb[AFW_RULE_A_SPORT_LO] && tb[AFW_RULE_A_SPORT_HI]) {
		r->sport_lo = mnl_attr_get_u16(tb[AFW_RULE_A_SPORT_LO]);
		r->sport_hi = mnl_attr_get_u16(tb[AFW_RULE_A_SPORT_HI]);
		r->has |= AFW_R_SPORT;
	}
	if (tb[AFW_RULE_A_DPORT_LO] && tb[AFW_RULE_A_DPORT_HI]) {
		r->dport_lo = mnl_attr_get_u16(tb[AFW_RULE_A_DPORT_LO]);
		r->dport_hi = mnl_attr_get_u16(tb[AFW_RULE_A_DPORT_HI]);
		r->has |= AFW_R_DPORT;
	}
	if (tb[AFW_RULE_A_IIF]) {
		snprintf(r->iif, sizeof(r->iif), "%s", mnl_attr_get_str(tb[AFW_RULE_A_IIF]));
		r->has |= AFW_R_IIF;
	}
	if (tb[AFW_RULE_A_OIF]) {
		snprintf(r->oif, sizeof(r->oif), "%s", mnl_attr_get_str(tb[AFW_RULE_A_OIF]));
		r->has |= AFW_R_OIF;
	}
	if (tb[AFW_RULE_A_UID]) {
		r->uid = mnl_attr_get_u32(tb[AFW_RULE_A_UID]);
		r->has |= AFW_R_UID;
	}
	if (tb[AFW_RULE_A_GID]) {
		r->gid = mnl_attr_get_u32(tb[AFW_RULE_A_GID]);
		r->has |= AFW_R_GID;
	}
	if (tb[AFW_RULE_A_PACKETS] && tb[AFW_RULE_A_BYTES]) {
		r->packets = mnl_attr_get_u64(tb[AFW_RULE_A_PACKETS]);
		r->bytes = mnl_attr_get_u64(tb[AFW_RULE_A_BYTES]);
		r->has |= AFW_R_COUNTERS;
	}
	return MNL_CB_OK;
}

static int afw_rule_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	return afw_rule_parse_msg(nlh, data);
}

int afw_rule_add(struct afw_nl *nl, struct afw_rule_spec *r)
{
	struct nlmsghdr *nlh = afw_nl_request(nl, AFW_CMD_RULE_NEW, 0);

	afw_rule_put(nlh, r);
	return afw_nl_talk(nl, nlh, afw_rule_reply_cb, r);
}

int afw_rule_del(struct afw_nl *nl, uint32_t id)
{
	struct nlmsghdr *nlh = afw_nl_request(nl, AFW_CMD_RULE_DEL, 0);
	struct nlattr *nest = mnl_attr_nest_start(nlh, AFW_A_RULE);

	mnl_attr_put_u32(nlh, AFW_RULE_A_ID, id);
	mnl_attr_nest_end(nlh, nest);
	return afw_nl_talk(nl, nlh, NULL, NULL);
}

int afw_rule_flush(struct afw_nl *nl)
{
	return afw_nl_talk(nl, afw_nl_request(nl, AFW_CMD_RULE_FLUSH, 0), NULL, NULL);
}

struct afw_rule_dump_ctx {
	int (*fn)(const struct afw_rule_spec *r, void *data);
	void *data;
};

static int afw_rule_dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct afw_rule_dump_ctx *ctx = data;
	struct afw_rule_spec r;

	/* A dump that raced with a change is not a consistent ruleset. */
	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR) {
		errno = EINTR;
		return MNL_CB_ERROR;
	}
	if (afw_rule_parse_msg(nlh, &r) != MNL_CB_OK)
		return MNL_CB_ERROR;
	return ctx->fn(&r, ctx->data) ? MNL_CB_ERROR : MNL_CB_OK;
}

int afw_rule_dump(struct afw_nl *nl, int (*fn)(const struct afw_rule_spec *r, void *data),
		  void *data)
{
	struct afw_rule_dump_ctx ctx = { fn, data };

	return afw_nl_talk(nl, afw_nl_request(nl, AFW_CMD_RULE_GET, NLM_F_DUMP),
			   afw_rule_dump_cb, &ctx);
}

/* Room a rule may take in a message, with every field set. */
#define AFW_RULE_MAX_ATTR_LEN 256

int afw_ruleset_replace(struct afw_nl *nl, const struct afw_rule_spec *rules, size_t n)
{
	uint32_t flags = AFW_REPLACE_F_BEGIN;
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	size_t i = 0;
	int ret;

	do {
		nlh = afw_nl_request(nl, AFW_CMD_RULESET_REPLACE, 0);
		nest = mnl_attr_nest_start(nlh, AFW_A_RULES);
		for (; i < n && nlh->nlmsg_len + AFW_RULE_MAX_ATTR_LEN < AFW_NL_BUFSIZE / 2; i++)
			afw_rule_put(nlh, &rules[i]);
		mnl_attr_nest_end(nlh, nest);
		if (i == n)
			flags |= AFW_REPLACE_F_COMMIT;
		mnl_attr_put_u32(nlh, AFW_A_REPLACE_FLAGS, flags);
		ret = afw_nl_talk(nl, nlh, NULL, NULL);
		flags = 0;
	} while (!ret && i < n);
	return ret;
}
