/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_sarif_read.c - --sarif logs read as bug candidates, and confirmed
 *
 * Literal SARIF in the shapes CodeQL, Semgrep and cppcheck write become
 * candidates (file, lines, function, rule, level); malformed logs are
 * refused naming the file and the JSON path of the field; the size caps
 * hold. Candidates are then marked against a finding's stack, survive
 * results.json, and show up in the SARIF result and the verdict.
 */
#include "sarif/finding.h"
#include "sarif/sarif_read.h"
#include "sarif/sarif_write.h"
#include "runner/report/terminal.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "finding_builder.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

static const char codeql[] =
	"{\"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\","
	" \"version\": \"2.1.0\", \"runs\": [{"
	"  \"tool\": {\"driver\": {\"name\": \"CodeQL\","
	"    \"semanticVersion\": \"2.15.0\","
	"    \"rules\": [{\"id\": \"cpp/overflow-buffer\"}]}},"
	"  \"artifacts\": [{\"location\": {\"uri\": \"src/recparse.c\","
	"    \"uriBaseId\": \"%SRCROOT%\", \"index\": 0}}],"
	"  \"results\": [{"
	"    \"ruleId\": \"cpp/overflow-buffer\", \"ruleIndex\": 0,"
	"    \"rule\": {\"id\": \"cpp/overflow-buffer\", \"index\": 0},"
	"    \"message\": {\"text\": \"This 'memcpy' may write past the "
	"end of [value](1).\"},"
	"    \"locations\": [{\"physicalLocation\": {"
	"      \"artifactLocation\": {\"uri\": \"src/recparse.c\","
	"        \"uriBaseId\": \"%SRCROOT%\", \"index\": 0},"
	"      \"region\": {\"startLine\": 39, \"startColumn\": 3,"
	"        \"endColumn\": 40}}}],"
	"    \"partialFingerprints\": {\"primaryLocationLineHash\": "
	"\"abc:1\"}"
	"  }, {"
	"    \"ruleId\": \"cpp/uncontrolled-allocation-size\","
	"    \"level\": \"error\","
	"    \"message\": {\"text\": \"size from user input\"},"
	"    \"locations\": [{\"physicalLocation\": {"
	"      \"artifactLocation\": {\"uri\": "
	"\"file:///home/ci/repo/src/recparse.c\"},"
	"      \"region\": {\"startLine\": 24, \"endLine\": 26}}}]"
	"  }],"
	"  \"columnKind\": \"utf16CodeUnits\""
	"}]}";

static const char semgrep[] =
	"{\"version\": \"2.1.0\", \"$schema\": \"https://docs.oasis-open.org/"
	"sarif/sarif/v2.1.0/os/schemas/sarif-schema-2.1.0.json\","
	" \"runs\": [{\"invocations\": [{\"executionSuccessful\": true,"
	"   \"toolExecutionNotifications\": []}],"
	"  \"results\": [{"
	"    \"fingerprints\": {\"matchBasedId/v1\": \"0123\"},"
	"    \"locations\": [{\"physicalLocation\": {"
	"      \"artifactLocation\": {\"uri\": \"./src/recparse.c\","
	"        \"uriBaseId\": \"%SRCROOT%\"},"
	"      \"region\": {\"startLine\": 39, \"startColumn\": 3,"
	"        \"endLine\": 41, \"endColumn\": 20,"
	"        \"snippet\": {\"text\": \"memcpy(...)\"}}}}],"
	"    \"message\": {\"text\": \"Unchecked memcpy length\"},"
	"    \"properties\": {},"
	"    \"ruleId\": \"c.lang.security.insecure-use-memcpy\""
	"  }],"
	"  \"tool\": {\"driver\": {\"name\": \"Semgrep OSS\","
	"    \"semanticVersion\": \"1.50.0\", \"rules\": []}}"
	"}]}";

