/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_opt.c - common/opt.c, the one option parser, and common/num.c
 *
 * Every value kind and its refusals (trailing text, out of range, an
 * unknown choice with the valid ones listed), "--long value",
 * "--long=value", "-x", short groups, "--", unknown options with their
 * suggestion, both positional modes, and the help made from the table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "common/error.h"
#include "common/num.h"
#include "common/opt.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T_OUT = 1, T_FORCE, T_N, T_DUR, T_MODE, T_TIME };

static const struct opt_spec specs[] = {
	{ .name = "out", .short_name = 'o', .id = T_OUT, .kind = OPT_STRING,
	  .value_name = "DIR", .help = "where it goes", .groups = 1 },
	{ .name = "force", .short_name = 'f', .id = T_FORCE,
	  .kind = OPT_FLAG, .help = "overwrite", .groups = 2 },
	{ .name = "count", .id = T_N, .kind = OPT_INT, .value_name = "N",
	  .min = 1, .max = 100, .help = "how many\nat most 100" },
	{ .name = "wait", .id = T_DUR, .kind = OPT_DURATION, .min = 30,
	  .value_name = "DUR", .help = "how long" },
	{ .name = "mode", .id = T_MODE, .kind = OPT_ENUM,
	  .choices = "fast|slow|auto", .help = "which" },
	{ .name = "timeout-after-everything", .id = T_TIME, .kind = OPT_INT,
	  .help = "a long head", .want = "a whole number of seconds" },
	{ .name = "help", .short_name = 'h', .id = 'h', .kind = OPT_FLAG,
	  .help = "this text" },
	{ .name = NULL },
};

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])) - 1)

/* Parse `argv` to its end or first error: the options' ids in ids[], the
 * positionals in pos[]; returns opt_next's last result. */
static int parse_all(char **argv, int argc, unsigned flags, int *ids,
		     const char **pos, struct opt_parser *p, long *nums)
{
	struct opt_value v;
	int r, n = 0, k = 0;

	crs_error_clear();
	opt_parser_init(p, specs, argc, argv, flags, "t");
	while ((r = opt_next(p, &v)) == 1) {
		if (!v.spec) {
			pos[k++] = v.arg;
			continue;
		}
		nums[n] = v.num;
		ids[n++] = v.spec->id;
	}
	ids[n] = 0;
	pos[k] = NULL;
	return r;
}

static void test_forms(void **state)
{
	char *argv[] = { "t", "--out", "a", "--out=b", "-o", "c", "-oD",
			 "-fh", "--count=7", "--mode", "slow", "--wait", "2m",
			 "rest", "--force", NULL };
	int ids[16];
	const char *pos[16];
	long nums[16];
	struct opt_parser p;

	(void)state;
	assert_int_equal(parse_all(argv, ARGC(argv), 0, ids, pos, &p, nums),
			 0);
	assert_int_equal(ids[0], T_OUT);
	assert_int_equal(ids[3], T_OUT);
	assert_int_equal(ids[4], T_FORCE);
	assert_int_equal(ids[5], 'h');
	assert_int_equal(ids[6], T_N);
	assert_int_equal(nums[6], 7);
	assert_int_equal(ids[7], T_MODE);
	assert_int_equal(nums[7], 1);		/* slow: the second choice */
	assert_int_equal(ids[8], T_DUR);
	assert_int_equal(nums[8], 120);
	assert_int_equal(ids[9], 0);
	/* stop at the first positional: "--force" after it is not parsed */
	assert_int_equal(p.idx, 13);
	assert_string_equal(argv[p.idx], "rest");
	assert_null(pos[0]);
}

static void test_values_as_typed(void **state)
{
	char *argv[] = { "t", "--out=x=y", "-o", "-f", NULL };
	struct opt_parser p;
	struct opt_value v;

	(void)state;
	opt_parser_init(&p, specs, ARGC(argv), argv, 0, "t");
	assert_int_equal(opt_next(&p, &v), 1);
	assert_string_equal(v.arg, "x=y");
	/* a value may start with '-': it is the next word, as getopt's */
	assert_int_equal(opt_next(&p, &v), 1);
	assert_string_equal(v.arg, "-f");
	assert_int_equal(opt_next(&p, &v), 0);
	assert_int_equal(p.idx, ARGC(argv));
}

/* The one-line refusal of `arg` as a value of --name. */
static void refused(const char *name, const char *arg, const char *want)
{
	char opt[64];
	char *argv[] = { "t", opt, NULL };
	struct opt_parser p;
	struct opt_value v;

	snprintf(opt, sizeof(opt), "--%s=%s", name, arg);
	opt_parser_init(&p, specs, 2, argv, 0, "t");
	assert_int_equal(opt_next(&p, &v), CRS_EINPUT);
	if (!strstr(crs_error_last(), want))
		fail_msg("%s: '%s', want '%s'", opt, crs_error_last(), want);
	crs_error_clear();
}

