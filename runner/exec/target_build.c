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
#include "runner/exec/build_record.h"
#include "runner/exec/container.h"
#include "runner/exec/container_policy.h"
#include "runner/exec/build_cache.h"
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

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

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
 * The project's Dockerfile as the user knows it (--project's, or
 * --source's .clusterfuzzlite/), for messages; NULL for `proj_dir`, a
 * copy a CRS patched. Caller frees.
 */
static char *user_dockerfile(const struct scan *s, const char *proj_dir)
{
	const char *src = s->opts ? s->opts->source : NULL;

	if (strcmp(proj_dir, s->where.dir))
		return NULL;
	if (s->where.layout != PROJECT_LAYOUT_CLUSTERFUZZLITE)
		return xasprintf("%s/Dockerfile", s->opts && s->opts->project ?
				 s->opts->project : s->where.dir);
	if (!src || !strcmp(src, "."))
		return xstrdup(".clusterfuzzlite/Dockerfile");
	return xasprintf("%s/.clusterfuzzlite/Dockerfile", src);
}

/*
 * The image of the build context folder `dir` (its `dockerfile`, which
 * messages call `shown` when not NULL), tagged
 * crs-ci-target/<project>:<prefix><content hash> and cached by it.
 */
static int context_image(struct scan *s, const char *dir,
			 const char *dockerfile, const char *shown,
			 const char *prefix, const char *which,
			 const struct compose_resources *res, int offline,
			 char **tag_out)
{
	struct docker_build_opts bo = DOCKER_BUILD_OPTS_INIT;
	char *tag = NULL, *log = NULL, *what = NULL, hash[65];
	int r;

	*tag_out = NULL;
	if ((r = fs_sha256_tree(hash, dir)) != 0)
		return r;
	if (*base_images_tag_seed(&s->exec, &s->state.base_seed)) {
		/* a stand-in build never answers for a pulled one */
		char *seed = xasprintf("%s\n%s", hash,
				       base_images_tag_seed(&s->exec,
							    &s->state.base_seed));

		sha256_hex(hash, seed, strlen(seed));
		free(seed);
	}
	tag = xasprintf("crs-ci-target/%s:%s%.12s", s->project->name, prefix,
			hash);
	log = scan_work_path(s, "logs/%s-image.log", which);
	what = xasprintf("%s image", which);
	bo.context_dir = dir;
	bo.dockerfile = dockerfile;
	bo.dockerfile_shown = shown;
	bo.tag = tag;
	bo.log_path = log;
	bo.network = offline ? "none" : NULL;
	bo.cpuset = res->cpuset;
	bo.memory = res->memory_bytes;
	if ((r = image_build_cached(&s->exec, &bo, what)) == 0) {
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
	return context_image(s, ctx, "Dockerfile", NULL, "src-", which, res, 1,
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
	char *ctx = NULL, *shown = user_dockerfile(s, proj_dir);
	int r;

	*tag_out = NULL;
	if (s->where.layout != PROJECT_LAYOUT_CLUSTERFUZZLITE)
		r = context_image(s, proj_dir, "Dockerfile", shown, "", which,
				  res, offline, tag_out);
	else if ((r = cfl_context(s, proj_dir, which, &ctx)) == 0)
		r = context_image(s, ctx, ".clusterfuzzlite/Dockerfile", shown,
				  "", which, res, offline, tag_out);
	free(ctx);
	free(shown);
	return r;
}

/*
 * What this process exported (struct scan's `exported`): one lock for
 * every scan, as the image table's (runner/scan/scan.c); the builds side
 * by side and the CRS sidecars ask for a commit's tree at once, and one
 * exports it while the others wait.
 */
static pthread_mutex_t exports_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t exports_cond = PTHREAD_COND_INITIALIZER;

/* The entry of `commit`, or NULL; under exports_lock. */
static struct scan_kv *export_find(struct scan *s, const char *commit)
{
	for (size_t i = 0; i < s->exported_nr; i++)
		if (!strcmp(s->exported[i].key, commit))
			return &s->exported[i];
	return NULL;
}

/*
 * <work>/source/<commit> made afresh, whatever was there (a folder a
 * pull request planted, with a marker and a tree of its own; a link is
 * removed, never followed), `commit`'s tree exported to its src/, and
 * that tree's hash in hash.
 */
static int export_fresh(struct scan *s, const char *commit, char hash[65])
{
	char *parent = scan_work_path(s, "source");
	char *ctx = xasprintf("%s/%s", parent, commit);
	char *src = xasprintf("%s/src", ctx);
	struct timespec t0, t1;
	struct stat st;
	int r;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* a folder name, from scan.json of a phase before: a commit id */
	if (strlen(commit) < 40 || strspn(commit, "0123456789abcdef") !=
	    strlen(commit)) {
		r = crs_error_set(CRS_EINPUT, "\"%.80s\" is not a commit id",
				  commit);
		goto out;
	}
	if (lstat(parent, &st) == 0 && !S_ISDIR(st.st_mode) &&
	    (r = fs_remove_tree(parent)) != 0)
		goto out;
	if ((r = fs_remove_tree(ctx)) != 0 || (r = fs_mkdir_p(parent)) != 0)
		goto out;
	if (mkdir(ctx, 0755) != 0) {
		r = crs_error_set(CRS_ERR, "mkdir '%s': %s", ctx,
				  strerror(errno));
		goto out;
	}
	if ((r = source_export(s->source_dir, commit, src)) != 0 ||
	    (r = fs_sha256_tree(hash, src)) != 0)
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	log_debug("source: %.12s exported and hashed in %.3f s (tree %.12s)",
		  commit, (double)(t1.tv_sec - t0.tv_sec) +
		  (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, hash);
out:
	free(parent);
	free(ctx);
	free(src);
	return r;
}

/*
 * target_source_dir's export of `commit` (done now if this process has
 * not yet), and the SHA-256 of the exported tree (fs_sha256_tree) in out:
 * what a build of the commit is compiled from.
 */
static int target_source_hash(struct scan *s, const char *commit,
			      char out[65])
{
	struct scan_kv *e;
	int r;

	pthread_mutex_lock(&exports_lock);
	while ((e = export_find(s, commit)) && !e->value)
		pthread_cond_wait(&exports_cond, &exports_lock);
	if (e) {
		memcpy(out, e->value, 65);
		pthread_mutex_unlock(&exports_lock);
		return 0;
	}
	s->exported = xrealloc(s->exported, st_mult(s->exported_nr + 1,
						    sizeof(*s->exported)));
	s->exported[s->exported_nr].key = xstrdup(commit);
	s->exported[s->exported_nr++].value = NULL;
	pthread_mutex_unlock(&exports_lock);

	r = export_fresh(s, commit, out);

	pthread_mutex_lock(&exports_lock);
	e = export_find(s, commit);
	if (r == 0) {
		e->value = xstrdup(out);
	} else {
		/* the next one asking tries again */
		free(e->key);
		*e = s->exported[--s->exported_nr];
	}
	pthread_cond_broadcast(&exports_cond);
	pthread_mutex_unlock(&exports_lock);
	return r;
}

int target_source_dir(struct scan *s, const char *commit, char **src_out)
{
	char hash[65];
	int r;

	*src_out = NULL;
	if ((r = target_source_hash(s, commit, hash)) == 0)
		*src_out = scan_work_path(s, "source/%s/src", commit);
	return r;
}

/* The cores and memory crs-ci's own builds get: the infra's, or their
 * share while builds run side by side (exec_shared_res). Cannot fail. */
static const struct compose_resources *target_build_res(const struct scan *s)
{
	const struct compose_resources *res = exec_shared_res();

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

int target_build_record(struct scan *s, const char *image,
			const char *commit, const char *sanitizer,
			char **id_out, char hash[65], struct build_record *rec)
{
	int r;

	*id_out = NULL;
	*rec = (struct build_record){ 0 };
	if ((r = docker_image_exists(s->docker, image, id_out)) != 0 ||
	    (r = target_source_hash(s, commit, hash)) != 0)
		return r;
	rec->image_id = *id_out;
	rec->sanitizer = sanitizer;
	rec->project = s->state.project;
	rec->source_hash = hash;
	rec->commit = commit;
	return 0;
}

/* Keep the build in out/ in the cache as `key`; trouble is a warning.
 * Its container is gone: no one writes out/ while it is archived. */
static void keep(struct scan *s, const char *key, const char *material,
		 const char *out, const char *which)
{
	if (build_cache_save(s, key, material, out) != 0) {
		log_warn("cache: the %s build is not kept: %s", which,
			 crs_error_last());
		crs_error_clear();
	}
}

void target_build_keep(struct scan *s, const char *sanitizer,
		       const char *which, const char *commit)
{
	char *out = scan_work_path(s, "builds/%s/%s/out", sanitizer, which);
	char *material = NULL, key[65], hash[65];

	if (!s->opts->cache_dir)
		goto out;
	if (target_source_hash(s, commit, hash) != 0 ||
	    build_cache_key(key, &material, s, sanitizer, commit,
			    hash) != 0) {
		log_warn("cache: the %s build is not kept: %s", which,
			 crs_error_last());
		crs_error_clear();
	} else if (!build_cache_has(s, key)) {
		keep(s, key, material, out, which);
	}
out:
	free(out);
	free(material);
}

int target_compile_cached(struct scan *s, const char *image,
			  const char *sanitizer, const char *which,
			  const char *commit)
{
	char *dir = scan_work_path(s, "builds/%s/%s", sanitizer, which);
	char *out = xasprintf("%s/out", dir), *id = NULL, *material = NULL;
	char key[65], hash[65];
	struct build_record rec;
	int r, hit = 0;

	if ((r = target_build_record(s, image, commit, sanitizer, &id, hash,
				 &rec)) != 0)
		goto out;
	if (!s->opts->cache_dir ||
	    build_record_matches(dir, BUILD_RECORD_OUT, &rec)) {
		r = target_compile(s, image, commit, sanitizer, which, NULL);
		goto out;
	}
	if ((r = build_record_remove(dir, BUILD_RECORD_OUT)) != 0 ||
	    (r = build_cache_key(key, &material, s, sanitizer, commit,
				 hash)) != 0 ||
	    (r = build_cache_restore(s, key, material, out, &hit)) != 0)
		goto out;
	if (hit) {
		log_info("%s build: restored from the cache (build %.12s of "
			 "%.12s), not compiled", which, key, commit);
		r = build_record_write(dir, BUILD_RECORD_OUT, &rec);
		goto out;
	}
	if ((r = target_compile(s, image, commit, sanitizer, which,
				NULL)) == 0)
		keep(s, key, material, out, which);
out:
	free(dir);
	free(out);
	free(id);
	free(material);
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
	/*
	 * Counter relocation lets a PoV replay in clang's continuous profile
	 * mode, so a crash or a hang keeps its coverage (pov_coverage.h).
	 * Through clang's driver, since the compile scripts of OSS-Fuzz's
	 * images and ours keep the coverage flags in different variables;
	 * "#" keeps the driver quiet, and link steps that see -mllvm
	 * unused do not fail a -Werror build.
	 */
	if (!strcmp(sanitizer, "coverage"))
		strvec_push(env, "CCC_OVERRIDE_OPTIONS=# +-mllvm "
			    "+-runtime-counter-relocation "
			    "+-Wno-unused-command-line-argument");
}

int target_compile(struct scan *s, const char *image, const char *commit,
		   const char *sanitizer, const char *which,
		   const char *snapshot_ref)
{
	struct docker_run_opts ro = DOCKER_RUN_OPTS_INIT;
	struct strvec env = STRVEC_INIT, binds = STRVEC_INIT;
	char *dir = scan_work_path(s, "builds/%s/%s", sanitizer, which);
	char *out = xasprintf("%s/out", dir), *id = NULL;
	char *log = scan_work_path(s, "logs/%s-%s-build.log", which, sanitizer);
	char *span_name = NULL, hash[65];
	struct build_record rec;
	static const char *const cmd[] = { "compile", NULL };
	const struct compose_resources *res = target_build_res(s);
	int r, code = -1, span;

	if ((r = target_build_record(s, image, commit, sanitizer, &id, hash,
				 &rec)) != 0)
		goto out;
	if (build_record_matches(dir, BUILD_RECORD_OUT, &rec) &&
	    (!snapshot_ref ||
	     docker_image_exists(s->docker, snapshot_ref, NULL) == 0)) {
		log_info("%s build: reusing %s", which, out);
		goto out;
	}
	/* out/ is no build until the record says it is */
	if ((r = build_record_remove(dir, BUILD_RECORD_OUT)) != 0 ||
	    (r = fs_remove_tree(out)) != 0 || (r = fs_mkdir_p(out)) != 0)
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
	r = container_run_commit(&s->exec, &ro, TARGET_BUILD_TIMEOUT_S, log,
				 snapshot_ref, &code);
	timing_end(s, span);
	if (r != 0)
		goto out;
	if (code != 0) {
		char *tail = log_tail(log, 15, LOG_TAIL_CAP);

		r = crs_error_set(CRS_EBUILD, "the %s does not build (compile "
				  "exited %d; log %s):\n%s", which, code, log,
				  tail);
		free(tail);
		goto out;
	}
	r = build_record_write(dir, BUILD_RECORD_OUT, &rec);
out:
	strvec_release(&env);
	strvec_release(&binds);
	free(dir);
	free(out);
	free(id);
	free(log);
	free(span_name);
	return r;
}

