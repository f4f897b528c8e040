/* SPDX-License-Identifier: Apache-2.0 */
/*
 * guards.c - does a change remove or weaken a guard?
 *
 * Each removed line of a C, C++ or Java file is cut into atoms (its
 * comparisons with their operands, its conditions, the names it calls,
 * a #define's text), spaces and comments dropped; an atom found in no
 * added line of the same file is a weakened guard (guards.h). The lines
 * are the pull request's text: nothing here trusts a length, and the
 * work is bounded by the patch's own size.
 */
#include "diff/guards.h"
#include "diff/changeset.h"
#include "diff/func_spans.h"
#include "diff/patch_walk.h"
#include "common/buf.h"
#include "common/testable.h"
#include "common/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define GUARD_TEXT_MAX 120

static int is_ident(int c)
{
	return isalnum(c) || c == '_';
}

/*
 * `line` without comments, and without spaces but one between two names
 * ("goto out;"), into `out`; string and character literals are kept as
 * they are (a block comment that starts on the line ends it; a line that
 * continues one, " * ...", is dropped whole).
 */
static void normalise(struct buf *out, const char *line, size_t len)
{
	size_t i = 0;
	int space = 0;
	char quote = 0;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i < len && line[i] == '*')
		return;
	for (; i < len; i++) {
		char c = line[i];

		if (!c)		/* a NUL: a space */
			c = ' ';
		if (quote) {
			buf_addch(out, c);
			if (c == '\\' && i + 1 < len && line[i + 1])
				buf_addch(out, line[++i]);
			else if (c == quote)
				quote = 0;
			continue;
		}
		if (c == '/' && i + 1 < len &&
		    (line[i + 1] == '/' || line[i + 1] == '*'))
			break;
		if (isspace((unsigned char)c)) {
			space = 1;
			continue;
		}
		if (space && out->len && is_ident((unsigned char)c) &&
		    is_ident((unsigned char)out->ptr[out->len - 1]))
			buf_addch(out, ' ');
		space = 0;
		if (c == '"' || c == '\'')
			quote = c;
		buf_addch(out, c);
	}
}

/* The index of the bracket matching the one at s[i] (scanning `dir`,
 * +1 or -1), or -1 when the line ends first. */
static long match_bracket(const char *s, size_t n, long i, int dir)
{
	char open = s[i], close = dir > 0 ? (open == '(' ? ')' : ']') :
		(open == ')' ? '(' : '[');
	int depth = 0;

	for (; i >= 0 && (size_t)i < n; i += dir) {
		if (s[i] == open)
			depth++;
		else if (s[i] == close && --depth == 0)
			return i;
	}
	return -1;
}

/* The index of the quote that ends the literal opening at s[i] (or the
 * line's last index). */
static size_t literal_end(const char *s, size_t n, size_t i)
{
	for (size_t k = i + 1; k < n; k++) {
		if (s[k] == '\\')
			k++;
		else if (s[k] == s[i])
			return k;
	}
	return n - 1;
}

/* The length of the arithmetic operator (+ - * / % ^, a single & or |,
 * << or >>) that ends at s[i] (scanning back), or 0. */
static size_t arith_before(const char *s, long i)
{
	char c = s[i], prev = i > 0 ? s[i - 1] : 0;

	if (strchr("+-*/%^", c))
		return 1;
	if ((c == '&' || c == '|') && prev != c)
		return 1;
	if ((c == '<' || c == '>') && prev == c)
		return 2;
	return 0;
}

/* The same, starting at s[i] (scanning forward). */
static size_t arith_after(const char *s, size_t n, size_t i)
{
	char c = s[i], next = i + 1 < n ? s[i + 1] : 0;

	if (strchr("+-*/%^", c) && next != '=')
		return 1;
	if ((c == '&' || c == '|') && next != c && next != '=')
		return 1;
	if ((c == '<' || c == '>') && next == c)
		return 2;
	return 0;
}

/*
 * The start of the operand that ends right before s[end]: names, member
 * accesses, calls, subscripts, casts and the arithmetic between them.
 */
static size_t operand_before(const char *s, size_t end)
{
	long i = (long)end - 1;

	while (i >= 0) {
		if (is_ident((unsigned char)s[i]) || s[i] == '.')
			i--;
		else if (s[i] == '>' && i > 0 && s[i - 1] == '-')
			i -= 2;
		else if (arith_before(s, i))
			i -= (long)arith_before(s, i);
		else if (s[i] == '"' || s[i] == '\'') {	/* a literal */
			long k = i - 1;

			while (k >= 0 && s[k] != s[i])
				k--;
			if (k < 0)
				break;
			i = k - 1;
		}
		else if (s[i] == ')' || s[i] == ']') {
			long m = match_bracket(s, end, i, -1);

			if (m < 0)
				break;
			i = m - 1;
		} else
			break;
	}
	return (size_t)(i + 1);
}

/* The end of the operand that starts at s[start] (operand_before's kinds,
 * and a sign or dereference first). */
