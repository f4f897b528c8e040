/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gateway_cmd.c - crs-ci gateway as a command
 *
 * Runs cmd_gateway() in a thread against the fake provider: the ready
 * line on stdout, key files, a request through it, the spend report on
 * SIGUSR1 and at stop, and the usage errors (exit 2) with their messages.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "runner/cli/cmd.h"

#include "tests/helper/fake_llm.h"

/* declared in runner/cli/cmd.h once the command is in the table */
int cmd_gateway(int argc, char **argv, struct runner_ctx *ctx);

#define PROVIDER_KEY "sk-provider-cmd-test"

static char dir[64];

static void quiet(enum log_level level, const char *file, const char *func,
		  int line, const char *msg, void *ctx)
{
	(void)level; (void)file; (void)func; (void)line; (void)msg; (void)ctx;
}

static int setup(void **state)
{
	(void)state;
	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	log_set_handler(quiet, NULL);
	snprintf(dir, sizeof(dir), "/tmp/gwcmd.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	fs_remove_tree(dir);
	log_set_handler(NULL, NULL);
	curl_global_cleanup();
	return 0;
}

struct run {
	pthread_t th;
	int argc;
	char **argv;
	struct runner_ctx ctx;
	volatile int stop;
	int rc;
};

static void *run_cmd(void *arg)
{
	struct run *r = arg;

	r->rc = cmd_gateway(r->argc, r->argv, &r->ctx);
	return NULL;
}

/* Run to completion with stop already set: for usage errors. */
static int run_now(char **argv, int argc, struct buf *err)
{
	volatile int stop = 1;
	char *text = NULL;
	size_t len = 0;
	FILE *e = open_memstream(&text, &len);
	FILE *o = fopen("/dev/null", "w");
	struct runner_ctx ctx = { .out = o, .err = e, .interrupted = &stop };
	int rc = cmd_gateway(argc, argv, &ctx);

	fclose(e);
	fclose(o);
	buf_reset(err);
	buf_add(err, text, len);
	free(text);
	return rc;
}

static void test_usage_errors(void **state)
{
	struct buf err = BUF_INIT;
	char keys[128];
	char *a1[] = { "gateway", "--config", "x.yaml", "--budget", "a=1",
		       NULL };
	char *a2[] = { "gateway", "--keys-dir", keys, "--config", "x.yaml",
		       NULL };
	char *a3[] = { "gateway", "--keys-dir", keys, "--mode", "disabled",
		       "--budget", "a=1", NULL };
	char *a4[] = { "gateway", "--keys-dir", keys, "--budget", "a=lots",
		       "--config", "x.yaml", NULL };
	char *a5[] = { "gateway", "--keys-dir", keys, "--budget", "a=1",
		       "--mode", "external", NULL };
	char *a6[] = { "gateway", "--keys-dir", keys, "--budget", "a=1",
		       "--config", "/nonexistent.yaml", NULL };
	char *a7[] = { "gateway", "--help", NULL };

	(void)state;
	snprintf(keys, sizeof(keys), "%s/k", dir);
	assert_int_equal(run_now(a1, 5, &err), EXIT_USAGE);
	assert_non_null(strstr(err.ptr, "--keys-dir is required"));
	assert_int_equal(run_now(a2, 5, &err), EXIT_USAGE);
	assert_non_null(strstr(err.ptr, "at least one --budget"));
	assert_int_equal(run_now(a3, 7, &err), EXIT_USAGE);
	assert_non_null(strstr(err.ptr, "mode 'disabled' runs no gateway"));
	assert_int_equal(run_now(a4, 7, &err), EXIT_USAGE);
	assert_non_null(strstr(err.ptr, "--budget a: \"lots\" is not an "
			       "amount of dollars"));
	assert_int_equal(run_now(a5, 7, &err), EXIT_USAGE);
	assert_non_null(strstr(err.ptr, "mode external needs --external-url"));
	assert_int_equal(run_now(a6, 7, &err), EXIT_USAGE);
	assert_non_null(strstr(err.ptr, "/nonexistent.yaml"));
	assert_int_equal(run_now(a7, 2, &err), EXIT_OK);
	buf_release(&err);
}

static size_t discard(char *p, size_t sz, size_t n, void *ctx)
{
	(void)p;
	(void)ctx;
	return sz * n;
}

static long post(unsigned port, const char *key, const char *body)
{
	CURL *h = curl_easy_init();
	struct curl_slist *hd = NULL;
	char url[128], auth[160];
	long status = -1;

	snprintf(url, sizeof(url), "http://127.0.0.1:%u/v1/chat/completions",
		 port);
	snprintf(auth, sizeof(auth), "Authorization: Bearer %s", key);
	hd = curl_slist_append(hd, auth);
	hd = curl_slist_append(hd, "Content-Type: application/json");
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hd);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
	if (curl_easy_perform(h) == CURLE_OK)
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	curl_slist_free_all(hd);
	curl_easy_cleanup(h);
	return status;
}

