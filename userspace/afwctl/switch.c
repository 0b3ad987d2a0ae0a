// SPDX-License-Identifier: GPL-2.0
/*
 * afwctl enable, afwctl disable: the off switch, which keeps the rules,
 * flows and settings. Before it turns afw on, enable looks for open SSH
 * sessions and judges their packets, both ways, as the kernel would judge
 * them: a session with an accept flow passes by it; else each way goes by
 * the first rule that matches in evaluation order, else by the
 * unknown-flow setting, and one way accepted by a rule is enough, since
 * the flow that rule installs lets the other way through. One that would
 * be dropped, or left to afwd, is told and asked about, as ufw enable
 * does; without a terminal to ask on, enable refuses unless given --yes.
 * config set, which can make the same cut while afw is on (unknown drop,
 * fail closed), asks the same way, and so does load, by the file's
 * settings and by its rules, which replace those in force.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/afw.h>

#include "afwctl.h"

enum { AFWCTL_SWITCH_ON, AFWCTL_SWITCH_OFF };

/* An established TCP connection to one of this host's SSH ports. */
struct afwctl_ssh {
	uint8_t family;			/* AFW_FAMILY_* */
	uint8_t local[16], peer[16];
	uint16_t lport, pport;
};

bool afwctl_is_yes(const char *w)
{
	return !strcmp(w, "--yes") || !strcmp(w, "-y");
}

static int afwctl_switch_parse(struct afwctl_req *rq, const char *cmd, int argc, char **argv,
			       bool yes_ok)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (yes_ok && afwctl_is_yes(argv[i]))
			rq->yes = true;
		else
			return afwctl_usage_err("%s: unexpected argument '%s'%s", cmd, argv[i],
						yes_ok ? "; the only option is --yes" : "");
	}
	return 0;
}

int afwctl_enable_parse(struct afwctl_req *rq, int argc, char **argv)
{
	rq->sub = AFWCTL_SWITCH_ON;
	return afwctl_switch_parse(rq, "enable", argc, argv, true);
}

int afwctl_disable_parse(struct afwctl_req *rq, int argc, char **argv)
{
	rq->sub = AFWCTL_SWITCH_OFF;
	return afwctl_switch_parse(rq, "disable", argc, argv, false);
}

/* The kernel prints each 32-bit word of an address as it lies in memory. */
static int afwctl_hex_addr(const char *hex, uint8_t *out, unsigned int words)
{
	unsigned int i;
	uint32_t w;
	char part[9];

	for (i = 0; i < words; i++) {
		memcpy(part, hex + 8 * i, 8);
		part[8] = '\0';
		if (sscanf(part, "%8" SCNx32, &w) != 1)
			return -1;
		memcpy(out + 4 * i, &w, 4);
	}
	return 0;
}

/* Established connections to @ports (host order) from /proc/net/tcp or tcp6. */
static size_t afwctl_ssh_read(const char *path, uint8_t family, const uint16_t *ports,
			      size_t nports, struct afwctl_ssh *out, size_t max, size_t n)
{
	unsigned int words = family == AFW_FAMILY_IPV6 ? 4 : 1, st, lp, pp;
	char line[512], la[33], ra[33];
	struct afwctl_ssh s;
	size_t i;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return n;
	while (n < max && fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %*u: %32[0-9A-Fa-f]:%x %32[0-9A-Fa-f]:%x %x", la, &lp, ra, &pp,
			   &st) != 5 || st != 1 /* TCP_ESTABLISHED */)
			continue;
		memset(&s, 0, sizeof(s));
		if (strlen(la) != 8 * words || strlen(ra) != 8 * words ||
		    afwctl_hex_addr(la, s.local, words) || afwctl_hex_addr(ra, s.peer, words))
			continue;
		s.family = family;
		s.lport = (uint16_t)lp;
		s.pport = (uint16_t)pp;
		for (i = 0; i < nports; i++)
			if (s.lport == ports[i])
				out[n++] = s;
	}
	fclose(f);
	return n;
}

