/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_TUPLE_H
#define _AFW_TUPLE_H

#include <linux/if.h>
#include <linux/in.h>
#include <linux/types.h>

/* afw_tuple.flags */
#define AFW_TUPLE_PORTS	0x01	/* sport/dport were read from an L4 header */
#define AFW_TUPLE_OWNER	0x02	/* uid/gid were read from the owning socket */
/* Not matched by rules (their masks never set it); tells the flow cache. */
#define AFW_TUPLE_FINRST 0x80	/* a TCP segment with FIN or RST */
#define AFW_TUPLE_RST	0x40	/* a TCP segment with RST */

/*
 * What the classifier knows of a packet. Rules are masks and keys of the
 * same shape: a rule matches when (tuple & mask) == key, compared as whole
 * u64 words, so the layout has no holes and a size that is a multiple of 8.
 */
struct afw_tuple {
	__be32 saddr[4];
	__be32 daddr[4];
	char iif[IFNAMSIZ];
	char oif[IFNAMSIZ];
	u32 uid;
	u32 gid;
	u16 sport;		/* host byte order, so prefixes are plain masks */
	u16 dport;
	u8 family;		/* AFW_FAMILY_* */
	u8 proto;
	u8 dir;			/* AFW_DIR_* */
	u8 flags;		/* AFW_TUPLE_* */
	u64 exe;		/* the sender's program, as ident.c hashes it; 0: none */
	u64 cgroup;		/* 0; a table's mask says which level to fill in */
} __aligned(8);

/* Protocols whose header starts with a source and a destination port. */
static inline bool afw_proto_has_ports(u8 proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_UDPLITE || proto == IPPROTO_SCTP ||
	       proto == IPPROTO_DCCP;
}

#define AFW_TUPLE_WORDS (sizeof(struct afw_tuple) / sizeof(u64))

static inline void afw_tuple_and(struct afw_tuple *out, const struct afw_tuple *a,
				 const struct afw_tuple *mask)
{
	const u64 *x = (const u64 *)a, *m = (const u64 *)mask;
	u64 *o = (u64 *)out;
	unsigned int i;

	for (i = 0; i < AFW_TUPLE_WORDS; i++)
		o[i] = x[i] & m[i];
}

static inline bool afw_tuple_eq(const struct afw_tuple *a, const struct afw_tuple *b)
{
	const u64 *x = (const u64 *)a, *y = (const u64 *)b;
	unsigned int i;

	for (i = 0; i < AFW_TUPLE_WORDS; i++)
		if (x[i] != y[i])
			return false;
	return true;
}

#endif /* _AFW_TUPLE_H */
