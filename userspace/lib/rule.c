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

/* The rule keywords, each taking one value and allowed once per rule. */
enum {
	AFW_KW_ID, AFW_KW_PRIO, AFW_KW_FAMILY, AFW_KW_DIR, AFW_KW_PROTO, AFW_KW_FROM,
	AFW_KW_TO, AFW_KW_SPORT, AFW_KW_DPORT, AFW_KW_IIF, AFW_KW_OIF, AFW_KW_UID,
	AFW_KW_GID, AFW_KW_EXE, AFW_KW_CGROUP, AFW_KW_COMMENT, AFW_KW_COUNT
};

/* Keywords, then the action words and their synonyms: what hints pick from. */
static const char *const afw_rule_words[] = {
	[AFW_KW_ID] = "id", [AFW_KW_PRIO] = "prio", [AFW_KW_FAMILY] = "family",
	[AFW_KW_DIR] = "dir", [AFW_KW_PROTO] = "proto", [AFW_KW_FROM] = "from",
	[AFW_KW_TO] = "to", [AFW_KW_SPORT] = "sport", [AFW_KW_DPORT] = "dport",
	[AFW_KW_IIF] = "iif", [AFW_KW_OIF] = "oif", [AFW_KW_UID] = "uid", [AFW_KW_GID] = "gid",
	[AFW_KW_EXE] = "exe", [AFW_KW_CGROUP] = "cgroup", [AFW_KW_COMMENT] = "comment",
	"accept", "drop", "reject", "queue", "allow", "deny",
};

const char *afw_action_name(uint8_t action)
{
	return action <= AFW_ACTION_MAX ? afw_actions[action] : "unknown";
}

int afw_action_parse(const char *w)
{
	size_t i;

	for (i = 0; i <= AFW_ACTION_MAX; i++)
		if (afw_word_is(w, afw_actions[i]))
			return (int)i;
	/* afwd's policy says allow and deny: one vocabulary for both files. */
	if (afw_word_is(w, "allow"))
		return AFW_ACTION_ACCEPT;
	if (afw_word_is(w, "deny"))
		return AFW_ACTION_DROP;
	return -1;
}

/* Whether the @len bytes of @w are @lit's; the compiler makes a compare of words of it. */
#define AFW_IS(w, len, lit) ((len) == sizeof(lit) - 1 && !memcmp((w), (lit), sizeof(lit) - 1))

/*
 * A rule's word as a keyword (its AFW_KW_*), an action (AFW_KW_COUNT, with
 * @act set), or neither (-1). Chosen by length, then compared as integers:
 * a loaded ruleset runs to millions of rules, a dozen words each.
 */
static int afw_rule_word(const char *w, size_t len, int *act)
{
	*act = -1;
	switch (len) {
	case 2:
		return AFW_IS(w, len, "id") ? AFW_KW_ID : AFW_IS(w, len, "to") ? AFW_KW_TO : -1;
	case 3:
		return AFW_IS(w, len, "dir") ? AFW_KW_DIR : AFW_IS(w, len, "iif") ? AFW_KW_IIF :
		       AFW_IS(w, len, "oif") ? AFW_KW_OIF : AFW_IS(w, len, "uid") ? AFW_KW_UID :
		       AFW_IS(w, len, "gid") ? AFW_KW_GID : AFW_IS(w, len, "exe") ? AFW_KW_EXE : -1;
	case 4:
		if (AFW_IS(w, len, "prio"))
			return AFW_KW_PRIO;
		if (AFW_IS(w, len, "from"))
			return AFW_KW_FROM;
		break;
	case 5:
		if (AFW_IS(w, len, "proto"))
			return AFW_KW_PROTO;
		if (AFW_IS(w, len, "dport"))
			return AFW_KW_DPORT;
		if (AFW_IS(w, len, "sport"))
			return AFW_KW_SPORT;
		break;
	case 6:
		if (AFW_IS(w, len, "family"))
			return AFW_KW_FAMILY;
		if (AFW_IS(w, len, "cgroup"))
			return AFW_KW_CGROUP;
		break;
	case 7:
		if (AFW_IS(w, len, "comment"))
			return AFW_KW_COMMENT;
		break;
	default:
		return -1;
	}
	*act = afw_action_parse(w);
	return *act >= 0 ? AFW_KW_COUNT : -1;
}

const char *afw_dir_name(unsigned int dir)
{
	return dir <= AFW_DIR_MAX ? afw_dir_names[dir] : "unknown";
}

int afw_perr_set(struct afw_perr *e, int word, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	e->word = word;
	return -1;
}

