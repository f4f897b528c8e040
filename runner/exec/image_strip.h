/* SPDX-License-Identifier: Apache-2.0 */
/*
 * image_strip.h - per-image archives from one `docker save`, without the
 * base images' layers
 *
 * One `docker save` of several images, split into one archive per
 * image holding only its layers above the base.
 *
 * Details: docs/cache.md; design notes: docs/internals.md.
 */
#ifndef CRS_RUNNER_EXEC_IMAGE_STRIP_H
#define CRS_RUNNER_EXEC_IMAGE_STRIP_H

#include <stddef.h>

struct strvec;

struct image_part {
	const char *tag;		/* a RepoTag of the image in the save */
	const struct strvec *base;	/* the base's diff ids, lowest first */
	const char *out;		/* the archive to write */
	size_t dropped;			/* out: base layers left out */
};

/*
 * Write parts[i].out (each as `out`.part, then renamed) from the
 * `docker save` archive `in`: the image tagged parts[i].tag, without the
 * layers of parts[i].base when its diff ids start with all of them (a
 * layer file that a kept layer links to stays). CRS_EINPUT for an archive
 * that is not a `docker save` (no manifest.json, a tag or config
 * missing); CRS_ERR for I/O. On error no `out` is written.
 */
int image_split(const char *in, struct image_part *parts, size_t nr);

#endif
