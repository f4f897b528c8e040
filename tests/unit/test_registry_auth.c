/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_registry_auth.c - registry credentials from config.json, and the
 * X-Registry-Auth value built from them
 *
 * The header is decoded back (base64url, then JSON) and compared field by
 * field; the error paths are checked not to quote a secret; the file is
 * found through DOCKER_CONFIG and HOME as the docker CLI finds it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/evp.h>

#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "runner/engine/registry_auth.h"

/* base64("alice:s3cr3t/+pass") */
#define ALICE "YWxpY2U6czNjcjN0LytwYXNz"

/* The JSON object an X-Registry-Auth value carries. */
static json_t *decode_header(const char *v)
{
	size_t n = strlen(v);
	char *std = xstrdup(v);
	unsigned char *raw = xmalloc(n + 1);
	int len, pad = 0;
	json_t *j;

	for (char *p = std; *p; p++) {
		assert_true(*p != '+' && *p != '/');	/* url-safe */
		if (*p == '-')
			*p = '+';
		else if (*p == '_')
			*p = '/';
	}
	while (n && std[n - 1 - (size_t)pad] == '=')
		pad++;
	len = EVP_DecodeBlock(raw, (unsigned char *)std, (int)n);
	assert_true(len >= pad);
	j = json_loadb((char *)raw, (size_t)(len - pad), 0, NULL);
	assert_non_null(j);
	free(std);
	free(raw);
	return j;
}

static void assert_member(json_t *j, const char *key, const char *want)
{
	json_t *v = json_object_get(j, key);

	assert_true(json_is_string(v));
	assert_string_equal(json_string_value(v), want);
}

