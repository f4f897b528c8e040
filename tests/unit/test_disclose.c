/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_disclose.c - the disclosure policy (issue 24, part 3)
 *
 * --disclose parsing and the repository's visibility from the CI
 * environment (runner/report/disclose.c); the split that takes private
 * findings, their files, their patches and the candidates they confirmed
 * out of the public result set, and counts them in the verdict; the CMS
 * seal opened by libcrypto and refusing malformed certificates and keys
 * (cms_seal.c); the maintainers' text kept under GitHub's 65,535
 * characters with an oversized, hostile sanitizer report
 * (private_report.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "runner/report/cms_seal.h"
#include "runner/report/disclose.h"
#include "runner/report/private_report.h"
#include "sarif/finding.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "finding_builder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/crs-ci-disclose.XXXXXX";
static char *cert_pem, *key_pem;

static char *slurp(const char *path)
{
	struct buf b = BUF_INIT;

	assert_int_equal(fs_read_file(&b, path, 1 << 20), 0);
	return buf_detach(&b, NULL);
}

static int setup(void **state)
{
	char *cmd;

	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	cmd = xasprintf("openssl req -x509 -newkey rsa:2048 -nodes -keyout "
			"%s/key.pem -out %s/cert.pem -subj /CN=m -days 2 "
			"2>/dev/null", tmpdir, tmpdir);
	if (system(cmd) != 0)
		return -1;
	free(cmd);
	cmd = xasprintf("%s/cert.pem", tmpdir);
	cert_pem = slurp(cmd);
	free(cmd);
	cmd = xasprintf("%s/key.pem", tmpdir);
	key_pem = slurp(cmd);
	free(cmd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fs_remove_tree(tmpdir);
	free(cert_pem);
	free(key_pem);
	return 0;
}

static void clear_ci_env(void)
{
	unsetenv("GITHUB_ACTIONS");
	unsetenv("GITHUB_EVENT_PATH");
	unsetenv("GITLAB_CI");
	unsetenv("CI_PROJECT_VISIBILITY");
	unsetenv("CRS_CI_DISCLOSE");
}

static void test_parse(void **state)
{
	enum disclose_policy p = DISCLOSE_PUBLIC;

	(void)state;
	clear_ci_env();
	assert_int_equal(disclose_parse(NULL, "--disclose", &p), 0);
	assert_int_equal(p, DISCLOSE_AUTO);
	assert_int_equal(disclose_parse("private", "--disclose", &p), 0);
	assert_int_equal(p, DISCLOSE_PRIVATE);
	assert_int_equal(disclose_parse("public", "--disclose", &p), 0);
	assert_int_equal(p, DISCLOSE_PUBLIC);
	assert_int_equal(disclose_parse("secret", "--disclose", &p),
			 CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "--disclose: 'secret'"));
	crs_error_clear();
	setenv("CRS_CI_DISCLOSE", "nope", 1);
	assert_int_equal(disclose_parse(NULL, "--disclose", &p), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "CRS_CI_DISCLOSE: 'nope'"));
	crs_error_clear();
	setenv("CRS_CI_DISCLOSE", "private", 1);
	assert_int_equal(disclose_parse(NULL, "--disclose", &p), 0);
	assert_int_equal(p, DISCLOSE_PRIVATE);
	clear_ci_env();
}

static void write_event(const char *json)
{
	char *path = xasprintf("%s/event.json", tmpdir);

	assert_int_equal(fs_write_file_atomic(path, json, strlen(json)), 0);
	setenv("GITHUB_EVENT_PATH", path, 1);
	free(path);
}

