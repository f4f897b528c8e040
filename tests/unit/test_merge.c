/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_merge.c - sharded scans: the shard arithmetic (runner/scan/shard.c),
 * the plan matrix (crs-ci plan) and merging results (runner/scan/merge.c,
 * crs-ci merge)
 *
 * Two shards' finding sets share one finding: the merge is the union,
 * the shared finding is folded (duplicates summed, earliest finder, best
 * reproduce rate with its PoV), the order is the same whichever shard
 * comes first. crs-ci merge runs in-process on two shard folders and
 * writes results.json, results.sarif, report.html and the PoVs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "runner/cli/cmd.h"
#include "runner/scan/merge.h"
#include "runner/scan/shard.h"
#include "sarif/anchor_pick.h"
#include "sarif/change_anchor.h"
#include "sarif/change_cov.h"
#include "sarif/finding.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void strv(char ***v, size_t *nr, const char *const *s, size_t n)
{
	*v = xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		(*v)[i] = xstrdup(s[i]);
	*nr = n;
}

static struct finding *add(struct finding_set *s, const char *id,
			   const char *harness, int rep, int att,
			   double after, const char *by, const char *pov)
{
	struct finding *f = finding_set_add(s);

	f->id = xstrdup(id);
	f->signature = xasprintf("Heap-buffer-overflow\n%s", id);
	f->crash_type = xstrdup("Heap-buffer-overflow READ 1");
	f->harness = xstrdup(harness);
	f->file = xstrdup("src/x.c");
	f->line = 3;
	f->function = xasprintf("fn_%s", id);
	f->reproduced = rep;
	f->attempts = att;
	f->novelty = xstrdup("new");
	f->found_after_s = after;
	f->found_by = xstrdup(by);
	f->pov_sha256 = xstrdup(pov);
	f->pov_path = xasprintf("povs/%s", pov);
	f->report_path = xasprintf("reports/%s.txt", id);
	return f;
}

/* Shard 1: fuzz_a with finding aaaa + shared; crsA. */
static void shard1(struct finding_set *s)
{
	static const char *const h[] = { "fuzz_a" };
	static const char *const crs[] = { "crsA", "crsB" };
	struct finding *f;

	finding_set_init(s);
	s->summary.project = xstrdup("tiny");
	s->summary.head = xstrdup("h1");
	s->summary.base = xstrdup("b1");
	s->summary.fail_on = xstrdup("new");
	s->summary.started_at = xstrdup("2024-05-01T10:00:05Z");
	s->summary.finished_at = xstrdup("2024-05-01T10:10:00Z");
	s->summary.duration_s = 595;
	s->summary.povs_submitted = 3;
	s->summary.povs_not_reproduced = 1;
	strv(&s->summary.harnesses, &s->summary.harnesses_nr, h, 1);
	strv(&s->summary.crs, &s->summary.crs_nr, crs, 2);
	s->summary.crs_povs = xcalloc(2, sizeof(size_t));
	s->summary.crs_first_pov_s = xcalloc(2, sizeof(double));
	s->summary.crs_povs[0] = 3;
	s->summary.crs_first_pov_s[0] = 40;
	s->summary.crs_first_pov_s[1] = -1;
	add(s, "aaaaaaaaaaaaaaaa", "fuzz_a", 5, 5, 40, "crsA", "p1");
	f = add(s, "5555555555555555", "fuzz_a", 3, 5, 90, "crsA", "p2");
	f->duplicates = 1;
}

