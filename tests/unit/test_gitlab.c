/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gitlab.c - GitLab artifacts and MR suggestions (runner/report/gitlab.c)
 *
 * A finding set with a new, a pre-existing, a flaky, a fixed-by-change and
 * a location-less finding becomes gl-code-quality-report.json,
 * gl-sast-report.json and junit.xml; the tests check the fields GitLab
 * reads (ci-formats.md §4.1-4.3, checklist 18-19), stable fingerprints and
 * ids, remediations, hostile strings, and the MR discussion request
 * against a fake of GitLab's API (tests/helper/fake_gitlab.c) over real
 * HTTP through libcurl.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "runner/report/gitlab.h"
#include "sarif/change_anchor.h"
#include "diff/changeset.h"
#include "sarif/finding.h"
#include "tests/unit/finding_builder.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"

#include "tests/helper/fake_gitlab.h"

#include <curl/curl.h>
#include <git2.h>
#include <libxml/parser.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ID_NEW "07b256e0bc4a2f9f"
/* python3 -c "import uuid; print(uuid.uuid5(uuid.NAMESPACE_URL,
 *             'crs-ci:07b256e0bc4a2f9f'))" */
#define UUID_NEW "6206014c-5182-5a11-93e2-6073f49dd104"
#define TOKEN "glpat-SECRET-abc123"

static void build_set(struct finding_set *s)
{
	struct finding *f;

	finding_set_init(s);
	s->summary.project = xstrdup("tiny");
	s->summary.tool_version = xstrdup("0.1.0");
	s->summary.fail_on = xstrdup("new");
	s->summary.started_at = xstrdup("2024-05-01T10:00:00Z");
	s->summary.finished_at = xstrdup("2024-05-01T10:20:00Z");
	f = finding_add(s, ID_NEW, "Heap-buffer-overflow WRITE 4", 1,
			"src/parse.c", 20, "parse_record", "fuzz_parse", 5, 5,
			"new");
	f->in_change = 1;
	finding_add(s, "1111aaaa2222bbbb", "Null-dereference READ", 0,
		    "util.c", 7, "get", "fuzz_parse", 5, 5, "pre-existing");
	finding_add(s, "3333cccc4444dddd", "Heap-use-after-free READ 8", 1,
		    "list.c", 33, "list_pop", "fuzz_list", 2, 5, "new");
	finding_add(s, "5555eeee6666ffff", "Stack-buffer-overflow READ 1", 1,
	    "old.c", 3, "old_fn", "fuzz_list", 5, 5, "fixed-by-change");
	f = finding_add(s, "7777000088889999", "Timeout", 0, NULL, 0, NULL,
		"fuzz_list", 5, 5, "new");
	/* no file of its own; no in-project frame either */
	f->stack = xcalloc(1, sizeof(*f->stack));
	f->stack[0].func = xstrdup("__libc_start_main");
	f->stack[0].file = xstrdup("/usr/lib/libc.so.6");
	f->stack_nr = 1;
}

static const char *str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	assert_true(json_is_string(v));
	return json_string_value(v);
}

static void test_severity(void **state)
{
	struct finding_set s;

	(void)state;
	build_set(&s);
	/* new heap write (security-severity 9.0) */
	assert_string_equal(gitlab_cq_severity(&s.items[0]), "blocker");
	assert_string_equal(gitlab_sast_severity(&s.items[0]), "Critical");
	/* non-security, pre-existing: two steps lower */
	assert_string_equal(gitlab_cq_severity(&s.items[1]), "minor");
	assert_string_equal(gitlab_sast_severity(&s.items[1]), "Low");
	/* use-after-free, flaky: one lower */
	assert_string_equal(gitlab_cq_severity(&s.items[2]), "critical");
	assert_string_equal(gitlab_sast_severity(&s.items[2]), "High");
	assert_string_equal(gitlab_cq_severity(&s.items[3]), "info");
	assert_string_equal(gitlab_sast_severity(&s.items[4]), "Medium");
	/* a read overflow (7.5) is security but not critical */
	free(s.items[0].crash_type);
	s.items[0].crash_type = xstrdup("Heap-buffer-overflow READ 1");
	assert_string_equal(gitlab_cq_severity(&s.items[0]), "critical");
	/* pre-existing and flaky together never drop below minor */
	free(s.items[1].crash_type);
	s.items[1].crash_type = xstrdup("Timeout");
	s.items[1].reproduced = 1;
	assert_string_equal(gitlab_cq_severity(&s.items[1]), "minor");
	finding_set_release(&s);
}

