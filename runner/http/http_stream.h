/* SPDX-License-Identifier: Apache-2.0 */
/*
 * http_stream.h - the one HTTP client's pulled mode: one exchange, read
 * as it arrives (the gateway's provider calls)
 *
 * No message quotes a header or more of the URL than scheme://host:port.
 *
 * Details: docs/internals.md (runner/http/).
 */
#ifndef CRS_RUNNER_HTTP_HTTP_STREAM_H
#define CRS_RUNNER_HTTP_HTTP_STREAM_H

#include <stddef.h>

#include "common/buf.h"

struct http_request;
struct http_share;
struct http_stream;

/*
 * Set up (not start) an exchange. From `req` it uses: method ("GET" or
 * "POST"), path (here an absolute http(s) URL), what (names it in
 * messages; NULL: scheme://host:port of the URL), content_type, body and
 * body_len (copied), headers (copied, wiped when freed), timeout_ms (the
 * whole exchange; 0: none), connect_timeout_ms (0: 10 s), max_response
 * (cap on the body bytes read; 0: 64 MiB) and interrupted (polled at
 * least every 200 ms). `label` names the client in messages ("upstream");
 * `share` may be NULL. Cannot fail: out of memory exits, and a failure to
 * start is reported by http_stream_wait_headers().
 */
struct http_stream *http_stream_new(const struct http_request *req,
				    const char *label,
				    struct http_share *share);
/* Abort if running, wipe the headers, free. Accepts NULL. */
void http_stream_free(struct http_stream *s);

/*
 * Run until the final response's headers are in. 0, or CRS_ETIMEOUT
 * "<label>: <METHOD> <what>: no answer in <N> ms", CRS_EINTR
 * "<label> request <METHOD> <what> interrupted", or CRS_ERR
 * "<label>: <METHOD> <what>: <reason>" for a transport failure.
 */
int http_stream_wait_headers(struct http_stream *s);
/* The HTTP status (0 before the headers are in). */
long http_stream_status(const struct http_stream *s);
/* How messages name the exchange: `what`, else scheme://host:port of
 * the URL. Borrowed; lives as long as s. */
const char *http_stream_what(const struct http_stream *s);
/* The response's Content-Type, or "". Borrowed. */
const char *http_stream_content_type(const struct http_stream *s);

/*
 * Append the next body bytes to `out`, waiting for at least one byte;
 * *eof is set (and nothing appended) at the end of the body. 0, or the
 * codes of http_stream_wait_headers() for a failure mid-body (a timeout
 * then says "answer not finished in <N> ms"), or CRS_ERR "<label>:
 * <METHOD> <what>: response exceeds <max> bytes" once the body passes
 * max_response (the transfer is then aborted).
 */
int http_stream_read(struct http_stream *s, struct buf *out, int *eof);

/* 1 when request bytes reached the server (so it may act), else 0. */
int http_stream_sent(const struct http_stream *s);

#endif
