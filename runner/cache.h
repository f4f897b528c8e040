/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cache.h - what one CI run leaves for the next (--cache-dir)
 *
 * CI systems carry a folder between runs (actions/cache, GitLab cache:).
 * crs-ci keeps two things there: the images a scan used (one docker save
 * archive plus an index of tag -> image id) and each harness's corpus.
 * Everything is optional: without --cache-dir these do nothing.
 */
#ifndef CRS_RUNNER_CACHE_H
#define CRS_RUNNER_CACHE_H

struct scan;

/* Load the saved images when any indexed one is missing from the engine. */
int cache_restore_images(struct scan *s);
/* Save the scan's images when they differ from what the cache holds. */
int cache_save_images(struct scan *s);
/* Copy the cached corpus of harness `h` into `seeds_dir` (the exchange). */
int cache_corpus_in(struct scan *s, const char *h, const char *seeds_dir);
/* Add the seeds the CRSs shared for `h` to the cached corpus. */
int cache_corpus_out(struct scan *s, const char *h, const char *seeds_dir);

#endif
