/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_project_cov.c - --mode coverage's numbers, history and page
 * (runner/scan/coverage_totals.c, sarif/project_cov.c,
 * runner/report/coverage_html.c)
 *
 * Two harnesses' lcov exports join per repository file (a line run by
 * either counts once; files outside the repository are left out); the
 * store's history is hostile input, read field by field and capped; a
 * hostile file name lands in the page as text, never as markup.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "runner/report/coverage_html.h"
#include "runner/scan/coverage.h"
#include "runner/scan/coverage_totals.h"
#include "sarif/project_cov.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct coverage *parse(const char *text)
{
	struct coverage *c = NULL;

	assert_int_equal(coverage_parse_lcov(&c, text, strlen(text), "t"), 0);
	return c;
}

static void test_totals_union(void **state)
{
	struct coverage *covs[2];
	struct project_cov pc = { 0 };
	struct buf lcov = BUF_INIT;

	(void)state;
	covs[0] = parse("SF:/src/p/a.c\nDA:1,1\nDA:2,0\nDA:3,0\n"
			"end_of_record\nSF:/usr/include/stdio.h\nDA:9,4\n"
			"end_of_record\n");
	covs[1] = parse("SF:/src/p/a.c\nDA:2,7\nDA:3,0\nend_of_record\n"
			"SF:/src/p/sub/b.c\nDA:5,1\nend_of_record\n");
	coverage_totals(&pc, &lcov, covs, 2, "/src/p");
	assert_int_equal(pc.nr, 2);
	assert_string_equal(pc.files[0].path, "a.c");
	assert_int_equal(pc.files[0].lines, 3);
	assert_int_equal(pc.files[0].hit, 2);	/* 1 by one, 2 by the other */
	assert_string_equal(pc.files[1].path, "sub/b.c");
	assert_int_equal(pc.lines, 4);
	assert_int_equal(pc.hit, 3);
	assert_string_equal(lcov.ptr, "SF:a.c\nDA:1,1\nDA:2,1\nDA:3,0\n"
			    "LF:3\nLH:2\nend_of_record\nSF:sub/b.c\n"
			    "DA:5,1\nLF:1\nLH:1\nend_of_record\n");
	project_cov_release(&pc);
	buf_release(&lcov);
	coverage_free(covs[0]);
	coverage_free(covs[1]);
}

static int history(struct project_cov *c, const char *text)
{
	json_t *j = json_loads(text, 0, NULL);
	int r;

	assert_non_null(j);
	r = project_cov_history_from_json(c, j, "history.json");
	json_decref(j);
	return r;
}

static void test_history_hostile(void **state)
{
	struct project_cov c = { 0 };
	struct buf b = BUF_INIT;
	json_t *j;

	(void)state;
	assert_int_equal(history(&c, "{\"points\":[{\"at\":\"2026-12-01T00:"
				 "00:00Z\",\"commit\":\"abc\",\"lines\":10,"
				 "\"hit\":4,\"inputs\":7}]}"), 0);
	assert_int_equal(c.history_nr, 1);
	assert_int_equal(c.history[0].hit, 4);
	/* more lines hit than lines */
	assert_int_equal(history(&c, "{\"points\":[{\"at\":\"x\",\"commit\":"
				 "\"c\",\"lines\":1,\"hit\":2,\"inputs\":0}]}"),
			 CRS_EINPUT);
	crs_error_clear();
	/* a count that is text, a negative one */
	assert_int_equal(history(&c, "{\"points\":[{\"at\":\"x\",\"commit\":"
				 "\"c\",\"lines\":\"1\",\"hit\":0,\"inputs\":"
				 "0}]}"), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "points[].lines"));
	crs_error_clear();
	assert_int_equal(history(&c, "{\"points\":[{\"at\":\"x\",\"commit\":"
				 "\"c\",\"lines\":1,\"hit\":0,\"inputs\":-1}]}"),
			 CRS_EINPUT);
	crs_error_clear();
	/* a control character, a missing commit */
	assert_int_equal(history(&c, "{\"points\":[{\"at\":\"a\\u001bb\","
				 "\"commit\":\"c\",\"lines\":1,\"hit\":0,"
				 "\"inputs\":0}]}"), CRS_EINPUT);
	crs_error_clear();
	assert_int_equal(history(&c, "{\"points\":[{\"at\":\"a\",\"lines\":"
				 "1,\"hit\":0,\"inputs\":0}]}"), CRS_EINPUT);
	crs_error_clear();
	assert_int_equal(history(&c, "{\"points\":{}}"), CRS_EINPUT);
	crs_error_clear();
	/* 250 points: the newest 200 are kept */
	buf_adds(&b, "{\"points\":[");
	for (int i = 0; i < 250; i++)
		buf_printf(&b, "%s{\"at\":\"p%d\",\"commit\":\"c\",\"lines\":"
			   "%d,\"hit\":0,\"inputs\":0}", i ? "," : "", i, i);
	buf_adds(&b, "]}");
	assert_int_equal(history(&c, b.ptr), 0);
	assert_int_equal(c.history_nr, PROJECT_COV_HISTORY_MAX);
	assert_string_equal(c.history[0].at, "p50");
	/* and a new point drops the oldest */
	project_cov_add_point(&c, "now", "c", 1, 1, 1);
	assert_int_equal(c.history_nr, PROJECT_COV_HISTORY_MAX);
	assert_string_equal(c.history[0].at, "p51");
	j = project_cov_history_to_json(&c);
	assert_int_equal(json_array_size(json_object_get(j, "points")),
			 PROJECT_COV_HISTORY_MAX);
	json_decref(j);
	project_cov_release(&c);
	buf_release(&b);
}

static void test_page_escapes(void **state)
{
	struct project_cov c = { 0 };
	struct project_cov_file f = { "src/<script>alert(1)</script>.c", 4,
				      1 };
	char dir[] = "/tmp/test_project_cov.XXXXXX";
	char *path;
	struct buf html = BUF_INIT;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = malloc(strlen(dir) + 16);
	sprintf(path, "%s/index.html", dir);
	c.files = &f;
	c.nr = 1;
	c.lines = 4;
	c.hit = 1;
	project_cov_add_point(&c, "2026-12-01T00:00:00Z\"><x>", "c", 4, 1, 3);
	assert_int_equal(coverage_html_write(&c, "p<b>", path), 0);
	assert_int_equal(fs_read_file(&html, path, 1 << 20), 0);
	assert_null(strstr(html.ptr, "<script>"));
	assert_null(strstr(html.ptr, "<x>"));
	assert_null(strstr(html.ptr, "<b>"));
	assert_non_null(strstr(html.ptr, "&lt;script&gt;"));
	assert_non_null(strstr(html.ptr, "<polyline"));
	assert_non_null(strstr(html.ptr, "1 of 4 instrumented lines"));
	for (size_t i = 0; i < c.history_nr; i++) {
		free(c.history[i].at);
		free(c.history[i].commit);
	}
	free(c.history);
	buf_release(&html);
	unlink(path);
	rmdir(dir);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_totals_union),
		cmocka_unit_test(test_history_hostile),
		cmocka_unit_test(test_page_escapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
