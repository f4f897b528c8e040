/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_build_group.c - crs-ci's jobs in threads: groups side by side
 * (runner/exec/build_group.c) and jobs started early (bg_job.c)
 *
 * The first failing job's code and message are the group's, and the
 * others see the stop through scan_interrupted() (which is how their
 * container waits end); a Ctrl-C on the process stops every job; the
 * scan's own interrupt flag is back in place afterwards. Groups nest
 * and run side by side: a failure inside one job's own group stops only
 * that group, and each job gets its caller's shared cores. The shared
 * resources: the union of the compose's cpusets, its memory split; infra's
 * CPUs no CRS owns lent to a CRS when they add to its own. A
 * background job's result reaches its joiner; discarding it stops it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "runner/exec/bg_job.h"
#include "runner/exec/build_group.h"
#include "runner/config/config.h"
#include "runner/scan/ctx.h"
#include "runner/scan/scan.h"
#include "common/error.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void nap_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

/* Waits for the stop (at most 20 s); records that it saw it. */
static int wait_stop(struct scan *s, void *arg)
{
	int *saw = arg;

	for (int i = 0; i < 20000; i++) {
		if (scan_interrupted(s)) {
			*saw = 1;
			return crs_error_set(CRS_EINTR, "interrupted");
		}
		nap_ms(1);
	}
	return 0;
}

static int fail_soon(struct scan *s, void *arg)
{
	(void)s;
	nap_ms(20);
	return crs_error_set(CRS_EBUILD, "%s: planted failure",
			     (const char *)arg);
}

static int succeed(struct scan *s, void *arg)
{
	(void)s;
	*(pthread_t *)arg = pthread_self();
	return 0;
}

/* A scan with its own interrupt flag (the user's Ctrl-C). */
struct fixture {
	volatile int user;
	struct runner_ctx ctx;
	struct scan s;
};

static void fixture_init(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->ctx.interrupted = &f->user;
	f->s.ctx = &f->ctx;
	scan_exec_bind(&f->s);
}

static void test_first_failure_stops_others(void **st)
{
	struct fixture f;
	int saw1 = 0, saw2 = 0;
	struct build_job jobs[] = {
		{ "head build", wait_stop, &saw1 },
		{ "crs-x", fail_soon, "crs-x build step" },
		{ "base build", wait_stop, &saw2 },
	};

	(void)st;
	fixture_init(&f);
	assert_int_equal(build_group_run(&f.s, jobs, 3), CRS_EBUILD);
	assert_string_equal(crs_error_last(), "crs-x build step: planted "
			    "failure");
	assert_true(saw1);
	assert_true(saw2);
	assert_ptr_equal(f.s.ctx, &f.ctx);
	assert_int_equal(f.user, 0);
	crs_error_clear();
}

static void test_all_succeed_in_threads(void **st)
{
	struct fixture f;
	pthread_t t[3];
	struct build_job jobs[] = {
		{ "a", succeed, &t[0] }, { "b", succeed, &t[1] },
		{ "c", succeed, &t[2] },
	};

	(void)st;
	fixture_init(&f);
	assert_int_equal(build_group_run(&f.s, jobs, 3), 0);
	for (int i = 0; i < 3; i++)
		assert_false(pthread_equal(t[i], pthread_self()));
	assert_false(pthread_equal(t[0], t[1]));
	assert_ptr_equal(f.s.ctx, &f.ctx);
}

static volatile int *ctrl_c_flag;

static void *press_ctrl_c(void *arg)
{
	(void)arg;
	nap_ms(30);
	*ctrl_c_flag = 1;
	return NULL;
}

static void test_ctrl_c_stops_every_job(void **st)
{
	struct fixture f;
	int saw1 = 0, saw2 = 0;
	struct build_job jobs[] = {
		{ "head build", wait_stop, &saw1 },
		{ "base build", wait_stop, &saw2 },
	};
	pthread_t t;

	(void)st;
	fixture_init(&f);
	ctrl_c_flag = &f.user;
	assert_int_equal(pthread_create(&t, NULL, press_ctrl_c, NULL), 0);
	assert_int_equal(build_group_run(&f.s, jobs, 2), CRS_EINTR);
	pthread_join(t, NULL);
	assert_true(saw1);
	assert_true(saw2);
	assert_ptr_equal(f.s.ctx, &f.ctx);
	crs_error_clear();
}

/* A sibling that runs while the other job's inner group fails. */
struct sibling {
	volatile int inner_done;
	int saw_stop;
};

/* As wait_stop, then slow to end (a container being removed). */
static int wait_stop_linger(struct scan *s, void *arg)
{
	int r = wait_stop(s, arg);

	nap_ms(100);
	return r;
}

