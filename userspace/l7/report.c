// SPDX-License-Identifier: GPL-2.0
/*
 * Decision records. Host names and ALPN values come from the network, so
 * they go through escape.h, in text and in JSON: a log line must never
 * carry a client's control characters, and a name must never end its
 * field early to forge another field or line.
 */

#include <arpa/inet.h>
#include <stdbool.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>

#include "escape.h"
#include "report.h"

void afw_json_string(FILE *out, const char *s)
{
	afw_json_bytes(out, s, strlen(s));
}

/* The ALPN ids of @r, as written by the engine: a length byte, then the id. */
static bool afw_alpn_next(const struct afw_result *r, size_t *off, const uint8_t **id,
			  size_t *len)
{
	if (*off >= r->alpn_len || r->alpn[*off] > r->alpn_len - *off - 1)
		return false;
	*len = r->alpn[*off];
	*id = r->alpn + *off + 1;
	*off += 1 + *len;
	return true;
}

/* Each ALPN id of @r, separated by ',': in JSON, or as quoted text fields. */
static void afw_alpn_list(struct afw_out *o, const struct afw_result *r,
			  void (*put)(struct afw_out *o, const void *p, size_t n))
{
	const uint8_t *id;
	size_t off = 0, len;

	while (afw_alpn_next(r, &off, &id, &len)) {
		if (off != 1 + len)
			afw_out_char(o, ',');
		put(o, id, len);
	}
}

static const char *afw_l4_name(uint8_t proto)
{
	switch (proto) {
	case IPPROTO_TCP:
		return "tcp";
	case IPPROTO_UDP:
		return "udp";
	case IPPROTO_ICMP:
		return "icmp";
	case IPPROTO_ICMPV6:
		return "icmpv6";
	default:
		return "other";
	}
}

/*
 * An address of @r. IPv4 is written here (inet_ntop() formats each byte
 * through sprintf()); IPv6, with its zero runs and embedded IPv4, is left
 * to inet_ntop().
 */
static void afw_out_addr(struct afw_out *o, const struct afw_result *r, const uint8_t *a)
{
	char buf[INET6_ADDRSTRLEN];
	size_t n = 0;
	int i;

	if (r->family == AF_INET) {
		for (i = 0; i < 4; i++) {
			if (a[i] >= 100)
				buf[n++] = (char)('0' + a[i] / 100);
			if (a[i] >= 10)
				buf[n++] = (char)('0' + a[i] / 10 % 10);
			buf[n++] = (char)('0' + a[i] % 10);
			buf[n++] = '.';
		}
		afw_out_put(o, buf, n - 1);
		return;
	}
	afw_out_str(o, inet_ntop(r->family, a, buf, sizeof(buf)) ? buf : "?");
}

/* TLS version @v (not 0): "1.3" for 0x0304, "ssl3", else 0x and its four digits. */
static void afw_out_tls_version(struct afw_out *o, uint16_t v)
{
	if (v == 0x0300) {
		afw_out_str(o, "ssl3");
	} else if (v >= 0x0301 && v <= 0x0304) {
		afw_out_str(o, "1.");
		afw_out_uint(o, v - 0x0301u);
	} else {
		afw_out_hex(o, "0x", 2, (unsigned char)(v >> 8));
		afw_out_hex(o, "", 0, (unsigned char)v);
	}
}

/* @n as two digits at @s. */
static void afw_two_digits(char *s, unsigned int n)
{
	s[0] = (char)('0' + n / 10);
	s[1] = (char)('0' + n % 10);
}

/*
 * @when as RFC 3339 in UTC with milliseconds, e.g. 2026-12-01T09:40:12.123Z,
 * for times from 1970 to 9999. The date comes from the day count by the
 * proleptic Gregorian calendar, in 400-year eras of 146,097 days that start
 * on March 1st, so that a leap day ends its year: gmtime_r() would take
 * glibc's time zone lock for every record.
 */
