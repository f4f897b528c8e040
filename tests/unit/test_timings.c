/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_timings.c - the timings record (runner/scan/timings_record.c) and
 * its scan side (runner/scan/timings.c)
 *
 * Lanes for overlapping spans, the JSON shape of results.json's
 * "timings", many threads beginning and ending spans at once, the record
 * surviving its process (a second recorder on the same file: the phase
 * commands run one by one), a re-run phase replacing its spans,
 * "prepare" starting a new record, a report re-run later keeping the
 * scan's own clock, and results.json carrying "timings" through load and
 * save.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "runner/scan/timings.h"
#include "runner/scan/timings_record.h"
#include "runner/scan/scan.h"
#include "runner/report/markdown.h"
#include "runner/report/terminal.h"
#include "runner/report/timing_summary.h"
#include "sarif/finding.h"
#include "common/buf.h"
#include "common/xalloc.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fixture {
	char dir[64];
	char path[96];
};

static int setup(void **st)
{
	struct fixture *f = xcalloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/test_timings.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/timings.json", f->dir);
	*st = f;
	return 0;
}

static int teardown(void **st)
{
	struct fixture *f = *st;

	unlink(f->path);
	rmdir(f->dir);
	free(f);
	return 0;
}

static struct timings *rec_new(const struct fixture *f)
{
	return timings_new(f->path, timings_wall_now(), 600);
}

/* The span of `kind` named `name` in the record's JSON (borrowed). */
static json_t *find_span(json_t *j, const char *kind, const char *name)
{
	json_t *e;
	size_t i;

	json_array_foreach(json_object_get(j, "spans"), i, e) {
		const char *k = json_string_value(json_object_get(e, "kind"));
		const char *n = json_string_value(json_object_get(e, "name"));

		if (!strcmp(k, kind) && !strcmp(n, name))
			return e;
	}
	return NULL;
}

static int lane_of(json_t *j, const char *kind, const char *name)
{
	json_t *e = find_span(j, kind, name);

	assert_non_null(e);
	return (int)json_integer_value(json_object_get(e, "lane"));
}

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	assert_true(json_is_number(v));
	return json_number_value(v);
}

static void test_lanes(void **st)
{
	struct timings *t = rec_new(*st);
	int a, b, c, d;
	json_t *j;

	timings_phase(t, "build-target");
	a = timings_begin(t, "compile", "head address", NULL);
	b = timings_begin(t, "compile", "base address", NULL);
	c = timings_begin(t, "image", "target", NULL);
	timings_end(t, a);
	d = timings_begin(t, "crs-build", "libfuzzer/build", NULL);
	timings_end(t, b);
	timings_end(t, c);
	timings_end(t, d);
	timings_end(t, d);	/* twice: a no-op */
	timings_end(t, -1);
	j = timings_json(t);
	assert_non_null(j);
	assert_int_equal(lane_of(j, "phase", "build-target"), 0);
	assert_int_equal(lane_of(j, "compile", "head address"), 0);
	assert_int_equal(lane_of(j, "compile", "base address"), 1);
	assert_int_equal(lane_of(j, "image", "target"), 2);
	/* the head build's lane was free again */
	assert_int_equal(lane_of(j, "crs-build", "libfuzzer/build"), 0);
	json_decref(j);
	timings_free(t);
}

