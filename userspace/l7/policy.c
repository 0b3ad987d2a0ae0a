// SPDX-License-Identifier: GPL-2.0
/*
 * The policy file: reading it, checking every word, and printing it back.
 * The file is read whole into memory (it is bounded), split into lines,
 * and each line into words in a private copy, so that every error can
 * name its line, column and word.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <net/if.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hostname.h"
#include "resolvers.h"
#include "words.h"
#include "policy_impl.h"

static const char *const afw_decision_names[] = {
	[AFW_DECIDE_ALLOW] = "allow",
	[AFW_DECIDE_DENY] = "deny",
	[AFW_DECIDE_REJECT] = "reject",
	[AFW_DECIDE_INSPECT] = "inspect",
	[AFW_DECIDE_ASK] = "ask",
};

static const char *const afw_l7_names[] = {
	[AFW_L7_UNKNOWN] = "unknown",
	[AFW_L7_TLS] = "tls",
	[AFW_L7_QUIC] = "quic",
	[AFW_L7_HTTP] = "http",
	[AFW_L7_DNS] = "dns",
};

static const char *const afw_dir_names[] = {
	[AFW_FDIR_IN] = "in",
	[AFW_FDIR_OUT] = "out",
	[AFW_FDIR_FORWARD] = "forward",
};

/* The policy's words for enum afw_reason; "" for none. */
static const char *const afw_reason_names[] = {
	[AFW_REASON_NONE] = "",
	[AFW_REASON_TIMEOUT] = "timeout",
	[AFW_REASON_BOUND] = "bound",
	[AFW_REASON_TABLE_FULL] = "table-full",
	[AFW_REASON_NOT_TLS] = "not-tls",
	[AFW_REASON_MALFORMED] = "malformed",
	[AFW_REASON_EVASION] = "evasion",
	[AFW_REASON_UNDECODABLE] = "undecodable",
	[AFW_REASON_MID_STREAM] = "mid-stream",
};

#define AFW_N(a) (sizeof(a) / sizeof((a)[0]))

_Static_assert(AFW_N(afw_reason_names) == __AFW_REASON_MAX, "a name for every reason");
_Static_assert(AFW_N(afw_l7_names) == __AFW_L7_MAX, "a name for every l7 protocol");

#define AFW_JA4_LEN 36

struct afw_parse {
	struct afw_policy *p;
	const char *name;
	struct afw_policy_error *err;
	uint32_t line;
	const char *lbuf;	/* the current line's copy, for columns */
	bool have_default;
};

const char *afw_decision_name(enum afw_decision v)
{
	return (unsigned int)v <= AFW_DECIDE_MAX ? afw_decision_names[v] : "unknown";
}

const char *afw_reason_name(enum afw_reason r)
{
	return (unsigned int)r <= AFW_REASON_MAX ? afw_reason_names[r] : "?";
}

/* @tok for a message: bytes that are not printable ASCII as \xNN, cut short with "...". */
static void afw_quote(char *out, size_t len, const char *tok)
{
	size_t off = 0;

	for (; *tok && off + 8 < len; tok++) {
		if (*tok >= 0x20 && *tok < 0x7f)
			out[off++] = *tok;
		else
			off += (size_t)snprintf(out + off, len - off, "\\x%02x", (uint8_t)*tok);
	}
	strcpy(out + off, *tok ? "..." : "");
}

/* Fills in the error; @tok, if any, points into the current line's copy. */
__attribute__((format(printf, 3, 4)))
static int afw_perr(struct afw_parse *ps, const char *tok, const char *fmt, ...)
{
	struct afw_policy_error *e = ps->err;
	char reason[256], quoted[80];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	e->line = ps->line;
	e->column = tok ? (unsigned int)(tok - ps->lbuf) + 1 : 0;
	snprintf(e->token, sizeof(e->token), "%s", tok ? tok : "");
	afw_quote(quoted, sizeof(quoted), tok ? tok : "");
	if (tok)
		snprintf(e->msg, sizeof(e->msg), "%s:%u:%u: '%s': %s", ps->name, e->line,
			 e->column, quoted, reason);
	else if (e->line)
		snprintf(e->msg, sizeof(e->msg), "%s:%u: %s", ps->name, e->line, reason);
	else
		snprintf(e->msg, sizeof(e->msg), "%s: %s", ps->name, reason);
	return -1;
}

static int afw_oom(struct afw_parse *ps)
{
	return afw_perr(ps, NULL, "out of memory");
}

static int afw_decision_parse(const char *w)
{
	size_t i;

	for (i = 0; i < AFW_N(afw_decision_names); i++)
		if (!strcmp(w, afw_decision_names[i]))
			return (int)i;
	/* The kernel ruleset's words: one vocabulary for both files. */
	if (!strcmp(w, "accept"))
		return AFW_DECIDE_ALLOW;
	if (!strcmp(w, "drop"))
		return AFW_DECIDE_DENY;
	return -1;
}

/* Adds @len bytes to the string pool and a value naming them to strs. */
static int afw_add_str(struct afw_parse *ps, struct afw_range *rg, const char *s, size_t len,
		       bool wild)
{
	struct afw_str *v;
	size_t off = ps->p->pool.n, i;
	char *c;

	for (i = 0; i < len; i++) {
		c = afw_vec_push(&ps->p->pool);
		if (!c)
			return afw_oom(ps);
		*c = s[i];
	}
	v = afw_vec_push(&ps->p->strs);
	if (!v)
		return afw_oom(ps);
	*v = (struct afw_str){ (uint32_t)off, (uint32_t)len, wild };
	if (!rg->n)
		rg->off = (uint32_t)(ps->p->strs.n - 1);
	rg->n++;
	return 0;
}