/* "LO" or "LO-HI", each a number or a service name; names may hold dashes. */
static int afw_parse_ports(const char *s, uint8_t proto, uint16_t *lo, uint16_t *hi)
{
	char buf[64];
	size_t i, len = strlen(s);

	if (!afw_port_parse(s, proto, lo)) {
		*hi = *lo;
		return 0;
	}
	if (len >= sizeof(buf))
		return -1;
	for (i = 1; i + 1 < len; i++) {
		if (s[i] != '-')
			continue;
		memcpy(buf, s, len + 1);
		buf[i] = '\0';
		if (!afw_port_parse(buf, proto, lo) && !afw_port_parse(buf + i + 1, proto, hi))
			return 0;
	}
	return -1;
}

static int afw_parse_prefix(const char *s, size_t slen, uint8_t *family, uint8_t *addr,
			    uint8_t *plen, const char *word, int wi, struct afw_perr *e)
{
	const char *slash = memchr(s, '/', slen);
	unsigned int bits, i;
	uint8_t fam;
	uint32_t len;

	switch (afw_addr_parse_len(s, slash ? (size_t)(slash - s) : slen, addr)) {
	case AF_INET:
		fam = AFW_FAMILY_IPV4;
		break;
	case AF_INET6:
		fam = AFW_FAMILY_IPV6;
		break;
	default:
		return afw_perr_set(e, wi, "'%s %s': not an IPv4 or IPv6 address", word, s);
	}
	if (*family && *family != fam)
		return afw_perr_set(e, wi, "'%s %s': address is not of the rule's family", word, s);
	*family = fam;
	bits = fam == AFW_FAMILY_IPV6 ? 128 : 32;
	len = bits;
	if (slash && (!afw_parse_u32(slash + 1, &len) || len > bits))
		return afw_perr_set(e, wi, "'%s %s': prefix length must be 0 to %u", word, s, bits);
	for (i = len; i < bits; i++)
		if (addr[i / 8] & (0x80 >> (i % 8)))
			return afw_perr_set(e, wi, "'%s %s': address has bits set beyond the "
					    "prefix length", word, s);
	*plen = (uint8_t)len;
	return 0;
}

static int afw_parse_dirs(const char *v, size_t vlen, int wi, uint8_t *dirs, struct afw_perr *e)
{
	const char *tok, *end, *hint;
	char name[16];
	size_t i, len;

	/* One direction, the common case, whole. */
	if (AFW_IS(v, vlen, "in") || AFW_IS(v, vlen, "out") || AFW_IS(v, vlen, "forward")) {
		*dirs = (uint8_t)(1 << (vlen == 2 ? AFW_DIR_IN : vlen == 3 ? AFW_DIR_OUT :
					AFW_DIR_FORWARD));
		return 0;
	}
	*dirs = 0;
	/* Comma-separated; empty pieces ("in,,out") are skipped. */
	for (tok = v; *tok; tok = *end ? end + 1 : end) {
		end = strchrnul(tok, ',');
		len = (size_t)(end - tok);
		if (!len)
			continue;
		for (i = 0; i <= AFW_DIR_MAX; i++)
			if (!strncmp(tok, afw_dir_names[i], len) && !afw_dir_names[i][len])
				break;
		if (i > AFW_DIR_MAX) {
			snprintf(name, sizeof(name), "%.*s", (int)len, tok);
			hint = afw_suggest(name, afw_dir_names, AFW_DIR_MAX + 1);
			return afw_perr_set(e, wi, "'dir %s': '%.*s' is not in, out or forward"
					    AFW_HINT_FMT, v, (int)len, tok, AFW_HINT_ARGS(hint));
		}
		*dirs |= 1 << i;
	}
	if (!*dirs)
		return afw_perr_set(e, wi, "'dir %s': no direction given", v);
	return 0;
}

/*
 * A comment is printed back in double quotes, by list and save, so it
 * cannot hold one; nor control characters, which would break the line.
 */
static int afw_parse_comment(const char *v, size_t len, int wi, char *out, struct afw_perr *e)
{
	size_t i;

	if (!len)
		return afw_perr_set(e, wi, "'comment': an empty comment");
	if (len > AFW_RULE_COMMENT_MAX)
		return afw_perr_set(e, wi, "'comment': %zu bytes, and a comment is at most %d",
				    len, AFW_RULE_COMMENT_MAX);
	for (i = 0; i < len; i++)
		if ((unsigned char)v[i] < ' ' || v[i] == 0x7f || v[i] == '"')
			return afw_perr_set(e, wi, "'comment': no double quote or control "
					    "character in a comment");
	memcpy(out, v, len + 1);
	return 0;
}

