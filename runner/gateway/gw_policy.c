/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_policy.c - refuse or strip what a provider could bill unseen
 *
 * Trust boundary: the body is a CRS's. Per-route allowlists refuse
 * unknown fields; content is allowed only as text.
 *
 * Details: docs/gateway.md; design notes: docs/internals.md.
 */
#include "runner/gateway/gw_policy.h"
#include "common/error.h"

#include <stdio.h>
#include <string.h>

enum field_kind {
	F_OK,		/* forwarded as sent */
	F_STRIP,	/* removed: changes price, not the answer */
	F_CHECK,	/* looked at below */
};

struct field {
	const char *name;
	enum field_kind kind;
};

static const struct field chat_fields[] = {
	{ "model", F_OK }, { "messages", F_CHECK },
	{ "max_tokens", F_OK }, { "max_completion_tokens", F_OK },
	{ "n", F_CHECK }, { "stream", F_OK }, { "stream_options", F_OK },
	{ "temperature", F_OK }, { "top_p", F_OK },
	{ "frequency_penalty", F_OK }, { "presence_penalty", F_OK },
	{ "stop", F_OK }, { "seed", F_OK }, { "logit_bias", F_OK },
	{ "logprobs", F_OK }, { "top_logprobs", F_OK }, { "user", F_OK },
	{ "response_format", F_CHECK }, { "tools", F_CHECK },
	{ "tool_choice", F_OK }, { "parallel_tool_calls", F_OK },
	{ "functions", F_CHECK }, { "function_call", F_OK },
	{ "reasoning_effort", F_OK }, { "verbosity", F_OK },
	{ "metadata", F_OK }, { "store", F_OK },
	{ "safety_identifier", F_OK }, { "prompt_cache_key", F_OK },
	{ "modalities", F_CHECK }, { "service_tier", F_STRIP },
	{ "top_k", F_OK }, { "min_p", F_OK },
	{ "repetition_penalty", F_OK }, { NULL, F_OK },
};

static const struct field completions_fields[] = {
	{ "model", F_OK }, { "prompt", F_CHECK }, { "suffix", F_OK },
	{ "max_tokens", F_OK }, { "n", F_CHECK }, { "best_of", F_CHECK },
	{ "stream", F_OK }, { "stream_options", F_OK },
	{ "temperature", F_OK }, { "top_p", F_OK }, { "logprobs", F_OK },
	{ "echo", F_OK }, { "stop", F_OK }, { "presence_penalty", F_OK },
	{ "frequency_penalty", F_OK }, { "logit_bias", F_OK },
	{ "user", F_OK }, { "seed", F_OK }, { "top_k", F_OK },
	{ "min_p", F_OK }, { "repetition_penalty", F_OK },
	{ "service_tier", F_STRIP }, { NULL, F_OK },
};

static const struct field embeddings_fields[] = {
	{ "model", F_OK }, { "input", F_CHECK },
	{ "encoding_format", F_OK }, { "dimensions", F_OK },
	{ "user", F_OK }, { NULL, F_OK },
};

static const struct field responses_fields[] = {
	{ "model", F_OK }, { "input", F_CHECK }, { "instructions", F_CHECK },
	{ "max_output_tokens", F_OK }, { "temperature", F_OK },
	{ "top_p", F_OK }, { "stream", F_OK }, { "stream_options", F_OK },
	{ "tools", F_CHECK }, { "tool_choice", F_OK },
	{ "parallel_tool_calls", F_OK }, { "text", F_CHECK },
	{ "reasoning", F_OK }, { "metadata", F_OK }, { "user", F_OK },
	{ "store", F_CHECK }, { "include", F_OK }, { "truncation", F_OK },
	{ "safety_identifier", F_OK }, { "prompt_cache_key", F_OK },
	{ "top_logprobs", F_OK }, { "max_tool_calls", F_OK },
	{ "background", F_CHECK }, { "service_tier", F_STRIP },
	{ NULL, F_OK },
};

static const struct field messages_fields[] = {
	{ "model", F_OK }, { "messages", F_CHECK }, { "system", F_CHECK },
	{ "max_tokens", F_OK }, { "metadata", F_OK },
	{ "stop_sequences", F_OK }, { "stream", F_OK },
	{ "temperature", F_OK }, { "top_p", F_OK }, { "top_k", F_OK },
	{ "tools", F_CHECK }, { "tool_choice", F_OK }, { "thinking", F_OK },
	{ "service_tier", F_STRIP }, { "cache_control", F_STRIP },
	{ NULL, F_OK },
};

