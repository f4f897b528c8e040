/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_server.c - libmicrohttpd front: routes, keys, request bodies
 *
 * Trust boundary: everything here comes from CRS containers. Bodies
 * are capped as they arrive, the key is checked before the body, and
 * per-address and per-key limits keep one CRS from starving others.
 * This file alone knows libmicrohttpd.
 *
 * Details: docs/gateway.md; design notes: docs/internals.md.
 */
#include "runner/gateway/gw_server.h"
#include "runner/gateway/gw_config.h"
#include "runner/gateway/gw_endpoint.h"
#include "runner/gateway/gw_forward.h"
#include "runner/gateway/gw_keys.h"
#include "runner/gateway/gw_ledger.h"
#include "runner/gateway/gw_reply.h"
#include "runner/gateway/gw_upstream.h"
#include "common/error.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "common/num.h"

#include <errno.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum route_kind { RK_HEALTH, RK_KEY_INFO, RK_FORWARD };

#define R_AUTH 1u	/* a CRS key is required */
#define R_BODY 2u	/* the body is read (bounded) */

struct route {
	const char *method, *path;
	enum route_kind kind;
	enum gw_endpoint ep;
	unsigned flags;
};

static const struct route routes[] = {
	{ "GET", "/health", RK_HEALTH, GW_EP_MODELS, 0 },
	{ "GET", "/key/info", RK_KEY_INFO, GW_EP_MODELS, R_AUTH },
	{ "GET", "/v1/models", RK_FORWARD, GW_EP_MODELS, R_AUTH },
	{ "GET", "/models", RK_FORWARD, GW_EP_MODELS, R_AUTH },
	{ "POST", "/v1/chat/completions", RK_FORWARD, GW_EP_CHAT,
	  R_AUTH | R_BODY },
	{ "POST", "/chat/completions", RK_FORWARD, GW_EP_CHAT,
	  R_AUTH | R_BODY },
	{ "POST", "/v1/completions", RK_FORWARD, GW_EP_COMPLETIONS,
	  R_AUTH | R_BODY },
	{ "POST", "/completions", RK_FORWARD, GW_EP_COMPLETIONS,
	  R_AUTH | R_BODY },
	{ "POST", "/v1/embeddings", RK_FORWARD, GW_EP_EMBEDDINGS,
	  R_AUTH | R_BODY },
	{ "POST", "/embeddings", RK_FORWARD, GW_EP_EMBEDDINGS,
	  R_AUTH | R_BODY },
	{ "POST", "/v1/messages", RK_FORWARD, GW_EP_MESSAGES,
	  R_AUTH | R_BODY },
	{ "POST", "/v1/responses", RK_FORWARD, GW_EP_RESPONSES,
	  R_AUTH | R_BODY },
	{ "POST", "/responses", RK_FORWARD, GW_EP_RESPONSES,
	  R_AUTH | R_BODY },
};

struct gw_server {
	struct MHD_Daemon *d;
	const struct gw_config *cfg;
	struct gw_ledger *ledger;
	const struct gw_keys *keys;
	struct gw_upstream_share *share;
	struct gw_forward_env env;
	volatile int stopping;
	int active;		/* requests from first call to completion
				 * (__atomic) */
	unsigned *in_flight;	/* per CRS account (__atomic) */
	unsigned busy_timeout_s;	/* connection timeout while a
					 * request is being answered */
	unsigned port;
};

#define STOP_GRACE_MS 3000	/* for requests to answer before closing */

/* Per-connection state, from the first call to completion. */
struct conn {
	const struct route *route;	/* NULL: no such route */
	unsigned no_route_status;	/* 404 or 405 */
	int key_state;			/* 0 none, 1 valid, -1 wrong */
	size_t crs;
	struct buf body;
	int too_big;
	int counted;		/* in s->in_flight[crs] */
	int over_cap;		/* beyond max_in_flight: 429 */
};

static const struct route *match(const char *method, const char *url,
				 unsigned *status)
{
	*status = 404;
	for (size_t i = 0; i < sizeof(routes) / sizeof(*routes); i++) {
		if (strcmp(routes[i].path, url))
			continue;
		if (!strcmp(routes[i].method, method))
			return &routes[i];
		*status = 405;
	}
	return NULL;
}

