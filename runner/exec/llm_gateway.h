/* SPDX-License-Identifier: Apache-2.0 */
/*
 * llm_gateway.h - the run phase's LLM gateway container
 *
 * `crs-ci gateway` in a container on every CRS network plus one egress
 * network (docs/decisions.md, decisions 3 and 5); one key and budget per CRS.
 *
 * Details: docs/gateway.md; design notes: docs/internals.md.
 */
#ifndef CRS_RUNNER_EXEC_LLM_GATEWAY_H
#define CRS_RUNNER_EXEC_LLM_GATEWAY_H

struct exec_ctx;
struct compose;
struct llm_gateway;

/* The URL CRS containers get as OSS_CRS_LLM_API_URL (OSS-CRS's name). */
#define LLM_GATEWAY_ALIAS "litellm.oss-crs"
#define LLM_GATEWAY_URL "http://" LLM_GATEWAY_ALIAS ":4000"

/*
 * Start the gateway unless the compose has no llm_config (then *out is
 * NULL and 0 is returned). `crs_networks[i]` names compose->crs[i]'s
 * internal network, which must exist. Files live in `dir` (created):
 * config.yaml (a copy of the LiteLLM config), keys/<crs>.key,
 * spend.json, gateway.log (its output). Returns once the gateway serves
 * and every key file exists (at most about 15 s). Errors: CRS_ECONFIG
 * (no static crs-ci; a provider key variable the config names, url_env or
 * key_env unset; a bad LiteLLM config), CRS_EENGINE and others from the
 * engine, CRS_ETIMEOUT with the gateway's log tail when it did not become
 * ready. On error everything
 * started is removed again and *out is NULL.
 */
int llm_gateway_start(struct llm_gateway **out, struct exec_ctx *x,
		      const struct compose *c, const char *dir,
		      const char *const *crs_networks);

/* Host path of `crs`'s key file, or NULL for an unknown CRS. Borrowed. */
const char *llm_gateway_key_file(const struct llm_gateway *g,
				 const char *crs);

/*
 * SIGTERM the gateway and wait for it (at most 10 s; it writes the final
 * spend report), save its output as <dir>/gateway.log, remove the
 * container, its egress network and the key files, copy the report to
 * <out>/llm-spend.json and log each CRS's spend. Problems are logged, not
 * returned. Frees g; accepts NULL.
 */
void llm_gateway_stop(struct llm_gateway *g, struct exec_ctx *x);

#endif