/* Claims the next slot of @v for range @rg. */
static void *afw_add(struct afw_parse *ps, struct afw_vec *v, struct afw_range *rg)
{
	void *slot = afw_vec_push(v);

	if (!slot) {
		afw_oom(ps);
		return NULL;
	}
	if (!rg->n)
		rg->off = (uint32_t)(v->n - 1);
	rg->n++;
	return slot;
}

static int afw_kw_host(struct afw_parse *ps, struct afw_prule *r, char *item)
{
	char name[AFW_HOSTNAME_MAX + 1];
	bool wild = false;
	const char *why;
	int len;

	if (!strncmp(item, "*.", 2)) {
		wild = true;
		item += 2;
	}
	if (strchr(item, '*'))
		return afw_perr(ps, wild ? item - 2 : item,
				"'*' is allowed only as a whole first label, as in *.example.com");
	len = afw_hostname_norm(item, strlen(item), name, &why);
	if (len < 0)
		return afw_perr(ps, wild ? item - 2 : item, "%s", why);
	return afw_add_str(ps, &r->hosts, name, (size_t)len, wild);
}

static int afw_kw_alpn(struct afw_parse *ps, struct afw_prule *r, char *item)
{
	size_t len = strlen(item), i;

	/* Commas separate the list and '#' starts a comment, so neither can be in a value. */
	for (i = 0; i < len; i++)
		if (item[i] < 0x21 || item[i] > 0x7e)
			return afw_perr(ps, item, "ALPN protocol ids here are printable ASCII");
	if (len > 255)
		return afw_perr(ps, item, "ALPN protocol ids are 1-255 bytes");
	return afw_add_str(ps, &r->alpn, item, len, false);
}

static int afw_kw_ja4(struct afw_parse *ps, struct afw_prule *r, char *item)
{
	size_t i, len = strlen(item);
	char c;

	if (len != AFW_JA4_LEN || item[10] != '_' || item[23] != '_')
		return afw_perr(ps, item, "a JA4 fingerprint is 10, 12 and 12 characters joined "
				"by '_', as in t13d1516h2_8daaf6152771_e5627efa2ab1");
	for (i = 0; i < len; i++) {
		if (i == 10 || i == 23)
			continue;
		c = item[i];
		if (c >= 'A' && c <= 'Z')
			item[i] = c = (char)(c - 'A' + 'a');
		if (!((c >= '0' && c <= '9') || (c >= 'a' && (i < 10 ? c <= 'z' : c <= 'f'))))
			return afw_perr(ps, item, "a JA4 fingerprint has letters and digits, then "
					"two hexadecimal hashes");
	}
	return afw_add_str(ps, &r->ja4, item, len, false);
}

static int afw_kw_l7(struct afw_parse *ps, struct afw_prule *r, char *item)
{
	size_t i;

	for (i = 0; i < AFW_N(afw_l7_names); i++) {
		if (!strcmp(item, afw_l7_names[i])) {
			r->l7s |= (uint8_t)(1u << i);
			return 0;
		}
	}
	return afw_perr(ps, item, "l7 is tls, quic, http, dns or unknown");
}

static int afw_kw_reason(struct afw_parse *ps, struct afw_prule *r, char *item)
{
	size_t i;

	for (i = 1; i < AFW_N(afw_reason_names); i++) {
		if (!strcmp(item, afw_reason_names[i])) {
			r->reasons |= (uint16_t)(1u << i);
			return 0;
		}
	}
	return afw_perr(ps, item, "reason is timeout, bound, table-full, not-tls, malformed, "
			"evasion, undecodable or mid-stream");
}

static const char *const afw_pname_names[] = { "none", "invalid", "valid" };

static int afw_kw_name(struct afw_parse *ps, struct afw_prule *r, char *item)
{
	size_t i;

	for (i = 0; i < AFW_N(afw_pname_names); i++) {
		if (!strcmp(item, afw_pname_names[i])) {
			r->names |= (uint8_t)(1u << i);
			return 0;
		}
	}
	return afw_perr(ps, item, "name is none, invalid or valid");
}

static int afw_kw_ech(struct afw_parse *ps, struct afw_prule *r, char *item)
{
	if (!strcmp(item, "yes"))
		r->ech |= AFW_PECH_YES;
	else if (!strcmp(item, "no"))
		r->ech |= AFW_PECH_NO;
	else
		return afw_perr(ps, item, "ech is yes or no");
	return 0;
}

static int afw_kw_proto(struct afw_parse *ps, struct afw_prule *r, char *item)
{
	uint8_t *slot, num;

	if (afw_proto_parse(item, &num))
		return afw_perr(ps, item, "not a protocol name or number 1-255");
	slot = afw_add(ps, &ps->p->protos, &r->protos);
	if (!slot)
		return -1;
	*slot = num;
	return 0;
}

static int afw_port_item(struct afw_parse *ps, struct afw_range *rg, char *item)
{
	char *dash = strchr(item, '-');
	struct afw_ports *pr;
	uint32_t lo, hi;
	bool ok;

	if (dash)
		*dash = '\0';
	ok = afw_parse_u32(item, &lo) && lo <= 65535;
	hi = lo;
	if (ok && dash)
		ok = afw_parse_u32(dash + 1, &hi) && hi <= 65535;
	if (dash)
		*dash = '-';
	if (!ok)
		return afw_perr(ps, item, "a port is 0-65535, a range LO-HI");
	if (lo > hi)
		return afw_perr(ps, item, "range is empty, low port above high");
	pr = afw_add(ps, &ps->p->ports, rg);
	if (!pr)
		return -1;
	*pr = (struct afw_ports){ (uint16_t)lo, (uint16_t)hi };
	return 0;
}

