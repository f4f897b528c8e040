/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_gateway.c - crs-ci gateway: the budgeted LLM proxy for CRSs
 *
 * Run inside a container that joins every CRS network and one egress
 * network: the only path from a CRS to a model. Issues one key per CRS
 * into --keys-dir, serves until SIGTERM/SIGINT, and keeps the spend
 * report at --report current (every --report-interval seconds, on
 * SIGUSR1, and once more after the last request settled). The llm_config
 * mode "disabled" means no gateway is run: this command refuses it.
 */
#include "runner/cli/cmd.h"
#include "runner/cli/cli_usage.h"
#include "runner/config/config.h"
#include "runner/gateway/gw_config.h"
#include "runner/gateway/gw_keys.h"
#include "runner/gateway/gw_ledger.h"
#include "runner/gateway/gw_price.h"
#include "runner/gateway/gw_report.h"
#include "runner/gateway/gw_server.h"
#include "common/error.h"
#include "common/log.h"
#include "common/opt.h"
#include "common/xalloc.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char gateway_usage[] =
"usage: crs-ci gateway --keys-dir DIR --budget CRS=DOLLARS... \n"
"                      [--config FILE] [--mode internal|external]\n"
"                      [--listen HOST:PORT] [--report FILE] [options]\n";

enum {
	OPT_LISTEN = 256, OPT_MODE, OPT_CONFIG, OPT_EXT_URL, OPT_EXT_KEY_ENV,
	OPT_KEYS_DIR, OPT_BUDGET, OPT_REPORT, OPT_REPORT_INTERVAL,
	OPT_MAX_TOKENS_CAP, OPT_TIMEOUT, OPT_ALLOW_ENV,
};

const struct opt_spec cmd_gateway_opts[] = {
	{ .name = "listen", .id = OPT_LISTEN, .kind = OPT_STRING,
	  .value_name = "HOST:PORT",
	  .help = "where CRSs connect (default 0.0.0.0:4000;\n"
	  "port 0 picks a free one)" },
	{ .name = "mode", .id = OPT_MODE, .kind = OPT_ENUM,
	  .value_name = "MODE", .choices = "internal|external|disabled",
	  .help = "internal (default): models from --config;\n"
	  "external: every request to --external-url;\n"
	  "disabled: no gateway (refused)" },
	{ .name = "config", .id = OPT_CONFIG, .kind = OPT_STRING,
	  .value_name = "FILE",
	  .help = "LiteLLM-style model_list (internal: required;\n"
	  "external: optional, for prices)" },
	{ .name = "external-url", .id = OPT_EXT_URL, .kind = OPT_STRING,
	  .value_name = "URL", .help = "the endpoint of external mode" },
	{ .name = "external-key-env", .id = OPT_EXT_KEY_ENV,
	  .kind = OPT_STRING, .value_name = "NAME",
	  .help = "environment variable holding its key" },
	{ .name = "allow-env", .id = OPT_ALLOW_ENV, .kind = OPT_STRING,
	  .value_name = "NAME",
	  .help = "let --config read os.environ/NAME although NAME\n"
	  "is not a provider key name (repeatable)" },
	{ .name = "keys-dir", .id = OPT_KEYS_DIR, .kind = OPT_STRING,
	  .value_name = "DIR",
	  .help = "one <CRS>.key per CRS, mode 0600 (made if absent)" },
	{ .name = "budget", .id = OPT_BUDGET, .kind = OPT_STRING,
	  .value_name = "CRS=DOLLARS",
	  .help = "a CRS and its budget, e.g. crsA=1.50 or\n"
	  "crsA=unlimited (repeatable, at least one)" },
	{ .name = "report", .id = OPT_REPORT, .kind = OPT_STRING,
	  .value_name = "FILE", .help = "spend report JSON" },
	{ .name = "report-interval", .id = OPT_REPORT_INTERVAL,
	  .kind = OPT_INT, .value_name = "SEC", .min = 0, .max = 86400,
	  .help = "rewrite it every SEC seconds (default 5; 0: only\n"
	  "on SIGUSR1 and at exit)" },
	{ .name = "max-tokens-cap", .id = OPT_MAX_TOKENS_CAP, .kind = OPT_INT,
	  .value_name = "N", .min = 1, .max = 10000000,
	  .help = "output limit sent and reserved when a request\n"
	  "names none (default 4096)" },
	{ .name = "timeout", .id = OPT_TIMEOUT, .kind = OPT_INT,
	  .value_name = "SEC", .min = 1, .max = 86400,
	  .help = "provider timeout per request (default 600)" },
	OPT_SPEC_HELP,
	{ .name = NULL },
};

struct gateway_budget {
	char *crs;
	int64_t pusd;
};

