// SPDX-License-Identifier: GPL-2.0
/*
 * The rule text syntax: what parses, what each error names, and that the
 * formatted text parses back to the same rule.
 */

#include <string.h>

#include <linux/afw.h>

#include "check.h"
#include "rule.h"

static int parse(const char *text, struct afw_rule_spec *r, char *err, size_t errlen)
{
	struct afw_perr e;
	char line[512];
	bool empty;
	int ret;

	snprintf(line, sizeof(line), "%s", text);
	ret = afw_rule_parse_line(line, r, &empty, &e);
	snprintf(err, errlen, "%s", ret ? e.msg : "");
	return ret;
}

/* The column the error points at, or 0. */
static unsigned int error_col(const char *text)
{
	struct afw_rule_spec r;
	struct afw_perr e;
	char line[512];
	bool empty;

	snprintf(line, sizeof(line), "%s", text);
	return afw_rule_parse_line(line, &r, &empty, &e) ? e.col : 0;
}

/* Parse, format, parse again: both parses must agree field by field. */
static bool round_trips(const char *text)
{
	struct afw_rule_spec a, b;
	char err[256], out[512];

	if (parse(text, &a, err, sizeof(err)))
		return false;
	afw_rule_format(&a, true, out, sizeof(out));
	if (parse(out, &b, err, sizeof(err)))
		return false;
	return !memcmp(&a, &b, sizeof(a));
}

static bool error_names(const char *text, const char *needle)
{
	struct afw_rule_spec r;
	char err[256] = "";

	return parse(text, &r, err, sizeof(err)) == -1 && strstr(err, needle);
}

