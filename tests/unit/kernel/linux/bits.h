/* SPDX-License-Identifier: GPL-2.0 */
/* The bit masks the module names, as <linux/bits.h> has them. */
#ifndef _AFW_SHIM_BITS_H
#define _AFW_SHIM_BITS_H
#define GENMASK_ULL(h, l) ((~0ULL << (l)) & (~0ULL >> (63 - (h))))
#endif