/* SSH sessions into this namespace: port 22, and the one SSH_CONNECTION names. */
static size_t afwctl_ssh_sessions(struct afwctl_ssh *out, size_t max)
{
	const char *env = getenv("SSH_CONNECTION");
	uint16_t ports[2] = { 22, 0 };
	unsigned int p;
	size_t nports = 1, n;

	/* "CLIENT_ADDR CLIENT_PORT SERVER_ADDR SERVER_PORT" */
	if (env && sscanf(env, "%*s %*u %*s %u", &p) == 1 && p && p <= 65535 && p != 22)
		ports[nports++] = (uint16_t)p;
	n = afwctl_ssh_read("/proc/net/tcp", AFW_FAMILY_IPV4, ports, nports, out, max, 0);
	return afwctl_ssh_read("/proc/net/tcp6", AFW_FAMILY_IPV6, ports, nports, out, max, n);
}

static bool afwctl_prefix_has(const uint8_t *prefix, unsigned int len, const uint8_t *addr)
{
	unsigned int bytes = len / 8, bits = len % 8;

	if (memcmp(prefix, addr, bytes))
		return false;
	return !bits || !((prefix[bytes] ^ addr[bytes]) & (0xff00 >> bits));
}

/*
 * Whether @r matches a packet of @s (inbound from the peer when @in, else
 * outbound to it). A rule on an interface or on the sender (uid, gid,
 * program, cgroup) may or may not match: it is taken as not matching, so that it never vouches for a session.
 */
static bool afwctl_rule_matches(const struct afw_rule_spec *r, const struct afwctl_ssh *s,
				bool in)
{
	unsigned int dir = in ? AFW_DIR_IN : AFW_DIR_OUT;
	const uint8_t *src = in ? s->peer : s->local, *dst = in ? s->local : s->peer;
	uint16_t sport = in ? s->pport : s->lport, dport = in ? s->lport : s->pport;

	if (r->has & (AFW_R_IIF | AFW_R_OIF | AFW_R_UID | AFW_R_GID | AFW_R_EXE | AFW_R_CGROUP))
		return false;
	if ((r->family && r->family != s->family) || (r->dirs && !(r->dirs & (1u << dir))) ||
	    (r->proto && r->proto != IPPROTO_TCP))
		return false;
	if ((r->has & AFW_R_SRC) && !afwctl_prefix_has(r->src, r->src_len, src))
		return false;
	if ((r->has & AFW_R_DST) && !afwctl_prefix_has(r->dst, r->dst_len, dst))
		return false;
	if ((r->has & AFW_R_SPORT) && (sport < r->sport_lo || sport > r->sport_hi))
		return false;
	if ((r->has & AFW_R_DPORT) && (dport < r->dport_lo || dport > r->dport_hi))
		return false;
	return true;
}

/* A file's rules, as the kernel would list them but for the ids to come. */
static int afwctl_rules_decode(const struct afw_rule_list *l, uint32_t auto_id,
			       struct afwctl_rules *rules)
{
	const struct nlattr *a;
	size_t i = 0;

	rules->auto_id = auto_id;
	rules->v = calloc(l->n ? l->n : 1, sizeof(*rules->v));
	if (!rules->v)
		return -ENOMEM;
	for (a = afw_rule_list_next(l, NULL); a; a = afw_rule_list_next(l, a))
		if (afw_rule_parse_nest(a, &rules->v[i++]) != MNL_CB_OK)
			return -EBADMSG;
	rules->n = i;
	return 0;
}

/*
 * What a packet of @s gets: the words of the rule the kernel would take
 * first (the lowest prio, then id, of those that match), or the unknown
 * policy's. @by_rule says that an accept rule took it (and so installs the
 * session's flow).
 */
