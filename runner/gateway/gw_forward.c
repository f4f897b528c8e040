/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_forward.c - check, reserve, forward and settle one CRS request
 *
 * Trust boundary: the body is a CRS's. The worst case is reserved before
 * the provider is called, and charged when the outcome is unknown.
 *
 * Details: docs/gateway.md; design notes: docs/internals.md.
 */
#include "runner/gateway/gw_forward.h"
#include "runner/gateway/gw_config.h"
#include "runner/gateway/gw_endpoint.h"
#include "runner/gateway/gw_ledger.h"
#include "runner/gateway/gw_policy.h"
#include "runner/gateway/gw_reply.h"
#include "runner/gateway/gw_upstream.h"
#include "runner/gateway/gw_usage.h"
#include "common/error.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERROR_BODY_MAX ((size_t)64 << 10)
#define RAW_USAGE_MAX ((size_t)1 << 20)
#define TOKENS_MAX INT64_C(1000000000000)

/* The accounting side of a request in flight. */
struct fwd {
	struct gw_ledger *ledger;
	size_t crs;
	enum gw_dialect dialect;
	struct gw_price price;
	int64_t reserved;
	char model[160];	/* the CRS's model name, quoted */
	char secret[512];	/* provider key, to redact; wiped */
};

struct gw_stream {
	struct fwd f;
	struct gw_upstream *up;
	struct gw_sse sse;
	int sse_mode;
	struct buf raw;		/* a non-SSE body, kept for its usage */
	struct buf out;		/* bytes ready for the CRS */
	size_t out_off;
	int eof, clean_eof, failed, ended, settled;
};

/* What is sent where, decided before reserving. */
struct plan {
	const struct gw_model *m;
	struct gw_model ext;	/* external mode: fields borrowed */
	char *body;
	size_t body_len;
	char *url;
	struct strvec headers;
	int stream, client_wants_usage;
	long timeout_ms, connect_timeout_ms;
	int64_t worst;
};

static const char *quote(char *out, size_t outsz, const char *s)
{
	return log_quote(out, outsz, s, strlen(s));
}

static void redact(struct buf *b, const char *secret)
{
	size_t n = strlen(secret);
	char *p;

	if (n < 4)
		return;
	while ((p = memmem(b->ptr, b->len, secret, n))) {
		memset(p, '*', n);
	}
}

static void fwd_wipe(struct fwd *f)
{
	explicit_bzero(f->secret, sizeof(f->secret));
}

/*
 * Book the request. `final`: usage is the complete bill. `sent`: the
 * provider got the request (so it may bill even when we know nothing).
 */
static void settle(struct fwd *f, const struct gw_usage *u, int final,
		   int error, int sent, long status)
{
	struct gw_charge c = { 0 };
	struct gw_account a;
	char cost[32], spent[32], budget[32];

	if (u->seen) {
		c.tokens_in = u->tokens_in;
		c.tokens_out = u->tokens_out;
	}
	if (final && u->seen)
		c.cost_pusd = gw_price_cost(&f->price, u->tokens_in,
					    u->tokens_out);
	else if (sent && !(error && status >= 300)) {
		c.cost_pusd = f->reserved;
		c.unmetered = 1;
	}
	c.error = error;
	if (gw_ledger_settle(f->ledger, f->crs, f->reserved, &c))
		log_warn("model %s cost %s, more than the %s reserved: the "
			 "prompt estimate was low", f->model,
			 gw_money_format(cost, sizeof(cost), c.cost_pusd),
			 gw_money_format(spent, sizeof(spent), f->reserved));
	gw_ledger_account(f->ledger, f->crs, &a);
	log_info("crs '%s' model %s: HTTP %ld, %lld+%lld tokens, %s%s "
		 "(spent %s of %s)", a.name, f->model, status,
		 (long long)c.tokens_in, (long long)c.tokens_out,
		 gw_money_format(cost, sizeof(cost), c.cost_pusd),
		 c.unmetered ? " charged at worst case" : "",
		 gw_money_format(spent, sizeof(spent), a.spent_pusd),
		 a.budget_pusd == GW_BUDGET_UNLIMITED ? "unlimited" :
		 gw_money_format(budget, sizeof(budget), a.budget_pusd));
	fwd_wipe(f);
}

