/* SPDX-License-Identifier: Apache-2.0 */
/*
 * env_allow.c - which environment variables a configuration may read
 *
 * The compose and the LiteLLM config may come from a pull request, so a
 * config that names an environment variable (os.environ/NAME, url_env,
 * key_env) may only name a provider's key or endpoint, never a CI token.
 * The rule is fixed here; the only way to widen it is the trusted command
 * line (--allow-env NAME), which a config cannot set.
 */
#include "runner/config/config.h"

#include <ctype.h>
#include <string.h>

/* CI and crs-ci namespaces: tokens, runner internals, job metadata. */
static const char *const denied_prefixes[] = {
	"GITHUB_", "ACTIONS_", "RUNNER_", "CI_", "GITLAB_", "CRS_CI_",
};

static const char *const allowed_suffixes[] = {
	"_API_KEY", "_API_BASE", "_BASE_URL",
};

const char config_env_allow_rule[] =
	"a config may read only NAME_API_KEY, NAME_API_BASE or NAME_BASE_URL "
	"(upper case; not GITHUB_*, ACTIONS_*, RUNNER_*, CI_*, GITLAB_*, "
	"CRS_CI_*)";

static int upper_name(const char *s)
{
	if (!(*s >= 'A' && *s <= 'Z'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_'))
			return 0;
	return 1;
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

int config_env_allowed(const char *name,
		       const struct config_env_allow *allow)
{
	size_t i;

	if (!name || !*name)
		return 0;
	for (i = 0; allow && i < allow->nr; i++)
		if (!strcmp(allow->names[i], name))
			return 1;
	if (!upper_name(name))
		return 0;
	for (i = 0; i < sizeof(denied_prefixes) / sizeof(*denied_prefixes);
	     i++)
		if (!strncmp(name, denied_prefixes[i],
			     strlen(denied_prefixes[i])))
			return 0;
	for (i = 0; i < sizeof(allowed_suffixes) / sizeof(*allowed_suffixes);
	     i++)
		if (has_suffix(name, allowed_suffixes[i]))
			return 1;
	return 0;
}

int config_env_name_ok(const char *s)
{
	if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (s++; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return 0;
	return 1;
}
