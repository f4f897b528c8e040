/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_sidecar_tree.c - build-project's trees on both sides
 *
 * crs-ci's side (sidecar_tree_diff) on real folders: changed, added,
 * deleted and nested files, binary files, ".git" skipped, the diff applied
 * with libgit2 giving the request's tree back, and what a hostile CRS
 * could plant (symlinks, FIFOs, control characters, type changes, depth
 * and size caps). libCRS's side (crs_build_project) through a mailbox
 * answered by a thread that reads the request as the orchestrator does,
 * and its refusals (a symlink to /etc, a FIFO, no folder at all).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "runner/sidecar/sidecar.h"
#include "runner/sidecar/sidecar_wire.h"
#include "runner/sidecar/sidecar_tree.h"
#include "libcrs/libcrs.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "open_spy.h"

#include <dirent.h>
#include <fcntl.h>
#include <git2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

struct fixture {
	char root[64];
	char *orig, *reqdir, *patched;
	char *tree;		/* reqdir/target-source */
	int reqfd;		/* the request folder: holds target-source/ */
};

static int setup(void **st)
{
	struct fixture *f = xcalloc(1, sizeof(*f));

	strcpy(f->root, "/tmp/crs-ci-tree.XXXXXX");
	assert_non_null(mkdtemp(f->root));
	f->orig = xasprintf("%s/orig", f->root);
	f->reqdir = xasprintf("%s/req", f->root);
	f->patched = xasprintf("%s/patched", f->root);
	f->tree = xasprintf("%s/target-source", f->reqdir);
	assert_int_equal(fs_mkdir_p(f->orig), 0);
	assert_int_equal(fs_mkdir_p(f->reqdir), 0);
	f->reqfd = open(f->reqdir, O_RDONLY | O_DIRECTORY);
	assert_true(f->reqfd >= 0);
	*st = f;
	return 0;
}

static int teardown(void **st)
{
	struct fixture *f = *st;

	close(f->reqfd);
	fs_remove_tree(f->root);
	free(f->orig);
	free(f->reqdir);
	free(f->patched);
	free(f->tree);
	free(f);
	return 0;
}

/* dir/rel with `len` bytes of data (parents made). */
static void put(const char *dir, const char *rel, const void *data,
		size_t len)
{
	char *p = xasprintf("%s/%s", dir, rel), *slash = strrchr(p, '/');

	*slash = '\0';
	assert_int_equal(fs_mkdir_p(p), 0);
	*slash = '/';
	assert_int_equal(fs_write_file_atomic(p, data, len), 0);
	free(p);
}

static void puts_(const char *dir, const char *rel, const char *text)
{
	put(dir, rel, text, strlen(text));
}

static char *path(const struct fixture *f, const char *rel)
{
	return xasprintf("%s/target-source/%s", f->reqdir, rel);
}

/* The request's target-source/: a copy of orig the test then edits. */
static void request_copy(const struct fixture *f)
{
	assert_int_equal(fs_copy_tree(f->orig, f->tree), 0);
}

static int diff(const struct fixture *f, const char *patched,
		struct sidecar_tree_count *c, struct buf *out)
{
	return sidecar_tree_diff(f->reqfd, "target-source", f->orig, patched,
				 c, out);
}

static void expect_refused(const struct fixture *f, const char *why)
{
	struct sidecar_tree_count c = { 0 };
	struct buf b = BUF_INIT;

	assert_int_equal(diff(f, NULL, &c, &b), CRS_EINPUT);
	if (!strstr(crs_error_last(), why))
		fail_msg("'%s' does not say '%s'", crs_error_last(), why);
	crs_error_clear();
	buf_release(&b);
}

/* A typical source tree, with a .git folder on both sides. */
static void typical(const struct fixture *f)
{
	puts_(f->orig, "README", "hello\n");
	puts_(f->orig, "src/a.c", "int a;\nint b;\n");
	puts_(f->orig, "src/deep/x/y.h", "#define Y 1\n");
	puts_(f->orig, "old.txt", "going away\n");
	puts_(f->orig, ".git/HEAD", "ref: refs/heads/main\n");
	request_copy(f);
	puts_(f->tree, "src/a.c", "int a;\nint c;\n");
	puts_(f->tree, "src/deep/x/new.h", "#define NEW 2\n");
	puts_(f->tree, "added.txt", "new file\n");
	{
		char *p = path(f, "old.txt");

		assert_int_equal(unlink(p), 0);
		free(p);
	}
	/* the CRS's own .git: never part of the diff */
	puts_(f->tree, ".git/HEAD", "ref: refs/heads/crs\n");
	puts_(f->tree, "src/.git/config", "[core]\n");
}

