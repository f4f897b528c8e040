/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_sidecar.c - the mailbox files of the builder sidecar
 *
 * libCRS's side (crs_sidecar_call) and the orchestrator's side
 * (sidecar_request_read, sidecar_response_write) on real folders: a round
 * trip through a thread that plays the orchestrator, the timeout answer,
 * and requests a hostile CRS could plant (symlinks, oversized files,
 * "..", garbage, FIFOs), which must be refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "runner/sidecar/sidecar.h"
#include "runner/sidecar/sidecar_wire.h"
#include "runner/cli/cmd.h"
#include "runner/scan/scan.h"
#include "runner/config/config.h"
#include "libcrs/libcrs.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "log_capture.h"
#include "open_spy.h"
#include "tests/helper/scratch_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

struct fixture {
	char root[64];
	char *mbox, *reqs, *resps;
	int reqfd, resfd;
};

static int setup(void **st)
{
	struct fixture *f = xcalloc(1, sizeof(*f));

	assert_int_equal(scratch_dir(f->root, sizeof(f->root), "crs-ci-sidecar"), 0);
	f->mbox = xasprintf("%s/MAILBOX", f->root);
	f->reqs = xasprintf("%s/requests", f->mbox);
	f->resps = xasprintf("%s/responses", f->mbox);
	assert_int_equal(fs_mkdir_p(f->reqs), 0);
	assert_int_equal(fs_mkdir_p(f->resps), 0);
	f->reqfd = open(f->reqs, O_RDONLY | O_DIRECTORY);
	f->resfd = open(f->resps, O_RDONLY | O_DIRECTORY);
	assert_true(f->reqfd >= 0 && f->resfd >= 0);
	*st = f;
	return 0;
}

static int teardown(void **st)
{
	struct fixture *f = *st;

	close(f->reqfd);
	close(f->resfd);
	fs_remove_tree(f->root);
	free(f->mbox);
	free(f->reqs);
	free(f->resps);
	free(f);
	return 0;
}

static void put(const char *dir, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);

	assert_int_equal(fs_write_file_atomic(p, text, strlen(text)), 0);
	free(p);
}

static char *slurp(const char *dir, const char *name)
{
	struct buf b = BUF_INIT;
	char *p = xasprintf("%s/%s", dir, name);
	int r = fs_read_file(&b, p, 1 << 20);

	free(p);
	if (r != 0) {
		buf_release(&b);
		crs_error_clear();
		return NULL;
	}
	buf_addch(&b, '\0');
	return buf_detach(&b, NULL);
}

/* requests/<id>/ with request.txt and a payload file. */
static char *make_request(struct fixture *f, const char *id,
			  const char *text, const char *pname,
			  const char *payload)
{
	char *d = xasprintf("%s/%s", f->reqs, id);

	assert_int_equal(fs_mkdir_p(d), 0);
	if (text)
		put(d, "request.txt", text);
	if (pname)
		put(d, pname, payload);
	return d;
}

static void expect_refused(struct fixture *f, const char *id,
			   const char *why)
{
	struct sidecar_request rq;

	assert_int_equal(sidecar_request_read(f->reqfd, id, &rq), CRS_EINPUT);
	if (!strstr(crs_error_last(), why))
		fail_msg("'%s' does not say '%s'", crs_error_last(), why);
	sidecar_request_release(&rq);
	crs_error_clear();
}