/* Shard 2: fuzz_b with finding bbbb + shared (earlier, better rate). */
static void shard2(struct finding_set *s)
{
	static const char *const h[] = { "fuzz_b" };
	static const char *const crs[] = { "crsA", "crsB" };
	struct finding *f;

	finding_set_init(s);
	s->summary.project = xstrdup("tiny");
	s->summary.head = xstrdup("h1");
	s->summary.base = xstrdup("b1");
	s->summary.fail_on = xstrdup("new");
	s->summary.started_at = xstrdup("2024-05-01T10:00:00Z");
	s->summary.finished_at = xstrdup("2024-05-01T10:12:00Z");
	s->summary.duration_s = 720;
	s->summary.povs_submitted = 2;
	strv(&s->summary.harnesses, &s->summary.harnesses_nr, h, 1);
	strv(&s->summary.crs, &s->summary.crs_nr, crs, 2);
	s->summary.crs_povs = xcalloc(2, sizeof(size_t));
	s->summary.crs_first_pov_s = xcalloc(2, sizeof(double));
	s->summary.crs_first_pov_s[0] = -1;
	s->summary.crs_povs[1] = 2;
	s->summary.crs_first_pov_s[1] = 12;
	add(s, "bbbbbbbbbbbbbbbb", "fuzz_b", 5, 5, 30, "crsB", "p3");
	f = add(s, "5555555555555555", "fuzz_b", 5, 5, 12, "crsB", "p4");
	f->duplicates = 2;
}

static char *findings_json(const struct finding_set *s)
{
	json_t *j = finding_set_to_json(s);
	char *t = json_dumps(json_object_get(j, "findings"), JSON_SORT_KEYS);

	json_decref(j);
	return t;
}

/* A shard's short harness survives the merge: the merged verdict. */
static void test_merge_incomplete(void **state)
{
	struct finding_set m, a, b;

	(void)state;
	finding_set_init(&m);
	shard1(&a);
	shard2(&b);
	scan_summary_add_incomplete(&b.summary, "fuzz_b", "no time left "
				    "before the deadline", 0, 30);
	assert_int_equal(merge_finding_sets(&m, &a, "a"), 0);
	assert_int_equal(merge_finding_sets(&m, &b, "b"), 0);
	assert_int_equal(m.summary.incomplete_nr, 1);
	assert_string_equal(m.summary.incomplete[0].harness, "fuzz_b");
	assert_true(m.summary.incomplete[0].wanted_s == 30);
	/* findings fail "any": FAIL wins; under "none" nothing fails */
	assert_int_equal(finding_set_verdict(&m, "any", NULL), VERDICT_FAIL);
	assert_int_equal(finding_set_verdict(&m, "none", NULL),
			 VERDICT_INCOMPLETE);
	assert_int_equal(report_exit_code(finding_set_verdict(&m, "none",
							      NULL), "none"),
			 EXIT_OK);
	finding_set_release(&m);
	finding_set_release(&a);
	finding_set_release(&b);
}

/* Each shard's timings are its own: the merged results have none. */
static void test_merge_drops_timings(void **state)
{
	struct finding_set m, a, b;
	json_t *j;

	(void)state;
	finding_set_init(&m);
	shard1(&a);
	shard2(&b);
	a.timings = json_pack("{s:f,s:[]}", "total_s", 60.0, "spans");
	b.timings = json_pack("{s:f,s:[]}", "total_s", 90.0, "spans");
	assert_int_equal(merge_finding_sets(&m, &a, "a"), 0);
	assert_int_equal(merge_finding_sets(&m, &b, "b"), 0);
	assert_null(m.timings);
	j = finding_set_to_json(&m);
	assert_null(json_object_get(j, "timings"));
	json_decref(j);
	finding_set_release(&m);
	finding_set_release(&a);	/* still theirs: no leak, no double free */
	finding_set_release(&b);
}

/* Shards' coverage of the change: the union; a shard without it in diff
 * mode makes it unknown, whichever comes first. */
/* Two diff-mode shards; a always measured its coverage, b when `both`. */
static void delta_shards(struct finding_set *m, struct finding_set *a,
			 struct finding_set *b, int both)
{
	finding_set_init(m);
	shard1(a);
	shard2(b);
	a->summary.mode = xstrdup("delta");
	b->summary.mode = xstrdup("delta");
	a->change_coverage = change_cov_new();
	if (both)
		b->change_coverage = change_cov_new();
}

