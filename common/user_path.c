/* SPDX-License-Identifier: Apache-2.0 */
/*
 * user_path.c - open a path the user named that may lie in a hostile tree
 *
 * The path is made absolute and "."/".." are taken out as text; if the
 * result lies below the tree it is walked with fs_walk_beneath, so no
 * link the tree holds is followed. Otherwise it is opened as named and
 * where it ended is read back from /proc/self/fd.
 */
#include "common/user_path.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OPEN_FLAGS (O_RDONLY | O_NONBLOCK | O_CLOEXEC)

/* `path` made absolute, with empty, "." and ".." components taken out. */
static char *lexical_absolute(const char *path)
{
	char cwd[PATH_MAX];
	char *full, *save = NULL, *tok, **parts;
	size_t nr = 0;
	struct buf out = BUF_INIT;

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		full = xstrdup(path);
	else
		full = xasprintf("%s/%s", cwd, path);
	parts = xcalloc(strlen(full) / 2 + 1, sizeof(*parts));
	for (tok = strtok_r(full, "/", &save); tok;
	     tok = strtok_r(NULL, "/", &save)) {
		if (!strcmp(tok, ".."))
			nr -= nr > 0;
		else if (strcmp(tok, "."))
			parts[nr++] = tok;
	}
	for (size_t i = 0; i < nr; i++)
		buf_printf(&out, "/%s", parts[i]);
	if (!nr)
		buf_addch(&out, '/');
	free(parts);
	free(full);
	return buf_detach(&out, NULL);
}

/* The part of `abs` below `root` ("" when equal), or NULL. */
static const char *below(const char *abs, const char *root)
{
	size_t n = strlen(root);

	if (!strcmp(root, "/"))
		return abs + 1;
	if (strncmp(abs, root, n) != 0)
		return NULL;
	if (abs[n] == '\0')
		return abs + n;
	return abs[n] == '/' ? abs + n + 1 : NULL;
}

/* Open `rel` below the folder `root` (shown as `path`), no link followed. */
static int open_beneath(int *fd, const char *root, const char *rel,
			const char *path)
{
	int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int parent = -1, r = 0;
	const char *leaf;

	if (rootfd < 0)
		return crs_error_set(errno == ENOENT ? CRS_ENOTFOUND : CRS_ERR,
				     "%s: %s", root, strerror(errno));
	if (!*rel) {
		*fd = rootfd;
		return 0;
	}
	if ((r = fs_walk_beneath(&parent, &leaf, rootfd, rel, 0, root)) != 0)
		goto out;
	if ((*fd = openat(parent, leaf, OPEN_FLAGS | O_NOFOLLOW)) < 0) {
		int e = errno;

		r = crs_error_set(e == ENOENT ? CRS_ENOTFOUND :
				  e == ELOOP ? CRS_EINPUT : CRS_ERR, "%s: %s",
				  path, e == ELOOP ? "a link inside the checkout "
				  "(links there are not followed)" :
				  strerror(e));
	}
out:
	if (parent >= 0)
		close(parent);
	close(rootfd);
	return r;
}

/* Is the open `fd` inside `root_real` (a resolved path)? */
static int ends_inside(int fd, const char *root_real)
{
	char link[64], target[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((n = readlink(link, target, sizeof(target) - 1)) < 0)
		return 0;
	target[n] = '\0';
	return below(target, root_real) != NULL;
}

int user_path_open(int *fd, const char *path, const char *tree)
{
	char *abs = lexical_absolute(path);
	char *tree_abs = tree ? lexical_absolute(tree) : NULL;
	char *tree_real = tree ? realpath(tree, NULL) : NULL;
	const char *rel = NULL;
	int r = 0;

	*fd = -1;
	if (tree_abs && (rel = below(abs, tree_abs)))
		r = open_beneath(fd, tree_abs, rel, path);
	else if (tree_real && (rel = below(abs, tree_real)))
		r = open_beneath(fd, tree_real, rel, path);
	else if ((*fd = open(path, OPEN_FLAGS)) < 0)
		r = crs_error_set(errno == ENOENT ? CRS_ENOTFOUND : CRS_ERR,
				  "%s: %s", path, strerror(errno));
	else if (tree_real && ends_inside(*fd, tree_real)) {
		close(*fd);
		*fd = -1;
		r = crs_error_set(CRS_EINPUT, "%s: reaches into %s through a "
				  "link; name it by its path there", path,
				  tree);
	}
	free(abs);
	free(tree_abs);
	free(tree_real);
	return r;
}
