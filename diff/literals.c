/* SPDX-License-Identifier: Apache-2.0 */
/*
 * literals.c - string, character and comparison constants of added lines
 *
 * A line lexer, not a parser: it skips comments and #include lines,
 * decodes "..." and '...' literals (C escapes, \x, octal, \u), and keeps
 * a number only when a comparison operator or `case` sits next to it.
 * The lines are the pull request's text: nothing here trusts a length,
 * a literal longer than DIFF_LITERAL_LEN_MAX is dropped and at most
 * DIFF_LITERALS_MAX are kept. Knows nothing of where the lines go.
 */
#include "diff/literals.h"
#include "diff/changeset.h"
#include "diff/func_spans.h"
#include "diff/patch_walk.h"
#include "common/buf.h"
#include "common/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_ident(int c)
{
	return isalnum(c) || c == '_';
}

/* "\xNN" for everything a dictionary line cannot hold as it is. */
static void add_escaped(struct buf *b, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			buf_addch(b, (char)c);
		else
			buf_printf(b, "\\x%02X", c);
	}
}

static void add_literal(struct diff_literals *l, enum diff_literal_kind kind,
			const char *bytes, size_t len, int64_t value)
{
	struct buf key = BUF_INIT;
	struct diff_literal *lit;

	if (len > DIFF_LITERAL_LEN_MAX) {
		l->dropped++;
		return;
	}
	buf_addch(&key, kind == DIFF_LIT_NUMBER ? 'n' : 's');
	add_escaped(&key, bytes, len);
	if (strset_has(&l->seen, key.ptr)) {
		buf_release(&key);
		return;
	}
	if (l->nr >= DIFF_LITERALS_MAX) { /* the set stops growing too */
		l->dropped++;
		buf_release(&key);
		return;
	}
	strset_add(&l->seen, key.ptr);
	buf_release(&key);
	ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	lit = &l->v[l->nr++];
	lit->kind = kind;
	lit->bytes = xmalloc(len + 1);
	memcpy(lit->bytes, bytes, len);
	lit->bytes[len] = '\0';
	lit->len = len;
	lit->value = value;
}

/* --- comparisons --------------------------------------------------------- */

static size_t skip_back(const char *s, size_t i, const char *skip)
{
	while (i > 0 && strchr(skip, s[i - 1]) && s[i - 1])
		i--;
	return i;
}

/* 1 when the text before position `i` ends in a comparison or `case`. */
static int cmp_before(const char *s, size_t i)
{
	char a, b;

	i = skip_back(s, i, " \t(");
	if (i == 0)
		return 0;
	a = s[i - 1];
	b = i >= 2 ? s[i - 2] : '\0';
	if (a == '=') { /* == != <= >=, not = += <<= >>= */
		if (b == '=' || b == '!')
			return 1;
		return (b == '<' || b == '>') && !(i >= 3 && s[i - 3] == b);
	}
	if (a == '<' || a == '>') /* not << >> -> */
		return b != a && !(a == '>' && b == '-');
	return i >= 4 && !memcmp(s + i - 4, "case", 4) &&
	       (i == 4 || !is_ident((unsigned char)s[i - 5]));
}

/* 1 when the text from position `i` starts with a comparison. */
static int cmp_after(const char *s, size_t len, size_t i)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i + 1 < len && (s[i] == '=' || s[i] == '!') && s[i + 1] == '=')
		return 1;
	if (i < len && (s[i] == '<' || s[i] == '>'))
		return !(i + 1 < len && s[i + 1] == s[i]);
	return 0;
}

/* --- literals ------------------------------------------------------------ */

static size_t hex_digits(const char *s, size_t len, size_t i, size_t max,
			 unsigned long *v)
{
	size_t n = 0;

	*v = 0;
	while (i + n < len && n < max && isxdigit((unsigned char)s[i + n])) {
		char c = s[i + n];
		int d = isdigit((unsigned char)c) ?
				c - '0' :
				tolower((unsigned char)c) - 'a' + 10;

		*v = *v * 16 + (unsigned long)d;
		n++;
	}
	return n;
}