static size_t operand_after(const char *s, size_t n, size_t start)
{
	size_t i = start;

	if (i < n && (s[i] == '-' || s[i] == '!' || s[i] == '*' ||
		      s[i] == '&'))
		i++;
	while (i < n) {
		if (is_ident((unsigned char)s[i]) || s[i] == '.')
			i++;
		else if (s[i] == '-' && i + 1 < n && s[i + 1] == '>')
			i += 2;
		else if (arith_after(s, n, i))
			i += arith_after(s, n, i);
		else if (s[i] == '"' || s[i] == '\'')	/* a literal */
			i = literal_end(s, n, i) + 1;
		else if (s[i] == '(' || s[i] == '[') {
			long m = match_bracket(s, n, (long)i, 1);

			if (m < 0)
				break;
			i = (size_t)m + 1;
		} else
			break;
	}
	return i;
}

/* The length of the comparison operator at s[i], or 0 when there is none
 * (->, <<, >>, <<=, >>= are not comparisons). */
static size_t comparison_at(const char *s, size_t n, size_t i)
{
	char c = s[i], next = i + 1 < n ? s[i + 1] : 0;
	char prev = i ? s[i - 1] : 0;

	if ((c == '=' || c == '!') && next == '=')
		return prev == '=' || prev == '<' || prev == '>' ||
			prev == '!' ? 0 : 2;
	if (c != '<' && c != '>')
		return 0;
	if (prev == '<' || prev == '>' || next == '<' || next == '>' ||
	    (c == '>' && prev == '-'))
		return 0;
	return next == '=' ? 2 : 1;
}

static void add_atom(struct buf *atoms, const char *s, size_t len,
		     size_t *nr)
{
	if (!len)
		return;
	buf_add(atoms, s, len);
	buf_addch(atoms, '\0');
	(*nr)++;
}

/* The condition after "if(", "while(" or "assert(" at s[i], when it has
 * no comparison of its own (those are atoms already). */
static void condition_atom(struct buf *atoms, const char *s, size_t n,
			   size_t open, size_t *nr)
{
	long close = match_bracket(s, n, (long)open, 1);
	size_t end = close < 0 ? n : (size_t)close;

	for (size_t k = open + 1; k < end; k++)
		if (comparison_at(s, end, k))
			return;
	add_atom(atoms, s + open + 1, end - open - 1, nr);
}

/* Calls whose arguments are sizes: their whole text is an atom. */
static const char *const sized_calls[] = {
	"malloc", "calloc", "realloc", "alloca", "memcpy", "memmove",
	"memset", "strncpy", "strncat", "snprintf", "vsnprintf", "fread",
	"read", NULL
};

/* 1 when the `len` bytes at s are one of the NULL-ended `names`. */
static int one_of(const char *const *names, const char *s, size_t len)
{
	for (size_t k = 0; names[k]; k++)
		if (strlen(names[k]) == len && !memcmp(names[k], s, len))
			return 1;
	return 0;
}

/* The text from s[from] to the bracket matching s[open] (or the line's
 * end), as one atom. */
static void bracket_atom(struct buf *atoms, const char *s, size_t n,
			 size_t from, size_t open, size_t *nr)
{
	long close = match_bracket(s, n, (long)open, 1);
	size_t end = close < 0 ? n : (size_t)close + 1;

	add_atom(atoms, s + from, end - from, nr);
}

/* A jump ("goto x;", "return ...;", "break;", "continue;") at s[i]: its
 * length to the ';' inclusive, else 0. */
static size_t jump_at(const char *s, size_t n, size_t i)
{
	static const char *const jumps[] = {
		"goto", "return", "break", "continue", NULL
	};
	const char *semi;

	if (i > 0 && is_ident((unsigned char)s[i - 1]))
		return 0;
	for (size_t k = 0; jumps[k]; k++) {
		size_t len = strlen(jumps[k]);

		if (n - i >= len && !memcmp(s + i, jumps[k], len) &&
		    (i + len == n || !is_ident((unsigned char)s[i + len])) &&
		    (semi = memchr(s + i, ';', n - i)))
			return (size_t)(semi - (s + i)) + 1;
	}
	return 0;
}

/* "if", "while" or an assert: what follows is a condition */
static int is_condition(const char *s, size_t len)
{
	return (len == 2 && !memcmp(s, "if", 2)) ||
		(len == 5 && !memcmp(s, "while", 5)) ||
		(len >= 6 && !strncasecmp(s, "assert", 6));
}

static const char *const keywords[] = {
	"if", "while", "for", "switch", "return", "sizeof", "case", NULL
};

