// SPDX-License-Identifier: GPL-2.0
/*
 * Decision records. Host names and ALPN values come from the network, so
 * every byte that is not printable ASCII is escaped, in text and in JSON:
 * a log line must never carry a client's control characters.
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>

#include "report.h"

void afw_json_string(FILE *out, const char *s)
{
	const unsigned char *c;

	fputc('"', out);
	for (c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(out, "\\%c", *c);
		else if (*c < 0x20 || *c >= 0x7f)
			fprintf(out, "\\u%04x", *c);
		else
			fputc(*c, out);
	}
	fputc('"', out);
}

static void afw_text_string(FILE *out, const char *s)
{
	const unsigned char *c;

	for (c = (const unsigned char *)s; *c; c++) {
		if (*c <= 0x20 || *c >= 0x7f || *c == '\\')
			fprintf(out, "\\x%02x", *c);
		else
			fputc(*c, out);
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

void afw_report_json(FILE *out, const struct afw_result *r)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], ver[16];
	const char *a, *comma;
	char name[AFW_RESULT_ALPN];

	afw_addr(r, r->src, src, sizeof(src));
	afw_addr(r, r->dst, dst, sizeof(dst));
	afw_tls_version(r->tls_version, ver, sizeof(ver));
	fprintf(out, "{\"proto\":\"%s\",\"l4\":\"%s\",\"src\":\"%s\",\"dst\":\"%s\","
		"\"sport\":%u,\"dport\":%u", afw_app_name(r->app), afw_l4_name(r->l4proto),
		src, dst, r->sport, r->dport);
	afw_json_opt(out, "sni", r->app == AFW_APP_TLS || r->app == AFW_APP_QUIC ? r->host : "");
	fputs(",\"alpn\":[", out);
	for (a = r->alpn; *a; a = *comma ? comma + 1 : comma) {
		comma = strchr(a, ',');
		if (!comma)
			comma = a + strlen(a);
		snprintf(name, sizeof(name), "%.*s", (int)(comma - a), a);
		if (a != r->alpn)
			fputc(',', out);
		afw_json_string(out, name);
	}
	fputc(']', out);
	afw_json_opt(out, "tls_version", ver);
	afw_json_opt(out, "ja4", r->ja4);
	afw_json_opt(out, "http_host", r->app == AFW_APP_HTTP ? r->host : "");
	afw_json_opt(out, "http_method", r->http_method);
	fprintf(out, ",\"verdict\":\"%s\",\"reason\":", afw_decision_name(r->decision));
	afw_json_string(out, r->reason);
	if (r->rule_line)
		fprintf(out, ",\"policy_line\":%u", r->rule_line);
	if (r->has_uid)
		fprintf(out, ",\"uid\":%u", r->uid);
	fprintf(out, ",\"packets\":%llu}\n", (unsigned long long)r->packets);
}

void afw_report_text(FILE *out, const struct afw_result *r)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], ver[16];
	int v6 = r->family == AF_INET6;

	afw_addr(r, r->src, src, sizeof(src));
	afw_addr(r, r->dst, dst, sizeof(dst));
	afw_tls_version(r->tls_version, ver, sizeof(ver));
	fprintf(out, "%s %s%s%s:%u -> %s%s%s:%u %s", afw_l4_name(r->l4proto), v6 ? "[" : "", src,
		v6 ? "]" : "", r->sport, v6 ? "[" : "", dst, v6 ? "]" : "", r->dport,
		afw_app_name(r->app));
	if (*r->host) {
		fputs(r->app == AFW_APP_HTTP ? " host=" : " sni=", out);
		afw_text_string(out, r->host);
	}
	if (*r->alpn) {
		fputs(" alpn=", out);
		afw_text_string(out, r->alpn);
	}
	if (*ver)
		fprintf(out, " version=%s", ver);
	if (*r->ja4)
		fprintf(out, " ja4=%s", r->ja4);
	if (r->has_uid)
		fprintf(out, " uid=%u", r->uid);
	fprintf(out, ": %s (%s)\n", afw_decision_name(r->decision), r->reason);
}
