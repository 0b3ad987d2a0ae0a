// SPDX-License-Identifier: GPL-2.0
/*
 * The engine between packets and decisions, driven with crafted IPv4
 * packets as NFQUEUE hands them over: what each packet gets (accept or
 * drop), which packet decides, and what the decision record says. QUIC
 * Initials are sealed by tests/unit/quic_seal.h; TLS and HTTP streams come
 * from tests/fixtures/tls and from here.
 */

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dns.h"
#include "engine.h"
#include "quic.h"
#include "quic_seal.h"

#define NS 1000000000ull

struct rig {
	struct afw_engine *e;
	struct afw_policy *pol;
	struct afw_result res;
	uint32_t server_ack;		/* what the server's next ACK acknowledges */
	uint32_t synack_ack;		/* what its SYN-ACK acknowledges, if not 1001 */
	unsigned int decisions;		/* decisions made by the packets sent */
	bool decided;			/* by the last packet */
	uint64_t now;
	uint8_t cdir;			/* enum afw_dir of the client's packets (hook) */
};

static uint8_t pktbuf[70000];

static bool rig_init(struct rig *r, const char *policy)
{
	struct afw_engine_opts o = { .max_flows = 64, .max_bytes = 16384, .max_packets = 32,
				     .max_ns = 2 * NS };
	struct afw_policy_error err;

	memset(r, 0, sizeof(*r));
	r->now = NS;
	r->e = afw_engine_new(&o);
	r->pol = afw_policy_parse(policy, strlen(policy), "test", &err);
	if (!r->pol)
		printf("# %s\n", err.msg);
	return r->e && r->pol;
}

static void rig_free(struct rig *r)
{
	afw_engine_free(r->e);
	afw_policy_free(r->pol);
}

/*
 * One IPv4 packet, 10.0.0.1:@sport to 10.0.0.2:@dport (@dir 0) or back
 * (@dir 1), through the engine. @proto is IPPROTO_UDP or IPPROTO_TCP (then
 * @flags and @seq). Returns the packet's verdict.
 */
static enum afw_pass send_pkt(struct rig *r, uint8_t proto, int dir, uint16_t sport,
			      uint16_t dport, uint8_t flags, uint32_t seq, const void *data,
			      size_t len)
{
	size_t l4 = proto == IPPROTO_TCP ? 20 : proto == IPPROTO_SCTP ? 12 : 8, tot = 20 + l4 + len;
	uint8_t *p = pktbuf, a = dir ? 2 : 1, b = dir ? 1 : 2;
	uint16_t sp = dir ? dport : sport, dp = dir ? sport : dport;
	enum afw_pass pass;
	struct afw_pkt pk;

	memset(p, 0, 20 + l4);
	p[0] = 0x45;
	p[2] = tot >> 8;
	p[3] = tot & 0xff;
	p[8] = 64;
	p[9] = proto;
	p[12] = 10, p[15] = a;
	p[16] = 10, p[19] = b;
	p[20] = sp >> 8, p[21] = sp & 0xff, p[22] = dp >> 8, p[23] = dp & 0xff;
	if (proto == IPPROTO_TCP) {
		/* The client acknowledges the SYN-ACK; the server, its SYN or what r->server_ack says. */
		uint32_t ack = !(flags & 0x10) ? 0 :
			       dir ? (flags & 0x02 ? (r->synack_ack ? r->synack_ack : 1001) : r->server_ack) : 5001;

		p[24] = seq >> 24, p[25] = seq >> 16, p[26] = seq >> 8, p[27] = seq & 0xff;
		p[28] = ack >> 24, p[29] = ack >> 16, p[30] = ack >> 8, p[31] = ack & 0xff;
		p[32] = 5 << 4;
		p[33] = flags;
		p[34] = 0xff, p[35] = 0xff;
	} else if (proto == IPPROTO_UDP) {
		p[24] = (8 + len) >> 8;
		p[25] = (8 + len) & 0xff;
	}
	memcpy(p + 20 + l4, data, len);
	if (afw_pkt_decode(&pk, AFW_LINK_RAW, p, tot) != AFW_PKT_OK)
		return (enum afw_pass)-1;
	/* No checksum here: as if the kernel had checked it. */
	pk.csum = AFW_CSUM_TRUSTED;
	pk.dir = !dir ? r->cdir : r->cdir == AFW_FDIR_IN ? AFW_FDIR_OUT :
		 r->cdir == AFW_FDIR_OUT ? AFW_FDIR_IN : r->cdir;
	r->now += 1000;
	pass = afw_engine_packet(r->e, r->pol, &pk, false, 0, r->now, &r->res, &r->decided);
	r->decisions += r->decided;
	return pass;
}

static enum afw_pass udp(struct rig *r, uint16_t sport, const void *data, size_t len)
{
	return send_pkt(r, IPPROTO_UDP, 0, sport, 443, 0, 0, data, len);
}

/*
 * A ClientHello for @sni, without records, as QUIC carries it, with @pad
 * bytes of padding (1800 makes it about as long as Chromium's with an
 * ML-KEM key share).
 */
static size_t hello(const char *sni, size_t pad, uint8_t *out)
{
	static const uint8_t head[] = {
		0x03, 0x03, /* random */ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
		17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
		0x00, 0x00, 0x06, 0x13, 0x01, 0x13, 0x02, 0x13, 0x03, 0x01, 0x00,
	};
	size_t n = 4, sl = strlen(sni), ext;

	memcpy(out + n, head, sizeof(head));
	n += sizeof(head);
	ext = n;
	n += 2;
	/* server_name */
	out[n++] = 0, out[n++] = 0, out[n++] = 0, out[n++] = (uint8_t)(sl + 5);
	out[n++] = 0, out[n++] = (uint8_t)(sl + 3), out[n++] = 0, out[n++] = 0;
	out[n++] = (uint8_t)sl;
	memcpy(out + n, sni, sl);
	n += sl;
	/* ALPN h3; supported_versions 1.3 */
	memcpy(out + n, "\x00\x10\x00\x05\x00\x03\x02h3\x00\x2b\x00\x03\x02\x03\x04", 16);
	n += 16;
	/* padding */
	out[n++] = 0, out[n++] = 0x15, out[n++] = (uint8_t)(pad >> 8), out[n++] = (uint8_t)pad;
	memset(out + n, 0, pad);
	n += pad;
	out[ext] = (uint8_t)((n - ext - 2) >> 8);
	out[ext + 1] = (uint8_t)(n - ext - 2);
	out[0] = 1;
	out[1] = 0;
	out[2] = (uint8_t)((n - 4) >> 8);
	out[3] = (uint8_t)(n - 4);
	return n;
}

