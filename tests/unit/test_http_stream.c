/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_http_stream.c - the one HTTP client's pulled mode (http_stream.c)
 *
 * Against the fake provider (tests/helper/fake_llm.c) on loopback: a
 * streamed reply is handed out in pieces as it arrives (the fake holds
 * the rest back until the test opens its gate); the body cap, the
 * caller's interrupt flag and the timeout abort the transfer with their
 * codes; failures name the request by scheme://host:port and never quote
 * a header (the key) or the URL's query.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "runner/http/http.h"
#include "runner/http/http_share.h"
#include "runner/http/http_stream.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/xalloc.h"
#include "tests/helper/fake_llm.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY "sk-stream-test-0123456789"

static struct fake_llm *fake;
static char url[128];
static const char *const headers[] = {
	"Authorization: Bearer " KEY, NULL
};

static int setup(void **state)
{
	(void)state;
	if (http_global_init() != 0 || fake_llm_start(&fake, KEY) != 0)
		return -1;
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/v1/chat/completions"
		 "?key=" KEY, fake->port);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fake_llm_stop(fake);
	http_global_cleanup();
	return 0;
}

static int reset(void **state)
{
	(void)state;
	fake_llm_reset(fake);
	fake->stream_gate = 0;
	return 0;
}

/* A chat request for `model`; the body stays valid (static). */
static struct http_request chat(const char *model, int stream)
{
	static char body[256];
	struct http_request r = {
		.method = "POST", .path = url, .headers = headers,
		.content_type = "application/json", .body = body,
		.timeout_ms = 20000,
	};

	snprintf(body, sizeof(body), "{\"model\":\"%s\",\"stream\":%s,"
		 "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
		 model, stream ? "true" : "false");
	r.body_len = strlen(body);
	return r;
}

static void assert_no_secret(const char *msg)
{
	assert_null(strstr(msg, KEY));
	assert_null(strstr(msg, "/v1/chat"));
}

static void test_pieces(void **state)
{
	struct http_request req = chat("fake-model", 1);
	struct http_share *sh = http_share_new(0);
	struct http_stream *s;
	struct buf got = BUF_INIT;
	int eof = 0, reads = 1;

	(void)state;
	fake->stream_gate = 1;
	s = http_stream_new(&req, "upstream", sh);
	assert_int_equal(http_stream_wait_headers(s), 0);
	assert_int_equal(http_stream_status(s), 200);
	assert_string_equal(http_stream_content_type(s), "text/event-stream");
	assert_int_equal(strncmp(http_stream_what(s), "http://127.0.0.1:",
				 17), 0);
	assert_null(strchr(http_stream_what(s), '?'));
	assert_true(http_stream_sent(s));
	/* the first piece arrives while the fake holds back the rest */
	assert_int_equal(http_stream_read(s, &got, &eof), 0);
	assert_false(eof);
	assert_true(got.len > 0);
	assert_null(strstr(got.ptr, " from the fake"));
	assert_null(strstr(got.ptr, "[DONE]"));
	pthread_mutex_lock(&fake->lock);
	assert_false(fake->gate_open);
	pthread_mutex_unlock(&fake->lock);
	fake_llm_open_gate(fake);
	while (!eof) {
		assert_int_equal(http_stream_read(s, &got, &eof), 0);
		reads++;
	}
	assert_true(reads >= 2);
	assert_non_null(strstr(got.ptr, "hello"));
	assert_non_null(strstr(got.ptr, " from the fake"));
	assert_non_null(strstr(got.ptr, "data: [DONE]"));
	pthread_mutex_lock(&fake->lock);
	assert_false(fake->gate_timed_out);
	assert_string_equal(fake->last_auth, "Bearer " KEY);
	pthread_mutex_unlock(&fake->lock);
	/* at the end, reads keep saying so */
	assert_int_equal(http_stream_read(s, &got, &eof), 0);
	assert_true(eof);
	http_stream_free(s);
	http_share_free(sh);
	buf_release(&got);
}

