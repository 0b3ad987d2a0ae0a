// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroup v2 ids to paths: one walk of the tree, then lookups in memory, so
 * that listing many flows costs one walk.
 */

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cgroup.h"

/* Deeper trees are cut short: their cgroups are shown by id. */
#define AFW_CGROUP_DEPTH 32

struct afw_cgroup_entry {
	uint64_t id;
	char *path;
};

static int afw_cgroup_add(struct afw_cgroups *cg, uint64_t id, const char *path)
{
	struct afw_cgroup_entry *v;

	if (cg->n == cg->cap) {
		cg->cap = cg->cap ? cg->cap * 2 : 64;
		v = realloc(cg->v, cg->cap * sizeof(*v));
		if (!v)
			return -1;
		cg->v = v;
	}
	cg->v[cg->n].path = strdup(path[0] ? path : "/");
	if (!cg->v[cg->n].path)
		return -1;
	cg->v[cg->n++].id = id;
	return 0;
}

/*
 * @dfd is the directory at @path (relative to the root, "" for the root),
 * which @path's buffer (of @size) extends as the walk descends.
 */
static void afw_cgroup_walk(struct afw_cgroups *cg, int dfd, char *path, size_t size,
			    unsigned int depth)
{
	size_t len = strlen(path);
	struct dirent *de;
	struct stat st;
	DIR *dir;
	int fd;

	if (fstat(dfd, &st) || afw_cgroup_add(cg, st.st_ino, path)) {
		close(dfd);
		return;
	}
	dir = fdopendir(dfd);
	if (!dir) {
		close(dfd);
		return;
	}
	while (depth < AFW_CGROUP_DEPTH && (de = readdir(dir))) {
		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (len + 1 + strlen(de->d_name) + 1 > size)
			continue;
		fd = openat(dirfd(dir), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		path[len] = '/';
		strcpy(path + len + 1, de->d_name);
		afw_cgroup_walk(cg, fd, path, size, depth + 1);
		path[len] = '\0';
	}
	closedir(dir);
}

const char *afw_cgroup_path(struct afw_cgroups *cg, const char *root, uint64_t id)
{
	char path[4096] = "";
	struct statfs sfs;
	size_t i;
	int fd;

	if (!cg->walked) {
		cg->walked = 1;
		fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0 && !fstatfs(fd, &sfs) && sfs.f_type == CGROUP2_SUPER_MAGIC)
			afw_cgroup_walk(cg, fd, path, sizeof(path), 0);
		else if (fd >= 0)
			close(fd);
	}
	for (i = 0; i < cg->n; i++)
		if (cg->v[i].id == id)
			return cg->v[i].path;
	return NULL;
}

void afw_cgroups_free(struct afw_cgroups *cg)
{
	size_t i;

	for (i = 0; i < cg->n; i++)
		free(cg->v[i].path);
	free(cg->v);
	memset(cg, 0, sizeof(*cg));
}
