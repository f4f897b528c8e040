/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dockerfile_from.c - find and rewrite the FROM lines of a Dockerfile
 *
 * A small reader of the Dockerfile grammar, enough for FROM and the global
 * ARGs it may use: parser directives (escape), comments, continuation
 * lines, then FROM [--flag..] image [AS name]. Rewriting replaces only the
 * spans of FROM instructions, so every other byte reaches the engine as
 * the author wrote it.
 */
#include "runner/exec/dockerfile_from.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A global ARG: name, default (NULL when none). */
struct df_arg {
	char *name;
	char *value;
};

struct df_args {
	struct df_arg *v;
	size_t nr, alloc;
};

static void df_args_release(struct df_args *a)
{
	for (size_t i = 0; i < a->nr; i++) {
		free(a->v[i].name);
		free(a->v[i].value);
	}
	free(a->v);
}

/* The value of build arg `name` (borrowed), or NULL. */
static const char *df_buildarg(const char *const *buildargs, const char *name,
			       size_t n)
{
	for (; buildargs && *buildargs; buildargs++)
		if (!strncmp(*buildargs, name, n) && (*buildargs)[n] == '=')
			return *buildargs + n + 1;
	return NULL;
}

static const struct df_arg *df_arg_find(const struct df_args *a,
					const char *name, size_t n)
{
	for (size_t i = a->nr; i-- > 0;)
		if (strlen(a->v[i].name) == n &&
		    !strncmp(a->v[i].name, name, n))
			return &a->v[i];
	return NULL;
}

static int df_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/*
 * Substitute $NAME, ${NAME} and ${NAME:-word} in `w` from the global ARGs
 * (a build arg overrides a declared ARG's default, and sets *own). NULL
 * when a variable has no value or the syntax is not understood.
 */
static char *df_expand(const char *w, const struct df_args *args,
		       const char *const *buildargs, char escape, int *own)
{
	struct buf b = BUF_INIT;

	while (*w) {
		const char *name, *dflt = NULL, *val;
		size_t n, dn = 0;
		const struct df_arg *a;

		if (*w == escape && w[1] == '$') {
			buf_addch(&b, '$');
			w += 2;
			continue;
		}
		if (*w != '$') {
			buf_addch(&b, *w++);
			continue;
		}
		w++;
		if (*w == '{') {
			const char *close = strchr(w, '}');

			if (!close)
				goto bad;
			name = w + 1;
			for (n = 0; df_name_char(name[n]); n++)
				;
			if (name + n != close) {
				if (strncmp(name + n, ":-", 2))
					goto bad;
				dflt = name + n + 2;
				dn = (size_t)(close - dflt);
			}
			w = close + 1;
		} else {
			name = w;
			for (n = 0; df_name_char(name[n]); n++)
				;
			w += n;
		}
		if (!n)
			goto bad;
		a = df_arg_find(args, name, n);
		val = a ? df_buildarg(buildargs, name, n) : NULL;
		if (val)
			*own = 1;
		else if (a)
			val = a->value;
		if (val && *val)
			buf_adds(&b, val);
		else if (dflt && dn)
			buf_add(&b, dflt, dn);
		else
			goto bad;
	}
	if (!b.len)
		goto bad;
	return buf_detach(&b, NULL);
bad:
	buf_release(&b);
	return NULL;
}

/* Drop one pair of surrounding quotes. */
static char *df_unquote(const char *s)
{
	size_t n = strlen(s);

	if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0])
		return xstrndup(s + 1, n - 2);
	return xstrdup(s);
}

static void df_arg_line(struct df_args *a, const struct strvec *words)
{
	for (size_t i = 1; i < words->nr; i++) {
		const char *w = words->v[i], *eq = strchr(w, '=');

		ALLOC_GROW(a->v, a->nr + 1, a->alloc);
		a->v[a->nr].name = eq ? xstrndup(w, (size_t)(eq - w)) :
			xstrdup(w);
		a->v[a->nr++].value = eq ? df_unquote(eq + 1) : NULL;
	}
}

/*
 * A stage name as the engine takes it (^[a-z][a-z0-9-_.]*$ once lower
 * cased): one the rewrite can write back as it was read, since no escape
 * character, quote or '$' can be in it.
 */
static int df_stage_name_ok(const char *s)
{
	if (!isalpha((unsigned char)*s))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("-_.", *s))
			return 0;
	return 1;
}

static int df_from_line(struct dockerfile_froms *out, size_t *alloc,
			const struct strvec *words, const struct df_args *args,
			const char *const *buildargs, char escape,
			size_t line, size_t start, size_t end,
			const char *source)
{
	struct dockerfile_from f = { .line = line, .start = start,
				     .end = end };
	size_t i = 1;

	for (; i < words->nr && !strncmp(words->v[i], "--", 2); i++)
		if (!strncasecmp(words->v[i], "--platform=", 11)) {
			free(f.platform);
			f.platform = xstrdup(words->v[i]);
		}
	if (i == words->nr) {
		free(f.platform);
		return crs_error_set(CRS_EINPUT, "%s:%zu: FROM names no image",
				     source, line);
	}
	/* the engine's rule: "image" or "image AS name", nothing else */
	if (i + 1 != words->nr && (i + 3 != words->nr ||
				   strcasecmp(words->v[i + 1], "as"))) {
		free(f.platform);
		return crs_error_set(CRS_EINPUT, "%s:%zu: FROM takes an image "
				     "and at most \"AS name\"", source, line);
	}
	if (i + 3 == words->nr && !df_stage_name_ok(words->v[i + 2])) {
		free(f.platform);
		return crs_error_set(CRS_EINPUT, "%s:%zu: a stage name is a "
				     "letter, then letters, digits, '-', '_' "
				     "or '.'", source, line);
	}
	/* BuildKit reserves these: a stage called "scratch" would make a
	 * later FROM scratch both a stage and the empty image */
	if (i + 3 == words->nr && (!strcasecmp(words->v[i + 2], "scratch") ||
				   !strcasecmp(words->v[i + 2], "context"))) {
		free(f.platform);
		return crs_error_set(CRS_EINPUT, "%s:%zu: \"%s\" is a reserved "
				     "stage name", source, line,
				     words->v[i + 2]);
	}
	f.image = df_expand(words->v[i], args, buildargs, escape, &f.own);
	if (i + 3 == words->nr)
		f.stage = xstrdup(words->v[i + 2]);
	if (f.image) {
		f.is_scratch = !strcasecmp(f.image, "scratch");
		for (size_t k = 0; k < out->nr; k++)
			if (out->v[k].stage &&
			    !strcasecmp(out->v[k].stage, f.image))
				f.is_stage = 1;
	}
	ALLOC_GROW(out->v, out->nr + 1, *alloc);
	out->v[out->nr++] = f;
	return 0;
}

/* Split an instruction into blank-separated words. */
static void df_split(struct strvec *words, const char *s)
{
	while (*s) {
		size_t n;

		while (isspace((unsigned char)*s))
			s++;
		for (n = 0; s[n] && !isspace((unsigned char)s[n]); n++)
			;
		if (n) {
			char *w = xstrndup(s, n);

			strvec_push(words, w);
			free(w);
		}
		s += n;
	}
}

/* A parser directive line "# escape=`" sets the escape character. */
static int df_directive(const char *p, const char *end, char *escape)
{
	p++;	/* '#' */
	while (p < end && isblank((unsigned char)*p))
		p++;
	if (end - p >= 6 && !strncasecmp(p, "escape", 6)) {
		p += 6;
		while (p < end && isblank((unsigned char)*p))
			p++;
		if (p < end && *p == '=') {
			p++;
			while (p < end && isblank((unsigned char)*p))
				p++;
			if (p < end && (*p == '`' || *p == '\\'))
				*escape = *p;
			return 1;
		}
	}
	/* other directives (syntax=, check=) are key=value too */
	for (const char *q = p; q < end; q++) {
		if (*q == '=')
			return q > p;
		if (!isalnum((unsigned char)*q))
			return 0;
	}
	return 0;
}

