/* SPDX-License-Identifier: Apache-2.0 */
/*
 * http.c - the libcurl transport behind http.h, the one HTTP client
 *
 * Engine over unix socket or TCP+TLS, or a REST API; never logs, so
 * tokens stay out of messages. Safe across threads (shared CURLSH).
 *
 * Details: docs/internals.md.
 */
#include "runner/http/http.h"
#include "runner/http/http_easy.h"
#include "runner/http/http_share.h"
#include "runner/http/engine_hint.h"
#include "common/error.h"
#include "common/xalloc.h"
#include "common/num.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <curl/curl.h>

struct http_curl {
	struct http_transport t;
	char *host;		/* as given, for messages */
	char *label;		/* REST APIs: "github"; NULL: the engine */
	char *base_url;		/* http://localhost, https://h:2376 */
	char *socket_path;	/* unix sockets only */
	char *ca, *cert, *key;	/* TLS only */
	struct http_share *share;
};

/* State of one transfer, shared by the libcurl callbacks. */
struct http_xfer {
	const struct http_request *req;
	struct http_response *resp;
	CURL *h;
	const char *label;	/* the transport's, or NULL */
	size_t max;
	int cb_err;		/* code from on_data or the body cap */
	FILE *body;
	int read_errno;
};

/* How messages name a request: its `what`, else its path. */
static const char *http_what(const struct http_request *req)
{
	return req->what ? req->what : req->path;
}

static size_t http_write_cb(char *ptr, size_t size, size_t nmemb, void *ud)
{
	struct http_xfer *x = ud;
	const struct http_request *req = x->req;
	size_t n = size * nmemb;
	long status = 0;

	curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &status);
	if (req->on_data && status >= 200 && status < 300) {
		int r = req->on_data(ptr, n, req->on_data_ctx);

		if (r != 0) {
			x->cb_err = r < 0 ? r : crs_error_set(CRS_ERR,
				"%s response to %s %s rejected",
				x->label ? x->label : "engine",
				req->method, http_what(req));
			return 0;
		}
		return n;
	}
	if (x->resp->body.len + n > x->max) {
		x->cb_err = x->label ? crs_error_set(CRS_ERR,
			"%s: %s %s: response exceeds %zu bytes", x->label,
			req->method, http_what(req), x->max) :
			crs_error_set(CRS_EENGINE,
			"engine response to %s %s exceeds %zu bytes",
			req->method, http_what(req), x->max);
		return 0;
	}
	buf_add(&x->resp->body, ptr, n);
	return n;
}

static size_t http_read_cb(char *ptr, size_t size, size_t nmemb, void *ud)
{
	struct http_xfer *x = ud;
	size_t n = fread(ptr, 1, size * nmemb, x->body);

	if (n == 0 && ferror(x->body)) {
		x->read_errno = errno ? errno : EIO;
		return CURL_READFUNC_ABORT;
	}
	return n;
}

static int http_progress_cb(void *ud, curl_off_t dltotal, curl_off_t dlnow,
			    curl_off_t ultotal, curl_off_t ulnow)
{
	struct http_xfer *x = ud;

	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	return *x->req->interrupted ? 1 : 0;
}

