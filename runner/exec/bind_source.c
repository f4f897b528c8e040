/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bind_source.c - refusing bind sources reached through a link
 *
 * The one check, right before every container is created, that no
 * bind source is reached through a link (docs/decisions.md, decision 10).
 *
 * Details: docs/work-folder.md; design notes: docs/internals.md.
 */
#include "runner/exec/bind_source.h"
#include "runner/scan/exec_ctx.h"
#include "common/fsutil.h"
#include "common/error.h"
#include "common/xalloc.h"
#include "common/testable.h"

#include <errno.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>

/* Length of `root` without trailing slashes, when `src` lies below it. */
static size_t below(const char *src, const char *root)
{
	size_t n = strlen(root);

	while (n > 1 && root[n - 1] == '/')
		n--;
	if (strncmp(src, root, n) || (src[n] != '/' && src[n] != '\0'))
		return 0;
	return n;
}

/* The host side of "host:ctr[:opts]"; caller frees. */
static char *bind_host(const char *bind)
{
	const char *colon = strchr(bind, ':');

	return colon ? xstrndup(bind, (size_t)(colon - bind)) : xstrdup(bind);
}

static int check_one(const char *src, size_t root_len)
{
	char *p = xstrdup(src);
	char *at = p + root_len;
	int r = 0;

	while (*at == '/' && r == 0) {
		char *next = strchr(at + 1, '/'), c = 0;
		struct stat st;
		size_t n = next ? (size_t)(next - at - 1) : strlen(at + 1);

		if (n == 0) {	/* "//" or a trailing "/" */
			if (!next)
				break;
			at = next;
			continue;
		}
		if ((n == 2 && !strncmp(at + 1, "..", 2)) ||
		    (n == 1 && at[1] == '.')) {
			r = crs_error_set(CRS_EINPUT, "bind source '%s': '.' "
					  "or '..' in its path", src);
			break;
		}
		if (next) {
			c = *next;
			*next = '\0';
		}
		if (lstat(p, &st) != 0) {
			if (errno != ENOENT)
				r = crs_error_set(CRS_ERR, "bind source '%s': "
						  "%s: %s", src, p,
						  strerror(errno));
			break;	/* missing: nothing below can be a link */
		}
		if (S_ISLNK(st.st_mode))
			r = crs_error_set(CRS_EINPUT, "bind source '%s': "
					  "'%s' is a link", src, p);
		else if (next && !S_ISDIR(st.st_mode))
			r = crs_error_set(CRS_EINPUT, "bind source '%s': "
					  "'%s' is not a folder", src, p);
		else if (!next && !S_ISDIR(st.st_mode) &&
			 !S_ISREG(st.st_mode))
			r = crs_error_set(CRS_EINPUT, "bind source '%s' is "
					  "neither a folder nor a regular "
					  "file", src);
		if (!next)
			break;
		*next = c;
		at = next;
	}
	free(p);
	return r;
}

CRS_TESTABLE int bind_source_check_roots(const char *const *roots,
			    const char *const *binds)
{
	int r = 0;

	for (; binds && *binds && r == 0; binds++) {
		char *src = bind_host(*binds);

		for (const char *const *root = roots; *root && r == 0; root++) {
			size_t n = below(src, *root);

			if (n)
				r = check_one(src, n);
		}
		free(src);
	}
	return r;
}

CRS_TESTABLE int bind_source_not_in(const char *cache,
				    const char *const *own,
				    const char *const *binds)
{
	int r = 0;

	for (; cache && binds && *binds && r == 0; binds++) {
		char *src = bind_host(*binds);
		int mine = 0;

		for (const char *const *o = own; *o; o++)
			mine |= below(src, *o) > 0;
		if (below(src, cache) && !mine)
			r = crs_error_set(CRS_EINPUT, "bind source '%s' lies "
					  "in --cache-dir %s, which is hostile "
					  "input: only copies of it are "
					  "given to containers", src, cache);
		free(src);
	}
	return r;
}

int bind_source_check(const struct exec_ctx *x, const char *const *binds)
{
	char *cache = x->cache_dir ?
		fs_abspath(x->cache_dir) : NULL;
	const char *roots[4] = { NULL };
	size_t n = 0;
	int r;

	if (x->work_dir)
		roots[n++] = x->work_dir;
	if (x->out_dir)
		roots[n++] = x->out_dir;
	if ((r = bind_source_not_in(cache, roots, binds)) == 0) {
		roots[n] = cache;
		r = bind_source_check_roots(roots, binds);
	}
	free(cache);
	return r;
}
