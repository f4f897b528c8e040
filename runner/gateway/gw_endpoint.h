/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_endpoint.h - the routes the gateway serves, and what each one needs
 *
 * Shared by the forwarder (gw_forward.c), the request policy
 * (gw_policy.c) and the server (gw_server.c), so none includes another's
 * header. The per-endpoint facts the forwarder acts on (the upstream
 * path, the field a request must carry, its output-limit fields, how a
 * stream's usage is asked for) are rows of one table, gw_endpoint_info.
 */
#ifndef CRS_RUNNER_GATEWAY_GW_ENDPOINT_H
#define CRS_RUNNER_GATEWAY_GW_ENDPOINT_H

#include "runner/gateway/gw_reply.h"

enum gw_endpoint {
	GW_EP_CHAT,		/* /v1/chat/completions */
	GW_EP_COMPLETIONS,	/* /v1/completions */
	GW_EP_EMBEDDINGS,	/* /v1/embeddings */
	GW_EP_MESSAGES,		/* /v1/messages (Anthropic) */
	GW_EP_RESPONSES,	/* /v1/responses (OpenAI Responses API) */
	GW_EP_MODELS,		/* GET /v1/models */
};

struct gw_endpoint_info {
	const char *suffix;	/* the provider's path after its base URL */
	const char *name;	/* in error messages */
	enum gw_dialect dialect;	/* of the replies and errors */
	int anthropic_serves;	/* an Anthropic-style provider serves it (an
				 * OpenAI-style one serves every OpenAI-dialect
				 * endpoint) */
	const char *required;	/* the body field a request must carry */
	int required_list;	/* ... as a non-empty list */
	int streams;		/* "stream": true is honoured */
	int usage_opt_in;	/* a stream carries usage only when
				 * stream_options.include_usage asks */
	/* The output limit: the fields a request may set it in (read in
	 * this order, the largest wins; none: the endpoint writes no
	 * output, so it needs no output price), the one field the gateway
	 * writes, and the one it writes instead for api.openai.com (NULL:
	 * the same). */
	const char *limits_read[3];
	const char *limit_written;
	const char *limit_written_openai;
};

/* The row of `ep`; never NULL. */
const struct gw_endpoint_info *gw_endpoint_info(enum gw_endpoint ep);

#endif