static int afw_kw_dport(struct afw_parse *ps, struct afw_prule *r, char *item)
{
	return afw_port_item(ps, &r->ports, item);
}

static int afw_kw_sport(struct afw_parse *ps, struct afw_prule *r, char *item)
{
	return afw_port_item(ps, &r->sports, item);
}

static int afw_net_item(struct afw_parse *ps, struct afw_range *rg, char *item)
{
	char *slash = strchr(item, '/');
	struct afw_net n = { 0 }, *slot;
	unsigned int bits, i;
	uint32_t len;
	int ok;

	if (slash)
		*slash = '\0';
	n.family = afw_addr_parse(item, n.addr);
	if (slash)
		*slash = '/';
	if (!n.family)
		return afw_perr(ps, item, "not an IPv4 or IPv6 address or prefix");
	bits = n.family == AF_INET6 ? 128 : 32;
	len = bits;
	ok = !slash || (afw_parse_u32(slash + 1, &len) && len <= bits);
	if (!ok)
		return afw_perr(ps, item, "prefix length must be 0 to %u", bits);
	for (i = len; i < bits; i++)
		if (n.addr[i / 8] & (0x80 >> (i % 8)))
			return afw_perr(ps, item, "address has bits set beyond the prefix length");
	n.len = (uint8_t)len;
	slot = afw_add(ps, &ps->p->nets, rg);
	if (!slot)
		return -1;
	*slot = n;
	return 0;
}

/*
 * "to resolvers": the name servers the host is configured to ask, each a
 * whole address, as they are when the file is loaded (reload after they
 * change). None configured is a net of no family, which no flow is in: the
 * rule never matches, rather than match every server.
 */
static int afw_resolvers_item(struct afw_parse *ps, struct afw_range *rg)
{
	struct afw_resolver rs[AFW_RESOLVERS_MAX];
	struct afw_net *slot;
	size_t n, i;

	n = afw_resolvers_read(rs, AFW_RESOLVERS_MAX);
	if (!n) {
		slot = afw_add(ps, &ps->p->nets, rg);
		if (!slot)
			return -1;
		*slot = (struct afw_net){ 0 };
		return 0;
	}
	for (i = 0; i < n; i++) {
		slot = afw_add(ps, &ps->p->nets, rg);
		if (!slot)
			return -1;
		*slot = (struct afw_net){ .family = rs[i].family };
		slot->len = rs[i].family == AF_INET6 ? 128 : 32;
		memcpy(slot->addr, rs[i].addr, sizeof(slot->addr));
	}
	return 0;
}

static int afw_kw_to(struct afw_parse *ps, struct afw_prule *r, char *item)
{
	if (!strcmp(item, "resolvers"))
		return afw_resolvers_item(ps, &r->nets);
	return afw_net_item(ps, &r->nets, item);
}

static int afw_kw_from(struct afw_parse *ps, struct afw_prule *r, char *item)
{
	return afw_net_item(ps, &r->snets, item);
}

static int afw_kw_dir(struct afw_parse *ps, struct afw_prule *r, char *item)
{
	size_t i;

	for (i = AFW_FDIR_IN; i < AFW_N(afw_dir_names); i++) {
		if (!strcmp(item, afw_dir_names[i])) {
			r->dirs |= (uint8_t)(1u << i);
			return 0;
		}
	}
	return afw_perr(ps, item, "dir is in, out or forward");
}

/*
 * An interface by name, as nftables' iif: its index is looked up now, so
 * the name must exist when the file is loaded (reload once it does).
 */
static int afw_if_item(struct afw_parse *ps, struct afw_range *rg, char *item)
{
	struct afw_pif *slot;
	unsigned int index;

	if (strlen(item) >= sizeof(slot->name))
		return afw_perr(ps, item, "an interface name is at most %zu bytes",
				sizeof(slot->name) - 1);
	index = if_nametoindex(item);
	if (!index)
		return afw_perr(ps, item, "no such interface here; interfaces are looked up "
				"when the file is loaded, so reload once it exists");
	slot = afw_add(ps, &ps->p->ifs, rg);
	if (!slot)
		return -1;
	slot->index = index;
	snprintf(slot->name, sizeof(slot->name), "%s", item);
	return 0;
}

static int afw_kw_iif(struct afw_parse *ps, struct afw_prule *r, char *item)
{
	return afw_if_item(ps, &r->iifs, item);
}

static int afw_kw_oif(struct afw_parse *ps, struct afw_prule *r, char *item)
{
	return afw_if_item(ps, &r->oifs, item);
}

/*
 * getpwnam_r() or getgrnam_r() of @name into @id: 0, 1 when there is no
 * such name, -1 when the lookup failed. Large NSS entries need a larger
 * buffer; stop at 1 MiB.
 */
static int afw_id_by_name(const char *name, bool group, uint32_t *id)
{
	struct passwd pw, *pres = NULL;
	struct group gr, *gres = NULL;
	size_t size = 1024;
	char *buf = NULL, *nbuf;
	bool found;
	int ret;

	do {
		nbuf = realloc(buf, size);
		if (!nbuf) {
			ret = ENOMEM;
			break;
		}
		buf = nbuf;
		ret = group ? getgrnam_r(name, &gr, buf, size, &gres) :
			      getpwnam_r(name, &pw, buf, size, &pres);
		size *= 2;
	} while (ret == ERANGE && size <= (1u << 20));
	found = !ret && (group ? gres != NULL : pres != NULL);
	if (found)
		*id = group ? (uint32_t)gres->gr_gid : (uint32_t)pres->pw_uid;
	free(buf);
	return ret ? -1 : found ? 0 : 1;
}

