/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_exchange.c - the artifact exchange between CRSs (runner/sidecar/exchange.c)
 *
 * Real folders and inotify: files two "CRSs" submit reach the exchange,
 * nested folders are kept, identical content is kept once, and what a
 * hostile CRS could plant (symlinks, dot files, FIFOs, device nodes, a
 * watched folder swapped for a link, names with newlines, floods) is not
 * copied, opened, logged raw or allowed to stall a sync.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "runner/sidecar/exchange.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "log_capture.h"
#include "open_spy.h"
#include "tests/helper/scratch_dir.h"
#include "tree_writer.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define SENTINEL "GITHUB_TOKEN=sentinel-not-for-crs"

struct fixture {
	char root[64];
	char *a, *b, *x;
	struct exchange *ex;
};

static int setup(void **st)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	const char *roots[2], *names[2] = { "crs-a", "crs-b" };

	assert_int_equal(scratch_dir(f->root, sizeof(f->root), "crs-ci-exchange"), 0);
	f->a = xasprintf("%s/a", f->root);
	f->b = xasprintf("%s/b", f->root);
	f->x = xasprintf("%s/x", f->root);
	roots[0] = f->a;
	roots[1] = f->b;
	assert_int_equal(fs_mkdir_p(f->x), 0);
	/* a file submitted before the exchange starts is synced at once */
	assert_int_equal(fs_mkdir_p(f->a), 0);
	assert_int_equal(fs_mkdir_p(f->a), 0);
	{
		char *d = xasprintf("%s/seeds", f->a), *p;

		assert_int_equal(fs_mkdir_p(d), 0);
		p = xasprintf("%s/early", d);
		assert_int_equal(fs_write_file_atomic(p, "early", 5), 0);
		free(p);
		free(d);
	}
	assert_int_equal(exchange_new(&f->ex, f->x, roots, names, 2), 0);
	*st = f;
	return 0;
}

