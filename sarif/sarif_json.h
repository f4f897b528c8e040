/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sarif_json.h - the SARIF writer's JSON pieces, shared by sarif_write.c
 * and sarif_fixes.c: strings from hostile text, messages, URIs; result
 * fixes from validated patches
 */
#ifndef CRS_SARIF_SARIF_JSON_H
#define CRS_SARIF_SARIF_JSON_H

#include <jansson.h>

struct finding;
struct finding_set;

/* A JSON string from untrusted text: repaired to UTF-8, never NULL. */
json_t *sarif_jstr(const char *s);

json_t *sarif_jmsg(const char *text);

/* Percent-encode a path for a URI reference (RFC 3986 pchar and '/'). */
char *sarif_uri_escape(const char *path);

/* result.fixes: every validated patch that fixes f; NULL when none. */
json_t *sarif_fixes_json(const struct finding *f,
			  const struct finding_set *s);

#endif