/* The presented key: "Authorization: Bearer k" or "x-api-key: k". */
static const char *presented_key(struct MHD_Connection *c)
{
	const char *a = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						    "Authorization");
	const char *x = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						    "x-api-key");

	if (a && !strncasecmp(a, "Bearer ", 7)) {
		a += 7;
		while (*a == ' ')
			a++;
		return a;
	}
	return x;
}

static ssize_t stream_reader(void *cls, uint64_t pos, char *dst, size_t max)
{
	ssize_t n = gw_stream_read(cls, dst, max);

	(void)pos;
	if (n == 0)
		return MHD_CONTENT_READER_END_OF_STREAM;
	return n < 0 ? MHD_CONTENT_READER_END_WITH_ERROR : n;
}

static void stream_done(void *cls)
{
	gw_stream_free(cls);
}

static enum MHD_Result queue(struct MHD_Connection *c, struct gw_reply *r)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	size_t len = 0;
	char *p;

	if (r->stream) {
		resp = MHD_create_response_from_callback(
			MHD_SIZE_UNKNOWN, 16 * 1024, stream_reader, r->stream,
			stream_done);
		if (!resp)
			return MHD_NO;	/* r still owns the stream */
		r->stream = NULL;	/* transferred: freed with resp */
		MHD_add_response_header(resp, "Cache-Control", "no-cache");
	} else {
		p = buf_detach(&r->body, &len);
		resp = MHD_create_response_from_buffer(len, p,
						       MHD_RESPMEM_MUST_FREE);
		if (!resp) {
			free(p);
			return MHD_NO;
		}
	}
	if (r->content_type[0])
		MHD_add_response_header(resp, "Content-Type", r->content_type);
	ret = MHD_queue_response(c, r->status ? r->status : 500, resp);
	MHD_destroy_response(resp);
	return ret;
}

static void key_info(struct gw_server *s, struct conn *k, struct gw_reply *r)
{
	struct gw_account a;
	json_t *j;
	char *txt;

	gw_ledger_account(s->ledger, k->crs, &a);
	j = json_pack("{s:{s:s, s:f, s:o, s:f, s:I, s:I}}", "info",
		      "key_alias", a.name,
		      "spend", gw_money_dollars(a.spent_pusd),
		      "max_budget", a.budget_pusd == GW_BUDGET_UNLIMITED ?
		      json_null() : json_real(gw_money_dollars(a.budget_pusd)),
		      "reserved", gw_money_dollars(a.reserved_pusd),
		      "requests", (json_int_t)a.requests,
		      "refusals", (json_int_t)a.refusals);
	txt = j ? json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(12)) : NULL;
	gw_reply_json(r, 200, txt ? txt : "{}", txt ? strlen(txt) : 2);
	free(txt);
	json_decref(j);
}

static void serve(struct gw_server *s, struct MHD_Connection *c,
		  struct conn *k, const char *url, struct gw_reply *r)
{
	enum gw_dialect d = GW_DIALECT_OPENAI;
	struct gw_forward_req fr;

