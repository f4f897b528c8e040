/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_registry.c - libFuzzer target: the Docker client config reader
 * (runner/engine/registry_auth.c, registry_auth_parse, registry_host)
 *
 * config.json is the user's file, read from $DOCKER_CONFIG or the home
 * folder; the input is that file, asked for a few registries, and (as
 * text) an image reference whose registry is asked for. An answer must be
 * base64url only (it goes into an HTTP header) and a helper name plain.
 */
#include "runner/engine/registry_auth.h"
#include "common/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const HOSTS[] = { "docker.io", "gcr.io",
				     "127.0.0.1:5000" };

static int only(const char *s, const char *set)
{
	return strspn(s, set) == strlen(s);
}

#define B64URL "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" \
	"0123456789-_="

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *ref, *host;

	for (size_t i = 0; i < sizeof(HOSTS) / sizeof(*HOSTS); i++) {
		char *auth = NULL, *helper = NULL;

		if (registry_auth_parse(&auth, &helper, (const char *)data,
					size, "config.json", HOSTS[i]) != 0)
			crs_error_clear();
		if ((auth && (!*auth || !only(auth, B64URL))) ||
		    (helper && auth))
			abort();
		registry_auth_free(auth);
		free(helper);
	}
	ref = strndup((const char *)data, size);
	host = registry_host(ref);
	if (!host || !*host || strchr(host, '/'))
		abort();
	free(host);
	free(ref);
	return 0;
}