static void test_request_read(void **st)
{
	struct fixture *f = *st;
	struct sidecar_request rq;
	char *d;

	d = make_request(f, "a-1", "kind=run-pov\nharness=fuzz_x\n"
			 "rebuild_id=3\nbuilder_name=build-2\n", "pov",
			 "\x01\x02");
	assert_int_equal(sidecar_request_read(f->reqfd, "a-1", &rq), 0);
	assert_int_equal(rq.kind, SIDECAR_POV);
	assert_string_equal(rq.harness, "fuzz_x");
	assert_string_equal(rq.builder, "build-2");
	assert_int_equal(rq.rebuild_id, 3);
	assert_int_equal(rq.payload.len, 2);
	sidecar_request_release(&rq);
	free(d);
	/* empty values: no harness, no rebuild id */
	d = make_request(f, "b", "kind=apply-patch-test\nharness=\n"
			 "rebuild_id=\nbuilder_name=\n", "patch", "--- a/x\n");
	assert_int_equal(sidecar_request_read(f->reqfd, "b", &rq), 0);
	assert_int_equal(rq.kind, SIDECAR_TEST);
	assert_string_equal(rq.harness, "");
	assert_string_equal(rq.builder, "");
	assert_int_equal(rq.rebuild_id, -1);
	assert_memory_equal(rq.payload.ptr, "--- a/x\n", 8);
	sidecar_request_release(&rq);
	free(d);
}

static void test_request_garbage(void **st)
{
	struct fixture *f = *st;
	char big[SIDECAR_REQUEST_MAX + 2];

	free(make_request(f, "nokind", "harness=x\n", "patch", "p"));
	expect_refused(f, "nokind", "no kind");
	free(make_request(f, "badkind", "kind=rm -rf\n", "patch", "p"));
	expect_refused(f, "badkind", "unknown kind");
	free(make_request(f, "nokv", "kind\n", "patch", "p"));
	expect_refused(f, "nokv", "not key=value");
	free(make_request(f, "key", "kind=run-pov\nhost=x\n", "pov", "p"));
	expect_refused(f, "key", "unknown key");
	free(make_request(f, "rid", "kind=apply-patch-build\nrebuild_id=-2\n",
			  "patch", "p"));
	expect_refused(f, "rid", "not 1..999999");
	free(make_request(f, "rid2", "kind=apply-patch-build\n"
			  "rebuild_id=1x\n", "patch", "p"));
	expect_refused(f, "rid2", "not 1..999999");
	free(make_request(f, "h", "kind=run-pov\nharness=../../etc/x\n",
			  "pov", "p"));
	expect_refused(f, "h", "not a plain name");
	free(make_request(f, "h2", "kind=run-pov\nharness=..\n", "pov", "p"));
	expect_refused(f, "h2", "not a plain name");
	free(make_request(f, "bn", "kind=apply-patch-build\n"
			  "builder_name=../x\n", "patch", "p"));
	expect_refused(f, "bn", "builder name '../x' is not a plain name");
	free(make_request(f, "noh", "kind=run-pov\n", "pov", "p"));
	expect_refused(f, "noh", "without a harness");
	free(make_request(f, "empty", "kind=apply-patch-build\n", "patch",
			  ""));
	expect_refused(f, "empty", "empty patch");
	free(make_request(f, "nopatch", "kind=apply-patch-build\n", NULL,
			  NULL));
	expect_refused(f, "nopatch", "patch");
	memset(big, 'k', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	free(make_request(f, "bigreq", big, "patch", "p"));
	expect_refused(f, "bigreq", "at most 4096 bytes");
	/* binary request.txt */
	{
		char *d = make_request(f, "bin", NULL, "patch", "p");
		char *p = xasprintf("%s/request.txt", d);

		assert_int_equal(fs_write_file_atomic(p, "kind=run-pov\0x",
						      14), 0);
		expect_refused(f, "bin", "binary");
		free(p);
		free(d);
	}
}

static void test_request_hostile_files(void **st)
{
	struct fixture *f = *st;
	char *d, *p;
	int fd;

	/* request.txt a symlink to a file outside the mailbox */
	put(f->root, "secret", "kind=apply-patch-build\n");
	d = make_request(f, "ln", NULL, "patch", "p");
	p = xasprintf("%s/request.txt", d);
	assert_int_equal(symlink("../../../secret", p), 0);
	expect_refused(f, "ln", "request.txt");
	free(p);
	free(d);
	/* the payload a symlink */
	d = make_request(f, "lnp", "kind=apply-patch-build\n", NULL, NULL);
	p = xasprintf("%s/patch", d);
	assert_int_equal(symlink("/etc/passwd", p), 0);
	expect_refused(f, "lnp", "patch");
	free(p);
	free(d);
	/* the request folder itself a symlink */
	d = make_request(f, "real", "kind=apply-patch-build\n", "patch", "p");
	p = xasprintf("%s/lnd", f->reqs);
	assert_int_equal(symlink(d, p), 0);
	expect_refused(f, "lnd", "not a folder");
	free(p);
	free(d);
	/* a FIFO payload must not block the orchestrator */
	d = make_request(f, "fifo", "kind=apply-patch-build\n", NULL, NULL);
	p = xasprintf("%s/patch", d);
	assert_int_equal(mkfifo(p, 0644), 0);
	expect_refused(f, "fifo", "not a regular file");
	free(p);
	free(d);
	/* an oversized patch (sparse, so cheap) */
	d = make_request(f, "big", "kind=apply-patch-build\n", NULL, NULL);
	p = xasprintf("%s/patch", d);
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, SIDECAR_PATCH_MAX + 1), 0);
	close(fd);
	expect_refused(f, "big", "at most");
	free(p);
	free(d);
	/* names that are not request ids */
	expect_refused(f, "..", "not a request name");
	expect_refused(f, ".hidden", "not a request name");
	expect_refused(f, "a/b", "not a request name");
	expect_refused(f, "", "not a request name");
	assert_false(sidecar_name_ok("x y", SIDECAR_ID_MAX));
	assert_true(sidecar_name_ok("12-34.a_b", SIDECAR_ID_MAX));
}

