/* SPDX-License-Identifier: Apache-2.0 */
/*
 * build_group.h - jobs run side by side, the first failure stops them
 *
 * While no CRS runs, crs-ci's own jobs that do not depend on each other
 * share every core and byte of memory the compose owns: the builds of
 * build-target (head, base, coverage, CRS build steps), then triage and
 * the replay for the coverage of the change after the run.
 */
#ifndef CRS_RUNNER_EXEC_BUILD_GROUP_H
#define CRS_RUNNER_EXEC_BUILD_GROUP_H

#include <stddef.h>

/* the scan, not an exec_ctx: each job (a phase callback) gets it */
struct scan;
struct compose;
struct compose_resources;

/* One build of a group: fn(s, arg) returns 0 or a CRS_E* code. */
struct build_job {
	const char *name;	/* "head build": progress lines */
	int (*fn)(struct scan *s, void *arg);
	void *arg;
};

/*
 * Run every job in its own thread and wait for all. The first job that
 * fails sets the group's stop flag (its jobs' scan_stop_flag(), so their
 * waits, image builds and scan_interrupted() see it): the others end
 * their containers (removed, as container_run does on Ctrl-C) and
 * return. A Ctrl-C, or the stop of the group the caller works for,
 * stops them the same way; groups may nest and run side by side. Returns 0, or the first failure's code with its message
 * (CRS_EINTR when interrupted). Jobs share `s`: whatever they write in
 * it goes through scan_set_image() (locked) or is written by one job.
 */
int build_group_run(struct scan *s, struct build_job *jobs, size_t nr);

/*
 * The resources of `jobs` builds running side by side: every CPU of the
 * infra and CRS cpusets (a CPU list, "0-3"), and the sum of their memory
 * split `jobs` ways (0, no limit, when one of them has none). out's
 * strings are the caller's (build_group_resources_release). CRS_ECONFIG
 * when a cpuset is not a CPU list.
 */
int build_group_resources(struct compose_resources *out,
			  const struct compose *c, size_t jobs);
void build_group_resources_release(struct compose_resources *r);

/* How many CPUs a CPU list names (1 when NULL, empty or unparsable), for
 * `make -jN`. Cannot fail. */
unsigned build_group_cpus(const char *cpuset);

/*
 * The CPUs `own` fuzzes on when `lender`'s are lent to it: the union of
 * both lists (caller frees), or NULL when there is nothing to lend (either
 * list NULL, empty or not a CPU list, or `lender`'s CPUs are all in `own`).
 */
char *build_group_cpus_lent(const char *own, const char *lender);

/*
 * The CPUs of compose `c`'s oss_crs_infra cpuset that no CRS's cpuset
 * holds (what the run may lend), as a CPU list (caller frees), or NULL
 * when there are none or a list does not parse. Cannot fail.
 */
char *build_group_cpus_spare(const struct compose *c);

#endif