static void plan_release(struct plan *p)
{
	free(p->body);
	free(p->url);
	for (size_t i = 0; i < p->headers.nr; i++)
		explicit_bzero(p->headers.v[i], strlen(p->headers.v[i]));
	strvec_release(&p->headers);
}

static int header_value_ok(const char *v)
{
	size_t n = 0;

	for (; v[n]; n++)
		if ((unsigned char)v[n] < 0x20 || (unsigned char)v[n] >= 0x7f)
			return 0;
	return n > 0 && n <= 200;
}

/* 0 and *out set, or an error reply made and -1. */
static int get_count(struct gw_reply *out, enum gw_dialect d, json_t *j,
		     const char *key, int64_t max, int64_t *val, int *have)
{
	json_t *v = json_object_get(j, key);	/* borrowed */

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    json_integer_value(v) > max) {
		gw_reply_error(out, 400, d, "invalid_request_error",
			       "invalid_value", "\"%s\" must be a whole "
			       "number from 1 to %lld", key, (long long)max);
		return -1;
	}
	if (json_integer_value(v) > *val)
		*val = json_integer_value(v);
	*have = 1;
	return 0;
}

/* Where the request goes and with which key; -1 with an error reply. */
static int route(struct gw_reply *out, const struct gw_forward_env *env,
		 const struct gw_forward_req *req, struct plan *p,
		 const char *model, struct fwd *f)
{
	const struct gw_config *cfg = env->cfg;
	const struct gw_endpoint_info *ep = gw_endpoint_info(req->ep);
	const struct gw_model *m;
	const char *base, *v1 = "";
	size_t n;

	if (cfg->external) {
		memset(&p->ext, 0, sizeof(p->ext));
		p->ext.name = p->ext.upstream_model = (char *)model;
		p->ext.provider = "external";
		p->ext.api_base = cfg->external_url;
		p->ext.api_key = cfg->external_key;
		if (gw_config_external_price(&p->ext.price, cfg, model) == 0)
			p->ext.has_in_price = p->ext.has_out_price = 1;
		p->m = &p->ext;
		p->url = xasprintf("%s%s", cfg->external_url, req->path);
	} else if (!(m = gw_config_model(cfg, model))) {
		gw_reply_error(out, 404, f->dialect, "invalid_request_error",
			       "model_not_found", "model %s is not served by "
			       "this gateway (GET /v1/models lists them)",
			       f->model);
		return -1;
	} else {
		p->m = m;
		base = m->api_base;
		n = strlen(base);
		if (m->style == GW_STYLE_ANTHROPIC &&
		    !(n >= 3 && !strcmp(base + n - 3, "/v1")))
			v1 = "/v1";
		if (m->style == GW_STYLE_ANTHROPIC ? !ep->anthropic_serves
		    : ep->dialect != GW_DIALECT_OPENAI) {
			gw_reply_error(out, 400, f->dialect,
				       "invalid_request_error",
				       "unsupported_endpoint", "model %s "
				       "(provider %s) does not serve %s",
				       f->model, m->provider, ep->name);
			return -1;
		}
		p->url = xasprintf("%s%s%s", base, v1, ep->suffix);
	}
	if (!p->m->has_in_price ||
	    (!p->m->has_out_price && ep->limit_written)) {
		gw_reply_error(out, 400, f->dialect, "invalid_request_error",
			       "model_not_priced", "model %s has no price, so "
			       "its cost cannot be held to a budget (set "
			       "input_cost_per_token and output_cost_per_token "
			       "in the llm config)", f->model);
		return -1;
	}
	f->price = p->m->price;
	if (p->m->api_key)
		snprintf(f->secret, sizeof(f->secret), "%s", p->m->api_key);
	return 0;
}

