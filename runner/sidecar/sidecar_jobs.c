/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sidecar_jobs.c - the four jobs a CRS may ask for: a rebuild with its
 * patch, the project's tests, a PoV run, a patch of the project's files
 *
 * Each runs on its CRS's worker thread, in a fresh container from the
 * build snapshot. Details: docs/sidecar.md.
 */
#include "runner/sidecar/sidecar_jobs.h"
#include "runner/sidecar/sidecar_wire.h"
#include "runner/sidecar/sidecar_read.h"
#include "runner/sidecar/sidecar_tree.h"
#include "runner/exec/container.h"
#include "runner/exec/crs_env.h"
#include "runner/sidecar/patch_tree.h"
#include "runner/exec/reproduce.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/exec/snapshot.h"
#include "runner/exec/target_build.h"
#include "runner/scan/ctx.h"
#include "runner/config/config.h"
#include "runner/engine/docker.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/safe_io.h"
#include "common/log.h"
#include "common/mailbox_proto.h"
#include "common/strset.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "common/testable.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct rebuild *rebuild_find(struct sidecar_crs *k, long id,
				    const char *sha)
{
	for (size_t i = 0; i < k->rb_nr; i++)
		if ((id > 0 && k->rb[i].id == id) ||
		    (sha && k->rb[i].ok && !strcmp(k->rb[i].sha, sha)))
			return &k->rb[i];
	return NULL;
}

/*
 * The job's containers run on the CRS's cpuset and memory: the build and
 * run helpers take the infra's, so the CRS's stand in for the job.
 */
static void resources_swap(struct sidecar_crs *k,
			   struct compose_resources *saved)
{
	struct compose_resources *infra = &k->w.ws.compose->infra;

	*saved = *infra;
	infra->cpuset = k->c->res.cpuset;
	infra->memory_bytes = k->c->res.memory_bytes;
}

static void resources_restore(struct sidecar_crs *k,
			      const struct compose_resources *saved)
{
	k->w.ws.compose->infra = *saved;
}

/* What a build is keyed by: the patch, build-project's fuzz patch and
 * the builder name. */
static void request_sha(const struct sidecar_request *rq, char sha[65])
{
	struct buf b = BUF_INIT;

	if (!rq->fuzz_patch.len && !rq->builder[0]) {
		sha256_hex(sha, rq->payload.ptr, rq->payload.len);
		return;
	}
	buf_add(&b, rq->payload.ptr, rq->payload.len);
	if (rq->fuzz_patch.len) {
		buf_adds(&b, ":fuzz-proj:");
		buf_add(&b, rq->fuzz_patch.ptr, rq->fuzz_patch.len);
	}
	if (rq->builder[0])	/* another builder: another build */
		buf_printf(&b, ":builder:%s", rq->builder);
	sha256_hex(sha, b.ptr, b.len);
	buf_release(&b);
}

/* The same build asked again by this CRS: its earlier rebuild (1). */
int sidecar_answer_cached(struct sidecar_crs *k,
			 const struct sidecar_request *rq,
			 struct job_result *jr)
{
	struct rebuild *cached;
	char sha[65];

	request_sha(rq, sha);
	cached = rebuild_find(k, -1, sha);
	if (!cached || (rq->rebuild_id >= 1 && rq->rebuild_id != cached->id))
		return 0;
	jr->retcode = 0;
	jr->rebuild_id = cached->id;
	buf_printf(&jr->out, "the same patch was rebuilt before as rebuild "
		   "%ld\n", cached->id);
	return 1;
}

/*
 * Copy the build's out/ and its record into REBUILD_OUT_DIR/<crs>/<n>:
 * crs-ci's compile's /out as build/, a CRS build step's outputs (its
 * BUILD_OUT_DIR) as they are.
 */