static void test_uuid(void **state)
{
	char a[37], b[37];

	(void)state;
	gitlab_vuln_uuid(a, ID_NEW);
	assert_string_equal(a, UUID_NEW);
	gitlab_vuln_uuid(b, "1111aaaa2222bbbb");
	assert_string_not_equal(a, b);
	assert_int_equal(b[14], '5');
}

static void test_code_quality(void **state)
{
	struct finding_set s;
	json_t *cq, *again, *e;
	size_t n;

	(void)state;
	build_set(&s);
	cq = gitlab_code_quality(&s);
	/* fixed-by-change and location-less findings are left out */
	assert_true(json_is_array(cq));
	assert_int_equal(json_array_size(cq), 3);
	e = json_array_get(cq, 0);
	assert_string_equal(str(e, "fingerprint"), ID_NEW);
	assert_string_equal(str(e, "check_name"),
			    "crs-ci/heap-buffer-overflow-write");
	assert_string_equal(str(e, "severity"), "blocker");
	assert_string_equal(str(e, "description"),
			    "Heap buffer overflow (write): "
			    "Heap-buffer-overflow WRITE 4 in parse_record "
			    "(new, reproduced 5/5, harness fuzz_parse)");
	assert_string_equal(str(json_object_get(e, "location"), "path"),
			    "src/parse.c");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
		json_object_get(e, "location"), "lines"), "begin")), 20);
	e = json_array_get(cq, 1);
	assert_string_equal(str(e, "fingerprint"), "1111aaaa2222bbbb");
	assert_string_equal(str(e, "severity"), "minor");
	assert_non_null(strstr(str(e, "description"), "(pre-existing,"));
	e = json_array_get(cq, 2);
	assert_string_equal(str(e, "severity"), "critical");
	assert_non_null(strstr(str(e, "description"), "reproduced 2/5"));
	/* stable across runs */
	again = gitlab_code_quality(&s);
	assert_true(json_equal(cq, again));
	json_decref(again);
	json_decref(cq);

	/* a finding without file takes its innermost in-project frame */
	s.items[4].stack[0].in_project = 1;
	free(s.items[4].stack[0].file);
	s.items[4].stack[0].file = xstrdup("loop.c");
	s.items[4].stack[0].line = 0;
	cq = gitlab_code_quality(&s);
	assert_int_equal(json_array_size(cq), 4);
	e = json_array_get(cq, 3);
	assert_string_equal(str(json_object_get(e, "location"), "path"),
			    "loop.c");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
		json_object_get(e, "location"), "lines"), "begin")), 1);
	json_decref(cq);

	/* --report-timeouts no: the timeout is in neither report */
	cq = gitlab_sast(&s);
	n = json_array_size(json_object_get(cq, "vulnerabilities"));
	json_decref(cq);
	assert_int_equal(finding_set_suppress(&s, 1, 0), 1);
	cq = gitlab_code_quality(&s);
	assert_int_equal(json_array_size(cq), 3);
	json_decref(cq);
	cq = gitlab_sast(&s);
	assert_int_equal(json_array_size(json_object_get(cq,
			 "vulnerabilities")), n - 1);
	json_decref(cq);
	finding_set_release(&s);
}

