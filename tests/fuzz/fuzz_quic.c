// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for afwd's QUIC Initial code. The first byte picks what
 * the rest is:
 *   0  one datagram
 *   1  datagrams, each behind a 2-byte big-endian length
 *   2  decrypted Initial payloads (frames), each behind a 2-byte length
 *   3  the same payloads, sealed here into valid Initials and fed as
 *      datagrams, so that mutations reach the frame parser through the
 *      whole decryption path (QUIC v2 when bit 2 of the first byte is set,
 *      reserved header bits from bits 3 and 4)
 * all into one flow, in order.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quic.h"
#include "quic_seal.h"

static int afw_fuzz_piece(const uint8_t **p, size_t *len, const uint8_t **piece, size_t *n)
{
	if (*len < 2)
		return 0;
	*n = (size_t)((*p)[0] << 8 | (*p)[1]);
	if (*n > *len - 2)
		*n = *len - 2;
	*piece = *p + 2;
	*p += 2 + *n;
	*len -= 2 + *n;
	return 1;
}

static void afw_fuzz_use_hello(const struct afw_quic_flow *flow)
{
	const uint8_t *msg;
	uint8_t sum = 0;
	size_t len, i;

	/* Reading every byte lets ASan check the span handed out. */
	if (afw_quic_client_hello(flow, &msg, &len))
		return;
	for (i = 0; i < len; i++)
		sum += msg[i];
	/* What the TLS parser will rely on; sum keeps the reads from going away. */
	if (len < 4 || msg[0] != 1 || len != 4 + ((size_t)msg[1] << 16 | msg[2] << 8 | msg[3]) ||
	    (sum == 0 && len == 0))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t dcid[8] = { 0x83, 0x94, 0xc8, 0xf0, 0x3e, 0x51, 0x57, 0x08 };
	static struct afw_quic_ctx *ctx;
	static uint8_t buf[16384], sealed[AFW_QUIC_DGRAM_MAX];
	struct afw_quic_flow flow;
	const uint8_t *piece;
	const char *why;
	size_t n, len;
	uint64_t pn = 0;
	unsigned int reserved;
	uint32_t version;
	int mode, ret;

	if (!ctx) {
		ctx = afw_quic_ctx_new();
		if (!ctx)
			abort();
	}
	if (size < 1)
		return 0;
	mode = data[0] & 3;
	version = data[0] & 4 ? AFW_QUIC_V2 : AFW_QUIC_V1;
	reserved = (data[0] >> 3) & 3;
	data++;
	size--;
	afw_quic_flow_init(&flow, buf, sizeof(buf));

	if (mode == 0) {
		afw_quic_feed(ctx, &flow, data, size, &why);
		afw_fuzz_use_hello(&flow);
		return 0;
	}
	while (afw_fuzz_piece(&data, &size, &piece, &n)) {
		switch (mode) {
		case 1:
			ret = afw_quic_feed(ctx, &flow, piece, n, &why);
			break;
		case 2:
			ret = afw_quic_frames(&flow, piece, n, &why);
			break;
		default:
			len = afw_test_seal_bits(ctx, version, dcid, sizeof(dcid), pn, 1 + pn % 4,
						 piece, n, n < 1200 ? 1200 : n, reserved,
						 sealed, sizeof(sealed));
			ret = len ? afw_quic_feed(ctx, &flow, sealed, len, &why) : 0;
			pn++;
			break;
		}
		/* A failure must come with a reason. */
		if (ret < 0 && (!why || !*why))
			abort();
		afw_fuzz_use_hello(&flow);
	}
	return 0;
}