struct gateway_opts {
	const char *listen, *mode, *config, *ext_url, *ext_key_env;
	const char *keys_dir, *report;
	struct gateway_budget *budgets;
	size_t budgets_nr, budgets_alloc;
	const char **allow_env;	/* --allow-env, borrowed from argv */
	size_t allow_env_nr, allow_env_alloc;
	long report_interval, max_tokens_cap, timeout;
};

/* SIGUSR1: write the report now. The only state a handler may touch. */
static volatile sig_atomic_t report_requested;

static void on_usr1(int sig)
{
	(void)sig;
	report_requested = 1;
}

static int add_budget(struct gateway_opts *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct gateway_budget b = { NULL, 0 };

	if (!eq || eq == arg)
		return crs_error_set(CRS_EINPUT, "--budget \"%.100s\" is not "
				     "CRS=DOLLARS", arg);
	if (!strcmp(eq + 1, "unlimited"))
		b.pusd = GW_BUDGET_UNLIMITED;
	else if (gw_money_parse(&b.pusd, eq + 1) != 0)
		return crs_error_prefix("--budget %.*s", (int)(eq - arg), arg);
	b.crs = xstrndup(arg, (size_t)(eq - arg));
	if (!gw_keys_valid_name(b.crs)) {
		free(b.crs);
		return crs_error_set(CRS_EINPUT, "--budget: \"%.64s\" is not a "
				     "CRS name", arg);
	}
	ALLOC_GROW(o->budgets, o->budgets_nr + 1, o->budgets_alloc);
	o->budgets[o->budgets_nr++] = b;
	return 0;
}

static void opts_release(struct gateway_opts *o)
{
	for (size_t i = 0; i < o->budgets_nr; i++)
		free(o->budgets[i].crs);
	free(o->budgets);
	free(o->allow_env);
}

/* 0, 1 for --help (printed), or an exit code > 1 (message printed). */
static int parse_opts(struct gateway_opts *o, int argc, char **argv,
		      struct runner_ctx *ctx)
{
	struct opt_parser p;
	struct opt_value v;
	int r;

	opt_parser_init(&p, cmd_gateway_opts, argc, argv, 0, "gateway");
	while ((r = opt_next(&p, &v)) == 1) {
		switch (v.spec->id) {
		case OPT_LISTEN: o->listen = v.arg; break;
		case OPT_MODE: o->mode = v.arg; break;
		case OPT_CONFIG: o->config = v.arg; break;
		case OPT_EXT_URL: o->ext_url = v.arg; break;
		case OPT_EXT_KEY_ENV: o->ext_key_env = v.arg; break;
		case OPT_KEYS_DIR: o->keys_dir = v.arg; break;
		case OPT_REPORT: o->report = v.arg; break;
		case OPT_ALLOW_ENV:
			ALLOC_GROW(o->allow_env, o->allow_env_nr + 1,
				   o->allow_env_alloc);
			o->allow_env[o->allow_env_nr++] = v.arg;
			break;
		case OPT_BUDGET:
			if (add_budget(o, v.arg) != 0)
				return cli_opt_error(ctx->err, "gateway");
			break;
		case OPT_REPORT_INTERVAL: o->report_interval = v.num; break;
		case OPT_MAX_TOKENS_CAP: o->max_tokens_cap = v.num; break;
		case OPT_TIMEOUT: o->timeout = v.num; break;
		default:
			cli_help(ctx->out, gateway_usage, cmd_gateway_opts,
				 NULL);
			return 1;
		}
	}
	if (r != 0)
		return cli_opt_error(ctx->err, "gateway");
	if (p.idx < argc)
		return cli_usage_error(ctx->err, "gateway",
				   "unexpected argument '%s'",
				   argv[p.idx]);
	if (!strcmp(o->mode, "disabled"))
		return cli_usage_error(ctx->err, "gateway",
				   "mode 'disabled' runs no gateway: CRSs "
				   "get no LLM URL and no key");
	if (!strcmp(o->mode, "internal") && !o->config)
		return cli_usage_error(ctx->err, "gateway",
				"mode internal needs --config");
	if (!strcmp(o->mode, "internal") && (o->ext_url || o->ext_key_env))
		return cli_usage_error(ctx->err, "gateway",
				   "options '--external-url' and '--mode "
				   "internal' cannot be used together");
	if (!strcmp(o->mode, "external") && !o->ext_url)
		return cli_usage_error(ctx->err, "gateway",
				"mode external needs --external-url");
	if (!o->keys_dir)
		return cli_usage_error(ctx->err, "gateway",
				"--keys-dir is required");
	if (!o->budgets_nr)
		return cli_usage_error(ctx->err, "gateway",
				   "at least one --budget CRS=DOLLARS is "
				   "required");
	return 0;
}

