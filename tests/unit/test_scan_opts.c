/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_scan_opts.c - the scan options' parser: the report switches, the
 * SARIF category and the fuzzing times
 *
 * --report-timeouts/--report-ooms take exactly yes or no; --sarif-category
 * takes a name GitHub accepts as a category; --after-finding takes stop,
 * continue or a duration, and --until-deadline means continue; --saturation
 * takes off or a duration, and --until-deadline turns it off;
 * --lend-cores is yes unless told no. A bad
 * value is exit 2 with a message naming the option and the value.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "runner/cli/scan_opts_parse.h"
#include "runner/scan/after_finding.h"
#include "common/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parse argv (NULL-ended, argv[0] "scan"); the error text in err_out. */
static int parse(struct scan_opts *o, const char **args, char **err_out)
{
	char *argv[16];
	int argc = 0, r;
	size_t len = 0;
	FILE *out = fopen("/dev/null", "w"), *err;

	*err_out = NULL;
	err = open_memstream(err_out, &len);
	for (argv[argc++] = (char *)"scan"; *args; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	r = scan_opts_parse(o, argc, argv, "usage\n", out, err);
	fclose(out);
	fclose(err);
	return r;
}

static void test_defaults(void **state)
{
	struct scan_opts o = SCAN_OPTS_INIT;
	const char *args[] = { NULL };
	char *err;

	(void)state;
	assert_int_equal(parse(&o, args, &err), 0);
	assert_int_equal(o.hide_timeouts, 0);
	assert_int_equal(o.hide_ooms, 0);
	assert_null(o.sarif_category);
	free(err);
	scan_opts_release(&o);
}

static void test_report_switches(void **state)
{
	struct scan_opts o = SCAN_OPTS_INIT;
	const char *no[] = { "--report-timeouts", "no", "--report-ooms", "no",
			     "--sarif-category", "crs-ci/ubsan", NULL };
	const char *yes[] = { "--report-timeouts=yes", "--report-ooms=yes",
			      NULL };
	const char *bad[] = { "--report-ooms", "false", NULL };
	char *err;

	(void)state;
	assert_int_equal(parse(&o, no, &err), 0);
	assert_int_equal(o.hide_timeouts, 1);
	assert_int_equal(o.hide_ooms, 1);
	assert_string_equal(o.sarif_category, "crs-ci/ubsan");
	free(err);
	assert_int_equal(parse(&o, yes, &err), 0);
	assert_int_equal(o.hide_timeouts, 0);
	assert_int_equal(o.hide_ooms, 0);
	free(err);
	assert_int_equal(parse(&o, bad, &err), CRS_EINPUT);
	assert_non_null(strstr(err, "--report-ooms: 'false' is not yes or "
			       "no"));
	free(err);
	scan_opts_release(&o);
}

static void test_category(void **state)
{
	static const char *const ok[] = { "a", "crs-ci-ubsan", "x/y/",
					   "run:1=a.b_c", NULL };
	static const char *const bad[] = { "", "/lead", "sp ace", "new\nline",
					   "\x1b[31m", "caf\xc3\xa9", NULL };
	char long_name[102];

	(void)state;
	for (size_t i = 0; ok[i]; i++)
		assert_int_equal(scan_opts_check_category(ok[i]), 0);
	for (size_t i = 0; bad[i]; i++)
		assert_int_equal(scan_opts_check_category(bad[i]), CRS_EINPUT);
	memset(long_name, 'a', 101);
	long_name[101] = '\0';
	assert_int_equal(scan_opts_check_category(long_name), CRS_EINPUT);
	long_name[100] = '\0';
	assert_int_equal(scan_opts_check_category(long_name), 0);
	assert_int_equal(scan_opts_check_category("sp ace"), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "--sarif-category: 'sp ace' "
			       "is not"));
}

/* --fuzz-seconds is the total (ClusterFuzzLite's word), the per-harness
 * minimum has its own name; both take a duration of at least 1s. */
static void test_fuzz_seconds(void **state)
{
	struct scan_opts o = SCAN_OPTS_INIT;
	const char *both[] = { "--fuzz-seconds", "10m",
			       "--min-harness-seconds", "90", NULL };
	const char *zero[] = { "--min-harness-seconds", "0", NULL };
	const char *bad[] = { "--fuzz-seconds", "soon", NULL };
	char *err;

	(void)state;
	assert_int_equal(parse(&o, both, &err), 0);
	assert_int_equal(o.fuzz_seconds, 600);
	assert_int_equal(o.min_harness_seconds, 90);
	free(err);
	scan_opts_release(&o);
	assert_int_equal(parse(&o, zero, &err), CRS_EINPUT);
	assert_non_null(strstr(err, "--min-harness-seconds: '0' is not a "
			       "number of seconds of at least 1"));
	free(err);
	scan_opts_release(&o);
	assert_int_equal(parse(&o, bad, &err), CRS_EINPUT);
	assert_non_null(strstr(err, "--fuzz-seconds: 'soon' is not"));
	free(err);
	scan_opts_release(&o);
}

/* --refuzz-seconds: 30 without it, a duration of 1s to 1h with it. */
static void test_refuzz_seconds(void **state)
{
	struct scan_opts o = SCAN_OPTS_INIT;
	const char *ok[] = { "--refuzz-seconds", "5", NULL };
	const char *big[] = { "--refuzz-seconds", "2h", NULL };
	char *err;

	(void)state;
	assert_int_equal(o.refuzz_s, 30);
	assert_int_equal(parse(&o, ok, &err), 0);
	assert_int_equal(o.refuzz_s, 5);
	free(err);
	scan_opts_release(&o);
	assert_int_equal(parse(&o, big, &err), CRS_EINPUT);
	assert_non_null(strstr(err, "--refuzz-seconds: '2h' is not 1 to "
			       "3600 seconds"));
	free(err);
	scan_opts_release(&o);
}

