// SPDX-License-Identifier: GPL-2.0
/*
 * The afwd policy: what parses, what every error names, what each rule
 * field matches, and that the indexed matcher picks the same rule as a
 * plain first-match scan over random policies and flows.
 */

#include <arpa/inet.h>
#include <net/if.h>
#include <stdio.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "hostname.h"
#include "policy.h"

#define FIXTURES "tests/fixtures/policy/"

static struct afw_policy *parse(const char *text, struct afw_policy_error *err)
{
	return afw_policy_parse(text, strlen(text), "p.conf", err);
}

/*
 * @text must fail with an error on @line naming @token (NULL: too long to
 * spell out here) at @column (0: not checked) with @reason in the message.
 */
static bool fails(const char *text, unsigned int line, unsigned int column, const char *token,
		  const char *reason)
{
	struct afw_policy_error err;
	struct afw_policy *p = parse(text, &err);
	char want[128];
	bool ok;

	if (p) {
		afw_policy_free(p);
		printf("# parsed, but should not have: %s\n", text);
		return false;
	}
	if (line)
		snprintf(want, sizeof(want), "p.conf:%u:", line);
	else
		snprintf(want, sizeof(want), "p.conf: ");
	ok = err.line == line && (!column || err.column == column) &&
	     (!token || !strcmp(err.token, token)) && strstr(err.msg, reason) &&
	     !strncmp(err.msg, want, strlen(want));
	if (!ok)
		printf("# line %u column %u token '%s': %s\n", err.line, err.column, err.token,
		       err.msg);
	return ok;
}

static struct afw_facts tls_flow(const char *host)
{
	struct afw_facts f = { .l7 = AFW_L7_TLS, .family = AF_INET, .dport = 443,
			       .l4proto = IPPROTO_TCP };

	if (host)
		f.host = (struct afw_text){ host, strlen(host) };
	inet_pton(AF_INET, "203.0.113.5", f.daddr);
	return f;
}

/* @ids, comma-separated, as the ALPN wire list of facts.h, in @buf. */
static struct afw_text alpn_list(char *buf, size_t cap, const char *ids)
{
	size_t n = 0, l;
	const char *c;

	while (*ids) {
		c = strchr(ids, ',');
		l = c ? (size_t)(c - ids) : strlen(ids);
		if (n + 1 + l > cap)
			break;
		buf[n++] = (char)l;
		memcpy(buf + n, ids, l);
		n += l;
		ids += l + (c != NULL);
	}
	return (struct afw_text){ buf, n };
}

/* The line of the rule that decides @f, or of the default. */
static unsigned int line_of(const struct afw_policy *p, const struct afw_facts *f)
{
	struct afw_policy_match m;

	afw_policy_match(p, f, &m);
	return m.line;
}

static void test_parse(int *failed)
{
	struct afw_policy_error err;
	struct afw_policy *p;
	char *big;
	size_t i;

	p = afw_policy_load(FIXTURES "good.conf", &err);
	CHECK(*failed, "the documented example loads", p && afw_policy_rules(p) == 5);
	afw_policy_free(p);
	p = afw_policy_load(FIXTURES "bad.conf", &err);
	CHECK(*failed, "a bad file names its line, column and word",
	      !p && err.line == 4 && err.column == 14 && !strcmp(err.token, "exa$mple.com") &&
	      !strcmp(err.msg, FIXTURES "bad.conf:4:14: 'exa$mple.com': only letters, digits, "
		      "'-', '_' and '.' may appear in a host name"));
	p = afw_policy_load(FIXTURES "no-such-file.conf", &err);
	CHECK(*failed, "a missing file says so",
	      !p && err.line == 0 && strstr(err.msg, "no-such-file.conf: No such file"));
	p = afw_policy_load(FIXTURES, &err);
	CHECK(*failed, "a directory is refused", !p && strstr(err.msg, "Is a directory"));

	p = parse("  # only a comment\n\ndefault inspect # trailing comment\r\n", &err);
	CHECK(*failed, "a default alone is a policy", p && afw_policy_rules(p) == 0);
	afw_policy_free(p);
	p = parse("default allow\nprio 4294967295 l7 tls,quic,http,unknown host a.b,*.c "
		  "alpn h2 ja4 T13D1516H2_8DAAF6152771_E5627EFA2AB1 proto tcp,udp,132 "
		  "dport 0,1-65535 to ::/0,192.0.2.0/24,2001:db8::/32 uid root,65534 deny", &err);
	CHECK(*failed, "every keyword at once parses", p && afw_policy_rules(p) == 1);
	afw_policy_free(p);

	CHECK(*failed, "no default line", fails("prio 1 allow\n", 0, 0, "", "no 'default ACTION'"));
	CHECK(*failed, "default twice names the first",
	      fails("default deny\n\ndefault allow\n", 3, 1, "default", "first on line 1"));
	CHECK(*failed, "default without action", fails("default\n", 1, 1, "default", "missing"));
	CHECK(*failed, "default with a bad action",
	      fails("default permit\n", 1, 9, "permit", "allow, deny, reject, inspect or ask"));
	p = parse("default drop\nprio 1 host a.example accept\n", &err);
	if (p) {
		struct afw_facts fa = tls_flow("a.example"), fb = tls_flow("b.example");
		struct afw_policy_match ma, mb;

		afw_policy_match(p, &fa, &ma);
		afw_policy_match(p, &fb, &mb);
		CHECK(*failed, "the ruleset's accept and drop are allow and deny",
		      ma.verdict == AFW_DECIDE_ALLOW && mb.verdict == AFW_DECIDE_DENY && mb.is_default);
		afw_policy_free(p);
	} else {
		CHECK(*failed, "the ruleset's accept and drop are allow and deny", false);
	}
	CHECK(*failed, "words after the default",
	      fails("default deny now\n", 1, 14, "now", "nothing may follow"));
	CHECK(*failed, "default inside a rule",
	      fails("default deny\nprio 1 default allow\n", 2, 8, "default", "line of its own"));
	CHECK(*failed, "unknown word",
	      fails("default deny\nprio 1 frob 3 allow\n", 2, 8, "frob", "unknown word"));
	CHECK(*failed, "keyword missing its value at the end",
	      fails("default deny\nhost\n", 2, 1, "host", "missing its value"));
	CHECK(*failed, "keyword followed by the action",
	      fails("default deny\nhost allow\n", 2, 6, "allow", "read as the value of 'host'"));
	p = parse("default deny\nhost allow,deny. alpn reject inspect\n", &err);
	CHECK(*failed, "a value may be spelt like an action", p && afw_policy_rules(p) == 1);
	afw_policy_free(p);
	CHECK(*failed, "no action",
	      fails("default deny\n\thost a.com\n", 2, 7, "a.com", "no action"));
	CHECK(*failed, "two actions",
	      fails("default deny\nallow deny\n", 2, 7, "deny", "nothing may follow"));
	CHECK(*failed, "keyword twice",
	      fails("default deny\nhost a.com host b.com allow\n", 2, 12, "host", "given twice"));
	CHECK(*failed, "prio twice",
	      fails("default deny\nprio 1 prio 2 allow\n", 2, 8, "prio", "given twice"));
	CHECK(*failed, "prio not a number",
	      fails("default deny\nprio -1 allow\n", 2, 6, "-1", "priority must be"));
	CHECK(*failed, "prio too large",
	      fails("default deny\nprio 4294967296 allow\n", 2, 6, "4294967296",
		    "priority must be"));
	CHECK(*failed, "empty list item",
	      fails("default deny\nhost a.com,,b.com allow\n", 2, 6, "a.com,,b.com", "empty item"));
	CHECK(*failed, "trailing comma",
	      fails("default deny\nalpn h2, allow\n", 2, 6, "h2,", "empty item"));
	CHECK(*failed, "the bad item of a list is named",
	      fails("default deny\nhost a.com,b..com allow\n", 2, 12, "b..com", "empty label"));
	CHECK(*failed, "host: leading dot",
	      fails("default deny\nhost .a.com allow\n", 2, 6, ".a.com", "empty label"));
	CHECK(*failed, "host: two trailing dots",
	      fails("default deny\nhost a.com.. allow\n", 2, 6, "a.com..", "empty label"));
	CHECK(*failed, "host: a lone dot", fails("default deny\nhost . allow\n", 2, 6, ".",
						 "empty host name"));
	CHECK(*failed, "host: bad byte",
	      fails("default deny\nhost a/b.com allow\n", 2, 6, "a/b.com", "only letters"));
	CHECK(*failed, "host: leading hyphen",
	      fails("default deny\nhost -a.com allow\n", 2, 6, "-a.com", "start with '-'"));
	CHECK(*failed, "host: trailing hyphen",
	      fails("default deny\nhost a-.com allow\n", 2, 6, "a-.com", "end with '-'"));
	CHECK(*failed, "host: wildcard in the middle",
	      fails("default deny\nhost a.*.com allow\n", 2, 6, "a.*.com", "whole first label"));
	CHECK(*failed, "host: a lone star",
	      fails("default deny\nhost * allow\n", 2, 6, "*", "whole first label"));
	CHECK(*failed, "host: star without dot",
	      fails("default deny\nhost *example.com allow\n", 2, 6, "*example.com",
		    "whole first"));
	CHECK(*failed, "host: star on an empty suffix",
	      fails("default deny\nhost *. allow\n", 2, 6, "*.", "empty host name"));

	big = malloc(AFW_POLICY_MAX_FILE + 2);
	if (!big)
		abort();
	strcpy(big, "default deny\nhost ");
	for (i = 0; i < 64; i++)
		strcat(big, "a");
	strcat(big, ".com allow\n");
	CHECK(*failed, "host: label over 63 bytes", fails(big, 2, 6, NULL, "label longer"));
	strcpy(big, "default deny\nhost ");
	for (i = 0; i < 127; i++)
		strcat(big, "ab.");
	strcat(big, " allow\n");
	CHECK(*failed, "host: name over 253 bytes", fails(big, 2, 6, NULL, "longer than 253"));
	strcpy(big, "default deny\nhost ");
	for (i = 0; i < 126; i++)
		strcat(big, "a.");
	strcat(big, "a. allow\n");
	p = parse(big, &err);
	CHECK(*failed, "host: 253 bytes and a trailing dot is fine", p != NULL);
	afw_policy_free(p);

	CHECK(*failed, "l7 unknown value, under its old name app",
	      fails("default deny\napp tls,ssh allow\n", 2, 9, "ssh",
		    "l7 is tls, quic, http, dns or unknown"));
	CHECK(*failed, "l7 and app are one keyword: both in a rule is given twice",
	      fails("default deny\nl7 tls app http allow\n", 2, 8, "app", "given twice"));
	p = parse("default deny\nprio 3 app quic,http allow\n", &err);
	if (p) {
		char *out = NULL;
		size_t outlen = 0;
		FILE *o = open_memstream(&out, &outlen);

		afw_policy_print(p, o);
		fclose(o);
		CHECK(*failed, "app is still read, and printed back as l7",
		      out && strstr(out, "prio 3 l7 quic,http allow\n"));
		free(out);
		afw_policy_free(p);
	} else {
		CHECK(*failed, "app is still read, and printed back as l7", false);
	}
	CHECK(*failed, "alpn with a control byte",
	      fails("default deny\nalpn h2\x01 allow\n", 2, 6, "h2\x01", "printable"));
	CHECK(*failed, "a control byte is spelt out in the message",
	      fails("default deny\nalpn h2\x1b[2J allow\n", 2, 6, "h2\x1b[2J",
		    "'h2\\x1b[2J': ALPN"));
	strcpy(big, "default deny\nalpn ");
	for (i = 0; i < 256; i++)
		strcat(big, "x");
	strcat(big, " allow\n");
	CHECK(*failed, "alpn over 255 bytes", fails(big, 2, 6, NULL, "1-255 bytes"));
	CHECK(*failed, "ja4 too short",
	      fails("default deny\nja4 t13d1516h2_8daaf6152771 deny\n", 2, 5,
		    "t13d1516h2_8daaf6152771", "10, 12 and 12"));
	CHECK(*failed, "ja4 with a non-hex hash",
	      fails("default deny\nja4 t13d1516h2_8daaf615277g_e5627efa2ab1 deny\n", 2, 5,
		    "t13d1516h2_8daaf615277g_e5627efa2ab1", "hexadecimal"));
	CHECK(*failed, "proto 0", fails("default deny\nproto 0 deny\n", 2, 7, "0", "1-255"));
	CHECK(*failed, "proto name", fails("default deny\nproto tcp,gre deny\n", 2, 11, "gre",
					   "not a protocol"));
	CHECK(*failed, "dport above 65535",
	      fails("default deny\ndport 70000 deny\n", 2, 7, "70000", "0-65535"));
	CHECK(*failed, "dport empty range",
	      fails("default deny\ndport 443,90-80 deny\n", 2, 11, "90-80", "range is empty"));
	CHECK(*failed, "dport open range",
	      fails("default deny\ndport 80- deny\n", 2, 7, "80-", "LO-HI"));
	CHECK(*failed, "dport not a number",
	      fails("default deny\ndport https deny\n", 2, 7, "https", "0-65535"));
	CHECK(*failed, "to: host bits beyond the prefix",
	      fails("default deny\nto 10.0.0.1/8 deny\n", 2, 4, "10.0.0.1/8", "beyond the prefix"));
	CHECK(*failed, "to: prefix too long",
	      fails("default deny\nto 10.0.0.0/33 deny\n", 2, 4, "10.0.0.0/33", "0 to 32"));
	CHECK(*failed, "to: IPv6 prefix too long",
	      fails("default deny\nto 2001:db8::/129 deny\n", 2, 4, "2001:db8::/129", "0 to 128"));
	CHECK(*failed, "to: not an address",
	      fails("default deny\nto example.com deny\n", 2, 4, "example.com", "not an IPv4"));
	CHECK(*failed, "uid: unknown user",
	      fails("default deny\nuid 0,no-such-user-afw deny\n", 2, 7, "no-such-user-afw",
		    "no such user"));
	CHECK(*failed, "uid: too large",
	      fails("default deny\nuid 4294967296 deny\n", 2, 5, "4294967296", "0-4294967295"));

	CHECK(*failed, "a NUL byte is refused",
	      !afw_policy_parse("default deny\nal\0low\n", 20, "p.conf", &err) && err.line == 2 &&
	      strstr(err.msg, "p.conf:2: NUL byte at column 3"));
	memset(big, ' ', AFW_POLICY_MAX_LINE + 14);
	memcpy(big, "default deny\n", 13);
	big[AFW_POLICY_MAX_LINE + 14] = '\0';
	CHECK(*failed, "a line over the limit is refused",
	      fails(big, 2, 0, "", "line longer than 4096 bytes"));
	big[AFW_POLICY_MAX_LINE + 13] = '\0';
	p = parse(big, &err);
	CHECK(*failed, "a line at the limit is fine", p != NULL);
	afw_policy_free(p);
	strcpy(big, "default deny\n");
	for (i = 0; i <= AFW_POLICY_MAX_RULES; i++)
		memcpy(big + 13 + i * 6, "allow\n", 7);
	CHECK(*failed, "more rules than the limit are refused",
	      fails(big, AFW_POLICY_MAX_RULES + 2, 0, "", "more than 200000 rules"));
	memset(big, '#', AFW_POLICY_MAX_FILE + 1);
	CHECK(*failed, "a file over the size limit is refused",
	      !afw_policy_parse(big, AFW_POLICY_MAX_FILE + 1, "p.conf", &err) &&
	      !strcmp(err.msg, "p.conf: larger than 16777216 bytes"));
	free(big);
}

