/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_version.c - crs-ci version: ours and the libraries' versions
 */
#include "runner/cli/cmd.h"
#include "runner/cli/cli_usage.h"
#include "runner/http/http.h"

#include <git2.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

int cmd_version(int argc, char **argv, struct runner_ctx *ctx)
{
	int maj = 0, min = 0, rev = 0;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs("usage: crs-ci version (or crs-ci --version)\n\nPrint "
		      "crs-ci's version and its libraries' versions.\n",
		      ctx->out);
		return EXIT_OK;
	}
	if (argc > 1)
		return cli_usage_error(ctx->err, "version", "unexpected "
				       "argument '%s'", argv[1]);
	git_libgit2_version(&maj, &min, &rev);
	/* the action checks a release's commit here (install-release.sh) */
	if (CRS_CI_COMMIT_STR[0])
		fprintf(ctx->out, "crs-ci %s (commit %s)\n", CRS_CI_VERSION,
			CRS_CI_COMMIT_STR);
	else
		fprintf(ctx->out, "crs-ci %s\n", CRS_CI_VERSION);
	fprintf(ctx->out, "libcurl %s, libgit2 %d.%d.%d, jansson %s, "
		"libyaml %s\n", http_lib_version(),
		maj, min, rev, JANSSON_VERSION, yaml_get_version_string());
	return EXIT_OK;
}
