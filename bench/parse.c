// SPDX-License-Identifier: GPL-2.0
/*
 * What reading one ClientHello costs afwd, against nDPI on the same bytes.
 *
 * Both modes read the real clients' first flights in tests/fixtures/tls and
 * repeat the work afwd (or an nDPI-based daemon) does for each new TLS flow.
 * Only that repeated work is counted: under callgrind, the counters are
 * zeroed before each client's loop and dumped, named after the client, right
 * after it, so module setup, flow allocation and the checks stay outside.
 * Run it through bench/parse.sh, which reads the dumps.
 *
 * A parser that failed would make any ratio meaningless, so every result is
 * checked against expected.txt, and any mismatch exits non-zero.
 *
 * nDPI gets each flight as the first client packet of a TCP flow to port
 * 443. It takes a packet bigger than an MTU (chromium's 2 KB hello), so by
 * default the flight is one packet, the same bytes afw reads;
 * AFW_BENCH_SEGMENT=1448 cuts it into segments as the client's kernel would.
 *
 *   parse afw|ndpi [ITERATIONS [FIXTURE_DIR]]
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ndpi_api.h>
#include <valgrind/callgrind.h>

#include "ja4.h"
#include "tls.h"

#define AFW_BENCH_MAX_INPUT	16384
#define AFW_BENCH_ITERATIONS	100
/* IPv4 and TCP headers, both without options. */
#define AFW_BENCH_HDRS		40
/* Smaller segments than this would only measure nDPI's reassembly. */
#define AFW_BENCH_MIN_SEGMENT	536

static const char *const afw_bench_names[] = {
	"chromium", "curl", "openssl", "python", "node", "gnutls",
};

#define AFW_BENCH_N_CLIENTS	(sizeof(afw_bench_names) / sizeof(afw_bench_names[0]))

struct afw_bench_client {
	const char *name;
	uint8_t data[AFW_BENCH_MAX_INPUT];
	size_t len;
	char sni[AFW_TLS_MAX_SNI + 1];
	char ja4[AFW_JA4_LEN + 1];
};

/* One IPv4 packet that carries a piece of the client's first flight. */
struct afw_bench_pkt {
	uint8_t *buf;
	unsigned short len;
};

static int afw_bench_load(const char *dir, struct afw_bench_client *c)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/tls/%s.bin", dir, c->name);
	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "parse: %s: %s\n", path, strerror(errno));
		return -1;
	}
	c->len = fread(c->data, 1, sizeof(c->data), f);
	if (!feof(f) || !c->len) {
		fprintf(stderr, "parse: %s: empty, unreadable or larger than %d bytes\n", path,
			AFW_BENCH_MAX_INPUT);
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

/* The SNI and JA4 that the independent reading in expected.txt found. */
static int afw_bench_expected(const char *dir, struct afw_bench_client *c)
{
	char path[4096], line[1024], file[64], status[16], sni[AFW_TLS_MAX_SNI + 1];
	char alpn[256], version[16], ja4[64];
	int found = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tls/expected.txt", dir);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "parse: %s: %s\n", path, strerror(errno));
		return -1;
	}
	snprintf(file, sizeof(file), "%s.bin", c->name);
	while (fgets(line, sizeof(line), f)) {
		char name[64];

		if (sscanf(line, "%63s %15s %255s %255s %15s %63s", name, status, sni, alpn,
			   version, ja4) != 6 || strcmp(name, file) || strcmp(status, "ok"))
			continue;
		if (strlen(ja4) != AFW_JA4_LEN)
			break;
		memcpy(c->sni, sni, sizeof(c->sni));
		memcpy(c->ja4, ja4, sizeof(c->ja4));
		found = 0;
		break;
	}
	fclose(f);
	if (found)
		fprintf(stderr, "parse: %s has no complete \"ok\" line for %s\n", path, file);
	return found;
}

static bool afw_bench_span_is(const struct afw_span *s, const char *text)
{
	return s->len == strlen(text) && !memcmp(s->p, text, s->len);
}

/* What afwd does per new TLS flow: read the hello, then fingerprint it. */
static int afw_bench_afw(struct afw_ja4_ctx *ctx, const struct afw_bench_client *c,
			 unsigned int n, bool measure)
{
	uint8_t scratch[AFW_TLS_SCRATCH_SIZE];
	char ja4[AFW_JA4_LEN + 1] = "";
	struct afw_tls_hello h;
	unsigned int i, failed = 0;

	if (measure)
		CALLGRIND_ZERO_STATS;
	for (i = 0; i < n; i++) {
		if (afw_tls_parse_stream(c->data, c->len, scratch, sizeof(scratch), &h) !=
		    AFW_TLS_OK || afw_ja4(ctx, &h, AFW_JA4_TCP, ja4))
			failed++;
	}
	if (measure)
		CALLGRIND_DUMP_STATS_AT(c->name);

	if (failed || !h.has_sni || !afw_bench_span_is(&h.sni, c->sni) || strcmp(ja4, c->ja4)) {
		fprintf(stderr, "parse: afw: %s: got SNI %.*s, JA4 %s; expected %s, %s; %u of %u parses failed\n",
			c->name, h.has_sni ? (int)h.sni.len : 1,
			h.has_sni ? (const char *)h.sni.p : "-", ja4, c->sni, c->ja4, failed, n);
		return -1;
	}
	if (measure)
		printf("afw  %-9s %u hellos, SNI %s, JA4 %s\n", c->name, n, c->sni, ja4);
	return 0;
}