static void test_match(int *failed)
{
	struct afw_policy_error err;
	struct afw_policy_match m;
	struct afw_facts f;
	struct afw_policy *p;
	char ab[64];

	p = afw_policy_load(FIXTURES "good.conf", &err);
	if (!p) {
		CHECK(*failed, "good.conf loads", 0);
		return;
	}
	f = tls_flow("www.example.com");
	f.alpn = alpn_list(ab, sizeof(ab), "h3,http/1.1");
	CHECK(*failed, "a wildcard rule with its ALPN allows",
	      afw_policy_match(p, &f, &m) == AFW_DECIDE_ALLOW && m.line == 4 && m.prio == 10 &&
	      !m.is_default);
	f.alpn = alpn_list(ab, sizeof(ab), "h3");
	CHECK(*failed, "the same flow without a listed ALPN gets the default",
	      afw_policy_match(p, &f, &m) == AFW_DECIDE_DENY && m.is_default && m.line == 2);
	f = tls_flow("Ads.Example.NET.");
	CHECK(*failed, "reject by exact name, any case, trailing dot",
	      afw_policy_match(p, &f, &m) == AFW_DECIDE_REJECT && m.line == 5);
	f = tls_flow(NULL);
	f.l7 = AFW_L7_UNKNOWN;
	inet_pton(AF_INET, "10.20.30.40", f.daddr);
	f.has_uid = true;
	f.uid = 1000;
	CHECK(*failed, "l7, port, prefix and uid together inspect",
	      afw_policy_match(p, &f, &m) == AFW_DECIDE_INSPECT && m.line == 7);
	f.uid = 1001;
	CHECK(*failed, "another uid does not", line_of(p, &f) == 2);
	f.uid = 1000;
	f.has_uid = false;
	CHECK(*failed, "an unknown uid does not", line_of(p, &f) == 2);
	f = tls_flow("example.org");
	f.l7 = AFW_L7_HTTP;
	f.dport = 8050;
	CHECK(*failed, "a port range of a list", line_of(p, &f) == 8);
	f.dport = 8100;
	CHECK(*failed, "a port past the range", line_of(p, &f) == 2);
	afw_policy_free(p);

	p = parse("default allow\n"
		  "prio 5 host *.example.com deny\n"
		  "prio 5 host example.com reject\n"
		  "prio 1 host deep.a.example.com inspect\n"
		  "prio 9 deny\n", &err);
	if (!p) {
		CHECK(*failed, "wildcard policy parses", 0);
		return;
	}
	f = tls_flow("a.example.com");
	CHECK(*failed, "*.example.com matches a sub-domain", line_of(p, &f) == 2);
	f = tls_flow("x.y.z.EXAMPLE.com");
	CHECK(*failed, "*.example.com matches a deeper sub-domain", line_of(p, &f) == 2);
	f = tls_flow("example.com");
	CHECK(*failed, "*.example.com does not match example.com itself", line_of(p, &f) == 3);
	f = tls_flow("badexample.com");
	CHECK(*failed, "*.example.com does not match badexample.com", line_of(p, &f) == 5);
	f = tls_flow("deep.a.example.com.");
	CHECK(*failed, "a lower priority wins over file order", line_of(p, &f) == 4);
	f = tls_flow("example.com.evil.net");
	CHECK(*failed, "a name merely containing the suffix does not match", line_of(p, &f) == 5);
	f = tls_flow("a..example.com");
	CHECK(*failed, "an invalid flow name matches no host rule", line_of(p, &f) == 5);
	f = tls_flow("example.com..");
	CHECK(*failed, "two trailing dots are not one", line_of(p, &f) == 5);
	f = tls_flow(NULL);
	CHECK(*failed, "a flow without a name matches no host rule", line_of(p, &f) == 5);
	afw_policy_free(p);

	p = parse("default deny\n"
		  "prio 3 host same.test inspect\n"
		  "prio 3 host same.test allow\n"
		  "prio 3 allow\n"
		  "prio 2 l7 quic proto udp reject\n"
		  "prio 2 alpn H2 deny\n"
		  "prio 2 ja4 t13d1516h2_8daaf6152771_e5627efa2ab1 allow\n"
		  "prio 2 to 2001:db8::/32 inspect\n", &err);
	if (!p) {
		CHECK(*failed, "tie policy parses", 0);
		return;
	}
	f = tls_flow("same.test");
	CHECK(*failed, "equal priority keeps file order", line_of(p, &f) == 2);
	f = tls_flow("other.test");
	CHECK(*failed, "a rule without conditions matches anything", line_of(p, &f) == 4);
	f.l7 = AFW_L7_QUIC;
	f.l4proto = IPPROTO_UDP;
	CHECK(*failed, "l7 and proto", line_of(p, &f) == 5);
	f.l4proto = IPPROTO_TCP;
	CHECK(*failed, "l7 without its proto", line_of(p, &f) == 4);
	f.alpn = alpn_list(ab, sizeof(ab), "h2");
	CHECK(*failed, "ALPN compares case-sensitively", line_of(p, &f) == 4);
	f.alpn = alpn_list(ab, sizeof(ab), "H2");
	CHECK(*failed, "ALPN matches", line_of(p, &f) == 6);
	f = tls_flow("other.test");
	f.ja4 = (struct afw_text){ "T13D1516H2_8DAAF6152771_E5627EFA2AB1", 36 };
	CHECK(*failed, "JA4 compares without case", line_of(p, &f) == 7);
	f.ja4.len = 35;
	CHECK(*failed, "a JA4 prefix does not match", line_of(p, &f) == 4);
	f = tls_flow("other.test");
	f.family = AF_INET6;
	inet_pton(AF_INET6, "2001:db8:ffff::1", f.daddr);
	CHECK(*failed, "an IPv6 prefix matches", line_of(p, &f) == 8);
	inet_pton(AF_INET6, "2001:db9::1", f.daddr);
	CHECK(*failed, "outside the IPv6 prefix", line_of(p, &f) == 4);
	afw_policy_free(p);

	p = parse("default allow\nto 32.0.0.0/3 deny\nto 0.0.0.0/0 dport 22 reject\n", &err);
	f = tls_flow(NULL);
	inet_pton(AF_INET, "63.255.255.255", f.daddr);
	CHECK(*failed, "a prefix ending inside a byte", p && line_of(p, &f) == 2);
	inet_pton(AF_INET, "64.0.0.0", f.daddr);
	CHECK(*failed, "just past that prefix", p && line_of(p, &f) == 1);
	f.family = AF_INET6;
	memset(f.daddr, 0, sizeof(f.daddr));
	f.dport = 22;
	CHECK(*failed, "an IPv4 prefix does not match IPv6", p && line_of(p, &f) == 1);
	f.family = AF_INET;
	f.l4proto = IPPROTO_ICMP;
	CHECK(*failed, "dport does not match a protocol without ports", p && line_of(p, &f) == 1);
	afw_policy_free(p);
}

/* A temporary file holding @text; returns its path in @path. */
static bool write_tmp(char *path, const char *text)
{
	FILE *f;
	int fd;

	strcpy(path, "/tmp/afw-policy-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return false;
	f = fdopen(fd, "w");
	if (!f)
		return false;
	fputs(text, f);
	return !fclose(f);
}

static void test_reload_check(int *failed)
{
	struct afw_policy_error err;
	struct afw_policy *cur = NULL;
	char path[64], out[512], errs[512];
	struct afw_facts f = tls_flow("a.test");
	FILE *o, *e;
	int rc;

	if (!write_tmp(path, "default deny\nhost a.test allow\n")) {
		CHECK(*failed, "a temporary file", 0);
		return;
	}
	CHECK(*failed, "reload into an empty slot", !afw_policy_reload(&cur, path, &err) && cur);
	CHECK(*failed, "the loaded policy decides", cur && line_of(cur, &f) == 2);
	unlink(path);
	write_tmp(path, "default deny\nhost a.test alow\n");
	CHECK(*failed, "a bad file fails to reload",
	      afw_policy_reload(&cur, path, &err) == -1 && err.line == 2 && cur);
	CHECK(*failed, "and the old policy stays", cur && line_of(cur, &f) == 2);

	memset(out, 0, sizeof(out));
	memset(errs, 0, sizeof(errs));
	o = fmemopen(out, sizeof(out), "w");
	e = fmemopen(errs, sizeof(errs), "w");
	rc = afw_policy_check(path, o, e);
	fclose(o);
	fclose(e);
	CHECK(*failed, "--check names the line of a bad file",
	      rc == 1 && !out[0] && strstr(errs, ":2:13: 'alow': unknown word"));
	unlink(path);
	write_tmp(path, "default reject\nhost b.test allow\n");
	CHECK(*failed, "a good file reloads", !afw_policy_reload(&cur, path, &err));
	CHECK(*failed, "and the new policy decides",
	      cur && line_of(cur, &f) == 1 &&
	      afw_policy_match(cur, &f, NULL) == AFW_DECIDE_REJECT);
	afw_policy_free(cur);
	unlink(path);

	write_tmp(path, "");
	CHECK(*failed, "an empty file has no default",
	      !afw_policy_load(path, &err) && strstr(err.msg, "no 'default ACTION'"));
	rc = truncate(path, AFW_POLICY_MAX_FILE + 1);
	CHECK(*failed, "a file over the size limit is not read to its end",
	      !rc && !afw_policy_load(path, &err) && strstr(err.msg, "larger than 16777216 bytes"));
	unlink(path);

	memset(out, 0, sizeof(out));
	memset(errs, 0, sizeof(errs));
	o = fmemopen(out, sizeof(out), "w");
	e = fmemopen(errs, sizeof(errs), "w");
	rc = afw_policy_check(FIXTURES "good.conf", o, e);
	fclose(o);
	fclose(e);
	CHECK(*failed, "--check passes a good file",
	      rc == 0 && !errs[0] && !strcmp(out, FIXTURES "good.conf: 5 rules, default deny\n"));
}

/*
 * The reference: rules as plain data and a first-match scan, written
 * without the library's help.
 */
static const char *const host_pool[] = {
	"example.com", "*.example.com", "a.example.com", "*.a.example.com", "B.Example.ORG.",
	"*.org", "x.y.z.net", "*.z.net", "*.y.z.net", "other.test",
};
static const char *const flow_hosts[] = {
	"example.com", "a.example.com", "A.Example.COM.", "b.a.example.com", "c.b.example.org",
	"b.example.org", "org", "x.y.z.net", "z.net", "w.x.y.z.net", "other.test", "bad..name",
	NULL,
};
static const char *const alpn_pool[] = { "h2", "http/1.1", "h3" };
static const char *const ja4_pool[] = {
	"t13d1516h2_8daaf6152771_e5627efa2ab1", "q13d0310h3_55b375c5d22e_cd85d2d88918",
};
static const struct {
	const char *text;
	int family;
	unsigned int len;
} net_pool[] = {
	{ "10.0.0.0/8", AF_INET, 8 }, { "10.1.0.0/16", AF_INET, 16 },
	{ "192.0.2.0/24", AF_INET, 24 }, { "0.0.0.0/0", AF_INET, 0 },
	{ "2001:db8::/32", AF_INET6, 32 }, { "::/0", AF_INET6, 0 },
};
static const char *const addr_pool[] = {
	"10.1.2.3", "10.2.0.1", "192.0.2.9", "8.8.8.8", "2001:db8::1", "2001:db9::1",
};
static const unsigned int port_pool[] = { 22, 80, 443, 8080, 8443 };
static const char *const l7_names[] = { "unknown", "tls", "quic", "http" };
static const char *const reason_names[] = {
	"", "timeout", "bound", "table-full", "not-tls", "malformed", "evasion", "undecodable",
	"mid-stream",
};
static const char *const name_names[] = { "none", "invalid", "valid" };
/* The ALPN ids of the flow random_facts() made last, as indexes into alpn_pool. */
static unsigned int f_alpn[3], f_alpn_n;

struct ref_rule {
	unsigned int prio, line, verdict, l7s, reasons, names, ech;
	unsigned int n_host, host[3], n_alpn, alpn[2], n_ja4, ja4, n_proto, proto[2];
	unsigned int n_port, lo[2], hi[2], n_net, net[2], n_uid, uid[2];
};

static unsigned int rnd(unsigned int *seed, unsigned int n)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 8) % n;
}