static void test_merge_change_cov(void **state)
{
	struct finding_set m, a, b;
	struct buf line = BUF_INIT;

	(void)state;
	for (int order = 0; order < 2; order++) {
		delta_shards(&m, &a, &b, 1);
		for (int l = 10; l <= 19; l++) {
			change_cov_add(a.change_coverage, "src/x.c", l,
				       l < 13 ? CHANGE_COV_HIT :
				       CHANGE_COV_MISSED);
			change_cov_add(b.change_coverage, "src/x.c", l,
				       l >= 17 ? CHANGE_COV_HIT :
				       CHANGE_COV_MISSED);
		}
		change_cov_add_harness(a.change_coverage, "fuzz_a", 3);
		change_cov_add_harness(b.change_coverage, "fuzz_b", 3);
		change_cov_finish(a.change_coverage);
		change_cov_finish(b.change_coverage);
		assert_int_equal(merge_finding_sets(&m, order ? &b : &a, "1"),
				 0);
		assert_int_equal(merge_finding_sets(&m, order ? &a : &b, "2"),
				 0);
		assert_non_null(m.change_coverage);
		buf_reset(&line);
		change_cov_line(&line, m.change_coverage);
		assert_string_equal(line.ptr, "fuzzing executed 6 of 10 "
				    "changed lines; not reached: "
				    "src/x.c:13-16");
		assert_int_equal(m.change_coverage->by_harness_nr, 2);
		finding_set_release(&m);
		finding_set_release(&a);
		finding_set_release(&b);
	}
	/* a diff-mode shard that did not measure, first or last */
	for (int order = 0; order < 2; order++) {
		delta_shards(&m, &a, &b, 0);
		change_cov_add(a.change_coverage, "src/x.c", 5,
			       CHANGE_COV_HIT);
		change_cov_finish(a.change_coverage);
		assert_int_equal(merge_finding_sets(&m, order ? &b : &a,
						    "s1"), 0);
		assert_int_equal(merge_finding_sets(&m, order ? &a : &b,
						    "s2"), 0);
		assert_non_null(m.change_coverage);
		assert_non_null(m.change_coverage->unknown);
		finding_set_release(&m);
		finding_set_release(&a);
		finding_set_release(&b);
	}
	buf_release(&line);
}

static void test_merge_union(void **state)
{
	struct finding_set m, a, b;
	const struct finding *f;
	const struct scan_summary *sm = &m.summary;

	(void)state;
	finding_set_init(&m);
	shard1(&a);
	shard2(&b);
	assert_int_equal(merge_finding_sets(&m, &a, "a"), 0);
	assert_int_equal(merge_finding_sets(&m, &b, "b"), 0);
	merge_sort(&m);
	assert_int_equal(m.nr, 3);
	assert_string_equal(m.items[0].id, "5555555555555555");
	assert_string_equal(m.items[1].id, "aaaaaaaaaaaaaaaa");
	assert_string_equal(m.items[2].id, "bbbbbbbbbbbbbbbb");
	f = &m.items[0];
	assert_int_equal(f->duplicates, 1 + 2 + 1);
	assert_true(f->found_after_s == 12);
	assert_string_equal(f->found_by, "crsB");
	assert_int_equal(f->reproduced, 5);
	assert_int_equal(f->attempts, 5);
	assert_string_equal(f->pov_path, "povs/p4");
	assert_string_equal(f->pov_sha256, "p4");
	assert_string_equal(sm->started_at, "2024-05-01T10:00:00Z");
	assert_string_equal(sm->finished_at, "2024-05-01T10:12:00Z");
	assert_true(sm->duration_s == 720);
	assert_int_equal(sm->povs_submitted, 5);
	assert_int_equal(sm->povs_not_reproduced, 1);
	assert_int_equal(sm->harnesses_nr, 2);
	assert_string_equal(sm->harnesses[0], "fuzz_a");
	assert_string_equal(sm->harnesses[1], "fuzz_b");
	assert_int_equal(sm->crs_nr, 2);
	assert_int_equal(sm->crs_povs[0], 3);
	assert_int_equal(sm->crs_povs[1], 2);
	assert_true(sm->crs_first_pov_s[0] == 40);
	assert_true(sm->crs_first_pov_s[1] == 12);
	finding_set_release(&a);
	finding_set_release(&b);
	finding_set_release(&m);
}

/* The shared finding's change anchor survives whichever shard has it;
 * taking the better shard's evidence (its stack) takes its anchor. */
