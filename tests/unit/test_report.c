// SPDX-License-Identifier: GPL-2.0
/*
 * Decision records as users read them: every field of a text line and of a
 * JSON object, addresses of both families (IPv6 compressed as inet_ntop()
 * does, mapped IPv4 included), the time in UTC with milliseconds, and names
 * from the network escaped.
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "report.h"

enum { TEXT, JSON };

static char *render(int how, const struct afw_result *r, const struct timespec *when)
{
	static char buf[8192];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	if (how == JSON)
		afw_report_json(f, r, when);
	else
		afw_report_text(f, r, when);
	fclose(f);
	return buf;
}

static void addr(struct afw_result *r, const char *src, const char *dst)
{
	r->family = strchr(src, ':') ? AF_INET6 : AF_INET;
	inet_pton(r->family, src, r->src);
	inet_pton(r->family, dst, r->dst);
}

/* The address fields of a text line for @src and @dst. */
static const char *text_addrs(const char *src, const char *dst)
{
	static struct afw_result r;
	static char line[256];
	char *arrow, *end, *got;
	size_t n;

	memset(&r, 0, sizeof(r));
	addr(&r, src, dst);
	r.l4proto = IPPROTO_TCP;
	r.sport = 1;
	r.dport = 2;
	strcpy(r.reason, "x");
	got = render(TEXT, &r, NULL);
	n = strlen(got) < sizeof(line) - 1 ? strlen(got) : sizeof(line) - 1;
	memcpy(line, got, n);
	line[n] = '\0';
	arrow = strstr(line, " unknown:");
	end = arrow ? arrow : line + strlen(line);
	*end = '\0';
	return line + 4;	/* past "tcp " */
}