int main(void)
{
	struct afw_rule_spec r;
	char err[256], out[512];
	bool empty;
	int failed = 0;

	CHECK(failed, "a minimal rule parses", parse("drop", &r, err, sizeof(err)) == 0 &&
	      r.action == AFW_ACTION_DROP && r.dirs == AFW_DIRS_ALL && !r.family);
	CHECK(failed, "a full rule parses",
	      parse("id 7 prio 3 dir in,forward proto tcp from 192.0.2.0/24 to 198.51.100.7 "
		    "sport 1000-2000 dport 443 iif eth0 accept", &r, err, sizeof(err)) == 0 &&
	      r.id == 7 && r.prio == 3 && r.family == AFW_FAMILY_IPV4 &&
	      r.dirs == ((1 << AFW_DIR_IN) | (1 << AFW_DIR_FORWARD)) && r.proto == 6 &&
	      r.src_len == 24 && r.dst_len == 32 && r.sport_lo == 1000 && r.sport_hi == 2000 &&
	      r.dport_lo == 443 && r.dport_hi == 443 && !strcmp(r.iif, "eth0"));
	CHECK(failed, "the family follows from an IPv6 address",
	      parse("to 2001:db8::/32 reject", &r, err, sizeof(err)) == 0 &&
	      r.family == AFW_FAMILY_IPV6 && r.dst_len == 32);
	CHECK(failed, "a comment-only line is empty",
	      afw_rule_parse_line((char[]){ "   # nothing here" }, &r, &empty, &(struct afw_perr){ 0 }) == 0 && empty);
	CHECK(failed, "a trailing comment is ignored",
	      parse("proto udp dport 53 accept # DNS", &r, err, sizeof(err)) == 0 && r.dport_lo == 53);

	CHECK(failed, "round trip: minimal", round_trips("accept"));
	CHECK(failed, "round trip: everything",
	      round_trips("id 4294967295 prio 9 family ipv6 dir out proto udp from 2001:db8:1::/48 "
			  "to ::1 sport 0-65535 dport 5353 oif veth-long-name1 uid 1000 gid 100 reject"));
	CHECK(failed, "round trip: protocol by number", round_trips("proto 47 drop"));
	CHECK(failed, "round trip: program and cgroup",
	      round_trips("dir out exe /usr/bin/curl cgroup /system.slice/backup.service accept"));

	/* Programs and cgroups: the one form the kernel compares, or an error. */
	CHECK(failed, "a cgroup as /proc/PID/cgroup shows it",
	      parse("cgroup 0::/system.slice/x.service drop", &r, err, sizeof(err)) == 0 &&
	      (r.has & AFW_R_CGROUP) && !strcmp(r.cgroup, "/system.slice/x.service"));
	CHECK(failed, "a cgroup under /sys/fs/cgroup, with a trailing slash",
	      parse("cgroup /sys/fs/cgroup/user.slice/ drop", &r, err, sizeof(err)) == 0 &&
	      !strcmp(r.cgroup, "/user.slice"));
	CHECK(failed, "a cgroup under a hybrid hierarchy's /sys/fs/cgroup/unified",
	      parse("cgroup /sys/fs/cgroup/unified/a drop", &r, err, sizeof(err)) == 0 &&
	      !strcmp(r.cgroup, "/a"));
	CHECK(failed, "the hierarchy's root itself", parse("cgroup /sys/fs/cgroup drop", &r, err, sizeof(err)) == 0 &&
	      !strcmp(r.cgroup, "/"));
	CHECK(failed, "a cgroup relative to the root",
	      parse("cgroup system.slice drop", &r, err, sizeof(err)) == 0 &&
	      !strcmp(r.cgroup, "/system.slice"));
	CHECK(failed, "the root cgroup", parse("cgroup / drop", &r, err, sizeof(err)) == 0 &&
	      !strcmp(r.cgroup, "/"));
	CHECK(failed, "a cgroup with '..' is refused",
	      error_names("cgroup /system.slice/../x drop", "'cgroup /system.slice/../x'"));
	CHECK(failed, "a relative program is refused",
	      error_names("exe curl drop", "'exe curl': a program is named by its absolute path"));
	CHECK(failed, "a program path with '//' is refused", error_names("exe /usr//bin/curl drop", "'//'"));
	CHECK(failed, "a program path with a trailing '/' is refused", error_names("exe /usr/bin/ drop", "'exe /usr/bin/'"));
	CHECK(failed, "a program path of 256 bytes is refused",
	      error_names("exe /aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
			  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
			  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
			  "aaaaaaaaaa drop", "a path of 256 bytes"));
	CHECK(failed, "a repeated exe is refused", error_names("exe /a exe /b drop", "given twice"));

	afw_rule_format(&(struct afw_rule_spec){ .dirs = AFW_DIRS_ALL, .action = AFW_ACTION_DROP,
						 .proto = 6, .prio = 1 }, false, out, sizeof(out));
	CHECK(failed, "format omits what the rule does not set", !strcmp(out, "prio 1 proto tcp drop"));

	CHECK(failed, "no action is an error", error_names("proto tcp", "no action"));
	CHECK(failed, "two actions are an error", error_names("accept drop", "'drop'"));
	CHECK(failed, "an unknown word is named", error_names("proto tcp frobnicate 3 drop", "'frobnicate'"));
	CHECK(failed, "a keyword without value is named", error_names("drop dport", "'dport'"));
	CHECK(failed, "ports without proto", error_names("dport 80 drop", "ports need proto"));
	CHECK(failed, "an empty range", error_names("proto tcp dport 90-80 drop", "'dport 90-80'"));
	CHECK(failed, "a port above 65535", error_names("proto tcp dport 70000 drop", "'dport 70000'"));
	CHECK(failed, "host bits set", error_names("from 192.0.2.1/24 drop", "beyond the prefix"));
	CHECK(failed, "a prefix too long", error_names("from 192.0.2.1/33 drop", "0 to 32"));
	CHECK(failed, "mixed families", error_names("from 192.0.2.1 to ::1 drop", "'to ::1'"));
	CHECK(failed, "family against an address", error_names("from ::1 family ipv4 drop", "'family ipv4'"));
	CHECK(failed, "a bad direction", error_names("dir in,sideways drop", "'sideways'"));
	CHECK(failed, "a bad protocol", error_names("proto 0 drop", "'proto 0'"));
	CHECK(failed, "id 0", error_names("id 0 drop", "'id 0'"));
	CHECK(failed, "a long interface name", error_names("iif abcdefghijklmnop drop", "1-15 bytes"));
	CHECK(failed, "an unknown user is named", error_names("uid no-such-user-afw drop",
							     "'uid no-such-user-afw': not a user"));
	CHECK(failed, "an unknown group is named", error_names("gid no-such-group-afw drop",
							       "'gid no-such-group-afw'"));

	/* Each keyword once, as in afwd's policy: the last one used to win in silence. */
	CHECK(failed, "a repeated sport is refused",
	      error_names("proto tcp sport 22 dport 22 sport 23 drop", "'sport': given twice"));
	CHECK(failed, "and the error points at the second sport",
	      error_col("proto tcp sport 22 dport 22 sport 23 drop") == 29);
	CHECK(failed, "a repeated proto is refused", error_names("proto tcp proto udp drop", "'proto'"));
	CHECK(failed, "a repeated from is refused",
	      error_names("from 192.0.2.1 from 192.0.2.2 drop", "given twice"));
	CHECK(failed, "a repeated dir is refused", error_names("dir in dir out drop", "given twice"));
	CHECK(failed, "a repeated prio is refused", error_names("prio 1 prio 2 drop", "given twice"));
	CHECK(failed, "a repeated uid is refused", error_names("uid 1 uid 2 drop", "given twice"));
	CHECK(failed, "a repeated id is refused", error_names("id 1 id 2 drop", "given twice"));
	CHECK(failed, "a repeated action is refused, naming the first",
	      error_names("accept accept", "'accept' is on this rule already"));

	/* One vocabulary: afwd's allow and deny work here too. */
	CHECK(failed, "allow is accept", parse("proto tcp allow", &r, err, sizeof(err)) == 0 &&
	      r.action == AFW_ACTION_ACCEPT);
	CHECK(failed, "deny is drop", parse("proto tcp deny", &r, err, sizeof(err)) == 0 &&
	      r.action == AFW_ACTION_DROP);
	afw_rule_format(&r, false, out, sizeof(out));
	CHECK(failed, "and prints as drop", !strcmp(out, "prio 0 proto tcp drop"));
	CHECK(failed, "allow and deny together are two actions", error_names("allow deny", "one action"));

	/* Names resolved at parse time. */
	CHECK(failed, "uid root is 0", parse("uid root gid root drop", &r, err, sizeof(err)) == 0 &&
	      (r.has & AFW_R_UID) && r.uid == 0 && (r.has & AFW_R_GID) && r.gid == 0);
	CHECK(failed, "a numeric uid stays a number", parse("uid 4242 drop", &r, err, sizeof(err)) == 0 &&
	      r.uid == 4242);
	CHECK(failed, "dport ssh is 22 for tcp", parse("proto tcp dport ssh accept", &r, err, sizeof(err)) == 0 &&
	      r.dport_lo == 22 && r.dport_hi == 22);
	CHECK(failed, "a service before its proto still resolves",
	      parse("dport domain proto udp accept", &r, err, sizeof(err)) == 0 && r.dport_lo == 53);
	CHECK(failed, "a range of service names", parse("proto tcp dport http-https accept", &r, err, sizeof(err)) == 0 &&
	      r.dport_lo == 80 && r.dport_hi == 443);
	CHECK(failed, "a service name with a dash", parse("proto udp sport netbios-ns accept", &r, err, sizeof(err)) == 0 &&
	      r.sport_lo == 137);
	CHECK(failed, "a service name and a number", parse("proto tcp dport ssh-2222 accept", &r, err, sizeof(err)) == 0 &&
	      r.dport_lo == 22 && r.dport_hi == 2222);
	CHECK(failed, "an unknown service is named",
	      error_names("proto tcp dport no-such-service drop", "'dport no-such-service'"));
	CHECK(failed, "and the error points at it", error_col("proto tcp dport nosuchsvc drop") == 17);

	/* Hints for typos, from the keyword list. */
	CHECK(failed, "a typo gets a hint", error_names("prot tcp drop", "did you mean 'proto'?"));
	CHECK(failed, "a swapped pair gets a hint", error_names("proto tcp dprot 22 drop", "did you mean 'dport'?"));
	CHECK(failed, "an action typo gets a hint", error_names("proto tcp acept", "did you mean 'accept'?"));
	CHECK(failed, "a protocol typo gets a hint", error_names("proto tpc drop", "did you mean 'tcp'?"));
	CHECK(failed, "a direction typo gets a hint", error_names("dir forwrd drop", "did you mean 'forward'?"));
	CHECK(failed, "nonsense gets no hint", parse("xyzzy 3 drop", &r, err, sizeof(err)) == -1 &&
	      !strstr(err, "did you mean"));

	/* Comments: one word, or quoted with blanks and '#' in it. */
	CHECK(failed, "a quoted comment keeps its blanks and its '#'",
	      parse("proto tcp dport 22 accept comment \"ssh from the office # 2\"", &r, err,
		    sizeof(err)) == 0 && (r.has & AFW_R_COMMENT) &&
	      !strcmp(r.comment, "ssh from the office # 2"));
	CHECK(failed, "a comment of one word needs no quotes",
	      parse("comment backup drop", &r, err, sizeof(err)) == 0 && !strcmp(r.comment, "backup"));
	CHECK(failed, "a '#' after the rule still starts a remark",
	      parse("drop comment \"a\" # \"not closed", &r, err, sizeof(err)) == 0 &&
	      !strcmp(r.comment, "a"));
	afw_rule_parse_line((char[]){ "proto udp dport 53 accept comment \"dns, both\"" }, &r,
			    &(bool){ false }, &(struct afw_perr){ 0 });
	afw_rule_format(&r, false, out, sizeof(out));
	CHECK(failed, "the comment is printed last, in quotes",
	      !strcmp(out, "prio 0 proto udp dport 53 accept comment \"dns, both\""));
	CHECK(failed, "a commented rule round-trips",
	      round_trips("id 4 family ipv6 proto tcp to 2001:db8::/32 reject comment \"v6 lab\""));
	CHECK(failed, "an empty comment is refused", error_names("comment \"\" drop", "an empty comment"));
	CHECK(failed, "a comment of 63 bytes is taken",
	      parse("drop comment 123456789012345678901234567890123456789012345678901234567890123",
		    &r, err, sizeof(err)) == 0 && strlen(r.comment) == 63);
	CHECK(failed, "one of 64 is refused, saying the bound",
	      error_names("drop comment 1234567890123456789012345678901234567890123456789012345678901234",
			  "64 bytes, and a comment is at most 63"));
	CHECK(failed, "a control character in a comment is refused",
	      error_names("drop comment \"a\tb\"", "no double quote or control character"));
	CHECK(failed, "an open quote is refused", error_names("drop comment \"abc", "without its closing"));
	CHECK(failed, "and the error points at the quote", error_col("drop comment \"abc") == 14);
	CHECK(failed, "text glued after a closing quote is refused",
	      error_names("drop comment \"a\"b", "more after it"));
	CHECK(failed, "a quote inside a word is refused", error_names("drop comment a\"b\"", "inside a word"));
	CHECK(failed, "comment twice is refused", error_names("comment a comment b drop", "given twice"));
	CHECK(failed, "the unknown word's column", error_col("proto tcp frobnicate 3 drop") == 11);
	return failed;
}
