/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crs_lint.h - a CRS package checked against the OSS-CRS contract
 *
 * What `crs-ci crs check DIR` reports and `crs-ci crs test DIR` checks
 * first: crs.yaml through the loader every scan uses (crs_manifest.c),
 * then what a package must also have (contract §2, §4): Dockerfiles that
 * are regular files inside the package, libCRS installed in every image,
 * build steps with outputs, run modules. The package is the author's
 * (trusted) code; nothing here starts a container.
 */
#ifndef CRS_RUNNER_CONFIG_CRS_LINT_H
#define CRS_RUNNER_CONFIG_CRS_LINT_H

#include <stddef.h>

struct manifest;

struct crslint_problem {
	int is_error;		/* 0: a warning */
	char *text;		/* "file:line:col: message" */
};

struct crslint {
	struct crslint_problem *items;
	size_t nr, alloc;
	size_t errors, warnings;
	/* the parsed crs.yaml, or NULL when it did not parse */
	struct manifest *manifest;
};
#define CRS_LINT_INIT { 0 }

/*
 * Lint the package whose root is `dir` (the folder holding oss-crs/).
 * Every problem found is added to `out` (a crs.yaml that does not parse
 * gives only its first error). Returns 0 when there is no error
 * (warnings allowed), CRS_ECONFIG when out->errors > 0. Messages show
 * paths as `dir` joined with the package-relative path.
 */
int crslint_run(struct crslint *out, const char *dir);
void crslint_release(struct crslint *l);

#ifdef UNIT_TESTS
/*
 * Check one Dockerfile's text (`name` is used in messages): its final
 * stage installs libCRS (`COPY --from=libcrs . /opt/libCRS` then
 * `RUN /opt/libCRS/install.sh`, or a COPY of the libCRS binary as from
 * OSS-CRS's oss-crs-deps image). Problems are added to `out`.
 */
void crslint_dockerfile(struct crslint *out, const char *buf, size_t len,
			const char *name);
#endif

#endif
