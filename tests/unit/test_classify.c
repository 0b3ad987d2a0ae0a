// SPDX-License-Identifier: GPL-2.0
/*
 * The module's classifier, built for the host: its own selftest (random
 * rules and packets, tuple space search against a linear scan, snapshots
 * built whole and changed a rule at a time) run under ASan and UBSan at
 * host speed, with several seeds and a bigger ruleset than the module
 * loads with, and the reference counts of rules and tables checked to the
 * last one. The module's files are included whole, so that their statics
 * are reachable: this is the code that runs in the kernel, not a copy.
 */
#include "kernel.h"

#include "../../module/classify.c"
#include "../../module/rule.c"
#include "../../module/selftest.c"
#include "../../module/sort.c"

#include "check.h"

/*
 * Paths as rules on programs and cgroups compare them: the module keys a
 * siphash, any hash does here; the cgroup levels are the module's own.
 */
u64 afw_ident_hash(const char *path, size_t len)
{
	u64 h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (u8)path[i]) * 0x100000001b3ULL;
	return h ?: 1;
}

u64 afw_ident_cgroup_path(const char *path, size_t len)
{
	return afw_ident_cgroup_value(afw_ident_hash(path, len), path, len);
}

/*
 * Rule counters: the module keeps 256 rules to a block; here each rule has
 * a block of its own, of one CPU, and the test counts the blocks alive.
 */
static unsigned int afw_test_blocks;

struct afw_counter_block *afw_counters_new(u16 *slot)
{
	struct afw_counter_block *b = calloc(1, sizeof(*b) + sizeof(b->cpu[0]));

	if (!b)
		return NULL;
	b->cpu[0] = calloc(AFW_COUNTERS_PER_BLOCK, sizeof(struct afw_rule_pcpu));
	b->refs[0] = 1;
	*slot = 0;
	afw_test_blocks++;
	return b;
}

/* As the module's: a slot with U16_MAX holders refuses another. */
bool afw_counters_share(struct afw_counter_block *b, u32 slot)
{
	if (b->refs[slot] == U16_MAX)
		return false;
	b->refs[slot]++;
	return true;
}

void afw_counters_put(struct afw_counter_block *b, u32 slot)
{
	if (--b->refs[slot])
		return;
	free(b->cpu[0]);
	free(b);
	afw_test_blocks--;
}

/* Every rule is gone by now, and its counters with it. */
void afw_counters_exit(void)
{
	if (afw_test_blocks)
		abort();
}

static struct rnd_state afw_test_rnd;

u32 get_random_u32(void)
{
	return prandom_u32_state(&afw_test_rnd);
}

u64 get_random_u64(void)
{
	return (u64)get_random_u32() << 32 | get_random_u32();
}

int main(void)
{
	static const u64 seeds[] = { 1, 42, 0xaf3 };
	int failed = 0;
	char name[96];
	unsigned int i;

	CHECK(failed, "port ranges become the prefixes that cover them exactly", afw_st_ranges());
	CHECK(failed, "the rule caches are made", afw_rule_init() == 0);
	afw_selftest_run = true;
	for (i = 0; i < ARRAY_SIZE(seeds); i++) {
		prandom_seed_state(&afw_test_rnd, seeds[i]);
		snprintf(name, sizeof(name),
			 "seed %llu: 2000 random rules, built whole and a rule at a time, "
			 "classify as a linear scan does", (unsigned long long)seeds[i]);
		CHECK(failed, name, afw_selftest() == 0);
	}
	afw_rule_exit();
	return failed;
}
