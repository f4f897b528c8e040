/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_sarif_write.c - findings to results.json and SARIF 2.1.0
 *
 * Builds a finding set the way triage does, from real crash reports
 * (tests/fixtures/crash/) and the source they point into (src-tiny/),
 * then checks the SARIF fields GitHub reads, the line hashes against the
 * values GitHub's own algorithm gives (tests/fixtures/sarif/, files
 * made by linehash.js), the CWE table, the fail policy and results.json
 * round trips and rejections. Writes /tmp/crs-ci-test.sarif and
 * keeps it for the validator. Run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sarif/crash.h"
#include "sarif/cwe.h"
#include "sarif/change_cov.h"
#include "sarif/finding.h"
#include "sarif/sarif_write.h"
#include "sarif/line_hash.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CRASH "tests/fixtures/crash/"
#define SRC "tests/fixtures/crash/src-tiny"
#define SARIF_FIX "tests/fixtures/sarif/"
#define ROOT "/src/tiny"

/* A finding from a real report, the way the triage phase builds one. */
static struct finding *add_from_report(struct finding_set *s,
				       const char *fixture, int changed_line)
{
	char *path = xasprintf(CRASH "%s", fixture);
	struct buf b = BUF_INIT;
	struct crash_report *cr = NULL;
	struct finding *f;
	char id[17];

	assert_int_equal(fs_read_file(&b, path, CRASH_INPUT_MAX), 0);
	assert_int_equal(crash_report_parse(&cr, b.ptr, b.len), 0);
	f = finding_set_add(s);
	f->signature = crash_signature(cr, "fuzz_parse");
	crash_signature_id(id, f->signature);
	f->id = xstrdup(id);
	f->crash_type = xstrdup(cr->crash_type);
	f->kind = xstrdup(cr->kind);
	f->sanitizer = xstrdup("address");
	f->description = xstrdup(cr->description);
	f->harness = xstrdup("fuzz_parse");
	f->is_security = cr->is_security;
	f->stack = xcalloc(cr->frames_nr + 1, sizeof(*f->stack));
	for (size_t i = 0; i < cr->frames_nr; i++) {
		const struct crash_frame *cf = &cr->frames[i];
		struct finding_frame *ff = &f->stack[f->stack_nr++];
		int in = crash_frame_in_project(cf, ROOT "/");

		ff->func = cf->func ? xstrdup(cf->func) : NULL;
		ff->file = in ? xstrdup(cf->file + strlen(ROOT "/")) :
			cf->file ? xstrdup(cf->file) : NULL;
		ff->line = cf->line;
		ff->column = cf->column;
		ff->in_project = in;
		ff->in_change = in && !strcmp(ff->file, "parse.c") &&
			cf->line == changed_line;
		if (in && !f->file) {
			f->file = xstrdup(ff->file);
			f->line = ff->line;
			f->column = ff->column;
			f->function = ff->func ? xstrdup(ff->func) : NULL;
			f->in_change = ff->in_change;
		}
	}
	f->pov_path = xasprintf("povs/%s", id);
	f->pov_sha256 = xstrdup("5d41402abc4b2a76b9719d911017c592"
				"5d41402abc4b2a76b9719d911017c592");
	f->reproduced = 5;
	f->attempts = 5;
	f->found_by = xstrdup("crs-libfuzzer");
	f->found_after_s = 12.5;
	f->report_path = xasprintf("reports/%s.txt", id);
	crash_report_free(cr);
	buf_release(&b);
	free(path);
	return f;
}

static void fill_summary(struct finding_set *s)
{
	struct scan_summary *m = &s->summary;

	m->tool_version = xstrdup("0.1.0");
	m->project = xstrdup("tiny");
	m->source_root = fs_abspath(SRC);
	m->base = xstrdup("1111111111111111111111111111111111111111");
	m->head = xstrdup("2222222222222222222222222222222222222222");
	m->mode = xstrdup("delta");
	m->harnesses = xcalloc(2, sizeof(char *));
	m->harnesses[m->harnesses_nr++] = xstrdup("fuzz_parse");
	m->crs = xcalloc(3, sizeof(char *));
	m->crs[m->crs_nr++] = xstrdup("crs-libfuzzer");
	m->crs[m->crs_nr++] = xstrdup("crs-patcher");
	m->started_at = xstrdup("2024-05-01T10:00:00Z");
	m->finished_at = xstrdup("2024-05-01T10:20:00Z");
	m->duration_s = 1200.25;
	m->povs_submitted = 7;
	m->povs_not_reproduced = 1;
	m->fail_on = xstrdup("new");
}

/* Four findings: new write overflow on a changed line, pre-existing
 * timeout, a leak of unknown novelty, UBSan with no stack. */
static void build_set(struct finding_set *s)
{
	struct finding *f;

	finding_set_init(s);
	fill_summary(s);
	f = add_from_report(s, "asan_heap_overflow_write_a.txt", 20);
	f->novelty = xstrdup("new");
	f = add_from_report(s, "libfuzzer_timeout.txt", 0);
	f->novelty = xstrdup("pre-existing");
	add_from_report(s, "asan_leak.txt", 0);
	f = add_from_report(s, "ubsan_no_stack.txt", 0);
	f->novelty = xstrdup("changed");
	assert_int_equal(s->nr, 4);
}

static json_t *path_get(json_t *j, const char *path)
{
	char *copy = xstrdup(path), *save = NULL;

	for (char *t = strtok_r(copy, ".", &save); t && j;
	     t = strtok_r(NULL, ".", &save)) {
		char *end;
		long idx = strtol(t, &end, 10);

		j = *end == '\0' ? json_array_get(j, (size_t)idx) :
			json_object_get(j, t); /* borrowed */
	}
	free(copy);
	return j;
}

static const char *str_at(json_t *j, const char *path)
{
	json_t *v = path_get(j, path);

	assert_true(json_is_string(v));
	return json_string_value(v);
}

static json_int_t int_at(json_t *j, const char *path)
{
	json_t *v = path_get(j, path);

	assert_true(json_is_integer(v));
	return json_integer_value(v);
}

