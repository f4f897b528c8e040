/* SPDX-License-Identifier: Apache-2.0 */
/*
 * func_lexer.h - C, C++ and Java source as tokens for the function
 * finder (func_spans.c): comments, literals and dropped #if branches
 * skipped
 */
#ifndef CRS_DIFF_FUNC_LEXER_H
#define CRS_DIFF_FUNC_LEXER_H

#include <stddef.h>

#include "diff/diff_lang.h"

#define PP_DEPTH_MAX 64
#define RAW_DELIM_MAX 16	/* C++ raw string delimiter limit */

enum tok_kind { T_EOF, T_IDENT, T_PUNCT, T_ASSIGN, T_SCOPE, T_LIT };

struct tok {
	enum tok_kind kind;
	char c;			/* T_PUNCT */
	int line;
	const char *s;		/* T_IDENT: points into the source */
	int len;
};

struct lexer {
	const char *p, *start, *end;
	int line;
	int bol;			/* only blanks since the newline */
	enum diff_lang lang;
	struct {
		unsigned char skip;	/* this branch is dropped */
		unsigned char taken;	/* a branch of this #if was kept */
		int branch;		/* 0 for the #if, then #elif/#else */
		size_t id;		/* which #if of the file, in order */
	} cond[PP_DEPTH_MAX];
	int depth, overflow, skipping;
	/*
	 * First pass: keep the first branch of each #if, count the
	 * branches of each. Second pass (last_branch): keep the last one.
	 */
	int last_branch;
	int *branches;
	size_t ifs, ifs_alloc;
};

/* One token into *t; 0 at the end. Dropped #if branches yield nothing. */
int func_lex(struct lexer *lx, struct tok *t);

int func_ident_char(char c);

int func_word_is(const char *s, size_t n, const char *w);

#endif
