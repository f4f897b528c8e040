/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_forward.h - one CRS request: check, reserve, forward, settle
 *
 * The HTTP server has already matched the route and the CRS's key; this
 * part reads the body, picks the provider, reserves the worst case in the
 * ledger, calls the provider and turns its answer (or its failure) into a
 * reply. Streamed answers are settled when the stream is freed.
 */
#ifndef CRS_RUNNER_GATEWAY_GW_FORWARD_H
#define CRS_RUNNER_GATEWAY_GW_FORWARD_H

#include <stddef.h>
#include <sys/types.h>

#include "runner/gateway/gw_endpoint.h"
#include "runner/gateway/gw_reply.h"

struct gw_config;
struct gw_ledger;
struct gw_reply;
struct gw_upstream_share;

/* What every request shares; borrowed, and outlives the server. */
struct gw_forward_env {
	const struct gw_config *cfg;
	struct gw_ledger *ledger;
	struct gw_upstream_share *share;
	volatile int *stopping;	/* set when the server stops */
};

struct gw_forward_req {
	enum gw_endpoint ep;
	const char *path;	/* as sent: "/v1/chat/completions" */
	size_t crs;		/* ledger account */
	const char *body;	/* untrusted */
	size_t body_len;
	const char *anthropic_version;	/* the CRS's headers, or NULL */
	const char *anthropic_beta;
};

/*
 * Serve one request into `out` (GW_REPLY_INIT on entry). Cannot fail:
 * every failure becomes an error reply (400 bad body, 404 unknown model,
 * 429 over budget, 502 provider failed, 504 provider timed out, ...).
 */
void gw_forward(struct gw_reply *out, const struct gw_forward_env *env,
		const struct gw_forward_req *req);

/*
 * Pull up to `max` bytes of a streamed reply into `dst`, waiting for
 * them. Returns the count (> 0), 0 at the end, -1 when the stream broke
 * without a way to tell the client (the connection is then closed).
 */
ssize_t gw_stream_read(struct gw_stream *s, char *dst, size_t max);
/* Settle the stream's request in the ledger and free it. Accepts NULL. */
void gw_stream_free(struct gw_stream *s);
/* Free a reply's body and its stream (which settles its request). */
void gw_reply_release(struct gw_reply *r);

#endif
