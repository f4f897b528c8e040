/* SPDX-License-Identifier: Apache-2.0 */
/*
 * corpus_store.h - a git storage repository of corpora (libgit2)
 *
 * ClusterFuzzLite's storage-repo: one branch of a repository (its own, or
 * the scanned one) holds corpus/<harness>/<sha1> files. A scan reads it
 * from the fetched objects, never from a checkout (so a link or a
 * submodule in it is an entry passed over, never followed); a batch run
 * on the default branch adds what it grew in one commit and pushes it.
 * Everything read from a store is hostile input (corpus_read.h's rules).
 */
#ifndef CRS_RUNNER_CORPUS_CORPUS_STORE_H
#define CRS_RUNNER_CORPUS_CORPUS_STORE_H

#include <stddef.h>

struct buf;
struct corpus_store;
struct corpus_sink;
struct corpus_count;

/* a store's folder of one harness with more entries than this is
 * refused (as an archive's) */
#define CORPUS_STORE_ENTRIES_MAX 200000

/*
 * Fetch branch `branch` of `url` (a path or a git URL) into a new bare
 * repository at `gitdir` (crs-ci's own; made here). With `token`, HTTPS
 * asks are answered with `user` (NULL: x-access-token) and it, once; a
 * token in the URL (https://user:TOKEN@host/...) also works, and neither
 * is ever shown. A branch the store
 * does not have yet is an empty store. *out is the caller's
 * (corpus_store_free). 0; CRS_ENOTFOUND when the store cannot be fetched
 * (the message names it, without credentials); CRS_ERR.
 */
int corpus_store_open(struct corpus_store **out, const char *url,
		      const char *branch, const char *gitdir,
		      const char *user, const char *token);

/* The store as messages show it: "<url without credentials>#<branch>". */
const char *corpus_store_shown(const struct corpus_store *st);

/*
 * Read corpus/<harness>/ of the branch's tip into `k`: blobs only (a
 * link, a submodule or a folder is passed over), each looked at by size
 * before it is read. Counts go to *c. 0 (nothing there is no error);
 * CRS_EINPUT when the folder has more than CORPUS_STORE_ENTRIES_MAX
 * entries (refused whole, nothing read); CRS_ERR.
 */
int corpus_store_read(struct corpus_store *st, const char *harness,
		      struct corpus_sink *k, struct corpus_count *c);

/*
 * Add the regular files of the folder `folder` (crs-ci's own) to
 * corpus/<harness>/ of the next commit, named by their SHA-1, those the
 * branch holds already left out; *added counts the new ones. 0 or CRS_ERR.
 */
int corpus_store_add(struct corpus_store *st, const char *harness, int folder,
		     size_t *added);

/*
 * As corpus_store_add, but corpus/<harness>/ of the next commit holds only
 * the files of `folder` (a prune's result): *kept counts them. 0 or
 * CRS_ERR.
 */
int corpus_store_replace(struct corpus_store *st, const char *harness,
			 int folder, size_t *kept);

/*
 * Commit what corpus_store_add added onto the branch's tip (with
 * `message`) and push it. Nothing added: nothing done. 0; CRS_ERR naming
 * the store (a push refused because the branch moved meanwhile says so).
 */
int corpus_store_push(struct corpus_store *st, const char *message);

/*
 * The blob at `path` ("coverage/history.json") of the branch's tip,
 * appended to `out`: 0; CRS_ENOTFOUND when there is none (or no branch);
 * CRS_EINPUT when it is no regular file of at most `max` bytes.
 */
int corpus_store_read_file(struct corpus_store *st, const char *path,
			   struct buf *out, size_t max);
/*
 * Set <dir>/<name> (one folder level) to `data` in the next commit that
 * corpus_store_push makes (which then pushes even without corpus
 * changes). 0 or CRS_ERR.
 */
int corpus_store_put_file(struct corpus_store *st, const char *dir,
			  const char *name, const void *data, size_t len);

void corpus_store_free(struct corpus_store *st);

#endif
