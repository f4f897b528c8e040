/* SPDX-License-Identifier: Apache-2.0 */
/*
 * http.h - the transport seam between the engine client and libcurl
 *
 * docker.c builds requests; a transport executes them. http_curl.c is the
 * real one (unix socket or TCP+TLS); tests replace it with a fake that
 * replays canned responses and records what was sent.
 */
#ifndef CRS_RUNNER_ENGINE_HTTP_H
#define CRS_RUNNER_ENGINE_HTTP_H

#include <stddef.h>
#include "common/buf.h"

struct http_request {
	const char *method;		/* "GET", "POST", "DELETE" */
	const char *path;		/* "/v1.41/containers/create?name=x" */
	const char *content_type;	/* NULL when no body */
	const void *body;
	size_t body_len;
	const char *body_file;		/* stream this file as body instead */
	long timeout_ms;		/* 0: none */
	size_t max_response;		/* cap on the kept body; 0 = 64 MiB */
	/* If set, called with each chunk of response body as it arrives
	 * (the body is then not accumulated). Return non-zero to abort. */
	int (*on_data)(const char *data, size_t len, void *ctx);
	void *on_data_ctx;
};

struct http_response {
	long status;
	struct buf body;
};
#define HTTP_RESPONSE_INIT { 0, BUF_INIT }
void http_response_release(struct http_response *r);

struct http_transport {
	/* 0 with resp filled, or CRS_EENGINE (transport failure). */
	int (*request)(struct http_transport *t, const struct http_request *req,
		       struct http_response *resp);
	void (*free)(struct http_transport *t);
	void *ctx;
};

/*
 * The libcurl transport. `host` is a DOCKER_HOST value: unix:///path or
 * tcp://host:port; with tls, cert_dir holds ca.pem, cert.pem and key.pem.
 */
int http_curl_new(struct http_transport **out, const char *host,
		  int tls, const char *cert_dir);

#endif