static void test_response_write(void **st)
{
	struct fixture *f = *st;
	struct sidecar_response ok = { 0, "built\n", "", 4 };
	struct sidecar_response bad = { 2, NULL, "no\n", 7 };
	char *d = xasprintf("%s/r1", f->resps), *t;

	assert_int_equal(sidecar_response_write(f->resfd, "r1", &ok), 0);
	assert_string_equal(t = slurp(d, "retcode"), "0");
	free(t);
	assert_string_equal(t = slurp(d, "rebuild_id"), "4");
	free(t);
	assert_string_equal(t = slurp(d, "stdout.log"), "built\n");
	free(t);
	assert_string_equal(t = slurp(d, "done"), "");
	free(t);
	/* answered once: never overwritten */
	assert_int_equal(sidecar_response_write(f->resfd, "r1", &bad),
			 CRS_ERR);
	crs_error_clear();
	free(d);
	/* no rebuild_id unless the retcode is 0; no stdout.log when NULL */
	d = xasprintf("%s/r2", f->resps);
	assert_int_equal(sidecar_response_write(f->resfd, "r2", &bad), 0);
	assert_string_equal(t = slurp(d, "retcode"), "2");
	free(t);
	assert_null(slurp(d, "rebuild_id"));
	assert_null(slurp(d, "stdout.log"));
	free(d);
	/*
	 * a link a CRS planted at the old, guessable working name is neither
	 * followed nor in the way: the working name is random
	 */
	d = xasprintf("%s/.answer-r3", f->resps);
	assert_int_equal(symlink(f->root, d), 0);
	assert_int_equal(sidecar_response_write(f->resfd, "r3", &ok), 0);
	assert_null(slurp(f->root, "retcode"));
	free(d);
	d = xasprintf("%s/r3", f->resps);
	assert_string_equal(t = slurp(d, "retcode"), "0");
	free(t);
	free(d);
	assert_int_equal(sidecar_response_write(f->resfd, "../x", &ok),
			 CRS_EINPUT);
	crs_error_clear();
}

