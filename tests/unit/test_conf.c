// SPDX-License-Identifier: GPL-2.0
/*
 * The configuration file (settings and rules), flows in words and settings
 * in words: what parses, and that every error names its line, column and word.
 */

#include <stdlib.h>
#include <string.h>

#include <linux/afw.h>

#include "afwnl.h"
#include "check.h"
#include "conf.h"

static int read_bytes(const char *text, size_t n, struct afw_conf *c, char *msg, size_t len)
{
	FILE *f = fmemopen((void *)text, n, "r");
	int ret;

	ret = afw_conf_read(f, "t.conf", c, msg, len);
	fclose(f);
	return ret;
}

static int read_text(const char *text, struct afw_conf *c, char *msg, size_t len)
{
	return read_bytes(text, strlen(text), c, msg, len);
}

static bool conf_error(const char *text, const char *needle)
{
	struct afw_conf c;
	char msg[512] = "";
	bool ok;

	ok = read_text(text, &c, msg, sizeof(msg)) == -1 && strstr(msg, needle);
	if (!ok)
		printf("# got: %s\n", msg);
	return ok && c.rules.n == 0 && c.rules.nlh == NULL;
}

static int flow_parse(const char *text, struct afw_flow_spec *f, char *msg, size_t len)
{
	char buf[256], *words[32], *save, *tok;
	struct afw_perr e;
	int n = 0, ret;

	snprintf(buf, sizeof(buf), "%s", text);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		words[n++] = tok;
	ret = afw_flow_parse_words(n, words, f, 1, &e);
	snprintf(msg, len, "%s", ret ? e.msg : "");
	return ret;
}

static int config_parse(const char *text, struct afw_config *c, unsigned int *has, char *msg,
			size_t len)
{
	char buf[256], *words[32], *save, *tok;
	struct afw_perr e;
	int n = 0, ret;

	snprintf(buf, sizeof(buf), "%s", text);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		words[n++] = tok;
	*has = 0;
	ret = afw_config_parse_words(n, words, c, has, &e);
	snprintf(msg, len, "%s", ret ? e.msg : "");
	return ret;
}

/* Joins the lines afw_config_format() gives, each ended by '|'. */
static void config_line(const char *text, void *data)
{
	char *lines = data;

	strncat(lines, text, 511 - strlen(lines));
	strncat(lines, "|", 511 - strlen(lines));
}

/* The @i-th rule of @c, decoded from the attributes it is kept in. */
static struct afw_rule_spec rule_at(const struct afw_conf *c, size_t i)
{
	const struct nlattr *a = afw_rule_list_next(&c->rules, NULL);
	struct afw_rule_spec r = { .action = 0xff };

	while (a && i--)
		a = afw_rule_list_next(&c->rules, a);
	if (a && afw_rule_parse_nest(a, &r) != MNL_CB_OK)
		r.action = 0xfe;
	return r;
}

/* Each rule of @text, kept and decoded, is the rule afw_rule_parse_line() reads. */
static bool kept_as_parsed(const char *text)
{
	char copy[4096], *line, *save = NULL;
	struct afw_rule_spec want, got;
	struct afw_conf c;
	struct afw_perr e;
	char msg[512];
	size_t i = 0;
	bool empty, ok;

	if (read_text(text, &c, msg, sizeof(msg))) {
		printf("# %s\n", msg);
		return false;
	}
	snprintf(copy, sizeof(copy), "%s", text);
	ok = true;
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (afw_rule_parse_line(line, &want, &empty, &e) || empty)
			continue;
		got = rule_at(&c, i++);
		if (memcmp(&want, &got, sizeof(want))) {
			printf("# rule %zu differs once kept\n", i);
			ok = false;
		}
	}
	ok = ok && i == c.rules.n && !rule_at(&c, i).dirs;
	afw_conf_free(&c);
	return ok;
}

/*
 * The rules of @text as a replace sends them to a module of family
 * @version: in one AFW_RULE_A_MATCH each from version 2, an attribute a
 * field before it; decoded, either is the rule afw_rule_parse_line() reads.
 */
