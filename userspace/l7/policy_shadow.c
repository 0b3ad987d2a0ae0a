// SPDX-License-Identifier: GPL-2.0
/*
 * Rules that can never decide a flow: "afwd --check" names them. A rule is
 * unreachable when a rule evaluated before it (a lower priority, or the
 * same priority higher in the file) matches every flow it matches. That is
 * tested keyword by keyword: the earlier rule covers the later one when,
 * for every keyword the earlier rule has, the later one has it too with
 * values that are all among the earlier one's. The test is sound (a rule
 * named was never going to decide) but not complete: a rule covered only
 * by several earlier ones together, or only through two keywords at once
 * (a host and "name valid"), is not named.
 */

#include <string.h>
#include <strings.h>

#include "policy_impl.h"

#define AFW_STRICT_REASONS ((1u << AFW_REASON_MALFORMED) | (1u << AFW_REASON_EVASION))

/* A set of bits where 0 means "not tested": @b's set within @a's. */
static bool afw_bits_cover(unsigned int a, unsigned int b)
{
	return !a || (b && !(b & ~a));
}

static bool afw_u8s_cover(const struct afw_policy *p, struct afw_range a, struct afw_range b)
{
	uint32_t i, j;

	if (!a.n)
		return true;
	for (j = 0; j < b.n; j++) {
		for (i = 0; i < a.n; i++)
			if (*AFW_AT(&p->protos, uint8_t, a.off + i) ==
			    *AFW_AT(&p->protos, uint8_t, b.off + j))
				break;
		if (i == a.n)
			return false;
	}
	return b.n;
}

/* Lists of users or groups, of @v. */
static bool afw_u32s_cover(const struct afw_vec *v, struct afw_range a, struct afw_range b)
{
	uint32_t i, j;

	if (!a.n)
		return true;
	for (j = 0; j < b.n; j++) {
		for (i = 0; i < a.n; i++)
			if (*AFW_AT(v, uint32_t, a.off + i) == *AFW_AT(v, uint32_t, b.off + j))
				break;
		if (i == a.n)
			return false;
	}
	return b.n;
}

static bool afw_ifs_cover(const struct afw_policy *p, struct afw_range a, struct afw_range b)
{
	uint32_t i, j;

	if (!a.n)
		return true;
	for (j = 0; j < b.n; j++) {
		for (i = 0; i < a.n; i++)
			if (AFW_AT(&p->ifs, struct afw_pif, a.off + i)->index ==
			    AFW_AT(&p->ifs, struct afw_pif, b.off + j)->index)
				break;
		if (i == a.n)
			return false;
	}
	return b.n;
}

/*
 * Ports: each of @b's ranges within the union of @a's. The ranges of one
 * keyword are few (a line holds them), so the union is walked as it is:
 * the part of the range not yet covered shrinks from below until it is
 * empty or no range of @a takes it further.
 */
static bool afw_ports_cover(const struct afw_policy *p, struct afw_range a, struct afw_range b)
{
	const struct afw_ports *x, *y;
	uint32_t i, j, lo;
	bool moved;

	if (!a.n)
		return true;
	for (j = 0; j < b.n; j++) {
		y = AFW_AT(&p->ports, struct afw_ports, b.off + j);
		lo = y->lo;
		do {
			moved = false;
			for (i = 0; i < a.n && lo <= y->hi; i++) {
				x = AFW_AT(&p->ports, struct afw_ports, a.off + i);
				if (x->lo <= lo && x->hi >= lo) {
					lo = (uint32_t)x->hi + 1;
					moved = true;
				}
			}
		} while (moved && lo <= y->hi);
		if (lo <= y->hi)
			return false;
	}
	return b.n;
}

