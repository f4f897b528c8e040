/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_func_spans.c - function spans of C, C++ and Java sources
 *
 * Each source below is written one line per string literal with its line
 * number in a comment, and the test asserts the exact list of (name,
 * first line, last line) the scanner finds, then a few lookups.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "diff/func_spans.h"

#include <stdio.h>
#include <string.h>

struct want {
	const char *name;
	int start, end;
};

static struct diff_func_spans *scan(const char *src, enum diff_lang lang)
{
	return diff_func_spans_scan(src, strlen(src), lang);
}

static void check(const char *src, enum diff_lang lang,
		  const struct want *w, size_t n)
{
	struct diff_func_spans *s = scan(src, lang);
	int same = s->nr == n;
	size_t i;

	for (i = 0; same && i < n; i++)
		same = !strcmp(s->v[i].name, w[i].name) &&
		       s->v[i].start == w[i].start && s->v[i].end == w[i].end;
	for (i = 0; !same && i < s->nr; i++)
		print_message("  found %d-%d %s\n", s->v[i].start,
			      s->v[i].end, s->v[i].name);
	diff_func_spans_free(s);
	assert_true(same);
}

#define CHECK(src, lang, ...) do { \
	static const struct want w_[] = { __VA_ARGS__ }; \
	check(src, lang, w_, sizeof(w_) / sizeof(w_[0])); \
} while (0)

/* The name of the span holding `line`, or NULL. */
static const char *name_at(const struct diff_func_spans *s, int line)
{
	const struct diff_func_span *sp = diff_func_span_at(s, line);

	return sp ? sp->name : NULL;
}

static void test_c_basic(void **state)
{
	static const char src[] =
		"#include <stdio.h>\n"				/* 1 */
		"\n"						/* 2 */
		"static int counter;\n"				/* 3 */
		"static inline int add(int a, int b)\n"		/* 4 */
		"{\n"						/* 5 */
		"	return a + b;\n"			/* 6 */
		"}\n"						/* 7 */
		"\n"						/* 8 */
		"int\n"						/* 9 */
		"multi_line(const char *s,\n"			/* 10 */
		"	   size_t n,\n"				/* 11 */
		"	   int flags)\n"			/* 12 */
		"{\n"						/* 13 */
		"	if (n) {\n"				/* 14 */
		"		counter++;\n"			/* 15 */
		"	}\n"					/* 16 */
		"	return flags;\n"			/* 17 */
		"}\n"						/* 18 */
		"struct point { int x, y; };\n"			/* 19 */
		"static const struct point origin = { 0, 0 };\n"	/* 20 */
		"int table[] = {\n"				/* 21 */
		"	1, 2, 3,\n"				/* 22 */
		"};\n"						/* 23 */
		"struct point *make_point(int x) { return 0; }\n"	/* 24 */
		"void proto(void);\n"				/* 25 */
		"int main(int argc, char **argv)\n"		/* 26 */
		"{\n"						/* 27 */
		"	return add(argc, 1);\n"			/* 28 */
		"}\n";						/* 29 */

	(void)state;
	CHECK(src, DIFF_LANG_C,
	      { "add", 4, 7 }, { "multi_line", 9, 18 },
	      { "make_point", 24, 24 }, { "main", 26, 29 });
}

static void test_c_literals_and_comments(void **state)
{
	static const char src[] =
		"/* int fake(void) { */\n"			/* 1 */
		"static const char *s = \"{ not a brace\";\n"	/* 2 */
		"int braces(void)\n"				/* 3 */
		"{\n"						/* 4 */
		"	const char *a = \"}}}\";  // }\n"	/* 5 */
		"	char c = '}', d = '\\'', e = '{';\n"	/* 6 */
		"	/* } */\n"				/* 7 */
		"	const char *m = \"multi \\\n"		/* 8 */
		"}\";\n"					/* 9 */
		"	return a[0] + c + d + e + m[0];\n"	/* 10 */
		"}\n"						/* 11 */
		"// int fake2(void) {\n"			/* 12 */
		"int after(void) { return 1; }\n";		/* 13 */

	(void)state;
	CHECK(src, DIFF_LANG_C, { "braces", 3, 11 }, { "after", 13, 13 });
}

