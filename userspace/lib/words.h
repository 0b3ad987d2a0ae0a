/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Words of the ruleset and policy syntaxes: numbers and IP protocols.
 */
#ifndef AFW_WORDS_H
#define AFW_WORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A decimal number that fits 32 bits, digits only. */
bool afw_parse_u32(const char *s, uint32_t *v);

/* A protocol's name, or its number written into @buf. */
const char *afw_proto_name(uint8_t proto, char *buf, size_t len);
/* A protocol name or number 1-255; returns -1 for anything else. */
int afw_proto_parse(const char *s, uint8_t *proto);

/* Protocols whose header starts with a source and a destination port. */
bool afw_proto_has_ports(uint8_t proto);

#endif /* AFW_WORDS_H */