static void test_sast(void **state)
{
	struct finding_set s;
	json_t *doc, *scan, *v, *ids, *loc, *again;

	(void)state;
	build_set(&s);
	doc = gitlab_sast(&s);
	assert_string_equal(str(doc, "version"), "15.0.7");
	scan = json_object_get(doc, "scan");
	assert_string_equal(str(scan, "type"), "sast");
	assert_string_equal(str(scan, "status"), "success");
	assert_string_equal(str(scan, "start_time"), "2024-05-01T10:00:00");
	assert_string_equal(str(scan, "end_time"), "2024-05-01T10:20:00");
	assert_string_equal(str(json_object_get(scan, "analyzer"), "id"),
			    "crs-ci");
	assert_string_equal(str(json_object_get(json_object_get(scan,
		"scanner"), "vendor"), "name"), "crs-ci");
	assert_string_equal(str(json_object_get(scan, "scanner"), "version"),
			    "0.1.0");
	/* one primary identifier per rule used */
	assert_int_equal(json_array_size(json_object_get(scan,
		"primary_identifiers")), 3);
	assert_int_equal(json_array_size(json_object_get(doc,
		"vulnerabilities")), 3);
	assert_true(json_is_array(json_object_get(doc, "remediations")));
	assert_int_equal(json_array_size(json_object_get(doc,
		"remediations")), 0);

	v = json_array_get(json_object_get(doc, "vulnerabilities"), 0);
	assert_string_equal(str(v, "id"), UUID_NEW);
	assert_string_equal(str(v, "category"), "sast");
	assert_string_equal(str(v, "name"), "Heap buffer overflow (write)");
	assert_string_equal(str(v, "severity"), "Critical");
	assert_non_null(strstr(str(v, "description"),
			       "ERROR: AddressSanitizer: "
			       "Heap-buffer-overflow"));
	assert_non_null(strstr(str(v, "description"), "in 5 of 5 runs, at "
			       "`src/parse.c:20`, a line this change "
			       "touched"));
	ids = json_object_get(v, "identifiers");
	assert_int_equal(json_array_size(ids), 4);
	assert_string_equal(str(json_array_get(ids, 0), "type"),
			    "crs_ci_rule_id");
	assert_string_equal(str(json_array_get(ids, 0), "value"),
			    "crs-ci/heap-buffer-overflow-write");
	assert_string_equal(str(json_array_get(ids, 1), "type"), "cwe");
	assert_string_equal(str(json_array_get(ids, 1), "name"), "CWE-122");
	assert_string_equal(str(json_array_get(ids, 1), "value"), "122");
	assert_string_equal(str(json_array_get(ids, 1), "url"),
			    "https://cwe.mitre.org/data/definitions/122.html");
	assert_string_equal(str(json_array_get(ids, 2), "value"), "787");
	assert_string_equal(str(json_array_get(ids, 3), "value"), ID_NEW);
	loc = json_object_get(v, "location");
	assert_string_equal(str(loc, "file"), "src/parse.c");
	assert_int_equal(json_integer_value(json_object_get(loc,
		"start_line")), 20);
	assert_int_equal(json_integer_value(json_object_get(loc,
		"end_line")), 20);
	assert_string_equal(str(loc, "method"), "parse_record");
	v = json_array_get(json_object_get(doc, "vulnerabilities"), 1);
	assert_string_equal(str(v, "severity"), "Low");
	v = json_array_get(json_object_get(doc, "vulnerabilities"), 2);
	assert_string_equal(str(v, "severity"), "High");
	assert_non_null(strstr(str(v, "description"), "in 2 of 5 runs"));

	again = gitlab_sast(&s);
	assert_true(json_equal(doc, again));
	json_decref(again);
	json_decref(doc);
	finding_set_release(&s);
}

static void test_remediation(void **state)
{
	struct finding_set s;
	const char *diff = "--- a/src/parse.c\n+++ b/src/parse.c\n"
		"@@ -20 +20 @@\n-\tmemcpy(d, s, n);\n+\tmemcpy(d, s, 4);\n";
	json_t *doc, *rem, *bad;
	unsigned char dec[512];
	int n;

	(void)state;
	build_set(&s);
	doc = gitlab_sast(&s);
	assert_int_equal(gitlab_sast_add_remediation(doc, ID_NEW,
		"Bound the copy", diff, strlen(diff)), 0);
	rem = json_array_get(json_object_get(doc, "remediations"), 0);
	assert_non_null(rem);
	assert_string_equal(str(rem, "summary"), "Bound the copy");
	assert_string_equal(str(json_array_get(json_object_get(rem, "fixes"),
					       0), "id"), UUID_NEW);
	n = EVP_DecodeBlock(dec, (const unsigned char *)str(rem, "diff"),
			    (int)strlen(str(rem, "diff")));
	assert_true(n >= (int)strlen(diff));
	assert_memory_equal(dec, diff, strlen(diff));
	/* the fixed-by-change finding has no vulnerability to remediate */
	assert_int_equal(gitlab_sast_add_remediation(doc, "5555eeee6666ffff",
		"x", diff, strlen(diff)), CRS_ENOTFOUND);
	assert_non_null(strstr(crs_error_last(), "5555eeee6666ffff"));
	assert_int_equal(gitlab_sast_add_remediation(doc, ID_NEW, "x", "", 0),
			 CRS_EINPUT);
	bad = json_object();
	assert_int_equal(gitlab_sast_add_remediation(bad, ID_NEW, "x", diff,
		strlen(diff)), CRS_EINPUT);
	json_decref(bad);
	assert_int_equal(json_array_size(json_object_get(doc,
		"remediations")), 1);
	json_decref(doc);
	finding_set_release(&s);
}

