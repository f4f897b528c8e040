/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_docker.c - the Engine API client against a fake transport
 *
 * Each test queues the engine's canned answers, calls one docker_*
 * function and asserts the exact requests it sent (method, path, JSON
 * body) and how it mapped the answers. Also covers DOCKER_HOST parsing,
 * the real libcurl transport against a dead socket and the reproducible
 * tar writer (tar_context).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <jansson.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "runner/engine/docker.h"
#include "runner/engine/tar_context.h"
#include "tests/unit/fake_transport.h"

#define ID64 "abc123456789def0abc123456789def0abc123456789def0abc123456789def0"

struct fixture {
	struct fake_transport f;
	struct docker_client *d;
	char tmp[64];
};

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof(*fx));

	fake_init(&fx->f);
	docker_client_new_with_transport(&fx->d, &fx->f.t);
	snprintf(fx->tmp, sizeof(fx->tmp), "/tmp/crs-test-docker-XXXXXX");
	if (!mkdtemp(fx->tmp))
		return -1;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	docker_client_free(fx->d);
	assert_true(fx->f.freed);
	fake_release(&fx->f);
	fs_remove_tree(fx->tmp);
	free(fx);
	return 0;
}

static json_t *call_json(const struct fake_call *c)
{
	json_error_t err;
	json_t *j = json_loadb(c->body.ptr, c->body.len, 0, &err);

	if (!j)
		fail_msg("request body is not JSON: %s: %s", err.text,
			 c->body.ptr);
	return j;
}

static const char *jstr(json_t *o, const char *path)
{
	/* path like "HostConfig.CpusetCpus" (keys without dots) */
	char *p = xstrdup(path), *save = NULL;
	const char *s;

	for (char *k = strtok_r(p, ".", &save); k;
	     k = strtok_r(NULL, ".", &save))
		o = json_object_get(o, k);
	free(p);
	s = json_string_value(o);
	if (!s)
		fail_msg("%s is not a string", path);
	return s;
}

static void write_text(const char *path, const char *text)
{
	assert_int_equal(fs_write_file_atomic(path, text, strlen(text)), 0);
}

static void read_text(struct buf *b, const char *path)
{
	buf_reset(b);
	assert_int_equal(fs_read_file(b, path, 1 << 20), 0);
}

/* --- client construction ------------------------------------------------ */

static void test_client_new_from_env(void **state)
{
	struct fixture *fx = *state;
	struct docker_client *d = NULL;
	char *dir = xasprintf("%s/certs", fx->tmp);
	char *p;

	unsetenv("DOCKER_TLS_VERIFY");
	unsetenv("DOCKER_HOST");
	assert_int_equal(docker_client_new(&d, NULL), 0);
	assert_string_equal(docker_client_host(d),
			    "unix:///var/run/docker.sock");
	docker_client_free(d);

	setenv("DOCKER_HOST", "", 1);
	assert_int_equal(docker_client_new(&d, NULL), 0);
	assert_string_equal(docker_client_host(d),
			    "unix:///var/run/docker.sock");
	docker_client_free(d);

	setenv("DOCKER_HOST", "unix:///run/podman/podman.sock", 1);
	assert_int_equal(docker_client_new(&d, NULL), 0);
	assert_string_equal(docker_client_host(d),
			    "unix:///run/podman/podman.sock");
	docker_client_free(d);

	setenv("DOCKER_HOST", "tcp://docker:2375", 1);
	assert_int_equal(docker_client_new(&d, NULL), 0);
	assert_string_equal(docker_client_host(d), "tcp://docker:2375");
	docker_client_free(d);

	/* An explicit host wins over the environment. */
	assert_int_equal(docker_client_new(&d, "tcp://[::1]:2375"), 0);
	assert_string_equal(docker_client_host(d), "tcp://[::1]:2375");
	docker_client_free(d);

	static const char *const bad[] = {
		"ssh://user@host", "tcp://", "tcp://:2375", "tcp://h:0",
		"tcp://h:65536", "tcp://h:12x", "tcp://h:2375/path", "unix://",
		"npipe:////./pipe/docker_engine", "/var/run/docker.sock",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("DOCKER_HOST", bad[i], 1);
		d = (struct docker_client *)1;
		assert_int_equal(docker_client_new(&d, NULL), CRS_EINPUT);
		assert_null(d);
		assert_non_null(strstr(crs_error_last(), "DOCKER_HOST"));
		assert_non_null(strstr(crs_error_last(), bad[i]));
	}

	/* TLS: certificates must be there (not read until connecting). */
	setenv("DOCKER_HOST", "tcp://docker:2376", 1);
	setenv("DOCKER_TLS_VERIFY", "1", 1);
	setenv("DOCKER_CERT_PATH", dir, 1);
	assert_int_equal(docker_client_new(&d, NULL), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "ca.pem"));
	assert_int_equal(fs_mkdir_p(dir), 0);
	static const char *const files[] = { "ca.pem", "cert.pem", "key.pem" };
	for (size_t i = 0; i < 3; i++) {
		p = xasprintf("%s/%s", dir, files[i]);
		write_text(p, "x\n");
		free(p);
	}
	assert_int_equal(docker_client_new(&d, NULL), 0);
	docker_client_free(d);

	/* DOCKER_TLS_VERIFY=0 means plain TCP: no certificates needed. */
	setenv("DOCKER_CERT_PATH", "/nonexistent", 1);
	setenv("DOCKER_TLS_VERIFY", "0", 1);
	assert_int_equal(docker_client_new(&d, NULL), 0);
	docker_client_free(d);

	unsetenv("DOCKER_HOST");
	unsetenv("DOCKER_TLS_VERIFY");
	unsetenv("DOCKER_CERT_PATH");
	free(dir);
}

static void test_ping_dead_socket(void **state)
{
	struct fixture *fx = *state;
	struct docker_client *d = NULL;
	char *host = xasprintf("unix://%s/no.sock", fx->tmp);
	char *want = xasprintf("engine unreachable at %s: ", host);

	assert_int_equal(docker_client_new(&d, host), 0);
	assert_int_equal(docker_ping(d), CRS_EENGINE);
	assert_true(!strncmp(crs_error_last(), want, strlen(want)));
	assert_non_null(strstr(crs_error_last(), "No such file"));
	docker_client_free(d);
	free(want);
	free(host);
}