static void add_utf8(struct buf *b, unsigned long cp)
{
	if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		cp = '?';
	if (cp < 0x80) {
		buf_addch(b, (char)cp);
	} else if (cp < 0x800) {
		buf_addch(b, (char)(0xc0 | cp >> 6));
		buf_addch(b, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		buf_addch(b, (char)(0xe0 | cp >> 12));
		buf_addch(b, (char)(0x80 | (cp >> 6 & 0x3f)));
		buf_addch(b, (char)(0x80 | (cp & 0x3f)));
	} else {
		buf_addch(b, (char)(0xf0 | cp >> 18));
		buf_addch(b, (char)(0x80 | (cp >> 12 & 0x3f)));
		buf_addch(b, (char)(0x80 | (cp >> 6 & 0x3f)));
		buf_addch(b, (char)(0x80 | (cp & 0x3f)));
	}
}

/*
 * Decode the literal opened by the quote at s[i] into `out` (at most
 * DIFF_LITERAL_LEN_MAX + 1 bytes are kept: enough to know it is too
 * long). Returns the index after the closing quote, or 0 when the line
 * ends first.
 */
static size_t decode(struct buf *out, const char *s, size_t len, size_t i)
{
	char q = s[i++];
	unsigned long v;
	size_t n;

	buf_reset(out);
	while (i < len && s[i] != q) {
		char c = s[i++];

		if (c == '\\' && i < len) {
			c = s[i++];
			switch (c) {
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case 'r':
				c = '\r';
				break;
			case 'a':
				c = '\a';
				break;
			case 'b':
				c = '\b';
				break;
			case 'f':
				c = '\f';
				break;
			case 'v':
				c = '\v';
				break;
			case 'x':
				n = hex_digits(s, len, i, 2, &v);
				i += n;
				c = n ? (char)v : 'x';
				break;
			case 'u':
			case 'U':
				n = hex_digits(s, len, i, c == 'u' ? 4 : 8, &v);
				i += n;
				if (out->len <= DIFF_LITERAL_LEN_MAX)
					add_utf8(out, n ? v : '?');
				continue;
			default:
				if (c >= '0' && c <= '7') {
					v = (unsigned long)(c - '0');
					for (n = 0; n < 2 && i < len &&
						    s[i] >= '0' && s[i] <= '7';
					     n++)
						v = v * 8 +
						    (unsigned long)(s[i++] -
								    '0');
					c = (char)v;
				}
			}
		}
		if (out->len <= DIFF_LITERAL_LEN_MAX)
			buf_addch(out, c);
	}
	return i < len ? i + 1 : 0;
}

/* A number token: its value, or -1 when it is not an integer. */
static int parse_int(const char *tok, size_t len, int neg, int64_t *out)
{
	char clean[96];
	size_t n = 0, k;
	unsigned long long v;
	char *end;
	int hex = len > 1 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X');

	for (size_t i = 0; i < len; i++) {
		if (tok[i] == '\'' || tok[i] == '_')
			continue;
		if (tok[i] == '.' ||
		    (!hex && (tok[i] == 'e' || tok[i] == 'E')) ||
		    (hex && (tok[i] == 'p' || tok[i] == 'P')) ||
		    n + 1 >= sizeof(clean))
			return -1;
		clean[n++] = tok[i];
	}
	while (n > 0 && strchr("uUlLzZ", clean[n - 1]))
		n--;
	clean[n] = '\0';
	if (!n)
		return -1;
	errno = 0;
	if (n > 2 && clean[0] == '0' && (clean[1] == 'b' || clean[1] == 'B')) {
		for (k = 2, v = 0;
		     k < n && (clean[k] == '0' || clean[k] == '1'); k++)
			v = v << 1 | (unsigned long long)(clean[k] - '0');
		if (k != n || n > 66)
			return -1;
	} else {
		v = strtoull(clean, &end, 0);
		if (errno || *end)
			return -1;
	}
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* The number at s[i]: kept when it is compared; returns its end. */
static size_t number(struct diff_literals *l, const char *s, size_t len,
		     size_t i)
{
	size_t start = i, j;
	int neg = 0, cmp;
	int64_t v = 0;
	char *text;

	while (i < len &&
	       (is_ident((unsigned char)s[i]) || s[i] == '.' ||
		(s[i] == '\'' && i + 1 < len &&
		 isxdigit((unsigned char)s[i + 1])) ||
		((s[i] == '+' || s[i] == '-') && strchr("eEpP", s[i - 1]))))
		i++;
	j = skip_back(s, start, " \t");
	if (j > 0 && s[j - 1] == '-') {
		size_t k = skip_back(s, j - 1, " \t");

		neg = k == 0 || !(is_ident((unsigned char)s[k - 1]) ||
				  s[k - 1] == ')' || s[k - 1] == ']');
	}
	cmp = cmp_before(s, neg ? j - 1 : start) || cmp_after(s, len, i);
	/* x == 0, n < 1: every change has them, and they are no magic */
	if (!cmp || parse_int(s + start, i - start, neg, &v) != 0 || v == 0 ||
	    v == 1)
		return i;
	l->comparisons++;
	text = xasprintf("%s%.*s", neg ? "-" : "", (int)(i - start), s + start);
	add_literal(l, DIFF_LIT_NUMBER, text, strlen(text), v);
	free(text);
	return i;
}

void diff_literals_scan_line(struct diff_literals *l, const char *s, size_t len,
			     int *in_comment)
{
	struct buf lit = BUF_INIT;
	size_t i = 0, end;

	while (i < len) {
		unsigned char c = (unsigned char)s[i];

		if (*in_comment) {
			while (i + 1 < len && !(s[i] == '*' && s[i + 1] == '/'))
				i++;
			if (i + 1 >= len)
				break;
			*in_comment = 0;
			i += 2;
		} else if (c == '/' && i + 1 < len && s[i + 1] == '/') {
			break;
		} else if (c == '/' && i + 1 < len && s[i + 1] == '*') {
			*in_comment = 1;
			i += 2;
		} else if (c == '#') {
			size_t k = i + 1;

			while (k < len && (s[k] == ' ' || s[k] == '\t'))
				k++;
			if (len - k >= 7 && !memcmp(s + k, "include", 7))
				break;
			i = k;
		} else if (c == '"' || c == '\'') {
			if ((end = decode(&lit, s, len, i)) == 0)
				break; /* unterminated: not a literal */
			if (c == '\'' && lit.len && lit.ptr[0] &&
			    (cmp_before(s, i) || cmp_after(s, len, end)))
				l->comparisons++; /* not c != '\0' */
			if (lit.len)
				add_literal(l,
					    c == '"' ? DIFF_LIT_STRING :
						       DIFF_LIT_CHAR,
					    lit.ptr, lit.len, 0);
			i = end;
		} else if (isdigit(c) || (c == '.' && i + 1 < len &&
					  isdigit((unsigned char)s[i + 1]))) {
			i = number(l, s, len, i);
		} else if (is_ident(c)) {
			while (i < len && is_ident((unsigned char)s[i]))
				i++;
		} else {
			i++;
		}
	}
	buf_release(&lit);
}

/* --- from a ChangeSet ---------------------------------------------------- */

static int scan_patch(git_patch *p, void *arg)
{
	struct diff_literals *l = arg;
	const git_diff_delta *d = git_patch_get_delta(p);
	size_t hunks = git_patch_num_hunks(p);

	if ((d->flags & GIT_DIFF_FLAG_BINARY) || !d->new_file.path ||
	    diff_lang_of_path(d->new_file.path) == DIFF_LANG_NONE)
		return 0;
	for (size_t h = 0; h < hunks; h++) {
		const git_diff_hunk *hk;
		size_t nl = 0;
		int in_comment = 0;

		if (git_patch_get_hunk(&hk, &nl, p, h) != 0)
			return diff_patch_git_fail("reading a diff hunk");
		for (size_t i = 0; i < nl; i++) {
			const git_diff_line *dl;

			if (git_patch_get_line_in_hunk(&dl, p, h, i) != 0)
				return diff_patch_git_fail("reading a diff "
							   "line");
			if (dl->origin != GIT_DIFF_LINE_ADDITION) {
				in_comment = 0;
				continue;
			}
			diff_literals_scan_line(l, dl->content,
						diff_patch_line_len(dl),
						&in_comment);
		}
	}
	return 0;
}

int diff_changeset_literals(struct diff_literals *out,
			    const struct diff_changeset *cs)
{
	return diff_patch_walk(cs, scan_patch, out);
}

/* --- the dictionary -------------------------------------------------------- */

static void dict_entry(struct buf *b, struct strset *seen, const char *bytes,
		       size_t len)
{
	struct buf line = BUF_INIT;

	buf_addch(&line, '"');
	add_escaped(&line, bytes, len);
	buf_adds(&line, "\"\n");
	if (strset_add(seen, line.ptr))
		buf_add(b, line.ptr, line.len);
	buf_release(&line);
}

static void dict_number(struct buf *b, struct strset *seen,
			const struct diff_literal *lit)
{
	uint64_t u = (uint64_t)lit->value;
	char dec[32], le[8], be[8];
	size_t w = 8;

	dict_entry(b, seen, lit->bytes, lit->len);
	snprintf(dec, sizeof(dec), "%lld", (long long)lit->value);
	dict_entry(b, seen, dec, strlen(dec));
	if (lit->value > 0 && lit->len > 2 && lit->bytes[0] == '0' &&
	    (lit->bytes[1] == 'x' || lit->bytes[1] == 'X')) {
		/* the hex digits alone, as text formats spell them (\uFEFF,
		 * %7F, &#x41;), in both cases */
		snprintf(dec, sizeof(dec), "%llX", (unsigned long long)u);
		dict_entry(b, seen, dec, strlen(dec));
		snprintf(dec, sizeof(dec), "%llx", (unsigned long long)u);
		dict_entry(b, seen, dec, strlen(dec));
	}
	if (lit->value >= -128 && lit->value <= 255)
		w = 1;
	else if (lit->value >= -32768 && lit->value <= 65535)
		w = 2;
	else if (lit->value >= INT32_MIN && lit->value <= (int64_t)UINT32_MAX)
		w = 4;
	for (size_t k = 0; k < w; k++) {
		le[k] = (char)(u >> (8 * k) & 0xff);
		be[w - 1 - k] = le[k];
	}
	dict_entry(b, seen, le, w);
	dict_entry(b, seen, be, w);
}

char *diff_literals_dict(const struct diff_literals *const *sets, size_t n)
{
	struct strset seen = STRSET_INIT;
	struct buf b = BUF_INIT;

	for (size_t k = 0; k < n; k++) {
		const struct diff_literals *l = sets[k];

		for (size_t i = 0; l && i < l->nr; i++) {
			if (l->v[i].kind == DIFF_LIT_NUMBER)
				dict_number(&b, &seen, &l->v[i]);
			else
				dict_entry(&b, &seen, l->v[i].bytes,
					   l->v[i].len);
		}
	}
	strset_release(&seen);
	if (!b.len) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

void diff_literals_release(struct diff_literals *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nr; i++)
		free(l->v[i].bytes);
	free(l->v);
	strset_release(&l->seen);
	memset(l, 0, sizeof(*l));
}
