/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_keys.h - the per-CRS API keys the gateway accepts
 *
 * A key is "sk-crsci-" and 64 hex digits (32 bytes from OpenSSL's
 * RAND_bytes). Each CRS's key lives in <keys-dir>/<crs>.key (mode 0600,
 * no trailing newline); the orchestrator mounts that file into the CRS's
 * containers as OSS_CRS_LLM_API_KEY_FILE. Presented keys are compared in
 * constant time against every known key. Keys are wiped when freed.
 */
#ifndef CRS_RUNNER_GATEWAY_GW_KEYS_H
#define CRS_RUNNER_GATEWAY_GW_KEYS_H

#include <stddef.h>

#define GW_KEY_PREFIX "sk-crsci-"
#define GW_KEY_LEN (sizeof(GW_KEY_PREFIX) - 1 + 64)

struct gw_keys;

/* An empty key table. Cannot fail. */
struct gw_keys *gw_keys_new(void);
/* Wipe and free every key; accepts NULL. */
void gw_keys_free(struct gw_keys *k);

/*
 * A fresh key into out (NUL-terminated). 0, or CRS_ERR when the random
 * generator fails.
 */
int gw_keys_generate(char out[GW_KEY_LEN + 1]);

/* 1 when `name` may name a CRS key file ([A-Za-z0-9][A-Za-z0-9._-]*,
 * at most 64 bytes), else 0. */
int gw_keys_valid_name(const char *name);

/* "<dir>/<crs>.key"; the caller frees. Cannot fail. */
char *gw_keys_path(const char *dir, const char *crs);

/*
 * Load the key of `crs` from <dir>/<crs>.key, or generate one and write
 * it there (created with O_EXCL, mode 0600; `dir` is created 0700 when
 * missing), then accept it for account `id`. 0, CRS_EINPUT for a bad CRS
 * name, CRS_ECONFIG for a key file that is not a regular file holding one
 * key, CRS_ERR for I/O failures (message names the path, never the key).
 */
int gw_keys_issue(struct gw_keys *k, const char *dir, const char *crs,
		  size_t id);

/* Accept `key` for account `id`. 0, or CRS_EINPUT when it is not of the
 * crs-ci key shape. */
int gw_keys_add(struct gw_keys *k, const char *key, size_t id);

/*
 * The account of a presented key, compared in constant time with every
 * known key. 0 with *id_out set, or CRS_ENOTFOUND (no message set).
 */
int gw_keys_find(const struct gw_keys *k, const char *presented, size_t len,
		 size_t *id_out);

#endif