static const uint8_t dcid1[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
static const uint8_t dcid2[8] = { 2, 2, 2, 2, 2, 2, 2, 2 };
static const uint8_t server_cid[8] = { 9, 8, 7, 6, 5, 4, 3, 2 };

/* A client Initial of @dcid (keys from @key_dcid) carrying hello[@off, @off + @n). */
static size_t initial(struct afw_quic_ctx *q, const uint8_t *key_dcid, const uint8_t *dcid,
		      uint64_t pn, const uint8_t *h, size_t off, size_t n, uint8_t *out)
{
	uint8_t frames[1300];
	size_t fl;

	if (n > 1150)
		return 0;
	fl = afw_test_crypto_frame(frames, off, h + off, n);

	return afw_test_seal_keyed(q, AFW_QUIC_V1, key_dcid, dcid, 8, pn, 2, frames, fl, 1200, 0,
				   out, 1400);
}

static void test_quic_spread(int *failed, struct afw_quic_ctx *q)
{
	uint8_t h[2100], dg[1400];
	size_t hl = hello("spread.test", 1800, h), off = 0, n, step = (hl + 41) / 42;
	unsigned int sent = 0, accepted = 0;
	struct rig r;

	if (!rig_init(&r, "default deny\nhost spread.test allow\n"))
		return;
	while (off < hl) {
		n = hl - off < step ? hl - off : step;
		accepted += udp(&r, 5000, dg, initial(q, dcid1, dcid1, sent, h, off, n, dg)) ==
			    AFW_PASS_ACCEPT;
		sent++;
		off += n;
		if (r.decided)
			break;
	}
	printf("# hello of %zu bytes in %u Initials\n", hl, sent);
	CHECK(*failed, "a QUIC hello over 42 Initials is read whole",
	      sent == 42 && r.decided && r.decisions == 1 && r.res.l7 == AFW_L7_QUIC &&
	      !strcmp(r.res.host, "spread.test") && r.res.decision == AFW_DECIDE_ALLOW &&
	      accepted == 42 && !r.res.giveup);
	rig_free(&r);

	/*
	 * Half a hello, then 40 copies of its Initial (no new CRYPTO bytes)
	 * and 5 s of silence: neither decides; past the bound of 32 the copies
	 * are dropped; the other half is read, and the name denied.
	 */
	if (!rig_init(&r, "default allow\nhost spread.test deny\n"))
		return;
	n = initial(q, dcid1, dcid1, 0, h, 0, hl / 2, dg);
	udp(&r, 5002, dg, n);
	for (sent = 0, accepted = 0; sent < 40 && !r.decided; sent++)
		accepted += udp(&r, 5002, dg, n) == AFW_PASS_ACCEPT;
	CHECK(*failed, "40 Initials without new CRYPTO bytes decide nothing; past 32 they drop",
	      !r.decided && sent == 40 && accepted == 32);
	r.now += 5 * NS;
	afw_engine_expire(r.e, r.pol, r.now, false, NULL, NULL);
	CHECK(*failed, "nor does 5 s of silence", afw_engine_flows(r.e) == 1 &&
	      afw_engine_stats(r.e)->stalled == 1);
	for (off = hl / 2, sent = 1, accepted = 0; off < hl && !r.decided; off += step, sent++)
		accepted += udp(&r, 5002, dg, initial(q, dcid1, dcid1, sent, h, off,
						      hl - off < step ? hl - off : step, dg)) ==
			    AFW_PASS_ACCEPT;
	CHECK(*failed, "the rest of the hello is read: denied by its name",
	      r.decided && !strcmp(r.res.host, "spread.test") &&
	      r.res.decision == AFW_DECIDE_DENY && !r.res.giveup);
	CHECK(*failed, "its Initials with new CRYPTO bytes pass, past the bound too, but the last",
	      accepted == sent - 2);
	rig_free(&r);

	/* One byte per Initial: past AFW_QUIC_MAX_FRESH, a bound, not a guess. */
	if (!rig_init(&r, "default allow\nreason bound proto udp dport 443 deny\n"))
		return;
	for (sent = 0; sent < AFW_QUIC_MAX_FRESH + 5 && !r.decided; sent++)
		udp(&r, 5001, dg, initial(q, dcid1, dcid1, sent, h, sent, 1, dg));
	CHECK(*failed, "a hello a byte per Initial ends at the bound of fresh Initials, "
	      "decided by 'reason bound'",
	      r.decided && sent == AFW_QUIC_MAX_FRESH && r.res.giveup == AFW_REASON_BOUND &&
	      r.res.decision == AFW_DECIDE_DENY && r.res.rule_line == 2);
	rig_free(&r);
}

static void test_quic_requeue(int *failed, struct afw_quic_ctx *q)
{
	uint8_t h[2100], h2[2100], dg[1400], junk[1300];
	size_t hl = hello("allowed.test", 0, h), hl2 = hello("denied.test", 0, h2);
	enum afw_pass pass;
	struct rig r;

	memset(junk, 0x5a, sizeof(junk));
	if (!rig_init(&r, "default allow\nhost denied.test deny\n"))
		return;
	pass = udp(&r, 6000, junk, 100);
	CHECK(*failed, "a junk first datagram: not QUIC, a give-up named not-tls",
	      r.decided && r.res.giveup == AFW_REASON_NOT_TLS && pass == AFW_PASS_ACCEPT &&
	      r.res.decision == AFW_DECIDE_ALLOW && r.res.is_default);
	pass = udp(&r, 6000, dg, initial(q, dcid1, dcid1, 0, h2, 0, hl2, dg));
	CHECK(*failed, "then a real Initial on that flow is read as a connection of its own, "
	      "and its denied name is dropped",
	      r.decided && r.decisions == 2 && pass == AFW_PASS_DROP &&
	      !strcmp(r.res.host, "denied.test") && r.res.decision == AFW_DECIDE_DENY);
	rig_free(&r);

	if (!rig_init(&r, "default allow\nhost denied.test deny\n"))
		return;
	pass = udp(&r, 6001, dg, initial(q, dcid1, dcid1, 0, h, 0, hl, dg));
	CHECK(*failed, "a QUIC connection to an allowed name is allowed",
	      r.decided && pass == AFW_PASS_ACCEPT && !strcmp(r.res.host, "allowed.test"));
	pass = udp(&r, 6001, dg, initial(q, dcid1, dcid1, 1, h, 0, hl, dg));
	CHECK(*failed, "its retransmitted Initial (same DCID) passes, no new decision",
	      !r.decided && r.decisions == 1 && pass == AFW_PASS_ACCEPT);
	pass = udp(&r, 6001, dg, initial(q, dcid1, server_cid, 2, h, 0, 0, dg));
	CHECK(*failed, "an Initial to the server's connection ID, under the first keys, "
	      "passes as the same connection",
	      !r.decided && r.decisions == 1 && pass == AFW_PASS_ACCEPT);
	pass = udp(&r, 6001, dg, initial(q, dcid2, dcid2, 0, h2, 0, hl2, dg));
	CHECK(*failed, "an Initial with a new DCID is a new connection: judged by its own "
	      "name and dropped",
	      r.decided && r.decisions == 2 && pass == AFW_PASS_DROP &&
	      !strcmp(r.res.host, "denied.test"));
	pass = udp(&r, 6001, dg, initial(q, dcid2, server_cid, 1, h2, 0, 0, dg));
	CHECK(*failed, "and the new connection's later Initials are dropped with it",
	      !r.decided && pass == AFW_PASS_DROP);
	rig_free(&r);

	/* An unknown QUIC version is a give-up with a name for the policy. */
	if (!rig_init(&r, "default allow\nproto udp dport 443 reason not-tls deny\n"))
		return;
	memcpy(dg, "\xc0\x1a\x2a\x3a\x4a\x08\x01\x01\x01\x01\x01\x01\x01\x01\x00", 15);
	memset(dg + 15, 0, 1200);
	pass = udp(&r, 6002, dg, 1215);
	CHECK(*failed, "an Initial of an unknown QUIC version: not-tls, denied on UDP 443",
	      r.decided && r.res.giveup == AFW_REASON_NOT_TLS && pass == AFW_PASS_DROP);
	pass = udp(&r, 6002, dg, 1215);
	CHECK(*failed, "another one on that flow teaches nothing new: no new decision",
	      !r.decided && r.decisions == 1 && pass == AFW_PASS_DROP);
	pass = udp(&r, 6002, dg, initial(q, dcid1, dcid1, 0, h, 0, hl, dg));
	CHECK(*failed, "but a v1 Initial there is a connection afwd reads: judged by its name",
	      r.decided && r.decisions == 2 && pass == AFW_PASS_ACCEPT &&
	      !strcmp(r.res.host, "allowed.test"));
	rig_free(&r);

	/* A contradiction is evasion: denied even when the default allows. */
	if (!rig_init(&r, "default allow\n"))
		return;
	udp(&r, 6003, dg, initial(q, dcid1, dcid1, 0, h, 0, 60, dg));
	h[30] ^= 0xff;
	pass = udp(&r, 6003, dg, initial(q, dcid1, dcid1, 1, h, 0, hl, dg));
	h[30] ^= 0xff;
	CHECK(*failed, "CRYPTO bytes that differ from the first copy: evasion, denied under "
	      "a default allow", r.decided && r.res.giveup == AFW_REASON_EVASION &&
	      pass == AFW_PASS_DROP && !r.res.is_default && !r.res.rule_line);
	rig_free(&r);
}

/* A client Initial of @dcid (keys from @key_dcid) carrying @n bytes of @data at CRYPTO @off. */
static size_t initial_at(struct afw_quic_ctx *q, const uint8_t *key_dcid, const uint8_t *dcid,
			 uint64_t pn, const uint8_t *data, size_t off, size_t n, uint8_t *out)
{
	uint8_t frames[1300];
	size_t fl;

	if (n > 1150)
		return 0;
	fl = afw_test_crypto_frame(frames, off, data, n);
	return afw_test_seal_keyed(q, AFW_QUIC_V1, key_dcid, dcid, 8, pn, 2, frames, fl, 1200, 0,
				   out, 1400);
}

/*
 * After a HelloRetryRequest a QUIC client sends its second hello in a later
 * Initial, under the first keys, to the server's connection ID, at the
 * CRYPTO offset past the first: the server reads its names anew.
 */
static void test_quic_second_hello(int *failed, struct afw_quic_ctx *q)
{
	uint8_t h[2100], h2[2100], h3[2100], dg[1400];
	size_t hl = hello("allowed.test", 0, h), hl2 = hello("denied.test", 0, h2);
	size_t hl3 = hello("allowed.test", 40, h3);
	enum afw_pass pass;
	struct rig r;

	if (!rig_init(&r, "default allow\nhost denied.test deny\n"))
		return;
	pass = udp(&r, 6100, dg, initial(q, dcid1, dcid1, 0, h, 0, hl, dg));
	CHECK(*failed, "QUIC: a first hello naming an allowed name is allowed",
	      r.decided && pass == AFW_PASS_ACCEPT && !strcmp(r.res.host, "allowed.test"));
	pass = udp(&r, 6100, dg, initial_at(q, dcid1, server_cid, 1, h2, hl, hl2, dg));
	CHECK(*failed, "QUIC: a second hello after it naming a denied name: evasion, dropped",
	      r.decided && r.decisions == 2 && pass == AFW_PASS_DROP &&
	      r.res.giveup == AFW_REASON_EVASION);
	pass = udp(&r, 6100, dg, initial(q, dcid1, server_cid, 2, h, 0, 0, dg));
	CHECK(*failed, "QUIC: and the connection's later Initials are dropped with it",
	      !r.decided && pass == AFW_PASS_DROP);
	rig_free(&r);

	/* The same second hello in two Initials, its name in the second. */
	if (!rig_init(&r, "default allow\nhost denied.test deny\n"))
		return;
	udp(&r, 6101, dg, initial(q, dcid1, dcid1, 0, h, 0, hl, dg));
	pass = udp(&r, 6101, dg, initial_at(q, dcid1, server_cid, 1, h2, hl, 20, dg));
	CHECK(*failed, "QUIC: the first bytes of a second hello pass, nothing to judge yet",
	      !r.decided && pass == AFW_PASS_ACCEPT);
	pass = udp(&r, 6101, dg, initial_at(q, dcid1, server_cid, 2, h2 + 20, hl + 20,
					    hl2 - 20, dg));
	CHECK(*failed, "QUIC: its name in a later Initial: evasion, dropped",
	      r.decided && pass == AFW_PASS_DROP && r.res.giveup == AFW_REASON_EVASION);
	rig_free(&r);

	/* What real clients send: the same names, other padding and key shares. */
	if (!rig_init(&r, "default allow\nhost denied.test deny\n"))
		return;
	udp(&r, 6102, dg, initial(q, dcid1, dcid1, 0, h, 0, hl, dg));
	pass = udp(&r, 6102, dg, initial_at(q, dcid1, server_cid, 1, h3, hl, hl3, dg));
	CHECK(*failed, "QUIC: a second hello naming the same name passes, no new decision",
	      !r.decided && r.decisions == 1 && pass == AFW_PASS_ACCEPT);
	/* A copy of the judged hello that differs from it: evasion. */
	h[30] ^= 0xff;
	pass = udp(&r, 6102, dg, initial(q, dcid1, server_cid, 2, h, 0, hl, dg));
	h[30] ^= 0xff;
	CHECK(*failed, "QUIC: a later copy of the judged hello that differs: evasion, dropped",
	      r.decided && pass == AFW_PASS_DROP && r.res.giveup == AFW_REASON_EVASION);
	rig_free(&r);
}

/*
 * @data as a client TCP stream to @dport, after a SYN, in segments of @seg
 * bytes; then, unless a segment decided, the server's ACK of all of them
 * (an allow waits for it). Returns the verdict of the last packet.
 */
static enum afw_pass tcp_stream(struct rig *r, uint16_t sport, uint16_t dport, const void *data,
				size_t len, size_t seg)
{
	enum afw_pass pass = AFW_PASS_ACCEPT;
	size_t off;

	send_pkt(r, IPPROTO_TCP, 0, sport, dport, 0x02, 1000, NULL, 0);
	send_pkt(r, IPPROTO_TCP, 1, sport, dport, 0x12, 5000, NULL, 0);
	for (off = 0; off < len && !r->decided; off += seg)
		pass = send_pkt(r, IPPROTO_TCP, 0, sport, dport, 0x18, 1001 + (uint32_t)off,
				(const uint8_t *)data + off, len - off < seg ? len - off : seg);
	if (!r->decided) {
		r->server_ack = 1001 + (uint32_t)len;
		pass = send_pkt(r, IPPROTO_TCP, 1, sport, dport, 0x10, 5001, NULL, 0);
	}
	return pass;
}

static size_t load(const char *name, uint8_t *buf, size_t cap)
{
	char path[256];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "tests/fixtures/tls/%s", name);
	f = fopen(path, "rb");
	if (!f)
		return 0;
	n = fread(buf, 1, cap, f);
	fclose(f);
	return n;
}

