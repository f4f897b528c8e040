/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_corpus_read.c - corpus sources read as hostile input
 * (runner/corpus/: corpus_read.c, corpus_sink.c, corpus_source.c) and
 * their record (sarif/run_corpus.c)
 *
 * Archives made here with libarchive: names with "..", links, hard links,
 * devices and an input over the size cap never become files; inputs are
 * renamed by content (a duplicate is kept once); an archive past its
 * entry or unpacked-bytes cap is refused whole, what it added taken out;
 * a folder's links, FIFOs and subfolders are passed over unopened.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "runner/corpus/corpus_read.h"
#include "runner/corpus/corpus_sink.h"
#include "runner/corpus/corpus_source.h"
#include "sarif/run_corpus.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static char dir[] = "/tmp/test_corpus_read.XXXXXX";

struct entry {
	const char *name;
	unsigned type;		/* AE_IFREG, AE_IFLNK, AE_IFCHR; 0: hard link */
	const char *data;	/* or the link's target */
	size_t len;		/* 0: strlen(data) */
};

/* Write an archive (zip, or tar.gz when `tar`) of `e` to `path`. */
static void make_archive(const char *path, int tar, const struct entry *e,
			 size_t n)
{
	struct archive *a = archive_write_new();

	if (tar) {
		archive_write_set_format_pax_restricted(a);
		archive_write_add_filter_gzip(a);
	} else {
		archive_write_set_format_zip(a);
	}
	assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
	for (size_t i = 0; i < n; i++) {
		struct archive_entry *ae = archive_entry_new();
		size_t len = e[i].len ? e[i].len : strlen(e[i].data);

		archive_entry_set_pathname(ae, e[i].name);
		archive_entry_set_perm(ae, 0644);
		if (e[i].type == AE_IFLNK) {
			archive_entry_set_filetype(ae, AE_IFLNK);
			archive_entry_set_symlink(ae, e[i].data);
			len = 0;
		} else if (e[i].type == 0) {
			archive_entry_set_filetype(ae, AE_IFREG);
			archive_entry_set_hardlink(ae, e[i].data);
			len = 0;
		} else if (e[i].type == AE_IFCHR) {
			archive_entry_set_filetype(ae, AE_IFCHR);
			archive_entry_set_rdev(ae, makedev(1, 3));
			len = 0;
		} else {
			archive_entry_set_filetype(ae, AE_IFREG);
		}
		archive_entry_set_size(ae, (la_int64_t)len);
		/* zip holds no device or hard link: such entries are left
		 * out of it */
		if (archive_write_header(a, ae) != ARCHIVE_OK) {
			assert_true(!tar && e[i].type != AE_IFREG);
			archive_entry_free(ae);
			continue;
		}
		if (len)
			assert_int_equal(archive_write_data(a, e[i].data, len),
					 (la_ssize_t)len);
		archive_entry_free(ae);
	}
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
}

static char *at(const char *rel)
{
	static char bufs[4][512];
	static int n;
	char *p = bufs[n++ % 4];

	snprintf(p, 512, "%s/%s", dir, rel);
	return p;
}