static void test_json_shape(void **st)
{
	struct timings *t = rec_new(*st);
	json_t *j, *e, *spans;
	double prev = -1;
	size_t i;
	int id;

	assert_null(timings_json(t));	/* nothing recorded */
	timings_phase(t, "prepare");
	timings_phase(t, "build-target");
	id = timings_begin(t, "compile", "head address", NULL);
	usleep(20000);
	timings_end(t, id);
	timings_phase(t, "run");
	id = timings_begin(t, "fuzz", "fuzz_records", "fuzz_records");
	usleep(20000);
	timings_first_pov(t);
	usleep(20000);
	timings_first_pov(t);	/* only the first counts */
	timings_end(t, id);
	timings_phase(t, "report");
	j = timings_json(t);
	assert_non_null(j);
	assert_true(num(j, "total_s") > 0.06);
	assert_true(num(j, "cores") >= 1);
	assert_true(num(j, "deadline_s") == 600);
	assert_true(num(j, "fuzz_s") >= 0.04);
	assert_true(num(j, "first_pov_s") >= 0.02);
	assert_true(num(j, "first_pov_s") < num(j, "fuzz_s"));
	spans = json_object_get(j, "spans");
	assert_int_equal(json_array_size(spans), 6);
	json_array_foreach(spans, i, e) {
		assert_true(json_is_string(json_object_get(e, "kind")));
		assert_true(json_is_string(json_object_get(e, "name")));
		assert_true(num(e, "end_s") >= num(e, "start_s"));
		assert_true(num(e, "start_s") >= prev);	/* sorted */
		assert_true(json_is_integer(json_object_get(e, "lane")));
		prev = num(e, "start_s");
	}
	e = find_span(j, "fuzz", "fuzz_records");
	assert_string_equal(json_string_value(json_object_get(e, "harness")),
			    "fuzz_records");
	assert_null(json_object_get(find_span(j, "compile", "head address"),
				    "harness"));
	/* the phases in order, the open report phase ending now */
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(spans, 0), "name")), "prepare");
	assert_non_null(find_span(j, "phase", "report"));
	json_decref(j);
	timings_free(t);
}

struct worker {
	struct timings *t;
	int n;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	char name[32];

	for (int i = 0; i < w->n; i++) {
		int id;

		snprintf(name, sizeof(name), "step %d", i);
		id = timings_begin(w->t, "crs-build", name, NULL);
		timings_end(w->t, id);
	}
	return NULL;
}

static void test_threads(void **st)
{
	enum { THREADS = 8, EACH = 50 };
	struct timings *t = rec_new(*st);
	struct worker w = { t, EACH };
	pthread_t th[THREADS];
	json_t *j, *e;
	size_t i;

	timings_phase(t, "build-target");
	for (int k = 0; k < THREADS; k++)
		assert_int_equal(pthread_create(&th[k], NULL, work, &w), 0);
	for (int k = 0; k < THREADS; k++)
		pthread_join(th[k], NULL);
	j = timings_json(t);
	assert_int_equal(json_array_size(json_object_get(j, "spans")),
			 1 + THREADS * EACH);
	/* at most THREADS spans were open at once: so many lanes */
	json_array_foreach(json_object_get(j, "spans"), i, e)
		assert_true(json_integer_value(json_object_get(e, "lane")) <
			    THREADS);
	json_decref(j);
	timings_free(t);
	/* and what was written is whole */
	t = rec_new(*st);
	j = timings_json(t);
	assert_int_equal(json_array_size(json_object_get(j, "spans")),
			 1 + THREADS * EACH);
	json_decref(j);
	timings_free(t);
}

static void test_persistence(void **st)
{
	struct timings *t = rec_new(*st);
	double build_end;
	json_t *j;
	int id;

	/* crs-ci build-target */
	timings_phase(t, "build-target");
	id = timings_begin(t, "compile", "head address", NULL);
	timings_end(t, id);
	timings_free(t);	/* ends the phase and writes */
	usleep(50000);
	/* crs-ci run, a later process with a clock of its own */
	t = timings_new(((struct fixture *)*st)->path, timings_wall_now(), 300);
	timings_phase(t, "run");
	id = timings_begin(t, "fuzz", "h", "h");
	timings_first_pov(t);
	timings_end(t, id);
	timings_free(t);
	t = rec_new(*st);
	j = timings_json(t);
	assert_non_null(find_span(j, "compile", "head address"));
	assert_non_null(find_span(j, "fuzz", "h"));
	build_end = num(find_span(j, "phase", "build-target"), "end_s");
	/* one clock: the run began after the build ended */
	assert_true(num(find_span(j, "phase", "run"), "start_s") >=
		    build_end + 0.04);
	assert_true(num(j, "deadline_s") == 300);	/* the run's */
	assert_non_null(json_object_get(j, "first_pov_s"));
	json_decref(j);
	/* crs-ci run again: the last run and what followed are replaced */
	timings_phase(t, "run");
	j = timings_json(t);
	assert_null(find_span(j, "fuzz", "h"));
	assert_null(json_object_get(j, "first_pov_s"));
	assert_non_null(find_span(j, "compile", "head address"));
	assert_int_equal(json_array_size(json_object_get(j, "spans")), 3);
	json_decref(j);
	/* crs-ci prepare: a new scan */
	timings_phase(t, "prepare");
	j = timings_json(t);
	assert_int_equal(json_array_size(json_object_get(j, "spans")), 1);
	json_decref(j);
	timings_free(t);
}

