// SPDX-License-Identifier: GPL-2.0
/*
 * Shared words: afw_addr_parse() takes what inet_pton() takes, no more and
 * no less, and reads the same bytes, for every string in a large set built
 * around the edges of dotted decimal (leading zeros, 255 and 256, parts
 * missing or too many, stray bytes) and IPv6. afw_split_words() splits
 * as a plain byte-at-a-time splitter does, on random lines of the bytes
 * that matter, each in a buffer of its own exact size (so that the
 * sanitizers see a read past its end).
 */

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "words.h"

/* How afw_addr_parse() and inet_pton() disagree on @s: 0 when they agree. */
static int disagree(const char *s)
{
	uint8_t want[16] = { 0 }, got[16];
	int fam = 0;

	if (inet_pton(AF_INET, s, want) == 1)
		fam = AF_INET;
	else if (memset(want, 0, sizeof(want)), inet_pton(AF_INET6, s, want) == 1)
		fam = AF_INET6;
	else
		memset(want, 0, sizeof(want));
	memset(got, 0xa5, sizeof(got));
	if (afw_addr_parse(s, got) != fam)
		return 1;
	return memcmp(want, got, sizeof(got)) ? 2 : 0;
}

static bool ref_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool ref_word_byte(char c)
{
	return c && c != '#' && c != '"' && !ref_blank(c);
}

/* The splitter's contract, one byte at a time, on a copy. */
static int ref_split(char *line, char **words, int max, char **at)
{
	char *p = line, *end;
	int n = 0;

	for (;;) {
		while (ref_blank(*p))
			p++;
		if (!*p || *p == '#') {
			*p = '\0';
			return n;
		}
		if (n == max) {
			*at = p;
			return AFW_SPLIT_TOO_MANY;
		}
		if (*p == '"') {
			end = strchr(p + 1, '"');
			if (!end) {
				*at = p;
				return AFW_SPLIT_OPEN_QUOTE;
			}
			words[n++] = p + 1;
			*end = '\0';
			p = end + 1;
			if (ref_word_byte(*p) || *p == '"') {
				*at = p;
				return AFW_SPLIT_AFTER_QUOTE;
			}
			continue;
		}
		words[n++] = p;
		while (ref_word_byte(*p))
			p++;
		if (*p == '"') {
			*at = p;
			return AFW_SPLIT_MID_QUOTE;
		}
		if (ref_blank(*p)) {
			*p++ = '\0';
			continue;
		}
		*p = '\0';
		return n;
	}
}

/* Whether afw_split_words() and ref_split() split @s (@len bytes) alike. */
static bool split_agrees(const char *s, size_t len, int max)
{
	char *a = malloc(len + 1), *b = malloc(len + 1), *wa[8], *wb[8], *ata = NULL, *atb = NULL;
	size_t lens[8];
	int na, nb, i;
	bool same;

	memcpy(a, s, len + 1);
	memcpy(b, s, len + 1);
	/* The length given is the line's up to its first NUL, as strlen() counts it. */
	na = afw_split_words_len(a, strlen(a), wa, lens, max, &ata);
	nb = ref_split(b, wb, max, &atb);
	same = na == nb;
	if (same && na < 0)
		same = ata - a == atb - b;
	for (i = 0; same && i < na; i++)
		same = wa[i] - a == wb[i] - b && !strcmp(wa[i], wb[i]) && lens[i] == strlen(wa[i]);
	free(a);
	free(b);
	return same;
}

