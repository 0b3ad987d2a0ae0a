/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Just enough of the kernel's API to build the module's classifier
 * (module/classify.c) and its selftest (module/selftest.c) as a host
 * program: tests/unit/test_classify.c runs them under ASan and UBSan, at
 * host speed, on every make check. Every macro evaluates its arguments as
 * the kernel's does (min() once, swap() twice), so that code which is
 * wrong in the kernel is wrong here too.
 */
#ifndef AFW_TEST_KERNEL_H
#define AFW_TEST_KERNEL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
/* The uapi header's types (<linux/types.h>). */
typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef uint64_t __u64;
typedef uint32_t __be32;
typedef uint16_t __be16;

#define __percpu
#define __rcu
#define __read_mostly
#define __aligned(x) __attribute__((aligned(x)))
#define __packed __attribute__((packed))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define fallthrough __attribute__((fallthrough))
#define __uninitialized
/* The lowest set bit of a word that has one. */
#define __ffs(x) ((unsigned long)__builtin_ctzl(x))

#define IFNAMSIZ 16
#define IPPROTO_ICMP 1
#define IPPROTO_TCP 6
#define IPPROTO_UDP 17
#define IPPROTO_DCCP 33
#define IPPROTO_ICMPV6 58
#define IPPROTO_SCTP 132
#define IPPROTO_UDPLITE 136
#define htonl(x) __builtin_bswap32(x)
#define ntohl(x) __builtin_bswap32(x)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define U16_MAX UINT16_MAX
#define U32_MAX UINT32_MAX
#define U64_MAX UINT64_MAX
#define min(a, b) ({ typeof(a) _a = (a); typeof(b) _b = (b); _a < _b ? _a : _b; })
#define max(a, b) ({ typeof(a) _a = (a); typeof(b) _b = (b); _a > _b ? _a : _b; })
#define swap(a, b) do { typeof(a) __tmp = (a); (a) = (b); (b) = __tmp; } while (0)
#define container_of(p, t, m) ((t *)((char *)(p) - offsetof(t, m)))
#define struct_size_t(t, m, n) (sizeof(t) + (n) * sizeof(((t *)0)->m[0]))
#define static_assert(x, ...) _Static_assert(x, #x)