static const char cppcheck[] =
	"{\"$schema\": \"https://raw.githubusercontent.com/oasis-tcs/"
	"sarif-spec/master/Schemata/sarif-schema-2.1.0.json\","
	" \"version\": \"2.1.0\", \"runs\": [{"
	"  \"tool\": {\"driver\": {\"name\": \"Cppcheck\","
	"    \"informationUri\": \"https://cppcheck.sourceforge.io\","
	"    \"rules\": [{\"id\": \"arrayIndexOutOfBounds\"}]}},"
	"  \"results\": [{"
	"    \"ruleId\": \"arrayIndexOutOfBounds\", \"level\": \"error\","
	"    \"message\": {\"text\": \"Array 'v[4]' accessed at index 4\"},"
	"    \"locations\": [{"
	"      \"physicalLocation\": {"
	"        \"artifactLocation\": {\"uri\": \"src/rec%20parse.c\"},"
	"        \"region\": {\"startLine\": 100, \"startColumn\": 5}},"
	"      \"logicalLocations\": [{\"kind\": \"namespace\","
	"        \"name\": \"n\"}, {\"kind\": \"function\","
	"        \"name\": \"parse_extended\"}]"
	"    }]"
	"  }, {"
	"    \"ruleId\": \"missingInclude\", \"level\": \"note\","
	"    \"message\": {\"text\": \"Include file not found\"}"
	"  }]"
	"}, {"
	"  \"tool\": {\"driver\": {\"name\": \"Cppcheck\"}},"
	"  \"results\": [{\"message\": {\"text\": \"second run\"},"
	"    \"locations\": [{\"logicalLocations\": [{\"kind\": \"function\","
	"      \"fullyQualifiedName\": \"ns::f\"}]}]}]"
	"}]}";

static void parse_ok(struct sarif_candidates *c, const char *text,
		     const char *name)
{
	int r = sarif_candidates_parse(text, strlen(text), name, c);

	if (r)
		fprintf(stderr, "%s\n", crs_error_last());
	assert_int_equal(r, 0);
}

static void test_codeql(void **state)
{
	struct sarif_candidates c = SARIF_CANDIDATES_INIT;
	const struct finding_candidate *k;

	(void)state;
	parse_ok(&c, codeql, "/tmp/scans/codeql.sarif");
	assert_int_equal(c.nr, 2);
	k = &c.v[0];
	assert_string_equal(k->source, "codeql.sarif");
	assert_int_equal(k->index, 0);
	assert_string_equal(k->rule_id, "cpp/overflow-buffer");
	assert_string_equal(k->level, "warning");
	assert_string_equal(k->message, "This 'memcpy' may write past the "
			    "end of [value](1).");
	assert_string_equal(k->file, "src/recparse.c");
	assert_int_equal(k->start_line, 39);
	assert_int_equal(k->end_line, 39);
	assert_null(k->function);
	assert_null(k->status);
	k = &c.v[1];
	assert_int_equal(k->index, 1);
	assert_string_equal(k->level, "error");
	assert_string_equal(k->file, "/home/ci/repo/src/recparse.c");
	assert_int_equal(k->start_line, 24);
	assert_int_equal(k->end_line, 26);
	/* the checkout's prefix goes; others are kept */
	sarif_candidates_relativize(&c, "/elsewhere");
	assert_string_equal(c.v[1].file, "/home/ci/repo/src/recparse.c");
	sarif_candidates_relativize(&c, "/home/ci/repo/");
	assert_string_equal(c.v[1].file, "src/recparse.c");
	assert_string_equal(c.v[0].file, "src/recparse.c");
	sarif_candidates_release(&c);
	assert_int_equal(c.nr, 0);
}

static void test_semgrep(void **state)
{
	struct sarif_candidates c = SARIF_CANDIDATES_INIT;

	(void)state;
	parse_ok(&c, semgrep, "semgrep.sarif");
	assert_int_equal(c.nr, 1);
	assert_string_equal(c.v[0].source, "semgrep.sarif");
	assert_string_equal(c.v[0].file, "src/recparse.c");
	assert_int_equal(c.v[0].start_line, 39);
	assert_int_equal(c.v[0].end_line, 41);
	assert_string_equal(c.v[0].rule_id,
			    "c.lang.security.insecure-use-memcpy");
	/* appends: a second file's candidates follow */
	parse_ok(&c, codeql, "codeql.sarif");
	assert_int_equal(c.nr, 3);
	assert_string_equal(c.v[2].source, "codeql.sarif");
	assert_int_equal(c.v[2].index, 1);
	sarif_candidates_release(&c);
}