/* Refused with a reason of their own (the rest: "not supported"). */
static const struct {
	const char *name, *why;
} refused[] = {
	{ "previous_response_id", "it makes the provider add a stored "
	  "conversation the gateway cannot see; send the whole input" },
	{ "conversation", "it makes the provider add a stored conversation "
	  "the gateway cannot see; send the whole input" },
	{ "prompt", "a stored prompt template adds input the gateway cannot "
	  "see; send the text as input" },
	{ "audio", "audio is billed at its own prices, which the budget "
	  "cannot bound" },
	{ "prediction", "predicted outputs are billed beyond the output "
	  "limit" },
	{ "web_search_options", "web search is billed per call, beyond "
	  "tokens" },
	{ "mcp_servers", "MCP servers add tool results the gateway cannot "
	  "see" },
	{ "container", "code execution is billed beyond tokens" },
};

static int refuse(char *param, size_t paramsz, const char *field,
		  const char *fmt, const char *what)
{
	snprintf(param, paramsz, "%s", field);
	return crs_error_set(CRS_EINPUT, fmt, field, what);
}

#define REFUSE(field, fmt, what) refuse(param, paramsz, field, fmt, what)

static const struct field *fields_of(enum gw_endpoint ep)
{
	switch (ep) {
	case GW_EP_CHAT: return chat_fields;
	case GW_EP_COMPLETIONS: return completions_fields;
	case GW_EP_EMBEDDINGS: return embeddings_fields;
	case GW_EP_RESPONSES: return responses_fields;
	case GW_EP_MESSAGES: return messages_fields;
	case GW_EP_MODELS: break;
	}
	return NULL;
}

static const char *type_of(json_t *o)
{
	const char *t = json_string_value(json_object_get(o, "type"));

	return t ? t : "";	/* borrowed */
}

static int one_of(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return 1;
	return 0;
}

/* Text-only content: a string, or a list of parts of the given types. */
static int check_content(json_t *content, const char *const *types,
			 const char *field, char *param, size_t paramsz)
{
	size_t i;
	json_t *part;

	if (!content || json_is_null(content) || json_is_string(content))
		return 0;
	if (!json_is_array(content))
		return REFUSE(field, "\"%s\" must be a string or a list of "
			      "%s parts", "text");
	json_array_foreach(content, i, part) {
		if (!json_is_object(part) || !one_of(type_of(part), types))
			return REFUSE(field, "\"%s\": only text content is "
				      "forwarded (a part of type \"%s\" may "
				      "make the provider bill input the "
				      "gateway cannot bound: images, audio, "
				      "files and URLs are refused)",
				      json_is_object(part) ? type_of(part)
							   : "?");
		json_object_del(part, "cache_control");
	}
	return 0;
}

/* Every tool is a function the CRS runs: no server-side tools. */
static int check_tools(struct gw_policy *out, json_t *tools,
		       const char *const *types, const char *field,
		       char *param, size_t paramsz)
{
	size_t i;
	json_t *t;

	if (!tools || json_is_null(tools))
		return 0;
	if (!json_is_array(tools))
		return REFUSE(field, "\"%s\" must be a list%s", "");
	json_array_foreach(tools, i, t) {
		if (!json_is_object(t) || !one_of(type_of(t), types))
			return REFUSE(field, "\"%s\": only plain function "
				      "tools are forwarded; a tool of type "
				      "\"%s\" runs on the provider's side and "
				      "is billed beyond the gateway's bound "
				      "(web search, file search, code "
				      "interpreter, computer use, MCP, ...)",
				      json_is_object(t) ? type_of(t) : "?");
		json_object_del(t, "cache_control");
	}
	if (json_array_size(tools))
		out->tools = 1;
	return 0;
}

static const char *const chat_part_types[] = { "text", "refusal", NULL };
static const char *const anthropic_text[] = { "text", NULL };
static const char *const function_tool[] = { "function", NULL };
/* Anthropic: a custom tool has no type, or "custom" */
static const char *const anthropic_tool[] = { "", "custom", NULL };

static int check_chat_messages(struct gw_policy *out, json_t *msgs,
			       char *param, size_t paramsz)
{
	size_t i;
	json_t *m;

	json_array_foreach(msgs, i, m) {
		if (!json_is_object(m))
			return REFUSE("messages", "\"%s\" must hold objects%s",
				      "");
		if (json_object_get(m, "audio"))
			return REFUSE("messages", "\"%s\": %s", "a message's "
				      "\"audio\" refers to audio the gateway "
				      "cannot see");
		if (check_content(json_object_get(m, "content"),
				  chat_part_types, "messages", param,
				  paramsz) != 0)
			return CRS_EINPUT;
	}
	out->messages += json_array_size(msgs);
	return 0;
}

