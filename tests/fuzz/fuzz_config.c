/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_config.c - libFuzzer target: the YAML config loaders
 * (runner/config/ and the gateway's LiteLLM config)
 *
 * A same-repo pull request can edit crs-compose.yaml, a CRS's crs.yaml,
 * the OSS-Fuzz project.yaml and the LLM config. The first input byte picks
 * the loader ('0' compose, '1' crs.yaml, '2' project.yaml, '3' LiteLLM
 * config: its value modulo 4), the rest is the file, parsed from memory
 * by the same entry points the file loaders wrap.
 */
#include "runner/config/config.h"
#include "runner/gateway/gw_config.h"
#include "common/error.h"
#include "common/log.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void quiet(enum log_level level, const char *file, const char *func,
		  int line, const char *msg, void *ctx)
{
	(void)level, (void)file, (void)func, (void)line, (void)msg, (void)ctx;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	log_set_handler(quiet, NULL);
	/* the variables the LiteLLM seeds name for their api_key */
	setenv("FAKE_LLM_API_KEY", "sk-fuzz-0123456789", 1);
	setenv("OPENAI_API_KEY", "sk-fuzz-openai-0123456789", 1);
	setenv("ANTHROPIC_API_KEY", "sk-fuzz-anthropic-0123456789", 1);
	return 0;
}

static void compose(const char *buf, size_t len)
{
	struct compose *c = NULL;

	if (compose_parse(&c, buf, len, "/fuzz/compose.yaml") == 0)
		compose_free(c);
}

static void manifest(const char *buf, size_t len)
{
	struct manifest *m = NULL;

	if (manifest_parse(&m, buf, len,
			   "/fuzz/crs/oss-crs/crs.yaml") == 0)
		manifest_free(m);
}

static void project(const char *buf, size_t len)
{
	struct project_config *p = NULL;

	if (project_config_parse(&p, buf, len,
				 "/fuzz/project/project.yaml") == 0) {
		if (!project_config_sanitizer(p) || !project_config_engine(p) ||
		    !project_config_architecture(p))
			abort();
		project_config_free(p);
	}
}

static void litellm(const char *buf, size_t len)
{
	struct gw_config *g = NULL;

	if (gw_config_parse(&g, buf, len, "/fuzz/litellm.yaml",
			    NULL) == 0) {
		for (size_t i = 0; i < g->models_nr; i++)
			if (gw_config_model(g, g->models[i].name) == NULL)
				abort();
		gw_config_free(g);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data + 1;

	if (size < 1)
		return 0;
	switch (data[0] % 4) {
	case 0: compose(buf, size - 1); break;
	case 1: manifest(buf, size - 1); break;
	case 2: project(buf, size - 1); break;
	case 3: litellm(buf, size - 1); break;
	}
	crs_error_clear();
	return 0;
}
