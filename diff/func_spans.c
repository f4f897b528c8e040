/* SPDX-License-Identifier: Apache-2.0 */
/*
 * func_spans.c - function definitions of C, C++ and Java by shape
 *
 * A brace scanner over func_lexer.c's tokens finds where functions
 * start and end; source is untrusted text, so nothing trusts nesting
 * or lengths.
 *
 * Details: docs/internals.md.
 */
#include "diff/func_spans.h"
#include "diff/func_lexer.h"
#include "common/buf.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define DECL_TOKENS_MAX 65536	/* a declaration longer than this is junk */

/* --- declarations ------------------------------------------------------ */

enum scope_kind { SK_DECL, SK_FUNC, SK_OTHER };

struct scope {
	enum scope_kind kind;
	char *name;		/* SK_DECL: namespace/class name or NULL */
	size_t span;		/* SK_FUNC: index into out->v */
};

struct scanner {
	struct lexer lx;
	struct diff_func_spans *out;
	struct scope *st;
	size_t nr, alloc;
	struct tok *decl;
	size_t dn, dalloc;
	int paren;		/* '(' depth inside the declaration */
	int inner_brace;	/* '{' opened inside its parentheses */
	int init_list;		/* "f(...) :" a constructor's initializers */
	char *kr_name;		/* a K&R header "f(a, b) int a;" was seen */
	int kr_start;
};

struct cand {
	size_t first;		/* first token of the qualified name */
	size_t last;		/* last token of the name (before '(') */
	size_t start;		/* first token of the definition */
	size_t paren;		/* the parameter list's '(' */
};

static int is_punct(const struct tok *t, char c)
{
	return t->kind == T_PUNCT && t->c == c;
}

static int ident_is(const struct tok *t, const char *w)
{
	return t->kind == T_IDENT && func_word_is(t->s, (size_t)t->len, w);
}

static int in_list(const struct tok *t, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (ident_is(t, list[i]))
			return 1;
	return 0;
}

/* Identifiers that are never the name of a defined function. */
static const char *const not_names[] = {
	"if", "else", "while", "for", "do", "switch", "case", "return",
	"sizeof", "alignof", "_Alignof", "typeof", "__typeof__", "__typeof",
	"decltype", "__attribute__", "__attribute", "__declspec", "alignas",
	"_Alignas", "noexcept", "throw", "_Static_assert", "static_assert",
	"asm", "__asm__", "__asm", "catch", "synchronized", "defined", "void",
	"int", "char", "short", "long", "unsigned", "signed", "float",
	"double", "bool", "_Bool", "const", "volatile", "static", "extern",
	"inline", "register", "auto", "struct", "union", "enum", "class",
	"typename", "template", "public", "private", "protected", "virtual",
	"explicit", "friend", "__extension__", "_Generic", "requires",
	"assert", "__pragma", "_Pragma", NULL,
};

static const char *const java_modifiers[] = {
	"public", "private", "protected", "static", "final", "abstract",
	"synchronized", "native", "strictfp", "default", "transient",
	"volatile", "sealed", "non", NULL,
};

static int is_name_tok(const struct tok *t)
{
	return t->kind == T_IDENT && !in_list(t, not_names);
}

/* From the '<' at i, the index of its '>' (or n when unbalanced). */
static size_t match_angle(const struct tok *d, size_t n, size_t i)
{
	int depth = 0, paren = 0;

	for (; i < n; i++) {
		if (is_punct(&d[i], '(') || is_punct(&d[i], '['))
			paren++;
		else if ((is_punct(&d[i], ')') || is_punct(&d[i], ']')) &&
			 paren)
			paren--;
		else if (paren)
			continue;
		else if (is_punct(&d[i], '<'))
			depth++;
		else if (is_punct(&d[i], '>') && --depth == 0)
			return i;
		else if (is_punct(&d[i], ';') || is_punct(&d[i], '{'))
			return n;
	}
	return n;
}

/* From the '>' at i back to its '<' (or (size_t)-1). */
static size_t match_angle_back(const struct tok *d, size_t i)
{
	int depth = 0;

	for (;; i--) {
		if (is_punct(&d[i], '>'))
			depth++;
		else if (is_punct(&d[i], '<') && --depth == 0)
			return i;
		if (i == 0)
			return (size_t)-1;
	}
}