static int rebuild_publish(struct sidecar_crs *k,
			   long n, const char *which,
			   const struct sidecar_request *rq,
			   const struct job_result *jr, int code)
{
	char *dir = xasprintf("%s/%ld", k->rebuild_dir, n);
	char *tmp = xasprintf("%s/.%ld.staging", k->rebuild_dir, n);
	char *out = scan_work_path(&k->w.ws, "builds/%s/%s/out",
				   k->w.ws.state.sanitizer, which);
	char *p = NULL, num[32];
	int r;

	snprintf(num, sizeof(num), "%d\n", code);
	if ((r = fs_remove_tree(tmp)) != 0)
		goto out;
	if (code == 0 && rq->builder[0])
		r = fs_copy_tree(out, tmp);
	else if ((r = fs_mkdir_p(tmp)) == 0 && code == 0) {
		p = xasprintf("%s/build", tmp);
		r = fs_copy_tree(out, p);
	}
	if (r != 0)
		goto out;
#define PUT(name, data, len) \
	do { free(p); p = xasprintf("%s/%s", tmp, name); \
	     if ((r = fs_write_file_atomic(p, data, len)) != 0) goto out; \
	} while (0)
	PUT("patch.diff", rq->payload.ptr, rq->payload.len);
	if (rq->fuzz_patch.len)
		PUT("fuzz_proj_patch.diff", rq->fuzz_patch.ptr,
		    rq->fuzz_patch.len);
	PUT("stdout.log", jr->out.ptr ? jr->out.ptr : "", jr->out.len);
	PUT("stderr.log", jr->err.ptr ? jr->err.ptr : "", jr->err.len);
	PUT("exit_code", num, strlen(num));
#undef PUT
	if ((r = fs_remove_tree(dir)) == 0 && rename(tmp, dir) != 0)
		r = crs_error_set(CRS_ERR, "%s: %s", dir, strerror(errno));
out:
	free(dir);
	free(tmp);
	free(out);
	free(p);
	return r;
}

/*
 * The CRS build step `name` again, as OSS-CRS's ephemeral rebuild
 * containers run it (reference/oss-crs-contract.md §3.3): its snapshot,
 * the patch applied, the step's own command with the step's environment,
 * OSS_CRS_BUILD_OUT_DIR the rebuild's out/ (the CRS's `libCRS
 * submit-build-output` writes there), no source or fetch mounts.
 * 0 with j filled, 1 with jr->err saying why it cannot be asked, or an
 * error.
 */
static int step_rebuild(struct sidecar_crs *k,
			const char *name, long n, const char *which,
			struct snapshot_job *j, struct job_result *jr,
			char **snap_out)
{
	struct scan *s = &k->w.ws;
	const struct manifest *m = k->c->manifest;
	const struct manifest_build_step *b = NULL;
	struct strvec env = STRVEC_INIT, binds = STRVEC_INIT, cmd = STRVEC_INIT;
	struct crs_env_args ea = { .phase = CRSENV_BUILD_TARGET,
				   .crs = k->c };
	char *out = scan_work_path(s, "builds/%s/%s/out", s->state.sanitizer,
				   which);
	struct buf joined = BUF_INIT;
	char id[32];
	const char *snap;
	int r = 0;

	for (size_t i = 0; m && i < m->builds_nr && !b; i++)
		if (!strcmp(m->builds[i].name, name))
			b = &m->builds[i];
	snap = b ? snapshot_step_find(s, k->c->name, name) : NULL;
	if (!snap) {
		buf_printf(&jr->err, "CRS %s has %s '%s' to rebuild from\n",
			   k->c->name, b ? "no snapshot of its build step" :
			   "no build step", name);
		r = 1;
		goto out;
	}
	*snap_out = xstrdup(snap);
	if ((r = docker_image_cmd(s->docker, snap, &cmd)) != 0 ||
	    (r = fs_remove_tree(out)) != 0 || (r = fs_mkdir_p(out)) != 0)
		goto out;
	snprintf(id, sizeof(id), "%ld", n);
	ea.layer = &b->env;
	ea.build_id = id;
	crs_env_build(&env, &s->state, &ea);
	strvec_pushf(&env, "OSS_CRS_REBUILD_ID=%s", id);
	for (size_t i = 0; i < cmd.nr; i++)
		buf_printf(&joined, "%s%s", i ? " " : "", cmd.v[i]);
	strvec_pushf(&env, "OSS_CRS_BUILD_CMD=%s",
		     joined.len ? joined.ptr : "");
	strvec_push(&env, "REPLAY_ENABLED=");
	strvec_pushf(&binds, "%s:/OSS_CRS_BUILD_OUT_DIR", out);
	j->image = snap;
	j->cmd = strvec_list(&cmd);
	j->env = strvec_list(&env);
	j->binds = strvec_list(&binds);
	r = snapshot_run(s, j);
	j->cmd = j->env = j->binds = NULL;
out:
	strvec_release(&env);
	strvec_release(&binds);
	strvec_release(&cmd);
	buf_release(&joined);
	free(out);
	return r;
}