static void test_cap(void **state)
{
	struct http_request req = chat("fake-model", 1);
	struct http_stream *s;
	struct buf got = BUF_INIT;
	int eof = 0, r = 0;

	(void)state;
	req.max_response = 40;
	s = http_stream_new(&req, "upstream", NULL);
	assert_int_equal(http_stream_wait_headers(s), 0);
	while (!eof && (r = http_stream_read(s, &got, &eof)) == 0)
		;
	assert_int_equal(r, CRS_ERR);
	assert_true(got.len <= 40);
	assert_non_null(strstr(crs_error_last(), "upstream: POST "
			       "http://127.0.0.1:"));
	assert_non_null(strstr(crs_error_last(), "response exceeds 40 bytes"));
	assert_no_secret(crs_error_last());
	http_stream_free(s);
	buf_release(&got);
}

/* The caller's stop: the flag aborts the transfer mid-body. */
static void test_interrupted(void **state)
{
	struct http_request req = chat("fake-model", 1);
	volatile int stop = 0;
	struct http_stream *s;
	struct buf got = BUF_INIT;
	int eof = 0;

	(void)state;
	fake->stream_gate = 1;
	req.interrupted = &stop;
	s = http_stream_new(&req, "upstream", NULL);
	assert_int_equal(http_stream_wait_headers(s), 0);
	assert_int_equal(http_stream_read(s, &got, &eof), 0);
	stop = 1;
	/* the fake still holds the rest back: only the flag ends this */
	while (http_stream_read(s, &got, &eof) == 0 && !eof)
		;
	assert_false(eof);
	assert_int_equal(crs_error_code(), CRS_EINTR);
	assert_non_null(strstr(crs_error_last(), "interrupted"));
	assert_no_secret(crs_error_last());
	assert_null(strstr(got.ptr, "[DONE]"));
	http_stream_free(s);
	fake_llm_open_gate(fake);
	buf_release(&got);
}

static void test_timeout(void **state)
{
	struct http_request req = chat("fake-hang", 0);
	struct http_stream *s;

	(void)state;
	req.timeout_ms = 300;
	s = http_stream_new(&req, "upstream", NULL);
	assert_int_equal(http_stream_wait_headers(s), CRS_ETIMEOUT);
	assert_non_null(strstr(crs_error_last(), "no answer in 300 ms"));
	assert_no_secret(crs_error_last());
	assert_int_equal(http_stream_status(s), 0);
	http_stream_free(s);
}

static void test_unreachable(void **state)
{
	struct http_request req = chat("fake-model", 0);
	struct http_stream *s;

	(void)state;
	req.path = "http://127.0.0.1:1/v1/chat/completions?key=" KEY;
	s = http_stream_new(&req, "upstream", NULL);
	assert_int_equal(http_stream_wait_headers(s), CRS_ERR);
	assert_non_null(strstr(crs_error_last(), "upstream: POST "
			       "http://127.0.0.1:1: "));
	assert_no_secret(crs_error_last());
	assert_false(http_stream_sent(s));
	http_stream_free(s);
}

/* Any status is an answer, its body readable; only http(s) is spoken. */
static void test_status_and_scheme(void **state)
{
	struct http_request req = chat("fake-500", 0);
	struct http_stream *s;
	struct buf got = BUF_INIT;
	int eof = 0;

	(void)state;
	s = http_stream_new(&req, "upstream", NULL);
	assert_int_equal(http_stream_wait_headers(s), 0);
	assert_int_equal(http_stream_status(s), 500);
	while (!eof)
		assert_int_equal(http_stream_read(s, &got, &eof), 0);
	assert_true(got.len > 0);
	http_stream_free(s);
	buf_release(&got);

	req.path = "file:///etc/passwd";
	s = http_stream_new(&req, "upstream", NULL);
	assert_int_equal(http_stream_wait_headers(s), CRS_ERR);
	assert_string_equal(http_stream_what(s), "file://");
	http_stream_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_pieces, reset),
		cmocka_unit_test_setup(test_cap, reset),
		cmocka_unit_test_setup(test_interrupted, reset),
		cmocka_unit_test_setup(test_timeout, reset),
		cmocka_unit_test_setup(test_unreachable, reset),
		cmocka_unit_test_setup(test_status_and_scheme, reset),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