static void test_visibility(void **state)
{
	(void)state;
	clear_ci_env();
	assert_int_equal(disclose_repo_public(NULL), 0);	/* local */
	setenv("GITHUB_ACTIONS", "true", 1);
	assert_int_equal(disclose_repo_public(NULL), 1);	/* unknown */
	write_event("{\"repository\":{\"private\":true}}");
	assert_int_equal(disclose_repo_public(NULL), 0);
	write_event("{\"repository\":{\"private\":false}}");
	assert_int_equal(disclose_repo_public(NULL), 1);
	write_event("{\"repository\":{\"private\":false,"
		    "\"visibility\":\"internal\"}}");
	assert_int_equal(disclose_repo_public(NULL), 0);
	write_event("not json");
	assert_int_equal(disclose_repo_public(NULL), 1);	/* safe side */
	clear_ci_env();
	setenv("GITLAB_CI", "true", 1);
	assert_int_equal(disclose_repo_public(NULL), 1);
	setenv("CI_PROJECT_VISIBILITY", "private", 1);
	assert_int_equal(disclose_repo_public(NULL), 0);
	setenv("CI_PROJECT_VISIBILITY", "internal", 1);
	assert_int_equal(disclose_repo_public(NULL), 1);
	clear_ci_env();
}

static void put(const char *dir, const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", dir, rel);

	assert_int_equal(fs_write_file_atomic(p, text, strlen(text)), 0);
	free(p);
}

static int there(const char *dir, const char *rel)
{
	char *p = xasprintf("%s/%s", dir, rel);
	int r = fs_exists(p);

	free(p);
	return r;
}

static void test_split(void **state)
{
	struct private_set priv = PRIVATE_SET_INIT;
	struct finding_set s;
	struct finding *f;
	struct finding_patch *p;
	char *out = xasprintf("%s/out", tmpdir), *povs, *reps;
	size_t failing = 0;

	(void)state;
	clear_ci_env();
	povs = xasprintf("%s/povs", out);
	reps = xasprintf("%s/reports", out);
	assert_int_equal(fs_mkdir_p(povs), 0);
	assert_int_equal(fs_mkdir_p(reps), 0);
	put(out, "povs/00000000000000aa", "SECRET-POV-BYTES");
	put(out, "reports/aa.txt", "==1==ERROR: AddressSanitizer: x");
	put(out, "povs/00000000000000bb", "new-bug-pov");
	finding_set_init(&s);
	s.summary.fail_on = xstrdup("new");
	f = finding_add(&s, "00000000000000aa", "Heap-buffer-overflow READ 1",
			1, "src/old.c", 3, "old_parse", "fuzz", 5, 5,
			"pre-existing");
	f->report_path = xstrdup("reports/aa.txt");
	finding_add(&s, "00000000000000bb", "Heap-buffer-overflow WRITE 4",
		    1, "src/new.c", 9, "new_parse", "fuzz", 5, 5, "new");
	p = finding_set_add_patch(&s);
	p->sha256 = xstrdup("aa");
	p->fixes = xcalloc(1, sizeof(char *));
	p->fixes[0] = xstrdup("00000000000000aa");
	p->fixes_nr = 1;

	/* outside CI, auto keeps everything public: nothing moves */
	assert_int_equal(disclose_split(&s, out, DISCLOSE_AUTO, &priv), 0);
	assert_int_equal(s.nr, 2);
	assert_int_equal(priv.nr, 0);
	/* a public GitLab project: the pre-existing finding goes */
	setenv("GITLAB_CI", "true", 1);
	setenv("CI_PROJECT_VISIBILITY", "public", 1);
	assert_int_equal(disclose_split(&s, out, DISCLOSE_AUTO, &priv), 0);
	assert_int_equal(s.nr, 1);
	assert_string_equal(s.items[0].id, "00000000000000bb");
	assert_int_equal(s.patches_nr, 0);
	assert_int_equal(s.summary.private_findings, 1);
	assert_int_equal(s.summary.private_new, 0);
	assert_int_equal(priv.nr, 1);
	assert_string_equal(priv.items[0].function, "old_parse");
	assert_memory_equal(priv.items[0].pov->ptr, "SECRET-POV-BYTES", 16);
	assert_non_null(priv.items[0].report->ptr);
	assert_false(there(out, "povs/00000000000000aa"));
	assert_false(there(out, "reports/aa.txt"));
	assert_true(there(out, "povs/00000000000000bb"));
	/* private findings count in the verdict: --fail-on any fails */
	assert_int_equal(finding_set_verdict(&s, "any", &failing),
			 VERDICT_FAIL);
	assert_int_equal(failing, 2);
	/* and the count survives results.json */
	{
		char *rj = xasprintf("%s/results.json", out);
		struct finding_set t;

		assert_int_equal(finding_set_save(&s, rj), 0);
		finding_set_init(&t);
		assert_int_equal(finding_set_load(&t, rj), 0);
		assert_int_equal(t.summary.private_findings, 1);
		finding_set_release(&t);
		free(rj);
	}
	/* --disclose private: the new finding goes too, and fails "new" */
	assert_int_equal(disclose_split(&s, out, DISCLOSE_PRIVATE, &priv), 0);
	assert_int_equal(s.nr, 0);
	assert_int_equal(s.summary.private_new, 1);
	assert_int_equal(finding_set_verdict(&s, "new", NULL), VERDICT_FAIL);
	assert_int_equal(finding_set_verdict(&s, "none", NULL), VERDICT_PASS);
	private_set_release(&priv);
	finding_set_release(&s);
	clear_ci_env();
	free(povs);
	free(reps);
	free(out);
}

