/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_server.h - the gateway's HTTP server (libmicrohttpd)
 *
 * A fixed route table (LiteLLM's and Anthropic's paths); every route
 * but /health needs a CRS key. One thread per connection.
 *
 * Details: docs/gateway.md; design notes: docs/internals.md.
 */
#ifndef CRS_RUNNER_GATEWAY_GW_SERVER_H
#define CRS_RUNNER_GATEWAY_GW_SERVER_H

struct gw_config;
struct gw_keys;
struct gw_ledger;
struct gw_server;

/*
 * Listen on `listen` ("0.0.0.0:4000", "127.0.0.1:0" for any free port,
 * "[::]:4000", ":4000") and serve. `cfg`, `ledger` and `keys` are
 * borrowed and must outlive the server. 0 with *out set, or CRS_EINPUT
 * (bad address) or CRS_ERR (cannot listen: message says why).
 */
int gw_server_start(struct gw_server **out, const char *listen,
		    const struct gw_config *cfg, struct gw_ledger *ledger,
		    const struct gw_keys *keys);

/* The port actually bound. Cannot fail. */
unsigned gw_server_port(const struct gw_server *s);

/*
 * Stop: refuse new connections, abort provider calls still waiting (their
 * CRSs get HTTP 503 or a stream error event, and the ledger is settled),
 * join every thread, free. Accepts NULL.
 */
void gw_server_free(struct gw_server *s);

#endif
