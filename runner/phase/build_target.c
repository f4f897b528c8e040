/* SPDX-License-Identifier: Apache-2.0 */
/*
 * build_target.c - the build-target phase
 *
 * Target image, head and base images and builds, CRS build steps and
 * run module images; each step keyed by a content hash.
 *
 * Details: docs/cmd/build-target.md; design notes: docs/internals.md.
 */
#include "runner/phase/phase.h"
#include "runner/exec/base_images.h"
#include "runner/exec/build_group.h"
#include "runner/exec/build_record.h"
#include "runner/exec/container.h"
#include "runner/exec/container_policy.h"
#include "runner/exec/crs_image.h"
#include "runner/exec/snapshot.h"
#include "runner/exec/target_build.h"
#include "runner/exec/images.h"
#include "runner/exec/crs_env.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/exec/source_export.h"
#include "runner/scan/change_file.h"
#include "runner/config/config.h"
#include "runner/engine/docker.h"
#include "runner/scan/timings.h"
#include "diff/changeset.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *pick_sanitizer(const struct project_config *p)
{
	for (size_t i = 0; i < p->sanitizers_nr; i++)
		if (!strcmp(p->sanitizers[i], "address"))
			return "address";
	return p->sanitizers_nr ? p->sanitizers[0] : "address";
}

static int build_target_image(struct scan *s)
{
	char *tag = NULL;
	/* network: a project Dockerfile installs packages and clones
	 * sources (an OSS-Fuzz folder is the user's configuration; a
	 * ClusterFuzzLite Dockerfile is the head's, built as ClusterFuzzLite
	 * builds it: docs/layouts.md) */
	int r = target_image_build(s, s->where.dir, "target",
				   &s->compose->infra, 0, &tag);

	if (r == 0) {
		free(s->state.target_image);
		s->state.target_image = tag;
	}
	return r;
}

/*
 * Executables in out/ that are libFuzzer harnesses (clusterfuzzlite §5.4).
 * out/ is what the pull request's build wrote: each file is looked at
 * through the folder's descriptor (no link, no FIFO).
 */
