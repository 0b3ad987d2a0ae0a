// SPDX-License-Identifier: GPL-2.0
/*
 * Words shared by the ruleset syntax (afwctl) and the policy syntax (afwd):
 * numbers, IP protocol names, services, users and typo hints. Needs
 * nothing but libc, so afwd's fuzzers link it alone.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "words.h"

static const struct {
	const char *name;
	uint8_t num;
} afw_protos[] = {
	{ "icmp", 1 }, { "tcp", 6 }, { "udp", 17 }, { "dccp", 33 },
	{ "icmpv6", 58 }, { "sctp", 132 }, { "udplite", 136 },
};

const char *const afw_proto_names[] = {
	"icmp", "tcp", "udp", "dccp", "icmpv6", "sctp", "udplite",
};
const size_t afw_nproto_names = sizeof(afw_proto_names) / sizeof(afw_proto_names[0]);

bool afw_parse_u32(const char *s, uint32_t *v)
{
	uint64_t x = 0;

	/* Digits only, and not strtoull, which takes signs and blanks too. */
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
		if (x > UINT32_MAX)
			return false;
	}
	*v = (uint32_t)x;
	return true;
}

/*
 * Dotted decimal as inet_pton() takes it: four parts of 0-255, no leading
 * zero, nothing else. Read here because glibc's takes about 280
 * instructions an address, a tenth of a rule line's parse, and rulesets
 * run to millions of lines; test_words checks the two agree.
 */
static bool afw_ipv4_parse(const char *s, const char *end, uint8_t *out)
{
	unsigned int part = 0, v = 0, digits = 0;

	for (;; s++) {
		if (s < end && *s >= '0' && *s <= '9') {
			if (digits && !v)
				return false;
			v = v * 10 + (unsigned int)(*s - '0');
			if (v > 255)
				return false;
			digits++;
			continue;
		}
		if (!digits || (s < end && *s != '.'))
			return false;
		out[part++] = (uint8_t)v;
		if (s == end)
			return part == 4;
		if (part == 4)
			return false;
		v = 0;
		digits = 0;
	}
}

int afw_addr_parse_len(const char *s, size_t len, uint8_t *addr)
{
	char buf[INET6_ADDRSTRLEN];
	uint8_t v4[4];

	memset(addr, 0, 16);
	if (afw_ipv4_parse(s, s + len, v4)) {
		memcpy(addr, v4, sizeof(v4));
		return AF_INET;
	}
	/* A NUL within @len is no address; inet_pton() would stop at it. */
	if (len >= sizeof(buf) || memchr(s, '\0', len))
		return 0;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (inet_pton(AF_INET6, buf, addr) == 1)
		return AF_INET6;
	memset(addr, 0, 16);
	return 0;
}

int afw_addr_parse(const char *s, uint8_t *addr)
{
	return afw_addr_parse_len(s, strlen(s), addr);
}

const char *afw_proto_name(uint8_t proto, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(afw_protos) / sizeof(afw_protos[0]); i++)
		if (afw_protos[i].num == proto)
			return afw_protos[i].name;
	snprintf(buf, len, "%u", proto);
	return buf;
}

int afw_proto_parse(const char *s, uint8_t *proto)
{
	uint32_t n;
	size_t i;

	for (i = 0; i < sizeof(afw_protos) / sizeof(afw_protos[0]); i++) {
		if (afw_word_is(s, afw_protos[i].name)) {
			*proto = afw_protos[i].num;
			return 0;
		}
	}
	if (!afw_parse_u32(s, &n) || n < 1 || n > 255)
		return -1;
	*proto = (uint8_t)n;
	return 0;
}

bool afw_proto_has_ports(uint8_t proto)
{
	return proto == 6 || proto == 17 || proto == 33 || proto == 132 || proto == 136;
}

int afw_port_parse(const char *s, uint8_t proto, uint16_t *port)
{
	struct servent *se;
	char pbuf[8];
	uint32_t n;

	if (afw_parse_u32(s, &n))
		goto num;
	if (*s >= '0' && *s <= '9')
		return -1;
	/* /etc/services names UDP-Lite ports after UDP's. */
	se = getservbyname(s, afw_proto_name(proto == 136 ? 17 : proto, pbuf, sizeof(pbuf)));
	if (!se)
		return -1;
	n = ntohs((uint16_t)se->s_port);
num:
	if (n > 65535)
		return -1;
	*port = (uint16_t)n;
	return 0;
}

int afw_uid_parse(const char *s, uint32_t *uid)
{
	struct passwd *pw;

	if (afw_parse_u32(s, uid))
		return 0;
	if (!*s || (*s >= '0' && *s <= '9'))
		return -1;
	pw = getpwnam(s);
	if (!pw)
		return -1;
	*uid = (uint32_t)pw->pw_uid;
	return 0;
}