/*
 * crs-ci report re-run an hour after the scan (its record written by an
 * earlier process): the total is the scan's own seconds plus the
 * report's, not the time until now.
 */
static void test_report_later_keeps_the_scan_clock(void **st)
{
	struct fixture *f = *st;
	FILE *fp = fopen(f->path, "w");
	struct timings *t;
	json_t *j, *rep;

	assert_non_null(fp);
	fprintf(fp, "{\"format\": \"crs-ci-timings\", \"version\": 1, "
		"\"origin\": %.3f, \"deadline_s\": 600, \"spans\": ["
		"{\"kind\": \"phase\", \"name\": \"prepare\", "
		"\"start_s\": 0, \"end_s\": 40, \"lane\": 0}, "
		"{\"kind\": \"phase\", \"name\": \"run\", "
		"\"start_s\": 40, \"end_s\": 100, \"lane\": 0}, "
		"{\"kind\": \"phase\", \"name\": \"report\", "
		"\"start_s\": 100, \"end_s\": 101, \"lane\": 0}]}",
		timings_wall_now() - 3600);
	fclose(fp);
	t = rec_new(f);
	timings_phase(t, "report");
	j = timings_json(t);
	assert_non_null(j);
	/* the old report is replaced; the new one starts where run ended */
	rep = find_span(j, "phase", "report");
	assert_true(num(rep, "start_s") >= 100 && num(rep, "start_s") < 101);
	assert_true(num(j, "total_s") >= 100 && num(j, "total_s") < 110);
	assert_int_equal(json_array_size(json_object_get(j, "spans")), 3);
	json_decref(j);
	timings_free(t);
	/* and so it stays in the file the next reader finds */
	t = rec_new(f);
	j = timings_json(t);
	assert_true(num(j, "total_s") < 110);
	json_decref(j);
	timings_free(t);
}

static void test_restart_then_prepare(void **st)
{
	struct timings *t = rec_new(*st);
	json_t *j;

	timings_phase(t, "select");
	timings_free(t);
	t = rec_new(*st);
	timings_restart(t);	/* crs-ci scan */
	timings_phase(t, "prepare");	/* keeps this process's record */
	timings_phase(t, "build-target");
	j = timings_json(t);
	assert_null(find_span(j, "phase", "select"));
	assert_int_equal(json_array_size(json_object_get(j, "spans")), 2);
	json_decref(j);
	timings_free(t);
}

static void test_bad_file(void **st)
{
	struct fixture *f = *st;
	FILE *fp = fopen(f->path, "w");
	struct timings *t;
	json_t *j;

	assert_non_null(fp);
	fputs("{\"format\": \"crs-ci-timings\", \"origin\": 1, \"spans\": "
	      "[{\"kind\": 3}, {\"kind\": \"phase\", \"name\": \"x\", "
	      "\"start_s\": 5, \"end_s\": 1, \"lane\": 0}]}", fp);
	fclose(fp);
	t = rec_new(f);
	assert_null(timings_json(t));	/* both spans refused */
	timings_free(t);
	fp = fopen(f->path, "w");
	fputs("[1, 2", fp);
	fclose(fp);
	t = rec_new(f);
	timings_phase(t, "run");
	j = timings_json(t);
	assert_int_equal(json_array_size(json_object_get(j, "spans")), 1);
	json_decref(j);
	timings_free(t);
}

