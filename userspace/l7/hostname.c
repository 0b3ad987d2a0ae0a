// SPDX-License-Identifier: GPL-2.0
/*
 * Host name normalisation, shared by the policy parser and the matcher so
 * that both sides of a comparison are written the same way.
 */

#include "hostname.h"

static int afw_hostname_fail(const char **why, const char *reason)
{
	*why = reason;
	return -1;
}

int afw_hostname_norm(const char *in, size_t len, char *out, const char **why)
{
	size_t i, label = 0;
	char c;

	/* "example.com." is the same name as "example.com"; "." alone is not a name. */
	if (len && in[len - 1] == '.')
		len--;
	if (!len)
		return afw_hostname_fail(why, "empty host name");
	if (len > AFW_HOSTNAME_MAX)
		return afw_hostname_fail(why, "host name longer than 253 bytes");
	for (i = 0; i < len; i++) {
		c = in[i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c == '.') {
			if (!label)
				return afw_hostname_fail(why, "empty label in host name");
			if (out[i - 1] == '-')
				return afw_hostname_fail(why, "a label may not end with '-'");
			label = 0;
		} else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
			   c == '-') {
			if (c == '-' && !label)
				return afw_hostname_fail(why, "a label may not start with '-'");
			if (++label > 63)
				return afw_hostname_fail(why, "label longer than 63 bytes");
		} else {
			return afw_hostname_fail(why, "only letters, digits, '-', '_' and '.' may "
						 "appear in a host name");
		}
		out[i] = c;
	}
	/* Only one trailing dot goes: "a.." has an empty last label. */
	if (!label)
		return afw_hostname_fail(why, "empty label in host name");
	if (out[len - 1] == '-')
		return afw_hostname_fail(why, "a label may not end with '-'");
	out[len] = '\0';
	return (int)len;
}