static void test_hostile(void **state)
{
	struct finding_set s;
	json_t *cq, *sast, *back;
	char *dump;
	const char *d;

	(void)state;
	finding_set_init(&s);
	finding_add(&s, "abcdabcdabcdabcd", "Crash \"q\" <x>", 1,
		    "a\"b\\c\xff.c", 4, "f\x01\x1b[31m", "h\xc0\xaf", 5, 5,
		    "new");
	cq = gitlab_code_quality(&s);
	sast = gitlab_sast(&s);
	dump = json_dumps(cq, 0);
	assert_non_null(dump);
	back = json_loads(dump, 0, NULL);
	assert_non_null(back);
	d = str(json_array_get(back, 0), "description");
	assert_string_equal(d, "Crash: Crash \"q\" <x> in f  [31m (new, "
			    "reproduced 5/5, harness h\xef\xbf\xbd"
			    "\xef\xbf\xbd)");
	assert_string_equal(str(json_object_get(json_array_get(back, 0),
						"location"), "path"),
			    "a\"b\\c\xef\xbf\xbd.c");
	json_decref(back);
	free(dump);
	dump = json_dumps(sast, 0);
	assert_non_null(dump);
	free(dump);
	json_decref(cq);
	json_decref(sast);
	finding_set_release(&s);
}

static void test_report_files(void **state)
{
	struct finding_set s;
	char dir[] = "/tmp/crs-gitlab-XXXXXX";
	char *out, *p;
	struct buf b = BUF_INIT;
	json_t *j;
	xmlDocPtr doc;

	(void)state;
	assert_non_null(mkdtemp(dir));
	out = xasprintf("%s/reports", dir);
	build_set(&s);
	/* a validated patch and a rejected one, both for ID_NEW */
	for (int i = 0; i < 2; i++) {
		struct finding_patch *fp = finding_set_add_patch(&s);

		fp->sha256 = xstrdup(i ? "bb22" : "aa11");
		fp->crs = xstrdup("crs-x");
		fp->diff = xstrdup(i ? "--- a/y\n+++ b/y\n" :
				   "--- a/x\n+++ b/x\n");
		fp->validated = !i;
		fp->fixes = xcalloc(2, sizeof(char *));
		fp->fixes[fp->fixes_nr++] = xstrdup(ID_NEW);
	}
	assert_int_equal(gitlab_report(&s, out, NULL), 0);

	p = xasprintf("%s/gl-code-quality-report.json", out);
	assert_int_equal(fs_read_file(&b, p, 1 << 20), 0);
	assert_int_equal(b.ptr[0], '[');	/* no byte-order mark */
	j = json_loadb(b.ptr, b.len, JSON_REJECT_DUPLICATES, NULL);
	assert_int_equal(json_array_size(j), 3);
	json_decref(j);
	unlink(p);
	free(p);

	p = xasprintf("%s/gl-sast-report.json", out);
	buf_reset(&b);
	assert_int_equal(fs_read_file(&b, p, 1 << 20), 0);
	assert_int_equal(b.ptr[0], '{');
	j = json_loadb(b.ptr, b.len, JSON_REJECT_DUPLICATES, NULL);
	assert_string_equal(str(j, "version"), "15.0.7");
	{	/* only the validated patch, as the fix of ID_NEW */
		json_t *rems = json_object_get(j, "remediations");
		json_t *rem = json_array_get(rems, 0);
		char uuid[37];

		gitlab_vuln_uuid(uuid, ID_NEW);
		assert_int_equal(json_array_size(rems), 1);
		assert_string_equal(json_string_value(json_object_get(
			json_array_get(json_object_get(rem, "fixes"), 0),
			"id")), uuid);
		/* base64 of "--- a/x\n+++ b/x\n" */
		assert_string_equal(str(rem, "diff"),
				    "LS0tIGEveAorKysgYi94Cg==");
		assert_non_null(strstr(str(rem, "summary"), "aa11"));
	}
	json_decref(j);
	unlink(p);
	free(p);

	p = xasprintf("%s/junit.xml", out);
	doc = xmlReadFile(p, NULL, XML_PARSE_NONET);
	assert_non_null(doc);
	xmlFreeDoc(doc);
	unlink(p);
	free(p);

	buf_release(&b);
	rmdir(out);
	rmdir(dir);
	free(out);
	finding_set_release(&s);
}