static void add_headers(struct plan *p, const struct gw_forward_env *env,
			const struct gw_forward_req *req)
{
	const struct gw_model *m = p->m;
	int anthropic = gw_endpoint_info(req->ep)->dialect ==
			GW_DIALECT_ANTHROPIC;
	const char *ver = req->anthropic_version;
	char beta[256];

	strvec_push(&p->headers, "Content-Type: application/json");
	if (m->api_key) {
		/* an Anthropic-style provider's OpenAI-compatible endpoint
		 * takes the Bearer key too */
		if (env->cfg->external || m->style == GW_STYLE_OPENAI ||
		    !anthropic)
			strvec_pushf(&p->headers, "Authorization: Bearer %s",
				     m->api_key);
		if (!env->cfg->external && m->style == GW_STYLE_ANTHROPIC)
			strvec_pushf(&p->headers, "x-api-key: %s",
				     m->api_key);
	}
	if (anthropic) {
		if (!ver || !header_value_ok(ver))
			ver = "2023-06-01";
		strvec_pushf(&p->headers, "anthropic-version: %s", ver);
		if (req->anthropic_beta && header_value_ok(req->anthropic_beta)
		    && *gw_policy_anthropic_beta(beta, sizeof(beta),
						 req->anthropic_beta))
			strvec_pushf(&p->headers, "anthropic-beta: %s", beta);
	}
}

/*
 * The body as a JSON object naming a model: 0 with *j (the caller's) and
 * *model (borrowed from it), or -1 with an error reply.
 */
static int parse_body(struct gw_reply *out, const struct gw_forward_req *req,
		      enum gw_dialect d, json_t **j, const char **model)
{
	json_error_t jerr;
	json_t *v;
	char q[160];

	*j = json_loadb(req->body, req->body_len, 0, &jerr);
	if (!*j) {
		gw_reply_error(out, 400, d, "invalid_request_error",
			       "invalid_json", "request body is not valid "
			       "JSON: %s (line %d, column %d)",
			       quote(q, sizeof(q), jerr.text), jerr.line,
			       jerr.column);
		return -1;
	}
	if (!json_is_object(*j)) {
		gw_reply_error(out, 400, d, "invalid_request_error",
			       "invalid_json", "request body must be a JSON "
			       "object");
		return -1;
	}
	v = json_object_get(*j, "model");	/* borrowed */
	if (!json_is_string(v) || !*(*model = json_string_value(v)) ||
	    strlen(*model) > 256) {
		gw_reply_error(out, 400, d, "invalid_request_error",
			       "missing_model", "\"model\" must name a "
			       "model (a non-empty string)");
		return -1;
	}
	return 0;
}

/* The endpoint's required field and a well-formed "stream"; -1 with an
 * error reply. */
static int check_shape(struct gw_reply *out, enum gw_dialect d, json_t *j,
		       const struct gw_endpoint_info *ep, struct plan *p)
{
	json_t *v = ep->required ? json_object_get(j, ep->required) : NULL;

	if (ep->required && (ep->required_list ?
			     !json_is_array(v) || !json_array_size(v) : !v)) {
		gw_reply_error(out, 400, d, "invalid_request_error",
			       "invalid_request", ep->required_list ?
			       "\"%s\" must be a non-empty list" :
			       "\"%s\" is required", ep->required);
		return -1;
	}
	v = json_object_get(j, "stream");	/* borrowed */
	if (v && !json_is_boolean(v) && !json_is_null(v)) {
		gw_reply_error(out, 400, d, "invalid_request_error",
			       "invalid_value", "\"stream\" must be true or "
			       "false");
		return -1;
	}
	p->stream = json_is_true(v) && ep->streams;
	return 0;
}

/*
 * Output limits: the worst case must bind the provider too, so the
 * gateway writes the one limit it reserved (the request's largest, or the
 * cap), in the field this provider honours, and drops the others. 0 with
 * *max_out, 1 on a JSON failure, -1 with an error reply.
 */
