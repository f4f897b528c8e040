/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_base_images.c - the FROM lines crs-ci reads and rewrites, and the
 * names it maps to the offline stand-ins
 *
 * dockerfile_from.c against Dockerfiles written as projects and CRSs
 * write them (ARG-substituted FROMs, stages, scratch, continuation lines,
 * comments, the escape directive); base_images_stand_in() against the
 * OSS-Fuzz and AIxCC names with any tag or digest.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "runner/exec/base_images.h"
#include "runner/exec/dockerfile_from.h"
#include "runner/exec/images.h"

static void parse_ok(struct dockerfile_froms *f, const char *text,
		     const char *const *buildargs)
{
	assert_int_equal(dockerfile_froms_parse(f, text, strlen(text),
						buildargs, "Dockerfile"), 0);
}

static void test_plain_from(void **state)
{
	struct dockerfile_froms f = DOCKERFILE_FROMS_INIT;

	(void)state;
	parse_ok(&f, "# a project\nFROM gcr.io/oss-fuzz-base/base-builder\n"
		 "RUN apt-get install -y make\nCOPY . $SRC/x\n", NULL);
	assert_int_equal(f.nr, 1);
	assert_string_equal(f.v[0].image, "gcr.io/oss-fuzz-base/base-builder");
	assert_int_equal(f.v[0].line, 2);
	assert_false(f.v[0].own);
	assert_false(f.v[0].is_stage);
	assert_false(f.v[0].is_scratch);
	dockerfile_froms_release(&f);
}

static void test_stages_and_scratch(void **state)
{
	struct dockerfile_froms f = DOCKERFILE_FROMS_INIT;

	(void)state;
	parse_ok(&f, "from --platform=linux/amd64 ghcr.io/aixcc-finals/"
		 "base-builder:v1.2.1 AS Build\nRUN make\n"
		 "FROM build as second\nFROM scratch\n"
		 "COPY --from=second /out /out\n", NULL);
	assert_int_equal(f.nr, 3);
	assert_string_equal(f.v[0].image,
			    "ghcr.io/aixcc-finals/base-builder:v1.2.1");
	assert_string_equal(f.v[0].platform, "--platform=linux/amd64");
	assert_string_equal(f.v[0].stage, "Build");
	assert_true(f.v[1].is_stage);		/* case-insensitive */
	assert_true(f.v[2].is_scratch);
	dockerfile_froms_release(&f);
}

static void test_arg_substitution(void **state)
{
	static const char df[] =
		"ARG base_runner_image=gcr.io/oss-fuzz-base/base-runner:latest\n"
		"ARG target_base_image\n"
		"ARG TAG=\"v1.3.0\"\n"
		"FROM ${base_runner_image} AS run\n"
		"FROM $target_base_image\n"
		"FROM ghcr.io/aixcc-finals/base-runner:${TAG}\n"
		"FROM ${UNSET:-debian:bookworm}\n"
		"FROM $NOT_DECLARED\n"
		"ARG late=x\n";
	static const char *const own[] = {
		"target_base_image=crs-ci-target/p:head", NULL };
	struct dockerfile_froms f = DOCKERFILE_FROMS_INIT;

	(void)state;
	parse_ok(&f, df, own);
	assert_int_equal(f.nr, 5);
	/* the ARG's default: a base image to make ready */
	assert_string_equal(f.v[0].image,
			    "gcr.io/oss-fuzz-base/base-runner:latest");
	assert_false(f.v[0].own);
	/* named by crs-ci's own build arg */
	assert_string_equal(f.v[1].image, "crs-ci-target/p:head");
	assert_true(f.v[1].own);
	assert_string_equal(f.v[2].image,
			    "ghcr.io/aixcc-finals/base-runner:v1.3.0");
	assert_string_equal(f.v[3].image, "debian:bookworm");
	assert_null(f.v[4].image);	/* no value: left to the engine */
	dockerfile_froms_release(&f);
}