static void test_c_kr_and_macros(void **state)
{
	static const char src[] =
		"#define BODY { return 0; }\n"			/* 1 */
		"#define LONG_MACRO(x) \\\n"			/* 2 */
		"	int x(void) { \\\n"			/* 3 */
		"		return 1; \\\n"			/* 4 */
		"	}\n"					/* 5 */
		"static int\n"					/* 6 */
		"old_style(a, b)\n"				/* 7 */
		"	int a;\n"				/* 8 */
		"	char *b;\n"				/* 9 */
		"{\n"						/* 10 */
		"	return a + *b;\n"			/* 11 */
		"}\n"						/* 12 */
		"LONG_MACRO(generated)\n"			/* 13 */
		"static void NORETURN PRINTF_LIKE(1, 2)\n"	/* 14 */
		"die(const char *fmt, ...)\n"			/* 15 */
		"{\n"						/* 16 */
		"}\n"						/* 17 */
		"#if 0\n"					/* 18 */
		"int disabled(void) {\n"			/* 19 */
		"#endif\n"					/* 20 */
		"#ifdef _WIN32\n"				/* 21 */
		"int plat(int a)\n"				/* 22 */
		"{\n"						/* 23 */
		"#else\n"					/* 24 */
		"int plat(int a, int b)\n"			/* 25 */
		"{\n"						/* 26 */
		"#endif\n"					/* 27 */
		"	return a;\n"				/* 28 */
		"}\n"						/* 29 */
		"#ifdef HAVE_X\n"				/* 30 */
		"int only_x(void) { return 1; }\n"		/* 31 */
		"#else\n"					/* 32 */
		"int only_not_x(void)\n"			/* 33 */
		"{\n"						/* 34 */
		"	return 0;\n"				/* 35 */
		"}\n"						/* 36 */
		"#endif\n"					/* 37 */
		"__attribute__((unused)) static int attr(void)\n"	/* 38 */
		"{\n"						/* 39 */
		"	return 2;\n"				/* 40 */
		"}\n"						/* 41 */
		"void (*get_handler(int sig))(int)\n"		/* 42 */
		"{\n"						/* 43 */
		"	return 0;\n"				/* 44 */
		"}\n"						/* 45 */
		"SYSCALL_DEFINE2(kill, int, pid, int, sig)\n"	/* 46 */
		"{\n"						/* 47 */
		"}\n";						/* 48 */

	(void)state;
	CHECK(src, DIFF_LANG_C,
	      { "old_style", 6, 12 }, { "die", 14, 17 }, { "plat", 22, 29 },
	      { "only_x", 31, 31 }, { "only_not_x", 33, 36 },
	      { "attr", 38, 41 }, { "get_handler", 42, 45 },
	      { "SYSCALL_DEFINE2", 46, 48 });
}

static void test_c_extern_c(void **state)
{
	static const char src[] =
		"#ifdef __cplusplus\n"				/* 1 */
		"extern \"C\" {\n"				/* 2 */
		"#endif\n"					/* 3 */
		"int api(void) { return 0; }\n"			/* 4 */
		"#ifdef __cplusplus\n"				/* 5 */
		"}\n"						/* 6 */
		"#endif\n"					/* 7 */
		"int tail(void) { return 1; }\n";		/* 8 */

	(void)state;
	CHECK(src, DIFF_LANG_CPP, { "api", 4, 4 }, { "tail", 8, 8 });
}