int main(int argc, char **argv)
{
	struct timespec when;
	struct afw_result r;
	int failed = 0;
	size_t i;
	static const struct {
		const char *a, *want;
	} v6[] = {
		{ "2001:db8::1", "[2001:db8::1]:1" },
		{ "::1", "[::1]:1" },
		{ "::", "[::]:1" },
		{ "::ffff:192.0.2.1", "[::ffff:192.0.2.1]:1" },
		{ "2001:db8:0:0:1:0:0:1", "[2001:db8::1:0:0:1]:1" },
		{ "2001:0:0:1:0:0:0:1", "[2001:0:0:1::1]:1" },
		{ "fe80::abcd:ef01:0:0", "[fe80::abcd:ef01:0:0]:1" },
		{ "2001:db8:1:2:3:4:5:6", "[2001:db8:1:2:3:4:5:6]:1" },
		{ "2001:db8:0:1:1:1:1:1", "[2001:db8:0:1:1:1:1:1]:1" },
		{ "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
		  "[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:1" },
	}, v4[] = {
		{ "0.0.0.0", "0.0.0.0:1" },
		{ "255.255.255.255", "255.255.255.255:1" },
		{ "10.0.0.1", "10.0.0.1:1" },
		{ "100.20.3.199", "100.20.3.199:1" },
		{ "192.0.2.10", "192.0.2.10:1" },
	};
	static const struct {
		time_t sec;
		long nsec;
		const char *want;
	} times[] = {
		{ 0, 0, "1970-01-01T00:00:00.000Z" },
		{ 951782399, 999999999, "2000-02-28T23:59:59.999Z" },
		{ 951782400, 1000000, "2000-02-29T00:00:00.001Z" },
		{ 1709251199, 500000000, "2024-02-29T23:59:59.500Z" },
		{ 1796204412, 123456789, "2026-12-02T09:40:12.123Z" },
		{ 4102444800, 42000000, "2100-01-01T00:00:00.042Z" },
	};
	char want[256], *got;
	long long t;

	(void)argc;
	(void)argv;
	for (i = 0; i < sizeof(v4) / sizeof(v4[0]); i++) {
		snprintf(want, sizeof(want), "%s -> %s", v4[i].want, v4[i].want);
		want[strlen(want) - 1] = '2';
		CHECK(failed, v4[i].a, !strcmp(text_addrs(v4[i].a, v4[i].a), want));
	}
	for (i = 0; i < sizeof(v6) / sizeof(v6[0]); i++) {
		snprintf(want, sizeof(want), "%s -> %s", v6[i].want, v6[i].want);
		want[strlen(want) - 1] = '2';
		CHECK(failed, v6[i].a, !strcmp(text_addrs(v6[i].a, v6[i].a), want));
	}

	memset(&r, 0, sizeof(r));
	addr(&r, "192.0.2.10", "198.51.100.20");
	r.l4proto = IPPROTO_TCP;
	r.sport = 40000;
	r.dport = 443;
	strcpy(r.reason, "x");
	for (i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		when.tv_sec = times[i].sec;
		when.tv_nsec = times[i].nsec;
		snprintf(want, sizeof(want), "%s tcp ", times[i].want);
		got = render(TEXT, &r, &when);
		CHECK(failed, times[i].want, !strncmp(got, want, strlen(want)));
		snprintf(want, sizeof(want), "{\"time\":\"%s\",\"proto\"", times[i].want);
		got = render(JSON, &r, &when);
		CHECK(failed, times[i].want, !strncmp(got, want, strlen(want)));
	}

	/* Each day from 1970 to 2400, at a second that moves, as glibc has it. */
	for (i = 0, t = 0; t < 13569465600ll; t += 86400 + 7919, i++) {
		struct tm tm;
		char day[32];

		when.tv_sec = t;
		when.tv_nsec = (long)(i % 1000) * 1000000 + 999999;
		gmtime_r(&when.tv_sec, &tm);
		strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(want, sizeof(want), "%s.%03zuZ tcp ", day, i % 1000);
		got = render(TEXT, &r, &when);
		if (strncmp(got, want, strlen(want)))
			break;
	}
	CHECK(failed, "each day to 2400 in UTC, as gmtime_r() has it", t >= 13569465600ll);

	/* Every field at once, with names a client chose. */
	r.l7 = AFW_L7_TLS;
	strcpy(r.host, "a\"b\\c\x01 d");
	memcpy(r.alpn, "\x02h2\x03x,y\x01\x7f", 9);
	r.alpn_len = 9;
	r.n_alpn = 3;
	r.ech = true;
	r.giveup = AFW_REASON_MALFORMED;
	strcpy(r.ja4, "t13d1516h2_8daaf6152771_e5627efa2ab1");
	r.tls_version = 0x0304;
	r.decision = AFW_DECIDE_DENY;
	r.rule_line = 7;
	strcpy(r.reason, "tls, policy line 7");
	r.has_uid = true;
	r.uid = 1000;
	r.has_owner = true;
	r.owner_pid = 4242;
	strcpy(r.owner_comm, "cu\"rl\n");
	strcpy(r.owner_exe, "/usr/bin/cu rl");
	r.packets = 18446744073709551615ull;
	when.tv_sec = 1796204412;
	when.tv_nsec = 123456789;
	got = render(TEXT, &r, &when);
	CHECK(failed, "a text line with every field",
	      !strcmp(got, "2026-12-02T09:40:12.123Z tcp 192.0.2.10:40000 -> 198.51.100.20:443 tls "
		      "sni=\"a\\\"b\\\\c\\x01 d\" alpn=\"h2\",\"x,y\",\"\\x7f\" ech giveup=malformed "
		      "version=1.3 ja4=t13d1516h2_8daaf6152771_e5627efa2ab1 uid=1000 pid=4242 "
		      "comm=\"cu\\\"rl\\x0a\" exe=\"/usr/bin/cu rl\": deny (tls, policy line 7)\n"));
	got = render(JSON, &r, &when);
	CHECK(failed, "a JSON object with every field",
	      !strcmp(got, "{\"time\":\"2026-12-02T09:40:12.123Z\",\"proto\":\"tls\",\"l4\":\"tcp\","
		      "\"src\":\"192.0.2.10\",\"dst\":\"198.51.100.20\",\"sport\":40000,\"dport\":443,"
		      "\"sni\":\"a\\\"b\\\\c\\u0001 d\",\"alpn\":[\"h2\",\"x,y\",\"\\u007f\"],"
		      "\"ech\":true,\"tls_version\":\"1.3\","
		      "\"ja4\":\"t13d1516h2_8daaf6152771_e5627efa2ab1\",\"http_host\":null,"
		      "\"http_method\":null,\"dns_name\":null,\"giveup\":\"malformed\","
		      "\"verdict\":\"deny\",\"reason\":\"tls, policy line 7\",\"policy_line\":7,"
		      "\"uid\":1000,\"pid\":4242,\"comm\":\"cu\\\"rl\\n\",\"exe\":\"/usr/bin/cu rl\","
		      "\"packets\":18446744073709551615}\n"));

	/* HTTP from an inbound flow's listener, no time: --pcap's lines. */
	memset(&r, 0, sizeof(r));
	addr(&r, "::ffff:10.0.0.1", "2001:db8::20");
	r.l4proto = IPPROTO_TCP;
	r.sport = 1;
	r.dport = 80;
	r.l7 = AFW_L7_HTTP;
	strcpy(r.host, "example.com");
	strcpy(r.http_method, "GET");
	r.tls_version = 0x0300;
	r.decision = AFW_DECIDE_ALLOW;
	strcpy(r.reason, "default");
	r.has_owner = true;
	r.owner_listener = true;
	r.packets = 1;
	got = render(TEXT, &r, NULL);
	CHECK(failed, "a text line of HTTP, listener",
	      !strcmp(got, "tcp [::ffff:10.0.0.1]:1 -> [2001:db8::20]:80 http host=\"example.com\" "
		      "version=ssl3 listener: allow (default)\n"));
	got = render(JSON, &r, NULL);
	CHECK(failed, "a JSON object of HTTP, listener",
	      !strcmp(got, "{\"proto\":\"http\",\"l4\":\"tcp\",\"src\":\"::ffff:10.0.0.1\","
		      "\"dst\":\"2001:db8::20\",\"sport\":1,\"dport\":80,\"sni\":null,\"alpn\":[],"
		      "\"tls_version\":\"ssl3\",\"ja4\":null,\"http_host\":\"example.com\","
		      "\"http_method\":\"GET\",\"dns_name\":null,\"verdict\":\"allow\","
		      "\"reason\":\"default\",\"listener\":true,\"packets\":1}\n"));

	/* A ping, a DNS name, a protocol with no name, an odd version. */
	memset(&r, 0, sizeof(r));
	addr(&r, "10.1.2.3", "10.3.2.1");
	r.l4proto = IPPROTO_ICMP;
	r.echo = AFW_PKT_ECHO_REQUEST;
	r.icmp_id = 65535;
	r.decision = AFW_DECIDE_REJECT;
	strcpy(r.reason, "r");
	got = render(TEXT, &r, NULL);
	CHECK(failed, "a text line of a ping",
	      !strcmp(got, "icmp 10.1.2.3:0 -> 10.3.2.1:0 unknown echo-request id=65535: "
		      "reject (r)\n"));
	got = render(JSON, &r, NULL);
	CHECK(failed, "a JSON object of a ping",
	      strstr(got, "\"sport\":0,\"dport\":0,\"echo\":\"request\",\"icmp_id\":65535,") != NULL);
	r.l4proto = IPPROTO_UDP;
	r.echo = 0;
	r.l7 = AFW_L7_DNS;
	strcpy(r.host, "x.example");
	r.tls_version = 0x7f1c;
	r.sport = 53000;
	r.dport = 53;
	got = render(TEXT, &r, NULL);
	CHECK(failed, "a text line of DNS",
	      !strcmp(got, "udp 10.1.2.3:53000 -> 10.3.2.1:53 dns qname=\"x.example\" "
		      "version=0x7f1c: reject (r)\n"));
	got = render(JSON, &r, NULL);
	CHECK(failed, "a JSON object of DNS",
	      strstr(got, "\"tls_version\":\"0x7f1c\",") && strstr(got, "\"dns_name\":\"x.example\""));
	r.l4proto = 132;
	r.tls_version = 0x0302;
	got = render(TEXT, &r, NULL);
	CHECK(failed, "another protocol, TLS 1.1",
	      !strcmp(got, "other 10.1.2.3:53000 -> 10.3.2.1:53 dns qname=\"x.example\" "
		      "version=1.1: reject (r)\n"));
	return failed;
}
