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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "runner/engine/docker.h"
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

/* Every instruction's line, as the classic builder numbers its steps. */
static void test_step_lines(void **state)
{
	struct dockerfile_froms f = DOCKERFILE_FROMS_INIT;

	(void)state;
	parse_ok(&f, "# syntax=x\nARG B=gcr.io/oss-fuzz-base/base-builder\n"
		 "FROM $B\n\n# comment\nRUN apt-get update && \\\n"
		 "    # inside\n    apt-get install -y x:i386\n"
		 "WORKDIR a\n", NULL);
	assert_int_equal(f.nr_steps, 4);
	assert_int_equal(f.steps[0], 2);
	assert_int_equal(f.steps[1], 3);
	assert_int_equal(f.steps[2], 6);
	assert_int_equal(f.steps[3], 9);
	dockerfile_froms_release(&f);
	assert_null(f.steps);
}

/* The failed build's error, after base_images_explain_failure(). */
static const char *explain(const char *dockerfile, int step, const char *err)
{
	char tmp[] = "/tmp/test_base_images.XXXXXX";
	struct docker_build_opts bo = DOCKER_BUILD_OPTS_INIT;
	char *path;
	static char got[2048];

	assert_non_null(mkdtemp(tmp));
	path = xasprintf("%s/Dockerfile", tmp);
	assert_int_equal(fs_write_file_atomic(path, dockerfile,
					      strlen(dockerfile)), 0);
	bo.context_dir = tmp;
	bo.dockerfile_text = "FROM crs-ci/base-builder:stand-in\n";
	crs_error_set(CRS_EBUILD, "%s", err);
	base_images_explain_failure(&bo, step);
	assert_int_equal(crs_error_code(), CRS_EBUILD);
	snprintf(got, sizeof(got), "%s", crs_error_last());
	fs_remove_tree(tmp);
	free(path);
	return got;
}

static void test_explain_ubuntu_only(void **state)
{
	static const char df[] = "FROM gcr.io/oss-fuzz-base/base-builder\n"
		"RUN apt-get update && apt-get install -y \\\n"
		"    libstdc++-9-dev:i386 make\n"
		"RUN wget http://archive.ubuntu.com/x/libfoo_1_amd64.deb && \\\n"
		"    dpkg -i libfoo_1_amd64.deb\n"
		"RUN make\n";
	const char *got;
	char *want;

	(void)state;
	/* apt knows no such package: the line of step 2, and the hint */
	got = explain(df, 2, "build 'x': The command ... returned a non-zero "
		      "code: 100 (log /w/l)\nlast output:\nStep 2/4 : RUN "
		      "apt-get update ...\nE: Unable to locate package "
		      "libstdc++-9-dev:i386\n");
	assert_non_null(strstr(got, "/Dockerfile:2: this step needs an Ubuntu "
			       "package the offline stand-ins (Debian "
			       "bookworm) lack (E: Unable to locate package "
			       "libstdc++-9-dev:i386); the real base images "
			       "are Ubuntu: try --base-images pull: build 'x': "
			       "The command"));
	/* the build's last lines are kept, as lines */
	assert_non_null(strstr(got, "\nE: Unable to locate package "));
	/* a .deb fetched over the network in the failing step */
	got = explain(df, 3, "build 'x': failed\nlast output:\n404 Not Found");
	assert_non_null(strstr(got, "/Dockerfile:4: this step needs an Ubuntu "
			       "package the offline stand-ins (Debian "
			       "bookworm) lack (it downloads a .deb)"));
	/* any other failure is left as it was */
	want = xstrdup("build 'x': failed\nlast output:\ncc: error: boom");
	assert_string_equal(explain(df, 4, want), want);
	assert_string_equal(explain(df, 0, want), want);
	assert_string_equal(explain(df, 9, want), want);
	free(want);
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
		cmocka_unit_test(test_step_lines),
		cmocka_unit_test(test_explain_ubuntu_only),
		cmocka_unit_test(test_mode_parse),
		cmocka_unit_test(test_sanitizer_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