/* "uid" (@group false) or "group": a number, or a name looked up now. */
static int afw_id_item(struct afw_parse *ps, struct afw_vec *v, struct afw_range *rg, char *item,
		       bool group)
{
	uint32_t *slot, id;
	int ret;

	if (item[0] >= '0' && item[0] <= '9') {
		if (!afw_parse_u32(item, &id))
			return afw_perr(ps, item, group ? "a group is a number 0-4294967295 or a "
					"group name" : "a uid is a number 0-4294967295 or a user name");
	} else {
		ret = afw_id_by_name(item, group, &id);
		if (ret < 0)
			return afw_perr(ps, item, group ? "could not look the group up" :
					"could not look the user up");
		if (ret > 0)
			return afw_perr(ps, item, group ? "no such group" : "no such user");
	}
	slot = afw_add(ps, v, rg);
	if (!slot)
		return -1;
	*slot = id;
	return 0;
}

static int afw_kw_uid(struct afw_parse *ps, struct afw_prule *r, char *item)
{
	return afw_id_item(ps, &ps->p->uids, &r->uids, item, false);
}

static int afw_kw_group(struct afw_parse *ps, struct afw_prule *r, char *item)
{
	return afw_id_item(ps, &ps->p->gids, &r->gids, item, true);
}

/* A string the matcher hands to fnmatch() or strcmp(): kept NUL-terminated. */
static int afw_add_cstr(struct afw_parse *ps, struct afw_range *rg, const char *s, size_t len)
{
	char *nul;

	if (afw_add_str(ps, rg, s, len, false))
		return -1;
	nul = afw_vec_push(&ps->p->pool);
	if (!nul)
		return afw_oom(ps);
	*nul = '\0';
	return 0;
}

/* The printable bytes a program's path or a cgroup's may have here. */
static bool afw_path_ok(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x21 || *s == 0x7f)
			return false;
	return true;
}

static int afw_kw_exe(struct afw_parse *ps, struct afw_prule *r, char *item)
{
	size_t len = strlen(item);

	if (item[0] != '/')
		return afw_perr(ps, item, "a program is its absolute path, or a glob(7) pattern "
				"of one, as /usr/bin/curl or /opt/*/bin/*");
	if (len >= 4096 || !afw_path_ok(item))
		return afw_perr(ps, item, "a program's path here is printable, without spaces, "
				"and shorter than 4096 bytes");
	return afw_add_cstr(ps, &r->exes, item, len);
}

static int afw_kw_comm(struct afw_parse *ps, struct afw_prule *r, char *item)
{
	size_t len = strlen(item);

	/* The kernel keeps 15 bytes of a task's name; a longer one never matches. */
	if (len > 15 && !strpbrk(item, "*?["))
		return afw_perr(ps, item, "a task name (comm) is at most 15 bytes: the kernel "
				"keeps no more");
	if (!afw_path_ok(item))
		return afw_perr(ps, item, "a task name here is printable, without spaces");
	return afw_add_cstr(ps, &r->comms, item, len);
}

static int afw_kw_cgroup(struct afw_parse *ps, struct afw_prule *r, char *item)
{
	size_t len = strlen(item);

	if (item[0] != '/')
		return afw_perr(ps, item, "a cgroup is its path from the cgroup2 root, as "
				"/system.slice/backup.service");
	if (len >= 4096 || !afw_path_ok(item))
		return afw_perr(ps, item, "a cgroup's path here is printable, without spaces, "
				"and shorter than 4096 bytes");
	while (len > 1 && item[len - 1] == '/')
		len--;
	return afw_add_cstr(ps, &r->cgroups, item, len);
}

static int afw_kw_unit(struct afw_parse *ps, struct afw_prule *r, char *item)
{
	size_t len = strlen(item);

	if (strchr(item, '/') || !afw_path_ok(item) || len > 255)
		return afw_perr(ps, item, "a unit is a systemd unit's name, as backup.service "
				"or docker-0123abcd.scope");
	return afw_add_cstr(ps, &r->units, item, len);
}

static const struct {
	const char *word;
	int (*item)(struct afw_parse *ps, struct afw_prule *r, char *item);
} afw_keywords[] = {
	{ "l7", afw_kw_l7 },
	{ "reason", afw_kw_reason },
	{ "host", afw_kw_host },
	{ "name", afw_kw_name },
	{ "ech", afw_kw_ech },
	{ "alpn", afw_kw_alpn },
	{ "ja4", afw_kw_ja4 },
	{ "proto", afw_kw_proto },
	{ "dport", afw_kw_dport },
	{ "to", afw_kw_to },
	{ "uid", afw_kw_uid },
	{ "dir", afw_kw_dir },
	{ "from", afw_kw_from },
	{ "sport", afw_kw_sport },
	{ "iif", afw_kw_iif },
	{ "oif", afw_kw_oif },
	{ "exe", afw_kw_exe },
	{ "comm", afw_kw_comm },
	{ "group", afw_kw_group },
	{ "cgroup", afw_kw_cgroup },
	{ "unit", afw_kw_unit },
};

