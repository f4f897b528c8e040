/* SPDX-License-Identifier: Apache-2.0 */
/*
 * build_cache.h - a revision's build output kept in --cache-dir
 *
 * The next pull request on the same base needs the same base build:
 * crs-ci keeps its out/ folder in the cache (entry "build:<key>",
 * builds/<key>.tar, capped and evicted with the rest: cache.h) and
 * restores it instead of compiling. Docs: docs/cache.md.
 */
#ifndef CRS_RUNNER_EXEC_BUILD_CACHE_H
#define CRS_RUNNER_EXEC_BUILD_CACHE_H

/* the scan, not an exec_ctx: its project, language, image key it */
struct scan;

/*
 * The key of building `commit` with `sanitizer`: SHA-256 of its material,
 * the text naming the commit's tree id, `source_hash` (SHA-256 of the
 * exported tree that was compiled: fs_sha256_tree of the folder this
 * process exported, runner/exec/target_build.h), the project folder's
 * content, the target image's id, the sanitizer, the language, the
 * fuzzing engine and the base images in use (what the commit's source
 * image and its `compile` are made of), as 64 hex digits in out; the
 * material in *material_out (the caller's). A tree, not a commit: a merge
 * that leaves a pull request's tree as it was keeps its key. CRS_EINPUT
 * when the commit has no tree, CRS_ENOTFOUND when the target image is
 * missing.
 */
int build_cache_key(char out[65], char **material_out, struct scan *s,
		    const char *sanitizer, const char *commit,
		    const char *source_hash);

/*
 * When the cache holds the build `key`, and its archive says it was kept
 * for `material` (build_cache_key's), replace `out_dir` with it and set
 * *hit: only regular files (permission bits without setuid/setgid) and
 * folders are restored, never a link, a device or a FIFO, nor a name
 * with "..". *hit = 0 without --cache-dir or when the cache lacks it.
 * An archive that cannot be read, or kept for other material, is a
 * warning and a miss. Marks the entry used. Returns 0, or an error
 * writing out_dir.
 */
int build_cache_restore(struct scan *s, const char *key,
			const char *material, const char *out_dir, int *hit);

/* 1 when --cache-dir holds the build `key` (its archive exists). */
int build_cache_has(struct scan *s, const char *key);

/*
 * Keep `out_dir` (a build's output, written by the build's container: it
 * is read without following links) in the cache as build `key`, its
 * archive starting with `material`, which restore checks. Nothing
 * without --cache-dir. A build larger than the cache's cap is not kept.
 * Returns 0 or the error (the caller may warn and go on).
 */
int build_cache_save(struct scan *s, const char *key, const char *material,
		     const char *out_dir);

#endif
