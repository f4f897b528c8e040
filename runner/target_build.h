/* SPDX-License-Identifier: Apache-2.0 */
/*
 * target_build.h - crs-ci's own builds of the target at a commit
 */
#ifndef CRS_RUNNER_TARGET_BUILD_H
#define CRS_RUNNER_TARGET_BUILD_H

struct scan;

/* A build (ours or a CRS build step) that runs longer than this failed. */
#define TARGET_BUILD_TIMEOUT_S 1800.0

/*
 * The target image (s->state.target_image) with `commit`'s tree laid over
 * its WORKDIR and the project folder at /OSS_CRS_PROJ_PATH; sets
 * s->state.repo_path. `which` names it in progress lines ("head").
 * *tag_out is the caller's. Cached by the content of the build context.
 */
int target_source_image(struct scan *s, const char *commit, const char *which,
			char **tag_out);

/*
 * Run `compile` in `image` with SANITIZER=sanitizer (address, undefined,
 * memory, coverage) into <work>/builds/<sanitizer>/<which>/out, on the
 * compose's infra cpuset and memory, without network. Skipped when this
 * image was built there before. CRS_EBUILD with the log's tail when the
 * build fails.
 */
int target_compile(struct scan *s, const char *image, const char *sanitizer,
		   const char *which);

#endif