static void lower_nodot(const char *in, char *out)
{
	size_t i, len = strlen(in);

	if (len && in[len - 1] == '.')
		len--;
	for (i = 0; i < len; i++)
		out[i] = (char)(in[i] >= 'A' && in[i] <= 'Z' ? in[i] - 'A' + 'a' : in[i]);
	out[len] = '\0';
}

static bool ref_host(const char *pat, const char *host)
{
	char p[64], h[64];
	size_t hl, pl;

	if (!host || strstr(host, ".."))
		return false;
	lower_nodot(pat, p);
	lower_nodot(host, h);
	if (p[0] != '*')
		return !strcmp(p, h);
	hl = strlen(h);
	pl = strlen(p + 1);
	return hl > pl && !strcmp(h + hl - pl, p + 1);
}

static bool ref_net(unsigned int n, const struct afw_facts *f)
{
	uint8_t a[16] = { 0 };
	unsigned int i;
	char buf[64];

	if (net_pool[n].family != f->family)
		return false;
	snprintf(buf, sizeof(buf), "%s", net_pool[n].text);
	*strchr(buf, '/') = '\0';
	inet_pton(f->family, buf, a);
	for (i = 0; i < net_pool[n].len; i++)
		if ((a[i / 8] ^ f->daddr[i / 8]) & (0x80 >> (i % 8)))
			return false;
	return true;
}

static bool ref_matches(const struct ref_rule *r, const struct afw_facts *f)
{
	unsigned int i, j;
	bool hit;

	char norm[AFW_HOSTNAME_MAX + 1];
	const char *why;
	unsigned int name;

	if (r->l7s && !(r->l7s & (1u << f->l7)))
		return false;
	if (r->reasons && !(r->reasons & (1u << f->reason)))
		return false;
	name = !f->host.ptr ? 1 : afw_hostname_norm(f->host.ptr, f->host.len, norm, &why) < 0 ?
	       2 : 4;
	if (r->names && !(r->names & name))
		return false;
	if (r->ech && (!(f->l7 == AFW_L7_TLS || f->l7 == AFW_L7_QUIC) ||
		       !(r->ech & (f->ech ? 1 : 2))))
		return false;
	for (hit = !r->n_host, i = 0; i < r->n_host; i++)
		hit |= ref_host(host_pool[r->host[i]], f->host.ptr);
	if (!hit)
		return false;
	for (hit = !r->n_alpn, i = 0; i < r->n_alpn; i++)
		for (j = 0; j < f_alpn_n; j++)
			hit |= !strcmp(alpn_pool[r->alpn[i]], alpn_pool[f_alpn[j]]);
	if (!hit)
		return false;
	if (r->n_ja4 && !(f->ja4.ptr && !strcmp(ja4_pool[r->ja4], f->ja4.ptr)))
		return false;
	for (hit = !r->n_proto, i = 0; i < r->n_proto; i++)
		hit |= r->proto[i] == f->l4proto;
	if (!hit)
		return false;
	for (hit = !r->n_port, i = 0; i < r->n_port; i++)
		hit |= (f->l4proto == IPPROTO_TCP || f->l4proto == IPPROTO_UDP) &&
		       f->dport >= r->lo[i] && f->dport <= r->hi[i];
	if (!hit)
		return false;
	for (hit = !r->n_net, i = 0; i < r->n_net; i++)
		hit |= ref_net(r->net[i], f);
	if (!hit)
		return false;
	for (hit = !r->n_uid, i = 0; i < r->n_uid; i++)
		hit |= f->has_uid && r->uid[i] == f->uid;
	return hit;
}

static unsigned int ref_decide(const struct ref_rule *rules, unsigned int n, unsigned int dflt_line,
			       const struct afw_facts *f)
{
	const struct ref_rule *best = NULL;
	unsigned int i;

	bool strict = f->reason == AFW_REASON_MALFORMED || f->reason == AFW_REASON_EVASION;

	for (i = 0; i < n; i++)
		if ((!strict || rules[i].reasons) && ref_matches(&rules[i], f) &&
		    (!best || rules[i].prio < best->prio ||
		     (rules[i].prio == best->prio && rules[i].line < best->line)))
			best = &rules[i];
	/* Strict reasons no rule names are denied with no line. */
	return best ? best->line : strict ? 0 : dflt_line;
}

static void ref_list(char *buf, size_t len, const char *kw, unsigned int n,
		     const char *const *names, const unsigned int *idx)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? "," : kw, names[idx[i]]);
}

/* Writes a random rule into @r and its text into @buf. */
static void random_rule(unsigned int *seed, struct ref_rule *r, char *buf, size_t len)
{
	static const char *const verdicts[] = { "allow", "deny", "reject", "inspect" };
	static const char *const protos[] = { "tcp", "udp" };
	const char *net_names[6];
	unsigned int i, pidx[2];

	for (i = 0; i < 6; i++)
		net_names[i] = net_pool[i].text;
	r->prio = rnd(seed, 6);
	snprintf(buf, len, "prio %u", r->prio);
	if (!rnd(seed, 4)) {
		r->l7s = 1 + rnd(seed, 15);
		for (i = 0; i < 4; i++)
			if (r->l7s & (1u << i))
				snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
					 r->l7s & ((1u << i) - 1) ? "," : " l7 ", l7_names[i]);
	}
	if (!rnd(seed, 5)) {
		r->reasons = (1 + rnd(seed, 511)) & ~1u;
		for (i = 1; i < 9; i++)
			if (r->reasons & (1u << i))
				snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
					 r->reasons & ((1u << i) - 2) ? "," : " reason ",
					 reason_names[i]);
		if (!r->reasons) {
			r->reasons = 1u << 5;
			snprintf(buf + strlen(buf), len - strlen(buf), " reason malformed");
		}
	}
	if (!rnd(seed, 6)) {
		r->names = 1 + rnd(seed, 7);
		for (i = 0; i < 3; i++)
			if (r->names & (1u << i))
				snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
					 r->names & ((1u << i) - 1) ? "," : " name ", name_names[i]);
	}
	if (!rnd(seed, 6)) {
		r->ech = 1 + rnd(seed, 3);
		snprintf(buf + strlen(buf), len - strlen(buf), " ech %s",
			 r->ech == 1 ? "yes" : r->ech == 2 ? "no" : "no,yes");
	}
	if (rnd(seed, 3)) {
		r->n_host = 1 + rnd(seed, 3);
		for (i = 0; i < r->n_host; i++)
			r->host[i] = rnd(seed, sizeof(host_pool) / sizeof(host_pool[0]));
		ref_list(buf, len, " host ", r->n_host, host_pool, r->host);
	}
	if (!rnd(seed, 4)) {
		r->n_alpn = 1 + rnd(seed, 2);
		for (i = 0; i < r->n_alpn; i++)
			r->alpn[i] = rnd(seed, 3);
		ref_list(buf, len, " alpn ", r->n_alpn, alpn_pool, r->alpn);
	}
	if (!rnd(seed, 5)) {
		r->n_ja4 = 1;
		r->ja4 = rnd(seed, 2);
		ref_list(buf, len, " ja4 ", 1, ja4_pool, &r->ja4);
	}
	if (!rnd(seed, 4)) {
		r->n_proto = 1;
		pidx[0] = rnd(seed, 2);
		r->proto[0] = pidx[0] ? IPPROTO_UDP : IPPROTO_TCP;
		ref_list(buf, len, " proto ", 1, protos, pidx);
	}
	if (!rnd(seed, 4)) {
		r->n_port = 1 + rnd(seed, 2);
		for (i = 0; i < r->n_port; i++) {
			r->lo[i] = port_pool[rnd(seed, 5)];
			r->hi[i] = r->lo[i] + rnd(seed, 2) * rnd(seed, 8000);
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%u-%u",
				 i ? "," : " dport ", r->lo[i], r->hi[i]);
		}
	}
	if (!rnd(seed, 4)) {
		r->n_net = 1 + rnd(seed, 2);
		for (i = 0; i < r->n_net; i++)
			r->net[i] = rnd(seed, 6);
		ref_list(buf, len, " to ", r->n_net, net_names, r->net);
	}
	if (!rnd(seed, 5)) {
		r->n_uid = 1 + rnd(seed, 2);
		for (i = 0; i < r->n_uid; i++) {
			r->uid[i] = 1000 + rnd(seed, 3);
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%u", i ? "," : " uid ",
				 r->uid[i]);
		}
	}
	r->verdict = rnd(seed, 4);
	snprintf(buf + strlen(buf), len - strlen(buf), " %s\n", verdicts[r->verdict]);
}

static void random_facts(unsigned int *seed, struct afw_facts *f)
{
	const char *host, *addr;
	static char ab[32];
	unsigned int i;
	size_t off = 0;

	memset(f, 0, sizeof(*f));
	f->l7 = (enum afw_l7)rnd(seed, 4);
	host = flow_hosts[rnd(seed, sizeof(flow_hosts) / sizeof(flow_hosts[0]))];
	if (host)
		f->host = (struct afw_text){ host, strlen(host) };
	f_alpn_n = rnd(seed, 3);
	for (i = 0; i < f_alpn_n; i++) {
		f_alpn[i] = rnd(seed, 3);
		ab[off++] = (char)strlen(alpn_pool[f_alpn[i]]);
		memcpy(ab + off, alpn_pool[f_alpn[i]], strlen(alpn_pool[f_alpn[i]]));
		off += strlen(alpn_pool[f_alpn[i]]);
	}
	f->alpn = (struct afw_text){ ab, off };
	f->reason = rnd(seed, 2) ? AFW_REASON_NONE : (enum afw_reason)rnd(seed, 9);
	f->ech = rnd(seed, 2);
	if (rnd(seed, 2)) {
		f->ja4.ptr = ja4_pool[rnd(seed, 2)];
		f->ja4.len = strlen(f->ja4.ptr);
	}
	addr = addr_pool[rnd(seed, 6)];
	f->family = strchr(addr, ':') ? AF_INET6 : AF_INET;
	inet_pton(f->family, addr, f->daddr);
	f->dport = (uint16_t)(port_pool[rnd(seed, 5)] + rnd(seed, 2) * rnd(seed, 9000));
	f->l4proto = (uint8_t)(rnd(seed, 3) == 0 ? IPPROTO_UDP : rnd(seed, 4) ? IPPROTO_TCP :
			       IPPROTO_ICMP);
	f->has_uid = rnd(seed, 3);
	f->uid = 1000 + rnd(seed, 3);
}

/* Lines of the rules afw_policy_unreachable() names, for test_random. */
struct shadowed {
	bool line[4096];
	unsigned int n;
};

static void note_shadowed(void *ctx, const struct afw_policy_shadow *sh)
{
	struct shadowed *s = ctx;

	if (sh->line < sizeof(s->line))
		s->line[sh->line] = true;
	s->n++;
}

