/* SPDX-License-Identifier: Apache-2.0 */
/*
 * patch_parse.c - line-numbered checking and splitting of unified diffs
 *
 * One pass that rejects the first malformed line by number, drops mail
 * parts and splits an mbox; libgit2 then parses each section.
 *
 * Details: docs/internals.md.
 */
#include "diff/patch_parse.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QUOTE_MAX 80		/* bytes of input quoted in a message */
#define LINE_NUM_MAX (INT_MAX / 2)

enum pstate {
	P_OUTSIDE,	/* mail header, commit message, garbage */
	P_HEADER,	/* after "diff --git": extended header lines */
	P_EXPECT_HUNK,	/* after "+++": a hunk header must follow */
	P_HUNK,		/* inside a hunk, lines still owed */
	P_AFTER_HUNK,	/* a file's hunk (or binary notice) is complete */
	P_BINARY,	/* "GIT binary patch" data */
	P_SIGNATURE,	/* after a format-patch "-- " line */
};

struct line {
	const char *s;
	size_t len;		/* without '\n' and a trailing '\r' */
	size_t raw;		/* without '\n' */
	int no;			/* 1-based input line */
};

struct parser {
	const char *name;
	const char *p, *end;	/* start of the next unread line */
	int lineno;
	struct diff_patch_split *out;
	struct diff_patch_section *cur;
	enum pstate state;
	int after_hunk;		/* P_AFTER_HUNK follows a hunk (not a notice) */
	int hunk_line;
	char hunk_hdr[QUOTE_MAX + 4];
	long old_want, new_want, old_left, new_left;
	long next_old, next_new;	/* first lines after the last hunk */
	int plus_line;
	char plus[QUOTE_MAX + 4];
	unsigned ext_seen;	/* ext_header_slot() bits of this file */
};

/* --- lines ------------------------------------------------------------- */

static int read_line(struct parser *pp, struct line *l, int advance)
{
	const char *nl;

	if (pp->p >= pp->end)
		return 0;
	nl = memchr(pp->p, '\n', (size_t)(pp->end - pp->p));
	l->s = pp->p;
	l->raw = nl ? (size_t)(nl - pp->p) : (size_t)(pp->end - pp->p);
	l->len = l->raw;
	if (l->len && l->s[l->len - 1] == '\r')
		l->len--;
	l->no = pp->lineno + 1;
	if (advance) {
		pp->p = nl ? nl + 1 : pp->end;
		pp->lineno++;
	}
	return 1;
}

static int starts(const struct line *l, const char *prefix)
{
	size_t n = strlen(prefix);

	return l->len >= n && !memcmp(l->s, prefix, n);
}

static int equals(const struct line *l, const char *s)
{
	return l->len == strlen(s) && !memcmp(l->s, s, l->len);
}