static void test_tcp(int *failed)
{
	static const struct {
		const char *file, *sni;
	} tls[] = {
		{ "crafted-record-version-0305.bin", "crafted.afw.test" },
		{ "crafted-record-version-03ff-two-records.bin", "crafted.afw.test" },
		{ "crafted-empty-records.bin", "crafted.afw.test" },
	};
	uint8_t buf[20000];
	char what[160];
	size_t i, n;
	struct rig r;

	for (i = 0; i < sizeof(tls) / sizeof(tls[0]); i++) {
		if (!rig_init(&r, "default allow\nhost crafted.afw.test deny\n"))
			return;
		n = load(tls[i].file, buf, sizeof(buf));
		snprintf(what, sizeof(what), "%s, as OpenSSL reads it: SNI %s, denied by its rule",
			 tls[i].file, tls[i].sni);
		CHECK(*failed, what, n && tcp_stream(&r, 7000, 443, buf, n, 40) == AFW_PASS_DROP &&
		      r.res.l7 == AFW_L7_TLS && !strcmp(r.res.host, tls[i].sni));
		rig_free(&r);
	}
	if (!rig_init(&r, "default allow\nhost public.afw.test ech yes deny\n"))
		return;
	n = load("crafted-ech.bin", buf, sizeof(buf));
	CHECK(*failed, "an ECH hello: its public name and ech yes decide, and the record says so",
	      n && tcp_stream(&r, 7001, 443, buf, n, 1000) == AFW_PASS_DROP && r.res.ech &&
	      !strcmp(r.res.host, "public.afw.test"));
	rig_free(&r);

	if (!rig_init(&r, "default allow\n"))
		return;
	n = load("bad-sni-duplicate.bin", buf, sizeof(buf));
	CHECK(*failed, "a malformed ClientHello is denied under a default allow, reason malformed",
	      n && tcp_stream(&r, 7002, 443, buf, n, 1000) == AFW_PASS_DROP &&
	      r.res.giveup == AFW_REASON_MALFORMED && r.res.l7 == AFW_L7_TLS);
	rig_free(&r);

	if (!rig_init(&r, "default allow\nproto tcp dport 443 reason not-tls deny\n"))
		return;
	n = load("not-tls-alert.bin", buf, sizeof(buf));
	CHECK(*failed, "an alert before the hello (OpenSSL refuses it): not-tls, denied on 443",
	      n && tcp_stream(&r, 7003, 443, buf, n, 1000) == AFW_PASS_DROP &&
	      r.res.giveup == AFW_REASON_NOT_TLS);
	rig_free(&r);
}

/* A client segment at stream offset @off of the flow tcp_stream() started. */
static enum afw_pass seg(struct rig *r, uint16_t sport, size_t off, const char *data)
{
	return send_pkt(r, IPPROTO_TCP, 0, sport, 80, 0x18, 1001 + (uint32_t)off, data,
			strlen(data));
}