static void test_ping(void **state)
{
	struct fixture *fx = *state;

	fake_reply(&fx->f, 200, "OK");
	fake_reply(&fx->f, 500, "{\"message\":\"daemon is sick\"}\n");
	fake_fail(&fx->f, CRS_EENGINE, "engine unreachable at fake: down");
	assert_int_equal(docker_ping(fx->d), 0);
	assert_int_equal(docker_ping(fx->d), CRS_EENGINE);
	assert_non_null(strstr(crs_error_last(), "HTTP 500: daemon is sick"));
	assert_int_equal(docker_ping(fx->d), CRS_EENGINE);
	assert_string_equal(crs_error_last(),
			    "engine unreachable at fake: down");
	assert_string_equal(fx->f.calls[0].method, "GET");
	assert_string_equal(fx->f.calls[0].path, "/v1.41/_ping");
}

/* --- containers --------------------------------------------------------- */

static void test_container_create(void **state)
{
	struct fixture *fx = *state;
	const char *cmd[] = { "sh", "-c", "echo hi", NULL };
	const char *entry[] = { "/init", NULL };
	const char *env[] = { "FOO=bar", "EMPTY=", NULL };
	const char *binds[] = { "/host/out:/out", "/host/src:/src:ro", NULL };
	const char *labels[] = { CRS_CI_LABEL "=scan-1", "role=fuzzer", NULL };
	const char *aliases[] = { "fuzzer", "crs-a", NULL };
	const char *caps[] = { "CHOWN", "SETUID", NULL };
	struct docker_run_opts o = DOCKER_RUN_OPTS_INIT;
	const struct fake_call *c;
	json_t *j, *hc;
	char *id = NULL;

	o.image = "crs/fuzzer:abc";
	o.name = "crs-ci scan/1";
	o.cmd = cmd;
	o.entrypoint = entry;
	o.env = env;
	o.binds = binds;
	o.labels = labels;
	o.workdir = "/work";
	o.user = "1000:1000";
	o.cpuset = "0-1";
	o.memory = 64 << 20;
	o.shm_size = 2LL << 30;
	o.network = "crs-net-a";
	o.aliases = aliases;
	o.cap_add = caps;
	o.pids_limit = 4096;
	o.log_max_size = "1m";
	o.log_max_file = 3;
	fake_reply(&fx->f, 201, "{\"Id\":\"" ID64 "\",\"Warnings\":[]}");
	assert_int_equal(docker_container_create(fx->d, &o, &id), 0);
	assert_string_equal(id, ID64);
	free(id);

	assert_int_equal(fx->f.nr_calls, 1);
	c = &fx->f.calls[0];
	assert_string_equal(c->method, "POST");
	assert_string_equal(c->path,
			    "/v1.41/containers/create?name=crs-ci%20scan%2F1");
	assert_string_equal(c->content_type, "application/json");
	j = call_json(c);
	assert_string_equal(jstr(j, "Image"), "crs/fuzzer:abc");
	assert_int_equal(json_array_size(json_object_get(j, "Cmd")), 3);
	assert_string_equal(json_string_value(json_array_get(
		json_object_get(j, "Cmd"), 2)), "echo hi");
	assert_string_equal(json_string_value(json_array_get(
		json_object_get(j, "Entrypoint"), 0)), "/init");
	assert_int_equal(json_array_size(json_object_get(j, "Env")), 2);
	assert_string_equal(json_string_value(json_array_get(
		json_object_get(j, "Env"), 0)), "FOO=bar");
	assert_string_equal(json_string_value(json_array_get(
		json_object_get(j, "Env"), 1)), "EMPTY=");
	assert_string_equal(jstr(j, "WorkingDir"), "/work");
	assert_string_equal(jstr(j, "User"), "1000:1000");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		j, "Labels"), CRS_CI_LABEL)), "scan-1");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		j, "Labels"), "role")), "fuzzer");
	assert_int_equal(json_object_size(json_object_get(j, "Labels")), 2);
	assert_true(json_is_false(json_object_get(j, "Tty")));

	hc = json_object_get(j, "HostConfig");
	assert_string_equal(jstr(hc, "CpusetCpus"), "0-1");
	assert_int_equal(json_integer_value(json_object_get(hc, "Memory")),
			 64 << 20);
	assert_int_equal(json_integer_value(json_object_get(hc,
			 "MemorySwap")), 64 << 20);
	assert_int_equal(json_integer_value(json_object_get(hc, "ShmSize")),
			 2LL << 30);
	assert_string_equal(jstr(hc, "NetworkMode"), "crs-net-a");
	assert_null(json_object_get(j, "NetworkDisabled"));
	assert_true(json_is_false(json_object_get(hc, "Privileged")));
	assert_true(json_is_true(json_object_get(hc, "Init")));
	assert_int_equal(json_array_size(json_object_get(hc, "Binds")), 2);
	assert_string_equal(json_string_value(json_array_get(
		json_object_get(hc, "Binds"), 1)), "/host/src:/src:ro");
	assert_string_equal(json_string_value(json_array_get(
		json_object_get(hc, "CapDrop"), 0)), "ALL");
	assert_int_equal(json_array_size(json_object_get(hc, "CapAdd")), 2);
	assert_string_equal(json_string_value(json_array_get(
		json_object_get(hc, "CapAdd"), 1)), "SETUID");
	assert_int_equal(json_integer_value(json_object_get(hc, "PidsLimit")),
			 4096);
	assert_string_equal(jstr(json_object_get(json_object_get(hc,
		"LogConfig"), "Config"), "max-size"), "1m");
	assert_string_equal(jstr(json_object_get(json_object_get(hc,
		"LogConfig"), "Config"), "max-file"), "3");
	json_t *al = json_object_get(json_object_get(json_object_get(
		json_object_get(j, "NetworkingConfig"), "EndpointsConfig"),
		"crs-net-a"), "Aliases");
	assert_int_equal(json_array_size(al), 2);
	assert_string_equal(json_string_value(json_array_get(al, 0)),
			    "fuzzer");
	json_decref(j);
}

