/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_engine.c - the Engine API client against a real Docker engine
 *
 * Needs an engine at DOCKER_HOST (default unix:///var/run/docker.sock)
 * and a static busybox at /bin/busybox (Debian: apt-get install -y
 * busybox-static). No registry is used: the test writes a rootfs tar
 * (bin/busybox, bin/sh -> busybox) with tar_context and imports it as
 * crs-ci-test/busybox:latest, builds an image FROM it with the classic
 * builder, runs containers with cpuset, memory limit, bind mount, env and
 * an internal network alias, checks what they wrote, commits one, times
 * out, stops and kills others, and removes everything it labelled. Every
 * image it made is removed at the end, also after a failure. It takes
 * about 5 s on an idle 2-core machine.
 *
 * Build and run from the repository root (after `make build/libcrsci.a`):
 *
 *   cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -g -O2 -I. \
 *      $(pkg-config --cflags libcurl jansson libarchive) \
 *      -o build/tests/test_engine tests/integration/test_engine.c \
 *      build/libcrsci.a \
 *      $(pkg-config --libs libcurl jansson yaml-0.1 libgit2 libarchive \
 *        libcrypto) -lpthread -lcmocka
 *   build/tests/test_engine
 *
 * or from sources only: replace build/libcrsci.a with
 * runner/engine/docker.c runner/http/http.c
 * runner/engine/http_response.c runner/engine/tar_context.c and every
 * common/ source file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "runner/engine/docker.h"
#include "runner/engine/tar_context.h"

#define BASE_REPO "crs-ci-test/busybox"
#define BASE_IMAGE BASE_REPO ":latest"
#define BUSYBOX "/bin/busybox"

/* Shared by the tests, which run in order. */
static struct {
	struct docker_client *d;
	char tmp[64];
	char owner[64];
	char owner_label[128];
	char built[96];		/* crs-ci-test/built:<pid> */
	char committed_repo[64];
	char committed_tag[32];
	char net[64];
	char *rootfs_tar;
} T;

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#define ok(call) do { \
	int r_ = (call); \
	if (r_ != 0) \
		fail_msg("%s: %d: %s", #call, r_, crs_error_last()); \
} while (0)

/* How many containers (any state) and networks carry CRS_CI_LABEL=owner. */
static int owned_count(struct docker_client *d, const char *owner,
		       size_t *containers, size_t *networks)
{
	struct docker_objects o = DOCKER_OBJECTS_INIT;
	char *label = xasprintf("%s=%s", CRS_CI_LABEL, owner);
	int r;

	if ((r = docker_list_labelled(d, DOCKER_CONTAINERS, label, &o)) == 0) {
		*containers = o.nr;
		r = docker_list_labelled(d, DOCKER_NETWORKS, label, &o);
		*networks = o.nr;
	}
	docker_objects_release(&o);
	free(label);
	return r;
}

static void write_text(const char *path, const char *text)
{
	ok(fs_write_file_atomic(path, text, strlen(text)));
}

/* rootfs: bin/busybox and bin/sh -> busybox, as a tar to import. */
static void make_rootfs(void)
{
	char *root = xasprintf("%s/rootfs", T.tmp);
	char *bin = xasprintf("%s/bin", root);
	char *bb = xasprintf("%s/busybox", bin);
	char *sh = xasprintf("%s/sh", bin);

	if (!fs_exists(BUSYBOX))
		fail_msg("%s is missing: apt-get install -y busybox-static",
			 BUSYBOX);
	ok(fs_mkdir_p(bin));
	ok(fs_copy_file(BUSYBOX, bb));
	assert_int_equal(chmod(bb, 0755), 0);
	assert_int_equal(symlink("busybox", sh), 0);
	ok(tar_context_temp_replacing(root, NULL, NULL, 0, &T.rootfs_tar));
	free(sh);
	free(bb);
	free(bin);
	free(root);
}

static int group_setup(void **state)
{
	(void)state;
	snprintf(T.tmp, sizeof(T.tmp), "/tmp/crs-test-engine-XXXXXX");
	if (!mkdtemp(T.tmp))
		return -1;
	snprintf(T.owner, sizeof(T.owner), "crs-ci-test-%ld", (long)getpid());
	snprintf(T.owner_label, sizeof(T.owner_label), "%s=%s", CRS_CI_LABEL,
		 T.owner);
	snprintf(T.built, sizeof(T.built), "crs-ci-test/built:%ld",
		 (long)getpid());
	snprintf(T.committed_repo, sizeof(T.committed_repo),
		 "crs-ci-test/committed");
	snprintf(T.committed_tag, sizeof(T.committed_tag), "%ld",
		 (long)getpid());
	snprintf(T.net, sizeof(T.net), "crs-ci-test-net-%ld", (long)getpid());
	if (docker_client_new(&T.d, NULL) != 0 || docker_ping(T.d) != 0) {
		fprintf(stderr, "test_engine: %s\n", crs_error_last());
		return -1;
	}
	return 0;
}

static int group_teardown(void **state)
{
	char *ref = xasprintf("%s:%s", T.committed_repo, T.committed_tag);

	(void)state;
	if (docker_remove_owned(T.d, T.owner) != 0)
		fprintf(stderr, "clean-up: %s\n", crs_error_last());
	/* Newest first: each is the parent of none that remains. */
	docker_image_remove(T.d, ref, 1);
	docker_image_remove(T.d, T.built, 1);
	docker_image_remove(T.d, BASE_IMAGE, 1);
	crs_error_clear();
	if (T.rootfs_tar)
		unlink(T.rootfs_tar);
	free(T.rootfs_tar);
	fs_remove_tree(T.tmp);
	docker_client_free(T.d);
	free(ref);
	return 0;
}

static void test_ping_dead_socket(void **state)
{
	struct docker_client *d = NULL;
	char *host = xasprintf("unix://%s/dead.sock", T.tmp);

	(void)state;
	ok(docker_client_new(&d, host));
	assert_int_equal(docker_ping(d), CRS_EENGINE);
	assert_true(!strncmp(crs_error_last(), "engine unreachable at ",
			     strlen("engine unreachable at ")));
	assert_non_null(strstr(crs_error_last(), host));
	docker_client_free(d);
	free(host);
}

static void test_import(void **state)
{
	const char *changes[] = { "ENV PATH=/bin", "CMD [\"/bin/sh\"]", NULL };
	char *id = NULL, *wd = NULL, *label = NULL;

	(void)state;
	make_rootfs();
	ok(docker_image_import(T.d, T.rootfs_tar, BASE_REPO, "latest",
			       changes));
	ok(docker_image_exists(T.d, BASE_IMAGE, &id));
	assert_true(!strncmp(id, "sha256:", 7));
	ok(docker_image_workdir(T.d, BASE_IMAGE, &wd));
	assert_string_equal(wd, "");
	assert_int_equal(docker_image_label(T.d, BASE_IMAGE, "nope", &label),
			 CRS_ENOTFOUND);
	assert_int_equal(docker_image_exists(T.d, "crs-ci-test/none:x", NULL),
			 CRS_ENOTFOUND);
	assert_string_equal(crs_error_last(),
			    "image 'crs-ci-test/none:x' not found");
	free(id);
	free(wd);
}

static void test_build(void **state)
{
	char *ctx = xasprintf("%s/ctx", T.tmp);
	char *df = xasprintf("%s/docker/Dockerfile.test", ctx);
	char *log = xasprintf("%s/build.log", T.tmp);
	const char *args[] = { "GREETING=hi there", NULL };
	const char *labels[] = { "io.crs-ci.hash=abc", NULL };
	struct docker_build_opts o = DOCKER_BUILD_OPTS_INIT;
	struct buf b = BUF_INIT;
	char *v = NULL;

	(void)state;
	v = xasprintf("%s/docker", ctx);
	ok(fs_mkdir_p(v));
	free(v);
	write_text(df, "FROM " BASE_IMAGE "\n"
		   "RUN /bin/busybox --install -s /bin && "
		   "echo built-ok > /built.txt\n"
		   "ARG GREETING=none\n"
		   "RUN echo \"greeting=$GREETING\" > /greeting.txt\n"
		   "COPY payload.txt /payload.txt\n"
		   "LABEL io.crs-ci.test=yes\n"
		   "WORKDIR /work\n");
	v = xasprintf("%s/payload.txt", ctx);
	write_text(v, "payload\n");
	free(v);
	v = NULL;
	o.context_dir = ctx;
	o.dockerfile = "docker/Dockerfile.test";
	o.tag = T.built;
	o.buildargs = args;
	o.labels = labels;
	o.log_path = log;
	o.timeout_ms = 120000;
	ok(docker_image_build(T.d, &o));
	ok(fs_read_file(&b, log, 1 << 20));
	assert_non_null(strstr(b.ptr, "Step 1/8 : FROM " BASE_IMAGE));
	assert_non_null(strstr(b.ptr, "Successfully tagged "));
	ok(docker_image_label(T.d, T.built, "io.crs-ci.test", &v));
	assert_string_equal(v, "yes");
	free(v);
	ok(docker_image_label(T.d, T.built, "io.crs-ci.hash", &v));
	assert_string_equal(v, "abc");
	free(v);
	ok(docker_image_workdir(T.d, T.built, &v));
	assert_string_equal(v, "/work");
	free(v);
	buf_release(&b);
	free(log);
	free(df);
	free(ctx);
}

static void test_build_failure(void **state)
{
	char *ctx = xasprintf("%s/ctx-bad", T.tmp);
	char *df = xasprintf("%s/Dockerfile", ctx);
	struct docker_build_opts o = DOCKER_BUILD_OPTS_INIT;

	(void)state;
	ok(fs_mkdir_p(ctx));
	write_text(df, "FROM " BASE_IMAGE "\n"
		   "RUN echo about-to-fail && exit 7\n");
	o.context_dir = ctx;
	o.tag = "crs-ci-test/bad:never";
	assert_int_equal(docker_image_build(T.d, &o), CRS_EBUILD);
	assert_non_null(strstr(crs_error_last(),
			       "returned a non-zero code: 7"));
	assert_non_null(strstr(crs_error_last(), "last output:\n"));
	assert_non_null(strstr(crs_error_last(), "about-to-fail"));
	assert_int_equal(docker_image_exists(T.d, o.tag, NULL), CRS_ENOTFOUND);

	/* Errors before the stream: a Dockerfile that is not there. */
	o.dockerfile = "nope/Dockerfile";
	assert_int_equal(docker_image_build(T.d, &o), CRS_EBUILD);
	assert_non_null(strstr(crs_error_last(), "HTTP "));
	free(df);
	free(ctx);
}

static void test_run(void **state)
{
	const char *labels[] = { T.owner_label, NULL };
	const char *cmd[] = { "sh", "-c",
		"echo hello-stdout; echo hello-stderr >&2; "
		"{ cat /built.txt /greeting.txt /payload.txt; "
		"echo \"foo=$FOO\"; "
		"grep Cpus_allowed_list /proc/self/status; "
		"cat /sys/fs/cgroup/memory.max 2>/dev/null || "
		"cat /sys/fs/cgroup/memory/memory.limit_in_bytes; "
		"nslookup crs-alias >/dev/null 2>&1; echo dns=$?; "
		"pwd; } > /out/result.txt; exit 3", NULL };
	const char *env[] = { "FOO=bar baz", NULL };
	const char *aliases[] = { "crs-alias", NULL };
	char *out_dir = xasprintf("%s/out", T.tmp);
	char *bind = xasprintf("%s:/out", out_dir);
	char *result = xasprintf("%s/result.txt", out_dir);
	const char *binds[] = { bind, NULL };
	struct docker_run_opts o = DOCKER_RUN_OPTS_INIT;
	struct buf b = BUF_INIT;
	char *net_id = NULL, *id = NULL, *img = NULL;
	char *ref = xasprintf("%s:%s", T.committed_repo, T.committed_tag);
	int code = -1;

	(void)state;
	ok(fs_mkdir_p(out_dir));
	ok(docker_network_create(T.d, T.net, 1, labels, &net_id));
	assert_int_equal(docker_network_create(T.d, T.net, 1, labels, NULL),
			 CRS_ECONFLICT);

	o.image = T.built;
	o.cmd = cmd;
	o.env = env;
	o.binds = binds;
	o.labels = labels;
	o.cpuset = "0";
	o.memory = 64 << 20;
	o.network = T.net;
	o.aliases = aliases;
	ok(docker_container_create(T.d, &o, &id));
	assert_int_equal(strlen(id), 64);
	ok(docker_container_start(T.d, id));
	ok(docker_container_wait(T.d, id, 30000, NULL, &code));
	assert_int_equal(code, 3);
	assert_int_equal(docker_container_running(T.d, id), 0);

	ok(docker_container_logs(T.d, id, &b, 0));
	assert_non_null(strstr(b.ptr, "hello-stdout\n"));
	assert_non_null(strstr(b.ptr, "hello-stderr\n"));
	ok(docker_container_logs(T.d, id, &b, 5));
	assert_int_equal(b.len, 5);

	buf_reset(&b);
	ok(fs_read_file(&b, result, 1 << 20));
	assert_string_equal(b.ptr, "built-ok\ngreeting=hi there\npayload\n"
			    "foo=bar baz\nCpus_allowed_list:\t0\n67108864\n"
			    "dns=0\n/work\n");

	ok(docker_container_commit(T.d, id, T.committed_repo,
				   T.committed_tag, &img));
	assert_true(!strncmp(img, "sha256:", 7));
	ok(docker_image_exists(T.d, ref, NULL));
	free(img);
	img = NULL;

	assert_int_equal(docker_container_start(T.d, "crs-ci-test-nonexistent"),
			 CRS_ENOTFOUND);
	assert_string_equal(crs_error_last(),
			    "container 'crs-ci-test-nonexistent' not found");

	o.image = "crs-ci-test/none:x";
	assert_int_equal(docker_container_create(T.d, &o, &img), CRS_ENOTFOUND);
	buf_release(&b);
	free(ref);
	free(img);
	free(id);
	free(net_id);
	free(result);
	free(bind);
	free(out_dir);
}

static char *start_sleeper(void)
{
	const char *labels[] = { T.owner_label, NULL };
	const char *cmd[] = { "sleep", "100", NULL };
	struct docker_run_opts o = DOCKER_RUN_OPTS_INIT;
	char *id = NULL;

	o.image = T.built;
	o.cmd = cmd;
	o.labels = labels;
	o.network = "none";
	ok(docker_container_create(T.d, &o, &id));
	ok(docker_container_start(T.d, id));
	ok(docker_container_start(T.d, id));	/* 304: already running */
	return id;
}

static void test_timeout_stop_kill(void **state)
{
	char *a = start_sleeper(), *b = start_sleeper();
	volatile int stop = 1;
	int code = -1;
	long t0;

	(void)state;
	t0 = now_ms();
	assert_int_equal(docker_container_wait(T.d, a, 500, NULL, &code),
			 CRS_ETIMEOUT);
	assert_true(now_ms() - t0 >= 500);
	assert_int_equal(docker_container_wait(T.d, a, -1, &stop, &code),
			 CRS_EINTR);
	assert_int_equal(docker_container_running(T.d, a), 1);
	ok(docker_container_stop(T.d, a, 1));
	assert_int_equal(docker_container_running(T.d, a), 0);
	ok(docker_container_wait(T.d, a, 10000, NULL, &code));
	assert_true(code == 143 || code == 137);
	ok(docker_container_stop(T.d, a, 1));	/* not running: fine */
	assert_int_equal(docker_container_kill(T.d, a, "KILL"), CRS_ECONFLICT);

	ok(docker_container_kill(T.d, b, "SIGKILL"));
	ok(docker_container_wait(T.d, b, 10000, NULL, &code));
	assert_int_equal(code, 137);
	ok(docker_container_remove(T.d, b, 0));
	assert_int_equal(docker_container_remove(T.d, b, 0), CRS_ENOTFOUND);
	free(a);
	free(b);
}

static void test_remove_owned(void **state)
{
	size_t nc = 0, nn = 0;
	char *c = start_sleeper();

	(void)state;
	ok(owned_count(T.d, T.owner, &nc, &nn));
	/* test_run's container, the stopped sleeper and this one. */
	assert_int_equal(nc, 3);
	assert_int_equal(nn, 1);
	ok(docker_remove_owned(T.d, T.owner));
	ok(owned_count(T.d, T.owner, &nc, &nn));
	assert_int_equal(nc, 0);
	assert_int_equal(nn, 0);
	ok(docker_remove_owned(T.d, T.owner));	/* nothing left: fine */
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ping_dead_socket),
		cmocka_unit_test(test_import),
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_build_failure),
		cmocka_unit_test(test_run),
		cmocka_unit_test(test_timeout_stop_kill),
		cmocka_unit_test(test_remove_owned),
	};
	long t0 = now_ms();
	int failed = cmocka_run_group_tests(tests, group_setup,
					    group_teardown);

	fprintf(stderr, "test_engine: %ld ms\n", now_ms() - t0);
	return failed;
}
