/* SPDX-License-Identifier: Apache-2.0 */
/*
 * line_hash.c - GitHub's primaryLocationLineHash, as codeql-action's
 * fingerprints.ts computes it, so alerts keep their identity across runs
 */
#include "sarif/line_hash.h"
#include "common/error.h"
#include "common/testable.h"
#include "common/utf8.h"
#include "common/xalloc.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_HASH_BLOCK 100	/* codeql-action's BLOCK_SIZE */
#define LINE_HASH_MOD 37
#define LINE_HASH_EOF 65535

struct line_hasher {
	uint64_t hash, first_mod;
	uint32_t window[LINE_HASH_BLOCK];
	long lines[LINE_HASH_BLOCK];	/* line starting here, or -1 */
	int index;
	long line_no;
	int line_start, prev_cr;
	long want;
	uint64_t *seen;			/* hashes output before `want` */
	size_t seen_nr, seen_alloc;
	int found;
	uint64_t found_hash;
	size_t found_count;
};

static void lh_output(struct line_hasher *h)
{
	uint64_t v = h->hash;

	if (!h->found) {
		if (h->lines[h->index] == h->want) {
			size_t n = 1;

			for (size_t i = 0; i < h->seen_nr; i++)
				n += h->seen[i] == v;
			h->found = 1;
			h->found_hash = v;
			h->found_count = n;
		} else {
			ALLOC_GROW(h->seen, h->seen_nr + 1, h->seen_alloc);
			h->seen[h->seen_nr++] = v;
		}
	}
	h->lines[h->index] = -1;
}

static void lh_update(struct line_hasher *h, uint32_t cur)
{
	uint32_t begin = h->window[h->index];

	h->window[h->index] = cur;
	h->hash = LINE_HASH_MOD * h->hash + cur - h->first_mod * begin;
	h->index = (h->index + 1) % LINE_HASH_BLOCK;
}

static void lh_char(void *ctx, uint32_t cur)
{
	struct line_hasher *h = ctx;

	if (cur == ' ' || cur == '\t' || (h->prev_cr && cur == '\n')) {
		h->prev_cr = 0;
		return;
	}
	if (cur == '\r') {
		cur = '\n';
		h->prev_cr = 1;
	} else {
		h->prev_cr = 0;
	}
	if (h->lines[h->index] != -1)
		lh_output(h);
	if (h->line_start) {
		h->line_start = 0;
		h->lines[h->index] = ++h->line_no;
	}
	if (cur == '\n')
		h->line_start = 1;
	lh_update(h, cur);
}

int sarif_line_hash(char out[40], const char *data, size_t len, int line)
{
	struct line_hasher *h = xcalloc(1, sizeof(*h));
	int r = CRS_ENOTFOUND;

	out[0] = '\0';
	h->first_mod = 1;
	for (int i = 0; i < LINE_HASH_BLOCK; i++) {
		h->first_mod *= LINE_HASH_MOD;
		h->lines[i] = -1;
	}
	h->line_start = 1;
	h->want = line;
	utf8_to_utf16(data, len, lh_char, h);
	lh_char(h, LINE_HASH_EOF);
	for (int i = 0; i < LINE_HASH_BLOCK; i++) {
		if (h->lines[h->index] != -1)
			lh_output(h);
		lh_update(h, 0);
	}
	if (h->found) {
		snprintf(out, 40, "%" PRIx64 ":%zu", h->found_hash,
			 h->found_count);
		r = 0;
	}
	free(h->seen);
	free(h);
	return r;
}