static void test_merge_anchor(void **state)
{
	int lines[] = { 2 };
	struct anchor_file exec[] = { { "src/x.c", lines, 1 } };

	(void)state;
	for (int which = 0; which < 2; which++) {
		struct finding_set m, a, b;
		struct finding *f;

		finding_set_init(&m);
		shard1(&a);
		shard2(&b);
		f = which ? &b.items[1] : &a.items[1];	/* 5555... */
		f->anchor = change_anchor_pick(f, exec, 1, NULL, NULL);
		assert_string_equal(f->anchor->how, ANCHOR_EXECUTED);
		assert_int_equal(merge_finding_sets(&m, &a, "a"), 0);
		assert_int_equal(merge_finding_sets(&m, &b, "b"), 0);
		merge_sort(&m);
		assert_string_equal(m.items[0].id, "5555555555555555");
		assert_non_null(m.items[0].anchor);
		assert_int_equal(m.items[0].anchor->line, 2);
		assert_null(m.items[1].anchor);
		finding_set_release(&a);
		finding_set_release(&b);
		finding_set_release(&m);
	}
}

static void test_merge_order_independent(void **state)
{
	struct finding_set m1, m2, a, b;
	char *j1, *j2;

	(void)state;
	finding_set_init(&m1);
	finding_set_init(&m2);
	shard1(&a);
	shard2(&b);
	assert_int_equal(merge_finding_sets(&m1, &a, "a"), 0);
	assert_int_equal(merge_finding_sets(&m1, &b, "b"), 0);
	finding_set_release(&a);
	finding_set_release(&b);
	shard1(&a);
	shard2(&b);
	assert_int_equal(merge_finding_sets(&m2, &b, "b"), 0);
	assert_int_equal(merge_finding_sets(&m2, &a, "a"), 0);
	merge_sort(&m1);
	merge_sort(&m2);
	j1 = findings_json(&m1);
	j2 = findings_json(&m2);
	assert_string_equal(j1, j2);
	free(j1);
	free(j2);
	finding_set_release(&a);
	finding_set_release(&b);
	finding_set_release(&m1);
	finding_set_release(&m2);
}

static void test_merge_same_pov_counts_once(void **state)
{
	struct finding_set m, a, b;

	(void)state;
	finding_set_init(&m);
	finding_set_init(&a);
	finding_set_init(&b);
	add(&a, "cccccccccccccccc", "fuzz_a", 5, 5, -1, "user", "pv");
	add(&b, "cccccccccccccccc", "fuzz_b", 5, 5, -1, "user", "pv");
	assert_int_equal(merge_finding_sets(&m, &a, "a"), 0);
	assert_int_equal(merge_finding_sets(&m, &b, "b"), 0);
	assert_int_equal(m.nr, 1);
	assert_int_equal(m.items[0].duplicates, 0);
	finding_set_release(&a);
	finding_set_release(&b);
	finding_set_release(&m);
}

static void test_merge_refuses_other_head(void **state)
{
	struct finding_set m, a, b;

	(void)state;
	finding_set_init(&m);
	shard1(&a);
	shard2(&b);
	free(b.summary.head);
	b.summary.head = xstrdup("other");
	assert_int_equal(merge_finding_sets(&m, &a, "a"), 0);
	assert_int_equal(merge_finding_sets(&m, &b, "x/results.json"),
			 CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "x/results.json"));
	assert_int_equal(m.nr, 2);
	finding_set_release(&a);
	finding_set_release(&b);
	finding_set_release(&m);
}

static void test_shard_parse(void **state)
{
	unsigned i = 0, n = 0;
	static const char *const bad[] = { "0/2", "3/2", "1/0", "1", "/2",
		"1/", "a/2", "1/2x", "-1/2", "1/257", "+1/2", " 1/2", "" };

	(void)state;
	assert_int_equal(shard_parse("1/2", &i, &n), 0);
	assert_int_equal(i, 1);
	assert_int_equal(n, 2);
	assert_int_equal(shard_parse("256/256", &i, &n), 0);
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		assert_int_equal(shard_parse(bad[k], &i, &n), CRS_EINPUT);
	assert_int_equal(shard_parse(NULL, &i, &n), CRS_EINPUT);
}