static void test_random(int *failed)
{
	static struct shadowed shadow;
	unsigned int shadow_hits = 0, shadow_named = 0;
	unsigned int seed = 20261130, round, i, line, n, mismatches = 0, decided = 0, dflt_line;
	unsigned int printed_round = 0, reprinted = 0, settled = 0, unsettled_hits = 0, v;
	unsigned int passers = 0, refused_syns = 0;
	bool passes;
	struct afw_policy_match ms;
	static struct ref_rule rules[80];
	struct afw_policy_error err;
	struct afw_policy *p, *q;
	struct afw_facts f;
	char *text, *out;
	size_t cap = 80 * 512, outlen;
	FILE *o;

	text = malloc(cap);
	if (!text)
		abort();
	for (round = 0; round < 300; round++) {
		n = 1 + rnd(&seed, 80);
		memset(rules, 0, sizeof(rules));
		text[0] = '\0';
		line = 0;
		dflt_line = 0;
		for (i = 0; i < n; i++) {
			/* Comments, blank lines and the default anywhere shift the line numbers. */
			while (!rnd(&seed, 5)) {
				strcat(text, rnd(&seed, 2) ? "# comment\n" : "\n");
				line++;
			}
			if (!dflt_line && !rnd(&seed, 8)) {
				strcat(text, "default deny\n");
				dflt_line = ++line;
			}
			rules[i].line = ++line;
			random_rule(&seed, &rules[i], text + strlen(text), cap - strlen(text));
		}
		if (!dflt_line) {
			strcat(text, "default deny\n");
			dflt_line = ++line;
		}
		p = afw_policy_parse(text, strlen(text), "random", &err);
		if (!p) {
			printf("# %s\n%s", err.msg, text);
			mismatches++;
			continue;
		}
		/* The printed policy must decide the same. */
		out = NULL;
		o = open_memstream(&out, &outlen);
		afw_policy_print(p, o);
		fclose(o);
		q = afw_policy_parse(out, outlen, "printed", &err);
		printed_round += q != NULL;
		memset(&shadow, 0, sizeof(shadow));
		afw_policy_unreachable(p, SIZE_MAX, note_shadowed, &shadow);
		shadow_named += shadow.n;
		passes = afw_policy_passes_syns(p);
		passers += passes;
		for (i = 0; i < 400; i++) {
			struct afw_policy_match mp, mq;
			unsigned int want;

			random_facts(&seed, &f);
			want = ref_decide(rules, n, dflt_line, &f);
			afw_policy_match(p, &f, &mp);
			if (mp.line != want) {
				if (mismatches++ < 5)
					printf("# round %u facts %u: got line %u, want %u\n",
					       round, i, mp.line, want);
			}
			decided += !mp.is_default;
			/* A rule named as never deciding must never decide. */
			if (!mp.is_default && mp.line < sizeof(shadow.line) && shadow.line[mp.line]) {
				if (shadow_hits++ < 5)
					printf("# round %u facts %u: line %u decided, but --check "
					       "names it as never deciding\n%s", round, i, mp.line,
					       text);
			}
			if (q) {
				afw_policy_match(q, &f, &mq);
				/* Printing renumbers lines; the verdict and priority stay. */
				reprinted += mq.verdict != mp.verdict || mq.prio != mp.prio ||
					     mq.is_default != mp.is_default;
			}
			/*
			 * Decided by its ends alone: the same whatever the bytes
			 * say (unread, no strict reason can arise).
			 */
			if (afw_policy_settled(p, &f, SIZE_MAX, &ms)) {
				settled++;
				/* Told handshakes pass every SYN under such a policy. */
				if (passes && ms.verdict != AFW_DECIDE_ALLOW &&
				    refused_syns++ < 5)
					printf("# round %u facts %u: SYNs said to pass, but line %u "
					       "refuses one\n%s", round, i, ms.line, text);
				for (v = 0; v < 8; v++) {
					struct afw_facts g;

					random_facts(&seed, &g);
					g.family = f.family;
					memcpy(g.saddr, f.saddr, 16);
					memcpy(g.daddr, f.daddr, 16);
					g.sport = f.sport;
					g.dport = f.dport;
					g.dir = f.dir;
					g.iif = f.iif;
					g.oif = f.oif;
					g.l4proto = f.l4proto;
					g.has_uid = f.has_uid;
					g.uid = f.uid;
					if (afw_policy_strict(g.reason))
						g.reason = AFW_REASON_NONE;
					afw_policy_match(p, &g, &mq);
					if (mq.line != ms.line || mq.verdict != ms.verdict ||
					    mq.is_default != ms.is_default) {
						if (unsettled_hits++ < 5)
							printf("# round %u facts %u: settled at line "
							       "%u, bytes give line %u\n%s", round,
							       i, ms.line, mq.line, text);
					}
				}
			}
		}
		afw_policy_free(q);
		free(out);
		afw_policy_free(p);
	}
	free(text);
	printf("# %u of %u flows matched a rule\n", decided, 300 * 400);
	CHECK(*failed, "the indexed matcher agrees with a linear scan on 120000 random flows",
	      mismatches == 0);
	CHECK(*failed, "the random flows exercise both rules and the default",
	      decided > 300 * 400 / 4 && decided < 300 * 400);
	printf("# %u rules named as never deciding\n", shadow_named);
	CHECK(*failed, "no rule named as never deciding decides any of 120000 random flows",
	      shadow_hits == 0);
	CHECK(*failed, "and the random policies have such rules", shadow_named > 300);
	printf("# %u flows decided by their ends alone\n", settled);
	CHECK(*failed, "a flow decided by its ends gets that decision whatever its bytes",
	      unsettled_hits == 0);
	CHECK(*failed, "and some random flows, not all, are so decided",
	      settled > 300 * 400 / 50 && settled < 300 * 400);
	printf("# %u of 300 policies pass every SYN\n", passers);
	CHECK(*failed, "a policy said to pass every SYN settles none to a refusal",
	      refused_syns == 0);
	CHECK(*failed, "and some random policies, not all, are said to", passers > 10 &&
	      passers < 290);
	CHECK(*failed, "printed policies parse back", printed_round == 300);
	CHECK(*failed, "printed policies decide the same", reprinted == 0);
}

/* Many host names: the right one still wins, in either table. */
static void test_many(int *failed)
{
	unsigned int i, n = 50000;
	struct afw_policy_error err;
	struct afw_policy *p;
	struct afw_facts f;
	char *text, name[64];
	size_t off;

	text = malloc((size_t)n * 64 + 64);
	if (!text)
		abort();
	off = (size_t)sprintf(text, "default allow\n");
	for (i = 0; i < n; i++)
		off += (size_t)sprintf(text + off, "prio %u host %sh%u.test deny\n", n - i,
				       i % 2 ? "*." : "", i);
	off += (size_t)sprintf(text + off, "prio 25000 dport 443 reject\n");
	p = afw_policy_parse(text, off, "many", &err);
	CHECK(*failed, "50000 host rules load", p && afw_policy_rules(p) == n + 1);
	if (p) {
		snprintf(name, sizeof(name), "h%u.test", n - 2);
		f = tls_flow(name);
		CHECK(*failed, "an exact name near the end wins by priority", line_of(p, &f) == n);
		snprintf(name, sizeof(name), "x.h%u.test", n - 1);
		f = tls_flow(name);
		CHECK(*failed, "a suffix near the end wins by priority", line_of(p, &f) == n + 1);
		snprintf(name, sizeof(name), "h%u.test", 3);
		f = tls_flow(name);
		CHECK(*failed, "a host-less rule with a lower priority wins",
		      line_of(p, &f) == n + 2);
		f = tls_flow("h1.test");
		CHECK(*failed, "a wildcard entry does not match its own apex",
		      line_of(p, &f) == n + 2);
	}
	afw_policy_free(p);
	free(text);
}

/* A flow afwd gave up on, for @reason, to @proto port @port. */
static struct afw_facts giveup(enum afw_reason reason, uint8_t proto, uint16_t port)
{
	struct afw_facts f = tls_flow(NULL);

	f.l7 = AFW_L7_UNKNOWN;
	f.reason = reason;
	f.l4proto = proto;
	f.dport = port;
	return f;
}

/* What "afwd --check" prints for @text. */
static int check_text(const char *text, char *out, size_t len)
{
	char path[64], errs[256];
	FILE *o, *e;
	int rc;

	if (!write_tmp(path, text))
		return -1;
	memset(out, 0, len);
	o = fmemopen(out, len, "w");
	e = fmemopen(errs, sizeof(errs), "w");
	rc = afw_policy_check(path, o, e);
	fclose(o);
	fclose(e);
	unlink(path);
	return rc;
}

/* reason, name and ech; ALPN lists of any length. */
static void test_terms(int *failed)
{
	struct afw_policy_error err;
	struct afw_policy_match m;
	char ab[512], ids[512], *out = NULL, label[80];
	struct afw_policy *p, *q;
	struct afw_facts f;
	size_t outlen, i;
	FILE *o;

	CHECK(*failed, "an unknown reason is refused, naming the reasons",
	      fails("default allow\nreason broken deny\n", 2, 8, "broken",
		    "reason is timeout, bound, table-full, not-tls, malformed"));
	CHECK(*failed, "no reason stands for a flow that was read",
	      fails("default allow\nreason none deny\n", 2, 8, "none", "reason is"));
	CHECK(*failed, "name takes none, invalid or valid",
	      fails("default allow\nname bogus deny\n", 2, 6, "bogus",
		    "name is none, invalid or valid"));
	CHECK(*failed, "ech takes yes or no",
	      fails("default allow\nech maybe deny\n", 2, 5, "maybe", "ech is yes or no"));
	CHECK(*failed, "reason given twice",
	      fails("default allow\nreason bound reason timeout deny\n", 2, 14, "reason",
		    "given twice"));

	p = parse("default allow\n"
		  "prio 1 reason timeout,bound proto tcp dport 443 deny\n"
		  "prio 2 reason not-tls dport 443 reject\n"
		  "prio 3 reason malformed to 10.0.0.0/8 allow\n"
		  "prio 4 dport 443 inspect\n"
		  "prio 5 name none l7 tls deny\n"
		  "prio 6 name invalid reject\n"
		  "prio 7 ech yes host public.test deny\n"
		  "prio 8 ech no l7 quic inspect\n", &err);
	CHECK(*failed, "a policy with reason, name and ech parses", p != NULL);
	if (!p) {
		printf("# %s\n", err.msg);
		return;
	}
	f = giveup(AFW_REASON_BOUND, IPPROTO_TCP, 443);
	CHECK(*failed, "reason bound on TCP 443 is denied by its rule",
	      afw_policy_match(p, &f, &m) == AFW_DECIDE_DENY && m.line == 2);
	f.dport = 22;
	CHECK(*failed, "the same give-up elsewhere gets the default allow",
	      afw_policy_match(p, &f, &m) == AFW_DECIDE_ALLOW && m.is_default);
	f = giveup(AFW_REASON_NOT_TLS, IPPROTO_UDP, 443);
	CHECK(*failed, "not-tls on UDP 443 is rejected", line_of(p, &f) == 3);
	f = giveup(AFW_REASON_NONE, IPPROTO_TCP, 443);
	CHECK(*failed, "a flow that was read matches no reason rule", line_of(p, &f) == 5);
	f = giveup(AFW_REASON_MALFORMED, IPPROTO_TCP, 443);
	CHECK(*failed, "malformed matches no rule without a reason (dport 443 inspect), "
	      "and a default allow does not let it through",
	      afw_policy_match(p, &f, &m) == AFW_DECIDE_DENY && m.unnamed && !m.line &&
	      !m.is_default);
	inet_pton(AF_INET, "10.1.2.3", f.daddr);
	CHECK(*failed, "a rule that names malformed decides it",
	      afw_policy_match(p, &f, &m) == AFW_DECIDE_ALLOW && m.line == 4 && !m.unnamed);
	f = giveup(AFW_REASON_EVASION, IPPROTO_UDP, 53);
	CHECK(*failed, "evasion, named by no rule, is denied despite the default allow",
	      afw_policy_match(p, &f, &m) == AFW_DECIDE_DENY && m.unnamed);
	f = giveup(AFW_REASON_TIMEOUT, IPPROTO_TCP, 8443);
	CHECK(*failed, "a timeout elsewhere gets the default", line_of(p, &f) == 1);

	f = tls_flow(NULL);
	f.dport = 8443;
	CHECK(*failed, "name none: a TLS hello without SNI", line_of(p, &f) == 6);
	f = tls_flow("x..");
	f.dport = 8443;
	CHECK(*failed, "name invalid: an empty label", line_of(p, &f) == 7);
	memset(label, 'a', 64);
	strcpy(label + 64, ".test");
	f = tls_flow(label);
	f.dport = 8443;
	CHECK(*failed, "name invalid: a label of 64 bytes", line_of(p, &f) == 7);
	f = tls_flow("public.test");
	f.dport = 8443;
	CHECK(*failed, "a valid name matches neither", line_of(p, &f) == 1);
	f.ech = true;
	CHECK(*failed, "ech yes with the public name", line_of(p, &f) == 8);
	f.l7 = AFW_L7_QUIC;
	f.ech = false;
	CHECK(*failed, "ech no: a QUIC hello without ECH", line_of(p, &f) == 9);
	f.l7 = AFW_L7_HTTP;
	CHECK(*failed, "ech tests only TLS and QUIC flows", line_of(p, &f) == 1);

	o = open_memstream(&out, &outlen);
	afw_policy_print(p, o);
	fclose(o);
	CHECK(*failed, "the printer writes reason, name and ech back",
	      out && strstr(out, "prio 1 reason timeout,bound proto 6 dport 443 deny\n") &&
	      strstr(out, "prio 5 name none l7 tls deny\n") == NULL &&
	      strstr(out, "prio 5 l7 tls name none deny\n") &&
	      strstr(out, "prio 7 host public.test ech yes deny\n") &&
	      strstr(out, "prio 3 reason malformed to 10.0.0.0/8 allow\n"));
	q = out ? afw_policy_parse(out, outlen, "printed", &err) : NULL;
	f = giveup(AFW_REASON_BOUND, IPPROTO_TCP, 443);
	CHECK(*failed, "and the printed policy decides the same", q && line_of(q, &f) == 2);
	afw_policy_free(q);
	free(out);
	afw_policy_free(p);

	/* Every ALPN id counts, not only the first few. */
	p = parse("default deny\nalpn proto-39 allow\n", &err);
	ids[0] = '\0';
	for (i = 0; i < 40; i++)
		snprintf(ids + strlen(ids), sizeof(ids) - strlen(ids), "%sproto-%zu", i ? "," : "",
			 i);
	f = tls_flow("a.test");
	f.alpn = alpn_list(ab, sizeof(ab), ids);
	CHECK(*failed, "the 40th of 40 ALPN ids matches", p && line_of(p, &f) == 2);
	f.alpn.len -= 9;
	CHECK(*failed, "and without it nothing does", p && line_of(p, &f) == 1);
	/* A list that lies about an id's length ends the walk, it is not read past. */
	ab[0] = (char)200;
	f.alpn.len = 20;
	CHECK(*failed, "a lying ALPN length is not read past", p && line_of(p, &f) == 1);
	afw_policy_free(p);

	CHECK(*failed, "--check says how a default allow treats malformed and evasion",
	      check_text("default allow\n", ab, sizeof(ab)) == 0 &&
	      strstr(ab, "malformed or evasion are denied unless a rule names them"));
	CHECK(*failed, "and says nothing of it under a default deny",
	      check_text("default deny\n", ab, sizeof(ab)) == 0 && !strstr(ab, "malformed"));
}