/* "/" or "/a/b": the only form the kernel gives, and so the only one it takes. */
static bool afw_path_canonical(const char *p)
{
	const char *part;
	size_t len;

	if (p[0] != '/')
		return false;
	if (!p[1])
		return true;
	for (part = p + 1;; part += len + 1) {
		len = strcspn(part, "/");
		if (!len || (len == 1 && part[0] == '.') ||
		    (len == 2 && part[0] == '.' && part[1] == '.'))
			return false;
		if (!part[len])
			return true;
	}
}

static int afw_parse_exe(const char *v, size_t len, int wi, char *out, struct afw_perr *e)
{
	if (len > AFW_RULE_PATH_MAX)
		return afw_perr_set(e, wi, "'exe': a path of %zu bytes, and at most %d match",
				    len, AFW_RULE_PATH_MAX);
	if (!afw_path_canonical(v) || len < 2)
		return afw_perr_set(e, wi, "'exe %s': a program is named by its absolute path, "
				    "without '.', '..', '//' or a trailing '/'", v);
	memcpy(out, v, len + 1);
	return 0;
}

/*
 * A cgroup as /proc/PID/cgroup shows it ("0::/system.slice/x.service"), as
 * a path under /sys/fs/cgroup, or relative to it: kept from the root.
 */
static int afw_parse_cgroup(const char *v, size_t len, int wi, char *out, struct afw_perr *e)
{
	/* Where cgroup v2 is mounted: alone, or beside v1 (systemd's hybrid). */
	static const char *const mnts[] = { "/sys/fs/cgroup/unified", "/sys/fs/cgroup" };
	const char *p = v;
	size_t n, i;

	if (!strncmp(p, "0::", 3))
		p += 3;
	for (i = 0; i < sizeof(mnts) / sizeof(mnts[0]); i++) {
		n = strlen(mnts[i]);
		if (!strncmp(p, mnts[i], n) && (!p[n] || p[n] == '/')) {
			p += n;
			break;
		}
	}
	while (*p == '/' && p[1] == '/')
		p++;
	n = strlen(p);
	while (n > 1 && p[n - 1] == '/')
		n--;
	if (n + (*p != '/') > AFW_RULE_PATH_MAX)
		return afw_perr_set(e, wi, "'cgroup': a path of %zu bytes, and at most %d match",
				    len, AFW_RULE_PATH_MAX);
	snprintf(out, AFW_RULE_PATH_MAX + 1, "%s%.*s", *p == '/' ? "" : "/", (int)n, p);
	if (!afw_path_canonical(out))
		return afw_perr_set(e, wi, "'cgroup %s': a cgroup is named by its path, such as "
				    "/system.slice/NAME.service, without '.', '..' or '//'", v);
	return 0;
}

int afw_rule_parse_words(int argc, char **argv, struct afw_rule_spec *r, struct afw_perr *e)
{
	return afw_rule_parse_words_len(argc, argv, NULL, r, e);
}

int afw_rule_parse_words_len(int argc, char **argv, const size_t *lens, struct afw_rule_spec *r,
			     struct afw_perr *e)
{
	int a, act, port_word[2] = { -1, -1 }, kw_word[AFW_KW_COUNT];
	const char *w, *v, *hint;
	int k, last = -1;
	size_t vlen;

