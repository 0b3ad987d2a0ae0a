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
	char line[512];
	bool empty;

	snprintf(line, sizeof(line), "%s", text);
	return afw_rule_parse_line(line, r, &empty, err, errlen);
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
	      afw_rule_parse_line((char[]){ "   # nothing here" }, &r, &empty, err, sizeof(err)) == 0 && empty);
	CHECK(failed, "a trailing comment is ignored",
	      parse("proto udp dport 53 accept # DNS", &r, err, sizeof(err)) == 0 && r.dport_lo == 53);

	CHECK(failed, "round trip: minimal", round_trips("accept"));
	CHECK(failed, "round trip: everything",
	      round_trips("id 4294967295 prio 9 family ipv6 dir out proto udp from 2001:db8:1::/48 "
			  "to ::1 sport 0-65535 dport 5353 oif veth-long-name1 uid 1000 gid 100 reject"));
	CHECK(failed, "round trip: protocol by number", round_trips("proto 47 drop"));

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
	CHECK(failed, "a uid that is not a number", error_names("uid root drop", "'uid root'"));
	return failed;
}
