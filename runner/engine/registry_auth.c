/* SPDX-License-Identifier: Apache-2.0 */
/*
 * registry_auth.c - X-Registry-Auth from the Docker client's config.json
 *
 * Reads the credentials the docker CLI saved (`docker login`) and encodes
 * them the way the CLI sends them to the engine, or asks the credential
 * helper the config names (docker-credential-<name> get, as the CLI
 * does). Values are secrets: no message here quotes one (nor what a
 * helper printed), and every buffer holding one is wiped before it is
 * freed.
 */
#include "runner/engine/registry_auth.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "common/testable.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#define REGISTRY_CONFIG_MAX ((size_t)1 << 20)
#define REGISTRY_DOCKER_HUB "docker.io"
#define REGISTRY_HUB_SERVER "https://index.docker.io/v1/"
#define REGISTRY_HELPER_TIMEOUT_MS 10000
#define REGISTRY_HELPER_MAX ((size_t)64 << 10)

extern char **environ;

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
	if (!strcmp(h, "index.docker.io") ||
	    !strcmp(h, "registry-1.docker.io")) {
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

/* The header value for a user and password, or an identity token. */
static int registry_header(char **out, const char *user, const char *pass,
			   const char *token, const char *server,
			   const char *source)
{
	json_t *body = token ?
		json_pack("{s:s, s:s}", "identitytoken", token,
			  "serveraddress", server) :
		json_pack("{s:s, s:s, s:s}", "username", user, "password",
			  pass, "serveraddress", server);
	char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
	int r = 0;

	*out = NULL;
	if (!text)
		r = crs_error_set(CRS_ECONFIG, "%s: the credentials for \"%s\" "
				  "are not UTF-8", source, server);
	else
		*out = registry_base64url(text, strlen(text));
	registry_wipe_json(text);
	json_decref(body);
	return r;
}

/* The header value for one auths entry, or NULL when it holds none. */
static int registry_entry_auth(char **out, json_t *entry, const char *key,
			       const char *source)
{
	json_t *auth = json_object_get(entry, "auth");	/* borrowed */
	json_t *tok = json_object_get(entry, "identitytoken"); /* borrowed */
	char *plain = NULL, *colon;
	int r;

	*out = NULL;
	if (json_is_string(tok) && json_string_length(tok))
		return registry_header(out, NULL, NULL, json_string_value(tok),
				       key, source);
	if (!json_is_string(auth) || !json_string_length(auth))
		return 0;	/* e.g. {} beside a credsStore */
	if (registry_base64_decode(&plain, json_string_value(auth)) ||
	    !(colon = strchr(plain, ':'))) {
		registry_wipe_json(plain);
		return crs_error_set(CRS_ECONFIG, "%s: auths.\"%s\".auth is "
				     "not base64 of user:password", source,
				     key);
	}
	*colon = '\0';
	r = registry_header(out, plain, colon + 1, NULL, key, source);
	*colon = ':';
	registry_wipe_json(plain);
	return r;
}

CRS_TESTABLE int registry_auth_parse(char **out, char **helper_out, const char *json,
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

static int registry_helper_name_ok(const char *h)
{
	size_t n = strlen(h);

	if (!n || n > 64 || h[0] == '.' || h[0] == '-')
		return 0;
	for (; *h; h++)
		if (!(isalnum((unsigned char)*h) || *h == '.' || *h == '_' ||
		      *h == '-'))
			return 0;
	return 1;
}

static long registry_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Run the helper: `server` on its stdin, its stdout into `b`, its exit
 * status into *status. */
static int registry_helper_run(struct buf *b, int *status, const char *prog,
			       const char *server)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = { (char *)prog, (char *)"get", NULL };
	int in[2] = { -1, -1 }, outp[2] = { -1, -1 }, rc, r = 0;
	long deadline = registry_now_ms() + REGISTRY_HELPER_TIMEOUT_MS;
	pid_t pid = -1;
	char chunk[4096];

	if (pipe2(in, O_CLOEXEC) != 0 || pipe2(outp, O_CLOEXEC) != 0) {
		r = crs_error_set(CRS_EENGINE, "credential helper %s: pipe: %s",
				  prog, strerror(errno));
		goto out;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, prog, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(outp[1]);
	in[0] = outp[1] = -1;
	if (rc != 0) {
		pid = -1;
		r = crs_error_set(CRS_EENGINE, "credential helper %s: cannot "
				  "run it: %s", prog, strerror(rc));
		goto out;
	}
	/* SIGPIPE is ignored (main.c): a helper that does not read is EPIPE */
	if (write(in[1], server, strlen(server)) < 0 && errno != EPIPE) {
		r = crs_error_set(CRS_EENGINE, "credential helper %s: "
				  "write: %s", prog, strerror(errno));
		goto out;
	}
	close(in[1]);
	in[1] = -1;
	for (;;) {
		struct pollfd p = { outp[0], POLLIN, 0 };
		long left = deadline - registry_now_ms();
		ssize_t n;

		if (left <= 0 || (rc = poll(&p, 1, (int)left)) == 0) {
			r = crs_error_set(CRS_EENGINE, "credential helper "
					  "%s: no answer within %d s", prog,
					  REGISTRY_HELPER_TIMEOUT_MS / 1000);
			goto out;
		}
		if (rc < 0 && errno == EINTR)
			continue;
		n = read(outp[0], chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (b->len + (size_t)n > REGISTRY_HELPER_MAX) {
			r = crs_error_set(CRS_EENGINE, "credential helper %s: "
					  "answer over %zu bytes", prog,
					  REGISTRY_HELPER_MAX);
			goto out;
		}
		buf_add(b, chunk, (size_t)n);
	}
out:
	OPENSSL_cleanse(chunk, sizeof(chunk));
	if (pid > 0) {
		if (r != 0)
			kill(pid, SIGKILL);
		while (waitpid(pid, status, 0) < 0 && errno == EINTR)
			;
	}
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (outp[i] >= 0)
			close(outp[i]);
	}
	return r;
}

int registry_auth_from_helper(char **out, const char *helper,
			      const char *host)
{
	const char *server = strcmp(host, REGISTRY_DOCKER_HUB) ? host :
		REGISTRY_HUB_SERVER;
	struct buf b = BUF_INIT;
	json_t *j = NULL, *user, *secret;
	char *prog = NULL;
	int status = 0, r;

	*out = NULL;
	if (!registry_helper_name_ok(helper))
		return crs_error_set(CRS_ECONFIG, "credential helper name '%s' "
				     "is not [A-Za-z0-9._-]", helper);
	prog = xasprintf("docker-credential-%s", helper);
	if ((r = registry_helper_run(&b, &status, prog, server)) != 0)
		goto out;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		if (strstr(b.ptr, "credentials not found"))
			goto out;	/* none for this host: anonymous */
		r = crs_error_set(CRS_EENGINE, "credential helper %s failed "
				  "(exit %d) for %s", prog, WIFEXITED(status) ?
				  WEXITSTATUS(status) : -1, server);
		goto out;
	}
	j = json_loadb(b.ptr, b.len, 0, NULL);
	user = json_object_get(j, "Username");		/* borrowed */
	secret = json_object_get(j, "Secret");		/* borrowed */
	if (!json_is_string(user) || !json_is_string(secret)) {
		r = crs_error_set(CRS_EENGINE, "credential helper %s answered "
				  "no Username and Secret for %s", prog,
				  server);
		goto out;
	}
	if (!strcmp(json_string_value(user), "<token>"))
		r = registry_header(out, NULL, NULL, json_string_value(secret),
				    server, prog);
	else
		r = registry_header(out, json_string_value(user),
				    json_string_value(secret), NULL, server,
				    prog);
out:
	OPENSSL_cleanse(b.ptr, b.len);
	buf_release(&b);
	json_decref(j);
	free(prog);
	return r;
}