/* The expected line hash, from the node oracle's output. */
static char *expected_hash(const char *file, int line)
{
	char *path = xasprintf(SARIF_FIX "%s.expected", file);
	FILE *fp = fopen(path, "r");
	char buf[128], hash[64];
	int l;

	assert_non_null(fp);
	while (fgets(buf, sizeof(buf), fp)) {
		if (sscanf(buf, "%d %63s", &l, hash) == 2 && l == line) {
			fclose(fp);
			free(path);
			return xstrdup(hash);
		}
	}
	fclose(fp);
	free(path);
	fail_msg("no line %d in %s.expected", line, file);
	return NULL;
}

/* --- SARIF ------------------------------------------------------------- */

static void test_sarif_top_level(void **st)
{
	struct finding_set s;
	json_t *log = NULL, *run, *rules;
	char *abs = fs_abspath(SRC), *dump;

	(void)st;
	build_set(&s);
	assert_int_equal(sarif_from_findings(&log, &s, SRC), 0);
	assert_string_equal(str_at(log, "$schema"),
			    "https://json.schemastore.org/sarif-2.1.0.json");
	assert_string_equal(str_at(log, "version"), "2.1.0");
	assert_int_equal(json_array_size(json_object_get(log, "runs")), 1);
	run = path_get(log, "runs.0");
	assert_string_equal(str_at(run, "tool.driver.name"), "crs-ci");
	assert_string_equal(str_at(run, "tool.driver.version"), "0.1.0");
	assert_string_equal(str_at(run, "tool.driver.informationUri"),
			    SARIF_TOOL_URI);
	assert_string_equal(str_at(run, "columnKind"), "utf16CodeUnits");
	assert_string_equal(str_at(run, "automationDetails.id"),
			    "crs-ci/tiny/");
	/* %SRCROOT% described, without the checkout's absolute host path */
	assert_null(path_get(run, "originalUriBaseIds.%SRCROOT%.uri"));
	assert_non_null(str_at(run, "originalUriBaseIds.%SRCROOT%."
			       "description.text"));
	dump = json_dumps(log, 0);
	assert_null(strstr(dump, abs));
	free(dump);
	assert_true(json_is_true(path_get(run,
			"invocations.0.executionSuccessful")));
	assert_string_equal(str_at(run, "invocations.0.startTimeUtc"),
			    "2024-05-01T10:00:00Z");
	assert_string_equal(str_at(run, "invocations.0.endTimeUtc"),
			    "2024-05-01T10:20:00Z");
	assert_int_equal(int_at(run, "properties.povsSubmitted"), 7);
	/* rules only for the kinds present, in order of first use */
	rules = path_get(run, "tool.driver.rules");
	assert_int_equal(json_array_size(rules), 4);
	assert_string_equal(str_at(rules, "0.id"),
			    "crs-ci/heap-buffer-overflow-write");
	assert_string_equal(str_at(rules, "1.id"), "crs-ci/timeout");
	assert_string_equal(str_at(rules, "2.id"), "crs-ci/memory-leak");
	assert_string_equal(str_at(rules, "3.id"), "crs-ci/integer-overflow");
	assert_string_equal(str_at(rules, "0.name"),
			    "HeapBufferOverflowWrite");
	assert_true(strlen(str_at(rules, "0.shortDescription.text")) > 0);
	assert_true(strlen(str_at(rules, "0.fullDescription.text")) > 0);
	assert_true(strlen(str_at(rules, "0.fullDescription.text")) <= 1024);
	assert_non_null(strstr(str_at(rules, "0.help.text"), "CWE-122"));
	assert_non_null(strstr(str_at(rules, "0.help.markdown"),
			"[CWE-122](https://cwe.mitre.org/data/definitions/"
			"122.html)"));
	assert_string_equal(str_at(rules, "0.defaultConfiguration.level"),
			    "error");
	assert_string_equal(str_at(rules, "0.properties.tags.0"), "security");
	assert_string_equal(str_at(rules, "0.properties.tags.1"),
			    "external/cwe/cwe-122");
	assert_string_equal(str_at(rules, "0.properties.tags.2"),
			    "external/cwe/cwe-787");
	assert_string_equal(str_at(rules, "0.properties.security-severity"),
			    "9.0");
	assert_string_equal(str_at(rules, "0.properties.precision"),
			    "very-high");
	assert_string_equal(str_at(rules, "1.properties.tags.1"),
			    "external/cwe/cwe-835");
	assert_string_equal(str_at(rules, "2.properties.tags.1"),
			    "external/cwe/cwe-401");
	json_decref(log);
	finding_set_release(&s);
	free(abs);
}

