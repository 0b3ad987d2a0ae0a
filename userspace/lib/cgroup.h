/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cgroup v2 ids and paths. The kernel records a flow's cgroup by id (the
 * inode number of its directory in the cgroup2 file system); a path is found
 * by looking for that directory.
 */
#ifndef AFW_CGROUP_H
#define AFW_CGROUP_H

#include <stddef.h>
#include <stdint.h>

struct afw_cgroup_entry;

/* The cgroup2 tree as one walk found it. */
struct afw_cgroups {
	struct afw_cgroup_entry *v;
	size_t n, cap;
	int walked;			/* 1: walked (maybe finding nothing) */
};

/*
 * The path of cgroup @id below the cgroup2 root ("/" for the root itself),
 * walking @root (normally "/sys/fs/cgroup") the first time; NULL when no
 * directory has that id (the cgroup is gone, or cgroup2 is not mounted).
 */
const char *afw_cgroup_path(struct afw_cgroups *cg, const char *root, uint64_t id);
void afw_cgroups_free(struct afw_cgroups *cg);

#endif /* AFW_CGROUP_H */
