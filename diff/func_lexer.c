/* SPDX-License-Identifier: Apache-2.0 */
/*
 * func_lexer.c - C, C++ and Java source as tokens: comments, strings,
 * raw strings, text blocks and annotations skipped, #if 0 and one branch
 * of every other #if dropped; the text is hostile, so every length is
 * checked against the end
 */
#include "diff/func_lexer.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

static char peek(const struct lexer *lx, size_t off)
{
	return (size_t)(lx->end - lx->p) > off ? lx->p[off] : '\0';
}

int func_ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '$' ||
	       (unsigned char)c >= 0x80;
}

/* Backslash-newline (or backslash-CR-LF) at p: its length, else 0. */
static int splice_len(const struct lexer *lx)
{
	if (peek(lx, 0) != '\\')
		return 0;
	if (peek(lx, 1) == '\n')
		return 2;
	if (peek(lx, 1) == '\r' && peek(lx, 2) == '\n')
		return 3;
	return 0;
}

static void skip_line_comment(struct lexer *lx)
{
	while (lx->p < lx->end && *lx->p != '\n') {
		int n = lx->lang != DIFF_LANG_JAVA ? splice_len(lx) : 0;

		if (n) {
			lx->p += n;
			lx->line++;
		} else {
			lx->p++;
		}
	}
}

static void skip_block_comment(struct lexer *lx)
{
	lx->p += 2;
	while (lx->p < lx->end) {
		if (*lx->p == '*' && peek(lx, 1) == '/') {
			lx->p += 2;
			return;
		}
		if (*lx->p == '\n')
			lx->line++;
		lx->p++;
	}
}

/* A '...' or "..." literal; an unterminated one ends at the newline. */
static void skip_quoted(struct lexer *lx)
{
	char q = *lx->p++;

	while (lx->p < lx->end) {
		char c = *lx->p;

		if (c == '\\') {
			if (peek(lx, 1) == '\n')
				lx->line++;
			lx->p += lx->p + 1 < lx->end ? 2 : 1;
			continue;
		}
		if (c == '\n')
			return;
		lx->p++;
		if (c == q)
			return;
	}
}

/* Java text block """...""" */
static void skip_text_block(struct lexer *lx)
{
	lx->p += 3;
	while (lx->p < lx->end) {
		if (*lx->p == '\\') {
			if (peek(lx, 1) == '\n')
				lx->line++;
			lx->p += lx->p + 1 < lx->end ? 2 : 1;
			continue;
		}
		if (*lx->p == '"' && peek(lx, 1) == '"' && peek(lx, 2) == '"') {
			lx->p += 3;
			return;
		}
		if (*lx->p == '\n')
			lx->line++;
		lx->p++;
	}
}

/* C++ R"delim( ... )delim" with p at the quote; 0 if not a raw string. */
static int skip_raw_string(struct lexer *lx)
{
	const char *d = lx->p + 1, *q;
	size_t n = 0;

	while (d + n < lx->end && n <= RAW_DELIM_MAX && d[n] != '(') {
		if (d[n] == ' ' || d[n] == ')' || d[n] == '\\' ||
		    d[n] == '\n' || d[n] == '"')
			return 0;
		n++;
	}
	if (d + n >= lx->end || n > RAW_DELIM_MAX)
		return 0;
	for (q = d + n + 1; q < lx->end; q++) {
		if (*q == '\n')
			lx->line++;
		if (*q == ')' && (size_t)(lx->end - q) > n + 1 &&
		    !memcmp(q + 1, d, n) && q[n + 1] == '"') {
			lx->p = q + n + 2;
			return 1;
		}
	}
	lx->p = lx->end;
	return 1;
}

int func_word_is(const char *s, size_t n, const char *w)
{
	return strlen(w) == n && !memcmp(s, w, n);
}

/* "#if 0": the expression is the digit 0 alone (comments allowed). */
static int expr_is_zero(const struct lexer *lx)
{
	const char *p = lx->p;

	while (p < lx->end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= lx->end || *p != '0')
		return 0;
	p++;
	return p >= lx->end || !func_ident_char(*p);
}

