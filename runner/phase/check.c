/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check.c - the check phase: say that the configs the scan opened are valid
 *
 * scan_open has already loaded crs-compose.yaml, each CRS's crs.yaml and
 * (with --project, or when the source has .clusterfuzzlite/) the project
 * folder, and made the checks OSS-CRS never made (config_check); any
 * error stopped it with a file:line:column message. This phase only
 * prints what was found valid, and which layout the project folder has.
 */
#include "runner/phase/phase.h"
#include "runner/scan/ctx.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/config/config.h"
#include "runner/config/project_layout.h"
#include "common/log.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

int phase_check(struct scan *s, int *exit_code_out)
{
	char q[PATH_MAX * 4 + 8];

	*exit_code_out = 0;
	fprintf(s->ctx->out, "%s: valid (%zu CRS(s))\n", s->opts->compose,
		s->compose->crs_nr);
	if (s->project)
		fprintf(s->ctx->out, "%s: valid %s, project \"%s\"\n",
			log_quote(q, sizeof(q), s->where.dir,
				  strlen(s->where.dir)),
			project_layout_name(s->where.layout), s->where.name);
	return 0;
}