static void test_container_create_minimal_and_errors(void **state)
{
	struct fixture *fx = *state;
	struct docker_run_opts o = DOCKER_RUN_OPTS_INIT;
	const char *bad_labels[] = { "novalue", NULL };
	char *id = NULL;
	json_t *j, *hc;

	o.image = "img";
	fake_reply(&fx->f, 201, "{\"Id\":\"x1\",\"Warnings\":null}");
	assert_int_equal(docker_container_create(fx->d, &o, &id), 0);
	free(id);
	assert_string_equal(fx->f.calls[0].path, "/v1.41/containers/create");
	j = call_json(&fx->f.calls[0]);
	hc = json_object_get(j, "HostConfig");
	/* Unset limits are left to the engine's defaults. */
	assert_null(json_object_get(hc, "Memory"));
	assert_null(json_object_get(hc, "MemorySwap"));
	assert_null(json_object_get(hc, "CpusetCpus"));
	assert_null(json_object_get(hc, "NetworkMode"));
	assert_null(json_object_get(j, "Cmd"));
	assert_null(json_object_get(j, "NetworkingConfig"));
	assert_true(json_is_true(json_object_get(hc, "Init")));
	/* Docker's defaults are never kept: no capability, no new
	 * privileges, a pids limit and a capped log (issue 11). */
	assert_true(json_is_false(json_object_get(hc, "Privileged")));
	assert_int_equal(json_array_size(json_object_get(hc, "CapDrop")), 1);
	assert_string_equal(json_string_value(json_array_get(
		json_object_get(hc, "CapDrop"), 0)), "ALL");
	assert_int_equal(json_array_size(json_object_get(hc, "CapAdd")), 0);
	assert_int_equal(json_array_size(json_object_get(hc, "SecurityOpt")),
			 1);
	assert_string_equal(json_string_value(json_array_get(
		json_object_get(hc, "SecurityOpt"), 0)), "no-new-privileges");
	assert_int_equal(json_integer_value(json_object_get(hc, "PidsLimit")),
			 1024);
	assert_string_equal(jstr(json_object_get(hc, "LogConfig"), "Type"),
			    "json-file");
	assert_string_equal(jstr(json_object_get(json_object_get(hc,
		"LogConfig"), "Config"), "max-size"), "16m");
	assert_string_equal(jstr(json_object_get(json_object_get(hc,
		"LogConfig"), "Config"), "max-file"), "2");
	json_decref(j);

	/* No network: the engine sets up no sandbox for it either. */
	o.network = "none";
	fake_reply(&fx->f, 201, "{\"Id\":\"x2\",\"Warnings\":null}");
	assert_int_equal(docker_container_create(fx->d, &o, &id), 0);
	free(id);
	j = call_json(&fx->f.calls[1]);
	assert_string_equal(jstr(json_object_get(j, "HostConfig"),
				 "NetworkMode"), "none");
	assert_true(json_is_true(json_object_get(j, "NetworkDisabled")));
	json_decref(j);
	o.network = NULL;

	fake_reply(&fx->f, 404, "{\"message\":\"No such image: img:latest\"}");
	assert_int_equal(docker_container_create(fx->d, &o, &id),
			 CRS_ENOTFOUND);
	assert_null(id);
	assert_string_equal(crs_error_last(), "image 'img' not found");

	o.name = "dup";
	fake_reply(&fx->f, 409, "{\"message\":\"Conflict. The container "
		   "name \\\"/dup\\\" is already in use\"}");
	assert_int_equal(docker_container_create(fx->d, &o, &id),
			 CRS_ECONFLICT);
	assert_non_null(strstr(crs_error_last(), "is already in use"));

	o.labels = bad_labels;
	assert_int_equal(docker_container_create(fx->d, &o, &id), CRS_EINPUT);
	assert_string_equal(crs_error_last(),
			    "label 'novalue' is not KEY=VALUE");
	assert_int_equal(fx->f.nr_calls, 4);	/* nothing sent */
}

static void test_container_start_statuses(void **state)
{
	struct fixture *fx = *state;

	fake_reply(&fx->f, 204, "");
	fake_reply(&fx->f, 304, "");
	fake_reply(&fx->f, 404, "{\"message\":\"No such container: "
		   ID64 "\"}");
	fake_reply(&fx->f, 500, "{\"message\":\"cpuset 7 is not "
		   "available\"}\n");
	fake_reply(&fx->f, 502, "<html>bad gateway</html>");
	assert_int_equal(docker_container_start(fx->d, ID64), 0);
	assert_int_equal(docker_container_start(fx->d, ID64), 0);
	assert_int_equal(docker_container_start(fx->d, ID64), CRS_ENOTFOUND);
	assert_string_equal(crs_error_last(),
			    "container 'abc123456789' not found");
	assert_int_equal(docker_container_start(fx->d, ID64), CRS_EENGINE);
	assert_string_equal(crs_error_last(), "start container "
			    "'abc123456789': HTTP 500: cpuset 7 is not "
			    "available");
	assert_int_equal(docker_container_start(fx->d, "name"), CRS_EENGINE);
	assert_string_equal(crs_error_last(), "start container 'name': "
			    "HTTP 502: <html>bad gateway</html>");
	assert_string_equal(fx->f.calls[0].method, "POST");
	assert_string_equal(fx->f.calls[0].path,
			    "/v1.41/containers/" ID64 "/start");
	assert_null(fx->f.calls[0].content_type);
	assert_int_equal(fx->f.calls[0].body.len, 0);
}

