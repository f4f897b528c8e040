/* SPDX-License-Identifier: Apache-2.0 */
/*
 * registry_auth.c - X-Registry-Auth from the Docker client's config.json
 *
 * Reads the credentials the docker CLI saved (`docker login`) and encodes
 * them the way the CLI sends them to the engine. Values are secrets: no
 * message here quotes one, and every buffer holding one is wiped before
 * it is freed. Credential helpers are named, not run (yet).
 */
#include "runner/engine/registry_auth.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#define REGISTRY_CONFIG_MAX ((size_t)1 << 20)
#define REGISTRY_DOCKER_HUB "docker.io"

char *registry_host(const char *ref)
{
	const char *slash = strchr(ref, '/');
	size_t n = slash ? (size_t)(slash - ref) : 0;

	if (slash && (memchr(ref, '.', n) || memchr(ref, ':', n) ||
		      (n == 9 && !strncmp(ref, "localhost", 9))))
		return xstrndup(ref, n);
	return xstrdup(REGISTRY_DOCKER_HUB);
}

/* A config key ("https://index.docker.io/v1/", "gcr.io") as a host. */
static char *registry_key_host(const char *key)
{
	char *h;

	if (!strncmp(key, "https://", 8))
		key += 8;
	else if (!strncmp(key, "http://", 7))
		key += 7;
	h = xstrndup(key, strcspn(key, "/"));
	if (!strcmp(h, "index.docker.io") || !strcmp(h, "registry-1.docker.io")) {
		free(h);
		h = xstrdup(REGISTRY_DOCKER_HUB);
	}
	return h;
}

void registry_auth_free(char *auth)
{
	if (!auth)
		return;
	OPENSSL_cleanse(auth, strlen(auth));
	free(auth);
}

static void registry_wipe_json(char *s)
{
	if (s) {
		OPENSSL_cleanse(s, strlen(s));
		free(s);
	}
}

/* base64 of `len` bytes, '+' and '/' made '-' and '_' (padding kept, as
 * Go's base64.URLEncoding, which the engine decodes with). */
static char *registry_base64url(const char *data, size_t len)
{
	char *out = xmalloc(st_add(st_mult(len / 3 + 1, 4), 1));
	int n = EVP_EncodeBlock((unsigned char *)out,
				(const unsigned char *)data, (int)len);

	out[n > 0 ? n : 0] = '\0';
	for (char *p = out; *p; p++)
		if (*p == '+')
			*p = '-';
		else if (*p == '/')
			*p = '_';
	return out;
}

/* Standard base64 `in` decoded into *out (wiped by the caller); -1 when
 * it is not base64. */
static int registry_base64_decode(char **out, const char *in)
{
	size_t len = strlen(in), pad = 0;
	char *buf;
	int n;

	*out = NULL;
	if (!len || len % 4 || len > REGISTRY_CONFIG_MAX)
		return -1;
	while (pad < 2 && in[len - 1 - pad] == '=')
		pad++;
	buf = xmalloc(len / 4 * 3 + 1);
	n = EVP_DecodeBlock((unsigned char *)buf, (const unsigned char *)in,
			    (int)len);
	if (n < 0 || (size_t)n < pad) {
		OPENSSL_cleanse(buf, len / 4 * 3 + 1);
		free(buf);
		return -1;
	}
	n -= (int)pad;
	buf[n] = '\0';
	if (memchr(buf, '\0', (size_t)n)) {
		OPENSSL_cleanse(buf, (size_t)n);
		free(buf);
		return -1;
	}
	*out = buf;
	return 0;
}

/* The header value for one auths entry, or NULL when it holds none. */
static int registry_entry_auth(char **out, json_t *entry, const char *key,
			       const char *source)
{
	json_t *auth = json_object_get(entry, "auth");	/* borrowed */
	json_t *tok = json_object_get(entry, "identitytoken"); /* borrowed */
	json_t *body = NULL;
	char *plain = NULL, *colon, *text = NULL;
	int r = 0;

	*out = NULL;
	if (json_is_string(tok) && json_string_length(tok)) {
		body = json_pack("{s:s, s:s}", "identitytoken",
				 json_string_value(tok), "serveraddress", key);
	} else if (json_is_string(auth) && json_string_length(auth)) {
		if (registry_base64_decode(&plain, json_string_value(auth)) ||
		    !(colon = strchr(plain, ':'))) {
			r = crs_error_set(CRS_ECONFIG, "%s: auths.\"%s\".auth is "
					  "not base64 of user:password", source,
					  key);
			goto out;
		}
		*colon = '\0';
		body = json_pack("{s:s, s:s, s:s}", "username", plain,
				 "password", colon + 1, "serveraddress", key);
		*colon = ':';
	} else {
		return 0;	/* e.g. {} beside a credsStore */
	}
	if (!body || !(text = json_dumps(body, JSON_COMPACT))) {
		r = crs_error_set(CRS_ECONFIG, "%s: auths.\"%s\": the "
				  "credentials are not UTF-8", source, key);
		goto out;
	}
	*out = registry_base64url(text, strlen(text));
out:
	registry_wipe_json(text);
	registry_wipe_json(plain);
	json_decref(body);
	return r;
}

int registry_auth_parse(char **out, char **helper_out, const char *json,
			size_t len, const char *source, const char *host)
{
	json_t *root = NULL, *auths, *helpers, *store, *v;
	json_error_t err;
	const char *key, *helper = NULL;
	int r = 0;

	*out = NULL;
	if (helper_out)
		*helper_out = NULL;
	root = json_loadb(json, len, 0, &err);
	if (!json_is_object(root)) {
		/* err.text may quote the input: give the position only */
		r = crs_error_set(CRS_ECONFIG, "%s:%d:%d: not a JSON object",
				  source, root ? 1 : err.line,
				  root ? 1 : err.column);
		goto out;
	}
	helpers = json_object_get(root, "credHelpers");	/* borrowed */
	v = json_object_get(helpers, host);
	if (json_is_string(v) && json_string_length(v))
		helper = json_string_value(v);
	auths = json_object_get(root, "auths");		/* borrowed */
	json_object_foreach(auths, key, v) {
		char *h = registry_key_host(key);
		int same = !strcmp(h, host);

		free(h);
		if (!same || helper || !json_is_object(v))
			continue;
		if ((r = registry_entry_auth(out, v, key, source)) != 0 ||
		    *out)
			goto out;
	}
	store = json_object_get(root, "credsStore");	/* borrowed */
	if (!helper && json_is_string(store) && json_string_length(store))
		helper = json_string_value(store);
	if (helper && helper_out)
		*helper_out = xstrdup(helper);
out:
	json_decref(root);
	return r;
}

int registry_auth_load(char **out, char **helper_out, const char *host)
{
	const char *dir = getenv("DOCKER_CONFIG");
	const char *home = getenv("HOME");
	struct buf b = BUF_INIT;
	char *path = NULL;
	int r;

	*out = NULL;
	if (helper_out)
		*helper_out = NULL;
	if (dir && dir[0])
		path = xasprintf("%s/config.json", dir);
	else if (home && home[0])
		path = xasprintf("%s/.docker/config.json", home);
	else
		return 0;
	r = fs_read_file(&b, path, REGISTRY_CONFIG_MAX);
	if (r == CRS_ENOTFOUND) {
		crs_error_clear();
		r = 0;
	} else if (r == 0) {
		r = registry_auth_parse(out, helper_out, b.ptr, b.len, path,
					host);
	}
	OPENSSL_cleanse(b.ptr, b.len);
	buf_release(&b);
	free(path);
	return r;
}