/* The orchestrator: answer the first request that appears. */
static void *orchestrator(void *arg)
{
	struct fixture *f = arg;
	static char harness[SIDECAR_HARNESS_MAX + 1];

	for (int i = 0; i < 100; i++) {
		DIR *d = opendir(f->reqs);
		struct dirent *de;

		while (d && (de = readdir(d)) != NULL) {
			struct sidecar_request rq;
			struct sidecar_response rs = { 0, "out\n", "err\n", 5 };

			if (de->d_name[0] == '.')
				continue;
			if (sidecar_request_read(f->reqfd, de->d_name,
						 &rq) != 0)
				return NULL;
			strcpy(harness, rq.harness);
			rs.out = rq.rebuild_id == 7 ? "rid 7\n" : "no rid\n";
			if (rq.kind != SIDECAR_POV || rq.payload.len != 3)
				rs.retcode = 9;
			sidecar_response_write(f->resfd, de->d_name, &rs);
			sidecar_request_release(&rq);
			closedir(d);
			return harness;
		}
		if (d)
			closedir(d);
		usleep(20000);
	}
	return NULL;
}

static void test_round_trip(void **st)
{
	struct fixture *f = *st;
	char *resp = xasprintf("%s/resp", f->root), *t;
	pthread_t th;
	void *ret;
	int code = -1;

	put(f->root, "pov.bin", "abc");
	assert_int_equal(pthread_create(&th, NULL, orchestrator, f), 0);
	t = xasprintf("%s/pov.bin", f->root);
	assert_int_equal(crs_sidecar_call(f->mbox, CRS_SIDECAR_POV, t,
					  "fuzz_h", "7", NULL, 10, resp,
					  &code), 0);
	free(t);
	assert_int_equal(pthread_join(th, &ret), 0);
	assert_non_null(ret);
	assert_string_equal(ret, "fuzz_h");
	assert_int_equal(code, 0);
	assert_string_equal(t = slurp(resp, "retcode"), "0");
	free(t);
	assert_string_equal(t = slurp(resp, "stdout.log"), "rid 7\n");
	free(t);
	assert_string_equal(t = slurp(resp, "stderr.log"), "err\n");
	free(t);
	assert_string_equal(t = slurp(resp, "rebuild_id"), "5");
	free(t);
	free(resp);
}