static uint16_t afw_bench_csum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * Cuts the first flight into TCP segments of at most @seg payload bytes, in
 * one buffer that the caller frees (pkts[0].buf): 10.0.0.1:40000 to
 * 10.0.0.2:443, PSH+ACK, after the handshake. nDPI does not verify
 * checksums; the IP one is right anyway. Returns the number of segments.
 */
static unsigned int afw_bench_segments(const struct afw_bench_client *c, size_t seg,
				       struct afw_bench_pkt *pkts)
{
	size_t n_segs = (c->len + seg - 1) / seg, off;
	unsigned int n = 0;
	uint8_t *mem;

	mem = calloc(n_segs, AFW_BENCH_HDRS + seg);
	if (!mem)
		return 0;
	for (off = 0; off < c->len; off += seg, n++) {
		size_t take = c->len - off < seg ? c->len - off : seg;
		uint8_t *ip = mem + n * (AFW_BENCH_HDRS + seg), *tcp = ip + 20;
		uint32_t seq = 1000 + (uint32_t)off;
		uint16_t tot = (uint16_t)(AFW_BENCH_HDRS + take), csum;

		ip[0] = 0x45;
		ip[2] = (uint8_t)(tot >> 8);
		ip[3] = (uint8_t)tot;
		ip[6] = 0x40;			/* don't fragment */
		ip[8] = 64;
		ip[9] = 6;			/* TCP */
		memcpy(ip + 12, (const uint8_t[]){ 10, 0, 0, 1, 10, 0, 0, 2 }, 8);
		csum = afw_bench_csum(ip, 20);
		ip[10] = (uint8_t)(csum >> 8);
		ip[11] = (uint8_t)csum;

		tcp[0] = 40000 >> 8;
		tcp[1] = 40000 & 0xff;
		tcp[2] = 443 >> 8;
		tcp[3] = 443 & 0xff;
		tcp[4] = (uint8_t)(seq >> 24);
		tcp[5] = (uint8_t)(seq >> 16);
		tcp[6] = (uint8_t)(seq >> 8);
		tcp[7] = (uint8_t)seq;
		tcp[11] = 1;			/* ack 1 */
		tcp[12] = 5 << 4;		/* 20-byte header */
		tcp[13] = 0x18;			/* PSH, ACK */
		tcp[14] = 0xff;			/* window */
		tcp[15] = 0xff;
		memcpy(tcp + 20, c->data + off, take);
		pkts[n].buf = ip;
		pkts[n].len = tot;
	}
	return n;
}

static bool afw_bench_is_tls(ndpi_protocol p)
{
	return p.master_protocol == NDPI_PROTOCOL_TLS || p.app_protocol == NDPI_PROTOCOL_TLS;
}

/*
 * The same flight for nDPI, each repetition on a fresh flow. A flow stops
 * taking segments once nDPI reports TLS with the SNI, as a daemon would stop
 * feeding it then.
 */
static int afw_bench_ndpi(struct ndpi_detection_module_struct *ndpi,
			  const struct afw_bench_client *c, size_t seg, unsigned int n,
			  bool measure)
{
	struct afw_bench_pkt pkts[AFW_BENCH_MAX_INPUT / AFW_BENCH_MIN_SEGMENT + 1] = { 0 };
	struct ndpi_flow_struct *flows;
	ndpi_protocol *found;
	unsigned int i, k, n_pkts, failed = 0;
	int ret = -1;

	n_pkts = afw_bench_segments(c, seg, pkts);
	flows = calloc(n, SIZEOF_FLOW_STRUCT);
	found = calloc(n, sizeof(*found));
	if (!n_pkts || !flows || !found) {
		fprintf(stderr, "parse: out of memory\n");
		goto out;
	}

	if (measure)
		CALLGRIND_ZERO_STATS;
	for (i = 0; i < n; i++) {
		struct ndpi_flow_struct *flow = &flows[i];

		for (k = 0; k < n_pkts; k++) {
			found[i] = ndpi_detection_process_packet(ndpi, flow, pkts[k].buf,
								 pkts[k].len, 1000);
			if (afw_bench_is_tls(found[i]) && flow->host_server_name[0])
				break;
		}
	}
	if (measure)
		CALLGRIND_DUMP_STATS_AT(c->name);

	for (i = 0; i < n; i++) {
		if (!afw_bench_is_tls(found[i]) || strcmp(flows[i].host_server_name, c->sni))
			failed++;
	}
	if (failed) {
		fprintf(stderr, "parse: ndpi: %s: %u of %u flows not TLS with SNI %s; last one got protocol %u/%u, SNI \"%s\"\n",
			c->name, failed, n, c->sni, found[n - 1].master_protocol,
			found[n - 1].app_protocol, flows[n - 1].host_server_name);
		goto out;
	}
	if (measure)
		printf("ndpi %-9s %u hellos, SNI %s, %u segment%s each\n", c->name, n, c->sni,
		       n_pkts, n_pkts > 1 ? "s" : "");
	ret = 0;
out:
	if (flows)
		for (i = 0; i < n; i++)
			ndpi_free_flow_data(&flows[i]);
	free(found);
	free(flows);
	free(pkts[0].buf);
	return ret;
}

