// SPDX-License-Identifier: GPL-2.0
/*
 * afwctl status, afwctl reset-counters.
 */

#include <inttypes.h>
#include <stdio.h>

#include "afwctl.h"
#include "status.h"

static int afwctl_no_args(const char *cmd, int argc, char **argv)
{
	if (argc == 0)
		return 0;
	fprintf(stderr, "afwctl: %s: unexpected argument '%s'\n", cmd, argv[0]);
	return 2;
}

static void afwctl_status_json(const struct afw_nl *nl, const struct afw_status *st)
{
	unsigned int i;

	printf("{\"module_version\":");
	afwctl_json_str(stdout, st->module_version);
	printf(",\"protocol\":%u,\"dropped\":%" PRIu64 ",\"queued\":%" PRIu64
	       ",\"malformed\":%" PRIu64 ",\"counters\":[",
	       nl->version, st->dropped, st->queued, st->malformed);
	for (i = 0; i < st->nhooks; i++) {
		const struct afw_hook_stat *h = &st->hooks[i];

		printf("%s{\"family\":\"%s\",\"direction\":\"%s\","
		       "\"packets\":%" PRIu64 ",\"bytes\":%" PRIu64 "}",
		       i ? "," : "", afw_family_name(h->family),
		       afw_direction_name(h->direction), h->packets, h->bytes);
	}
	printf("]}\n");
}

static void afwctl_status_table(const struct afw_nl *nl, const struct afw_status *st)
{
	unsigned int i;

	printf("afw module %s, protocol %u\n", st->module_version, nl->version);
	printf("dropped: %" PRIu64 ", queued: %" PRIu64 ", malformed: %" PRIu64 "\n\n",
	       st->dropped, st->queued, st->malformed);
	printf("%-6s %-9s %15s %18s\n", "family", "direction", "packets", "bytes");
	for (i = 0; i < st->nhooks; i++) {
		const struct afw_hook_stat *h = &st->hooks[i];

		printf("%-6s %-9s %15" PRIu64 " %18" PRIu64 "\n",
		       afw_family_name(h->family), afw_direction_name(h->direction),
		       h->packets, h->bytes);
	}
}

int afwctl_status(struct afw_nl *nl, const struct afwctl_opts *o, int argc, char **argv)
{
	struct afw_status st;
	int ret;

	ret = afwctl_no_args("status", argc, argv);
	if (ret)
		return ret;
	ret = afw_status_get(nl, &st);
	if (ret)
		return afwctl_fail("status", ret, nl);
	if (o->json)
		afwctl_status_json(nl, &st);
	else
		afwctl_status_table(nl, &st);
	return 0;
}

int afwctl_reset_counters(struct afw_nl *nl, const struct afwctl_opts *o, int argc, char **argv)
{
	int ret;

	(void)o;
	ret = afwctl_no_args("reset-counters", argc, argv);
	if (ret)
		return ret;
	ret = afw_counters_reset(nl);
	if (ret)
		return afwctl_fail("reset-counters", ret, nl);
	return 0;
}