#define REQ(host) "GET / HTTP/1.1\r\nHost: " host "\r\n\r\n"

/* Under inspect, every request of an HTTP/1.x connection is judged. */
static void test_pipeline(int *failed)
{
	static const char *const policy = "default deny\nhost a.test inspect\n"
					  "host b.test deny\nhost c.test allow\n";
	const char *first = REQ("a.test"), *post, *chunked, *up;
	size_t off = strlen(first);
	enum afw_pass pass;
	struct rig r;

	if (!rig_init(&r, policy))
		return;
	pass = tcp_stream(&r, 8000, 80, first, off, 1000);
	CHECK(*failed, "an HTTP request to an inspected host is inspected",
	      pass == AFW_PASS_ACCEPT && r.decided && r.res.decision == AFW_DECIDE_INSPECT);
	pass = seg(&r, 8000, off, REQ("c.test"));
	CHECK(*failed, "a second request to an allowed host passes",
	      pass == AFW_PASS_ACCEPT && !r.decided);
	off += strlen(REQ("c.test"));
	pass = seg(&r, 8000, off + 5, "x");
	CHECK(*failed, "an out-of-order segment of a followed flow is dropped, to come again",
	      pass == AFW_PASS_DROP && !r.decided);
	pass = seg(&r, 8000, off, REQ("b.test"));
	CHECK(*failed, "a later request to a denied host is dropped, and decided deny",
	      pass == AFW_PASS_DROP && r.decided && r.res.decision == AFW_DECIDE_DENY &&
	      !strcmp(r.res.host, "b.test") && r.res.rule_line == 3);
	pass = seg(&r, 8000, off + strlen(REQ("b.test")), REQ("c.test"));
	CHECK(*failed, "and the flow stays dropped", pass == AFW_PASS_DROP && !r.decided);
	rig_free(&r);

	/* Pipelined in the same segment as the first: the deciding packet is dropped. */
	if (!rig_init(&r, policy))
		return;
	pass = tcp_stream(&r, 8001, 80, REQ("a.test") REQ("b.test"),
			  strlen(REQ("a.test") REQ("b.test")), 1000);
	CHECK(*failed, "two requests in one segment: the denied second decides",
	      pass == AFW_PASS_DROP && r.decided && !strcmp(r.res.host, "b.test"));
	rig_free(&r);

	/*
	 * A body is skipped, and read as a server that reads no body reads it:
	 * a request to a denied host there is denied.
	 */
	if (!rig_init(&r, policy))
		return;
	post = "POST / HTTP/1.1\r\nHost: a.test\r\nContent-Length: 32\r\n\r\n"
	       "GET / HTTP/1.1\r\nHost: b.test\r\n\r\n";
	pass = tcp_stream(&r, 8004, 80, post, strlen(post), 1000);
	CHECK(*failed, "a body that reads like a request to a denied host: denied",
	      pass == AFW_PASS_DROP && r.decided && r.res.decision == AFW_DECIDE_DENY &&
	      !strcmp(r.res.host, "b.test"));
	rig_free(&r);

	/* One to an allowed host is judged and let be; chunks are chunks. */
	if (!rig_init(&r, policy))
		return;
	post = "POST / HTTP/1.1\r\nHost: a.test\r\nContent-Length: 32\r\n\r\n"
	       "GET / HTTP/1.1\r\nHost: c.test\r\n\r\n";
	tcp_stream(&r, 8002, 80, post, strlen(post), 1000);
	CHECK(*failed, "a body that reads like a request to an allowed host: inspected",
	      r.decided && r.res.decision == AFW_DECIDE_INSPECT);
	off = strlen(post);
	chunked = "POST / HTTP/1.1\r\nHost: c.test\r\nTransfer-Encoding: chunked\r\n\r\n"
		  "20;ext=1\r\nGET / HTTP/1.1\r\nHost: b.test\r\n\r\n\r\n0\r\nX-T: 1\r\n\r\n";
	pass = seg(&r, 8002, off, chunked);
	CHECK(*failed, "chunks that read like a request are chunks, to the trailer",
	      pass == AFW_PASS_ACCEPT && !r.decided);
	off += strlen(chunked);
	pass = seg(&r, 8002, off, REQ("b.test"));
	CHECK(*failed, "and the request after them is read: denied",
	      pass == AFW_PASS_DROP && r.decided && !strcmp(r.res.host, "b.test"));
	rig_free(&r);

	if (!rig_init(&r, policy))
		return;
	tcp_stream(&r, 8003, 80, first, strlen(first), 1000);
	pass = seg(&r, 8003, strlen(first), "\x16\x03\x01 what");
	CHECK(*failed, "bytes after a request that are no request: denied as malformed",
	      pass == AFW_PASS_DROP && r.decided && r.res.giveup == AFW_REASON_MALFORMED);
	rig_free(&r);

	if (!rig_init(&r, policy))
		return;
	up = "GET /ws HTTP/1.1\r\nHost: a.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n";
	tcp_stream(&r, 8004, 80, up, strlen(up), 1000);
	pass = seg(&r, 8004, strlen(up), "\x81\x85 frame");
	CHECK(*failed, "after an Upgrade, bytes of another protocol pass: the protocol changed",
	      pass == AFW_PASS_ACCEPT && !r.decided);
	rig_free(&r);

	if (!rig_init(&r, policy))
		return;
	post = "POST / HTTP/1.1\r\nHost: a.test\r\nContent-Length: 3\r\n"
	       "Transfer-Encoding: chunked\r\n\r\n";
	tcp_stream(&r, 8005, 80, post, strlen(post), 1000);
	pass = seg(&r, 8005, strlen(post), "abc");
	CHECK(*failed, "a body whose length servers disagree on: what follows is denied",
	      pass == AFW_PASS_DROP && r.decided && strstr(r.res.reason, "both Content-Length"));
	rig_free(&r);
}

/* SCTP and DCCP have ports: a dport rule must see them. */
static void test_ports(int *failed)
{
	struct rig r;

	if (!rig_init(&r, "default allow\nproto sctp dport 5060 deny\n"))
		return;
	CHECK(*failed, "an SCTP association to a denied port is dropped by its dport rule",
	      send_pkt(&r, IPPROTO_SCTP, 0, 40000, 5060, 0, 0, "INIT", 4) == AFW_PASS_DROP &&
	      r.decided && r.res.rule_line == 2 && r.res.dport == 5060);
	CHECK(*failed, "and one to another port gets the default",
	      send_pkt(&r, IPPROTO_SCTP, 0, 40000, 5061, 0, 0, "INIT", 4) == AFW_PASS_ACCEPT &&
	      r.decided && r.res.is_default);
	rig_free(&r);
}

/* A DNS query for @name (dotted, "" for the root), type A, as a stub sends it. */
static size_t dns_query(const char *name, uint8_t *out)
{
	static const uint8_t head[12] = { 0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0 };
	size_t n = sizeof(head), l;
	const char *dot;

	memcpy(out, head, n);
	while (*name) {
		dot = strchr(name, '.');
		l = dot ? (size_t)(dot - name) : strlen(name);
		out[n++] = (uint8_t)l;
		memcpy(out + n, name, l);
		n += l;
		name += l + (dot != NULL);
	}
	out[n++] = 0;
	out[n++] = 0, out[n++] = 1, out[n++] = 0, out[n++] = 1;
	return n;
}