static int set_output_limit(struct gw_reply *out, enum gw_dialect d,
			    json_t *j, const struct gw_endpoint_info *ep,
			    const struct plan *p, int64_t cap,
			    int64_t *max_out)
{
	static const char *const all[] = {
		"max_tokens", "max_completion_tokens", "max_output_tokens",
	};
	const char *field = ep->limit_written;
	int have_max = 0;

	*max_out = 0;
	if (!field)
		return 0;
	for (size_t i = 0; i < 3 && ep->limits_read[i]; i++)
		if (get_count(out, d, j, ep->limits_read[i], TOKENS_MAX,
			      max_out, &have_max))
			return -1;
	if (!have_max)
		*max_out = cap;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		json_object_del(j, all[i]);
	if (ep->limit_written_openai && !strcmp(p->m->provider, "openai") &&
	    strstr(p->m->api_base, "://api.openai.com"))
		field = ep->limit_written_openai;
	return json_object_set_new(j, field, json_integer(*max_out)) ? 1 : 0;
}

/*
 * A stream's usage arrives only when asked for, on the endpoints that
 * want stream_options.include_usage (Anthropic's and the Responses API's
 * streams always carry it). 0, 1 on a JSON failure, -1 with an error
 * reply.
 */
static int ask_stream_usage(struct gw_reply *out, enum gw_dialect d,
			    json_t *j, const struct gw_endpoint_info *ep,
			    struct plan *p)
{
	json_t *so = json_object_get(j, "stream_options");	/* borrowed */

	if (!p->stream || !ep->usage_opt_in)
		return 0;
	if (so && !json_is_object(so) && !json_is_null(so)) {
		gw_reply_error(out, 400, d, "invalid_request_error",
			       "invalid_value", "\"stream_options\" must be "
			       "an object");
		return -1;
	}
	if (!json_is_object(so)) {
		so = json_object();
		if (json_object_set_new(j, "stream_options", so) != 0)
			return 1;
	}
	p->client_wants_usage =
		json_is_true(json_object_get(so, "include_usage"));
	return json_object_set_new(so, "include_usage", json_true()) ? 1 : 0;
}

/*
 * Read and rewrite the body, fill the plan and the worst case. 0, or -1
 * with an error reply in `out`.
 */
static int make_plan(struct gw_reply *out, const struct gw_forward_env *env,
		     const struct gw_forward_req *req, struct plan *p,
		     struct fwd *f)
{
	const struct gw_settings *st = &env->cfg->settings;
	const struct gw_endpoint_info *ep = gw_endpoint_info(req->ep);
	enum gw_dialect d = f->dialect;
	json_t *j = NULL;
	const char *model;
	struct gw_policy pol;
	int64_t max_out;
	int r = -1, jr;
	char q[160], param[64];

	if (parse_body(out, req, d, &j, &model) != 0)
		goto out;
	snprintf(f->model, sizeof(f->model), "'%s'",
		 quote(q, sizeof(q) - 2, model));
	if (check_shape(out, d, j, ep, p) != 0 ||
	    route(out, env, req, p, model, f) != 0)
		goto out;
	if (!env->cfg->external &&
	    json_object_set_new(j, "model",
				json_string(p->m->upstream_model)) != 0)
		goto bad_json;
	if (gw_policy_check(&pol, j, req->ep, param, sizeof(param)) != 0) {
		gw_reply_error(out, 400, d, "invalid_request_error",
			       "unsupported_parameter", "%s",
			       crs_error_last());
		goto out;
	}
	if ((jr = set_output_limit(out, d, j, ep, p, st->max_tokens_cap,
				   &max_out)) == 0)
		jr = ask_stream_usage(out, d, j, ep, p);
	if (jr < 0)
		goto out;
	/* 15 digits: 0.7 stays "0.7" (17 would print 0.69999999999999996) */
	if (jr > 0 || !(p->body = json_dumps(j, JSON_COMPACT |
					     JSON_REAL_PRECISION(15))))
		goto bad_json;
	p->body_len = strlen(p->body);
	if (max_out > TOKENS_MAX / (int64_t)pol.outputs)
		max_out = TOKENS_MAX;
	else
		max_out *= (int64_t)pol.outputs;
	p->worst = gw_price_cost(&f->price,
				 gw_policy_input_tokens(p->body_len, &pol),
				 max_out);
	p->timeout_ms = (p->m->timeout_s ? p->m->timeout_s
					 : st->request_timeout_s) * 1000L;
	p->connect_timeout_ms = st->connect_timeout_s * 1000L;
	add_headers(p, env, req);
	r = 0;
	goto out;
bad_json:
	gw_reply_error(out, 400, d, "invalid_request_error", "invalid_json",
		       "request body cannot be re-encoded (is every string "
		       "UTF-8?)");
out:
	json_decref(j);
	return r;
}

