/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_changeset.c - what building a ChangeSet costs on a large change
 *
 * Makes a throw-away git repository (20 C files of 2,000 lines, 100
 * functions each), changes three lines in ten over two commits (about
 * 10,000 changed lines), then times, as the median
 * of several runs: diff_changeset_from_git (three-dot, renames), parsing
 * the same change as `git diff` text and as a two-mail format-patch mbox
 * (composed), the touched-function pass over head blobs, and the
 * function-span scanner alone.
 *
 * Build and run (from the top of the tree):
 *   cc -std=c11 -D_GNU_SOURCE -O2 -I. -o build/bench_changeset \
 *     tests/bench/bench_changeset.c $(ls diff/[a-z]*.c common/[a-z]*.c) \
 *     $(pkg-config --cflags --libs libgit2 jansson libcrypto)
 *   build/bench_changeset [runs (7)]
 */
#include "diff/changeset.h"
#include "diff/func_spans.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FILES 20
#define FUNCS 100
#define FUNC_LINES 20		/* lines per generated function */

static char dir[] = "/tmp/crs-bench-changeset-XXXXXX";

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void run(const char *cmd)
{
	char *full = xasprintf("cd %s && %s", dir, cmd);

	if (system(full) != 0) {
		fprintf(stderr, "bench: failed: %s\n", full);
		exit(3);
	}
	free(full);
}

/* One C file; `gen` varies the bodies so commits change lines. */
static void write_source(int file, int gen)
{
	struct buf b = BUF_INIT;
	char *path = xasprintf("%s/src/f%02d.c", dir, file);

	for (int f = 0; f < FUNCS; f++) {
		buf_printf(&b, "static int fn_%d_%d(int x)\n{\n", file, f);
		for (int l = 0; l < FUNC_LINES - 3; l++) {
			int n = f * FUNC_LINES + l;
			/* gen 1 changes every 10th line, gen 2 two more in
			 * ten and the first ones again */
			int v = (gen >= 1 && n % 10 == 0) ||
				(gen >= 2 && (n % 10 == 3 || n % 10 == 5));

			buf_printf(&b, "\tx = x * %d + %d; /* %d */\n",
				   n, v ? gen * 7 : 0, n);
		}
		buf_adds(&b, "}\n");
	}
	if (fs_write_file_atomic(path, b.ptr, b.len) != 0) {
		fprintf(stderr, "bench: %s\n", crs_error_last());
		exit(3);
	}
	buf_release(&b);
	free(path);
}

static void commit_all(int gen)
{
	char *cmd;

	for (int f = 0; f < FILES; f++)
		write_source(f, gen);
	cmd = xasprintf("git add -A && git commit -q -m gen%d", gen);
	run(cmd);
	free(cmd);
}

static char *read_out(const char *rel, size_t *len)
{
	struct buf b = BUF_INIT;
	char *path = xasprintf("%s/%s", dir, rel);

	if (fs_read_file(&b, path, 1u << 30) != 0) {
		fprintf(stderr, "bench: %s\n", crs_error_last());
		exit(3);
	}
	free(path);
	return buf_detach(&b, len);
}

static void must(int r)
{
	if (r != 0) {
		fprintf(stderr, "bench: %s\n", crs_error_last());
		exit(3);
	}
}