/* Where job_build keeps the patch of build `which`. */
static char *patch_file(struct sidecar_crs *k, const char *which)
{
	return xasprintf("%s/%s.diff", k->work_dir, which);
}

/*
 * Build the request's patch as rebuild *n_out: the head build's snapshot
 * (runner/exec/snapshot.h), the patch applied the first way that works (git
 * apply, git apply -C1, patch -p1 --fuzz=3; stdout.log says which), and
 * `compile` run again on the CRS's cpuset and memory. 0 with jr->retcode
 * set (non-zero: the patch did not apply or build, jr->err says why), or
 * CRS_EINTR / an infrastructure error. *snap_out: the image the build
 * started from: `from_image` when given (build-project's patched fuzz
 * project: a full build), else the head build's snapshot.
 */
int sidecar_job_build(struct sidecar_crs *k,
		     const struct sidecar_request *rq, const char *from_image,
		     struct job_result *jr, char **which_out, char **snap_out)
{
	struct scan *s = &k->w.ws;
	struct snapshot_job j = SNAPSHOT_JOB_INIT;
	struct rebuild *rb;
	git_diff *diff = NULL;
	char sha[65], *patch = NULL, *blog = NULL, *tail = NULL;
	long n;
	int r = 0;

	request_sha(rq, sha);
	n = rq->rebuild_id > 0 ? rq->rebuild_id : k->next_id;
	rb = rebuild_find(k, n, NULL);
	if (rb && strcmp(rb->sha, sha)) {
		jr->retcode = 1;
		buf_printf(&jr->err, "rebuild id %ld is in use by another "
			   "patch\n", n);
		goto out;
	}
	if (!rb) {
		ALLOC_GROW(k->rb, k->rb_nr + 1, k->rb_alloc);
		rb = &k->rb[k->rb_nr++];
		rb->id = n;
		memcpy(rb->sha, sha, sizeof(sha));
	}
	rb->ok = 0;
	if (n >= k->next_id)
		k->next_id = n + 1;
	jr->rebuild_id = n;
	*which_out = xasprintf("rebuild-%s-%ld", k->c->name, n);
	if (git_diff_from_buffer(&diff, rq->payload.ptr,
				 rq->payload.len) != 0 ||
	    (git_diff_num_deltas(diff) == 0 && !rq->fuzz_patch.len)) {
		jr->retcode = 1;
		buf_printf(&jr->err, "the patch is not a unified diff\n");
		goto publish;
	}
	patch = patch_file(k, *which_out);
	if ((r = fs_write_file_atomic(patch, rq->payload.ptr,
				      rq->payload.len)) != 0)
		goto out;
	if (from_image)
		*snap_out = xstrdup(from_image);
	else if (!rq->builder[0] &&	/* step_rebuild finds the step's */
		 ((r = snapshot_head_ref(s, s->state.sanitizer,
					 snap_out)) != 0 ||
		  (r = docker_image_exists(s->docker, *snap_out, NULL)) != 0))
		goto out;
	blog = scan_work_path(s, "logs/%s-%s-build.log", *which_out,
			      s->state.sanitizer);
	j.image = *snap_out;
	j.patch_path = patch;
	j.cpuset = k->c->res.cpuset;
	j.memory = k->c->res.memory_bytes;
	j.limit_s = TARGET_BUILD_TIMEOUT_S;
	j.log_path = blog;
	if (rq->builder[0] && !from_image)
		r = step_rebuild(k, rq->builder, n, *which_out, &j, jr,
				 snap_out);
	else
		r = snapshot_compile(s, &j, s->state.sanitizer, *which_out);
	if (r == 1) {		/* no such step: answered */
		jr->retcode = 1;
		r = 0;
		goto publish;
	}
	if (r != 0)
		goto out;
	if ((tail = log_tail(blog, SIDECAR_LOG_LINES, SIDECAR_LOG_CAP)) != NULL)
		buf_adds(&jr->out, tail);
	if (j.apply_failed) {
		jr->retcode = 1;
		buf_printf(&jr->err, "the patch does not apply to the head "
			   "(git apply, git apply -C1 and patch -p1 "
			   "--fuzz=3 all refused it; stdout.log says why)\n");
	} else if (j.exit_code != 0) {
		jr->retcode = 1;
		buf_printf(&jr->err, "the patched build failed: %s exited "
			   "%d (applied with %s)\n", rq->builder[0] ?
			   "the build step" : "compile", j.exit_code,
			   snapshot_apply_name(j.applied));
	} else {
		jr->retcode = 0;
		rb->ok = 1;
		buf_printf(&jr->err, "patch applied with %s; rebuilt from "
			   "%s\n", snapshot_apply_name(j.applied),
			   *snap_out);
	}
publish:
	r = rebuild_publish(k, n, *which_out, rq, jr, jr->retcode);
out:
	git_diff_free(diff);
	free(patch);
	free(blog);
	free(tail);
	return r;
}