static void test_diff_changes(void **st)
{
	struct fixture *f = *st;
	struct sidecar_tree_count c = { 0 };
	struct buf b = BUF_INIT;
	git_diff *d = NULL;
	int seen[4] = { 0 };

	typical(f);
	assert_int_equal(diff(f, NULL, &c, &b), 0);
	assert_non_null(strstr(b.ptr, "diff --git a/src/a.c b/src/a.c\n"));
	assert_non_null(strstr(b.ptr, "-int b;\n+int c;\n"));
	assert_non_null(strstr(b.ptr, "--- /dev/null\n"
			       "+++ b/src/deep/x/new.h\n"));
	assert_non_null(strstr(b.ptr, "+++ b/added.txt\n"));
	assert_non_null(strstr(b.ptr, "--- a/old.txt\n+++ /dev/null\n"));
	assert_null(strstr(b.ptr, ".git"));
	assert_null(strstr(b.ptr, "README"));
	/* every file of the request counted, .git's not */
	assert_int_equal(c.files, 5);
	assert_int_equal(git_diff_from_buffer(&d, b.ptr, b.len), 0);
	assert_int_equal(git_diff_num_deltas(d), 4);
	for (size_t i = 0; i < 4; i++) {
		const git_diff_delta *dd = git_diff_get_delta(d, i);

		if (dd->status == GIT_DELTA_MODIFIED &&
		    !strcmp(dd->new_file.path, "src/a.c"))
			seen[0]++;
		if (dd->status == GIT_DELTA_ADDED &&
		    !strcmp(dd->new_file.path, "src/deep/x/new.h"))
			seen[1]++;
		if (dd->status == GIT_DELTA_ADDED &&
		    !strcmp(dd->new_file.path, "added.txt"))
			seen[2]++;
		if (dd->status == GIT_DELTA_DELETED &&
		    !strcmp(dd->old_file.path, "old.txt"))
			seen[3]++;
	}
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(seen[i], 1);
	git_diff_free(d);
	buf_release(&b);
}

/* Nothing changed (a symlink the original has too): an empty diff. */
static void test_diff_unchanged(void **st)
{
	struct fixture *f = *st;
	struct sidecar_tree_count c = { 0 };
	struct buf b = BUF_INIT;
	char *p = xasprintf("%s/link", f->orig);

	puts_(f->orig, "a/b.c", "x\n");
	puts_(f->orig, "empty", "");
	assert_int_equal(symlink("a/b.c", p), 0);
	request_copy(f);
	assert_int_equal(diff(f, NULL, &c, &b), 0);
	assert_int_equal(b.len, 0);
	assert_int_equal(c.files, 3);
	buf_release(&b);
	free(p);
}

/* Binary files travel as GIT binary patches; the patched copy. */
static void test_diff_binary_patched(void **st)
{
	struct fixture *f = *st;
	struct sidecar_tree_count c = { 0 };
	struct buf b = BUF_INIT, got = BUF_INIT;
	char *p;
	struct stat sb;

	put(f->orig, "seed.bin", "a\0b\0c", 5);
	puts_(f->orig, "build.sh", "make\n");
	puts_(f->orig, "gone.txt", "x\n");
	request_copy(f);
	put(f->tree, "seed.bin", "a\0B\0c", 5);
	puts_(f->tree, "build.sh", "echo patched\nmake\n");
	p = path(f, "build.sh");
	assert_int_equal(chmod(p, 0755), 0);
	free(p);
	p = path(f, "gone.txt");
	assert_int_equal(unlink(p), 0);
	free(p);
	assert_int_equal(diff(f, f->patched, &c, &b), 0);
	assert_non_null(strstr(b.ptr, "GIT binary patch\n"));
	assert_non_null(strstr(b.ptr, "+echo patched\n"));
	/* the patched copy: new contents, the executable bit, no gone.txt */
	p = xasprintf("%s/seed.bin", f->patched);
	assert_int_equal(fs_read_file(&got, p, 100), 0);
	assert_int_equal(got.len, 5);
	assert_memory_equal(got.ptr, "a\0B\0c", 5);
	free(p);
	p = xasprintf("%s/build.sh", f->patched);
	assert_int_equal(stat(p, &sb), 0);
	assert_true(sb.st_mode & 0100);
	free(p);
	p = xasprintf("%s/gone.txt", f->patched);
	assert_false(fs_exists(p));
	free(p);
	buf_release(&b);
	buf_release(&got);
}