/* afwd --check names the rules that never decide a flow, and only those. */
static void test_unreachable(int *failed)
{
	static const char text[] =
		"default deny\n"
		"prio 10 host *.example.com allow\n"			/* 2 */
		"prio 20 host www.example.com deny\n"			/* 3: under 2 */
		"prio 20 host example.com deny\n"			/* 4: not under *. */
		"prio 5 dport 80-90,91-100 proto tcp allow\n"		/* 5 */
		"prio 6 dport 85-95 proto tcp deny\n"			/* 6: in 5's union */
		"prio 6 dport 85-101 proto tcp deny\n"			/* 7: 101 is not */
		"prio 7 to 10.0.0.0/8 allow\n"				/* 8 */
		"prio 8 to 10.1.0.0/16 dport 22 proto tcp deny\n"	/* 9: under 8 */
		"prio 9 reason malformed to 10.1.0.0/16 deny\n"	/* 10: 8 skips it */
		"prio 30 host a.b.example.com,x.example.com l7 tls alpn h2 deny\n" /* 11 */
		"prio 30 host a.b.example.com,example.org deny\n"	/* 12: one host not */
		"prio 40 to 192.0.2.0/24 uid 1000 deny\n"		/* 13 */
		"prio 40 to 192.0.2.0/25 deny\n"			/* 14: any uid */
		"prio 40 to 192.0.2.0/25 uid 1000,1001 deny\n"		/* 15: under 14 */
		"prio 40 to 192.0.2.128/25 uid 1000 l7 http allow\n"	/* 16: under 13 */
		"prio 50 ja4 T13D1516H2_8DAAF6152771_E5627EFA2AB1 deny\n"	/* 17 */
		"prio 51 ja4 t13d1516h2_8daaf6152771_e5627efa2ab1 to 198.51.100.1 deny\n" /* 18 */
		"prio 60 dir in,out allow\n"				/* 19 */
		"prio 61 dir out proto udp allow\n"			/* 20: under 19 */
		"prio 61 proto udp allow\n";				/* 21: forward too */
	char out[4096];
	static const unsigned int named[] = { 3, 6, 9, 11, 15, 16, 18, 20 };
	static const unsigned int kept[] = { 2, 4, 5, 7, 8, 10, 12, 13, 14, 17, 19, 21 };
	char needle[64];
	bool all = true;
	size_t i;

	CHECK(*failed, "--check passes a policy with rules that never decide",
	      check_text(text, out, sizeof(out)) == 0);
	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		snprintf(needle, sizeof(needle), ":%u: warning: this rule", named[i]);
		if (!strstr(out, needle)) {
			printf("# line %u not named:\n%s", named[i], out);
			all = false;
		}
	}
	CHECK(*failed, "--check names each rule an earlier one covers", all);
	for (all = true, i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		snprintf(needle, sizeof(needle), ":%u: warning: this rule", kept[i]);
		if (strstr(out, needle)) {
			printf("# line %u named:\n%s", kept[i], out);
			all = false;
		}
	}
	CHECK(*failed, "and none that some flow reaches", all);
	CHECK(*failed, "it names the rule that comes first",
	      strstr(out, ":3: warning: this rule (prio 20) never decides a flow: line 2 (prio 10)") &&
	      strstr(out, ":18: warning: this rule (prio 51) never decides a flow: line 17 (prio 50)") &&
	      strstr(out, ":20: warning: this rule (prio 61) never decides a flow: line 19 (prio 60)"));
	CHECK(*failed, "a wider prefix after a narrower one is reached",
	      check_text("default deny\nprio 1 to 10.0.0.0/16 deny\nprio 2 to 10.0.0.0/8 allow\n"
			 "prio 3 from 2001:db8::/32 deny\nprio 4 from 2001:db8:1::/48 allow\n",
			 out, sizeof(out)) == 0 && !strstr(out, ":3: warning") &&
	      strstr(out, ":5: warning: this rule (prio 4) never decides a flow: line 4 (prio 3)"));
	CHECK(*failed, "source ports are covered as destination ports are",
	      check_text("default deny\nprio 1 sport 1000-2000 proto tcp deny\n"
			 "prio 2 sport 1500 proto tcp allow\nprio 3 sport 900-1500 proto tcp allow\n"
			 "prio 4 dport 1500 proto tcp allow\n", out, sizeof(out)) == 0 &&
	      strstr(out, ":3: warning: this rule (prio 2) never decides a flow: line 2 (prio 1)") &&
	      !strstr(out, ":4: warning") && !strstr(out, ":5: warning"));
	CHECK(*failed, "interfaces and owners: a rule without the test is not covered by one with it",
	      check_text("default deny\nprio 1 oif lo uid 0 deny\nprio 2 oif lo allow\n"
			 "prio 3 proto tcp uid 0 allow\nprio 4 oif lo uid 0,1 proto tcp allow\n",
			 out, sizeof(out)) == 0 &&
	      !strstr(out, ":3: warning") && !strstr(out, ":4: warning") &&
	      strstr(out, ":5: warning: this rule (prio 4) never decides a flow: line 3 (prio 2)"));
	{
		static char many[8192];
		static char big[16384];
		struct afw_policy_error err;
		struct afw_policy *p;
		struct shadowed sh;
		size_t off, n, looked;
		int k;

		off = (size_t)snprintf(many, sizeof(many), "default deny\nprio 0 proto udp deny\n");
		for (k = 0; k < 60; k++)
			off += (size_t)snprintf(many + off, sizeof(many) - off,
						"prio 1 proto udp dport %d allow\n", 1000 + k);
		n = 0;
		if (check_text(many, big, sizeof(big)) == 0)
			for (const char *c = big; (c = strstr(c, ": warning: ")); c++)
				n++;
		CHECK(*failed, "60 rules that never decide: the first 50 named, then the count",
		      n == 50 && strstr(big, ": 60 rules in all never decide a flow; the first 50"));
		p = afw_policy_parse(many, strlen(many), "many", &err);
		memset(&sh, 0, sizeof(sh));
		looked = p ? afw_policy_unreachable(p, 100, note_shadowed, &sh) : 0;
		/* Rule k costs k comparisons up to the one that covers it: 1 each here. */
		CHECK(*failed, "a budget of comparisons bounds the look, which says how far it got",
		      p && looked == 61 && sh.n == 60);
		memset(&sh, 0, sizeof(sh));
		looked = p ? afw_policy_unreachable(p, 10, note_shadowed, &sh) : 0;
		CHECK(*failed, "and a smaller one stops early, naming only what it saw whole",
		      p && looked == 11 && sh.n == 10);
		afw_policy_free(p);
	}
	CHECK(*failed, "and says nothing of a policy without such rules",
	      check_text("default deny\nprio 1 host a.example allow\nprio 2 host b.example allow\n",
			 out, sizeof(out)) == 0 && !strstr(out, "warning"));
}

/*
 * The shipped policy: the default allow for everything, but a flow afwd
 * could not name, on a port where a name is expected, is refused.
 */
/* afw_policy_passes_syns(): which policies let every SYN through. */
static void test_passes_syns(int *failed)
{
	static const struct {
		const char *text;
		bool passes;
		const char *why;
	} cases[] = {
		{ "default allow\n", true, "default allow alone" },
		{ "default deny\n", false, "default deny alone: every SYN is refused" },
		{ "default deny\nprio 10 host allowed.test l7 tls allow\n", true,
		  "default deny behind a rule every flow is read for" },
		{ "default deny\nprio 10 dport 443 host allowed.test allow\n", false,
		  "default deny behind a read rule of one port: other ports are refused" },
		{ "default allow\nprio 10 proto tcp dport 22 deny\n", false,
		  "a deny by port" },
		{ "default allow\nprio 10 proto tcp dport 22 reject\n", false,
		  "a reject by port" },
		{ "default allow\nprio 10 host evil.test deny\n", true,
		  "a deny by host name: read first" },
		{ "default allow\nprio 10 uid 1000 deny\n", false, "a deny by owner" },
		{ "default allow\nprio 10 proto tcp dport 22 allow\nprio 20 dport 23 deny\n",
		  false, "an allow, then a deny by port" },
		{ "default deny\nprio 10 inspect\n", true, "everything inspected" },
		{ "default deny\nprio 10 ask\nprio 20 dport 22 deny\n", true,
		  "everything asked, before a deny it shadows" },
		{ "default reject\n", true, "default reject: read first" },
	};
	struct afw_policy_error err;
	struct afw_policy *p;
	char name[160];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		p = afw_policy_parse(cases[i].text, strlen(cases[i].text), "syns", &err);
		snprintf(name, sizeof(name), "passes every SYN: %s: %s", cases[i].why,
			 cases[i].passes ? "yes" : "no");
		CHECK(*failed, name, p && afw_policy_passes_syns(p) == cases[i].passes);
		afw_policy_free(p);
	}
}

/* afw_policy_settled() looks at no more rules than it is given. */
static void test_settled_budget(int *failed)
{
	static const char uid_policy[] = "default deny\ndir in uid 1000 proto tcp dport 22 allow\n";
	struct afw_policy_match m;
	struct afw_policy_error err;
	struct afw_facts f = { .family = AF_INET, .l4proto = IPPROTO_TCP, .dport = 80 };
	struct afw_policy *p;
	size_t cap = 1100 * 40 + 64, i;
	char *text = malloc(cap);

	if (!text)
		abort();
	strcpy(text, "default deny\n");
	for (i = 0; i < 1100; i++)
		sprintf(text + strlen(text), "prio 1 proto tcp dport %zu deny\n", 1000 + i);
	strcat(text, "prio 2 proto tcp dport 80 allow\n");
	p = afw_policy_parse(text, strlen(text), "budget", &err);
	CHECK(*failed, "settled: 1,101 rules parse", p != NULL);
	if (p) {
		CHECK(*failed, "the 1,101st rule is past a budget of 1,024: read",
		      !afw_policy_settled(p, &f, 1024, &m));
		CHECK(*failed, "within a budget that reaches it: settled by it",
		      afw_policy_settled(p, &f, 2000, &m) && m.line == 1102 &&
		      m.verdict == AFW_DECIDE_ALLOW);
		f.dport = 1500;
		CHECK(*failed, "a port one of the first rules names: settled early",
		      afw_policy_settled(p, &f, 1024, &m) && m.line == 502 &&
		      m.verdict == AFW_DECIDE_DENY);
	}
	afw_policy_free(p);
	free(text);

	/* An owner the SYN does not show may show later: a uid rule waits for it. */
	p = afw_policy_parse(uid_policy, sizeof(uid_policy) - 1, "uid", &err);
	CHECK(*failed, "settled: the uid policy parses", p != NULL);
	if (p) {
		memset(&f, 0, sizeof(f));
		f.family = AF_INET;
		f.l4proto = IPPROTO_TCP;
		f.dport = 22;
		f.dir = AFW_FDIR_IN;
		CHECK(*failed, "a SYN without an owner is not settled by a uid rule's absence",
		      !afw_policy_settled(p, &f, 1024, &m));
		f.has_uid = true;
		f.uid = 1000;
		CHECK(*failed, "with its owner shown, the uid rule settles it",
		      afw_policy_settled(p, &f, 1024, &m) && m.line == 2);
		f.uid = 1001;
		CHECK(*failed, "another owner: the default deny does",
		      afw_policy_settled(p, &f, 1024, &m) && m.is_default);
	}
	afw_policy_free(p);
}

/* The owner test_keyed's flows have: the program its slot's context names. */
static int keyed_owner(void *ctx, const struct afw_facts *f, struct afw_owner_info *out)
{
	const char *exe = ctx;

	(void)f;
	memset(out, 0, sizeof(*out));
	out->pid = 100;
	snprintf(out->exe, sizeof(out->exe), "%s", exe);
	snprintf(out->comm, sizeof(out->comm), "%s", strrchr(exe, '/') + 1);
	return 0;
}