static void test_sarif_new_overflow_result(void **st)
{
	struct finding_set s;
	json_t *log = NULL, *res, *tfl, *frames;
	char *hash;

	(void)st;
	build_set(&s);
	assert_int_equal(sarif_from_findings(&log, &s, SRC), 0);
	res = path_get(log, "runs.0.results.0");
	assert_string_equal(str_at(res, "ruleId"),
			    "crs-ci/heap-buffer-overflow-write");
	assert_int_equal(int_at(res, "ruleIndex"), 0);
	assert_string_equal(str_at(res, "level"), "error");
	assert_string_equal(str_at(res, "message.text"),
		"Heap-buffer-overflow WRITE {*} in parse_record (parse.c:20), "
		"proved by a PoV that reproduced 5/5 times. New in this "
		"change: the base version does not crash on the PoV. The "
		"stack passes through [a line this change modified](1). "
		"Found by crs-libfuzzer with harness fuzz_parse.");
	assert_string_equal(str_at(res,
		"locations.0.physicalLocation.artifactLocation.uri"),
		"parse.c");
	assert_string_equal(str_at(res,
		"locations.0.physicalLocation.artifactLocation.uriBaseId"),
		"%SRCROOT%");
	assert_int_equal(int_at(res,
		"locations.0.physicalLocation.region.startLine"), 20);
	assert_int_equal(int_at(res,
		"locations.0.physicalLocation.region.startColumn"), 2);
	assert_int_equal(int_at(res,
		"locations.0.physicalLocation.region.endLine"), 20);
	assert_string_equal(str_at(res, "locations.0.logicalLocations.0.name"),
			    "parse_record");
	assert_string_equal(str_at(res, "partialFingerprints."
				   "crsCiSignature/v1"), s.items[0].id);
	hash = expected_hash("parse.c", 20);
	assert_string_equal(str_at(res, "partialFingerprints."
				   "primaryLocationLineHash"), hash);
	free(hash);
	/* the stack as a thread flow, outermost first */
	tfl = path_get(res, "codeFlows.0.threadFlows.0.locations");
	assert_int_equal(json_array_size(tfl), 2);
	assert_string_equal(str_at(tfl, "0.location.physicalLocation."
				   "artifactLocation.uri"), "fuzz_parse.c");
	assert_int_equal(int_at(tfl, "0.location.physicalLocation.region."
				"startLine"), 12);
	assert_string_equal(str_at(tfl, "1.location.logicalLocations.0.name"),
			    "parse_record");
	assert_int_equal(int_at(tfl, "1.executionOrder"), 2);
	assert_non_null(strstr(str_at(tfl, "1.location.message.text"),
			       "Heap-buffer-overflow"));
	/* result.stacks: innermost first, every frame */
	frames = path_get(res, "stacks.0.frames");
	assert_int_equal(json_array_size(frames), 10);
	assert_string_equal(str_at(frames, "0.location.logicalLocations.0."
				   "name"), "__asan_memcpy");
	assert_null(path_get(frames, "0.location.physicalLocation"));
	assert_string_equal(str_at(frames, "1.location.physicalLocation."
				   "artifactLocation.uri"), "parse.c");
	/* the crashing line is in the change */
	assert_int_equal(int_at(res, "relatedLocations.0.id"), 1);
	assert_int_equal(int_at(res, "relatedLocations.0.physicalLocation."
				"region.startLine"), 20);
	assert_non_null(strstr(str_at(res, "message.text"),
			       "[a line this change modified](1)"));
	assert_string_equal(str_at(res, "baselineState"), "new");
	assert_string_equal(str_at(res, "properties.novelty"), "new");
	assert_string_equal(str_at(res, "properties.reproduceRate"), "5/5");
	assert_string_equal(str_at(res, "properties.harness"), "fuzz_parse");
	assert_string_equal(str_at(res, "properties.crashType"),
			    "Heap-buffer-overflow WRITE {*}");
	assert_string_equal(str_at(res, "properties.foundBy"),
			    "crs-libfuzzer");
	assert_string_equal(str_at(res, "properties.povSha256"),
			    s.items[0].pov_sha256);
	json_decref(log);
	finding_set_release(&s);
}

static void test_sarif_other_results(void **st)
{
	struct finding_set s;
	json_t *log = NULL, *res;
	char *hash;

	(void)st;
	build_set(&s);
	assert_int_equal(sarif_from_findings(&log, &s, SRC), 0);
	/* timeout: pre-existing, located in spin() */
	res = path_get(log, "runs.0.results.1");
	assert_string_equal(str_at(res, "ruleId"), "crs-ci/timeout");
	assert_int_equal(int_at(res, "ruleIndex"), 1);
	assert_string_equal(str_at(res, "baselineState"), "unchanged");
	assert_int_equal(int_at(res, "locations.0.physicalLocation.region."
				"startLine"), 108);
	assert_non_null(strstr(str_at(res, "message.text"), "Pre-existing"));
	assert_null(path_get(res, "relatedLocations"));
	/* leak: novelty unknown, so no baselineState */
	res = path_get(log, "runs.0.results.2");
	assert_null(path_get(res, "baselineState"));
	assert_string_equal(str_at(res, "locations.0.logicalLocations.0.name"),
			    "keep");
	/* UBSan without a stack: "parse.c:41:11" exists in the root */
	res = path_get(log, "runs.0.results.3");
	assert_string_equal(str_at(res, "ruleId"), "crs-ci/integer-overflow");
	assert_string_equal(str_at(res, "baselineState"), "updated");
	assert_null(path_get(res, "codeFlows"));
	assert_string_equal(str_at(res, "locations.0.physicalLocation."
				   "artifactLocation.uri"), "parse.c");
	assert_int_equal(int_at(res, "locations.0.physicalLocation.region."
				"startColumn"), 11);
	hash = expected_hash("parse.c", 41);
	assert_string_equal(str_at(res, "partialFingerprints."
				   "primaryLocationLineHash"), hash);
	free(hash);
	assert_true(strncmp(str_at(res, "message.text"),
		"Integer-overflow at parse.c:41, proved", 38) == 0);
	assert_null(path_get(log, "runs.0.properties.resultsWithoutLocation"));
	json_decref(log);
	finding_set_release(&s);
}

/* Levels: error for new, warning for pre-existing or flaky, note for fixed. */
static void test_sarif_levels(void **st)
{
	struct finding_set s;
	struct finding *f;
	json_t *log = NULL;

	(void)st;
	finding_set_init(&s);
	fill_summary(&s);
	f = add_from_report(&s, "asan_heap_overflow_write_a.txt", 20);
	f->novelty = xstrdup("new");
	f->reproduced = f->attempts = 5;
	f = add_from_report(&s, "asan_heap_overflow_read.txt", 0);
	f->novelty = xstrdup("new");
	f->reproduced = 2;
	f->attempts = 5;
	f = add_from_report(&s, "libfuzzer_timeout.txt", 0);
	f->novelty = xstrdup("pre-existing");
	f = add_from_report(&s, "asan_leak.txt", 0);
	f->novelty = xstrdup("fixed-by-change");
	assert_int_equal(sarif_from_findings(&log, &s, SRC), 0);
	assert_string_equal(str_at(log, "runs.0.results.0.level"), "error");
	assert_string_equal(str_at(log, "runs.0.results.1.level"), "warning");
	assert_non_null(strstr(str_at(log, "runs.0.results.1.message.text"),
			       "only 2/5 times (flaky)"));
	assert_string_equal(str_at(log, "runs.0.results.2.level"), "warning");
	assert_string_equal(str_at(log, "runs.0.results.3.level"), "note");
	/* a flaky new bug is reported but does not fail --fail-on new */
	assert_int_equal(finding_fails_policy(&s.items[0], "new"), 1);
	assert_int_equal(finding_fails_policy(&s.items[1], "new"), 0);
	assert_int_equal(finding_fails_policy(&s.items[1], "any"), 1);
	json_decref(log);
	finding_set_release(&s);
}

