/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_docker_pull.c - docker_image_pull against a fake transport, and a
 * build whose rewritten Dockerfile goes into the context tar
 *
 * Asserts the request (path with fromImage and tag, the X-Registry-Auth
 * header), the progress lines (one per layer state change, never one per
 * chunk), and how the engine's failures are classified for the retry and
 * the message: unreachable, not found, denied, cut short.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "runner/engine/docker.h"
#include "tests/unit/fake_transport.h"
#include "tests/unit/log_capture.h"

struct fixture {
	struct fake_transport f;
	struct docker_client *d;
	struct logged l;
};

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof(*fx));

	fake_init(&fx->f);
	docker_client_new_with_transport(&fx->d, &fx->f.t);
	buf_init(&fx->l.text);
	log_set_handler(capture, &fx->l);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	log_set_handler(NULL, NULL);
	docker_client_free(fx->d);
	fake_release(&fx->f);
	buf_release(&fx->l.text);
	free(fx);
	return 0;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

#define L(s) s "\r\n"
static const struct fake_chunk progress[] = {
	{ L("{\"status\":\"Pulling from oss-fuzz-base/base-runner\","
	    "\"id\":\"t-1\"}"), 0 },
	{ L("{\"status\":\"Pulling fs layer\",\"progressDetail\":{},"
	    "\"id\":\"aaaa\"}"), 0 },
	{ L("{\"status\":\"Downloading\",\"progressDetail\":{\"current\":1,"
	    "\"total\":2000000},\"progress\":\"[=>  ]\",\"id\":\"aaaa\"}"), 0 },
	{ L("{\"status\":\"Downloading\",\"progressDetail\":{\"current\":9,"
	    "\"total\":2000000},\"progress\":\"[==> ]\",\"id\":\"aaaa\"}"), 0 },
	{ "{\"status\":\"Downloading\",\"progressDetail\":{\"current\":99,"
	  "\"total\":2000000},\"prog", 0 },
	{ L("ress\":\"[===>]\",\"id\":\"aaaa\"}"), 0 },
	{ L("{\"status\":\"Pull complete\",\"progressDetail\":{},"
	    "\"id\":\"aaaa\"}"), 0 },
	{ L("{\"status\":\"Digest: sha256:0123\"}"), 0 },
	{ L("{\"status\":\"Status: Downloaded newer image for "
	    "127.0.0.1:5000/oss-fuzz-base/base-runner:t-1\"}"), 0 },
	{ NULL, 0 },
};

static void fill_lengths(struct fake_chunk *c)
{
	for (; c->data; c++)
		c->len = strlen(c->data);
}

static void test_pull_progress_and_auth(void **state)
{
	struct fixture *fx = *state;
	struct fake_chunk chunks[sizeof(progress) / sizeof(progress[0])];
	struct docker_pull_opts o = DOCKER_PULL_OPTS_INIT;
	enum docker_pull_failure why = DOCKER_PULL_UNREACHABLE;

	memcpy(chunks, progress, sizeof(chunks));
	fill_lengths(chunks);
	fake_reply_chunks(&fx->f, 200, chunks);
	o.ref = "127.0.0.1:5000/oss-fuzz-base/base-runner:t-1";
	o.auth = "eyJzZWNyZXQiOiJ4In0=";
	assert_int_equal(docker_image_pull(fx->d, &o, &why), 0);
	assert_int_equal(why, DOCKER_PULL_FAILED);	/* untouched: 0 */
	assert_string_equal(fx->f.calls[0].method, "POST");
	assert_string_equal(fx->f.calls[0].path, "/v1.41/images/create?"
			    "fromImage=127.0.0.1%3A5000%2Foss-fuzz-base%2F"
			    "base-runner&tag=t-1");
	assert_string_equal(fx->f.calls[0].headers,
			    "X-Registry-Auth: eyJzZWNyZXQiOiJ4In0=\n");
	/* one line per state change of the layer, then the summary */
	assert_int_equal(count(fx->l.text.ptr, "layer aaaa: Downloading"), 1);
	assert_int_equal(count(fx->l.text.ptr, "layer aaaa: Pulling fs "
			       "layer"), 1);
	assert_int_equal(count(fx->l.text.ptr, "layer aaaa: Pull complete"),
			 1);
	assert_int_equal(count(fx->l.text.ptr, "\x01"), 4);
	assert_non_null(strstr(fx->l.text.ptr, "Downloaded newer image for "
			       "127.0.0.1:5000/oss-fuzz-base/base-runner:t-1 "
			       "(1 layer(s), 2.0 MB in "));
	/* the credentials never reach the log */
	assert_null(strstr(fx->l.text.ptr, "eyJzZWNyZXQ"));
}

static void test_pull_latest_and_digest(void **state)
{
	struct fixture *fx = *state;
	struct docker_pull_opts o = DOCKER_PULL_OPTS_INIT;

	fake_reply(&fx->f, 200, "{\"status\":\"Status: Image is up to date "
		   "for x\"}\n");
	fake_reply(&fx->f, 200, "{\"status\":\"Status: Downloaded newer "
		   "image for x\"}\n");
	o.ref = "gcr.io/oss-fuzz-base/base-builder";
	assert_int_equal(docker_image_pull(fx->d, &o, NULL), 0);
	o.ref = "gcr.io/oss-fuzz-base/base-builder@sha256:00ff";
	assert_int_equal(docker_image_pull(fx->d, &o, NULL), 0);
	/* never an empty tag: that would pull every tag */
	assert_string_equal(fx->f.calls[0].path, "/v1.41/images/create?"
			    "fromImage=gcr.io%2Foss-fuzz-base%2Fbase-builder"
			    "&tag=latest");
	assert_string_equal(fx->f.calls[1].path, "/v1.41/images/create?"
			    "fromImage=gcr.io%2Foss-fuzz-base%2Fbase-builder"
			    "&tag=sha256%3A00ff");
	assert_string_equal(fx->f.calls[0].headers, "");
}