static struct ndpi_detection_module_struct *afw_bench_ndpi_init(void)
{
	struct ndpi_detection_module_struct *ndpi;
	NDPI_PROTOCOL_BITMASK all;

	ndpi = ndpi_init_detection_module(ndpi_no_prefs);
	if (!ndpi) {
		fprintf(stderr, "parse: ndpi_init_detection_module failed\n");
		return NULL;
	}
	NDPI_BITMASK_SET_ALL(all);
	ndpi_set_protocol_detection_bitmask2(ndpi, &all);
	ndpi_finalize_initialization(ndpi);
	return ndpi;
}

int main(int argc, char **argv)
{
	struct afw_bench_client *clients;
	struct ndpi_detection_module_struct *ndpi = NULL;
	struct afw_ja4_ctx *ja4 = NULL;
	const char *dir = "tests/fixtures";
	unsigned long n = AFW_BENCH_ITERATIONS, seg = AFW_BENCH_MAX_INPUT;
	const char *env;
	bool use_ndpi;
	char *end;
	size_t i;
	int ret = 1;

	if (argc < 2 || argc > 4 || (strcmp(argv[1], "afw") && strcmp(argv[1], "ndpi"))) {
		fprintf(stderr, "usage: %s afw|ndpi [ITERATIONS [FIXTURE_DIR]]\n", argv[0]);
		return 2;
	}
	use_ndpi = !strcmp(argv[1], "ndpi");
	if (argc > 2) {
		errno = 0;
		n = strtoul(argv[2], &end, 10);
		if (errno || *end || !n || n > 100000) {
			fprintf(stderr, "parse: ITERATIONS must be 1 to 100000, not \"%s\"\n",
				argv[2]);
			return 2;
		}
	}
	if (argc > 3)
		dir = argv[3];
	env = getenv("AFW_BENCH_SEGMENT");
	if (env) {
		errno = 0;
		seg = strtoul(env, &end, 10);
		if (errno || *end || seg < AFW_BENCH_MIN_SEGMENT || seg > AFW_BENCH_MAX_INPUT) {
			fprintf(stderr, "parse: AFW_BENCH_SEGMENT must be %d to %d, not \"%s\"\n",
				AFW_BENCH_MIN_SEGMENT, AFW_BENCH_MAX_INPUT, env);
			return 2;
		}
	}

	clients = calloc(AFW_BENCH_N_CLIENTS, sizeof(*clients));
	if (!clients) {
		fprintf(stderr, "parse: out of memory\n");
		return 1;
	}
	for (i = 0; i < AFW_BENCH_N_CLIENTS; i++) {
		clients[i].name = afw_bench_names[i];
		if (afw_bench_load(dir, &clients[i]) || afw_bench_expected(dir, &clients[i]))
			goto out_free;
	}
	if (use_ndpi) {
		ndpi = afw_bench_ndpi_init();
		if (!ndpi)
			goto out_free;
	} else {
		ja4 = afw_ja4_ctx_new();
		if (!ja4) {
			fprintf(stderr, "parse: cannot set up JA4 hashing\n");
			goto out_free;
		}
	}

	/*
	 * One unmeasured round first: lazy symbol binding and the libraries'
	 * first-use setup would otherwise land on whichever client comes first.
	 */
	for (i = 0; i < AFW_BENCH_N_CLIENTS; i++) {
		if (use_ndpi ? afw_bench_ndpi(ndpi, &clients[i], seg, 1, false) :
			       afw_bench_afw(ja4, &clients[i], 1, false))
			goto out;
	}
	CALLGRIND_START_INSTRUMENTATION;
	for (i = 0; i < AFW_BENCH_N_CLIENTS; i++) {
		if (use_ndpi ? afw_bench_ndpi(ndpi, &clients[i], seg, (unsigned int)n, true) :
			       afw_bench_afw(ja4, &clients[i], (unsigned int)n, true))
			goto out;
	}
	ret = 0;
out:
	CALLGRIND_STOP_INSTRUMENTATION;
	if (ndpi)
		ndpi_exit_detection_module(ndpi);
out_free:
	afw_ja4_ctx_free(ja4);
	free(clients);
	return ret;
}
