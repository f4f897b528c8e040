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
#include "common/opt.h"
#include "common/strvec.h"
#include "common/xalloc.h"

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
"than N, there are as many shards as harnesses.\n";

enum { OPT_SHARDS = 256, OPT_FROM, OPT_HARNESS };

const struct opt_spec cmd_plan_opts[] = {
	{ .name = "shards", .id = OPT_SHARDS, .kind = OPT_INT,
	  .value_name = "N", .min = 1, .max = SHARD_MAX,
	  .help = "number of jobs, 1 to 256" },
	{ .name = "harnesses-from", .id = OPT_FROM, .kind = OPT_STRING,
	  .value_name = "FILE",
	  .help = "a JSON file with a \"harnesses\" array, such as\n"
	  "<work-dir>/scan.json after build-target" },
	{ .name = "harness", .id = OPT_HARNESS, .kind = OPT_STRING,
	  .value_name = "NAME", .help = "a harness (repeatable)" },
	OPT_SPEC_HELP,
	{ .name = NULL },
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
	long shards = 0;
	struct opt_parser p;
	struct opt_value v;
	json_t *m = NULL;
	char *text = NULL;
	int code = EXIT_USAGE, r;

	opt_parser_init(&p, cmd_plan_opts, argc, argv, 0, "plan");
	while ((r = opt_next(&p, &v)) == 1) {
		switch (v.spec->id) {
		case OPT_SHARDS: shards = v.num; break;
		case OPT_FROM: from = v.arg; break;
		case OPT_HARNESS: strvec_push(&names, v.arg); break;
		default:
			cli_help(ctx->out, plan_usage, cmd_plan_opts, NULL);
			code = EXIT_OK;
			goto out;
		}
	}
	if (r != 0) {
		code = cli_opt_error(ctx->err, "plan");
		goto out;
	}
	if (p.idx < argc) {
		code = cli_usage_error(ctx->err, "plan",
					"unexpected argument '%s'",
					argv[p.idx]);
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