static void test_env(void **state)
{
	struct gitlab_env env;

	(void)state;
	setenv("GITLAB_CI", "true", 1);
	setenv("CI_API_V4_URL", "https://gitlab.example.com/api/v4", 1);
	setenv("CI_PROJECT_ID", "42", 1);
	setenv("CI_MERGE_REQUEST_IID", "7", 1);
	setenv("CI_MERGE_REQUEST_DIFF_BASE_SHA", FAKE_GITLAB_BASE, 1);
	setenv("CI_COMMIT_SHA", FAKE_GITLAB_HEAD, 1);
	setenv("GITLAB_TOKEN", "fallback", 1);
	setenv("CRS_CI_GITLAB_TOKEN", TOKEN, 1);
	assert_int_equal(gitlab_detect(), 1);
	gitlab_env_load(&env);
	assert_string_equal(env.api_url, "https://gitlab.example.com/api/v4");
	assert_string_equal(env.project_id, "42");
	assert_string_equal(env.mr_iid, "7");
	assert_string_equal(env.base_sha, FAKE_GITLAB_BASE);
	assert_string_equal(env.head_sha, FAKE_GITLAB_HEAD);
	assert_string_equal(env.token, TOKEN);
	unsetenv("CRS_CI_GITLAB_TOKEN");
	gitlab_env_load(&env);
	assert_string_equal(env.token, "fallback");
	unsetenv("GITLAB_TOKEN");
	unsetenv("CI_MERGE_REQUEST_IID");
	gitlab_env_load(&env);
	assert_null(env.token);
	assert_null(env.mr_iid);
	setenv("GITLAB_CI", "false", 1);
	assert_int_equal(gitlab_detect(), 0);
	unsetenv("GITLAB_CI");
}

/*
 * Markdown a pull request or a CRS could inject: every untrusted string
 * ends up escaped or inside a code span/block it cannot close.
 */
#define MD_EVIL "x``` ](javascript:alert(1)) <img src=x onerror=y> " \
	"@all\n## owned\n[link](https://evil)"

/* Text outside code spans/blocks: no live markup characters. */
static void assert_inert_outside_code(const char *md)
{
	const char *p = md;

	while (*p) {
		size_t ticks = 0;

		if (*p == '\\' && p[1]) {	/* an escaped character */
			p += 2;
			continue;
		}
		while (p[ticks] == '`')
			ticks++;
		if (ticks) {
			/* skip to the same run: the span or block's end */
			const char *end = p + ticks;

			for (;;) {
				end = strchr(end, '`');
				assert_non_null(end);
				size_t n = 0;

				while (end[n] == '`')
					n++;
				if (n == ticks) {
					p = end + n;
					break;
				}
				end += n;
			}
			continue;
		}
		if (strchr("<>[]@", *p))
			fail_msg("live '%c' at \"%.40s\" in:\n%s", *p, p, md);
		p++;
	}
}

static void test_markdown_hostile(void **state)
{
	struct finding_set s;
	struct finding *f;
	json_t *sast;
	const char *d;
	char *b;

	(void)state;
	finding_set_init(&s);
	f = finding_add(&s, "abcdabcdabcdabcd", "Heap-buffer-overflow", 1,
			"src/a`b``c" MD_EVIL ".c", 4, "fn" MD_EVIL,
			"fuzz" MD_EVIL, 5, 5, "new" MD_EVIL);
	free(f->description);
	f->description = xstrdup("==1==ERROR: AddressSanitizer\n```\n"
				 "</code> " MD_EVIL "\n````` \n");
	sast = gitlab_sast(&s);
	d = json_string_value(json_object_get(json_array_get(
		json_object_get(sast, "vulnerabilities"), 0), "description"));
	assert_non_null(d);
	/* the crash output is one block, fenced longer than any run in it */
	assert_int_equal(strncmp(d, "``````\n==1==ERROR", 17), 0);
	assert_non_null(strstr(d, "\n``````\n"));
	assert_inert_outside_code(d);
	/* code spans hold harness and path, one tick longer than inside */
	assert_non_null(strstr(d, "harness ````fuzz"));
	assert_non_null(strstr(d, "Novelty against the base: newx\\`\\`\\` "
			       "\\]\\(javascript\\:alert\\(1\\)\\) &lt;img "
			       "src=x onerror=y&gt; \\@all \\#\\# owned "
			       "\\[link\\]\\(https\\:"));
	json_decref(sast);
	finding_set_release(&s);

	/* an MR note: the message is escaped, the code fenced */
	b = gitlab_suggestion_body("fix from crs" MD_EVIL, "a ```` b\n", 0);
	assert_inert_outside_code(b);
	assert_non_null(strstr(b, "\n\n`````suggestion:-0+0\na ```` b\n"
			       "`````\n"));
	assert_null(strstr(b, "\n## owned"));
	free(b);
}

