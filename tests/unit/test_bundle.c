/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_bundle.c - the result bundle as `crs-ci publish` reads it
 *
 * runner/report/bundle.c is a trust boundary (a fork's job wrote the
 * bundle): a good bundle is read with crs-ci's own messages; a link, an
 * oversized file, bad JSON, a wrong format or version, a bad pull request
 * field refuse the whole bundle; a bad suggestion field drops only it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "runner/report/bundle.h"
#include "common/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SHA1 "2157163225596539fdcd6338926f714022b9d549"
#define PSHA "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static char dir[64];

static int setup(void **st)
{
	(void)st;
	strcpy(dir, "/tmp/test_bundle.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **st)
{
	char cmd[128];

	(void)st;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void put(const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/" BUNDLE_FILE, dir);
	unlink(path);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

/* a bundle.json with `suggestions` and `pr` spliced in */
static void put_bundle(const char *pr, const char *suggestions)
{
	char text[8192];

	snprintf(text, sizeof(text), "{\"format\":\"" BUNDLE_FORMAT "\","
		 "\"version\":1,\"pull_request\":%s,\"verdict\":\"fail\","
		 "\"findings\":1,\"new_findings\":1,\"suggestions\":[%s]}",
		 pr, suggestions);
	put(text);
}

#define PR "{\"number\":7,\"head_sha\":\"" SHA1 "\"}"
#define GOOD "{\"path\":\"src/a.c\",\"start_line\":3,\"end_line\":4," \
	"\"replacement\":\"x\\n\",\"patch_sha256\":\"" PSHA "\"," \
	"\"crs\":\"crs-patcher\",\"message\":\"**click me**\"}"

static void test_good(void **st)
{
	struct bundle b;

	(void)st;
	put_bundle(PR, GOOD);
	assert_int_equal(bundle_read(&b, dir), 0);
	assert_int_equal(b.pr_number, 7);
	assert_string_equal(b.head_sha, SHA1);
	assert_string_equal(b.verdict, "fail");
	assert_int_equal(b.sg.nr, 1);
	assert_string_equal(b.sg.v[0].path, "src/a.c");
	assert_int_equal(b.sg.v[0].start_line, 3);
	assert_int_equal(b.sg.v[0].end_line, 4);
	/* the bundle's message is never used */
	assert_null(strstr(b.sg.v[0].message, "click"));
	assert_non_null(strstr(b.sg.v[0].message, "(0123456789ab, from "
			       "crs-patcher)"));
	bundle_release(&b);
}

static void refused(const char *want)
{
	struct bundle b;

	assert_int_equal(bundle_read(&b, dir), CRS_EINPUT);
	if (!strstr(crs_error_last(), want))
		fail_msg("message '%s' lacks '%s'", crs_error_last(), want);
	crs_error_clear();
}

static void test_refused(void **st)
{
	char path[128];
	char *big;

	(void)st;
	put("{\"format\":");
	refused("not JSON");
	put_bundle("{\"number\":7,\"head_sha\":\"HEAD\"}", GOOD);
	refused("pull_request.head_sha is not a commit id");
	put_bundle("{\"number\":-1,\"head_sha\":\"" SHA1 "\"}", GOOD);
	refused("pull_request.number");
	put("{\"format\":\"other\",\"version\":1}");
	refused("format is not");
	put("{\"format\":\"" BUNDLE_FORMAT "\",\"version\":2}");
	refused("version is not 1");
	put("{\"format\":\"" BUNDLE_FORMAT "\",\"format\":\"x\"}");
	refused("not JSON");
	/* jansson refuses a NUL in a string: the whole bundle goes */
	put_bundle(PR, "{\"path\":\"a.c\",\"start_line\":1,\"end_line\":1,"
		   "\"replacement\":\"x\\u0000y\"}");
	refused("not JSON");
	/* over the cap: refused before it is parsed */
	big = malloc(BUNDLE_FILE_MAX + 2);
	assert_non_null(big);
	memset(big, ' ', BUNDLE_FILE_MAX + 1);
	big[BUNDLE_FILE_MAX + 1] = '\0';
	put(big);
	free(big);
	refused("nothing is posted");
	/* a link is not followed */
	snprintf(path, sizeof(path), "%s/" BUNDLE_FILE, dir);
	unlink(path);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	refused("refused");
	unlink(path);
}

static void test_dropped(void **st)
{
	struct bundle b;

	(void)st;
	put_bundle(PR, GOOD ","
		   "{\"path\":\"../etc/passwd\",\"start_line\":1,"
		   "\"end_line\":1,\"replacement\":\"x\"},"
		   "{\"path\":\"a\\nb\",\"start_line\":1,\"end_line\":1,"
		   "\"replacement\":\"x\"},"
		   "{\"path\":\"a.c\",\"start_line\":5,\"end_line\":4,"
		   "\"replacement\":\"x\"},"
		   "{\"path\":\"a.c\",\"start_line\":1,\"end_line\":1,"
		   "\"replacement\":\"x\",\"crs\":\"a b\"},"
		   "{\"path\":\"a.c\",\"start_line\":1,\"end_line\":1,"
		   "\"replacement\":7},"
		   "\"not an object\"");
	assert_int_equal(bundle_read(&b, dir), 0);
	assert_int_equal(b.sg.nr, 1);
	assert_int_equal(b.dropped, 6);
	bundle_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_dropped),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