/* A provider's non-2xx answer, as a reply the CRS can act on. */
static void upstream_status_reply(struct gw_reply *out, struct fwd *f,
				  struct gw_upstream *up, long status)
{
	struct buf eb = BUF_INIT;
	char snippet[256];
	const char *ct = gw_upstream_content_type(up);

	gw_upstream_read_all(up, &eb, ERROR_BODY_MAX);
	crs_error_clear();
	if (f->secret[0])
		redact(&eb, f->secret);
	if (status == 401 || status == 403) {
		gw_reply_error(out, 502, f->dialect, "api_error",
			       "upstream_auth", "the provider refused the "
			       "gateway's credentials for model %s (HTTP %ld);"
			       " the gateway's configuration needs fixing, "
			       "not the request", f->model, status);
	} else if (status >= 500 || status < 400) {
		log_quote(snippet, sizeof(snippet), eb.ptr,
			  eb.len > 200 ? 200 : eb.len);
		gw_reply_error(out, 502, f->dialect, "api_error",
			       "upstream_error", "the provider of model %s "
			       "answered HTTP %ld: %s", f->model, status,
			       snippet);
	} else {	/* 4xx: the CRS's request was wrong; say so as is */
		gw_reply_json(out, (unsigned)status, eb.ptr, eb.len);
		if (*ct && strlen(ct) < sizeof(out->content_type))
			snprintf(out->content_type, sizeof(out->content_type),
				 "%s", ct);
	}
	buf_release(&eb);
}

static void failure_reply(struct gw_reply *out, struct fwd *f, int r)
{
	if (r == CRS_ETIMEOUT)
		gw_reply_error(out, 504, f->dialect, "api_error",
			       "upstream_timeout", "model %s: %s", f->model,
			       crs_error_last());
	else if (r == CRS_EINTR)
		gw_reply_error(out, 503, f->dialect, "api_error",
			       "gateway_stopping", "model %s: %s", f->model,
			       crs_error_last());
	else
		gw_reply_error(out, 502, f->dialect, "api_error",
			       "upstream_unreachable", "model %s: %s",
			       f->model, crs_error_last());
}

static void models_reply(struct gw_reply *out,
			 const struct gw_forward_env *env,
			 const struct gw_forward_req *req)
{
	const struct gw_config *cfg = env->cfg;
	json_t *data = json_array(), *j;
	char *s;

	if (cfg->external) {
		struct fwd f = { .dialect = GW_DIALECT_OPENAI };
		struct strvec h = STRVEC_INIT;
		struct gw_upstream_req ur = { .method = "GET" };
		struct gw_upstream *up;
		char *url = xasprintf("%s%s", cfg->external_url, req->path);
		int r;

		snprintf(f.model, sizeof(f.model), "list");
		if (cfg->external_key) {
			strvec_pushf(&h, "Authorization: Bearer %s",
				     cfg->external_key);
			snprintf(f.secret, sizeof(f.secret), "%s",
				 cfg->external_key);
		}
		ur.url = url;
		ur.headers = strvec_list(&h);
		ur.connect_timeout_ms = cfg->settings.connect_timeout_s * 1000;
		ur.timeout_ms = 30000;
		ur.cancel = env->stopping;
		ur.share = env->share;
		up = gw_upstream_new(&ur);
		if ((r = gw_upstream_wait_headers(up)) != 0)
			failure_reply(out, &f, r);
		else if (gw_upstream_status(up) != 200)
			upstream_status_reply(out, &f, up,
					      gw_upstream_status(up));
		else if ((r = gw_upstream_read_all(up, &out->body,
						   ERROR_BODY_MAX * 16)) != 0)
			failure_reply(out, &f, r);
		else {
			out->status = 200;
			snprintf(out->content_type, sizeof(out->content_type),
				 "application/json");
		}
		gw_upstream_free(up);
		for (size_t i = 0; i < h.nr; i++)
			explicit_bzero(h.v[i], strlen(h.v[i]));
		strvec_release(&h);
		fwd_wipe(&f);
		free(url);
		json_decref(data);
		return;
	}
	for (size_t i = 0; i < cfg->models_nr; i++)
		json_array_append_new(data, json_pack("{s:s, s:s, s:i, s:s}",
			"id", cfg->models[i].name, "object", "model",
			"created", 0, "owned_by", cfg->models[i].provider));
	j = json_pack("{s:s, s:o}", "object", "list", "data", data);
	s = json_dumps(j, JSON_COMPACT);
	gw_reply_json(out, 200, s ? s : "{}", s ? strlen(s) : 2);
	free(s);
	json_decref(j);
}