static int teardown(void **st)
{
	struct fixture *f = *st;

	exchange_free(f->ex);
	fs_remove_tree(f->root);
	free(f->a);
	free(f->b);
	free(f->x);
	free(f);
	return 0;
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 +
		(double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/*
 * Poll and sync until `rel` exists in the exchange or 5 s pass (a sync
 * that returns "more to do" is called again at once).
 */
static double wait_for(struct fixture *f, const char *rel)
{
	char *p = xasprintf("%s/%s", f->x, rel);
	struct timespec t0;
	int more = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!fs_exists(p) && ms_since(&t0) < 5000) {
		struct pollfd pfd = { exchange_fd(f->ex), POLLIN, 0 };

		if (poll(&pfd, 1, more ? 0 : 10) > 0 || more)
			more = exchange_sync(f->ex) > 0;
	}
	free(p);
	return ms_since(&t0);
}

static int in_exchange(struct fixture *f, const char *rel)
{
	char *p = xasprintf("%s/%s", f->x, rel);
	int yes = fs_exists(p);

	free(p);
	return yes;
}

static void test_initial_sync(void **st)
{
	struct fixture *f = *st;

	assert_true(in_exchange(f, "seeds/early"));
	assert_int_equal(exchange_copied(f->ex, 1), 1);
}

static void test_seed_reaches_exchange_fast(void **st)
{
	struct fixture *f = *st;
	double ms;

	write_at(f->a, "seeds/s1", "seed one");
	ms = wait_for(f, "seeds/s1");
	assert_true(in_exchange(f, "seeds/s1"));
	assert_true(ms < 1000.0);
	fprintf(stderr, "exchange latency: %.1f ms\n", ms);
	/* the other CRS submits a PoV; it lands under povs */
	write_at(f->b, "povs/p1", "crash");
	wait_for(f, "povs/p1");
	assert_true(in_exchange(f, "povs/p1"));
}

static void test_same_content_kept_once(void **st)
{
	struct fixture *f = *st;

	write_at(f->a, "povs/from-a", "same bytes");
	wait_for(f, "povs/from-a");
	write_at(f->b, "povs/from-b", "same bytes");
	wait_for(f, "povs/from-b");
	assert_true(in_exchange(f, "povs/from-a"));
	assert_false(in_exchange(f, "povs/from-b"));
	assert_int_equal(exchange_copied(f->ex, 0), 1);
}

/* What exchange_on_pov() passed on: each call's CRS and bytes, in
 * order. */
struct pov_calls {
	int n;
	char bytes[4][32];
	char crs[4][16];
};

static void record_pov(void *ctx, const char *crs, const void *data,
		       size_t len)
{
	struct pov_calls *c = ctx;

	if (c->n < 4 && len < sizeof(c->bytes[0]))
		memcpy(c->bytes[c->n], data, len);
	if (c->n < 4)
		snprintf(c->crs[c->n], sizeof(c->crs[0]), "%s", crs);
	c->n++;
}

/* Triage hears of each new PoV the moment it is copied (its bytes, as
 * copied, and its CRS), not of seeds, nor of a PoV whose bytes it had
 * already. */
static void test_pov_hook(void **st)
{
	struct fixture *f = *st;
	struct pov_calls c = { 0 };

	exchange_on_pov(f->ex, record_pov, &c);
	write_at(f->a, "seeds/s2", "a seed");
	wait_for(f, "seeds/s2");
	assert_int_equal(c.n, 0);
	write_at(f->a, "povs/first", "crash one");
	wait_for(f, "povs/first");
	assert_int_equal(c.n, 1);
	assert_string_equal(c.bytes[0], "crash one");
	assert_string_equal(c.crs[0], "crs-a");
	write_at(f->b, "povs/again", "crash one");
	write_at(f->b, "povs/second", "crash two");
	wait_for(f, "povs/second");
	assert_int_equal(c.n, 2);
	assert_string_equal(c.bytes[1], "crash two");
	assert_string_equal(c.crs[1], "crs-b");
}

static void test_nested_folders_kept(void **st)
{
	struct fixture *f = *st;

	write_at(f->a, "bug-candidates/sarif/deep/report.sarif", "{}");
	wait_for(f, "bug-candidates/sarif/deep/report.sarif");
	assert_true(in_exchange(f, "bug-candidates/sarif/deep/report.sarif"));
}

static void test_hostile_entries_not_copied(void **st)
{
	struct fixture *f = *st;
	char *link = xasprintf("%s/povs/link", f->a);
	char *fifo = xasprintf("%s/povs/fifo", f->a);

	assert_int_equal(symlink("/etc/passwd", link), 0);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	write_at(f->a, "povs/.hidden", "dot");
	write_at(f->a, "povs/after", "marker");
	wait_for(f, "povs/after");
	assert_true(in_exchange(f, "povs/after"));
	assert_false(in_exchange(f, "povs/link"));
	assert_false(in_exchange(f, "povs/fifo"));
	assert_false(in_exchange(f, "povs/.hidden"));
	free(link);
	free(fifo);
}

/* 1 when some file below `dir` holds `needle`. */
static int tree_holds(const char *dir, const char *needle)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int found = 0;

	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		char *p;
		struct stat st;
		struct buf b = BUF_INIT;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			found = tree_holds(p, needle);
		else if (S_ISREG(st.st_mode) &&
			 fs_read_file(&b, p, 1u << 20) == 0 && b.len &&
			 memmem(b.ptr, b.len, needle, strlen(needle)))
			found = 1;
		buf_release(&b);
		free(p);
	}
	closedir(d);
	return found;
}

