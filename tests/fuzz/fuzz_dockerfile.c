/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_dockerfile.c - libFuzzer target: the Dockerfile FROM reader and
 * rewriter (runner/exec/dockerfile_from.c)
 *
 * The target's and the CRSs' Dockerfiles may come from the pull request;
 * the input is one. What is found must lie in the text, in order; the
 * rewrite of every FROM to one image must read back as that many FROMs
 * of that image, every other byte kept.
 */
#include "runner/exec/dockerfile_from.h"
#include "common/buf.h"
#include "common/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const BUILDARGS[] = { "BASE=base:1", "TAG=v2", NULL };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dockerfile_froms f = DOCKERFILE_FROMS_INIT;
	struct dockerfile_froms again = DOCKERFILE_FROMS_INIT;
	const char *text = (const char *)data;
	const char **images;
	struct buf out = BUF_INIT;
	size_t prev = 0;

	if (dockerfile_froms_parse(&f, text, size, BUILDARGS,
				   "Dockerfile") != 0) {
		crs_error_clear();
		dockerfile_froms_release(&f);
		return 0;
	}
	for (size_t i = 0; i < f.nr; i++) {
		if (f.v[i].start < prev || f.v[i].start > f.v[i].end ||
		    f.v[i].end > size || !f.v[i].line ||
		    (f.v[i].is_scratch && f.v[i].is_stage))
			abort();
		prev = f.v[i].end;
	}
	images = calloc(f.nr ? f.nr : 1, sizeof(*images));
	for (size_t i = 0; i < f.nr; i++)
		images[i] = "registry.test/fuzz:1";
	dockerfile_rewrite(&out, text, size, &f, images);
	if (dockerfile_froms_parse(&again, out.ptr, out.len, NULL,
				   "rewritten") != 0 || again.nr != f.nr)
		abort();
	for (size_t i = 0; i < again.nr; i++)
		if (!again.v[i].image ||
		    strcmp(again.v[i].image, "registry.test/fuzz:1"))
			abort();
	free(images);
	buf_release(&out);
	dockerfile_froms_release(&again);
	dockerfile_froms_release(&f);
	return 0;
}
