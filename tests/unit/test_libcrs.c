/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_libcrs.c - the libcrs C API and the static libCRS command line
 *
 * API tests call libcrs.h directly on temporary directories. CLI tests run
 * the built libCRS binary with an environment whose OSS_CRS_* variables
 * point at a fresh temporary tree per test, and check the files, output
 * and exit codes. The binary is found in $LIBCRS_BIN, else beside the test
 * binary's folder ($(BUILD)/tests/../libCRS), else build/libCRS. Daemons
 * become this process's children (PR_SET_CHILD_SUBREAPER) so they can be
 * stopped and reaped; teardown kills any left.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "libcrs/libcrs.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* md5 test vectors (RFC 1321). */
#define MD5_ABC "900150983cd24fb0d6963f7d28e17f72"
#define MD5_EMPTY "d41d8cd98f00b204e9800998ecf8427e"
#define MD5_ABCD "e2fc714c4727ee9395f324cd2e7f331f"

static char bin[PATH_MAX];	/* the libCRS binary */
static char T[PATH_MAX];	/* this test's directory */
static pid_t daemons[16];
static int ndaemons;

/* --- helpers -------------------------------------------------------------- */

static const char *pathf(char *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static const char *pathf(char *out, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, PATH_MAX, fmt, ap);
	va_end(ap);
	assert_true(n > 0 && n < PATH_MAX);
	return out;
}

static void mkdirs_for(const char *path)
{
	char parent[PATH_MAX];
	char *slash;

	pathf(parent, "%s", path);
	slash = strrchr(parent, '/');
	assert_non_null(slash);
	*slash = '\0';
	assert_int_equal(fs_mkdir_p(parent), 0);
}

static void put(const char *path, const char *data, mode_t mode)
{
	int fd;

	mkdirs_for(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, strlen(data)), (ssize_t)strlen(data));
	assert_int_equal(fchmod(fd, mode), 0);
	assert_int_equal(close(fd), 0);
}

/* The whole file as a string (caller frees), or NULL when missing. */
static char *slurp(const char *path)
{
	struct buf b = BUF_INIT;

	if (fs_read_file(&b, path, 1 << 24) != 0) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

/* `tar -tzf` of `path` lists exactly `want` (names in order). */
static void assert_tar_lists(const char *path, const char *want)
{
	char cmd[4096], got[4096];
	size_t n;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "tar -tzf '%s' | LC_ALL=C sort", path);
	assert_non_null(f = popen(cmd, "r"));
	n = fread(got, 1, sizeof(got) - 1, f);
	got[n] = '\0';
	assert_int_equal(pclose(f), 0);
	assert_string_equal(got, want);
}

static void assert_file(const char *path, const char *content)
{
	char *s = slurp(path);

	if (!s)
		fail_msg("'%s' is missing", path);
	assert_string_equal(s, content);
	free(s);
}

static int exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* Number of entries in a dir, hidden ones counted separately. */
static int count_entries(const char *dir, int *hidden)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (hidden)
		*hidden = 0;
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (de->d_name[0] == '.') {
			if (hidden)
				(*hidden)++;
			continue;
		}
		n++;
	}
	closedir(d);
	return n;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Wait until `path` exists; the elapsed ms, or -1 after timeout_ms. */
static double wait_for(const char *path, double start, double timeout_ms)
{
	for (;;) {
		double t = now_ms();

		if (exists(path))
			return t - start;
		if (t - start > timeout_ms)
			return -1;
		usleep(500);
	}
}

/* --- running the binary --------------------------------------------------- */

struct run {
	int code;
	char *out;
	char *err;
};