void gw_forward(struct gw_reply *out, const struct gw_forward_env *env,
		const struct gw_forward_req *req)
{
	struct plan p = { .headers = STRVEC_INIT };
	struct fwd f = { .ledger = env->ledger, .crs = req->crs };
	struct gw_upstream_req ur = { .method = "POST" };
	struct gw_upstream *up = NULL;
	struct gw_usage u = { 0 };
	struct gw_stream *s;
	const char *ct;
	long status;
	int r;

	if (req->ep == GW_EP_MODELS) {
		models_reply(out, env, req);
		return;
	}
	f.dialect = gw_endpoint_info(req->ep)->dialect;
	if (make_plan(out, env, req, &p, &f) != 0)
		goto out;
	if (gw_ledger_reserve(env->ledger, req->crs, p.worst) != 0) {
		gw_reply_error(out, 429, f.dialect, "insufficient_quota",
			       "budget_exceeded", "%s", crs_error_last());
		log_info("refused: %s", crs_error_last());
		goto out;
	}
	f.reserved = p.worst;
	ur.url = p.url;
	ur.headers = strvec_list(&p.headers);
	ur.body = p.body;
	ur.body_len = p.body_len;
	ur.connect_timeout_ms = p.connect_timeout_ms;
	ur.timeout_ms = p.timeout_ms;
	ur.cancel = env->stopping;
	ur.share = env->share;
	up = gw_upstream_new(&ur);
	if ((r = gw_upstream_wait_headers(up)) != 0) {
		log_warn("model %s: %s", f.model, crs_error_last());
		failure_reply(out, &f, r);
		settle(&f, &u, 0, 1, gw_upstream_sent(up), 0);
		goto out;
	}
	status = gw_upstream_status(up);
	ct = gw_upstream_content_type(up);
	if (status < 200 || status >= 300) {
		upstream_status_reply(out, &f, up, status);
		log_warn("model %s: provider answered HTTP %ld", f.model,
			 status);
		settle(&f, &u, 0, 1, 1, status);
		goto out;
	}
	if (p.stream) {
		s = xcalloc(1, sizeof(*s));
		s->f = f;
		s->up = up;
		up = NULL;	/* transferred */
		gw_sse_init(&s->sse, !p.client_wants_usage &&
				     f.dialect == GW_DIALECT_OPENAI);
		s->sse_mode = strstr(ct, "event-stream") != NULL;
		buf_init(&s->raw);
		buf_init(&s->out);
		out->status = (unsigned)status;
		snprintf(out->content_type, sizeof(out->content_type), "%s",
			 *ct && strlen(ct) < sizeof(out->content_type) ? ct :
			 "text/event-stream");
		out->stream = s;	/* settles when freed */
		fwd_wipe(&f);
		goto out;
	}
	if ((r = gw_upstream_read_all(up, &out->body,
				      env->cfg->settings.max_response_bytes))
	    != 0) {
		log_warn("model %s: %s", f.model, crs_error_last());
		buf_reset(&out->body);
		failure_reply(out, &f, r);
		settle(&f, &u, 0, 1, 1, 0);
		goto out;
	}
	gw_usage_from_body(&u, out->body.ptr, out->body.len);
	if (f.secret[0])
		redact(&out->body, f.secret);
	out->status = (unsigned)status;
	snprintf(out->content_type, sizeof(out->content_type), "%s",
		 *ct && strlen(ct) < sizeof(out->content_type) ? ct :
		 "application/json");
	settle(&f, &u, 1, 0, 1, status);
out:
	gw_upstream_free(up);
	plan_release(&p);
	fwd_wipe(&f);
}