/* The project's tests on a build made by job_build. */
int sidecar_job_tests(struct sidecar_crs *k,
		     const char *which, const char *snap,
		     struct job_result *jr)
{
	struct scan *s = &k->w.ws;
	char *log = scan_work_path(s, "logs/%s-tests.log", which);
	char *patch = patch_file(k, which);
	double limit = scan_remaining(s) - 5;
	enum patch_tests_outcome o;
	struct buf b = BUF_INIT;
	int r, code = -1;

	r = patch_tree_run_tests(s, snap, patch, which, k->c->res.cpuset,
				 k->c->res.memory_bytes,
				 limit < SIDECAR_TESTS_S ? limit :
				 SIDECAR_TESTS_S, log, &o, &code);
	if (r == CRS_EINTR)
		goto out;
	buf_reset(&jr->out);
	if (o == PATCH_TESTS_NONE) {
		jr->retcode = 0;
		buf_adds(&jr->out, "no tests: the project has no "
			 "run_tests.sh or test.sh\n");
	} else if (o == PATCH_TESTS_ERROR) {
		jr->retcode = 1;
		buf_printf(&jr->err, "the tests did not finish: %s\n",
			   crs_error_last());
	} else {
		jr->retcode = code;
		if (fs_read_file(&b, log, 1u << 20) == 0 && b.len)
			buf_add(&jr->out, b.ptr, b.len);
		if (code)
			buf_printf(&jr->err, "the project's tests failed "
				   "(exit %d)\n", code);
	}
	crs_error_clear();
	r = 0;
out:
	buf_release(&b);
	free(log);
	free(patch);
	return r;
}

