/* SPDX-License-Identifier: GPL-2.0 */
/* The sizes the module names, as <linux/sizes.h> has them. */
#ifndef _AFW_SHIM_SIZES_H
#define _AFW_SHIM_SIZES_H
#define SZ_1M	0x00100000
#endif
