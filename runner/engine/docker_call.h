/* SPDX-License-Identifier: Apache-2.0 */
/*
 * docker_call.h - the Engine API client's own plumbing, shared by
 * docker.c, docker_image.c, docker_container.c and docker_objects.c only
 *
 * One call, its status mapped to an error, JSON answers and bodies.
 */
#ifndef CRS_RUNNER_ENGINE_DOCKER_CALL_H
#define CRS_RUNNER_ENGINE_DOCKER_CALL_H

#include <stddef.h>
#include <jansson.h>

#include "common/buf.h"
#include "runner/http/http.h"

#define DOCKER_API "/v1.41"
#define DOCKER_DEFAULT_HOST "unix:///var/run/docker.sock"

#define DOCKER_PING_TIMEOUT_MS 15000L
#define DOCKER_CALL_TIMEOUT_MS 120000L		/* ordinary API calls */
#define DOCKER_LONG_TIMEOUT_MS (30L * 60 * 1000)	/* import, commit */
#define DOCKER_WAIT_POLL_MS 200L
#define DOCKER_LOGS_DEFAULT_MAX ((size_t)64 << 20)
#define DOCKER_BUILD_LINE_MAX ((size_t)4 << 20)
#define DOCKER_BUILD_TAIL_BYTES 16384
#define DOCKER_BUILD_TAIL_LINES 20
#define DOCKER_BUILD_TAIL_CAP 1200	/* bytes of them in the error */
#define DOCKER_MSG_MAX 512

struct docker_client {
	struct http_transport *t;
	char *host;
};

/*
 * JSON building that remembers the first string jansson refused (not
 * UTF-8), so the caller can report it instead of sending a partial body.
 */
struct docker_json {
	const char *bad;
};

/* Start a path: DOCKER_API + prefix + escaped(name) + suffix. */
void docker_path(struct buf *b, const char *prefix, const char *name,
			const char *suffix);

/* Append "?key=value" or "&key=value", value escaped. */
void docker_query(struct buf *b, const char *key, const char *value);

/*
 * A name for messages: a 64-hex id (optionally "sha256:") is cut to 12
 * characters as the docker CLI shows them; anything else is quoted.
 */
const char *docker_short(char *out, size_t n, const char *s);

/* The engine's "message" from an error body, quoted, or the raw body. */
const char *docker_message(char *out, size_t n,
				  const struct http_response *resp);

/*
 * Map a non-success status to a code and message. `kind` ("container",
 * "image", "network") names what a 404 means, or NULL to use the engine's
 * message; `what` names the operation ("start container 'abc'").
 */
int docker_status_error(const struct http_response *resp,
			       const char *kind, const char *name,
			       const char *what);

/* Execute a request with an optional JSON body. Transport codes pass. */
int docker_call(struct docker_client *d, const char *method,
		       const char *path, json_t *body, long timeout_ms,
		       struct http_response *resp);

int docker_parse_json(const struct http_response *resp,
			     const char *what, json_t **out);

/*
 * The string member `key` of the answer's JSON object (caller frees); with
 * `out` NULL, only checked to be there.
 */
int docker_answer_string(const struct http_response *resp,
				const char *what, const char *key, char **out);

json_t *docker_jstr(struct docker_json *b, const char *s);

void docker_jset(struct docker_json *b, json_t *obj, const char *key,
			json_t *v);

json_t *docker_jstrv(struct docker_json *b, const char *const *v);

/* {"KEY": "VALUE", ...} from "KEY=VALUE" strings; CRS_EINPUT otherwise. */
int docker_jkv(struct docker_json *b, const char *const *kv,
		      const char *what, json_t **out);

int docker_json_check(const struct docker_json *b, const char *what);

/*
 * A request without a body on one engine object, `kind` "image",
 * "container" or "network": the path is "/<kind>s/" + escaped `id` +
 * `suffix`, then the `query` pairs up to a NULL key (a pair whose value is
 * NULL is left out). Statuses in `ok` (0-ended) are success; any other is
 * mapped by docker_status_error() with `what` "<verb> <kind> '<id>'".
 * With `out`, the answer is parsed as JSON (caller decrefs).
 */
int docker_object_op(struct docker_client *d, const char *method,
			    const char *kind, const char *id,
			    const char *suffix, const char *const *query,
			    const long *ok, long timeout_ms,
			    const char *verb, json_t **out);

#endif
