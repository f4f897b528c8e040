/* SPDX-License-Identifier: Apache-2.0 */
/*
 * touched_literals.c - the literals of the functions a change touched
 *
 * A change that edits one bound (`< 6` to `< 2`) adds the literal "2";
 * the inputs that reach its bug need the function's own tokens. This
 * scans the head text of every touched function, then of the functions
 * of the same file it calls, for literals.c's literals.
 */
#include "diff/touched_literals.h"
#include "diff/changeset.h"
#include "diff/func_spans.h"
#include "diff/literals.h"
#include "common/strset.h"
#include "common/xalloc.h"

#include <string.h>

#define CALLEES_PER_FILE_MAX 16 /* callees scanned per file, in file order */

static int is_ident(int c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

/* Offset of the start of 1-based `line` in src, or len past the end. */
static size_t line_offset(const char *src, size_t len, int line)
{
	size_t i = 0;

	for (int n = 1; n < line && i < len; i++)
		if (src[i] == '\n')
			n++;
	return i;
}

/* Scan lines first..last of src into l, one line at a time. */
static void scan_lines(struct diff_literals *l, const char *src, size_t len,
		       int first, int last)
{
	size_t i = line_offset(src, len, first);
	int in_comment = 0;

	for (int n = first; n <= last && i < len; n++) {
		const char *nl = memchr(src + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - src) : len;
		size_t e = end;

		if (e > i && src[e - 1] == '\r')
			e--;
		diff_literals_scan_line(l, src + i, e - i, &in_comment);
		i = end + 1;
	}
}

/* Every name followed by `(` in lines first..last: the calls it makes. */
static void called_names(struct strset *out, const char *src, size_t len,
			  int first, int last)
{
	size_t i = line_offset(src, len, first);
	size_t end = line_offset(src, len, last + 1);
	char name[128];

	while (i < end) {
		size_t k = i, j;

		if (!is_ident((unsigned char)src[i]) ||
		    (i > 0 && is_ident((unsigned char)src[i - 1]))) {
			i++;
			continue;
		}
		while (k < end && is_ident((unsigned char)src[k]))
			k++;
		j = k;
		while (j < end && (src[j] == ' ' || src[j] == '\t'))
			j++;
		if (j < end && src[j] == '(' && k - i < sizeof(name)) {
			memcpy(name, src + i, k - i);
			name[k - i] = '\0';
			strset_add(out, name);
		}
		i = k;
	}
}

/* "parse" of "parse", "ns::Class::parse" and "Outer.parse". */
static const char *simple_name(const char *name)
{
	const char *p = strrchr(name, ':'), *q = strrchr(name, '.');

	if (q && (!p || q > p))
		p = q;
	return p ? p + 1 : name;
}

void diff_touched_literals_scan(struct diff_touched *t, size_t first_fn,
				const char *src, size_t len,
				const struct diff_func_spans *spans)
{
	struct strset calls = STRSET_INIT, mine = STRSET_INIT;
	size_t callees = 0;

	for (size_t i = first_fn; i < t->nr; i++) {
		scan_lines(t->body, src, len, t->v[i].start, t->v[i].end);
		called_names(&calls, src, len, t->v[i].start, t->v[i].end);
		strset_add(&mine, t->v[i].name);
	}
	for (size_t i = 0; i < spans->nr && callees < CALLEES_PER_FILE_MAX;
	     i++) {
		const struct diff_func_span *sp = &spans->v[i];

		if (strset_has(&mine, sp->name) ||
		    !strset_has(&calls, simple_name(sp->name)))
			continue;
		scan_lines(t->callees, src, len, sp->start, sp->end);
		callees++;
	}
	strset_release(&calls);
	strset_release(&mine);
}
