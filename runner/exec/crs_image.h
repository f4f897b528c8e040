/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crs_image.h - building a CRS's images, tagged by content hash
 */
#ifndef CRS_RUNNER_EXEC_CRS_IMAGE_H
#define CRS_RUNNER_EXEC_CRS_IMAGE_H

/* the scan, not an exec_ctx: its head image and libcrs tag */
struct scan;
struct compose_crs;

/*
 * Build (or reuse) the image of one CRS Dockerfile: a build step's
 * builder ("builder") or a run module's image ("runner"). The tag is
 * crs-ci-<kind>/<crs>-<name>:<12 hex> over the CRS folder's content, the
 * Dockerfile path, the libCRS bundle it may copy and, when
 * `target_dependent`, the head image and the
 * base runner (passed as the build args target_base_image and
 * base_runner_image, as OSS-CRS does). *tag_out is the caller's.
 */
int crs_image_build(struct scan *s, const struct compose_crs *c,
		 const char *kind, const char *name, const char *dockerfile,
		 int target_dependent, char **tag_out);

#endif