static void run_release(struct run *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

/*
 * The environment: PATH plus every OSS_CRS_* variable pointing into T.
 * mods: "KEY=VALUE" sets, "KEY" unsets.
 */
static char env_store[32][PATH_MAX + 64];

static void make_env(char **envp, const char *const *mods)
{
	static const char *const names[][2] = {
		{ "OSS_CRS_BUILD_OUT_DIR", "build_out" },
		{ "OSS_CRS_REBUILD_OUT_DIR", "rebuild_out" },
		{ "OSS_CRS_SUBMIT_DIR", "submit" },
		{ "OSS_CRS_SHARED_DIR", "shared" },
		{ "OSS_CRS_LOG_DIR", "log" },
		{ "OSS_CRS_FETCH_DIR", "fetch" },
		{ "OSS_CRS_FUZZ_PROJ", "fuzz_proj" },
		{ "OSS_CRS_TARGET_SOURCE", "target_source" },
	};
	size_t n = 0;

	snprintf(env_store[n++], sizeof(env_store[0]), "PATH=/usr/bin:/bin");
	snprintf(env_store[n++], sizeof(env_store[0]),
		 "OSS_CRS_RUN_ENV_TYPE=local");
	snprintf(env_store[n++], sizeof(env_store[0]), "OSS_CRS_NAME=mycrs");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		snprintf(env_store[n++], sizeof(env_store[0]), "%s=%s/%s",
			 names[i][0], T, names[i][1]);
	for (; mods && *mods; mods++) {
		const char *eq = strchr(*mods, '=');
		size_t klen = eq ? (size_t)(eq - *mods) : strlen(*mods);
		size_t i;

		for (i = 0; i < n; i++)
			if (!strncmp(env_store[i], *mods, klen) &&
			    env_store[i][klen] == '=')
				break;
		if (!eq) {
			if (i < n) {
				memmove(env_store[i], env_store[n - 1],
					sizeof(env_store[0]));
				n--;
			}
			continue;
		}
		if (i == n)
			n++;
		snprintf(env_store[i], sizeof(env_store[0]), "%s", *mods);
	}
	for (size_t i = 0; i < n; i++)
		envp[i] = env_store[i];
	envp[n] = NULL;
}

static int run_cli(struct run *r, const char *const *mods,
		   const char *const *args)
{
	char *argv[16], *envp[40], out[PATH_MAX], err[PATH_MAX];
	posix_spawn_file_actions_t fa;
	size_t n = 0;
	pid_t pid;
	int st;

	argv[n++] = bin;
	for (; *args; args++) {
		assert_true(n < 15);
		argv[n++] = (char *)*args;
	}
	argv[n] = NULL;
	make_env(envp, mods);
	pathf(out, "%s/.run.out", T);
	pathf(err, "%s/.run.err", T);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, out,
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, err,
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_int_equal(posix_spawn(&pid, bin, &fa, NULL, argv, envp), 0);
	posix_spawn_file_actions_destroy(&fa);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	r->code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	r->out = slurp(out);
	r->err = slurp(err);
	assert_non_null(r->out);
	assert_non_null(r->err);
	return r->code;
}

#define CLI(r, ...) \
	run_cli((r), NULL, (const char *const[]){ __VA_ARGS__, NULL })
#define CLI_ENV(r, mods, ...) \
	run_cli((r), (mods), (const char *const[]){ __VA_ARGS__, NULL })

/* Run a register-* command; returns the daemon's PID. */
static pid_t start_daemon_env(const char *const *mods,
			      const char *const *args)
{
	struct run r = { 0 };
	long pid = 0;

	run_cli(&r, mods, args);
	if (r.code != 0)
		fail_msg("daemon did not start (%d): %s", r.code, r.err);
	assert_int_equal(sscanf(r.out, "Started daemon with PID: %ld", &pid),
			 1);
	assert_true(pid > 0);
	run_release(&r);
	assert_true(ndaemons < 16);
	daemons[ndaemons++] = (pid_t)pid;
	return (pid_t)pid;
}

static pid_t start_daemon(const char *const *args)
{
	return start_daemon_env(NULL, args);
}

/* SIGTERM the daemon, reap it; its exit status (-1: had to be killed). */
static int stop_daemon(pid_t pid)
{
	int st = 0;

	assert_int_equal(kill(pid, SIGTERM), 0);
	for (int i = 0; i < 5000; i++) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid) {
			for (int j = 0; j < ndaemons; j++)
				if (daemons[j] == pid)
					daemons[j] = daemons[--ndaemons];
			return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		}
		usleep(1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

static int setup(void **state)
{
	(void)state;
	pathf(T, "/tmp/test_libcrs.XXXXXX");
	assert_non_null(mkdtemp(T));
	crs_error_clear();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	while (ndaemons > 0) {
		pid_t pid = daemons[--ndaemons];

		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	fs_remove_tree(T);
	return 0;
}

/* A crs_env with every directory below T. */
static char env_paths[10][PATH_MAX];

static struct crs_env test_env(void)
{
	struct crs_env env = CRS_ENV_INIT;

	env.name = "mycrs";
	env.build_out_dir = pathf(env_paths[0], "%s/build_out", T);
	env.rebuild_out_dir = pathf(env_paths[1], "%s/rebuild_out", T);
	env.submit_dir = pathf(env_paths[2], "%s/submit", T);
	env.shared_dir = pathf(env_paths[3], "%s/shared", T);
	env.log_dir = pathf(env_paths[4], "%s/log", T);
	env.fetch_dir = pathf(env_paths[5], "%s/fetch", T);
	env.fuzz_proj = pathf(env_paths[6], "%s/fuzz_proj", T);
	env.target_source = pathf(env_paths[7], "%s/target_source", T);
	return env;
}

/* --- API: types and paths ------------------------------------------------- */

static void test_types(void **state)
{
	static const char *const names[] = { "pov", "seed", "bug-candidate",
		"report", "patch", "diff" };
	static const char *const dirs[] = { "povs", "seeds", "bug-candidates",
		"reports", "patches", "diffs" };
	enum crs_type t;

	(void)state;
	for (int i = 0; i < CRS_TYPE_COUNT; i++) {
		assert_int_equal(crs_type_from_name(names[i], &t), 0);
		assert_int_equal(t, i);
		assert_string_equal(crs_type_name(t), names[i]);
		assert_string_equal(crs_type_dir(t), dirs[i]);
		assert_true(crs_type_allows(t, CRS_USE_FETCH));
	}
	assert_int_equal(crs_type_from_name("povs", &t), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "povs"));
	assert_false(crs_type_allows(CRS_TYPE_DIFF, CRS_USE_SUBMIT));
	assert_false(crs_type_allows(CRS_TYPE_REPORT, CRS_USE_SUBMIT_DIR));
	assert_true(crs_type_allows(CRS_TYPE_REPORT, CRS_USE_SUBMIT));
	assert_true(crs_type_allows(CRS_TYPE_PATCH, CRS_USE_SUBMIT |
				    CRS_USE_SUBMIT_DIR));
	assert_null(crs_type_dir((enum crs_type)99));
}

static void test_path_normalize(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(crs_path_normalize(out, sizeof(out), "/fuzzer"),
			 CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "absolute"));
	assert_int_equal(crs_path_normalize(out, sizeof(out), "/"),
			 CRS_EINPUT);
	assert_int_equal(crs_path_normalize(out, sizeof(out), "a//./b/"), 0);
	assert_string_equal(out, "a/b");
	assert_int_equal(crs_path_normalize(out, sizeof(out), "./"), 0);
	assert_string_equal(out, "");
	assert_int_equal(crs_path_normalize(out, sizeof(out), "..."), 0);
	assert_string_equal(out, "...");
	assert_int_equal(crs_path_normalize(out, sizeof(out), "../x"),
			 CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "'..'"));
	assert_int_equal(crs_path_normalize(out, sizeof(out), "a/../b"),
			 CRS_EINPUT);
	assert_int_equal(crs_path_normalize(out, 4, "abcdef"), CRS_EINPUT);
	assert_int_equal(crs_path_confine(out, sizeof(out), "/root", "/x/y"),
			 CRS_EINPUT);
	assert_int_equal(crs_path_confine(out, sizeof(out), "/root", "x/y"),
			 0);
	assert_string_equal(out, "/root/x/y");
	assert_int_equal(crs_path_confine(out, sizeof(out), "/root/", ""), 0);
	assert_string_equal(out, "/root/");
	assert_int_equal(crs_path_confine(out, sizeof(out), "/root", "x/.."),
			 CRS_EINPUT);
}

/* --- API: submit, copy, fetch, watch -------------------------------------- */

static void test_api_submit(void **state)
{
	struct crs_env env = test_env(), none = CRS_ENV_INIT;
	char name[CRS_NAME_MAX], p[PATH_MAX], q[PATH_MAX];
	int existed = -1, hidden = -1;

	(void)state;
	put(pathf(p, "%s/in/crash.bin", T), "abc", 0600);
	assert_int_equal(crs_submit(&env, CRS_TYPE_POV, p, name, &existed), 0);
	assert_string_equal(name, MD5_ABC ".bin");
	assert_int_equal(existed, 0);
	assert_file(pathf(q, "%s/submit/povs/" MD5_ABC ".bin", T), "abc");
	/* The same content again: found by name, nothing written. */
	assert_int_equal(crs_submit(&env, CRS_TYPE_POV, p, name, &existed), 0);
	assert_int_equal(existed, 1);
	assert_int_equal(count_entries(pathf(q, "%s/submit/povs", T), &hidden),
			 1);
	assert_int_equal(hidden, 0);	/* no temporary file left */
	/* Suffix rules of Python's PurePath.suffix. */
	put(pathf(p, "%s/in/.hidden", T), "abc", 0644);
	assert_int_equal(crs_submit(&env, CRS_TYPE_SEED, p, name, &existed), 0);
	assert_string_equal(name, MD5_ABC);
	put(pathf(p, "%s/in/x.tar.gz", T), "", 0644);
	assert_int_equal(crs_submit(&env, CRS_TYPE_SEED, p, name, &existed), 0);
	assert_string_equal(name, MD5_EMPTY ".gz");	/* empty accepted */
	/* Reports become <stem>.tar.gz, numbered on a collision (OSS-CRS). */
	put(pathf(p, "%s/in/report.txt", T), "r1", 0644);
	assert_int_equal(crs_submit(&env, CRS_TYPE_REPORT, p, name, &existed),
			 0);
	assert_string_equal(name, "report.tar.gz");
	assert_int_equal(crs_submit(&env, CRS_TYPE_REPORT, p, name, &existed),
			 0);
	assert_string_equal(name, "report_1.tar.gz");
	assert_int_equal(existed, 0);
	assert_tar_lists(pathf(q, "%s/submit/reports/report_1.tar.gz", T),
			 "report.txt\n");
	/* a folder: its contents at the tar's root, named after it */
	put(pathf(p, "%s/in/fuzz-report/summary.txt", T), "s", 0644);
	assert_int_equal(crs_submit(&env, CRS_TYPE_REPORT,
				    pathf(p, "%s/in/fuzz-report", T), name,
				    &existed), 0);
	assert_string_equal(name, "fuzz-report.tar.gz");
	assert_tar_lists(pathf(q, "%s/submit/reports/fuzz-report.tar.gz", T),
			 "./\n./summary.txt\n");
	/* Refusals. */
	assert_int_equal(crs_submit(&env, CRS_TYPE_DIFF,
				    pathf(p, "%s/in/crash.bin", T), name,
				    &existed), CRS_EINPUT);
	assert_int_equal(crs_submit(&env, CRS_TYPE_POV,
				    pathf(p, "%s/in/nope", T), name,
				    &existed), CRS_ENOTFOUND);
	assert_int_equal(crs_submit(&none, CRS_TYPE_POV,
				    pathf(p, "%s/in/crash.bin", T), name,
				    &existed), CRS_ECONFIG);
	assert_non_null(strstr(crs_error_last(), "OSS_CRS_SUBMIT_DIR"));
}