static void test_cppcheck(void **state)
{
	struct sarif_candidates c = SARIF_CANDIDATES_INIT;

	(void)state;
	parse_ok(&c, cppcheck, "cppcheck.sarif");
	assert_int_equal(c.nr, 3);
	assert_string_equal(c.v[0].file, "src/rec parse.c");
	assert_int_equal(c.v[0].start_line, 100);
	assert_int_equal(c.v[0].end_line, 100);
	assert_string_equal(c.v[0].function, "parse_extended");
	assert_string_equal(c.v[0].level, "error");
	/* no location: kept, with nothing to confirm it by */
	assert_null(c.v[1].file);
	assert_int_equal(c.v[1].start_line, 0);
	assert_string_equal(c.v[1].level, "note");
	/* the second run continues the count */
	assert_int_equal(c.v[2].index, 2);
	assert_null(c.v[2].file);
	assert_null(c.v[2].rule_id);
	assert_string_equal(c.v[2].function, "ns::f");
	sarif_candidates_release(&c);
}

static void test_uris(void **state)
{
	static const char *const in[][2] = {
		{ "file:///src/recparse/src/a.c", "/src/recparse/src/a.c" },
		{ "FILE://buildhost/src/recparse/a.c", "/src/recparse/a.c" },
		{ "file:/abs/b.c", "/abs/b.c" },
		{ "././c.c", "c.c" },
		{ "d%2Fe.c", "d/e.c" },
		{ "bad%zz.c", "bad%zz.c" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		struct sarif_candidates c = SARIF_CANDIDATES_INIT;
		char *doc = xasprintf(
			"{\"version\":\"2.1.0\",\"runs\":[{\"tool\":"
			"{\"driver\":{\"name\":\"t\"}},\"results\":"
			"[{\"message\":{\"text\":\"m\"},\"locations\":"
			"[{\"physicalLocation\":{\"artifactLocation\":"
				      "{\"uri\":\"%s\"}}}]}]}]}", in[i][0]);

		parse_ok(&c, doc, "u.sarif");
		assert_string_equal(c.v[0].file, in[i][1]);
		assert_int_equal(c.v[0].start_line, 0);
		sarif_candidates_release(&c);
		free(doc);
	}
}

/* A log with one result whose JSON is `result`. */
static char *one_result(const char *result)
{
	return xasprintf("{\"version\": \"2.1.0\", \"runs\": [{\"tool\": "
			 "{\"driver\": {\"name\": \"t\"}}, \"results\": "
			 "[{\"message\":{\"text\":\"a\"}}, "
			 "{\"message\":{\"text\":\"b\"}}, "
			 "{\"message\":{\"text\":\"c\"}}, %s]}]}",
			 result);
}

static void test_malformed(void **state)
{
	static const char *const docs[][2] = {
		{ "{\"version\": ", "bad.sarif:1:" },
		{ "[]", "bad.sarif: not a JSON object" },
		{ "{\"runs\": []}", "bad.sarif: version: missing" },
		{ "{\"version\": \"2.0.0\", \"runs\": []}",
		  "bad.sarif: version: not \"2.1.0\"" },
		{ "{\"version\": 2.1, \"runs\": []}",
		  "bad.sarif: version: not a string" },
		{ "{\"version\": \"2.1.0\"}", "bad.sarif: runs: missing" },
		{ "{\"version\": \"2.1.0\", \"runs\": {}}",
		  "bad.sarif: runs: not an array" },
		{ "{\"version\": \"2.1.0\", \"runs\": []}",
		  "bad.sarif: runs: empty" },
		{ "{\"version\": \"2.1.0\", \"runs\": [7]}",
		  "bad.sarif: runs[0]: not an object" },
		{ "{\"version\": \"2.1.0\", \"runs\": [{\"results\": []}]}",
		  "bad.sarif: runs[0].tool: missing" },
		{ "{\"version\": \"2.1.0\", \"runs\": [{\"tool\": {}, "
		  "\"results\": []}]}",
		  "bad.sarif: runs[0].tool.driver: missing" },
		{ "{\"version\": \"2.1.0\", \"runs\": [{\"tool\": {\"driver\": "
		  "{}}, \"results\": []}]}",
		  "bad.sarif: runs[0].tool.driver.name: missing" },
		{ "{\"version\": \"2.1.0\", \"runs\": [{\"tool\": {\"driver\": "
		  "{\"name\": \"\"}}, \"results\": []}]}",
		  "bad.sarif: runs[0].tool.driver.name: empty" },
		{ "{\"version\": \"2.1.0\", \"runs\": [{\"tool\": {\"driver\": "
		  "{\"name\": \"t\"}}}]}",
		  "bad.sarif: runs[0].results: missing" },
		{ "{\"version\": \"2.1.0\", \"version\": \"2.1.0\", "
		  "\"runs\": []}",
		  "bad.sarif:1:" },
		/* jansson refuses NUL in strings itself */
		{ "{\"version\": \"2.1.0\\u0000\", \"runs\": []}",
		  "bad.sarif:1:" },
	};
	/* the last result of one_result(), at runs[0].results[3] */
	static const char *const results[][2] = {
		{ "5", "runs[0].results[3]: not an object" },
		{ "{}", "runs[0].results[3].message: missing" },
		{ "{\"message\": {\"id\": \"m\"}}",
		  "runs[0].results[3].message.text: missing" },
		{ "{\"message\": {\"text\": \"m\"}, \"ruleId\": 5}",
		  "runs[0].results[3].ruleId: not a string" },
		{ "{\"message\": {\"text\": \"m\"}, \"level\": \"fatal\"}",
		  "runs[0].results[3].level: not one of none, note, warning, "
		  "error" },
		{ "{\"message\": {\"text\": \"m\"}, \"locations\": {}}",
		  "runs[0].results[3].locations: not an array" },
		{ "{\"message\": {\"text\": \"m\"}, \"locations\": [1]}",
		  "runs[0].results[3].locations[0]: not an object" },
		{ "{\"message\": {\"text\": \"m\"}, \"locations\": [{"
		  "\"physicalLocation\": {\"artifactLocation\": {}}}]}",
		  "runs[0].results[3].locations[0].physicalLocation."
		  "artifactLocation.uri: missing" },
		{ "{\"message\": {\"text\": \"m\"}, \"locations\": [{"
		  "\"physicalLocation\": {\"artifactLocation\": "
		  "{\"uri\": 3}}}]}",
		  "runs[0].results[3].locations[0].physicalLocation."
		  "artifactLocation.uri: not a string" },
		{ "{\"message\": {\"text\": \"m\"}, \"locations\": [{"
		  "\"physicalLocation\": {\"artifactLocation\": {\"uri\": "
		  "\"a%00b\"}}}]}",
		  "runs[0].results[3].locations[0].physicalLocation."
		  "artifactLocation.uri: contains a NUL character" },
		{ "{\"message\": {\"text\": \"m\"}, \"locations\": [{"
		  "\"physicalLocation\": {\"region\": "
		  "{\"startLine\": 39.0}}}]}",
		  "runs[0].results[3].locations[0].physicalLocation.region."
		  "startLine: not an integer" },
		{ "{\"message\": {\"text\": \"m\"}, \"locations\": [{"
		  "\"physicalLocation\": {\"region\": {\"startColumn\": 1}}}]}",
		  "runs[0].results[3].locations[0].physicalLocation.region."
		  "startLine: missing" },
		{ "{\"message\": {\"text\": \"m\"}, \"locations\": [{"
		  "\"physicalLocation\": {\"region\": {\"startLine\": 0}}}]}",
		  "runs[0].results[3].locations[0].physicalLocation.region."
		  "startLine: out of range" },
		{ "{\"message\": {\"text\": \"m\"}, \"locations\": [{"
		  "\"physicalLocation\": {\"region\": {\"startLine\": 9, "
		  "\"endLine\": 8}}}]}",
		  "runs[0].results[3].locations[0].physicalLocation.region."
		  "endLine: smaller than startLine" },
		{ "{\"message\": {\"text\": \"m\"}, \"locations\": [{"
		  "\"physicalLocation\": {\"region\": {\"startLine\": 9, "
		  "\"endLine\": \"9\"}}}]}",
		  "runs[0].results[3].locations[0].physicalLocation.region."
		  "endLine: not an integer" },
		{ "{\"message\": {\"text\": \"m\"}, \"locations\": [{"
		  "\"physicalLocation\": []}]}",
		  "runs[0].results[3].locations[0].physicalLocation: not an "
		  "object" },
		{ "{\"message\": {\"text\": \"m\"}, \"locations\": [{"
		  "\"logicalLocations\": [\"f\"]}]}",
		  "runs[0].results[3].locations[0].logicalLocations[0]: not an "
		  "object" },
		{ "{\"message\": {\"text\": \"m\"}, \"locations\": [{"
		  "\"logicalLocations\": [{\"kind\": \"function\", "
		  "\"name\": 1}]}]}",
		  "runs[0].results[3].locations[0].logicalLocations[0].name: "
		  "not a string" },
	};
	struct sarif_candidates c = SARIF_CANDIDATES_INIT;

	(void)state;
	parse_ok(&c, semgrep, "semgrep.sarif");
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		int r = sarif_candidates_parse(docs[i][0], strlen(docs[i][0]),
					       "bad.sarif", &c);

		assert_int_equal(r, CRS_EINPUT);
		if (strncmp(crs_error_last(), docs[i][1], strlen(docs[i][1])))
			fail_msg("%s: got \"%s\", want \"%s\"", docs[i][0],
				 crs_error_last(), docs[i][1]);
		assert_int_equal(c.nr, 1);	/* unchanged */
		crs_error_clear();
	}
	for (size_t i = 0; i < sizeof(results) / sizeof(results[0]); i++) {
		char *doc = one_result(results[i][0]);
		char *want = xasprintf("codeql.sarif: %s", results[i][1]);
		int r = sarif_candidates_parse(doc, strlen(doc),
					       "codeql.sarif", &c);

		assert_int_equal(r, CRS_EINPUT);
		if (strcmp(crs_error_last(), want))
			fail_msg("%s: got \"%s\", want \"%s\"", results[i][0],
				 crs_error_last(), want);
		assert_int_equal(c.nr, 1);
		crs_error_clear();
		free(want);
		free(doc);
	}
	/* the brief's own example: a string line number */
	{
		char *doc = one_result("{\"message\": {\"text\": \"m\"}, "
				       "\"locations\": [{\"physicalLocation\": "
				       "{\"region\": {\"startLine\": "
				       "\"39\"}}}]}");

		assert_int_equal(sarif_candidates_parse(doc, strlen(doc),
							"codeql.sarif", &c),
				 CRS_EINPUT);
		assert_string_equal(crs_error_last(), "codeql.sarif: runs[0]."
				    "results[3].locations[0].physicalLocation."
				    "region.startLine: not an integer");
		crs_error_clear();
		free(doc);
	}
	sarif_candidates_release(&c);
}