static inline u32 roundup_pow_of_two(u32 n)
{
	u32 p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static inline unsigned int ilog2(u32 n)
{
	return 31 - __builtin_clz(n);
}

#define MAX_ERRNO 4095
#define ERR_PTR(e) ((void *)(long)(e))
#define PTR_ERR(p) ((long)(p))
#define IS_ERR(p) ((unsigned long)(p) >= (unsigned long)-MAX_ERRNO)
#define PTR_ERR_OR_ZERO(p) (IS_ERR(p) ? PTR_ERR(p) : 0)

/* Allocation: the gfp flags say nothing to a host. */
static inline void *afw_test_alloc_array(size_t n, size_t size)
{
	return malloc(n && size ? n * size : 1);
}

#define GFP_KERNEL 0
#define GFP_KERNEL_ACCOUNT 0
#define kzalloc(n, gfp) calloc(1, (n))
#define kmalloc(n, gfp) malloc(n)
#define kfree(p) free((void *)(p))
#define kstrdup(s, gfp) strdup(s)

static inline char *strchrnul(const char *s, int c)
{
	while (*s && *s != (char)c)
		s++;
	return (char *)s;
}
#define kvmalloc(n, gfp) malloc(n)
#define kvfree(p) free(p)
#define kvcalloc(n, size, gfp) calloc((n) ? (n) : 1, (size))
#define kvmalloc_array(n, size, gfp) afw_test_alloc_array(n, size)

typedef struct {
	int refs;
} refcount_t;

static inline void refcount_set(refcount_t *r, int n)
{
	r->refs = n;
}

/* A reference taken on a dead object, or dropped twice, is a bug: stop. */
static inline void refcount_inc(refcount_t *r)
{
	if (r->refs <= 0)
		abort();
	r->refs++;
}

static inline bool refcount_dec_and_test(refcount_t *r)
{
	if (r->refs <= 0)
		abort();
	return --r->refs == 0;
}

/* One thread, no preemption: RCU and rescheduling are nothing. */
#define rcu_read_lock() do { } while (0)
#define rcu_read_unlock() do { } while (0)
#define rcu_barrier() do { } while (0)
#define cond_resched() do { } while (0)
#define might_sleep() do { } while (0)
#define WARN_ON_ONCE(c) (!!(c))

/* One thread: plain counters. */
typedef struct {
	int counter;
} atomic_t;
typedef struct {
	long counter;
} atomic_long_t;
#define ATOMIC_INIT(i) { (i) }
#define ATOMIC_LONG_INIT(i) { (i) }
#define atomic_read(a) ((a)->counter)
#define atomic_inc(a) ((void)((a)->counter++))
#define atomic_dec(a) ((void)((a)->counter--))
#define atomic_long_read(a) ((a)->counter)
#define atomic_long_add(i, a) ((void)((a)->counter += (i)))
#define atomic_long_sub(i, a) ((void)((a)->counter -= (i)))

struct work_struct {
	int unused;
};

struct rcu_work {
	struct work_struct work;
};

struct workqueue_struct;
#define WQ_UNBOUND 0
#define alloc_workqueue(...) ((struct workqueue_struct *)1)
#define destroy_workqueue(wq) do { } while (0)
#define flush_workqueue(wq) do { (void)(wq); } while (0)
#define to_rcu_work(w) container_of(w, struct rcu_work, work)
#define INIT_RCU_WORK(w, fn) do { (void)(fn); } while (0)
/* The test frees snapshots with afw_ruleset_free(), never after a grace period. */
#define queue_rcu_work(wq, w) abort()

struct netlink_ext_ack;
#define NL_SET_ERR_MSG_MOD(extack, msg) do { (void)(extack); } while (0)

#define pr_err(...) fprintf(stderr, "afw: " __VA_ARGS__)
#define pr_info(...) fprintf(stderr, "afw: " __VA_ARGS__)
#define module_param_named(name, var, type, perm)
#define MODULE_PARM_DESC(name, desc)

static inline void sort(void *base, size_t num, size_t size,
			int (*cmp)(const void *, const void *), void *swap_fn)
{
	(void)swap_fn;
	qsort(base, num, size, cmp);
}

/* Any hash will do: the classifier only needs build and lookup to agree. */
static inline u32 jhash2(const u32 *k, u32 words, u32 seed)
{
	u32 h = seed ^ 0x9e3779b9;

	while (words--) {
		h ^= *k++;
		h *= 0x01000193;
		h ^= h >> 15;
	}
	return h;
}

u32 get_random_u32(void);
u64 get_random_u64(void);

struct rnd_state {
	u64 s;
};

static inline void prandom_seed_state(struct rnd_state *r, u64 seed)
{
	r->s = seed ? seed : 1;
}

static inline u32 prandom_u32_state(struct rnd_state *r)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return (u32)r->s;
}

static inline size_t strscpy(char *dst, const char *src, size_t n)
{
	size_t len = strnlen(src, n - 1);

	memcpy(dst, src, len);
	dst[len] = '\0';
	return len;
}

static inline size_t strscpy_pad(char *dst, const char *src, size_t n)
{
	memset(dst, 0, n);
	return strscpy(dst, src, n);
}

struct list_head {
	struct list_head *next, *prev;
};

/* Per-CPU counters, of one CPU. */
struct u64_stats_sync {
	int unused;
};

typedef struct {
	u64 v;
} u64_stats_t;

#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < 1; (cpu)++)
#define nr_cpu_ids 1U
#define get_cpu() 0
#define put_cpu() do { } while (0)
#define per_cpu_ptr(p, cpu) ((void)(cpu), (p))
#define get_cpu_ptr(p) (p)
#define put_cpu_ptr(p) do { } while (0)
#define u64_stats_update_begin_irqsave(s) ((void)(s), 0UL)
#define u64_stats_update_end_irqrestore(s, flags) do { (void)(s); (void)(flags); } while (0)
#define u64_stats_fetch_begin(s) ((void)(s), 0U)
#define u64_stats_fetch_retry(s, start) ((void)(s), (void)(start), false)
#define u64_stats_inc(p) ((p)->v++)
#define u64_stats_add(p, n) ((p)->v += (n))
#define u64_stats_read(p) ((p)->v)

/* Slab caches, each its own size of malloc. */
struct kmem_cache {
	size_t size;
};

#define SLAB_ACCOUNT 0

static inline struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align,
						   unsigned long flags, void (*ctor)(void *))
{
	struct kmem_cache *c = malloc(sizeof(*c));

	(void)name;
	(void)align;
	(void)flags;
	(void)ctor;
	if (c)
		c->size = size;
	return c;
}

#define kmem_cache_alloc(c, gfp) malloc((c)->size)
#define kmem_cache_free(c, p) free(p)
#define kmem_cache_destroy(c) free(c)

#endif /* AFW_TEST_KERNEL_H */
