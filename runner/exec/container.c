/* SPDX-License-Identifier: Apache-2.0 */
/*
 * container.c - one-shot containers and cached image builds
 *
 * The phases start many short containers (builds, PoV reproduction);
 * this file is the one place that sequences create/start/wait/logs/remove
 * so that every path, including a timeout or Ctrl-C, removes the container.
 */
#include "runner/exec/container.h"
#include "runner/exec/base_images.h"
#include "runner/exec/bind_source.h"
#include "runner/exec/container_policy.h"
#include "runner/engine/reaper.h"
#include "runner/scan/exec_ctx.h"
#include "runner/config/config.h"
#include "runner/engine/docker.h"
#include "runner/scan/timings_record.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/log_lines.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LOG_KEEP_MAX (8u << 20)

/* The owner, who it is (for the reaper) and the container's deadline. */
static void labels_until(struct strvec *labels, const struct exec_ctx *x,
			 time_t deadline)
{
	strvec_pushf(labels, "%s=%s", CRS_CI_LABEL, x->owner);
	reaper_labels(labels, deadline);
}

void container_labels(struct strvec *labels, const struct exec_ctx *x)
{
	labels_until(labels, x, exec_deadline_wall(x));
}

/* Commit container `id` as image `ref` ("repo:tag"). */
static int container_commit(struct exec_ctx *x, const char *id, const char *ref)
{
	const char *colon = strrchr(ref, ':');
	char *repo = xstrndup(ref, (size_t)(colon - ref));
	int r;

	r = docker_container_commit(x->docker, id, repo, colon + 1, NULL);
	if (r != 0)
		crs_error_prefix("committing the build as %s", ref);
	free(repo);
	return r;
}

int container_run_commit(struct exec_ctx *x, const struct docker_run_opts *o,
			 double timeout_s, const char *log_path,
			 const char *commit_ref, int *exit_code_out)
{
	struct docker_run_opts opts = *o;
	struct strvec labels = STRVEC_INIT;
	struct buf logs = BUF_INIT;
	char *id = NULL;
	int r, rr, code = -1;

	*exit_code_out = -1;
	if (o->labels)
		for (const char *const *l = o->labels; *l; l++)
			strvec_push(&labels, *l);
	/* its own deadline, which the watchdog holds it to (reaper.h) */
	labels_until(&labels, x, time(NULL) + (time_t)timeout_s + 1);
	opts.labels = strvec_list(&labels);
	if ((r = bind_source_check(x, o->binds)) != 0 ||
	    (r = docker_container_create(x->docker, &opts, &id)) != 0)
		goto out;
	if ((r = docker_container_start(x->docker, id)) != 0)
		goto out;
	r = docker_container_wait(x->docker, id, (long)(timeout_s * 1000),
				  exec_stop_flag(x), &code);
	if (r == CRS_ETIMEOUT || r == CRS_EINTR)
		docker_container_kill(x->docker, id, "KILL");
	if (log_path) {
		rr = docker_container_logs(x->docker, id, &logs, LOG_KEEP_MAX);
		if (rr == 0)
			fs_write_file_atomic(log_path, logs.ptr, logs.len);
		else
			crs_error_clear();
	}
	if (r == 0)
		*exit_code_out = code;
	if (r == 0 && code == 0 && commit_ref)
		r = container_commit(x, id, commit_ref);
out:
	if (id && docker_container_remove(x->docker, id, 1) != 0 && r == 0)
		r = crs_error_code();
	free(id);
	buf_release(&logs);
	strvec_release(&labels);
	return r;
}

int container_run(struct exec_ctx *x, const struct docker_run_opts *o,
		  double timeout_s, const char *log_path, int *exit_code_out)
{
	return container_run_commit(x, o, timeout_s, log_path, NULL,
				    exit_code_out);
}

int container_run_script(struct exec_ctx *x, const char *script,
			 const char *const *args, const char *const *binds,
			 double timeout_s, const char *log_path,
			 int *exit_code_out)
{
	struct docker_run_opts ro = DOCKER_RUN_OPTS_INIT;
	struct strvec cmd = STRVEC_INIT;
	int r;

	*exit_code_out = -1;
	if ((r = base_images_runner(x, &ro.image)) != 0)
		return r;
	strvec_push(&cmd, "/bin/bash");
	strvec_push(&cmd, "-c");
	strvec_push(&cmd, script);
	for (; args && *args; args++)
		strvec_push(&cmd, *args);
	ro.cmd = strvec_list(&cmd);
	ro.binds = binds;
	ro.network = "none";
	/* our own work: infra's cores, or every core while no CRS runs
	 * (exec_shared_res); infra's memory, which its rss limit is from */
	ro.cpuset = exec_shared_res() ? exec_shared_res()->cpuset :
		x->infra->cpuset;
	ro.memory = x->infra->memory_bytes;
	container_policy_apply(&ro, ROLE_INFRA);
	r = container_run(x, &ro, timeout_s, log_path, exit_code_out);
	strvec_release(&cmd);
	return r;
}

long infra_rss_limit_mb(const struct exec_ctx *x)
{
	int64_t mem = x->infra->memory_bytes;
	long mb = (long)(mem / (1 << 20) * 3 / 4);

	return mem > 0 && mb < 2560 ? mb : 2560;
}

char *log_tail(const char *path, int lines, size_t cap)
{
	struct buf b = BUF_INIT;
	char *tail;

	if (fs_read_file(&b, path, LOG_KEEP_MAX * 2) != 0) {
		crs_error_clear();
		buf_release(&b);
		return xstrdup("");
	}
	tail = log_lines_tail(b.ptr, b.len, (size_t)lines, cap);
	buf_release(&b);
	return tail;
}

int image_build_cached(struct exec_ctx *x, const struct docker_build_opts *o,
		       const char *what)
{
	struct docker_build_opts bo = *o;
	struct buf dockerfile = BUF_INIT;
	int r = docker_image_exists(x->docker, o->tag, NULL), span, step = 0;

	if (r == 0) {
		log_info("%s: reusing image %s", what, o->tag);
		return 0;
	}
	if (r != CRS_ENOTFOUND)
		return r;
	crs_error_clear();
	/* its base images first: pulled, or the stand-ins named instead */
	if ((r = base_images_for_build(x, &bo, &dockerfile)) != 0) {
		buf_release(&dockerfile);
		return r == CRS_EINTR ? r : crs_error_prefix("%s", what);
	}
	log_info("%s: building image %s%s", what, o->tag,
		 bo.dockerfile_text ? " (FROM the stand-ins)" : "");
	bo.interrupted = exec_stop_flag(x);
	bo.failed_step = &step;
	span = timings_begin(x->timings, "image", what, NULL);
	r = docker_image_build(x->docker, &bo);
	timings_end(x->timings, span);
	if (r == CRS_EBUILD)	/* an Ubuntu package on Debian stand-ins? */
		base_images_explain_failure(&bo, step);
	buf_release(&dockerfile);
	if (r != 0)
		return crs_error_prefix("%s", what);
	return 0;
}