/* Walk back from name token k over "~", "A::", "B<T>::", "::". */
static size_t qual_start(const struct tok *d, size_t k)
{
	size_t j = k;

	if (j > 0 && is_punct(&d[j - 1], '~'))
		j--;
	while (j >= 2 && d[j - 1].kind == T_SCOPE) {
		size_t p = j - 2;

		if (is_punct(&d[p], '>')) {
			p = match_angle_back(d, p);
			if (p == (size_t)-1 || p == 0)
				break;
			p--;
		}
		if (d[p].kind != T_IDENT)
			break;
		j = p;
	}
	if (j >= 1 && d[j - 1].kind == T_SCOPE)
		j--;
	return j;
}

/* From "operator" at i: the index of the parameter list's '(' or 0. */
static size_t operator_paren(const struct tok *d, size_t n, size_t i)
{
	size_t j = i + 1;

	if (j + 1 < n && is_punct(&d[j], '(') && is_punct(&d[j + 1], ')'))
		j += 2;		/* operator() */
	for (; j < n; j++)
		if (is_punct(&d[j], '('))
			return j;
		else if (is_punct(&d[j], ';') || is_punct(&d[j], '{'))
			return 0;
	return 0;
}

/* A Java member with no type before its name must be a constructor. */
static int java_typeless(const struct tok *d, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		if (in_list(&d[i], java_modifiers) || is_punct(&d[i], '-'))
			continue;
		if (is_punct(&d[i], '<')) {
			i = match_angle(d, to, i);
			continue;
		}
		return 0;
	}
	return 1;
}

static const char *innermost_name(const struct scanner *sc)
{
	for (size_t i = sc->nr; i-- > 0;)
		if (sc->st[i].kind == SK_DECL)
			return sc->st[i].name;
	return NULL;
}

static int all_caps(const struct tok *t)
{
	for (int i = 0; i < t->len; i++)
		if (t->s[i] >= 'a' && t->s[i] <= 'z')
			return 0;
	return 1;
}

/*
 * Not a definition's name: one after a member access, inside template
 * arguments, or an ALL_CAPS macro right after a parameter list and its
 * qualifiers ("f() const LOCKS_EXCLUDED(mu)" is an attribute there, but
 * in "NORETURN PRINTF_LIKE(1, 2) die(...)" the later name is the one).
 */
static int accept(const struct scanner *sc, struct cand *c, size_t close,
		  const struct cand *prev)
{
	static const char *const post[] = {
		"const", "volatile", "override", "final", "noexcept",
		"mutable", NULL,
	};
	const struct tok *d = sc->decl;
	const struct tok *before = c->first ? &d[c->first - 1] : NULL;
	const char *cls;
	size_t i;

	if (before && (is_punct(before, '.') || is_punct(before, '<') ||
		       is_punct(before, ',') || before->kind == T_ASSIGN))
		return 0;
	if (close != (size_t)-1 && close < c->first) {
		for (i = close + 1; i < c->first; i++)
			if (!in_list(&d[i], post) && !is_punct(&d[i], '&'))
				break;
		if (i == c->first && prev && all_caps(&sc->decl[c->last]) &&
		    !all_caps(&sc->decl[prev->last]))
			return 0;
	}
	if (sc->lx.lang == DIFF_LANG_JAVA &&
	    java_typeless(d, c->start, c->first)) {
		cls = innermost_name(sc);
		return cls && c->first == c->last &&
		       func_word_is(d[c->last].s, (size_t)d[c->last].len, cls);
	}
	return 1;
}

/*
 * Does the declaration (sc->decl) have the shape of a function head?
 * Fills *out with the last acceptable name before a parameter list.
 */
