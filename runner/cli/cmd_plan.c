/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_plan.c - crs-ci plan: the CI job matrix of a sharded scan
 *
 * Prints {"include":[{"shard":"1/N","harnesses":"a c"}, ...]} on one
 * line, for GitHub Actions' strategy.matrix (fromJSON) or a GitLab
 * parallel:matrix generated from it. The harness list comes from a
 * build's scan.json or from --harness; the split is runner/scan/shard.c's.
 */
#include "runner/cli/cmd.h"
#include "runner/cli/cli_usage.h"
#include "runner/scan/shard.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define PLAN_JSON_MAX (4u << 20)

static const char plan_usage[] =
"usage: crs-ci plan --shards N --harnesses-from FILE\n"
"       crs-ci plan --shards N --harness NAME [--harness NAME ...]\n"
"\nPrint the job matrix of a scan split into N shards, as one line of\n"
"JSON: {\"include\":[{\"shard\":\"1/N\",\"harnesses\":\"a c\"}, ...]}.\n"
"Each job runs `crs-ci scan --shard <shard>`; `crs-ci merge` joins them.\n"
"Harnesses are dealt round-robin in sorted order; with fewer harnesses\n"
"than N, there are as many shards as harnesses.\n"
"\noptions:\n"
"  --shards N              number of jobs, 1 to 256\n"
"  --harnesses-from FILE   a JSON file with a \"harnesses\" array, such as\n"
"                          <work-dir>/scan.json after build-target\n"
"  --harness NAME          a harness (repeatable)\n"
"  -h, --help              this text\n";

enum { OPT_SHARDS = 256, OPT_FROM, OPT_HARNESS };

const struct option cmd_plan_opts[] = {
	{ "shards", required_argument, NULL, OPT_SHARDS },
	{ "harnesses-from", required_argument, NULL, OPT_FROM },
	{ "harness", required_argument, NULL, OPT_HARNESS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The "harnesses" array of a JSON file into out. */
static int plan_load(struct strvec *out, const char *path)
{
	struct buf b = BUF_INIT;
	json_t *j = NULL, *v;
	json_error_t je;
	const json_t *a;	/* borrowed */
	size_t i;
	int r;

	if ((r = fs_read_file(&b, path, PLAN_JSON_MAX)) != 0)
		goto out;
	j = json_loadb(b.ptr, b.len, JSON_REJECT_DUPLICATES, &je);
	if (!j) {
		r = crs_error_set(CRS_EINPUT, "%s:%d:%d: %s", path, je.line,
				  je.column, je.text);
		goto out;
	}
	a = json_object_get(j, "harnesses");
	if (!json_is_array(a)) {
		r = crs_error_set(CRS_EINPUT, "%s: harnesses: expected an "
				  "array of strings", path);
		goto out;
	}
	json_array_foreach(a, i, v) {
		if (!json_is_string(v)) {
			r = crs_error_set(CRS_EINPUT, "%s: harnesses[%zu]: "
					  "expected a string", path, i);
			goto out;
		}
		strvec_push(out, json_string_value(v));
	}
	r = 0;
out:
	json_decref(j);
	buf_release(&b);
	return r;
}

int cmd_plan(int argc, char **argv, struct runner_ctx *ctx)
{
	struct strvec names = STRVEC_INIT;
	const char *from = NULL;
	unsigned long shards = 0;
	json_t *m = NULL;
	char *text = NULL, *end = NULL;
	int c, code = EXIT_USAGE, r;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", cmd_plan_opts,
				NULL)) != -1) {
		switch (c) {
		case OPT_SHARDS:
			shards = strtoul(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end ||
			    shards < 1 || shards > SHARD_MAX) {
				code = cli_usage_error(ctx->err, "plan",
					"--shards: '%s' "
					"is not a number from 1 to %d", optarg,
					SHARD_MAX);
				goto out;
			}
			break;
		case OPT_FROM: from = optarg; break;
		case OPT_HARNESS: strvec_push(&names, optarg); break;
		case 'h':
			fputs(plan_usage, ctx->out);
			code = EXIT_OK;
			goto out;
		default:
			code = cli_option_error(ctx->err, "plan", c, argv,
						cmd_plan_opts);
			goto out;
		}
	}
	if (optind < argc) {
		code = cli_usage_error(ctx->err, "plan",
					"unexpected argument '%s'",
					argv[optind]);
		goto out;
	}
	if (!shards) {
		code = cli_usage_error(ctx->err, "plan",
				"--shards is required");
		goto out;
	}
	if (from && names.nr) {
		code = cli_usage_error(ctx->err, "plan",
					"options '--harnesses-from' and "
					"'--harness' cannot be used together");
		goto out;
	}
	if (!from && !names.nr) {
		code = cli_usage_error(ctx->err, "plan",
					"give --harnesses-from FILE or "
					"--harness NAME");
		goto out;
	}
	if (from && (r = plan_load(&names, from)) != 0) {
		log_fprintf(ctx->err, "crs-ci: error: ", "%s",
			    crs_error_last());
		code = r == CRS_ENOTFOUND ? EXIT_USAGE : exit_code_for(r);
		goto out;
	}
	for (size_t i = 0; i < names.nr; i++)
		if (!shard_name_ok(names.v[i])) {
			char q[256];

			log_quote(q, sizeof(q), names.v[i], strlen(names.v[i]));
			fprintf(ctx->err, "crs-ci: error: harness name '%s' is "
				"not letters, digits, '_' and '-'\n", q);
			goto out;
		}
	if (!(m = shard_matrix(names.v, names.nr, (unsigned)shards))) {
		log_fprintf(ctx->err, "crs-ci: error: ", "%s: no harness to "
			    "split", from ? from : "--harness");
		goto out;
	}
	text = json_dumps(m, JSON_COMPACT);
	if (!text) {
		fprintf(ctx->err, "crs-ci: error: cannot serialise the "
			"matrix\n");
		code = EXIT_INFRA;
		goto out;
	}
	fprintf(ctx->out, "%s\n", text);
	code = EXIT_OK;
out:
	free(text);
	json_decref(m);
	strvec_release(&names);
	return code;
}
