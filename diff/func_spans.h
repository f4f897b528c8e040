/* SPDX-License-Identifier: Apache-2.0 */
/*
 * func_spans.h - where functions are defined in a C, C++ or Java file
 *
 * A careful brace and parenthesis scanner, not a parser: it skips
 * comments, string and character literals (C++ raw strings, Java text
 * blocks) and preprocessor lines, follows only the first branch of
 * #if/#else, and recognises definitions by their shape (a name, a
 * parameter list, then a body). Used to say which function a changed
 * line belongs to. Works on memory; no I/O.
 */
#ifndef CRS_DIFF_FUNC_SPANS_H
#define CRS_DIFF_FUNC_SPANS_H

#include <stddef.h>

#include "diff/diff_lang.h"


struct diff_func_span {
	char *name;	/* C: "parse"; C++: "ns::Class::method", "operator==",
			   "Class::~Class"; Java: "Outer.Inner.method" */
	int start;	/* line of the definition's first token (return type,
			   template<...>, modifiers) */
	int end;	/* line of the closing brace */
};

struct diff_func_spans {
	struct diff_func_span *v;	/* ascending, never overlapping */
	size_t nr, alloc;
};

/* The language of a path by its extension (.c .h; .cc .cpp .cxx .hpp
 * .hh .hxx .inl ...; .java), DIFF_LANG_NONE otherwise. */
enum diff_lang diff_lang_of_path(const char *path);

/*
 * Find the function definitions in `src` (`len` bytes, need not be
 * NUL-terminated). Cannot fail: an unknown language or text that is not
 * code gives no spans. The caller frees the result.
 */
struct diff_func_spans *diff_func_spans_scan(const char *src, size_t len,
					     enum diff_lang lang);
void diff_func_spans_free(struct diff_func_spans *s);

/* The span containing `line`, borrowed, or NULL. */
const struct diff_func_span *diff_func_span_at(const struct diff_func_spans *s,
					       int line);

#endif