static int check_anthropic_messages(struct gw_policy *out, json_t *msgs,
				    char *param, size_t paramsz)
{
	static const char *const blocks[] = {
		"text", "tool_use", "tool_result", "thinking",
		"redacted_thinking", NULL,
	};
	size_t i, k;
	json_t *m, *b, *content;

	json_array_foreach(msgs, i, m) {
		if (!json_is_object(m))
			return REFUSE("messages", "\"%s\" must hold objects%s",
				      "");
		content = json_object_get(m, "content");
		if (!json_is_array(content)) {
			if (check_content(content, anthropic_text, "messages",
					  param, paramsz) != 0)
				return CRS_EINPUT;
			continue;
		}
		json_array_foreach(content, k, b) {
			if (!json_is_object(b) || !one_of(type_of(b), blocks))
				return REFUSE("messages", "\"%s\": only "
					"text, tool_use, tool_result and "
					"thinking blocks are forwarded (a "
					"block of type \"%s\" may make the "
					"provider bill input the gateway "
					"cannot bound: images, documents, "
					"files and search results are "
					"refused)", json_is_object(b) ?
					type_of(b) : "?");
			json_object_del(b, "cache_control");
			if (!strcmp(type_of(b), "tool_result") &&
			    check_content(json_object_get(b, "content"),
					  anthropic_text, "messages", param,
					  paramsz) != 0)
				return CRS_EINPUT;
		}
	}
	out->messages += json_array_size(msgs);
	return 0;
}

/* /v1/responses input: a string, or messages and function-call items. */
static int check_responses_input(struct gw_policy *out, json_t *input,
				 char *param, size_t paramsz)
{
	static const char *const parts[] = {
		"input_text", "output_text", "refusal", "text", NULL,
	};
	size_t i;
	json_t *it;
	const char *t;

	if (json_is_string(input)) {
		out->messages++;
		return 0;
	}
	if (!json_is_array(input))
		return REFUSE("input", "\"%s\" must be a string or a list%s",
			      "");
	json_array_foreach(input, i, it) {
		if (!json_is_object(it))
			return REFUSE("input", "\"%s\" must hold objects%s",
				      "");
		t = type_of(it);
		if (!*t || !strcmp(t, "message")) {
			if (check_content(json_object_get(it, "content"),
					  parts, "input", param, paramsz) != 0)
				return CRS_EINPUT;
		} else if (!strcmp(t, "function_call_output")) {
			if (check_content(json_object_get(it, "output"),
					  parts, "input", param, paramsz) != 0)
				return CRS_EINPUT;
		} else if (strcmp(t, "function_call")) {
			return REFUSE("input", "\"%s\": only messages and "
				      "function calls are forwarded (an item "
				      "of type \"%s\" refers to stored or "
				      "encrypted content, or to a file, an "
				      "image or a server tool, that the "
				      "gateway cannot bound)", t);
		}
	}
	out->messages += json_array_size(input);
	return 0;
}

/* A prompt or embedding input: string, strings, tokens or token lists. */
static size_t count_inputs(json_t *v)
{
	json_t *first;

	if (!json_is_array(v) || !json_array_size(v))
		return 1;
	first = json_array_get(v, 0);	/* borrowed */
	return json_is_string(first) || json_is_array(first)
		? json_array_size(v) : 1;
}