static void test_buildarg_overrides_default(void **state)
{
	static const char *const args[] = {
		"base_runner_image=crs-ci/base-runner:stand-in", NULL };
	struct dockerfile_froms f = DOCKERFILE_FROMS_INIT;

	(void)state;
	parse_ok(&f, "ARG base_runner_image=gcr.io/oss-fuzz-base/"
		 "base-runner:latest\nFROM ${base_runner_image}\n", args);
	assert_string_equal(f.v[0].image, STAND_IN_RUNNER_IMAGE);
	assert_true(f.v[0].own);
	dockerfile_froms_release(&f);
}

static void test_continuation_and_escape(void **state)
{
	struct dockerfile_froms f = DOCKERFILE_FROMS_INIT;
	static const char df[] =
		"# escape=`\n"
		"# comment\n"
		"FROM `\n"
		"  # a comment inside\n"
		"  gcr.io/oss-fuzz-base/base-clang `\n"
		"  AS clang\n"
		"RUN echo \\\n";

	(void)state;
	parse_ok(&f, df, NULL);
	assert_int_equal(f.nr, 1);
	assert_int_equal(f.v[0].line, 3);
	assert_string_equal(f.v[0].image, "gcr.io/oss-fuzz-base/base-clang");
	assert_string_equal(f.v[0].stage, "clang");
	dockerfile_froms_release(&f);
}

static void test_from_without_image(void **state)
{
	struct dockerfile_froms f = DOCKERFILE_FROMS_INIT;
	static const char df[] = "RUN x\n\nFROM --platform=linux/amd64\n";

	(void)state;
	assert_int_equal(dockerfile_froms_parse(&f, df, strlen(df), NULL,
						"p/Dockerfile"), CRS_EINPUT);
	assert_string_equal(crs_error_last(),
			    "p/Dockerfile:3: FROM names no image");
	assert_int_equal(f.nr, 0);
}

/* What the engine refuses is refused, before the rewrite could change it. */
static void test_from_shapes_refused(void **state)
{
	static const char *const bad[] = {
		/* a stage name ending in the escape character: rewritten
		 * at a line's end, it joined the next FROM to this one */
		"# escape=`\nFROM a AS b` x\nFROM c\n",
		"FROM a AS b\\\nFROM c\n",
		"FROM a AS 1st\n",
		"FROM a AS b$c\n",
		"FROM a b\n",
		"FROM a AS\n",
		"FROM a AS b c\n",
		"FROM a FROM b\n",
		/* reserved names: "FROM scratch" after this was both a
		 * stage and the empty image (make fuzz) */
		"FROM a AS scratch\nFROM scratch\n",
		"FROM a AS Context\n",
	};
	struct dockerfile_froms f = DOCKERFILE_FROMS_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		if (dockerfile_froms_parse(&f, bad[i], strlen(bad[i]), NULL,
					   "Dockerfile") != CRS_EINPUT)
			fail_msg("accepted: %s", bad[i]);
		assert_non_null(strstr(crs_error_last(), "Dockerfile:"));
		assert_int_equal(f.nr, 0);
		crs_error_clear();
		dockerfile_froms_release(&f);
	}
	parse_ok(&f, "FROM a AS Build-1.x_y\nFROM a as b\n", NULL);
	assert_int_equal(f.nr, 2);
	assert_string_equal(f.v[0].stage, "Build-1.x_y");
	dockerfile_froms_release(&f);
}

static void test_rewrite(void **state)
{
	static const char df[] =
		"ARG b=gcr.io/oss-fuzz-base/base-builder\n"
		"FROM ${b} AS one\n"
		"RUN make \\\n  all\n"
		"FROM --platform=linux/amd64 \\\n"
		"   gcr.io/oss-fuzz-base/base-runner:v9\n"
		"COPY --from=one /out /out\n"
		"FROM debian:bookworm\n";
	struct dockerfile_froms f = DOCKERFILE_FROMS_INIT;
	struct buf out = BUF_INIT;
	const char *images[3];

	(void)state;
	parse_ok(&f, df, NULL);
	assert_int_equal(f.nr, 3);
	images[0] = base_images_stand_in(f.v[0].image);
	images[1] = base_images_stand_in(f.v[1].image);
	images[2] = base_images_stand_in(f.v[2].image);
	assert_null(images[2]);
	dockerfile_rewrite(&out, df, strlen(df), &f, images);
	assert_string_equal(out.ptr,
		"ARG b=gcr.io/oss-fuzz-base/base-builder\n"
		"FROM crs-ci/base-builder:stand-in AS one\n"
		"RUN make \\\n  all\n"
		"FROM --platform=linux/amd64 crs-ci/base-runner:stand-in\n"
		"COPY --from=one /out /out\n"
		"FROM debian:bookworm\n");
	buf_release(&out);
	dockerfile_froms_release(&f);
}

