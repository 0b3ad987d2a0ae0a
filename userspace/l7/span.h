/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A view of bytes owned by someone else: the parsers of afwd return these
 * instead of copies, so a result lives exactly as long as the caller's buffer.
 */
#ifndef AFW_SPAN_H
#define AFW_SPAN_H

#include <stddef.h>
#include <stdint.h>

struct afw_span {
	const uint8_t *p;
	size_t len;
};

#endif /* AFW_SPAN_H */
