/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _AFW_IDENT_H
#define _AFW_IDENT_H

#include <linux/bits.h>
#include <linux/types.h>

struct sk_buff;

/*
 * Rules name programs and cgroups by path, and the classifier compares a
 * keyed hash of the path (never 0: 0 is "none"). A cgroup's value carries
 * its level in its top byte, and a rule's mask keeps that byte, so rules on
 * cgroups of different depths land in different tables, and each table
 * knows which of a socket's ancestors to hash.
 */
#define AFW_IDENT_CGROUP_SHIFT	56
#define AFW_IDENT_CGROUP_HASH	GENMASK_ULL(AFW_IDENT_CGROUP_SHIFT - 1, 0)

static inline u64 afw_ident_cgroup_mask(u8 level)
{
	return AFW_IDENT_CGROUP_HASH | (u64)level << AFW_IDENT_CGROUP_SHIFT;
}

static inline u8 afw_ident_cgroup_level(u64 mask)
{
	return mask >> AFW_IDENT_CGROUP_SHIFT;
}

u64 afw_ident_hash(const char *path, size_t len);

/* The value of cgroup @path ("/" or "/a/b", checked) whose hash is @hash. */
static inline u64 afw_ident_cgroup_value(u64 hash, const char *path, size_t len)
{
	u8 level = len > 1;
	size_t i;

	/* Each part after the first starts with a slash; "/" is level 0. */
	for (i = 1; i < len; i++)
		level += path[i] == '/';
	return (hash & AFW_IDENT_CGROUP_HASH) | (u64)level << AFW_IDENT_CGROUP_SHIFT;
}

/* A rule's value for cgroup @path, at its level. */
u64 afw_ident_cgroup_path(const char *path, size_t len);

/*
 * The value of the cgroup @level deep above the socket @skb left by, as
 * rules on that level compare it, or 0. Any context.
 */
u64 afw_ident_cgroup(const struct sk_buff *skb, u8 level);

/*
 * Whether @file, the running task's program, is where its path says on the
 * host: the task has the host's root (in the host's mount namespace or a
 * root-made copy of it) and the file is in the tree under that root.
 * Task context only.
 */
struct path;
bool afw_ident_host_file(const struct path *file);

int afw_ident_init(void);
void afw_ident_exit(void);

#endif /* _AFW_IDENT_H */
