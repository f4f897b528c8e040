/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_upstream.c - libcurl client for provider calls, one handle a request
 *
 * One easy handle in its own multi handle per exchange; provider keys
 * are wiped and never quoted in a message.
 *
 * Details: docs/gateway.md; design notes: docs/internals.md.
 */
#include "runner/gateway/gw_upstream.h"
#include "runner/http/http_easy.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define POLL_SLICE_MS 200

struct gw_upstream_share {
	struct http_share *sh;	/* NULL: share nothing */
};

struct gw_upstream {
	CURL *easy;
	CURLM *multi;
	struct curl_slist *hdrs;
	char *body;
	struct buf pending;	/* body bytes not yet handed out */
	long status;
	int headers_done, finished, added;
	CURLcode result;
	long timeout_ms;
	volatile int *cancel;
	char content_type[128];
	char host[128];
	char errbuf[CURL_ERROR_SIZE];
};

struct gw_upstream_share *gw_upstream_share_new(void)
{
	struct gw_upstream_share *s = xcalloc(1, sizeof(*s));

	s->sh = http_share_new(0);
	return s;
}

void gw_upstream_share_free(struct gw_upstream_share *s)
{
	if (!s)
		return;
	http_share_free(s->sh);
	free(s);
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *ctx)
{
	struct gw_upstream *u = ctx;

	buf_add(&u->pending, data, size * nmemb);
	return size * nmemb;
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *ctx)
{
	struct gw_upstream *u = ctx;
	size_t n = size * nmemb;

	if (n >= 5 && !memcmp(data, "HTTP/", 5)) {
		const char *sp = memchr(data, ' ', n);

		u->status = sp ? strtol(sp + 1, NULL, 10) : 0;
		u->content_type[0] = '\0';
		u->headers_done = 0;
	} else if ((n == 2 && data[0] == '\r') || (n == 1 && data[0] == '\n')) {
		if (u->status >= 200)
			u->headers_done = 1;
	} else if (n > 13 && !strncasecmp(data, "Content-Type:", 13)) {
		size_t a = 13, b = n;

		while (a < b && (data[a] == ' ' || data[a] == '\t'))
			a++;
		while (b > a && (data[b - 1] == '\r' || data[b - 1] == '\n' ||
				 data[b - 1] == ' '))
			b--;
		if (b - a >= sizeof(u->content_type))
			b = a + sizeof(u->content_type) - 1;
		memcpy(u->content_type, data + a, b - a);
		u->content_type[b - a] = '\0';
	}
	return n;
}

/* scheme://host[:port] of url, for messages. */
static void host_of(char *out, size_t outsz, const char *url)
{
	const char *p = strstr(url, "://");
	size_t n;

	p = p ? p + 3 : url;
	n = strcspn(p, "/?#");
	n += (size_t)(p - url);
	if (n >= outsz)
		n = outsz - 1;
	memcpy(out, url, n);
	out[n] = '\0';
}

struct gw_upstream *gw_upstream_new(const struct gw_upstream_req *req)
{
	struct gw_upstream *u = xcalloc(1, sizeof(*u));

