/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_check.c - crs-ci check: validate the configs and nothing else
 *
 * Loads crs-compose.yaml, each CRS's crs.yaml and (with --project) the
 * project's project.yaml, then makes the checks OSS-CRS never made
 * (config_check). Needs no engine. Exit 0 when valid, 2 with a
 * file:line:column message when not.
 */
#include "runner/cmd.h"
#include "runner/phase_cmd.h"
#include "runner/scan.h"
#include "runner/scan_opts.h"
#include "runner/config/config.h"

#include <stdio.h>
#include <string.h>

static int check(struct scan *s, int *exit_code)
{
	*exit_code = 0;
	fprintf(s->ctx->out, "%s: valid (%zu CRS(s))\n", s->opts->compose,
		s->compose->crs_nr);
	return 0;
}

int cmd_check(int argc, char **argv, struct runner_ctx *ctx)
{
	static char full[4096];
	unsigned needs = SCAN_NEED_COMPOSE;

	snprintf(full, sizeof(full), "usage: crs-ci check --compose FILE "
		 "[--project DIR]\n\noptions:\n%s", scan_opts_help);
	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], "--project", 9))
			needs |= SCAN_NEED_PROJECT;
	return phase_cmd(argc, argv, ctx, full, needs, check);
}
