// SPDX-License-Identifier: GPL-2.0
/*
 * A heapsort that yields. The kernel's sort() never reschedules, and a
 * commit may sort millions of rule pointers or ids: tens of seconds of
 * one CPU under a debug kernel, long enough for a soft lockup report on a
 * kernel without full preemption. Elements are 4 or 8 bytes, the only
 * sizes afw sorts, so a swap is one move of an integer.
 */

#include <linux/bug.h>
#include <linux/kernel.h>
#include <linux/sched.h>

#include "sort.h"

/* Sift-downs between two chances to yield: each is at most log2(n) steps. */
#define AFW_SORT_YIELD_EVERY	4096

static void afw_sort_swap(void *a, void *b, size_t size)
{
	if (size == sizeof(u32))
		swap(*(u32 *)a, *(u32 *)b);
	else
		swap(*(u64 *)a, *(u64 *)b);
}

/* Moves element @i down the heap of the first @n elements until it holds. */
static void afw_sort_sift(char *base, size_t i, size_t n, size_t size,
			  int (*cmp)(const void *a, const void *b))
{
	size_t c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= n)
			return;
		if (c + 1 < n && cmp(base + c * size, base + (c + 1) * size) < 0)
			c++;
		if (cmp(base + i * size, base + c * size) >= 0)
			return;
		afw_sort_swap(base + i * size, base + c * size, size);
		i = c;
	}
}

void afw_sort(void *base, size_t n, size_t size, int (*cmp)(const void *a, const void *b))
{
	size_t i, work = 0;

	might_sleep();
	if (WARN_ON_ONCE(size != sizeof(u32) && size != sizeof(u64)) || n < 2)
		return;
	for (i = n / 2; i-- > 0;) {
		afw_sort_sift(base, i, n, size, cmp);
		if (!(++work % AFW_SORT_YIELD_EVERY))
			cond_resched();
	}
	for (i = n - 1; i > 0; i--) {
		afw_sort_swap(base, (char *)base + i * size, size);
		afw_sort_sift(base, 0, i, size, cmp);
		if (!(++work % AFW_SORT_YIELD_EVERY))
			cond_resched();
	}
}