/* Write n files into dir quickly (no temp names). */
static void flood(const char *dir, int n, const char *prefix, int same)
{
	assert_int_equal(fs_mkdir_p(dir), 0);
	for (int i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s%06d", dir, prefix, i);
		int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		char content[32];
		int len = same ? snprintf(content, sizeof(content), "same") :
			snprintf(content, sizeof(content), "%s %d", prefix, i);

		assert_true(fd >= 0);
		assert_int_equal(write(fd, content, (size_t)len), len);
		close(fd);
		free(p);
	}
}

/* A folder that stands in for /proc/self: its "environ" is a secret. */
static char *fake_proc(struct fixture *f)
{
	char *dir = xasprintf("%s/proc-self", f->root);

	write_at(dir, "environ", SENTINEL);
	return dir;
}

/*
 * A CRS renames its watched seeds folder and puts a link to /proc/self
 * at the old name, then writes "environ" into the renamed folder: the
 * event names "environ" in the watched folder, and the exchange must not
 * read it through the link.
 */
static void test_swapped_folder_not_followed(void **st)
{
	struct fixture *f = *st;
	char *proc = fake_proc(f);
	char *seeds = xasprintf("%s/seeds", f->a);
	char *old = xasprintf("%s/seeds.old", f->a);

	write_at(f->a, "seeds/before", "before the swap");
	wait_for(f, "seeds/before");
	assert_int_equal(rename(seeds, old), 0);
	assert_int_equal(symlink(proc, seeds), 0);
	write_at(f->a, "seeds.old/environ", "decoy");
	write_at(f->b, "seeds/marker", "marker");
	wait_for(f, "seeds/marker");
	assert_true(in_exchange(f, "seeds/marker"));
	assert_false(tree_holds(f->x, SENTINEL));
	/* a new seeds folder at the old name is watched again */
	assert_int_equal(unlink(seeds), 0);
	write_at(f->a, "seeds/again", "after the swap");
	wait_for(f, "seeds/again");
	assert_true(in_exchange(f, "seeds/again"));
	assert_false(tree_holds(f->x, SENTINEL));
	free(proc);
	free(seeds);
	free(old);
}

/*
 * More events than the inotify queue holds: the overflow rescan must
 * walk the folder it holds, not the link now at its name.
 */
static void test_overflow_rescan_not_followed(void **st)
{
	struct fixture *f = *st;
	char *proc = fake_proc(f);
	char *seeds = xasprintf("%s/seeds", f->a);
	char *old = xasprintf("%s/seeds.old", f->a);

	/* more events than fs.inotify.max_queued_events (16384) */
	flood(seeds, 20000, "s", 0);
	assert_int_equal(rename(seeds, old), 0);
	assert_int_equal(symlink(proc, seeds), 0);
	write_at(f->b, "seeds/marker", "marker");
	wait_for(f, "seeds/marker");
	for (int i = 0; i < 400 && exchange_sync(f->ex) > 0; i++)
		;
	assert_false(tree_holds(f->x, SENTINEL));
	free(proc);
	free(seeds);
	free(old);
}

/*
 * FIFOs and device nodes moved into a watched folder are skipped without
 * being opened: opening a FIFO can block, opening a device acts on it.
 */
static void test_fifo_and_device_never_opened(void **st)
{
	struct fixture *f = *st;
	char *tmp = xasprintf("%s/staging", f->root);
	char *fifo = xasprintf("%s/fifo", tmp), *dev = xasprintf("%s/dev", tmp);
	char *fifo_in = xasprintf("%s/povs/fifo", f->a);
	char *dev_in = xasprintf("%s/povs/dev", f->a);
	int have_dev;

	assert_int_equal(fs_mkdir_p(tmp), 0);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	/* /dev/null's numbers; creatable only with CAP_MKNOD */
	have_dev = mknod(dev, S_IFCHR | 0600, makedev(1, 3)) == 0;
	open_spy_reset();
	open_spy_watch("fifo");
	open_spy_watch("dev");
	assert_int_equal(rename(fifo, fifo_in), 0);
	if (have_dev)
		assert_int_equal(rename(dev, dev_in), 0);
	else
		fprintf(stderr, "no CAP_MKNOD: device node part skipped\n");
	write_at(f->a, "povs/after", "marker");
	wait_for(f, "povs/after");
	assert_true(in_exchange(f, "povs/after"));
	assert_int_equal(open_spy_hits, 0);
	assert_false(in_exchange(f, "povs/fifo"));
	assert_false(in_exchange(f, "povs/dev"));
	open_spy_reset();
	free(tmp);
	free(fifo);
	free(dev);
	free(fifo_in);
	free(dev_in);
}

