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
static void afw_alpn_list(FILE *out, const struct afw_result *r,
			  void (*put)(FILE *out, const void *p, size_t n))
{
	const uint8_t *id;
	size_t off = 0, len;

	while (afw_alpn_next(r, &off, &id, &len)) {
		if (off != 1 + len)
			fputc(',', out);
		put(out, id, len);
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

static void afw_addr(const struct afw_result *r, const uint8_t *a, char *buf, size_t len)
{
	if (!inet_ntop(r->family, a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
}

/* "1.3" for 0x0304; "" when not TLS. */
static void afw_tls_version(uint16_t v, char *buf, size_t len)
{
	if (v == 0x0300)
		snprintf(buf, len, "ssl3");
	else if (v >= 0x0301 && v <= 0x0304)
		snprintf(buf, len, "1.%u", (unsigned int)(v - 0x0301));
	else if (v)
		snprintf(buf, len, "0x%04x", v);
	else
		buf[0] = '\0';
}

static void afw_json_opt(FILE *out, const char *key, const char *val)
{
	fprintf(out, ",\"%s\":", key);
	if (*val)
		afw_json_string(out, val);
	else
		fputs("null", out);
}

/* @when as RFC 3339 in UTC with milliseconds, e.g. 2026-12-01T09:40:12.123Z. */
static void afw_report_time(const struct timespec *when, char *buf, size_t len)
{
	struct tm tm;
	size_t n;

	gmtime_r(&when->tv_sec, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%03ldZ", when->tv_nsec / 1000000);
}

void afw_report_json(FILE *out, const struct afw_result *r, const struct timespec *when)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], ver[16], t[40];

	afw_addr(r, r->src, src, sizeof(src));
	afw_addr(r, r->dst, dst, sizeof(dst));
	afw_tls_version(r->tls_version, ver, sizeof(ver));
	fputc('{', out);
	if (when) {
		afw_report_time(when, t, sizeof(t));
		fprintf(out, "\"time\":\"%s\",", t);
	}
	fprintf(out, "\"proto\":\"%s\",\"l4\":\"%s\",\"src\":\"%s\",\"dst\":\"%s\","
		"\"sport\":%u,\"dport\":%u", afw_l7_name(r->l7), afw_l4_name(r->l4proto),
		src, dst, r->sport, r->dport);
	if (r->echo)
		fprintf(out, ",\"echo\":\"%s\",\"icmp_id\":%u",
			r->echo == AFW_PKT_ECHO_REQUEST ? "request" : "reply", r->icmp_id);
	afw_json_opt(out, "sni", r->l7 == AFW_L7_TLS || r->l7 == AFW_L7_QUIC ? r->host : "");
	fputs(",\"alpn\":[", out);
	afw_alpn_list(out, r, afw_json_bytes);
	fputc(']', out);
	if (r->ech)
		fputs(",\"ech\":true", out);
	afw_json_opt(out, "tls_version", ver);
	afw_json_opt(out, "ja4", r->ja4);
	afw_json_opt(out, "http_host", r->l7 == AFW_L7_HTTP ? r->host : "");
	afw_json_opt(out, "http_method", r->http_method);
	afw_json_opt(out, "dns_name", r->l7 == AFW_L7_DNS ? r->host : "");
	if (r->giveup)
		fprintf(out, ",\"giveup\":\"%s\"", afw_reason_name(r->giveup));
	fprintf(out, ",\"verdict\":\"%s\",\"reason\":", afw_decision_name(r->decision));
	afw_json_string(out, r->reason);
	if (r->rule_line)
		fprintf(out, ",\"policy_line\":%u", r->rule_line);
	if (r->has_uid)
		fprintf(out, ",\"uid\":%u", r->uid);
	if (r->has_owner && r->owner_listener) {
		fputs(",\"listener\":true", out);
	} else if (r->has_owner) {
		fprintf(out, ",\"pid\":%u,\"comm\":", r->owner_pid);
		afw_json_string(out, r->owner_comm);
		afw_json_opt(out, "exe", r->owner_exe);
	}
	fprintf(out, ",\"packets\":%llu}\n", (unsigned long long)r->packets);
}

void afw_report_text(FILE *out, const struct afw_result *r, const struct timespec *when)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], ver[16], t[40];
	int v6 = r->family == AF_INET6;

	afw_addr(r, r->src, src, sizeof(src));
	afw_addr(r, r->dst, dst, sizeof(dst));
	afw_tls_version(r->tls_version, ver, sizeof(ver));
	if (when) {
		afw_report_time(when, t, sizeof(t));
		fprintf(out, "%s ", t);
	}
	fprintf(out, "%s %s%s%s:%u -> %s%s%s:%u %s", afw_l4_name(r->l4proto), v6 ? "[" : "", src,
		v6 ? "]" : "", r->sport, v6 ? "[" : "", dst, v6 ? "]" : "", r->dport,
		afw_l7_name(r->l7));
	if (r->echo)
		fprintf(out, " echo-%s id=%u", r->echo == AFW_PKT_ECHO_REQUEST ? "request" : "reply",
			r->icmp_id);
	if (*r->host) {
		fputs(r->l7 == AFW_L7_HTTP ? " host=" : r->l7 == AFW_L7_DNS ? " qname=" :
		      " sni=", out);
		afw_text_quoted(out, r->host, strlen(r->host));
	}
	if (r->alpn_len) {
		fputs(" alpn=", out);
		afw_alpn_list(out, r, afw_text_quoted);
	}
	if (r->ech)
		fputs(" ech", out);
	if (r->giveup)
		fprintf(out, " giveup=%s", afw_reason_name(r->giveup));
	if (*ver)
		fprintf(out, " version=%s", ver);
	if (*r->ja4) {
		fputs(" ja4=", out);
		afw_text_plain(out, r->ja4, strlen(r->ja4));
	}
	if (r->has_uid)
		fprintf(out, " uid=%u", r->uid);
	if (r->has_owner && r->owner_listener) {
		fputs(" listener", out);
	} else if (r->has_owner) {
		fprintf(out, " pid=%u comm=", r->owner_pid);
		afw_text_quoted(out, r->owner_comm, strlen(r->owner_comm));
		if (*r->owner_exe) {
			fputs(" exe=", out);
			afw_text_quoted(out, r->owner_exe, strlen(r->owner_exe));
		}
	}
	fprintf(out, ": %s (", afw_decision_name(r->decision));
	afw_text_plain(out, r->reason, strlen(r->reason));
	fputs(")\n", out);
}
