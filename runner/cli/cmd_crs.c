/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_crs.c - crs-ci crs check|test: tooling for CRS authors
 *
 * `check DIR` lints a CRS package (crs_lint.c) and prints every problem
 * as file:line:col; `test DIR` lints it, then builds it and runs it on
 * the bundled example through the scan pipeline (crs_trial.c) and says
 * what it submitted. The package is the author's own code, trusted like
 * a compose file; what the CRS submits while it runs is not.
 */
#include "runner/exec/base_images.h"
#include "runner/cli/cmd.h"
#include "runner/cli/cli_usage.h"
#include "runner/config/crs_lint.h"
#include "runner/cli/crs_trial.h"
#include "runner/scan/scan_opts.h"
#include "common/error.h"
#include "common/log.h"
#include "common/opt.h"

#include <stdio.h>
#include <string.h>

static const char crs_usage[] =
"usage: crs-ci crs check DIR\n"
"       crs-ci crs test DIR [--timeout T] [--keep-going] [--example DIR]\n"
"                           [--compose FILE] [--work-dir DIR] [--out DIR]\n"
"                           [--base-images pull|stand-in]\n"
"\nTools for CRS authors. DIR is a CRS package: the folder holding\n"
"oss-crs/crs.yaml.\n"
"\n  check   lint the package against the OSS-CRS contract: crs.yaml's\n"
"          fields, every Dockerfile a regular file inside the package,\n"
"          libCRS installed in each image, outputs on every build step,\n"
"          run modules. Prints every problem as file:line:col.\n"
"  test    check, then build the CRS and run it on the bundled example\n"
"          (recparse) and report what it submitted and whether it kept\n"
"          the contract.\n";

static const char crs_exit_status[] =
"\nexit status: 0 clean (check) or the contract was met (test); 1 the CRS\n"
"ran but broke the contract or submitted nothing; 2 bad package or usage;\n"
"3 infrastructure error.\n";

enum { OPT_TIMEOUT = 256, OPT_KEEP_GOING, OPT_EXAMPLE, OPT_COMPOSE,
       OPT_WORK_DIR, OPT_OUT, OPT_BASE_IMAGES };

const struct opt_spec cmd_crs_opts[] = {
	{ .name = "timeout", .id = OPT_TIMEOUT, .kind = OPT_DURATION,
	  .value_name = "T", .min = 1,
	  .help = "how long the CRS runs, after it is built (default 2m)" },
	{ .name = "keep-going", .id = OPT_KEEP_GOING, .kind = OPT_FLAG,
	  .help = "do not stop the CRS at its first PoV" },
	{ .name = "example", .id = OPT_EXAMPLE, .kind = OPT_STRING,
	  .value_name = "DIR",
	  .help = "the examples folder (default: next to crs-ci)" },
	{ .name = "compose", .id = OPT_COMPOSE, .kind = OPT_STRING,
	  .value_name = "FILE",
	  .help = "run with this compose instead of a generated one\n"
	  "(needed for a CRS with required_llms: its llm_config)" },
	{ .name = "work-dir", .id = OPT_WORK_DIR, .kind = OPT_STRING,
	  .value_name = "DIR",
	  .help = "work folder (default crs-ci-work/crs-test)" },
	{ .name = "out", .id = OPT_OUT, .kind = OPT_STRING,
	  .value_name = "DIR",
	  .help = "results folder (default crs-ci-out/crs-test)" },
	{ .name = "base-images", .id = OPT_BASE_IMAGES, .kind = OPT_STRING,
	  .value_name = "M",
	  .help = "pull (default) or stand-in: the offline Debian\n"
	  "stand-ins (also CRS_CI_BASE_IMAGES=stand-in)" },
	OPT_SPEC_HELP,
	{ .name = NULL },
};

static void print_help(FILE *f)
{
	fputs(crs_usage, f);
	fputs("\noptions of test:\n", f);
	opt_help(f, cmd_crs_opts, 0);
	fputs(crs_exit_status, f);
}

/* Every problem, then a count line; returns the lint's exit code. */
static int print_lint(const struct crslint *l, const char *dir,
		      struct runner_ctx *ctx)
{
	char q[1024];

	for (size_t i = 0; i < l->nr; i++)
		log_fprintf(ctx->out, "", "%s%s",
			    l->items[i].is_error ? "" : "warning: ",
			    l->items[i].text);
	log_quote(q, sizeof(q), dir, strlen(dir));
	fprintf(ctx->out, "%s: %zu error(s), %zu warning(s)\n", q, l->errors,
		l->warnings);
	return l->errors ? EXIT_USAGE : EXIT_OK;
}

int cmd_crs(int argc, char **argv, struct runner_ctx *ctx)
{
	struct crstrial_opts o = CRS_TRIAL_OPTS_INIT;
	struct crslint lint = CRS_LINT_INIT;
	const char *sub;
	enum base_images_mode mode;
	struct opt_parser p;
	struct opt_value v;
	int r, code = EXIT_USAGE;

	if (argc < 2)
		return cli_usage_error(ctx->err, "crs", "give a subcommand: "
				       "check or test");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		print_help(ctx->out);
		return EXIT_OK;
	}
	sub = argv[1];
	if (strcmp(sub, "check") && strcmp(sub, "test"))
		return cli_usage_error(ctx->err, "crs", "'%s' is not a crs "
				"subcommand (check, test)", sub);
	if (base_images_mode_from_env(&mode) != 0)
		return cli_usage_error(ctx->err, "crs", "%s",
				       crs_error_last());
	opt_parser_init(&p, cmd_crs_opts, argc - 1, argv + 1, OPT_MIXED,
			"crs");
	while ((r = opt_next(&p, &v)) == 1) {
		if (!v.spec) {
			if (o.dir)
				return cli_usage_error(ctx->err, "crs",
						"give one package folder DIR");
			o.dir = v.arg;
			continue;
		}
		if (v.spec->id != 'h' && !strcmp(sub, "check"))
			return cli_usage_error(ctx->err, "crs", "'--%s' is an "
					       "option of test", v.spec->name);
		switch (v.spec->id) {
		case OPT_TIMEOUT: o.timeout_s = v.num; break;
		case OPT_KEEP_GOING: o.keep_going = 1; break;
		case OPT_EXAMPLE: o.example = v.arg; break;
		case OPT_COMPOSE: o.compose = v.arg; break;
		case OPT_WORK_DIR: o.work_dir = v.arg; break;
		case OPT_OUT: o.out_dir = v.arg; break;
		case OPT_BASE_IMAGES:
			if (base_images_mode_parse(&mode, v.arg,
						   "--base-images") != 0)
				return cli_opt_error(ctx->err, "crs");
			break;
		default:
			print_help(ctx->out);
			return EXIT_OK;
		}
	}
	if (r != 0)
		return cli_opt_error(ctx->err, "crs");
	if (!o.dir)
		return cli_usage_error(ctx->err, "crs", "give one package "
				"folder DIR" );
	o.base_images = (int)mode;
	crslint_run(&lint, o.dir);
	code = print_lint(&lint, o.dir, ctx);
	if (code == EXIT_OK && !strcmp(sub, "test"))
		code = crstrial_run(&o, &lint, ctx);
	crslint_release(&lint);
	return code;
}