static int check_field(struct gw_policy *out, json_t *j, const char *key,
		       json_t *v, enum gw_endpoint ep, char *param,
		       size_t paramsz)
{
	if (!strcmp(key, "n") || !strcmp(key, "best_of")) {
		if (json_is_null(v) ||
		    (json_is_integer(v) && json_integer_value(v) == 1))
			return 0;
		return REFUSE(key, "\"%s\" must be 1: %s", "several choices "
			      "per request are not forwarded (send one "
			      "request per choice)");
	}
	if (!strcmp(key, "modalities")) {
		if (json_is_array(v) && json_array_size(v) == 1 &&
		    !strcmp(json_string_value(json_array_get(v, 0)) ?
			    json_string_value(json_array_get(v, 0)) : "",
			    "text"))
			return 0;
		return REFUSE(key, "\"%s\" may only be [\"text\"]: %s",
			      "audio output is billed at its own prices");
	}
	if (!strcmp(key, "background")) {
		if (!json_is_true(v))
			return 0;
		return REFUSE(key, "\"%s\": %s", "background responses run "
			      "on after the answer and are not forwarded");
	}
	if (!strcmp(key, "store")) {
		/* a stored response could be referred to later */
		json_object_set_new(j, "store", json_false());
		return 0;
	}
	if (!strcmp(key, "response_format") || !strcmp(key, "text")) {
		if (json_is_object(v) && (json_object_get(v, "json_schema") ||
					  json_object_get(v, "format")))
			out->tools = 1;
		return 0;
	}
	if (!strcmp(key, "instructions")) {
		out->messages++;
		return json_is_string(v) || json_is_null(v) ? 0 :
			REFUSE(key, "\"%s\" must be a string%s", "");
	}
	if (!strcmp(key, "prompt") || (!strcmp(key, "input") &&
				       ep == GW_EP_EMBEDDINGS)) {
		out->messages += count_inputs(v);
		if (ep == GW_EP_COMPLETIONS)
			out->outputs = count_inputs(v);
		return 0;
	}
	if (!strcmp(key, "input"))
		return check_responses_input(out, v, param, paramsz);
	if (!strcmp(key, "messages"))
		return ep == GW_EP_MESSAGES
			? check_anthropic_messages(out, v, param, paramsz)
			: check_chat_messages(out, v, param, paramsz);
	if (!strcmp(key, "system")) {
		out->messages++;
		return check_content(v, anthropic_text, key, param, paramsz);
	}
	if (!strcmp(key, "tools") || !strcmp(key, "functions")) {
		if (!strcmp(key, "functions"))	/* legacy: names only */
			return json_is_array(v) && json_array_size(v)
				? (out->tools = 1, 0) : 0;
		return check_tools(out, v, ep == GW_EP_MESSAGES ?
				   anthropic_tool : function_tool, key, param,
				   paramsz);
	}
	return 0;
}

int gw_policy_check(struct gw_policy *out, json_t *j, enum gw_endpoint ep,
		    char *param, size_t paramsz)
{
	const struct field *fields = fields_of(ep), *f;
	const char *key;
	json_t *v, *tmp;
	int r;

	memset(out, 0, sizeof(*out));
	out->outputs = 1;
	if (!fields || !json_is_object(j))
		return crs_error_set(CRS_EINPUT, "request body must be a "
				     "JSON object");
	json_object_foreach_safe(j, tmp, key, v) {
		for (f = fields; f->name && strcmp(f->name, key); f++)
			;
		if (!f->name) {
			for (size_t i = 0;
			     i < sizeof(refused) / sizeof(*refused); i++)
				if (!strcmp(refused[i].name, key))
					return REFUSE(key, "\"%s\" is not "
						      "forwarded: %s",
						      refused[i].why);
			return REFUSE(key, "\"%s\" is not forwarded by the "
				      "gateway%s (it cannot bound what "
				      "an unknown field makes the provider "
				      "bill)", "");
		}
		if (f->kind == F_STRIP)
			json_object_del(j, key);
		else if (f->kind == F_CHECK &&
			 (r = check_field(out, j, key, v, ep, param,
					  paramsz)) != 0)
			return r;
	}
	if (!out->messages)
		out->messages = 1;
	return 0;
}

int64_t gw_policy_input_tokens(size_t body_len, const struct gw_policy *p)
{
	const int64_t max = INT64_MAX / 4;
	int64_t n = GW_POLICY_TOKENS_PER_REQUEST;

	if (body_len > (size_t)max ||
	    p->messages > (size_t)(max / GW_POLICY_TOKENS_PER_MESSAGE))
		return max;
	n += (int64_t)body_len;
	n += (int64_t)p->messages * GW_POLICY_TOKENS_PER_MESSAGE;
	if (p->tools)
		n += GW_POLICY_TOKENS_FOR_TOOLS;
	return n;
}

char *gw_policy_anthropic_beta(char *out, size_t outsz, const char *value)
{
	static const char *const allowed[] = {
		"fine-grained-tool-streaming-2025-05-14",
		"token-efficient-tools-2025-02-19",
		"output-128k-2025-02-19",
		NULL,
	};
	const char *p = value, *e;
	size_t len = 0, n;

	if (outsz)
		out[0] = '\0';
	while (p && *p) {
		while (*p == ' ' || *p == ',')
			p++;
		e = p + strcspn(p, ",");
		n = (size_t)(e - p);
		while (n && p[n - 1] == ' ')
			n--;
		for (size_t i = 0; allowed[i] && n; i++)
			if (strlen(allowed[i]) == n &&
			    !strncmp(allowed[i], p, n) &&
			    len + n + 2 < outsz) {
				len += (size_t)snprintf(out + len,
							outsz - len, "%s%.*s",
							len ? "," : "",
							(int)n, p);
				break;
			}
		p = e;
	}
	return out;
}
