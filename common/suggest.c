/* SPDX-License-Identifier: Apache-2.0 */
/*
 * suggest.c - "did you mean" for a mistyped command or option
 *
 * Optimal string alignment distance (Levenshtein plus the swap of two
 * neighbouring letters, the commonest typo), on the stack: names are
 * short. Like git's help_unknown_cmd, only a near name is suggested.
 */
#include "common/suggest.h"
#include "common/testable.h"

#include <string.h>

#define FAR ((size_t)-1)

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

CRS_TESTABLE size_t suggest_edit_distance(const char *a, size_t an,
				    const char *b, size_t bn)
{
	size_t d[SUGGEST_MAX + 1][SUGGEST_MAX + 1];

	if (an > SUGGEST_MAX || bn > SUGGEST_MAX)
		return FAR;
	for (size_t i = 0; i <= an; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= bn; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= an; i++)
		for (size_t j = 1; j <= bn; j++) {
			size_t cost = a[i - 1] != b[j - 1];

			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1,
				       d[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	return d[an][bn];
}

void suggest_init(struct suggest *sg, const char *word)
{
	sg->word = word;
	sg->word_len = strcspn(word, "=");
	sg->best = NULL;
	sg->best_dist = FAR;
}

void suggest_offer(struct suggest *sg, const char *name)
{
	size_t n = sg->word_len;
	size_t allow = n <= 2 ? 0 : n <= 4 ? 1 : n <= 8 ? 2 : 3;
	size_t d;

	if (!name || !*name)
		return;
	d = suggest_edit_distance(sg->word, n, name, strlen(name));
	if (d && d <= allow && d < sg->best_dist) {
		sg->best = name;
		sg->best_dist = d;
	}
}