/* DNS over UDP and TCP port 53: judged by the name asked for. */
static void test_dns(int *failed)
{
	uint8_t q[300], tq[302];
	struct rig r;
	size_t n;

	if (!rig_init(&r, "default deny\nhost allowed.test,*.ok.test l7 dns allow\n"
			  "l7 dns name invalid reject\n")) {
		CHECK(*failed, "dns: rig", 0);
		return;
	}
	n = dns_query("allowed.test", q);
	CHECK(*failed, "dns/udp: a query for an allowed name passes",
	      send_pkt(&r, IPPROTO_UDP, 0, 40000, 53, 0, 0, q, n) == AFW_PASS_ACCEPT &&
	      r.decided && r.res.l7 == AFW_L7_DNS && !strcmp(r.res.host, "allowed.test") &&
	      r.res.decision == AFW_DECIDE_ALLOW && r.res.rule_line == 2);
	n = dns_query("Www.OK.test", q);
	CHECK(*failed, "dns/udp: a suffix rule, any case",
	      send_pkt(&r, IPPROTO_UDP, 0, 40001, 53, 0, 0, q, n) == AFW_PASS_ACCEPT &&
	      r.res.decision == AFW_DECIDE_ALLOW);
	n = dns_query("denied.test", q);
	CHECK(*failed, "dns/udp: a query for another name is dropped by the default",
	      send_pkt(&r, IPPROTO_UDP, 0, 40002, 53, 0, 0, q, n) == AFW_PASS_DROP &&
	      r.decided && r.res.is_default && !strcmp(r.res.host, "denied.test"));
	/* One label "allowed.test" (a dot inside a label) is not the name allowed.test. */
	n = dns_query("allowedXtest", q);
	q[12 + 1 + 7] = '.';
	CHECK(*failed, "dns/udp: a label holding a dot is no host name",
	      send_pkt(&r, IPPROTO_UDP, 0, 40003, 53, 0, 0, q, n) == AFW_PASS_REJECT &&
	      !strcmp(r.res.host, "allowed\\046test") && r.res.rule_line == 3);
	n = dns_query("allowed.test", q);
	q[12 + 8] = 0xc0;	/* the "test" label becomes a pointer */
	q[12 + 9] = 12;
	CHECK(*failed, "dns/udp: a compression pointer in the question is malformed",
	      send_pkt(&r, IPPROTO_UDP, 0, 40004, 53, 0, 0, q, 12 + 10 + 4) == AFW_PASS_DROP &&
	      r.res.giveup == AFW_REASON_MALFORMED && r.res.l7 == AFW_L7_DNS &&
	      strstr(r.res.reason, "compression pointer"));
	/* TCP: a two-byte length, then the message; split in three segments. */
	n = dns_query("allowed.test", q);
	tq[0] = (uint8_t)(n >> 8), tq[1] = (uint8_t)n;
	memcpy(tq + 2, q, n);
	r.decisions = 0;
	tcp_stream(&r, 40005, 53, tq, n + 2, 7);
	CHECK(*failed, "dns/tcp: a query in pieces is read whole and allowed",
	      r.decisions == 1 && r.res.l7 == AFW_L7_DNS && !strcmp(r.res.host, "allowed.test") &&
	      r.res.decision == AFW_DECIDE_ALLOW);
	n = dns_query("denied.test", q);
	tq[0] = (uint8_t)(n >> 8), tq[1] = (uint8_t)n;
	memcpy(tq + 2, q, n);
	CHECK(*failed, "dns/tcp: a query for another name is dropped",
	      tcp_stream(&r, 40006, 53, tq, n + 2, 5) == AFW_PASS_DROP &&
	      r.decided && !strcmp(r.res.host, "denied.test"));
	rig_free(&r);
}

/*
 * Who starts a flow: the hook of the client's packets, or the reverse of
 * the server's, decides "dir"; and the server's side of a connection afwd
 * never saw start is passed, never judged nor installed.
 */
static void test_direction(int *failed)
{
	struct rig r;

	if (!rig_init(&r, "default deny\ndir in proto tcp dport 22 allow\n"
			  "dir out proto udp dport 123 allow\n")) {
		CHECK(*failed, "direction: rig", 0);
		return;
	}
	r.cdir = AFW_FDIR_IN;
	CHECK(*failed, "an inbound connection is allowed by 'dir in' (at its SYN)",
	      send_pkt(&r, IPPROTO_TCP, 0, 50000, 22, 0x02, 1000, NULL, 0) == AFW_PASS_ACCEPT &&
	      r.decided && r.res.decision == AFW_DECIDE_ALLOW);
	CHECK(*failed, "and the rest of it passes",
	      tcp_stream(&r, 50000, 22, "SSH-2.0-x\r\n", 11, 100) == AFW_PASS_ACCEPT);
	r.cdir = AFW_FDIR_OUT;
	send_pkt(&r, IPPROTO_TCP, 0, 50001, 22, 0x02, 1000, NULL, 0);
	send_pkt(&r, IPPROTO_TCP, 1, 50001, 22, 0x12, 5000, NULL, 0);
	CHECK(*failed, "the same started by this host is not",
	      send_pkt(&r, IPPROTO_TCP, 0, 50001, 22, 0x18, 1001, "SSH-2.0-x\r\n", 11) ==
	      AFW_PASS_DROP && r.res.is_default);
	CHECK(*failed, "a datagram sent out matches 'dir out'",
	      send_pkt(&r, IPPROTO_UDP, 0, 50002, 123, 0, 0, "x", 1) == AFW_PASS_ACCEPT &&
	      r.res.decision == AFW_DECIDE_ALLOW);
	r.cdir = AFW_FDIR_IN;
	CHECK(*failed, "one that came in does not",
	      send_pkt(&r, IPPROTO_UDP, 0, 50003, 123, 0, 0, "x", 1) == AFW_PASS_DROP);

	/* Only the server's side: its SYN-ACK, then data, for longer than the analysis time. */
	r.decisions = 0;
	r.cdir = AFW_FDIR_OUT;
	CHECK(*failed, "a SYN-ACK of a connection afwd never saw start passes",
	      send_pkt(&r, IPPROTO_TCP, 1, 50004, 2222, 0x12, 5000, NULL, 0) == AFW_PASS_ACCEPT);
	r.now += 3 * NS;
	afw_engine_expire(r.e, r.pol, r.now, false, NULL, NULL);
	CHECK(*failed, "its server's data keeps passing past the analysis time",
	      send_pkt(&r, IPPROTO_TCP, 1, 50004, 2222, 0x18, 5001, "banner", 6) ==
	      AFW_PASS_ACCEPT);
	r.now += 3 * NS;
	afw_engine_expire(r.e, r.pol, r.now, false, NULL, NULL);
	CHECK(*failed, "and nothing is decided, so nothing is installed for it",
	      send_pkt(&r, IPPROTO_TCP, 1, 50004, 2222, 0x18, 5007, "more", 4) ==
	      AFW_PASS_ACCEPT && r.decisions == 0 && !afw_engine_flows(r.e));
	CHECK(*failed, "a server's segment first seen mid-stream passes, undecided",
	      send_pkt(&r, IPPROTO_TCP, 1, 50005, 443, 0x18, 9000, "data", 4) ==
	      AFW_PASS_ACCEPT && r.decisions == 0);
	CHECK(*failed, "the client's side of it is still judged (mid-stream, denied)",
	      send_pkt(&r, IPPROTO_TCP, 0, 50005, 443, 0x18, 1000, "data", 4) ==
	      AFW_PASS_DROP && r.decided && r.res.giveup == AFW_REASON_MID_STREAM);
	CHECK(*failed, "replies are counted", afw_engine_stats(r.e)->replies >= 2);
	rig_free(&r);
}

/*
 * One ICMP message from 10.0.0.1 (@dir 0) or 10.0.0.2 (@dir 1) through the
 * engine: @type, and for an echo, identifier @id.
 */
static enum afw_pass icmp_at(struct rig *r, int dir, uint8_t type, uint8_t code, uint16_t id,
			     uint16_t frag)
{
	uint8_t *p = pktbuf;
	enum afw_pass pass;
	struct afw_pkt pk;

	memset(p, 0, 28);
	p[0] = 0x45;
	p[3] = 28;
	p[8] = 64;
	p[6] = frag >> 8, p[7] = frag & 0xff;
	p[9] = IPPROTO_ICMP;
	p[12] = 10, p[15] = dir ? 2 : 1;
	p[16] = 10, p[19] = dir ? 1 : 2;
	p[20] = type;
	p[21] = code;
	p[24] = id >> 8, p[25] = id & 0xff;
	p[27] = 1;
	if (afw_pkt_decode(&pk, AFW_LINK_RAW, p, 28) != AFW_PKT_OK)
		return (enum afw_pass)-1;
	pk.csum = AFW_CSUM_TRUSTED;
	pk.dir = !dir ? r->cdir : r->cdir == AFW_FDIR_IN ? AFW_FDIR_OUT : AFW_FDIR_IN;
	r->now += 1000;
	pass = afw_engine_packet(r->e, r->pol, &pk, false, 0, r->now, &r->res, &r->decided);
	r->decisions += r->decided;
	return pass;
}