static void test_after_finding(void **state)
{
	struct scan_opts o = SCAN_OPTS_INIT;
	const char *stop[] = { "--after-finding", "stop", NULL };
	const char *dur[] = { "--after-finding", "2m", NULL };
	const char *cont[] = { "--after-finding", "continue", NULL };
	const char *until[] = { "--until-deadline", NULL };
	const char *bad[] = { "--after-finding", "0s", NULL };
	const char *junk[] = { "--after-finding", "soon", NULL };
	char *err, *name;

	(void)state;
	assert_int_equal(o.after_finding_s, AFTER_FINDING_DEFAULT);
	assert_int_equal(parse(&o, stop, &err), 0);
	assert_int_equal(o.after_finding_s, 0);
	free(err);
	assert_int_equal(parse(&o, dur, &err), 0);
	assert_int_equal(o.after_finding_s, 120);
	free(err);
	assert_int_equal(parse(&o, cont, &err), 0);
	assert_int_equal(o.after_finding_s, AFTER_FINDING_CONTINUE);
	free(err);
	o.after_finding_s = AFTER_FINDING_DEFAULT;
	assert_int_equal(parse(&o, until, &err), 0);
	assert_int_equal(o.after_finding_s, AFTER_FINDING_CONTINUE);
	free(err);
	assert_int_equal(parse(&o, bad, &err), CRS_EINPUT);
	assert_non_null(strstr(err, "--after-finding: '0s' is not stop, "
			       "continue or a duration"));
	free(err);
	assert_int_equal(parse(&o, junk, &err), CRS_EINPUT);
	assert_non_null(strstr(err, "'soon'"));
	free(err);
	scan_opts_release(&o);

	/* the windows: 5% of what is left, 10s to 60s by default */
	assert_true(after_finding_window(AFTER_FINDING_CONTINUE, 500) < 0);
	assert_true(after_finding_window(0, 500) == 0);
	assert_true(after_finding_window(45, 500) == 45);
	assert_true(after_finding_window(AFTER_FINDING_DEFAULT, 100) == 10);
	assert_true(after_finding_window(AFTER_FINDING_DEFAULT, 600) == 30);
	assert_true(after_finding_window(AFTER_FINDING_DEFAULT, 3000) == 60);
	assert_true(after_finding_window(AFTER_FINDING_DEFAULT, -5) == 10);
	name = after_finding_policy_name(AFTER_FINDING_DEFAULT);
	assert_string_equal(name, "default");
	free(name);
	name = after_finding_policy_name(90);
	assert_string_equal(name, "90s");
	free(name);
}

static void test_saturation(void **state)
{
	struct scan_opts o = SCAN_OPTS_INIT;
	const char *dur[] = { "--saturation", "90s", NULL };
	const char *off[] = { "--saturation", "off", NULL };
	const char *until[] = { "--saturation", "30s", "--until-deadline",
				NULL };
	const char *bad[] = { "--saturation", "0", NULL };
	const char *junk[] = { "--saturation", "soon", NULL };
	char *err;

	(void)state;
	assert_int_equal(o.saturation_s, 60);
	assert_int_equal(parse(&o, dur, &err), 0);
	assert_int_equal(o.saturation_s, 90);
	free(err);
	assert_int_equal(parse(&o, off, &err), 0);
	assert_int_equal(o.saturation_s, 0);
	free(err);
	/* whatever the order: --until-deadline fuzzes every share */
	assert_int_equal(parse(&o, until, &err), 0);
	assert_int_equal(o.saturation_s, 0);
	free(err);
	assert_int_equal(parse(&o, bad, &err), CRS_EINPUT);
	assert_non_null(strstr(err, "--saturation: '0' is not off or a "
			       "duration"));
	free(err);
	assert_int_equal(parse(&o, junk, &err), CRS_EINPUT);
	assert_non_null(strstr(err, "'soon'"));
	free(err);
	scan_opts_release(&o);
}

/* Lending infra's cores is on unless --lend-cores no. */
static void test_lend_cores(void **state)
{
	struct scan_opts o = SCAN_OPTS_INIT;
	const char *no[] = { "--lend-cores", "no", NULL };
	const char *yes[] = { "--lend-cores=yes", NULL };
	const char *bad[] = { "--lend-cores", "1", NULL };
	char *err;

	(void)state;
	assert_int_equal(o.no_lend_cores, 0);
	assert_int_equal(parse(&o, no, &err), 0);
	assert_int_equal(o.no_lend_cores, 1);
	free(err);
	assert_int_equal(parse(&o, yes, &err), 0);
	assert_int_equal(o.no_lend_cores, 0);
	free(err);
	assert_int_equal(parse(&o, bad, &err), CRS_EINPUT);
	assert_non_null(strstr(err, "--lend-cores: '1' is not yes or no"));
	free(err);
	scan_opts_release(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_report_switches),
		cmocka_unit_test(test_category),
		cmocka_unit_test(test_fuzz_seconds),
		cmocka_unit_test(test_refuzz_seconds),
		cmocka_unit_test(test_after_finding),
		cmocka_unit_test(test_saturation),
		cmocka_unit_test(test_lend_cores),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