static void test_shard_pick_partitions(void **state)
{
	char *names[] = { "fuzz_e", "fuzz_a", "fuzz_d", "fuzz_b", "fuzz_c",
		"fuzz_a", "fuzz_g", "fuzz_f" };
	size_t nr = sizeof(names) / sizeof(names[0]);

	(void)state;
	for (unsigned count = 1; count <= 9; count++) {
		size_t seen = 0, min = 99, max = 0;

		for (unsigned idx = 1; idx <= count; idx++) {
			struct strvec v = STRVEC_INIT;

			shard_pick(&v, names, nr, idx, count);
			seen += v.nr;
			min = v.nr < min ? v.nr : min;
			max = v.nr > max ? v.nr : max;
			for (size_t k = 1; k < v.nr; k++)
				assert_true(strcmp(v.v[k - 1], v.v[k]) < 0);
			strvec_release(&v);
		}
		assert_int_equal(seen, 7);	/* fuzz_a once */
		assert_true(max - min <= 1);
	}
	{
		struct strvec v = STRVEC_INIT;

		shard_pick(&v, names, nr, 2, 3);	/* b e */
		assert_int_equal(v.nr, 2);
		assert_string_equal(v.v[0], "fuzz_b");
		assert_string_equal(v.v[1], "fuzz_e");
		strvec_release(&v);
	}
	assert_true(shard_has(4, 2, 3));
	assert_false(shard_has(4, 1, 3));
	assert_false(shard_has(0, 0, 3));
	assert_false(shard_has(0, 1, 0));
}

static void test_shard_matrix(void **state)
{
	char *names[] = { "c", "a", "e", "b", "d" };
	json_t *m;
	char *t;

	(void)state;
	m = shard_matrix(names, 5, 2);
	t = json_dumps(m, JSON_COMPACT);
	assert_string_equal(t, "{\"include\":[{\"shard\":\"1/2\","
			    "\"harnesses\":\"a c e\"},{\"shard\":\"2/2\","
			    "\"harnesses\":\"b d\"}]}");
	free(t);
	json_decref(m);
	m = shard_matrix(names, 2, 5);	/* c a: two shards only */
	t = json_dumps(m, JSON_COMPACT);
	assert_string_equal(t, "{\"include\":[{\"shard\":\"1/2\","
			    "\"harnesses\":\"a\"},{\"shard\":\"2/2\","
			    "\"harnesses\":\"c\"}]}");
	free(t);
	json_decref(m);
	assert_null(shard_matrix(names, 0, 2));
	assert_true(shard_name_ok("fuzz_x-1"));
	assert_false(shard_name_ok("a b"));
	assert_false(shard_name_ok(""));
}

/* Run a command in-process; its stdout into *out (caller frees). */
static int run_cmd(int (*fn)(int, char **, struct runner_ctx *),
		   char **argv, char **out)
{
	size_t len = 0;
	int argc = 0, code;
	struct runner_ctx ctx = { 0 };

	while (argv[argc])
		argc++;
	*out = NULL;
	ctx.out = open_memstream(out, &len);
	ctx.err = fopen("/dev/null", "w");
	code = fn(argc, argv, &ctx);
	fclose(ctx.out);
	fclose(ctx.err);
	return code;
}

static void write_shard(const char *dir, struct finding_set *s)
{
	char *p = xasprintf("%s/povs", dir);

	assert_int_equal(fs_mkdir_p(p), 0);
	free(p);
	for (size_t i = 0; i < s->nr; i++) {
		p = xasprintf("%s/%s", dir, s->items[i].pov_path);
		assert_int_equal(fs_write_file_atomic(p, "X", 1), 0);
		free(p);
	}
	p = xasprintf("%s/results.json", dir);
	assert_int_equal(finding_set_save(s, p), 0);
	free(p);
}