static char *many_results(size_t n)
{
	struct buf b = BUF_INIT;

	buf_adds(&b, "{\"version\":\"2.1.0\",\"runs\":[{\"tool\":{\"driver\":"
		 "{\"name\":\"t\"}},\"results\":[");
	for (size_t i = 0; i < n; i++)
		buf_printf(&b, "%s{\"message\":{\"text\":\"r\"}}",
			   i ? "," : "");
	buf_adds(&b, "]}]}");
	return buf_detach(&b, NULL);
}

static void test_caps(void **state)
{
	struct sarif_candidates c = SARIF_CANDIDATES_INIT;
	char *doc = many_results(SARIF_READ_MAX_RESULTS);
	char *big, *msg;
	size_t n = SARIF_READ_MAX_BYTES + 1;

	(void)state;
	parse_ok(&c, doc, "many.sarif");
	assert_int_equal(c.nr, SARIF_READ_MAX_RESULTS);
	assert_int_equal(c.v[c.nr - 1].index, SARIF_READ_MAX_RESULTS - 1);
	sarif_candidates_release(&c);
	free(doc);
	doc = many_results(SARIF_READ_MAX_RESULTS + 1);
	assert_int_equal(sarif_candidates_parse(doc, strlen(doc), "many.sarif",
						&c), CRS_EINPUT);
	assert_string_equal(crs_error_last(), "many.sarif: runs[0].results: "
			    "more than 25000 results in the file");
	assert_int_equal(c.nr, 0);
	free(doc);
	/* too large: refused before it is parsed */
	big = xmalloc(n);
	memset(big, ' ', n);
	assert_int_equal(sarif_candidates_parse(big, n, "big.sarif", &c),
			 CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "big.sarif: larger than"));
	free(big);
	/* a long message is cut, never inside a UTF-8 sequence */
	msg = xmalloc(2 * SARIF_READ_MESSAGE_MAX + 1);
	for (size_t i = 0; i < SARIF_READ_MESSAGE_MAX; i++)
		memcpy(msg + 2 * i, "\xc3\xa9", 2);	/* é */
	msg[2 * SARIF_READ_MESSAGE_MAX] = '\0';
	doc = xasprintf("{\"version\":\"2.1.0\",\"runs\":[{\"tool\":"
			"{\"driver\":"
			"{\"name\":\"t\"}},\"results\":[{\"message\":{\"text\":"
			"\"x%s\"}}]}]}", msg);
	parse_ok(&c, doc, "long.sarif");
	assert_true(strlen(c.v[0].message) <= SARIF_READ_MESSAGE_MAX);
	assert_true(strlen(c.v[0].message) >= SARIF_READ_MESSAGE_MAX - 1);
	assert_int_equal(strlen(c.v[0].message) % 2, 1); /* "x" + whole é */
	sarif_candidates_release(&c);
	free(doc);
	free(msg);
	crs_error_clear();
}