static void test_container_stop_kill_remove(void **state)
{
	struct fixture *fx = *state;

	fake_reply(&fx->f, 204, "");
	fake_reply(&fx->f, 304, "");
	fake_reply(&fx->f, 204, "");
	fake_reply(&fx->f, 409, "{\"message\":\"Container x is not "
		   "running\"}");
	fake_reply(&fx->f, 204, "");
	fake_reply(&fx->f, 409, "{\"message\":\"You cannot remove a running "
		   "container\"}");
	fake_reply(&fx->f, 201, "{\"Id\":\"sha256:feed\"}");
	assert_int_equal(docker_container_stop(fx->d, "c1", 5), 0);
	assert_int_equal(docker_container_stop(fx->d, "c1", 5), 0);
	assert_int_equal(docker_container_kill(fx->d, "c1", "SIGTERM"), 0);
	assert_int_equal(docker_container_kill(fx->d, "c1", NULL),
			 CRS_ECONFLICT);
	assert_non_null(strstr(crs_error_last(), "is not running"));
	assert_int_equal(docker_container_remove(fx->d, "c1", 1), 0);
	assert_int_equal(docker_container_remove(fx->d, "c1", 0),
			 CRS_ECONFLICT);
	char *img = NULL;
	assert_int_equal(docker_container_commit(fx->d, "c1", "crs/snap",
						 "v1", &img), 0);
	assert_string_equal(img, "sha256:feed");
	free(img);

	assert_string_equal(fx->f.calls[0].path,
			    "/v1.41/containers/c1/stop?t=5");
	assert_true(fx->f.calls[0].timeout_ms >= 5000);
	assert_string_equal(fx->f.calls[2].path,
			    "/v1.41/containers/c1/kill?signal=SIGTERM");
	assert_string_equal(fx->f.calls[3].path, "/v1.41/containers/c1/kill");
	assert_string_equal(fx->f.calls[4].method, "DELETE");
	assert_string_equal(fx->f.calls[4].path,
			    "/v1.41/containers/c1?v=1&force=1");
	assert_string_equal(fx->f.calls[5].path, "/v1.41/containers/c1?v=1");
	assert_string_equal(fx->f.calls[6].method, "POST");
	assert_string_equal(fx->f.calls[6].path,
			    "/v1.41/commit?container=c1&repo=crs%2Fsnap&"
			    "tag=v1");
}