static void test_cpp(void **state)
{
	static const char src[] =
		"namespace ns {\n"				/* 1 */
		"template <typename T, int N = 3>\n"		/* 2 */
		"T max_of(T a, T b) { return a > b ? a : b; }\n"	/* 3 */
		"class Widget : public Base<int> {\n"		/* 4 */
		" public:\n"					/* 5 */
		"  Widget() : size_{0}, name_(\"w\") {\n"	/* 6 */
		"  }\n"						/* 7 */
		"  ~Widget() override {}\n"			/* 8 */
		"  Widget(const Widget &) = delete;\n"		/* 9 */
		"  int size() const { return size_; }\n"	/* 10 */
		"  bool operator==(const Widget &o) const {\n"	/* 11 */
		"    return size_ == o.size_;\n"		/* 12 */
		"  }\n"						/* 13 */
		"  Widget &operator=(const Widget &o);\n"	/* 14 */
		"  void operator()(int x) { size_ += x; }\n"	/* 15 */
		"  explicit operator bool() const { return size_; }\n"	/* 16 */
		"  int locked() const LOCKS_EXCLUDED(mu_) {\n"	/* 17 */
		"    return 0;\n"				/* 18 */
		"  }\n"						/* 19 */
		" private:\n"					/* 20 */
		"  int size_ = 0;\n"				/* 21 */
		"  std::string name_{\"x\"};\n"			/* 22 */
		"};\n"						/* 23 */
		"Widget &Widget::operator=(const Widget &o) {\n"	/* 24 */
		"  size_ = o.size_;\n"				/* 25 */
		"  return *this;\n"				/* 26 */
		"}\n"						/* 27 */
		"}  // namespace ns\n"				/* 28 */
		"template <class T>\n"				/* 29 */
		"typename Box<T>::value_type Box<T>::get() const {\n"	/* 30 */
		"  auto f = [](int x) { return x + 1; };\n"	/* 31 */
		"  const char *raw = R\"x(}{)\")x\";\n"		/* 32 */
		"  return f(1);\n"				/* 33 */
		"}\n"						/* 34 */
		"std::ostream &operator<<(std::ostream &os, P p) {\n"/* 35 */
		"  return os;\n"				/* 36 */
		"}\n"						/* 37 */
		"auto trailing(int x) -> decltype(x) { return x; }\n"	/* 38 */
		"namespace a::b { void nested() {} }\n"		/* 39 */
		"namespace { int hidden() { return 3; } }\n";	/* 40 */

	(void)state;
	CHECK(src, DIFF_LANG_CPP,
	      { "ns::max_of", 2, 3 },
	      { "ns::Widget::Widget", 6, 7 },
	      { "ns::Widget::~Widget", 8, 8 },
	      { "ns::Widget::size", 10, 10 },
	      { "ns::Widget::operator==", 11, 13 },
	      { "ns::Widget::operator()", 15, 15 },
	      { "ns::Widget::operator bool", 16, 16 },
	      { "ns::Widget::locked", 17, 19 },
	      { "ns::Widget::operator=", 24, 27 },
	      { "Box::get", 29, 34 },
	      { "operator<<", 35, 37 },
	      { "trailing", 38, 38 },
	      { "a::b::nested", 39, 39 },
	      { "hidden", 40, 40 });
}

static void test_java(void **state)
{
	static const char src[] =
		"package com.example;\n"			/* 1 */
		"import java.util.List;\n"			/* 2 */
		"@SuppressWarnings(\"unchecked\")\n"		/* 3 */
		"public class Parser<T> extends Base implements Api {\n"/* 4 */
		"  private static final String S = \"{\";\n"	/* 5 */
		"  private final Runnable r = () -> { run(); };\n"	/* 6 */
		"  static { init(\"}\"); }\n"			/* 7 */
		"  public Parser(int x) {\n"			/* 8 */
		"    super(x);\n"				/* 9 */
		"  }\n"						/* 10 */
		"  @Override\n"					/* 11 */
		"  @Deprecated(since = \"1\")\n"		/* 12 */
		"  public <R extends List<T>> R parse(String in)\n"	/* 13 */
		"      throws java.io.IOException {\n"		/* 14 */
		"    String tb = \"\"\"\n"			/* 15 */
		"        } { \"\n"				/* 16 */
		"        \"\"\";\n"				/* 17 */
		"    Object o = new Object() {\n"		/* 18 */
		"      public String toString() { return \"}\"; }\n"	/* 19 */
		"    };\n"					/* 20 */
		"    char c = '}';\n"				/* 21 */
		"    return null;\n"				/* 22 */
		"  }\n"						/* 23 */
		"  abstract void later();\n"			/* 24 */
		"  static class Inner {\n"			/* 25 */
		"    int[] values() { return new int[] {1, 2}; }\n"	/* 26 */
		"  }\n"						/* 27 */
		"  interface Api2 {\n"				/* 28 */
		"    default int answer() { return 42; }\n"	/* 29 */
		"  }\n"						/* 30 */
		"  enum Kind {\n"				/* 31 */
		"    A(1), B(2);\n"				/* 32 */
		"    private final int v;\n"			/* 33 */
		"    Kind(int v) { this.v = v; }\n"		/* 34 */
		"    int value() { return v; }\n"		/* 35 */
		"  }\n"						/* 36 */
		"  record Pair(int a, int b) {\n"		/* 37 */
		"    int sum() { return a + b; }\n"		/* 38 */
		"  }\n"						/* 39 */
		"  synchronized void record() {}\n"		/* 40 */
		"}\n";						/* 41 */

	(void)state;
	CHECK(src, DIFF_LANG_JAVA,
	      { "Parser.Parser", 8, 10 },
	      { "Parser.parse", 13, 23 },
	      { "Parser.Inner.values", 26, 26 },
	      { "Parser.Api2.answer", 29, 29 },
	      { "Parser.Kind.Kind", 34, 34 },
	      { "Parser.Kind.value", 35, 35 },
	      { "Parser.Pair.sum", 38, 38 },
	      { "Parser.record", 40, 40 });
}