static size_t changed_lines(const struct diff_changeset *cs)
{
	size_t n = 0;

	for (size_t i = 0; i < cs->nr; i++)
		n += cs->files[i].lines_nr;
	return n;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 7;
	double t_git[64], t_patch[64], t_mbox[64], t_touch[64], t_scan[64];
	struct diff_changeset *cs = NULL;
	struct diff_touched *touched = NULL;
	char *diff_text, *mbox_text, *src;
	size_t diff_len, mbox_len, src_len, lines = 0, nfuncs = 0, total;
	double t0;

	if (runs < 1 || runs > 64)
		runs = 7;
	if (!mkdtemp(dir))
		return 3;
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_AUTHOR_NAME", "bench", 1);
	setenv("GIT_AUTHOR_EMAIL", "bench@example.com", 1);
	setenv("GIT_COMMITTER_NAME", "bench", 1);
	setenv("GIT_COMMITTER_EMAIL", "bench@example.com", 1);
	git_libgit2_init();
	run("git init -q -b main . && mkdir -p src");
	commit_all(0);
	run("git tag base");
	commit_all(1);
	commit_all(2);
	run("git diff base HEAD > change.diff && "
	    "git format-patch -q --stdout base..HEAD > change.mbox");
	diff_text = read_out("change.diff", &diff_len);
	mbox_text = read_out("change.mbox", &mbox_len);
	src = read_out("src/f00.c", &src_len);
	for (size_t i = 0; i < diff_len; i++)
		lines += diff_text[i] == '\n';

	for (int i = 0; i < runs; i++) {
		t0 = now();
		must(diff_changeset_from_git(&cs, dir, "base", "HEAD"));
		t_git[i] = now() - t0;
		t0 = now();
		must(diff_changeset_touched_functions(&touched, cs, dir, NULL,
						      NULL));
		t_touch[i] = now() - t0;
		nfuncs = touched->nr;
		diff_touched_free(touched);
		if (i + 1 < runs)
			diff_changeset_free(cs);
	}
	printf("change: %d files, %zu changed head lines, diff %zu lines "
	       "(%zu KiB), %zu touched functions\n", FILES, changed_lines(cs),
	       lines, diff_len >> 10, nfuncs);
	total = changed_lines(cs);
	diff_changeset_free(cs);
	for (int i = 0; i < runs; i++) {
		t0 = now();
		must(diff_changeset_from_patch(&cs, diff_text, diff_len,
					       "change.diff"));
		t_patch[i] = now() - t0;
		if (changed_lines(cs) != total) {
			fprintf(stderr, "bench: the diff text gives %zu "
				"changed lines, the commits %zu\n",
				changed_lines(cs), total);
			return 3;
		}
		diff_changeset_free(cs);
		t0 = now();
		must(diff_changeset_from_patch(&cs, mbox_text, mbox_len,
					       "change.mbox"));
		t_mbox[i] = now() - t0;
		if (changed_lines(cs) != total) {
			fprintf(stderr, "bench: the mbox gives %zu changed "
				"lines, the commits %zu\n", changed_lines(cs),
				total);
			return 3;
		}
		diff_changeset_free(cs);
		t0 = now();
		for (int k = 0; k < FILES; k++)
			diff_func_spans_free(diff_func_spans_scan(
				src, src_len, DIFF_LANG_C));
		t_scan[i] = now() - t0;
	}
	qsort(t_git, (size_t)runs, sizeof(double), cmp_double);
	qsort(t_patch, (size_t)runs, sizeof(double), cmp_double);
	qsort(t_mbox, (size_t)runs, sizeof(double), cmp_double);
	qsort(t_touch, (size_t)runs, sizeof(double), cmp_double);
	qsort(t_scan, (size_t)runs, sizeof(double), cmp_double);
	printf("median of %d runs:\n", runs);
	printf("  from_git (merge-base, diff, renames)  %8.1f ms\n",
	       t_git[runs / 2] * 1e3);
	printf("  from_patch (git diff text)            %8.1f ms\n",
	       t_patch[runs / 2] * 1e3);
	printf("  from_patch (2-mail mbox, composed)    %8.1f ms\n",
	       t_mbox[runs / 2] * 1e3);
	printf("  touched functions (head blobs)        %8.1f ms\n",
	       t_touch[runs / 2] * 1e3);
	printf("  function spans, %d x %zu KiB C        %8.1f ms "
	       "(%.0f MiB/s)\n", FILES, src_len >> 10, t_scan[runs / 2] * 1e3,
	       (double)(src_len * FILES) / t_scan[runs / 2] / 1048576.0);
	free(diff_text);
	free(mbox_text);
	free(src);
	fs_remove_tree(dir);
	git_libgit2_shutdown();
	return 0;
}
