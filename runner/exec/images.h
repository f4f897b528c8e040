/* SPDX-License-Identifier: Apache-2.0 */
/*
 * images.h - names of the images crs-ci uses but does not build itself
 *
 * The OSS-Fuzz base images, under the names project Dockerfiles and CRS
 * build files use: pulled from their registries (runner/exec/base_images.c).
 * The offline Debian stand-ins from container/base-images/build.sh have
 * crs-ci's own names, and are used only when asked (--base-images
 * stand-in), never tagged over a real name.
 */
#ifndef CRS_RUNNER_EXEC_IMAGES_H
#define CRS_RUNNER_EXEC_IMAGES_H

/* The runner that reproduces PoVs and that CRS run modules build FROM. */
#define BASE_RUNNER_IMAGE "gcr.io/oss-fuzz-base/base-runner:latest"

/* The stand-ins of base-builder and base-runner (build.sh tags them). */
#define STAND_IN_BUILDER_IMAGE "crs-ci/base-builder:stand-in"
#define STAND_IN_RUNNER_IMAGE "crs-ci/base-runner:stand-in"

#endif
