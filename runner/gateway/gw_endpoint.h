/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_endpoint.h - the routes the gateway serves, as one enum
 *
 * Shared by the forwarder (gw_forward.c) and the request policy
 * (gw_policy.c), so neither includes the other's header.
 */
#ifndef CRS_RUNNER_GATEWAY_GW_ENDPOINT_H
#define CRS_RUNNER_GATEWAY_GW_ENDPOINT_H

enum gw_endpoint {
	GW_EP_CHAT,		/* /v1/chat/completions */
	GW_EP_COMPLETIONS,	/* /v1/completions */
	GW_EP_EMBEDDINGS,	/* /v1/embeddings */
	GW_EP_MESSAGES,		/* /v1/messages (Anthropic) */
	GW_EP_RESPONSES,	/* /v1/responses (OpenAI Responses API) */
	GW_EP_MODELS,		/* GET /v1/models */
};

#endif
