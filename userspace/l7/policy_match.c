// SPDX-License-Identifier: GPL-2.0
/*
 * Deciding a flow. Rules are kept in evaluation order, so "first match"
 * is "lowest rule index that matches". Rules that test the host are not
 * scanned: a hash table maps each exact name, and another each "*.suffix",
 * to the ascending list of rules that name it. A flow's candidates are the
 * rules without a host test, the rules naming its host, and those naming
 * any of its parent domains; walking these sorted lists in step yields them
 * in evaluation order, so the first one whose other tests pass is the one a
 * linear scan would have found.
 */

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "hostname.h"
#include "policy_impl.h"

void *afw_vec_push(struct afw_vec *v)
{
	void *a, *slot;
	size_t cap;

	if (v->n == v->cap) {
		cap = v->cap ? v->cap * 2 : 16;
		a = realloc(v->a, cap * v->size);
		if (!a)
			return NULL;
		v->a = a;
		v->cap = cap;
	}
	slot = (char *)v->a + v->n++ * v->size;
	memset(slot, 0, v->size);
	return slot;
}

void afw_vec_free(struct afw_vec *v)
{
	free(v->a);
	v->a = NULL;
	v->n = v->cap = 0;
}

/* FNV-1a: the keys come from the administrator's file, not from the network. */
uint64_t afw_policy_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (uint8_t)s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static int afw_rule_cmp(const void *a, const void *b)
{
	const struct afw_prule *x = a, *y = b;

	if (x->prio != y->prio)
		return x->prio < y->prio ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

struct afw_hent {
	uint32_t str, len, rule;
	bool wild;
};

static int afw_hent_cmp(const void *a, const void *b, void *pool)
{
	const struct afw_hent *x = a, *y = b;
	const char *s = pool;
	int c;

	if (x->wild != y->wild)
		return x->wild ? 1 : -1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	c = memcmp(s + x->str, s + y->str, x->len);
	if (c)
		return c;
	return x->rule < y->rule ? -1 : x->rule > y->rule;
}

static int afw_htable_fill(struct afw_htable *t)
{
	const struct afw_hkey *k;
	uint32_t cap = 16, i, j;

	while (cap < 2 * t->keys.n)
		cap *= 2;
	t->slots = calloc(cap, sizeof(*t->slots));
	if (!t->slots)
		return -1;
	t->mask = cap - 1;
	for (i = 0; i < t->keys.n; i++) {
		k = AFW_AT(&t->keys, struct afw_hkey, i);
		for (j = (uint32_t)k->hash & t->mask; t->slots[j]; j = (j + 1) & t->mask)
			;
		t->slots[j] = i + 1;
	}
	return 0;
}

int afw_policy_index(struct afw_policy *p)
{
	struct afw_vec ents = AFW_VEC(struct afw_hent);
	const struct afw_str *s;
	struct afw_prule *r;
	struct afw_hent *e, *g;
	struct afw_hkey *k;
	struct afw_htable *t;
	uint32_t *slot;
	size_t i, j;
	int ret = -1;

	if (p->rules.n)
		qsort(p->rules.a, p->rules.n, p->rules.size, afw_rule_cmp);
	for (i = 0; i < p->rules.n; i++) {
		r = AFW_AT(&p->rules, struct afw_prule, i);
		if (!r->hosts.n) {
			slot = afw_vec_push(&p->generic);
			if (!slot)
				goto out;
			*slot = (uint32_t)i;
			continue;
		}
		for (j = 0; j < r->hosts.n; j++) {
			s = AFW_AT(&p->strs, struct afw_str, r->hosts.off + j);
			e = afw_vec_push(&ents);
			if (!e)
				goto out;
			*e = (struct afw_hent){ s->off, s->len, (uint32_t)i, s->wild };
		}
	}
	if (ents.n)
		qsort_r(ents.a, ents.n, ents.size, afw_hent_cmp, p->pool.a);
	for (i = 0; i < ents.n; i = j) {
		g = AFW_AT(&ents, struct afw_hent, i);
		t = g->wild ? &p->suffix : &p->exact;
		k = afw_vec_push(&t->keys);
		if (!k)
			goto out;
		k->str = g->str;
		k->len = g->len;
		k->hash = afw_policy_hash((const char *)p->pool.a + g->str, g->len);
		k->idx_off = (uint32_t)p->idx.n;
		for (j = i; j < ents.n; j++) {
			e = AFW_AT(&ents, struct afw_hent, j);
			if (e->wild != g->wild || e->len != g->len ||
			    memcmp((char *)p->pool.a + e->str, (char *)p->pool.a + g->str, g->len))
				break;
			/* A rule naming the same host twice is listed once. */
			if (j > i && e->rule == AFW_AT(&ents, struct afw_hent, j - 1)->rule)
				continue;
			slot = afw_vec_push(&p->idx);
			if (!slot)
				goto out;
			*slot = e->rule;
			k->idx_n++;
		}
	}
	if (afw_htable_fill(&p->exact) || afw_htable_fill(&p->suffix))
		goto out;
	ret = 0;
out:
	afw_vec_free(&ents);
	return ret;
}

void afw_policy_index_free(struct afw_policy *p)
{
	afw_vec_free(&p->generic);
	afw_vec_free(&p->idx);
	afw_vec_free(&p->exact.keys);
	afw_vec_free(&p->suffix.keys);
	free(p->exact.slots);
	free(p->suffix.slots);
	p->exact.slots = p->suffix.slots = NULL;
}

static const struct afw_hkey *afw_hlookup(const struct afw_policy *p, const struct afw_htable *t,
					  const char *s, size_t len)
{
	const struct afw_hkey *k;
	uint64_t h;
	uint32_t i;

	if (!t->keys.n)
		return NULL;
	h = afw_policy_hash(s, len);
	for (i = (uint32_t)h & t->mask; t->slots[i]; i = (i + 1) & t->mask) {
		k = AFW_AT(&t->keys, struct afw_hkey, t->slots[i] - 1);
		if (k->hash == h && k->len == len && !memcmp((char *)p->pool.a + k->str, s, len))
			return k;
	}
	return NULL;
}

static bool afw_span_is(const struct afw_policy *p, const struct afw_str *s,
			const struct afw_text *v, bool nocase)
{
	const char *a = (const char *)p->pool.a + s->off;

	if (v->len != s->len || !v->ptr)
		return false;
	return nocase ? !strncasecmp(a, v->ptr, s->len) : !memcmp(a, v->ptr, s->len);
}

static bool afw_has_ports(uint8_t proto)
{
	return proto == 6 || proto == 17 || proto == 33 || proto == 132 || proto == 136;
}

static bool afw_net_has(const struct afw_net *n, int family, const uint8_t *addr)
{
	unsigned int full = n->len / 8, rest = n->len % 8;

	if (n->family != family)
		return false;
	if (memcmp(n->addr, addr, full))
		return false;
	return !rest || !((n->addr[full] ^ addr[full]) & (0xff00 >> rest));
}

static bool afw_nets_have(const struct afw_policy *p, struct afw_range rg, int family,
			  const uint8_t *addr)
{
	uint32_t i;

	for (i = 0; i < rg.n; i++)
		if (afw_net_has(AFW_AT(&p->nets, struct afw_net, rg.off + i), family, addr))
			return true;
	return false;
}

static bool afw_ports_have(const struct afw_policy *p, struct afw_range rg, uint16_t port)
{
	const struct afw_ports *pr;
	uint32_t i;

	for (i = 0; i < rg.n; i++) {
		pr = AFW_AT(&p->ports, struct afw_ports, rg.off + i);
		if (port >= pr->lo && port <= pr->hi)
			return true;
	}
	return false;
}

/* An interface test: a flow without that interface (0) never matches. */
static bool afw_ifs_have(const struct afw_policy *p, struct afw_range rg, uint32_t index)
{
	uint32_t i;

	for (i = 0; index && i < rg.n; i++)
		if (AFW_AT(&p->ifs, struct afw_pif, rg.off + i)->index == index)
			return true;
	return false;
}

/* Whether @want is one of the ids of @list, the ALPN wire list of facts.h. */
static bool afw_alpn_has(const struct afw_text *list, const char *want, size_t want_len)
{
	const uint8_t *b = (const uint8_t *)list->ptr;
	size_t off = 0, n;

	while (b && off < list->len) {
		n = b[off++];
		if (n > list->len - off)
			return false;
		if (n == want_len && !memcmp(b + off, want, n))
			return true;
		off += n;
	}
	return false;
}

/*
 * The tests of @r on where a flow goes and where it comes from, which its
 * first packet shows: protocol, ports, addresses, direction, interfaces.
 * The user is afw_rule_uid()'s.
 */
static bool afw_rule_ends(const struct afw_policy *p, const struct afw_prule *r,
			  const struct afw_facts *f)
{
	uint32_t i;
	bool hit;

	if (r->protos.n) {
		for (hit = false, i = 0; i < r->protos.n && !hit; i++)
			hit = *AFW_AT(&p->protos, uint8_t, r->protos.off + i) == f->l4proto;
		if (!hit)
			return false;
	}
	if ((r->ports.n || r->sports.n) && !afw_has_ports(f->l4proto))
		return false;
	if (r->ports.n && !afw_ports_have(p, r->ports, f->dport))
		return false;
	if (r->sports.n && !afw_ports_have(p, r->sports, f->sport))
		return false;
	if (r->nets.n && !afw_nets_have(p, r->nets, f->family, f->daddr))
		return false;
	if (r->snets.n && !afw_nets_have(p, r->snets, f->family, f->saddr))
		return false;
	/* A flow whose direction is unknown (a capture) matches no dir test. */
	if (r->dirs && (f->dir == AFW_FDIR_UNKNOWN || f->dir > AFW_FDIR_FORWARD ||
			!(r->dirs & (1u << f->dir))))
		return false;
	if (r->iifs.n && !afw_ifs_have(p, r->iifs, f->iif))
		return false;
	if (r->oifs.n && !afw_ifs_have(p, r->oifs, f->oif))
		return false;
	return true;
}

/* The "uid" test of @r; a flow without an owner matches none. */
static bool afw_rule_uid(const struct afw_policy *p, const struct afw_prule *r,
			 const struct afw_facts *f)
{
	uint32_t i;

	if (!r->uids.n)
		return true;
	if (!f->has_uid)
		return false;
	for (i = 0; i < r->uids.n; i++)
		if (*AFW_AT(&p->uids, uint32_t, r->uids.off + i) == f->uid)
			return true;
	return false;
}

const struct afw_owner_info *afw_facts_owner(const struct afw_facts *f)
{
	struct afw_owner_slot *s = f->owner;

	if (!s || !s->fetch)
		return NULL;
	if (!s->state)
		s->state = s->fetch(s->ctx, f, &s->info) ? -1 : 1;
	return s->state > 0 ? &s->info : NULL;
}

static const char *afw_pool_str(const struct afw_policy *p, struct afw_range rg, uint32_t i)
{
	return (const char *)p->pool.a + AFW_AT(&p->strs, struct afw_str, rg.off + i)->off;
}

/* @s matches one of the glob(7) patterns of @rg. */
static bool afw_globs_have(const struct afw_policy *p, struct afw_range rg, const char *s,
			   int flags)
{
	uint32_t i;

	for (i = 0; i < rg.n; i++)
		if (!fnmatch(afw_pool_str(p, rg, i), s, flags))
			return true;
	return false;
}

/* Cgroup @path is one of @rg's or below one: a unit's own cgroups are its. */
static bool afw_cgroups_have(const struct afw_policy *p, struct afw_range rg, const char *path)
{
	const char *c;
	uint32_t i;
	size_t len;

	for (i = 0; i < rg.n; i++) {
		c = afw_pool_str(p, rg, i);
		len = AFW_AT(&p->strs, struct afw_str, rg.off + i)->len;
		if (len == 1 ||
		    (!strncmp(path, c, len) && (path[len] == '\0' || path[len] == '/')))
			return true;
	}
	return false;
}

/*
 * Some cgroup on @path is named as one of @rg's units: "backup.service"
 * matches /system.slice/backup.service and the cgroups below it, as it
 * does the same unit of a user's manager.
 */
static bool afw_units_have(const struct afw_policy *p, struct afw_range rg, const char *path)
{
	const char *seg = path, *end;
	uint32_t i;
	size_t len;

	while (*seg) {
		while (*seg == '/')
			seg++;
		end = strchr(seg, '/');
		len = end ? (size_t)(end - seg) : strlen(seg);
		for (i = 0; i < rg.n && len; i++)
			if (AFW_AT(&p->strs, struct afw_str, rg.off + i)->len == len &&
			    !memcmp(afw_pool_str(p, rg, i), seg, len))
				return true;
		seg += len;
	}
	return false;
}

static bool afw_rule_tests_owner(const struct afw_prule *r)
{
	return r->exes.n || r->comms.n || r->cgroups.n || r->units.n || r->gids.n;
}

/*
 * The tests of @r on the process that started the flow: a flow without
 * one (forwarded, inbound, or no record) matches none of them.
 */
static bool afw_rule_owner(const struct afw_policy *p, const struct afw_prule *r,
			   const struct afw_facts *f)
{
	const struct afw_owner_info *o;
	uint32_t i;
	bool hit;

	if (!afw_rule_tests_owner(r))
		return true;
	o = afw_facts_owner(f);
	if (!o)
		return false;
	if (r->exes.n && (!o->exe[0] || !afw_globs_have(p, r->exes, o->exe, FNM_PATHNAME)))
		return false;
	if (r->comms.n && !afw_globs_have(p, r->comms, o->comm, 0))
		return false;
	if (r->gids.n) {
		for (hit = false, i = 0; i < r->gids.n && !hit; i++)
			hit = *AFW_AT(&p->gids, uint32_t, r->gids.off + i) == o->gid;
		if (!hit)
			return false;
	}
	if (r->cgroups.n && (!o->cgroup[0] || !afw_cgroups_have(p, r->cgroups, o->cgroup)))
		return false;
	if (r->units.n && (!o->cgroup[0] || !afw_units_have(p, r->units, o->cgroup)))
		return false;
	return true;
}

/* Whether @r tests anything a flow's bytes tell: afwd must read them to know. */
static bool afw_rule_reads(const struct afw_prule *r)
{
	return r->l7s || r->reasons || r->names || r->ech || r->hosts.n || r->alpn.n || r->ja4.n;
}

/* Every test of @r except the host, which the index has already done. */
static bool afw_rule_rest(const struct afw_policy *p, const struct afw_prule *r,
			  const struct afw_facts *f, uint8_t name)
{
	const struct afw_str *s;
	uint32_t i;
	bool hit;

	if (r->l7s && ((unsigned int)f->l7 > AFW_L7_MAX || !(r->l7s & (1u << f->l7))))
		return false;
	if (r->reasons && ((unsigned int)f->reason > AFW_REASON_MAX ||
			   !(r->reasons & (1u << f->reason))))
		return false;
	if (r->names && !(r->names & name))
		return false;
	if (r->ech) {
		if (f->l7 != AFW_L7_TLS && f->l7 != AFW_L7_QUIC)
			return false;
		if (!(r->ech & (f->ech ? AFW_PECH_YES : AFW_PECH_NO)))
			return false;
	}
	if (!afw_rule_ends(p, r, f) || !afw_rule_uid(p, r, f) || !afw_rule_owner(p, r, f))
		return false;
	if (r->ja4.n) {
		for (hit = false, i = 0; i < r->ja4.n && !hit; i++)
			hit = afw_span_is(p, AFW_AT(&p->strs, struct afw_str, r->ja4.off + i),
					  &f->ja4, true);
		if (!hit)
			return false;
	}
	if (r->alpn.n) {
		for (hit = false, i = 0; i < r->alpn.n && !hit; i++) {
			s = AFW_AT(&p->strs, struct afw_str, r->alpn.off + i);
			hit = afw_alpn_has(&f->alpn, (const char *)p->pool.a + s->off, s->len);
		}
		if (!hit)
			return false;
	}
	return true;
}

struct afw_cursor {
	const uint32_t *cur, *end;
};

/* One list per label of the longest name, plus the exact name and the host-less rules. */
#define AFW_MAX_CURSORS (AFW_HOSTNAME_MAX / 2 + 3)

static void afw_cursor_add(struct afw_cursor *c, unsigned int *n, const struct afw_policy *p,
			   const struct afw_hkey *k)
{
	if (!k)
		return;
	c[*n].cur = (const uint32_t *)p->idx.a + k->idx_off;
	c[*n].end = c[*n].cur + k->idx_n;
	(*n)++;
}

static enum afw_decision afw_policy_match_one(const struct afw_policy *p,
					      const struct afw_facts *f,
					      struct afw_policy_match *m)
{
	struct afw_cursor c[AFW_MAX_CURSORS];
	char host[AFW_HOSTNAME_MAX + 1];
	bool strict = afw_policy_strict(f->reason);
	uint8_t name = AFW_PNAME_NONE;
	const struct afw_prule *r;
	unsigned int n = 0, i;
	const char *why;
	uint32_t best;
	int len = 0;

	if (p->generic.n) {
		c[n].cur = p->generic.a;
		c[n].end = c[n].cur + p->generic.n;
		n++;
	}
	/* A name that is not a valid host name matches no host test. */
	if (f->host.ptr && f->host.len) {
		len = afw_hostname_norm(f->host.ptr, f->host.len, host, &why);
		name = len > 0 ? AFW_PNAME_VALID : AFW_PNAME_INVALID;
	}
	if (name == AFW_PNAME_VALID) {
		afw_cursor_add(c, &n, p, afw_hlookup(p, &p->exact, host, (size_t)len));
		for (i = 0; i < (unsigned int)len; i++)
			if (host[i] == '.')
				afw_cursor_add(c, &n, p, afw_hlookup(p, &p->suffix, host + i + 1,
								     (size_t)len - i - 1));
	}
	for (;;) {
		best = UINT32_MAX;
		for (i = 0; i < n; i++)
			if (c[i].cur < c[i].end && *c[i].cur < best)
				best = *c[i].cur;
		if (best == UINT32_MAX)
			break;
		for (i = 0; i < n; i++)
			if (c[i].cur < c[i].end && *c[i].cur == best)
				c[i].cur++;
		r = AFW_AT(&p->rules, struct afw_prule, best);
		/* A strict reason is decided only by a rule that names it. */
		if ((!strict || r->reasons) && afw_rule_rest(p, r, f, name)) {
			if (m)
				*m = (struct afw_policy_match){ r->verdict, r->line, r->prio, 0, 0, 0, 0 };
			return r->verdict;
		}
	}
	if (strict) {
		if (m)
			*m = (struct afw_policy_match){ AFW_DECIDE_DENY, 0, 0, 0, 1, 0, 0 };
		return AFW_DECIDE_DENY;
	}
	if (m)
		*m = (struct afw_policy_match){ p->dflt, p->dflt_line, 0, 1, 0, 0, 0 };
	return p->dflt;
}

/*
 * Where the policy says ask, a person may have answered for good: the
 * answers file's rules decide, and their default (ask) leaves it asked.
 */
enum afw_decision afw_policy_match(const struct afw_policy *p, const struct afw_facts *f,
				  struct afw_policy_match *m)
{
	struct afw_policy_match am;
	enum afw_decision d = afw_policy_match_one(p, f, m);

	if (d != AFW_DECIDE_ASK || !p->answers)
		return d;
	if (afw_policy_match_one(p->answers, f, &am) == AFW_DECIDE_ASK)
		return d;
	am.answered = 1;
	am.is_default = 0;
	if (m)
		*m = am;
	return am.verdict;
}

/*
 * Whether @r's tests of a flow's ends and owner look at nothing but its
 * protocol, direction, destination address and port: then whether it
 * matches is the same for every flow that shares those.
 */
static bool afw_rule_keyed(const struct afw_prule *r)
{
	return !r->sports.n && !r->snets.n && !r->iifs.n && !r->oifs.n && !r->uids.n &&
	       !afw_rule_tests_owner(r);
}

/*
 * Whether a flow whose ends and owner match @r is read, not settled by it:
 * its bytes may match @r or not, or it is inspected or asked (the person
 * asked sees its host name, and an answer may name it).
 */
static bool afw_rule_unsettled(const struct afw_prule *r)
{
	return afw_rule_reads(r) || r->verdict == AFW_DECIDE_INSPECT ||
	       r->verdict == AFW_DECIDE_ASK;
}

bool afw_policy_passes_syns(const struct afw_policy *p)
{
	const struct afw_prule *r;
	size_t i;

	/* afw_policy_settled()'s walk, for every flow at once. */
	for (i = 0; i < p->rules.n; i++) {
		r = AFW_AT(&p->rules, struct afw_prule, i);
		if (afw_rule_unsettled(r)) {
			/* Every flow's ends match it, and it reads: no later rule settles. */
			if (afw_rule_keyed(r) && !r->protos.n && !r->ports.n && !r->nets.n &&
			    !r->dirs)
				return true;
			continue;
		}
		/* Decided by the ends alone, some SYN may be refused by it. */
		if (r->verdict != AFW_DECIDE_ALLOW)
			return false;
	}
	/* No rule matched: only a default deny settles. */
	return p->dflt != AFW_DECIDE_DENY;
}

bool afw_policy_settled(const struct afw_policy *p, const struct afw_facts *f, size_t budget,
			struct afw_policy_match *m)
{
	const struct afw_prule *r;
	bool keyed = true;
	size_t i;

	/* In evaluation order: the first rule a flow's ends match tells. */
	for (i = 0; i < p->rules.n; i++) {
		if (i == budget)
			return false;
		r = AFW_AT(&p->rules, struct afw_prule, i);
		keyed = keyed && afw_rule_keyed(r);
		if (!afw_rule_ends(p, r, f))
			continue;
		/*
		 * An owner the first packet does not show may show later: an
		 * inbound connection's segments find their local socket once
		 * it is set up, its SYN does not.
		 */
		if (r->uids.n && !f->has_uid)
			return false;
		/* The owner is the kernel's record of the first packet: final. */
		if (!afw_rule_uid(p, r, f) || !afw_rule_owner(p, r, f))
			continue;
		if (afw_rule_unsettled(r))
			return false;
		*m = (struct afw_policy_match){ r->verdict, r->line, r->prio, 0, 0, 0, keyed };
		return true;
	}
	/*
	 * No rule can match. The default decides, but a flow found to mislead
	 * or malformed is denied, whatever the default says: only a default
	 * deny is the same for every flow.
	 */
	if (p->dflt != AFW_DECIDE_DENY)
		return false;
	*m = (struct afw_policy_match){ p->dflt, p->dflt_line, 0, 1, 0, 0, keyed };
	return true;
}
