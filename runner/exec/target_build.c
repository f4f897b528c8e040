/* SPDX-License-Identifier: Apache-2.0 */
/*
 * target_build.c - the target at a commit, built by crs-ci itself
 *
 * The project image with a commit's tree laid over its WORKDIR, then
 * `compile`. Triage reproduces PoVs on these builds, never a CRS's.
 *
 * Details: docs/layouts.md; design notes: docs/internals.md.
 */
#include "runner/exec/target_build.h"
#include "runner/exec/base_images.h"
#include "runner/exec/build_group.h"
#include "runner/exec/container.h"
#include "runner/exec/container_policy.h"
#include "runner/scan/build_cache.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/exec/source_export.h"
#include "runner/config/config.h"
#include "runner/engine/docker.h"
#include "runner/scan/timings.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A WORKDIR we can safely put into a Dockerfile line and a bind path. */
static int workdir_ok(const char *wd)
{
	if (wd[0] != '/' || !wd[1] || strstr(wd, ".."))
		return 0;
	for (const char *p = wd; *p; p++)
		if (!(*p == '/' || *p == '_' || *p == '-' || *p == '.' ||
		      (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= 'A' && *p <= 'Z')))
			return 0;
	return 1;
}

/*
 * The rest of a source image's build context around its src/ folder:
 * proj/ (the project folder, refreshed every time: it is not versioned
 * with the source) and a Dockerfile laying src/ over the target image's
 * WORKDIR. `label` names the source in the Dockerfile's comment.
 */
static int write_context(struct scan *s, const char *ctx, const char *label)
{
	char *proj = xasprintf("%s/proj", ctx);
	char *df = xasprintf("%s/Dockerfile", ctx);
	struct buf d = BUF_INIT;
	char *wd = NULL;
	int r;

	if ((r = docker_image_workdir(s->docker, s->state.target_image,
				      &wd)) != 0)
		goto out;
	if (!workdir_ok(wd)) {
		r = crs_error_set(CRS_ECONFIG, "%s/Dockerfile: WORKDIR \"%s\" "
				  "is not a source folder to lay the change "
				  "over (set WORKDIR to it, e.g. $SRC/%s)",
				  s->project->dir, wd, s->project->name);
		goto out;
	}
	/* the base's context, built beside the head's build, finds the
	 * same WORKDIR: only a new one is written (build_group.h) */
	if (!s->state.repo_path || strcmp(s->state.repo_path, wd)) {
		free(s->state.repo_path);
		s->state.repo_path = xstrdup(wd);
	}
	if ((r = fs_remove_tree(proj)) != 0 ||
	    (r = fs_copy_tree(s->project->dir, proj)) != 0)
		goto out;
	buf_printf(&d, "# crs-ci: source of %s laid over the target\n"
		   "FROM %s\n"
		   "RUN rm -rf '%s' && mkdir -p '%s'\n"
		   "COPY src/ %s/\n"
		   "COPY proj/ /OSS_CRS_PROJ_PATH/\n"
		   "WORKDIR %s\n",
		   label, s->state.target_image, wd, wd, wd, wd);
	r = fs_write_file_atomic(df, d.ptr, d.len);
out:
	buf_release(&d);
	free(wd);
	free(proj);
	free(df);
	return r;
}

/*
 * The image of the build context folder `dir` (its `dockerfile`), tagged
 * crs-ci-target/<project>:<prefix><content hash> and cached by it.
 */
static int context_image(struct scan *s, const char *dir,
			 const char *dockerfile, const char *prefix,
			 const char *which, const struct compose_resources *res,
			 int offline, char **tag_out)
{
	struct docker_build_opts bo = DOCKER_BUILD_OPTS_INIT;
	char *tag = NULL, *log = NULL, *what = NULL, hash[65];
	int r;

	*tag_out = NULL;
	if ((r = fs_sha256_tree(hash, dir)) != 0)
		return r;
	if (*base_images_tag_seed(s)) {
		/* a stand-in build never answers for a pulled one */
		char *seed = xasprintf("%s\n%s", hash, base_images_tag_seed(s));

		sha256_hex(hash, seed, strlen(seed));
		free(seed);
	}
	tag = xasprintf("crs-ci-target/%s:%s%.12s", s->project->name, prefix,
			hash);
	log = scan_work_path(s, "logs/%s-image.log", which);
	what = xasprintf("%s image", which);
	bo.context_dir = dir;
	bo.dockerfile = dockerfile;
	bo.tag = tag;
	bo.log_path = log;
	bo.network = offline ? "none" : NULL;
	bo.cpuset = res->cpuset;
	bo.memory = res->memory_bytes;
	if ((r = image_build_cached(s, &bo, what)) == 0) {
		*tag_out = tag;
		tag = NULL; /* transferred */
	}
	free(tag);
	free(log);
	free(what);
	return r;
}

