/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_project_layout.c - project_locate: layouts, auto-detection, names
 *
 * Each test writes project folders into a temporary folder: an OSS-Fuzz
 * `projects/NAME`, a repository with `.clusterfuzzlite/`, and broken or
 * hostile variants (files missing, links, names no image may carry).
 * Every refusal asserts the exact message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <git2.h>

#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "tests/helper/git_group.h"
#include "runner/config/project_layout.h"

struct fixture {
	char root[64];
};

static char *pathf(const struct fixture *f, const char *rel)
{
	return xasprintf("%s/%s", f->root, rel);
}

static void put(const struct fixture *f, const char *rel, const char *text)
{
	char *path = pathf(f, rel), *slash = strrchr(path, '/');

	*slash = '\0';
	assert_int_equal(fs_mkdir_p(path), 0);
	*slash = '/';
	assert_int_equal(fs_write_file_atomic(path, text, strlen(text)), 0);
	free(path);
}

/* A project folder `rel` with a Dockerfile and a build.sh. */
static void project(const struct fixture *f, const char *rel)
{
	char *df = xasprintf("%s/Dockerfile", rel);
	char *bs = xasprintf("%s/build.sh", rel);

	put(f, df, "FROM gcr.io/oss-fuzz-base/base-builder\n");
	put(f, bs, "#!/bin/bash\n");
	free(df);
	free(bs);
}

static int setup(void **st)
{
	struct fixture *f = xcalloc(1, sizeof(*f));

	strcpy(f->root, "/tmp/crs-ci-layout.XXXXXX");
	assert_non_null(mkdtemp(f->root));
	*st = f;
	return 0;
}

static int teardown(void **st)
{
	struct fixture *f = *st;

	assert_int_equal(fs_remove_tree(f->root), 0);
	free(f);
	return 0;
}

/* project_locate must fail with `code` and `msg` ("%R" = the root). */
static void locate_err(const struct fixture *f, const char *opt_rel,
		       const char *src_rel, int code, const char *msg)
{
	struct project_location loc;
	char *opt = opt_rel ? pathf(f, opt_rel) : NULL;
	char *src = src_rel ? pathf(f, src_rel) : NULL;
	char *want = xstrdup(msg), *at;

	while ((at = strstr(want, "%R"))) {
		char *w = xasprintf("%.*s%s%s", (int)(at - want), want,
				    f->root, at + 2);

		free(want);
		want = w;
	}
	assert_int_equal(project_locate(&loc, opt, src), code);
	assert_null(loc.dir);
	assert_null(loc.name);
	assert_null(loc.context_root);
	assert_string_equal(crs_error_last(), want);
	free(want);
	free(opt);
	free(src);
}

static void test_oss_fuzz(void **st)
{
	struct fixture *f = *st;
	struct project_location loc;
	char *opt = pathf(f, "projects/recparse");
	char *src = pathf(f, "repo");
	char *real = NULL;

	project(f, "projects/recparse");
	put(f, "repo/a.c", "int a;\n");
	assert_int_equal(project_locate(&loc, opt, src), 0);
	assert_int_equal(loc.layout, PROJECT_LAYOUT_OSS_FUZZ);
	real = realpath(opt, NULL);
	assert_string_equal(loc.dir, real);
	assert_null(loc.context_root);
	assert_string_equal(loc.name, "recparse");
	assert_string_equal(project_layout_name(loc.layout),
			    "OSS-Fuzz project folder");
	project_location_release(&loc);
	assert_null(loc.dir);
	project_location_release(NULL);
	free(real);
	free(opt);
	free(src);
}