static void test_sarif_fallback_locations(void **st)
{
	struct finding_set s;
	struct finding *f;
	json_t *log = NULL;

	(void)st;
	finding_set_init(&s);
	/* fully unsymbolized: no file anywhere, so no result at all */
	add_from_report(&s, "asan_unsymbolized.txt", 0);
	assert_null(s.items[0].file);
	/* only a file outside the project: an absolute file: URI */
	f = finding_set_add(&s);
	f->id = xstrdup("0123456789abcdef");
	f->crash_type = xstrdup("Direct-leak");
	f->stack = xcalloc(2, sizeof(*f->stack));
	f->stack[0].func = xstrdup("malloc");
	f->stack[1].func = xstrdup("make");
	f->stack[1].file = xstrdup("/src/other lib/make.c");
	f->stack[1].line = 4;
	f->stack_nr = 2;
	assert_int_equal(sarif_from_findings(&log, &s, SRC), 0);
	assert_int_equal(json_array_size(path_get(log, "runs.0.results")), 1);
	assert_int_equal(json_array_size(path_get(log,
			 "runs.0.tool.driver.rules")), 1);
	assert_string_equal(str_at(log, "runs.0.tool.driver.rules.0.id"),
			    "crs-ci/memory-leak");
	assert_int_equal(int_at(log, "runs.0.results.0.ruleIndex"), 0);
	assert_string_equal(str_at(log, "runs.0.results.0.locations.0."
				   "physicalLocation.artifactLocation.uri"),
			    "file:///src/other%20lib/make.c");
	assert_null(path_get(log, "runs.0.results.0.locations.0."
			     "physicalLocation.artifactLocation.uriBaseId"));
	assert_int_equal(int_at(log, "runs.0.properties."
				"resultsWithoutLocation"), 1);
	assert_non_null(strstr(str_at(log, "runs.0.invocations.0."
			"toolExecutionNotifications.0.message.text"),
			"1 finding(s) have no source location"));
	json_decref(log);
	finding_set_release(&s);
}

static void test_sarif_line_hash_oracle(void **st)
{
	static const char *const files[] = {
		SARIF_FIX "linehash_src.c", SRC "/parse.c",
	};

	(void)st;
	for (size_t k = 0; k < 2; k++) {
		struct buf b = BUF_INIT;
		const char *base = strrchr(files[k], '/') + 1;
		char got[40];
		int line;

		assert_int_equal(fs_read_file(&b, files[k], 1 << 20), 0);
		for (line = 1; sarif_line_hash(got, b.ptr, b.len, line) == 0;
		     line++) {
			char *want = expected_hash(base, line);

			assert_string_equal(got, want);
			free(want);
		}
		assert_true(line > 10);
		assert_int_equal(sarif_line_hash(got, b.ptr, b.len, line),
				 CRS_ENOTFOUND);
		buf_release(&b);
	}
}

static void test_sarif_utf16_column(void **st)
{
	struct finding_set s;
	struct finding *f;
	json_t *log = NULL, *region;

	(void)st;
	finding_set_init(&s);
	f = finding_set_add(&s);
	f->id = xstrdup("0123456789abcdef");
	f->crash_type = xstrdup("Heap-buffer-overflow READ 1");
	f->file = xstrdup("linehash_src.c");
	f->line = 10;		/* "/" "* café ☃ 😀 *" "/" */
	f->column = 19;		/* byte column of the closing "*" */
	assert_int_equal(sarif_from_findings(&log, &s, SARIF_FIX), 0);
	region = path_get(log, "runs.0.results.0.locations.0."
			  "physicalLocation.region");
	/* é is 1 UTF-16 unit, ☃ 1, 😀 2: 6 + 1 + 1 + 1 + 1 + 2 + 1 + 1 */
	assert_int_equal(int_at(region, "startColumn"), 14);
	assert_non_null(path_get(log, "runs.0.results.0.partialFingerprints."
				 "primaryLocationLineHash"));
	json_decref(log);
	finding_set_release(&s);
}

static void test_sarif_source_confinement(void **st)
{
	char dir[] = "/tmp/crs-ci-sarif-XXXXXX";
	char *link = NULL, *target = fs_abspath(SRC "/parse.c");
	struct finding_set s;
	struct finding *f;
	json_t *log = NULL;

	(void)st;
	assert_non_null(mkdtemp(dir));
	link = xasprintf("%s/evil.c", dir);
	assert_int_equal(symlink(target, link), 0);
	finding_set_init(&s);
	f = finding_set_add(&s);
	f->id = xstrdup("0123456789abcdef");
	f->crash_type = xstrdup("Timeout");
	f->file = xstrdup("evil.c");	/* a symlink out of the root */
	f->line = 3;
	f = finding_set_add(&s);
	f->id = xstrdup("fedcba9876543210");
	f->crash_type = xstrdup("Timeout");
	f->file = xstrdup("../crash/src-tiny/parse.c");
	f->line = 3;
	assert_int_equal(sarif_from_findings(&log, &s, dir), 0);
	for (int i = 0; i < 2; i++) {
		char *p = xasprintf("runs.0.results.%d.partialFingerprints."
				    "primaryLocationLineHash", i);

		assert_null(path_get(log, p));
		free(p);
	}
	json_decref(log);
	/* the same file through the real root is hashed */
	free(s.items[1].file);
	s.items[1].file = xstrdup("parse.c");
	assert_int_equal(sarif_from_findings(&log, &s, SRC), 0);
	assert_non_null(path_get(log, "runs.0.results.1.partialFingerprints."
				 "primaryLocationLineHash"));
	json_decref(log);
	finding_set_release(&s);
	unlink(link);
	rmdir(dir);
	free(link);
	free(target);
}