/* Files in folder `rel` (no dot names). */
static int count(const char *rel)
{
	DIR *d = opendir(at(rel));
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* A fresh sink folder `rel`: its descriptor. */
static int fresh(const char *rel)
{
	int fd;

	assert_int_equal(fs_remove_tree(at(rel)), 0);
	assert_int_equal(fs_mkdir_p(at(rel)), 0);
	assert_int_equal(fs_open_dir(&fd, at(rel)), 0);
	return fd;
}

static int read_archive(const char *path, const char *harness,
			struct corpus_sink *k, struct corpus_count *c)
{
	int fd = open(path, O_RDONLY), r;

	assert_true(fd >= 0);
	r = corpus_read_archive(fd, path, harness, k, c);
	close(fd);
	return r;
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return fs_remove_tree(dir);
}

static void test_hostile_entries(void **state)
{
	static char big[(1 << 20) + 10];
	const struct entry e[] = {
		{ "corpus/fuzz_a/one", AE_IFREG, "first input", 0 },
		{ "fuzz_a/two", AE_IFREG, "second input", 0 },
		{ "fuzz_a/again", AE_IFREG, "first input", 0 },
		{ "fuzz_a/../../../escape", AE_IFREG, "dot dot", 0 },
		{ "/fuzz_a/abs", AE_IFREG, "absolute", 0 },
		{ "fuzz_a/link", AE_IFLNK, "/etc/passwd", 0 },
		{ "fuzz_a/hard", 0, "fuzz_a/two", 0 },
		{ "fuzz_a/null", AE_IFCHR, "", 0 },
		{ "fuzz_a/big", AE_IFREG, big, sizeof(big) },
		{ "fuzz_b/other", AE_IFREG, "another harness", 0 },
		{ "fuzz_aa/near", AE_IFREG, "a longer name", 0 },
	};
	size_t total = 0;

	(void)state;
	memset(big, 'x', sizeof(big));
	for (int tar = 0; tar < 2; tar++) {
		struct corpus_count c = { 0 };
		struct corpus_sink k;
		char *path = at(tar ? "h.tar.gz" : "h.zip");
		int fd = fresh("out");

		total = 0;
		make_archive(path, tar, e, sizeof(e) / sizeof(e[0]));
		assert_int_equal(corpus_sink_open(&k, fd, &total, 1 << 30), 0);
		assert_int_equal(read_archive(path, "fuzz_a", &k, &c), 0);
		/* one, two, again (a duplicate), abs; the ".." name is not
		 * in a folder named fuzz_a; big read and passed over; zip
		 * has no hard links: libarchive wrote "hard" as an empty
		 * regular file, an input like any other */
		assert_int_equal(c.kept, tar ? 3 : 4);
		assert_int_equal(c.duplicate, 1);
		assert_int_equal(c.too_big, 1);
		/* the link, the hard link (zip has none) and the device */
		assert_true(c.not_regular >= 1);
		assert_int_equal(count("out"), tar ? 3 : 4);
		assert_int_equal(total, strlen("first input") +
				 strlen("second input") + strlen("absolute"));
		/* renamed by content: libFuzzer's SHA-1 names */
		assert_true(fs_exists(at("out/57e966cfb68404c2d8f7e2dd0d7585b09f57e633")));
		assert_false(fs_exists(at("escape")));
		assert_false(fs_exists("/escape"));
		close(fd);
	}
}

static void test_whole_archive(void **state)
{
	const struct entry e[] = {
		{ "a", AE_IFREG, "1", 0 }, { "b", AE_IFREG, "2", 0 },
	};
	struct corpus_count c = { 0 };
	struct corpus_sink k;
	size_t total = 0;
	int fd = fresh("all");

	(void)state;
	make_archive(at("flat.zip"), 0, e, 2);
	assert_int_equal(corpus_sink_open(&k, fd, &total, 1 << 30), 0);
	/* no harness: every regular file is an input (OSS-Fuzz's
	 * public.zip is flat) */
	assert_int_equal(read_archive(at("flat.zip"), NULL, &k, &c), 0);
	assert_int_equal(c.kept, 2);
	assert_int_equal(k.inputs, 2);
	close(fd);
}

static void test_refused_whole(void **state)
{
	const struct entry e[] = {
		{ "h/a", AE_IFREG, "aaaa", 0 }, { "h/b", AE_IFREG, "bbbb", 0 },
		{ "h/c", AE_IFREG, "cccc", 0 }, { "h/d", AE_IFREG, "dddd", 0 },
	};
	struct corpus_count c = { 0 };
	struct corpus_sink k;
	size_t total = 0;
	int fd = fresh("capped");
	int kept_fd;

	(void)state;
	make_archive(at("four.tar.gz"), 1, e, 4);
	/* an input from an earlier source stays */
	assert_int_equal(corpus_sink_open(&k, fd, &total, 1 << 30), 0);
	kept_fd = openat(fd, "earlier", O_WRONLY | O_CREAT, 0644);
	assert_true(kept_fd >= 0);
	close(kept_fd);
	assert_int_equal(corpus_sink_open(&k, fd, &total, 1 << 30), 0);
	assert_int_equal(k.inputs, 1);

	corpus_read_caps(3, 1 << 20);	/* more entries than 3 */
	assert_int_equal(read_archive(at("four.tar.gz"), "h", &k, &c),
			 CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "more than 3 entries"));
	crs_error_clear();
	assert_int_equal(c.kept, 0);
	assert_int_equal(count("capped"), 1);
	assert_int_equal(k.inputs, 1);
	assert_int_equal(total, 0);

	corpus_read_caps(100, 10);	/* unpacks to more than 10 bytes */
	assert_int_equal(read_archive(at("four.tar.gz"), "h", &k, &c),
			 CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "more than 10 bytes"));
	crs_error_clear();
	assert_int_equal(count("capped"), 1);
	assert_int_equal(total, 0);

	corpus_read_caps(CORPUS_ARCHIVE_ENTRIES_MAX,
			 CORPUS_ARCHIVE_UNPACKED_MAX);
	assert_int_equal(read_archive(at("four.tar.gz"), "h", &k, &c), 0);
	assert_int_equal(c.kept, 4);
	close(fd);
}