/*
 * The diff applied by libgit2 to a repository holding the original gives
 * the request's tree back (as the patched copy has it).
 */
static void test_diff_applies(void **st)
{
	struct fixture *f = *st;
	struct sidecar_tree_count c = { 0 };
	struct buf b = BUF_INIT;
	char *work = xasprintf("%s/work", f->root), *g, h1[65], h2[65];
	git_repository *repo = NULL;
	git_diff *d = NULL;

	typical(f);
	put(f->orig, "data/blob.bin", "\x01\x00\x02", 3);
	put(f->tree, "data/blob.bin", "\x01\x00\x03\x04", 4);
	assert_int_equal(diff(f, f->patched, &c, &b), 0);
	assert_int_equal(fs_copy_tree(f->orig, work), 0);
	g = xasprintf("%s/.git", work);
	assert_int_equal(fs_remove_tree(g), 0);
	assert_int_equal(git_repository_init(&repo, work, 0), 0);
	assert_int_equal(git_diff_from_buffer(&d, b.ptr, b.len), 0);
	assert_int_equal(git_apply(repo, d, GIT_APPLY_LOCATION_WORKDIR,
				   NULL), 0);
	git_diff_free(d);
	git_repository_free(repo);
	/* the patched copy kept the original's .git; compare without */
	assert_int_equal(fs_remove_tree(g), 0);
	free(g);
	g = xasprintf("%s/.git", f->patched);
	assert_int_equal(fs_remove_tree(g), 0);
	assert_int_equal(fs_sha256_tree(h1, work), 0);
	assert_int_equal(fs_sha256_tree(h2, f->patched), 0);
	assert_string_equal(h1, h2);
	free(g);
	free(work);
	buf_release(&b);
}

static void test_refused_symlinks(void **st)
{
	struct fixture *f = *st;
	char *p, *q;

	puts_(f->orig, "a.c", "x\n");
	p = xasprintf("%s/ln", f->orig);
	assert_int_equal(symlink("a.c", p), 0);
	request_copy(f);
	/* a new symlink, wherever it points */
	q = path(f, "etc");
	assert_int_equal(symlink("/etc", q), 0);
	expect_refused(f, "target-source/etc: a symlink that is not the "
		       "original's");
	assert_int_equal(unlink(q), 0);
	free(q);
	/* the original's symlink pointed elsewhere */
	q = path(f, "ln");
	assert_int_equal(unlink(q), 0);
	assert_int_equal(symlink("../../x", q), 0);
	expect_refused(f, "target-source/ln: a symlink");
	/* ... or made a file, or deleted */
	assert_int_equal(unlink(q), 0);
	puts_(f->tree, "ln", "x\n");
	expect_refused(f, "a file where the original has a symlink");
	assert_int_equal(unlink(q), 0);
	expect_refused(f, "does not delete symlinks");
	free(q);
	free(p);
}

static void test_refused_entries(void **st)
{
	struct fixture *f = *st;
	char *p, name[8] = "x\ny";

	puts_(f->orig, "d/a.c", "x\n");
	puts_(f->orig, "f", "x\n");
	request_copy(f);
	/* a FIFO must not block the walk */
	p = path(f, "pipe");
	assert_int_equal(mkfifo(p, 0644), 0);
	expect_refused(f, "target-source/pipe: not a regular file");
	assert_int_equal(unlink(p), 0);
	free(p);
	/* a control character in a name */
	puts_(f->tree, name, "x\n");
	expect_refused(f, "control characters");
	p = path(f, name);
	assert_int_equal(unlink(p), 0);
	free(p);
	/* a folder where the original has a file */
	p = path(f, "f");
	assert_int_equal(unlink(p), 0);
	puts_(f->tree, "f/inner", "x\n");
	expect_refused(f, "target-source/f: a folder where the original has "
		       "a file");
	assert_int_equal(fs_remove_tree(p), 0);
	free(p);
	/* the tree itself a symlink */
	assert_int_equal(fs_remove_tree(f->tree), 0);
	assert_int_equal(symlink(f->orig, f->tree), 0);
	expect_refused(f, "not a folder");
}

