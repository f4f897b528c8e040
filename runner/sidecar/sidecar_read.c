/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sidecar_read.c - one capped file read from a CRS-writable request folder
 *
 * The folder is the CRS's: nothing is followed or trusted (docs/decisions.md,
 * decision 10); a missing file is the CRS's fault, so CRS_EINPUT.
 */
#include "runner/sidecar/sidecar_read.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <sys/stat.h>

int sidecar_read_capped(int dirfd, const char *name, const char *shown,
			size_t max, struct buf *b, mode_t *mode_out)
{
	struct stat st;
	int r = fs_read_regular_at(b, dirfd, name, shown, max, &st);

	if (r == CRS_ENOTFOUND) {	/* a missing file: a refused request */
		char *msg = xstrdup(crs_error_last());

		r = crs_error_set(CRS_EINPUT, "%s", msg);
		free(msg);
	}
	if (r == 0 && mode_out)
		*mode_out = st.st_mode;
	return r;
}