static void test_bytes_cap(void **state)
{
	const struct entry e[] = {
		{ "h/a", AE_IFREG, "aaaa", 0 }, { "h/b", AE_IFREG, "bbbb", 0 },
	};
	struct corpus_count c = { 0 };
	struct corpus_sink k;
	size_t total = 0;
	int fd = fresh("bytes");

	(void)state;
	make_archive(at("two.zip"), 0, e, 2);
	/* the scan's bytes in all: the second input is over it */
	assert_int_equal(corpus_sink_open(&k, fd, &total, 6), 0);
	assert_int_equal(read_archive(at("two.zip"), "h", &k, &c), 0);
	assert_int_equal(c.kept, 1);
	assert_int_equal(c.over_cap, 1);
	close(fd);
}

static void test_not_an_archive(void **state)
{
	struct corpus_count c = { 0 };
	struct corpus_sink k;
	int fd = fresh("junk-out");
	FILE *f = fopen(at("junk.zip"), "w");

	(void)state;
	assert_non_null(f);
	fputs("this is no archive at all, only text\n", f);
	fclose(f);
	assert_int_equal(corpus_sink_open(&k, fd, NULL, 0), 0);
	assert_int_equal(read_archive(at("junk.zip"), NULL, &k, &c),
			 CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "junk.zip"));
	crs_error_clear();
	assert_int_equal(count("junk-out"), 0);
	close(fd);
}

static void test_folder(void **state)
{
	struct corpus_count c = { 0 };
	struct corpus_sink k;
	int src, fd = fresh("folder-out");
	FILE *f;

	(void)state;
	assert_int_equal(fs_mkdir_p(at("src/sub")), 0);
	f = fopen(at("src/input"), "w");
	assert_non_null(f);
	fputs("an input", f);
	fclose(f);
	assert_int_equal(symlink("/etc/passwd", at("src/link")), 0);
	assert_int_equal(mkfifo(at("src/fifo"), 0644), 0);
	assert_int_equal(fs_open_dir(&src, at("src")), 0);
	assert_int_equal(corpus_sink_open(&k, fd, NULL, 0), 0);
	/* the FIFO is never opened: the read would block */
	assert_int_equal(corpus_read_folder(src, at("src"), &k, &c), 0);
	assert_int_equal(c.kept, 1);
	assert_int_equal(c.not_regular, 2);
	assert_int_equal(count("folder-out"), 1);
	close(src);
	close(fd);
}

