/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_reproduce.c - `crs-ci reproduce DIR`: a CI scan's PoVs, rerun here
 *
 * DIR is a scan's output as CI uploads it (results.json, povs/); the
 * clone of the repository it scanned is --source (default: the
 * repository around the current folder), its compose the one crs-ci
 * init writes unless --compose names another.
 */
#include "runner/cli/cmd.h"
#include "runner/cli/cli_usage.h"
#include "runner/cli/phase_cmd.h"
#include "runner/cli/scan_opts_parse.h"
#include "runner/init/init_render.h"
#include "runner/phase/phase.h"
#include "runner/scan/scan.h"
#include "diff/worktree.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
"usage: crs-ci reproduce DIR [--source DIR] [--compose FILE] [--project DIR]\n"
"                        [--work-dir DIR] [--reproduce N]\n"
"\nRun the PoVs of a scan's output folder DIR (the artifact crs-ci-results,\n"
"unzipped: results.json and povs/) on a head build of the commit its\n"
"results.json names, made here from --source (default: the repository\n"
"around this folder), and say for each finding whether it crashes as\n"
"recorded. The compose defaults to .crs-ci/crs-compose.yaml of the\n"
"source. Exit 0: every finding crashed as recorded; 1: one did not.\n";

/* The compose `crs-ci init` wrote in the source's repository, or NULL. */
static char *default_compose(const char *source)
{
	char *abs = fs_abspath(source), *root = diff_worktree_root(abs);
	char *path = init_compose_find(root ? root : abs);

	free(abs);
	free(root);
	return path;
}

int cmd_reproduce(int argc, char **argv, struct runner_ctx *ctx)
{
	struct scan_opts o = SCAN_OPTS_INIT;
	struct scan *s = NULL;
	char **args, *compose = NULL;
	const char *dir;
	int r, code = EXIT_OK, nargs = 0;

	if (argc >= 2 && (!strcmp(argv[1], "-h") ||
			  !strcmp(argv[1], "--help"))) {
		scan_opts_usage(ctx->out, "reproduce", usage);
		return EXIT_OK;
	}
	if (argc < 2 || argv[1][0] == '-')
		return cli_usage_error(ctx->err, "reproduce", "give the "
				       "folder of a scan's output first");
	dir = argv[1];
	args = xcalloc((size_t)argc + 1, sizeof(char *));
	args[nargs++] = "reproduce";
	for (int i = 2; i < argc; i++)
		args[nargs++] = argv[i];
	r = scan_opts_parse(&o, nargs, args, usage, ctx->out, ctx->err);
	free(args);
	if (r == 1 || r != 0) {
		scan_opts_release(&o);
		return r == 1 ? EXIT_OK : EXIT_USAGE;
	}
	if (!o.compose && (compose = default_compose(o.source)))
		o.compose = compose;
	if (!o.compose)
		r = crs_error_set(CRS_EINPUT, "--compose is required: the "
				  "source has no " INIT_COMPOSE);
	else if ((r = scan_open(&s, &o, ctx, SCAN_NEED_COMPOSE |
				SCAN_NEED_PROJECT | SCAN_NEED_ENGINE)) == 0)
		r = phase_reproduce_artifact(s, dir, &code);
	if (r == 0 && s && scan_interrupted(s))
		r = crs_error_set(CRS_EINTR, "interrupted");
	scan_close(s);
	scan_opts_release(&o);
	free(compose);
	return r != 0 ? phase_cmd_fail(r) : code;
}