static const char *afwctl_ssh_judge(const struct afwctl_rules *rules, const struct afw_config *c,
				    const struct afwctl_ssh *s, bool in, bool *safe, bool *by_rule)
{
	const struct afw_rule_spec *best = NULL;
	uint32_t next = rules->auto_id, id, best_id = 0;
	size_t i;

	for (i = 0; i < rules->n; i++) {
		id = rules->v[i].id ? rules->v[i].id : ++next;
		if (!afwctl_rule_matches(&rules->v[i], s, in))
			continue;
		if (!best || rules->v[i].prio < best->prio ||
		    (rules->v[i].prio == best->prio && id < best_id)) {
			best = &rules->v[i];
			best_id = id;
		}
	}
	*by_rule = false;
	if (best) {
		*safe = *by_rule = best->action == AFW_ACTION_ACCEPT;
		switch (best->action) {
		case AFW_ACTION_ACCEPT:
			return "accepted by a rule";
		case AFW_ACTION_QUEUE:
			return "queued to afwd by a rule, which may deny a flow it joins mid-stream";
		default:
			return "dropped by a rule";
		}
	}
	*safe = c->unknown == AFW_UNKNOWN_ACCEPT;
	switch (c->unknown) {
	case AFW_UNKNOWN_ACCEPT:
		return "accepted (unknown accept)";
	case AFW_UNKNOWN_QUEUE:
		return c->fail_open ? "queued to afwd (unknown queue), which may deny a flow it "
				      "joins mid-stream" :
				      "queued to afwd (unknown queue, fail closed): dropped while "
				      "afwd is not running, and afwd may deny a flow it joins "
				      "mid-stream";
	default:
		return "dropped (unknown drop)";
	}
}

/* The sessions an accept flow carries already, whoever installed it. */
struct afwctl_ssh_flows {
	const struct afwctl_ssh *s;
	size_t n;
	bool *flowing;
};

static bool afwctl_ssh_is(const struct afwctl_ssh *s, const uint8_t *a, uint16_t ap,
			  const uint8_t *b, uint16_t bp)
{
	size_t alen = s->family == AFW_FAMILY_IPV6 ? 16 : 4;

	return !memcmp(a, s->peer, alen) && ap == s->pport && !memcmp(b, s->local, alen) &&
	       bp == s->lport;
}

static int afwctl_ssh_flow(const struct afw_flow_spec *f, void *data)
{
	struct afwctl_ssh_flows *sf = data;
	size_t i;

	if (f->proto != IPPROTO_TCP || f->verdict != AFW_VERDICT_ACCEPT)
		return 0;
	for (i = 0; i < sf->n; i++)
		if (f->family == sf->s[i].family &&
		    (afwctl_ssh_is(&sf->s[i], f->src, f->sport, f->dst, f->dport) ||
		     afwctl_ssh_is(&sf->s[i], f->dst, f->dport, f->src, f->sport)))
			sf->flowing[i] = true;
	return 0;
}

/* Asks on the terminal; false for anything but y or yes. */
static bool afwctl_ask(void)
{
	char answer[16];

	fprintf(stderr, "Proceed? [y/N] ");
	fflush(stderr);
	if (!fgets(answer, sizeof(answer), stdin))
		return false;
	answer[strcspn(answer, "\n")] = '\0';
	return !strcasecmp(answer, "y") || !strcasecmp(answer, "yes");
}

/* How to go ahead anyway, after "nothing changed", for each guarded command. */
static const char *afwctl_guard_override(const char *cmd)
{
	if (!strcmp(cmd, "config set"))
		return "'afwctl config set --yes KEY VALUE...' sets it anyway";
	if (!strcmp(cmd, "load"))
		return "'afwctl load --yes FILE' loads it anyway";
	return "'afwctl enable --yes' enables anyway";
}

