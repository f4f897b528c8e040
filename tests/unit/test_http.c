/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_http.c - the one HTTP client's REST mode (runner/http/http.c)
 *
 * http_api_new() against a small libmicrohttpd server on loopback: the
 * request carries method, path, headers and body as given; redirects are
 * handed back, never followed (a token must not reach another host);
 * bodies over the cap and transport failures are errors that name the
 * request but never a header; base URLs other than http(s) are refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "runner/http/http.h"
#include "common/error.h"
#include "common/log.h"
#include "common/xalloc.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOKEN "ghp_SECRET-token-123"

struct srv {
	struct MHD_Daemon *d;
	unsigned port;
	pthread_mutex_t lock;
	int nr_reqs, nr_elsewhere;
	char method[16], path[128], auth[128], body[128];
};

struct conn {
	char body[128];
	size_t len;
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status,
			     const char *body, const char *location)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
		strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	if (location)
		MHD_add_response_header(r, "Location", location);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *data,
				  size_t *data_len, void **con_cls)
{
	struct srv *s = cls;
	struct conn *k = *con_cls;
	const char *auth;
	char big[2048], loc[96];

	(void)version;
	if (!k) {
		*con_cls = calloc(1, sizeof(*k));
		return *con_cls ? MHD_YES : MHD_NO;
	}
	if (*data_len) {
		size_t n = *data_len;

		if (k->len + n >= sizeof(k->body))
			n = sizeof(k->body) - 1 - k->len;
		memcpy(k->body + k->len, data, n);
		k->len += n;
		*data_len = 0;
		return MHD_YES;
	}
	auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					   "Authorization");
	pthread_mutex_lock(&s->lock);
	s->nr_reqs++;
	if (!strcmp(url, "/elsewhere"))
		s->nr_elsewhere++;
	snprintf(s->method, sizeof(s->method), "%s", method);
	snprintf(s->path, sizeof(s->path), "%s", url);
	snprintf(s->auth, sizeof(s->auth), "%s", auth ? auth : "");
	snprintf(s->body, sizeof(s->body), "%s", k->body);
	pthread_mutex_unlock(&s->lock);
	if (!strcmp(url, "/big")) {
		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		return reply(c, 200, big, NULL);
	}
	if (!strcmp(url, "/redirect")) {
		snprintf(loc, sizeof(loc), "http://127.0.0.1:%u/elsewhere",
			 s->port);
		return reply(c, 302, "", loc);
	}
	if (!strcmp(url, "/missing"))
		return reply(c, 404, "{\"message\":\"Not Found\"}", NULL);
	return reply(c, 200, "{\"ok\":true}", NULL);
}

static void on_done(void *cls, struct MHD_Connection *c, void **con_cls,
		    enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)c;
	(void)toe;
	free(*con_cls);
	*con_cls = NULL;
}

static struct srv *srv_start(void)
{
	struct srv *s = xcalloc(1, sizeof(*s));
	struct sockaddr_in sa;
	const union MHD_DaemonInfo *info;

	pthread_mutex_init(&s->lock, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
				MHD_USE_AUTO, 0, NULL, NULL, on_request, s,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				MHD_OPTION_NOTIFY_COMPLETED, on_done, s,
				MHD_OPTION_END);
	assert_non_null(s->d);
	info = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
	assert_non_null(info);
	s->port = info->port;
	return s;
}