static void pp_conditional(struct lexer *lx, const char *w, size_t n)
{
	int top = lx->depth - 1;

	if (func_word_is(w, n, "if") || func_word_is(w, n, "ifdef") ||
	    func_word_is(w, n, "ifndef")) {
		int skip = func_word_is(w, n, "if") && expr_is_zero(lx);
		size_t id = lx->ifs++;

		if (!lx->last_branch) {
			ALLOC_GROW(lx->branches, lx->ifs, lx->ifs_alloc);
			lx->branches[id] = 1;
		} else if (id < lx->ifs_alloc && lx->branches[id] > 1) {
			skip = 1;
		}
		if (lx->depth >= PP_DEPTH_MAX) {
			lx->overflow++;
			return;
		}
		lx->cond[lx->depth].skip = (unsigned char)skip;
		lx->cond[lx->depth].taken = (unsigned char)!skip;
		lx->cond[lx->depth].branch = 0;
		lx->cond[lx->depth].id = id;
		lx->skipping += skip;
		lx->depth++;
	} else if (func_word_is(w, n, "elif") || func_word_is(w, n, "else") ||
		   func_word_is(w, n, "elifdef") || func_word_is(w, n, "elifndef")) {
		size_t id;
		int skip;

		if (lx->overflow || top < 0)
			return;
		id = lx->cond[top].id;
		lx->cond[top].branch++;
		if (!lx->last_branch) {
			lx->branches[id]++;
			skip = lx->cond[top].taken;
		} else {
			skip = lx->cond[top].branch != lx->branches[id] - 1;
		}
		lx->skipping -= lx->cond[top].skip;
		lx->cond[top].skip = (unsigned char)skip;
		lx->cond[top].taken |= (unsigned char)!skip;
		lx->skipping += skip;
	} else if (func_word_is(w, n, "endif")) {
		if (lx->overflow) {
			lx->overflow--;
		} else if (top >= 0) {
			lx->skipping -= lx->cond[top].skip;
			lx->depth--;
		}
	}
}

/* A preprocessor line, with p at '#'; stops before its final newline. */
static void directive(struct lexer *lx)
{
	const char *w;
	size_t n = 0;

	lx->p++;
	while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t'))
		lx->p++;
	w = lx->p;
	while (w + n < lx->end && func_ident_char(w[n]))
		n++;
	lx->p += n;
	pp_conditional(lx, w, n);
	while (lx->p < lx->end && *lx->p != '\n') {
		int sl = splice_len(lx);

		if (sl) {
			lx->p += sl;
			lx->line++;
		} else if (*lx->p == '/' && peek(lx, 1) == '*') {
			skip_block_comment(lx);
		} else if (*lx->p == '/' && peek(lx, 1) == '/') {
			skip_line_comment(lx);
		} else if (*lx->p == '"' || *lx->p == '\'') {
			skip_quoted(lx);
		} else {
			lx->p++;
		}
	}
}

static void skip_blanks(struct lexer *lx)
{
	while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t'))
		lx->p++;
}

/* Java "@Name(...)": dropped; "@interface" reads as "interface". */
static int annotation(struct lexer *lx, struct tok *t)
{
	const char *s;
	int depth = 0;

	lx->p++;
	skip_blanks(lx);
	s = lx->p;
	while (lx->p < lx->end && (func_ident_char(*lx->p) || *lx->p == '.'))
		lx->p++;
	if (func_word_is(s, (size_t)(lx->p - s), "interface")) {
		t->kind = T_IDENT;
		t->s = s;
		t->len = 9;
		return 1;
	}
	skip_blanks(lx);
	if (peek(lx, 0) != '(')
		return 0;
	do {
		char c = *lx->p;

		if (c == '"' || c == '\'') {
			skip_quoted(lx);
			continue;
		}
		if (c == '/' && (peek(lx, 1) == '*' || peek(lx, 1) == '/')) {
			if (peek(lx, 1) == '*')
				skip_block_comment(lx);
			else
				skip_line_comment(lx);
			continue;
		}
		depth += (c == '(') - (c == ')');
		if (c == '\n')
			lx->line++;
		lx->p++;
	} while (depth > 0 && lx->p < lx->end);
	return 0;
}

