/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_change_cov.c - counting a change's executed lines, merging the
 * ranges never reached, the one-line summary, results.json round trips
 * and the union `crs-ci merge` takes of shards
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sarif/change_cov.h"
#include "common/buf.h"
#include "common/error.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* lines first..last of path, all in one state */
static void add_span(struct change_cov *c, const char *path, int first,
		     int last, enum change_cov_state st)
{
	for (int l = first; l <= last; l++)
		change_cov_add(c, path, l, st);
}

static char *line_of(const struct change_cov *c)
{
	struct buf b = BUF_INIT;

	change_cov_line(&b, c);
	return buf_detach(&b, NULL);
}

/*
 * The example: 39 executable changed lines, 31 executed, lines
 * 120-131 never reached; comment lines (NONE) are not counted and do not
 * split a range; an unchanged line between two hunks does.
 */
static void test_counts_and_ranges(void **state)
{
	struct change_cov *c = change_cov_new();
	char *s;

	(void)state;
	add_span(c, "src/x.c", 30, 60, CHANGE_COV_HIT);		/* 31 */
	add_span(c, "src/x.c", 120, 124, CHANGE_COV_MISSED);
	change_cov_add(c, "src/x.c", 125, CHANGE_COV_NONE);	/* comment */
	add_span(c, "src/x.c", 126, 128, CHANGE_COV_MISSED);
	add_span(c, "src/x.c", 129, 131, CHANGE_COV_MISSED);
	change_cov_add(c, "src/x.c", 132, CHANGE_COV_NONE);	/* trailing */
	change_cov_add(c, "src/x.c", 119, CHANGE_COV_NONE);	/* leading */
	change_cov_add_harness(c, "fuzz_records", 31);
	change_cov_finish(c);
	assert_int_equal(c->lines_total, 42);
	assert_int_equal(c->lines_executed, 31);
	assert_int_equal(c->not_reached_nr, 1);
	assert_string_equal(c->not_reached[0].file, "src/x.c");
	assert_int_equal(c->not_reached[0].start, 120);
	assert_int_equal(c->not_reached[0].end, 131);
	s = line_of(c);
	assert_string_equal(s, "fuzzing executed 31 of 42 changed lines; not "
			    "reached: src/x.c:120-131");
	free(s);
	change_cov_free(c);
}

/* An executed line and a gap of unchanged lines both end a range. */
static void test_ranges_split(void **state)
{
	struct change_cov *c = change_cov_new();
	char *s;

	(void)state;
	/* added out of order, with repeats: the higher state wins */
	change_cov_add(c, "b.c", 7, CHANGE_COV_MISSED);
	add_span(c, "a.c", 10, 12, CHANGE_COV_MISSED);
	change_cov_add(c, "a.c", 13, CHANGE_COV_HIT);
	add_span(c, "a.c", 14, 15, CHANGE_COV_MISSED);
	change_cov_add(c, "a.c", 20, CHANGE_COV_MISSED);	/* a gap */
	change_cov_add(c, "a.c", 11, CHANGE_COV_NONE);	/* repeat: keeps */
	change_cov_add(c, "b.c", 7, CHANGE_COV_HIT);	/* repeat: raises */
	change_cov_finish(c);
	assert_int_equal(c->lines_total, 8);
	assert_int_equal(c->lines_executed, 2);
	assert_int_equal(c->not_reached_nr, 3);
	assert_string_equal(c->not_reached[0].file, "a.c");
	assert_int_equal(c->not_reached[0].start, 10);
	assert_int_equal(c->not_reached[0].end, 12);
	assert_int_equal(c->not_reached[1].start, 14);
	assert_int_equal(c->not_reached[1].end, 15);
	assert_int_equal(c->not_reached[2].start, 20);
	assert_int_equal(c->not_reached[2].end, 20);
	s = line_of(c);
	assert_string_equal(s, "fuzzing executed 2 of 8 changed lines; not "
			    "reached: a.c:10-12, a.c:14-15, a.c:20");
	free(s);
	change_cov_free(c);
}