CRS_TESTABLE size_t diff_guard_atoms(struct buf *atoms, const char *line,
				     size_t len)
{
	struct buf norm = BUF_INIT;
	const char *s;
	size_t n, nr = 0;

	normalise(&norm, line, len);
	s = norm.ptr ? norm.ptr : "";
	n = norm.len;
	if (n > 8 && !memcmp(s, "#define ", 8)) {
		add_atom(atoms, s, n, &nr);
		buf_release(&norm);
		return nr;
	}
	if (n && s[0] == '#') {	/* #include <x.h> and the like */
		buf_release(&norm);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		size_t op, jump;

		if (s[i] == '"' || s[i] == '\'') {	/* a literal: skipped */
			i = literal_end(s, n, i);
			continue;
		}
		op = comparison_at(s, n, i);
		jump = jump_at(s, n, i);
		if (op) {
			size_t from = operand_before(s, i);
			size_t to = operand_after(s, n, i + op);

			add_atom(atoms, s + from, to - from, &nr);
			i += op - 1;
		} else if (jump) {
			add_atom(atoms, s + i, jump, &nr);
		} else if (s[i] == '[' && i > 0 && i + 1 < n &&
			   s[i + 1] != ']') {
			/* a subscript or an array's size */
			bracket_atom(atoms, s, n, i, i, &nr);
		} else if (s[i] == '(' && i > 0 &&
			   is_ident((unsigned char)s[i - 1])) {
			size_t from = i, len;

			while (from > 0 && is_ident((unsigned char)s[from - 1]))
				from--;
			len = i - from;
			if (len == 3 && !memcmp(s + from, "for", 3))
				bracket_atom(atoms, s, n, from, i, &nr);
			else if (is_condition(s + from, len))
				condition_atom(atoms, s, n, i, &nr);
			else if (one_of(sized_calls, s + from, len))
				bracket_atom(atoms, s, n, from, i, &nr);
			else if (!one_of(keywords, s + from, len))
				add_atom(atoms, s + from, len + 1, &nr);
		}
	}
	buf_release(&norm);
	return nr;
}

void diff_guard_release(struct diff_guard *g)
{
	free(g->path);
	free(g->text);
	memset(g, 0, sizeof(*g));
}

/* 1 when every atom of `atoms` (nr of them) is in `added`. */
static int atoms_kept(const struct buf *atoms, const char *added)
{
	for (size_t off = 0; off < atoms->len;) {
		const char *a = atoms->ptr + off;

		if (!strstr(added, a))
			return 0;
		off += strlen(a) + 1;
	}
	return 1;
}

static void note_guard(struct diff_guard *out, const git_diff_delta *d,
		       const git_diff_line *dl)
{
	const char *s = dl->content;
	size_t n = diff_patch_line_len(dl);

	out->nr++;
	if (out->path)
		return;
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	out->path = xstrdup(d->old_file.path ? d->old_file.path :
			    d->new_file.path);
	out->line = dl->old_lineno;
	out->text = xstrndup(s, n > GUARD_TEXT_MAX ? GUARD_TEXT_MAX : n);
}

/*
 * One hunk of one file: on the first pass, its added lines normalised
 * into `added`; on the second, each removed line's atoms looked for in
 * all of the file's.
 */
static int scan_hunk(struct diff_guard *out, git_patch *p, size_t h,
		     int pass, struct buf *added)
{
	const git_diff_delta *d = git_patch_get_delta(p);
	const git_diff_hunk *hk;
	size_t nl = 0;

	if (git_patch_get_hunk(&hk, &nl, p, h) != 0)
		return diff_patch_git_fail("reading a diff hunk");
	for (size_t i = 0; i < nl; i++) {
		const git_diff_line *dl;
		struct buf atoms = BUF_INIT;

		if (git_patch_get_line_in_hunk(&dl, p, h, i) != 0)
			return diff_patch_git_fail("reading a diff line");
		if (!pass && dl->origin == GIT_DIFF_LINE_ADDITION) {
			normalise(added, dl->content, diff_patch_line_len(dl));
			buf_addch(added, '\n');
		}
		if (!pass || dl->origin != GIT_DIFF_LINE_DELETION)
			continue;
		if (diff_guard_atoms(&atoms, dl->content, diff_patch_line_len(dl)) &&
		    !atoms_kept(&atoms, added->ptr))
			note_guard(out, d, dl);
		buf_release(&atoms);
	}
	return 0;
}

/* One file of the change (a diff_patch_walk callback). */
static int scan_file(git_patch *p, void *arg)
{
	const git_diff_delta *d = git_patch_get_delta(p);
	size_t hunks = git_patch_num_hunks(p);
	struct buf added = BUF_INIT;
	int r = 0;

	if ((d->flags & GIT_DIFF_FLAG_BINARY) || !d->old_file.path ||
	    diff_lang_of_path(d->old_file.path) == DIFF_LANG_NONE)
		return 0;
	buf_addch(&added, '\n');
	for (int pass = 0; pass < 2 && r == 0; pass++)
		for (size_t h = 0; h < hunks && r == 0; h++)
			r = scan_hunk(arg, p, h, pass, &added);
	buf_release(&added);
	return r;
}

int diff_changeset_weakened_guard(struct diff_guard *out,
				  const struct diff_changeset *cs)
{
	int r;

	memset(out, 0, sizeof(*out));
	if ((r = diff_patch_walk(cs, scan_file, out)) != 0) {
		diff_guard_release(out);
		return r;
	}
	return out->nr ? 1 : 0;
}