static bool sent_as(const char *text, uint32_t version)
{
	struct nlmsghdr *nlh = calloc(1, AFW_NL_BUFSIZE);
	char copy[4096], *line, *save = NULL, msg[512];
	const struct nlattr *a, *left, *in;
	size_t sent = 0, matches = 0;
	struct afw_rule_spec want, got;
	struct afw_conf c;
	struct afw_perr e;
	bool ok, empty;

	if (!nlh || read_text(text, &c, msg, sizeof(msg))) {
		free(nlh);
		return false;
	}
	mnl_nlmsg_put_header(nlh);
	left = afw_rule_list_next(&c.rules, NULL);
	ok = afw_rule_list_fill(nlh, &c.rules, &left, version) == 0 && !left;
	a = mnl_nlmsg_get_payload(nlh);
	snprintf(copy, sizeof(copy), "%s", text);
	for (line = strtok_r(copy, "\n", &save); ok && line; line = strtok_r(NULL, "\n", &save)) {
		if (afw_rule_parse_line(line, &want, &empty, &e) || empty)
			continue;
		if (!mnl_attr_ok(a, (int)((char *)mnl_nlmsg_get_payload_tail(nlh) - (char *)a)) ||
		    afw_rule_parse_nest(a, &got) != MNL_CB_OK || memcmp(&want, &got, sizeof(want))) {
			printf("# rule %zu differs as sent to version %u\n", sent + 1, version);
			ok = false;
			break;
		}
		mnl_attr_for_each_nested(in, a)
			matches += mnl_attr_get_type(in) == AFW_RULE_A_MATCH;
		a = mnl_attr_next(a);
		sent++;
	}
	ok = ok && sent == c.rules.n && (void *)a == mnl_nlmsg_get_payload_tail(nlh) &&
	     matches == (version >= 2 ? c.rules.n : 0);
	afw_conf_free(&c);
	free(nlh);
	return ok;
}

/*
 * @head (a comment line of @pad bytes, newline included, then rules) read
 * whole across the reader's first chunk, which is a megabyte less a byte:
 * @rules rules, the last "accept", or an error naming @err.
 */
static bool across_chunk(size_t pad, const char *tail, size_t rules, const char *err)
{
	size_t tlen = strlen(tail) + 1, n = pad + tlen - 1;
	char *t = malloc(n + 1), msg[512] = "";
	struct afw_conf c;
	bool ok;

	if (!t)
		return false;
	t[0] = '#';
	memset(t + 1, 'x', pad - 2);
	t[pad - 1] = '\n';
	memcpy(t + pad, tail, tlen);
	/* A NUL in @tail is written as '@'. */
	for (size_t i = pad; i < n; i++)
		if (t[i] == '@')
			t[i] = '\0';
	if (err) {
		ok = read_bytes(t, n, &c, msg, sizeof(msg)) == -1 && strstr(msg, err);
		if (!ok)
			printf("# got: %s\n", msg);
	} else {
		ok = read_bytes(t, n, &c, msg, sizeof(msg)) == 0 && c.rules.n == rules &&
		     rule_at(&c, rules - 1).action == AFW_ACTION_ACCEPT;
		afw_conf_free(&c);
	}
	free(t);
	return ok;
}

/*
 * A file of some megabytes, which the reader takes a megabyte at a time:
 * 30,000 rules, a comment line longer than a chunk, 100 rules more, the
 * last without its newline, and @bad (if set) as line @bad_line. Every
 * rule is read, in order, and an error names its line across the chunks.
 */
static bool chunked(const char *bad, size_t bad_line, char *msg, size_t len)
{
	size_t cap = 6 << 20, off = 0, line = 0, i, rules = 0;
	char *t = malloc(cap);
	struct afw_conf c;
	bool ok;
	int ret;

	if (!t)
		return false;
	for (i = 0; i < 30100; i++) {
		if (i == 30000) {
			off += (size_t)snprintf(t + off, cap - off, "# ");
			memset(t + off, 'x', 1536 << 10);
			off += 1536 << 10;
			t[off++] = '\n';
			line++;
		}
		if (bad && line + 1 == bad_line) {
			off += (size_t)snprintf(t + off, cap - off, "%s\n", bad);
			line++;
		}
		line++;
		off += (size_t)snprintf(t + off, cap - off,
					"prio %zu family ipv4 dir forward proto udp from 198.18.%zu.%zu/32 "
					"dport %zu drop%s", i, i / 256 % 256, i % 256, 1000 + i,
					i + 1 < 30100 ? "\r\n" : "");
		rules++;
	}
	ret = read_bytes(t, off, &c, msg, len);
	free(t);
	if (bad)
		return ret == -1;
	ok = ret == 0 && c.rules.n == rules && rule_at(&c, 0).prio == 0 &&
	     rule_at(&c, 29999).prio == 29999 && rule_at(&c, 30000).dport_lo == 31000 &&
	     rule_at(&c, rules - 1).prio == rules - 1 && rule_at(&c, rules - 1).action == AFW_ACTION_DROP;
	afw_conf_free(&c);
	return ok;
}