static enum afw_pass icmp(struct rig *r, int dir, uint8_t type, uint16_t id)
{
	return icmp_at(r, dir, type, 0, id, 0);
}

/*
 * Each ping is a flow of its own, as conntrack and the module keep it: the
 * pinger, the identifier. A decision about one ping never carries another,
 * least of all one the other way; other ICMP is answered packet by packet,
 * with nothing installed that would carry pings.
 */
static void test_ping(int *failed)
{
	struct rig r;

	if (!rig_init(&r, "default deny\ndir out proto icmp allow\n")) {
		CHECK(*failed, "ping: rig", 0);
		return;
	}
	r.cdir = AFW_FDIR_OUT;
	CHECK(*failed, "ping: a ping this host sends is decided as its own flow",
	      icmp(&r, 0, 8, 7) == AFW_PASS_ACCEPT && r.decided &&
	      r.res.decision == AFW_DECIDE_ALLOW && r.res.echo == AFW_PKT_ECHO_REQUEST &&
	      r.res.icmp_id == 7 && r.res.sport == 0 && r.res.dport == 0 && !r.res.per_packet);
	CHECK(*failed, "ping: its replies pass by that decision",
	      icmp(&r, 1, 0, 7) == AFW_PASS_ACCEPT && !r.decided);
	CHECK(*failed, "ping: and its next request",
	      icmp(&r, 0, 8, 7) == AFW_PASS_ACCEPT && !r.decided);
	CHECK(*failed, "ping: the other host pinging with the same identifier is another flow, "
	      "judged inbound: dropped",
	      icmp(&r, 1, 8, 7) == AFW_PASS_DROP && r.decided && r.res.is_default &&
	      r.res.echo == AFW_PKT_ECHO_REQUEST && r.res.icmp_id == 7);
	CHECK(*failed, "ping: and stays dropped",
	      icmp(&r, 1, 8, 7) == AFW_PASS_DROP && !r.decided);
	CHECK(*failed, "ping: while this host's ping goes on",
	      icmp(&r, 0, 8, 7) == AFW_PASS_ACCEPT && icmp(&r, 1, 0, 7) == AFW_PASS_ACCEPT);
	CHECK(*failed, "ping: another identifier is another ping, decided anew",
	      icmp(&r, 0, 8, 8) == AFW_PASS_ACCEPT && r.decided && r.res.icmp_id == 8);
	CHECK(*failed, "ping: a reply this host sends first is judged as the other host's ping, "
	      "inbound: dropped",
	      icmp(&r, 0, 0, 9) == AFW_PASS_DROP && r.decided && r.res.is_default &&
	      r.res.echo == AFW_PKT_ECHO_REQUEST && r.res.icmp_id == 9 && r.res.src[3] == 2);
	CHECK(*failed, "ping: and that ping's requests with it",
	      icmp(&r, 1, 8, 9) == AFW_PASS_DROP && !r.decided);
	CHECK(*failed, "ping: a reply coming in first is this host's ping, allowed out",
	      icmp(&r, 1, 0, 10) == AFW_PASS_ACCEPT && r.decided &&
	      r.res.echo == AFW_PKT_ECHO_REQUEST && r.res.src[3] == 1);
	CHECK(*failed, "ping: an unreachable coming in is answered on its own, nothing to install",
	      icmp(&r, 1, 3, 0) == AFW_PASS_DROP && r.decided && r.res.per_packet &&
	      r.res.echo == AFW_PKT_ECHO_NONE);
	CHECK(*failed, "ping: other ICMP going out too, by the policy",
	      icmp(&r, 0, 13, 0) == AFW_PASS_ACCEPT && r.decided && r.res.per_packet);
	CHECK(*failed, "ping: and the next such message by the same answer, not logged again",
	      icmp(&r, 0, 13, 0) == AFW_PASS_ACCEPT && !r.decided);
	CHECK(*failed, "ping: an echo's code goes with its flow (conntrack keys it)",
	      icmp_at(&r, 0, 8, 5, 12, 0) == AFW_PASS_ACCEPT && r.decided && r.res.icmp_code == 5);
	{
		struct afw_policy_error err;
		struct afw_policy *deny = afw_policy_parse("default deny\n", 13, "test", &err);

		CHECK(*failed, "ping: a reload forgets the answers given message by message",
		      deny && afw_engine_forget_answers(r.e) == 2);
		afw_policy_free(r.pol);
		r.pol = deny;
		CHECK(*failed, "ping: so the next such message meets the new policy",
		      icmp(&r, 0, 13, 0) == AFW_PASS_DROP && r.decided && r.res.per_packet);
		CHECK(*failed, "ping: while a ping's decision stays with its record (the ledger's "
		      "to judge again)", icmp(&r, 0, 8, 7) == AFW_PASS_ACCEPT && !r.decided);
	}
	rig_free(&r);

	if (!rig_init(&r, "default allow\ndir in proto icmp deny\n")) {
		CHECK(*failed, "ping: rig 2", 0);
		return;
	}
	r.cdir = AFW_FDIR_OUT;
	CHECK(*failed, "ping: a later fragment of an echo coming in is answered on its own",
	      icmp_at(&r, 1, 8, 0, 11, 0x2001) == AFW_PASS_DROP && r.decided && r.res.per_packet &&
	      !r.res.echo);
	CHECK(*failed, "ping: one going out too, nothing installed",
	      icmp_at(&r, 0, 8, 0, 11, 0x2001) == AFW_PASS_ACCEPT && r.decided &&
	      r.res.per_packet);
	icmp(&r, 1, 8, 5);
	CHECK(*failed, "ping: an inbound ping denied does not stop this host's own, same identifier",
	      r.res.decision == AFW_DECIDE_DENY && icmp(&r, 0, 8, 5) == AFW_PASS_ACCEPT &&
	      icmp(&r, 1, 0, 5) == AFW_PASS_ACCEPT);
	rig_free(&r);
}

/* A reset engine has forgotten its flows and decisions, and counts nothing. */
static void test_reset(int *failed)
{
	static const char req[] = REQ("a.test");
	size_t len = sizeof(req) - 1;
	struct rig r;
	uint64_t left;

	if (!rig_init(&r, "default deny\nhost a.test allow\n"))
		return;
	CHECK(*failed, "reset: a request for the allowed host is allowed",
	      tcp_stream(&r, 8000, 80, req, len, 1000) == AFW_PASS_ACCEPT && r.decided &&
	      r.res.decision == AFW_DECIDE_ALLOW);
	CHECK(*failed, "reset: the decided flow's next segment passes on its record",
	      seg(&r, 8000, len, "x") == AFW_PASS_ACCEPT && !r.decided);
	send_pkt(&r, IPPROTO_TCP, 0, 8001, 80, 0x02, 1000, NULL, 0);
	send_pkt(&r, IPPROTO_TCP, 1, 8001, 80, 0x12, 5000, NULL, 0);
	seg(&r, 8001, 0, "GET / HT");
	CHECK(*failed, "reset: a flow under analysis holds buffer memory",
	      afw_engine_stats(r.e)->memory > 0 && afw_engine_stats(r.e)->flows == 2);
	left = afw_engine_reset(r.e);
	CHECK(*failed, "reset: no memory left on the books, counters zero",
	      left == 0 && afw_engine_stats(r.e)->memory == 0 &&
	      afw_engine_stats(r.e)->flows == 0 && afw_engine_stats(r.e)->packets == 0);
	CHECK(*failed, "reset: the decided flow is forgotten: its next segment is judged afresh",
	      seg(&r, 8000, len + 1, "y") == AFW_PASS_DROP && r.decided &&
	      r.res.giveup == AFW_REASON_MID_STREAM);
	CHECK(*failed, "reset: so is the one under analysis, mid-stream now",
	      seg(&r, 8001, 8, "TP/1.1\r\n") == AFW_PASS_DROP && r.decided &&
	      r.res.giveup == AFW_REASON_MID_STREAM);
	CHECK(*failed, "reset: and the counters start from zero",
	      afw_engine_stats(r.e)->packets == 2 && afw_engine_stats(r.e)->memory == 0);
	rig_free(&r);
}

