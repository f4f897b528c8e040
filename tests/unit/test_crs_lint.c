/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_crs_lint.c - the libCRS install check of `crs-ci crs check`
 *
 * Dockerfiles are fed as string literals to crslint_dockerfile(); each
 * case asserts the exact problems, file:line:col first. The package-level
 * checks (crs.yaml, paths, links) run on tests/fixtures/crs-broken/ in
 * tests/integration/test_crs_tool.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "runner/config/crs_lint.h"

/* Lint `text` as "df"; the problems joined by newlines into out. */
static size_t lint(const char *text, char *out, size_t outsz)
{
	struct crslint l = CRS_LINT_INIT;
	size_t o = 0, errors;

	out[0] = '\0';
	crslint_dockerfile(&l, text, strlen(text), "df");
	for (size_t i = 0; i < l.nr && o < outsz; i++)
		o += (size_t)snprintf(out + o, outsz - o, "%s%s",
				      i ? "\n" : "", l.items[i].text);
	errors = l.errors;
	crslint_release(&l);
	return errors;
}

static void test_bundled_style_passes(void **state)
{
	char out[2048];

	(void)state;
	assert_int_equal(lint("# a run module\n"
			      "ARG base_runner_image=x\n"
			      "FROM $base_runner_image\n"
			      "\n"
			      "COPY --from=libcrs . /opt/libCRS\n"
			      "RUN /opt/libCRS/install.sh\n"
			      "ENTRYPOINT [\"/run.sh\"]\n", out, sizeof(out)), 0);
	assert_string_equal(out, "");
}

/* OSS-CRS's own CRSs: lower case, another folder, a flag, continuations. */
static void test_oss_crs_variants_pass(void **state)
{
	char out[2048];

	(void)state;
	assert_int_equal(lint("from base AS build\n"
			      "copy --from=libcrs . /libCRS/\n"
			      "run apt-get update && \\\n"
			      "# a comment inside the continuation\n"
			      "    /libCRS/install.sh --cli\n", out,
			      sizeof(out)), 0);
	/* the CLI alone, from the offline oss-crs-deps image */
	assert_int_equal(lint("FROM base\n"
			      "COPY --from=oss-crs-deps /nix/store /nix/store\n"
			      "COPY --from=oss-crs-deps /usr/local/bin/libCRS "
			      "/usr/local/bin/libCRS\n", out, sizeof(out)), 0);
}

static void test_no_install_names_final_from(void **state)
{
	char out[2048];

	(void)state;
	assert_int_equal(lint("ARG img\n"
			      "FROM $img\n"
			      "RUN apt-get install -y \\\n"
			      "    afl++\n"
			      "  ENTRYPOINT [\"x\"]\n", out, sizeof(out)), 1);
	assert_string_equal(out, "df:2:1: the final stage (this FROM) does not "
			    "install libCRS: add `COPY --from=libcrs . "
			    "/opt/libCRS` and `RUN /opt/libCRS/install.sh` "
			    "(contract §4)");
}

static void test_earlier_stage_only(void **state)
{
	char out[2048];

	(void)state;
	assert_int_equal(lint("FROM a AS one\n"
			      "COPY --from=libcrs . /opt/libCRS\n"
			      "RUN /opt/libCRS/install.sh\n"
			      "\n"
			      "   FROM b\n"
			      "COPY --from=one /x /x\n", out, sizeof(out)), 1);
	assert_string_equal(out, "df:5:4: the final stage (this FROM) does not "
			    "install libCRS (an earlier stage does, which the "
			    "image does not keep): add `COPY --from=libcrs . "
			    "/opt/libCRS` and `RUN /opt/libCRS/install.sh` "
			    "(contract §4)");
}

static void test_copy_without_install(void **state)
{
	char out[2048];

	(void)state;
	assert_int_equal(lint("FROM a\n"
			      "RUN /opt/libCRS/install.sh\n"
			      "COPY \\\n"
			      "  --from=libcrs . /opt/libCRS\n"
			      "RUN /other/install.sh\n", out, sizeof(out)), 1);
	assert_string_equal(out, "df:3:1: copies libCRS to /opt/libCRS but no "
			    "later RUN runs /opt/libCRS/install.sh, so the "
			    "libCRS command is not installed");
}

static void test_no_from(void **state)
{
	char out[2048];

	(void)state;
	assert_int_equal(lint("# empty\n\n", out, sizeof(out)), 1);
	assert_string_equal(out, "df:1:1: no FROM instruction");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bundled_style_passes),
		cmocka_unit_test(test_oss_crs_variants_pass),
		cmocka_unit_test(test_no_install_names_final_from),
		cmocka_unit_test(test_earlier_stage_only),
		cmocka_unit_test(test_copy_without_install),
		cmocka_unit_test(test_no_from),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