	memset(r, 0, sizeof(*r));
	r->dirs = AFW_DIRS_ALL;
	e->word = -1;
	e->msg[0] = '\0';
	for (k = 0; k < AFW_KW_COUNT; k++)
		kw_word[k] = -1;
	for (a = 0; a < argc; a++) {
		w = argv[a];
		k = afw_rule_word(w, lens ? lens[a] : strlen(w), &act);
		if (act >= 0) {
			if (last >= 0)
				return afw_perr_set(e, a, "'%s': a rule has one action ('%s' is on "
						    "this rule already)", w, argv[last]);
			r->action = (uint8_t)act;
			last = a;
			continue;
		}
		if (k < 0) {
			hint = afw_suggest(w, afw_rule_words,
					   sizeof(afw_rule_words) / sizeof(afw_rule_words[0]));
			return afw_perr_set(e, a, "'%s': unknown word" AFW_HINT_FMT, w,
					    AFW_HINT_ARGS(hint));
		}
		if (kw_word[k] >= 0)
			return afw_perr_set(e, a, "'%s': given twice in one rule (first as '%s %s')",
					    w, w, argv[kw_word[k] + 1]);
		if (a + 1 >= argc)
			return afw_perr_set(e, a, "'%s': missing its value", w);
		kw_word[k] = a;
		v = argv[++a];
		vlen = lens ? lens[a] : strlen(v);
		switch (k) {
		case AFW_KW_ID:
			if (!afw_parse_u32(v, &r->id) || !r->id)
				return afw_perr_set(e, a, "'id %s': id must be 1 to 4294967295", v);
			r->has |= AFW_R_ID;
			break;
		case AFW_KW_PRIO:
			if (!afw_parse_u32(v, &r->prio))
				return afw_perr_set(e, a, "'prio %s': priority must be 0 to 4294967295", v);
			break;
		case AFW_KW_FAMILY: {
			static const char *const fams[] = { "ipv4", "ipv6" };
			uint8_t fam = AFW_IS(v, vlen, "ipv4") ? AFW_FAMILY_IPV4 :
				      AFW_IS(v, vlen, "ipv6") ? AFW_FAMILY_IPV6 : 0;

			if (!fam) {
				hint = afw_suggest(v, fams, 2);
				return afw_perr_set(e, a, "'family %s': family is ipv4 or ipv6"
						    AFW_HINT_FMT, v, AFW_HINT_ARGS(hint));
			}
			if (r->family && r->family != fam)
				return afw_perr_set(e, a, "'family %s': conflicts with an address "
						    "given before", v);
			r->family = fam;
			break;
		}
		case AFW_KW_DIR:
			if (afw_parse_dirs(v, vlen, a, &r->dirs, e))
				return -1;
			break;
		case AFW_KW_PROTO:
			if (afw_proto_parse(v, &r->proto)) {
				hint = afw_suggest(v, afw_proto_names, afw_nproto_names);
				return afw_perr_set(e, a, "'proto %s': not a protocol name or number "
						    "1-255" AFW_HINT_FMT, v, AFW_HINT_ARGS(hint));
			}
			break;
		case AFW_KW_FROM:
		case AFW_KW_TO: {
			bool src = k == AFW_KW_FROM;

			if (afw_parse_prefix(v, vlen, &r->family, src ? r->src : r->dst,
					     src ? &r->src_len : &r->dst_len, w, a, e))
				return -1;
			r->has |= src ? AFW_R_SRC : AFW_R_DST;
			break;
		}
		case AFW_KW_SPORT:
		case AFW_KW_DPORT:
			/* Service names need the protocol, which may come later. */
			port_word[k == AFW_KW_DPORT] = a;
			r->has |= k == AFW_KW_SPORT ? AFW_R_SPORT : AFW_R_DPORT;
			break;
		case AFW_KW_IIF:
		case AFW_KW_OIF:
			if (!vlen || vlen >= IF_NAMESIZE)
				return afw_perr_set(e, a, "'%s %s': interface names are 1-15 bytes", w, v);
			memcpy(k == AFW_KW_IIF ? r->iif : r->oif, v, vlen + 1);
			r->has |= k == AFW_KW_IIF ? AFW_R_IIF : AFW_R_OIF;
			break;
		case AFW_KW_UID:
			if (afw_uid_parse(v, &r->uid))
				return afw_perr_set(e, a, "'uid %s': not a user name or number", v);
			r->has |= AFW_R_UID;
			break;
		case AFW_KW_GID:
			if (afw_gid_parse(v, &r->gid))
				return afw_perr_set(e, a, "'gid %s': not a group name or number", v);
			r->has |= AFW_R_GID;
			break;
		case AFW_KW_EXE:
			if (afw_parse_exe(v, vlen, a, r->exe, e))
				return -1;
			r->has |= AFW_R_EXE;
			break;
		case AFW_KW_CGROUP:
			if (afw_parse_cgroup(v, vlen, a, r->cgroup, e))
				return -1;
			r->has |= AFW_R_CGROUP;
			break;
		case AFW_KW_COMMENT:
			if (afw_parse_comment(v, vlen, a, r->comment, e))
				return -1;
			r->has |= AFW_R_COMMENT;
			break;
		}
	}
	if (last < 0)
		return afw_perr_set(e, -1, "no action: end the rule with accept, drop, reject or queue");
	for (k = 0; k < 2; k++) {
		uint16_t *lo = k ? &r->dport_lo : &r->sport_lo, *hi = k ? &r->dport_hi : &r->sport_hi;

		a = port_word[k];
		if (a < 0)
			continue;
		w = argv[a - 1];
		v = argv[a];
		if (!afw_proto_has_ports(r->proto))
			return afw_perr_set(e, a - 1, "'%s': ports need proto tcp, udp, udplite, "
					    "sctp or dccp", w);
		if (afw_parse_ports(v, r->proto, lo, hi))
			return afw_perr_set(e, a, "'%s %s': a port is 0-65535 or a service name of "
					    "/etc/services, a range LO-HI", w, v);
		if (*lo > *hi)
			return afw_perr_set(e, a, "'%s %s': range is empty, low port above high", w, v);
	}
	return 0;
}