/* A random TCP flow to @key's destination (or a new one), all else random. */
static void keyed_flow(unsigned int *seed, struct afw_facts *f, struct afw_owner_slot *slot,
		       const struct afw_facts *key)
{
	static const char *const daddrs[] = { "192.0.2.1", "203.0.113.5", "2001:db8::1",
					       "2001:db9::2" };
	static const char *const saddrs[] = { "198.51.100.7", "10.0.0.1", "2001:db8:1::1",
					       "fd00::1" };
	static const char *const exes[] = { "/usr/bin/curl", "/usr/bin/wget" };
	static const uint16_t dports[] = { 80, 443, 8080 };
	unsigned int d = rnd(seed, 4);

	memset(f, 0, sizeof(*f));
	f->family = d < 2 ? AF_INET : AF_INET6;
	inet_pton(f->family, daddrs[d], f->daddr);
	f->dport = dports[rnd(seed, 3)];
	f->dir = (uint8_t)(AFW_FDIR_IN + rnd(seed, 3));
	f->l4proto = IPPROTO_TCP;
	if (key) {
		f->family = key->family;
		memcpy(f->daddr, key->daddr, sizeof(f->daddr));
		f->dport = key->dport;
		f->dir = key->dir;
	}
	inet_pton(f->family, saddrs[(f->family == AF_INET6) * 2 + rnd(seed, 2)], f->saddr);
	f->sport = (uint16_t)(40000 + rnd(seed, 200));
	f->iif = rnd(seed, 2);
	f->oif = rnd(seed, 2);
	f->has_uid = rnd(seed, 2);
	f->uid = 1000 + rnd(seed, 2);
	memset(slot, 0, sizeof(*slot));
	slot->fetch = keyed_owner;
	slot->ctx = (void *)exes[rnd(seed, 2)];
	f->owner = slot;
}

/*
 * A decision afw_policy_settled() calls keyed (afwd then lets the module
 * keep it for every connection to the same place) is the one every flow
 * with the same family, protocol, direction, destination and port gets,
 * whatever its source, interfaces, user or program: random policies whose
 * rules test any of those, and random flows.
 */
static void test_keyed(int *failed)
{
	static const char *const parts[] = {
		"proto tcp", "dport 80", "dport 443,8080", "to 192.0.2.0/24", "to 2001:db8::/32",
		"dir out", "dir in,forward", "sport 40000-40099", "from 198.51.100.0/24",
		"from 2001:db8:1::/48", "iif lo", "oif lo", "uid 1000", "group 0",
		"exe /usr/bin/curl", "comm wget", "host example.com", "l7 tls",
	};
	static const char *const verdicts[] = { "allow", "deny", "reject", "inspect" };
	unsigned int seed = 11, round, i, j, k, n, keyed = 0, unkeyed = 0, broken = 0, parsed = 0;
	struct afw_owner_slot fs, gs;
	struct afw_policy_match m, mg;
	struct afw_policy_error err;
	struct afw_facts f, g;
	struct afw_policy *p;
	char text[2048];

	for (round = 0; round < 3000; round++) {
		snprintf(text, sizeof(text), "default %s\n", rnd(&seed, 2) ? "deny" : "allow");
		n = 1 + rnd(&seed, 6);
		for (i = 0; i < n; i++) {
			snprintf(text + strlen(text), sizeof(text) - strlen(text), "prio %u",
				 rnd(&seed, 4));
			for (k = 1 + rnd(&seed, 3), j = 0; j < k; j++)
				snprintf(text + strlen(text), sizeof(text) - strlen(text), " %s",
					 parts[rnd(&seed, sizeof(parts) / sizeof(parts[0]))]);
			snprintf(text + strlen(text), sizeof(text) - strlen(text), " %s\n",
				 verdicts[rnd(&seed, 4)]);
		}
		p = afw_policy_parse(text, strlen(text), "keyed", &err);
		if (!p)
			continue;
		parsed++;
		for (i = 0; i < 40; i++) {
			keyed_flow(&seed, &f, &fs, NULL);
			if (!afw_policy_settled(p, &f, SIZE_MAX, &m))
				continue;
			if (!m.keyed) {
				unkeyed++;
				continue;
			}
			keyed++;
			for (j = 0; j < 16; j++) {
				keyed_flow(&seed, &g, &gs, &f);
				if (afw_policy_settled(p, &g, SIZE_MAX, &mg) && mg.keyed &&
				    mg.verdict == m.verdict && mg.line == m.line)
					continue;
				if (broken++ < 5)
					printf("# keyed at line %u, a flow to the same place gets "
					       "line %u\n%s", m.line, mg.line, text);
			}
		}
		afw_policy_free(p);
	}
	printf("# %u policies; %u keyed decisions, %u settled but not keyed\n", parsed, keyed,
	       unkeyed);
	CHECK(*failed, "keyed: a keyed decision is every flow's to the same place",
	      broken == 0);
	CHECK(*failed, "keyed: the random policies parse, and give both kinds",
	      parsed > 1500 && keyed > 1000 && unkeyed > 1000);
}

static void test_dist(int *failed)
{
	static const struct {
		enum afw_reason reason;
		uint8_t proto;
		uint16_t port;
		enum afw_decision want;
		const char *what;
	} cases[] = {
		{ AFW_REASON_NONE, IPPROTO_TCP, 443, AFW_DECIDE_ALLOW, "a TLS flow to 443 that was read" },
		{ AFW_REASON_NOT_TLS, IPPROTO_TCP, 443, AFW_DECIDE_DENY, "not TLS on TCP 443" },
		{ AFW_REASON_BOUND, IPPROTO_TCP, 443, AFW_DECIDE_DENY, "a bound on TCP 443" },
		{ AFW_REASON_TIMEOUT, IPPROTO_TCP, 80, AFW_DECIDE_DENY, "a timeout on TCP 80" },
		{ AFW_REASON_TABLE_FULL, IPPROTO_TCP, 853, AFW_DECIDE_DENY, "table full on TCP 853" },
		{ AFW_REASON_UNDECODABLE, IPPROTO_TCP, 443, AFW_DECIDE_DENY, "undecodable on 443" },
		{ AFW_REASON_NOT_TLS, IPPROTO_UDP, 443, AFW_DECIDE_DENY, "not QUIC on UDP 443" },
		{ AFW_REASON_BOUND, IPPROTO_UDP, 443, AFW_DECIDE_DENY, "a bound on UDP 443" },
		{ AFW_REASON_MALFORMED, IPPROTO_TCP, 22, AFW_DECIDE_DENY, "malformed anywhere" },
		{ AFW_REASON_EVASION, IPPROTO_UDP, 5353, AFW_DECIDE_DENY, "evasion anywhere" },
		{ AFW_REASON_NOT_TLS, IPPROTO_TCP, 22, AFW_DECIDE_ALLOW, "SSH on 22: the default" },
		{ AFW_REASON_TIMEOUT, IPPROTO_UDP, 53, AFW_DECIDE_ALLOW, "DNS on 53: the default" },
		{ AFW_REASON_MID_STREAM, IPPROTO_TCP, 443, AFW_DECIDE_REJECT,
		  "a TCP 443 flow seen mid-stream: reset by its own line" },
		{ AFW_REASON_MID_STREAM, IPPROTO_TCP, 22, AFW_DECIDE_ALLOW,
		  "a TCP 22 flow seen mid-stream: allowed by its own line" },
	};
	struct afw_policy_error err;
	struct afw_policy_match m;
	struct afw_policy *p = afw_policy_load("dist/policy.conf", &err);
	struct afw_facts f;
	char name[128];
	size_t i;

	CHECK(*failed, "dist/policy.conf loads", p != NULL);
	if (!p)
		return;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		f = giveup(cases[i].reason, cases[i].proto, cases[i].port);
		if (cases[i].reason == AFW_REASON_NONE) {
			f = tls_flow("www.example.com");
			f.dport = cases[i].port;
		}
		snprintf(name, sizeof(name), "dist/policy.conf: %s: %s", cases[i].what,
			 afw_decision_name(cases[i].want));
		CHECK(*failed, name, afw_policy_match(p, &f, &m) == cases[i].want &&
		      (cases[i].reason != AFW_REASON_MID_STREAM || !m.is_default));
	}
	f = (struct afw_facts){ .family = AF_INET, .l4proto = 47 };
	CHECK(*failed, "dist/policy.conf: its default is allow",
	      afw_policy_match(p, &f, &m) == AFW_DECIDE_ALLOW && m.is_default);
	afw_policy_free(p);
}

/*
 * The shipped baseline, with the default turned to deny: what a host needs
 * (loopback, ICMP, ICMPv6, DHCP, its own DNS, inbound SSH) still passes,
 * and nothing else does.
 */
static void test_dist_baseline(int *failed)
{
	static const struct {
		uint8_t dir, l4proto;
		enum afw_l7 l7;
		uint16_t sport, dport;
		bool lo;
		enum afw_decision want;
		const char *what;
		const char *to;		/* the server; NULL: 0.0.0.0 */
	} cases[] = {
		{ AFW_FDIR_OUT, IPPROTO_TCP, AFW_L7_UNKNOWN, 40000, 5432, true, AFW_DECIDE_ALLOW,
		  "a connection over loopback", NULL },
		{ AFW_FDIR_IN, IPPROTO_TCP, AFW_L7_UNKNOWN, 40000, 5432, true, AFW_DECIDE_ALLOW,
		  "loopback seen coming in", NULL },
		{ AFW_FDIR_IN, IPPROTO_ICMP, AFW_L7_UNKNOWN, 0, 0, false, AFW_DECIDE_ALLOW,
		  "ICMP (errors) in", NULL },
		{ AFW_FDIR_IN, IPPROTO_ICMPV6, AFW_L7_UNKNOWN, 0, 0, false, AFW_DECIDE_ALLOW,
		  "ICMPv6 (neighbour discovery) in", NULL },
		{ AFW_FDIR_OUT, IPPROTO_UDP, AFW_L7_UNKNOWN, 68, 67, false, AFW_DECIDE_ALLOW,
		  "a DHCP request", NULL },
		{ AFW_FDIR_IN, IPPROTO_UDP, AFW_L7_UNKNOWN, 67, 68, false, AFW_DECIDE_ALLOW,
		  "a DHCP server's answer", NULL },
		{ AFW_FDIR_OUT, IPPROTO_UDP, AFW_L7_UNKNOWN, 546, 547, false, AFW_DECIDE_ALLOW,
		  "a DHCPv6 request", NULL },
		{ AFW_FDIR_IN, IPPROTO_UDP, AFW_L7_UNKNOWN, 547, 546, false, AFW_DECIDE_ALLOW,
		  "a DHCPv6 server's answer", NULL },
		{ AFW_FDIR_OUT, IPPROTO_UDP, AFW_L7_DNS, 40000, 53, false, AFW_DECIDE_ALLOW,
		  "this host's DNS query to its resolver", "192.0.2.53" },
		{ AFW_FDIR_OUT, IPPROTO_TCP, AFW_L7_DNS, 40000, 53, false, AFW_DECIDE_ALLOW,
		  "this host's DNS query over TCP to its resolver", "192.0.2.53" },
		{ AFW_FDIR_OUT, IPPROTO_UDP, AFW_L7_DNS, 40000, 53, false, AFW_DECIDE_DENY,
		  "a DNS query to a server the host is not configured to ask: the default",
		  "198.51.100.9" },
		{ AFW_FDIR_IN, IPPROTO_TCP, AFW_L7_UNKNOWN, 40000, 22, false, AFW_DECIDE_ALLOW,
		  "inbound SSH", NULL },
		{ AFW_FDIR_IN, IPPROTO_UDP, AFW_L7_DNS, 40000, 53, false, AFW_DECIDE_DENY,
		  "a DNS query from elsewhere: the default", NULL },
		{ AFW_FDIR_OUT, IPPROTO_TCP, AFW_L7_UNKNOWN, 40000, 22, false, AFW_DECIDE_DENY,
		  "outbound SSH: the default", NULL },
		{ AFW_FDIR_IN, IPPROTO_UDP, AFW_L7_UNKNOWN, 53, 40000, false, AFW_DECIDE_DENY,
		  "a datagram from port 53 to any port: the default", NULL },
		{ AFW_FDIR_IN, IPPROTO_TCP, AFW_L7_UNKNOWN, 40000, 8080, false, AFW_DECIDE_DENY,
		  "inbound to another port: the default", NULL },
		{ AFW_FDIR_UNKNOWN, IPPROTO_TCP, AFW_L7_UNKNOWN, 40000, 22, false, AFW_DECIDE_DENY,
		  "a flow of unknown direction: the default", NULL },
	};
	static char text[1 << 16];
	struct afw_policy_error err;
	struct afw_policy_match m;
	struct afw_policy *p;
	struct afw_facts f;
	char name[160], resolv[64], *at;
	size_t n, i;
	FILE *in = fopen("dist/policy.conf", "r");

	n = in ? fread(text, 1, sizeof(text) - 1, in) : 0;
	if (in)
		fclose(in);
	text[n] = '\0';
	at = strstr(text, "\ndefault allow\n");
	CHECK(*failed, "dist/policy.conf has its default line", at != NULL);
	if (!at)
		return;
	memcpy(at, "\ndefault deny \n", 15);
	/* The host's resolver, as "to resolvers" reads it. */
	if (!write_tmp(resolv, "nameserver 192.0.2.53\n")) {
		CHECK(*failed, "a resolv.conf for the baseline", false);
		return;
	}
	setenv("AFW_RESOLV_CONF", resolv, 1);
	p = afw_policy_parse(text, n, "dist/policy.conf", &err);
	unsetenv("AFW_RESOLV_CONF");
	unlink(resolv);
	CHECK(*failed, "dist/policy.conf under default deny loads", p != NULL);
	if (!p)
		return;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		f = (struct afw_facts){ .l7 = cases[i].l7, .family = AF_INET,
					.l4proto = cases[i].l4proto, .sport = cases[i].sport,
					.dport = cases[i].dport, .dir = cases[i].dir };
		if (cases[i].l4proto == IPPROTO_ICMPV6)
			f.family = AF_INET6;
		if (cases[i].to)
			inet_pton(AF_INET, cases[i].to, f.daddr);
		if (cases[i].lo) {
			if (cases[i].dir == AFW_FDIR_OUT)
				f.oif = if_nametoindex("lo");
			else
				f.iif = if_nametoindex("lo");
		}
		snprintf(name, sizeof(name), "dist/policy.conf baseline under default deny: %s: %s",
			 cases[i].what, afw_decision_name(cases[i].want));
		CHECK(*failed, name, afw_policy_match(p, &f, &m) == cases[i].want &&
		      (cases[i].want == AFW_DECIDE_DENY) == (m.is_default != 0));
	}
	afw_policy_free(p);
}