static int inner_group_fails(struct scan *s, void *arg)
{
	struct sibling *sib = arg;
	int saw = 0;
	struct build_job inner[] = {
		{ "head reproduction", fail_soon, "head reproduction" },
		{ "base reproduction", wait_stop_linger, &saw },
	};
	int r = build_group_run(s, inner, 2);

	/* the inner sibling was stopped; the outer group goes on */
	assert_true(saw);
	assert_false(scan_interrupted(s));
	sib->inner_done = 1;
	crs_error_clear();
	return r == CRS_EBUILD ? 0 : r;
}

static int watch_until_inner_done(struct scan *s, void *arg)
{
	struct sibling *sib = arg;

	for (int i = 0; i < 20000 && !sib->inner_done; i++) {
		if (scan_interrupted(s))
			sib->saw_stop = 1;
		nap_ms(1);
	}
	return sib->inner_done ? 0 : crs_error_set(CRS_ERR, "no end");
}

static void test_nested_group_stops_only_itself(void **st)
{
	struct fixture f;
	struct sibling sib = { 0, 0 };
	struct build_job jobs[] = {
		{ "triage", inner_group_fails, &sib },
		{ "change coverage", watch_until_inner_done, &sib },
	};

	(void)st;
	fixture_init(&f);
	assert_int_equal(build_group_run(&f.s, jobs, 2), 0);
	assert_false(sib.saw_stop);
	assert_int_equal(f.user, 0);
	assert_ptr_equal(f.s.ctx, &f.ctx);
}

static int note_shared_res(struct scan *s, void *arg)
{
	(void)s;
	*(const struct compose_resources **)arg = exec_shared_res();
	return 0;
}

static void test_jobs_get_callers_share(void **st)
{
	struct fixture f;
	struct compose_resources share = { .cpuset = "0-1" };
	const struct compose_resources *seen[2] = { NULL, NULL };
	struct build_job jobs[] = {
		{ "a", note_shared_res, &seen[0] },
		{ "b", note_shared_res, &seen[1] },
	};

	(void)st;
	fixture_init(&f);
	assert_null(exec_shared_res());
	exec_set_shared_res(&share);
	assert_int_equal(build_group_run(&f.s, jobs, 2), 0);
	exec_set_shared_res(NULL);
	assert_ptr_equal(seen[0], &share);
	assert_ptr_equal(seen[1], &share);
	/* without one, infra's */
	assert_int_equal(build_group_run(&f.s, jobs, 2), 0);
	assert_null(seen[0]);
	assert_null(seen[1]);
}

static void test_resources(void **st)
{
	struct compose_crs crs[2];
	struct compose c;
	struct compose_resources r;

	(void)st;
	memset(&c, 0, sizeof(c));
	memset(crs, 0, sizeof(crs));
	c.infra.cpuset = "0";
	c.infra.memory_bytes = 2LL << 30;
	crs[0].res.cpuset = "1";
	crs[0].res.memory_bytes = 4LL << 30;
	crs[1].res.cpuset = "3-4";
	crs[1].res.memory_bytes = 4LL << 30;
	c.crs = crs;
	c.crs_nr = 2;
	assert_int_equal(build_group_resources(&r, &c, 5), 0);
	assert_string_equal(r.cpuset, "0-1,3-4");
	assert_int_equal(r.memory_bytes, 2LL << 30);	/* 10G / 5 */
	assert_int_equal(build_group_cpus(r.cpuset), 4);
	build_group_resources_release(&r);
	/* a CRS without a memory limit: no limit */
	crs[1].res.memory_bytes = 0;
	assert_int_equal(build_group_resources(&r, &c, 5), 0);
	assert_int_equal(r.memory_bytes, 0);
	assert_null(r.memory);
	build_group_resources_release(&r);
	crs[1].res.cpuset = "2-";
	assert_int_equal(build_group_resources(&r, &c, 2), CRS_ECONFIG);
	assert_non_null(strstr(crs_error_last(), "cpuset \"2-\""));
	build_group_resources_release(&r);
	crs_error_clear();
	assert_int_equal(build_group_cpus(NULL), 1);
	assert_int_equal(build_group_cpus("7"), 1);
}

/* The run lends infra's CPUs to a CRS only when they add to its own. */
static void test_cpus_lent(void **st)
{
	char *u;

	(void)st;
	u = build_group_cpus_lent("1", "0");
	assert_string_equal(u, "0-1");
	free(u);
	u = build_group_cpus_lent("2-3", "0,5");
	assert_string_equal(u, "0,2-3,5");
	free(u);
	u = build_group_cpus_lent("0-1", "1");	/* already its own */
	assert_null(u);
	assert_null(build_group_cpus_lent("0", "0"));
	assert_null(build_group_cpus_lent(NULL, "0"));
	assert_null(build_group_cpus_lent("1", ""));
	assert_null(build_group_cpus_lent("1", NULL));
	assert_null(build_group_cpus_lent("1", "0-"));	/* not a list */
	assert_int_equal(crs_error_code(), 0);	/* the caller sees no error */
}