static void test_sarif_write_file(void **st)
{
	struct finding_set s;
	char *path = xstrdup("/tmp/crs-ci-test.sarif");
	json_t *log = NULL, *back;
	json_error_t err;
	int r;

	(void)st;
	build_set(&s);
	/* invalid UTF-8 from a hostile report must not break the output */
	free(s.items[2].stack[1].func);
	s.items[2].stack[1].func = xstrdup("keep\xff\xfe");
	assert_int_equal(sarif_write_file(&s, SRC, path), 0);
	assert_non_null(back = json_load_file(path, 0, &err));
	assert_int_equal(sarif_from_findings(&log, &s, SRC), 0);
	assert_true(json_equal(back, log));
	assert_string_equal(str_at(back, "runs.0.results.2.stacks.0.frames.1."
				   "location.logicalLocations.0.name"),
			    "keep??");
	json_decref(back);
	json_decref(log);
	/* an unwritable path is an error naming it */
	r = sarif_write_file(&s, SRC, "/nonexistent-dir/x.sarif");
	assert_int_equal(r, CRS_ERR);
	assert_non_null(strstr(crs_error_last(), "/nonexistent-dir/x.sarif"));
	crs_error_clear();
	finding_set_release(&s);
	printf("SARIF written to %s\n", path);
	free(path);
}

static void test_sarif_empty_and_truncated(void **st)
{
	struct finding_set s;
	json_t *log = NULL;

	(void)st;
	finding_set_init(&s);
	s.summary.timed_out = 1;
	assert_int_equal(sarif_from_findings(&log, &s, NULL), 0);
	assert_int_equal(json_array_size(path_get(log, "runs.0.results")), 0);
	assert_int_equal(json_array_size(path_get(log,
			 "runs.0.tool.driver.rules")), 0);
	assert_true(json_is_true(path_get(log, "runs.0.invocations.0."
				 "executionSuccessful")));
	assert_string_equal(str_at(log, "runs.0.invocations.0."
				   "toolExecutionNotifications.0.level"),
			    "warning");
	assert_null(path_get(log, "runs.0.originalUriBaseIds"));
	assert_string_equal(str_at(log, "runs.0.automationDetails.id"),
			    "crs-ci//");
	json_decref(log);
	for (int i = 0; i < SARIF_RESULTS_MAX + 3; i++) {
		struct finding *f = finding_set_add(&s);

		f->crash_type = xstrdup("Timeout");
		f->file = xstrdup("fuzz.c");
		f->line = 1 + i % 50;
	}
	assert_int_equal(sarif_from_findings(&log, &s, NULL), 0);
	assert_int_equal(json_array_size(path_get(log, "runs.0.results")),
			 SARIF_RESULTS_MAX);
	assert_int_equal(int_at(log, "runs.0.properties.resultsTruncated"), 3);
	json_decref(log);
	finding_set_release(&s);
}

/* The coverage of the change in the run's properties; none in full mode. */
static void test_sarif_change_coverage(void **st)
{
	struct finding_set s;
	json_t *log = NULL;

	(void)st;
	finding_set_init(&s);
	assert_int_equal(sarif_from_findings(&log, &s, NULL), 0);
	assert_null(path_get(log, "runs.0.properties.changeCoverage"));
	json_decref(log);
	s.change_coverage = change_cov_new();
	for (int l = 10; l <= 14; l++)
		change_cov_add(s.change_coverage, "src/x.c", l, l < 12 ?
			       CHANGE_COV_HIT : CHANGE_COV_MISSED);
	change_cov_add_harness(s.change_coverage, "fuzz_x", 2);
	change_cov_finish(s.change_coverage);
	assert_int_equal(sarif_from_findings(&log, &s, NULL), 0);
	assert_string_equal(str_at(log, "runs.0.properties.changeCoverage."
				   "summary"), "fuzzing executed 2 of 5 "
			    "changed lines; not reached: src/x.c:12-14");
	assert_int_equal(int_at(log, "runs.0.properties.changeCoverage."
				"linesTotal"), 5);
	assert_int_equal(int_at(log, "runs.0.properties.changeCoverage."
				"linesExecuted"), 2);
	assert_string_equal(str_at(log, "runs.0.properties.changeCoverage."
				   "notReached.0.file"), "src/x.c");
	assert_int_equal(int_at(log, "runs.0.properties.changeCoverage."
				"notReached.0.startLine"), 12);
	assert_int_equal(int_at(log, "runs.0.properties.changeCoverage."
				"byHarness.fuzz_x"), 2);
	json_decref(log);
	change_cov_set_unknown(s.change_coverage, "no time left");
	assert_int_equal(sarif_from_findings(&log, &s, NULL), 0);
	assert_string_equal(str_at(log, "runs.0.properties.changeCoverage."
				   "status"), "unknown");
	assert_null(path_get(log, "runs.0.properties.changeCoverage."
			     "linesTotal"));
	json_decref(log);
	finding_set_release(&s);
}

/* --- CWE table --------------------------------------------------------- */

