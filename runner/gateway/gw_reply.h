/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_reply.h - what the gateway answers a CRS, before it becomes HTTP
 *
 * A reply is a status, a content type and either a whole body or a
 * stream to pull from. Error bodies come in the dialect the CRS's client
 * library parses: OpenAI's {"error": {message, type, param, code}} or,
 * on Anthropic's /v1/messages, {"type": "error", "error": {type,
 * message}}. The HTTP server turns replies into responses.
 */
#ifndef CRS_RUNNER_GATEWAY_GW_REPLY_H
#define CRS_RUNNER_GATEWAY_GW_REPLY_H

#include <stddef.h>
#include <sys/types.h>

#include "common/buf.h"

enum gw_dialect { GW_DIALECT_OPENAI, GW_DIALECT_ANTHROPIC };

struct gw_stream;

struct gw_reply {
	unsigned status;
	char content_type[128];
	struct buf body;		/* used when stream is NULL */
	struct gw_stream *stream;	/* owned: pulled, then freed */
};

#define GW_REPLY_INIT { 0, "", BUF_INIT, NULL }

/*
 * Make `r` an error reply: `status`, and a JSON body in `dialect` whose
 * message is the printf result (a CRS may show it to a model, so it says
 * what to change). `type` and `code` are the OpenAI error type and code
 * ("invalid_request_error", "invalid_api_key"); the Anthropic type is
 * derived from the status. Cannot fail.
 */
void gw_reply_error(struct gw_reply *r, unsigned status,
		    enum gw_dialect dialect, const char *type,
		    const char *code, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* Set a JSON body (application/json, status). Cannot fail. */
void gw_reply_json(struct gw_reply *r, unsigned status, const char *json,
		   size_t len);

#endif
