/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_usage.h - token usage out of provider responses, plain and streamed
 *
 * Understands OpenAI's "usage" {prompt_tokens, completion_tokens}, and
 * {input_tokens, output_tokens} of Anthropic (plus cache_*_input_tokens)
 * and of OpenAI's Responses API, in a JSON body or in the events of a
 * server-sent-event stream. The stream
 * side also re-frames events so that a usage-only chunk the gateway asked
 * for on the CRS's behalf can be dropped before the CRS sees it.
 */
#ifndef CRS_RUNNER_GATEWAY_GW_USAGE_H
#define CRS_RUNNER_GATEWAY_GW_USAGE_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

struct gw_usage {
	int64_t tokens_in, tokens_out;
	int seen;		/* a usage object was found */
};

/*
 * Take the usage of a whole JSON response body. Returns 1 when usage was
 * found (u updated), 0 when not (including a body that is not JSON).
 */
int gw_usage_from_body(struct gw_usage *u, const char *body, size_t len);

/* Splits a byte stream into SSE events, forwarding and metering them. */
struct gw_sse {
	struct buf pending;	/* bytes of an event not yet complete */
	struct gw_usage usage;
	int drop_usage_only;	/* drop chunks of choices [] and usage */
	int done;		/* "data: [DONE]" or message_stop seen */
};

#define GW_SSE_PENDING_MAX ((size_t)4 << 20)

void gw_sse_init(struct gw_sse *s, int drop_usage_only);
void gw_sse_release(struct gw_sse *s);
/*
 * Feed `len` bytes from upstream; each complete event is metered and
 * appended to `out` (unless dropped). An event longer than
 * GW_SSE_PENDING_MAX is forwarded unparsed. Cannot fail.
 */
void gw_sse_feed(struct gw_sse *s, const char *data, size_t len,
		 struct buf *out);
/* End of stream: meter and forward what is left. Cannot fail. */
void gw_sse_finish(struct gw_sse *s, struct buf *out);

#endif
