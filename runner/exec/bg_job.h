/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bg_job.h - one of crs-ci's own jobs started early, in its own thread
 *
 * For work a later phase needs that can begin before the phase does
 * (the first PoV's reproductions, the coverage replay once the corpus
 * is final): started where its inputs are ready, joined where its
 * result is read, and on every path before the scan's phases end.
 */
#ifndef CRS_RUNNER_EXEC_BG_JOB_H
#define CRS_RUNNER_EXEC_BG_JOB_H

/* the scan, not an exec_ctx: the job (a phase callback) gets it */
struct scan;
struct compose_resources;
struct bg_job;

/*
 * Run fn(s, arg) in a new thread with `res` as its exec_shared_res()
 * (NULL: infra's cores; the pointer must outlive the job) and a stop
 * flag of its own (scan_stop_flag), which the joining thread's stop (a
 * Ctrl-C) reaches while it waits. NULL when no thread could start
 * (logged): the caller does the work itself.
 */
struct bg_job *bg_job_start(struct scan *s, const char *name,
			    int (*fn)(struct scan *s, void *arg), void *arg,
			    const struct compose_resources *res);

/* Wait for it; its result with its error message (in this thread), and
 * it is freed. 0 for NULL. */
int bg_job_join(struct bg_job *j);
/* Stop it (its waits end, its containers go, as on Ctrl-C), wait for it
 * and free it, its result unread: this thread's error state is left as
 * it was (a failed scan's message stands). NULL is fine. */
void bg_job_discard(struct bg_job *j);

#endif