/* Other names of keywords: "app", l7's before programs were matched. */
static const char *afw_keyword_alias(const char *w)
{
	if (!strcmp(w, "app"))
		return "l7";
	if (!strcmp(w, "user"))
		return "uid";
	return w;
}

/* Calls the keyword's parser for each item of the comma list @v. */
static int afw_kw_list(struct afw_parse *ps, struct afw_prule *r, size_t kw, char *v)
{
	char *item = v, *comma;

	for (;;) {
		comma = strchr(item, ',');
		if (comma)
			*comma = '\0';
		if (!*item) {
			if (comma)
				*comma = ',';
			return afw_perr(ps, v, "empty item in a comma list");
		}
		if (afw_keywords[kw].item(ps, r, item))
			return -1;
		if (!comma)
			return 0;
		*comma = ',';
		item = comma + 1;
	}
}

/* The next word of the line at *@pos, NUL-terminated in place; NULL at the end. */
static char *afw_word(char **pos)
{
	char *s = *pos, *w;

	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	if (!*s)
		return NULL;
	w = s;
	while (*s && *s != ' ' && *s != '\t' && *s != '\r')
		s++;
	if (*s)
		*s++ = '\0';
	*pos = s;
	return w;
}

static int afw_parse_default(struct afw_parse *ps, char *w, char **pos)
{
	char *v = afw_word(pos), *extra;
	int verdict;

	if (ps->have_default)
		return afw_perr(ps, w, "the default is given twice (first on line %" PRIu32 ")",
				ps->p->dflt_line);
	if (!v)
		return afw_perr(ps, w, "missing its action: allow, deny, reject, inspect or ask");
	verdict = afw_decision_parse(v);
	if (verdict < 0)
		return afw_perr(ps, v, "the default action is allow, deny, reject, inspect or ask");
	extra = afw_word(pos);
	if (extra)
		return afw_perr(ps, extra, "nothing may follow the default action");
	ps->have_default = true;
	ps->p->dflt = (enum afw_decision)verdict;
	ps->p->dflt_line = ps->line;
	if (verdict == AFW_DECIDE_ASK)
		ps->p->asks = true;
	return 0;
}

/*
 * "ask-default ACTION": what an ask becomes when nobody answers it in
 * time, or nobody is there to ask; a person's answer, not a rule, so it
 * cannot be ask or inspect. "ask-timeout SECONDS": how long a flow waits.
 */
static int afw_parse_ask_setting(struct afw_parse *ps, char *w, char **pos)
{
	bool timeout = !strcmp(w, "ask-timeout");
	uint32_t *line = timeout ? &ps->p->ask_timeout_line : &ps->p->ask_dflt_line;
	char *v = afw_word(pos), *extra;
	uint32_t secs;
	int verdict;

	if (*line)
		return afw_perr(ps, w, "given twice (first on line %" PRIu32 ")", *line);
	if (!v)
		return afw_perr(ps, w, timeout ? "missing its value: seconds, 1 to %u" :
				"missing its action: allow, deny or reject", AFW_POLICY_ASK_TIMEOUT_MAX);
	if (timeout) {
		if (!afw_parse_u32(v, &secs) || !secs || secs > AFW_POLICY_ASK_TIMEOUT_MAX)
			return afw_perr(ps, v, "seconds, 1 to %u", AFW_POLICY_ASK_TIMEOUT_MAX);
		ps->p->ask_timeout = secs;
	} else {
		verdict = afw_decision_parse(v);
		if (verdict != AFW_DECIDE_ALLOW && verdict != AFW_DECIDE_DENY &&
		    verdict != AFW_DECIDE_REJECT)
			return afw_perr(ps, v, "what an unanswered ask becomes: allow, deny or reject");
		ps->p->ask_dflt = (enum afw_decision)verdict;
	}
	extra = afw_word(pos);
	if (extra)
		return afw_perr(ps, extra, "nothing may follow the value");
	*line = ps->line;
	return 0;
}

/*
 * A rule testing the flow's owner in directions where no flow has the
 * owner it tests never matches: a forwarded flow has none, and an inbound
 * one has its local socket's, with no program or task (docs/policy.md).
 * @prog_kw: the rule's exe or comm word; @owner_kw: its cgroup, unit or
 * group word; NULL for none.
 */
static int afw_rule_owner_dirs(struct afw_parse *ps, const struct afw_prule *r,
			       const char *prog_kw, const char *owner_kw)
{
	uint8_t out = 1u << AFW_FDIR_OUT, in = 1u << AFW_FDIR_IN;

	if (!r->dirs || (r->dirs & out))
		return 0;
	if (prog_kw)
		return afw_perr(ps, prog_kw, "never matches: only flows this host starts name a "
				"program or task; an inbound flow's owner is its listening socket "
				"(test its cgroup, unit or group), a forwarded flow has none");
	if (owner_kw && !(r->dirs & in))
		return afw_perr(ps, owner_kw, "never matches: a forwarded flow has no owner here");
	return 0;
}

