/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dockerfile_from.h - the FROM lines of a Dockerfile, read and rewritten
 *
 * crs-ci makes the base images of every Dockerfile it builds ready before
 * the build (pulled when missing, or mapped to the offline stand-ins), so
 * it reads which images the FROM lines name: global ARGs and build args
 * substituted as the engine does, `scratch` and earlier stage names told
 * apart. The Dockerfile may come from the pull request: it is parsed from
 * memory, bounded by the caller, and nothing in it is executed.
 */
#ifndef CRS_RUNNER_EXEC_DOCKERFILE_FROM_H
#define CRS_RUNNER_EXEC_DOCKERFILE_FROM_H

#include <stddef.h>

struct buf;

struct dockerfile_from {
	size_t line;		/* 1-based line of the FROM keyword */
	size_t start, end;	/* byte span of the whole instruction */
	char *image;		/* the reference after substitution; NULL
				 * when a variable has no value */
	char *platform;		/* --platform=... as written, or NULL */
	char *stage;		/* the AS name as written, or NULL */
	int own;		/* a build arg crs-ci passed named it */
	int is_stage;		/* names an earlier stage */
	int is_scratch;		/* FROM scratch */
};

struct dockerfile_froms {
	struct dockerfile_from *v;
	size_t nr;
	/* the 1-based line of every instruction, in order: instruction i + 1
	 * is the classic builder's "Step i + 1/M" */
	size_t *steps;
	size_t nr_steps;
};
#define DOCKERFILE_FROMS_INIT { NULL, 0, NULL, 0 }

/*
 * Parse Dockerfile text: comments, line continuations and the escape
 * parser directive are handled. `buildargs` ("KEY=VALUE", NULL-terminated,
 * may be NULL) are the build args crs-ci passes; a FROM whose image comes
 * from one is marked `own`. $NAME, ${NAME} and ${NAME:-word} expand from
 * the global ARGs (those before the first FROM). CRS_EINPUT naming
 * `source` and the line for a FROM without an image; none found is not an
 * error. `out` is reset first; release with dockerfile_froms_release.
 */
int dockerfile_froms_parse(struct dockerfile_froms *out, const char *text,
			   size_t len, const char *const *buildargs,
			   const char *source);
void dockerfile_froms_release(struct dockerfile_froms *f);

/*
 * `text` with FROM number i replaced by "FROM [--platform=..] images[i]
 * [AS stage]" wherever images[i] is not NULL (images has f->nr entries);
 * everything else byte for byte. `out` is reset first. Cannot fail.
 */
void dockerfile_rewrite(struct buf *out, const char *text, size_t len,
			const struct dockerfile_froms *f,
			const char *const *images);

#endif
