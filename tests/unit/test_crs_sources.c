/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_crs_sources.c - where a CRS comes from: local_path, git, registry
 *
 * (The source block's syntax is in test_config.c.) Registry lookup and
 * git checkouts run against folders and git repositories (made with the
 * git command) in a temporary folder, through file:// URLs. Error cases
 * assert the exact `file:line:col: field: problem` message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <git2.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "runner/config/config.h"
#include "runner/config/crs_registry.h"
#include "runner/config/crs_git.h"
#include "log_capture.h"
#include "tree_writer.h"

/* ---- helpers ----------------------------------------------------------- */

static struct logged logged = { BUF_INIT, 0 };

static void logged_reset(void)
{
	buf_reset(&logged.text);
	logged.warnings = 0;
}

struct tmp {
	char dir[64];
	char *registry, *cache, *repo_url;
};

/* Run a shell command in folder `dir`; it must succeed. */
static void sh(const char *dir, const char *fmt, ...)
{
	char *cmd = NULL, *full;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	assert_true(vasprintf(&cmd, fmt, ap) >= 0);
	va_end(ap);
	full = xasprintf("cd '%s' && (%s) >/dev/null 2>&1", dir, cmd);
	rc = system(full);
	if (rc != 0)
		print_error("command failed (%d): %s\n", rc, full);
	free(cmd);
	free(full);
	assert_int_equal(rc, 0);
}

#define GIT "git -c user.name=t -c user.email=t@t "

#define INFRA "run_env: local\ndocker_registry: local\n" \
	"oss_crs_infra: {cpuset: \"0\", memory: 4G}\n"

#define MANIFEST "name: crs-x\ntype: [bug-finding]\nversion: 1.0.0\n" \
	"crs_run_phase:\n  fuzzer:\n" \
	"    dockerfile: oss-crs/runner.Dockerfile\n" \
	"supported_target:\n  mode: [full, delta]\n" \
	"  language: c\n  sanitizer: address\n  architecture: x86_64\n"

/* A CRS folder at dir/rel. */
static void write_crs(const char *dir, const char *rel)
{
	char *p = xasprintf("%s/oss-crs/crs.yaml", rel);

	write_at(dir, p, MANIFEST);
	free(p);
	p = xasprintf("%s/oss-crs/runner.Dockerfile", rel);
	write_at(dir, p, "FROM x\n");
	free(p);
}

/* The commit a ref names in the test repository. */
static char *rev_parse(const struct tmp *t, const char *ref)
{
	char *cmd = xasprintf("git -C '%s/repo' rev-parse '%s^{commit}'",
			      t->dir, ref);
	FILE *f = popen(cmd, "r");
	char line[128] = "";

	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	pclose(f);
	free(cmd);
	line[strcspn(line, "\n")] = '\0';
	assert_int_equal(strlen(line), 40);
	return xstrdup(line);
}

static int setup(void **state)
{
	struct tmp *t = xcalloc(1, sizeof(*t));

	snprintf(t->dir, sizeof(t->dir), "/tmp/crsci-sources-XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	t->registry = xasprintf("%s/registry", t->dir);
	t->cache = xasprintf("%s/cache/crs-src", t->dir);
	t->repo_url = xasprintf("file://%s/repo", t->dir);
	/* a repository with a CRS in crs/, a branch and an annotated tag */
	write_crs(t->dir, "repo/crs");
	write_at(t->dir, "repo/README", "a crs\n");
	sh(t->dir, "cd repo && git init -q -b main && git add -A && "
	   GIT "commit -qm one && " GIT "tag -a v1 -m v1");
	logged_reset();
	log_set_handler(capture, &logged);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tmp *t = *state;

	log_set_handler(NULL, NULL);
	buf_release(&logged.text);
	sh("/", "chmod -R u+rwx '%s'", t->dir);
	assert_int_equal(fs_remove_tree(t->dir), 0);
	free(t->registry);
	free(t->cache);
	free(t->repo_url);
	free(t);
	return 0;
}

/* compose_load of dir/rel with the test's registry and cache. */
static int load(const struct tmp *t, const char *rel, struct compose **c)
{
	struct compose_sources src = { .registry_dir = t->registry,
				       .src_cache = t->cache };
	char *path = xasprintf("%s/%s", t->dir, rel);
	int r;

	*c = NULL;
	r = compose_load(c, path, &src);
	free(path);
	return r;
}

static struct compose *load_ok(const struct tmp *t, const char *rel)
{
	struct compose *c = NULL;

	if (load(t, rel, &c) != 0)
		fail_msg("unexpected error: %s", crs_error_last());
	return c;
}

/* compose_load fails with CRS_ECONFIG and this message (printf form). */
static void load_err(const struct tmp *t, const char *rel, const char *fmt,
		     ...)
	__attribute__((format(printf, 3, 4)));
static void load_err(const struct tmp *t, const char *rel, const char *fmt,
		     ...)
{
	struct compose *c = (struct compose *)1;
	char *want = NULL;
	va_list ap;

	va_start(ap, fmt);
	assert_true(vasprintf(&want, fmt, ap) >= 0);
	va_end(ap);
	assert_int_equal(load(t, rel, &c), CRS_ECONFIG);
	assert_null(c);
	assert_string_equal(crs_error_last(), want);
	free(want);
}

/* A compose with one git entry crs-a. */
static void write_git_compose(const struct tmp *t, const char *rel,
			      const char *url, const char *ref,
			      const char *subdir)
{
	char *text = xasprintf(INFRA "crs-a:\n  cpuset: \"1\"\n  memory: 1G\n"
			       "  source:\n    url: %s\n    ref: %s\n%s%s%s",
			       url, ref, subdir ? "    subdir: " : "",
			       subdir ? subdir : "", subdir ? "\n" : "");

	write_at(t->dir, rel, text);
	free(text);
}

static void test_url_shown(void **state)
{
	static const char *const cases[][2] = {
		{ "https://u:p4ss@host/x.git", "https://host/x.git" },
		{ "https://tok@host:8443/x", "https://host:8443/x" },
		{ "https://host/a@b", "https://host/a@b" },
		{ "ssh://git@host/x", "ssh://host/x" },
		{ "git@github.com:a/b.git", "git@github.com:a/b.git" },
		{ "file:///tmp/x", "file:///tmp/x" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = crs_git_url_shown(cases[i][0]);

		assert_string_equal(s, cases[i][1]);
		free(s);
	}
}

/* ---- the registry ------------------------------------------------------ */

static void test_registry_dir(void **state)
{
	struct tmp *t = *state;
	char *exe = xasprintf("%s/bin/crs-ci", t->dir);
	char *want, *got;

	got = crs_registry_dir("/opt/reg/", "/env/reg", exe);
	assert_string_equal(got, "/opt/reg");
	free(got);
	got = crs_registry_dir(NULL, "/env/reg", exe);
	assert_string_equal(got, "/env/reg");
	free(got);
	/* nothing beside the binary: the installed share/ folder */
	got = crs_registry_dir(NULL, "", exe);
	want = xasprintf("%s/share/crs-ci/registry", t->dir);
	assert_string_equal(got, want);
	free(got);
	free(want);
	/* a source tree: build/crs-ci finds ../registry */
	write_at(t->dir, "registry/crs-a.yaml", "source: {local_path: x}\n");
	got = crs_registry_dir(NULL, NULL, exe);
	assert_string_equal(got, t->registry);
	free(got);
	free(exe);
}

static void test_registry_resolve(void **state)
{
	struct tmp *t = *state;
	struct compose *c;
	char cwd[PATH_MAX], *want;

	write_crs(t->dir, "crs/a");
	write_at(t->dir, "registry/crs-a.yaml",
		 "name: crs-a\ndescription: a test crs\ntype: [bug-finding]\n"
		 "source:\n  local_path: ../crs/a\n");
	write_at(t->dir, "proj/compose.yaml", INFRA
		 "crs-a: {cpuset: \"1\", memory: 1G}\n");
	/* a relative local_path is the registry file's, not the cwd's */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir("/"), 0);
	c = load_ok(t, "proj/compose.yaml");
	assert_int_equal(chdir(cwd), 0);
	want = xasprintf("%s/crs/a", t->dir);
	assert_string_equal(c->crs[0].manifest->root, want);
	free(want);
	want = xasprintf("%s/crs/a/oss-crs/crs.yaml", t->dir);
	assert_string_equal(c->crs[0].manifest->path, want);
	free(want);
	assert_int_equal(c->crs[0].source_kind, COMPOSE_SOURCE_REGISTRY);
	assert_int_equal(config_check(c, NULL, 4), 0);
	compose_free(c);

	/* an unknown name names the entry and the folder searched */
	write_at(t->dir, "proj/unknown.yaml", INFRA
		 "crs-a: {cpuset: \"1\", memory: 1G}\n"
		 "crs-zz:\n  cpuset: \"2\"\n  memory: 1G\n");
	load_err(t, "proj/unknown.yaml", "%s/proj/unknown.yaml:5:1: crs-zz: "
		 "no source, and no registry entry crs-zz.yaml in the "
		 "registry folder \"%s\" (set --registry DIR or "
		 "CRS_CI_REGISTRY, or give source)", t->dir, t->registry);

	/* a broken registry file: the entry, then the file's line */
	write_at(t->dir, "registry/crs-a.yaml", "name: crs-a\n"
		 "source:\n  url: file:///x\n");
	load_err(t, "proj/compose.yaml", "%s/proj/compose.yaml:4:1: crs-a: "
		 "registry entry: %s/crs-a.yaml:2:1: source: url needs a ref",
		 t->dir, t->registry);
	write_at(t->dir, "registry/crs-a.yaml", "name: crs-a\n");
	load_err(t, "proj/compose.yaml", "%s/proj/compose.yaml:4:1: crs-a: "
		 "registry entry: %s/crs-a.yaml:1:1: missing \"source\"",
		 t->dir, t->registry);

	/* a registry entry can name a git source; errors say both places */
	write_at(t->dir, "registry/crs-a.yaml", "name: crs-a\n"
		 "source:\n  url: file:///nonexistent/crs-a\n"
		 "  ref: nope\n");
	load_err(t, "proj/compose.yaml", "%s/proj/compose.yaml:4:1: crs-a: "
		 "registry entry: %s/crs-a.yaml:3:3: source.url: cannot "
		 "reach file:///nonexistent/crs-a (ref nope): failed to "
		 "resolve path '/nonexistent/crs-a': No such file or "
		 "directory", t->dir, t->registry);
}

/* ---- git sources ------------------------------------------------------- */

static void test_git_clone_then_reuse(void **state)
{
	struct tmp *t = *state;
	struct compose *c;
	char *head = rev_parse(t, "main"), *tree, *want, *p;

	write_git_compose(t, "compose.yaml", t->repo_url, "main", "crs");
	c = load_ok(t, "compose.yaml");
	tree = xasprintf("%s/%s", t->cache, head);
	want = xasprintf("%s/crs", tree);
	assert_string_equal(c->crs[0].manifest->root, want);
	assert_string_equal(c->crs[0].source_commit, head);
	assert_int_equal(c->crs[0].source_kind, COMPOSE_SOURCE_GIT);
	assert_int_equal(config_check(c, NULL, 4), 0);
	compose_free(c);
	free(want);
	want = xasprintf("crs crs-a: %s at main: cloned commit %s\x01",
			 t->repo_url, head);
	assert_string_equal(logged.text.ptr, want);
	free(want);
	/* the checkout holds the files, not the repository */
	p = xasprintf("%s/.git", tree);
	assert_false(fs_exists(p));
	free(p);
	p = xasprintf("%s/README", tree);
	assert_true(fs_exists(p));
	free(p);

	/* same url+ref: nothing cloned; the tree is exported again from
	 * the kept objects, so what a hostile cache changed in it is gone */
	sh(tree, "echo evil >README && echo evil >planted");
	logged_reset();
	c = load_ok(t, "compose.yaml");
	compose_free(c);
	want = xasprintf("crs crs-a: %s at main: reused the checkout of "
			 "commit %s\x01", t->repo_url, head);
	assert_string_equal(logged.text.ptr, want);
	free(want);
	sh(tree, "test ! -e planted && test \"$(cat README)\" = 'a crs'");
	/* a repository in the cache that lacks the commit: fetched again */
	sh(t->cache, "rm -rf %s.git && git init -q --bare %s.git", head, head);
	logged_reset();
	c = load_ok(t, "compose.yaml");
	assert_string_equal(c->crs[0].source_commit, head);
	compose_free(c);
	assert_non_null(strstr(logged.text.ptr, "the cached repository"));
	assert_non_null(strstr(logged.text.ptr, "fetching it again"));
	assert_non_null(strstr(logged.text.ptr, "cloned commit"));

	/* the annotated tag names the same commit: reused too */
	logged_reset();
	write_git_compose(t, "tag.yaml", t->repo_url, "v1", "crs");
	c = load_ok(t, "tag.yaml");
	assert_string_equal(c->crs[0].source_commit, head);
	compose_free(c);
	assert_non_null(strstr(logged.text.ptr, "reused the checkout"));

	/* a full commit id needs no network: the repository is gone */
	sh(t->dir, "mv repo repo.away");
	write_git_compose(t, "commit.yaml", t->repo_url, head, "crs");
	c = load_ok(t, "commit.yaml");
	assert_string_equal(c->crs[0].source_commit, head);
	compose_free(c);
	/* a branch falls back to the commit an earlier run recorded */
	logged_reset();
	c = load_ok(t, "compose.yaml");
	assert_string_equal(c->crs[0].source_commit, head);
	compose_free(c);
	want = xasprintf("cannot reach %s (ref main): failed to resolve "
			 "path '%s/repo': No such file or directory; using "
			 "commit %s recorded by an earlier run\x01" "crs crs-a: "
			 "%s at main: reused the checkout of commit %s\x01",
			 t->repo_url, t->dir, head, t->repo_url, head);
	assert_string_equal(logged.text.ptr, want);
	assert_int_equal(logged.warnings, 1);
	free(want);
	/* a commit never checked out cannot be had offline */
	sh(t->dir, "rm -rf '%s' '%s.git'", tree, tree);
	load_err(t, "commit.yaml", "%s/commit.yaml:8:5: crs-a.source.url: "
		 "cannot fetch %s (ref %s): failed to resolve path '%s/repo': "
		 "No such file or directory", t->dir, t->repo_url, head,
		 t->dir);
	sh(t->dir, "mv repo.away repo");
	/* a new commit on the branch is a new checkout */
	write_at(t->dir, "repo/crs/NEWS", "two\n");
	sh(t->dir, "cd repo && git add -A && " GIT "commit -qm two");
	free(head);
	head = rev_parse(t, "main");
	logged_reset();
	c = load_ok(t, "compose.yaml");
	assert_string_equal(c->crs[0].source_commit, head);
	compose_free(c);
	assert_non_null(strstr(logged.text.ptr, "cloned commit"));
	/* and a commit id that is not a branch tip is fetched too */
	free(head);
	head = rev_parse(t, "v1");
	write_git_compose(t, "commit.yaml", t->repo_url, head, "crs");
	c = load_ok(t, "commit.yaml");
	assert_string_equal(c->crs[0].source_commit, head);
	compose_free(c);
	free(tree);
	free(head);
}

static void test_git_errors(void **state)
{
	struct tmp *t = *state;
	char *head = rev_parse(t, "main");
	char *p;

	write_git_compose(t, "c.yaml", t->repo_url, "nope", NULL);
	load_err(t, "c.yaml", "%s/c.yaml:8:5: crs-a.source.url: %s has no "
		 "branch or tag \"nope\"", t->dir, t->repo_url);
	write_git_compose(t, "c.yaml", t->repo_url, "1234abc", NULL);
	load_err(t, "c.yaml", "%s/c.yaml:8:5: crs-a.source.url: %s has no "
		 "branch or tag \"1234abc\" (a commit id must be all 40 hex "
		 "digits)", t->dir, t->repo_url);
	write_git_compose(t, "c.yaml", t->repo_url,
			  "1111111111111111111111111111111111111111", NULL);
	load_err(t, "c.yaml", "%s/c.yaml:8:5: crs-a.source.url: %s has no "
		 "commit \"1111111111111111111111111111111111111111\" on any "
		 "branch or tag", t->dir, t->repo_url);
	/* credentials never reach a message */
	p = xasprintf("file://user:s3cret@localhost%s/nope", t->dir);
	write_git_compose(t, "c.yaml", p, "main", NULL);
	free(p);
	load_err(t, "c.yaml", "%s/c.yaml:8:5: crs-a.source.url: cannot reach "
		 "file://localhost%s/nope (ref main): failed to resolve path "
		 "'file://localhost%s/nope': No such file or directory",
		 t->dir, t->dir, t->dir);
	assert_null(strstr(crs_error_last(), "s3cret"));
	/* the repository root is no CRS */
	write_git_compose(t, "c.yaml", t->repo_url, "main", NULL);
	load_err(t, "c.yaml", "%s/c.yaml:8:5: crs-a.source.url: no "
		 "oss-crs/crs.yaml in \"%s/%s\"", t->dir, t->cache, head);
	write_git_compose(t, "c.yaml", t->repo_url, "main", "nope/crs");
	load_err(t, "c.yaml", "%s/c.yaml:8:5: crs-a.source.url: source.subdir "
		 "\"nope/crs\": \"nope\" is missing in commit %s", t->dir,
		 head);
	write_git_compose(t, "c.yaml", t->repo_url, "main", "README");
	load_err(t, "c.yaml", "%s/c.yaml:8:5: crs-a.source.url: source.subdir "
		 "\"README\": \"README\" is not a folder in commit %s", t->dir,
		 head);
	free(head);
}

/*
 * The repository is CRS content: its links stay links inside the
 * checkout, and crs-ci follows none of them to read crs.yaml or to
 * reach subdir; submodules are refused.
 */
static void test_git_hostile_content(void **state)
{
	struct tmp *t = *state;
	struct compose *c;
	char *head, *p, target[PATH_MAX];
	struct stat st;
	ssize_t n;

	write_at(t->dir, "outside/oss-crs/crs.yaml", MANIFEST);
	write_at(t->dir, "outside/oss-crs/runner.Dockerfile", "FROM x\n");
	sh(t->dir, "cd repo && ln -s '%s/outside' linked && "
	   "mkdir -p evil/oss-crs && "
	   "ln -s '%s/outside/oss-crs/crs.yaml' evil/oss-crs/crs.yaml && "
	   "ln -s '%s/outside/oss-crs' evil2 && "
	   "mkdir -p df/oss-crs && cp crs/oss-crs/crs.yaml df/oss-crs/ && "
	   "ln -s '%s/outside/oss-crs/runner.Dockerfile' "
	   "df/oss-crs/runner.Dockerfile && "
	   "git add -A && " GIT "commit -qm links", t->dir, t->dir, t->dir,
	   t->dir);
	head = rev_parse(t, "main");

	write_git_compose(t, "c.yaml", t->repo_url, "main", "linked");
	load_err(t, "c.yaml", "%s/c.yaml:8:5: crs-a.source.url: source.subdir "
		 "\"linked\": \"linked\" is a link (not followed) in commit %s",
		 t->dir, head);
	write_git_compose(t, "c.yaml", t->repo_url, "main", "evil");
	load_err(t, "c.yaml", "%s/%s/evil/oss-crs/crs.yaml: not a regular "
		 "file of at most 1048576 bytes (links are not followed)", t->cache, head);
	/* a Dockerfile that links out of the checkout: config_check */
	write_git_compose(t, "c.yaml", t->repo_url, "main", "df");
	c = load_ok(t, "c.yaml");
	assert_int_equal(config_check(c, NULL, 4), CRS_ECONFIG);
	p = xasprintf("%s/%s/df/oss-crs/crs.yaml:6:5: crs_run_phase.fuzzer."
		      "dockerfile: \"oss-crs/runner.Dockerfile\" is outside "
		      "the crs root \"%s/%s/df\"", t->cache, head, t->cache,
		      head);
	assert_string_equal(crs_error_last(), p);
	free(p);
	compose_free(c);
	/* the links were written as links, inside the checkout */
	p = xasprintf("%s/%s/evil2", t->cache, head);
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	n = readlink(p, target, sizeof(target) - 1);
	assert_true(n > 0);
	free(p);

	/* submodules: refused, not fetched */
	write_at(t->dir, "repo/.gitmodules", "[submodule \"x\"]\n"
		 "\tpath = x\n\turl = https://example.com/x.git\n");
	sh(t->dir, "cd repo && git add -A && " GIT "commit -qm sub");
	free(head);
	head = rev_parse(t, "main");
	write_git_compose(t, "c.yaml", t->repo_url, "main", "crs");
	load_err(t, "c.yaml", "%s/c.yaml:8:5: crs-a.source.url: %s at "
		 "\"main\" has submodules, which crs-ci does not fetch "
		 "(vendor them, or check the repository out and use "
		 "source.local_path)", t->dir, t->repo_url);
	p = xasprintf("%s/%s", t->cache, head);
	assert_false(fs_exists(p));	/* and nothing half-made is left */
	free(p);
	free(head);
}

/* A local CRS whose crs.yaml is a link: refused as well. */
static void test_local_manifest_link(void **state)
{
	struct tmp *t = *state;

	write_at(t->dir, "outside/crs.yaml", MANIFEST);
	write_at(t->dir, "crs/a/oss-crs/runner.Dockerfile", "FROM x\n");
	sh(t->dir, "ln -s ../../../outside/crs.yaml crs/a/oss-crs/crs.yaml");
	write_at(t->dir, "compose.yaml", INFRA "crs-a:\n  cpuset: \"1\"\n"
		 "  memory: 1G\n  source: {local_path: crs/a}\n");
	load_err(t, "compose.yaml", "%s/crs/a/oss-crs/crs.yaml: not a regular "
		 "file of at most 1048576 bytes (links are not followed)", t->dir);
}

/* No .tmp-* folder survives a failed clone. */
static void test_no_half_checkout(void **state)
{
	struct tmp *t = *state;
	struct compose *c = NULL;

	write_git_compose(t, "c.yaml", t->repo_url,
			  "1111111111111111111111111111111111111111", NULL);
	assert_int_equal(load(t, "c.yaml", &c), CRS_ECONFIG);
	sh(t->cache, "test -z \"$(ls -A | grep -v '^refs$')\"");
}

int main(void)
{
	int r;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url_shown),
		cmocka_unit_test_setup_teardown(test_registry_dir, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_registry_resolve, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_git_clone_then_reuse,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_git_errors, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_git_hostile_content,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_local_manifest_link,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_half_checkout, setup,
						teardown),
	};

	git_libgit2_init();
	r = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return r;
}
