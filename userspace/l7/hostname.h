/* SPDX-License-Identifier: GPL-2.0 */
/* Host names as the policy compares them. */
#ifndef AFW_HOSTNAME_H
#define AFW_HOSTNAME_H

#include <stddef.h>

/* A name without its trailing dot is at most this long. */
#define AFW_HOSTNAME_MAX 253

/*
 * Copies @in (@len bytes, not NUL-terminated) to @out in lower case
 * without a trailing dot, NUL-terminated; @out holds AFW_HOSTNAME_MAX + 1
 * bytes. Returns the new length, or -1 with the reason in *@why: an empty
 * label, a label over 63 bytes, a name over 253 bytes, a byte other than
 * a letter, digit, '-' or '_', or '-' at either end of a label.
 */
int afw_hostname_norm(const char *in, size_t len, char *out, const char **why);

#endif /* AFW_HOSTNAME_H */
