/* SPDX-License-Identifier: Apache-2.0 */
/*
 * images.h - names of the images crs-ci uses but does not build itself
 *
 * The OSS-Fuzz base images, under the names project Dockerfiles and CRS
 * build files use. Here they come from container/base-images/ (built from
 * Debian packages); in the field they may be the real ones.
 */
#ifndef CRS_RUNNER_IMAGES_H
#define CRS_RUNNER_IMAGES_H

/* The runner that reproduces PoVs and that CRS run modules build FROM. */
#define BASE_RUNNER_IMAGE "gcr.io/oss-fuzz-base/base-runner:latest"

#endif