/*
 * A flow that the policy decides by its ends alone (port, address,
 * direction, user) is decided at its client's first packet, unread; one
 * that a rule reading bytes could take is read, whatever comes after.
 */
static void test_settled(int *failed)
{
	static const char get[] = "GET / HTTP/1.1\r\nHost: blocked.test\r\n\r\n";
	static const char other[] = "GET / HTTP/1.1\r\nHost: other.test\r\n\r\n";
	struct rig r;
	unsigned int n, flows;

	if (!rig_init(&r, "default deny\n"
			  "prio 10 dport 80 host blocked.test deny\n"
			  "prio 20 proto tcp dport 80,22 allow\n"
			  "prio 30 proto udp dport 123 allow\n"
			  "prio 40 proto tcp dport 8080 inspect\n"
			  "prio 50 proto tcp dport 25 reject\n")) {
		CHECK(*failed, "settled: rig", 0);
		return;
	}
	r.cdir = AFW_FDIR_OUT;
	r.decisions = 0;
	CHECK(*failed, "a port rule that no reading rule precedes decides at the SYN",
	      send_pkt(&r, IPPROTO_TCP, 0, 51000, 22, 0x02, 1000, NULL, 0) == AFW_PASS_ACCEPT &&
	      r.decided && r.res.decision == AFW_DECIDE_ALLOW && r.res.rule_line == 3 &&
	      !r.res.is_default && strstr(r.res.reason, "unread"));
	CHECK(*failed, "unread, and no slot of analysis taken",
	      afw_engine_stats(r.e)->settled == 1 && afw_engine_stats(r.e)->flows == 0 &&
	      afw_engine_flows(r.e) == 0);
	CHECK(*failed, "its handshake and bytes pass, decided once",
	      send_pkt(&r, IPPROTO_TCP, 1, 51000, 22, 0x12, 5000, NULL, 0) == AFW_PASS_ACCEPT &&
	      send_pkt(&r, IPPROTO_TCP, 0, 51000, 22, 0x18, 1001, "SSH-2.0-x\r\n", 11) ==
	      AFW_PASS_ACCEPT && r.decisions == 1);
	CHECK(*failed, "a reject rule rejects the SYN",
	      send_pkt(&r, IPPROTO_TCP, 0, 51001, 25, 0x02, 1000, NULL, 0) == AFW_PASS_REJECT &&
	      r.decided && r.res.decision == AFW_DECIDE_REJECT);
	CHECK(*failed, "a flow no rule can match meets a default deny at its SYN",
	      send_pkt(&r, IPPROTO_TCP, 0, 51002, 9999, 0x02, 1000, NULL, 0) == AFW_PASS_DROP &&
	      r.decided && r.res.is_default && strstr(r.res.reason, "unread"));
	CHECK(*failed, "a first datagram is read (a QUIC flow must be), then decided by its port",
	      send_pkt(&r, IPPROTO_UDP, 0, 51003, 123, 0, 0, "\x23", 1) == AFW_PASS_ACCEPT &&
	      r.decided && r.res.rule_line == 4 && !strstr(r.res.reason, "unread"));
	n = r.decisions;
	CHECK(*failed, "a host rule on the same port: the SYN waits for the bytes",
	      send_pkt(&r, IPPROTO_TCP, 0, 51004, 80, 0x02, 1000, NULL, 0) == AFW_PASS_ACCEPT &&
	      !r.decided);
	CHECK(*failed, "which the host rule then denies",
	      tcp_stream(&r, 51004, 80, get, sizeof(get) - 1, 100) == AFW_PASS_DROP &&
	      r.decided && r.res.rule_line == 2 && !strcmp(r.res.host, "blocked.test"));
	CHECK(*failed, "another host on it is allowed by the port rule, once read",
	      tcp_stream(&r, 51005, 80, other, sizeof(other) - 1, 100) == AFW_PASS_ACCEPT &&
	      r.decided && r.res.rule_line == 3 && !strcmp(r.res.host, "other.test") &&
	      !strstr(r.res.reason, "unread"));
	CHECK(*failed, "an inspect rule is read: its SYN decides nothing",
	      send_pkt(&r, IPPROTO_TCP, 0, 51006, 8080, 0x02, 1000, NULL, 0) == AFW_PASS_ACCEPT &&
	      !r.decided && r.decisions == n + 2);
	CHECK(*failed, "three flows were decided unread", afw_engine_stats(r.e)->settled == 3);
	rig_free(&r);

	/* Under a default allow a misleading flow is denied: only a rule decides unread. */
	if (!rig_init(&r, "default allow\nprio 10 proto tcp dport 22 deny\n")) {
		CHECK(*failed, "settled: rig 2", 0);
		return;
	}
	CHECK(*failed, "a default allow reads the flow",
	      send_pkt(&r, IPPROTO_TCP, 0, 51010, 9999, 0x02, 1000, NULL, 0) == AFW_PASS_ACCEPT &&
	      !r.decided);
	CHECK(*failed, "a deny rule by port drops the SYN",
	      send_pkt(&r, IPPROTO_TCP, 0, 51011, 22, 0x02, 1000, NULL, 0) == AFW_PASS_DROP &&
	      r.decided && r.res.rule_line == 2);
	CHECK(*failed, "as does the SYN sent again",
	      send_pkt(&r, IPPROTO_TCP, 0, 51011, 22, 0x02, 1000, NULL, 0) == AFW_PASS_DROP);
	n = afw_engine_stats(r.e)->settled;
	flows = afw_engine_flows(r.e);
	CHECK(*failed, "a new connection on its ports (another ISN) is decided at its SYN too",
	      send_pkt(&r, IPPROTO_TCP, 0, 51011, 22, 0x02, 7000, NULL, 0) == AFW_PASS_DROP &&
	      r.decided && r.res.settled && afw_engine_stats(r.e)->settled == n + 1 &&
	      afw_engine_flows(r.e) == flows);
	rig_free(&r);

	/*
	 * The server answering a SYN a decided flow's record is not about (a
	 * new connection whose SYN afwd never saw): analyzed from there, never
	 * decided by the ends. Seen from the server, as if it were the client,
	 * the ends would match the port rule below, which the real client's
	 * port is.
	 */
	if (!rig_init(&r, "default deny\nprio 10 proto tcp dport 51020 allow\n"
			  "prio 20 host a.test allow\n")) {
		CHECK(*failed, "settled: rig 3", 0);
		return;
	}
	CHECK(*failed, "a connection for the allowed host is allowed, read",
	      tcp_stream(&r, 51020, 80, REQ("a.test"), sizeof(REQ("a.test")) - 1, 100) ==
	      AFW_PASS_ACCEPT && r.decided && r.res.rule_line == 3);
	n = afw_engine_stats(r.e)->restarts;
	r.synack_ack = 7001;
	CHECK(*failed, "a SYN-ACK for another SYN on its ports starts an analysis, decides nothing",
	      send_pkt(&r, IPPROTO_TCP, 1, 51020, 80, 0x12, 5000, NULL, 0) == AFW_PASS_ACCEPT &&
	      !r.decided && afw_engine_stats(r.e)->restarts == n + 1);
	CHECK(*failed, "and the request on it is read: a host no rule allows is denied",
	      send_pkt(&r, IPPROTO_TCP, 0, 51020, 80, 0x18, 7001, REQ("b.test"),
		       sizeof(REQ("b.test")) - 1) == AFW_PASS_DROP &&
	      r.decided && !r.res.settled && !strcmp(r.res.host, "b.test"));
	rig_free(&r);
}

/* The rig's person: what it answers at once (ASK holds), and how often it was asked. */
struct asker {
	enum afw_decision now;
	unsigned int calls;
};

static enum afw_decision ask_cb(void *ctx, const struct afw_policy *pol, struct afw_result *res)
{
	struct asker *a = ctx;

	(void)pol;
	(void)res;
	a->calls++;
	return a->now;
}

