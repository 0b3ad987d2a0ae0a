/* SPDX-License-Identifier: GPL-2.0 */
/* <linux/string.h>: the C library's, and kstrdup() in kernel.h. */
#ifndef _AFW_SHIM_STRING_H
#define _AFW_SHIM_STRING_H
#include <string.h>
#endif