static int is_harness(int dfd, const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	struct buf b = BUF_INIT;
	struct stat st;
	int yes = 0;

	for (const char *p = name; *p; p++)
		if (!(*p == '_' || *p == '-' || (*p >= '0' && *p <= '9') ||
		      (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			goto out;
	if (!strcmp(name, "llvm-symbolizer") || !strncmp(name, "afl-", 4) ||
	    !strncmp(name, "jazzer_driver", 13))
		goto out;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !S_ISREG(st.st_mode) || !(st.st_mode & 0111))
		goto out;
	if (fs_read_regular_at(&b, dfd, name, path, 512u << 20,
			       NULL) != 0) {
		crs_error_clear();
		goto out;
	}
	yes = memmem(b.ptr, b.len, "LLVMFuzzerTestOneInput", 22) != NULL;
out:
	buf_release(&b);
	free(path);
	return yes;
}

static int find_harnesses(struct scan *s, const char *out_dir)
{
	const struct scan_opts *o = s->opts;
	int dfd = open(out_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		       O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *de;
	struct strvec found = STRVEC_INIT;
	struct buf list = BUF_INIT;
	int r = 0;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return crs_error_set(CRS_EBUILD, "%s: cannot read the build "
				     "output", out_dir);
	}
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' &&
		    is_harness(dfd, out_dir, de->d_name))
			strvec_push(&found, de->d_name);
	closedir(d);
	strvec_sort(found.v, found.nr);
	for (size_t i = 0; i < found.nr; i++)
		buf_printf(&list, "%s%s", i ? ", " : "", found.v[i]);
	if (!found.nr) {
		r = crs_error_set(CRS_EBUILD, "the head build produced no fuzz "
				  "harness in %s", out_dir);
		goto out;
	}
	for (size_t i = 0; i < s->state.harnesses_nr; i++)
		free(s->state.harnesses[i]);
	free(s->state.harnesses);
	s->state.harnesses = NULL;
	s->state.harnesses_nr = 0;
	for (size_t i = 0; i < (o->harnesses_nr ? o->harnesses_nr : found.nr); i++) {
		const char *h = o->harnesses_nr ? o->harnesses[i] : found.v[i];
		int ok = 0;

		for (size_t k = 0; k < found.nr; k++)
			ok |= !strcmp(found.v[k], h);
		if (!ok) {
			r = crs_error_set(CRS_EINPUT, "--harness: '%s' is not "
					  "in the build (found: %s)", h, list.ptr);
			goto out;
		}
		s->state.harnesses = xrealloc(s->state.harnesses,
			st_mult(s->state.harnesses_nr + 1, sizeof(char *)));
		s->state.harnesses[s->state.harnesses_nr++] = xstrdup(h);
	}
	log_info("harnesses in the build: %s", list.ptr);
out:
	buf_release(&list);
	strvec_release(&found);
	return r;
}

/*
 * The head's source image, before anything that builds on it; its build
 * (build_head) runs beside the others.
 */
static int head_image(struct scan *s)
{
	free(s->state.head_image);
	s->state.head_image = NULL;
	return target_source_image(s, s->state.head_commit, "head",
				   &s->state.head_image);
}

/* What the builds beside each other hand back to the phase. */
struct builds {
	char *head_snap;	/* the head build's snapshot ref */
	char *base_image;	/* the base's source image, NULL if none */
	/* the head build's end, which the coverage build waits for */
	pthread_mutex_t lock;
	pthread_cond_t head_cond;
	int head_done;		/* 1 built, -1 failed */
};

/* The head build ended (ok or not): wake the coverage build. */
static void head_ended(struct builds *b, int ok)
{
	pthread_mutex_lock(&b->lock);
	b->head_done = ok ? 1 : -1;
	pthread_cond_broadcast(&b->head_cond);
	pthread_mutex_unlock(&b->lock);
}

/*
 * The head, built by crs-ci; the build's container is kept as the
 * snapshot that patched rebuilds start from (runner/exec/snapshot.h).
 */
static int build_head(struct scan *s, void *arg)
{
	struct builds *b = arg;
	char *out = NULL;
	int r = target_compile(s, s->state.head_image, s->state.head_commit,
			       s->state.sanitizer, "head", b->head_snap);

	if (r == 0) {
		/* s->state.harnesses: this build's alone until it ends */
		out = scan_work_path(s, "builds/%s/head/out",
				     s->state.sanitizer);
		r = find_harnesses(s, out);
	}
	head_ended(b, r == 0);
	/* once merged, this head is the next pull request's base */
	if (r == 0)
		target_build_keep(s, s->state.sanitizer, "head",
				  s->state.head_commit);
	free(out);
	return r;
}

/*
 * The base build tells a bug the change introduced from one it found.
 * A base that does not build is not an error of the scan: novelty is
 * then unknown, and the report says so.
 */
static int build_base(struct scan *s, void *arg)
{
	struct builds *b = arg;
	char *tag = NULL;
	int r;

	if ((r = target_source_image(s, s->state.base_commit, "base",
				     &tag)) == 0 &&
	    (r = target_compile_cached(s, tag, s->state.sanitizer, "base",
				       s->state.base_commit)) == 0) {
		b->base_image = tag;
		return 0;
	}
	free(tag);
	if (r == CRS_EINTR || r == CRS_EENGINE)
		return r;
	log_warn("base %.12s does not build, so no finding can be told new "
		 "or pre-existing: %s", s->state.base_commit, crs_error_last());
	crs_error_clear();
	return 0;
}

/*
 * The head with SANITIZER=coverage, which select replays seeds on to
 * choose among harnesses and the coverage step replays the final corpus
 * on (runner/phase/change_coverage.c): built here, beside the others, so
 * both find it done. It waits for the head build (a head that does not
 * build needs no coverage build). Its failure is theirs to report.
 */
static int build_coverage(struct scan *s, void *arg)
{
	struct builds *b = arg;
	int done, r;

	pthread_mutex_lock(&b->lock);
	while (!(done = b->head_done) && !scan_interrupted(s)) {
		struct timespec t;

		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_sec++;
		pthread_cond_timedwait(&b->head_cond, &b->lock, &t);
	}
	pthread_mutex_unlock(&b->lock);
	if (done != 1)
		return 0;
	r = target_compile(s, s->state.head_image, s->state.head_commit,
			   "coverage", "head", NULL);
	if (r == 0 || r == CRS_EINTR || r == CRS_EENGINE)
		return r;
	log_warn("head build with SANITIZER=coverage failed: %s",
		 crs_error_last());
	crs_error_clear();
	return 0;
}

static int check_outputs(const struct manifest_build_step *b, const char *dir,
			 const char *crs)
{
	for (size_t i = 0; i < b->outputs_nr; i++) {
		const char *o = b->outputs[i];
		const char *slash = strrchr(o, '/');
		char *p = xasprintf("%s/%s", dir, o);
		char *skip = slash ?
			xasprintf("%s/%.*s/.%s.skip", dir, (int)(slash - o), o,
				  slash + 1) :
			xasprintf("%s/.%s.skip", dir, o);
		int ok = fs_exists(p) || fs_exists(skip);

		free(p);
		free(skip);
		if (!ok)
			return crs_error_set(CRS_EBUILD, "CRS %s build step "
					     "'%s' did not produce output '%s'",
					     crs, b->name, o);
	}
	return 0;
}

static int crs_build_step(struct scan *s, const struct compose_crs *c,
			  const struct manifest_build_step *b)
{
	struct docker_run_opts ro = DOCKER_RUN_OPTS_INIT;
	struct strvec env = STRVEC_INIT, binds = STRVEC_INIT;
	struct crs_env_args ea = { .phase = CRSENV_BUILD_TARGET, .crs = c,
				   .layer = &b->env };
	char *tag = NULL, *log = NULL, *what = NULL, *id = NULL, *bid = NULL;
	char fetch_hash[65] = "no-inputs", src_hash[65], proj_hash[65];
	char *outdir = NULL, *record = NULL, *fetch = NULL, *src = NULL;
	char *built = NULL, *step = NULL;
	char *snap = NULL;
	struct build_record rec;
	int r, code = -1, span;

	what = xasprintf("CRS %s build step %s", c->name, b->name);
	log = scan_work_path(s, "logs/build-%s-%s.log", c->name, b->name);
	if ((r = crs_image_build(s, c, "builder", b->name, b->dockerfile, 1,
			      &tag)) != 0 ||
	    /* the builder's id, the head's exported tree (it reads that) */
	    (r = target_build_record(s, tag, s->state.head_commit,
				     s->state.sanitizer, &id, src_hash,
				     &rec)) != 0 ||
	    /* and the project folder */
	    (r = fs_sha256_tree(proj_hash, s->project->dir)) != 0)
		goto out;
	{
		char *key = xasprintf("%s/build/%s", c->name, b->name);

		scan_set_image(s, key, tag);
		free(key);
	}
	outdir = scan_work_path(s, "builds/%s/crs/%s/BUILD_OUT_DIR",
				s->state.sanitizer, c->name);
	if (s->change || s->opts->sarifs_nr) {
		fetch = scan_work_path(s, "builds/%s/FETCH_DIR",
				       s->state.sanitizer);
		/* the inputs are part of what the step built from */
		if ((r = fs_sha256_tree(fetch_hash, fetch)) != 0)
			goto out;
	}
	step = xasprintf("%s/%s", c->name, b->name);
	rec.step = step;
	rec.fetch_hash = fetch_hash;
	rec.project_hash = proj_hash;
	/* beside BUILD_OUT_DIR, not in it: the step's container writes there */
	built = scan_work_path(s, "builds/%s/crs/%s/built", s->state.sanitizer,
			       c->name);
	record = xasprintf("%s.json", b->name);
	/* the step's container, kept for rebuilds (runner/exec/snapshot.h) */
	snap = snapshot_step_ref(c->name, b->name, s->state.sanitizer, id,
				 fetch_hash);
	if (build_record_matches(built, record, &rec) &&
	    docker_image_exists(s->docker, snap, NULL) == 0) {
		snapshot_step_record(s, c->name, b->name, snap);
		log_info("%s: reusing its outputs", what);
		r = check_outputs(b, outdir, c->name);
		goto out;
	}
	crs_error_clear();	/* a missing snapshot */
	/* the outputs go, and with them every step's record of them */
	if ((r = fs_remove_tree(built)) != 0 ||
	    (r = fs_remove_tree(outdir)) != 0 || (r = fs_mkdir_p(outdir)) != 0)
		goto out;
	/* the build id: the builder image's id, short */
	bid = xasprintf("%.12s", docker_id_hex(id));
	ea.build_id = bid;
	src = scan_work_path(s, "source/%s/src", s->state.head_commit);
	strvec_pushf(&binds, "%s:/OSS_CRS_BUILD_OUT_DIR", outdir);
	strvec_pushf(&binds, "%s:/OSS_CRS_FUZZ_PROJ:ro", s->project->dir);
	strvec_pushf(&binds, "%s:/OSS_CRS_TARGET_SOURCE:ro", src);
	if (fetch) {
		strvec_pushf(&binds, "%s:/OSS_CRS_FETCH_DIR:ro", fetch);
		ea.has_fetch_dir = 1;
	}
	crs_env_build(&env, &s->state, &ea);
	ro.image = tag;
	ro.env = strvec_list(&env);
	ro.binds = strvec_list(&binds);
	/* beside the other builds: their share of every core (build_group.h) */
	ro.cpuset = exec_shared_res() ? exec_shared_res()->cpuset :
		c->res.cpuset;
	ro.memory = exec_shared_res() ? exec_shared_res()->memory_bytes :
		c->res.memory_bytes;
	ro.shm_size = 2LL << 30;
	ro.network = "none";
	container_policy_apply(&ro, ROLE_CRS_BUILD);
	log_info("%s: running", what);
	span = timing_begin(s, "crs-build", step);
	r = container_run_commit(&s->exec, &ro, TARGET_BUILD_TIMEOUT_S, log, snap,
				 &code);
	timing_end(s, span);
	if (r != 0)
		goto out;
	if (code != 0) {
		char *tail = log_tail(log, 15, LOG_TAIL_CAP);

		r = crs_error_set(CRS_EBUILD, "%s failed (exit %d; log %s):\n%s",
				  what, code, log, tail);
		free(tail);
		goto out;
	}
	if ((r = check_outputs(b, outdir, c->name)) == 0 &&
	    (r = fs_mkdir_p(built)) == 0)
		r = build_record_write(built, record, &rec);
	if (r == 0)
		snapshot_step_record(s, c->name, b->name, snap);
out:
	free(snap);
	strvec_release(&env);
	strvec_release(&binds);
	free(bid);
	free(tag);
	free(log);
	free(what);
	free(id);
	free(outdir);
	free(record);
	free(built);
	free(step);
	free(fetch);
	free(src);
	return r;
}

static int crs_runner_images(struct scan *s, const struct compose_crs *c)
{
	const struct manifest *m = c->manifest;
	int r = 0;

	for (size_t k = 0; k < m->modules_nr && r == 0; k++) {
		const struct manifest_run_module *mod = &m->modules[k];
		char *key, *tag = NULL;

		if (!mod->target_dependent)
			continue;
		r = crs_image_build(s, c, "runner", mod->name, mod->dockerfile,
				 1, &tag);
		if (r == 0) {
			key = xasprintf("%s/%s", c->name, mod->name);
			scan_set_image(s, key, tag);
			free(key);
		}
		free(tag);
	}
	return r;
}

/*
 * diffs/ref.diff and bug-candidates/<name> (each --sarif file) for build
 * steps, as OSS-CRS stages them (§7.1), and diffs/change.json and
 * change.dict (runner/scan/change_file.h).
 */
static int stage_fetch_dir(struct scan *s)
{
	char *dir, *path;
	int r = 0;

	if (!s->change && !s->opts->sarifs_nr)
		return 0;
	dir = scan_work_path(s, "builds/%s/FETCH_DIR/bug-candidates",
			     s->state.sanitizer);
	/* last scan's candidates must not linger */
	if ((r = fs_remove_tree(dir)) == 0 && s->opts->sarifs_nr)
		r = fs_mkdir_p(dir);
	for (size_t i = 0; i < s->opts->sarifs_nr && r == 0; i++) {
		const char *name = strrchr(s->opts->sarifs[i], '/');

		path = xasprintf("%s/%s", dir, name ? name + 1 :
				 s->opts->sarifs[i]);
		r = fs_copy_file(s->opts->sarifs[i], path);
		free(path);
	}
	free(dir);
	if (r != 0)
		return r;
	dir = scan_work_path(s, "builds/%s/FETCH_DIR/diffs", s->state.sanitizer);
	path = xasprintf("%s/ref.diff", dir);
	if (!s->change)		/* a full scan: no last scan's diff either */
		r = fs_remove_tree(dir);
	else if ((r = fs_mkdir_p(dir)) == 0 &&
		 (r = fs_write_file_atomic(path, s->change->patch,
					   s->change->patch_len)) == 0)
		r = change_file_write(s, dir);
	free(dir);
	free(path);
	return r;
}

/* One CRS's build steps and target-dependent runner images, in order. */
static int crs_builds(struct scan *s, void *arg)
{
	const struct compose_crs *c = arg;
	int r = 0;

	for (size_t k = 0; k < c->manifest->builds_nr && r == 0; k++)
		if (scan_interrupted(s))
			r = crs_error_set(CRS_EINTR, "interrupted");
		else
			r = crs_build_step(s, c, &c->manifest->builds[k]);
	return r ? r : crs_runner_images(s, c);
}

/*
 * Everything after the head's source image, side by side (build_group.h):
 * the head build, the base's image and build, the head's coverage build
 * and each CRS's build steps, sharing every core and the memory the
 * compose owns (no CRS runs yet).
 */
static int parallel_builds(struct scan *s)
{
	struct build_job *jobs = xcalloc(s->compose->crs_nr + 3,
					 sizeof(*jobs));
	struct compose_resources res;
	struct builds b = { .lock = PTHREAD_MUTEX_INITIALIZER,
			    .head_cond = PTHREAD_COND_INITIALIZER };
	size_t nr = 0;
	int r;

	if ((r = snapshot_head_ref(s, s->state.sanitizer, &b.head_snap)) != 0)
		goto out;
	jobs[nr++] = (struct build_job){ "head build", build_head, &b };
	if (s->state.base_commit)
		jobs[nr++] = (struct build_job){ "base build", build_base, &b };
	/* select and the coverage of the change measure it in diff mode */
	if (s->change)
		jobs[nr++] = (struct build_job){ "coverage build",
						 build_coverage, &b };
	for (size_t i = 0; i < s->compose->crs_nr; i++)
		jobs[nr++] = (struct build_job){ s->compose->crs[i].name,
			crs_builds, &s->compose->crs[i] };
	if ((r = build_group_resources(&res, s->compose, nr)) != 0)
		goto out;
	if (res.memory_bytes)
		log_info("build-target: %zu build(s) side by side on CPUs %s, "
			 "%lld MiB each", nr, res.cpuset ? res.cpuset : "(any)",
			 (long long)(res.memory_bytes >> 20));
	else
		log_info("build-target: %zu build(s) side by side on CPUs %s",
			 nr, res.cpuset ? res.cpuset : "(any)");
	exec_set_shared_res(&res);
	r = build_group_run(s, jobs, nr);
	exec_set_shared_res(NULL);
	build_group_resources_release(&res);
	free(s->state.base_image);
	s->state.base_image = b.base_image;
	b.base_image = NULL; /* transferred */
	if (r == 0)
		snapshot_head_record(s, s->state.sanitizer, b.head_snap);
out:
	pthread_mutex_destroy(&b.lock);
	pthread_cond_destroy(&b.head_cond);
	free(b.head_snap);
	free(b.base_image);
	free(jobs);
	return r;
}

/*
 * The phase's start: the project, the sanitizer (`sanitizer`, else
 * project.yaml's), the language into the state; no head commit yet.
 */
static int begin_build(struct scan *s, const char *sanitizer)
{
	timing_phase(s, "build-target");
	free(s->state.project);
	s->state.project = xstrdup(s->project->name);
	free(s->state.sanitizer);
	s->state.sanitizer = xstrdup(sanitizer ? sanitizer :
				     pick_sanitizer(s->project));
	free(s->state.language);
	s->state.language = xstrdup(s->project->language);
	free(s->state.head_commit);
	s->state.head_commit = NULL;
	return base_images_sanitizer_check(s->opts->base_images,
					   s->state.sanitizer);
}

int phase_build_target(struct scan *s)
{
	const char *head = s->opts->head;
	int r;

	if ((r = begin_build(s, s->opts->sanitizer)) != 0)
		return r;
	if (s->change && s->change->head_commit)
		head = s->change->head_commit;
	if ((r = source_resolve(&s->state.head_commit, s->source_dir,
				head)) != 0)
		return crs_error_prefix("--source '%s'", s->opts->source);
	free(s->state.base_commit);
	s->state.base_commit = s->change && s->change->base_commit ?
		xstrdup(s->change->base_commit) : NULL;
	log_info("build-target: %s at %.12s, sanitizer %s", s->project->name,
		 s->state.head_commit, s->state.sanitizer);
	if ((r = build_target_image(s)) != 0 || (r = head_image(s)) != 0 ||
	    (r = stage_fetch_dir(s)) != 0 || (r = parallel_builds(s)) != 0)
		return r;
	return scan_state_save(s);
}

int phase_build_head(struct scan *s, const char *head, const char *sanitizer)
{
	int r;

	if ((r = begin_build(s, sanitizer)) != 0)
		return r;
	free(s->state.base_commit);
	s->state.base_commit = NULL;
	if ((r = source_resolve(&s->state.head_commit, s->source_dir,
				head)) != 0)
		return crs_error_prefix("commit %.12s is not in %s (git fetch "
					"origin %s)", head, s->source_dir,
					head);
	log_info("build-target: %s at %.12s, sanitizer %s (the head build "
		 "alone)", s->project->name, s->state.head_commit,
		 s->state.sanitizer);
	if ((r = build_target_image(s)) != 0 || (r = head_image(s)) != 0 ||
	    (r = target_compile(s, s->state.head_image, s->state.head_commit,
				s->state.sanitizer, "head", NULL)) != 0)
		return r;
	return scan_state_save(s);
}