/*
 * FIFOs and device nodes in a request tree are refused from their type
 * alone, never opened (a FIFO could block the walk, a device act).
 */
static void test_special_entries_never_opened(void **st)
{
	struct fixture *f = *st;
	char *p;

	puts_(f->orig, "f", "x\n");
	request_copy(f);
	open_spy_reset();
	open_spy_watch("pipe");
	open_spy_watch("dev");
	p = path(f, "pipe");
	assert_int_equal(mkfifo(p, 0644), 0);
	expect_refused(f, "target-source/pipe: not a regular file");
	assert_int_equal(unlink(p), 0);
	free(p);
	p = path(f, "dev");
	/* /dev/null's numbers; creatable only with CAP_MKNOD */
	if (mknod(p, S_IFCHR | 0600, makedev(1, 3)) == 0)
		expect_refused(f, "target-source/dev: not a regular file");
	free(p);
	assert_int_equal(open_spy_hits, 0);
	open_spy_reset();
}

static void test_caps(void **st)
{
	struct fixture *f = *st;
	struct sidecar_tree_count c;
	struct buf b = BUF_INIT;
	char deep[SIDECAR_TREE_DEPTH_MAX * 2 + 8] = "";
	char *p;

	puts_(f->orig, "a.c", "0123456789\n");
	request_copy(f);
	puts_(f->tree, "b.c", "0123456789\n");
	/* the caps count across a request's trees */
	c.files = SIDECAR_TREE_FILES_MAX - 1;
	c.bytes = 0;
	assert_int_equal(diff(f, NULL, &c, &b), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "more than 100000 files"));
	crs_error_clear();
	c.files = 0;
	c.bytes = SIDECAR_TREE_BYTES_MAX - 15;
	assert_int_equal(diff(f, NULL, &c, &b), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "MiB of files"));
	crs_error_clear();
	c.files = 0;
	c.bytes = 0;
	assert_int_equal(diff(f, NULL, &c, &b), 0);
	assert_int_equal(c.files, 2);
	assert_int_equal(c.bytes, 22);
	/* folders nested deeper than the cap */
	for (int i = 0; i <= SIDECAR_TREE_DEPTH_MAX; i++)
		strcat(deep, "d/");
	strcat(deep, "f");
	puts_(f->tree, deep, "x\n");
	p = path(f, "d");
	expect_refused(f, "deeper than 64 folders");
	assert_int_equal(fs_remove_tree(p), 0);
	free(p);
	buf_release(&b);
}

/* --- libCRS's side through a mailbox ------------------------------------- */

struct answer {
	const struct fixture *f;
	char *mbox;
	int reqfd, resfd;
	struct buf target, fuzz;	/* the diffs the orchestrator made */
	int trees_seen;
};

/* The orchestrator: read the first request, diff its trees, answer. */
static void *orchestrator(void *arg)
{
	struct answer *a = arg;

	for (int i = 0; i < 250; i++) {
		char *reqs = xasprintf("%s/requests", a->mbox);
		DIR *d = opendir(reqs);
		struct dirent *de;

		free(reqs);
		while (d && (de = readdir(d)) != NULL) {
			struct sidecar_request rq;
			struct sidecar_response rs = { 0, "built\n", "", 3 };
			struct sidecar_tree_count c = { 0 };
			int dfd;

			if (de->d_name[0] == '.')
				continue;
			if (sidecar_request_read(a->reqfd, de->d_name,
						 &rq) != 0 ||
			    rq.kind != SIDECAR_PROJECT) {
				closedir(d);
				return NULL;
			}
			dfd = openat(a->reqfd, de->d_name, O_RDONLY |
				     O_DIRECTORY);
			a->trees_seen = sidecar_tree_diff(dfd,
				"target-source", a->f->orig, NULL, &c,
				&a->target) == 0;
			a->trees_seen += sidecar_tree_diff(dfd, "fuzz-proj",
				a->f->orig, NULL, &c, &a->fuzz) == 0;
			close(dfd);
			sidecar_response_write(a->resfd, de->d_name, &rs);
			sidecar_request_release(&rq);
			closedir(d);
			return a;
		}
		if (d)
			closedir(d);
		usleep(20000);
	}
	return NULL;
}

