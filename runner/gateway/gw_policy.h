/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_policy.h - what a forwarded request may carry, and its token bound
 *
 * A budget holds only if the prompt is bounded before forwarding, so
 * whatever a provider could bill unseen is refused or stripped.
 *
 * Details: docs/gateway.md; design notes: docs/internals.md.
 */
#ifndef CRS_RUNNER_GATEWAY_GW_POLICY_H
#define CRS_RUNNER_GATEWAY_GW_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "runner/gateway/gw_endpoint.h"

/*
 * Template tokens a provider may add around one message (or one prompt,
 * one embedding input): OpenAI documents 3 per message and 1 per name,
 * Llama 3 adds 5 (<|start_header_id|>role<|end_header_id|>\n\n ...
 * <|eot_id|>), SentencePiece 1 for its dummy prefix. 16 is above every
 * template we know; the message's own JSON syntax ({"role":..}) is also
 * counted as bytes although it is never tokenized.
 */
#define GW_POLICY_TOKENS_PER_MESSAGE 16
/* Per request: BOS, the reply's priming (3 at OpenAI), a default system
 * line some chat templates add when the request has none. */
#define GW_POLICY_TOKENS_PER_REQUEST 64
/* When tools or a structured-output schema are given: the tool-use
 * system prompt Anthropic adds (at most 530 tokens, Claude 3 Opus) and
 * OpenAI's "# Tools" / "# Response Formats" preambles. */
#define GW_POLICY_TOKENS_FOR_TOOLS 1024

/* What gw_policy_check() learnt about a request. */
struct gw_policy {
	size_t messages;	/* messages, prompts or inputs (>= 1) */
	size_t outputs;		/* completions produced (prompts sent to
				 * /v1/completions; else 1) */
	int tools;		/* tools or an output schema are defined */
};

/*
 * Check the request body `j` (a JSON object) of route `ep` and strip in
 * place what may go but must not be forwarded (service_tier,
 * cache_control, store: true on /v1/responses). 0 with *out filled, or
 * CRS_EINPUT with a message naming the field and why it is refused; the
 * field's name is copied to `param` (at most `paramsz` bytes).
 */
int gw_policy_check(struct gw_policy *out, json_t *j, enum gw_endpoint ep,
		    char *param, size_t paramsz);

/*
 * The most prompt tokens a provider can bill for a forwarded body of
 * `body_len` bytes checked as `p`. Cannot fail (saturates).
 */
int64_t gw_policy_input_tokens(size_t body_len, const struct gw_policy *p);

/*
 * The anthropic-beta header value to forward: only the betas in the
 * allowlist (fine-grained-tool-streaming, token-efficient-tools,
 * output-128k), comma-separated, into `out`; "" when none is left.
 * Betas that add input or raise prices (context-1m, files-api,
 * mcp-client, code-execution, computer-use, ...) are dropped. Returns
 * out. Cannot fail.
 */
char *gw_policy_anthropic_beta(char *out, size_t outsz, const char *value);

#endif