/* The scan side: no record, no-ops; results.json keeps "timings". */
static void test_scan_and_results(void **st)
{
	struct fixture *f = *st;
	struct scan s;
	struct finding_set fs, back;
	char results[128];
	json_t *kept;

	memset(&s, 0, sizeof(s));
	assert_int_equal(timing_begin(&s, "compile", "x"), -1);
	timing_end(&s, -1);
	timing_phase(&s, "run");
	s.timings = rec_new(f);
	finding_set_init(&fs);
	finding_set_init(&back);
	timing_phase(&s, "report");
	/* the report phase alone, with its GitHub reports: none added */
	timing_end(&s, timing_begin(&s, "report", "github"));
	timings_into(&s, &fs);
	assert_null(fs.timings);
	fs.timings = json_pack("{s:f}", "total_s", 9.0);
	timings_into(&s, &fs);	/* the report phase alone: kept */
	assert_true(num(fs.timings, "total_s") == 9.0);
	timing_end(&s, timing_begin_harness(&s, "fuzz", "h", "h"));
	timings_into(&s, &fs);
	assert_non_null(find_span(fs.timings, "fuzz", "h"));
	snprintf(results, sizeof(results), "%s/results.json", f->dir);
	fs.summary.tool_version = xstrdup("test");
	assert_int_equal(finding_set_save(&fs, results), 0);
	assert_int_equal(finding_set_load(&back, results), 0);
	kept = back.timings;
	assert_non_null(kept);
	assert_non_null(find_span(kept, "fuzz", "h"));
	unlink(results);
	finding_set_release(&fs);
	finding_set_release(&back);
	timings_free(s.timings);
}

/* A hostile harness name (the PR names its binaries) in both sinks. */
static const char hostile_timings[] =
	"{\"total_s\": 20.5, \"cores\": 2, \"deadline_s\": 100, "
	"\"fuzz_s\": 10, \"first_pov_s\": 1.25, \"spans\": ["
	"{\"kind\": \"phase\", \"name\": \"build-target\", "
	"\"start_s\": 0, \"end_s\": 8, \"lane\": 0},"
	"{\"kind\": \"compile\", \"name\": \"head address\", "
	"\"start_s\": 1, \"end_s\": 7.5, \"lane\": 0},"
	"{\"kind\": \"phase\", \"name\": \"run\", "
	"\"start_s\": 8, \"end_s\": 20, \"lane\": 0},"
	"{\"kind\": \"fuzz\", \"name\": \"h\\n::error::x<b>\", "
	"\"harness\": \"h\\n::error::x<b>\", "
	"\"start_s\": 9, \"end_s\": 14, \"lane\": 0},"
	"{\"kind\": \"fuzz\", \"name\": \"h\\n::error::x<b>\", "
	"\"harness\": \"h\\n::error::x<b>\", "
	"\"start_s\": 14, \"end_s\": 19, \"lane\": 0},"
	"{\"kind\": 7}]}";

static void test_summary_lines(void **st)
{
	struct finding_set fs;
	struct buf md = BUF_INIT;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)st;
	finding_set_init(&fs);
	fs.timings = json_loads(hostile_timings, 0, NULL);
	assert_non_null(fs.timings);
	assert_non_null(f);
	terminal_report(f, &fs, "out");
	fclose(f);
	assert_non_null(strstr(text, "\n  timings: 20.5 s on 2 core(s); "
			       "fuzzed 10.0 s of the 100 s deadline (10 %); "
			       "first PoV 1.2 s after the run began\n"));
	assert_non_null(strstr(text, "\n  phases: build-target 8.0 s, "
			       "run 12.0 s\n"));
	assert_non_null(strstr(text, "\n  builds: compile head address "
			       "6.5 s; 6.5 s in all\n"));
	/* one harness, both its runs, its name quoted on one line */
	assert_non_null(strstr(text, "\n  fuzzing: h\\x0a::error::x<b> "
			       "10.0 s\n"));
	assert_null(strstr(text, "\n::"));
	timing_summary(&md, fs.timings, "- ", md_escape);
	assert_non_null(strstr(md.ptr, "- fuzzing: h \\:\\:error\\:\\:x"
			       "&lt;b&gt; 10.0 s\n"));
	assert_null(strstr(md.ptr, "<b>"));
	buf_release(&md);
	timing_summary(&md, NULL, "- ", md_escape);	/* none: nothing */
	assert_int_equal(md.len, 0);
	buf_release(&md);
	free(text);
	finding_set_release(&fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lanes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_shape, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_persistence, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_report_later_keeps_the_scan_clock, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_restart_then_prepare,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_file, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_scan_and_results, setup,
						teardown),
		cmocka_unit_test(test_summary_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