int main(void)
{
	static const char *const parts[] = {
		"", "0", "00", "000", "1", "01", "001", "9", "10", "25", "99", "100", "199",
		"249", "250", "255", "256", "260", "300", "999", "1000", "0x1", "1a", " 1", "-1",
	};
	static const char *const whole[] = {
		"", ".", "1.2.3.4", "1.2.3.4.", ".1.2.3.4", "1..2.3", "1.2.3", "1.2.3.4.5",
		"255.255.255.255", "0.0.0.0", "192.0.2.1/24", "1.2.3.4 ", "::", "::1",
		"2001:db8::1", "::ffff:192.0.2.1", "2001:db8::1.2.3.4", "fe80::1%eth0", ":::",
		"1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9", "12345::", "g::1",
	};
	const size_t np = sizeof(parts) / sizeof(parts[0]);
	unsigned long tried = 0, bad = 0;
	char s[64], first[128] = "";
	uint8_t x[16];
	size_t a, b, c, d, i, j, len;
	int failed = 0;

	for (i = 0; i < sizeof(whole) / sizeof(whole[0]); i++) {
		uint8_t y[16];

		tried++;
		if (disagree(whole[i]) && !bad++)
			snprintf(first, sizeof(first), "%s", whole[i]);
		/* The bounded reader stops at its length, whatever follows. */
		snprintf(s, sizeof(s), "%s/24", whole[i]);
		if (afw_addr_parse_len(s, strlen(whole[i]), x) != afw_addr_parse(whole[i], y) ||
		    memcmp(x, y, sizeof(x)))
			bad++;
	}
	for (a = 0; a < np; a++)
		for (b = 0; b < np; b++)
			for (c = 0; c < np; c++)
				for (d = 0; d < np; d++) {
					snprintf(s, sizeof(s), "%s.%s.%s.%s", parts[a], parts[b],
						 parts[c], parts[d]);
					tried++;
					if (disagree(s) && !bad++)
						snprintf(first, sizeof(first), "%s", s);
				}
	/* Random strings of the bytes that matter, 0 to 20 long. */
	srand(1);
	for (i = 0; i < 400000; i++) {
		static const char alphabet[] = "0123456789.:abf/x %";

		len = (size_t)rand() % 21;
		for (j = 0; j < len; j++)
			s[j] = alphabet[rand() % (int)(sizeof(alphabet) - 1)];
		s[len] = '\0';
		tried++;
		if (disagree(s) && !bad++)
			snprintf(first, sizeof(first), "%s", s);
	}
	printf("# %lu strings, %lu disagreements%s%s\n", tried, bad, bad ? ", first: " : "", first);
	CHECK(failed, "afw_addr_parse() reads what inet_pton() reads, IPv4 or IPv6", !bad);
	memset(x, 0xa5, sizeof(x));
	CHECK(failed, "dotted decimal gives AF_INET and the four bytes, zeroes after",
	      afw_addr_parse("198.51.100.7", x) == AF_INET && x[0] == 198 && x[3] == 7 && !x[4] &&
	      !x[15]);
	CHECK(failed, "a leading zero is refused, as inet_pton() refuses it",
	      !afw_addr_parse("10.01.0.1", x) && !x[0]);

	/*
	 * Lines 0 to 40 bytes long, of blanks, quotes, '#', bytes below and
	 * at '$' that belong to words, and bytes above 0x7f; words mostly
	 * short, some longer than eight bytes, at every alignment.
	 */
	tried = bad = 0;
	first[0] = '\0';
	for (i = 0; i < 300000; i++) {
		static const char alphabet[] = "  \t\r\n#\"!\x01\x1f$%abcdefghijk\x80\xff";
		int max = 1 + rand() % 8, run = rand() % 4;

		len = (size_t)rand() % 41;
		for (j = 0; j < len; j++)
			/* Runs of letters make words past eight bytes. */
			s[j] = run && j && rand() % 8 ? 'a' + (char)(rand() % 26) :
			       alphabet[rand() % (int)(sizeof(alphabet) - 1)];
		s[len] = '\0';
		tried++;
		if (!split_agrees(s, len, max) && !bad++)
			for (j = 0; j <= len; j++)
				snprintf(first + 3 * j, sizeof(first) - 3 * j, "%02x ",
					 (unsigned char)s[j]);
	}
	printf("# %lu lines split, %lu disagreements%s%s\n", tried, bad, bad ? ", first: " : "",
	       first);
	CHECK(failed, "afw_split_words() splits as the byte-at-a-time splitter does", !bad);
	return failed;
}
