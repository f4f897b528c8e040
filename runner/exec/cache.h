/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cache.h - what one CI run leaves for the next (--cache-dir)
 *
 * CI systems carry a folder between runs (actions/cache, GitLab cache:).
 * crs-ci keeps two things there: the images it built for a scan (one
 * archive each, without the layers of the pullable base image) and each
 * harness's corpus, listed in an index with sizes and last-use times,
 * capped by --cache-max (least recently used evicted first). Everything
 * is optional: without --cache-dir these do nothing. Docs: docs/cache.md.
 */
#ifndef CRS_RUNNER_EXEC_CACHE_H
#define CRS_RUNNER_EXEC_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* --cache-max when not given: 2 GiB */
#define CACHE_MAX_DEFAULT ((int64_t)2 << 30)

/* the scan, not an exec_ctx: its image tags and harnesses */
struct scan;

/* Load each cached image the engine lacks (its base image made ready
 * first). A cache that cannot be read or loaded is a warning: the image
 * is built instead. Returns 0. */
int cache_restore_images(struct scan *s);
/* Save the images crs-ci built for this scan that the cache lacks, mark
 * the rest and the scan's corpora used, evict to the cap, and log one
 * line with the cache's size. CRS_ERR when the index cannot be written;
 * an image that cannot be saved is a warning. */
int cache_save_images(struct scan *s);
/*
 * Copy the cached corpus of harness `h` (regular files only, capped) into
 * a folder made fresh for this scan, <work>/cache-corpus/<h>: what a
 * container may be given instead of anything below the cache. *dir_out
 * gets its path (the caller frees) when it holds files, else NULL.
 */
int cache_corpus_stage(struct scan *s, const char *h, char **dir_out);
/* Copy the cached corpus of harness `h` into `seeds_dir` (the exchange). */
int cache_corpus_in(struct scan *s, const char *h, const char *seeds_dir);
/* Add the seeds the CRSs shared for `h` to the cached corpus. */
int cache_corpus_out(struct scan *s, const char *h, const char *seeds_dir);

/*
 * The cache folder (*root, opened once per scan) and its index into `ix`;
 * a bad index is a warning and an empty cache. CRS_EINPUT when
 * --cache-dir is a link. Shared by the image and the build caches.
 */
struct cache_index;
int cache_index_open(struct scan *s, struct cache_index *ix, int *root);

#endif