static int find_function(const struct scanner *sc, struct cand *out)
{
	static const char *const java_types[] = {
		"class", "interface", "enum", "record", NULL,
	};
	static const char *const heads[] = {
		"namespace", "class", "struct", "union", "enum", "extern",
		"typedef", NULL,
	};
	const struct tok *d = sc->decl;
	size_t n = sc->dn, op_paren = (size_t)-1, macro_end = 0;
	size_t close = (size_t)-1;	/* the last ')' at depth 0 */
	int depth = 0, found = 0, params_closed = 0, fnptr = 0;
	int group_macro = 0;
	struct cand c, fp;

	for (size_t i = 0; i < n; i++) {
		const struct tok *t = &d[i];

		if (sc->lx.lang == DIFF_LANG_JAVA && depth == 0 &&
		    in_list(t, java_types) && i + 1 < n &&
		    d[i + 1].kind == T_IDENT &&
		    !(i && is_punct(&d[i - 1], '.')))
			return 0;
		if (ident_is(t, "template") && i + 1 < n &&
		    is_punct(&d[i + 1], '<')) {
			i = match_angle(d, n, i + 1);
			continue;
		}
		if (depth == 0 && ident_is(t, "operator")) {
			size_t j = operator_paren(d, n, i);

			if (!j)
				return 0;
			c.first = qual_start(d, i);
			c.last = j - 1;
			c.paren = j;
			c.start = macro_end <= c.first ? macro_end : 0;
			if (accept(sc, &c, close, found ? out : NULL)) {
				*out = c;
				found = 1;
				params_closed = 0;
			}
			op_paren = j;
			i = j - 1;
			continue;
		}
		if (is_punct(t, '(')) {
			if (depth == 0 && i != op_paren && i > 0 &&
			    is_name_tok(&d[i - 1])) {
				c.last = i - 1;
				c.first = qual_start(d, i - 1);
				c.paren = i;
				c.start = macro_end <= c.first ? macro_end : 0;
				/* "MACRO(x)" standing where a declaration
				 * starts is not part of the next one */
				group_macro = c.first == macro_end;
				if (accept(sc, &c, close, found ? out : NULL)) {
					*out = c;
					found = 1;
					params_closed = 0;
				}
			} else if (depth == 0) {
				group_macro = 0;
			} else if (depth == 1 && i >= 3 &&
				   is_punct(&d[i - 2], '*') &&
				   is_punct(&d[i - 3], '(') &&
				   is_name_tok(&d[i - 1])) {
				fp.first = fp.last = i - 1;
				fp.paren = i;
				fp.start = macro_end <= i - 3 ? macro_end : 0;
				fnptr = 1;
			}
			depth++;
		} else if (is_punct(t, ')')) {
			if (depth > 0 && --depth == 0) {
				close = i;
				if (group_macro)
					macro_end = i + 1;
				if (found)
					params_closed = 1;
			}
		} else if (t->kind == T_ASSIGN && depth == 0 && !found) {
			return 0;	/* an initializer */
		} else if (is_punct(t, ':') && depth == 0 && params_closed) {
			break;		/* constructor initializer list */
		} else if (depth == 0 && params_closed && in_list(t, heads)) {
			found = 0;	/* "MACRO(x) namespace n {" */
			params_closed = 0;
		}
	}
	if (!found && fnptr) {
		*out = fp;
		found = 1;
	}
	return found;
}

/* The qualified name of tokens [first, last], template arguments left out. */
static void name_text(struct buf *b, const struct tok *d, size_t first,
		      size_t last)
{
	for (size_t i = first; i <= last; i++) {
		const struct tok *t = &d[i];

		if (t->kind == T_IDENT) {
			if (b->len && func_ident_char(b->ptr[b->len - 1]))
				buf_addch(b, ' ');
			buf_add(b, t->s, (size_t)t->len);
			if (i < last && is_punct(&d[i + 1], '<') &&
			    !ident_is(t, "operator"))
				i = match_angle(d, last + 1, i + 1);
		} else if (t->kind == T_SCOPE) {
			buf_adds(b, "::");
		} else if (t->kind == T_PUNCT) {
			buf_addch(b, t->c);
		} else if (t->kind == T_ASSIGN) {
			buf_addch(b, '=');
		}
	}
}

static char *qualified_name(const struct scanner *sc, const struct cand *c)
{
	const char *sep = sc->lx.lang == DIFF_LANG_JAVA ? "." : "::";
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < sc->nr; i++)
		if (sc->st[i].kind == SK_DECL && sc->st[i].name) {
			buf_adds(&b, sc->st[i].name);
			buf_adds(&b, sep);
		}
	name_text(&b, sc->decl, c->first, c->last);
	return buf_detach(&b, NULL);
}

