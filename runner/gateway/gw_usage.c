/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_usage.c - find what a response says it used
 *
 * Provider output is untrusted: numbers are taken only when they are
 * non-negative integers, capped, and a field that is absent leaves the
 * count it would replace alone (Anthropic repeats usage cumulatively in
 * message_start and message_delta; the last value wins). Only events that
 * mention "usage" are parsed, so metering a stream costs one substring
 * search per event.
 */
#include "runner/gateway/gw_usage.h"

#include <jansson.h>
#include <string.h>

#define TOKENS_MAX INT64_C(1000000000000)

static int take(json_t *obj, const char *key, int64_t *out)
{
	json_t *v = json_object_get(obj, key);	/* borrowed */
	json_int_t x;

	if (!json_is_integer(v))
		return 0;
	x = json_integer_value(v);
	*out = x < 0 ? 0 : x > TOKENS_MAX ? TOKENS_MAX : (int64_t)x;
	return 1;
}

/* Merge one usage object (either dialect) into u. */
static int merge(struct gw_usage *u, json_t *usage)
{
	int64_t in = 0, cw = 0, cr = 0;
	int found = 0;

	if (!json_is_object(usage))
		return 0;
	if (take(usage, "prompt_tokens", &in)) {
		u->tokens_in = in;
		found = 1;
	}
	if (take(usage, "completion_tokens", &u->tokens_out))
		found = 1;
	if (take(usage, "input_tokens", &in)) {
		take(usage, "cache_creation_input_tokens", &cw);
		take(usage, "cache_read_input_tokens", &cr);
		u->tokens_in = in + cw + cr;
		found = 1;
	}
	if (take(usage, "output_tokens", &u->tokens_out))
		found = 1;
	u->seen |= found;
	return found;
}

/* The usage of a response or stream event object. */
static int merge_object(struct gw_usage *u, json_t *obj)
{
	/* borrowed: Anthropic's message_start, a Responses API event */
	json_t *msg = json_object_get(obj, "message");
	json_t *resp = json_object_get(obj, "response");
	int found = merge(u, json_object_get(obj, "usage"));

	if (json_is_object(msg))
		found |= merge(u, json_object_get(msg, "usage"));
	if (json_is_object(resp))
		found |= merge(u, json_object_get(resp, "usage"));
	return found;
}

/* The event type that ends a stream: Anthropic's or the Responses API's */
static int final_type(json_t *obj)
{
	json_t *ty = json_object_get(obj, "type");	/* borrowed */
	const char *s = json_is_string(ty) ? json_string_value(ty) : "";

	return !strcmp(s, "message_stop") ||
	       !strcmp(s, "response.completed") ||
	       !strcmp(s, "response.incomplete") ||
	       !strcmp(s, "response.failed");
}

int gw_usage_from_body(struct gw_usage *u, const char *body, size_t len)
{
	json_t *j = json_loadb(body, len, 0, NULL);
	int found = 0;

	if (json_is_object(j))
		found = merge_object(u, j);
	json_decref(j);
	return found;
}

void gw_sse_init(struct gw_sse *s, int drop_usage_only)
{
	memset(s, 0, sizeof(*s));
	buf_init(&s->pending);
	s->drop_usage_only = drop_usage_only;
}

void gw_sse_release(struct gw_sse *s)
{
	buf_release(&s->pending);
}

/* Meter one event; returns 1 to forward it, 0 to drop it. */
static int meter_event(struct gw_sse *s, const char *ev, size_t len)
{
	const char *p = ev, *end = ev + len;
	int forward = 1;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t n;
		json_t *j;

		if (le > p && le[-1] == '\r')
			le--;
		n = (size_t)(le - p);
		if (n >= 5 && !memcmp(p, "data:", 5)) {
			const char *d = p + 5;

			if (d < le && *d == ' ')
				d++;
			if ((size_t)(le - d) == 6 && !memcmp(d, "[DONE]", 6))
				s->done = 1;
			else if (memmem(d, (size_t)(le - d), "\"usage\"", 7) ||
				 memmem(d, (size_t)(le - d), "message_stop",
					12)) {
				j = json_loadb(d, (size_t)(le - d), 0, NULL);
				if (json_is_object(j)) {
					json_t *ch = json_object_get(j,
								     "choices");
					int found = merge_object(&s->usage, j);

					if (found && s->drop_usage_only &&
					    json_is_array(ch) &&
					    json_array_size(ch) == 0)
						forward = 0;
					if (final_type(j))
						s->done = 1;
				}
				json_decref(j);
			}
		}
		p = nl ? nl + 1 : end;
	}
	return forward;
}

/* The end of the first event in [p, p+len): offset past its blank line,
 * or 0 when no event is complete. */
static size_t event_end(const char *p, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (p[i] != '\n')
			continue;
		if (p[i + 1] == '\n')
			return i + 2;
		if (p[i + 1] == '\r' && i + 2 < len && p[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

void gw_sse_feed(struct gw_sse *s, const char *data, size_t len,
		 struct buf *out)
{
	size_t off = 0, n;

	buf_add(&s->pending, data, len);
	while ((n = event_end(s->pending.ptr + off, s->pending.len - off))) {
		if (meter_event(s, s->pending.ptr + off, n))
			buf_add(out, s->pending.ptr + off, n);
		off += n;
	}
	if (s->pending.len - off > GW_SSE_PENDING_MAX) {
		buf_add(out, s->pending.ptr + off, s->pending.len - off);
		off = s->pending.len;
	}
	if (off) {
		memmove(s->pending.ptr, s->pending.ptr + off,
			s->pending.len - off);
		s->pending.len -= off;
		s->pending.ptr[s->pending.len] = '\0';
	}
}

void gw_sse_finish(struct gw_sse *s, struct buf *out)
{
	if (s->pending.len && meter_event(s, s->pending.ptr, s->pending.len))
		buf_add(out, s->pending.ptr, s->pending.len);
	buf_reset(&s->pending);
}