/* Map a failed curl_easy_perform() to a CRS code and message. */
static int http_curl_error(struct http_curl *c, struct http_xfer *x,
			   CURLcode rc, const char *errbuf)
{
	const struct http_request *req = x->req;
	const char *why = errbuf[0] ? errbuf : curl_easy_strerror(rc);
	curl_off_t ready_us = 0;
	long os_errno = 0;

	if (x->cb_err)
		return x->cb_err;
	if (x->read_errno)
		return crs_error_set(CRS_ERR, "%s: read: %s", req->body_file,
				     strerror(x->read_errno));
	if (rc == CURLE_ABORTED_BY_CALLBACK)
		return crs_error_set(CRS_EINTR, "%s request %s %s "
				     "interrupted", c->label ? c->label :
				     "engine", req->method, http_what(req));
	if (c->label && rc == CURLE_OPERATION_TIMEDOUT)
		return crs_error_set(CRS_ETIMEOUT, "%s: %s %s: no answer in "
				     "%ld ms", c->label, req->method,
				     http_what(req), req->timeout_ms);
	if (c->label)
		return crs_error_set(CRS_ERR, "%s: %s %s: %s", c->label,
				     req->method, http_what(req), why);
	/* Connected (and TLS done) before the clock ran out: a timeout of
	 * the request itself, not an unreachable engine. */
	curl_easy_getinfo(x->h, CURLINFO_PRETRANSFER_TIME_T, &ready_us);
	if (rc == CURLE_OPERATION_TIMEDOUT && ready_us > 0)
		return crs_error_set(CRS_ETIMEOUT, "engine request %s %s at "
				     "%s timed out after %ld ms", req->method,
				     http_what(req), c->host, req->timeout_ms);
	/* libcurl's text names "localhost port 80" for a unix socket; the
	 * socket's errno says more. */
	curl_easy_getinfo(x->h, CURLINFO_OS_ERRNO, &os_errno);
	if (c->socket_path && os_errno)
		return crs_error_set(CRS_EENGINE, "engine unreachable at %s: "
				     "%s: %s; %s", c->host,
				     curl_easy_strerror(rc),
				     strerror((int)os_errno),
				     engine_start_hint());
	return crs_error_set(CRS_EENGINE, "engine unreachable at %s: %s; %s",
			     c->host, why, engine_start_hint());
}

static int http_curl_setup_body(struct http_xfer *x)
{
	const struct http_request *req = x->req;
	CURL *h = x->h;
	int is_post = strcmp(req->method, "POST") == 0;
	struct stat st;

	if (strcmp(req->method, "GET") == 0 && !req->body && !req->body_file) {
		curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
		return 0;
	}
	if (!is_post)
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req->method);
	if (req->body_file) {
		x->body = fopen(req->body_file, "rb");
		if (!x->body)
			return crs_error_set(errno == ENOENT ? CRS_ENOTFOUND :
					     CRS_ERR, "%s: %s", req->body_file,
					     strerror(errno));
		if (fstat(fileno(x->body), &st) != 0 || !S_ISREG(st.st_mode))
			return crs_error_set(CRS_ERR, "%s: not a regular file",
					     req->body_file);
		curl_easy_setopt(h, CURLOPT_POST, 1L);
		curl_easy_setopt(h, CURLOPT_READFUNCTION, http_read_cb);
		curl_easy_setopt(h, CURLOPT_READDATA, x);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)st.st_size);
	} else if (req->body || is_post) {
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)(req->body ? req->body_len : 0));
		curl_easy_setopt(h, CURLOPT_POSTFIELDS,
				 req->body ? req->body : "");
	}
	return 0;
}

static int http_curl_request(struct http_transport *t,
			     const struct http_request *req,
			     struct http_response *resp)
{
	struct http_curl *c = t->ctx;
	struct http_xfer x = { .req = req, .resp = resp, .label = c->label };
	struct curl_slist *headers = NULL;
	char errbuf[CURL_ERROR_SIZE] = "";
	char *url = NULL, *ctype = NULL;
	CURLcode rc;
	int r = CRS_ERR;

