/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_submissions.c - the submit-folder walker against a hostile CRS
 *
 * A CRS's SUBMIT_DIR/<harness> is laid out as a hostile CRS leaves it at
 * exit: povs/ swapped for a link to a host folder, links and FIFOs among
 * the files, names with newlines and a leading "::", oversized files and
 * more files than the cap. Only the regular files of the real folder may
 * reach the callback, and nothing may block or be logged raw.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "runner/scan/submissions.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

struct fixture {
	char root[64];
	char *submit;		/* SUBMIT_DIR/<harness> */
	char *host;		/* stands for /etc */
};

struct seen {
	size_t nr;
	char names[2048][64];
};

static struct buf logged = BUF_INIT;

static void capture(enum log_level lvl, const char *file, const char *func,
		    int line, const char *msg, void *ctx)
{
	(void)lvl;
	(void)file;
	(void)func;
	(void)line;
	(void)ctx;
	buf_adds(&logged, msg);
	buf_addch(&logged, '\n');
}

static void on_file(const struct submission *sub, void *ctx)
{
	struct seen *s = ctx;

	assert_true(s->nr < 2048);
	snprintf(s->names[s->nr++], 64, "%s", sub->name);
	assert_int_equal(sub->len, strlen(sub->data));
	assert_true(S_ISREG(sub->st->st_mode));
}

static void put(const char *dir, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *fp = fopen(p, "w");

	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
	free(p);
}

static int setup(void **st)
{
	struct fixture *f = xcalloc(1, sizeof(*f));

	strcpy(f->root, "/tmp/crs-ci-submissions.XXXXXX");
	assert_non_null(mkdtemp(f->root));
	f->submit = xasprintf("%s/SUBMIT_DIR/fuzz_parse", f->root);
	f->host = xasprintf("%s/etc", f->root);
	assert_int_equal(fs_mkdir_p(f->submit), 0);
	assert_int_equal(fs_mkdir_p(f->host), 0);
	put(f->host, "passwd", "root:x:0:0::/root:/bin/sh\n");
	put(f->host, "shadow", "root:secret\n");
	buf_reset(&logged);
	log_set_handler(capture, NULL);
	alarm(20);	/* a FIFO opened for reading would hang */
	*st = f;
	return 0;
}

static int teardown(void **st)
{
	struct fixture *f = *st;

	alarm(0);
	log_set_handler(NULL, NULL);
	assert_int_equal(fs_remove_tree(f->root), 0);
	free(f->submit);
	free(f->host);
	free(f);
	return 0;
}

/* povs/ and patches/ replaced with links to "/etc" at exit. */
static void test_linked_folders_are_refused(void **st)
{
	struct fixture *f = *st;
	struct seen *seen = xcalloc(1, sizeof(*seen));
	char *povs = xasprintf("%s/povs", f->submit);
	char *patches = xasprintf("%s/patches", f->submit);

	assert_int_equal(symlink(f->host, povs), 0);
	assert_int_equal(symlink(f->host, patches), 0);
	submissions_walk_dir(f->submit, "povs", 1 << 20, "PoV", 0,
			     "fuzz_parse", on_file, seen);
	submissions_walk_dir(f->submit, "patches", 1 << 20, "patch", 0,
			     "fuzz_parse", on_file, seen);
	assert_int_equal(seen->nr, 0);
	assert_non_null(strstr(logged.ptr, "not a folder"));
	free(povs);
	free(patches);
	free(seen);
}

/* The SUBMIT_DIR/<harness> folder itself as a link. */
static void test_linked_root_is_refused(void **st)
{
	struct fixture *f = *st;
	struct seen *seen = xcalloc(1, sizeof(*seen));
	char *root = xasprintf("%s/linked", f->root);
	char *povs = xasprintf("%s/povs", f->host);

	assert_int_equal(fs_mkdir_p(povs), 0);
	put(povs, "secret", "x");
	assert_int_equal(symlink(f->host, root), 0);
	submissions_walk_dir(root, "povs", 1 << 20, "PoV", 0, "fuzz_parse",
			     on_file, seen);
	assert_int_equal(seen->nr, 0);
	free(root);
	free(povs);
	free(seen);
}

/* Links, FIFOs, folders, dot files and hostile names among the files. */
static void test_only_regular_files_reach_the_callback(void **st)
{
	struct fixture *f = *st;
	struct seen *seen = xcalloc(1, sizeof(*seen));
	char *povs = xasprintf("%s/povs", f->submit);
	char *p;

	assert_int_equal(fs_mkdir_p(povs), 0);
	put(povs, "crash-1", "AAAA");
	put(povs, ".hidden", "BBBB");
	put(povs, "big", "0123456789abcdef0123456789");
	put(povs, "evil\n::error::injected", "CCCC");
	put(povs, "::warning file=x::y", "DDDD");
	p = xasprintf("%s/passwd", povs);
	assert_int_equal(symlink(f->host, p), 0);
	free(p);
	p = xasprintf("%s/fifo", povs);
	assert_int_equal(mkfifo(p, 0600), 0);
	free(p);
	p = xasprintf("%s/sub", povs);
	assert_int_equal(fs_mkdir_p(p), 0);
	free(p);
	/* a character device where the test may make one */
	p = xasprintf("%s/null", povs);
	if (mknod(p, S_IFCHR | 0600, makedev(1, 3)) != 0)
		assert_int_equal(mkfifo(p, 0600), 0);
	free(p);
	submissions_walk_dir(f->submit, "povs", 16, "PoV", 2, "fuzz_parse",
			     on_file, seen);
	assert_int_equal(seen->nr, 2);
	assert_true((!strcmp(seen->names[0], "crash-1") &&
		     !strcmp(seen->names[1], "::warning file=x::y")) ||
		    (!strcmp(seen->names[1], "crash-1") &&
		     !strcmp(seen->names[0], "::warning file=x::y")));
	/* refused names are logged quoted: no raw newline, no "::" line */
	assert_non_null(strstr(logged.ptr, "control characters"));
	assert_null(strstr(logged.ptr, "\n::"));
	assert_non_null(strstr(logged.ptr, "larger than 16 bytes"));
	free(povs);
	free(seen);
}

/* More files than SUBMISSIONS_FILES_MAX: the rest are ignored. */
static void test_file_cap(void **st)
{
	struct fixture *f = *st;
	struct seen *seen = xcalloc(1, sizeof(*seen));
	char *povs = xasprintf("%s/povs", f->submit);

	assert_int_equal(fs_mkdir_p(povs), 0);
	for (int i = 0; i < SUBMISSIONS_FILES_MAX + 50; i++) {
		char name[32];

		snprintf(name, sizeof(name), "pov-%d", i);
		put(povs, name, "x");
	}
	submissions_walk_dir(f->submit, "povs", 16, "PoV", 0, "fuzz_parse",
			     on_file, seen);
	assert_int_equal(seen->nr, SUBMISSIONS_FILES_MAX);
	assert_non_null(strstr(logged.ptr, "the rest are ignored"));
	free(povs);
	free(seen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_linked_folders_are_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_linked_root_is_refused,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_only_regular_files_reach_the_callback, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_file_cap, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
