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
#include "common/duration.h"
#include "common/error.h"
#include "common/log.h"

#include <getopt.h>
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
"          the contract.\n"
"\noptions of test:\n"
"  --timeout T       how long the CRS runs, after it is built (default 2m)\n"
"  --keep-going      do not stop the CRS at its first PoV\n"
"  --example DIR     the examples folder (default: next to crs-ci)\n"
"  --compose FILE    run with this compose instead of a generated one\n"
"                    (needed for a CRS with required_llms: its llm_config)\n"
"  --work-dir DIR    work folder (default crs-ci-work/crs-test)\n"
"  --out DIR         results folder (default crs-ci-out/crs-test)\n"
"  --base-images M   pull (default) or stand-in: the offline Debian\n"
"                    stand-ins (also CRS_CI_BASE_IMAGES=stand-in)\n"
"\nexit status: 0 clean (check) or the contract was met (test); 1 the CRS\n"
"ran but broke the contract or submitted nothing; 2 bad package or usage;\n"
"3 infrastructure error.\n";

enum { OPT_TIMEOUT = 256, OPT_KEEP_GOING, OPT_EXAMPLE, OPT_COMPOSE,
       OPT_WORK_DIR, OPT_OUT, OPT_BASE_IMAGES };

const struct option cmd_crs_opts[] = {
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "keep-going", no_argument, NULL, OPT_KEEP_GOING },
	{ "example", required_argument, NULL, OPT_EXAMPLE },
	{ "compose", required_argument, NULL, OPT_COMPOSE },
	{ "work-dir", required_argument, NULL, OPT_WORK_DIR },
	{ "out", required_argument, NULL, OPT_OUT },
	{ "base-images", required_argument, NULL, OPT_BASE_IMAGES },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

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
	int c, code = EXIT_USAGE;

	if (argc < 2)
		return cli_usage_error(ctx->err, "crs", "give a subcommand: "
				       "check or test");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(crs_usage, ctx->out);
		return EXIT_OK;
	}
	sub = argv[1];
	if (strcmp(sub, "check") && strcmp(sub, "test"))
		return cli_usage_error(ctx->err, "crs", "'%s' is not a crs "
				"subcommand (check, test)", sub);
	if (base_images_mode_from_env(&mode) != 0)
		return cli_usage_error(ctx->err, "crs", "%s",
				       crs_error_last());
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc - 1, argv + 1, ":h", cmd_crs_opts,
				NULL)) != -1) {
		for (size_t i = 0; cmd_crs_opts[i].name; i++)
			if (cmd_crs_opts[i].val == c && c != 'h' &&
			    !strcmp(sub, "check"))
				return cli_usage_error(ctx->err, "crs",
						"'--%s' "
						"is an option of test",
						cmd_crs_opts[i].name);
		switch (c) {
		case OPT_TIMEOUT:
			if (parse_duration(optarg, &o.timeout_s) != 0 ||
			    o.timeout_s <= 0)
				return cli_usage_error(ctx->err, "crs",
						"--timeout: "
						"'%s' is not a duration like "
						"\"2m\"", optarg);
			break;
		case OPT_KEEP_GOING: o.keep_going = 1; break;
		case OPT_EXAMPLE: o.example = optarg; break;
		case OPT_COMPOSE: o.compose = optarg; break;
		case OPT_WORK_DIR: o.work_dir = optarg; break;
		case OPT_OUT: o.out_dir = optarg; break;
		case OPT_BASE_IMAGES:
			if (base_images_mode_parse(&mode, optarg,
						   "--base-images") != 0)
				return cli_usage_error(ctx->err, "crs", "%s",
						       crs_error_last());
			break;
		case 'h':
			fputs(crs_usage, ctx->out);
			return EXIT_OK;
		default:
			return cli_option_error(ctx->err, "crs", c, argv + 1,
						cmd_crs_opts);
		}
	}
	if (optind + 1 != argc - 1)
		return cli_usage_error(ctx->err, "crs", "give one package "
				"folder DIR" );
	o.dir = argv[optind + 1];
	o.base_images = (int)mode;
	crslint_run(&lint, o.dir);
	code = print_lint(&lint, o.dir, ctx);
	if (code == EXIT_OK && !strcmp(sub, "test"))
		code = crstrial_run(&o, &lint, ctx);
	crslint_release(&lint);
	return code;
}
