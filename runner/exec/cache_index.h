/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cache_index.h - the --cache-dir index: entries, sizes, last use, LRU
 *
 * <cache>/index.json lists what the cache holds, one entry per saved
 * image or harness corpus, with its size in bytes and the time it was
 * last used (seconds since the epoch). It is hostile input (others can
 * write a CI cache); a missing index is an empty cache. Eviction drops
 * the least recently used entries until the total fits the cap.
 */
#ifndef CRS_RUNNER_EXEC_CACHE_INDEX_H
#define CRS_RUNNER_EXEC_CACHE_INDEX_H

#include <stddef.h>
#include <stdint.h>

struct cache_entry {
	char *name;		/* "image:<tag>" or "corpus:<project>/<harness>" */
	char *path;		/* relative to the cache dir: a file or folder */
	char *id;		/* an image's id; NULL for a corpus */
	char *base;		/* the pullable image its layers start from */
	int64_t size;		/* bytes */
	int64_t last_used;	/* seconds since the epoch */
};

struct cache_index {
	struct cache_entry *v;
	size_t nr, alloc;
	int dirty;		/* changed since loaded: write it back */
};
#define CACHE_INDEX_INIT { NULL, 0, 0, 0 }

/*
 * Read index.json of the cache folder `dirfd` (shown as `shown`) into
 * `ix` (empty when the file does not exist). It is hostile input: read
 * without following a link, at most 16 MiB and 100,000 entries. A file
 * that is not an index (not a regular file, bad JSON, wrong shape, a path
 * leaving the cache) is CRS_EINPUT naming the file and line or field, and
 * leaves `ix` empty.
 */
int cache_index_load(struct cache_index *ix, int dirfd, const char *shown);
/* Write `ix` as index.json in `dirfd` atomically (a temporary file
 * renamed over it: a link there is replaced, not followed). */
int cache_index_save(const struct cache_index *ix, int dirfd);
/* The entry called `name`, or NULL. Borrowed. */
struct cache_entry *cache_index_find(struct cache_index *ix,
				     const char *name);
/* The entry called `name`, added empty when missing. Borrowed. */
struct cache_entry *cache_index_put(struct cache_index *ix, const char *name);
/* Take the entry called `name` out of `ix`, if there. */
void cache_index_remove(struct cache_index *ix, const char *name);
/*
 * Mark `e` used at `now`. The index counts as changed only when the time
 * moves by at least `granularity` seconds, so that a CI cache whose
 * content is the same is not uploaded again for new times alone.
 */
void cache_index_touch(struct cache_index *ix, struct cache_entry *e,
		       int64_t now, int64_t granularity);
/* Sum of the entries' sizes. */
int64_t cache_index_size(const struct cache_index *ix);
/*
 * Take entries out of `ix`, least recently used first (the larger first
 * on equal times, then by name), until the total is at most `cap`. Each
 * removed entry's path is appended to `paths` (for the caller to delete).
 * Returns how many were removed.
 */
struct strvec;
size_t cache_index_evict(struct cache_index *ix, int64_t cap,
			 struct strvec *paths);
/* Free the entries; `ix` is empty and reusable. NULL-safe. */
void cache_index_release(struct cache_index *ix);

#endif