int afw_rule_parse_line(char *line, struct afw_rule_spec *r, bool *empty, struct afw_perr *e)
{
	char *words[64], *at, why[64];
	const int max = (int)(sizeof(words) / sizeof(words[0]));
	int n;

	e->word = -1;
	e->col = 0;
	n = afw_split_words(line, words, max, &at);
	if (n < 0) {
		e->col = (unsigned int)(at - line) + 1;
		return afw_perr_set(e, -1, "%s", afw_split_error(n, max, why, sizeof(why)));
	}
	*empty = n == 0;
	if (!n)
		return 0;
	if (afw_rule_parse_words(n, words, r, e)) {
		e->col = (unsigned int)((e->word >= 0 ? words[e->word] : words[0]) - line) + 1;
		return -1;
	}
	return 0;
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
	if (r->has & AFW_R_EXE)
		afw_append(buf, len, &off, " exe %s", r->exe);
	if (r->has & AFW_R_CGROUP)
		afw_append(buf, len, &off, " cgroup %s", r->cgroup);
	afw_append(buf, len, &off, " %s", afw_action_name(r->action));
	if (r->has & AFW_R_COMMENT)
		afw_append(buf, len, &off, " comment \"%s\"", r->comment);
	/* Drop the leading blank. */
	memmove(buf, buf + 1, strlen(buf));
}

/* What both forms give as attributes: interfaces, owners, the comment. */
static void afw_rule_put_rest(struct nlmsghdr *nlh, const struct afw_rule_spec *r)
{
	if (r->has & AFW_R_IIF)
		mnl_attr_put_strz(nlh, AFW_RULE_A_IIF, r->iif);
	if (r->has & AFW_R_OIF)
		mnl_attr_put_strz(nlh, AFW_RULE_A_OIF, r->oif);
	if (r->has & AFW_R_UID)
		mnl_attr_put_u32(nlh, AFW_RULE_A_UID, r->uid);
	if (r->has & AFW_R_GID)
		mnl_attr_put_u32(nlh, AFW_RULE_A_GID, r->gid);
	if (r->has & AFW_R_EXE)
		mnl_attr_put_strz(nlh, AFW_RULE_A_EXE, r->exe);
	if (r->has & AFW_R_CGROUP)
		mnl_attr_put_strz(nlh, AFW_RULE_A_CGROUP, r->cgroup);
	if (r->has & AFW_R_COMMENT)
		mnl_attr_put_strz(nlh, AFW_RULE_A_COMMENT, r->comment);
}

void afw_rule_put(struct nlmsghdr *nlh, const struct afw_rule_spec *r)
{
	unsigned int alen = r->family == AFW_FAMILY_IPV6 ? 16 : 4;
	struct nlattr *nest = mnl_attr_nest_start(nlh, AFW_A_RULE);

	/*
	 * What the kernel takes by default (priority 0, every direction, a
	 * whole address, a one-port range) is left out: a million rules are
	 * a million nests to validate, attribute by attribute.
	 */
	if (r->has & AFW_R_ID)
		mnl_attr_put_u32(nlh, AFW_RULE_A_ID, r->id);
	if (r->prio)
		mnl_attr_put_u32(nlh, AFW_RULE_A_PRIORITY, r->prio);
	mnl_attr_put_u8(nlh, AFW_RULE_A_ACTION, r->action);
	if (r->dirs != AFW_DIRS_ALL)
		mnl_attr_put_u8(nlh, AFW_RULE_A_DIRECTIONS, r->dirs);
	if (r->family)
		mnl_attr_put_u8(nlh, AFW_RULE_A_FAMILY, r->family);
	if (r->proto)
		mnl_attr_put_u8(nlh, AFW_RULE_A_PROTO, r->proto);
	if (r->has & AFW_R_SRC) {
		mnl_attr_put(nlh, AFW_RULE_A_SRC, alen, r->src);
		if (r->src_len != alen * 8)
			mnl_attr_put_u8(nlh, AFW_RULE_A_SRC_PREFIX, r->src_len);
	}
	if (r->has & AFW_R_DST) {
		mnl_attr_put(nlh, AFW_RULE_A_DST, alen, r->dst);
		if (r->dst_len != alen * 8)
			mnl_attr_put_u8(nlh, AFW_RULE_A_DST_PREFIX, r->dst_len);
	}
	if (r->has & AFW_R_SPORT) {
		mnl_attr_put_u16(nlh, AFW_RULE_A_SPORT_LO, r->sport_lo);
		if (r->sport_hi != r->sport_lo)
			mnl_attr_put_u16(nlh, AFW_RULE_A_SPORT_HI, r->sport_hi);
	}
	if (r->has & AFW_R_DPORT) {
		mnl_attr_put_u16(nlh, AFW_RULE_A_DPORT_LO, r->dport_lo);
		if (r->dport_hi != r->dport_lo)
			mnl_attr_put_u16(nlh, AFW_RULE_A_DPORT_HI, r->dport_hi);
	}
	afw_rule_put_rest(nlh, r);
	mnl_attr_nest_end(nlh, nest);
}