/* All reached: no list; more ranges than shown: "and N more". */
static void test_line_forms(void **state)
{
	struct change_cov *c = change_cov_new();
	char *s;

	(void)state;
	add_span(c, "src/recparse.c", 18, 40, CHANGE_COV_HIT);
	change_cov_add(c, "src/recparse.c", 17, CHANGE_COV_NONE);
	change_cov_finish(c);
	s = line_of(c);
	assert_string_equal(s, "fuzzing executed 23 of 23 changed lines");
	free(s);
	change_cov_free(c);

	c = change_cov_new();
	for (int i = 0; i < CHANGE_COV_SHOWN + 3; i++)
		change_cov_add(c, "m.c", 10 + 2 * i, CHANGE_COV_MISSED);
	change_cov_finish(c);
	s = line_of(c);
	assert_non_null(strstr(s, "fuzzing executed 0 of 11 changed lines; "
			       "not reached: m.c:10, m.c:12, "));
	assert_non_null(strstr(s, ", m.c:24 and 3 more"));
	assert_null(strstr(s, "m.c:26"));
	free(s);
	change_cov_free(c);

	c = change_cov_new();
	change_cov_set_unknown(c, "the replay of fuzz_records failed");
	s = line_of(c);
	assert_string_equal(s, "fuzzing's coverage of the changed lines is "
			    "unknown: the replay of fuzz_records failed");
	free(s);
	change_cov_free(c);
}

static struct change_cov *round_trip(const struct change_cov *c)
{
	json_t *j = change_cov_to_json(c);
	char *text = json_dumps(j, 0);
	json_t *back = json_loads(text, 0, NULL);
	struct change_cov *out = NULL;

	assert_int_equal(change_cov_from_json(&out, back, "results.json"), 0);
	json_decref(j);
	json_decref(back);
	free(text);
	return out;
}

static void test_json_round_trip(void **state)
{
	struct change_cov *c = change_cov_new(), *d;
	json_t *j;

	(void)state;
	add_span(c, "src/x.c", 30, 40, CHANGE_COV_HIT);
	change_cov_add(c, "src/x.c", 41, CHANGE_COV_NONE);
	add_span(c, "src/x.c", 42, 45, CHANGE_COV_MISSED);
	change_cov_add_harness(c, "fuzz_records", 11);
	change_cov_add_harness(c, "fuzz_text", 0);
	change_cov_finish(c);
	j = change_cov_to_json(c);
	assert_string_equal(json_string_value(json_object_get(j, "status")),
			    "measured");
	assert_int_equal(json_integer_value(json_object_get(j,
			 "lines_total")), 15);
	assert_int_equal(json_integer_value(json_object_get(j,
			 "lines_executed")), 11);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
			 j, "by_harness"), "fuzz_records")), 11);
	{
		json_t *nr = json_array_get(json_object_get(j, "not_reached"),
					    0);

		assert_string_equal(json_string_value(json_object_get(nr,
				    "file")), "src/x.c");
		assert_int_equal(json_integer_value(json_object_get(nr,
				 "start")), 42);
		assert_int_equal(json_integer_value(json_object_get(nr,
				 "end")), 45);
	}
	json_decref(j);
	d = round_trip(c);
	assert_null(d->unknown);
	assert_int_equal(d->lines_total, 15);
	assert_int_equal(d->lines_executed, 11);
	assert_int_equal(d->files_nr, 1);
	assert_int_equal(d->files[0].nr, 16);
	assert_int_equal(d->not_reached_nr, 1);
	assert_int_equal(d->by_harness_nr, 2);
	change_cov_free(d);
	change_cov_free(c);

	c = change_cov_new();
	change_cov_set_unknown(c, "no time left");
	d = round_trip(c);
	assert_string_equal(d->unknown, "no time left");
	change_cov_free(d);
	change_cov_free(c);
}

