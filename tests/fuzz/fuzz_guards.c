/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_guards.c - libFuzzer target: the removed-guard lexer
 * (diff/guards.c, diff_guard_atoms)
 *
 * The removed lines are the pull request's text; the input is a run of
 * them, cut line by line as diff_changeset_weakened_guard does. Every
 * atom must be a non-empty piece of its line's text with no line end:
 * never longer than the line, never read past it.
 */
#include "diff/guards.h"
#include "common/buf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct buf atoms = BUF_INIT;
		size_t nr = diff_guard_atoms(&atoms, p, n), seen = 0;

		for (size_t off = 0; off < atoms.len; seen++) {
			size_t len = strlen(atoms.ptr + off);

			if (!len || len > n ||
			    memchr(atoms.ptr + off, '\n', len))
				abort();
			off += len + 1;
		}
		if (seen != nr)
			abort();
		buf_release(&atoms);
		p += n + 1;
	}
	return 0;
}