static const char *state_json(int running, int code)
{
	static char s[128];

	snprintf(s, sizeof(s), "{\"Id\":\"c\",\"State\":{\"Status\":\"%s\","
		 "\"Running\":%s,\"ExitCode\":%d}}", running ? "running" :
		 "exited", running ? "true" : "false", code);
	return s;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void test_container_wait(void **state)
{
	struct fixture *fx = *state;
	char running[128], exited[128];
	volatile int stop = 0;
	int code = -1;
	long t0, dt;

	snprintf(running, sizeof(running), "%s", state_json(1, 0));
	snprintf(exited, sizeof(exited), "%s", state_json(0, 3));
	fake_reply(&fx->f, 200, running);
	fake_reply(&fx->f, 200, running);
	fake_reply(&fx->f, 200, exited);
	t0 = now_ms();
	assert_int_equal(docker_container_wait(fx->d, "c", 5000, &stop,
					       &code), 0);
	dt = now_ms() - t0;
	assert_int_equal(code, 3);
	assert_int_equal(fx->f.nr_calls, 3);
	assert_string_equal(fx->f.calls[0].path, "/v1.41/containers/c/json");
	assert_true(dt >= 380 && dt < 2000);	/* two 200 ms polls */

	/* Deadline: still running after 300 ms. */
	for (int i = 0; i < 4; i++)
		fake_reply(&fx->f, 200, running);
	t0 = now_ms();
	assert_int_equal(docker_container_wait(fx->d, "c", 300, NULL, &code),
			 CRS_ETIMEOUT);
	dt = now_ms() - t0;
	assert_true(dt >= 290 && dt < 2000);
	assert_string_equal(crs_error_last(),
			    "container 'c' still running after 300 ms");
	fx->f.next = fx->f.nr_replies;	/* drop unused replies */

	/* Interrupted: no request at all. */
	stop = 1;
	size_t calls = fx->f.nr_calls;
	assert_int_equal(docker_container_wait(fx->d, "c", -1, &stop, &code),
			 CRS_EINTR);
	assert_int_equal(fx->f.nr_calls, calls);

	fake_reply(&fx->f, 404, "{\"message\":\"No such container: c\"}");
	assert_int_equal(docker_container_wait(fx->d, "c", -1, NULL, NULL),
			 CRS_ENOTFOUND);
	fake_reply(&fx->f, 200, running);
	fake_reply(&fx->f, 200, exited);
	assert_int_equal(docker_container_running(fx->d, "c"), 1);
	assert_int_equal(docker_container_running(fx->d, "c"), 0);
}

/* A logs frame: header (stream, 0, 0, 0, big-endian length) + payload. */
static void frame(struct buf *b, int stream, const char *payload)
{
	size_t n = strlen(payload);
	unsigned char h[8] = { (unsigned char)stream, 0, 0, 0,
			       (unsigned char)(n >> 24),
			       (unsigned char)(n >> 16),
			       (unsigned char)(n >> 8), (unsigned char)n };

	buf_add(b, h, 8);
	buf_add(b, payload, n);
}

static void test_container_logs(void **state)
{
	struct fixture *fx = *state;
	struct buf raw = BUF_INIT, out = BUF_INIT;
	struct fake_chunk ch[6];

	frame(&raw, 1, "hello ");
	frame(&raw, 2, "err\n");
	frame(&raw, 1, "world\n");
	frame(&raw, 1, "");
	/* Cut inside the 2nd header, inside the 3rd payload, and at the
	 * boundary before the last (empty) frame. */
	ch[0] = (struct fake_chunk){ raw.ptr, 14 + 3 };
	ch[1] = (struct fake_chunk){ raw.ptr + 17, 5 };
	ch[2] = (struct fake_chunk){ raw.ptr + 22, 4 + 8 + 2 };
	ch[3] = (struct fake_chunk){ raw.ptr + 36, 4 };
	ch[4] = (struct fake_chunk){ raw.ptr + 40, raw.len - 40 };
	ch[5] = (struct fake_chunk){ NULL, 0 };
	assert_int_equal(ch[4].len, 8);
	fake_reply_chunks(&fx->f, 200, ch);
	assert_int_equal(docker_container_logs(fx->d, "c", &out, 0), 0);
	assert_int_equal(out.len, strlen("hello err\nworld\n"));
	assert_string_equal(out.ptr, "hello err\nworld\n");
	assert_string_equal(fx->f.calls[0].method, "GET");
	assert_string_equal(fx->f.calls[0].path,
			    "/v1.41/containers/c/logs?stdout=1&stderr=1");
	assert_true(fx->f.calls[0].streamed);

	/* Only the tail is kept. */
	fake_reply_chunks(&fx->f, 200, ch);
	assert_int_equal(docker_container_logs(fx->d, "c", &out, 7), 0);
	assert_string_equal(out.ptr, "\nworld\n");

	/* Byte by byte, with binary content. */
	struct buf bin = BUF_INIT;
	struct fake_chunk *one = xcalloc(64, sizeof(*one));
	unsigned char h[8] = { 1, 0, 0, 0, 0, 0, 0, 3 };
	buf_add(&bin, h, 8);
	buf_add(&bin, "a\0b", 3);
	for (size_t i = 0; i < bin.len; i++)
		one[i] = (struct fake_chunk){ bin.ptr + i, 1 };
	fake_reply_chunks(&fx->f, 200, one);
	assert_int_equal(docker_container_logs(fx->d, "c", &out, 0), 0);
	assert_int_equal(out.len, 3);
	assert_memory_equal(out.ptr, "a\0b", 3);

	/* A TTY container's raw stream is refused. */
	fake_reply(&fx->f, 200, "plain text output\n");
	assert_int_equal(docker_container_logs(fx->d, "c", &out, 0),
			 CRS_EENGINE);
	assert_int_equal(out.len, 0);
	assert_non_null(strstr(crs_error_last(), "not a multiplexed"));

	/* An error status carries the engine's message, not a frame. */
	fake_reply(&fx->f, 404, "{\"message\":\"No such container: c\"}");
	assert_int_equal(docker_container_logs(fx->d, "c", &out, 0),
			 CRS_ENOTFOUND);
	assert_string_equal(crs_error_last(), "container 'c' not found");

	free(one);
	buf_release(&bin);
	buf_release(&raw);
	buf_release(&out);
}

/* --- images ------------------------------------------------------------- */

static void test_image_inspect(void **state)
{
	struct fixture *fx = *state;
	const char *img = "{\"Id\":\"sha256:" ID64 "\",\"Config\":{"
		"\"WorkingDir\":\"/src/proj\",\"Labels\":{\"io.crs-ci.hash\":"
		"\"abc\"}}}";
	char *s = NULL;

	fake_reply(&fx->f, 200, img);
	fake_reply(&fx->f, 200, img);
	fake_reply(&fx->f, 200, img);
	fake_reply(&fx->f, 200, img);
	fake_reply(&fx->f, 200, "{\"Id\":\"x\",\"Config\":{\"WorkingDir\":"
		   "\"\",\"Labels\":null}}");
	fake_reply(&fx->f, 404, "{\"message\":\"No such image: gcr.io/x\"}");
	assert_int_equal(docker_image_exists(fx->d, "gcr.io/oss-fuzz-base/"
					     "base-builder:v1", &s), 0);
	assert_string_equal(s, "sha256:" ID64);
	free(s);
	assert_string_equal(fx->f.calls[0].path, "/v1.41/images/gcr.io%2F"
			    "oss-fuzz-base%2Fbase-builder%3Av1/json");
	assert_int_equal(docker_image_workdir(fx->d, "i", &s), 0);
	assert_string_equal(s, "/src/proj");
	free(s);
	assert_int_equal(docker_image_label(fx->d, "i", "io.crs-ci.hash", &s),
			 0);
	assert_string_equal(s, "abc");
	free(s);
	assert_int_equal(docker_image_label(fx->d, "i", "nope", &s),
			 CRS_ENOTFOUND);
	assert_null(s);
	assert_string_equal(crs_error_last(), "image 'i' has no label 'nope'");
	assert_int_equal(docker_image_workdir(fx->d, "i", &s), 0);
	assert_string_equal(s, "");
	free(s);
	assert_int_equal(docker_image_exists(fx->d, "gcr.io/x", NULL),
			 CRS_ENOTFOUND);
	assert_string_equal(crs_error_last(), "image 'gcr.io/x' not found");
}

static void test_image_tag_remove(void **state)
{
	struct fixture *fx = *state;

	fake_reply(&fx->f, 201, "");
	fake_reply(&fx->f, 200, "[{\"Untagged\":\"a:b\"}]");
	fake_reply(&fx->f, 409, "{\"message\":\"conflict: unable to remove "
		   "repository reference (must force)\"}");
	assert_int_equal(docker_image_tag(fx->d, "sha256:" ID64, "libcrs",
					  "latest"), 0);
	assert_int_equal(docker_image_remove(fx->d, "a:b", 1), 0);
	assert_int_equal(docker_image_remove(fx->d, "a:b", 0), CRS_ECONFLICT);
	assert_string_equal(fx->f.calls[0].path, "/v1.41/images/sha256%3A"
			    ID64 "/tag?repo=libcrs&tag=latest");
	assert_string_equal(fx->f.calls[1].method, "DELETE");
	assert_string_equal(fx->f.calls[1].path,
			    "/v1.41/images/a%3Ab?force=1");
	assert_string_equal(fx->f.calls[2].path, "/v1.41/images/a%3Ab");
}

static char *make_context(struct fixture *fx)
{
	char *dir = xasprintf("%s/ctx", fx->tmp);
	char *p;

	assert_int_equal(fs_mkdir_p(dir), 0);
	p = xasprintf("%s/Dockerfile", dir);
	write_text(p, "FROM scratch\n");
	free(p);
	return dir;
}

/* Does the tar in `b` hold an entry named `name`? */
static int tar_has(const struct buf *b, const char *name)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	int found = 0;

	archive_read_support_format_tar(a);
	assert_int_equal(archive_read_open_memory(a, b->ptr, b->len),
			 ARCHIVE_OK);
	while (archive_read_next_header(a, &e) == ARCHIVE_OK)
		if (!strcmp(archive_entry_pathname(e), name))
			found = 1;
	archive_read_free(a);
	return found;
}

