/* SPDX-License-Identifier: Apache-2.0 */
/*
 * triage_early.c - the scan's first PoV reproduced as soon as it arrives
 *
 * One thread, started from the run phase's exchange and awaited by
 * triage (or by the end of the scan's proving phases, on every path).
 */
#include "runner/phase/triage_early.h"
#include "runner/config/config.h"
#include "runner/exec/build_group.h"
#include "runner/exec/reproduce_pov.h"
#include "runner/scan/scan.h"
#include "runner/scan/timings.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct triage_early {
	struct scan *s;
	pthread_t tid;
	int started, joined;
	char *harness;
	char sha[65];
	char *testcase;		/* <work>/triage/pov-<sha> */
	int span;
	int r, on_base;		/* reproduce_pov's */
	char *msg;		/* its error's message */
	struct compose_resources res;	/* every core's share, or none */
	int all_cores;
};

void triage_early_enable(struct scan *s)
{
	if (!s->triage_early)
		s->triage_early = xcalloc(1, sizeof(*s->triage_early));
}

static void *early_main(void *arg)
{
	struct triage_early *e = arg;

	if (e->all_cores)
		scan_set_shared_res(&e->res);
	e->r = reproduce_pov(e->s, e->harness, e->sha, e->testcase,
			     &e->on_base);
	if (e->r)
		e->msg = xstrdup(crs_error_last());
	crs_error_clear();
	timing_end(e->s, e->span);
	return NULL;
}

void triage_early_start(struct scan *s, const char *harness,
			const void *data, size_t len, int all_cores)
{
	struct triage_early *e = s->triage_early;
	char name[13], *dir;
	int r;

	if (!e || e->started || e->harness)
		return;
	sha256_hex(e->sha, data, len);
	e->s = s;
	e->harness = xstrdup(harness);
	e->testcase = scan_work_path(s, "triage/pov-%s", e->sha);
	dir = scan_work_path(s, "triage");
	r = fs_mkdir_p(dir);
	free(dir);
	if (r != 0 || fs_write_file_atomic(e->testcase, data, len) != 0) {
		log_warn("triage: PoV %.12s is left to triage: %s", e->sha,
			 crs_error_last());
		crs_error_clear();
		return;
	}
	/* a head and a base reproduction now, a coverage replay soon */
	if (all_cores && build_group_resources(&e->res, s->compose, 3) == 0)
		e->all_cores = 1;
	crs_error_clear();
	snprintf(name, sizeof(name), "%.12s", e->sha);
	log_info("triage: PoV %.12s on %s reproduced now, as the run goes on",
		 e->sha, harness);
	e->span = timing_begin_harness(s, "triage", name, harness);
	if (pthread_create(&e->tid, NULL, early_main, e) != 0) {
		log_warn("triage: PoV %.12s is left to triage: cannot start "
			 "a thread: %s", e->sha, strerror(errno));
		timing_end(s, e->span);
		return;
	}
	e->started = 1;
}

int triage_early_covers(const struct scan *s, const char *harness,
			const char *sha)
{
	const struct triage_early *e = s->triage_early;

	return e && e->started && !strcmp(e->harness, harness) &&
		!strcmp(e->sha, sha);
}

static void join(struct triage_early *e)
{
	if (e->started && !e->joined) {
		pthread_join(e->tid, NULL);
		e->joined = 1;
	}
}

int triage_early_take(struct scan *s, const char *harness, const char *sha,
		      int *on_base)
{
	struct triage_early *e = s->triage_early;

	if (!triage_early_covers(s, harness, sha))
		return -1;
	join(e);
	*on_base = e->on_base;
	if (e->r)
		return crs_error_set(e->r, "%s", e->msg);
	return 0;
}

void triage_early_end(struct scan *s)
{
	struct triage_early *e = s->triage_early;

	if (!e)
		return;
	join(e);
	if (e->all_cores)
		build_group_resources_release(&e->res);
	free(e->harness);
	free(e->testcase);
	free(e->msg);
	free(e);
	s->triage_early = NULL;
}