static void mailbox_open(struct answer *a, const struct fixture *f)
{
	char *p;

	memset(a, 0, sizeof(*a));
	a->f = f;
	buf_init(&a->target);
	buf_init(&a->fuzz);
	a->mbox = xasprintf("%s/MAILBOX", f->root);
	p = xasprintf("%s/requests", a->mbox);
	assert_int_equal(fs_mkdir_p(p), 0);
	a->reqfd = open(p, O_RDONLY | O_DIRECTORY);
	free(p);
	p = xasprintf("%s/responses", a->mbox);
	assert_int_equal(fs_mkdir_p(p), 0);
	a->resfd = open(p, O_RDONLY | O_DIRECTORY);
	free(p);
	assert_true(a->reqfd >= 0 && a->resfd >= 0);
}

static void mailbox_close(struct answer *a)
{
	close(a->reqfd);
	close(a->resfd);
	buf_release(&a->target);
	buf_release(&a->fuzz);
	free(a->mbox);
}

/* Entries of requests/ (hidden ones too), and of its first request. */
static int count_entries(const char *dir, char **first)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			if (first && !n)
				*first = xasprintf("%s/%s", dir, de->d_name);
			n++;
		}
	if (d)
		closedir(d);
	return n;
}

static char *slurp(const char *dir, const char *name)
{
	struct buf b = BUF_INIT;
	char *p = xasprintf("%s/%s", dir, name);

	if (fs_read_file(&b, p, 1 << 20) != 0) {
		crs_error_clear();
		buf_release(&b);
		b.ptr = NULL;
	}
	free(p);
	return b.ptr ? buf_detach(&b, NULL) : NULL;
}

static void test_libcrs_round_trip(void **st)
{
	struct fixture *f = *st;
	char *resp = xasprintf("%s/resp", f->root), *reqs, *one = NULL, *t;
	char *tree = xasprintf("%s/crs-source", f->root);
	char *proj = xasprintf("%s/crs-proj", f->root);
	char *ln = xasprintf("%s/src/inner", f->orig);
	struct answer a;
	pthread_t th;
	void *ret;
	int code = -1;

	mailbox_open(&a, f);
	puts_(f->orig, "src/a.c", "int a;\n");
	puts_(f->orig, "fuzz/x.c", "x\n");
	assert_int_equal(symlink("../fuzz", ln), 0);
	assert_int_equal(fs_copy_tree(f->orig, tree), 0);
	assert_int_equal(fs_copy_tree(f->orig, proj), 0);
	puts_(tree, "src/a.c", "int a = 1;\n");
	puts_(tree, ".git/objects/pack", "big\n");
	puts_(proj, "build.sh", "echo hi\n");
	assert_int_equal(pthread_create(&th, NULL, orchestrator, &a), 0);
	assert_int_equal(crs_build_project(a.mbox, proj, tree, "3", NULL, 10,
					   resp, &code), 0);
	assert_int_equal(pthread_join(th, &ret), 0);
	assert_non_null(ret);
	/* both trees arrived whole, the in-tree symlink as a symlink */
	assert_int_equal(a.trees_seen, 2);
	assert_non_null(strstr(a.target.ptr, "+int a = 1;\n"));
	assert_null(strstr(a.target.ptr, ".git"));
	assert_non_null(strstr(a.fuzz.ptr, "+++ b/build.sh\n"));
	assert_null(strstr(a.fuzz.ptr, "a.c"));
	assert_int_equal(code, 0);
	assert_string_equal(t = slurp(resp, "retcode"), "0");
	free(t);
	assert_string_equal(t = slurp(resp, "rebuild_id"), "3");
	free(t);
	assert_string_equal(t = slurp(resp, "stdout.log"), "built\n");
	free(t);
	/* the copies are gone once answered; request.txt stays */
	reqs = xasprintf("%s/requests", a.mbox);
	assert_int_equal(count_entries(reqs, &one), 1);
	assert_int_equal(count_entries(one, NULL), 1);
	assert_string_equal(t = slurp(one, "request.txt"),
			    "kind=build-project\nharness=\nrebuild_id=3\n"
			    "builder_name=\n");
	free(t);
	free(one);
	free(reqs);
	free(ln);
	free(tree);
	free(proj);
	free(resp);
	mailbox_close(&a);
}