int sidecar_job_pov(struct sidecar_crs *k,
		   const struct sidecar_request *rq, struct job_result *jr)
{
	struct scan *s = &k->w.ws;
	struct compose_resources saved;
	struct repro_verdict v = { 0 };
	char sha[65], *which, *dir, *bin = NULL, *tdir = NULL, *tc = NULL;
	struct buf b = BUF_INIT;
	int r = 0;

	if (rq->rebuild_id > 0) {
		struct rebuild *rb = rebuild_find(k, rq->rebuild_id, NULL);

		if (!rb || !rb->ok) {
			jr->retcode = 1;
			buf_printf(&jr->err, "no successful rebuild %ld of "
				   "CRS %s\n", rq->rebuild_id, k->c->name);
			return 0;
		}
		/* what the CRS sees: its rebuild's build/ output */
		which = xasprintf("rebuild-%s-%ld", k->c->name,
				  rq->rebuild_id);
		dir = xasprintf("%s/%ld/build", k->rebuild_dir,
				rq->rebuild_id);
	} else {
		which = xstrdup("head");
		dir = scan_work_path(s, "builds/%s/head/out",
				     s->state.sanitizer);
	}
	bin = xasprintf("%s/%s", dir, rq->harness);
	if (!fs_exists(bin)) {
		jr->retcode = 1;
		buf_printf(&jr->err, "no harness '%s' in the %s build\n",
			   rq->harness, which);
		goto out;
	}
	sha256_hex(sha, rq->payload.ptr, rq->payload.len);
	tdir = xasprintf("%s/pov-%.12s-%s", k->work_dir, sha, which);
	tc = xasprintf("%s/testcase", tdir);
	if ((r = fs_remove_tree(tdir)) != 0 || (r = fs_mkdir_p(tdir)) != 0 ||
	    (r = fs_write_file_atomic(tc, rq->payload.ptr,
				      rq->payload.len)) != 0)
		goto out;
	resources_swap(k, &saved);
	r = reproduce_run_in(s, rq->harness, tc, dir, tdir);
	resources_restore(k, &saved);
	if (r == CRS_EINTR)
		goto out;
	if (r == CRS_ETIMEOUT) {
		jr->retcode = 124;
		buf_printf(&jr->err, "the PoV run timed out\n");
		crs_error_clear();
		r = 0;
		goto out;
	}
	if (r != 0)
		goto out;
	reproduce_read_runs(&v, tdir, s->opts->reproduce_runs, rq->harness);
	if (v.signature) {
		jr->retcode = 1;
		if (v.log)	/* read by reproduce.c through its folder's fd */
			buf_add(&jr->err, v.log, v.log_len < (1u << 20) ?
				v.log_len : (1u << 20));
		buf_printf(&jr->out, "crash %s in %d of %d run(s) on the %s "
			   "build\n", v.signature, v.reproduced, v.attempts,
			   which);
	} else {
		jr->retcode = 0;
		buf_printf(&jr->out, "no crash in %d run(s) on the %s build\n",
			   v.attempts, which);
	}
out:
	repro_verdict_release(&v);
	buf_release(&b);
	free(which);
	free(dir);
	free(bin);
	free(tdir);
	free(tc);
	return r;
}

/* A folder of a mailbox, not followed if a symlink; or -1. */
int sidecar_open_in_mailbox(const char *mailbox, const char *sub)
{
	int mfd = open(mailbox, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		       O_CLOEXEC);
	int fd = -1;

	if (mfd >= 0) {
		fd = openat(mfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC);
		close(mfd);
	}
	return fd;
}

/*
 * build-project's trees (requests/<id>/target-source/, fuzz-proj/)
 * diffed against the head source `head_src` and the project folder into
 * rq's payload and fuzz_patch; the patched project folder is written to
 * pdir. CRS_EINPUT when the trees are refused.
 */
