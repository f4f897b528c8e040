/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_lcov.c - libFuzzer target: the lcov export reader
 * (runner/scan/coverage.c, coverage_parse_lcov, coverage_repo_relative)
 *
 * The coverage build is the pull request's code, and the replay writes
 * its lcov export in a folder that container can write: the input is
 * that file. An accepted export must be what the selection relies on:
 * files sorted and unique, each file's lines ascending and unique, and
 * every path mapped into the repository or refused.
 */
#include "runner/scan/coverage.h"
#include "common/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A path the mapping gives is inside the repository, normalised. */
static void check_path(const char *path)
{
	char *rel = coverage_repo_relative(path, "/src/proj");
	size_t n = rel ? strlen(rel) : 0;

	if (rel && (rel[0] == '/' || !strcmp(rel, "..") ||
		    !strncmp(rel, "../", 3) || strstr(rel, "/../") ||
		    (n >= 3 && !strcmp(rel + n - 3, "/..")) ||
		    strstr(rel, "//")))
		abort();
	free(rel);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct coverage *c = NULL;

	if (coverage_parse_lcov(&c, (const char *)data, size,
				"coverage.lcov") != 0) {
		crs_error_clear();
		return 0;
	}
	for (size_t f = 0; f < c->nr; f++) {
		const struct coverage_file *cf = &c->files[f];

		if (f && strcmp(c->files[f - 1].path, cf->path) >= 0)
			abort();
		for (size_t i = 0; i < cf->lines_nr; i++)
			if ((i && cf->lines[i - 1] >= cf->lines[i]) ||
			    cf->hit[i] > 1)
				abort();
		check_path(cf->path);
	}
	coverage_free(c);
	return 0;
}
