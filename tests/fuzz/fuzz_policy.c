// SPDX-License-Identifier: GPL-2.0
/*
 * The policy parser on arbitrary bytes, then a few decisions with flows
 * whose names and fingerprints are cut from the same bytes. A policy that
 * loads must also print to text that loads and decides the same, and no
 * rule that --check names as never deciding may decide one of those flows,
 * and a flow the policy decides by its ends alone gets that decision.
 */

#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "policy.h"

static void afw_fuzz_facts(const uint8_t *data, size_t size, unsigned int k, struct afw_facts *f)
{
	size_t cut = size ? (k * 7919u) % size : 0;

	memset(f, 0, sizeof(*f));
	f->l7 = (enum afw_l7)(k % (AFW_L7_MAX + 2));
	f->host = (struct afw_text){ (const char *)data + cut, (size - cut) % 300 };
	/* An ALPN wire list cut from the bytes: its lengths may lie. */
	f->alpn = (struct afw_text){ (const char *)data, size < 64 ? size : 64 };
	f->reason = (enum afw_reason)(k % (AFW_REASON_MAX + 1));
	f->ech = k % 5 == 1;
	f->ja4 = (struct afw_text){ (const char *)data + cut, size - cut < 36 ? size - cut : 36 };
	f->family = k % 3 ? AF_INET : AF_INET6;
	if (size >= 16)
		memcpy(f->daddr, data + size - 16, 16);
	f->dport = (uint16_t)(k * 443);
	f->l4proto = k % 4 ? IPPROTO_TCP : IPPROTO_UDP;
	f->has_uid = k % 2;
	f->uid = k % 3 ? 1000 : 0;
}

/* The lines afw_policy_unreachable() names; policies have at most 2^16 lines here. */
struct afw_fuzz_shadow {
	uint8_t line[65536 / 8];
};

static void afw_fuzz_note(void *ctx, const struct afw_policy_shadow *s)
{
	struct afw_fuzz_shadow *sh = ctx;

	if (s->line < 65536)
		sh->line[s->line / 8] |= (uint8_t)(1u << (s->line % 8));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct afw_fuzz_shadow sh;
	struct afw_policy_match m, m2;
	struct afw_policy_error err;
	struct afw_policy *p, *q;
	struct afw_facts f;
	char *text = NULL;
	size_t len = 0;
	unsigned int k;
	FILE *out;

	p = afw_policy_parse((const char *)data, size, "fuzz", &err);
	if (!p) {
		/* Every failure explains itself. */
		if (!err.msg[0] || !strstr(err.msg, "fuzz"))
			abort();
		return 0;
	}
	out = open_memstream(&text, &len);
	if (!out)
		abort();
	afw_policy_print(p, out);
	fclose(out);
	q = afw_policy_parse(text, len, "printed", &err);
	if (!q)
		abort();
	memset(&sh, 0, sizeof(sh));
	afw_policy_unreachable(p, 100000, afw_fuzz_note, &sh);
	for (k = 0; k < 8; k++) {
		afw_fuzz_facts(data, size, k, &f);
		afw_policy_match(p, &f, &m);
		afw_policy_match(q, &f, &m2);
		if (m.verdict != m2.verdict || m.prio != m2.prio || m.is_default != m2.is_default)
			abort();
		if (!m.is_default && m.line < 65536 && (sh.line[m.line / 8] & (1u << (m.line % 8))))
			abort();
		/*
		 * A flow decided by its ends is decided so whatever it
		 * carries: as any flow with those ends and no strict reason
		 * (an unread flow never has one).
		 */
		if (!afw_policy_strict(f.reason) && afw_policy_settled(p, &f, SIZE_MAX, &m2) &&
		    (m.verdict != m2.verdict || m.line != m2.line || m.is_default != m2.is_default))
			abort();
	}
	afw_policy_free(q);
	afw_policy_free(p);
	free(text);
	return 0;
}
