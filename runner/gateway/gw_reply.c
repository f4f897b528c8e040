/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_reply.c - error bodies in the OpenAI and Anthropic dialects
 *
 * Messages are built by the gateway, never copied from a provider
 * verbatim, and jansson escapes them, so no byte a provider or CRS sent
 * can break the JSON. Nothing here knows HTTP servers or the ledger.
 */
#include "runner/gateway/gw_reply.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *anthropic_type(unsigned status)
{
	switch (status) {
	case 400: return "invalid_request_error";
	case 401: return "authentication_error";
	case 403: return "permission_error";
	case 404: return "not_found_error";
	case 413: return "request_too_large";
	case 429: return "rate_limit_error";
	case 503: return "overloaded_error";
	default: return "api_error";
	}
}

void gw_reply_json(struct gw_reply *r, unsigned status, const char *json,
		   size_t len)
{
	r->status = status;
	snprintf(r->content_type, sizeof(r->content_type),
		 "application/json");
	buf_reset(&r->body);
	buf_add(&r->body, json, len);
}

void gw_reply_error(struct gw_reply *r, unsigned status,
		    enum gw_dialect dialect, const char *type,
		    const char *code, const char *fmt, ...)
{
	char msg[2048];
	json_t *j;
	char *s;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (dialect == GW_DIALECT_ANTHROPIC)
		j = json_pack("{s:s, s:{s:s, s:s}}", "type", "error", "error",
			      "type", anthropic_type(status), "message", msg);
	else
		j = json_pack("{s:{s:s, s:s, s:n, s:s}}", "error", "message",
			      msg, "type", type, "param", "code", code);
	s = j ? json_dumps(j, JSON_COMPACT) : NULL;
	if (!s)	/* msg was not UTF-8: say so rather than fail */
		s = strdup("{\"error\":{\"message\":\"(message not UTF-8)\","
			   "\"type\":\"api_error\"}}");
	gw_reply_json(r, status, s ? s : "{}", s ? strlen(s) : 2);
	free(s);
	json_decref(j);
}