static void test_timeout(void **st)
{
	struct fixture *f = *st;
	char *resp = xasprintf("%s/resp", f->root), *t;
	struct timespec a, b;
	int code = -1;

	put(f->root, "p.diff", "--- a/x\n");
	t = xasprintf("%s/p.diff", f->root);
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_int_equal(crs_sidecar_call(f->mbox, CRS_SIDECAR_BUILD, t, NULL,
					  NULL, NULL, 0.5, resp, &code), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	free(t);
	assert_true(b.tv_sec - a.tv_sec < 3);
	assert_int_equal(code, 1);
	assert_string_equal(t = slurp(resp, "retcode"), "1");
	free(t);
	assert_string_equal(t = slurp(resp, "stderr.log"),
			    "Builder unavailable or timed out");
	free(t);
	assert_null(slurp(resp, "rebuild_id"));
	/* the request was written whole, in libCRS's format */
	{
		DIR *d = opendir(f->reqs);
		struct dirent *de;
		int seen = 0;

		while ((de = readdir(d)) != NULL) {
			char *rd;

			if (de->d_name[0] == '.')
				continue;
			rd = xasprintf("%s/%s", f->reqs, de->d_name);
			assert_string_equal(t = slurp(rd, "request.txt"),
					    "kind=apply-patch-build\n"
					    "harness=\nrebuild_id=\n"
					    "builder_name=\n");
			free(t);
			assert_string_equal(t = slurp(rd, "patch"),
					    "--- a/x\n");
			free(t);
			free(rd);
			seen++;
		}
		closedir(d);
		assert_int_equal(seen, 1);
	}
	/* values that would break the line format are refused */
	assert_int_equal(crs_sidecar_call(f->mbox, CRS_SIDECAR_POV, "/x",
					  "a\nkind=x", NULL, NULL, 1, resp,
					  &code),
			 CRS_EINPUT);
	crs_error_clear();
	free(resp);
}

/*
 * A FIFO or a device node where a request file should be is refused
 * from its type alone: it is never opened (a FIFO could block, a device
 * act).
 */
static void test_special_files_never_opened(void **st)
{
	struct fixture *f = *st;
	char *d = make_request(f, "rf", NULL, NULL, NULL), *p;
	int have_dev;

	p = xasprintf("%s/request.txt", d);
	assert_int_equal(mkfifo(p, 0644), 0);
	open_spy_reset();
	open_spy_watch("request.txt");
	expect_refused(f, "rf", "not a regular file");
	assert_int_equal(open_spy_hits, 0);
	free(p);
	free(d);
	d = make_request(f, "rd", "kind=run-pov\nharness=h\n", NULL, NULL);
	p = xasprintf("%s/pov", d);
	/* /dev/null's numbers; creatable only with CAP_MKNOD */
	have_dev = mknod(p, S_IFCHR | 0600, makedev(1, 3)) == 0;
	if (!have_dev)
		assert_int_equal(mkfifo(p, 0644), 0);
	open_spy_reset();
	open_spy_watch("pov");
	expect_refused(f, "rd", "not a regular file");
	assert_int_equal(open_spy_hits, 0);
	open_spy_reset();
	free(p);
	free(d);
}

static size_t count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * A CRS floods its mailbox with garbage requests and one whose name
 * holds a newline and a workflow command: each poll refuses a bounded
 * number, so the run loop keeps checking its deadline; the polls
 * together answer them all, each once; the log stays short and escaped.
 */
static void test_mailbox_flood(void **st)
{
	struct fixture *f = *st;
	volatile int stop = 0;
	struct runner_ctx ctx = { .interrupted = &stop };
	struct compose_crs crs = { .name = "crs-a" };
	struct compose compose = { .crs = &crs, .crs_nr = 1 };
	struct scan s = { .ctx = &ctx, .compose = &compose };
	struct logged l = { BUF_INIT, 0 };
	struct sidecar *sc = NULL;
	char *reqs, *resps, *bad;
	size_t n = 3000, polls = 1, answered;

	s.work_dir = f->root;
	s.state.run_id = "r1";
	scan_exec_bind(&s);
	assert_int_equal(sidecar_new(&sc, &s), 0);
	reqs = xasprintf("%s/runs/r1/crs/crs-a/MAILBOX/requests", f->root);
	resps = xasprintf("%s/runs/r1/crs/crs-a/MAILBOX/responses", f->root);
	for (size_t i = 0; i < n; i++) {
		char *d = xasprintf("%s/junk-%05zu", reqs, i);

		assert_int_equal(mkdir(d, 0755), 0);
		put(d, "request.txt", "kind=nonsense\n");
		free(d);
	}
	bad = xasprintf("%s/evil\n::warning::owned", reqs);
	assert_int_equal(mkdir(bad, 0755), 0);
	log_set_handler(capture, &l);
	assert_int_equal(sidecar_poll(sc), 0);
	answered = count_entries(resps);
	assert_true(answered > 0 && answered <= SIDECAR_TICK_REFUSALS);
	while (count_entries(resps) < n && polls < 10000) {
		assert_int_equal(sidecar_poll(sc), 0);
		polls++;
	}
	for (int i = 0; i < 10; i++)	/* a few more passes change nothing */
		assert_int_equal(sidecar_poll(sc), 0);
	log_set_handler(NULL, NULL);
	assert_int_equal(count_entries(resps), n);
	assert_true(polls >= n / SIDECAR_TICK_REFUSALS);
	assert_true(l.warnings <= SIDECAR_WARN_MAX + 1);
	assert_null(strchr(l.text.ptr, '\n'));
	assert_null(strstr(l.text.ptr, "\x01::"));
	sidecar_free(sc);
	buf_release(&l.text);
	free(reqs);
	free(resps);
	free(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_request_read, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_request_garbage, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_request_hostile_files,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_response_write, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_round_trip, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_special_files_never_opened,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_mailbox_flood, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