void afw_rule_put_match(struct nlmsghdr *nlh, const struct afw_rule_spec *r)
{
	unsigned int alen = r->family == AFW_FAMILY_IPV6 ? 16 : 4;
	struct nlattr *nest = mnl_attr_nest_start(nlh, AFW_A_RULE);
	uint8_t buf[sizeof(struct afw_rule_match) + 32];
	struct afw_rule_match m = {
		.priority = r->prio, .action = r->action, .directions = r->dirs,
		.family = r->family, .proto = r->proto,
	};
	size_t len = sizeof(m);

	if (r->has & AFW_R_ID)
		mnl_attr_put_u32(nlh, AFW_RULE_A_ID, r->id);
	if (r->has & AFW_R_SRC) {
		m.flags |= AFW_MATCH_F_SRC;
		m.src_prefix = r->src_len;
		memcpy(buf + len, r->src, alen);
		len += alen;
	}
	if (r->has & AFW_R_DST) {
		m.flags |= AFW_MATCH_F_DST;
		m.dst_prefix = r->dst_len;
		memcpy(buf + len, r->dst, alen);
		len += alen;
	}
	if (r->has & AFW_R_SPORT) {
		m.flags |= AFW_MATCH_F_SPORT;
		m.sport_lo = r->sport_lo;
		m.sport_hi = r->sport_hi;
	}
	if (r->has & AFW_R_DPORT) {
		m.flags |= AFW_MATCH_F_DPORT;
		m.dport_lo = r->dport_lo;
		m.dport_hi = r->dport_hi;
	}
	memcpy(buf, &m, sizeof(m));
	mnl_attr_put(nlh, AFW_RULE_A_MATCH, len, buf);
	afw_rule_put_rest(nlh, r);
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
	[AFW_RULE_A_COMMENT] = MNL_TYPE_NUL_STRING,
	[AFW_RULE_A_MATCH] = MNL_TYPE_BINARY,
	[AFW_RULE_A_EXE] = MNL_TYPE_NUL_STRING,
	[AFW_RULE_A_CGROUP] = MNL_TYPE_NUL_STRING,
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

	/* No prefix length is the whole address, as the kernel takes it. */
	if (!family || mnl_attr_get_payload_len(a) != alen ||
	    (plen && mnl_attr_get_u8(plen) > alen * 8))
		return -1;
	memcpy(addr, mnl_attr_get_payload(a), alen);
	*len = plen ? mnl_attr_get_u8(plen) : (uint8_t)(alen * 8);
	return 0;
}

/* An AFW_RULE_A_MATCH, as afw_rule_put_match() writes it, into @r. */
static int afw_rule_get_match(const struct nlattr *a, struct afw_rule_spec *r)
{
	size_t len = mnl_attr_get_payload_len(a), alen, need;
	const uint8_t *at = mnl_attr_get_payload(a);
	struct afw_rule_match m;

	if (len < sizeof(m))
		return -1;
	memcpy(&m, at, sizeof(m));
	at += sizeof(m);
	alen = m.family == AFW_FAMILY_IPV6 ? 16 : 4;
	need = sizeof(m) + alen * (!!(m.flags & AFW_MATCH_F_SRC) + !!(m.flags & AFW_MATCH_F_DST));
	if (len != need || (m.flags & ~AFW_MATCH_F_ALL) ||
	    (!m.family && (m.flags & (AFW_MATCH_F_SRC | AFW_MATCH_F_DST))))
		return -1;
	r->prio = m.priority;
	r->action = m.action;
	r->dirs = m.directions;
	r->family = m.family;
	r->proto = m.proto;
	if (m.flags & AFW_MATCH_F_SRC) {
		memcpy(r->src, at, alen);
		at += alen;
		r->src_len = m.src_prefix;
		r->has |= AFW_R_SRC;
	}
	if (m.flags & AFW_MATCH_F_DST) {
		memcpy(r->dst, at, alen);
		r->dst_len = m.dst_prefix;
		r->has |= AFW_R_DST;
	}
	if (m.flags & AFW_MATCH_F_SPORT) {
		r->sport_lo = m.sport_lo;
		r->sport_hi = m.sport_hi;
		r->has |= AFW_R_SPORT;
	}
	if (m.flags & AFW_MATCH_F_DPORT) {
		r->dport_lo = m.dport_lo;
		r->dport_hi = m.dport_hi;
		r->has |= AFW_R_DPORT;
	}
	return 0;
}

