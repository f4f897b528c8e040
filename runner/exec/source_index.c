/* SPDX-License-Identifier: Apache-2.0 */
/*
 * source_index.c - a source tree's files found by the end of their path
 */
#include "runner/exec/source_index.h"
#include "common/error.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SOURCE_INDEX_DEPTH_MAX 64

static int ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), m = strlen(end);

	return n >= m && !strcmp(s + n - m, end);
}

static int walk(struct source_index *idx, const char *root, const char *rel,
		const char *ext, int depth)
{
	char *dir = *rel ? xasprintf("%s/%s", root, rel) : xstrdup(root);
	DIR *d = opendir(dir);
	struct dirent *de;
	int r = 0;

	if (!d) {
		r = crs_error_set(CRS_ERR, "%s: %s", dir, strerror(errno));
		free(dir);
		return r;
	}
	while (r == 0 && (de = readdir(d)) != NULL) {
		char *path, *sub;
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, ".git"))
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		sub = *rel ? xasprintf("%s/%s", rel, de->d_name) :
			xstrdup(de->d_name);
		if (lstat(path, &st) != 0) {
			/* gone meanwhile: nothing to index */
		} else if (S_ISDIR(st.st_mode) &&
			   depth < SOURCE_INDEX_DEPTH_MAX) {
			r = walk(idx, root, sub, ext, depth + 1);
		} else if (S_ISREG(st.st_mode) && ends_with(sub, ext)) {
			ALLOC_GROW(idx->paths, idx->nr + 1, idx->alloc);
			idx->paths[idx->nr++] = sub;
			sub = NULL;	/* kept */
		}
		free(path);
		free(sub);
	}
	closedir(d);
	free(dir);
	return r;
}

int source_index_build(struct source_index *idx, const char *root,
		       const char *ext)
{
	int r = walk(idx, root, "", ext, 0);

	if (r != 0) {
		source_index_release(idx);
		return r;
	}
	strvec_sort(idx->paths, idx->nr);
	return 0;
}

const char *source_index_find(const struct source_index *idx,
			      const char *suffix)
{
	const char *found = NULL;
	size_t m = strlen(suffix);

	for (size_t i = 0; i < idx->nr; i++) {
		const char *p = idx->paths[i];
		size_t n = strlen(p);

		if (!strcmp(p, suffix) ||
		    (n > m && p[n - m - 1] == '/' && !strcmp(p + n - m,
							    suffix))) {
			if (found)
				return NULL;	/* ambiguous */
			found = p;
		}
	}
	return found;
}

void source_index_release(struct source_index *idx)
{
	for (size_t i = 0; i < idx->nr; i++)
		free(idx->paths[i]);
	free(idx->paths);
	memset(idx, 0, sizeof(*idx));
}