static void test_suggestion_body(void **state)
{
	char *b;

	(void)state;
	b = gitlab_suggestion_body("Bound the copy", "\tmemcpy(d, s, 4);", 0);
	assert_string_equal(b, "Bound the copy\n\n```suggestion:-0+0\n"
			    "\tmemcpy(d, s, 4);\n```\n");
	free(b);
	/* a fenced block inside needs a longer fence */
	b = gitlab_suggestion_body("m", "/* ```` */\n", 0);
	assert_string_equal(b, "m\n\n`````suggestion:-0+0\n/* ```` */\n"
			    "`````\n");
	free(b);
	/* three lines replaced: the commented one and two below it */
	b = gitlab_suggestion_body("m", "a\nb\nc\n", 2);
	assert_string_equal(b, "m\n\n```suggestion:-0+2\na\nb\nc\n```\n");
	free(b);
}

static void fake_env(struct gitlab_env *env, struct fake_gitlab *f,
		     const char *token)
{
	memset(env, 0, sizeof(*env));
	env->api_url = f->api_url;
	env->project_id = "42";
	env->mr_iid = "7";
	env->token = token;
}

static void test_mr_suggestion(void **state)
{
	struct fake_gitlab *f = NULL;
	struct gitlab_env env;
	struct gitlab_diff_refs refs;
	struct gitlab_suggestion sg = {
		.path = "src/parse.c", .new_line = 20,
		.message = "crs-ci: bound the copy (finding " ID_NEW ")",
		.replacement = "\tmemcpy(d, s, 4);",
	};
	json_t *body, *pos;

	(void)state;
	assert_int_equal(fake_gitlab_start(&f, TOKEN, "42", "7"), 0);
	fake_env(&env, f, TOKEN);
	assert_int_equal(gitlab_mr_diff_refs(&refs, &env), 0);
	assert_string_equal(refs.base_sha, FAKE_GITLAB_BASE);
	assert_string_equal(refs.start_sha, FAKE_GITLAB_START);
	assert_string_equal(refs.head_sha, FAKE_GITLAB_HEAD);
	assert_int_equal(gitlab_mr_post_suggestion(&env, &refs, &sg), 0);

	assert_int_equal(f->nr_reqs, 2);
	assert_string_equal(f->reqs[0].method, "GET");
	assert_string_equal(f->reqs[0].url,
			    "/api/v4/projects/42/merge_requests/7/versions");
	assert_string_equal(f->reqs[0].token, TOKEN);
	assert_string_equal(f->reqs[1].method, "POST");
	assert_string_equal(f->reqs[1].url,
			    "/api/v4/projects/42/merge_requests/7/discussions");
	assert_string_equal(f->reqs[1].content_type, "application/json");
	assert_int_equal(f->reqs[1].status, 201);
	body = json_loads(f->reqs[1].body, 0, NULL);
	assert_non_null(body);
	assert_string_equal(str(body, "body"), "crs\\-ci\\: bound the copy "
			    "\\(finding " ID_NEW "\\)\n\n```suggestion:-0+0\n"
			    "\tmemcpy(d, s, 4);\n```\n");
	pos = json_object_get(body, "position");
	assert_string_equal(str(pos, "position_type"), "text");
	assert_string_equal(str(pos, "head_sha"), FAKE_GITLAB_HEAD);
	assert_string_equal(str(pos, "old_path"), "src/parse.c");
	assert_string_equal(str(pos, "new_path"), "src/parse.c");
	assert_int_equal(json_integer_value(json_object_get(pos, "new_line")),
			 20);
	/* an added line has no old_line */
	assert_null(json_object_get(pos, "old_line"));
	json_decref(body);

	/* an unchanged line carries both */
	sg.old_line = 18;
	assert_int_equal(gitlab_mr_post_suggestion(&env, &refs, &sg), 0);
	body = json_loads(f->reqs[2].body, 0, NULL);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
		body, "position"), "old_line")), 18);
	json_decref(body);

	/* stale diff_refs: GitLab refuses, the message says why */
	free(refs.head_sha);
	refs.head_sha = xstrdup(FAKE_GITLAB_OLD_HEAD);
	assert_int_equal(gitlab_mr_post_suggestion(&env, &refs, &sg),
			 CRS_ERR);
	assert_non_null(strstr(crs_error_last(), "HTTP 400"));
	assert_non_null(strstr(crs_error_last(), "line_code"));
	gitlab_diff_refs_release(&refs);
	gitlab_diff_refs_release(NULL);
	fake_gitlab_stop(f);
}