static void test_api_copy(void **state)
{
	char p[PATH_MAX], q[PATH_MAX], link[64];
	struct stat st, st2;
	struct timespec ts[2] = { { 1000000, 0 }, { 1000000, 0 } };
	ssize_t n;

	(void)state;
	put(pathf(p, "%s/src/run.sh", T), "#!/bin/sh\n", 0755);
	put(pathf(p, "%s/src/deep/er/data", T), "d", 0640);
	assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
	assert_int_equal(symlink("run.sh", pathf(p, "%s/src/rel", T)), 0);
	assert_int_equal(symlink("/etc/hostname", pathf(p, "%s/src/abs", T)),
			 0);
	assert_int_equal(mkfifo(pathf(p, "%s/src/fifo", T), 0600), 0);
	assert_int_equal(crs_copy(pathf(p, "%s/src", T),
				  pathf(q, "%s/dst/a", T)), 0);
	assert_int_equal(stat(pathf(q, "%s/dst/a/run.sh", T), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_int_equal(stat(pathf(q, "%s/dst/a/deep/er/data", T), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_int_equal(st.st_mtim.tv_sec, 1000000);
	n = readlink(pathf(q, "%s/dst/a/rel", T), link, sizeof(link) - 1);
	assert_true(n > 0);
	link[n] = '\0';
	assert_string_equal(link, "run.sh");
	n = readlink(pathf(q, "%s/dst/a/abs", T), link, sizeof(link) - 1);
	assert_true(n > 0);
	link[n] = '\0';
	assert_string_equal(link, "/etc/hostname");	/* not followed */
	assert_false(exists(pathf(q, "%s/dst/a/fifo", T)));
	/* A file into an existing directory keeps its name. */
	assert_int_equal(crs_copy(pathf(p, "%s/src/run.sh", T),
				  pathf(q, "%s/dst/a/deep", T)), 0);
	assert_file(pathf(q, "%s/dst/a/deep/run.sh", T), "#!/bin/sh\n");
	/* A file onto a file path replaces it. */
	put(pathf(q, "%s/dst/f", T), "old", 0644);
	assert_int_equal(crs_copy(pathf(p, "%s/src/deep/er/data", T), q), 0);
	assert_file(q, "d");
	/* Copying a tree into its own subdirectory terminates. */
	assert_int_equal(crs_copy(pathf(p, "%s/src", T),
				  pathf(q, "%s/src/inner", T)), 0);
	assert_int_equal(stat(pathf(q, "%s/src/inner/run.sh", T), &st), 0);
	assert_false(exists(pathf(q, "%s/src/inner/inner", T)));
	assert_int_equal(crs_copy(pathf(p, "%s/missing", T), q),
			 CRS_ENOTFOUND);
	assert_int_equal(stat(pathf(p, "%s/src/run.sh", T), &st2), 0);
}

static void test_api_fetch(void **state)
{
	struct crs_env env = test_env();
	char p[PATH_MAX], q[PATH_MAX];
	size_t count = 99;

	(void)state;
	put(pathf(p, "%s/fetch/bug-candidates/top.sarif", T), "t", 0644);
	put(pathf(p, "%s/fetch/bug-candidates/nested/deeper/n.sarif", T), "n",
	    0644);
	put(pathf(p, "%s/fetch/bug-candidates/.tmp", T), "x", 0644);
	put(pathf(p, "%s/fetch/bug-candidates/.dotdir/f", T), "x", 0644);
	assert_int_equal(crs_fetch(&env, CRS_TYPE_BUG_CANDIDATE,
				   pathf(q, "%s/mine", T), NULL, NULL,
				   &count), 0);
	assert_int_equal(count, 2);
	assert_file(pathf(p, "%s/mine/top.sarif", T), "t");
	assert_file(pathf(p, "%s/mine/nested/deeper/n.sarif", T), "n");
	assert_false(exists(pathf(p, "%s/mine/.tmp", T)));
	assert_false(exists(pathf(p, "%s/mine/.dotdir", T)));
	assert_int_equal(crs_fetch(&env, CRS_TYPE_BUG_CANDIDATE, q, NULL,
				   NULL, &count), 0);
	assert_int_equal(count, 0);
	/* No FETCH_DIR: nothing to do, not an error. */
	env.fetch_dir = NULL;
	assert_int_equal(crs_fetch(&env, CRS_TYPE_SEED, q, NULL, NULL,
				   &count), 0);
	assert_int_equal(count, 0);
}

struct watch_run {
	struct crs_watch *w;
	int stop;
	int submitted;
	int r;
	pthread_mutex_t lock;
};

static void watch_event(const struct crs_event *ev, void *ctx)
{
	struct watch_run *wr = ctx;

	if (ev->kind == CRS_EVENT_SUBMITTED) {
		pthread_mutex_lock(&wr->lock);
		wr->submitted++;
		pthread_mutex_unlock(&wr->lock);
	}
}

static void *watch_thread(void *arg)
{
	struct watch_run *wr = arg;

	wr->r = crs_watch_run(wr->w, wr->stop, watch_event, wr);
	return NULL;
}

static void test_api_watch_submit(void **state)
{
	struct crs_env env = test_env();
	struct watch_run wr = { .r = -100 };
	char p[PATH_MAX], q[PATH_MAX];
	pthread_t th;
	int pipefd[2];
	double start, ms;

	(void)state;
	pthread_mutex_init(&wr.lock, NULL);
	assert_int_equal(crs_watch_submit_dir(&wr.w, &env, CRS_TYPE_REPORT,
					      pathf(p, "%s/w", T)),
			 CRS_EINPUT);
	assert_int_equal(crs_watch_submit_dir(&wr.w, &env, CRS_TYPE_SEED, p),
			 0);
	assert_true(crs_watch_uses_inotify(wr.w));
	assert_int_equal(pipe(pipefd), 0);
	wr.stop = pipefd[0];
	assert_int_equal(pthread_create(&th, NULL, watch_thread, &wr), 0);
	start = now_ms();
	put(pathf(p, "%s/w/s1", T), "abc", 0644);
	ms = wait_for(pathf(q, "%s/submit/seeds/" MD5_ABC, T), start, 2000);
	assert_true(ms >= 0);
	/* The CRS removes and re-creates its dir: watched again. */
	assert_int_equal(fs_remove_tree(pathf(p, "%s/w", T)), 0);
	usleep(50 * 1000);
	assert_int_equal(mkdir(p, 0755), 0);
	start = now_ms();
	put(pathf(p, "%s/w/s2", T), "", 0644);	/* empty: not submitted */
	put(pathf(p, "%s/w/s3", T), "abcd", 0644);
	ms = wait_for(pathf(q, "%s/submit/seeds/" MD5_ABCD, T), start, 2500);
	print_message("register-submit-dir: dir re-created, picked up again "
		      "after %.1f ms\n", ms);
	assert_true(ms >= 0);
	assert_int_equal(write(pipefd[1], "x", 1), 1);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(wr.r, 0);
	assert_int_equal(wr.submitted, 2);
	crs_watch_free(wr.w);
	close(pipefd[0]);
	close(pipefd[1]);
	pthread_mutex_destroy(&wr.lock);
}

static void test_api_watch_submit_poll(void **state)
{
	struct crs_env env = test_env();
	struct watch_run wr = { .r = -100 };
	char p[PATH_MAX], q[PATH_MAX];
	pthread_t th;
	int pipefd[2], n;
	double start, ms;

	(void)state;
	pthread_mutex_init(&wr.lock, NULL);
	put(pathf(p, "%s/w/old", T), "abc", 0644);
	assert_int_equal(crs_watch_submit_dir(&wr.w, &env, CRS_TYPE_POV,
					      pathf(p, "%s/w", T)), 0);
	crs_watch_poll_only(wr.w);
	assert_false(crs_watch_uses_inotify(wr.w));
	assert_int_equal(pipe(pipefd), 0);
	wr.stop = pipefd[0];
	assert_int_equal(pthread_create(&th, NULL, watch_thread, &wr), 0);
	assert_true(wait_for(pathf(q, "%s/submit/povs/" MD5_ABC, T), now_ms(),
			     2000) >= 0);
	start = now_ms();
	put(pathf(p, "%s/w/new", T), "new", 0644);
	for (;;) {		/* the next scan, within about a second */
		pthread_mutex_lock(&wr.lock);
		n = wr.submitted;
		pthread_mutex_unlock(&wr.lock);
		if (n == 2)
			break;
		assert_true(now_ms() - start < 2500);
		usleep(1000);
	}
	ms = now_ms() - start;
	print_message("register-submit-dir latency when polling: %.1f ms\n",
		      ms);
	/* Two more scans: unchanged files are not hashed or sent again. */
	usleep(2200 * 1000);
	pthread_mutex_lock(&wr.lock);
	n = wr.submitted;
	pthread_mutex_unlock(&wr.lock);
	assert_int_equal(n, 2);
	/* A changed file is a new submission. */
	put(pathf(p, "%s/w/new", T), "changed", 0644);
	start = now_ms();
	for (;;) {
		pthread_mutex_lock(&wr.lock);
		n = wr.submitted;
		pthread_mutex_unlock(&wr.lock);
		if (n == 3)
			break;
		assert_true(now_ms() - start < 2500);
		usleep(1000);
	}
	assert_int_equal(write(pipefd[1], "x", 1), 1);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(wr.r, 0);
	assert_int_equal(count_entries(pathf(q, "%s/submit/povs", T), NULL), 3);
	crs_watch_free(wr.w);
	close(pipefd[0]);
	close(pipefd[1]);
	pthread_mutex_destroy(&wr.lock);
}

/* --- CLI ------------------------------------------------------------------ */

static void test_cli_help_and_usage(void **state)
{
	struct run r = { 0 };

	(void)state;
	assert_int_equal(CLI(&r, "--help"), 0);
	assert_non_null(strstr(r.out, "usage: libCRS"));
	assert_non_null(strstr(r.out, "register-submit-dir"));
	assert_string_equal(r.err, "");
	run_release(&r);
	assert_int_equal(run_cli(&r, NULL, (const char *const[]){ NULL }), 0);
	assert_non_null(strstr(r.out, "usage: libCRS"));
	run_release(&r);
	/* --help needs no environment at all. */
	assert_int_equal(CLI_ENV(&r, ((const char *const[]){
		"OSS_CRS_RUN_ENV_TYPE=azure", NULL }), "submit", "--help"), 0);
	assert_non_null(strstr(r.out, "usage: libCRS submit TYPE PATH"));
	run_release(&r);
	assert_int_equal(CLI(&r, "no-such-command"), 2);
	assert_non_null(strstr(r.err, "'no-such-command' is not a libCRS"));
	assert_non_null(strstr(r.err, "usage: libCRS"));
	assert_string_equal(r.out, "");
	run_release(&r);
	assert_int_equal(CLI(&r, "submit", "pov"), 2);
	assert_non_null(strstr(r.err, "usage: libCRS submit"));
	run_release(&r);
	/* several paths are several files (test_cli_submit_many) */
	assert_int_equal(CLI(&r, "submit", "pov", "a", "b"), 1);
	assert_non_null(strstr(r.err, "'a'"));
	assert_non_null(strstr(r.err, "'b'"));
	run_release(&r);
	assert_int_equal(CLI(&r, "submit", "--bogus", "pov", "a"), 2);
	assert_non_null(strstr(r.err, "--bogus"));
	run_release(&r);
	assert_int_equal(CLI(&r, "download-build-output", "a", "b",
			     "--rebuild-id"), 2);
	assert_non_null(strstr(r.err, "needs a value"));
	run_release(&r);
	assert_int_equal(CLI(&r, "submit", "diff", "x"), 2);
	assert_non_null(strstr(r.err, "'diff'"));
	run_release(&r);
}

static void test_cli_env_type(void **state)
{
	struct run r = { 0 };
	char p[PATH_MAX], q[PATH_MAX];

	(void)state;
	put(pathf(p, "%s/pov", T), "abc", 0644);
	/* Unset: taken as local (OSS-CRS would fail with a KeyError). */
	assert_int_equal(CLI_ENV(&r, ((const char *const[]){
		"OSS_CRS_RUN_ENV_TYPE", NULL }), "submit", "pov", p), 0);
	assert_true(exists(pathf(q, "%s/submit/povs/" MD5_ABC, T)));
	run_release(&r);
	assert_int_equal(CLI_ENV(&r, ((const char *const[]){
		"OSS_CRS_RUN_ENV_TYPE=azure", NULL }), "submit", "pov", p), 1);
	assert_non_null(strstr(r.err, "libCRS: submit: OSS_CRS_RUN_ENV_TYPE "
			       "'azure'"));
	run_release(&r);
}

static void test_cli_submit(void **state)
{
	struct run r = { 0 };
	char p[PATH_MAX], q[PATH_MAX];
	int hidden;

	(void)state;
	put(pathf(p, "%s/crash-1.raw", T), "abc", 0644);
	assert_int_equal(CLI(&r, "submit", "pov", p), 0);
	assert_file(pathf(q, "%s/submit/povs/" MD5_ABC ".raw", T), "abc");
	run_release(&r);
	/* A duplicate is skipped: still one file, exit 0. */
	put(pathf(p, "%s/other/crash-2.raw", T), "abc", 0644);
	assert_int_equal(CLI(&r, "submit", "pov", p), 0);
	assert_int_equal(count_entries(pathf(q, "%s/submit/povs", T), &hidden),
			 1);
	assert_int_equal(hidden, 0);
	run_release(&r);
	put(pathf(p, "%s/fix.diff", T), "--- a\n+++ b\n", 0644);
	assert_int_equal(CLI(&r, "submit", "patch", p), 0);
	assert_int_equal(count_entries(pathf(q, "%s/submit/patches", T), NULL),
			 1);
	run_release(&r);
	put(pathf(p, "%s/notes.md", T), "# report", 0644);
	assert_int_equal(CLI(&r, "submit", "report", p), 0);
	run_release(&r);
	assert_int_equal(CLI(&r, "submit", "report", p), 0);
	assert_tar_lists(pathf(q, "%s/submit/reports/notes.tar.gz", T),
			 "notes.md\n");
	assert_tar_lists(pathf(q, "%s/submit/reports/notes_1.tar.gz", T),
			 "notes.md\n");
	run_release(&r);
	assert_int_equal(CLI(&r, "submit", "seed", pathf(p, "%s/nope", T)), 1);
	assert_non_null(strstr(r.err, "libCRS: submit: "));
	assert_non_null(strstr(r.err, "nope"));
	run_release(&r);
}

/*
 * submit TYPE PATH...: each file as `submit TYPE PATH` would take it; a
 * FIFO, a dangling link and a link to a folder among them are refused
 * one by one (each named on stderr), the others submitted; the exit
 * status is the first refusal's.
 */
static void test_cli_submit_many(void **state)
{
	struct run r = { 0 };
	char a[PATH_MAX], b[PATH_MAX], fifo[PATH_MAX], dangling[PATH_MAX];
	char dirlink[PATH_MAX], q[PATH_MAX];
	int hidden;

	(void)state;
	put(pathf(a, "%s/corpus/a", T), "abc", 0644);
	put(pathf(b, "%s/corpus/b", T), "abcd", 0644);
	assert_int_equal(mkfifo(pathf(fifo, "%s/corpus/fifo", T), 0600), 0);
	assert_int_equal(symlink("nowhere",
				 pathf(dangling, "%s/corpus/dangling", T)), 0);
	assert_int_equal(symlink(T, pathf(dirlink, "%s/corpus/dir", T)), 0);
	assert_int_equal(CLI(&r, "submit", "seed", a, fifo, dangling, b,
			     dirlink), 2);
	assert_file(pathf(q, "%s/submit/seeds/" MD5_ABC, T), "abc");
	assert_file(pathf(q, "%s/submit/seeds/" MD5_ABCD, T), "abcd");
	assert_int_equal(count_entries(pathf(q, "%s/submit/seeds", T),
				       &hidden), 2);
	assert_int_equal(hidden, 0);
	assert_non_null(strstr(r.err, "fifo': not a regular file"));
	assert_non_null(strstr(r.err, "dangling'"));
	assert_non_null(strstr(r.err, "dir': not a regular file"));
	run_release(&r);
	/* the old form: one file, exit 0 (a duplicate now) */
	assert_int_equal(CLI(&r, "submit", "seed", a), 0);
	assert_int_equal(count_entries(pathf(q, "%s/submit/seeds", T), NULL),
			 2);
	run_release(&r);
}

static void test_cli_submit_build_output(void **state)
{
	struct run r = { 0 };
	char p[PATH_MAX], q[PATH_MAX], link[64];
	struct stat st;
	ssize_t n;

	(void)state;
	put(pathf(p, "%s/out/fuzz_target", T), "\x7f" "ELF", 0755);
	put(pathf(p, "%s/out/fuzz_target.options", T), "[libfuzzer]\n", 0644);
	put(pathf(p, "%s/out/seeds/a", T), "a", 0644);
	assert_int_equal(symlink("fuzz_target", pathf(p, "%s/out/alias", T)),
			 0);
	/* An absolute DST is refused (OSS-CRS writes outside the root). */
	assert_int_equal(CLI(&r, "submit-build-output", pathf(p, "%s/out", T),
			     "/build"), 2);
	assert_non_null(strstr(r.err, "absolute paths are not allowed"));
	run_release(&r);
	assert_int_equal(CLI(&r, "submit-build-output", pathf(p, "%s/out", T),
			     "build"), 0);
	run_release(&r);
	assert_int_equal(stat(pathf(q, "%s/build_out/build/fuzz_target", T),
			      &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_file(pathf(q, "%s/build_out/build/seeds/a", T), "a");
	n = readlink(pathf(q, "%s/build_out/build/alias", T), link,
		     sizeof(link) - 1);
	assert_true(n > 0);
	link[n] = '\0';
	assert_string_equal(link, "fuzz_target");
	/* A file, with --rebuild-id accepted (and ignored). */
	assert_int_equal(CLI(&r, "submit-build-output", "--rebuild-id", "2",
			     pathf(p, "%s/out/fuzz_target.options", T),
			     "opts/x.options"), 0);
	assert_file(pathf(q, "%s/build_out/opts/x.options", T),
		    "[libfuzzer]\n");
	run_release(&r);
	/* ".." is refused with exit 2 and a message that says so. */
	assert_int_equal(CLI(&r, "submit-build-output", p, "../escape"), 2);
	assert_non_null(strstr(r.err, "libCRS: submit-build-output: "));
	assert_non_null(strstr(r.err, "'..'"));
	assert_false(exists(pathf(q, "%s/escape", T)));
	run_release(&r);
	assert_int_equal(CLI(&r, "submit-build-output", p, "a/../../b"), 2);
	run_release(&r);
	/* A symlink inside BUILD_OUT_DIR does not lead writes outside. */
	assert_int_equal(fs_mkdir_p(pathf(q, "%s/outside", T)), 0);
	assert_int_equal(symlink(q, pathf(q, "%s/build_out/evil", T)), 0);
	assert_int_equal(CLI(&r, "submit-build-output", p, "evil/x"), 1);
	assert_false(exists(pathf(q, "%s/outside/x", T)));
	run_release(&r);
	assert_int_equal(CLI(&r, "submit-build-output",
			     pathf(p, "%s/none", T), "y"), 1);
	assert_false(exists(pathf(q, "%s/build_out/y", T)));
	run_release(&r);
}

static void test_cli_skip_build_output(void **state)
{
	struct run r = { 0 };
	char q[PATH_MAX];

	(void)state;
	assert_int_equal(CLI(&r, "skip-build-output", "sub/dir/coverage"), 0);
	assert_file(pathf(q, "%s/build_out/sub/dir/.coverage.skip", T),
		    "skip");
	run_release(&r);
	assert_int_equal(CLI(&r, "skip-build-output", "top"), 0);
	assert_file(pathf(q, "%s/build_out/.top.skip", T), "skip");
	run_release(&r);
	assert_int_equal(CLI(&r, "skip-build-output", "/top"), 2);
	run_release(&r);
	assert_int_equal(CLI(&r, "skip-build-output", "/"), 2);
	run_release(&r);
	assert_int_equal(CLI(&r, "skip-build-output", "../x"), 2);
	run_release(&r);
}

static void test_cli_download_build_output(void **state)
{
	struct run r = { 0 };
	char p[PATH_MAX], q[PATH_MAX];

	(void)state;
	put(pathf(p, "%s/build_out/build/fuzzer", T), "base", 0755);
	put(pathf(p, "%s/rebuild_out/mycrs/3/build/fuzzer", T), "r3", 0755);
	assert_int_equal(CLI(&r, "download-build-output", "build",
			     pathf(q, "%s/got/base", T)), 0);
	assert_file(pathf(q, "%s/got/base/fuzzer", T), "base");
	run_release(&r);
	assert_int_equal(CLI(&r, "download-build-output", "build",
			     pathf(q, "%s/got/r3", T), "--rebuild-id", "3"),
			 0);
	assert_file(pathf(q, "%s/got/r3/fuzzer", T), "r3");
	run_release(&r);
	assert_int_equal(CLI_ENV(&r, ((const char *const[]){
		"OSS_CRS_REBUILD_ID=3", NULL }), "download-build-output",
		"build/fuzzer", pathf(q, "%s/got/one", T)), 0);
	assert_file(q, "r3");
	run_release(&r);
	assert_int_equal(CLI(&r, "download-build-output", "/build/fuzzer",
			     pathf(q, "%s/got/abs", T)), 2);
	run_release(&r);
	assert_int_equal(CLI(&r, "download-build-output", "build", q,
			     "--rebuild-id", "3/../4"), 2);
	run_release(&r);
	assert_int_equal(CLI(&r, "download-build-output", "../build_out", q),
			 2);
	run_release(&r);
	assert_int_equal(CLI(&r, "download-build-output", "missing", q), 1);
	run_release(&r);
}

static void test_cli_download_source(void **state)
{
	struct run r = { 0 };
	char p[PATH_MAX], q[PATH_MAX];

	(void)state;
	put(pathf(p, "%s/fuzz_proj/project.yaml", T), "language: c\n", 0644);
	put(pathf(p, "%s/target_source/src/a.c", T), "int a;\n", 0644);
	assert_int_equal(CLI(&r, "download-source", "fuzz-proj",
			     pathf(q, "%s/proj", T)), 0);
	assert_file(pathf(q, "%s/proj/project.yaml", T), "language: c\n");
	run_release(&r);
	assert_int_equal(CLI(&r, "download-source", "target-source",
			     pathf(q, "%s/src", T)), 0);
	assert_file(pathf(q, "%s/src/src/a.c", T), "int a;\n");
	run_release(&r);
	assert_int_equal(CLI(&r, "download-source", "repo", q), 2);
	run_release(&r);
	assert_int_equal(CLI_ENV(&r, ((const char *const[]){
		"OSS_CRS_FUZZ_PROJ=/nonexistent/proj", NULL }),
		"download-source", "fuzz-proj", q), 1);
	assert_non_null(strstr(r.err, "not mounted"));
	run_release(&r);
}

/* The lines of s, sorted, joined with ','. */
static void sorted_lines(char *out, size_t outsz, const char *s)
{
	char *copy = strdup(s), *save = NULL, *lines[32];
	int n = 0;

	assert_non_null(copy);
	for (char *t = strtok_r(copy, "\n", &save); t && n < 32;
	     t = strtok_r(NULL, "\n", &save))
		lines[n++] = t;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && strcmp(lines[j - 1], lines[j]) > 0;
		     j--) {
			char *tmp = lines[j];

			lines[j] = lines[j - 1];
			lines[j - 1] = tmp;
		}
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		strncat(out, lines[i], outsz - strlen(out) - 1);
		if (i + 1 < n)
			strncat(out, ",", outsz - strlen(out) - 1);
	}
	free(copy);
}

static void test_cli_fetch(void **state)
{
	struct run r = { 0 };
	char p[PATH_MAX], q[PATH_MAX], lines[256];

	(void)state;
	put(pathf(p, "%s/fetch/seeds/s1", T), "1", 0644);
	put(pathf(p, "%s/fetch/seeds/dir/s2", T), "2", 0644);
	put(pathf(p, "%s/fetch/seeds/.partial", T), "x", 0644);
	assert_int_equal(symlink("/etc/passwd",
				 pathf(p, "%s/fetch/seeds/link", T)), 0);
	put(pathf(q, "%s/corpus/s1", T), "mine", 0644);	/* already there */
	assert_int_equal(CLI(&r, "fetch", "seed", pathf(q, "%s/corpus", T)),
			 0);
	sorted_lines(lines, sizeof(lines), r.out);
	assert_string_equal(lines, "dir/s2");
	run_release(&r);
	assert_file(pathf(q, "%s/corpus/s1", T), "mine");	/* kept */
	assert_file(pathf(q, "%s/corpus/dir/s2", T), "2");
	assert_false(exists(pathf(q, "%s/corpus/link", T)));
	assert_false(exists(pathf(q, "%s/corpus/.partial", T)));
	assert_int_equal(CLI(&r, "fetch", "seed", pathf(q, "%s/corpus2", T)),
			 0);
	sorted_lines(lines, sizeof(lines), r.out);
	assert_string_equal(lines, "dir/s2,s1");
	run_release(&r);
	/* Nothing new: one empty line, as OSS-CRS prints. */
	assert_int_equal(CLI(&r, "fetch", "seed", q), 0);
	assert_string_equal(r.out, "\n");
	run_release(&r);
	assert_int_equal(CLI_ENV(&r, ((const char *const[]){
		"OSS_CRS_FETCH_DIR", NULL }), "fetch", "diff",
		pathf(q, "%s/diffs", T)), 0);
	assert_string_equal(r.out, "\n");
	assert_true(exists(q));
	run_release(&r);
	assert_int_equal(CLI(&r, "fetch", "povs", q), 2);
	run_release(&r);
}

static void test_cli_register_submit_dir(void **state)
{
	char p[PATH_MAX], q[PATH_MAX], tmp[PATH_MAX], log[PATH_MAX];
	double lat[5], start, sum = 0, max = 0;
	char content[32];
	struct run r = { 0 };
	pid_t pid;
	char *text;

	(void)state;
	put(pathf(p, "%s/crashes/early", T), "abc", 0644);
	put(pathf(p, "%s/crashes/empty", T), "", 0644);
	put(pathf(p, "%s/crashes/.dot", T), "dot", 0644);
	pid = start_daemon((const char *const[]){ "register-submit-dir",
		"--log", pathf(log, "%s/daemon.log", T), "pov",
		pathf(q, "%s/crashes", T), NULL });
	/* Existing files are submitted at start. */
	assert_true(wait_for(pathf(q, "%s/submit/povs/" MD5_ABC, T), now_ms(),
			     2000) >= 0);
	/* Files written after start: each within 1 s, measured. */
	for (int i = 0; i < 5; i++) {
		snprintf(content, sizeof(content), "crash %d", i);
		pathf(p, "%s/crashes/c%d", T, i);
		start = now_ms();
		if (i % 2) {		/* written elsewhere, moved in */
			put(pathf(tmp, "%s/staging/c%d", T, i), content, 0644);
			assert_int_equal(rename(tmp, p), 0);
		} else {
			put(p, content, 0644);
		}
		for (;;) {
			int n = count_entries(pathf(q, "%s/submit/povs", T),
					      NULL);

			if (n == i + 2)
				break;
			assert_true(now_ms() - start < 1000);
			usleep(200);
		}
		lat[i] = now_ms() - start;
		sum += lat[i];
		if (lat[i] > max)
			max = lat[i];
	}
	print_message("register-submit-dir latency (write -> submitted): "
		      "%.2f %.2f %.2f %.2f %.2f ms (mean %.2f, max %.2f)\n",
		      lat[0], lat[1], lat[2], lat[3], lat[4], sum / 5, max);
	assert_true(max < 1000);
	/* Not submitted: empty files and dotfiles. */
	assert_false(exists(pathf(q, "%s/submit/povs/" MD5_EMPTY, T)));
	assert_int_equal(stop_daemon(pid), 0);
	text = slurp(log);
	assert_non_null(text);
	assert_non_null(strstr(text, "submitted pov"));
	assert_non_null(strstr(text, "stopped"));
	free(text);
	/* Refusals happen before the fork. */
	assert_int_equal(CLI(&r, "register-submit-dir", "report", q), 2);
	assert_string_equal(r.out, "");
	run_release(&r);
	assert_int_equal(CLI_ENV(&r, ((const char *const[]){
		"OSS_CRS_SUBMIT_DIR", NULL }), "register-submit-dir", "pov",
		q), 1);
	assert_non_null(strstr(r.err, "OSS_CRS_SUBMIT_DIR is not set"));
	assert_string_equal(r.out, "");
	run_release(&r);
}

static void test_cli_register_fetch_dir(void **state)
{
	char p[PATH_MAX], q[PATH_MAX], tmp[PATH_MAX];
	double start, ms1, ms2, ms3;
	pid_t pid;

	(void)state;
	put(pathf(p, "%s/fetch/povs/old", T), "old", 0644);
	pid = start_daemon((const char *const[]){ "register-fetch-dir", "pov",
		pathf(q, "%s/incoming", T), NULL });
	assert_true(wait_for(pathf(q, "%s/incoming/old", T), now_ms(), 2000)
		    >= 0);
	/* As the exchange writes: a dot temporary, then rename. */
	start = now_ms();
	put(pathf(tmp, "%s/fetch/povs/.tmp1", T), "new", 0644);
	assert_int_equal(rename(tmp, pathf(p, "%s/fetch/povs/new", T)), 0);
	ms1 = wait_for(pathf(q, "%s/incoming/new", T), start, 1000);
	/*
	 * Into a new nested directory, again as the exchange writes: the
	 * folder's creation wakes the watcher, which must not catch the file
	 * half-written (a file already fetched is not fetched again).
	 */
	start = now_ms();
	put(pathf(tmp, "%s/fetch/povs/sub/deep/.tmp2", T), "nested", 0644);
	assert_int_equal(rename(tmp, pathf(p, "%s/fetch/povs/sub/deep/n", T)),
			 0);
	ms2 = wait_for(pathf(q, "%s/incoming/sub/deep/n", T), start, 1000);
	print_message("register-fetch-dir latency: rename-in %.2f ms, "
		      "nested new dir %.2f ms\n", ms1, ms2);
	assert_true(ms1 >= 0 && ms1 < 1000);
	assert_true(ms2 >= 0 && ms2 < 1000);
	assert_file(pathf(q, "%s/incoming/sub/deep/n", T), "nested");
	assert_false(exists(pathf(q, "%s/incoming/.tmp1", T)));
	assert_int_equal(stop_daemon(pid), 0);

	/* Type dir missing at start: picked up by the 1 s poll. */
	pid = start_daemon((const char *const[]){ "register-fetch-dir",
		"patch", pathf(q, "%s/patches_in", T), NULL });
	usleep(100 * 1000);
	start = now_ms();
	put(pathf(p, "%s/fetch/patches/fix.diff", T), "diff", 0644);
	ms3 = wait_for(pathf(q, "%s/patches_in/fix.diff", T), start, 3000);
	print_message("register-fetch-dir latency, type dir created late: "
		      "%.2f ms\n", ms3);
	assert_true(ms3 >= 0);
	assert_int_equal(stop_daemon(pid), 0);

	/* Forced polling (LIBCRS_WATCH_POLL=1), nested file. */
	pid = start_daemon_env((const char *const[]){ "LIBCRS_WATCH_POLL=1",
		NULL }, (const char *const[]){ "register-fetch-dir", "--log",
		pathf(tmp, "%s/poll.log", T), "pov",
		pathf(q, "%s/polled", T), NULL });
	usleep(100 * 1000);
	start = now_ms();
	put(pathf(p, "%s/fetch/povs/sub2/p", T), "p", 0644);
	ms3 = wait_for(pathf(q, "%s/polled/sub2/p", T), start, 3000);
	print_message("register-fetch-dir latency when polling: %.2f ms\n",
		      ms3);
	assert_true(ms3 >= 0);
	assert_int_equal(stop_daemon(pid), 0);
	assert_file(q, "p");
	{
		char *text = slurp(tmp);

		assert_non_null(text);
		assert_non_null(strstr(text, "polling every second"));
		free(text);
	}
}

static void test_cli_shared_and_log_dirs(void **state)
{
	struct run r = { 0 };
	char p[PATH_MAX], q[PATH_MAX], target[PATH_MAX];
	struct stat st;
	ssize_t n;

	(void)state;
	assert_int_equal(CLI(&r, "register-shared-dir",
			     pathf(p, "%s/work/corpus", T), "corpus/main"), 0);
	run_release(&r);
	n = readlink(p, target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	assert_string_equal(target, pathf(q, "%s/shared/corpus/main", T));
	assert_int_equal(stat(q, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	put(pathf(q, "%s/work/corpus/f", T), "via link", 0644);
	assert_file(pathf(q, "%s/shared/corpus/main/f", T), "via link");
	/* LOCAL must not exist. */
	assert_int_equal(CLI(&r, "register-shared-dir", p, "other"), 1);
	assert_non_null(strstr(r.err, "already exists"));
	run_release(&r);
	assert_int_equal(CLI(&r, "register-shared-dir",
			     pathf(p, "%s/work/x", T), "../../etc"), 2);
	run_release(&r);
	assert_int_equal(CLI(&r, "register-log-dir",
			     pathf(p, "%s/work/logs/agent", T)), 0);
	run_release(&r);
	n = readlink(p, target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	assert_string_equal(target, pathf(q, "%s/log/agent", T));
	assert_int_equal(stat(q, &st), 0);
	assert_int_equal(CLI(&r, "register-log-dir", p), 1);
	run_release(&r);
}

static void test_cli_service_domain(void **state)
{
	struct run r = { 0 };

	(void)state;
	assert_int_equal(CLI(&r, "get-service-domain", "builder-sidecar"), 0);
	assert_string_equal(r.out, "builder-sidecar.mycrs\n");
	run_release(&r);
	assert_int_equal(CLI_ENV(&r, ((const char *const[]){ "OSS_CRS_NAME",
		NULL }), "get-service-domain", "x"), 1);
	assert_non_null(strstr(r.err, "OSS_CRS_NAME is not set"));
	run_release(&r);
	assert_int_equal(CLI(&r, "get-service-domain", "a b"), 2);
	run_release(&r);
}

static void test_cli_sidecar_commands(void **state)
{
	static const char *const cmds[] = { "apply-patch-build",
		"apply-patch-test", "run-pov", "build-project" };
	struct run r = { 0 };
	char p[PATH_MAX], resp[PATH_MAX], want[160];
	char *text;

	(void)state;
	put(pathf(p, "%s/fix.diff", T), "diff", 0644);
	for (size_t i = 0; i < 4; i++) {
		pathf(resp, "%s/resp%zu", T, i);
		if (i == 2)
			CLI(&r, cmds[i], p, resp, "--harness", "fuzz");
		else if (i == 3)
			CLI(&r, cmds[i], "--response-dir", resp,
			    "--fuzz-proj-dir", T);
		else
			CLI(&r, cmds[i], p, resp);
		assert_int_equal(r.code, 1);
		snprintf(want, sizeof(want), "libCRS: '%s' needs the %s "
			 "sidecar, which this crs-ci run does not provide",
			 cmds[i], i == 2 ? "runner" : "builder");
		assert_non_null(strstr(r.err, want));
		run_release(&r);
		assert_file(pathf(p, "%s/retcode", resp), "1");
		text = slurp(pathf(p, "%s/stderr.log", resp));
		assert_non_null(text);
		assert_non_null(strstr(text, want));
		free(text);
		pathf(p, "%s/fix.diff", T);
	}
}

/* With a mailbox nobody answers: the request is left whole, and the
 * contract's "unavailable" answer comes after OSS_CRS_SIDECAR_TIMEOUT. */
static void test_cli_sidecar_mailbox(void **state)
{
	struct run r = { 0 };
	char p[PATH_MAX], resp[PATH_MAX], mb[PATH_MAX], box[PATH_MAX];
	char var[PATH_MAX + 32];
	const char *const env[] = { var, "OSS_CRS_SIDECAR_TIMEOUT=0.3",
				    NULL };
	char *text;
	struct dirent *de;
	DIR *d;
	int seen = 0;

	(void)state;
	put(pathf(p, "%s/fix.diff", T), "diff", 0644);
	snprintf(var, sizeof(var), "OSS_CRS_MAILBOX_DIR=%s",
		 pathf(box, "%s/mbox", T));
	assert_int_equal(mkdir(box, 0755), 0);
	assert_int_equal(mkdir(pathf(mb, "%s/requests", box), 0755), 0);
	assert_int_equal(mkdir(pathf(mb, "%s/responses", box), 0755),
			 0);
	pathf(resp, "%s/resp-mb", T);
	assert_int_equal(CLI_ENV(&r, env, "apply-patch-build", p, resp,
				 "--rebuild-id", "3", "--builder-name",
				 "build"), 1);
	run_release(&r);
	assert_file(pathf(p, "%s/retcode", resp), "1");
	text = slurp(pathf(p, "%s/stderr.log", resp));
	assert_non_null(text);
	assert_string_equal(text, "Builder unavailable or timed out");
	free(text);
	assert_non_null(d = opendir(pathf(mb, "%s/requests", box)));
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		text = slurp(pathf(p, "%s/requests/%s/request.txt", box,
				   de->d_name));
		assert_non_null(text);
		assert_string_equal(text, "kind=apply-patch-build\n"
				    "harness=\nrebuild_id=3\n"
				    "builder_name=build\n");
		free(text);
		seen++;
	}
	closedir(d);
	assert_int_equal(seen, 1);
	/* run-pov needs its harness */
	assert_int_equal(CLI_ENV(&r, env, "run-pov", p, resp), 2);
	run_release(&r);
}

static void test_cli_submit_harness(void **state)
{
	struct run r = { 0 };
	char p[PATH_MAX], q[PATH_MAX];

	(void)state;
	put(pathf(p, "%s/h/proj/build.sh", T), "make\n", 0755);
	put(pathf(p, "%s/h/src/fuzz.c", T), "int x;\n", 0644);
	assert_int_equal(CLI(&r, "submit-harness", "--fuzz-proj-dir",
			     pathf(p, "%s/h/proj", T), "--target-source-dir",
			     pathf(q, "%s/h/src", T), "--name", "fz"), 0);
	run_release(&r);
	assert_file(pathf(p, "%s/submit/harnesses/fz/fuzz-proj/build.sh", T),
		    "make\n");
	assert_file(pathf(p, "%s/submit/harnesses/fz/target-source/fuzz.c",
			  T), "int x;\n");
	assert_int_equal(CLI(&r, "submit-harness", "--fuzz-proj-dir", q,
			     "--name", ".."), 2);
	run_release(&r);
	assert_int_equal(CLI(&r, "submit-harness"), 2);
	run_release(&r);
}

static int find_binary(const char *argv0)
{
	char cand[PATH_MAX + 16], dir[PATH_MAX];
	const char *env = getenv("LIBCRS_BIN");
	char *slash;

	if (env && realpath(env, bin))
		return 0;
	snprintf(dir, sizeof(dir), "%s", argv0);
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		snprintf(cand, sizeof(cand), "%s/../libCRS", dir);
		if (realpath(cand, bin) && access(bin, X_OK) == 0)
			return 0;
	}
	if (realpath("build/libCRS", bin) && access(bin, X_OK) == 0)
		return 0;
	fprintf(stderr, "test_libcrs: no libCRS binary: build it (make "
		"build/libCRS) or set LIBCRS_BIN\n");
	return -1;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_path_normalize),
		cmocka_unit_test_setup_teardown(test_api_submit, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_api_copy, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_api_fetch, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_api_watch_submit, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_api_watch_submit_poll,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_help_and_usage, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cli_env_type, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cli_submit_many, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cli_submit, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cli_submit_build_output,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_skip_build_output,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_download_build_output,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_download_source,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_fetch, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cli_register_submit_dir,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_register_fetch_dir,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_shared_and_log_dirs,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_service_domain,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_sidecar_mailbox,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_sidecar_commands,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_cli_submit_harness,
						setup, teardown),
	};

	(void)argc;
	if (find_binary(argv[0]) != 0)
		return 1;
	/* Daemons re-parent to us, so they can be reaped. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