static int load_config(struct gw_config **out, const struct gateway_opts *o)
{
	struct config_env_allow allow = { o->allow_env, o->allow_env_nr };
	struct gw_config *cfg = NULL;
	int r;

	*out = NULL;
	if (o->config)
		r = gw_config_load(&cfg, o->config, &allow);
	else {
		cfg = gw_config_new();
		r = 0;
	}
	if (r != 0)
		return r;
	if (!strcmp(o->mode, "external"))
		r = gw_config_set_external(cfg, o->ext_url, o->ext_key_env);
	else if (!cfg->models_nr)
		r = crs_error_set(CRS_ECONFIG, "%s: model_list names no model",
				  o->config);
	if (r != 0) {
		gw_config_free(cfg);
		return r;
	}
	if (o->max_tokens_cap)
		cfg->settings.max_tokens_cap = o->max_tokens_cap;
	if (o->timeout)
		cfg->settings.request_timeout_s = o->timeout;
	*out = cfg;
	return 0;
}

/* The ready line on stdout: where to connect and where each key is. */
static void print_ready(struct runner_ctx *ctx, const struct gateway_opts *o,
			unsigned port)
{
	json_t *keys = json_object(), *j;
	char *s;

	for (size_t i = 0; i < o->budgets_nr; i++) {
		char *p = gw_keys_path(o->keys_dir, o->budgets[i].crs);

		json_object_set_new(keys, o->budgets[i].crs, json_string(p));
		free(p);
	}
	j = json_pack("{s:s, s:i, s:o}", "listen", o->listen, "port",
		      (int)port, "key_files", keys);
	s = j ? json_dumps(j, JSON_COMPACT) : NULL;
	if (s)
		fprintf(ctx->out, "%s\n", s);
	fflush(ctx->out);
	free(s);
	json_decref(j);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int write_report(struct gw_ledger *l, const char *path)
{
	int r = gw_report_write(l, path);

	if (r != 0)
		log_error("spend report: %s", crs_error_last());
	return r;
}

int cmd_gateway(int argc, char **argv, struct runner_ctx *ctx)
{
	struct gateway_opts o = {
		.listen = "0.0.0.0:4000", .mode = "internal",
		.report_interval = 5,
	};
	struct gw_config *cfg = NULL;
	struct gw_ledger *ledger = gw_ledger_new();
	struct gw_keys *keys = gw_keys_new();
	struct gw_server *srv = NULL;
	struct sigaction sa, old_usr1;
	volatile int local_stop = 0;
	volatile int *stop = ctx->interrupted ? ctx->interrupted : &local_stop;
	double last = 0;
	int rc, r, have_old = 0;
	size_t id;

	if ((rc = parse_opts(&o, argc, argv, ctx)) != 0) {
		rc = rc == 1 ? EXIT_OK : rc;
		goto out;
	}
	if ((r = load_config(&cfg, &o)) != 0)
		goto fail;
	for (size_t i = 0; i < o.budgets_nr; i++)
		if ((r = gw_ledger_add(ledger, &id, o.budgets[i].crs,
				       o.budgets[i].pusd)) != 0 ||
		    (r = gw_keys_issue(keys, o.keys_dir, o.budgets[i].crs,
				       id)) != 0)
			goto fail;
	if ((r = gw_server_start(&srv, o.listen, cfg, ledger, keys)) != 0)
		goto fail;
	log_info("gateway (%s) listening on %s, port %u: %zu model(s), %zu "
		 "CRS(s)", o.mode, o.listen, gw_server_port(srv),
		 cfg->models_nr, o.budgets_nr);
	print_ready(ctx, &o, gw_server_port(srv));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	have_old = sigaction(SIGUSR1, &sa, &old_usr1) == 0;
	report_requested = 0;
	last = now_s();
	rc = EXIT_OK;
	while (!*stop) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		int due = o.report_interval &&
			  now_s() - last >= (double)o.report_interval;

		nanosleep(&ts, NULL);
		if (o.report && (report_requested || due)) {
			report_requested = 0;
			last = now_s();
			write_report(ledger, o.report);
		}
	}
	log_info("gateway stopping");
	gw_server_free(srv);	/* settles every request in flight */
	srv = NULL;
	if (o.report && write_report(ledger, o.report) != 0)
		rc = EXIT_INFRA;
	goto out;
fail:
	log_fprintf(ctx->err, "crs-ci gateway: ", "%s", crs_error_last());
	rc = exit_code_for(r);
out:
	if (have_old)
		sigaction(SIGUSR1, &old_usr1, NULL);
	gw_server_free(srv);
	gw_keys_free(keys);
	gw_ledger_free(ledger);
	gw_config_free(cfg);
	opts_release(&o);
	return rc;
}
