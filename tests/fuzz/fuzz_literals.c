/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_literals.c - libFuzzer target: the added lines' literal extractor
 * of directed fuzzing (diff/literals.c)
 *
 * The added lines are the pull request's text; the input is a run of
 * them, scanned line by line as diff_changeset_literals does. What is
 * kept must respect its bounds, and the dictionary made of it must be
 * one quoted, printable line per entry (it is a fuzzer's input file).
 * The same text, as a whole C file, goes through the touched-function
 * scanner (diff/touched_literals.c) with its first function touched.
 */
#include "diff/changeset.h"
#include "diff/func_spans.h"
#include "diff/literals.h"
#include "diff/touched_literals.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_dict(const char *dict)
{
	const char *line = dict;

	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);

		if (!nl || n < 2 || line[0] != '"' || line[n - 1] != '"')
			abort();
		for (size_t i = 0; i < n; i++)
			if (line[i] < 0x20 || line[i] > 0x7e)
				abort();
		for (size_t i = 1; i + 1 < n; i++)
			if (line[i] == '"' ||
			    (line[i] == '\\' && line[i + 1] != 'x'))
				abort();
		line = nl + 1;
	}
}

/* The input as a C file whose first function the change touched. */
static void scan_as_file(const char *src, size_t len)
{
	struct diff_literals body = DIFF_LITERALS_INIT,
			     callees = DIFF_LITERALS_INIT;
	struct diff_func_spans *s = diff_func_spans_scan(src, len,
							 DIFF_LANG_C);
	struct diff_touched_fn fn;
	struct diff_touched t = { &fn, 0, 1, &body, &callees };
	const struct diff_literals *sets[] = { &body, &callees };
	char *dict;

	if (s->nr) {
		fn.path = (char *)"x.c";
		fn.name = s->v[0].name;
		fn.start = s->v[0].start;
		fn.end = s->v[0].end;
		fn.changed = 1;
		t.nr = 1;
	}
	diff_touched_literals_scan(&t, 0, src, len, s);
	if (body.nr > DIFF_LITERALS_MAX || callees.nr > DIFF_LITERALS_MAX)
		abort();
	if ((dict = diff_literals_dict(sets, 2)) != NULL)
		check_dict(dict);
	free(dict);
	diff_literals_release(&body);
	diff_literals_release(&callees);
	diff_func_spans_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diff_literals l = DIFF_LITERALS_INIT;
	const char *p = (const char *)data, *end = p + size;
	int in_comment = 0;
	const struct diff_literals *lits;
	char *dict;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		diff_literals_scan_line(&l, p, n, &in_comment);
		p += n + (nl != NULL);
	}
	if (l.nr > DIFF_LITERALS_MAX)
		abort();
	for (size_t i = 0; i < l.nr; i++)
		if (l.v[i].len > DIFF_LITERAL_LEN_MAX ||
		    l.v[i].bytes[l.v[i].len] != '\0')
			abort();
	lits = &l;
	if ((dict = diff_literals_dict(&lits, 1)) != NULL)
		check_dict(dict);
	free(dict);
	diff_literals_release(&l);
	scan_as_file((const char *)data, size);
	return 0;
}