static int project_patches(struct scan *s, struct sidecar_crs *k,
			   const char *id, const char *head_src,
			   const char *pdir, struct sidecar_request *rq)
{
	struct sidecar_tree_count count = { 0 };
	int reqfd = sidecar_open_in_mailbox(k->mailbox, "requests"), dfd = -1, r;

	if (reqfd >= 0)
		dfd = openat(reqfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			     O_CLOEXEC);
	if (dfd < 0) {
		r = crs_error_set(CRS_EINPUT, "request %s: not a folder", id);
		goto out;
	}
	if (faccessat(dfd, "target-source", F_OK, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (r = sidecar_tree_diff(dfd, "target-source", head_src, NULL,
				   &count, &rq->payload)) != 0)
		goto out;
	if (faccessat(dfd, "fuzz-proj", F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		r = sidecar_tree_diff(dfd, "fuzz-proj", s->project->dir, pdir,
				      &count, &rq->fuzz_patch);
out:
	if (dfd >= 0)
		close(dfd);
	if (reqfd >= 0)
		close(reqfd);
	return r;
}

/*
 * build-project: the trees' diffs built as apply-patch-build builds a
 * patch (job_build). A fuzz-project change first rebuilds the target
 * image from the patched copy of the project folder, which is also the
 * one laid at /OSS_CRS_PROJ_PATH.
 */
int sidecar_job_project(struct sidecar_crs *k,
		       const char *id, const struct sidecar_request *rq,
		       struct job_result *jr)
{
	struct scan *s = &k->w.ws;
	struct sidecar_request prq = *rq;
	struct project_config proj, *project = s->project;
	char *target_image = s->state.target_image;
	char *pdir = xasprintf("%s/fuzz-proj", k->work_dir);
	char *which = NULL, *image = NULL, *tag = NULL, *iname = NULL;
	char *ctx = NULL, *src = NULL, *head_src = NULL, *full = NULL;
	int r;

	buf_init(&prq.payload);
	buf_init(&prq.fuzz_patch);
	if ((r = target_source_dir(s, s->state.head_commit, &head_src)) == 0)
		r = project_patches(s, k, id, head_src, pdir, &prq);
	if (r == CRS_EINPUT) {
		jr->retcode = 1;
		buf_printf(&jr->err, "crs-ci refused the trees: %s\n",
			   crs_error_last());
		crs_error_clear();
		r = 0;
		goto out;
	}
	if (r != 0)
		goto out;
	if (!prq.payload.len && !prq.fuzz_patch.len) {
		jr->retcode = 1;
		buf_printf(&jr->err, "nothing to build: the trees do not "
			   "differ from /OSS_CRS_TARGET_SOURCE and "
			   "/OSS_CRS_FUZZ_PROJ\n");
		goto out;
	}
	if (sidecar_answer_cached(k, &prq, jr))
		goto out;
	if (prq.fuzz_patch.len) {
		iname = xasprintf("fuzz-proj-%s", k->c->name);
		/* the CRS's Dockerfile: offline, in the CRS's limits */
		r = target_image_build(s, pdir, iname, &k->c->res, 1, &tag);
		if (r != 0 && r != CRS_EINTR) {
			jr->retcode = 1;
			buf_printf(&jr->err, "the patched fuzz project does "
				   "not build its image: %s\n",
				   crs_error_last());
			crs_error_clear();
			r = 0;
		}
		if (!tag)
			goto out;
		/* the head source over it, as the head's image is made */
		proj = *project;
		proj.dir = pdir;
		s->project = &proj;
		s->state.target_image = tag;
		ctx = xasprintf("%s/fuzz-proj-src", k->work_dir);
		src = xasprintf("%s/src", ctx);
		free(iname);
		iname = xasprintf("fuzz-proj-%s-head", k->c->name);
		if ((r = fs_remove_tree(ctx)) == 0 &&
		    (r = fs_copy_tree(head_src, src)) == 0)
			r = target_context_image(s, ctx, "the head source over "
						 "a patched fuzz project",
						 iname, &k->c->res, &full);
		s->project = project;
		s->state.target_image = target_image;
		if (r != 0)
			goto out;
	}
	r = sidecar_job_build(k, &prq, full, jr, &which, &image);
out:
	sidecar_request_release(&prq);
	free(pdir);
	free(which);
	free(image);
	free(tag);
	free(iname);
	free(ctx);
	free(src);
	free(head_src);
	free(full);
	return r;
}