/* A refused file's name reaches the log escaped: no newline, no "::". */
static void test_hostile_name_escaped_in_log(void **st)
{
	struct fixture *f = *st;
	struct logged l = { BUF_INIT, 0 };
	char *p = xasprintf("%s/povs/evil\n::error::owned", f->a);
	int fd;

	log_set_handler(capture, &l);
	/* sparse: larger than a file may be, at no disk cost */
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)65 << 20), 0);
	assert_int_equal(close(fd), 0);
	write_at(f->a, "povs/after", "marker");
	wait_for(f, "povs/after");
	log_set_handler(NULL, NULL);
	assert_true(l.warnings >= 1);
	assert_non_null(strstr(l.text.ptr, "evil\\x0a"));
	assert_null(strchr(l.text.ptr, '\n'));
	assert_null(strstr(l.text.ptr, "\x01::"));
	assert_false(l.text.ptr[0] == ':');
	assert_false(in_exchange(f, "povs/evil\n::error::owned"));
	buf_release(&l.text);
	free(p);
}

/*
 * One call does a bounded amount of work and says that more is left, so
 * the run loop checks its deadline and Ctrl-C between calls; the calls
 * together still copy every distinct content once.
 */
static void test_sync_is_budgeted(void **st)
{
	struct fixture *f = *st;
	char *dir = xasprintf("%s/seeds", f->a);
	unsigned before = exchange_copied(f->ex, 1);
	int calls = 1;

	flood(dir, 5000, "d", 0);
	flood(dir, 3000, "s", 1);
	assert_int_equal(exchange_sync(f->ex), 1);
	assert_true(exchange_copied(f->ex, 1) - before <=
		    EXCHANGE_TICK_FILES);
	while (exchange_sync(f->ex) > 0 && calls < 1000)
		calls++;
	assert_true(calls > 1);
	assert_int_equal(exchange_copied(f->ex, 1) - before, 5000 + 1);
	free(dir);
}

/*
 * Past its cap a CRS's files are ignored with one warning; the other
 * CRS's files still arrive.
 */
static void test_crs_cap(void **st)
{
	struct fixture *f = *st;
	struct logged l = { BUF_INIT, 0 };
	char *dir = xasprintf("%s/seeds", f->a);
	int calls = 0;

	exchange_set_caps(f->ex, 50, 1u << 20);
	log_set_handler(capture, &l);
	flood(dir, 300, "c", 0);
	while (exchange_sync(f->ex) > 0 && calls++ < 1000)
		;
	write_at(f->b, "seeds/other", "the other CRS");
	wait_for(f, "seeds/other");
	log_set_handler(NULL, NULL);
	assert_true(in_exchange(f, "seeds/other"));
	/* crs-a's "early" (read before the cap was set) and 49 more, and
	 * crs-b's file */
	assert_int_equal(exchange_copied(f->ex, 1), 50 + 1);
	assert_int_equal(l.warnings, 1);
	assert_non_null(strstr(l.text.ptr, "crs-a"));
	buf_release(&l.text);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_initial_sync, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_seed_reaches_exchange_fast,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_content_kept_once,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_pov_hook, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nested_folders_kept, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_hostile_entries_not_copied,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_swapped_folder_not_followed,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_overflow_rescan_not_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_fifo_and_device_never_opened, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_hostile_name_escaped_in_log, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_is_budgeted, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_crs_cap, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
