// SPDX-License-Identifier: GPL-2.0
/*
 * Reading captures: a real curl exchange and crafted files under
 * tests/fixtures/pcap/ (see make-pcaps.py), read from a FILE and from
 * memory, decoded and reassembled; damaged files give an error naming the
 * offset. Run from the top of the source tree.
 */

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pcap.h"
#include "pkt.h"
#include "reasm.h"

#define FIXTURES "tests/fixtures/pcap/"
#define MAX_PKTS 64

struct capture {
	int n;				/* packets read */
	int rc;				/* last afw_pcap_next() result */
	char err[160];
	uint64_t ts[MAX_PKTS];
	unsigned int link[MAX_PKTS];
	uint32_t iface[MAX_PKTS];
	int decoded;			/* packets afw_pkt_decode() took */
	struct afw_pkt_key key;
	int client;			/* side of the key that sent the first packet */
	struct afw_reasm dir[2];	/* 0: client to server */
	uint8_t buf[2][16384];
};

static uint8_t rec[AFW_PCAP_BUF_SIZE];

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	data = malloc(n > 0 ? n : 1);
	*len = fread(data, 1, n, f);
	fclose(f);
	return data;
}

/* Reads every packet, decodes it, and reassembles the first TCP flow. */
static void run(struct afw_pcap *pc, struct capture *c, int rc)
{
	struct afw_pcap_pkt pkt;
	struct afw_pkt p;
	struct afw_pkt_key k;
	int side;

	afw_reasm_init(&c->dir[0], c->buf[0], sizeof(c->buf[0]));
	afw_reasm_init(&c->dir[1], c->buf[1], sizeof(c->buf[1]));
	c->client = -1;
	c->rc = rc;
	if (rc) {
		snprintf(c->err, sizeof(c->err), "%s", pc->err);
		return;
	}
	while ((c->rc = afw_pcap_next(pc, &pkt)) == 1 && c->n < MAX_PKTS) {
		c->ts[c->n] = pkt.ts_ns;
		c->link[c->n] = pkt.linktype;
		c->iface[c->n] = pkt.iface;
		c->n++;
		if (afw_pkt_decode(&p, pkt.linktype, pkt.data, pkt.caplen))
			continue;
		c->decoded++;
		if (p.proto != 6 || !p.has_l4)
			continue;
		side = afw_pkt_flow_key(&p, &k);
		if (c->client < 0) {
			c->key = k;
			c->client = afw_pkt_client_side(&p, side);
		} else if (memcmp(&k, &c->key, sizeof(k))) {
			continue;
		}
		afw_reasm_add(&c->dir[side != c->client], p.tcp_seq, p.tcp_flags & AFW_TCP_SYN,
			      p.payload, p.payload_len);
	}
	snprintf(c->err, sizeof(c->err), "%s", c->rc < 0 ? pc->err : "");
}

static void read_file(const char *name, struct capture *c)
{
	struct afw_pcap pc;
	FILE *f = fopen(name, "rb");

	memset(c, 0, sizeof(*c));
	if (!f) {
		c->rc = -2;
		return;
	}
	run(&pc, c, afw_pcap_open_file(&pc, f, rec, sizeof(rec)));
	fclose(f);
}

static void read_mem(const uint8_t *data, size_t len, struct capture *c)
{
	struct afw_pcap pc;

	memset(c, 0, sizeof(*c));
	run(&pc, c, afw_pcap_open_mem(&pc, data, len, rec, sizeof(rec)));
}

static bool stream_is(const struct capture *c, int dir, const char *s)
{
	return c->dir[dir].have == strlen(s) && !memcmp(c->buf[dir], s, strlen(s));
}

/* The fixture server sent 240 numbered lines after its headers. */
static bool body_ok(const struct capture *c)
{
	const char *resp = (const char *)c->buf[1], *body;
	char line[64];
	size_t off;
	int i;

	body = memmem(resp, c->dir[1].have, "\r\n\r\n", 4);
	if (!body)
		return false;
	body += 4;
	for (i = 0, off = 0; i < 240; i++) {
		int n = snprintf(line, sizeof(line), "line %05d of the afw fixture body\n", i);

		if ((size_t)(body - resp) + off + n > c->dir[1].have ||
		    memcmp(body + off, line, n))
			return false;
		off += n;
	}
	return (size_t)(body - resp) + off == c->dir[1].have;
}

/* Every cut of a file at a block boundary reads cleanly; any other cut is an error. */
static bool cuts_ok(const uint8_t *data, size_t len, const size_t *bounds, int nbounds)
{
	static struct capture c;
	size_t cut;
	int i;

	for (cut = 0; cut < len; cut++) {
		bool boundary = false;

		for (i = 0; i < nbounds; i++)
			boundary |= bounds[i] == cut;
		read_mem(data, cut, &c);
		if (boundary ? c.rc != 0 : c.rc != -1 || !strstr(c.err, "offset"))
			return false;
	}
	return true;
}

