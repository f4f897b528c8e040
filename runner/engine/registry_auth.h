/* SPDX-License-Identifier: Apache-2.0 */
/*
 * registry_auth.h - registry credentials from the Docker client's config
 *
 * Trust: the values are secrets, never logged, put in a message, a
 * command line or a file, and wiped before they are freed.
 *
 * Details: docs/internals.md.
 */
#ifndef CRS_RUNNER_ENGINE_REGISTRY_AUTH_H
#define CRS_RUNNER_ENGINE_REGISTRY_AUTH_H

#include <stddef.h>

/*
 * The registry host of an image reference, as Docker reads it: the first
 * path component when there is a second one and it holds a '.' or a ':'
 * or is "localhost" ("127.0.0.1:5000/a/b:t" -> "127.0.0.1:5000",
 * "gcr.io/x/y" -> "gcr.io"); otherwise Docker Hub, "docker.io". Caller
 * frees. Cannot fail.
 */
char *registry_host(const char *ref);

#ifdef UNIT_TESTS
/*
 * The X-Registry-Auth value for `host` from config.json text `json` (its
 * name `source` in messages): base64url of {"username", "password",
 * "serveraddress"} or {"identitytoken", "serveraddress"}. The entry of
 * `auths` is matched by host, with or without a scheme or a path
 * ("https://index.docker.io/v1/" for docker.io). *out is NULL when the
 * file has no credentials for the host (an anonymous pull). When only a
 * credential helper (credsStore, credHelpers) could have them, *helper_out
 * (may be NULL) gets its name (caller frees) and *out stays NULL.
 * CRS_ECONFIG naming `source` (never a value) when the file is not JSON
 * or an entry's auth is not base64 of user:password. Free *out with
 * registry_auth_free.
 */
int registry_auth_parse(char **out, char **helper_out, const char *json,
			size_t len, const char *source, const char *host);
#endif

/*
 * registry_auth_parse on $DOCKER_CONFIG/config.json, or on
 * ~/.docker/config.json when DOCKER_CONFIG is unset or empty. A missing
 * file is not an error (*out NULL). CRS_ECONFIG as above, CRS_EINPUT when
 * the file cannot be read (not a regular file, over 1 MiB).
 */
int registry_auth_load(char **out, char **helper_out, const char *host);

/*
 * Ask credential helper `helper` (the credsStore or credHelpers value) for
 * `host`'s credentials: `docker-credential-<helper> get` found on PATH,
 * the server (host, or "https://index.docker.io/v1/" for Docker Hub) on
 * its stdin, at most 10 s. Its answer {"ServerURL", "Username", "Secret"}
 * becomes the X-Registry-Auth value (a Username of "<token>" makes Secret
 * an identity token). *out is NULL when the helper has none for the host
 * ("credentials not found"). CRS_ECONFIG for a helper name that is not
 * [A-Za-z0-9._-]; CRS_EENGINE when it cannot run, fails, times out or
 * answers something else. Messages never quote what it printed.
 */
int registry_auth_from_helper(char **out, const char *helper,
			      const char *host);

/* Wipe and free an X-Registry-Auth value. NULL is fine. */
void registry_auth_free(char *auth);

#endif
