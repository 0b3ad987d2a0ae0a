// SPDX-License-Identifier: GPL-2.0
/*
 * The host's configured name servers, from resolv.conf files.
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolvers.h"
#include "words.h"

static void afw_resolvers_add(struct afw_resolver *out, size_t *n, size_t max, char *addr)
{
	struct afw_resolver r = { 0 };
	size_t i;

	/* fe80::1%eth0: the scope names the link, the address is what is sent to. */
	addr[strcspn(addr, "%")] = '\0';
	r.family = afw_addr_parse(addr, r.addr);
	if (!r.family)
		return;
	for (i = 0; i < *n; i++)
		if (out[i].family == r.family && !memcmp(out[i].addr, r.addr, sizeof(r.addr)))
			return;
	if (*n < max)
		out[(*n)++] = r;
}

static void afw_resolvers_file(const char *path, struct afw_resolver *out, size_t *n, size_t max)
{
	char line[512], *word, *addr, *save;
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		/* A line too long for resolv.conf is skipped whole, not read in pieces. */
		if (!strchr(line, '\n') && !feof(f)) {
			int c;

			while ((c = getc(f)) != EOF && c != '\n')
				;
			continue;
		}
		word = strtok_r(line, " \t\r\n", &save);
		if (!word || strcmp(word, "nameserver"))
			continue;
		addr = strtok_r(NULL, " \t\r\n#;", &save);
		if (addr)
			afw_resolvers_add(out, n, max, addr);
	}
	fclose(f);
}

size_t afw_resolvers_read(struct afw_resolver *out, size_t max)
{
	const char *list = getenv("AFW_RESOLV_CONF");
	char *paths, *path, *save;
	size_t n = 0;

	paths = strdup(list ? list : AFW_RESOLV_CONF_DEFAULT);
	if (!paths)
		return 0;
	for (path = strtok_r(paths, ":", &save); path; path = strtok_r(NULL, ":", &save))
		afw_resolvers_file(path, out, &n, max);
	free(paths);
	return n;
}