/* A shard's results.json is input: malformed or huge ranges refused. */
static void test_json_rejects(void **state)
{
	static const char *const bad[] = {
		"[]",
		"{}",
		"{\"status\":\"maybe\"}",
		"{\"status\":\"measured\"}",
		"{\"status\":\"measured\",\"files\":[{\"path\":\"a\","
		"\"changed\":[[3,1]],\"executable\":[],\"executed\":[]}]}",
		"{\"status\":\"measured\",\"files\":[{\"path\":\"a\","
		"\"changed\":[[0,1]],\"executable\":[],\"executed\":[]}]}",
		"{\"status\":\"measured\",\"files\":[{\"path\":\"a\","
		"\"changed\":[[1,2000000000]],\"executable\":[],"
		"\"executed\":[]}]}",
		"{\"status\":\"measured\",\"files\":[{\"changed\":[],"
		"\"executable\":[],\"executed\":[]}]}",
		"{\"status\":\"measured\",\"files\":[],\"by_harness\":"
		"{\"h\":-1}}",
		"{\"status\":\"measured\",\"files\":[],"
		"\"lines_around_removals\":1}",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *j = json_loads(bad[i], 0, NULL);
		struct change_cov *c = (struct change_cov *)1;

		assert_non_null(j);
		assert_int_equal(change_cov_from_json(&c, j, "r.json"),
				 CRS_EINPUT);
		assert_null(c);
		assert_non_null(strstr(crs_error_last(), "r.json: "
				       "change_coverage"));
		crs_error_clear();
		json_decref(j);
	}
}

/* A change that only removed lines: its lines are those around the
 * removals, said so in the line and kept through JSON and merges. */
static void test_around_removals(void **state)
{
	struct change_cov *c = change_cov_new(), *back = NULL, *m;
	json_t *j;
	char *s;

	(void)state;
	c->around_removals = 1;
	add_span(c, "src/a.c", 21, 22, CHANGE_COV_HIT);
	change_cov_finish(c);
	s = line_of(c);
	assert_string_equal(s, "fuzzing executed 2 of 2 lines around the "
			    "removals");
	free(s);
	j = change_cov_to_json(c);
	assert_true(json_is_true(json_object_get(j, "lines_around_removals")));
	assert_int_equal(change_cov_from_json(&back, j, "r.json"), 0);
	assert_int_equal(back->around_removals, 1);
	json_decref(j);
	/* a record without the field: changed lines */
	m = change_cov_new();
	j = change_cov_to_json(m);
	assert_null(json_object_get(j, "lines_around_removals"));
	change_cov_merge(m, back);
	assert_int_equal(m->around_removals, 1);
	json_decref(j);
	change_cov_free(m);
	change_cov_free(back);
	change_cov_free(c);
}

/* Shards: the union of executed lines; unknown wins. */
static void test_merge(void **state)
{
	struct change_cov *a = change_cov_new(), *b = change_cov_new();
	char *s;

	(void)state;
	add_span(a, "src/x.c", 10, 13, CHANGE_COV_HIT);
	add_span(a, "src/x.c", 14, 20, CHANGE_COV_MISSED);
	change_cov_add_harness(a, "h1", 4);
	change_cov_finish(a);
	add_span(b, "src/x.c", 10, 16, CHANGE_COV_MISSED);
	add_span(b, "src/x.c", 17, 18, CHANGE_COV_HIT);
	add_span(b, "src/x.c", 19, 20, CHANGE_COV_MISSED);
	add_span(b, "src/y.c", 1, 2, CHANGE_COV_MISSED);
	change_cov_add_harness(b, "h2", 2);
	change_cov_finish(b);
	change_cov_merge(a, b);
	assert_int_equal(a->lines_total, 13);
	assert_int_equal(a->lines_executed, 6);
	assert_int_equal(a->by_harness_nr, 2);
	s = line_of(a);
	assert_string_equal(s, "fuzzing executed 6 of 13 changed lines; not "
			    "reached: src/x.c:14-16, src/x.c:19-20, "
			    "src/y.c:1-2");
	free(s);
	change_cov_set_unknown(b, "shard 2: the replay failed");
	change_cov_merge(a, b);
	s = line_of(a);
	assert_string_equal(s, "fuzzing's coverage of the changed lines is "
			    "unknown: shard 2: the replay failed");
	free(s);
	change_cov_free(a);
	change_cov_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_and_ranges),
		cmocka_unit_test(test_ranges_split),
		cmocka_unit_test(test_line_forms),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_json_rejects),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_around_removals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