int afw_gid_parse(const char *s, uint32_t *gid)
{
	struct group *gr;

	if (afw_parse_u32(s, gid))
		return 0;
	if (!*s || (*s >= '0' && *s <= '9'))
		return -1;
	gr = getgrnam(s);
	if (!gr)
		return -1;
	*gid = (uint32_t)gr->gr_gid;
	return 0;
}

/* Optimal string alignment distance: a swap of neighbours is one typo. */
static size_t afw_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, d[33][33], c, best;

	if (la > 32 || lb > 32)
		return SIZE_MAX;
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			c = a[i - 1] != b[j - 1];
			best = d[i - 1][j - 1] + c;
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[la][lb];
}

const char *afw_suggest(const char *w, const char *const *list, size_t n)
{
	size_t i, d, best = SIZE_MAX, len = strlen(w);
	const char *pick = NULL;

	for (i = 0; i < n; i++) {
		d = afw_distance(w, list[i]);
		if (d < best) {
			best = d;
			pick = list[i];
		}
	}
	/* One typo in a short word, two in a longer one; never a rewrite. */
	if (!pick || best == 0 || best > (len > 4 ? 2 : 1) || best >= len)
		return NULL;
	return pick;
}

/*
 * What a byte is to afw_split_words: 0 in a word, 1 a blank, 2 the end of
 * the words (the string's, or a '#' comment's start), 3 a double quote.
 * Every byte that is not 0 here is below '$': afw_word_end relies on it.
 */
static const unsigned char afw_byte_class[256] = {
	[0] = 2, ['#'] = 2, [' '] = 1, ['\t'] = 1, ['\r'] = 1, ['\n'] = 1, ['"'] = 3,
};

#define AFW_ONES	0x0101010101010101ULL

/*
 * The first byte at or after @p that is not a word's, with @stop just past
 * the string's NUL. Eight bytes at a time while they lie within the string:
 * a word's end is a byte below '$', and (x - '$' * ONES) & ~x & (0x80 *
 * ONES) flags the bytes below '$' exactly up to the first of them (a borrow
 * only moves up, to later bytes on a little-endian machine). A flagged byte
 * that is a word's own ('!', a control byte) sends the scan on after it.
 */
static char *afw_word_end(char *p, const char *stop)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t x, m;

	while (stop - p >= 8) {
		memcpy(&x, p, sizeof(x));
		m = (x - '$' * AFW_ONES) & ~x & (0x80 * AFW_ONES);
		if (!m) {
			p += 8;
			continue;
		}
		p += __builtin_ctzll(m) / 8;
		if (afw_byte_class[(unsigned char)*p])
			return p;
		p++;
	}
#else
	(void)stop;
#endif
	while (!afw_byte_class[(unsigned char)*p])
		p++;
	return p;
}

int afw_split_words(char *line, char **words, int max, char **at)
{
	return afw_split_words_len(line, strlen(line), words, NULL, max, at);
}

int afw_split_words_len(char *line, size_t len, char **words, size_t *lens, int max, char **at)
{
	const char *stop = line + len + 1;
	unsigned char c;
	char *p = line, *end;
	int n = 0;

	/*
	 * Blanks a byte at a time, by table: there is mostly one. A plain
	 * word ended by a blank, the common case, takes one test of its end.
	 */
	for (;;) {
		while ((c = afw_byte_class[(unsigned char)*p]) == 1)
			p++;
		if (c == 2) {
			*p = '\0';
			return n;
		}
		if (n == max) {
			*at = p;
			return AFW_SPLIT_TOO_MANY;
		}
		if (c == 3) {
			/* Blanks and '#' are the word's own up to the closing quote. */
			end = strchr(p + 1, '"');
			if (!end) {
				*at = p;
				return AFW_SPLIT_OPEN_QUOTE;
			}
			if (lens)
				lens[n] = (size_t)(end - p - 1);
			words[n++] = p + 1;
			*end = '\0';
			p = end + 1;
			if (afw_byte_class[(unsigned char)*p] == 0 || *p == '"') {
				*at = p;
				return AFW_SPLIT_AFTER_QUOTE;
			}
			continue;
		}
		words[n] = p;
		p = afw_word_end(p + 1, stop);
		if (lens)
			lens[n] = (size_t)(p - words[n]);
		n++;
		c = afw_byte_class[(unsigned char)*p];
		if (c == 1) {
			*p++ = '\0';
			continue;
		}
		if (c == 3) {
			*at = p;
			return AFW_SPLIT_MID_QUOTE;
		}
		*p = '\0';
		return n;
	}
}

const char *afw_split_error(int ret, int max, char *buf, size_t len)
{
	switch (ret) {
	case AFW_SPLIT_TOO_MANY:
		snprintf(buf, len, "more than %d words on one line", max);
		return buf;
	case AFW_SPLIT_OPEN_QUOTE:
		return "a double quote without its closing one";
	case AFW_SPLIT_AFTER_QUOTE:
		return "a closing double quote with more after it; put a blank between";
	case AFW_SPLIT_MID_QUOTE:
		return "a double quote inside a word; quote the whole word";
	}
	return "cannot split the line into words";
}
