/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rules: the text syntax users write, and the netlink encoding.
 *
 *   [id N] [prio N] [family ipv4|ipv6] [dir in|out|forward[,...]]
 *   [proto NAME|N] [from ADDR[/LEN]] [to ADDR[/LEN]] [sport P[-P]]
 *   [dport P[-P]] [iif NAME] [oif NAME] [uid U] [gid G] [exe PATH]
 *   [cgroup PATH] accept|drop|reject|queue   (allow and deny are accept and drop)
 */
#ifndef AFW_RULE_H
#define AFW_RULE_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libmnl/libmnl.h>
#include <linux/afw.h>

#include "afwnl.h"

#include "words.h"

#define AFW_R_ID	0x0001
#define AFW_R_SRC	0x0002
#define AFW_R_DST	0x0004
#define AFW_R_SPORT	0x0008
#define AFW_R_DPORT	0x0010
#define AFW_R_IIF	0x0020
#define AFW_R_OIF	0x0040
#define AFW_R_UID	0x0080
#define AFW_R_GID	0x0100
#define AFW_R_COUNTERS	0x0200
#define AFW_R_COMMENT	0x0400
#define AFW_R_EXE	0x0800
#define AFW_R_CGROUP	0x1000

struct afw_rule_spec {
	uint32_t has;			/* AFW_R_* */
	uint32_t id;
	uint32_t prio;
	uint8_t family;			/* 0, AFW_FAMILY_IPV4 or _IPV6 */
	uint8_t dirs;			/* set of 1 << AFW_DIR_* */
	uint8_t proto;			/* 0: any */
	uint8_t action;
	uint8_t src_len, dst_len;
	uint8_t src[16], dst[16];
	uint16_t sport_lo, sport_hi, dport_lo, dport_hi;
	char iif[IF_NAMESIZE], oif[IF_NAMESIZE];
	uint32_t uid, gid;
	char exe[AFW_RULE_PATH_MAX + 1];
	char cgroup[AFW_RULE_PATH_MAX + 1];	/* from the hierarchy's root: "/a/b" */
	char comment[AFW_RULE_COMMENT_MAX + 1];
	uint64_t packets, bytes;	/* from the kernel */
};

/* Why words did not parse: the word at fault and a message that quotes it. */
struct afw_perr {
	int word;			/* index into the words, -1: the whole */
	unsigned int col;		/* 1-based column in a line; 0: none */
	char msg[256];
};

/* Fills in @e; returns -1 for the caller to return. */
int afw_perr_set(struct afw_perr *e, int word, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Parses the words of one rule. Ports may be service names, uid and gid
 * user and group names, resolved now. Each keyword may appear once. On
 * error returns -1 with @e naming the offending word.
 */
int afw_rule_parse_words(int argc, char **argv, struct afw_rule_spec *r, struct afw_perr *e);
/* The same with each word's length in @lens (afw_split_words_len()'s). */
int afw_rule_parse_words_len(int argc, char **argv, const size_t *lens, struct afw_rule_spec *r,
			     struct afw_perr *e);

/*
 * Splits @line (modified) into words and parses it; comments start at '#'.
 * On error @e->col is the column of the word at fault.
 */
int afw_rule_parse_line(char *line, struct afw_rule_spec *r, bool *empty, struct afw_perr *e);

/* An action word (accept, drop, reject, queue, allow, deny), or -1. */
int afw_action_parse(const char *w);
const char *afw_dir_name(unsigned int dir);

/* The rule in the text syntax, every field it sets; parses back to itself. */
void afw_rule_format(const struct afw_rule_spec *r, bool with_id, char *buf, size_t len);

/* Adds AFW_A_RULE with the rule's fields to @nlh, an attribute each. */
void afw_rule_put(struct nlmsghdr *nlh, const struct afw_rule_spec *r);
/*
 * The same with the matches in one AFW_RULE_A_MATCH (family version 2): how
 * a ruleset's rules are kept and sent, a third of the attributes for the
 * kernel to validate.
 */
void afw_rule_put_match(struct nlmsghdr *nlh, const struct afw_rule_spec *r);

/*
 * Decodes one AFW_A_RULE nest, with the kernel's defaults for what
 * afw_rule_put() leaves out; MNL_CB_ERROR with errno if damaged.
 */
int afw_rule_parse_nest(const struct nlattr *nest, struct afw_rule_spec *r);

/* Decodes a message carrying AFW_A_RULE; MNL_CB_ERROR with errno if damaged. */
int afw_rule_parse_msg(const struct nlmsghdr *nlh, struct afw_rule_spec *r);

/*
 * Rules kept as the AFW_A_RULE attributes a replace sends them in, back to
 * back after a message header for mnl_attr_put() to append to: a rule takes
 * the 30-80 bytes it is sent in, not the 180 of an afw_rule_spec (a million
 * rules are 120 MB of page faults fewer), and goes out by memcpy().
 */
struct afw_rule_list {
	struct nlmsghdr *nlh;		/* NULL while empty */
	size_t cap;			/* bytes at nlh */
	size_t n;			/* rules */
};

/* Appends @r; 0, or -1 with errno (ENOMEM, or EFBIG past 4 GB of rules). */
int afw_rule_list_add(struct afw_rule_list *l, const struct afw_rule_spec *r);
/* The first rule's nest (@prev NULL) or the one after @prev; NULL at the end. */
const struct nlattr *afw_rule_list_next(const struct afw_rule_list *l, const struct nlattr *prev);
void afw_rule_list_free(struct afw_rule_list *l);
/*
 * Appends rules from *@at on to @nlh while half a netlink buffer holds them,
 * as kept for a module of family @version 2 or later, one attribute each
 * for an older one, and moves *@at to the first rule left over (NULL:
 * none). 0, or -EBADMSG for a rule that would not decode.
 */
int afw_rule_list_fill(struct nlmsghdr *nlh, const struct afw_rule_list *l,
		       const struct nlattr **at, uint32_t version);

const char *afw_action_name(uint8_t action);


/* Netlink requests. On error the kernel's explanation is in nl->ext_msg. */
int afw_rule_add(struct afw_nl *nl, struct afw_rule_spec *r);
int afw_rule_del(struct afw_nl *nl, uint32_t id);
int afw_rule_flush(struct afw_nl *nl);
/*
 * Replaces the whole ruleset with the rules of @l in one transaction, as
 * many messages as it takes, and @settings (a nested AFW_A_CONFIG that
 * @put_settings writes, or none) in the commit: the kernel publishes them
 * with the rules, or neither. Nothing changes unless it returns 0.
 */
int afw_ruleset_replace(struct afw_nl *nl, const struct afw_rule_list *l,
			void (*put_settings)(struct nlmsghdr *nlh, const void *data),
			const void *data);

/*
 * Calls @fn for every rule in evaluation order; returns 0 or -errno, and
 * -EINTR when the ruleset changed during the dump (@fn has seen a mix).
 */
int afw_rule_dump(struct afw_nl *nl, int (*fn)(const struct afw_rule_spec *r, void *data),
		  void *data);

#endif /* AFW_RULE_H */