/* Whether prefix @x holds every address of prefix @y. */
static bool afw_net_covers(const struct afw_net *x, const struct afw_net *y)
{
	unsigned int full = x->len / 8, rest = x->len % 8;

	if (x->family != y->family || x->len > y->len)
		return false;
	if (memcmp(x->addr, y->addr, full))
		return false;
	return !rest || !((x->addr[full] ^ y->addr[full]) & (0xff00 >> rest));
}

static bool afw_nets_cover(const struct afw_policy *p, struct afw_range a, struct afw_range b)
{
	uint32_t i, j;

	if (!a.n)
		return true;
	for (j = 0; j < b.n; j++) {
		for (i = 0; i < a.n; i++)
			if (afw_net_covers(AFW_AT(&p->nets, struct afw_net, a.off + i),
					   AFW_AT(&p->nets, struct afw_net, b.off + j)))
				break;
		if (i == a.n)
			return false;
	}
	return b.n;
}

/* Byte strings (ALPN ids), or JA4 fingerprints, which match without case. */
static bool afw_strs_cover(const struct afw_policy *p, struct afw_range a, struct afw_range b,
			   bool nocase)
{
	const struct afw_str *x, *y;
	const char *pool = p->pool.a;
	uint32_t i, j;

	if (!a.n)
		return true;
	for (j = 0; j < b.n; j++) {
		y = AFW_AT(&p->strs, struct afw_str, b.off + j);
		for (i = 0; i < a.n; i++) {
			x = AFW_AT(&p->strs, struct afw_str, a.off + i);
			if (x->len == y->len &&
			    !(nocase ? strncasecmp(pool + x->off, pool + y->off, x->len) :
				       memcmp(pool + x->off, pool + y->off, x->len)))
				break;
		}
		if (i == a.n)
			return false;
	}
	return b.n;
}

/*
 * Whether host test @x matches every name @y does. Names are stored
 * normalised (lower case, no trailing dot); a "*.suffix" stores its suffix
 * and matches the names strictly under it, so "*.a" covers "b.a" and
 * "*.b.a", never "a".
 */
static bool afw_host_covers(const char *pool, const struct afw_str *x, const struct afw_str *y)
{
	const char *xs = pool + x->off, *ys = pool + y->off;

	if (!x->wild)
		return !y->wild && x->len == y->len && !memcmp(xs, ys, x->len);
	if (y->wild && y->len == x->len && !memcmp(xs, ys, x->len))
		return true;
	return y->len > x->len && ys[y->len - x->len - 1] == '.' &&
	       !memcmp(xs, ys + y->len - x->len, x->len);
}

static bool afw_hosts_cover(const struct afw_policy *p, struct afw_range a, struct afw_range b)
{
	uint32_t i, j;

	if (!a.n)
		return true;
	for (j = 0; j < b.n; j++) {
		for (i = 0; i < a.n; i++)
			if (afw_host_covers(p->pool.a, AFW_AT(&p->strs, struct afw_str, a.off + i),
					    AFW_AT(&p->strs, struct afw_str, b.off + j)))
				break;
		if (i == a.n)
			return false;
	}
	return b.n;
}

/*
 * Whether rule @a matches every flow rule @b matches. Reasons follow
 * afw_policy_match(): a flow given up as malformed or evasion is matched
 * only by a rule whose reason names it, so a rule without "reason" covers
 * one with a reason list only if that list names neither.
 */
