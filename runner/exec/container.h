/* SPDX-License-Identifier: Apache-2.0 */
/*
 * container.h - run one container to completion the way every phase does
 *
 * Labels it with the owner of the exec context (runner/scan/exec_ctx.h),
 * starts it, waits within a time limit (honouring Ctrl-C), saves its output to a log file, removes it.
 */
#ifndef CRS_RUNNER_EXEC_CONTAINER_H
#define CRS_RUNNER_EXEC_CONTAINER_H

#include <stddef.h>

struct exec_ctx;
struct docker_run_opts;
struct strvec;

/* Append the owner label, the owner's identity and the scan's deadline
 * (runner/engine/reaper.h) to a label list. */
void container_labels(struct strvec *labels, const struct exec_ctx *x);

/*
 * Create, start, wait (at most timeout_s seconds), save logs to log_path
 * (may be NULL), remove. *exit_code_out is the container's exit code.
 * CRS_ETIMEOUT when the limit passed (the container is killed),
 * CRS_EINTR on a signal.
 */
int container_run(struct exec_ctx *x, const struct docker_run_opts *o,
		  double timeout_s, const char *log_path, int *exit_code_out);

/*
 * As container_run; when the container exited 0 it is committed as the
 * image `commit_ref` ("repo:tag", may be NULL) before it is removed, so
 * its file system (sources, objects, build state) can be started again.
 */
int container_run_commit(struct exec_ctx *x, const struct docker_run_opts *o,
			 double timeout_s, const char *log_path,
			 const char *commit_ref, int *exit_code_out);

/*
 * Run `bash -c script` in the base runner image as crs-ci's own work: no
 * network, the compose's infra memory and cpuset (every core the compose
 * owns while this thread has an exec_shared_res(): no CRS runs then).
 * `args` (NULL-terminated) become $0, $1, ...; `binds` as for docker_run_opts. As container_run.
 */
int container_run_script(struct exec_ctx *x, const char *script,
			 const char *const *args, const char *const *binds,
			 double timeout_s, const char *log_path,
			 int *exit_code_out);

/*
 * libFuzzer's -rss_limit_mb for crs-ci's own runs: 2560 (OSS-Fuzz's), or
 * 3/4 of the infra memory when that is smaller, so libFuzzer reports an
 * out-of-memory before the container's cgroup kills it. Cannot fail.
 */
long infra_rss_limit_mb(const struct exec_ctx *x);

/*
 * The last `lines` lines of a log file: log_lines_tail() (colour codes
 * stripped, each line escaped on its own, '\n' between them), at most
 * `cap` bytes; "" when it cannot be read. Error messages printed with
 * log_error_lines() take LOG_TAIL_CAP; what a CRS reads back (the
 * sidecar's stdout.log) more. Caller frees.
 */
#define LOG_TAIL_CAP 1200
char *log_tail(const char *path, int lines, size_t cap);

/* Build an image unless `tag` exists. `what` names it in progress lines. */
struct docker_build_opts;
int image_build_cached(struct exec_ctx *x, const struct docker_build_opts *o,
		       const char *what);

#endif