/* An explicit and an automatic .clusterfuzzlite/ find the same folder. */
static void test_clusterfuzzlite(void **st)
{
	struct fixture *f = *st;
	struct project_location loc;
	char *src = pathf(f, "My Repo");
	char *opt = pathf(f, "My Repo/.clusterfuzzlite");
	char *cwd = getcwd(NULL, 0);
	char *rsrc = NULL, *rdir = NULL;

	project(f, "My Repo/.clusterfuzzlite");
	put(f, "My Repo/.clusterfuzzlite/project.yaml", "language: c\n");
	rsrc = realpath(src, NULL);
	rdir = realpath(opt, NULL);
	for (int i = 0; i < 3; i++) {
		const char *p = i == 0 ? NULL : i == 1 ? opt : ".";

		if (i == 2)	/* `--project .` inside the folder */
			assert_int_equal(chdir(opt), 0);
		assert_int_equal(project_locate(&loc, p, src), 0);
		assert_int_equal(loc.layout, PROJECT_LAYOUT_CLUSTERFUZZLITE);
		assert_string_equal(loc.dir, rdir);
		assert_string_equal(loc.context_root, rsrc);
		/* no main_repo: the source folder's name, made valid */
		assert_string_equal(loc.name, "my-repo");
		assert_string_equal(project_layout_name(loc.layout),
				    "ClusterFuzzLite folder");
		project_location_release(&loc);
	}
	assert_int_equal(chdir(cwd), 0);
	free(cwd);
	free(rsrc);
	free(rdir);
	free(opt);
	free(src);
}

/* main_repo names the project, whatever the address looks like. */
static void test_name_from_main_repo(void **st)
{
	struct fixture *f = *st;
	static const struct { const char *repo, *name; } cases[] = {
		{ "https://github.com/Owner/RecParse.git", "recparse" },
		{ "https://gitlab.com/group/sub/lib_Foo/", "lib_foo" },
		{ "git@github.com:owner/re..c p:arse.git", "arse" },
		{ "git@github.com:owner/Re  Parse.git", "re-parse" },
		{ "https://example.com/../x", "x" },
		{ "https://example.com/..", "project" },
		{ "https://example.com/.git", "repo" },	/* empty: the folder */
	};
	char *src = pathf(f, "repo");

	project(f, "repo/.clusterfuzzlite");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct project_location loc;
		char *y = xasprintf("language: c\nmain_repo: '%s'\n",
				    cases[i].repo);

		put(f, "repo/.clusterfuzzlite/project.yaml", y);
		assert_int_equal(project_locate(&loc, NULL, src), 0);
		assert_string_equal(loc.name, cases[i].name);
		project_location_release(&loc);
		free(y);
	}
	free(src);
}

/* No main_repo: the checkout's origin names it, not the clone's folder. */
static void test_name_from_origin(void **st)
{
	struct fixture *f = *st;
	struct project_location loc;
	char *src = pathf(f, "checkout-7");
	git_repository *repo = NULL;
	git_config *cfg = NULL;

	project(f, "checkout-7/.clusterfuzzlite");
	put(f, "checkout-7/.clusterfuzzlite/project.yaml", "language: c\n");
	assert_int_equal(git_repository_init(&repo, src, 0), 0);
	assert_int_equal(project_locate(&loc, NULL, src), 0);
	assert_string_equal(loc.name, "checkout-7");	/* no origin yet */
	project_location_release(&loc);
	/* what `git remote add` writes (git_remote_create's regexes leak
	 * in libgit2 1.5) */
	assert_int_equal(git_repository_config(&cfg, repo), 0);
	assert_int_equal(git_config_set_string(cfg, "remote.origin.url",
			 "https://x-access-token:SECRET@github.com/Owner/"
			 "MyLib.git"), 0);
	git_config_free(cfg);
	assert_int_equal(project_locate(&loc, NULL, src), 0);
	assert_string_equal(loc.name, "mylib");
	project_location_release(&loc);
	git_repository_free(repo);
	free(src);
}

static void test_image_name(void **st)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "recparse", "recparse" },
		{ "LibPNG", "libpng" },
		{ "../x", "x" },
		{ "a b", "a-b" },
		{ "a.b_c__d---e", "a.b_c__d---e" },
		{ "a..b", "a-b" },
		{ "a___b", "a-b" },
		{ "a._b", "a-b" },
		{ "-_.lead-and-trail._-", "lead-and-trail" },
		{ ".clusterfuzzlite", "clusterfuzzlite" },
		{ "caf\xc3\xa9", "caf" },
		{ "\x1b[31m::error::x", "31m-error-x" },
		{ "", "project" },
		{ "..", "project" },
		{ NULL, "project" },
		{ "0123456789012345678901234567890123456789"
		  "0123456789012345678901234567890123456789",
		  "0123456789012345678901234567890123456789"
		  "012345678901234567890123" },
		{ "0123456789012345678901234567890123456789"
		  "01234567890123456789012-4567",
		  "0123456789012345678901234567890123456789"
		  "01234567890123456789012" },
	};

	(void)st;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *n = project_image_name(cases[i].in);

		assert_string_equal(n, cases[i].out);
		free(n);
	}
}