int afw_rule_parse_nest(const struct nlattr *nest, struct afw_rule_spec *r)
{
	const struct nlattr *tb[AFW_RULE_A_MAX + 1];
	const struct afw_attr_set rset = { AFW_RULE_A_MAX, afw_rule_types, tb };
	const struct nlattr *hi;

	memset(r, 0, sizeof(*r));
	if (afw_attrs_parse_nested(nest, &rset) < 0)
		return MNL_CB_ERROR;
	if (tb[AFW_RULE_A_MATCH]) {
		if (tb[AFW_RULE_A_ACTION] || afw_rule_get_match(tb[AFW_RULE_A_MATCH], r))
			return afw_bad();
		goto rest;
	}
	if (!tb[AFW_RULE_A_ACTION])
		return afw_bad();
	r->action = mnl_attr_get_u8(tb[AFW_RULE_A_ACTION]);
	r->dirs = tb[AFW_RULE_A_DIRECTIONS] ? mnl_attr_get_u8(tb[AFW_RULE_A_DIRECTIONS]) :
					      AFW_DIRS_ALL;
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
	/* A range of one port is sent as its low end alone. */
	if (tb[AFW_RULE_A_SPORT_LO]) {
		hi = tb[AFW_RULE_A_SPORT_HI] ? tb[AFW_RULE_A_SPORT_HI] : tb[AFW_RULE_A_SPORT_LO];
		r->sport_lo = mnl_attr_get_u16(tb[AFW_RULE_A_SPORT_LO]);
		r->sport_hi = mnl_attr_get_u16(hi);
		r->has |= AFW_R_SPORT;
	}
	if (tb[AFW_RULE_A_DPORT_LO]) {
		hi = tb[AFW_RULE_A_DPORT_HI] ? tb[AFW_RULE_A_DPORT_HI] : tb[AFW_RULE_A_DPORT_LO];
		r->dport_lo = mnl_attr_get_u16(tb[AFW_RULE_A_DPORT_LO]);
		r->dport_hi = mnl_attr_get_u16(hi);
		r->has |= AFW_R_DPORT;
	}
rest:
	if (tb[AFW_RULE_A_ID]) {
		r->id = mnl_attr_get_u32(tb[AFW_RULE_A_ID]);
		r->has |= AFW_R_ID;
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
	if (tb[AFW_RULE_A_EXE]) {
		snprintf(r->exe, sizeof(r->exe), "%s", mnl_attr_get_str(tb[AFW_RULE_A_EXE]));
		r->has |= AFW_R_EXE;
	}
	if (tb[AFW_RULE_A_CGROUP]) {
		snprintf(r->cgroup, sizeof(r->cgroup), "%s", mnl_attr_get_str(tb[AFW_RULE_A_CGROUP]));
		r->has |= AFW_R_CGROUP;
	}
	if (tb[AFW_RULE_A_COMMENT]) {
		snprintf(r->comment, sizeof(r->comment), "%s", mnl_attr_get_str(tb[AFW_RULE_A_COMMENT]));
		r->has |= AFW_R_COMMENT;
	}
	if (tb[AFW_RULE_A_PACKETS] && tb[AFW_RULE_A_BYTES]) {
		r->packets = mnl_attr_get_u64(tb[AFW_RULE_A_PACKETS]);
		r->bytes = mnl_attr_get_u64(tb[AFW_RULE_A_BYTES]);
		r->has |= AFW_R_COUNTERS;
	}
	return MNL_CB_OK;
}

int afw_rule_parse_msg(const struct nlmsghdr *nlh, struct afw_rule_spec *r)
{
	const struct nlattr *top[AFW_A_MAX + 1];
	const struct afw_attr_set set = { AFW_A_MAX, afw_msg_types, top };

	memset(r, 0, sizeof(*r));
	if (afw_attrs_parse_msg(nlh, &set) < 0)
		return MNL_CB_ERROR;
	if (!top[AFW_A_RULE])
		return afw_bad();
	if (afw_rule_parse_nest(top[AFW_A_RULE], r) != MNL_CB_OK)
		return MNL_CB_ERROR;
	/* The kernel names every rule it sends by its id. */
	if (!(r->has & AFW_R_ID))
		return afw_bad();
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

	if (afw_rule_parse_msg(nlh, &r) != MNL_CB_OK)
		return MNL_CB_ERROR;
	return ctx->fn(&r, ctx->data) ? MNL_CB_ERROR : MNL_CB_OK;
}

int afw_rule_dump(struct afw_nl *nl, int (*fn)(const struct afw_rule_spec *r, void *data),
		  void *data)
{
	struct afw_rule_dump_ctx ctx = { fn, data };
	int ret;

	/*
	 * A dump that raced with a change is not a consistent ruleset; it is
	 * still read to its end, or what is left of it would meet the next
	 * request on this socket.
	 */
	ret = afw_nl_talk(nl, afw_nl_request(nl, AFW_CMD_RULE_GET, NLM_F_DUMP),
			  afw_rule_dump_cb, &ctx);
	return !ret && nl->dump_intr ? -EINTR : ret;
}

/* Room a rule may take in a message, with every field set. */
#define AFW_RULE_MAX_ATTR_LEN 320

int afw_rule_list_add(struct afw_rule_list *l, const struct afw_rule_spec *r)
{
	struct nlmsghdr *grown;
	size_t cap;

	if (!l->nlh || (size_t)l->nlh->nlmsg_len + AFW_RULE_MAX_ATTR_LEN > l->cap) {
		cap = l->cap ? l->cap * 2 : 65536;
		/* nlmsg_len, the list's length, is a u32. */
		if (cap > UINT32_MAX) {
			if (l->cap >= UINT32_MAX) {
				errno = EFBIG;
				return -1;
			}
			cap = UINT32_MAX;
		}
		grown = realloc(l->nlh, cap);
		if (!grown)
			return -1;
		if (!l->nlh)
			mnl_nlmsg_put_header(grown);
		l->nlh = grown;
		l->cap = cap;
	}
	afw_rule_put_match(l->nlh, r);
	l->n++;
	return 0;
}

const struct nlattr *afw_rule_list_next(const struct afw_rule_list *l, const struct nlattr *prev)
{
	const struct nlattr *a;

	if (!l->nlh)
		return NULL;
	a = prev ? mnl_attr_next(prev) : mnl_nlmsg_get_payload(l->nlh);
	return (const char *)a < (const char *)mnl_nlmsg_get_payload_tail(l->nlh) ? a : NULL;
}

void afw_rule_list_free(struct afw_rule_list *l)
{
	free(l->nlh);
	memset(l, 0, sizeof(*l));
}

int afw_rule_list_fill(struct nlmsghdr *nlh, const struct afw_rule_list *l,
		       const struct nlattr **at, uint32_t version)
{
	const struct nlattr *a = *at;
	struct afw_rule_spec r;
	size_t len;

	/*
	 * The rules go as they were encoded when the file was read, but to
	 * a module before AFW_RULE_A_MATCH as attributes.
	 */
	for (; a && nlh->nlmsg_len + AFW_RULE_MAX_ATTR_LEN < AFW_NL_BUFSIZE / 2;
	     a = afw_rule_list_next(l, a)) {
		if (version < 2) {
			/* The list's own nests fail to decode only if memory was damaged. */
			if (afw_rule_parse_nest(a, &r) != MNL_CB_OK)
				return -EBADMSG;
			afw_rule_put(nlh, &r);
			continue;
		}
		len = MNL_ALIGN(a->nla_len);
		memcpy(mnl_nlmsg_get_payload_tail(nlh), a, len);
		nlh->nlmsg_len += (uint32_t)len;
	}
	*at = a;
	return 0;
}

int afw_ruleset_replace(struct afw_nl *nl, const struct afw_rule_list *l,
			void (*put_settings)(struct nlmsghdr *nlh, const void *data),
			const void *data)
{
	const struct nlattr *a = afw_rule_list_next(l, NULL);
	uint32_t flags = AFW_REPLACE_F_BEGIN;
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	int ret;

	do {
		nlh = afw_nl_request(nl, AFW_CMD_RULESET_REPLACE, 0);
		nest = mnl_attr_nest_start(nlh, AFW_A_RULES);
		ret = afw_rule_list_fill(nlh, l, &a, nl->version);
		if (ret)
			return ret;
		mnl_attr_nest_end(nlh, nest);
		if (!a) {
			flags |= AFW_REPLACE_F_COMMIT;
			if (put_settings)
				put_settings(nlh, data);
		}
		mnl_attr_put_u32(nlh, AFW_A_REPLACE_FLAGS, flags);
		ret = afw_nl_talk(nl, nlh, NULL, NULL);
		flags = 0;
	} while (!ret && a);
	return ret;
}
