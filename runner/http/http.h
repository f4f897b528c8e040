/* SPDX-License-Identifier: Apache-2.0 */
/*
 * http.h - the one HTTP client: a transport seam over libcurl
 *
 * Requests built by the engine client and the reporters, executed by
 * http.c or by a test's fake transport; a header may carry a secret.
 *
 * Details: docs/internals.md (runner/http/).
 */
#ifndef CRS_RUNNER_HTTP_HTTP_H
#define CRS_RUNNER_HTTP_HTTP_H

#include <stddef.h>
#include "common/buf.h"

struct http_request {
	const char *method;		/* "GET", "POST", "PUT", "DELETE" */
	const char *path;		/* "/v1.41/containers/create?name=x" */
	const char *what;		/* names it in messages; NULL: path */
	const char *content_type;	/* NULL when no body */
	const void *body;
	size_t body_len;
	const char *body_file;		/* stream this file as body instead */
	long timeout_ms;		/* 0: none */
	long connect_timeout_ms;	/* 0: 10 s */
	/* More header lines ("Name: value"), NULL-terminated, or NULL. They
	 * may carry secrets (X-Registry-Auth): never logged or echoed. */
	const char *const *headers;
	size_t max_response;		/* cap on the kept body; 0 = 64 MiB */
	/*
	 * If set, called with each chunk of the body of a 2xx response as
	 * it arrives; that body is then not kept in resp->body. The body of
	 * any other status is kept (capped) for the error message. Return 0
	 * to go on, or a negative CRS_E* code (message set) to abort: the
	 * request then returns that code.
	 */
	int (*on_data)(const char *data, size_t len, void *ctx);
	void *on_data_ctx;
	/* If set, the request is aborted (CRS_EINTR) once *interrupted != 0,
	 * checked about once a second while the transfer runs. */
	volatile int *interrupted;
};

#define HTTP_MAX_RESPONSE_DEFAULT ((size_t)64 << 20)

struct http_response {
	long status;
	struct buf body;
};
#define HTTP_RESPONSE_INIT { 0, BUF_INIT }
/* Free the body and reset to HTTP_RESPONSE_INIT. Cannot fail. */
void http_response_release(struct http_response *r);

struct http_transport {
	/*
	 * 0 with resp filled (any HTTP status), or a negative code with the
	 * message set: CRS_EENGINE "engine unreachable at <host>: <reason>"
	 * (transport failure, body over max_response), CRS_ETIMEOUT
	 * (timeout_ms passed), CRS_EINTR (*interrupted), CRS_ERR (body_file
	 * unreadable) or the code returned by on_data.
	 */
	int (*request)(struct http_transport *t, const struct http_request *req,
		       struct http_response *resp);
	void (*free)(struct http_transport *t);
	void *ctx;
};

/*
 * The libcurl transport. `host` is a DOCKER_HOST value: unix:///path or
 * tcp://host:port (port defaults to 2376 with tls, else 2375); with tls,
 * cert_dir holds ca.pem, cert.pem and key.pem, and the engine's
 * certificate is verified against ca.pem and the host name. Returns 0, or
 * CRS_EINPUT (bad host, certificate file missing). Does not connect.
 * Safe to use from several threads at once (connections are shared).
 */
int http_curl_new(struct http_transport **out, const char *host,
		  int tls, const char *cert_dir);

/*
 * The libcurl transport to a REST API at `base_url` (http:// or https://,
 * no trailing slash needed: request paths start with '/'). `label` names
 * the API in messages ("github"). Requests fail with CRS_ERR
 * "<label>: <METHOD> <path>: <reason>" (transport failure, body over
 * max_response), CRS_ETIMEOUT "<label>: <METHOD> <path>: no answer in
 * <N> ms", or the code returned by on_data. Redirects are never followed,
 * so a token header cannot reach another host. Returns 0, or CRS_EINPUT
 * (base_url not http(s)). Does not connect.
 */
int http_api_new(struct http_transport **out, const char *base_url,
		 const char *label);

/* `s` percent-encoded for a URL path segment; the caller frees it. */
char *http_escape(const char *s);

/* libcurl (and through it OpenSSL), once per process: 0, or CRS_ERR
 * when it cannot start. The command line calls it, nothing else. */
int http_global_init(void);
/* Undo http_global_init. Cannot fail. */
void http_global_cleanup(void);
/* The libcurl version, for `crs-ci version`. Borrowed, static. */
const char *http_lib_version(void);

#endif