int afwctl_ssh_guard(struct afw_nl *nl, struct afwctl_req *rq, const struct afw_config *c,
		     const struct afwctl_rules *given, const char *cmd)
{
	struct afwctl_rules fetched = { 0 };
	const struct afwctl_rules *rules = given ? given : &fetched;
	struct afwctl_ssh s[32];
	bool flowing[32] = { false };
	struct afwctl_ssh_flows sf = { .s = s, .flowing = flowing };
	char peer[INET6_ADDRSTRLEN];
	const char *in, *out, *what;
	bool in_ok, out_ok, in_rule, out_rule;
	size_t n, i, risky = 0;
	int ret;

	n = afwctl_ssh_sessions(s, sizeof(s) / sizeof(s[0]));
	if (!n)
		return 0;
	sf.n = n;
	ret = 0;
	if (!given) {
		ret = afwctl_rules_fetch(nl, &fetched);
	} else if (given->list) {
		ret = afwctl_rules_decode(given->list, given->auto_id, &fetched);
		rules = &fetched;
	}
	/* A listing the table changed under still shows the flows that stay. */
	if (!ret) {
		ret = afw_flow_dump(nl, afwctl_ssh_flow, &sf);
		if (ret == -EINTR)
			ret = 0;
	}
	if (ret) {
		free(fetched.v);
		return afwctl_fail(cmd, ret, nl);
	}
	for (i = 0; i < n; i++) {
		if (flowing[i])
			continue;
		in = afwctl_ssh_judge(rules, c, &s[i], true, &in_ok, &in_rule);
		out = afwctl_ssh_judge(rules, c, &s[i], false, &out_ok, &out_rule);
		/* An accept rule's flow takes the other way, whatever it meets. */
		if ((in_ok && out_ok) || in_rule || out_rule)
			continue;
		risky++;
		inet_ntop(s[i].family == AFW_FAMILY_IPV6 ? AF_INET6 : AF_INET, s[i].peer, peer,
			  sizeof(peer));
		fprintf(stderr, "afwctl: warning: the SSH session from %s port %u to port %u would "
			"be cut: its packets in would be %s; out, %s\n", peer, s[i].pport,
			s[i].lport, in, out);
	}
	free(fetched.v);
	if (!risky)
		return 0;
	fprintf(stderr, "afwctl: a rule such as 'dir in proto tcp dport %u accept' keeps it "
		"(the flow it installs lets the replies out)\n", s[0].lport);
	if (rq->yes)
		return 0;
	what = !strcmp(cmd, "enable") ? "not enabled" : "nothing changed";
	if (!isatty(STDIN_FILENO)) {
		fprintf(stderr, "afwctl: %s: %s; %s\n", cmd, what, afwctl_guard_override(cmd));
		return 1;
	}
	if (afwctl_ask())
		return 0;
	fprintf(stderr, "afwctl: %s: %s\n", cmd, what);
	return 1;
}

int afwctl_settings_guard(struct afw_nl *nl, struct afwctl_req *rq, const struct afw_config *set,
			  unsigned int has, const struct afwctl_rules *rules, const char *cmd)
{
	struct afw_config c;
	int ret;

	ret = afw_config_get(nl, &c);
	if (ret)
		return afwctl_fail(cmd, ret, nl);
	if (has & AFW_CFG_HAS_UNKNOWN)
		c.unknown = set->unknown;
	if (has & AFW_CFG_HAS_FAIL)
		c.fail_open = set->fail_open;
	if (has & AFW_CFG_HAS_ENABLED)
		c.enabled = set->enabled;
	/* New rules may cut a session whatever the unknown policy. */
	if (!c.enabled || (!rules && c.unknown == AFW_UNKNOWN_ACCEPT))
		return 0;
	return afwctl_ssh_guard(nl, rq, &c, rules, cmd);
}

int afwctl_enable_run(struct afw_nl *nl, struct afwctl_req *rq)
{
	struct afw_config c = { .enabled = 1 };
	int ret;

	ret = afw_config_get(nl, &c);
	if (ret)
		return afwctl_fail("enable", ret, nl);
	if (c.enabled) {
		if (!rq->json)
			printf("afw is already enabled\n");
		return 0;
	}
	c.enabled = 1;
	ret = afwctl_ssh_guard(nl, rq, &c, NULL, "enable");
	if (ret)
		return ret;
	ret = afw_config_set(nl, &c, AFW_CFG_HAS_ENABLED);
	if (ret)
		return afwctl_fail("enable", ret, nl);
	if (!rq->json)
		printf("afw is enabled: rules, flows and settings are in force again\n");
	return 0;
}

int afwctl_disable_run(struct afw_nl *nl, struct afwctl_req *rq)
{
	struct afw_config c = { .enabled = 0 };
	int ret;

	ret = afw_config_set(nl, &c, AFW_CFG_HAS_ENABLED);
	if (ret)
		return afwctl_fail("disable", ret, nl);
	if (!rq->json)
		printf("afw is disabled: every packet passes, uncounted; rules, flows and "
		       "settings stay ('afwctl enable' turns it back on)\n");
	return 0;
}