	if (!k->route) {
		int nf = k->no_route_status == 404;

		gw_reply_error(r, k->no_route_status, d,
			       "invalid_request_error",
			       nf ? "not_found" : "method_not_allowed",
			       nf ? "no such route"
				  : "method not allowed on this route");
		return;
	}
	d = gw_endpoint_info(k->route->ep)->dialect;
	if ((k->route->flags & R_AUTH) && k->key_state != 1) {
		gw_reply_error(r, 401, d, "invalid_request_error",
			       "invalid_api_key", k->key_state == 0 ?
			       "no API key: send \"Authorization: Bearer "
			       "<key>\" with the key in the file named by "
			       "OSS_CRS_LLM_API_KEY_FILE" :
			       "incorrect API key: use the key in the file "
			       "named by OSS_CRS_LLM_API_KEY_FILE");
		return;
	}
	if (k->over_cap) {
		struct gw_account a;

		gw_ledger_account(s->ledger, k->crs, &a);
		gw_reply_error(r, 429, d, "rate_limit_error",
			       "too_many_requests", "CRS '%s' has %u requests "
			       "in flight, the most one CRS may have; send "
			       "the next when one has finished", a.name,
			       s->cfg->settings.max_in_flight);
		return;
	}
	if (k->too_big) {
		gw_reply_error(r, 413, d, "invalid_request_error",
			       "request_too_large", "request body is larger "
			       "than %zu bytes",
			       s->cfg->settings.max_request_bytes);
		return;
	}
	switch (k->route->kind) {
	case RK_HEALTH:
		gw_reply_json(r, 200, "{\"status\":\"healthy\"}", 20);
		return;
	case RK_KEY_INFO:
		key_info(s, k, r);
		return;
	case RK_FORWARD:
		break;
	}
	/* the provider's timeout bounds the request from here: a slow
	 * answer or a pause mid-stream must not look idle */
	MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT,
				  s->busy_timeout_s);
	memset(&fr, 0, sizeof(fr));
	fr.ep = k->route->ep;
	fr.path = url;
	fr.crs = k->crs;
	fr.body = k->body.ptr;
	fr.body_len = k->body.len;
	fr.anthropic_version = MHD_lookup_connection_value(
		c, MHD_HEADER_KIND, "anthropic-version");
	fr.anthropic_beta = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							"anthropic-beta");
	gw_forward(r, &s->env, &fr);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct gw_server *s = cls;
	struct conn *k = *con_cls;
	struct gw_reply r = GW_REPLY_INIT;
	enum MHD_Result ret;
	const char *key;

	(void)version;
	if (!k) {
		k = xcalloc(1, sizeof(*k));
		buf_init(&k->body);
		__atomic_add_fetch(&s->active, 1, __ATOMIC_SEQ_CST);
		k->route = match(method, url, &k->no_route_status);
		if (k->route && (k->route->flags & R_AUTH)) {
			key = presented_key(c);
			k->key_state = !key ? 0 :
				gw_keys_find(s->keys, key, strlen(key),
					     &k->crs) == 0 ? 1 : -1;
		}
		/* from its headers to its last byte out, a request holds
		 * one of its CRS's places */
		if (k->key_state == 1 && k->route->kind == RK_FORWARD) {
			k->counted = 1;
			k->over_cap = __atomic_add_fetch(
				&s->in_flight[k->crs], 1, __ATOMIC_SEQ_CST) >
				s->cfg->settings.max_in_flight;
		}
		*con_cls = k;
		return MHD_YES;
	}
	if (*upload_size) {
		if (k->route && (k->route->flags & R_BODY) &&
		    k->key_state == 1 && !k->too_big && !k->over_cap) {
			if (*upload_size > s->cfg->settings.max_request_bytes -
					   k->body.len) {
				k->too_big = 1;
				buf_release(&k->body);
			} else {
				buf_add(&k->body, upload, *upload_size);
			}
		}
		*upload_size = 0;
		return MHD_YES;
	}
	serve(s, c, k, url, &r);
	crs_error_clear();
	ret = queue(c, &r);
	gw_reply_release(&r);
	return ret;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct gw_server *s = cls;
	struct conn *k = *con_cls;

	(void)toe;
	if (!k)
		return;
	/* idle between requests: the short timeout again */
	MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT,
				  s->cfg->settings.idle_timeout_s);
	if (k->counted)
		__atomic_sub_fetch(&s->in_flight[k->crs], 1,
				   __ATOMIC_SEQ_CST);
	buf_release(&k->body);
	free(k);
	*con_cls = NULL;
	__atomic_sub_fetch(&s->active, 1, __ATOMIC_SEQ_CST);
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	log_debug("libmicrohttpd: %s", msg);
}