	x.max = req->max_response ? req->max_response :
		HTTP_MAX_RESPONSE_DEFAULT;
	buf_reset(&resp->body);
	resp->status = 0;
	x.h = curl_easy_init();
	if (!x.h) {
		r = c->label ? crs_error_set(CRS_ERR, "%s: cannot start "
					     "libcurl", c->label) :
			crs_error_set(CRS_EENGINE, "engine unreachable at %s: "
				      "curl_easy_init failed", c->host);
		goto out;
	}
	url = xasprintf("%s%s", c->base_url, req->path);
	curl_easy_setopt(x.h, CURLOPT_URL, url);
	http_easy_base(x.h, errbuf, c->share);
	curl_easy_setopt(x.h, CURLOPT_USERAGENT, "crs-ci");
	curl_easy_setopt(x.h, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(x.h, CURLOPT_CONNECTTIMEOUT_MS,
			 req->connect_timeout_ms > 0 ? req->connect_timeout_ms :
			 HTTP_CONNECT_TIMEOUT_MS);
	if (req->timeout_ms > 0)
		curl_easy_setopt(x.h, CURLOPT_TIMEOUT_MS, req->timeout_ms);
	if (c->socket_path)
		curl_easy_setopt(x.h, CURLOPT_UNIX_SOCKET_PATH,
				 c->socket_path);
	if (c->ca) {
		curl_easy_setopt(x.h, CURLOPT_CAINFO, c->ca);
		curl_easy_setopt(x.h, CURLOPT_SSLCERT, c->cert);
		curl_easy_setopt(x.h, CURLOPT_SSLCERTTYPE, "PEM");
		curl_easy_setopt(x.h, CURLOPT_SSLKEY, c->key);
		curl_easy_setopt(x.h, CURLOPT_SSL_VERIFYPEER, 1L);
		curl_easy_setopt(x.h, CURLOPT_SSL_VERIFYHOST, 2L);
	}
	curl_easy_setopt(x.h, CURLOPT_WRITEFUNCTION, http_write_cb);
	curl_easy_setopt(x.h, CURLOPT_WRITEDATA, &x);
	if (req->interrupted) {
		curl_easy_setopt(x.h, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(x.h, CURLOPT_XFERINFOFUNCTION,
				 http_progress_cb);
		curl_easy_setopt(x.h, CURLOPT_XFERINFODATA, &x);
	}
	/* No "Expect: 100-continue" round trip before large bodies. */
	headers = curl_slist_append(headers, "Expect:");
	/* Without a type, send none: libcurl would claim a form for POST,
	 * which the engine refuses on some routes (POST /commit). */
	ctype = req->content_type ? xasprintf("Content-Type: %s",
					      req->content_type) :
		xstrdup("Content-Type:");
	headers = curl_slist_append(headers, ctype);
	for (const char *const *hl = req->headers; hl && *hl; hl++)
		headers = curl_slist_append(headers, *hl);
	curl_easy_setopt(x.h, CURLOPT_HTTPHEADER, headers);
	if ((r = http_curl_setup_body(&x)) != 0)
		goto out;

	rc = curl_easy_perform(x.h);
	if (rc != CURLE_OK) {
		r = http_curl_error(c, &x, rc, errbuf);
		goto out;
	}
	curl_easy_getinfo(x.h, CURLINFO_RESPONSE_CODE, &resp->status);
	r = 0;
out:
	if (x.body)
		fclose(x.body);
	if (x.h)
		curl_easy_cleanup(x.h);
	http_headers_free(headers);
	free(ctype);
	free(url);
	return r;
}

static void http_curl_free(struct http_transport *t)
{
	struct http_curl *c;

	if (!t)
		return;
	c = t->ctx;
	http_share_free(c->share);
	free(c->host);
	free(c->label);
	free(c->base_url);
	free(c->socket_path);
	free(c->ca);
	free(c->cert);
	free(c->key);
	free(c);
}

static int http_bad_host(const char *host)
{
	return crs_error_set(CRS_EINPUT, "DOCKER_HOST '%s' is not "
			     "unix:///PATH or tcp://HOST:PORT", host);
}

/* "tcp://host:port" -> "http[s]://host:port"; 0 or CRS_EINPUT. */
static int http_tcp_url(char **out, const char *host, int tls)
{
	const char *s = host + strlen("tcp://");
	const char *end = s + strcspn(s, "/");
	const char *colon = NULL;
	char *name = NULL;
	long port = tls ? 2376 : 2375;

	*out = NULL;
	if (*end && strcmp(end, "/") != 0)
		return http_bad_host(host);
	if (*s == '[') {
		const char *rb = memchr(s, ']', (size_t)(end - s));

		if (!rb || rb == s + 1)
			return http_bad_host(host);
		if (rb + 1 < end && rb[1] != ':')
			return http_bad_host(host);
		colon = rb + 1 < end ? rb + 1 : NULL;
		name = xstrndup(s, (size_t)(rb + 1 - s));
	} else {
		colon = memchr(s, ':', (size_t)(end - s));
		name = xstrndup(s, (size_t)((colon ? colon : end) - s));
		if (!name[0] || strchr(name, '@')) {
			free(name);
			return http_bad_host(host);
		}
	}
	if (colon) {
		if (num_parse_long_n(colon + 1, (size_t)(end - colon - 1), 1,
				     65535, &port) != 0) {
			free(name);
			return http_bad_host(host);
		}
	}
	*out = xasprintf("%s://%s:%ld", tls ? "https" : "http", name, port);
	free(name);
	return 0;
}

static int http_cert_file(char **out, const char *dir, const char *name)
{
	*out = xasprintf("%s/%s", dir, name);
	if (access(*out, R_OK) != 0)
		return crs_error_set(CRS_EINPUT, "DOCKER_CERT_PATH '%s': %s: "
				     "%s", dir, name, strerror(errno));
	return 0;
}

static struct http_curl *http_curl_alloc(const char *host)
{
	struct http_curl *c = xcalloc(1, sizeof(*c));

	c->t.request = http_curl_request;
	c->t.free = http_curl_free;
	c->t.ctx = c;
	c->host = xstrdup(host);
	return c;
}

/*
 * The end of both constructors: when r is 0, share connections, DNS
 * answers and TLS sessions between requests and hand c over through
 * *out; otherwise (or when that fails) free c. Returns r or the failure.
 */
static int http_curl_done(struct http_transport **out, struct http_curl *c,
			  int r)
{
	if (r == 0 && !(c->share = http_share_new(1)))
		r = crs_error_set(CRS_EENGINE, "curl_share_init failed");
	if (r != 0) {
		http_curl_free(&c->t);
		return r;
	}
	*out = &c->t;
	return 0;
}

int http_curl_new(struct http_transport **out, const char *host,
		  int tls, const char *cert_dir)
{
	struct http_curl *c = http_curl_alloc(host);
	int r = CRS_ERR;

	*out = NULL;
	if (strncmp(host, "unix://", 7) == 0) {
		if (!host[7]) {
			r = http_bad_host(host);
			goto out;
		}
		c->socket_path = xstrdup(host + 7);
		c->base_url = xstrdup("http://localhost");
	} else if (strncmp(host, "tcp://", 6) == 0) {
		if ((r = http_tcp_url(&c->base_url, host, tls)) != 0)
			goto out;
		if (tls && (!cert_dir || !cert_dir[0])) {
			r = crs_error_set(CRS_EINPUT, "DOCKER_HOST '%s': TLS "
					  "needs a certificate directory",
					  host);
			goto out;
		}
		if (tls && ((r = http_cert_file(&c->ca, cert_dir,
						"ca.pem")) != 0 ||
			    (r = http_cert_file(&c->cert, cert_dir,
						"cert.pem")) != 0 ||
			    (r = http_cert_file(&c->key, cert_dir,
						"key.pem")) != 0))
			goto out;
	} else {
		r = http_bad_host(host);
		goto out;
	}
	r = 0;
out:
	return http_curl_done(out, c, r);
}

int http_api_new(struct http_transport **out, const char *base_url,
		 const char *label)
{
	struct http_curl *c = NULL;
	size_t n = strlen(base_url);

	*out = NULL;
	if (strncmp(base_url, "https://", 8) != 0 &&
	    strncmp(base_url, "http://", 7) != 0)
		return crs_error_set(CRS_EINPUT, "%s: API URL '%s' is not "
				     "http(s)", label, base_url);
	while (n && base_url[n - 1] == '/')
		n--;
	c = http_curl_alloc(base_url);
	c->label = xstrdup(label);
	c->base_url = xstrndup(base_url, n);
	return http_curl_done(out, c, 0);
}

char *http_escape(const char *s)
{
	char *e = curl_easy_escape(NULL, s, 0);
	char *copy = xstrdup(e ? e : "");

	curl_free(e);
	return copy;
}

int http_global_init(void)
{
	return curl_global_init(CURL_GLOBAL_DEFAULT) == 0 ? 0 :
		crs_error_set(CRS_ERR, "cannot initialise libcurl");
}

void http_global_cleanup(void)
{
	curl_global_cleanup();
}

const char *http_lib_version(void)
{
	return curl_version_info(CURLVERSION_NOW)->version;
}