/* "f(a, b) int a;": identifiers only in the list, a declaration after. */
static int kr_header(const struct scanner *sc, const struct cand *c)
{
	const struct tok *d = sc->decl;
	size_t i = c->paren + 1;
	int want_ident = 1;

	for (; i < sc->dn && !is_punct(&d[i], ')'); i++, want_ident ^= 1)
		if (want_ident ? d[i].kind != T_IDENT || !is_name_tok(&d[i])
			       : !is_punct(&d[i], ','))
			return 0;
	return i > c->paren + 1 && !want_ident && i + 1 < sc->dn &&
	       d[i + 1].kind == T_IDENT;
}

/* The name a namespace/class/struct/enum/interface gives its members. */
static char *container_name(const struct scanner *sc)
{
	static const char *const kw[] = {
		"class", "struct", "union", "namespace", "interface", "enum",
		"record", NULL,
	};
	const struct tok *d = sc->decl;
	size_t i, n = sc->dn;
	struct buf b = BUF_INIT;

	for (i = 0; i < n; i++)	/* "struct s v = {": an initializer */
		if (d[i].kind == T_ASSIGN)
			return NULL;
	for (i = 0; i < n && !in_list(&d[i], kw); i++) {
		if (is_punct(&d[i], '(')) {	/* a macro call before it */
			int depth = 0;

			for (; i < n; i++) {
				depth += is_punct(&d[i], '(') -
					 is_punct(&d[i], ')');
				if (!depth)
					break;
			}
			continue;
		}
		if (ident_is(&d[i], "template") && i + 1 < n &&
		    is_punct(&d[i + 1], '<'))
			i = match_angle(d, n, i + 1);
	}
	for (i++; i < n; i++) {
		if (ident_is(&d[i], "class") || ident_is(&d[i], "struct") ||
		    ident_is(&d[i], "final"))
			continue;
		if (in_list(&d[i], not_names) && i + 1 < n &&
		    is_punct(&d[i + 1], '(')) {	/* __attribute__((x)) */
			int depth = 0;

			for (i++; i < n; i++) {
				depth += is_punct(&d[i], '(') -
					 is_punct(&d[i], ')');
				if (!depth)
					break;
			}
			continue;
		}
		if (is_punct(&d[i], '[')) {		/* [[attribute]] */
			while (i < n && !is_punct(&d[i], ']'))
				i++;
			while (i + 1 < n && is_punct(&d[i + 1], ']'))
				i++;
			continue;
		}
		break;
	}
	while (i < n && d[i].kind == T_IDENT) {
		buf_add(&b, d[i].s, (size_t)d[i].len);
		if (i + 2 < n && d[i + 1].kind == T_SCOPE &&
		    d[i + 2].kind == T_IDENT) {
			buf_adds(&b, "::");
			i += 2;
		} else {
			break;
		}
	}
	return b.len ? buf_detach(&b, NULL) : (buf_release(&b), NULL);
}

/* '{' after these (and no function head) opens a block of code. */
static int is_initializer(const struct scanner *sc)
{
	const struct tok *last;

	if (!sc->dn)
		return 1;
	for (size_t i = 0; i < sc->dn; i++)
		if (sc->decl[i].kind == T_ASSIGN)
			return 1;
	last = &sc->decl[sc->dn - 1];
	if (is_punct(last, '>'))	/* "x -> {": a lambda */
		return sc->dn >= 2 && is_punct(&sc->decl[sc->dn - 2], '-');
	return is_punct(last, ',') || is_punct(last, '(') ||
	       is_punct(last, ')') || is_punct(last, '[') ||
	       ident_is(last, "return");
}

/* --- the scope stack --------------------------------------------------- */

static void push_scope(struct scanner *sc, enum scope_kind kind, char *name,
		       size_t span)
{
	ALLOC_GROW(sc->st, sc->nr + 1, sc->alloc);
	sc->st[sc->nr].kind = kind;
	sc->st[sc->nr].name = name;
	sc->st[sc->nr].span = span;
	sc->nr++;
}

static void pop_scope(struct scanner *sc, int line)
{
	struct scope *s;

	if (sc->nr <= 1)	/* a stray '}' at file level */
		return;
	s = &sc->st[--sc->nr];
	if (s->kind == SK_FUNC)
		sc->out->v[s->span].end = line;
	free(s->name);
}

static void reset_decl(struct scanner *sc)
{
	sc->dn = 0;
	sc->paren = 0;
	sc->inner_brace = 0;
	sc->init_list = 0;
}