/* @p as afw_policy_print() writes it, into @out; false if it would not fit. */
static bool printed(const struct afw_policy *p, char *out, size_t len)
{
	FILE *o = fmemopen(out, len, "w");

	if (!o)
		return false;
	afw_policy_print(p, o);
	return !fclose(o);
}

/* "to resolvers": the name servers of the resolv.conf files, read at load. */
static void test_resolvers(int *failed)
{
	const char *text = "default deny\nprio 1 to resolvers allow\n";
	struct afw_policy_error err;
	char a[64], b[64], list[200], out[512];
	struct afw_facts f = { .l7 = AFW_L7_DNS, .family = AF_INET, .dport = 53,
			       .l4proto = IPPROTO_UDP };
	struct afw_policy *p;

	if (!write_tmp(a, "# written by a test\nsearch example.test\nnameserver 192.0.2.53\n"
		       "nameserver fe80::1%eth0\nnameserver 192.0.2.53\nnameserver bogus\n") ||
	    !write_tmp(b, "nameserver 198.51.100.1 # upstream\n")) {
		CHECK(*failed, "resolv.conf files for the test", false);
		return;
	}
	snprintf(list, sizeof(list), "%s:/nonexistent/resolv.conf:%s", a, b);
	setenv("AFW_RESOLV_CONF", list, 1);
	p = parse(text, &err);
	CHECK(*failed, "to resolvers loads", p != NULL);
	if (p) {
		inet_pton(AF_INET, "192.0.2.53", f.daddr);
		CHECK(*failed, "a query to the first file's name server matches",
		      afw_policy_match(p, &f, NULL) == AFW_DECIDE_ALLOW);
		inet_pton(AF_INET, "198.51.100.1", f.daddr);
		CHECK(*failed, "and to the second file's, past a missing file",
		      afw_policy_match(p, &f, NULL) == AFW_DECIDE_ALLOW);
		inet_pton(AF_INET, "192.0.2.54", f.daddr);
		CHECK(*failed, "a query to another server does not",
		      afw_policy_match(p, &f, NULL) == AFW_DECIDE_DENY);
		f.family = AF_INET6;
		memset(f.daddr, 0, sizeof(f.daddr));
		inet_pton(AF_INET6, "fe80::1", f.daddr);
		CHECK(*failed, "an IPv6 name server with a scope matches without it",
		      afw_policy_match(p, &f, NULL) == AFW_DECIDE_ALLOW);
		CHECK(*failed, "printed as the addresses read, each once, none of a bad line",
		      printed(p, out, sizeof(out)) &&
		      strstr(out, " to 192.0.2.53/32,fe80::1/128,198.51.100.1/32 allow"));
		afw_policy_free(p);
	}
	setenv("AFW_RESOLV_CONF", "/nonexistent/resolv.conf", 1);
	p = parse(text, &err);
	CHECK(*failed, "to resolvers with none configured loads", p != NULL);
	if (p) {
		f = (struct afw_facts){ .l7 = AFW_L7_DNS, .family = AF_INET, .dport = 53,
					.l4proto = IPPROTO_UDP };
		CHECK(*failed, "and matches no server at all",
		      afw_policy_match(p, &f, NULL) == AFW_DECIDE_DENY);
		inet_pton(AF_INET, "192.0.2.53", f.daddr);
		CHECK(*failed, "not even one named elsewhere",
		      afw_policy_match(p, &f, NULL) == AFW_DECIDE_DENY);
		CHECK(*failed, "and prints as to resolvers",
		      printed(p, out, sizeof(out)) && strstr(out, " to resolvers allow"));
		afw_policy_free(p);
	}
	unsetenv("AFW_RESOLV_CONF");
	unlink(a);
	unlink(b);
}

struct owner_src {
	const struct afw_owner_info *info;	/* NULL: the flow has no owner */
	unsigned int asked;
};

static int owner_fetch(void *ctx, const struct afw_facts *f, struct afw_owner_info *out)
{
	struct owner_src *src = ctx;

	(void)f;
	src->asked++;
	if (!src->info)
		return -1;
	*out = *src->info;
	return 0;
}

/* Rules on the process that started a flow: exe, comm, user, group, cgroup, unit. */
static void test_owner(int *failed)
{
	const char *text =
		"default deny\n"
		"prio 1 exe /usr/bin/curl host *.debian.org allow\n"
		"prio 2 exe /usr/bin/curl reject\n"
		"prio 3 exe /opt/*/bin/* comm worker-? allow\n"
		"prio 4 unit backup.service to 10.0.0.0/8 allow\n"
		"prio 5 cgroup /machine.slice/ inspect\n"
		"prio 6 user 1000 group 0,100 allow\n";
	struct afw_owner_info curl = { .uid = 1000, .gid = 1000, .pid = 42, .comm = "curl",
				       .exe = "/usr/bin/curl", .cgroup = "/user.slice/x.scope" };
	struct afw_owner_info tool = curl, backup = curl, vm = curl, user = curl;
	struct owner_src src = { NULL, 0 };
	struct afw_owner_slot slot = { 0 };
	struct afw_policy_error err;
	struct afw_policy_match m;
	struct afw_facts f = tls_flow("deb.debian.org");
	struct afw_policy *p, *q;
	char out[1024];

	snprintf(tool.exe, sizeof(tool.exe), "/opt/acme/bin/run");
	snprintf(tool.comm, sizeof(tool.comm), "worker-7");
	snprintf(backup.exe, sizeof(backup.exe), "/usr/bin/rsync");
	snprintf(backup.cgroup, sizeof(backup.cgroup), "/system.slice/backup.service/sub");
	snprintf(vm.exe, sizeof(vm.exe), "/usr/bin/qemu");
	snprintf(vm.cgroup, sizeof(vm.cgroup), "/machine.slice/vm1.scope");
	snprintf(user.exe, sizeof(user.exe), "/usr/bin/wget");
	user.gid = 100;
	slot.fetch = owner_fetch;
	slot.ctx = &src;
	p = parse(text, &err);
	CHECK(*failed, "exe, comm, unit, cgroup, user and group load", p != NULL);
	if (!p) {
		printf("# %s\n", err.msg);
		return;
	}
#define DECIDE(who) (src.info = (who), slot.state = 0, f.owner = &slot, \
		      afw_policy_match(p, &f, &m))
	f.dir = AFW_FDIR_OUT;
	CHECK(*failed, "curl to a debian.org host: allowed, the owner asked once",
	      DECIDE(&curl) == AFW_DECIDE_ALLOW && m.line == 2 && src.asked == 1);
	f.host = (struct afw_text){ "example.com", 11 };
	CHECK(*failed, "curl elsewhere: rejected by its exe rule",
	      DECIDE(&curl) == AFW_DECIDE_REJECT && m.line == 3);
	CHECK(*failed, "a glob of programs and of task names",
	      DECIDE(&tool) == AFW_DECIDE_ALLOW && m.line == 4);
	snprintf(tool.comm, sizeof(tool.comm), "worker-17");
	CHECK(*failed, "a task name the glob does not take", DECIDE(&tool) == AFW_DECIDE_DENY);
	CHECK(*failed, "a unit's own cgroups, in its network",
	      (inet_pton(AF_INET, "10.1.2.3", f.daddr), DECIDE(&backup)) == AFW_DECIDE_ALLOW &&
	      m.line == 5);
	snprintf(backup.cgroup, sizeof(backup.cgroup), "/system.slice/backup.service.d");
	CHECK(*failed, "not a unit whose name only begins the same",
	      DECIDE(&backup) == AFW_DECIDE_DENY);
	CHECK(*failed, "a cgroup and the cgroups below it (a trailing / is dropped)",
	      DECIDE(&vm) == AFW_DECIDE_INSPECT && m.line == 6);
	snprintf(vm.cgroup, sizeof(vm.cgroup), "/machine.slicer");
	CHECK(*failed, "not a cgroup whose name only begins the same",
	      DECIDE(&vm) == AFW_DECIDE_DENY);
	CHECK(*failed, "user is uid, from the packet; group from the owner",
	      (f.has_uid = true, f.uid = 1000, DECIDE(&user)) == AFW_DECIDE_ALLOW && m.line == 7);
	user.gid = 5;
	CHECK(*failed, "another group", DECIDE(&user) == AFW_DECIDE_DENY);
	src.asked = 0;
	CHECK(*failed, "a flow without an owner matches no owner rule",
	      DECIDE(NULL) == AFW_DECIDE_DENY && src.asked == 1);
	f.owner = NULL;
	CHECK(*failed, "nor one decided where owners are not known (a capture)",
	      afw_policy_match(p, &f, &m) == AFW_DECIDE_DENY);
	src.info = &curl;
	slot.state = 0;
	f.owner = &slot;
	f.host = (struct afw_text){ 0 };
	CHECK(*failed, "not settled at the first packet where a rule of its program reads",
	      afw_policy_settled(p, &f, AFW_POLICY_SETTLE_RULES, &m) == false);
	CHECK(*failed, "printed with its owner tests",
	      printed(p, out, sizeof(out)) &&
	      strstr(out, "prio 2 exe /usr/bin/curl reject\n") &&
	      strstr(out, " exe /opt/*/bin/* comm worker-? allow\n") &&
	      strstr(out, " unit backup.service allow\n") &&
	      strstr(out, " cgroup /machine.slice inspect\n") &&
	      strstr(out, " uid 1000 group 0,100 allow\n"));
	q = printed(p, out, sizeof(out)) ? parse(out, &err) : NULL;
	CHECK(*failed, "and the printed policy loads", q != NULL);
	afw_policy_free(q);
	afw_policy_free(p);
#undef DECIDE

	/* Owner words where no flow has that owner: refused, pointing at the word. */
	CHECK(*failed, "an inbound rule on a program never matches",
	      fails("default deny\ndir in exe /usr/sbin/nginx allow\n", 2, 8, "exe",
		    "only flows this host starts name a program"));
	CHECK(*failed, "nor one on a task name, forwarded",
	      fails("default deny\ndir forward comm curl allow\n", 2, 13, "comm",
		    "only flows this host starts name a program"));
	CHECK(*failed, "a forwarded rule on a cgroup never matches",
	      fails("default deny\ndir forward cgroup /a allow\n", 2, 13, "cgroup",
		    "a forwarded flow has no owner here"));
	p = parse("default deny\ndir in unit nginx.service allow\n"
		  "dir in,out exe /usr/bin/curl allow\ndir in,forward group adm allow\n", &err);
	CHECK(*failed, "an inbound rule on a unit, and one on a program both ways, load", p != NULL);
	afw_policy_free(p);

	p = parse("default deny\nprio 1 exe /usr/bin/curl dport 443 allow\n", &err);
	CHECK(*failed, "a program's port rule loads", p != NULL);
	if (p) {
		src.info = &curl;
		slot.state = 0;
		CHECK(*failed, "and settles its flow at the first packet, unread",
		      afw_policy_settled(p, &f, AFW_POLICY_SETTLE_RULES, &m) && m.line == 2 &&
		      m.verdict == AFW_DECIDE_ALLOW);
		src.info = &tool;
		slot.state = 0;
		CHECK(*failed, "another program's by the default deny",
		      afw_policy_settled(p, &f, AFW_POLICY_SETTLE_RULES, &m) && m.is_default);
		afw_policy_free(p);
	}
	p = parse("default allow\nprio 1 exe /usr/bin/curl deny\nprio 2 exe /usr/bin/curl "
		  "comm curl reject\nprio 3 unit a.service allow\nprio 4 unit a.service,"
		  "b.service deny\n", &err);
	CHECK(*failed, "a narrower rule after a wider one on the same program loads",
	      p != NULL);
	if (p) {
		struct shadowed sh = { 0 };

		afw_policy_unreachable(p, 1000, note_shadowed, &sh);
		CHECK(*failed, "and --check says it never decides; a unit list that adds one does",
		      sh.n == 1 && sh.line[3]);
		afw_policy_free(p);
	}
	CHECK(*failed, "exe must be a path", fails("default deny\nexe curl allow\n", 2, 5,
						  "curl", "absolute path"));
	CHECK(*failed, "comm is 15 bytes at most",
	      fails("default deny\ncomm a-very-long-name allow\n", 2, 6, "a-very-long-name",
		    "at most 15 bytes"));
	CHECK(*failed, "a cgroup is a path", fails("default deny\ncgroup system.slice allow\n",
						   2, 8, "system.slice", "cgroup2 root"));
	CHECK(*failed, "a unit has no /", fails("default deny\nunit system.slice/a allow\n", 2,
						6, "system.slice/a", "unit's name"));
	CHECK(*failed, "user and uid are one keyword",
	      fails("default deny\nuid 1 user 2 allow\n", 2, 7, "user", "given twice"));
	CHECK(*failed, "an unknown group", fails("default deny\ngroup no-such-group-here allow\n",
						 2, 7, "no-such-group-here", "no such group"));
}