static int afw_parse_line(struct afw_parse *ps, char *line)
{
	char *pos = line, *w, *v, *last = NULL, *last_kw = NULL, *hash;
	const char *prog_kw = NULL, *owner_kw = NULL;
	struct afw_prule *r;
	unsigned int seen = 0;
	bool have_prio = false;
	int verdict;
	size_t k;

	hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	w = afw_word(&pos);
	if (!w)
		return 0;
	if (!strcmp(w, "default"))
		return afw_parse_default(ps, w, &pos);
	if (!strcmp(w, "ask-default") || !strcmp(w, "ask-timeout"))
		return afw_parse_ask_setting(ps, w, &pos);
	if (ps->p->rules.n >= AFW_POLICY_MAX_RULES)
		return afw_perr(ps, NULL, "more than %u rules", AFW_POLICY_MAX_RULES);
	r = afw_vec_push(&ps->p->rules);
	if (!r)
		return afw_oom(ps);
	r->line = ps->line;
	for (; w; w = afw_word(&pos)) {
		last = w;
		verdict = afw_decision_parse(w);
		if (verdict >= 0) {
			v = afw_word(&pos);
			if (v)
				return afw_perr(ps, v, "nothing may follow the action");
			r->verdict = (enum afw_decision)verdict;
			if (r->verdict == AFW_DECIDE_ASK)
				ps->p->asks = true;
			return afw_rule_owner_dirs(ps, r, prog_kw, owner_kw);
		}
		if (!strcmp(w, "default"))
			return afw_perr(ps, w, "the default goes on a line of its own: "
					"default ACTION");
		if (!strcmp(w, "prio")) {
			if (have_prio)
				return afw_perr(ps, w, "given twice in one rule");
			v = afw_word(&pos);
			if (!v)
				return afw_perr(ps, w, "missing its value");
			if (!afw_parse_u32(v, &r->prio))
				return afw_perr(ps, v, "priority must be 0 to 4294967295");
			have_prio = true;
			last = v;
			last_kw = NULL;
			continue;
		}
		for (k = 0; k < AFW_N(afw_keywords); k++)
			if (!strcmp(afw_keyword_alias(w), afw_keywords[k].word))
				break;
		if (k == AFW_N(afw_keywords))
			return afw_perr(ps, w, "unknown word");
		if (seen & (1u << k))
			return afw_perr(ps, w, "given twice in one rule; list the values "
					"with commas");
		seen |= 1u << k;
		if (!strcmp(afw_keywords[k].word, "exe") || !strcmp(afw_keywords[k].word, "comm"))
			prog_kw = w;
		else if (!strcmp(afw_keywords[k].word, "cgroup") ||
			 !strcmp(afw_keywords[k].word, "unit") || !strcmp(afw_keywords[k].word, "group"))
			owner_kw = w;
		/* The next word is the value even if it reads "allow": "host deny" may be a name. */
		v = afw_word(&pos);
		if (!v)
			return afw_perr(ps, w, "missing its value");
		last = v;
		last_kw = w;
		if (afw_kw_list(ps, r, k, v))
			return -1;
	}
	if (last_kw && afw_decision_parse(last) >= 0)
		return afw_perr(ps, last, "no action: this is read as the value of '%s'; end "
				"the rule with allow, deny, reject, inspect or ask", last_kw);
	return afw_perr(ps, last, "no action: end the rule with allow, deny, reject, inspect or ask");
}

void afw_policy_free(struct afw_policy *p)
{
	if (!p)
		return;
	afw_policy_free(p->answers);
	afw_policy_index_free(p);
	afw_vec_free(&p->rules);
	afw_vec_free(&p->pool);
	afw_vec_free(&p->strs);
	afw_vec_free(&p->protos);
	afw_vec_free(&p->ports);
	afw_vec_free(&p->nets);
	afw_vec_free(&p->uids);
	afw_vec_free(&p->gids);
	afw_vec_free(&p->ifs);
	free(p);
}

static struct afw_policy *afw_policy_new(void)
{
	struct afw_policy *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->ask_dflt = AFW_POLICY_ASK_DEFAULT;
	p->ask_timeout = AFW_POLICY_ASK_TIMEOUT;
	p->rules = (struct afw_vec)AFW_VEC(struct afw_prule);
	p->pool = (struct afw_vec)AFW_VEC(char);
	p->strs = (struct afw_vec)AFW_VEC(struct afw_str);
	p->protos = (struct afw_vec)AFW_VEC(uint8_t);
	p->ports = (struct afw_vec)AFW_VEC(struct afw_ports);
	p->nets = (struct afw_vec)AFW_VEC(struct afw_net);
	p->uids = (struct afw_vec)AFW_VEC(uint32_t);
	p->gids = (struct afw_vec)AFW_VEC(uint32_t);
	p->ifs = (struct afw_vec)AFW_VEC(struct afw_pif);
	p->generic = (struct afw_vec)AFW_VEC(uint32_t);
	p->idx = (struct afw_vec)AFW_VEC(uint32_t);
	p->exact.keys = (struct afw_vec)AFW_VEC(struct afw_hkey);
	p->suffix.keys = (struct afw_vec)AFW_VEC(struct afw_hkey);
	return p;
}

struct afw_policy *afw_policy_parse(const char *text, size_t len, const char *name,
				    struct afw_policy_error *err)
{
	struct afw_parse ps = { .name = name, .err = err };
	char *line = NULL;
	size_t start = 0, end;
	const char *nul;

