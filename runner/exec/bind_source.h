/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bind_source.h - the one check every bind source passes before use
 */
#ifndef CRS_RUNNER_EXEC_BIND_SOURCE_H
#define CRS_RUNNER_EXEC_BIND_SOURCE_H

struct exec_ctx;

#ifdef UNIT_TESTS
/*
 * Check the host side of each "host:ctr[:opts]" in `binds` (NULL-
 * terminated; NULL is none). A source that lies below one of `roots`
 * (NULL-terminated: crs-ci's work and output folders) must reach its
 * place through real folders only: every component below the root is
 * lstat'ed right now, and a link (or "..") anywhere there, a non-folder
 * on the way, or a last component that is neither a folder nor a
 * regular file is refused with CRS_EINPUT naming both. A missing tail
 * is allowed (the engine makes it; nothing below it can be a link).
 * Sources outside every root (the project) are the user's.
 */
int bind_source_check_roots(const char *const *roots,
			    const char *const *binds);
/*
 * CRS_EINPUT naming the bind when a source lies below `cache` (NULL:
 * none) and below none of `own` (NULL-terminated: the work and output
 * folders): the cache is hostile input, containers get copies only.
 */
int bind_source_not_in(const char *cache, const char *const *own,
		       const char *const *binds);
#endif

/* No bind source in --cache-dir (bind_source_not_in), then
 * bind_source_check_roots with x's work, output and cache
 * folders. */
int bind_source_check(const struct exec_ctx *x, const char *const *binds);

#endif