static void test_cwe_rules(void **st)
{
	static const struct {
		const char *type, *id, *severity;
		int cwe, extra;
	} cases[] = {
		{ "Heap-buffer-overflow WRITE 4",
		  "crs-ci/heap-buffer-overflow-write", "9.0", 122, 787 },
		{ "Heap-buffer-overflow READ {*}",
		  "crs-ci/heap-buffer-overflow-read", "7.5", 122, 125 },
		{ "Heap-buffer-overflow", "crs-ci/heap-buffer-overflow",
		  "8.0", 122, 0 },
		{ "Stack-buffer-overflow WRITE 16",
		  "crs-ci/stack-buffer-overflow-write", "9.0", 121, 787 },
		{ "Heap-use-after-free READ 1", "crs-ci/heap-use-after-free",
		  "9.0", 416, 0 },
		{ "Heap-double-free", "crs-ci/double-free", "9.0", 415, 0 },
		{ "Null-dereference READ", "crs-ci/null-dereference", "5.5",
		  476, 0 },
		{ "UNKNOWN WRITE", "crs-ci/wild-write", "9.0", 787, 0 },
		{ "Integer-overflow", "crs-ci/integer-overflow", "5.5", 190,
		  0 },
		{ "Divide-by-zero", "crs-ci/divide-by-zero", "4.0", 369, 0 },
		{ "Undefined-shift", "crs-ci/undefined-shift", "4.0", 1335, 0 },
		{ "Index-out-of-bounds", "crs-ci/index-out-of-bounds", "7.0",
		  129, 0 },
		{ "Use-of-uninitialized-value",
		  "crs-ci/use-of-uninitialized-value", "5.5", 457, 0 },
		{ "Direct-leak", "crs-ci/memory-leak", "3.0", 401, 0 },
		{ "Indirect-leak", "crs-ci/memory-leak", "3.0", 401, 0 },
		{ "Timeout", "crs-ci/timeout", "3.5", 835, 0 },
		{ "Out-of-memory", "crs-ci/out-of-memory", "3.5", 400, 0 },
		{ "Misaligned-address", "crs-ci/misaligned-address", "3.0",
		  758, 0 },
		{ "Pointer-overflow", "crs-ci/pointer-overflow", "5.0", 823,
		  0 },
		{ "ASSERT", "crs-ci/abort", "3.0", 617, 0 },
		{ "Something-new", "crs-ci/crash", "5.0", 0, 0 },
		{ NULL, "crs-ci/crash", "5.0", 0, 0 },
	};

	(void)st;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const struct cwe_rule *c = cwe_rule_for(cases[i].type);

		assert_string_equal(c->rule_id, cases[i].id);
		assert_string_equal(c->severity, cases[i].severity);
		assert_int_equal(c->cwe, cases[i].cwe);
		assert_int_equal(c->cwe_extra, cases[i].extra);
		assert_true(strlen(c->description) <= 1024);
		assert_true(strlen(c->name) <= 255);
	}
}

/* Every crash type the fixtures produce has a rule of its own. */
static void test_cwe_covers_fixtures(void **st)
{
	static const char *const fixtures[] = {
		"asan_abort.txt", "asan_double_free.txt",
		"asan_heap_overflow_read.txt", "asan_heap_overflow_write_a.txt",
		"asan_leak.txt", "asan_segv_null.txt",
		"asan_stack_overflow.txt",
		"asan_use_after_free.txt", "libfuzzer_deadly_signal.txt",
		"libfuzzer_exit.txt", "libfuzzer_oom.txt",
		"libfuzzer_timeout.txt", "msan_uninit.txt", "ubsan_divzero.txt",
		"ubsan_int_overflow.txt", "ubsan_misaligned.txt",
		"ubsan_null.txt", "ubsan_oob.txt", "ubsan_shift.txt",
	};
	const struct cwe_rule *fallback = cwe_rule_for("no such type");

	(void)st;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(*fixtures); i++) {
		struct finding_set s;

		finding_set_init(&s);
		add_from_report(&s, fixtures[i], 0);
		assert_ptr_not_equal(cwe_rule_for(s.items[0].crash_type),
				     fallback);
		finding_set_release(&s);
	}
}

/* --- policy ------------------------------------------------------------ */

static void test_fails_policy(void **st)
{
	static const struct {
		const char *novelty;
		int in_change;
		int new_, any, none;
	} cases[] = {
		{ "new", 0, 1, 1, 0 },
		{ "new", 1, 1, 1, 0 },
		{ "pre-existing", 1, 0, 1, 0 },
		{ "changed", 1, 0, 1, 0 },
		{ "fixed-by-change", 0, 0, 1, 0 },
		{ NULL, 1, 1, 1, 0 },
		{ NULL, 0, 0, 1, 0 },
	};

	(void)st;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct finding f = { 0 };

		f.novelty = (char *)cases[i].novelty;
		f.in_change = cases[i].in_change;
		assert_int_equal(finding_fails_policy(&f, "new"),
				 cases[i].new_);
		assert_int_equal(finding_fails_policy(&f, NULL),
				 cases[i].new_);
		assert_int_equal(finding_fails_policy(&f, "any"),
				 cases[i].any);
		assert_int_equal(finding_fails_policy(&f, "none"),
				 cases[i].none);
	}
}

/*
 * --report-timeouts no / --report-ooms no: the finding stays in
 * results.json, marked, but fails no policy and is no SARIF result;
 * --sarif-category names the run's automationDetails.id.
 */