static bool rig_init_ask(struct rig *r, const char *policy, struct asker *a)
{
	struct afw_engine_opts o = { .max_flows = 64, .max_bytes = 16384, .max_packets = 32,
				     .max_ns = 2 * NS, .ask = ask_cb, .ask_ctx = a };

	if (!rig_init(r, policy))
		return false;
	afw_engine_free(r->e);
	r->e = afw_engine_new(&o);
	return r->e != NULL;
}

/* HTTP to port 80 up to its request @req; returns the request's verdict. */
static enum afw_pass ask_request(struct rig *r, uint16_t sport, const char *req)
{
	send_pkt(r, IPPROTO_TCP, 0, sport, 80, 0x02, 1000, NULL, 0);
	send_pkt(r, IPPROTO_TCP, 1, sport, 80, 0x12, 5000, NULL, 0);
	send_pkt(r, IPPROTO_TCP, 0, sport, 80, 0x10, 1001, NULL, 0);
	return seg(r, sport, 0, req);
}

/*
 * ask: a flow held for a person, then answered; an allow still waits for
 * the server to acknowledge the judged bytes before it is installed, and
 * until then no client segment may change them.
 */
static void test_ask(int *failed)
{
	static const char req[] = REQ("ask.test");
	const uint32_t end = 1001 + sizeof(req) - 1;
	struct asker a = { .now = AFW_DECIDE_ASK };
	struct afw_result held;
	enum afw_pass pass;
	uint8_t bad[20];
	struct afw_pkt p;
	struct rig r;

	if (!rig_init_ask(&r, "default allow\nask-default reject\nhost ask.test ask\n", &a))
		return;
	pass = ask_request(&r, 7100, req);
	CHECK(*failed, "an asked request is decided ask, and its packet held back (dropped here)",
	      pass == AFW_PASS_DROP && r.decided && r.res.decision == AFW_DECIDE_ASK &&
	      a.calls == 1 && !strcmp(r.res.host, "ask.test"));
	held = r.res;
	pass = seg(&r, 7100, 0, req);
	CHECK(*failed, "the request sent again is dropped, with no second question",
	      pass == AFW_PASS_DROP && !r.decided && a.calls == 1);
	CHECK(*failed, "an allow answered waits for the server's acknowledgement",
	      afw_engine_answer(r.e, &held, AFW_DECIDE_ALLOW) == 0);
	CHECK(*failed, "a second answer finds nothing to answer",
	      afw_engine_answer(r.e, &held, AFW_DECIDE_DENY) == -1);
	pass = seg(&r, 7100, 0, REQ("evil.test"));
	CHECK(*failed, "meanwhile other bytes in place of the judged ones are dropped",
	      pass == AFW_PASS_DROP && !r.decided);
	r.server_ack = end;
	pass = send_pkt(&r, IPPROTO_TCP, 1, 7100, 80, 0x10, 5001, NULL, 0);
	CHECK(*failed, "the server's acknowledgement hands the flow back to install, allowed",
	      pass == AFW_PASS_ACCEPT && r.decided && r.res.quiet &&
	      r.res.decision == AFW_DECIDE_ALLOW);

	pass = ask_request(&r, 7101, req);
	held = r.res;
	CHECK(*failed, "a reject answered is installed at once",
	      pass == AFW_PASS_DROP && held.decision == AFW_DECIDE_ASK &&
	      afw_engine_answer(r.e, &held, AFW_DECIDE_REJECT) == 1);
	CHECK(*failed, "and the flow's packets are dropped after it",
	      seg(&r, 7101, 0, req) == AFW_PASS_DROP && !r.decided);

	a.now = AFW_DECIDE_ALLOW;
	pass = ask_request(&r, 7102, req);
	CHECK(*failed, "an answer given before decides at once: allowed, not installed yet",
	      pass == AFW_PASS_ACCEPT && r.decided && r.res.decision == AFW_DECIDE_ALLOW &&
	      r.res.deferred);
	r.server_ack = end;
	send_pkt(&r, IPPROTO_TCP, 1, 7102, 80, 0x10, 5001, NULL, 0);
	CHECK(*failed, "then installed on the server's acknowledgement",
	      r.decided && r.res.quiet && r.res.decision == AFW_DECIDE_ALLOW);
	rig_free(&r);

	/*
	 * A packet that does not decode has no flow to hold it by or to
	 * answer later: the ask-default, even with someone to ask, and its
	 * next copy gets what a refused flow's later packets get.
	 */
	if (!rig_init_ask(&r, "default ask\nask-default reject\n", &a))
		return;
	memset(bad, 0, sizeof(bad));
	bad[0] = 0x4f;	/* a header longer than the packet */
	bad[3] = sizeof(bad);
	bad[9] = IPPROTO_TCP;
	a.calls = 0;
	CHECK(*failed, "(a header longer than its packet does not decode)",
	      afw_pkt_decode(&p, AFW_LINK_RAW, bad, sizeof(bad)) != AFW_PKT_OK);
	pass = afw_engine_undecodable(r.e, r.pol, &p, false, 0, r.now, &r.res, &r.decided);
	CHECK(*failed, "an undecodable packet a policy asks about gets the ask-default, unasked",
	      pass == AFW_PASS_REJECT && r.decided && r.res.decision == AFW_DECIDE_REJECT &&
	      a.calls == 0 && strstr(r.res.reason, "nobody to ask"));
	pass = afw_engine_undecodable(r.e, r.pol, &p, false, 0, r.now, &r.res, &r.decided);
	CHECK(*failed, "and the same again is dropped, from what was remembered",
	      pass == AFW_PASS_DROP && !r.decided && a.calls == 0);
	rig_free(&r);

	if (!rig_init(&r, "default allow\nask-default reject\nhost ask.test ask\n"))
		return;
	pass = ask_request(&r, 7103, req);
	CHECK(*failed, "with nobody to ask, the ask-default decides at once, and says so",
	      pass == AFW_PASS_REJECT && r.decided && r.res.decision == AFW_DECIDE_REJECT &&
	      strstr(r.res.reason, "nobody to ask"));
	rig_free(&r);
}

/* A QUIC connection asked about: held, answered, and its Initial sent again. */
static void test_ask_quic(int *failed, struct afw_quic_ctx *q)
{
	uint8_t h[2100], dg[1400];
	size_t hl = hello("ask.test", 0, h);
	struct asker a = { .now = AFW_DECIDE_ASK };
	struct afw_result held;
	enum afw_pass pass;
	struct rig r;

	if (!rig_init_ask(&r, "default deny\nhost ask.test ask\n", &a))
		return;
	pass = udp(&r, 6100, dg, initial(q, dcid1, dcid1, 0, h, 0, hl, dg));
	held = r.res;
	CHECK(*failed, "a QUIC Initial asked about is held (dropped here)",
	      r.decided && pass == AFW_PASS_DROP && held.decision == AFW_DECIDE_ASK);
	pass = udp(&r, 6100, dg, initial(q, dcid1, dcid1, 1, h, 0, hl, dg));
	CHECK(*failed, "its Initial sent again meanwhile is dropped, with no new question",
	      !r.decided && pass == AFW_PASS_DROP);
	CHECK(*failed, "an allow answered is installed at once",
	      afw_engine_answer(r.e, &held, AFW_DECIDE_ALLOW) == 1);
	pass = udp(&r, 6100, dg, initial(q, dcid1, dcid1, 2, h, 0, hl, dg));
	CHECK(*failed, "and its Initial sent again passes",
	      !r.decided && pass == AFW_PASS_ACCEPT);
	rig_free(&r);
}

int main(void)
{
	struct afw_quic_ctx *q = afw_quic_ctx_new();
	int failed = 0;

	CHECK(failed, "a QUIC context", q);
	if (!q)
		return 1;
	test_quic_spread(&failed, q);
	test_quic_requeue(&failed, q);
	test_quic_second_hello(&failed, q);
	test_tcp(&failed);
	test_ports(&failed);
	test_pipeline(&failed);
	test_dns(&failed);
	test_direction(&failed);
	test_ping(&failed);
	test_settled(&failed);
	test_reset(&failed);
	test_ask(&failed);
	test_ask_quic(&failed, q);
	afw_quic_ctx_free(q);
	return failed;
}