/*
 * Issue 42, item 1: a PoV that crashes the base build too is a bug in
 * released code, whatever signature the base shows. An honest change
 * that renames a function on an unknown bug's stack makes it "changed",
 * not "pre-existing": auto keeps it private all the same. A new one and
 * one the change fixed stay public.
 */
static void test_changed_is_private(void **state)
{
	struct finding_set s;
	struct finding *chg, *nw, *fixed;

	(void)state;
	clear_ci_env();
	finding_set_init(&s);
	chg = finding_add(&s, "00000000000000cc", "Heap-buffer-overflow READ 1",
			  1, "src/old.c", 3, "renamed_parse", "fuzz", 5, 5,
			  "changed");
	nw = finding_add(&s, "00000000000000dd", "Heap-buffer-overflow WRITE 4",
			 1, "src/new.c", 9, "new_parse", "fuzz", 5, 5, "new");
	fixed = finding_add(&s, "00000000000000ee", "Stack-buffer-overflow",
			    1, "src/old.c", 7, "old_parse", "fuzz", 5, 5,
			    "fixed-by-change");
	setenv("GITLAB_CI", "true", 1);
	setenv("CI_PROJECT_VISIBILITY", "public", 1);
	assert_true(disclose_is_private(DISCLOSE_AUTO, chg));
	assert_false(disclose_is_private(DISCLOSE_AUTO, nw));
	assert_false(disclose_is_private(DISCLOSE_AUTO, fixed));
	/* a private project publishes nothing: nothing is kept private */
	setenv("CI_PROJECT_VISIBILITY", "private", 1);
	assert_false(disclose_is_private(DISCLOSE_AUTO, chg));
	finding_set_release(&s);
	clear_ci_env();
}

static void test_split_hostile_paths(void **state)
{
	struct private_set priv = PRIVATE_SET_INIT;
	struct finding_set s;
	struct finding *f;
	char *out = xasprintf("%s/out2", tmpdir);
	char *outside = xasprintf("%s/outside", tmpdir);

	(void)state;
	assert_int_equal(fs_mkdir_p(out), 0);
	put(tmpdir, "outside", "keep me");
	finding_set_init(&s);
	f = finding_add(&s, "00000000000000cc", "Segv", 1, "a.c", 1, "fa",
			"fuzz", 1, 1, "pre-existing");
	free(f->pov_path);
	f->pov_path = xstrdup("../outside");	/* leaves the folder */
	f->report_path = xstrdup("/etc/passwd");
	assert_int_equal(disclose_split(&s, out, DISCLOSE_PRIVATE, &priv), 0);
	assert_true(fs_exists(outside));
	assert_int_equal(priv.items[0].pov->len, 0);
	assert_int_equal(priv.items[0].report->len, 0);
	private_set_release(&priv);
	finding_set_release(&s);
	free(out);
	free(outside);
}