/* "Foo() : a{1}, Base<T>{2} {": braces after a member name in an
 * initializer list are not the body. */
static int init_brace(const struct scanner *sc)
{
	const struct tok *last = sc->dn ? &sc->decl[sc->dn - 1] : NULL;

	return sc->init_list && last &&
	       (last->kind == T_IDENT || is_punct(last, '>'));
}

static void clear_kr(struct scanner *sc)
{
	free(sc->kr_name);
	sc->kr_name = NULL;
}

static void open_function(struct scanner *sc, char *name, int start)
{
	struct diff_func_spans *o = sc->out;

	ALLOC_GROW(o->v, o->nr + 1, o->alloc);
	o->v[o->nr].name = name;
	o->v[o->nr].start = start;
	o->v[o->nr].end = 0;
	push_scope(sc, SK_FUNC, NULL, o->nr);
	o->nr++;
}

static void open_brace(struct scanner *sc)
{
	struct cand c;
	char *name;

	if (find_function(sc, &c)) {
		open_function(sc, qualified_name(sc, &c),
			      sc->decl[c.start].line);
	} else if (!sc->dn && sc->kr_name) {
		open_function(sc, sc->kr_name, sc->kr_start);
		sc->kr_name = NULL;	/* transferred */
	} else if ((name = container_name(sc)) != NULL) {
		push_scope(sc, SK_DECL, name, 0);
	} else if (is_initializer(sc)) {
		push_scope(sc, SK_OTHER, NULL, 0);
	} else {
		push_scope(sc, SK_DECL, NULL, 0);
	}
	reset_decl(sc);
	clear_kr(sc);
}

static void end_statement(struct scanner *sc)
{
	struct cand c;

	if (sc->dn && find_function(sc, &c)) {
		clear_kr(sc);
		if (sc->lx.lang != DIFF_LANG_JAVA && kr_header(sc, &c)) {
			sc->kr_name = qualified_name(sc, &c);
			sc->kr_start = sc->decl[c.start].line;
		}
	}
	reset_decl(sc);
}

static int is_access_label(const struct scanner *sc)
{
	return sc->dn == 1 && (ident_is(&sc->decl[0], "public") ||
			       ident_is(&sc->decl[0], "private") ||
			       ident_is(&sc->decl[0], "protected"));
}

static void decl_token(struct scanner *sc, const struct tok *t)
{
	if (t->kind == T_PUNCT) {
		switch (t->c) {
		case '(':
			sc->paren++;
			break;
		case ')':
			if (sc->paren)
				sc->paren--;
			break;
		case '{':
			if (!sc->paren && !init_brace(sc)) {
				open_brace(sc);
				return;
			}
			sc->inner_brace++;
			break;
		case '}':
			if (!sc->inner_brace) {
				reset_decl(sc);
				clear_kr(sc);
				pop_scope(sc, t->line);
				return;
			}
			sc->inner_brace--;
			break;
		case ';':
			if (!sc->paren) {
				end_statement(sc);
				return;
			}
			break;
		case ':':
			if (!sc->paren && is_access_label(sc)) {
				reset_decl(sc);
				return;
			}
			if (!sc->paren && sc->dn &&
			    (is_punct(&sc->decl[sc->dn - 1], ')') ||
			     ident_is(&sc->decl[sc->dn - 1], "noexcept")))
				sc->init_list = 1;
			break;
		}
	}
	if (sc->dn >= DECL_TOKENS_MAX)
		reset_decl(sc);
	ALLOC_GROW(sc->decl, sc->dn + 1, sc->dalloc);
	sc->decl[sc->dn++] = *t;
}

/* --- API --------------------------------------------------------------- */

enum diff_lang diff_lang_of_path(const char *path)
{
	static const struct { const char *ext; enum diff_lang lang; } map[] = {
		{ "c", DIFF_LANG_C }, { "h", DIFF_LANG_C },
		{ "cc", DIFF_LANG_CPP }, { "cpp", DIFF_LANG_CPP },
		{ "cxx", DIFF_LANG_CPP }, { "c++", DIFF_LANG_CPP },
		{ "C", DIFF_LANG_CPP }, { "hh", DIFF_LANG_CPP },
		{ "hpp", DIFF_LANG_CPP }, { "hxx", DIFF_LANG_CPP },
		{ "h++", DIFF_LANG_CPP }, { "H", DIFF_LANG_CPP },
		{ "inl", DIFF_LANG_CPP }, { "ipp", DIFF_LANG_CPP },
		{ "tcc", DIFF_LANG_CPP }, { "cu", DIFF_LANG_CPP },
		{ "java", DIFF_LANG_JAVA },
	};
	const char *dot, *slash;