	memset(err, 0, sizeof(*err));
	ps.p = afw_policy_new();
	line = malloc(AFW_POLICY_MAX_LINE + 1);
	if (!ps.p || !line) {
		afw_oom(&ps);
		goto fail;
	}
	if (len > AFW_POLICY_MAX_FILE) {
		afw_perr(&ps, NULL, "larger than %u bytes", AFW_POLICY_MAX_FILE);
		goto fail;
	}
	while (start < len) {
		const char *nl = memchr(text + start, '\n', len - start);

		end = nl ? (size_t)(nl - text) : len;
		ps.line++;
		ps.lbuf = line;
		if (end - start > AFW_POLICY_MAX_LINE) {
			afw_perr(&ps, NULL, "line longer than %u bytes", AFW_POLICY_MAX_LINE);
			goto fail;
		}
		memcpy(line, text + start, end - start);
		line[end - start] = '\0';
		nul = memchr(text + start, '\0', end - start);
		if (nul) {
			afw_perr(&ps, NULL, "NUL byte at column %zu; is this a text file?",
				 (size_t)(nul - (text + start)) + 1);
			goto fail;
		}
		if (afw_parse_line(&ps, line))
			goto fail;
		start = end + 1;
	}
	if (!ps.have_default) {
		ps.line = 0;
		afw_perr(&ps, NULL,
			 "no 'default ACTION' line: say what flows that match no rule get");
		goto fail;
	}
	if (afw_policy_index(ps.p)) {
		ps.line = 0;
		afw_oom(&ps);
		goto fail;
	}
	free(line);
	return ps.p;
fail:
	free(line);
	afw_policy_free(ps.p);
	return NULL;
}

struct afw_policy *afw_policy_load(const char *path, struct afw_policy_error *err)
{
	struct afw_policy *p = NULL;
	size_t len = 0, cap = 0;
	char *buf = NULL, *nbuf;
	ssize_t n;
	int fd;

	memset(err, 0, sizeof(*err));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto sys_err;
	/* Read to EOF rather than trust st_size, which a pipe or a growing file lacks. */
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			if (cap > AFW_POLICY_MAX_FILE + 1)
				cap = AFW_POLICY_MAX_FILE + 1;
			if (len == cap) {
				snprintf(err->msg, sizeof(err->msg), "%s: larger than %u bytes",
					 path, AFW_POLICY_MAX_FILE);
				goto out;
			}
			nbuf = realloc(buf, cap);
			if (!nbuf) {
				errno = ENOMEM;
				goto sys_err;
			}
			buf = nbuf;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto sys_err;
		if (!n)
			break;
		len += (size_t)n;
	}
	p = afw_policy_parse(buf, len, path, err);
	goto out;
sys_err:
	snprintf(err->msg, sizeof(err->msg), "%s: %s", path, strerror(errno));
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return p;
}

int afw_policy_reload(struct afw_policy **slot, const char *path, struct afw_policy_error *err)
{
	struct afw_policy *p = afw_policy_load(path, err);

	if (!p)
		return -1;
	afw_policy_free(*slot);
	*slot = p;
	return 0;
}

void afw_policy_set_answers(struct afw_policy *p, struct afw_policy *answers)
{
	afw_policy_free(p->answers);
	p->answers = answers;
}

const struct afw_policy *afw_policy_answers(const struct afw_policy *p)
{
	return p->answers;
}

enum afw_decision afw_policy_default(const struct afw_policy *p)
{
	return p->dflt;
}

enum afw_decision afw_policy_ask_default(const struct afw_policy *p)
{
	return p->ask_dflt;
}

unsigned int afw_policy_ask_timeout(const struct afw_policy *p)
{
	return p->ask_timeout;
}

bool afw_policy_asks(const struct afw_policy *p)
{
	return p->asks;
}

size_t afw_policy_rules(const struct afw_policy *p)
{
	return p->rules.n;
}

static void afw_print_ports(const struct afw_policy *p, FILE *out, const char *kw,
			    struct afw_range rg)
{
	const struct afw_ports *pr;
	uint32_t j;

	for (j = 0; j < rg.n; j++) {
		pr = AFW_AT(&p->ports, struct afw_ports, rg.off + j);
		fprintf(out, "%s%u", j ? "," : kw, pr->lo);
		if (pr->hi != pr->lo)
			fprintf(out, "-%u", pr->hi);
	}
}

static void afw_print_nets(const struct afw_policy *p, FILE *out, const char *kw,
			   struct afw_range rg)
{
	char addr[INET6_ADDRSTRLEN];
	const struct afw_net *n;
	uint32_t j;

	for (j = 0; j < rg.n; j++) {
		n = AFW_AT(&p->nets, struct afw_net, rg.off + j);
		/* "to resolvers" with none configured: it reads back the same here. */
		if (!n->family)
			fprintf(out, "%sresolvers", j ? "," : kw);
		else
			fprintf(out, "%s%s/%u", j ? "," : kw,
				inet_ntop(n->family, n->addr, addr, sizeof(addr)), n->len);
	}
}

static void afw_print_ifs(const struct afw_policy *p, FILE *out, const char *kw,
			  struct afw_range rg)
{
	uint32_t j;

	for (j = 0; j < rg.n; j++)
		fprintf(out, "%s%s", j ? "," : kw,
			AFW_AT(&p->ifs, struct afw_pif, rg.off + j)->name);
}

static void afw_print_strs(const struct afw_policy *p, FILE *out, const char *kw,
			   struct afw_range rg)
{
	const struct afw_str *s;
	uint32_t i;

	for (i = 0; i < rg.n; i++) {
		s = AFW_AT(&p->strs, struct afw_str, rg.off + i);
		fprintf(out, "%s%s%.*s", i ? "," : kw, s->wild ? "*." : "", (int)s->len,
			(const char *)p->pool.a + s->off);
	}
}