/* The stream broke: tell the client in the stream's own terms. */
static void stream_error_event(struct gw_stream *s)
{
	json_t *j;
	char *txt;

	if (s->f.dialect == GW_DIALECT_ANTHROPIC)
		j = json_pack("{s:s, s:{s:s, s:s}}", "type", "error", "error",
			      "type", "api_error", "message", crs_error_last());
	else
		j = json_pack("{s:{s:s, s:s, s:n, s:s}}", "error", "message",
			      crs_error_last(), "type", "api_error", "param",
			      "code", "upstream_error");
	txt = j ? json_dumps(j, JSON_COMPACT) : NULL;
	if (txt)
		buf_printf(&s->out, "%sdata: %s\n\n",
			   s->f.dialect == GW_DIALECT_ANTHROPIC ?
			   "event: error\n" : "", txt);
	free(txt);
	json_decref(j);
}

/*
 * Book the stream once: at its end, before the last chunk goes out (so a
 * CRS that saw the end of its stream sees its spend booked), or when it
 * is freed early (the CRS went away).
 */
static void stream_settle(struct gw_stream *s)
{
	struct gw_usage u = { 0 };
	int final;

	if (s->settled)
		return;
	s->settled = 1;
	if (s->sse_mode) {
		u = s->sse.usage;
		final = u.seen && (s->sse.done || s->clean_eof);
	} else {
		gw_usage_from_body(&u, s->raw.ptr, s->raw.len);
		final = u.seen && s->clean_eof;
	}
	settle(&s->f, &u, final, s->failed, 1, 200);
}

ssize_t gw_stream_read(struct gw_stream *s, char *dst, size_t max)
{
	struct buf chunk = BUF_INIT;
	size_t n;
	int eof = 0, r;

	while (s->out_off >= s->out.len) {
		buf_reset(&s->out);
		s->out_off = 0;
		if (s->ended) {
			stream_settle(s);
			return 0;
		}
		if (s->eof) {
			if (s->sse_mode)
				gw_sse_finish(&s->sse, &s->out);
			s->ended = 1;
			continue;
		}
		buf_reset(&chunk);
		r = gw_upstream_read(s->up, &chunk, &eof);
		if (r != 0) {
			log_warn("model %s: stream broke: %s", s->f.model,
				 crs_error_last());
			s->failed = 1;
			s->eof = 1;
			if (!s->sse_mode) {
				buf_release(&chunk);
				stream_settle(s);
				return -1;
			}
			gw_sse_finish(&s->sse, &s->out);
			stream_error_event(s);
			s->ended = 1;
			continue;
		}
		if (eof) {
			s->eof = s->clean_eof = 1;
			continue;
		}
		if (s->f.secret[0])
			redact(&chunk, s->f.secret);
		if (s->sse_mode) {
			gw_sse_feed(&s->sse, chunk.ptr, chunk.len, &s->out);
		} else {
			buf_add(&s->out, chunk.ptr, chunk.len);
			if (s->raw.len + chunk.len <= RAW_USAGE_MAX)
				buf_add(&s->raw, chunk.ptr, chunk.len);
		}
	}
	buf_release(&chunk);
	n = s->out.len - s->out_off;
	if (n > max)
		n = max;
	memcpy(dst, s->out.ptr + s->out_off, n);
	s->out_off += n;
	return (ssize_t)n;
}

void gw_stream_free(struct gw_stream *s)
{
	if (!s)
		return;
	stream_settle(s);
	gw_upstream_free(s->up);
	gw_sse_release(&s->sse);
	buf_release(&s->raw);
	buf_release(&s->out);
	free(s);
}

void gw_reply_release(struct gw_reply *r)
{
	buf_release(&r->body);
	gw_stream_free(r->stream);
	r->stream = NULL;
}