static void test_load(void **state)
{
	struct sarif_candidates c = SARIF_CANDIDATES_INIT;
	char dir[] = "/tmp/crs-ci-sarif-read.XXXXXX";
	char *path;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/semgrep.sarif", dir);
	assert_int_equal(sarif_candidates_load(path, &c), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "no such file"));
	assert_int_equal(fs_write_file_atomic(path, semgrep, strlen(semgrep)),
			 0);
	assert_int_equal(sarif_candidates_load(path, &c), 0);
	assert_int_equal(c.nr, 1);
	assert_string_equal(c.v[0].source, "semgrep.sarif");
	assert_int_equal(fs_write_file_atomic(path, "{}", 2), 0);
	assert_int_equal(sarif_candidates_load(path, &c), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), path));
	assert_non_null(strstr(crs_error_last(), "version: missing"));
	assert_int_equal(c.nr, 1);
	sarif_candidates_release(&c);
	crs_error_clear();
	assert_int_equal(fs_remove_tree(dir), 0);
	free(path);
}

static void add_frame(struct finding *f, const char *func, const char *file,
		      int line, int in_project)
{
	finding_add_frame(f, func, file, line, in_project)->column = 3;
}

/* A set with the demo's overflow and a bug the change fixed. */
static void demo_set(struct finding_set *fs)
{
	struct finding *f;

	finding_set_init(fs);
	fs->summary.project = xstrdup("recparse");
	fs->summary.fail_on = xstrdup("new");
	/* fixed by the change: its stack must confirm nothing */
	f = finding_set_add(fs);
	f->id = xstrdup("00000000000000aa");
	f->signature = xstrdup("Null-dereference READ\nrp_print");
	f->crash_type = xstrdup("Null-dereference READ");
	f->novelty = xstrdup("fixed-by-change");
	f->file = xstrdup("src/recparse.c");
	f->line = 5;
	f->pov_path = xstrdup("povs/aa");
	add_frame(f, "rp_print", "src/recparse.c", 5, 1);
	f = finding_set_add(fs);
	f->id = xstrdup("07b256e0bc4a2f9f");
	f->signature = xstrdup("Heap-buffer-overflow WRITE {*}\n"
			       "parse_extended\nparse_record");
	f->crash_type = xstrdup("Heap-buffer-overflow WRITE {*}");
	f->kind = xstrdup("heap-buffer-overflow");
	f->harness = xstrdup("fuzz_records");
	f->file = xstrdup("src/recparse.c");
	f->line = 39;
	f->function = xstrdup("parse_extended");
	f->pov_path = xstrdup("povs/3f79");
	f->pov_sha256 = xstrdup("3f79");
	f->reproduced = f->attempts = 5;
	f->novelty = xstrdup("new");
	add_frame(f, "__asan_memcpy", "/src/llvm/asan.cpp", 39, 0);
	add_frame(f, "parse_extended", "src/recparse.c", 39, 1);
	add_frame(f, "parse_record(unsigned char const*, unsigned long)",
		  "src/recparse.c", 75, 1);
	add_frame(f, "LLVMFuzzerTestOneInput", "fuzz/fuzz_records.c", 20, 1);
}

