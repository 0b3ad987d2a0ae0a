/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_SORT_H
#define _AFW_SORT_H

#include <linux/types.h>

/*
 * Sorts @n elements of @size bytes (4 or 8) in place by @cmp, yielding
 * the CPU as it goes. Process context only.
 */
void afw_sort(void *base, size_t n, size_t size, int (*cmp)(const void *a, const void *b));

#endif /* _AFW_SORT_H */