static void test_pull_failures(void **state)
{
	struct fixture *fx = *state;
	struct docker_pull_opts o = DOCKER_PULL_OPTS_INIT;
	enum docker_pull_failure why;

	o.ref = "127.0.0.1:5999/x:y";
	fake_reply(&fx->f, 500, "{\"message\":\"Get \\\"http://127.0.0.1:5999"
		   "/v2/\\\": dial tcp 127.0.0.1:5999: connect: connection "
		   "refused\"}");
	assert_int_equal(docker_image_pull(fx->d, &o, &why), CRS_EENGINE);
	assert_int_equal(why, DOCKER_PULL_UNREACHABLE);
	assert_string_equal(crs_error_last(), "registry unreachable (Get "
			    "\"http://127.0.0.1:5999/v2/\": dial tcp "
			    "127.0.0.1:5999: connect: connection refused)");

	fake_reply(&fx->f, 404, "{\"message\":\"manifest for x:y not found: "
		   "manifest unknown: manifest unknown\"}");
	assert_int_equal(docker_image_pull(fx->d, &o, &why), CRS_ENOTFOUND);
	assert_int_equal(why, DOCKER_PULL_NOT_FOUND);
	assert_non_null(strstr(crs_error_last(), "not found (manifest for"));

	fake_reply(&fx->f, 500, "{\"message\":\"Head \\\"http://r/v2/x/"
		   "manifests/y\\\": no basic auth credentials\"}");
	assert_int_equal(docker_image_pull(fx->d, &o, &why), CRS_EENGINE);
	assert_int_equal(why, DOCKER_PULL_DENIED);

	fake_reply(&fx->f, 503, "{\"message\":\"overloaded\"}");
	assert_int_equal(docker_image_pull(fx->d, &o, &why), CRS_EENGINE);
	assert_int_equal(why, DOCKER_PULL_TRANSIENT);

	/* an error inside the stream, after HTTP 200 */
	fake_reply(&fx->f, 200, "{\"status\":\"Pulling fs layer\",\"id\":\"a\"}"
		   "\n{\"errorDetail\":{\"message\":\"read tcp: connection "
		   "reset by peer\"},\"error\":\"read tcp: connection reset "
		   "by peer\"}\n");
	assert_int_equal(docker_image_pull(fx->d, &o, &why), CRS_EENGINE);
	assert_int_equal(why, DOCKER_PULL_UNREACHABLE);

	/* the stream ends before the pull completed */
	fake_reply(&fx->f, 200, "{\"status\":\"Downloading\",\"id\":\"a\"}\n");
	assert_int_equal(docker_image_pull(fx->d, &o, &why), CRS_EENGINE);
	assert_int_equal(why, DOCKER_PULL_TRANSIENT);

	/* the engine connection broke */
	fake_fail(&fx->f, CRS_EENGINE, "engine unreachable at x: EOF");
	assert_int_equal(docker_image_pull(fx->d, &o, &why), CRS_EENGINE);
	assert_int_equal(why, DOCKER_PULL_TRANSIENT);
}

static void test_build_sends_rewritten_dockerfile(void **state)
{
	struct fixture *fx = *state;
	struct docker_build_opts o = DOCKER_BUILD_OPTS_INIT;
	char dir[] = "/tmp/crs-test-pull-XXXXXX";
	static const char rewritten[] = "FROM crs-ci/base-builder:stand-in\n";
	char *df, *sub;

	assert_non_null(mkdtemp(dir));
	sub = xasprintf("%s/docker", dir);
	assert_int_equal(fs_mkdir_p(sub), 0);
	df = xasprintf("%s/docker/b.Dockerfile", dir);
	assert_int_equal(fs_write_file_atomic(df, "FROM gcr.io/oss-fuzz-base/"
		"base-builder:v1\n", 41), 0);
	fake_reply(&fx->f, 200, "{\"aux\":{\"ID\":\"sha256:1\"}}\n");
	o.context_dir = dir;
	o.dockerfile = "./docker/b.Dockerfile";
	o.tag = "t:1";
	o.dockerfile_text = rewritten;
	o.dockerfile_len = strlen(rewritten);
	assert_int_equal(docker_image_build(fx->d, &o), 0);
	assert_non_null(memmem(fx->f.calls[0].body.ptr, fx->f.calls[0].body.len,
			       rewritten, strlen(rewritten)));
	assert_null(memmem(fx->f.calls[0].body.ptr, fx->f.calls[0].body.len,
			   "gcr.io", 6));
	/* the folder itself is left as it was */
	{
		struct buf b = BUF_INIT;

		assert_int_equal(fs_read_file(&b, df, 1024), 0);
		assert_non_null(strstr(b.ptr, "gcr.io/oss-fuzz-base"));
		buf_release(&b);
	}
	assert_int_equal(fs_remove_tree(dir), 0);
	free(df);
	free(sub);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pull_progress_and_auth,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_pull_latest_and_digest,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_pull_failures,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_build_sends_rewritten_dockerfile, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