static void test_stand_in_names(void **state)
{
	(void)state;
	assert_string_equal(base_images_stand_in(
		"gcr.io/oss-fuzz-base/base-builder"), STAND_IN_BUILDER_IMAGE);
	assert_string_equal(base_images_stand_in(
		"gcr.io/oss-fuzz-base/base-builder:latest"),
		STAND_IN_BUILDER_IMAGE);
	assert_string_equal(base_images_stand_in(
		"ghcr.io/aixcc-finals/base-builder:v1.2.1"),
		STAND_IN_BUILDER_IMAGE);
	assert_string_equal(base_images_stand_in(
		"gcr.io/oss-fuzz-base/base-clang@sha256:0123"),
		STAND_IN_BUILDER_IMAGE);
	assert_string_equal(base_images_stand_in(
		"gcr.io/oss-fuzz-base/base-runner:latest"),
		STAND_IN_RUNNER_IMAGE);
	assert_string_equal(base_images_stand_in(
		"ghcr.io/aixcc-finals/base-runner:v1.3.0"),
		STAND_IN_RUNNER_IMAGE);
	assert_null(base_images_stand_in("gcr.io/oss-fuzz-base/base-builder-go"));
	assert_null(base_images_stand_in("debian:bookworm"));
	assert_null(base_images_stand_in("gcr.io/oss-fuzz-base/base-builderx"));
	assert_null(base_images_stand_in("evil.io/gcr.io/oss-fuzz-base/"
					 "base-builder"));
}

static void test_mode_parse(void **state)
{
	enum base_images_mode m = BASE_IMAGES_PULL;

	(void)state;
	assert_int_equal(base_images_mode_parse(&m, "stand-in", "x"), 0);
	assert_int_equal(m, BASE_IMAGES_STAND_IN);
	assert_int_equal(base_images_mode_parse(&m, "pull", "x"), 0);
	assert_int_equal(m, BASE_IMAGES_PULL);
	assert_int_equal(base_images_mode_parse(&m, "standin",
						"--base-images"), CRS_EINPUT);
	assert_string_equal(crs_error_last(), "--base-images: 'standin' is "
			    "not one of pull, stand-in");
}

/* MSan needs the real base images: the stand-ins say so, not pretend */
static void test_sanitizer_check(void **state)
{
	(void)state;
	assert_int_equal(base_images_sanitizer_check(BASE_IMAGES_PULL,
						     "memory"), 0);
	assert_int_equal(base_images_sanitizer_check(BASE_IMAGES_STAND_IN,
						     "address"), 0);
	assert_int_equal(base_images_sanitizer_check(BASE_IMAGES_STAND_IN,
						     "undefined"), 0);
	assert_int_equal(base_images_sanitizer_check(BASE_IMAGES_STAND_IN,
						     "memory"), CRS_ECONFIG);
	assert_non_null(strstr(crs_error_last(), "sanitizer 'memory' needs "
			       "the OSS-Fuzz base images (--base-images "
			       "pull)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_from),
		cmocka_unit_test(test_stages_and_scratch),
		cmocka_unit_test(test_arg_substitution),
		cmocka_unit_test(test_buildarg_overrides_default),
		cmocka_unit_test(test_continuation_and_escape),
		cmocka_unit_test(test_from_without_image),
		cmocka_unit_test(test_from_shapes_refused),
		cmocka_unit_test(test_rewrite),
		cmocka_unit_test(test_stand_in_names),
		cmocka_unit_test(test_mode_parse),
		cmocka_unit_test(test_sanitizer_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