int main(void)
{
	static const char forms[] =
		"drop\n"
		"proto tcp dport 22 accept\n"
		"id 7 prio 4294967295 family ipv6 dir in,forward proto udp "
		"from 2001:db8::/32 to 2001:db8:1::1 sport 1-65535 dport 53 iif eth0 "
		"oif wg0 uid 1000 gid 100 reject comment \"a # comment\"\n"
		"family ipv4 proto tcp from 10.0.0.0/8 to 192.0.2.1/32 sport 0 dport 1000-1000 queue\n"
		"proto sctp dport 0-0 drop\n"
		"family ipv6 to ::/0 dir out accept\n";
	char lines[512];
	struct afw_flow_spec f;
	struct afw_config cfg;
	struct afw_conf c;
	unsigned int has;
	char msg[512];
	int failed = 0;

	CHECK(failed, "a file with settings and rules reads",
	      read_text("# afw\nset unknown queue\nset queue 0-3 fail open\n\n"
			"id 10 prio 10 dir in proto tcp dport ssh accept # ssh\n"
			"  prio 20 proto udp deny\n", &c, msg, sizeof(msg)) == 0 &&
	      c.rules.n == 2 && c.has == (AFW_CFG_HAS_UNKNOWN | AFW_CFG_HAS_QUEUE | AFW_CFG_HAS_FAIL) &&
	      c.cfg.unknown == AFW_UNKNOWN_QUEUE && c.cfg.queue_num == 0 && c.cfg.queue_count == 4 &&
	      c.cfg.fail_open && rule_at(&c, 0).id == 10 && rule_at(&c, 0).dport_lo == 22 &&
	      rule_at(&c, 1).action == AFW_ACTION_DROP && c.max_id == 10);
	afw_conf_free(&c);
	CHECK(failed, "rules are kept as they parse: defaults left out, every field set",
	      kept_as_parsed(forms));
	CHECK(failed, "a file of megabytes reads whole: lines across chunks, one longer than a "
	      "chunk, the last without a newline", chunked(NULL, 0, msg, sizeof(msg)));
	CHECK(failed, "an error past the first megabyte names its line",
	      chunked("proto udp dport 99999 drop", 29000, msg, sizeof(msg)) &&
	      strstr(msg, "t.conf:29000:17: 'dport 99999'"));
	CHECK(failed, "a newline as the first chunk's last byte",
	      across_chunk((1 << 20) - 1, "drop\naccept", 2, NULL));
	CHECK(failed, "a newline as the second chunk's first byte",
	      across_chunk(1 << 20, "drop\naccept", 2, NULL));
	CHECK(failed, "a rule split between the chunks",
	      across_chunk((1 << 20) - 3, "proto tcp dport 22 accept\n", 1, NULL));
	CHECK(failed, "a NUL byte past the first chunk names its line",
	      across_chunk((1 << 20) + 7, "drop\ndr@op\n", 0, "t.conf:3: a NUL byte"));
	CHECK(failed, "an error after the line longer than a chunk names its line",
	      chunked("accept drop", 30050, msg, sizeof(msg)) && strstr(msg, "t.conf:30050:"));
	CHECK(failed, "a replace sends a version 2 module each rule's matches in one MATCH",
	      sent_as(forms, 2));
	CHECK(failed, "and an older module an attribute a field, the same rules",
	      sent_as(forms, 1));
	CHECK(failed, "the highest id given is known; none given is 0",
	      read_text("id 5 drop\nid 900 drop\nid 3 drop\ndrop\n", &c, msg, sizeof(msg)) == 0 &&
	      c.max_id == 900 && c.rules.n == 4 && rule_at(&c, 3).id == 0);
	afw_conf_free(&c);
	CHECK(failed, "no id given: max_id 0",
	      read_text("drop\n", &c, msg, sizeof(msg)) == 0 && c.max_id == 0);
	afw_conf_free(&c);
	CHECK(failed, "a rules-only file sets nothing",
	      read_text("drop\n", &c, msg, sizeof(msg)) == 0 && c.rules.n == 1 && c.has == 0);
	afw_conf_free(&c);
	CHECK(failed, "an empty file is an empty ruleset",
	      read_text("", &c, msg, sizeof(msg)) == 0 && c.rules.n == 0);
	afw_conf_free(&c);

	CHECK(failed, "a bad rule: FILE:LINE:COL and the word",
	      conf_error("accept\n\nproto tcp dport 22 from 192.0.2.1/24 drop\n",
			 "t.conf:3:25: 'from 192.0.2.1/24': address has bits set beyond"));
	CHECK(failed, "an unknown word with a hint, column counted from the line start",
	      conf_error("drop\n   porto tcp drop\n", "t.conf:2:4: 'porto': unknown word; did you mean 'proto'?"));
	CHECK(failed, "a repeated keyword on a line",
	      conf_error("proto tcp sport 22 dport 22 sport 23 drop\n",
			 "t.conf:1:29: 'sport': given twice in one rule"));
	CHECK(failed, "a missing action names the line",
	      conf_error("proto tcp\n", "t.conf:1: no action"));
	CHECK(failed, "an unknown setting lists the valid ones",
	      conf_error("set unkown drop\n", "t.conf:1:5: 'unkown': unknown setting; did you mean "
			 "'unknown'?; the settings are unknown, queue, fail, max_flows, "
			 "tcp_timeout, udp_timeout, flow_timeout, enabled and owners"));
	CHECK(failed, "a bad setting value points at the value",
	      conf_error("set queue 5-2\n", "t.conf:1:11: 'queue 5-2'"));
	CHECK(failed, "a setting given on two lines",
	      conf_error("set fail open\ndrop\nset fail closed\n", "t.conf:3:5: 'fail': set twice"));
	CHECK(failed, "a bare set", conf_error("set\n", "t.conf:1:1: 'set': missing KEY VALUE"));
	CHECK(failed, "a setting without value", conf_error("set max_flows\n", "'max_flows': missing its value"));
	CHECK(failed, "an id given twice names both lines",
	      conf_error("id 5 drop\nid 6 drop\n  id 5 accept\n", "t.conf:3:6: 'id 5': given on line 1 already"));
	CHECK(failed, "a NUL byte names its line",
	      read_bytes("drop\n\0drop\n", 11, &c, msg, sizeof(msg)) == -1 &&
	      strstr(msg, "t.conf:2: a NUL byte"));

	CHECK(failed, "a flow parses", flow_parse("proto tcp from 192.0.2.1 to 192.0.2.2 sport 1000 "
						  "dport https accept timeout 60", &f, msg, sizeof(msg)) == 0 &&
	      f.dport == 443 && f.sport == 1000 && f.timeout == 60 && f.verdict == AFW_VERDICT_ACCEPT);
	CHECK(failed, "a flow may say allow", flow_parse("proto udp from ::1 to ::2 sport 1 dport 2 allow",
							 &f, msg, sizeof(msg)) == 0 &&
	      f.verdict == AFW_VERDICT_ACCEPT);
	CHECK(failed, "and deny", flow_parse("proto icmp from ::1 to ::2 deny", &f, msg, sizeof(msg)) == 0 &&
	      f.verdict == AFW_VERDICT_DROP);
	CHECK(failed, "a repeated flow keyword is refused",
	      flow_parse("proto tcp from 192.0.2.1 to 192.0.2.2 from 192.0.2.3 sport 1 dport 2 accept",
			 &f, msg, sizeof(msg)) == -1 && strstr(msg, "'from': given twice"));
	CHECK(failed, "two verdicts on a flow are refused",
	      flow_parse("proto icmp from ::1 to ::2 accept drop", &f, msg, sizeof(msg)) == -1 &&
	      strstr(msg, "one verdict"));
	CHECK(failed, "a flow typo gets a hint",
	      flow_parse("proto icmp from ::1 too ::2 accept", &f, msg, sizeof(msg)) == -1 &&
	      strstr(msg, "did you mean 'to'?"));

	CHECK(failed, "settings in words", config_parse("unknown deny max_flows 10 flow_timeout 5",
							 &cfg, &has, msg, sizeof(msg)) == 0 &&
	      cfg.unknown == AFW_UNKNOWN_DROP && cfg.max_flows == 10 && cfg.flow_timeout == 5 &&
	      has == (AFW_CFG_HAS_UNKNOWN | AFW_CFG_HAS_MAX_FLOWS | AFW_CFG_HAS_FLOW_TIMEOUT));
	CHECK(failed, "a timeout for TCP and one for UDP, apart from the others'",
	      config_parse("udp_timeout 30 tcp_timeout 7200", &cfg, &has, msg, sizeof(msg)) == 0 &&
	      cfg.tcp_timeout == 7200 && cfg.udp_timeout == 30 &&
	      has == (AFW_CFG_HAS_TCP_TIMEOUT | AFW_CFG_HAS_UDP_TIMEOUT));
	CHECK(failed, "a protocol's timeout is 1-86400 seconds, named by its key",
	      config_parse("tcp_timeout 86401", &cfg, &has, msg, sizeof(msg)) == -1 &&
	      strstr(msg, "'tcp_timeout 86401': seconds, 1-86400") &&
	      config_parse("udp_timeout 0", &cfg, &has, msg, sizeof(msg)) == -1 &&
	      strstr(msg, "'udp_timeout 0': seconds, 1-86400"));
	CHECK(failed, "a misspelt protocol timeout gets a hint",
	      config_parse("tcp_timout 5", &cfg, &has, msg, sizeof(msg)) == -1 &&
	      strstr(msg, "did you mean 'tcp_timeout'?"));
	memset(&cfg, 0, sizeof(cfg));
	cfg.max_flows = 65536;
	cfg.tcp_timeout = 86400;
	cfg.udp_timeout = 120;
	cfg.flow_timeout = 300;
	cfg.enabled = 1;
	cfg.owners = 1;
	lines[0] = '\0';
	afw_config_format(&cfg, AFW_CFG_HAS_ALL, "set ", config_line, lines);
	CHECK(failed, "settings as text: every key, the timeouts TCP, UDP, then the others'",
	      !strcmp(lines, "set unknown accept|set queue 0|set fail closed|set max_flows 65536|"
		      "set tcp_timeout 86400|set udp_timeout 120|set flow_timeout 300|"
		      "set enabled yes|set owners yes|"));
	CHECK(failed, "owners is yes or no",
	      config_parse("owners no", &cfg, &has, msg, sizeof(msg)) == 0 && !cfg.owners &&
	      has == AFW_CFG_HAS_OWNERS &&
	      config_parse("owners off", &cfg, &has, msg, sizeof(msg)) == -1 &&
	      strstr(msg, "'owners off': yes or no"));
	CHECK(failed, "a file's timeouts read back",
	      read_text("set tcp_timeout 600 udp_timeout 60\nset flow_timeout 30\n", &c, msg,
			sizeof(msg)) == 0 && c.cfg.tcp_timeout == 600 && c.cfg.udp_timeout == 60 &&
	      c.cfg.flow_timeout == 30 && c.has == (AFW_CFG_HAS_TCP_TIMEOUT |
						    AFW_CFG_HAS_UDP_TIMEOUT |
						    AFW_CFG_HAS_FLOW_TIMEOUT));
	afw_conf_free(&c);
	CHECK(failed, "unknown allow is accept",
	      config_parse("unknown allow", &cfg, &has, msg, sizeof(msg)) == 0 &&
	      cfg.unknown == AFW_UNKNOWN_ACCEPT);
	CHECK(failed, "a setting twice in one command is refused",
	      config_parse("queue 1 queue 2", &cfg, &has, msg, sizeof(msg)) == -1 &&
	      strstr(msg, "'queue': set twice"));
	CHECK(failed, "an unknown key lists the valid keys",
	      config_parse("max_flow 5", &cfg, &has, msg, sizeof(msg)) == -1 &&
	      strstr(msg, "did you mean 'max_flows'?") && strstr(msg, "flow_timeout"));
	return failed;
}