/* The change the MR shows: two lines added after head line 10. */
static const char mr_diff[] =
	"diff --git a/src/parse.c b/src/parse.c\n"
	"--- a/src/parse.c\n"
	"+++ b/src/parse.c\n"
	"@@ -10,3 +10,5 @@\n"
	" ctx a\n"
	"+added 1\n"
	"+added 2\n"
	" ctx b\n"
	" ctx c\n";

static void add_validated(struct finding_set *s, const char *sha,
			  const char *diff)
{
	struct finding_patch *p = finding_set_add_patch(s);

	p->sha256 = xstrdup(sha);
	p->crs = xstrdup("crs-x");
	p->diff = xstrdup(diff);
	p->validated = 1;
}

static void test_mr_post_suggestions(void **state)
{
	struct fake_gitlab *f = NULL;
	struct diff_changeset *cs = NULL;
	struct gitlab_env env;
	struct finding_set s;
	size_t posted, outside;
	json_t *body, *pos;

	(void)state;
	finding_set_init(&s);
	/* inside the change's hunk (head lines 11..13), and outside it */
	add_validated(&s, "aa11", "diff --git a/src/parse.c b/src/parse.c\n"
		      "--- a/src/parse.c\n+++ b/src/parse.c\n"
		      "@@ -11,3 +11,3 @@\n added 1\n-added 2\n+fixed 2\n"
		      " ctx b\n");
	add_validated(&s, "bb22", "diff --git a/src/parse.c b/src/parse.c\n"
		      "--- a/src/parse.c\n+++ b/src/parse.c\n"
		      "@@ -29,3 +29,3 @@\n x\n-y\n+z\n w\n");
	s.patches[1].validated = 1;
	assert_int_equal(diff_changeset_from_patch(&cs, mr_diff,
						   strlen(mr_diff), "mr.diff"),
			 0);
	assert_int_equal(fake_gitlab_start(&f, TOKEN, "42", "7"), 0);
	fake_env(&env, f, TOKEN);
	assert_int_equal(gitlab_post_suggestions(&s, &env, cs, &posted,
						 &outside), 0);
	assert_int_equal(posted, 1);
	assert_int_equal(outside, 1);
	assert_int_equal(f->nr_reqs, 2);	/* versions, one discussion */
	body = json_loads(f->reqs[1].body, 0, NULL);
	assert_non_null(body);
	assert_non_null(strstr(str(body, "body"), "```suggestion:-0+2\n"
			       "added 1\nfixed 2\nctx b\n```"));
	assert_non_null(strstr(str(body, "body"), "aa11"));
	pos = json_object_get(body, "position");
	assert_int_equal(json_integer_value(json_object_get(pos, "new_line")),
			 11);
	assert_null(json_object_get(pos, "old_line"));	/* an added line */
	json_decref(body);
	/* no change known: nothing posted, every hunk counted outside */
	assert_int_equal(gitlab_post_suggestions(&s, &env, NULL, &posted,
						 &outside), 0);
	assert_int_equal(posted, 0);
	assert_int_equal(outside, 2);
	assert_int_equal(f->nr_reqs, 2);
	/* a job without a token cannot post */
	env.token = NULL;
	assert_int_equal(gitlab_post_suggestions(&s, &env, cs, &posted,
						 &outside), CRS_EINPUT);
	crs_error_clear();
	fake_gitlab_stop(f);
	diff_changeset_free(cs);
	finding_set_release(&s);
}

/* A finding beside removed lines: a discussion on the last removed line,
 * the old side only. */
