/* SPDX-License-Identifier: Apache-2.0 */
/*
 * http_stream.c - the pulled mode of the one HTTP client, over libcurl
 *
 * Each exchange owns an easy handle inside its own multi handle, so the
 * thread that reads pulls the server's bytes as fast as it takes them;
 * curl_multi_poll() sleeps in slices of 200 ms so the interrupt flag is
 * noticed. Options every request has, the share handle and the wiping of
 * header lists come from http_easy.c; messages follow http.c's REST
 * shape ("<label>: <METHOD> <what>: <reason>") and never quote a header.
 */
#include "runner/http/http_stream.h"
#include "runner/http/http.h"
#include "runner/http/http_easy.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HTTP_POLL_SLICE_MS 200

struct http_stream {
	CURL *easy;
	CURLM *multi;
	struct curl_slist *hdrs;
	char *body;
	struct buf pending;	/* body bytes not yet handed out */
	size_t received, max;	/* body bytes so far, and the cap */
	long status;
	int headers_done, finished, added, capped;
	CURLcode result;
	long timeout_ms;
	volatile int *interrupted;
	char *label, *method, *what;
	char content_type[128];
	char errbuf[CURL_ERROR_SIZE];
};

static size_t on_body(char *data, size_t size, size_t nmemb, void *ctx)
{
	struct http_stream *s = ctx;
	size_t n = size * nmemb;

	if (n > s->max - s->received) {
		s->capped = 1;
		return 0;	/* aborts the transfer */
	}
	s->received += n;
	buf_add(&s->pending, data, n);
	return n;
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *ctx)
{
	struct http_stream *s = ctx;
	size_t n = size * nmemb;

	if (n >= 5 && !memcmp(data, "HTTP/", 5)) {
		const char *sp = memchr(data, ' ', n);

		s->status = sp ? strtol(sp + 1, NULL, 10) : 0;
		s->content_type[0] = '\0';
		s->headers_done = 0;
	} else if ((n == 2 && data[0] == '\r') || (n == 1 && data[0] == '\n')) {
		if (s->status >= 200)
			s->headers_done = 1;
	} else if (n > 13 && !strncasecmp(data, "Content-Type:", 13)) {
		size_t a = 13, b = n;

		while (a < b && (data[a] == ' ' || data[a] == '\t'))
			a++;
		while (b > a && (data[b - 1] == '\r' || data[b - 1] == '\n' ||
				 data[b - 1] == ' '))
			b--;
		if (b - a >= sizeof(s->content_type))
			b = a + sizeof(s->content_type) - 1;
		memcpy(s->content_type, data + a, b - a);
		s->content_type[b - a] = '\0';
	}
	return n;
}

/* scheme://host[:port] of url: what messages may show of it. */
static char *host_of(const char *url)
{
	const char *p = strstr(url, "://");
	size_t n;

	p = p ? p + 3 : url;
	n = strcspn(p, "/?#");
	n += (size_t)(p - url);
	return xstrndup(url, n);
}

static void set_body(struct http_stream *s, const struct http_request *req)
{
	if (strcmp(req->method, "POST") != 0) {
		curl_easy_setopt(s->easy, CURLOPT_HTTPGET, 1L);
		return;
	}
	s->body = xmalloc(req->body_len ? req->body_len : 1);
	if (req->body_len)
		memcpy(s->body, req->body, req->body_len);
	curl_easy_setopt(s->easy, CURLOPT_POST, 1L);
	curl_easy_setopt(s->easy, CURLOPT_POSTFIELDS, s->body);
	curl_easy_setopt(s->easy, CURLOPT_POSTFIELDSIZE_LARGE,
			 (curl_off_t)req->body_len);
}

struct http_stream *http_stream_new(const struct http_request *req,
				    const char *label,
				    struct http_share *share)
{
	struct http_stream *s = xcalloc(1, sizeof(*s));
	char *ctype = NULL;