static void test_cms_round_trip(void **state)
{
	struct buf sealed = BUF_INIT, plain = BUF_INIT;
	unsigned char data[3000];

	(void)state;
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7 + 3);	/* NULs included */
	assert_int_equal(cms_seal(&sealed, data, sizeof(data), cert_pem,
				  "KEY"), 0);
	assert_memory_equal(sealed.ptr, "-----BEGIN CMS-----", 19);
	assert_int_equal(cms_open(&plain, sealed.ptr, sealed.len, key_pem,
				  "pov.cms"), 0);
	assert_int_equal(plain.len, sizeof(data));
	assert_memory_equal(plain.ptr, data, sizeof(data));
	buf_release(&plain);
	/* a key that is no key, and a key that is not the recipient's */
	assert_int_equal(cms_open(&plain, sealed.ptr, sealed.len, cert_pem,
				  "pov.cms"), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "not a PEM private key"));
	crs_error_clear();
	assert_int_equal(cms_open(&plain, "garbage", 7, key_pem, "x.cms"),
			 CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "x.cms: not CMS enveloped"));
	crs_error_clear();
	assert_int_equal(plain.len, 0);
	buf_release(&sealed);
}

static void test_cms_malformed_certificate(void **state)
{
	struct buf sealed = BUF_INIT;
	const char *const bad[] = {
		"",
		"/path/to/cert.pem",
		"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
		("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n"
		 "-----END CERTIFICATE-----\n"),
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(cms_recipients_check(bad[i], "CRS_CI_DISCLOSE_KEY"),
				 CRS_EINPUT);
		assert_non_null(strstr(crs_error_last(),
				       "CRS_CI_DISCLOSE_KEY: "));
		/* the value itself is never echoed */
		assert_null(strstr(crs_error_last(), "bm90IGEg"));
		crs_error_clear();
		assert_int_equal(cms_seal(&sealed, "x", 1, bad[i], "K"),
				 CRS_EINPUT);
		crs_error_clear();
		assert_int_equal(sealed.len, 0);
	}
	assert_int_equal(cms_recipients_check(cert_pem, "K"), 0);
}

static void test_text_oversized_report(void **state)
{
	struct private_finding *x = xcalloc(1, sizeof(*x));
	struct scan_summary sm = { 0 };
	size_t big = 300000;
	char *t;

	(void)state;
	x->crash_type = xstrdup("Heap-buffer-overflow READ 1");
	x->function = xstrdup("f`n");
	x->file = xstrdup("src/a.c");
	x->harness = xstrdup("fuzz");
	x->stack = xstrdup("#0 f src/a.c:1\n");
	x->report = xcalloc(1, sizeof(*x->report));
	x->pov = xcalloc(1, sizeof(*x->pov));
	/* hostile: a fence-closing run, control bytes, invalid UTF-8 */
	buf_adds(x->report, "~~~~~~~~\n\x1b[31m\xff\xfe\n");
	for (size_t i = 0; i < big; i++)
		buf_addch(x->report, i % 80 ? 'A' : '\n');
	x->pov_cms = xstrdup("-----BEGIN CMS-----\nAAAA\n-----END CMS-----\n");
	t = private_report_text(x, &sm, "private/finding-1.pov.cms",
				PRIVATE_ADVISORY_MAX);
	assert_true(strlen(t) <= PRIVATE_ADVISORY_MAX);
	assert_non_null(strstr(t, "(cut: "));
	assert_non_null(strstr(t, "-----BEGIN CMS-----"));	/* still in */
	assert_non_null(strstr(t, "~~~~~~~~~\n"));	/* longer fence */
	assert_null(strchr(t, '\x1b'));
	assert_null(strstr(t, "f`n"));
	free(t);
	/* a sealed PoV too large to inline: named, not cut */
	free(x->pov_cms);
	x->pov_cms = xmalloc(70000);
	memset(x->pov_cms, 'B', 69999);
	x->pov_cms[69999] = '\0';
	t = private_report_text(x, &sm, "private/finding-1.pov.cms",
				PRIVATE_ADVISORY_MAX);
	assert_true(strlen(t) <= PRIVATE_ADVISORY_MAX);
	assert_non_null(strstr(t, "too large to inline"));
	assert_non_null(strstr(t, "private/finding-1.pov.cms"));
	free(t);
	{
		struct private_set ps = { x, 1, 1 };

		private_set_release(&ps);	/* frees x's members */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_visibility),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_changed_is_private),
		cmocka_unit_test(test_split_hostile_paths),
		cmocka_unit_test(test_cms_round_trip),
		cmocka_unit_test(test_cms_malformed_certificate),
		cmocka_unit_test(test_text_oversized_report),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
