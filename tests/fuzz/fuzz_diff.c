/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_diff.c - libFuzzer target: the unified-diff parser (diff/)
 *
 * A pull request's diff, or a patch a CRS proposes, is parsed with
 * diff_changeset_from_patch() (diff_patch_split() plus libgit2's buffer
 * parser). The input is the diff itself; every file of a parsed change
 * is then queried through the line map, whose results must stay in range.
 */
#include "diff/changeset.h"
#include "common/error.h"

#include <git2.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	git_libgit2_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diff_changeset *cs = NULL;

	if (diff_changeset_from_patch(&cs, (const char *)data, size,
				      "fuzz.diff") == 0) {
		for (size_t i = 0; i < cs->nr; i++) {
			const struct diff_file *f = &cs->files[i];

			for (int line = 0; line < 64; line++) {
				int b = diff_file_base_line(f, line);
				int h = diff_file_head_line(f, line);

				if (b < 0 || h < 0)
					abort();
				(void)diff_file_changed(f, line);
				(void)diff_changeset_touches(cs, f->path, line);
			}
			(void)diff_changeset_file(cs, f->path);
		}
	}
	crs_error_clear();
	diff_changeset_free(cs);
	return 0;
}