static void test_image_build_error(void **state)
{
	struct fixture *fx = *state;
	char *ctx = make_context(fx);
	char *log = xasprintf("%s/build.log", fx->tmp);
	const char *args[] = { "CC=clang", "X=a b", NULL };
	const char *labels[] = { "io.crs-ci.hash=h1", NULL };
	struct docker_build_opts o = DOCKER_BUILD_OPTS_INIT;
	struct buf got = BUF_INIT;
	/* JSON lines cut in the middle of objects and of "\r\n". */
	static const char s1[] = "{\"stream\":\"Step 1/2 : FROM base\\n\"}\r"
		"\n{\"stream\":\" ---\\u003e 1234\\n\"}\r\n{\"str";
	static const char s2[] = "eam\":\"Step 2/2 : RUN make\\n\"}\r\n"
		"{\"stream\":\"cc -c a.c\\n\"}\r";
	static const char s3[] = "\n{\"stream\":\"\\u001b[91ma.c:1: error: "
		"boom\\u001b[0m\\n\"}\r\n"
		"{\"errorDetail\":{\"code\":2,\"message\":\"The command "
		"'/bin/sh -c make' returned a non-zero code: 2\"},\"error\":"
		"\"The command '/bin/sh -c make' returned a non-zero code: "
		"2\"}\r\n";
	const struct fake_chunk ch[] = {
		{ s1, sizeof(s1) - 1 }, { s2, sizeof(s2) - 1 },
		{ s3, sizeof(s3) - 1 }, { NULL, 0 },
	};
	const struct fake_call *c;
	char *want;
	int step = -1;

	o.context_dir = ctx;
	o.dockerfile = "docker/Dockerfile.fuzz";
	o.tag = "crs-ci/target:h1";
	o.buildargs = args;
	o.labels = labels;
	o.log_path = log;
	o.failed_step = &step;
	write_text(log, "earlier\n");
	fake_reply_chunks(&fx->f, 200, ch);
	assert_int_equal(docker_image_build(fx->d, &o), CRS_EBUILD);
	/* the failing step's lines, as lines, colour codes stripped */
	want = xasprintf("build 'crs-ci/target:h1': The command '/bin/sh -c "
			 "make' returned a non-zero code: 2 (log %s)\nlast "
			 "output:\nStep 2/2 : RUN make\ncc -c a.c\n"
			 "a.c:1: error: boom", log);
	assert_string_equal(crs_error_last(), want);
	free(want);
	assert_int_equal(step, 2);

	c = &fx->f.calls[0];
	assert_string_equal(c->method, "POST");
	assert_string_equal(c->path, "/v1.41/build?t=crs-ci%2Ftarget%3Ah1"
		"&dockerfile=docker%2FDockerfile.fuzz"
		"&buildargs=%7B%22CC%22%3A%22clang%22%2C"
		"%22X%22%3A%22a%20b%22%7D"
		"&labels=%7B%22io.crs-ci.hash%22%3A%22h1%22%7D"
		"&rm=1&forcerm=1&version=1");
	assert_string_equal(c->content_type, "application/x-tar");
	assert_true(c->streamed);
	assert_true(tar_has(&c->body, "Dockerfile"));
	/* The temporary context tar is gone. */
	assert_false(fs_exists(c->body_file));

	read_text(&got, log);
	assert_string_equal(got.ptr, "earlier\nStep 1/2 : FROM base\n"
		" ---> 1234\nStep 2/2 : RUN make\ncc -c a.c\n"
		"\x1b[91ma.c:1: error: boom\x1b[0m\nERROR: The command '/bin/sh -c make' "
		"returned a non-zero code: 2\n");
	buf_release(&got);
	free(log);
	free(ctx);
}

static void test_image_build_ok(void **state)
{
	struct fixture *fx = *state;
	char *ctx = make_context(fx);
	struct docker_build_opts o = DOCKER_BUILD_OPTS_INIT;

	o.context_dir = ctx;
	o.tag = "t:1";
	o.pull = 1;
	/* The last line has no newline; pull status lines are fine. */
	fake_reply(&fx->f, 200, "{\"status\":\"Pulling from library/x\"}\n"
		   "{\"stream\":\"Step 1/1 : FROM scratch\\n\"}\n"
		   "{\"aux\":{\"ID\":\"sha256:" ID64 "\"}}\n"
		   "{\"stream\":\"Successfully built abc123456789\\n\"}");
	assert_int_equal(docker_image_build(fx->d, &o), 0);
	assert_string_equal(fx->f.calls[0].path, "/v1.41/build?t=t%3A1&"
			    "dockerfile=Dockerfile&rm=1&forcerm=1&pull=1&"
			    "version=1");

	/* A build of untrusted code: offline, in the CRS's cpus and memory
	 * (issue 11). */
	o.network = "none";
	o.cpuset = "1";
	o.memory = 512 << 20;
	fake_reply(&fx->f, 200, "{\"aux\":{\"ID\":\"sha256:" ID64 "\"}}\n");
	assert_int_equal(docker_image_build(fx->d, &o), 0);
	assert_string_equal(fx->f.calls[1].path, "/v1.41/build?t=t%3A1&"
			    "dockerfile=Dockerfile&rm=1&forcerm=1&pull=1&"
			    "networkmode=none&cpusetcpus=1&memory=536870912&"
			    "memswap=536870912&version=1");
	o.network = NULL;
	o.cpuset = NULL;
	o.memory = 0;

	/* Errors before the stream starts come as a status. */
	fake_reply(&fx->f, 500, "{\"message\":\"Cannot locate specified "
		   "Dockerfile: Dockerfile\"}");
	assert_int_equal(docker_image_build(fx->d, &o), CRS_EBUILD);
	assert_string_equal(crs_error_last(), "build 't:1': HTTP 500: Cannot "
			    "locate specified Dockerfile: Dockerfile");

	/* A stream that just stops is not a success. */
	fake_reply(&fx->f, 200, "{\"stream\":\"Step 1/1 : FROM scratch\\n\"}");
	assert_int_equal(docker_image_build(fx->d, &o), CRS_EBUILD);
	assert_non_null(strstr(crs_error_last(), "ended without a result"));

	/* Bad build args are refused before anything is sent. */
	const char *bad[] = { "=x", NULL };
	o.buildargs = bad;
	assert_int_equal(docker_image_build(fx->d, &o), CRS_EINPUT);
	assert_int_equal(fx->f.nr_calls, 4);
	free(ctx);
}

