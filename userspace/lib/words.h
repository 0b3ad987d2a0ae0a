/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Words of the ruleset and policy syntaxes: numbers, IP protocols, ports by
 * service name, users and groups by name, and "did you mean" hints.
 */
#ifndef AFW_WORDS_H
#define AFW_WORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A decimal number that fits 32 bits, digits only. */
bool afw_parse_u32(const char *s, uint32_t *v);

/*
 * An address as inet_pton() reads it, IPv4 or IPv6, into @addr (16 bytes,
 * zeroed past it): AF_INET, AF_INET6, or 0 for neither.
 */
int afw_addr_parse(const char *s, uint8_t *addr);
/* The same of the @len bytes at @s, which need not end there. */
int afw_addr_parse_len(const char *s, size_t len, uint8_t *addr);

/* A protocol's name, or its number written into @buf. */
const char *afw_proto_name(uint8_t proto, char *buf, size_t len);
/* A protocol name or number 1-255; returns -1 for anything else. */
int afw_proto_parse(const char *s, uint8_t *proto);

/* Protocols whose header starts with a source and a destination port. */
bool afw_proto_has_ports(uint8_t proto);

/* The names afw_proto_parse knows, for hints. */
extern const char *const afw_proto_names[];
extern const size_t afw_nproto_names;

/*
 * A port: a number 0-65535 or a service name of /etc/services for @proto
 * (getservbyname). Returns -1 for anything else.
 */
int afw_port_parse(const char *s, uint8_t proto, uint16_t *port);

/* A user or group: a number, or a name resolved now (getpwnam, getgrnam). */
int afw_uid_parse(const char *s, uint32_t *uid);
int afw_gid_parse(const char *s, uint32_t *gid);

/*
 * The word of @list (@n words) closest to @w, for "did you mean": NULL when
 * none is close enough to be a likely typo.
 */
const char *afw_suggest(const char *w, const char *const *list, size_t n);

/*
 * Splits @line in place at spaces, tabs, CRs and LFs into at most @max
 * words, up to the end or a '#', which starts a comment. A word in double
 * quotes ("a note # 2") may hold blanks and '#'; the quotes are not part of
 * it. Returns the count of words, or one of AFW_SPLIT_* with @at where the
 * line went wrong. The config file and single rules share it.
 */
int afw_split_words(char *line, char **words, int max, char **at);
/*
 * The same of a line whose NUL is at line[len], known to the caller, with
 * each word's length into @lens unless it is NULL: a ruleset runs to
 * millions of lines, and each strlen() of them is a call.
 */
int afw_split_words_len(char *line, size_t len, char **words, size_t *lens, int max, char **at);

#define AFW_SPLIT_TOO_MANY	(-1)	/* more than @max words */
#define AFW_SPLIT_OPEN_QUOTE	(-2)	/* no closing quote */
#define AFW_SPLIT_AFTER_QUOTE	(-3)	/* "a"b */
#define AFW_SPLIT_MID_QUOTE	(-4)	/* a"b" */

/*
 * What a negative afw_split_words return means, for a line of at most @max
 * words: a constant, or the message written into @buf.
 */
const char *afw_split_error(int ret, int max, char *buf, size_t len);

/* Whether @w is @word: its first letter first, as most words are not. */
static inline bool afw_word_is(const char *w, const char *word)
{
	return w[0] == word[0] && !strcmp(w, word);
}

/* printf pieces for an optional "; did you mean 'X'?" from afw_suggest. */
#define AFW_HINT_FMT "%s%s%s"
#define AFW_HINT_ARGS(s) (s) ? "; did you mean '" : "", (s) ? (s) : "", (s) ? "'?" : ""

#endif /* AFW_WORDS_H */