static void test_mr_removal_note(void **state)
{
	static const char diff[] =
		"diff --git a/src/parse.c b/src/parse.c\n"
		"--- a/src/parse.c\n+++ b/src/parse.c\n"
		"@@ -22,6 +22,4 @@\n"
		" \tvlen = buf[p++];\n \tx = 1;\n"
		"-\tif (len - p < vlen)\n-\t\treturn RP_ERR_TRUNCATED;\n"
		" \trec->value = malloc(vlen + 1);\n \ty = 2;\n";
	struct fake_gitlab *f = NULL;
	struct diff_changeset *cs = NULL;
	struct gitlab_env env;
	struct finding_set s;
	struct finding *x;
	size_t posted = 9;
	json_t *body, *pos;

	(void)state;
	finding_set_init(&s);
	x = finding_set_add(&s);
	x->id = xstrdup(ID_NEW);
	x->novelty = xstrdup("new");
	x->crash_type = xstrdup("Heap-buffer-overflow READ 5");
	x->function = xstrdup("parse_record");
	x->file = xstrdup("src/parse.c");
	x->line = 26;
	x->reproduced = x->attempts = 5;
	x->anchor = xcalloc(1, sizeof(*x->anchor));
	x->anchor->how = xstrdup("crash-function");
	x->anchor->file = xstrdup("src/parse.c");
	x->anchor->line = 24;	/* the line after the removal */
	assert_int_equal(diff_changeset_from_patch(&cs, diff, strlen(diff),
						   "mr.diff"), 0);
	assert_int_equal(fake_gitlab_start(&f, TOKEN, "42", "7"), 0);
	fake_env(&env, f, TOKEN);
	assert_int_equal(gitlab_post_removal_notes(&s, &env, cs, "new",
						   &posted), 0);
	assert_int_equal(posted, 1);
	assert_int_equal(f->nr_reqs, 2);	/* versions, one discussion */
	assert_string_equal(f->reqs[1].url,
			    "/api/v4/projects/42/merge_requests/7/discussions");
	body = json_loads(f->reqs[1].body, 0, NULL);
	assert_non_null(body);
	assert_non_null(strstr(str(body, "body"), "parse\\_record"));
	pos = json_object_get(body, "position");
	assert_string_equal(str(pos, "old_path"), "src/parse.c");
	assert_int_equal(json_integer_value(json_object_get(pos, "old_line")),
			 25);
	assert_null(json_object_get(pos, "new_line"));	/* a removed line */
	json_decref(body);
	/* fail-on none: the finding fails no policy, nothing is posted */
	assert_int_equal(gitlab_post_removal_notes(&s, &env, cs, "none",
						   &posted), 0);
	assert_int_equal(posted, 0);
	assert_int_equal(f->nr_reqs, 2);
	fake_gitlab_stop(f);
	diff_changeset_free(cs);
	finding_set_release(&s);
}

static void test_mr_errors(void **state)
{
	struct fake_gitlab *f = NULL;
	struct gitlab_env env;
	struct gitlab_diff_refs refs;

	(void)state;
	assert_int_equal(fake_gitlab_start(&f, TOKEN, "42", "7"), 0);

	/* a wrong token: 401, and the token is in no message */
	fake_env(&env, f, "glpat-WRONG-zzz");
	assert_int_equal(gitlab_mr_diff_refs(&refs, &env), CRS_ERR);
	assert_non_null(strstr(crs_error_last(), "HTTP 401: 401 Unauthorized"));
	assert_null(strstr(crs_error_last(), "glpat"));
	assert_null(refs.head_sha);

	/* another MR: 404 */
	fake_env(&env, f, TOKEN);
	env.mr_iid = "8";
	assert_int_equal(gitlab_mr_diff_refs(&refs, &env), CRS_ERR);
	assert_non_null(strstr(crs_error_last(), "HTTP 404"));
	assert_null(strstr(crs_error_last(), TOKEN));

	/* missing settings are named */
	env.token = NULL;
	assert_int_equal(gitlab_mr_diff_refs(&refs, &env), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "CRS_CI_GITLAB_TOKEN"));
	fake_env(&env, f, TOKEN);
	env.mr_iid = "7/../../x";
	assert_int_equal(gitlab_mr_diff_refs(&refs, &env), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "CI_MERGE_REQUEST_IID"));
	env.mr_iid = NULL;
	assert_int_equal(gitlab_mr_diff_refs(&refs, &env), CRS_EINPUT);
	/* no request is made without the settings */
	assert_int_equal(f->nr_reqs, 2);
	fake_gitlab_stop(f);

	/* nothing listening: a transport error */
	assert_int_equal(fake_gitlab_start(&f, TOKEN, "42", "7"), 0);
	fake_env(&env, f, TOKEN);
	env.api_url = xstrdup(f->api_url);
	fake_gitlab_stop(f);
	assert_int_equal(gitlab_mr_diff_refs(&refs, &env), CRS_ERR);
	assert_non_null(strstr(crs_error_last(), "gitlab: GET versions"));
	free((char *)env.api_url);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_severity),
		cmocka_unit_test(test_uuid),
		cmocka_unit_test(test_code_quality),
		cmocka_unit_test(test_sast),
		cmocka_unit_test(test_remediation),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_report_files),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_suggestion_body),
		cmocka_unit_test(test_markdown_hostile),
		cmocka_unit_test(test_mr_suggestion),
		cmocka_unit_test(test_mr_post_suggestions),
		cmocka_unit_test(test_mr_removal_note),
		cmocka_unit_test(test_mr_errors),
	};
	int r;

	log_set_level(LOG_WARN);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	git_libgit2_init();	/* main() does this in the product */
	r = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	curl_global_cleanup();
	xmlCleanupParser();
	return r;
}