static void test_image_import(void **state)
{
	struct fixture *fx = *state;
	char *tar = xasprintf("%s/rootfs.tar", fx->tmp);
	const char *changes[] = { "CMD [\"/bin/sh\"]", "ENV PATH=/bin", NULL };
	const struct fake_call *c;

	write_text(tar, "tar bytes");
	fake_reply(&fx->f, 200, "{\"status\":\"sha256:" ID64 "\"}\r\n");
	assert_int_equal(docker_image_import(fx->d, tar, "crs-ci-test/busybox",
					     "latest", changes), 0);
	c = &fx->f.calls[0];
	assert_string_equal(c->method, "POST");
	assert_string_equal(c->path, "/v1.41/images/create?fromSrc=-&"
		"repo=crs-ci-test%2Fbusybox&tag=latest&"
		"changes=CMD%20%5B%22%2Fbin%2Fsh%22%5D&"
		"changes=ENV%20PATH%3D%2Fbin");
	assert_string_equal(c->content_type, "application/x-tar");
	assert_string_equal(c->body.ptr, "tar bytes");
	assert_string_equal(c->body_file, tar);

	fake_reply(&fx->f, 200, "{\"errorDetail\":{\"message\":\"archive/tar:"
		   " invalid tar header\"},\"error\":\"archive/tar: invalid "
		   "tar header\"}\r\n");
	assert_int_equal(docker_image_import(fx->d, tar, "r", NULL, NULL),
			 CRS_EENGINE);
	assert_string_equal(crs_error_last(),
			    "import 'r': archive/tar: invalid tar header");
	free(tar);
}

/* --- networks and clean-up ---------------------------------------------- */

static void test_network(void **state)
{
	struct fixture *fx = *state;
	const char *labels[] = { CRS_CI_LABEL "=scan-1", NULL };
	const char *aliases[] = { "gw", NULL };
	char *id = NULL;
	json_t *j;

	fake_reply(&fx->f, 201, "{\"Id\":\"n1\",\"Warning\":\"\"}");
	fake_reply(&fx->f, 409, "{\"message\":\"network with name crs-a "
		   "already exists\"}");
	fake_reply(&fx->f, 200, "");
	fake_reply(&fx->f, 204, "");
	fake_reply(&fx->f, 404, "{\"message\":\"network n1 not found\"}");
	assert_int_equal(docker_network_create(fx->d, "crs-a", 1, labels,
					       &id), 0);
	assert_string_equal(id, "n1");
	free(id);
	assert_int_equal(docker_network_create(fx->d, "crs-a", 1, labels,
					       &id), CRS_ECONFLICT);
	assert_null(id);
	assert_non_null(strstr(crs_error_last(), "already exists"));
	assert_int_equal(docker_network_connect(fx->d, "crs-a", "gw-ctr",
						aliases), 0);
	assert_int_equal(docker_network_remove(fx->d, "n1"), 0);
	assert_int_equal(docker_network_remove(fx->d, "n1"), CRS_ENOTFOUND);
	assert_string_equal(crs_error_last(), "network 'n1' not found");

	assert_string_equal(fx->f.calls[0].path, "/v1.41/networks/create");
	j = call_json(&fx->f.calls[0]);
	assert_string_equal(jstr(j, "Name"), "crs-a");
	assert_true(json_is_true(json_object_get(j, "Internal")));
	assert_true(json_is_true(json_object_get(j, "CheckDuplicate")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		j, "Labels"), CRS_CI_LABEL)), "scan-1");
	json_decref(j);
	assert_string_equal(fx->f.calls[2].path,
			    "/v1.41/networks/crs-a/connect");
	j = call_json(&fx->f.calls[2]);
	assert_string_equal(jstr(j, "Container"), "gw-ctr");
	assert_string_equal(json_string_value(json_array_get(json_object_get(
		json_object_get(j, "EndpointConfig"), "Aliases"), 0)), "gw");
	json_decref(j);
	assert_string_equal(fx->f.calls[3].method, "DELETE");
	assert_string_equal(fx->f.calls[3].path, "/v1.41/networks/n1");
}

#define OWNER_FILTER "filters=%7B%22label%22%3A%5B%22io.crs-ci.owner%3D" \
	"scan-1%22%5D%7D"

static void test_remove_owned(void **state)
{
	struct fixture *fx = *state;
	static const char *const want[][2] = {
		{ "GET", "/v1.41/containers/json?all=1&" OWNER_FILTER },
		{ "DELETE", "/v1.41/containers/c1?v=1&force=1" },
		{ "DELETE", "/v1.41/containers/c2?v=1&force=1" },
		{ "GET", "/v1.41/networks?" OWNER_FILTER },
		{ "DELETE", "/v1.41/networks/n1" },
	};

	fake_reply(&fx->f, 200, "[{\"Id\":\"c1\",\"Names\":[\"/a\"]},"
		   "{\"Id\":\"c2\"}]");
	fake_reply(&fx->f, 204, "");
	/* Gone already (removed by --rm or a parallel clean-up): fine. */
	fake_reply(&fx->f, 404, "{\"message\":\"No such container: c2\"}");
	fake_reply(&fx->f, 200, "[{\"Name\":\"crs-a\",\"Id\":\"n1\"}]");
	fake_reply(&fx->f, 204, "");
	assert_int_equal(docker_remove_owned(fx->d, "scan-1"), 0);
	assert_int_equal(fx->f.nr_calls, 5);
	for (size_t i = 0; i < 5; i++) {
		assert_string_equal(fx->f.calls[i].method, want[i][0]);
		assert_string_equal(fx->f.calls[i].path, want[i][1]);
	}
}