static void srv_stop(struct srv *s)
{
	MHD_stop_daemon(s->d);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* The transport to the server, with a trailing slash on the base URL. */
static struct http_transport *api(const struct srv *s)
{
	struct http_transport *t = NULL;
	char *url = xasprintf("http://127.0.0.1:%u/", s->port);

	assert_int_equal(http_api_new(&t, url, "t"), 0);
	free(url);
	return t;
}

static const char *const hdrs[] = { "Authorization: Bearer " TOKEN, NULL };

static void test_request(void **state)
{
	struct srv *s = srv_start();
	struct http_transport *t = api(s);
	struct http_response resp = HTTP_RESPONSE_INIT;
	struct http_request req = {
		.method = "PUT", .path = "/a/b", .headers = hdrs,
		.content_type = "application/json", .body = "{\"k\":1}",
		.body_len = 7, .timeout_ms = 30000,
	};

	(void)state;
	assert_int_equal(t->request(t, &req, &resp), 0);
	assert_int_equal(resp.status, 200);
	assert_int_equal(resp.body.len, strlen("{\"ok\":true}"));
	assert_memory_equal(resp.body.ptr, "{\"ok\":true}", resp.body.len);
	assert_string_equal(s->method, "PUT");
	assert_string_equal(s->path, "/a/b");
	assert_string_equal(s->auth, "Bearer " TOKEN);
	assert_string_equal(s->body, "{\"k\":1}");

	/* an HTTP error status is an answer, not a transport error */
	req.method = "GET";
	req.path = "/missing";
	req.body = NULL;
	req.body_len = 0;
	req.content_type = NULL;
	assert_int_equal(t->request(t, &req, &resp), 0);
	assert_int_equal(resp.status, 404);
	http_response_release(&resp);
	t->free(t);
	srv_stop(s);
}

static void test_no_redirect(void **state)
{
	struct srv *s = srv_start();
	struct http_transport *t = api(s);
	struct http_response resp = HTTP_RESPONSE_INIT;
	struct http_request req = {
		.method = "GET", .path = "/redirect", .headers = hdrs,
	};

	(void)state;
	assert_int_equal(t->request(t, &req, &resp), 0);
	assert_int_equal(resp.status, 302);
	assert_int_equal(s->nr_reqs, 1);
	assert_int_equal(s->nr_elsewhere, 0);
	http_response_release(&resp);
	t->free(t);
	srv_stop(s);
}

static void test_cap(void **state)
{
	struct srv *s = srv_start();
	struct http_transport *t = api(s);
	struct http_response resp = HTTP_RESPONSE_INIT;
	struct http_request req = {
		.method = "GET", .path = "/big", .headers = hdrs,
		.max_response = 1000,
	};

	(void)state;
	assert_int_equal(t->request(t, &req, &resp), CRS_ERR);
	assert_string_equal(crs_error_last(),
			    "t: GET /big: response exceeds 1000 bytes");
	/* `what` names the request in messages instead of its path */
	req.what = "versions";
	assert_int_equal(t->request(t, &req, &resp), CRS_ERR);
	assert_string_equal(crs_error_last(),
			    "t: GET versions: response exceeds 1000 bytes");
	http_response_release(&resp);
	t->free(t);
	srv_stop(s);
}

static void test_unreachable(void **state)
{
	struct srv *s = srv_start();
	struct http_transport *t = NULL;
	struct http_response resp = HTTP_RESPONSE_INIT;
	struct http_request req = {
		.method = "POST", .path = "/x", .headers = hdrs,
		.timeout_ms = 30000,
	};
	char *url = xasprintf("http://127.0.0.1:%u", s->port);

	(void)state;
	srv_stop(s);		/* nothing listens on the port any more */
	assert_int_equal(http_api_new(&t, url, "t"), 0);
	assert_int_equal(t->request(t, &req, &resp), CRS_ERR);
	assert_non_null(strstr(crs_error_last(), "t: POST /x: "));
	assert_null(strstr(crs_error_last(), TOKEN));
	assert_null(strstr(crs_error_last(), "Bearer"));
	http_response_release(&resp);
	t->free(t);
	free(url);
}

static void test_bad_url(void **state)
{
	struct http_transport *t = NULL;
	char *e;

	(void)state;
	assert_int_equal(http_api_new(&t, "ftp://h/api", "t"), CRS_EINPUT);
	assert_null(t);
	assert_string_equal(crs_error_last(),
			    "t: API URL 'ftp://h/api' is not http(s)");
	assert_int_equal(http_api_new(&t, "/v4", "t"), CRS_EINPUT);
	e = http_escape("group/sub project");
	assert_string_equal(e, "group%2Fsub%20project");
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request),
		cmocka_unit_test(test_no_redirect),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_unreachable),
		cmocka_unit_test(test_bad_url),
	};
	int r;

	log_set_level(LOG_WARN);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	r = cmocka_run_group_tests(tests, NULL, NULL);
	curl_global_cleanup();
	return r;
}
