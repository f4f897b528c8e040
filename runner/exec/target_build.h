/* SPDX-License-Identifier: Apache-2.0 */
/*
 * target_build.h - crs-ci's own builds of the target at a commit
 */
#ifndef CRS_RUNNER_EXEC_TARGET_BUILD_H
#define CRS_RUNNER_EXEC_TARGET_BUILD_H

/* the scan, not an exec_ctx: its images, commits, exported sources */
struct scan;
struct compose_resources;

/* A build (ours or a CRS build step) that runs longer than this failed. */
#define TARGET_BUILD_TIMEOUT_S 1800.0

/*
 * The target image: the project folder `proj_dir` (s->where.dir, or a
 * CRS's patched copy of it) built with its Dockerfile, tagged
 * crs-ci-target/<project>:<content hash> and cached by it; log
 * <work>/logs/<which>-image.log. *tag_out is the caller's. Its RUN lines
 * get res's cpuset and memory, and no network when `offline` (a project
 * folder a CRS changed). OSS-Fuzz layout: proj_dir is the context.
 * ClusterFuzzLite layout: the context is the tree of
 * s->state.head_commit, with proj_dir as its .clusterfuzzlite/, and the
 * Dockerfile .clusterfuzzlite/Dockerfile.
 */
int target_image_build(struct scan *s, const char *proj_dir,
		       const char *which, const struct compose_resources *res,
		       int offline, char **tag_out);

/*
 * The target image (s->state.target_image) with `commit`'s tree laid over
 * its WORKDIR and the project folder at /OSS_CRS_PROJ_PATH; sets
 * s->state.repo_path. `which` names it in progress lines ("head").
 * *tag_out is the caller's. Cached by the content of the build context.
 */
int target_source_image(struct scan *s, const char *commit, const char *which,
			char **tag_out);

/*
 * <work>/source/<commit>/src: `commit`'s tree checked out into a fresh
 * folder, once per commit and process (whatever the work folder held
 * there before is removed, never trusted: a marker or a tree a pull
 * request committed there means nothing). *src_out is the caller's.
 */
int target_source_dir(struct scan *s, const char *commit, char **src_out);


/*
 * The image of a build context folder `ctx` whose src/ the caller filled
 * (a commit's tree, or a patched copy of it): the project folder is
 * copied to ctx/proj and a Dockerfile written that lays src/ over the
 * target image's WORKDIR (and proj/ at /OSS_CRS_PROJ_PATH); sets
 * s->state.repo_path. Tagged and cached by the context's content hash.
 * `label` names the source in the Dockerfile, `which` in progress lines
 * and the log <work>/logs/<which>-image.log. Built without network, in
 * res's cpuset and memory. *tag_out is the caller's.
 */
int target_context_image(struct scan *s, const char *ctx, const char *label,
			 const char *which, const struct compose_resources *res,
			 char **tag_out);

struct build_record;
/*
 * The record (runner/exec/build_record.h) of a build of `image` (its id
 * in *id_out, the caller's) from `commit`'s exported tree (exported now
 * if this process has not yet, as target_source_dir; its hash in hash)
 * with `sanitizer`, for this scan's project; rec's fields point into
 * *id_out, hash, s and the arguments. Errors: the engine's, the export's.
 */
int target_build_record(struct scan *s, const char *image,
			const char *commit, const char *sanitizer,
			char **id_out, char hash[65], struct build_record *rec);

/*
 * Run `compile` in `image` (the source image of `commit`) with
 * SANITIZER=sanitizer (address, undefined, memory, coverage) into
 * <work>/builds/<sanitizer>/<which>/out, on the compose's infra cpuset
 * and memory (target_build_res), without network, MAKEFLAGS=-j<CPUs of
 * that cpuset>. Skipped when out/'s record (runner/exec/build_record.h)
 * names exactly this build: the image's id, the sanitizer, the project,
 * the hash of the commit's exported tree and the commit; the record is
 * removed before the compile and written after it succeeded. CRS_EBUILD
 * with the log's tail when the build fails. With `snapshot_ref` (may be
 * NULL) the build's container is committed as that image
 * (runner/exec/snapshot.h), and the build is not skipped while that image
 * is missing.
 */
int target_compile(struct scan *s, const char *image, const char *commit,
		   const char *sanitizer, const char *which,
		   const char *snapshot_ref);

/*
 * target_compile of `commit` (its source image `image`), kept in and
 * restored from --cache-dir (runner/exec/build_cache.h): a build the
 * cache holds under the same key (the hash of the exported tree, the
 * commit's tree, images, sanitizer), and whose archive says so, is
 * unpacked into out/ instead of compiled (and recorded as target_compile
 * records), and a build compiled here is kept for the next scan. Without --cache-dir, target_compile. Errors as
 * target_compile; the cache's own trouble is a warning.
 */
int target_compile_cached(struct scan *s, const char *image,
			  const char *sanitizer, const char *which,
			  const char *commit);

/*
 * Keep the build of `commit` in <work>/builds/<sanitizer>/<which>/out
 * (compiled by target_compile from the commit's source image) in --cache-dir
 * under the key target_compile_cached looks for, unless the cache has
 * it: the head of a pull request is often the base of the next one.
 * Nothing without --cache-dir; trouble is a warning. Cannot fail.
 */
void target_build_keep(struct scan *s, const char *sanitizer,
		       const char *which, const char *commit);

struct strvec;
/* The OSS-Fuzz build variables (SANITIZER, FUZZING_ENGINE, ARCHITECTURE,
 * FUZZING_LANGUAGE, PROJECT_NAME) for this scan. Cannot fail. */
void target_build_env(struct strvec *env, const struct scan *s,
		      const char *sanitizer);

#endif