static void test_lookup(void **state)
{
	static const char src[] =
		"int one(void)\n"				/* 1 */
		"{\n"						/* 2 */
		"	return 1;\n"				/* 3 */
		"}\n"						/* 4 */
		"\n"						/* 5 */
		"int two(void) { return 2; }\n";		/* 6 */
	struct diff_func_spans *s = scan(src, DIFF_LANG_C);

	(void)state;
	assert_null(name_at(s, 0));
	assert_string_equal(name_at(s, 1), "one");
	assert_string_equal(name_at(s, 3), "one");
	assert_string_equal(name_at(s, 4), "one");
	assert_null(name_at(s, 5));
	assert_string_equal(name_at(s, 6), "two");
	assert_null(name_at(s, 7));
	assert_ptr_equal(diff_func_span_at(s, 6), &s->v[1]);
	diff_func_spans_free(s);
	assert_null(name_at(NULL, 1));
}

static void test_unbalanced_and_junk(void **state)
{
	static const char open_src[] =
		"int open_end(void)\n"				/* 1 */
		"{\n"						/* 2 */
		"	if (x) {\n"				/* 3 */
		"		return 1;\n";			/* 4 */
	static const char junk[] = "}}}} ))) (((( {{ \" ' /* #if";
	struct diff_func_spans *s;

	(void)state;
	CHECK(open_src, DIFF_LANG_C, { "open_end", 1, 4 });
	s = scan(junk, DIFF_LANG_CPP);
	assert_int_equal(s->nr, 0);
	diff_func_spans_free(s);
	s = scan("int f(void) { return 0; }", DIFF_LANG_NONE);
	assert_int_equal(s->nr, 0);
	diff_func_spans_free(s);
}

static void test_lang_of_path(void **state)
{
	(void)state;
	assert_int_equal(diff_lang_of_path("src/a.c"), DIFF_LANG_C);
	assert_int_equal(diff_lang_of_path("inc/a.h"), DIFF_LANG_C);
	assert_int_equal(diff_lang_of_path("a.cc"), DIFF_LANG_CPP);
	assert_int_equal(diff_lang_of_path("x/y.hpp"), DIFF_LANG_CPP);
	assert_int_equal(diff_lang_of_path("Main.java"), DIFF_LANG_JAVA);
	assert_int_equal(diff_lang_of_path("README.md"), DIFF_LANG_NONE);
	assert_int_equal(diff_lang_of_path("dir.c/Makefile"), DIFF_LANG_NONE);
	assert_int_equal(diff_lang_of_path(NULL), DIFF_LANG_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_c_basic),
		cmocka_unit_test(test_c_literals_and_comments),
		cmocka_unit_test(test_c_kr_and_macros),
		cmocka_unit_test(test_c_extern_c),
		cmocka_unit_test(test_cpp),
		cmocka_unit_test(test_java),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_unbalanced_and_junk),
		cmocka_unit_test(test_lang_of_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