static void add_cand(struct finding_set *fs, const char *rule,
		     const char *file, int start, int end, const char *func)
{
	struct finding_candidate *k = finding_set_add_candidate(fs);

	k->source = xstrdup("codeql.sarif");
	k->index = fs->candidates_nr - 1;
	k->rule_id = rule ? xstrdup(rule) : NULL;
	k->level = xstrdup("warning");
	k->message = xstrdup("m");
	k->file = file ? xstrdup(file) : NULL;
	k->start_line = start;
	k->end_line = end;
	k->function = func ? xstrdup(func) : NULL;
}

static void test_mark(void **state)
{
	static const struct {
		const char *file;
		int start, end;
		const char *func;
		int confirmed;
	} cases[] = {
		{ "src/recparse.c", 39, 39, NULL, 1 },	/* the bug's line */
		{ "src/recparse.c", 5, 5, NULL, 0 },	/* only a fixed bug */
		{ "src/recparse.c", 30, 45, NULL, 1 },	/* a range */
		{ "src/recparse.c", 39, 0, NULL, 1 },	/* end defaults */
		{ "src/recparse.c", 100, 100, "parse_extended", 1 },
		{ "src/recparse.c", 100, 100, "parse_record", 1 }, /* f(...) */
		{ "src/recparse.c", 100, 100, "parse", 0 },	/* no prefix */
		{ "src/recparse.c", 0, 0, "rp_print", 0 },
		{ "src/other.c", 39, 39, "parse_extended", 0 },
		{ "/src/llvm/asan.cpp", 39, 39, NULL, 0 }, /* not in project */
		{ NULL, 39, 39, "parse_extended", 0 },	/* no file */
		{ "fuzz/fuzz_records.c", 18, 22, NULL, 1 },
	};
	struct finding_set fs;

	(void)state;
	demo_set(&fs);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		add_cand(&fs, "r", cases[i].file, cases[i].start, cases[i].end,
			 cases[i].func);
	assert_int_equal(sarif_candidates_mark(&fs), 6);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct finding_candidate *k = &fs.candidates[i];

		if (cases[i].confirmed) {
			assert_string_equal(k->status, "confirmed");
			assert_string_equal(k->finding_id, "07b256e0bc4a2f9f");
			assert_string_equal(k->pov_path, "povs/3f79");
		} else {
			if (strcmp(k->status, "unconfirmed"))
				fail_msg("case %zu: %s", i, k->status);
			assert_null(k->finding_id);
			assert_null(k->pov_path);
		}
	}
	/* marking again gives the same, without leaking */
	assert_int_equal(sarif_candidates_mark(&fs), 6);
	finding_set_release(&fs);
}

