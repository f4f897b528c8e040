/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exec_ctx.h - what running a container needs, and nothing of a scan
 *
 * As git's struct child_process knows nothing of a repository, runner/exec/
 * runs containers from this: engine, owner label, deadline, stop flag,
 * work and output roots, infra's share. struct scan embeds one, callers
 * pass &s->exec. Details: docs/internals.md ("The exec context").
 */
#ifndef CRS_RUNNER_SCAN_EXEC_CTX_H
#define CRS_RUNNER_SCAN_EXEC_CTX_H

#include <stdarg.h>
#include <time.h>

struct docker_client;
struct compose_resources;
struct timings;

struct exec_ctx {
	struct docker_client *docker;	/* borrowed; NULL without engine */
	const char *owner;		/* CRS_CI_LABEL's value */
	const char *work_dir;		/* absolute: logs, scratch */
	const char *out_dir;		/* absolute: results */
	const char *cache_dir;		/* --cache-dir as given, or NULL */
	volatile int *interrupted;	/* Ctrl-C flag, or NULL */
	struct timespec started;	/* CLOCK_MONOTONIC */
	time_t started_wall;
	long timeout_s;			/* the whole scan's; <= 0: none */
	/* infra's cores and memory (crs-ci's own containers); NULL
	 * without a compose */
	const struct compose_resources *infra;
	int base_images;		/* enum base_images_mode */
	int base_runner_ready;		/* runner/exec/base_images.h */
	struct timings *timings;	/* runner/scan/timings_record.h */
};

/* Wall-clock second the scan's deadline passes, 0 without one. */
time_t exec_deadline_wall(const struct exec_ctx *x);
/* Seconds left before the deadline (negative once passed). */
double exec_remaining(const struct exec_ctx *x);
/*
 * What tells this thread to stop: the flag of the job group it works for
 * (exec_set_thread_stop, set by build_group.h in each job's thread),
 * else x's Ctrl-C flag; NULL when neither is set. exec_interrupted() is
 * 1 when it is set. Jobs side by side (or nested) never share one flag.
 */
volatile int *exec_stop_flag(const struct exec_ctx *x);
int exec_interrupted(const struct exec_ctx *x);
/* This thread works for a job group whose stop flag is `flag`. */
void exec_set_thread_stop(volatile int *flag);
/*
 * While no CRS runs (or every CRS is stopping), crs-ci's own jobs share
 * every core and byte the compose owns instead of infra's: the builds of
 * build-target, triage beside the coverage replay, the first PoV's early
 * reproductions. The share this thread's jobs get, NULL for infra's;
 * set per thread (the sidecar, running beside the CRSs, keeps infra's)
 * and passed on to the jobs of a build group (build_group.h).
 */
const struct compose_resources *exec_shared_res(void);
void exec_set_shared_res(const struct compose_resources *res);

/* <work_dir>/<fmt...>, caller frees (scan_work_path for a scan). */
char *exec_work_path(const struct exec_ctx *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
char *exec_work_vpath(const struct exec_ctx *x, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif
