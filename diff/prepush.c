/* SPDX-License-Identifier: Apache-2.0 */
/*
 * prepush.c - parse a pre-push hook's ref lines; their ChangeSets
 *
 * The input comes from git, but the hook may be fed by anything: every
 * field is checked and a bad line is named by number. Ref names are kept
 * as given (git already validated them); messages quote at most a short,
 * printable prefix of a bad field.
 */
#include "diff/prepush.h"
#include "diff/changeset.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define SRC "pre-push input"
#define QUOTE_MAX 70

static void quote(char *dst, const char *s, size_t n)
{
	size_t i, m = n > QUOTE_MAX ? QUOTE_MAX : n;

	for (i = 0; i < m; i++)
		dst[i] = (s[i] > 0x20 && s[i] < 0x7f) ? s[i] : '?';
	if (m < n)
		memcpy(dst + i, "...", 3), i += 3;
	dst[i] = '\0';
}

/* An oid field (`n` bytes) into out, lowercased: its length, or < 0. */
static int parse_oid(char *out, const char *s, size_t n, int lineno,
		     const char *what)
{
	char q[QUOTE_MAX + 4];
	size_t i = 0;

	if (n == 40 || n == 64)
		for (; i < n; i++) {
			char c = s[i];

			if (c >= 'A' && c <= 'F')
				c = (char)(c - 'A' + 'a');
			if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
				break;
			out[i] = c;
		}
	if (!n || i != n) {
		quote(q, s, n);
		return crs_error_set(CRS_EINPUT, SRC ":%d: %s '%s' is not 40 "
				     "or 64 hex digits", lineno, what, q);
	}
	out[n] = '\0';
	return (int)n;
}

static int all_zero(const char *oid)
{
	return oid[strspn(oid, "0")] == '\0';
}

static int parse_line(struct diff_prepush_ref *ref, const char *s, size_t n,
		      int lineno)
{
	const char *f[4], *p = s, *e = s + n;
	size_t fl[4], nf = 0;
	int a, b;

	for (;;) {	/* git separates the fields with single spaces */
		const char *sp = memchr(p, ' ', (size_t)(e - p));
		size_t l = sp ? (size_t)(sp - p) : (size_t)(e - p);

		if (nf < 4) {
			f[nf] = p;
			fl[nf] = l;
		}
		nf++;
		if (!sp)
			break;
		p = sp + 1;
	}
	if (nf != 4 || !fl[0] || !fl[1] || !fl[2] || !fl[3])
		return crs_error_set(CRS_EINPUT, SRC ":%d: expected '<local "
				     "ref> <local oid> <remote ref> <remote "
				     "oid>' separated by single spaces, found "
				     "%zu field%s", lineno, nf,
				     nf == 1 ? "" : "s");
	if ((a = parse_oid(ref->local_oid, f[1], fl[1], lineno,
			   "local oid")) < 0)
		return a;
	if ((b = parse_oid(ref->remote_oid, f[3], fl[3], lineno,
			   "remote oid")) < 0)
		return b;
	if (a != b)
		return crs_error_set(CRS_EINPUT, SRC ":%d: local oid has %d "
				     "hex digits but remote oid %d", lineno,
				     a, b);
	ref->local_ref = xstrndup(f[0], fl[0]);
	ref->remote_ref = xstrndup(f[2], fl[2]);
	ref->is_new = all_zero(ref->remote_oid);
	ref->is_delete = all_zero(ref->local_oid);
	return 0;
}

int diff_prepush_parse(const char *buf, size_t len, struct diff_prepush **out)
{
	struct diff_prepush *p = xcalloc(1, sizeof(*p));
	const char *s = buf, *end = buf + len;
	int lineno = 0, r = 0;

	*out = NULL;
	while (s < end && r == 0) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);

		lineno++;
		if (n && s[n - 1] == '\r')
			n--;
		if (n) {
			ALLOC_GROW(p->v, p->nr + 1, p->alloc);
			memset(&p->v[p->nr], 0, sizeof(p->v[p->nr]));
			if ((r = parse_line(&p->v[p->nr], s, n, lineno)) == 0)
				p->nr++;
		}
		s = nl ? nl + 1 : end;
	}
	if (r != 0) {
		diff_prepush_free(p);
		return r;
	}
	*out = p;
	return 0;
}

void diff_prepush_free(struct diff_prepush *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr; i++) {
		free(p->v[i].local_ref);
		free(p->v[i].remote_ref);
	}
	free(p->v);
	free(p);
}