static void test_results_json(void **state)
{
	static const char old[] =
		"{\"version\": 1, \"summary\": {}, \"findings\": []}";
	static const char bad_status[] =
		"{\"version\": 1, \"summary\": {}, \"findings\": [], "
		"\"candidates\": [{\"source\": \"a.sarif\", \"status\": "
		"\"maybe\"}]}";
	static const char bad_line[] =
		"{\"version\": 1, \"summary\": {}, \"findings\": [], "
		"\"candidates\": [{\"source\": \"a.sarif\"}, {\"source\": "
		"\"a.sarif\", \"start_line\": -1}]}";
	struct finding_set fs, back;
	json_error_t err;
	json_t *j;

	(void)state;
	demo_set(&fs);
	add_cand(&fs, "cpp/overflow", "src/recparse.c", 39, 39, NULL);
	add_cand(&fs, NULL, "src/recparse.c", 5, 7, "rp_print");
	sarif_candidates_mark(&fs);
	j = finding_set_to_json(&fs);
	finding_set_init(&back);
	assert_int_equal(finding_set_from_json(&back, j, "r.json"), 0);
	json_decref(j);
	assert_int_equal(back.candidates_nr, 2);
	assert_string_equal(back.candidates[0].source, "codeql.sarif");
	assert_int_equal(back.candidates[0].index, 0);
	assert_string_equal(back.candidates[0].rule_id, "cpp/overflow");
	assert_string_equal(back.candidates[0].status, "confirmed");
	assert_string_equal(back.candidates[0].finding_id,
			    "07b256e0bc4a2f9f");
	assert_string_equal(back.candidates[0].pov_path, "povs/3f79");
	assert_int_equal(back.candidates[0].start_line, 39);
	assert_null(back.candidates[1].rule_id);
	assert_string_equal(back.candidates[1].function, "rp_print");
	assert_int_equal(back.candidates[1].end_line, 7);
	assert_string_equal(back.candidates[1].status, "unconfirmed");
	assert_null(back.candidates[1].finding_id);
	/* a file from before candidates loads, with none */
	j = json_loads(old, 0, &err);
	assert_int_equal(finding_set_from_json(&back, j, "old.json"), 0);
	assert_int_equal(back.candidates_nr, 0);
	json_decref(j);
	j = json_loads(bad_status, 0, &err);
	assert_int_equal(finding_set_from_json(&back, j, "r.json"),
			 CRS_EINPUT);
	assert_string_equal(crs_error_last(), "r.json: candidates[0].status: "
			    "unknown value \"maybe\"");
	json_decref(j);
	j = json_loads(bad_line, 0, &err);
	assert_int_equal(finding_set_from_json(&back, j, "r.json"),
			 CRS_EINPUT);
	assert_string_equal(crs_error_last(), "r.json: candidates[1]."
			    "start_line: out of range");
	json_decref(j);
	crs_error_clear();
	finding_set_release(&back);
	finding_set_release(&fs);
}