static void test_suppressed_and_category(void **st)
{
	struct finding_set s, back;
	struct finding oom = { 0 };
	char *path = xasprintf("/tmp/crs-ci-supp-%ld.json", (long)getpid());
	json_t *log = NULL, *run;

	(void)st;
	oom.crash_type = "Out-of-memory (malloc(2147483648))";
	assert_string_equal(finding_suppressed_by(&oom, 1, 1), "report-ooms");
	assert_null(finding_suppressed_by(&oom, 1, 0));
	build_set(&s);
	assert_string_equal(s.items[1].crash_type, "Timeout");
	assert_int_equal(finding_set_suppress(&s, 1, 1), 1);
	assert_int_equal(finding_set_suppress(&s, 1, 1), 0);
	assert_string_equal(s.items[1].suppressed, "report-timeouts");
	assert_null(s.items[0].suppressed);
	assert_false(finding_fails_policy(&s.items[1], "any"));
	assert_true(finding_fails_policy(&s.items[0], "any"));
	s.summary.sarif_category = xstrdup("ubsan-pr");
	s.summary.sanitizer = xstrdup("undefined");
	assert_int_equal(sarif_from_findings(&log, &s, SRC), 0);
	run = path_get(log, "runs.0");
	assert_string_equal(str_at(run, "automationDetails.id"), "ubsan-pr/");
	assert_int_equal(json_array_size(path_get(run, "results")), 3);
	assert_int_equal(int_at(run, "properties.resultsSuppressed"), 1);
	assert_string_equal(str_at(run, "properties.sanitizer"), "undefined");
	for (size_t i = 0; i < 3; i++)
		assert_string_not_equal(json_string_value(path_get(
			json_array_get(path_get(run, "results"), i),
			"ruleId")), "crs-ci/timeout");
	json_decref(log);
	/* results.json keeps it, marked */
	assert_int_equal(finding_set_save(&s, path), 0);
	finding_set_init(&back);
	assert_int_equal(finding_set_load(&back, path), 0);
	assert_int_equal(back.nr, 4);
	assert_string_equal(back.items[1].suppressed, "report-timeouts");
	assert_string_equal(back.summary.sarif_category, "ubsan-pr");
	assert_string_equal(back.summary.sanitizer, "undefined");
	/* a category that already ends in '/' is kept as it is */
	free(back.summary.sarif_category);
	back.summary.sarif_category = xstrdup("matrix/asan/");
	assert_int_equal(finding_set_suppress(&back, 0, 0), 1);
	assert_null(back.items[1].suppressed);
	assert_int_equal(sarif_from_findings(&log, &back, SRC), 0);
	assert_string_equal(str_at(log, "runs.0.automationDetails.id"),
			    "matrix/asan/");
	assert_int_equal(json_array_size(path_get(log, "runs.0.results")), 4);
	json_decref(log);
	finding_set_release(&back);
	finding_set_release(&s);
	unlink(path);
	free(path);
}

/* --- results.json ------------------------------------------------------ */

static void test_results_round_trip(void **st)
{
	struct finding_set s, back;
	char *path = xasprintf("/tmp/crs-ci-results-%ld.json", (long)getpid());
	json_t *j1, *j2;

	(void)st;
	build_set(&s);
	j1 = finding_set_to_json(&s);
	assert_string_equal(str_at(j1, "format"), "crs-ci-results");
	assert_int_equal(int_at(j1, "version"), 1);
	assert_string_equal(str_at(j1, "findings.0.stack.1.file"), "parse.c");
	assert_true(json_is_null(path_get(j1, "findings.2.novelty")));
	assert_int_equal(finding_set_save(&s, path), 0);
	finding_set_init(&back);
	assert_int_equal(finding_set_load(&back, path), 0);
	assert_int_equal(back.nr, 4);
	assert_string_equal(back.items[0].novelty, "new");
	assert_null(back.items[2].novelty);
	assert_int_equal(back.items[0].stack_nr, s.items[0].stack_nr);
	assert_true(back.items[0].stack[1].in_project);
	assert_true(back.items[0].in_change);
	assert_int_equal(back.summary.harnesses_nr, 1);
	assert_int_equal(back.summary.crs_nr, 2);
	assert_true(back.items[0].found_after_s == 12.5);
	assert_ptr_equal(finding_set_find(&back, s.items[1].id),
			 &back.items[1]);
	assert_null(finding_set_find(&back, "ffffffffffffffff"));
	j2 = finding_set_to_json(&back);
	assert_true(json_equal(j1, j2));
	json_decref(j1);
	json_decref(j2);
	finding_set_release(&back);
	finding_set_release(&s);
	unlink(path);
	free(path);
}

static void test_results_defaults(void **st)
{
	static const char doc[] =
		"{\"version\": 1, \"summary\": {}, \"findings\": [{"
		"\"id\": \"0123456789abcdef\", \"signature\": \"T\\nh\", "
		"\"crash_type\": \"Timeout\", \"reproduced\": 1, "
		"\"attempts\": 2}]}";
	struct finding_set s;
	json_t *j = json_loads(doc, 0, NULL);

	(void)st;
	finding_set_init(&s);
	assert_int_equal(finding_set_from_json(&s, j, "r.json"), 0);
	assert_int_equal(s.nr, 1);
	assert_true(s.items[0].found_after_s < 0);
	assert_null(s.items[0].file);
	assert_int_equal(s.items[0].stack_nr, 0);
	assert_null(s.summary.fail_on);
	json_decref(j);
	finding_set_release(&s);
}

/* summary.uncommitted: the checkout's edits the scan did not read, written
 * only when there are some, read back as written. */
static void test_results_uncommitted(void **st)
{
	struct finding_set good, back;
	json_t *j;

	(void)st;
	build_set(&good);
	j = finding_set_to_json(&good);
	assert_null(json_object_get(json_object_get(j, "summary"),
				    "uncommitted"));
	json_decref(j);
	good.summary.uncommitted = xcalloc(3, sizeof(char *));
	good.summary.uncommitted[0] = xstrdup("src/a.c");
	good.summary.uncommitted[1] = xstrdup("src/b.c");
	good.summary.uncommitted_nr = 2;
	good.summary.uncommitted_total = 31;
	j = finding_set_to_json(&good);
	finding_set_init(&back);
	assert_int_equal(finding_set_from_json(&back, j, "r.json"), 0);
	assert_int_equal(back.summary.uncommitted_nr, 2);
	assert_string_equal(back.summary.uncommitted[1], "src/b.c");
	assert_int_equal(back.summary.uncommitted_total, 31);
	finding_set_release(&back);
	finding_set_release(&good);
	json_decref(j);
}

