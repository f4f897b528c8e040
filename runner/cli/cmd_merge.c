/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_merge.c - crs-ci merge: one result from the shards of a scan
 *
 * Shard folders are CI artifacts: only relative paths inside them
 * and regular files are taken.
 *
 * Details: docs/cmd/merge.md; design notes: docs/internals.md.
 */
#include "runner/cli/cmd.h"
#include "runner/cli/cli_usage.h"
#include "runner/scan/merge.h"
#include "runner/report/html.h"
#include "runner/report/terminal.h"
#include "sarif/bug_key.h"
#include "sarif/finding.h"
#include "sarif/sarif_write.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/opt.h"
#include "common/safe_io.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char merge_usage[] =
"usage: crs-ci merge --out DIR [--fail-on new|any|none] RESULTS_DIR...\n"
"\nJoin the outputs of `crs-ci scan --shard i/N` jobs (each a --out\n"
"folder with results.json) into DIR: results.json, results.sarif,\n"
"report.html, and the PoVs, reports and patches they name. Prints one\n"
"verdict; the exit status is that of the merged scan.\n";

enum { OPT_OUT = 256, OPT_FAIL_ON };

const struct opt_spec cmd_merge_opts[] = {
	{ .name = "out", .id = OPT_OUT, .kind = OPT_STRING,
	  .value_name = "DIR",
	  .help = "where the merged results go (required)" },
	{ .name = "fail-on", .id = OPT_FAIL_ON, .kind = OPT_ENUM,
	  .value_name = "WHAT", .choices = "new|any|none",
	  .help = "new, any or none (default: the shards' policy)" },
	OPT_SPEC_HELP,
	{ .name = NULL },
};

/*
 * Copy <from>/<rel> to <out>/<rel> unless it is there already. A missing
 * or unusual source is logged and skipped: the finding stands without it.
 */
static int merge_copy(const char *from, const char *out, const char *rel)
{
	char *src = NULL, *dst = NULL, *dir = NULL, *slash;
	char q[512];
	struct stat st;
	int r = 0;

	if (!rel)
		return 0;
	log_quote(q, sizeof(q), rel, strlen(rel));
	if (!safe_relpath_ok(rel)) {
		log_warn("merge: %s: path '%s' leaves the folder; not copied",
			 from, q);
		return 0;
	}
	src = xasprintf("%s/%s", from, rel);
	dst = xasprintf("%s/%s", out, rel);
	if (lstat(src, &st) != 0 || !S_ISREG(st.st_mode)) {
		log_warn("merge: %s: '%s' is missing or not a regular file; "
			 "not copied", from, q);
		goto out;
	}
	if (fs_exists(dst))
		goto out;
	dir = xstrdup(dst);
	if ((slash = strrchr(dir, '/')))
		*slash = '\0';
	if ((r = fs_mkdir_p(dir)) != 0 || (r = fs_copy_file(src, dst)) != 0)
		goto out;
out:
	free(src);
	free(dst);
	free(dir);
	return r;
}

/* Every file `fs` (as loaded from `from`) names. */
static int merge_copy_all(const struct finding_set *fs, const char *from,
			  const char *out)
{
	int r = 0;

	for (size_t i = 0; i < fs->nr && r == 0; i++)
		if ((r = merge_copy(from, out, fs->items[i].pov_path)) == 0)
			r = merge_copy(from, out, fs->items[i].report_path);
	for (size_t i = 0; i < fs->patches_nr && r == 0; i++) {
		const struct finding_patch *p = &fs->patches[i];

		r = merge_copy(from, out, p->path);
		for (size_t k = 0; k < p->steps_nr && r == 0; k++)
			r = merge_copy(from, out, p->steps[k].log_path);
	}
	return r;
}

/* Load, copy and fold one shard's results into `into`. */
static int merge_one(struct finding_set *into, const char *from,
		     const char *out)
{
	struct finding_set fs;
	char *path = xasprintf("%s/results.json", from);
	int r;

	finding_set_init(&fs);
	if ((r = finding_set_load(&fs, path)) != 0 ||
	    (r = merge_copy_all(&fs, from, out)) != 0 ||
	    (r = merge_finding_sets(into, &fs, path)) != 0)
		goto out;
	log_info("merge: %s", path);
out:
	finding_set_release(&fs);
	free(path);
	return r;
}

int cmd_merge(int argc, char **argv, struct runner_ctx *ctx)
{
	struct finding_set fs;
	const char *out = NULL, *fail_on = NULL;
	char *results = NULL, *sarif = NULL;
	struct opt_parser p;
	struct opt_value v;
	int pr, r = 0, code = EXIT_USAGE;

	finding_set_init(&fs);
	opt_parser_init(&p, cmd_merge_opts, argc, argv, 0, "merge");
	while ((pr = opt_next(&p, &v)) == 1) {
		switch (v.spec->id) {
		case OPT_OUT: out = v.arg; break;
		case OPT_FAIL_ON: fail_on = v.arg; break;
		default:
			cli_help(ctx->out, merge_usage, cmd_merge_opts, NULL);
			code = EXIT_OK;
			goto out;
		}
	}
	if (pr != 0) {
		code = cli_opt_error(ctx->err, "merge");
		goto out;
	}
	if (!out) {
		code = cli_usage_error(ctx->err, "merge", "--out is required");
		goto out;
	}
	if (p.idx >= argc) {
		code = cli_usage_error(ctx->err, "merge",
				"give at least one RESULTS_DIR");
		goto out;
	}
	if ((r = fs_mkdir_p(out)) != 0)
		goto out;
	for (int i = p.idx; i < argc && r == 0; i++)
		r = merge_one(&fs, argv[i], out);
	if (r != 0)
		goto out;
	merge_sort(&fs);
	/* one bug from two shards' harnesses is one finding */
	if (finding_set_fold_bugs(&fs))
		merge_sort(&fs);
	if (fail_on || !fs.summary.fail_on) {
		free(fs.summary.fail_on);
		fs.summary.fail_on = xstrdup(fail_on ? fail_on : "new");
	}
	results = xasprintf("%s/results.json", out);
	sarif = xasprintf("%s/results.sarif", out);
	if ((r = finding_set_save(&fs, results)) != 0 ||
	    (r = sarif_write_file(&fs, fs.summary.source_root, sarif)) != 0 ||
	    (r = html_report_write(&fs, out)) != 0)
		goto out;
	log_info("merge: %d shard(s), %zu finding(s) -> %s", argc - p.idx,
		 fs.nr, out);
	terminal_report(ctx->out, &fs, out);
	code = report_exit_code(finding_set_verdict(&fs, NULL, NULL),
				fs.summary.fail_on);
out:
	if (r != 0) {
		log_error("%s", crs_error_last());
		/* a shard folder without results.json: a wrong argument */
		code = r == CRS_ENOTFOUND ? EXIT_USAGE : exit_code_for(r);
	}
	finding_set_release(&fs);
	free(results);
	free(sarif);
	return code;
}
