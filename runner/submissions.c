/* SPDX-License-Identifier: Apache-2.0 */
/*
 * submissions.c - walking the CRSs' submit folders after a run
 *
 * Triage (povs/) and validation (patches/) read what containers wrote;
 * this is the one place that walks those folders, so the rules (lstat,
 * regular files only, a size cap) cannot drift apart.
 */
#include "runner/submissions.h"
#include "runner/scan.h"
#include "runner/config/config.h"
#include "common/log.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <stdlib.h>

void submissions_walk(struct scan *s, const char *typedir, off_t max,
		      const char *what, submission_fn fn, void *ctx)
{
	for (size_t i = 0; i < s->compose->crs_nr; i++) {
		const char *crs = s->compose->crs[i].name;

		for (size_t k = 0; k < s->state.harnesses_nr; k++) {
			const char *h = s->state.harnesses[k];
			char *dir = scan_work_path(s, "runs/%s/crs/%s/SUBMIT_DIR/"
						   "%s/%s", s->state.run_id,
						   crs, h, typedir);
			DIR *d = opendir(dir);
			struct dirent *de;

			while (d && (de = readdir(d))) {
				char *p = xasprintf("%s/%s", dir, de->d_name);
				struct stat st;

				if (de->d_name[0] != '.' && lstat(p, &st) == 0 &&
				    S_ISREG(st.st_mode)) {
					if (st.st_size > max)
						log_warn("%s %s from %s is larger "
							 "than %lld bytes; ignored",
							 what, de->d_name, crs,
							 (long long)max);
					else
						fn(p, &st, i, h, ctx);
				}
				free(p);
			}
			if (d)
				closedir(d);
			free(dir);
		}
	}
}
