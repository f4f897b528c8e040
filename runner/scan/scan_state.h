/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scan_state.h - what the phases of a scan hand each other (scan.json)
 *
 * The data alone, so that code which reads the project, the image tags
 * or the harness list (runner/exec/crs_env.c) takes it without the
 * whole scan (runner/scan/scan.h: scan_open, scan_state_save).
 */
#ifndef CRS_RUNNER_SCAN_SCAN_STATE_H
#define CRS_RUNNER_SCAN_SCAN_STATE_H

#include <stddef.h>

struct scan_kv {
	char *key;
	char *value;
};

/* What phases hand each other, saved as scan.json in the work dir. */
struct scan_state {
	char *project;		/* OSS-Fuzz project name */
	char *sanitizer;	/* the one the scan builds with */
	char *language;
	char *head_commit;	/* commit whose tree was built */
	char *base_commit;	/* merge-base, NULL in full mode */
	char *target_image;	/* project Dockerfile's image */
	char *head_image;	/* target image with the head source laid in */
	char *base_image;	/* the same with the base source; NULL if none */
	char *repo_path;	/* WORKDIR of the target image, e.g. /src/x */
	char *run_id;		/* the last run phase's id */
	char **harnesses;	/* found in the head build */
	size_t harnesses_nr;
	struct scan_kv *images;	/* "<crs>/<module>" -> image tag */
	size_t images_nr;
	char *base_seed;	/* base_images_tag_seed()'s, once made */
};

#endif