	buf_init(&u->pending);
	u->timeout_ms = req->timeout_ms;
	u->cancel = req->cancel;
	host_of(u->host, sizeof(u->host), req->url);
	u->easy = curl_easy_init();
	u->multi = curl_multi_init();
	if (!u->easy || !u->multi) {
		u->finished = 1;
		u->result = CURLE_OUT_OF_MEMORY;
		return u;
	}
	for (const char *const *h = req->headers; h && *h; h++)
		u->hdrs = curl_slist_append(u->hdrs, *h);
	u->hdrs = curl_slist_append(u->hdrs, "Expect:");
	curl_easy_setopt(u->easy, CURLOPT_URL, req->url);
	curl_easy_setopt(u->easy, CURLOPT_HTTPHEADER, u->hdrs);
	http_easy_base(u->easy, u->errbuf, req->share ? req->share->sh : NULL);
	curl_easy_setopt(u->easy, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(u->easy, CURLOPT_WRITEDATA, u);
	curl_easy_setopt(u->easy, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(u->easy, CURLOPT_HEADERDATA, u);
	curl_easy_setopt(u->easy, CURLOPT_TCP_NODELAY, 1L);
	if (req->connect_timeout_ms > 0)
		curl_easy_setopt(u->easy, CURLOPT_CONNECTTIMEOUT_MS,
				 req->connect_timeout_ms);
	if (req->timeout_ms > 0)
		curl_easy_setopt(u->easy, CURLOPT_TIMEOUT_MS, req->timeout_ms);
	if (!strcmp(req->method, "POST")) {
		u->body = xmalloc(req->body_len ? req->body_len : 1);
		if (req->body_len)
			memcpy(u->body, req->body, req->body_len);
		curl_easy_setopt(u->easy, CURLOPT_POST, 1L);
		curl_easy_setopt(u->easy, CURLOPT_POSTFIELDS, u->body);
		curl_easy_setopt(u->easy, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)req->body_len);
	} else {
		curl_easy_setopt(u->easy, CURLOPT_HTTPGET, 1L);
	}
	if (curl_multi_add_handle(u->multi, u->easy) == CURLM_OK)
		u->added = 1;
	else {
		u->finished = 1;
		u->result = CURLE_FAILED_INIT;
	}
	return u;
}

void gw_upstream_free(struct gw_upstream *u)
{
	if (!u)
		return;
	if (u->added)
		curl_multi_remove_handle(u->multi, u->easy);
	if (u->easy)
		curl_easy_cleanup(u->easy);
	if (u->multi)
		curl_multi_cleanup(u->multi);
	http_headers_free(u->hdrs);
	free(u->body);
	buf_release(&u->pending);
	free(u);
}

static int failure(struct gw_upstream *u)
{
	if (u->result == CURLE_OPERATION_TIMEDOUT) {
		long s = (u->timeout_ms + 999) / 1000;

		if (!u->headers_done)
			return crs_error_set(CRS_ETIMEOUT, "upstream %s did "
					     "not answer within %ld s",
					     u->host, s);
		return crs_error_set(CRS_ETIMEOUT, "upstream %s did not finish "
				     "its answer within %ld s", u->host, s);
	}
	return crs_error_set(CRS_EENGINE, "upstream %s: %s", u->host,
			     u->errbuf[0] ? u->errbuf
					  : curl_easy_strerror(u->result));
}

static void step(struct gw_upstream *u)
{
	CURLMsg *m;
	int running = 0, left = 0;

	if (u->finished)
		return;
	if (curl_multi_perform(u->multi, &running) != CURLM_OK) {
		u->finished = 1;
		u->result = CURLE_FAILED_INIT;
		return;
	}
	while ((m = curl_multi_info_read(u->multi, &left)))
		if (m->msg == CURLMSG_DONE) {
			u->finished = 1;
			u->result = m->data.result;
		}
}

/* Drive until `want_headers` are in, or some body bytes are pending, or
 * the exchange finished. */
static int drive(struct gw_upstream *u, int want_headers)
{
	for (;;) {
		step(u);
		if (want_headers ? u->headers_done : u->pending.len > 0)
			return 0;
		if (u->finished)
			return u->result == CURLE_OK ? 0 : failure(u);
		if (u->cancel && *u->cancel)
			return crs_error_set(CRS_EINTR, "upstream %s: gateway "
					     "is stopping", u->host);
		curl_multi_poll(u->multi, NULL, 0, POLL_SLICE_MS, NULL);
	}
}

int gw_upstream_wait_headers(struct gw_upstream *u)
{
	int r = drive(u, 1);

	if (r == 0 && !u->headers_done)
		return crs_error_set(CRS_EENGINE, "upstream %s: no response",
				     u->host);
	return r;
}

long gw_upstream_status(const struct gw_upstream *u)
{
	return u->headers_done ? u->status : 0;
}

const char *gw_upstream_content_type(const struct gw_upstream *u)
{
	return u->content_type;
}

int gw_upstream_read(struct gw_upstream *u, struct buf *out, int *eof)
{
	int r;

	*eof = 0;
	if (!u->pending.len && (r = drive(u, 0)) != 0)
		return r;
	if (!u->pending.len) {
		*eof = 1;
		return 0;
	}
	buf_add(out, u->pending.ptr, u->pending.len);
	buf_reset(&u->pending);
	return 0;
}

int gw_upstream_read_all(struct gw_upstream *u, struct buf *out, size_t max)
{
	int eof = 0, r;

	while (!eof) {
		if ((r = gw_upstream_read(u, out, &eof)) != 0)
			return r;
		if (out->len > max)
			return crs_error_set(CRS_EINPUT, "upstream %s: answer "
					     "larger than %zu bytes", u->host,
					     max);
	}
	return 0;
}

int gw_upstream_sent(const struct gw_upstream *u)
{
	long n = 0;

	if (!u->easy ||
	    curl_easy_getinfo(u->easy, CURLINFO_REQUEST_SIZE, &n) != CURLE_OK)
		return 0;
	return n > 0;
}