/* A printable copy of at most QUOTE_MAX bytes, "..." when cut. */
static void quote(char *dst, const char *s, size_t n)
{
	size_t i, m = n > QUOTE_MAX ? QUOTE_MAX : n;

	for (i = 0; i < m; i++)
		dst[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	if (m < n)
		memcpy(dst + i, "...", 3), i += 3;
	dst[i] = '\0';
}

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

/* "From <40 or 64 hex> ...": git format-patch's mbox separator. */
static int is_mbox_from(const struct line *l)
{
	size_t n = 0;

	if (!starts(l, "From "))
		return 0;
	while (5 + n < l->len && is_hex(l->s[5 + n]))
		n++;
	return (n == 40 || n == 64) && 5 + n < l->len && l->s[5 + n] == ' ';
}

/* format-patch's signature separator "-- " (some mailers drop the space) */
static int is_signature(const struct line *l)
{
	return equals(l, "-- ") || equals(l, "--");
}

/*
 * The slot (1-based) of an extended header line, or 0 when it is none.
 * Lines that set the same thing share a slot: git writes each slot at
 * most once per file, and libgit2 1.5 leaks the first value of a
 * repeated "rename from"/"copy from" (and "to") instead of refusing it.
 */
static int ext_header_slot(const struct line *l, size_t *prefix_len)
{
	static const struct {
		const char *prefix;
		int slot;
	} h[] = {
		{ "old mode ", 1 }, { "deleted file mode ", 1 },
		{ "new mode ", 2 }, { "new file mode ", 2 },
		{ "copy from ", 3 }, { "rename from ", 3 },
		{ "rename old ", 3 },
		{ "copy to ", 4 }, { "rename to ", 4 }, { "rename new ", 4 },
		{ "similarity index ", 5 }, { "dissimilarity index ", 5 },
		{ "index ", 6 },
	};

	for (size_t i = 0; i < sizeof(h) / sizeof(h[0]); i++)
		if (starts(l, h[i].prefix)) {
			*prefix_len = strlen(h[i].prefix);
			return h[i].slot;
		}
	return 0;
}

/*
 * 1 when the `n` bytes at `s` are a file name as git quotes it: "...",
 * each backslash followed by one of \ \" a b f n r t v or three octal
 * digits (the first 0-3). Trailing blanks are ignored, as libgit2 does.
 */
static int quoted_name_ok(const char *s, size_t n)
{
	while (n && s[n - 1] && strchr(" \t\v\f\r", s[n - 1]))
		n--;
	if (n < 2 || s[0] != '"' || s[n - 1] != '"')
		return 0;
	for (size_t i = 1; i < n - 1; i++) {
		if (s[i] != '\\')
			continue;
		if (i + 1 >= n - 1)
			return 0;
		if (strchr("\\\"abfnrtv", s[i + 1]) && s[i + 1]) {
			i++;
		} else if (s[i + 1] >= '0' && s[i + 1] <= '3' &&
			   i + 3 < n - 1 &&
			   s[i + 2] >= '0' && s[i + 2] <= '7' &&
			   s[i + 3] >= '0' && s[i + 3] <= '7') {
			i += 3;
		} else {
			return 0;
		}
	}
	return 1;
}

/* --- output ------------------------------------------------------------ */

static struct diff_patch_section *section(struct parser *pp)
{
	struct diff_patch_split *o = pp->out;

	if (!pp->cur) {
		ALLOC_GROW(o->v, o->nr + 1, o->alloc);
		pp->cur = &o->v[o->nr++];
		memset(pp->cur, 0, sizeof(*pp->cur));
		buf_init(&pp->cur->text);
	}
	return pp->cur;
}

static void emit(struct parser *pp, const char *s, size_t n, int no)
{
	struct diff_patch_section *sec = section(pp);

	buf_add(&sec->text, s, n);
	buf_addch(&sec->text, '\n');
	ALLOC_GROW(sec->line_of, sec->lines_nr + 1, sec->lines_alloc);
	sec->line_of[sec->lines_nr++] = no;
}

static void emit_line(struct parser *pp, const struct line *l)
{
	emit(pp, l->s, l->raw, l->no);
}

static void emitf(struct parser *pp, int no, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void emitf(struct parser *pp, int no, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	s = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	emit(pp, s, (size_t)n, no);
	free(s);
}

/* --- hunks ------------------------------------------------------------- */

static int parse_num(const char **p, const char *e, long *out)
{
	long v = 0;
	const char *s = *p;

	while (s < e && *s >= '0' && *s <= '9') {
		v = v * 10 + (*s - '0');
		if (v > LINE_NUM_MAX)
			return -1;
		s++;
	}
	if (s == *p)
		return -1;
	*out = v;
	*p = s;
	return 0;
}

static int parse_range(const char **p, const char *e, long *start,
		       long *count)
{
	if (parse_num(p, e, start) != 0)
		return -1;
	*count = 1;
	if (*p < e && **p == ',') {
		(*p)++;
		if (parse_num(p, e, count) != 0)
			return -1;
	}
	return (*count > 0 && *start < 1) ? -1 : 0;
}

/* "@@ -A[,B] +C[,D] @@[ section]": 0, or -1 when malformed. */
static int parse_hunk_header(const struct line *l, long *os, long *oc,
			     long *ns, long *nc)
{
	const char *p = l->s, *e = l->s + l->len;

	if (!starts(l, "@@ -"))
		return -1;
	p += 4;
	if (parse_range(&p, e, os, oc) != 0 || p >= e || *p != ' ')
		return -1;
	while (p < e && *p == ' ')
		p++;
	if (p >= e || *p++ != '+' || parse_range(&p, e, ns, nc) != 0)
		return -1;
	if (e - p < 3 || memcmp(p, " @@", 3) != 0)
		return -1;
	return 0;
}

static long begin_of(long start, long count)
{
	return count ? start : start + 1;
}

static int start_hunk(struct parser *pp, const struct line *l)
{
	long os, oc, ns, nc;
	char q[QUOTE_MAX + 4];

	quote(q, l->s, l->len);
	if (parse_hunk_header(l, &os, &oc, &ns, &nc) != 0)
		return crs_error_set(CRS_EINPUT, "%s:%d: malformed hunk header "
				     "'%s': expected '@@ -START[,COUNT] "
				     "+START[,COUNT] @@'", pp->name, l->no, q);
	if (begin_of(os, oc) < pp->next_old ||
	    begin_of(ns, nc) < pp->next_new)
		return crs_error_set(CRS_EINPUT, "%s:%d: hunk header '%s' "
				     "starts before the end of the previous "
				     "hunk (old line %ld, new line %ld)",
				     pp->name, l->no, q, pp->next_old,
				     pp->next_new);
	pp->next_old = begin_of(os, oc) + oc;
	pp->next_new = begin_of(ns, nc) + nc;
	pp->hunk_line = l->no;
	/* quote only "@@ ... @@", not the function context after it */
	{
		const char *end = memmem(l->s + 3, l->len - 3, " @@", 3);

		quote(pp->hunk_hdr, l->s, (size_t)(end - l->s) + 3);
	}
	pp->old_want = pp->old_left = oc;
	pp->new_want = pp->new_left = nc;
	pp->state = (oc || nc) ? P_HUNK : P_AFTER_HUNK;
	pp->after_hunk = 1;
	emit_line(pp, l);
	return 0;
}

static int hunk_short(struct parser *pp)
{
	long of = pp->old_want - pp->old_left;
	long nf = pp->new_want - pp->new_left;

	if (pp->old_left && pp->new_left)
		return crs_error_set(CRS_EINPUT, "%s:%d: hunk header '%s' "
				     "promises %ld old lines and %ld new "
				     "lines, found %ld and %ld", pp->name,
				     pp->hunk_line, pp->hunk_hdr,
				     pp->old_want, pp->new_want, of, nf);
	if (pp->new_left)
		return crs_error_set(CRS_EINPUT, "%s:%d: hunk header '%s' "
				     "promises %ld new lines, found %ld",
				     pp->name, pp->hunk_line, pp->hunk_hdr,
				     pp->new_want, nf);
	return crs_error_set(CRS_EINPUT, "%s:%d: hunk header '%s' promises "
			     "%ld old lines, found %ld", pp->name,
			     pp->hunk_line, pp->hunk_hdr, pp->old_want, of);
}

static int hunk_extra(struct parser *pp, const struct line *l)
{
	return crs_error_set(CRS_EINPUT, "%s:%d: one line too many for hunk "
			     "header '%s' at line %d, which promises %ld old "
			     "and %ld new lines", pp->name, l->no,
			     pp->hunk_hdr, pp->hunk_line, pp->old_want,
			     pp->new_want);
}

/* "--- X" directly followed by "+++ Y": a plain diff's file header. */
static int plain_file_starts(struct parser *pp, const struct line *l)
{
	struct line next;

	return starts(l, "--- ") && read_line(pp, &next, 0) &&
	       starts(&next, "+++ ");
}

static int in_hunk(struct parser *pp, const struct line *l)
{
	char c = l->len ? l->s[0] : ' ';
	int fits;

	if (l->len && c == '\\') {	/* "\ No newline at end of file" */
		emit_line(pp, l);
		return 0;
	}
	if (!l->len && !(pp->old_left && pp->new_left))
		return hunk_short(pp);	/* a blank line ends a short hunk */
	if (c != ' ' && c != '-' && c != '+')
		return hunk_short(pp);
	fits = c == ' ' ? pp->old_left && pp->new_left :
	       c == '-' ? pp->old_left > 0 : pp->new_left > 0;
	if (!fits) {
		if (c == '-' && (is_signature(l) || plain_file_starts(pp, l)))
			return hunk_short(pp);
		return hunk_extra(pp, l);
	}
	if (c != '+')
		pp->old_left--;
	if (c != '-')
		pp->new_left--;
	if (l->len)
		emit_line(pp, l);
	else	/* an empty context line (editors strip the space) */
		emitf(pp, l->no, " %.*s", (int)l->raw, l->s);
	if (!pp->old_left && !pp->new_left)
		pp->state = P_AFTER_HUNK;
	return 0;
}

/* --- file headers ------------------------------------------------------ */

static void new_file(struct parser *pp, enum pstate state)
{
	pp->state = state;
	pp->after_hunk = 0;
	pp->next_old = pp->next_new = 1;
}

static void git_file(struct parser *pp, const struct line *l)
{
	section(pp);
	emit_line(pp, l);
	new_file(pp, P_HEADER);
	pp->ext_seen = 0;
}

/* A C-style quoted name ("a/my file.c", as GNU diff and git write
 * names with blanks or control bytes), without its quotes. */
static char *unquote(const char *s, size_t n)
{
	static const char esc[] = "a\ab\bt\tn\nv\vf\fr\r\"\"\\\\";
	struct buf b = BUF_INIT;
	size_t i = 1;

	while (i < n && s[i] != '"') {
		const char *e;

		if (s[i] != '\\' || i + 1 >= n) {
			buf_addch(&b, s[i++]);
		} else if (s[i + 1] >= '0' && s[i + 1] <= '7') {
			int v = 0, k;

			for (k = 0, i++; k < 3 && i < n && s[i] >= '0' &&
			     s[i] <= '7'; k++, i++)
				v = v * 8 + (s[i] - '0');
			buf_addch(&b, (char)v);
		} else if (s[i + 1] && (e = strchr(esc, s[i + 1])) != NULL &&
			   (e - esc) % 2 == 0) {
			buf_addch(&b, e[1]);
			i += 2;
		} else {
			buf_addch(&b, s[i + 1]);
			i += 2;
		}
	}
	return buf_detach(&b, NULL);
}

/* The path on a "--- "/"+++ " line of a plain diff: up to a tab. */
static char *plain_path(const char *s, size_t n)
{
	const char *tab;

	if (n && s[0] == '"')
		return unquote(s, n);
	if ((tab = memchr(s, '\t', n)) != NULL)
		n = (size_t)(tab - s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\r'))
		n--;
	return xstrndup(s, n);
}

/* prefix + path, C-quoted the way git does when it has to be. */
static char *git_name(const char *prefix, const char *path)
{
	struct buf b = BUF_INIT;
	const char *p;

	for (p = path; *p; p++)
		if (*p == '"' || *p == '\\' || *p == ' ' ||
		    (unsigned char)*p < 0x20 || *p == 0x7f)
			break;
	if (!*p) {
		buf_printf(&b, "%s%s", prefix, path);
		return buf_detach(&b, NULL);
	}
	buf_printf(&b, "\"%s", prefix);
	for (p = path; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '"' || c == '\\')
			buf_printf(&b, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			buf_printf(&b, "\\%03o", c);
		else
			buf_addch(&b, (char)c);
	}
	buf_addch(&b, '"');
	return buf_detach(&b, NULL);
}

static int is_dev_null(const char *p)
{
	return !strcmp(p, "/dev/null");
}

static const char *after_first_dir(const char *p)
{
	const char *slash = strchr(p, '/');

	return slash && slash[1] ? slash + 1 : NULL;
}

/*
 * Strip the leading directory the way `patch -p1` would, when the two
 * names show one: "a/x" "b/x", "old/src/x" "new/src/x". Names whose
 * first directory is the same ("src/x.orig" "src/x") are kept whole.
 */
static void strip_prefixes(char **old, char **new)
{
	const char *o = is_dev_null(*old) ? NULL : after_first_dir(*old);
	const char *n = is_dev_null(*new) ? NULL : after_first_dir(*new);
	int strip;

	if (!is_dev_null(*old) && !is_dev_null(*new))
		strip = o && n && ((o - *old != n - *new) ||
				   memcmp(*old, *new, (size_t)(o - *old)) ||
				   !strncmp(*old, "a/", 2));
	else
		strip = (o && !strncmp(*old, "a/", 2)) ||
			(n && !strncmp(*new, "b/", 2));
	if (!strip)
		return;
	if (o)
		memmove(*old, o, strlen(o) + 1);
	if (n)
		memmove(*new, n, strlen(n) + 1);
}

/* Both names of a plain diff's file, the shorter when they differ. */
static void plain_names(char **old, char **new)
{
	strip_prefixes(old, new);
	if (is_dev_null(*old) || is_dev_null(*new) || !strcmp(*old, *new))
		return;
	if (strlen(*old) < strlen(*new)) {
		free(*new);
		*new = xstrdup(*old);
	} else {
		free(*old);
		*old = xstrdup(*new);
	}
}

static int plain_file(struct parser *pp, const struct line *minus)
{
	struct line plus, hunk;
	char *old = plain_path(minus->s + 4, minus->len - 4);
	char *new = NULL, *qa, *qb;
	long os = 1, oc = 1, ns = 1, nc = 1;
	int added, deleted;

	read_line(pp, &plus, 1);
	new = plain_path(plus.s + 4, plus.len - 4);
	if (read_line(pp, &hunk, 0) &&
	    parse_hunk_header(&hunk, &os, &oc, &ns, &nc) != 0)
		os = oc = ns = nc = 1;
	/* diff -N marks a missing side with an empty "-0,0" / "+0,0" */
	added = is_dev_null(old) || (os == 0 && oc == 0);
	deleted = !added && (is_dev_null(new) || (ns == 0 && nc == 0));
	plain_names(&old, &new);
	if (added && !is_dev_null(new)) {
		free(old);
		old = xstrdup(new);
	} else if (deleted && !is_dev_null(old)) {
		free(new);
		new = xstrdup(old);
	}
	qa = git_name("a/", old);
	qb = git_name("b/", new);
	section(pp);
	emitf(pp, minus->no, "diff --git %s %s", qa, qb);
	if (added)
		emitf(pp, minus->no, "new file mode 100644");
	if (deleted)
		emitf(pp, minus->no, "deleted file mode 100644");
	emitf(pp, minus->no, "--- %s", added ? "/dev/null" : qa);
	emitf(pp, plus.no, "+++ %s", deleted ? "/dev/null" : qb);
	free(qa);
	free(qb);
	new_file(pp, P_EXPECT_HUNK);
	pp->plus_line = plus.no;
	quote(pp->plus, plus.s, plus.len);
	free(old);
	free(new);
	return 0;
}

/* "Binary files A and B differ" of a plain diff. */
static void plain_binary(struct parser *pp, const struct line *l)
{
	const char *s = l->s + strlen("Binary files ");
	size_t n = l->len - strlen("Binary files ") - strlen(" differ");
	const char *and = memmem(s, n, " and ", 5);
	struct diff_patch_split *o = pp->out;
	char *old, *new;

	if (!and)
		return;
	old = xstrndup(s, (size_t)(and - s));
	new = xstrndup(and + 5, n - (size_t)(and - s) - 5);
	plain_names(&old, &new);
	ALLOC_GROW(o->bin, o->bin_nr + 1, o->bin_alloc);
	o->bin[o->bin_nr].old_path = old;
	o->bin[o->bin_nr].path = new;
	o->bin_nr++;
}

/* --- the state machine ------------------------------------------------- */

static int in_header(struct parser *pp, const struct line *l)
{
	struct line plus;
	char q[QUOTE_MAX + 4];
	size_t plen = 0;
	int slot = ext_header_slot(l, &plen);

	if (starts(l, "diff --git ")) {
		git_file(pp, l);
	} else if (starts(l, "--- ")) {
		if (!read_line(pp, &plus, 0) || !starts(&plus, "+++ "))
			return crs_error_set(CRS_EINPUT, "%s:%d: '---' line is "
					     "not followed by a '+++' line",
					     pp->name, l->no);
		read_line(pp, &plus, 1);
		emit_line(pp, l);
		emit_line(pp, &plus);
		pp->state = P_EXPECT_HUNK;
		pp->plus_line = plus.no;
		quote(pp->plus, plus.s, plus.len);
	} else if (starts(l, "@@")) {
		return crs_error_set(CRS_EINPUT, "%s:%d: hunk header before "
				     "the '---' and '+++' lines of its file",
				     pp->name, l->no);
	} else if (starts(l, "GIT binary patch")) {
		emit_line(pp, l);
		pp->state = P_BINARY;
	} else if (starts(l, "Binary files ")) {
		emit_line(pp, l);
		pp->state = P_AFTER_HUNK;
	} else if (slot) {
		if (pp->ext_seen & (1u << slot)) {
			quote(q, l->s, l->len);
			return crs_error_set(CRS_EINPUT, "%s:%d: '%s' repeats "
					     "a header line of the same file",
					     pp->name, l->no, q);
		}
		/* libgit2 1.5 leaks the name when unquoting fails */
		if ((slot == 3 || slot == 4) && l->len > plen &&
		    l->s[plen] == '"' &&
		    !quoted_name_ok(l->s + plen, l->len - plen)) {
			quote(q, l->s, l->len);
			return crs_error_set(CRS_EINPUT, "%s:%d: '%s': malformed "
					     "quoted file name", pp->name,
					     l->no, q);
		}
		pp->ext_seen |= 1u << slot;
		emit_line(pp, l);
	} else {
		/* a header-only change (mode, rename) ended */
		pp->state = is_signature(l) ? P_SIGNATURE : P_OUTSIDE;
	}
	return 0;
}

static int between(struct parser *pp, const struct line *l)
{
	long a, b, c, d;
	char q[QUOTE_MAX + 4];

	if (pp->state == P_EXPECT_HUNK) {
		if (starts(l, "@@"))
			return start_hunk(pp, l);
		return crs_error_set(CRS_EINPUT, "%s:%d: expected a hunk "
				     "header after '%s' (line %d)", pp->name,
				     l->no, pp->plus, pp->plus_line);
	}
	if (is_mbox_from(l)) {		/* the next mail: a new section */
		pp->cur = NULL;
		pp->state = P_OUTSIDE;
		return 0;
	}
	if (pp->state == P_HEADER)
		return in_header(pp, l);
	if (starts(l, "diff --git ")) {
		git_file(pp, l);
		return 0;
	}
	if (pp->state == P_SIGNATURE)
		return 0;
	if (pp->state != P_OUTSIDE && is_signature(l)) {
		pp->state = P_SIGNATURE;
		return 0;
	}
	if (plain_file_starts(pp, l))
		return plain_file(pp, l);
	if (pp->state == P_BINARY) {
		emit_line(pp, l);
		return 0;
	}
	if (pp->state == P_AFTER_HUNK && pp->after_hunk) {
		if (starts(l, "@@"))
			return start_hunk(pp, l);
		if (starts(l, "\\")) {
			emit_line(pp, l);
			return 0;
		}
		if (l->len && (l->s[0] == '+' || l->s[0] == '-' ||
			       l->s[0] == ' '))
			return hunk_extra(pp, l);
	}
	if (pp->state == P_OUTSIDE && starts(l, "Binary files ") &&
	    l->len > strlen("Binary files  differ") &&
	    !memcmp(l->s + l->len - 7, " differ", 7)) {
		plain_binary(pp, l);
		return 0;
	}
	if (!parse_hunk_header(l, &a, &b, &c, &d)) {
		quote(q, l->s, l->len);
		return crs_error_set(CRS_EINPUT, "%s:%d: hunk header '%s' "
				     "outside a file diff (no '---' and '+++' "
				     "lines before it)", pp->name, l->no, q);
	}
	pp->state = P_OUTSIDE;		/* garbage between files */
	return 0;
}

int diff_patch_split(struct diff_patch_split *out, const char *buf,
		     size_t len, const char *name)
{
	struct parser pp;
	struct line l;
	int r = 0;

	memset(&pp, 0, sizeof(pp));
	pp.name = name ? name : "<diff>";
	pp.p = buf;
	pp.end = buf + len;
	pp.out = out;
	pp.state = P_OUTSIDE;
	while (r == 0 && read_line(&pp, &l, 1))
		r = pp.state == P_HUNK ? in_hunk(&pp, &l) : between(&pp, &l);
	if (r != 0)
		return r;
	if (pp.state == P_HUNK)
		return hunk_short(&pp);
	if (pp.state == P_EXPECT_HUNK)
		return crs_error_set(CRS_EINPUT, "%s:%d: expected a hunk "
				     "header after '%s', found the end of the "
				     "input",
				     pp.name, pp.lineno, pp.plus);
	return 0;
}

void diff_patch_split_release(struct diff_patch_split *ps)
{
	if (!ps)
		return;
	for (size_t i = 0; i < ps->nr; i++) {
		buf_release(&ps->v[i].text);
		free(ps->v[i].line_of);
	}
	for (size_t i = 0; i < ps->bin_nr; i++) {
		free(ps->bin[i].old_path);
		free(ps->bin[i].path);
	}
	free(ps->v);
	free(ps->bin);
	memset(ps, 0, sizeof(*ps));
}

int diff_patch_section_line(const struct diff_patch_section *s,
			    long text_line)
{
	if (!s->lines_nr)
		return 0;
	if (text_line < 1 || (size_t)text_line > s->lines_nr)
		return s->line_of[0];
	return s->line_of[text_line - 1];
}