static void test_refusals(void **st)
{
	struct fixture *f = *st;
	char *e = NULL;

	/* nothing given, nothing found */
	put(f, "plain/a.c", "int a;\n");
	locate_err(f, NULL, "plain", CRS_EINPUT, "--project is required: "
		   "'%R/plain' has no .clusterfuzzlite/ folder (give an "
		   "OSS-Fuzz project folder with --project DIR)");
	/* an empty folder, a folder without build.sh, without Dockerfile */
	e = pathf(f, "empty");
	assert_int_equal(fs_mkdir_p(e), 0);
	free(e);
	locate_err(f, "empty", "plain", CRS_ECONFIG, "%R/empty: no Dockerfile "
		   "in this OSS-Fuzz project folder (it needs a Dockerfile "
		   "and a build.sh)");
	put(f, "nobuild/Dockerfile", "FROM x\n");
	locate_err(f, "nobuild", "plain", CRS_ECONFIG, "%R/nobuild: no "
		   "build.sh in this OSS-Fuzz project folder (it needs a "
		   "Dockerfile and a build.sh)");
	put(f, "cfl/.clusterfuzzlite/build.sh", "#!/bin/sh\n");
	locate_err(f, NULL, "cfl", CRS_ECONFIG, "%R/cfl/.clusterfuzzlite: no "
		   "Dockerfile in this ClusterFuzzLite folder (it needs a "
		   "Dockerfile and a build.sh)");
	locate_err(f, "missing", "plain", CRS_ECONFIG,
		   "%R/missing: no such folder");
	locate_err(f, "plain/a.c", "plain", CRS_ECONFIG,
		   "%R/plain/a.c: not a folder");
	/* a malformed project.yaml is named by file:line:col */
	project(f, "bad/.clusterfuzzlite");
	put(f, "bad/.clusterfuzzlite/project.yaml", "main_repo: x\n");
	locate_err(f, NULL, "bad", CRS_ECONFIG, "%R/bad/.clusterfuzzlite/"
		   "project.yaml:1:1: missing \"language\"");
}

/* Pull-request content: links and foreign .clusterfuzzlite/ folders. */
static void test_hostile(void **st)
{
	struct fixture *f = *st;
	char *l = NULL, *t = NULL;

	/* .clusterfuzzlite/ of another repository */
	project(f, "other/.clusterfuzzlite");
	put(f, "repo/a.c", "int a;\n");
	locate_err(f, "other/.clusterfuzzlite", "repo", CRS_EINPUT,
		   "%R/other/.clusterfuzzlite: a ClusterFuzzLite folder must "
		   "be the .clusterfuzzlite/ at the root of the repository "
		   "under scan ('%R/repo', --source)");
	/* .clusterfuzzlite as a link out of the repository */
	l = pathf(f, "repo/.clusterfuzzlite");
	t = pathf(f, "other/.clusterfuzzlite");
	assert_int_equal(symlink(t, l), 0);
	locate_err(f, NULL, "repo", CRS_ECONFIG,
		   "%R/repo/.clusterfuzzlite: not a folder (a link)");
	free(l);
	free(t);
	/* build.sh as a link to a host file */
	project(f, "linked/.clusterfuzzlite");
	l = pathf(f, "linked/.clusterfuzzlite/build.sh");
	assert_int_equal(unlink(l), 0);
	assert_int_equal(symlink("/etc/passwd", l), 0);
	locate_err(f, NULL, "linked", CRS_ECONFIG, "%R/linked/"
		   ".clusterfuzzlite/build.sh: not a regular file (a link)");
	free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_oss_fuzz, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_clusterfuzzlite, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_name_from_origin, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_name_from_main_repo,
						setup, teardown),
		cmocka_unit_test(test_image_name),
		cmocka_unit_test_setup_teardown(test_refusals, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_hostile, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, git_group_setup,
				      git_group_teardown);
}
