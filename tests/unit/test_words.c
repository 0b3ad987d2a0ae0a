// SPDX-License-Identifier: GPL-2.0
/*
 * Shared words: afw_addr_parse() takes what inet_pton() takes, no more and
 * no less, and reads the same bytes, for every string in a large set built
 * around the edges of dotted decimal (leading zeros, 255 and 256, parts
 * missing or too many, stray bytes) and IPv6.
 */

#include <arpa/inet.h>
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
	char s[64], first[64] = "";
	uint8_t x[16];
	size_t a, b, c, d, i, j, len;
	int failed = 0;

	for (i = 0; i < sizeof(whole) / sizeof(whole[0]); i++) {
		tried++;
		if (disagree(whole[i]) && !bad++)
			snprintf(first, sizeof(first), "%s", whole[i]);
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
	return failed;
}