/* The report's dollars for a CRS, or -1 while it is not written. */
static double report_dollars(const char *path, const char *crs)
{
	json_t *j = json_load_file(path, 0, NULL);
	json_t *a = json_object_get(json_object_get(j, "crs"), crs);
	double d = json_is_real(a ? json_object_get(a, "dollars") : NULL) ?
		   json_real_value(json_object_get(a, "dollars")) : -1;

	json_decref(j);
	return d;
}

static void test_serve_and_report(void **state)
{
	struct fake_llm *fake = NULL;
	struct run r;
	struct buf b = BUF_INIT;
	char cfg[128], keys[128], out[128], report[128], yaml[512];
	char *keyfile = NULL;
	json_t *ready = NULL;
	struct stat st;
	unsigned port;

	(void)state;
	assert_int_equal(fake_llm_start(&fake, PROVIDER_KEY), 0);
	fake->prompt_tokens = 100;
	fake->completion_tokens = 50;
	setenv("GWCMD_API_KEY", PROVIDER_KEY, 1);
	snprintf(cfg, sizeof(cfg), "%s/llm.yaml", dir);
	snprintf(keys, sizeof(keys), "%s/keys", dir);
	snprintf(out, sizeof(out), "%s/stdout", dir);
	snprintf(report, sizeof(report), "%s/spend.json", dir);
	snprintf(yaml, sizeof(yaml),
		 "model_list:\n"
		 "  - model_name: gpt-4o-mini\n"
		 "    litellm_params:\n"
		 "      model: openai/gpt-4o-mini\n"
		 "      api_base: http://127.0.0.1:%u/v1\n"
		 "      api_key: os.environ/GWCMD_API_KEY\n", fake->port);
	assert_int_equal(fs_write_file_atomic(cfg, yaml, strlen(yaml)), 0);
	{
		char *argv[] = { "gateway", "--listen", "127.0.0.1:0",
				 "--config", cfg, "--keys-dir", keys,
				 "--budget", "crsA=1.50", "--budget",
				 "crsB=unlimited", "--report", report,
				 "--report-interval", "0", NULL };

		memset(&r, 0, sizeof(r));
		r.argc = 15;
		r.argv = argv;
		r.ctx.out = fopen(out, "w");
		r.ctx.err = stderr;
		r.ctx.interrupted = &r.stop;
		assert_int_equal(pthread_create(&r.th, NULL, run_cmd, &r), 0);
		for (int i = 0; i < 500 && !ready; i++) {
			usleep(10000);
			ready = json_load_file(out, 0, NULL);
		}
		assert_non_null(ready);
		port = (unsigned)json_integer_value(json_object_get(ready,
								    "port"));
		assert_true(port > 0);
		keyfile = strdup(json_string_value(json_object_get(
			json_object_get(ready, "key_files"), "crsA")));
		json_decref(ready);
		assert_int_equal(stat(keyfile, &st), 0);
		assert_int_equal(st.st_mode & 0777, 0600);
		assert_int_equal(fs_read_file(&b, keyfile, 4096), 0);
		/* gpt-4o-mini from the shipped table: $0.15/M in, $0.60/M
		 * out; 100 in + 50 out = $0.000045 */
		assert_int_equal(post(port, b.ptr, "{\"model\":\"gpt-4o-mini\","
				      "\"messages\":[{\"role\":\"user\","
				      "\"content\":\"hi\"}]}"), 200);
		assert_true(report_dollars(report, "crsA") < 0);
		kill(getpid(), SIGUSR1);
		for (int i = 0; i < 300 && report_dollars(report, "crsA") < 0;
		     i++)
			usleep(10000);
		assert_true(report_dollars(report, "crsA") == 0.000045);
		r.stop = 1;
		pthread_join(r.th, NULL);
		fclose(r.ctx.out);
	}
	assert_int_equal(r.rc, EXIT_OK);
	assert_true(report_dollars(report, "crsA") == 0.000045);
	assert_true(report_dollars(report, "crsB") == 0);
	buf_reset(&b);
	assert_int_equal(fs_read_file(&b, report, 1 << 20), 0);
	assert_null(strstr(b.ptr, PROVIDER_KEY));
	assert_null(strstr(b.ptr, "sk-crsci-"));
	buf_release(&b);
	free(keyfile);
	fake_llm_stop(fake);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_serve_and_report),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