static void test_registry_host(void **state)
{
	static const char *const cases[][2] = {
		{ "127.0.0.1:5000/oss-fuzz-base/base-runner:t", "127.0.0.1:5000" },
		{ "gcr.io/oss-fuzz-base/base-builder", "gcr.io" },
		{ "ghcr.io/aixcc-finals/base-builder:v1.2.1", "ghcr.io" },
		{ "localhost/x", "localhost" },
		{ "debian:bookworm", "docker.io" },
		{ "library/debian", "docker.io" },
		{ "user/repo:tag", "docker.io" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *h = registry_host(cases[i][0]);

		assert_string_equal(h, cases[i][1]);
		free(h);
	}
}

static void test_user_password(void **state)
{
	static const char cfg[] = "{\"auths\": {"
		"\"other.io\": {\"auth\": \"b3RoZXI6eA==\"},"
		"\"127.0.0.1:5000\": {\"auth\": \"" ALICE "\"}}}";
	char *auth = NULL, *helper = NULL;
	json_t *j;

	(void)state;
	assert_int_equal(registry_auth_parse(&auth, &helper, cfg, strlen(cfg),
					     "config.json", "127.0.0.1:5000"), 0);
	assert_non_null(auth);
	assert_null(helper);
	j = decode_header(auth);
	assert_member(j, "username", "alice");
	assert_member(j, "password", "s3cr3t/+pass");
	assert_member(j, "serveraddress", "127.0.0.1:5000");
	assert_int_equal(json_object_size(j), 3);
	json_decref(j);
	registry_auth_free(auth);
}

static void test_identity_token_and_scheme(void **state)
{
	static const char cfg[] = "{\"auths\": {"
		"\"https://index.docker.io/v1/\": {\"identitytoken\": \"tok\"},"
		"\"https://gcr.io\": {\"auth\": \"" ALICE "\"}}}";
	char *auth = NULL;
	json_t *j;

	(void)state;
	assert_int_equal(registry_auth_parse(&auth, NULL, cfg, strlen(cfg),
					     "config.json", "docker.io"), 0);
	j = decode_header(auth);
	assert_member(j, "identitytoken", "tok");
	assert_member(j, "serveraddress", "https://index.docker.io/v1/");
	assert_null(json_object_get(j, "password"));
	json_decref(j);
	registry_auth_free(auth);
	assert_int_equal(registry_auth_parse(&auth, NULL, cfg, strlen(cfg),
					     "config.json", "gcr.io"), 0);
	j = decode_header(auth);
	assert_member(j, "username", "alice");
	json_decref(j);
	registry_auth_free(auth);
}

static void test_none_and_helpers(void **state)
{
	static const char none[] = "{\"auths\": {\"gcr.io\": {}}}";
	static const char helpers[] = "{\"auths\": {\"gcr.io\": {}},"
		"\"credsStore\": \"desktop\","
		"\"credHelpers\": {\"ghcr.io\": \"gh\"}}";
	char *auth = NULL, *helper = NULL;

	(void)state;
	assert_int_equal(registry_auth_parse(&auth, &helper, none,
					     strlen(none), "c", "gcr.io"), 0);
	assert_null(auth);
	assert_null(helper);
	assert_int_equal(registry_auth_parse(&auth, &helper, helpers,
					     strlen(helpers), "c", "gcr.io"), 0);
	assert_null(auth);
	assert_string_equal(helper, "desktop");
	free(helper);
	assert_int_equal(registry_auth_parse(&auth, &helper, helpers,
					     strlen(helpers), "c", "ghcr.io"),
			 0);
	assert_null(auth);
	assert_string_equal(helper, "gh");
	free(helper);
}

static void test_bad_config_quotes_no_secret(void **state)
{
	/* not user:password once decoded */
	static const char nocolon[] = "{\"auths\": {\"gcr.io\": "
		"{\"auth\": \"c2VjcmV0dmFsdWU=\"}}}";
	static const char notb64[] = "{\"auths\": {\"gcr.io\": "
		"{\"auth\": \"secret-value!\"}}}";
	static const char notjson[] = "{\"auths\": secret-value";
	char *auth = NULL;

	(void)state;
	assert_int_equal(registry_auth_parse(&auth, NULL, nocolon,
					     strlen(nocolon), "cfg.json",
					     "gcr.io"), CRS_ECONFIG);
	assert_string_equal(crs_error_last(), "cfg.json: auths.\"gcr.io\".auth "
			    "is not base64 of user:password");
	assert_int_equal(registry_auth_parse(&auth, NULL, notb64,
					     strlen(notb64), "cfg.json",
					     "gcr.io"), CRS_ECONFIG);
	assert_null(strstr(crs_error_last(), "secret"));
	assert_int_equal(registry_auth_parse(&auth, NULL, notjson,
					     strlen(notjson), "cfg.json",
					     "gcr.io"), CRS_ECONFIG);
	assert_null(strstr(crs_error_last(), "secret"));
	assert_non_null(strstr(crs_error_last(), "cfg.json:1:"));
	assert_null(auth);
}

static void test_load_from_docker_config(void **state)
{
	char dir[] = "/tmp/crs-test-auth-XXXXXX", *path, *auth = NULL;
	static const char cfg[] = "{\"auths\": {\"gcr.io\": {\"auth\": \""
		ALICE "\"}}}";
	json_t *j;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/config.json", dir);
	assert_int_equal(fs_write_file_atomic(path, cfg, strlen(cfg)), 0);
	setenv("DOCKER_CONFIG", dir, 1);
	assert_int_equal(registry_auth_load(&auth, NULL, "gcr.io"), 0);
	j = decode_header(auth);
	assert_member(j, "password", "s3cr3t/+pass");
	json_decref(j);
	registry_auth_free(auth);
	/* no file: anonymous, not an error */
	unlink(path);
	assert_int_equal(registry_auth_load(&auth, NULL, "gcr.io"), 0);
	assert_null(auth);
	/* HOME/.docker/config.json when DOCKER_CONFIG is unset */
	unsetenv("DOCKER_CONFIG");
	setenv("HOME", dir, 1);
	free(path);
	path = xasprintf("%s/.docker", dir);
	assert_int_equal(fs_mkdir_p(path), 0);
	free(path);
	path = xasprintf("%s/.docker/config.json", dir);
	assert_int_equal(fs_write_file_atomic(path, cfg, strlen(cfg)), 0);
	assert_int_equal(registry_auth_load(&auth, NULL, "gcr.io"), 0);
	assert_non_null(auth);
	registry_auth_free(auth);
	assert_int_equal(fs_remove_tree(dir), 0);
	free(path);
}

/* A fake docker-credential-NAME in a folder put first on PATH. */
static char *helper_dir(const char *name, const char *script)
{
	char *dir = xstrdup("/tmp/crs-test-helper-XXXXXX");
	char *path, *newpath;
	const char *old = getenv("PATH");

	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/docker-credential-%s", dir, name);
	assert_int_equal(fs_write_file_atomic(path, script, strlen(script)), 0);
	assert_int_equal(chmod(path, 0755), 0);
	newpath = xasprintf("%s:%s", dir, old ? old : "/usr/bin:/bin");
	setenv("PATH", newpath, 1);
	free(newpath);
	free(path);
	return dir;
}

static void test_credential_helper(void **state)
{
	/* echoes the server it was asked for into the answer */
	char *dir = helper_dir("crstest", "#!/bin/sh\n"
		"[ \"$1\" = get ] || exit 9\n"
		"read -r server\n"
		"case $server in\n"
		"gcr.io) printf '{\"ServerURL\":\"%s\",\"Username\":\"bob\","
		"\"Secret\":\"hunter2\"}' \"$server\" ;;\n"
		"https://index.docker.io/v1/) printf '{\"Username\":\"<token>\","
		"\"Secret\":\"tok-1\"}' ;;\n"
		"fail.io) echo 'hunter2 leaked?' >&1; exit 3 ;;\n"
		"*) echo 'credentials not found in native keychain'; exit 1 ;;\n"
		"esac\n");
	char *auth = NULL;
	json_t *j;

	(void)state;
	assert_int_equal(registry_auth_from_helper(&auth, "crstest", "gcr.io"),
			 0);
	j = decode_header(auth);
	assert_member(j, "username", "bob");
	assert_member(j, "password", "hunter2");
	assert_member(j, "serveraddress", "gcr.io");
	json_decref(j);
	registry_auth_free(auth);
	assert_int_equal(registry_auth_from_helper(&auth, "crstest",
						   "docker.io"), 0);
	j = decode_header(auth);
	assert_member(j, "identitytoken", "tok-1");
	assert_member(j, "serveraddress", "https://index.docker.io/v1/");
	json_decref(j);
	registry_auth_free(auth);
	/* none for this host: anonymous, not an error */
	assert_int_equal(registry_auth_from_helper(&auth, "crstest",
						   "other.io"), 0);
	assert_null(auth);
	/* fails: named, with nothing it printed */
	assert_int_equal(registry_auth_from_helper(&auth, "crstest",
						   "fail.io"), CRS_EENGINE);
	assert_string_equal(crs_error_last(), "credential helper "
			    "docker-credential-crstest failed (exit 3) for "
			    "fail.io");
	assert_int_equal(registry_auth_from_helper(&auth, "absent-helper",
						   "gcr.io"), CRS_EENGINE);
	assert_non_null(strstr(crs_error_last(), "cannot run it"));
	assert_int_equal(registry_auth_from_helper(&auth, "../x", "gcr.io"),
			 CRS_ECONFIG);
	assert_null(auth);
	assert_int_equal(fs_remove_tree(dir), 0);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry_host),
		cmocka_unit_test(test_user_password),
		cmocka_unit_test(test_identity_token_and_scheme),
		cmocka_unit_test(test_none_and_helpers),
		cmocka_unit_test(test_bad_config_quotes_no_secret),
		cmocka_unit_test(test_load_from_docker_config),
		cmocka_unit_test(test_credential_helper),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
