/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_check.c - crs-ci check: validate the configs and nothing else
 *
 * Loads crs-compose.yaml, each CRS's crs.yaml and (with --project, or
 * when the source has .clusterfuzzlite/) the project folder, which must
 * hold a Dockerfile and a build.sh, and its project.yaml; then makes the
 * checks OSS-CRS never made (config_check). Needs no engine. Exit 0 when
 * valid, saying which layout the project folder has; 2 with a
 * file:line:column message when not.
 */
#include "runner/cli/cmd.h"
#include "runner/cli/phase_cmd.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/config/config.h"
#include "runner/config/project_layout.h"
#include "common/log.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static int check(struct scan *s, int *exit_code)
{
	char q[PATH_MAX * 4 + 8];

	*exit_code = 0;
	fprintf(s->ctx->out, "%s: valid (%zu CRS(s))\n", s->opts->compose,
		s->compose->crs_nr);
	if (s->project)
		fprintf(s->ctx->out, "%s: valid %s, project \"%s\"\n",
			log_quote(q, sizeof(q), s->where.dir,
				  strlen(s->where.dir)),
			project_layout_name(s->where.layout), s->where.name);
	return 0;
}

int cmd_check(int argc, char **argv, struct runner_ctx *ctx)
{
	return phase_cmd(argc, argv, ctx, "usage: crs-ci check --compose FILE "
			 "[--project DIR] [--source DIR]\n\nThe project "
			 "folder is checked when --project is given or the "
			 "source\nhas .clusterfuzzlite/ (docs/layouts.md).\n",
			 SCAN_NEED_COMPOSE | SCAN_WANT_PROJECT, check);
}