	if (!path)
		return DIFF_LANG_NONE;
	dot = strrchr(path, '.');
	slash = strrchr(path, '/');
	if (!dot || (slash && dot < slash))
		return DIFF_LANG_NONE;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(dot + 1, map[i].ext))
			return map[i].lang;
	return DIFF_LANG_NONE;
}

static struct diff_func_spans *scan(const char *src, size_t len,
				     enum diff_lang lang, struct lexer *lx)
{
	struct scanner sc;
	struct tok t;

	memset(&sc, 0, sizeof(sc));
	sc.out = xcalloc(1, sizeof(*sc.out));
	lx->p = lx->start = src;
	lx->end = src + len;
	lx->line = 1;
	lx->bol = 1;
	lx->lang = lang;
	lx->ifs = 0;
	lx->depth = lx->overflow = lx->skipping = 0;
	sc.lx = *lx;
	push_scope(&sc, SK_DECL, NULL, 0);
	while (func_lex(&sc.lx, &t)) {
		if (sc.st[sc.nr - 1].kind == SK_DECL) {
			decl_token(&sc, &t);
		} else if (is_punct(&t, '{')) {
			push_scope(&sc, SK_OTHER, NULL, 0);
		} else if (is_punct(&t, '}')) {
			pop_scope(&sc, t.line);
		}
	}
	while (sc.nr > 1)	/* unbalanced: open bodies end at EOF */
		pop_scope(&sc, len && src[len - 1] == '\n' ? sc.lx.line - 1 :
			  sc.lx.line);
	*lx = sc.lx;
	free(sc.st[0].name);
	free(sc.st);
	free(sc.decl);
	free(sc.kr_name);
	return sc.out;
}

/* Add b's spans that overlap none of a's to a (both ascending). */
static void merge_spans(struct diff_func_spans *a, struct diff_func_spans *b)
{
	struct diff_func_spans m;
	size_t i = 0, j = 0;

	memset(&m, 0, sizeof(m));
	while (i < a->nr || j < b->nr) {
		struct diff_func_span *x = i < a->nr ? &a->v[i] : NULL;
		struct diff_func_span *y = j < b->nr ? &b->v[j] : NULL;

		if (x && y && y->start <= x->end && x->start <= y->end) {
			free(y->name);		/* overlaps: a's view wins */
			j++;
			continue;
		}
		ALLOC_GROW(m.v, m.nr + 1, m.alloc);
		if (x && (!y || x->start <= y->start)) {
			m.v[m.nr++] = *x;
			i++;
		} else {
			m.v[m.nr++] = *y;
			j++;
		}
	}
	free(a->v);
	*a = m;
	b->nr = 0;
}

struct diff_func_spans *diff_func_spans_scan(const char *src, size_t len,
					     enum diff_lang lang)
{
	struct diff_func_spans *out, *alt;
	struct lexer lx;
	int alternatives = 0;

	if (lang == DIFF_LANG_NONE || !src)
		return xcalloc(1, sizeof(*out));
	memset(&lx, 0, sizeof(lx));
	out = scan(src, len, lang, &lx);
	for (size_t i = 0; i < lx.ifs && !alternatives; i++)
		alternatives = lx.branches[i] > 1;
	if (alternatives) {	/* functions only in #else branches */
		lx.last_branch = 1;
		alt = scan(src, len, lang, &lx);
		merge_spans(out, alt);
		diff_func_spans_free(alt);
	}
	free(lx.branches);
	return out;
}

void diff_func_spans_free(struct diff_func_spans *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr; i++)
		free(s->v[i].name);
	free(s->v);
	free(s);
}

const struct diff_func_span *diff_func_span_at(const struct diff_func_spans *s,
					       int line)
{
	size_t lo = 0, hi;

	if (!s)
		return NULL;
	hi = s->nr;
	while (lo < hi) {	/* last span starting at or before line */
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].start <= line)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || line > s->v[lo - 1].end)
		return NULL;
	return &s->v[lo - 1];
}
