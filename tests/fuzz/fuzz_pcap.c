// SPDX-License-Identifier: GPL-2.0
/*
 * The capture reader and the packet decoder on arbitrary files. The input
 * is read twice, from memory and through a FILE, and both must agree; each
 * packet is copied to a buffer of exactly its length before decoding, so
 * that a read past it is caught by the address sanitizer.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcap.h"
#include "pkt.h"
#include "reasm.h"

/* Small, so that a record-length check that is off lets ASan see the overflow. */
#define FUZZ_BUF 4096

static void afw_fuzz_decode(const struct afw_pcap_pkt *pkt, struct afw_reasm *r)
{
	uint8_t *copy = malloc(pkt->caplen ? pkt->caplen : 1);
	struct afw_pkt_key k;
	struct afw_pkt p;

	memcpy(copy, pkt->data, pkt->caplen);
	if (afw_pkt_decode(&p, pkt->linktype, copy, pkt->caplen) == AFW_PKT_OK) {
		if (p.payload < copy || p.payload + p.payload_len > copy + pkt->caplen)
			abort();
		afw_pkt_flow_key(&p, &k);
		afw_pkt_key_hash(&k, 1);
		if (p.proto == 6 && p.has_l4)
			afw_reasm_add(&r[afw_pkt_client_side(&p, 0)], p.tcp_seq,
				      p.tcp_flags & AFW_TCP_SYN, p.payload, p.payload_len);
	} else if (!p.reason) {
		abort();
	}
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(FUZZ_BUF), *fbuf = malloc(FUZZ_BUF), rbuf[2][512];
	struct afw_pcap pc, fpc;
	struct afw_pcap_pkt pkt, fpkt;
	struct afw_reasm r[2];
	int rc, frc = -1;
	FILE *f = size ? fmemopen((void *)data, size, "rb") : NULL;

	afw_reasm_init(&r[0], rbuf[0], sizeof(rbuf[0]));
	afw_reasm_init(&r[1], rbuf[1], sizeof(rbuf[1]));
	rc = afw_pcap_open_mem(&pc, data, size, buf, FUZZ_BUF);
	if (f)
		frc = afw_pcap_open_file(&fpc, f, fbuf, FUZZ_BUF);
	if (f && rc != frc)
		abort();
	if (!rc) {
		do {
			rc = afw_pcap_next(&pc, &pkt);
			if (f) {
				frc = afw_pcap_next(&fpc, &fpkt);
				if (rc != frc || (rc == 1 && (pkt.caplen != fpkt.caplen ||
				    pkt.ts_ns != fpkt.ts_ns || pkt.linktype != fpkt.linktype ||
				    memcmp(pkt.data, fpkt.data, pkt.caplen))) ||
				    (rc < 0 && strcmp(pc.err, fpc.err)))
					abort();
			}
			if (rc == 1)
				afw_fuzz_decode(&pkt, r);
		} while (rc == 1);
	}
	if (rc < 0 && !strstr(pc.err, "offset "))
		abort();
	if (f)
		fclose(f);
	free(fbuf);
	free(buf);
	return 0;
}