int main(void)
{
	static struct capture c, m;
	uint8_t *data, *copy;
	size_t len, bounds[16];
	int failed = 0, i;
	bool ok;

	read_file(FIXTURES "curl-http.pcap", &c);
	CHECK(failed, "curl-http.pcap: 22 packets, all decoded, clean end",
	      c.n == 22 && c.decoded == 22 && c.rc == 0 && c.link[0] == AFW_LINK_EN10MB);
	CHECK(failed, "curl-http.pcap: the client is the side that sent the SYN",
	      c.key.port[c.client] != 8080 && c.key.port[!c.client] == 8080);
	CHECK(failed, "curl-http.pcap: the request reassembles",
	      c.dir[0].have == 86 && !memcmp(c.buf[0], "GET /body.txt HTTP/1.1\r\n", 24) &&
	      memmem(c.buf[0], 86, "\r\nHost: 10.77.0.2:8080\r\n", 24));
	CHECK(failed, "curl-http.pcap: the response reassembles to headers plus the 8400-byte body",
	      !memcmp(c.buf[1], "HTTP/1.0 200 OK\r\n", 17) && body_ok(&c) &&
	      !c.dir[0].conflict && !c.dir[1].conflict);
	CHECK(failed, "curl-http.pcap: timestamps are microseconds in ns and do not go back",
	      c.ts[0] > 1700000000ull * 1000000000 && c.ts[0] % 1000 == 0 && c.ts[21] >= c.ts[0]);
	data = slurp(FIXTURES "curl-http.pcap", &len);
	read_mem(data, len, &m);
	CHECK(failed, "curl-http.pcap: reading from memory gives the same",
	      data && m.n == c.n && m.rc == 0 && !memcmp(m.ts, c.ts, sizeof(c.ts)) &&
	      m.dir[1].have == c.dir[1].have && !memcmp(m.buf, c.buf, sizeof(c.buf)));
	free(data);

	read_file(FIXTURES "reordered.pcap", &c);
	CHECK(failed, "reordered.pcap: segments sent 3, 1, 4, 2 give the request",
	      c.n == 7 && stream_is(&c, 0, "GET /reordered HTTP/1.1\r\nHost: reordered.example\r\n\r\n"));
	read_file(FIXTURES "onebyte.pcap", &c);
	CHECK(failed, "onebyte.pcap (big-endian, ns): one-byte segments across the wrap",
	      c.n == 3 + 48 && c.dir[0].base == 0xfffffff0u &&
	      stream_is(&c, 0, "GET /onebyte HTTP/1.1\r\nHost: onebyte.example\r\n\r\n") &&
	      c.ts[1] == 1700000001ull * 1000000000 + 1000);
	read_file(FIXTURES "conflict.pcap", &c);
	CHECK(failed, "conflict.pcap: a retransmit with other bytes is flagged",
	      c.n == 5 && c.dir[0].conflict && stream_is(&c, 0, "GET /aaaa HTTP/1.1\r\n"));

	for (i = 0; i < 2; i++) {
		const char *name = i ? FIXTURES "twoif-be.pcapng" : FIXTURES "twoif.pcapng";

		read_file(name, &c);
		CHECK(failed, i ? "twoif-be.pcapng: 4 packets, unknown block skipped" :
		      "twoif.pcapng: 4 packets, unknown block skipped",
		      c.n == 4 && c.rc == 0 && c.decoded == 4);
		CHECK(failed, i ? "twoif-be.pcapng: each packet has its interface's link type" :
		      "twoif.pcapng: each packet has its interface's link type",
		      c.link[0] == AFW_LINK_EN10MB && c.iface[0] == 0 &&
		      c.link[1] == AFW_LINK_RAW && c.iface[1] == 1 &&
		      c.link[2] == AFW_LINK_EN10MB && c.link[3] == AFW_LINK_RAW);
		CHECK(failed, i ? "twoif-be.pcapng: microsecond and nanosecond interfaces" :
		      "twoif.pcapng: microsecond and nanosecond interfaces",
		      c.ts[0] == 1700000000ull * 1000000000 + 250000 &&
		      c.ts[1] == 1700000001ull * 1000000000 + 7 && c.ts[3] == 5);
	}

	read_file(FIXTURES "linktypes.pcapng", &c);
	CHECK(failed, "linktypes.pcapng: the same SYN behind 12 link headers decodes 12 times",
	      c.n == 12 && c.decoded == 12 && c.client >= 0 && c.link[7] == AFW_LINK_NULL &&
	      c.link[11] == AFW_LINK_LINUX_SLL2);
	data = slurp(FIXTURES "linktypes.pcapng", &len);
	ok = data != NULL;
	for (i = 0; ok && i < 12; i++) {
		struct afw_pcap pc;
		struct afw_pcap_pkt pkt;
		struct afw_pkt p;
		int j;

		afw_pcap_open_mem(&pc, data, len, rec, sizeof(rec));
		for (j = 0; j <= i; j++)
			ok &= afw_pcap_next(&pc, &pkt) == 1;
		ok &= afw_pkt_decode(&p, pkt.linktype, pkt.data, pkt.caplen) == AFW_PKT_OK &&
		      p.sport == 40000 && p.dport == 443 && p.tcp_flags == AFW_TCP_SYN &&
		      p.src[0] == (p.ipver == 4 ? 192 : 0x20);
	}
	CHECK(failed, "linktypes.pcapng: each gives 40000 -> 443 SYN from the right address", ok);
	free(data);

	read_file(FIXTURES "truncated.pcap", &c);
	CHECK(failed, "truncated.pcap: two packets, then the cut record's offset",
	      c.n == 2 && c.rc == -1 &&
	      !strcmp(c.err, "pcap: offset 164: record data truncated: 44 of 54 bytes"));
	read_file(FIXTURES "lying.pcap", &c);
	CHECK(failed, "lying.pcap: a record longer than the snaplen is named",
	      c.n == 2 && c.rc == -1 &&
	      !strcmp(c.err, "pcap: offset 164: record length 70000 exceeds snaplen 65535"));

	/* Every cut of a file: pcap at record boundaries, pcapng at blocks */
	data = slurp(FIXTURES "reordered.pcap", &len);
	bounds[0] = 24;
	for (i = 0; i < 7; i++)
		bounds[i + 1] = bounds[i] + 16 + (data[bounds[i] + 8] | data[bounds[i] + 9] << 8);
	CHECK(failed, "reordered.pcap: every cut is a clean end or an error with an offset",
	      data && cuts_ok(data, len, bounds, 8));
	copy = malloc(len);
	memcpy(copy, data, len);
	copy[0] = 0x42;
	read_mem(copy, len, &c);
	CHECK(failed, "a bad magic number is named",
	      c.rc == -1 && strstr(c.err, "offset 0: unknown magic number"));
	memcpy(copy, data, len);
	copy[4] = 3;
	read_mem(copy, len, &c);
	CHECK(failed, "pcap version 3 is refused", c.rc == -1 && strstr(c.err, "version 3.4"));
	free(copy);
	free(data);

	data = slurp(FIXTURES "twoif.pcapng", &len);
	for (i = 0, bounds[0] = 0; data && bounds[i] < len && i < 14; i++)
		bounds[i + 1] = bounds[i] + (data[bounds[i] + 4] | data[bounds[i] + 5] << 8);
	CHECK(failed, "twoif.pcapng: every cut is a clean end or an error with an offset",
	      data && bounds[i] == len && cuts_ok(data, len, bounds + 1, i - 1));
	copy = malloc(len);
	memcpy(copy, data, len);
	copy[bounds[2] - 4] = 0x99;
	read_mem(copy, len, &c);
	CHECK(failed, "pcapng: a trailing block length that differs is named",
	      c.rc == -1 &&
	      !strcmp(c.err, "pcapng: offset 28: block length 20 at the start but 153 at the end"));
	memcpy(copy, data, len);
	copy[bounds[3] + 4] = 0xfc;
	copy[bounds[3] + 5] = 0xff;
	copy[bounds[3] + 6] = 0xff;
	copy[bounds[3] + 7] = 0x7f;
	read_mem(copy, len, &c);
	CHECK(failed, "pcapng: a 2 GB packet block is refused, not allocated",
	      c.rc == -1 && strstr(c.err, "exceeds the reader buffer"));
	memcpy(copy, data, len);
	copy[bounds[4] + 8] = 5;
	read_mem(copy, len, &c);
	CHECK(failed, "pcapng: a packet naming a missing interface is refused",
	      c.n == 0 && c.rc == -1 && strstr(c.err, "names interface 5, but the section has 2"));
	memcpy(copy, data, len);
	copy[bounds[4] + 20] = 0xff;
	read_mem(copy, len, &c);
	CHECK(failed, "pcapng: a captured length past its block is refused",
	      c.rc == -1 && strstr(c.err, "captured length") && strstr(c.err, "overruns"));
	memcpy(copy, data, len);
	copy[8] = 0x11;
	read_mem(copy, len, &c);
	CHECK(failed, "pcapng: a bad byte-order magic is named",
	      c.rc == -1 && strstr(c.err, "pcapng: offset 8: bad byte-order magic"));
	free(copy);
	free(data);
	return failed;
}