static int parse_listen(const char *listen, struct sockaddr_storage *ss,
			int *v6)
{
	char host[256];
	const char *colon, *hs = listen, *he;
	struct addrinfo hints, *res = NULL;
	long port;
	int rc;

	if (listen[0] == '[') {
		he = strchr(listen, ']');
		if (!he || he[1] != ':')
			goto bad;
		hs = listen + 1;
		colon = he + 1;
	} else {
		colon = strrchr(listen, ':');
		he = colon ? colon : listen;
	}
	if ((size_t)(he - hs) >= sizeof(host))
		goto bad;
	memcpy(host, hs, (size_t)(he - hs));
	host[he - hs] = '\0';
	if (num_parse_long(colon ? colon + 1 : listen, 0, 65535, &port) != 0)
		goto bad;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	rc = getaddrinfo(host[0] ? host : "0.0.0.0", NULL, &hints, &res);
	if (rc != 0 || !res)
		return crs_error_set(CRS_EINPUT, "listen address \"%.200s\": "
				     "%s", listen, gai_strerror(rc));
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*v6 = res->ai_family == AF_INET6;
	if (*v6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
	freeaddrinfo(res);
	return 0;
bad:
	return crs_error_set(CRS_EINPUT, "listen address \"%.200s\" is not "
			     "HOST:PORT", listen);
}

int gw_server_start(struct gw_server **out, const char *listen,
		    const struct gw_config *cfg, struct gw_ledger *ledger,
		    const struct gw_keys *keys)
{
	struct gw_server *s = NULL;
	struct sockaddr_storage ss;
	const union MHD_DaemonInfo *info;
	int v6 = 0, r = CRS_ERR;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD |
			 MHD_USE_THREAD_PER_CONNECTION | MHD_USE_AUTO |
			 MHD_USE_ITC;

	*out = NULL;
	if ((r = parse_listen(listen, &ss, &v6)) != 0)
		return r;
	s = xcalloc(1, sizeof(*s));
	s->cfg = cfg;
	s->ledger = ledger;
	s->keys = keys;
	s->share = gw_upstream_share_new();
	s->busy_timeout_s = (unsigned)cfg->settings.request_timeout_s;
	for (size_t i = 0; i < cfg->models_nr; i++)
		if (cfg->models[i].timeout_s > (long)s->busy_timeout_s)
			s->busy_timeout_s = (unsigned)cfg->models[i].timeout_s;
	s->busy_timeout_s += 30;	/* the answer's last bytes */
	s->in_flight = xcalloc(gw_ledger_count(ledger) + 1,
			       sizeof(*s->in_flight));
	s->env.cfg = cfg;
	s->env.ledger = ledger;
	s->env.share = s->share;
	s->env.stopping = &s->stopping;
	if (v6)
		flags |= MHD_USE_IPv6;
	errno = 0;
	s->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, s,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
				MHD_OPTION_CONNECTION_TIMEOUT,
				cfg->settings.idle_timeout_s,
				MHD_OPTION_CONNECTION_LIMIT,
				cfg->settings.max_connections,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT,
				cfg->settings.max_connections_per_address,
				MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, s,
				MHD_OPTION_END);
	if (!s->d) {
		r = crs_error_set(CRS_ERR, "cannot listen on %s: %s", listen,
				  errno ? strerror(errno) : "libmicrohttpd "
				  "failed to start");
		goto out;
	}
	info = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
	s->port = info ? info->port : 0;
	*out = s;
	s = NULL;	/* transferred */
	r = 0;
out:
	gw_server_free(s);
	return r;
}

unsigned gw_server_port(const struct gw_server *s)
{
	return s->port;
}

void gw_server_free(struct gw_server *s)
{
	MHD_socket listen_fd = MHD_INVALID_SOCKET;
	struct timespec tick = { 0, 10 * 1000 * 1000 };

	if (!s)
		return;
	/* no new connections; requests in flight abort their provider
	 * calls and answer (503 or a stream error event) before we close */
	s->stopping = 1;
	if (s->d) {
		listen_fd = MHD_quiesce_daemon(s->d);
		for (int i = 0; i < STOP_GRACE_MS / 10 &&
		     __atomic_load_n(&s->active, __ATOMIC_SEQ_CST) > 0; i++)
			nanosleep(&tick, NULL);
		MHD_stop_daemon(s->d);
		if (listen_fd != MHD_INVALID_SOCKET)
			close(listen_fd);
	}
	gw_upstream_share_free(s->share);
	free(s->in_flight);
	free(s);
}