/* What the run may lend: infra's CPUs that no CRS owns. */
static void test_cpus_spare(void **st)
{
	struct compose_crs crs[2];
	struct compose c;
	char *u;

	(void)st;
	memset(&c, 0, sizeof(c));
	memset(crs, 0, sizeof(crs));
	c.infra.cpuset = "0-1";
	crs[0].res.cpuset = "2";
	crs[1].res.cpuset = "3";
	c.crs = crs;
	c.crs_nr = 2;
	u = build_group_cpus_spare(&c);
	assert_string_equal(u, "0-1");
	free(u);
	crs[1].res.cpuset = "1";	/* infra's core 1 is a CRS's too */
	u = build_group_cpus_spare(&c);
	assert_string_equal(u, "0");
	free(u);
	crs[1].res.cpuset = "0-1";	/* the ensemble's: nothing spare */
	assert_null(build_group_cpus_spare(&c));
	crs[1].res.cpuset = "1-";
	assert_null(build_group_cpus_spare(&c));
	assert_int_equal(crs_error_code(), 0);
	c.infra.cpuset = NULL;
	crs[1].res.cpuset = "3";
	assert_null(build_group_cpus_spare(&c));
}

/* Background jobs (runner/exec/bg_job.h). */
struct bg_seen {
	const struct compose_resources *res;
	pthread_t tid;
	int stopped;
};

static int fail_planted(struct scan *s, void *arg)
{
	struct bg_seen *w = arg;

	(void)s;
	w->res = exec_shared_res();
	w->tid = pthread_self();
	return crs_error_set(CRS_EBUILD, "planted failure");
}

/* Waits for its stop (at most 20 s). */
static int bg_wait_stop(struct scan *s, void *arg)
{
	struct bg_seen *w = arg;

	for (int i = 0; i < 20000; i++) {
		if (scan_interrupted(s)) {
			w->stopped = 1;
			return crs_error_set(CRS_EINTR, "interrupted");
		}
		nap_ms(1);
	}
	return 0;
}

static void test_result_and_share_reach_joiner(void **st)
{
	struct fixture f;
	struct compose_resources share = { .cpuset = "0-1" };
	struct bg_seen w = { 0 };
	struct bg_job *j;

	(void)st;
	fixture_init(&f);
	j = bg_job_start(&f.s, "test", fail_planted, &w, &share);
	assert_non_null(j);
	assert_int_equal(bg_job_join(j), CRS_EBUILD);
	assert_string_equal(crs_error_last(), "planted failure");
	assert_ptr_equal(w.res, &share);
	assert_false(pthread_equal(w.tid, pthread_self()));
	assert_null(exec_shared_res());	/* the caller's is its own */
	crs_error_clear();
	assert_int_equal(bg_job_join(NULL), 0);
}

static void test_discard_stops_it_and_keeps_callers_error(void **st)
{
	struct fixture f;
	struct bg_seen w = { 0 };
	struct bg_job *j;

	(void)st;
	fixture_init(&f);
	j = bg_job_start(&f.s, "test", bg_wait_stop, &w, NULL);
	assert_non_null(j);
	nap_ms(20);
	assert_false(w.stopped);	/* the caller's scan is not stopped */
	crs_error_set(CRS_EENGINE, "the scan's own failure");
	bg_job_discard(j);
	assert_true(w.stopped);
	assert_string_equal(crs_error_last(), "the scan's own failure");
	assert_int_equal(f.user, 0);
	crs_error_clear();
	bg_job_discard(NULL);
}

static void test_ctrl_c_reaches_joined_job(void **st)
{
	struct fixture f;
	struct bg_seen w = { 0 };
	struct bg_job *j;
	pthread_t t;

	(void)st;
	fixture_init(&f);
	ctrl_c_flag = &f.user;
	j = bg_job_start(&f.s, "test", bg_wait_stop, &w, NULL);
	assert_non_null(j);
	assert_int_equal(pthread_create(&t, NULL, press_ctrl_c, NULL), 0);
	assert_int_equal(bg_job_join(j), CRS_EINTR);
	pthread_join(t, NULL);
	assert_true(w.stopped);
	crs_error_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_failure_stops_others),
		cmocka_unit_test(test_all_succeed_in_threads),
		cmocka_unit_test(test_ctrl_c_stops_every_job),
		cmocka_unit_test(test_nested_group_stops_only_itself),
		cmocka_unit_test(test_jobs_get_callers_share),
		cmocka_unit_test(test_resources),
		cmocka_unit_test(test_cpus_lent),
		cmocka_unit_test(test_cpus_spare),
		cmocka_unit_test(test_result_and_share_reach_joiner),
		cmocka_unit_test(test_discard_stops_it_and_keeps_callers_error),
		cmocka_unit_test(test_ctrl_c_reaches_joined_job),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
