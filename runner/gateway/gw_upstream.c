/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_upstream.c - provider calls over the one HTTP client's pulled mode
 *
 * The transfer is runner/http/http_stream.c's; this file words timeouts
 * for the CRS, a stopping gateway, and names a provider by
 * scheme://host:port only (the header list may carry its key).
 *
 * Details: docs/gateway.md; design notes: docs/internals.md.
 */
#include "runner/gateway/gw_upstream.h"
#include "runner/http/http.h"
#include "runner/http/http_share.h"
#include "runner/http/http_stream.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

struct gw_upstream_share {
	struct http_share *sh;	/* NULL: share nothing */
};

struct gw_upstream {
	struct http_stream *s;
	long timeout_ms;
	const char *host;	/* scheme://host:port; the stream's */
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

struct gw_upstream *gw_upstream_new(const struct gw_upstream_req *req)
{
	struct gw_upstream *u = xcalloc(1, sizeof(*u));
	struct http_request hr = {
		.method = req->method,
		.path = req->url,
		.body = req->body,
		.body_len = req->body_len,
		.headers = req->headers,
		.timeout_ms = req->timeout_ms,
		.connect_timeout_ms = req->connect_timeout_ms,
		.max_response = SIZE_MAX,	/* callers cap what they keep */
		.interrupted = req->cancel,
	};

	u->timeout_ms = req->timeout_ms;
	u->s = http_stream_new(&hr, "upstream",
			       req->share ? req->share->sh : NULL);
	u->host = http_stream_what(u->s);
	return u;
}

void gw_upstream_free(struct gw_upstream *u)
{
	if (!u)
		return;
	http_stream_free(u->s);
	free(u);
}

/* The gateway's wording of a failed transfer (message of runner/http's
 * set); the CRS reads it in its error reply. */
static int failure(struct gw_upstream *u, int r)
{
	long s = (u->timeout_ms + 999) / 1000;
	char msg[2048];	/* crs_error_last() may not be its own argument */

	if (r == CRS_ETIMEOUT && !http_stream_status(u->s))
		return crs_error_set(CRS_ETIMEOUT, "upstream %s did not "
				     "answer within %ld s", u->host, s);
	if (r == CRS_ETIMEOUT)
		return crs_error_set(CRS_ETIMEOUT, "upstream %s did not finish "
				     "its answer within %ld s", u->host, s);
	if (r == CRS_EINTR)
		return crs_error_set(CRS_EINTR, "upstream %s: gateway is "
				     "stopping", u->host);
	snprintf(msg, sizeof(msg), "%s", crs_error_last());
	return crs_error_set(CRS_EENGINE, "%s", msg);
}

int gw_upstream_wait_headers(struct gw_upstream *u)
{
	int r = http_stream_wait_headers(u->s);

	return r ? failure(u, r) : 0;
}

long gw_upstream_status(const struct gw_upstream *u)
{
	return http_stream_status(u->s);
}

const char *gw_upstream_content_type(const struct gw_upstream *u)
{
	return http_stream_content_type(u->s);
}

int gw_upstream_read(struct gw_upstream *u, struct buf *out, int *eof)
{
	int r = http_stream_read(u->s, out, eof);

	return r ? failure(u, r) : 0;
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
	return http_stream_sent(u->s);
}