static void test_source_spec(void **state)
{
	char *s;

	(void)state;
	s = corpus_source_expand("http://h/{harness}/x-{harness}.zip", "fz");
	assert_string_equal(s, "http://h/fz/x-fz.zip");
	free(s);
	s = corpus_source_oss_fuzz("https://storage.googleapis.com/", "expat");
	assert_string_equal(s, "https://storage.googleapis.com/expat-backup."
			    "clusterfuzz-external.appspot.com/corpus/"
			    "libFuzzer/expat_{harness}/public.zip");
	assert_true(corpus_source_per_harness(s));
	free(s);
	assert_true(corpus_source_oss_fuzz_name_ok("libjpeg-turbo"));
	assert_false(corpus_source_oss_fuzz_name_ok("../x"));
	assert_false(corpus_source_oss_fuzz_name_ok("-x"));
	assert_false(corpus_source_oss_fuzz_name_ok(""));
	assert_true(corpus_source_branch_ok("crs-ci-corpus"));
	assert_true(corpus_source_branch_ok("stores/corpus_1.x"));
	assert_false(corpus_source_branch_ok("-x"));
	assert_false(corpus_source_branch_ok("a..b"));
	assert_false(corpus_source_branch_ok("a//b"));
	assert_false(corpus_source_branch_ok("a/"));
	assert_false(corpus_source_branch_ok("x.lock"));
	assert_false(corpus_source_branch_ok("a b"));
	/* a token in a URL never reaches a log */
	s = corpus_source_shown("https://oauth2:SECRET@git.example/c.zip"
				"?sig=SECRET2");
	assert_string_equal(s, "https://***@git.example/c.zip?...");
	free(s);
	s = corpus_source_shown("/srv/corpus");
	assert_string_equal(s, "/srv/corpus");
	free(s);
}

static void test_record_json(void **state)
{
	struct run_corpus r = { 0 }, *back = NULL;
	struct run_corpus_harness h = { 0 };
	struct run_corpus_source *s;
	struct buf b = BUF_INIT;
	json_t *j;

	(void)state;
	h.harness = "fuzz_a";
	s = run_corpus_add(&h, "http://m/public.zip");
	s->read = 5;
	s->kept = 4;
	s->duplicate = 1;
	s = run_corpus_add(&h, "/gone");
	s->error = strdup("refused");
	r.harnesses = &h;
	r.nr = 1;
	j = run_corpus_to_json(&r);
	assert_int_equal(run_corpus_from_json(&back, j, "t"), 0);
	assert_int_equal(back->nr, 1);
	assert_int_equal(back->harnesses[0].sources_nr, 2);
	assert_int_equal(back->harnesses[0].sources[0].kept, 4);
	assert_string_equal(back->harnesses[0].sources[1].error, "refused");
	run_corpus_line(&b, back);
	assert_string_equal(b.ptr, "corpus: 4 input(s) imported for 1 of 1 "
			    "harness(es), 1 duplicate(s) left out, 1 "
			    "source(s) refused or unreachable (the log says "
			    "why)");
	run_corpus_free(back);
	/* a count that is no count */
	json_object_set_new(json_array_get(json_object_get(json_array_get(
		json_object_get(j, "harnesses"), 0), "sources"), 0), "kept",
		json_string("4"));
	assert_int_equal(run_corpus_from_json(&back, j, "t"), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "sources[].kept"));
	crs_error_clear();
	json_decref(j);
	for (size_t i = 0; i < h.sources_nr; i++) {
		free(h.sources[i].source);
		free(h.sources[i].error);
	}
	free(h.sources);
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile_entries),
		cmocka_unit_test(test_whole_archive),
		cmocka_unit_test(test_refused_whole),
		cmocka_unit_test(test_bytes_cap),
		cmocka_unit_test(test_not_an_archive),
		cmocka_unit_test(test_folder),
		cmocka_unit_test(test_source_spec),
		cmocka_unit_test(test_record_json),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