void afw_policy_print(const struct afw_policy *p, FILE *out)
{
	const struct afw_prule *r;
	size_t i;
	uint32_t j;

	fprintf(out, "default %s\n", afw_decision_name(p->dflt));
	if (p->ask_dflt_line)
		fprintf(out, "ask-default %s\n", afw_decision_name(p->ask_dflt));
	if (p->ask_timeout_line)
		fprintf(out, "ask-timeout %" PRIu32 "\n", p->ask_timeout);
	for (i = 0; i < p->rules.n; i++) {
		r = AFW_AT(&p->rules, struct afw_prule, i);
		fprintf(out, "prio %" PRIu32, r->prio);
		for (j = 0; j <= AFW_L7_MAX; j++)
			if (r->l7s & (1u << j))
				fprintf(out, "%s%s", r->l7s & ((1u << j) - 1) ? "," : " l7 ",
					afw_l7_names[j]);
		for (j = 1; j <= AFW_REASON_MAX; j++)
			if (r->reasons & (1u << j))
				fprintf(out, "%s%s", r->reasons & ((1u << j) - 1) ? "," : " reason ",
					afw_reason_names[j]);
		afw_print_strs(p, out, " host ", r->hosts);
		for (j = 0; j < AFW_N(afw_pname_names); j++)
			if (r->names & (1u << j))
				fprintf(out, "%s%s", r->names & ((1u << j) - 1) ? "," : " name ",
					afw_pname_names[j]);
		if (r->ech)
			fprintf(out, " ech %s%s%s", r->ech & AFW_PECH_YES ? "yes" : "",
				r->ech == (AFW_PECH_YES | AFW_PECH_NO) ? "," : "",
				r->ech & AFW_PECH_NO ? "no" : "");
		afw_print_strs(p, out, " alpn ", r->alpn);
		afw_print_strs(p, out, " ja4 ", r->ja4);
		for (j = 0; j < r->protos.n; j++)
			fprintf(out, "%s%u", j ? "," : " proto ",
				*AFW_AT(&p->protos, uint8_t, r->protos.off + j));
		for (j = AFW_FDIR_IN; j < AFW_N(afw_dir_names); j++)
			if (r->dirs & (1u << j))
				fprintf(out, "%s%s", r->dirs & ((1u << j) - 1) ? "," : " dir ",
					afw_dir_names[j]);
		afw_print_nets(p, out, " from ", r->snets);
		afw_print_ports(p, out, " sport ", r->sports);
		afw_print_ports(p, out, " dport ", r->ports);
		afw_print_nets(p, out, " to ", r->nets);
		afw_print_ifs(p, out, " iif ", r->iifs);
		afw_print_ifs(p, out, " oif ", r->oifs);
		for (j = 0; j < r->uids.n; j++)
			fprintf(out, "%s%" PRIu32, j ? "," : " uid ",
				*AFW_AT(&p->uids, uint32_t, r->uids.off + j));
		for (j = 0; j < r->gids.n; j++)
			fprintf(out, "%s%" PRIu32, j ? "," : " group ",
				*AFW_AT(&p->gids, uint32_t, r->gids.off + j));
		afw_print_strs(p, out, " exe ", r->exes);
		afw_print_strs(p, out, " comm ", r->comms);
		afw_print_strs(p, out, " cgroup ", r->cgroups);
		afw_print_strs(p, out, " unit ", r->units);
		fprintf(out, " %s\n", afw_decision_name(r->verdict));
	}
}

struct afw_check_ctx {
	const char *path;
	FILE *out;
	size_t n;
};

/* Warnings --check prints one by one; past them, a count. */
#define AFW_CHECK_WARNINGS 50

static void afw_check_unreachable(void *ctx, const struct afw_policy_shadow *s)
{
	struct afw_check_ctx *c = ctx;

	if (c->n++ >= AFW_CHECK_WARNINGS)
		return;
	fprintf(c->out, "%s:%u: warning: this rule (prio %" PRIu32 ") never decides a flow: "
		"line %u (prio %" PRIu32 ") matches every flow it matches, and comes first\n",
		c->path, s->line, s->prio, s->by_line, s->by_prio);
}

/*
 * Comparisons of two rules --check makes at most, looking for rules that
 * never decide: half a second on a 2020s PC, and afwd.service waits for
 * them. A policy of host names costs a few per rule (the host index names
 * the candidates); one of 200,000 rules without hosts would cost 2e10, and
 * is looked at in part, saying so.
 */
#define AFW_CHECK_BUDGET 50000000u

int afw_policy_check(const char *path, FILE *out, FILE *errout)
{
	struct afw_check_ctx ctx = { path, out, 0 };
	struct afw_policy_error err;
	struct afw_policy *p = afw_policy_load(path, &err);
	size_t looked;

	if (!p) {
		fprintf(errout, "afwd: %s\n", err.msg);
		return 1;
	}
	fprintf(out, "%s: %zu rules, default %s\n", path, afw_policy_rules(p),
		afw_decision_name(p->dflt));
	looked = afw_policy_unreachable(p, AFW_CHECK_BUDGET, afw_check_unreachable, &ctx);
	if (ctx.n > AFW_CHECK_WARNINGS)
		fprintf(out, "%s: %zu rules in all never decide a flow; the first %u are above\n",
			path, ctx.n, AFW_CHECK_WARNINGS);
	if (looked < afw_policy_rules(p))
		fprintf(out, "%s: looked for rules that never decide among the first %zu of %zu "
			"rules only, to bound the time this check takes\n", path, looked,
			afw_policy_rules(p));
	if (p->dflt == AFW_DECIDE_ALLOW || p->dflt == AFW_DECIDE_INSPECT)
		fprintf(out, "%s: flows given up as malformed or evasion are denied unless a "
			"rule names them (reason malformed,evasion), not %s by the default\n",
			path, p->dflt == AFW_DECIDE_ALLOW ? "allowed" : "inspected");
	afw_policy_free(p);
	return 0;
}