static bool afw_rule_covers(const struct afw_policy *p, const struct afw_prule *a,
			    const struct afw_prule *b)
{
	if (a->reasons ? !afw_bits_cover(a->reasons, b->reasons) :
			 (b->reasons & AFW_STRICT_REASONS))
		return false;
	return afw_bits_cover(a->l7s, b->l7s) && afw_bits_cover(a->names, b->names) &&
	       afw_bits_cover(a->ech, b->ech) && afw_bits_cover(a->dirs, b->dirs) &&
	       afw_u8s_cover(p, a->protos, b->protos) && afw_ports_cover(p, a->ports, b->ports) &&
	       afw_ports_cover(p, a->sports, b->sports) && afw_nets_cover(p, a->nets, b->nets) &&
	       afw_nets_cover(p, a->snets, b->snets) && afw_ifs_cover(p, a->iifs, b->iifs) &&
	       afw_ifs_cover(p, a->oifs, b->oifs) && afw_u32s_cover(&p->uids, a->uids, b->uids) &&
	       afw_u32s_cover(&p->gids, a->gids, b->gids) &&
	       afw_strs_cover(p, a->exes, b->exes, false) &&
	       afw_strs_cover(p, a->comms, b->comms, false) &&
	       afw_strs_cover(p, a->cgroups, b->cgroups, false) &&
	       afw_strs_cover(p, a->units, b->units, false) &&
	       afw_strs_cover(p, a->alpn, b->alpn, false) && afw_strs_cover(p, a->ja4, b->ja4, true) &&
	       afw_hosts_cover(p, a->hosts, b->hosts);
}

struct afw_shadow_walk {
	const struct afw_policy *p;
	uint32_t rule;		/* the rule looked at, by evaluation order */
	uint32_t best;		/* the first rule found to cover it, or UINT32_MAX */
	size_t budget;
};

/* The rules of one index list (ascending) before the one looked at. */
static void afw_shadow_list(struct afw_shadow_walk *w, const uint32_t *list, size_t n)
{
	const struct afw_prule *rules = w->p->rules.a;
	size_t i;

	for (i = 0; i < n && list[i] < w->rule && list[i] < w->best && w->budget; i++) {
		w->budget--;
		if (afw_rule_covers(w->p, &rules[list[i]], &rules[w->rule]))
			w->best = list[i];
	}
}

static void afw_shadow_key(struct afw_shadow_walk *w, const struct afw_htable *t,
			   const char *s, size_t len)
{
	const struct afw_policy *p = w->p;
	const struct afw_hkey *k;
	uint64_t h;
	uint32_t i;

	if (!t->keys.n)
		return;
	h = afw_policy_hash(s, len);
	for (i = (uint32_t)h & t->mask; t->slots[i]; i = (i + 1) & t->mask) {
		k = AFW_AT(&t->keys, struct afw_hkey, t->slots[i] - 1);
		if (k->hash == h && k->len == len && !memcmp((char *)p->pool.a + k->str, s, len)) {
			afw_shadow_list(w, (const uint32_t *)p->idx.a + k->idx_off, k->idx_n);
			return;
		}
	}
}

size_t afw_policy_unreachable(const struct afw_policy *p, size_t budget,
			      void (*fn)(void *ctx, const struct afw_policy_shadow *s), void *ctx)
{
	struct afw_shadow_walk w = { .p = p, .budget = budget };
	const struct afw_prule *rules = p->rules.a, *r;
	const struct afw_str *h;
	const char *name;
	uint32_t i;

	for (w.rule = 0; w.rule < p->rules.n; w.rule++) {
		r = &rules[w.rule];
		w.best = UINT32_MAX;
		/* A rule without a host test, or one naming the rule's first host or a parent of it. */
		afw_shadow_list(&w, p->generic.a, p->generic.n);
		if (r->hosts.n) {
			h = AFW_AT(&p->strs, struct afw_str, r->hosts.off);
			name = (const char *)p->pool.a + h->off;
			if (!h->wild)
				afw_shadow_key(&w, &p->exact, name, h->len);
			else
				afw_shadow_key(&w, &p->suffix, name, h->len);
			for (i = 0; i < h->len; i++)
				if (name[i] == '.')
					afw_shadow_key(&w, &p->suffix, name + i + 1, h->len - i - 1);
		}
		if (w.best != UINT32_MAX)
			fn(ctx, &(struct afw_policy_shadow){ r->line, r->prio, rules[w.best].line,
							     rules[w.best].prio });
		else if (!w.budget)
			break;	/* looked at only in part */
	}
	return w.rule;
}