int dockerfile_froms_parse(struct dockerfile_froms *out, const char *text,
			   size_t len, const char *const *buildargs,
			   const char *source)
{
	struct df_args args = { NULL, 0, 0 };
	struct buf logical = BUF_INIT;
	struct strvec words = STRVEC_INIT;
	size_t pos = 0, line = 1, alloc = 0, steps_alloc = 0;
	char escape = '\\';
	int directives = 1, seen_from = 0, r = 0;

	dockerfile_froms_release(out);
	while (pos < len && r == 0) {
		const char *eol = memchr(text + pos, '\n', len - pos);
		size_t le = eol ? (size_t)(eol - text) : len;
		size_t s = pos, start, start_line = line, end;

		while (s < le && isspace((unsigned char)text[s]))
			s++;
		if (s < le && text[s] == '#') {
			if (directives)
				directives = df_directive(text + s, text + le,
							  &escape);
			pos = le + 1;
			line++;
			continue;
		}
		directives = 0;
		if (s == le) {
			pos = le + 1;
			line++;
			continue;
		}
		/* one instruction, over continuation lines */
		start = s;
		buf_reset(&logical);
		for (;;) {
			size_t e = le;

			while (e > s && isspace((unsigned char)text[e - 1]))
				e--;
			end = e;
			if (e > s && text[e - 1] == escape) {
				buf_add(&logical, text + s, e - 1 - s);
				buf_addch(&logical, ' ');
				if (le >= len)
					break;
				/* the next line that is not a comment */
				do {
					pos = le + 1;
					line++;
					eol = pos < len ? memchr(text + pos,
						'\n', len - pos) : NULL;
					le = eol ? (size_t)(eol - text) : len;
					s = pos;
					while (s < le &&
					       isblank((unsigned char)text[s]))
						s++;
				} while (pos < len && s < le && text[s] == '#');
				if (pos >= len)
					break;
				continue;
			}
			buf_add(&logical, text + s, e - s);
			break;
		}
		pos = le + 1;
		line++;
		strvec_release(&words);
		df_split(&words, logical.ptr);
		if (!words.nr)
			continue;
		ALLOC_GROW(out->steps, out->nr_steps + 1, steps_alloc);
		out->steps[out->nr_steps++] = start_line;
		if (!strcasecmp(words.v[0], "arg") && !seen_from) {
			df_arg_line(&args, &words);
		} else if (!strcasecmp(words.v[0], "from")) {
			seen_from = 1;
			r = df_from_line(out, &alloc, &words, &args, buildargs,
					 escape, start_line, start, end,
					 source);
		}
	}
	strvec_release(&words);
	buf_release(&logical);
	df_args_release(&args);
	if (r != 0)
		dockerfile_froms_release(out);
	return r;
}

void dockerfile_froms_release(struct dockerfile_froms *f)
{
	for (size_t i = 0; i < f->nr; i++) {
		free(f->v[i].image);
		free(f->v[i].platform);
		free(f->v[i].stage);
	}
	free(f->v);
	f->v = NULL;
	f->nr = 0;
	free(f->steps);
	f->steps = NULL;
	f->nr_steps = 0;
}

void dockerfile_rewrite(struct buf *out, const char *text, size_t len,
			const struct dockerfile_froms *f,
			const char *const *images)
{
	size_t pos = 0;

	buf_reset(out);
	for (size_t i = 0; i < f->nr; i++) {
		const struct dockerfile_from *from = &f->v[i];

		if (!images[i] || from->start < pos || from->end > len)
			continue;
		buf_add(out, text + pos, from->start - pos);
		buf_adds(out, "FROM ");
		if (from->platform) {
			buf_adds(out, from->platform);
			buf_addch(out, ' ');
		}
		buf_adds(out, images[i]);
		if (from->stage) {
			buf_adds(out, " AS ");
			buf_adds(out, from->stage);
		}
		pos = from->end;
	}
	buf_add(out, text + pos, len - pos);
}
