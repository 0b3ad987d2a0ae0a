// SPDX-License-Identifier: GPL-2.0
/*
 * Captures through the same engine as live traffic. Time is the capture's
 * own: the analysis-time bound runs on packet timestamps, so a recording
 * decides the same however fast it is read.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offline.h"
#include "pcap.h"
#include "pkt.h"
#include "report.h"

struct afw_offline {
	bool json;
	unsigned long flows;
};

static void afw_offline_print(const struct afw_result *r, void *data)
{
	struct afw_offline *off = data;

	/* An earlier decision reaching its flow's next packet: printed already. */
	if (r->quiet)
		return;
	off->flows++;
	if (off->json)
		afw_report_json(stdout, r, NULL);
	else
		afw_report_text(stdout, r, NULL);
}

int afw_offline_run(const char *path, const struct afw_policy *pol,
		    const struct afw_engine_opts *o, bool json)
{
	struct afw_offline off = { .json = json };
	struct afw_engine_opts eo;
	unsigned long skipped = 0, n = 0;
	struct afw_pcap_pkt pp;
	struct afw_engine *e;
	struct afw_result res;
	struct afw_pcap pc;
	struct afw_pkt p;
	int ret = 1, got;
	uint8_t *buf;
	bool decided;
	FILE *f;

	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "afwd: %s: %s\n", path, strerror(errno));
		return 1;
	}
	eo = *o;
	buf = malloc(AFW_PCAP_BUF_SIZE);
	e = afw_engine_new(&eo);
	if (!buf || !e) {
		fprintf(stderr, "afwd: out of memory\n");
		goto out;
	}
	if (afw_pcap_open_file(&pc, f, buf, AFW_PCAP_BUF_SIZE) < 0) {
		fprintf(stderr, "afwd: %s: %s\n", path, pc.err);
		goto out;
	}
	while ((got = afw_pcap_next(&pc, &pp)) == 1) {
		n++;
		afw_engine_expire(e, pol, pp.ts_ns, false, afw_offline_print, &off);
		if (afw_pkt_decode(&p, pp.linktype, pp.data, pp.caplen) != AFW_PKT_OK) {
			skipped++;
			/* Not IP at all (ARP...): no flow's, and afwd would never be asked. */
			if (!p.ipver)
				continue;
			afw_engine_undecodable(e, pol, &p, false, 0, pp.ts_ns, &res, &decided);
		} else {
			/* A capture's checksums may predate offload: see afw_tcp_syn(). */
			p.csum = AFW_CSUM_GUESS;
			afw_engine_packet(e, pol, &p, false, 0, pp.ts_ns, &res, &decided);
		}
		if (decided)
			afw_offline_print(&res, &off);
	}
	afw_engine_expire(e, pol, 0, true, afw_offline_print, &off);
	fflush(stdout);
	if (got < 0) {
		fprintf(stderr, "afwd: %s: %s\n", path, pc.err);
		goto out;
	}
	fprintf(stderr, "afwd: %s: %lu packets, %lu flows, %lu packets not decoded\n", path, n,
		off.flows, skipped);
	ret = 0;
out:
	afw_engine_free(e);
	free(buf);
	fclose(f);
	return ret;
}