static void afw_out_time(struct afw_out *o, const struct timespec *when)
{
	uint64_t sec = when->tv_sec > 0 ? (uint64_t)when->tv_sec : 0;
	uint64_t days = sec / 86400 + 719468;	/* from 0000-03-01 */
	unsigned int s = (unsigned int)(sec % 86400), era, doe, yoe, doy, mp, day, month;
	uint64_t year;
	char t[24];

	era = (unsigned int)(days / 146097);
	doe = (unsigned int)(days % 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	day = doy - (153 * mp + 2) / 5 + 1;
	month = mp < 10 ? mp + 3 : mp - 9;
	year = (uint64_t)era * 400 + yoe + (month <= 2);
	afw_two_digits(t, (unsigned int)(year / 100 % 100));
	afw_two_digits(t + 2, (unsigned int)(year % 100));
	t[4] = '-';
	afw_two_digits(t + 5, month);
	t[7] = '-';
	afw_two_digits(t + 8, day);
	t[10] = 'T';
	afw_two_digits(t + 11, s / 3600);
	t[13] = ':';
	afw_two_digits(t + 14, s / 60 % 60);
	t[16] = ':';
	afw_two_digits(t + 17, s % 60);
	t[19] = '.';
	t[20] = (char)('0' + when->tv_nsec / 100000000 % 10);
	afw_two_digits(t + 21, (unsigned int)(when->tv_nsec / 1000000 % 100));
	t[23] = 'Z';
	afw_out_put(o, t, sizeof(t));
}

/* ,"@key": and its value, a JSON string or null when empty. */
static void afw_json_opt(struct afw_out *o, const char *key, const char *val)
{
	afw_out_str(o, ",\"");
	afw_out_str(o, key);
	afw_out_str(o, "\":");
	if (*val)
		afw_out_json(o, val, strlen(val));
	else
		afw_out_str(o, "null");
}

/* ,"@key":@v */
static void afw_json_uint(struct afw_out *o, const char *key, uint64_t v)
{
	afw_out_str(o, ",\"");
	afw_out_str(o, key);
	afw_out_str(o, "\":");
	afw_out_uint(o, v);
}

void afw_report_json(FILE *out, const struct afw_result *r, const struct timespec *when)
{
	struct afw_out o = { .f = out };

	afw_out_char(&o, '{');
	if (when) {
		afw_out_str(&o, "\"time\":\"");
		afw_out_time(&o, when);
		afw_out_str(&o, "\",");
	}
	afw_out_str(&o, "\"proto\":\"");
	afw_out_str(&o, afw_l7_name(r->l7));
	afw_out_str(&o, "\",\"l4\":\"");
	afw_out_str(&o, afw_l4_name(r->l4proto));
	afw_out_str(&o, "\",\"src\":\"");
	afw_out_addr(&o, r, r->src);
	afw_out_str(&o, "\",\"dst\":\"");
	afw_out_addr(&o, r, r->dst);
	afw_out_char(&o, '"');
	afw_json_uint(&o, "sport", r->sport);
	afw_json_uint(&o, "dport", r->dport);
	if (r->echo) {
		afw_out_str(&o, r->echo == AFW_PKT_ECHO_REQUEST ? ",\"echo\":\"request\"" :
								  ",\"echo\":\"reply\"");
		afw_json_uint(&o, "icmp_id", r->icmp_id);
	}
	afw_json_opt(&o, "sni", r->l7 == AFW_L7_TLS || r->l7 == AFW_L7_QUIC ? r->host : "");
	afw_out_str(&o, ",\"alpn\":[");
	afw_alpn_list(&o, r, afw_out_json);
	afw_out_char(&o, ']');
	if (r->ech)
		afw_out_str(&o, ",\"ech\":true");
	afw_out_str(&o, ",\"tls_version\":");
	if (r->tls_version) {
		afw_out_char(&o, '"');
		afw_out_tls_version(&o, r->tls_version);
		afw_out_char(&o, '"');
	} else {
		afw_out_str(&o, "null");
	}
	afw_json_opt(&o, "ja4", r->ja4);
	afw_json_opt(&o, "http_host", r->l7 == AFW_L7_HTTP ? r->host : "");
	afw_json_opt(&o, "http_method", r->http_method);
	afw_json_opt(&o, "dns_name", r->l7 == AFW_L7_DNS ? r->host : "");
	if (r->giveup) {
		afw_out_str(&o, ",\"giveup\":\"");
		afw_out_str(&o, afw_reason_name(r->giveup));
		afw_out_char(&o, '"');
	}
	afw_out_str(&o, ",\"verdict\":\"");
	afw_out_str(&o, afw_decision_name(r->decision));
	afw_out_str(&o, "\",\"reason\":");
	afw_out_json(&o, r->reason, strlen(r->reason));
	if (r->rule_line)
		afw_json_uint(&o, "policy_line", r->rule_line);
	if (r->has_uid)
		afw_json_uint(&o, "uid", r->uid);
	if (r->has_owner && r->owner_listener) {
		afw_out_str(&o, ",\"listener\":true");
	} else if (r->has_owner) {
		afw_json_uint(&o, "pid", r->owner_pid);
		afw_out_str(&o, ",\"comm\":");
		afw_out_json(&o, r->owner_comm, strlen(r->owner_comm));
		afw_json_opt(&o, "exe", r->owner_exe);
	}
	afw_json_uint(&o, "packets", r->packets);
	afw_out_str(&o, "}\n");
	afw_out_end(&o);
}

/* [address]:port for IPv6, address:port for IPv4. */
static void afw_out_end_point(struct afw_out *o, const struct afw_result *r, const uint8_t *a,
			      uint16_t port)
{
	if (r->family == AF_INET6)
		afw_out_char(o, '[');
	afw_out_addr(o, r, a);
	afw_out_str(o, r->family == AF_INET6 ? "]:" : ":");
	afw_out_uint(o, port);
}

void afw_report_text(FILE *out, const struct afw_result *r, const struct timespec *when)
{
	struct afw_out o = { .f = out };

	if (when) {
		afw_out_time(&o, when);
		afw_out_char(&o, ' ');
	}
	afw_out_str(&o, afw_l4_name(r->l4proto));
	afw_out_char(&o, ' ');
	afw_out_end_point(&o, r, r->src, r->sport);
	afw_out_str(&o, " -> ");
	afw_out_end_point(&o, r, r->dst, r->dport);
	afw_out_char(&o, ' ');
	afw_out_str(&o, afw_l7_name(r->l7));
	if (r->echo) {
		afw_out_str(&o, r->echo == AFW_PKT_ECHO_REQUEST ? " echo-request id=" :
								  " echo-reply id=");
		afw_out_uint(&o, r->icmp_id);
	}
	if (*r->host) {
		afw_out_str(&o, r->l7 == AFW_L7_HTTP ? " host=" : r->l7 == AFW_L7_DNS ? " qname=" :
			    " sni=");
		afw_out_quoted(&o, r->host, strlen(r->host));
	}
	if (r->alpn_len) {
		afw_out_str(&o, " alpn=");
		afw_alpn_list(&o, r, afw_out_quoted);
	}
	if (r->ech)
		afw_out_str(&o, " ech");
	if (r->giveup) {
		afw_out_str(&o, " giveup=");
		afw_out_str(&o, afw_reason_name(r->giveup));
	}
	if (r->tls_version) {
		afw_out_str(&o, " version=");
		afw_out_tls_version(&o, r->tls_version);
	}
	if (*r->ja4) {
		afw_out_str(&o, " ja4=");
		afw_out_plain(&o, r->ja4, strlen(r->ja4));
	}
	if (r->has_uid) {
		afw_out_str(&o, " uid=");
		afw_out_uint(&o, r->uid);
	}
	if (r->has_owner && r->owner_listener) {
		afw_out_str(&o, " listener");
	} else if (r->has_owner) {
		afw_out_str(&o, " pid=");
		afw_out_uint(&o, r->owner_pid);
		afw_out_str(&o, " comm=");
		afw_out_quoted(&o, r->owner_comm, strlen(r->owner_comm));
		if (*r->owner_exe) {
			afw_out_str(&o, " exe=");
			afw_out_quoted(&o, r->owner_exe, strlen(r->owner_exe));
		}
	}
	afw_out_str(&o, ": ");
	afw_out_str(&o, afw_decision_name(r->decision));
	afw_out_str(&o, " (");
	afw_out_plain(&o, r->reason, strlen(r->reason));
	afw_out_str(&o, ")\n");
	afw_out_end(&o);
}
