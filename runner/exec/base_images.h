/* SPDX-License-Identifier: Apache-2.0 */
/*
 * base_images.h - the base images builds and containers start from
 *
 * Missing base images are pulled before a build or container needs
 * them; --base-images stand-in maps them to the offline stand-ins.
 *
 * Details: docs/base-images.md; design notes: docs/internals.md.
 */
#ifndef CRS_RUNNER_EXEC_BASE_IMAGES_H
#define CRS_RUNNER_EXEC_BASE_IMAGES_H

struct exec_ctx;
struct buf;
struct docker_build_opts;

enum base_images_mode {
	BASE_IMAGES_PULL = 0,		/* the default */
	BASE_IMAGES_STAND_IN = 1,	/* offline: container/base-images */
};

/* "pull" or "stand-in"; CRS_EINPUT naming `what` (the option or the
 * variable) otherwise. */
int base_images_mode_parse(enum base_images_mode *out, const char *s,
			   const char *what);

/*
 * The mode CRS_CI_BASE_IMAGES asks for (pull when unset or empty); an
 * option given on the command line overrides it. CRS_EINPUT when the
 * variable holds something else.
 */
int base_images_mode_from_env(enum base_images_mode *out);

/*
 * Can base images of `mode` build fuzzers with `sanitizer`? 0, or
 * CRS_ECONFIG saying why not: the stand-ins' libFuzzer (Debian's
 * clang-14) links an uninstrumented C++ library, so an MSan fuzzer
 * crashes inside libFuzzer itself before it runs a single input.
 */
int base_images_sanitizer_check(enum base_images_mode mode,
				const char *sanitizer);

#ifdef UNIT_TESTS
/*
 * The stand-in of a known base image reference (any tag or digest of
 * gcr.io/oss-fuzz-base/base-{builder,clang,runner,runner-debug,image}
 * and ghcr.io/aixcc-finals/base-{builder,clang,runner,image}), or NULL.
 * The language builders (base-builder-go, ...) have none. Borrowed.
 */
const char *base_images_stand_in(const char *ref);
#endif

/* The image crs-ci's own containers run in, in this scan's mode (a
 * name; not checked). Borrowed. Cannot fail. */
const char *base_images_runner_name(const struct exec_ctx *x);

/*
 * base_images_runner_name, made ready on first use in this process: a
 * missing stand-in is CRS_EENGINE ("... run container/base-images/
 * build.sh"), a missing real image is pulled (as base_image_ready).
 * *out borrowed.
 */
int base_images_runner(struct exec_ctx *x, const char **out);

/*
 * Make `ref` present: 0 when it is; else pulled, with up to 4 tries
 * spaced 1, 2, 4 s for transient failures (engine connection, HTTP 5xx,
 * the registry unreachable, a stream cut short) while the scan's deadline
 * allows. Errors are one line, "cannot pull <ref>: <reason> (<engine's
 * message>)": CRS_ENOTFOUND (no such image), CRS_EENGINE (unreachable,
 * denied, failed), CRS_EINTR (Ctrl-C), CRS_ECONFIG (a bad config.json).
 */
int base_image_ready(struct exec_ctx *x, const char *ref);

/*
 * Before building bo: read its Dockerfile from bo->context_dir (no link
 * followed, at most 1 MiB), make every base image it names ready (not
 * `scratch`, earlier stages, or images named through crs-ci's own build
 * args or crs-ci's own repositories), and in stand-in mode point
 * bo->dockerfile_text at a copy whose FROM lines name the stand-ins (the
 * text lives in `keep`). Errors as base_image_ready, and CRS_EINPUT for a
 * Dockerfile that cannot be read.
 */
int base_images_for_build(struct exec_ctx *x, struct docker_build_opts *bo,
			  struct buf *keep);

/*
 * What image tags mix in so that a stand-in build never answers for a
 * pull build, nor one FROM an older stand-in for one FROM today's (make
 * base-images rebuilt them: an image tagged by its context alone would
 * otherwise be reused with the old toolchain under it): "" when pulling,
 * else "base-images=stand-in" and the stand-ins' image ids (those the
 * engine lacks say so; the build then fails on them). Made once, into
 * *seed (the scan's state.base_seed, saved with it); borrowed from
 * there. Cannot fail.
 */
const char *base_images_tag_seed(const struct exec_ctx *x, char **seed);

/*
 * After a build FROM the stand-ins failed at its step `step` (the
 * classic builder's "Step N/M", 0: unknown; bo as base_images_for_build
 * left it): when the error's output says apt knows no such package
 * ("Unable to locate package", "has no installation candidate") or the
 * step fetches a .deb, prefix the error with the Dockerfile's line of
 * that step and that the stand-ins are Debian, not Ubuntu: try
 * --base-images pull. Nothing changes otherwise. Cannot fail.
 */
void base_images_explain_failure(const struct docker_build_opts *bo,
				 int step);

#endif