static void test_bad_values(void **state)
{
	(void)state;
	refused("count", "7x", "--count: '7x' is not a number from 1 to 100");
	refused("count", "", "is not a number from 1 to 100");
	refused("count", " 7", "is not a number");
	refused("count", "+7", "is not a number");
	refused("count", "0", "is not a number from 1 to 100");
	refused("count", "101", "is not a number from 1 to 100");
	refused("count", "99999999999999999999999", "is not a number");
	refused("count", "-1", "is not a number");
	refused("wait", "10s", "--wait: '10s' is not a duration (90s, 15m, "
		"1h) of at least 30s");
	refused("wait", "1x", "is not a duration");
	refused("mode", "quick", "--mode: 'quick' is not one of fast, slow, "
		"auto");
	refused("mode", "", "is not one of fast, slow, auto");
	refused("timeout-after-everything", "z", "--timeout-after-everything: "
		"'z' is not a whole number of seconds");
	refused("force", "yes", "option '--force' takes no value");
}

static void test_missing_value(void **state)
{
	char *a[] = { "t", "--count", NULL };
	char *b[] = { "t", "-o", NULL };
	struct opt_parser p;
	struct opt_value v;

	(void)state;
	opt_parser_init(&p, specs, 2, a, 0, "t");
	assert_int_equal(opt_next(&p, &v), CRS_EINPUT);
	assert_string_equal(crs_error_last(), "option '--count' needs a "
			    "value");
	opt_parser_init(&p, specs, 2, b, 0, "t");
	assert_int_equal(opt_next(&p, &v), CRS_EINPUT);
	assert_string_equal(crs_error_last(), "option '-o' needs a value");
	crs_error_clear();
}

static void test_unknown_and_suggestion(void **state)
{
	char *a[] = { "t", "--froce", NULL };
	char *b[] = { "t", "--zzzzzzzz=1", NULL };
	char *c[] = { "t", "-fx", NULL };
	char *d[] = { "t", "--forc", NULL };	/* no abbreviations */
	struct opt_parser p;
	struct opt_value v;

	(void)state;
	opt_parser_init(&p, specs, 2, a, 0, "t");
	assert_int_equal(opt_next(&p, &v), CRS_EINPUT);
	assert_string_equal(crs_error_last(), "unknown option '--froce' for "
			    "'t'; did you mean '--force'?");
	opt_parser_init(&p, specs, 2, b, 0, NULL);
	assert_int_equal(opt_next(&p, &v), CRS_EINPUT);
	assert_string_equal(crs_error_last(), "unknown option '--zzzzzzzz'");
	opt_parser_init(&p, specs, 2, c, 0, "t");
	assert_int_equal(opt_next(&p, &v), 1);		/* -f */
	assert_int_equal(opt_next(&p, &v), CRS_EINPUT);
	assert_string_equal(crs_error_last(), "unknown option '-x' for 't'");
	opt_parser_init(&p, specs, 2, d, 0, "t");
	assert_int_equal(opt_next(&p, &v), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "did you mean '--force'?"));
	crs_error_clear();
}

static void test_double_dash(void **state)
{
	char *argv[] = { "t", "-f", "--", "--out", "x", NULL };
	int ids[8];
	const char *pos[8];
	long nums[8];
	struct opt_parser p;

	(void)state;
	assert_int_equal(parse_all(argv, ARGC(argv), 0, ids, pos, &p, nums),
			 0);
	assert_int_equal(ids[0], T_FORCE);
	assert_int_equal(ids[1], 0);
	assert_int_equal(p.idx, 3);		/* after "--" */
	assert_int_equal(parse_all(argv, ARGC(argv), OPT_MIXED, ids, pos, &p,
				   nums), 0);
	assert_int_equal(ids[1], 0);
	assert_string_equal(pos[0], "--out");
	assert_string_equal(pos[1], "x");
	assert_null(pos[2]);
}

static void test_mixed_positionals(void **state)
{
	char *argv[] = { "t", "a", "--out", "d", "b", "-", "-f", "c", NULL };
	int ids[8];
	const char *pos[8];
	long nums[8];
	struct opt_parser p;

	(void)state;
	assert_int_equal(parse_all(argv, ARGC(argv), OPT_MIXED, ids, pos, &p,
				   nums), 0);
	assert_int_equal(ids[0], T_OUT);
	assert_int_equal(ids[1], T_FORCE);
	assert_int_equal(ids[2], 0);
	assert_string_equal(pos[0], "a");
	assert_string_equal(pos[1], "b");
	assert_string_equal(pos[2], "-");
	assert_string_equal(pos[3], "c");
	assert_null(pos[4]);
	/* the stopping mode sees none of the options after "a" */
	assert_int_equal(parse_all(argv, ARGC(argv), 0, ids, pos, &p, nums),
			 0);
	assert_int_equal(ids[0], 0);
	assert_int_equal(p.idx, 1);
}