static void test_remove_owned_continues(void **state)
{
	struct fixture *fx = *state;

	fake_reply(&fx->f, 200, "[{\"Id\":\"c1\"},{\"Id\":\"c2\"}]");
	fake_reply(&fx->f, 500, "{\"message\":\"driver failed\"}");
	fake_reply(&fx->f, 204, "");
	fake_reply(&fx->f, 200, "[{\"Id\":\"n1\"}]");
	fake_reply(&fx->f, 403, "{\"message\":\"network n1 has active "
		   "endpoints\"}");
	assert_int_equal(docker_remove_owned(fx->d, "scan-1"), CRS_EENGINE);
	assert_string_equal(crs_error_last(), "remove container 'c1': "
			    "HTTP 500: driver failed");
	assert_int_equal(fx->f.nr_calls, 5);
	assert_string_equal(fx->f.calls[4].path, "/v1.41/networks/n1");

	/* An unreachable engine: reported, nothing else tried. */
	fake_fail(&fx->f, CRS_EENGINE, "engine unreachable at fake: gone");
	fake_fail(&fx->f, CRS_EENGINE, "engine unreachable at fake: gone");
	assert_int_equal(docker_remove_owned(fx->d, "scan-1"), CRS_EENGINE);
	assert_string_equal(crs_error_last(),
			    "engine unreachable at fake: gone");
}

/* --- tar_context -------------------------------------------------------- */

struct tar_want {
	const char *name;
	int type;
	int perm;
	const char *data;	/* content, or symlink target */
};

static void test_tar_context(void **state)
{
	struct fixture *fx = *state;
	static const struct tar_want want[] = {
		{ ".hidden", AE_IFREG, 0600, "dot\n" },
		{ "Dockerfile", AE_IFREG, 0644, "FROM scratch\n" },
		{ "build.sh", AE_IFREG, 0755, "#!/bin/sh\nexit 0\n" },
		{ "link", AE_IFLNK, 0777, "sub/a.txt" },
		{ "sub/", AE_IFDIR, 0750, NULL },
		{ "sub/a.txt", AE_IFREG, 0644, "a\n" },
		{ "sub/empty/", AE_IFDIR, 0755, NULL },
		{ "sub/z", AE_IFREG, 0644, "" },
	};
	char *root = xasprintf("%s/tree", fx->tmp);
	char *t1 = xasprintf("%s/one.tar", fx->tmp);
	char *t2 = NULL, *p;
	struct buf a = BUF_INIT, b = BUF_INIT;
	struct archive *ar;
	struct archive_entry *e;
	size_t n = 0;

	/* Create in an order unlike the sorted one. */
	p = xasprintf("%s/sub/empty", root);
	assert_int_equal(fs_mkdir_p(p), 0);
	free(p);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		size_t k = sizeof(want) / sizeof(want[0]) - 1 - i;

		if (want[k].type != AE_IFREG)
			continue;
		p = xasprintf("%s/%s", root, want[k].name);
		write_text(p, want[k].data);
		assert_int_equal(chmod(p, (mode_t)want[k].perm), 0);
		free(p);
	}
	p = xasprintf("%s/link", root);
	assert_int_equal(symlink("sub/a.txt", p), 0);
	free(p);
	p = xasprintf("%s/sub", root);
	assert_int_equal(chmod(p, 0750), 0);
	free(p);
	p = xasprintf("%s/sub/empty", root);
	assert_int_equal(chmod(p, 0755), 0);
	free(p);

	assert_int_equal(tar_context_write(root, t1, NULL, NULL, 0), 0);
	read_text(&a, t1);

	ar = archive_read_new();
	archive_read_support_format_tar(ar);
	assert_int_equal(archive_read_open_memory(ar, a.ptr, a.len),
			 ARCHIVE_OK);
	while (archive_read_next_header(ar, &e) == ARCHIVE_OK) {
		const struct tar_want *w = &want[n];
		char data[64] = "";

		assert_true(n < sizeof(want) / sizeof(want[0]));
		assert_string_equal(archive_entry_pathname(e), w->name);
		assert_int_equal(archive_entry_filetype(e), w->type);
		if (w->type != AE_IFLNK)
			assert_int_equal(archive_entry_perm(e), w->perm);
		assert_int_equal(archive_entry_mtime(e), 0);
		assert_int_equal(archive_entry_uid(e), 0);
		assert_int_equal(archive_entry_gid(e), 0);
		if (archive_entry_uname(e))
			assert_string_equal(archive_entry_uname(e), "");
		if (w->type == AE_IFLNK)
			assert_string_equal(archive_entry_symlink(e), w->data);
		if (w->type == AE_IFREG) {
			la_ssize_t got = archive_read_data(ar, data,
							   sizeof(data) - 1);

			assert_int_equal(got, strlen(w->data));
			assert_string_equal(data, w->data);
		}
		n++;
	}
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	archive_read_free(ar);

	/* Same tree, later mtimes, a trailing slash: the same bytes. */
	p = xasprintf("%s/Dockerfile", root);
	struct timespec ts[2] = { { 12345, 0 }, { 12345, 0 } };
	assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
	free(p);
	free(root);
	root = xasprintf("%s/tree/", fx->tmp);
	assert_int_equal(tar_context_temp_replacing(root, NULL, NULL, 0, &t2),
			 0);
	assert_non_null(strstr(t2, "/crs-ci-tar-"));
	read_text(&b, t2);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.ptr, b.ptr, a.len);
	unlink(t2);

	/* A missing directory. */
	free(t2);
	t2 = (char *)1;
	assert_int_equal(tar_context_temp_replacing("/nonexistent/dir", NULL,
						    NULL, 0, &t2),
			 CRS_ENOTFOUND);
	assert_null(t2);

	buf_release(&a);
	buf_release(&b);
	free(root);
	free(t1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_client_new_from_env,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_ping_dead_socket,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_ping, setup, teardown),
		cmocka_unit_test_setup_teardown(test_container_create,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_container_create_minimal_and_errors,
			setup, teardown),
		cmocka_unit_test_setup_teardown(test_container_start_statuses,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_container_stop_kill_remove,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_container_wait,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_container_logs,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_image_inspect,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_image_tag_remove,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_image_build_error,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_image_build_ok,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_image_import,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_network, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_owned,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_owned_continues,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_tar_context,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
