/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_upstream.h - one HTTP exchange with a model provider, read by pull
 *
 * The caller's thread drives the transfer: gw_upstream_wait_headers()
 * runs it until the status line and headers are in, gw_upstream_read()
 * until more body bytes arrive. So a streamed answer reaches the CRS as
 * it arrives, without a thread of our own, and a hung provider costs the
 * one request that waits on it, bounded by the timeouts.
 */
#ifndef CRS_RUNNER_GATEWAY_GW_UPSTREAM_H
#define CRS_RUNNER_GATEWAY_GW_UPSTREAM_H

#include <stddef.h>

#include "common/buf.h"

/*
 * DNS answers and TLS sessions shared by every exchange of a server
 * (runner/http/http_share.h). Connections are not shared: each exchange
 * runs on its own multi handle, in its own thread.
 */
struct gw_upstream_share;

/* Cannot fail: out of memory exits. */
struct gw_upstream_share *gw_upstream_share_new(void);
/* Free; accepts NULL. No exchange may still use it. */
void gw_upstream_share_free(struct gw_upstream_share *s);

struct gw_upstream_req {
	const char *method;		/* "GET" or "POST" */
	const char *url;
	const char *const *headers;	/* "Name: value", NULL-terminated;
					 * may hold a provider key */
	const void *body;		/* copied */
	size_t body_len;
	long connect_timeout_ms;
	long timeout_ms;		/* the whole exchange */
	volatile int *cancel;		/* non-zero: abort (CRS_EINTR) */
	struct gw_upstream_share *share;	/* NULL: none */
};

struct gw_upstream;

/* Set up (not start) an exchange. Cannot fail: out of memory exits. */
struct gw_upstream *gw_upstream_new(const struct gw_upstream_req *req);
/* Abort if running, wipe the headers, free. Accepts NULL. */
void gw_upstream_free(struct gw_upstream *u);

/*
 * Run until the final response's headers are in. 0, or CRS_ETIMEOUT
 * ("upstream <host> did not answer within N s"), CRS_EINTR, or
 * CRS_EENGINE for a transport failure (runner/http's message
 * "upstream: <METHOD> <host>: <reason>", never a header).
 */
int gw_upstream_wait_headers(struct gw_upstream *u);
/* The HTTP status (0 before headers). */
long gw_upstream_status(const struct gw_upstream *u);
/* The response Content-Type, or "" . Borrowed. */
const char *gw_upstream_content_type(const struct gw_upstream *u);

/*
 * Append the next body bytes to `out`, waiting for at least one byte;
 * *eof is set (and nothing appended) at the end of the body. 0, or the
 * codes of gw_upstream_wait_headers() for a failure mid-body.
 */
int gw_upstream_read(struct gw_upstream *u, struct buf *out, int *eof);

/*
 * Read the rest of the body into `out`, up to `max` bytes. 0, CRS_EINPUT
 * when the body is larger than max, or the codes of gw_upstream_read().
 */
int gw_upstream_read_all(struct gw_upstream *u, struct buf *out,
			 size_t max);

/* 1 when request bytes reached the provider (so it may bill), else 0. */
int gw_upstream_sent(const struct gw_upstream *u);

#endif