int target_context_image(struct scan *s, const char *ctx, const char *label,
			 const char *which, const struct compose_resources *res,
			 char **tag_out)
{
	int r;

	*tag_out = NULL;
	if ((r = write_context(s, ctx, label)) != 0)
		return r;
	/* our own Dockerfile: it only copies, so it needs no network */
	return context_image(s, ctx, "Dockerfile", "src-", which, res, 1,
			     tag_out);
}

/*
 * A ClusterFuzzLite project's context: the head commit's tree, exported
 * as every tree the scan builds (links stay links inside it, and the tar
 * of it follows none). When `proj_dir` is not the scan's own
 * .clusterfuzzlite/ (a CRS patched a copy of it), a copy of that tree
 * with proj_dir in its place. *ctx_out is the caller's.
 */
static int cfl_context(struct scan *s, const char *proj_dir,
		       const char *which, char **ctx_out)
{
	char *src = NULL, *ctx = NULL, *cfl = NULL;
	struct stat st;
	int r;

	*ctx_out = NULL;
	if ((r = target_source_dir(s, s->state.head_commit, &src)) != 0)
		return r;
	/* the commit's own folder and file, not links (the checkout's
	 * were checked by project_locate) */
	cfl = xasprintf("%s/.clusterfuzzlite", src);
	ctx = xasprintf("%s/Dockerfile", cfl);
	if (lstat(cfl, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    lstat(ctx, &st) != 0 || !S_ISREG(st.st_mode)) {
		r = crs_error_set(CRS_ECONFIG, "the head commit %.12s has no "
				  ".clusterfuzzlite/Dockerfile file (crs-ci "
				  "builds the commit, not the working "
				  "directory)", s->state.head_commit);
		goto out;
	}
	free(cfl);
	free(ctx);
	cfl = ctx = NULL;
	if (!strcmp(proj_dir, s->where.dir)) {
		*ctx_out = src;
		src = NULL; /* transferred */
		r = 0;
		goto out;
	}
	ctx = scan_work_path(s, "source/%s-context", which);
	cfl = xasprintf("%s/.clusterfuzzlite", ctx);
	if ((r = fs_remove_tree(ctx)) == 0 &&
	    (r = fs_copy_tree(src, ctx)) == 0 &&
	    (r = fs_remove_tree(cfl)) == 0 &&
	    (r = fs_copy_tree(proj_dir, cfl)) == 0) {
		*ctx_out = ctx;
		ctx = NULL; /* transferred */
	}
out:
	free(src);
	free(ctx);
	free(cfl);
	return r;
}

int target_image_build(struct scan *s, const char *proj_dir,
		       const char *which, const struct compose_resources *res,
		       int offline, char **tag_out)
{
	char *ctx = NULL;
	int r;

	*tag_out = NULL;
	if (s->where.layout != PROJECT_LAYOUT_CLUSTERFUZZLITE)
		return context_image(s, proj_dir, "Dockerfile", "", which, res,
				     offline, tag_out);
	if ((r = cfl_context(s, proj_dir, which, &ctx)) == 0)
		r = context_image(s, ctx, ".clusterfuzzlite/Dockerfile", "",
				  which, res, offline, tag_out);
	free(ctx);
	return r;
}

int target_source_dir(struct scan *s, const char *commit, char **src_out)
{
	char *ctx = scan_work_path(s, "source/%s", commit);
	char *src = xasprintf("%s/src", ctx);
	char *src_done = xasprintf("%s/.src-complete", ctx);
	int r = 0;

	*src_out = NULL;
	if (!fs_exists(src_done) &&
	    ((r = fs_remove_tree(src)) != 0 ||
	     (r = source_export(s->source_dir, commit, src)) != 0 ||
	     (r = fs_write_file_atomic(src_done, "", 0)) != 0))
		goto out;
	*src_out = src;
	src = NULL; /* transferred */
out:
	free(ctx);
	free(src);
	free(src_done);
	return r;
}

/* The cores and memory crs-ci's own builds get: the infra's, or their
 * share while builds run side by side (scan_shared_res). Cannot fail. */
static const struct compose_resources *target_build_res(const struct scan *s)
{
	const struct compose_resources *res = scan_shared_res();

	return res ? res : &s->compose->infra;
}

int target_source_image(struct scan *s, const char *commit,
			const char *which, char **tag_out)
{
	char *ctx = scan_work_path(s, "source/%s", commit), *src = NULL;
	int r;

	*tag_out = NULL;
	if ((r = target_source_dir(s, commit, &src)) == 0)
		r = target_context_image(s, ctx, commit, which,
					 target_build_res(s), tag_out);
	free(ctx);
	free(src);
	return r;
}

/* Keep the build in out/ in the cache as `key`; trouble is a warning.
 * Its container is gone: no one writes out/ while it is archived. */
static void keep(struct scan *s, const char *key, const char *out,
		 const char *which)
{
	if (build_cache_save(s, key, out) != 0) {
		log_warn("cache: the %s build is not kept: %s", which,
			 crs_error_last());
		crs_error_clear();
	}
}

void target_build_keep(struct scan *s, const char *sanitizer,
		       const char *which, const char *commit)
{
	char *out = scan_work_path(s, "builds/%s/%s/out", sanitizer, which);
	char key[65];

	if (!s->opts->cache_dir)
		goto out;
	if (build_cache_key(key, s, sanitizer, commit) != 0) {
		log_warn("cache: the %s build is not kept: %s", which,
			 crs_error_last());
		crs_error_clear();
	} else if (!build_cache_has(s, key)) {
		keep(s, key, out, which);
	}
out:
	free(out);
}

int target_compile_cached(struct scan *s, const char *image,
			  const char *sanitizer, const char *which,
			  const char *commit)
{
	char *dir = scan_work_path(s, "builds/%s/%s", sanitizer, which);
	char *out = xasprintf("%s/out", dir), *id = NULL, *marker = NULL;
	char key[65];
	int r, hit = 0;

	if ((r = docker_image_exists(s->docker, image, &id)) != 0)
		goto out;
	marker = xasprintf("%s/.built-%.19s", dir, id);
	if (!s->opts->cache_dir || fs_exists(marker)) {
		r = target_compile(s, image, sanitizer, which, NULL);
		goto out;
	}
	if ((r = build_cache_key(key, s, sanitizer, commit)) != 0 ||
	    (r = build_cache_restore(s, key, out, &hit)) != 0)
		goto out;
	if (hit) {
		log_info("%s build: restored from the cache (build %.12s of "
			 "%.12s), not compiled", which, key, commit);
		r = fs_write_file_atomic(marker, "", 0);
		goto out;
	}
	if ((r = target_compile(s, image, sanitizer, which, NULL)) == 0)
		keep(s, key, out, which);
out:
	free(dir);
	free(out);
	free(id);
	free(marker);
	return r;
}

void target_build_env(struct strvec *env, const struct scan *s,
		      const char *sanitizer)
{
	strvec_pushf(env, "SANITIZER=%s", sanitizer);
	strvec_push(env, "FUZZING_ENGINE=libfuzzer");
	strvec_push(env, "ARCHITECTURE=x86_64");
	strvec_pushf(env, "FUZZING_LANGUAGE=%s", s->state.language);
	strvec_pushf(env, "PROJECT_NAME=%s", s->state.project);
}

int target_compile(struct scan *s, const char *image, const char *sanitizer,
		   const char *which, const char *snapshot_ref)
{
	struct docker_run_opts ro = DOCKER_RUN_OPTS_INIT;
	struct strvec env = STRVEC_INIT, binds = STRVEC_INIT;
	char *dir = scan_work_path(s, "builds/%s/%s", sanitizer, which);
	char *out = xasprintf("%s/out", dir), *id = NULL, *marker = NULL;
	char *log = scan_work_path(s, "logs/%s-%s-build.log", which, sanitizer);
	char *span_name = NULL;
	static const char *const cmd[] = { "compile", NULL };
	const struct compose_resources *res = target_build_res(s);
	int r, code = -1, span;

	if ((r = docker_image_exists(s->docker, image, &id)) != 0)
		goto out;
	marker = xasprintf("%s/.built-%.19s", dir, id);
	if (fs_exists(marker) && (!snapshot_ref ||
	    docker_image_exists(s->docker, snapshot_ref, NULL) == 0)) {
		log_info("%s build: reusing %s", which, out);
		goto out;
	}
	if ((r = fs_remove_tree(out)) != 0 || (r = fs_mkdir_p(out)) != 0)
		goto out;
	target_build_env(&env, s, sanitizer);
	strvec_push(&env, "HELPER=True");
	/* `compile` sets no -j; build.sh's $(nproc) follows the cpuset */
	strvec_pushf(&env, "MAKEFLAGS=-j%u", build_group_cpus(res->cpuset));
	strvec_pushf(&binds, "%s:/out", out);
	ro.image = image;
	ro.cmd = cmd;
	ro.env = strvec_list(&env);
	ro.binds = strvec_list(&binds);
	ro.network = "none";
	ro.shm_size = 2LL << 30;
	ro.cpuset = res->cpuset;	/* our own work: infra, or its share */
	ro.memory = res->memory_bytes;
	container_policy_apply(&ro, ROLE_TARGET_BUILD);
	log_info("%s build: compiling %s with SANITIZER=%s", which,
		 s->state.project, sanitizer);
	crs_error_clear();	/* a missing snapshot */
	span_name = xasprintf("%s %s", which, sanitizer);
	span = timing_begin(s, "compile", span_name);
	r = container_run_commit(s, &ro, TARGET_BUILD_TIMEOUT_S, log,
				 snapshot_ref, &code);
	timing_end(s, span);
	if (r != 0)
		goto out;
	if (code != 0) {
		char *tail = log_tail(log, 15);

		r = crs_error_set(CRS_EBUILD, "the %s does not build (compile "
				  "exited %d; log %s):\n%s", which, code, log,
				  tail);
		free(tail);
		goto out;
	}
	r = fs_write_file_atomic(marker, "", 0);
out:
	strvec_release(&env);
	strvec_release(&binds);
	free(dir);
	free(out);
	free(id);
	free(marker);
	free(log);
	free(span_name);
	return r;
}