static void test_results_rejected(void **st)
{
	static const struct {
		const char *path, *json, *msg;
	} cases[] = {
		{ "findings.0.line", "\"20\"",
		  "r.json: findings[0].line: expected an integer" },
		{ "findings.0.line", "-1",
		  "r.json: findings[0].line: out of range" },
		{ "findings.0.id", "null", "r.json: findings[0].id: missing" },
		{ "findings.0.id", "\"XYZ\"", "r.json: findings[0].id: "
		  "expected 16 lowercase hex digits" },
		{ "findings.1.novelty", "\"maybe\"", "r.json: findings[1]."
		  "novelty: unknown value \"maybe\"" },
		{ "findings.0.is_security", "1", "r.json: findings[0]."
		  "is_security: expected true or false" },
		{ "findings.0.reproduced", "9", "r.json: findings[0]."
		  "reproduced: larger than attempts" },
		{ "findings.0.stack.1", "7", "r.json: findings[0].stack[1]: "
		  "expected an object" },
		{ "findings.0.stack.2.line", "true", "r.json: findings[0]."
		  "stack[2].line: expected an integer" },
		{ "findings.1.id", "\"X\"", "r.json: findings[1].id: expected "
		  "16 lowercase hex digits" },
		{ "findings.2", "[]", "r.json: findings[2]: expected an "
		  "object" },
		{ "summary.harnesses", "[\"a\", 3]", "r.json: summary."
		  "harnesses[1]: expected a string" },
		{ "summary.mode", "\"partial\"", "r.json: summary.mode: "
		  "unknown value \"partial\"" },
		{ "summary.fail_on", "\"some\"", "r.json: summary.fail_on: "
		  "unknown value \"some\"" },
		{ "summary.duration_s", "\"long\"", "r.json: summary."
		  "duration_s: expected a number" },
		{ "summary", "[]", "r.json: summary: expected an object" },
		{ "summary.uncommitted", "[\"a\", 3]", "r.json: summary."
		  "uncommitted[1]: expected a string" },
		{ "summary.uncommitted", "[\"a\"]", "r.json: summary."
		  "uncommitted: more paths than uncommitted_total" },
		{ "summary.uncommitted_total", "-2", "r.json: summary."
		  "uncommitted_total: out of range" },
		{ "version", "2", "r.json: version: unsupported" },
		{ "format", "\"sarif\"", "r.json: format: expected" },
		{ "findings", "{}", "r.json: findings: expected an array" },
		{ "findings.0.crash_type", "\"\"", "r.json: findings[0]."
		  "crash_type: is empty" },
		{ "findings.0.file", "\"a\\u0000b\"", "r.json: findings[0]."
		  "file: contains a NUL character" },
	};
	struct finding_set good;

	(void)st;
	build_set(&good);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		json_t *j = finding_set_to_json(&good);
		json_t *val = json_loads(cases[i].json, JSON_DECODE_ANY |
					 JSON_ALLOW_NUL, NULL);
		char *parent = xstrdup(cases[i].path);
		char *leaf = strrchr(parent, '.');
		json_t *p;
		struct finding_set s;

		assert_non_null(val);
		if (leaf) {
			*leaf++ = '\0';
			p = path_get(j, parent);
		} else {
			leaf = parent;
			p = j;
		}
		if (json_is_array(p))
			json_array_set_new(p, strtoul(leaf, NULL, 10), val);
		else
			json_object_set_new(p, leaf, val);
		finding_set_init(&s);
		s.summary.project = xstrdup("kept");
		assert_int_equal(finding_set_from_json(&s, j, "r.json"),
				 CRS_EINPUT);
		if (!strstr(crs_error_last(), cases[i].msg))
			fail_msg("case %zu: got \"%s\", want \"%s\"", i,
				 crs_error_last(), cases[i].msg);
		/* a failed load leaves the set as it was */
		assert_string_equal(s.summary.project, "kept");
		assert_int_equal(s.nr, 0);
		finding_set_release(&s);
		free(parent);
		json_decref(j);
	}
	/* duplicate ids */
	{
		json_t *j = finding_set_to_json(&good);
		json_t *a = json_object_get(j, "findings"); /* borrowed */
		struct finding_set s;

		json_array_append(a, json_array_get(a, 0));
		finding_set_init(&s);
		assert_int_equal(finding_set_from_json(&s, j, "r.json"),
				 CRS_EINPUT);
		assert_non_null(strstr(crs_error_last(), "findings[4].id: "
				       "duplicate of findings[0].id"));
		json_decref(j);
		finding_set_release(&s);
	}
	finding_set_release(&good);
	crs_error_clear();
}

static void test_results_load_errors(void **st)
{
	char *path = xasprintf("/tmp/crs-ci-bad-%ld.json", (long)getpid());
	struct finding_set s;
	FILE *fp;

	(void)st;
	finding_set_init(&s);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("{\"version\": 1,\n \"summary\": {}, \"findings\": [,]}\n", fp);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(finding_set_load(&s, path), CRS_EINPUT);
	assert_true(strncmp(crs_error_last(), path, strlen(path)) == 0);
	assert_non_null(strstr(crs_error_last(), ":2:"));
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("{\"version\": 1, \"version\": 1, \"summary\": {}, "
	      "\"findings\": []}", fp);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(finding_set_load(&s, path), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "duplicate"));
	unlink(path);
	assert_int_equal(finding_set_load(&s, path), CRS_ENOTFOUND);
	assert_non_null(strstr(crs_error_last(), path));
	crs_error_clear();
	finding_set_release(&s);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sarif_top_level),
		cmocka_unit_test(test_sarif_new_overflow_result),
		cmocka_unit_test(test_sarif_other_results),
		cmocka_unit_test(test_sarif_levels),
		cmocka_unit_test(test_sarif_fallback_locations),
		cmocka_unit_test(test_sarif_line_hash_oracle),
		cmocka_unit_test(test_sarif_utf16_column),
		cmocka_unit_test(test_sarif_source_confinement),
		cmocka_unit_test(test_sarif_write_file),
		cmocka_unit_test(test_sarif_empty_and_truncated),
		cmocka_unit_test(test_sarif_change_coverage),
		cmocka_unit_test(test_cwe_rules),
		cmocka_unit_test(test_cwe_covers_fixtures),
		cmocka_unit_test(test_fails_policy),
		cmocka_unit_test(test_suppressed_and_category),
		cmocka_unit_test(test_results_round_trip),
		cmocka_unit_test(test_results_defaults),
		cmocka_unit_test(test_results_rejected),
		cmocka_unit_test(test_results_uncommitted),
		cmocka_unit_test(test_results_load_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
