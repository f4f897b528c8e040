/* SPDX-License-Identifier: Apache-2.0 */
/*
 * image_strip.h - a `docker save` archive without its base image's layers
 *
 * A derived image's archive carries every layer down to the base image's
 * (hundreds of MB for the OSS-Fuzz builder) though the base can be pulled
 * again. The stripped copy keeps manifest.json, the image config and the
 * layers above the base; `docker load` (the classic image store) reads a
 * layer's file only when the engine lacks that layer chain, so it loads
 * when the base image is present. crs-ci makes the base ready first.
 */
#ifndef CRS_RUNNER_IMAGE_STRIP_H
#define CRS_RUNNER_IMAGE_STRIP_H

#include <stddef.h>

struct strvec;

/*
 * Copy archive `in` to `out` (written as `out`.part, then renamed),
 * leaving out the layer files of every image in it whose diff ids start
 * with all of `base` (a base image's RootFS.Layers). *dropped: how many
 * layer files were left out. CRS_EINPUT for an archive that is not a
 * `docker save` (no manifest.json, a config missing); CRS_ERR for I/O.
 */
int image_strip(const char *in, const char *out, const struct strvec *base,
		size_t *dropped);

#endif