/*
 * Every example policy in the docs (a fenced block of docs/policy.md, a
 * .nf block of afwd-policy(5), that has a default line) loads, and refuses
 * give-ups on TCP 443 and 80 and UDP 443.
 */
static void test_doc_examples(int *failed, const char *path, const char *open_mark,
			      const char *close_mark)
{
	static const struct {
		enum afw_reason reason;
		uint8_t proto;
		uint16_t port;
	} giveups[] = {
		{ AFW_REASON_NOT_TLS, IPPROTO_TCP, 443 }, { AFW_REASON_BOUND, IPPROTO_TCP, 443 },
		{ AFW_REASON_TIMEOUT, IPPROTO_TCP, 80 }, { AFW_REASON_NOT_TLS, IPPROTO_UDP, 443 },
		{ AFW_REASON_TABLE_FULL, IPPROTO_UDP, 443 }, { AFW_REASON_MALFORMED, IPPROTO_TCP, 443 },
	};
	static char text[1 << 16], block[8192];
	unsigned int examples = 0, refused;
	struct afw_policy_error err;
	struct afw_policy *p;
	struct afw_facts f;
	char *at, *end, what[160];
	size_t n, i;
	FILE *in = fopen(path, "r");

	n = in ? fread(text, 1, sizeof(text) - 1, in) : 0;
	if (in)
		fclose(in);
	text[n] = '\0';
	for (at = text; (at = strstr(at, open_mark)); at = end + strlen(close_mark)) {
		at = strchr(at, '\n');
		if (!at)
			break;
		end = strstr(++at, close_mark);
		if (!end)
			break;
		n = (size_t)(end - at) < sizeof(block) - 1 ? (size_t)(end - at) : sizeof(block) - 1;
		memcpy(block, at, n);
		block[n] = '\0';
		/* A policy has a line that starts with "default". */
		if (strncmp(block, "default ", 8) && !strstr(block, "\ndefault "))
			continue;
		examples++;
		p = afw_policy_parse(block, n, path, &err);
		snprintf(what, sizeof(what), "%s: example %u loads", path, examples);
		CHECK(*failed, what, p != NULL);
		if (!p) {
			printf("# %s\n", err.msg);
			continue;
		}
		for (refused = 0, i = 0; i < sizeof(giveups) / sizeof(giveups[0]); i++) {
			f = giveup(giveups[i].reason, giveups[i].proto, giveups[i].port);
			enum afw_decision d = afw_policy_match(p, &f, NULL);

			/* Asked: refused unless a person lets it through. */
			if (d == AFW_DECIDE_ASK)
				d = afw_policy_ask_default(p);
			refused += d == AFW_DECIDE_DENY || d == AFW_DECIDE_REJECT;
		}
		snprintf(what, sizeof(what), "%s: example %u refuses give-ups on TCP 80, 443 and "
			 "UDP 443", path, examples);
		CHECK(*failed, what, refused == sizeof(giveups) / sizeof(giveups[0]));
		afw_policy_free(p);
	}
	snprintf(what, sizeof(what), "%s has example policies", path);
	CHECK(*failed, what, examples >= 2);
}

/* Who started the flow, and from where: dir, from, sport, iif, oif. */
static void test_direction(int *failed)
{
	static const char text[] =
		"default deny\n"
		"prio 10 dir in from 192.0.2.0/24 sport 1024-65535 proto tcp dport 22 allow\n"
		"prio 20 dir out oif lo proto udp dport 53 allow\n"
		"prio 30 dir in,forward iif lo reject\n"
		"prio 40 sport 53 inspect\n";
	struct afw_policy_error err;
	struct afw_policy *p = parse(text, &err), *q;
	struct afw_facts f;
	char *out = NULL;
	size_t outlen = 0;
	FILE *o;
	unsigned int lo = if_nametoindex("lo");

	CHECK(*failed, "dir, from, sport, iif, oif parse", p != NULL);
	if (!p) {
		printf("# %s\n", err.msg);
		return;
	}
	f = tls_flow(NULL);
	f.l7 = AFW_L7_UNKNOWN;
	f.dport = 22;
	f.sport = 40000;
	inet_pton(AF_INET, "192.0.2.7", f.saddr);
	f.dir = AFW_FDIR_IN;
	CHECK(*failed, "an inbound SSH flow from the prefix is allowed", line_of(p, &f) == 2);
	f.dir = AFW_FDIR_OUT;
	CHECK(*failed, "the same flow started by this host is not", line_of(p, &f) == 1);
	f.dir = AFW_FDIR_UNKNOWN;
	CHECK(*failed, "nor one whose direction is unknown (a capture)", line_of(p, &f) == 1);
	f.dir = AFW_FDIR_IN;
	inet_pton(AF_INET, "198.51.100.7", f.saddr);
	CHECK(*failed, "nor one from another source", line_of(p, &f) == 1);
	inet_pton(AF_INET, "192.0.2.7", f.saddr);
	f.sport = 1000;
	CHECK(*failed, "nor one from a source port out of range", line_of(p, &f) == 1);
	f.family = AF_INET6;
	f.sport = 40000;
	CHECK(*failed, "an IPv4 'from' never matches an IPv6 flow", line_of(p, &f) == 1);

	f = tls_flow(NULL);
	f.l7 = AFW_L7_DNS;
	f.l4proto = IPPROTO_UDP;
	f.dport = 53;
	f.dir = AFW_FDIR_OUT;
	f.oif = lo;
	CHECK(*failed, "oif: a query out by lo", line_of(p, &f) == 3);
	f.oif = lo + 1000;
	CHECK(*failed, "oif: not by another interface", line_of(p, &f) == 1);
	f.oif = 0;
	CHECK(*failed, "oif: not without one", line_of(p, &f) == 1);
	f.dir = AFW_FDIR_FORWARD;
	f.iif = lo;
	CHECK(*failed, "dir lists: forward, iif lo", line_of(p, &f) == 4);
	f.dir = AFW_FDIR_OUT;
	CHECK(*failed, "iif: not for the other direction", line_of(p, &f) == 1);
	f.sport = 53;
	CHECK(*failed, "sport alone", line_of(p, &f) == 5);
	f.l4proto = 1;
	CHECK(*failed, "sport never matches a protocol without ports", line_of(p, &f) == 1);

	/* Printed and read back, it decides the same. */
	o = open_memstream(&out, &outlen);
	afw_policy_print(p, o);
	fclose(o);
	q = afw_policy_parse(out, outlen, "printed", &err);
	CHECK(*failed, "printed with its new terms, it reads back", q != NULL &&
	      strstr(out, "dir in from 192.0.2.0/24 sport 1024-65535") &&
	      strstr(out, "dir in,forward iif lo reject") && strstr(out, "oif lo"));
	if (q) {
		f = tls_flow(NULL);
		f.dport = 22;
		f.sport = 40000;
		inet_pton(AF_INET, "192.0.2.7", f.saddr);
		f.dir = AFW_FDIR_IN;
		CHECK(*failed, "and decides the same", line_of(q, &f) != 1);
	}
	afw_policy_free(q);
	free(out);
	afw_policy_free(p);

	CHECK(*failed, "dir: an unknown direction",
	      fails("default deny\ndir sideways deny\n", 2, 5, "sideways", "in, out or forward"));
	CHECK(*failed, "dir: given twice",
	      fails("default deny\ndir in dir out deny\n", 2, 8, "dir", "given twice"));
	CHECK(*failed, "iif: an interface that does not exist",
	      fails("default deny\niif afwnosuch0 deny\n", 2, 5, "afwnosuch0", "no such interface"));
	CHECK(*failed, "oif: a name too long",
	      fails("default deny\noif abcdefghijklmnopq deny\n", 2, 5, "abcdefghijklmnopq",
		    "at most 15 bytes"));
	CHECK(*failed, "from: bits beyond the prefix",
	      fails("default deny\nfrom 10.0.0.1/8 deny\n", 2, 6, "10.0.0.1/8", "beyond the prefix"));
	CHECK(*failed, "sport: a port too large",
	      fails("default deny\nsport 70000 deny\n", 2, 7, "70000", "0-65535"));
}

/* ask: its settings, the answers a policy consults, and that it never settles. */
static void test_ask(int *failed)
{
	struct afw_facts a = tls_flow("a.example"), b = tls_flow("b.example"), n = tls_flow(NULL);
	struct afw_policy_error err;
	struct afw_policy *p, *ans;
	struct afw_policy_match m;
	char buf[4096];
	FILE *out;

	p = parse("default deny\nprio 1 host *.example ask\n", &err);
	CHECK(*failed, "ask is an action; its settings default to deny after 60 s",
	      p && afw_policy_asks(p) && afw_policy_ask_default(p) == AFW_DECIDE_DENY &&
	      afw_policy_ask_timeout(p) == 60 && afw_policy_match(p, &a, &m) == AFW_DECIDE_ASK &&
	      m.line == 2 && !m.answered);
	afw_policy_free(p);
	p = parse("default allow\n", &err);
	CHECK(*failed, "a policy without ask does not ask", p && !afw_policy_asks(p));
	afw_policy_free(p);
	p = parse("default ask\nask-default reject\nask-timeout 86400\n", &err);
	CHECK(*failed, "default ask, ask-default and ask-timeout parse",
	      p && afw_policy_asks(p) && afw_policy_ask_default(p) == AFW_DECIDE_REJECT &&
	      afw_policy_ask_timeout(p) == 86400 && afw_policy_default(p) == AFW_DECIDE_ASK);
	if (p && (out = fmemopen(buf, sizeof(buf), "w"))) {
		afw_policy_print(p, out);
		fclose(out);
		CHECK(*failed, "and print back",
		      !strcmp(buf, "default ask\nask-default reject\nask-timeout 86400\n"));
	}
	afw_policy_free(p);
	CHECK(*failed, "ask-default is a person's answer, not inspect",
	      fails("default ask\nask-default inspect\n", 2, 13, "inspect",
		    "what an unanswered ask becomes: allow, deny or reject"));
	CHECK(*failed, "nor ask", fails("default ask\nask-default ask\n", 2, 13, "ask",
					 "allow, deny or reject"));
	CHECK(*failed, "ask-timeout 0 is refused",
	      fails("default ask\nask-timeout 0\n", 2, 13, "0", "seconds, 1 to 86400"));
	CHECK(*failed, "as is 86401", fails("default ask\nask-timeout 86401\n", 2, 13, "86401",
					     "seconds, 1 to 86400"));
	CHECK(*failed, "a setting given twice names the first",
	      fails("default ask\nask-timeout 5\nask-timeout 6\n", 3, 1, "ask-timeout",
		    "first on line 2"));
	CHECK(*failed, "nothing follows a setting",
	      fails("default ask\nask-default deny now\n", 2, 18, "now", "nothing may follow"));

	/* Answers: consulted where the policy says ask, and only there. */
	p = parse("default ask\nprio 1 host b.example deny\n", &err);
	ans = parse("default ask\nhost a.example allow\nhost b.example allow\n", &err);
	if (p && ans) {
		afw_policy_set_answers(p, ans);
		CHECK(*failed, "an answer decides an asked flow, naming its line",
		      afw_policy_match(p, &a, &m) == AFW_DECIDE_ALLOW && m.answered && m.line == 2 &&
		      !m.is_default);
		CHECK(*failed, "a rule above the ask decides as before, whatever the answers",
		      afw_policy_match(p, &b, &m) == AFW_DECIDE_DENY && !m.answered && m.line == 2);
		CHECK(*failed, "a flow no answer covers stays asked",
		      afw_policy_match(p, &n, &m) == AFW_DECIDE_ASK && !m.answered &&
		      m.is_default);
		CHECK(*failed, "the policy gives its answers", afw_policy_answers(p) == ans);
	} else {
		afw_policy_free(ans);
	}
	afw_policy_free(p);

	/* Never settled at the SYN: the person asked sees the host name. */
	p = parse("default deny\nprio 1 proto tcp dport 443 ask\n", &err);
	n.l7 = AFW_L7_UNKNOWN;
	CHECK(*failed, "an ask rule of the ends alone does not settle a connection",
	      p && !afw_policy_settled(p, &n, AFW_POLICY_SETTLE_RULES, &m));
	afw_policy_free(p);
	p = parse("default ask\n", &err);
	CHECK(*failed, "nor does default ask", p &&
	      !afw_policy_settled(p, &n, AFW_POLICY_SETTLE_RULES, &m));
	afw_policy_free(p);
}

int main(void)
{
	int failed = 0;

	test_parse(&failed);
	test_match(&failed);
	test_reload_check(&failed);
	test_random(&failed);
	test_many(&failed);
	test_terms(&failed);
	test_unreachable(&failed);
	test_settled_budget(&failed);
	test_passes_syns(&failed);
	test_keyed(&failed);
	test_direction(&failed);
	test_dist(&failed);
	test_dist_baseline(&failed);
	test_resolvers(&failed);
	test_owner(&failed);
	test_ask(&failed);
	test_doc_examples(&failed, "docs/policy.md", "```", "```");
	test_doc_examples(&failed, "docs/afwd-policy.5", ".nf", ".fi");
	return failed;
}