/* What libCRS refuses to send: nothing is asked, no request is left. */
static void test_libcrs_refused(void **st)
{
	struct fixture *f = *st;
	char *resp = xasprintf("%s/resp", f->root), *reqs, *p;
	char *tree = xasprintf("%s/crs-source", f->root);
	static const struct {
		const char *link, *target, *why;
	} links[] = {
		{ "etc", "/etc", "a symlink to '/etc', outside the tree" },
		{ "a/up", "../../x", "a symlink to '../../x', outside" },
		/* inside by its text, outside through a/b/top */
		{ "a/b/out", "top/..", "a symlink to 'top/..', outside" },
	};
	char deep[CRS_TREE_DEPTH_MAX * 2 + 8] = "";
	struct answer a;
	int code = -1;

	mailbox_open(&a, f);
	reqs = xasprintf("%s/requests", a.mbox);
	puts_(tree, "a/b/c.c", "x\n");
	p = xasprintf("%s/a/b/top", tree);
	assert_int_equal(symlink("../..", p), 0);	/* the top: inside */
	free(p);
	for (size_t i = 0; i < 3; i++) {
		p = xasprintf("%s/%s", tree, links[i].link);
		assert_int_equal(symlink(links[i].target, p), 0);
		assert_int_equal(crs_build_project(a.mbox, NULL, tree, NULL,
						   NULL, 1, resp, &code),
				 CRS_EINPUT);
		if (!strstr(crs_error_last(), links[i].why))
			fail_msg("'%s' does not say '%s'", crs_error_last(),
				 links[i].why);
		crs_error_clear();
		assert_int_equal(code, 1);
		assert_int_equal(count_entries(reqs, NULL), 0);
		assert_int_equal(unlink(p), 0);
		free(p);
	}
	p = xasprintf("%s/fifo", tree);
	assert_int_equal(mkfifo(p, 0644), 0);
	assert_int_equal(crs_build_project(a.mbox, tree, NULL, NULL, NULL, 1,
					   resp, &code), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "not a regular file"));
	crs_error_clear();
	assert_int_equal(unlink(p), 0);
	free(p);
	for (int i = 0; i <= CRS_TREE_DEPTH_MAX; i++)
		strcat(deep, "d/");
	strcat(deep, "f");
	puts_(tree, deep, "x\n");
	assert_int_equal(crs_build_project(a.mbox, tree, NULL, NULL, NULL, 1,
					   resp, &code), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "deeper than 64"));
	crs_error_clear();
	assert_int_equal(count_entries(reqs, NULL), 0);
	assert_int_equal(crs_build_project(a.mbox, NULL, NULL, NULL, NULL, 1,
					   resp, &code), CRS_EINPUT);
	crs_error_clear();
	/* the caps are the same on both sides */
	assert_int_equal(CRS_TREE_FILES_MAX, SIDECAR_TREE_FILES_MAX);
	assert_true(CRS_TREE_BYTES_MAX == SIDECAR_TREE_BYTES_MAX);
	assert_int_equal(CRS_TREE_DEPTH_MAX, SIDECAR_TREE_DEPTH_MAX);
	free(reqs);
	free(tree);
	free(resp);
	mailbox_close(&a);
}

/* requests/<id>/ of kind build-project: one tree at least, folders. */
static void test_request_trees(void **st)
{
	struct fixture *f = *st;
	struct sidecar_request rq;
	char *d = xasprintf("%s/r", f->reqdir), *p;

	puts_(d, "request.txt", "kind=build-project\nrebuild_id=\n");
	assert_int_equal(sidecar_request_read(f->reqfd, "r", &rq),
			 CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "without target-source/"));
	crs_error_clear();
	sidecar_request_release(&rq);
	p = xasprintf("%s/fuzz-proj", d);
	assert_int_equal(symlink("/etc", p), 0);
	assert_int_equal(sidecar_request_read(f->reqfd, "r", &rq),
			 CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "fuzz-proj: not a folder"));
	crs_error_clear();
	sidecar_request_release(&rq);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(sidecar_request_read(f->reqfd, "r", &rq), 0);
	assert_int_equal(rq.kind, SIDECAR_PROJECT);
	assert_int_equal(rq.payload.len, 0);
	sidecar_request_release(&rq);
	free(p);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_diff_changes),
		T(test_diff_unchanged),
		T(test_diff_binary_patched),
		T(test_diff_applies),
		T(test_refused_symlinks),
		T(test_refused_entries),
		T(test_special_entries_never_opened),
		T(test_caps),
		T(test_libcrs_round_trip),
		T(test_libcrs_refused),
		T(test_request_trees),
#undef T
	};

	git_libgit2_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
