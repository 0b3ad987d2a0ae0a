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

/* @len bytes at @s as a JSON string; NUL and every other byte escaped as needed. */
static void afw_json_bytes(FILE *out, const unsigned char *s, size_t len)
{
	size_t i;

	fputc('"', out);
	for (i = 0; i < len; i++) {
		if (s[i] == '"' || s[i] == '\\')
			fprintf(out, "\\%c", s[i]);
		else if (s[i] < 0x20 || s[i] >= 0x7f)
			fprintf(out, "\\u%04x", s[i]);
		else
			fputc(s[i], out);
	}
	fputc('"', out);
}

void afw_json_string(FILE *out, const char *s)
{
	afw_json_bytes(out, (const unsigned char *)s, strlen(s));
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
	const uint8_t *id;
	size_t off = 0, len;

	afw_addr(r, r->src, src, sizeof(src));
	afw_addr(r, r->dst, dst, sizeof(dst));
	afw_tls_version(r->tls_version, ver, sizeof(ver));
	fprintf(out, "{\"proto\":\"%s\",\"l4\":\"%s\",\"src\":\"%s\",\"dst\":\"%s\","
		"\"sport\":%u,\"dport\":%u", afw_app_name(r->app), afw_l4_name(r->l4proto),
		src, dst, r->sport, r->dport);
	afw_json_opt(out, "sni", r->app == AFW_APP_TLS || r->app == AFW_APP_QUIC ? r->host : "");
	fputs(",\"alpn\":[", out);
	while (afw_alpn_next(r, &off, &id, &len)) {
		if (off != 1 + len)
			fputc(',', out);
		afw_json_bytes(out, id, len);
	}
	fputc(']', out);
	if (r->ech)
		fputs(",\"ech\":true", out);
	afw_json_opt(out, "tls_version", ver);
	afw_json_opt(out, "ja4", r->ja4);
	afw_json_opt(out, "http_host", r->app == AFW_APP_HTTP ? r->host : "");
	afw_json_opt(out, "http_method", r->http_method);
	if (r->giveup)
		fprintf(out, ",\"giveup\":\"%s\"", afw_reason_name(r->giveup));
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
	if (r->alpn_len) {
		const uint8_t *id;
		size_t off = 0, len, i;

		fputs(" alpn=", out);
		/* Ids joined by ',': a ',' inside one is escaped like any other byte. */
		while (afw_alpn_next(r, &off, &id, &len)) {
			if (off != 1 + len)
				fputc(',', out);
			for (i = 0; i < len; i++) {
				if (id[i] <= 0x20 || id[i] >= 0x7f || id[i] == '\\' || id[i] == ',')
					fprintf(out, "\\x%02x", id[i]);
				else
					fputc(id[i], out);
			}
		}
	}
	if (r->ech)
		fputs(" ech", out);
	if (r->giveup)
		fprintf(out, " giveup=%s", afw_reason_name(r->giveup));
	if (*ver)
		fprintf(out, " version=%s", ver);
	if (*r->ja4)
		fprintf(out, " ja4=%s", r->ja4);
	if (r->has_uid)
		fprintf(out, " uid=%u", r->uid);
	fprintf(out, ": %s (%s)\n", afw_decision_name(r->decision), r->reason);
}