static void test_cmd_merge_and_plan(void **state)
{
	char tmp[] = "/tmp/crs-ci-test-merge.XXXXXX";
	struct finding_set a, b, m;
	char *d1, *d2, *out, *p, *text = NULL;
	enum log_level lvl = log_get_level();

	(void)state;
	log_set_level(LOG_ERROR);
	assert_non_null(mkdtemp(tmp));
	d1 = xasprintf("%s/s1", tmp);
	d2 = xasprintf("%s/s2", tmp);
	out = xasprintf("%s/merged", tmp);
	shard1(&a);
	shard2(&b);
	write_shard(d1, &a);
	write_shard(d2, &b);
	{
		char *argv[] = { "merge", "--out", out, d1, d2, NULL };

		assert_int_equal(run_cmd(cmd_merge, argv, &text),
				 EXIT_FINDINGS);
		assert_non_null(strstr(text, "verdict: FAIL"));
		free(text);
	}
	finding_set_init(&m);
	p = xasprintf("%s/results.json", out);
	assert_int_equal(finding_set_load(&m, p), 0);
	free(p);
	assert_int_equal(m.nr, 3);
	assert_string_equal(m.items[0].id, "5555555555555555");
	assert_string_equal(m.items[2].id, "bbbbbbbbbbbbbbbb");
	for (size_t i = 0; i < m.nr; i++) {
		p = xasprintf("%s/%s", out, m.items[i].pov_path);
		assert_true(fs_exists(p));
		free(p);
	}
	finding_set_release(&m);
	p = xasprintf("%s/results.sarif", out);
	assert_true(fs_exists(p));
	free(p);
	p = xasprintf("%s/report.html", out);
	assert_true(fs_exists(p));
	free(p);
	{
		char *argv[] = { "merge", "--out", out, "--fail-on", "none",
			d1, NULL };

		assert_int_equal(run_cmd(cmd_merge, argv, &text), EXIT_OK);
		free(text);
	}
	{
		char *argv[] = { "merge", "--out", out, tmp, NULL };

		assert_int_equal(run_cmd(cmd_merge, argv, &text), EXIT_USAGE);
		free(text);
	}
	{
		char *argv[] = { "merge", d1, NULL };

		assert_int_equal(run_cmd(cmd_merge, argv, &text), EXIT_USAGE);
		free(text);
	}
	/* plan from a scan.json-like file, and from --harness */
	p = xasprintf("%s/scan.json", tmp);
	assert_int_equal(fs_write_file_atomic(p, "{\"harnesses\":[\"z\","
			 "\"y\",\"x\"]}", 27), 0);
	{
		char *argv[] = { "plan", "--harnesses-from", p, "--shards",
			"2", NULL };

		assert_int_equal(run_cmd(cmd_plan, argv, &text), EXIT_OK);
		assert_string_equal(text, "{\"include\":[{\"shard\":\"1/2\","
				    "\"harnesses\":\"x z\"},{\"shard\":"
				    "\"2/2\",\"harnesses\":\"y\"}]}\n");
		free(text);
	}
	free(p);
	{
		char *argv[] = { "plan", "--harness", "b", "--harness", "a",
			"--shards", "1", NULL };

		assert_int_equal(run_cmd(cmd_plan, argv, &text), EXIT_OK);
		assert_string_equal(text, "{\"include\":[{\"shard\":\"1/1\","
				    "\"harnesses\":\"a b\"}]}\n");
		free(text);
	}
	{
		char *argv[] = { "plan", "--harness", "a", "--shards", "0",
			NULL };

		assert_int_equal(run_cmd(cmd_plan, argv, &text), EXIT_USAGE);
		free(text);
	}
	{
		char *argv[] = { "plan", "--harness", "a b", "--shards", "2",
			NULL };

		assert_int_equal(run_cmd(cmd_plan, argv, &text), EXIT_USAGE);
		free(text);
	}
	finding_set_release(&a);
	finding_set_release(&b);
	fs_remove_tree(tmp);
	free(d1);
	free(d2);
	free(out);
	log_set_level(lvl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_drops_timings),
		cmocka_unit_test(test_merge_union),
		cmocka_unit_test(test_merge_anchor),
		cmocka_unit_test(test_merge_change_cov),
		cmocka_unit_test(test_merge_order_independent),
		cmocka_unit_test(test_merge_same_pov_counts_once),
		cmocka_unit_test(test_merge_refuses_other_head),
		cmocka_unit_test(test_merge_incomplete),
		cmocka_unit_test(test_shard_parse),
		cmocka_unit_test(test_shard_pick_partitions),
		cmocka_unit_test(test_shard_matrix),
		cmocka_unit_test(test_cmd_merge_and_plan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
