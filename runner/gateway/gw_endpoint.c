/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_endpoint.c - the table of what each gateway endpoint needs
 *
 * One row an endpoint (gw_endpoint.h says what each column means); the
 * forwarder reads these facts instead of testing the endpoint.
 */
#include "runner/gateway/gw_endpoint.h"

static const struct gw_endpoint_info endpoints[] = {
	[GW_EP_CHAT] = {
		.suffix = "/chat/completions", .name = "chat completions",
		.dialect = GW_DIALECT_OPENAI, .anthropic_serves = 1,
		.required = "messages", .required_list = 1,
		.streams = 1, .usage_opt_in = 1,
		.limits_read = { "max_completion_tokens", "max_tokens" },
		.limit_written = "max_tokens",
		/* OpenAI's reasoning models refuse max_tokens */
		.limit_written_openai = "max_completion_tokens",
	},
	[GW_EP_COMPLETIONS] = {
		.suffix = "/completions", .name = "completions",
		.dialect = GW_DIALECT_OPENAI,
		.required = "prompt",
		.streams = 1, .usage_opt_in = 1,
		.limits_read = { "max_tokens" },
		.limit_written = "max_tokens",
	},
	[GW_EP_EMBEDDINGS] = {
		.suffix = "/embeddings", .name = "embeddings",
		.dialect = GW_DIALECT_OPENAI,
		.required = "input",
	},
	[GW_EP_MESSAGES] = {
		.suffix = "/messages", .name = "messages",
		.dialect = GW_DIALECT_ANTHROPIC, .anthropic_serves = 1,
		.required = "messages", .required_list = 1,
		.streams = 1,
		.limits_read = { "max_tokens" },
		.limit_written = "max_tokens",
	},
	[GW_EP_RESPONSES] = {
		.suffix = "/responses", .name = "responses",
		.dialect = GW_DIALECT_OPENAI,
		.required = "input",
		.streams = 1,
		.limits_read = { "max_output_tokens" },
		.limit_written = "max_output_tokens",
	},
	[GW_EP_MODELS] = {
		.suffix = "/models", .name = "models",
		.dialect = GW_DIALECT_OPENAI,
	},
};

const struct gw_endpoint_info *gw_endpoint_info(enum gw_endpoint ep)
{
	if ((unsigned)ep >= sizeof(endpoints) / sizeof(endpoints[0]))
		ep = GW_EP_MODELS;
	return &endpoints[ep];
}