	buf_init(&s->pending);
	s->max = req->max_response ? req->max_response :
		HTTP_MAX_RESPONSE_DEFAULT;
	s->timeout_ms = req->timeout_ms;
	s->interrupted = req->interrupted;
	s->label = xstrdup(label);
	s->method = xstrdup(req->method);
	s->what = req->what ? xstrdup(req->what) : host_of(req->path);
	s->easy = curl_easy_init();
	s->multi = curl_multi_init();
	if (!s->easy || !s->multi) {
		s->finished = 1;
		s->result = CURLE_OUT_OF_MEMORY;
		return s;
	}
	for (const char *const *h = req->headers; h && *h; h++)
		s->hdrs = curl_slist_append(s->hdrs, *h);
	if (req->content_type) {
		ctype = xasprintf("Content-Type: %s", req->content_type);
		s->hdrs = curl_slist_append(s->hdrs, ctype);
		free(ctype);
	}
	/* No "Expect: 100-continue" round trip before large bodies. */
	s->hdrs = curl_slist_append(s->hdrs, "Expect:");
	curl_easy_setopt(s->easy, CURLOPT_URL, req->path);
	curl_easy_setopt(s->easy, CURLOPT_HTTPHEADER, s->hdrs);
	http_easy_base(s->easy, s->errbuf, share);
	curl_easy_setopt(s->easy, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(s->easy, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(s->easy, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(s->easy, CURLOPT_HEADERDATA, s);
	curl_easy_setopt(s->easy, CURLOPT_TCP_NODELAY, 1L);
	curl_easy_setopt(s->easy, CURLOPT_CONNECTTIMEOUT_MS,
			 req->connect_timeout_ms > 0 ? req->connect_timeout_ms :
			 HTTP_CONNECT_TIMEOUT_MS);
	if (req->timeout_ms > 0)
		curl_easy_setopt(s->easy, CURLOPT_TIMEOUT_MS, req->timeout_ms);
	set_body(s, req);
	if (curl_multi_add_handle(s->multi, s->easy) == CURLM_OK) {
		s->added = 1;
	} else {
		s->finished = 1;
		s->result = CURLE_FAILED_INIT;
	}
	return s;
}

void http_stream_free(struct http_stream *s)
{
	if (!s)
		return;
	if (s->added)
		curl_multi_remove_handle(s->multi, s->easy);
	if (s->easy)
		curl_easy_cleanup(s->easy);
	if (s->multi)
		curl_multi_cleanup(s->multi);
	http_headers_free(s->hdrs);
	free(s->body);
	buf_release(&s->pending);
	free(s->label);
	free(s->method);
	free(s->what);
	free(s);
}

static int failure(struct http_stream *s)
{
	if (s->capped)
		return crs_error_set(CRS_ERR, "%s: %s %s: response exceeds "
				     "%zu bytes", s->label, s->method, s->what,
				     s->max);
	if (s->result == CURLE_OPERATION_TIMEDOUT)
		return crs_error_set(CRS_ETIMEOUT, "%s: %s %s: %s in %ld ms",
				     s->label, s->method, s->what,
				     s->headers_done ? "answer not finished" :
				     "no answer", s->timeout_ms);
	return crs_error_set(CRS_ERR, "%s: %s %s: %s", s->label, s->method,
			     s->what, s->errbuf[0] ? s->errbuf :
			     curl_easy_strerror(s->result));
}

static void step(struct http_stream *s)
{
	CURLMsg *m;
	int running = 0, left = 0;

	if (s->finished)
		return;
	if (curl_multi_perform(s->multi, &running) != CURLM_OK) {
		s->finished = 1;
		s->result = CURLE_FAILED_INIT;
		return;
	}
	while ((m = curl_multi_info_read(s->multi, &left)))
		if (m->msg == CURLMSG_DONE) {
			s->finished = 1;
			s->result = m->data.result;
		}
}

/* Drive until `want_headers` are in, or some body bytes are pending, or
 * the exchange finished. */
static int drive(struct http_stream *s, int want_headers)
{
	for (;;) {
		step(s);
		if (want_headers ? s->headers_done : s->pending.len > 0)
			return 0;
		if (s->finished)
			return s->result == CURLE_OK ? 0 : failure(s);
		if (s->interrupted && *s->interrupted)
			return crs_error_set(CRS_EINTR, "%s request %s %s "
					     "interrupted", s->label,
					     s->method, s->what);
		curl_multi_poll(s->multi, NULL, 0, HTTP_POLL_SLICE_MS, NULL);
	}
}

int http_stream_wait_headers(struct http_stream *s)
{
	int r = drive(s, 1);

	if (r == 0 && !s->headers_done)
		return crs_error_set(CRS_ERR, "%s: %s %s: no response",
				     s->label, s->method, s->what);
	return r;
}

long http_stream_status(const struct http_stream *s)
{
	return s->headers_done ? s->status : 0;
}

const char *http_stream_what(const struct http_stream *s)
{
	return s->what;
}

const char *http_stream_content_type(const struct http_stream *s)
{
	return s->content_type;
}

int http_stream_read(struct http_stream *s, struct buf *out, int *eof)
{
	int r;

	*eof = 0;
	if (!s->pending.len && (r = drive(s, 0)) != 0)
		return r;
	if (!s->pending.len) {
		*eof = 1;
		return 0;
	}
	buf_add(out, s->pending.ptr, s->pending.len);
	buf_reset(&s->pending);
	return 0;
}

int http_stream_sent(const struct http_stream *s)
{
	long n = 0;

	if (!s->easy ||
	    curl_easy_getinfo(s->easy, CURLINFO_REQUEST_SIZE, &n) != CURLE_OK)
		return 0;
	return n > 0;
}