static void test_sarif_and_verdict(void **state)
{
	struct finding_set fs;
	json_t *log = NULL, *res, *props, *cands;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	demo_set(&fs);
	add_cand(&fs, "cpp/overflow", "src/recparse.c", 39, 39, NULL);
	add_cand(&fs, "cpp/other", "src/recparse.c", 5, 5, NULL);
	add_cand(&fs, NULL, "src/recparse.c", 100, 100, "parse_extended");
	sarif_candidates_mark(&fs);
	assert_int_equal(sarif_from_findings(&log, &fs, NULL), 0);
	res = json_array_get(json_object_get(json_array_get(
		json_object_get(log, "runs"), 0), "results"), 1);
	props = json_object_get(res, "properties");
	cands = json_object_get(props, "confirmsCandidates");
	assert_int_equal(json_array_size(cands), 2);
	assert_string_equal(json_string_value(json_array_get(cands, 0)),
			    "codeql.sarif#0: cpp/overflow");
	assert_string_equal(json_string_value(json_array_get(cands, 1)),
			    "codeql.sarif#2");
	/* the fixed bug confirms none: no empty list either */
	res = json_array_get(json_object_get(json_array_get(
		json_object_get(log, "runs"), 0), "results"), 0);
	assert_null(json_object_get(json_object_get(res, "properties"),
				    "confirmsCandidates"));
	json_decref(log);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	terminal_report(f, &fs, "out");
	fclose(f);
	assert_non_null(strstr(text, "  [confirmed] codeql.sarif#0 "
			       "cpp/overflow at src/recparse.c:39 by finding "
			       "07b256e0bc4a2f9f, PoV out/povs/3f79\n"));
	assert_non_null(strstr(text, "  [confirmed] codeql.sarif#2 (no rule) "
			       "at src/recparse.c:100"));
	assert_null(strstr(text, "codeql.sarif#1"));
	assert_non_null(strstr(text, "SARIF candidates: 2 confirmed, 1 "
			       "unconfirmed"));
	free(text);
	finding_set_release(&fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codeql),
		cmocka_unit_test(test_semgrep),
		cmocka_unit_test(test_cppcheck),
		cmocka_unit_test(test_uris),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_mark),
		cmocka_unit_test(test_results_json),
		cmocka_unit_test(test_sarif_and_verdict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