static char *help_text(unsigned groups)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	opt_help(f, specs, groups);
	fclose(f);
	return text;
}

/* Every head fits in 24 columns: the help starts two after the widest. */
static void test_help_column(void **state)
{
	static const struct opt_spec narrow[] = {
		{ .name = "external-key-env", .id = 1, .kind = OPT_STRING,
		  .value_name = "NAME", .help = "a\nb" },
		{ .name = "x", .id = 2, .kind = OPT_FLAG, .help = "c" },
		{ .name = NULL },
	};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	opt_help(f, narrow, 0);
	fclose(f);
	assert_string_equal(text,
		"  --external-key-env NAME  a\n"
		"                           b\n"
		"  --x                      c\n");
	free(text);
}

static void test_help(void **state)
{
	char *all = help_text(1 | 2), *one = help_text(1);

	(void)state;
	assert_string_equal(all,
		"  -o, --out DIR      where it goes\n"
		"  -f, --force        overwrite\n"
		"  --count N          how many\n"
		"                     at most 100\n"
		"  --wait DUR         how long\n"
		"  --mode fast|slow|auto\n"
		"                     which\n"
		"  --timeout-after-everything VALUE\n"
		"                     a long head\n"
		"  -h, --help         this text\n");
	/* group 2's --force is not in group 1's help; group 0 is in all */
	assert_null(strstr(one, "--force"));
	assert_non_null(strstr(one, "--out"));
	assert_non_null(strstr(one, "--help"));
	assert_ptr_equal(opt_spec_named(specs, "mode=x"), &specs[4]);
	assert_null(opt_spec_named(specs, "mod"));
	free(all);
	free(one);
}

static void test_num(void **state)
{
	unsigned long long u = 0;
	long n = 0;

	(void)state;
	assert_int_equal(num_parse_long("-5", -10, 10, &n), 0);
	assert_int_equal(n, -5);
	assert_int_equal(num_parse_long("-5", 0, 10, &n), CRS_EINPUT);
	assert_int_equal(num_parse_long("5 ", 0, 10, &n), CRS_EINPUT);
	assert_int_equal(num_parse_long("0x5", 0, 10, &n), CRS_EINPUT);
	assert_int_equal(num_parse_long("-", -10, 10, &n), CRS_EINPUT);
	assert_int_equal(num_parse_long(NULL, 0, 10, &n), CRS_EINPUT);
	assert_int_equal(num_parse_long("9223372036854775808", 0, LONG_MAX,
					&n), CRS_EINPUT);
	assert_int_equal(n, -5);		/* untouched */
	assert_int_equal(num_parse_u64("18446744073709551615", ULLONG_MAX,
				       &u), 0);
	assert_true(u == ULLONG_MAX);
	assert_int_equal(num_parse_u64("18446744073709551616", ULLONG_MAX,
				       &u), CRS_EINPUT);
	assert_int_equal(num_parse_u64("-1", ULLONG_MAX, &u), CRS_EINPUT);
	assert_int_equal(num_parse_u64("12", 11, &u), CRS_EINPUT);
	/* a field of a longer text, a one-number file */
	assert_int_equal(num_parse_long_n("80/x", 2, 1, 99, &n), 0);
	assert_int_equal(n, 80);
	assert_int_equal(num_parse_long_n("8\0" "1", 3, 0, 99, &n),
			 CRS_EINPUT);
	assert_int_equal(num_parse_long_n("", 0, 0, 99, &n), CRS_EINPUT);
	assert_int_equal(num_parse_long_n("1234567890123456789012345678901"
					  "234", 34, 0, LONG_MAX, &n),
			 CRS_EINPUT);
	assert_int_equal(num_trim_newline("7\n", 2), 1);
	assert_int_equal(num_trim_newline("7\n\n", 3), 2);
	assert_int_equal(num_trim_newline("7", 1), 1);
	assert_int_equal(num_trim_newline("", 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_values_as_typed),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_missing_value),
		cmocka_unit_test(test_unknown_and_suggestion),
		cmocka_unit_test(test_double_dash),
		cmocka_unit_test(test_mixed_positionals),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_help_column),
		cmocka_unit_test(test_num),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