static int is_raw_prefix(const char *s, size_t n)
{
	return func_word_is(s, n, "R") || func_word_is(s, n, "LR") ||
	       func_word_is(s, n, "uR") || func_word_is(s, n, "UR") ||
	       func_word_is(s, n, "u8R");
}

static int is_literal_prefix(const char *s, size_t n)
{
	return func_word_is(s, n, "L") || func_word_is(s, n, "u") ||
	       func_word_is(s, n, "U") || func_word_is(s, n, "u8");
}

/* One token into *t; 0 at the end. Dropped #if branches yield nothing. */
int func_lex(struct lexer *lx, struct tok *t)
{
	for (;;) {
		char c, n1;
		int sl;

		if (lx->p >= lx->end) {
			t->kind = T_EOF;
			t->line = lx->line;
			return 0;
		}
		c = *lx->p;
		n1 = peek(lx, 1);
		if (c == '\n') {
			lx->line++;
			lx->bol = 1;
			lx->p++;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' ||
		    c == '\v') {
			lx->p++;
			continue;
		}
		if ((sl = splice_len(lx)) != 0) {
			lx->p += sl;
			lx->line++;
			continue;
		}
		if (c == '/' && n1 == '/') {
			skip_line_comment(lx);
			continue;
		}
		if (c == '/' && n1 == '*') {
			skip_block_comment(lx);
			continue;
		}
		if (c == '#' && lx->bol && lx->lang != DIFF_LANG_JAVA) {
			directive(lx);
			continue;
		}
		lx->bol = 0;
		memset(t, 0, sizeof(*t));
		t->line = lx->line;
		if (c == '"' || c == '\'') {
			if (lx->lang == DIFF_LANG_JAVA && c == '"' &&
			    n1 == '"' && peek(lx, 2) == '"')
				skip_text_block(lx);
			else
				skip_quoted(lx);
			t->kind = T_LIT;
		} else if ((c >= '0' && c <= '9') ||
			   (c == '.' && n1 >= '0' && n1 <= '9')) {
			char prev = 0;

			while (lx->p < lx->end &&
			       (func_ident_char(*lx->p) || *lx->p == '.' ||
				*lx->p == '\'' ||
				((*lx->p == '+' || *lx->p == '-') &&
				 (prev == 'e' || prev == 'E' || prev == 'p' ||
				  prev == 'P'))))
				prev = *lx->p++;
			t->kind = T_LIT;
		} else if (func_ident_char(c)) {
			const char *s = lx->p;
			size_t n = 0;

			while (lx->p < lx->end && func_ident_char(*lx->p))
				lx->p++, n++;
			if (lx->lang != DIFF_LANG_JAVA && peek(lx, 0) == '"' &&
			    is_raw_prefix(s, n) && skip_raw_string(lx)) {
				t->kind = T_LIT;
			} else if (lx->lang != DIFF_LANG_JAVA &&
				   (peek(lx, 0) == '"' ||
				    peek(lx, 0) == '\'') &&
				   is_literal_prefix(s, n)) {
				continue;	/* the literal comes next */
			} else {
				t->kind = T_IDENT;
				t->s = s;
				t->len = (int)n;
			}
		} else if (c == '@' && lx->lang == DIFF_LANG_JAVA) {
			if (!annotation(lx, t))
				continue;
		} else if (c == ':' && n1 == ':') {
			lx->p += 2;
			t->kind = T_SCOPE;
		} else {
			char prev = lx->p > lx->start ? lx->p[-1] : ' ';

			lx->p++;
			t->kind = T_PUNCT;
			t->c = c;
			if (c == '=' && n1 != '=' &&
			    !strchr("=!<>+-*/%&|^", prev))
				t->kind = T_ASSIGN;
		}
		if (!lx->skipping)
			return 1;
	}
}
