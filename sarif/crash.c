/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crash.c - sanitizer, libFuzzer and Jazzer crash reports parsed into
 * kind, type and stack (the state and signature: crash_signature.c)
 *
 * Crash kind, type, state and stack from the text a fuzz target
 * printed; that text is hostile, so everything is capped and cleaned.
 *
 * Details: docs/internals.md.
 */
#include "sarif/crash.h"
#include "sarif/cwe.h"
#include "common/utf8.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "common/testable.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FIELD_MAX 1024		/* a function, file or module name */
#define DESC_MAX 512		/* the description line */
#define KIND_MAX 64		/* a sanitizer's kind word */

enum parse_stage {
	ST_NONE,		/* no report header yet */
	ST_WAIT,		/* header seen, the stack has not started */
	ST_STACK,		/* inside the crashing stack */
	ST_DONE,
};

enum report_class { C_SANITIZER, C_UBSAN, C_LSAN, C_LIBFUZZER, C_JAZZER };

struct parser {
	struct crash_report *r;
	size_t frames_alloc;
	enum parse_stage st;
	enum report_class cls;
	int assert_seen;	/* an assertion failed before the header */
	int addr_known;		/* SEGV: the address was printed */
	unsigned long long addr;
	int zero_page;		/* hint: address in the zero page */
	int pc_zero;		/* "Hint: pc points to the zero page" */
	int leak_armed;		/* LSan: a leak line opened a stack */
	int leak_direct;	/* LSan: the stack is a direct leak's */
	char *ub_file;		/* UBSan: location of the runtime error */
	int ub_line, ub_col;
	int cause_seen;		/* Jazzer: "Caused by:" was read */
	int jvm_thread;		/* JVM dump: 1 Thread[main], 2 other */
};

static int starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static char *dup_field(const char *s, size_t n)
{
	return utf8_clean(s, n, n < FIELD_MAX ? n : FIELD_MAX);
}

/*
 * Copy one raw line into `out` (CRASH_LINE_MAX + 1 bytes): ANSI CSI
 * sequences dropped, control bytes made spaces, invalid UTF-8 made '?',
 * trailing spaces trimmed.
 */
static void clean_line(char *out, const char *s, size_t n)
{
	size_t i = 0, o = 0;

	while (i < n && o < CRASH_LINE_MAX) {
		if (s[i] == 0x1b) {
			i++;
			if (i < n && s[i] == '[') {
				for (i++; i < n; i++)
					if (s[i] >= 0x40 && s[i] <= 0x7e)
						break;
				i++;
			}
			continue;
		}
		i += utf8_clean_char(out, &o, CRASH_LINE_MAX, s + i, n - i);
	}
	while (o && out[o - 1] == ' ')
		o--;
	out[o] = '\0';
}

/* Skip leading blanks and a "==1234==" process prefix. */
static const char *skip_pid(const char *s)
{
	const char *p = s;

	while (*p == ' ')
		p++;
	if (p[0] == '=' && p[1] == '=' && isdigit((unsigned char)p[2])) {
		const char *q = p + 2;

		while (isdigit((unsigned char)*q))
			q++;
		if (q[0] == '=' && q[1] == '=')
			p = q + 2;
	}
	while (*p == ' ')
		p++;
	return p;
}

static void frame_release(struct crash_frame *f)
{
	free(f->func);
	free(f->file);
	free(f->module);
	memset(f, 0, sizeof(*f));
}

static int parse_int(const char *s, size_t n, int *out)
{
	long v = 0;

	if (!n || n > 9)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	*out = (int)v;
	return 1;
}

/*
 * "FILE:LINE:COL" or "FILE:LINE" in [tok, end): the file ends at
 * *file_end. Returns 1 when it parses.
 */
static int parse_location(const char *tok, const char *end,
			  const char **file_end, int *line, int *col)
{
	const char *q = end, *d;
	int a, b;

	while (q > tok && isdigit((unsigned char)q[-1]))
		q--;
	if (q == end || q == tok || q[-1] != ':' ||
	    !parse_int(q, (size_t)(end - q), &a))
		return 0;
	q--;
	d = q;
	while (d > tok && isdigit((unsigned char)d[-1]))
		d--;
	if (d < q && d > tok && d[-1] == ':' &&
	    parse_int(d, (size_t)(q - d), &b)) {
		if (d - 1 == tok)
			return 0;
		*file_end = d - 1;
		*line = b;
		*col = a;
		return 1;
	}
	*file_end = q;
	*line = a;
	*col = 0;
	return 1;
}

/* "(module+0xoff)": the parenthesised text names a module offset. */
static int looks_module(const char *s, const char *end)
{
	for (const char *p = s; p + 2 < end; p++)
		if (p[0] == '+' && p[1] == '0' && p[2] == 'x')
			return 1;
	return 0;
}

static const char *trim_end(const char *start, const char *end)
{
	while (end > start && end[-1] == ' ')
		end--;
	return end;
}

/*
 * Parse a stack frame line: "#K 0xADDR in FUNC FILE:LINE:COL", "#K 0xADDR
 * in FUNC (module+0xoff)", either with a trailing "(BuildId: ...)", or
 * "#K 0xADDR  (module+0xoff)" with no function. Returns 1 and fills *f
 * (release with frame_release) when the line is a frame.
 */
static int parse_frame(struct crash_frame *f, const char *line)
{
	const char *p = line, *end, *bid, *sp, *file_end;
	int idx = 0, ln = 0, col = 0;

	memset(f, 0, sizeof(*f));
	while (*p == ' ')
		p++;
	if (*p++ != '#' || !isdigit((unsigned char)*p))
		return 0;
	for (; isdigit((unsigned char)*p); p++)
		if (idx < 100000)
			idx = idx * 10 + (*p - '0');
	if (*p != ' ')
		return 0;
	while (*p == ' ')
		p++;
	if (p[0] == '0' && p[1] == 'x' && isxdigit((unsigned char)p[2])) {
		for (p += 2; isxdigit((unsigned char)*p); p++)
			;
		if (*p && *p != ' ')
			return 0;
		while (*p == ' ')
			p++;
	}
	if (starts_with(p, "in "))
		p += 3;
	f->index = idx;
	end = p + strlen(p);
	if ((bid = strstr(p, " (BuildId: ")) && end[-1] == ')')
		end = trim_end(p, bid);
	if (end > p && end[-1] == ')') {
		const char *open = end - 1;
		int depth = 0;

		for (; open >= p; open--) {
			if (*open == ')')
				depth++;
			else if (*open == '(' && --depth == 0)
				break;
		}
		if (open >= p && looks_module(open + 1, end - 1)) {
			f->module = dup_field(open + 1,
					      (size_t)(end - 1 - open - 1));
			end = trim_end(p, open);
			if (end > p)
				f->func = dup_field(p, (size_t)(end - p));
			return 1;
		}
	}
	sp = memrchr(p, ' ', (size_t)(end - p));
	if (sp && parse_location(sp + 1, end, &file_end, &ln, &col)) {
		f->file = dup_field(sp + 1, (size_t)(file_end - sp - 1));
		f->line = ln;
		f->column = col;
		end = trim_end(p, sp);
	} else if (sp && sp[1] == '/') {
		f->file = dup_field(sp + 1, (size_t)(end - sp - 1));
		end = trim_end(p, sp);
	}
	if (end > p)
		f->func = dup_field(p, (size_t)(end - p));
	return 1;
}

static void add_frame(struct parser *ps, struct crash_frame *f);
static void set_description(struct crash_report *r, const char *line);

/*
 * Parse a JVM frame, "at [loader//][module@1.2/]pkg.Class.method(Src)"
 * where Src is "File.java:LINE", "File.java", "Native Method" or
 * "Unknown Source" (the tab in front is a space by now). The loader and
 * module prefixes are dropped. Returns 1 and fills *f when it is one.
 */
static int java_frame(struct crash_frame *f, const char *line)
{
	const char *p = line, *open, *close, *name, *src, *colon;
	size_t n;
	int ln = 0;

	memset(f, 0, sizeof(*f));
	while (*p == ' ')
		p++;
	if (!starts_with(p, "at "))
		return 0;
	for (p += 3; *p == ' '; p++)
		;
	open = strchr(p, '(');
	if (!open || open == p)
		return 0;
	close = strchr(open, ')');
	if (!close || close[1] != '\0' || memchr(p, ' ', (size_t)(open - p)))
		return 0;
	name = memrchr(p, '/', (size_t)(open - p));
	name = name ? name + 1 : p;
	if (name == open || !memchr(name, '.', (size_t)(open - name)))
		return 0;
	f->func = dup_field(name, (size_t)(open - name));
	src = open + 1;
	n = (size_t)(close - src);
	colon = memrchr(src, ':', n);
	if (colon && colon > src &&
	    parse_int(colon + 1, (size_t)(close - colon - 1), &ln)) {
		f->file = dup_field(src, (size_t)(colon - src));
		f->line = ln;
	} else if (n && strncmp(src, "Native Method)", n + 1) &&
		   strncmp(src, "Unknown Source)", n + 1)) {
		f->file = dup_field(src, n);
	}
	return 1;
}

static const struct {
	const char *text;	/* how a Jazzer sanitizer starts its message */
	const char *type;
} jazzer_types[] = {
	{ "OS Command Injection", "OS-command-injection" },
	{ "Remote Code Execution", "Remote-code-execution" },
	{ "SQL Injection", "SQL-injection" },
	{ "LDAP Injection", "LDAP-injection" },
	{ "XPath Injection", "XPath-injection" },
	{ "Remote JNDI Lookup", "Remote-JNDI-lookup" },
	{ "File path traversal", "File-path-traversal" },
	{ "Server Side Request Forgery", "Server-side-request-forgery" },
	{ "Regular Expression Injection", "Regular-expression-injection" },
	{ "Script Engine Injection", "Script-engine-injection" },
	{ "Expression Language Injection", "Expression-language-injection" },
	{ "load arbitrary library", "Load-arbitrary-library" },
	{ "Out of memory", "Out-of-memory" },
	{ "Stack overflow", "Stack-overflow" },
	{ "Timeout", "Timeout" },
};

/*
 * The crash type of "== Java Exception: <cls>: <msg>". A FuzzerSecurityIssue
 * is named by its sanitizer's message, or "Security-exception" when the
 * harness threw it with its own; other throwables are uncaught exceptions,
 * named by the class's simple name, except assertions, stack overflows
 * and heap exhaustion, which get the types native code has for them.
 */
static char *jazzer_type(const char *cls, const char *msg)
{
	const char *simple = strrchr(cls, '.');

	simple = simple ? simple + 1 : cls;
	if (starts_with(simple, "FuzzerSecurityIssue")) {
		for (size_t i = 0; i < sizeof(jazzer_types) /
		     sizeof(*jazzer_types); i++) {
			size_t l = strlen(jazzer_types[i].text);

			if (!strncasecmp(msg, jazzer_types[i].text, l) &&
			    (msg[l] == '\0' || msg[l] == ' ' ||
			     msg[l] == ':' || msg[l] == '('))
				return xstrdup(jazzer_types[i].type);
		}
		return xstrdup("Security-exception");
	}
	if (!strcmp(simple, "AssertionError"))
		return xstrdup("ASSERT");
	if (!strcmp(simple, "StackOverflowError"))
		return xstrdup("Stack-overflow");
	if (!strcmp(simple, "OutOfMemoryError"))
		return xstrdup("Out-of-memory");
	return xasprintf("Uncaught-exception %s", simple);
}

/* "== Java Exception: <class>[: <message>]" or "== Java Assertion Error". */
static int header_jazzer(struct parser *ps, const char *line)
{
	const char *p = strstr(line, "== Java Exception: ");
	const char *cls, *end, *msg;
	struct crash_report *r = ps->r;

	if (!p) {
		if (!(p = strstr(line, "== Java Assertion Error")))
			return 0;
		cls = "java.lang.AssertionError";
		end = cls + strlen(cls);
		msg = end;
	} else {
		for (cls = p + strlen("== Java Exception: "); *cls == ' ';
		     cls++)
			;
		for (end = cls; *end && *end != ':' && *end != ' '; end++)
			;
		if (end == cls)
			return 0;
		for (msg = *end == ':' ? end + 1 : end; *msg == ' '; msg++)
			;
	}
	ps->cls = C_JAZZER;
	r->sanitizer = xstrdup("Jazzer");
	r->kind = dup_field(cls, (size_t)(end - cls));
	r->crash_type = jazzer_type(r->kind, msg);
	set_description(r, p);
	return 1;
}

/* A Java frame gets its position as index: JVM traces do not number. */
static void add_java_frame(struct parser *ps, struct crash_frame *f)
{
	f->index = (int)ps->r->frames_nr;
	add_frame(ps, f);
	frame_release(f);
}

/*
 * One line after a Jazzer header: the sanitizer's explanation (before the
 * first frame), frames, "Caused by:" (whose frames are appended, and
 * which a reflowed report may follow with a frame on the same line),
 * "... N more". Anything else after a frame ends the report.
 */
static void jazzer_line(struct parser *ps, const char *line)
{
	struct crash_report *r = ps->r;
	const char *p = line;
	struct crash_frame f;

	while (*p == ' ')
		p++;
	if (java_frame(&f, p)) {
		add_java_frame(ps, &f);
		ps->st = ST_STACK;
		return;
	}
	if (starts_with(p, "Caused by: ")) {
		if (!ps->cause_seen)
			r->top_frames_nr = r->frames_nr;
		ps->cause_seen = 1;
		ps->st = ST_STACK;
		for (const char *a = p; (a = strstr(a, " at ")); a++)
			if (java_frame(&f, a + 1)) {
				add_java_frame(ps, &f);
				break;
			}
		return;
	}
	if (starts_with(p, "... ") && strstr(p, " more"))
		return;
	if (starts_with(p, "DEDUP_TOKEN:") ||
	    strstr(p, "== libFuzzer crashing input =="))
		ps->st = ST_DONE;
	else if (ps->st == ST_STACK)
		ps->st = ST_DONE;
}

/*
 * After a libFuzzer timeout of a JVM target, Jazzer dumps every thread;
 * the stack of "Thread[main,...]" is the one that ran the input.
 */
static void jvm_thread_line(struct parser *ps, const char *p)
{
	struct crash_frame f;

	if (starts_with(p, "Thread[")) {
		if (ps->jvm_thread == 1 && ps->r->frames_nr)
			ps->st = ST_DONE;
		else
			ps->jvm_thread = starts_with(p, "Thread[main,") ? 1 : 2;
		return;
	}
	if (ps->jvm_thread != 1)
		return;
	if (java_frame(&f, p))
		add_java_frame(ps, &f);
	else if (ps->r->frames_nr)
		ps->st = ST_DONE;
}

static void set_str(char **dst, const char *s, size_t n)
{
	free(*dst);
	*dst = dup_field(s, n);
}

/* Lower-case, ' ' and '_' to '-': "out of memory" -> "out-of-memory". */
static char *normalise_kind(const char *s, size_t n)
{
	char *k = dup_field(s, n < KIND_MAX ? n : KIND_MAX);

	for (char *p = k; *p; p++) {
		if (*p == ' ' || *p == '_')
			*p = '-';
		else
			*p = (char)tolower((unsigned char)*p);
	}
	return k;
}

static const char *const signal_kinds[] = {
	"SEGV", "ABRT", "BUS", "FPE", "ILL", "TRAP",
};

/* The kind word of "ERROR: AddressSanitizer: <text>". */
static char *sanitizer_kind(const char *text)
{
	size_t n = 0;

	if (starts_with(text, "requested allocation size"))
		return xstrdup("allocation-size-too-big");
	if (strstr(text, "out of memory") || strstr(text, "out-of-memory"))
		return xstrdup("out-of-memory");
	if (starts_with(text, "attempting double-free"))
		return xstrdup("double-free");
	if (starts_with(text, "attempting free"))
		return xstrdup("bad-free");
	for (size_t i = 0; i < sizeof(signal_kinds) / sizeof(*signal_kinds);
	     i++) {
		size_t l = strlen(signal_kinds[i]);

		if (!strncmp(text, signal_kinds[i], l) &&
		    (text[l] == ' ' || text[l] == '\0'))
			return xstrdup(signal_kinds[i]);
	}
	while (text[n] && !starts_with(text + n, " on ") &&
	       !starts_with(text + n, ": ") && !starts_with(text + n, " (") &&
	       text[n] != ':')
		n++;
	return normalise_kind(text, n);
}

static const struct {
	const char *needle;
	const char *type;
	const char *access;
} ubsan_types[] = {
	{ "unsigned integer overflow", "Unsigned-integer-overflow", NULL },
	{ "signed integer overflow", "Integer-overflow", NULL },
	{ "negation of", "Integer-overflow", NULL },
	{ "shift exponent", "Undefined-shift", NULL },
	{ "left shift of", "Undefined-shift", NULL },
	{ "out of bounds for type", "Index-out-of-bounds", NULL },
	{ "misaligned address", "Misaligned-address", NULL },
	{ "load of null pointer", "Null-dereference", "READ" },
	{ "store to null pointer", "Null-dereference", "WRITE" },
	{ "applying zero offset to null pointer", "Pointer-overflow", NULL },
	{ "null pointer passed as argument", "Invalid-null-argument", NULL },
	{ "null pointer returned from function", "Invalid-null-return",
	  NULL },
	{ "pointer index expression", "Pointer-overflow", NULL },
	{ "applying non-zero offset", "Pointer-overflow", NULL },
	{ "unsigned offset", "Pointer-overflow", NULL },
	{ "null pointer", "Null-dereference", NULL },
	{ "division by zero", "Divide-by-zero", NULL },
	{ "not a valid value for type 'bool'", "Invalid-bool-value", NULL },
	{ "not a valid value for type", "Invalid-enum-value", NULL },
	{ "unreachable program point", "Unreachable-code", NULL },
	{ "end of a value-returning function", "No-return-value", NULL },
	{ "variable length array bound", "Non-positive-vla-bound-value",
	  NULL },
	{ "does not point to an object of type", "Bad-cast", NULL },
	{ "downcast of", "Bad-cast", NULL },
	{ "upcast of", "Bad-cast", NULL },
	{ "invalid vptr", "Bad-cast", NULL },
	{ "outside the range of representable values", "Float-cast-overflow",
	  NULL },
	{ "implicit conversion from type", "Implicit-conversion", NULL },
	{ "passing zero to", "Invalid-builtin-use", NULL },
	{ "through pointer to incorrect function type",
	  "Incorrect-function-pointer-type", NULL },
	{ "cannot be represented in type", "Integer-overflow", NULL },
};

static void ubsan_classify(struct crash_report *r, const char *reason)
{
	for (size_t i = 0; i < sizeof(ubsan_types) / sizeof(*ubsan_types);
	     i++) {
		if (!strstr(reason, ubsan_types[i].needle))
			continue;
		if (ubsan_types[i].access) {
			r->crash_type = xasprintf("%s %s", ubsan_types[i].type,
						  ubsan_types[i].access);
			r->access = xstrdup(ubsan_types[i].access);
		} else {
			r->crash_type = xstrdup(ubsan_types[i].type);
		}
		return;
	}
	r->crash_type = xstrdup("Undefined-behavior");
}

static void set_description(struct crash_report *r, const char *line)
{
	const char *p = skip_pid(line);
	size_t n = strlen(p);

	if (n > DESC_MAX) {
		n = DESC_MAX;
		while (n && ((unsigned char)p[n] & 0xc0) == 0x80)
			n--;
	}
	set_str(&r->description, p, n);
}

static int header_libfuzzer(struct parser *ps, const char *line)
{
	const char *p = strstr(line, "ERROR: libFuzzer: ");
	struct crash_report *r = ps->r;
	const char *text;

	if (!p)
		return 0;
	text = p + strlen("ERROR: libFuzzer: ");
	if (!*text)
		return 0;
	ps->cls = C_LIBFUZZER;
	r->sanitizer = xstrdup("libFuzzer");
	if (starts_with(text, "timeout")) {
		r->kind = xstrdup("timeout");
		r->crash_type = xstrdup("Timeout");
	} else if (starts_with(text, "out-of-memory")) {
		r->kind = xstrdup("out-of-memory");
		r->crash_type = xstrdup("Out-of-memory");
	} else if (starts_with(text, "deadly signal")) {
		r->kind = xstrdup("deadly signal");
		r->crash_type = xstrdup("Fatal-signal");
	} else if (starts_with(text, "fuzz target exited")) {
		r->kind = xstrdup("fuzz target exited");
		r->crash_type = xstrdup("Unexpected-exit");
	} else if (starts_with(text, "fuzz target overwrites")) {
		r->kind = xstrdup("fuzz target overwrites its const input");
		r->crash_type = xstrdup("Overwrites-const-input");
	} else {
		size_t n = strcspn(text, "(:");

		r->kind = normalise_kind(text, (size_t)(trim_end(text,
							 text + n) - text));
		r->crash_type = xstrdup(r->kind);
		r->crash_type[0] = (char)toupper((unsigned char)r->kind[0]);
	}
	set_description(r, line);
	return 1;
}

static int header_ubsan(struct parser *ps, const char *line)
{
	const char *q = strstr(line, ": runtime error: ");
	const char *start, *file_end;
	struct crash_report *r = ps->r;
	int ln, col;

	if (!q)
		return 0;
	start = memrchr(line, ' ', (size_t)(q - line));
	start = start ? start + 1 : line;
	if (!parse_location(start, q, &file_end, &ln, &col))
		return 0;
	ps->cls = C_UBSAN;
	ps->ub_file = dup_field(start, (size_t)(file_end - start));
	ps->ub_line = ln;
	ps->ub_col = col;
	r->sanitizer = xstrdup("UndefinedBehaviorSanitizer");
	r->kind = xstrdup("undefined-behavior");
	ubsan_classify(r, q + strlen(": runtime error: "));
	set_description(r, line);
	return 1;
}

static int header_sanitizer(struct parser *ps, const char *line)
{
	const char *q = strstr(line, "Sanitizer: ");
	const char *name, *text;
	struct crash_report *r = ps->r;
	int warning;

	if (!q)
		return 0;
	name = q;
	while (name > line && isalnum((unsigned char)name[-1]))
		name--;
	if (name == q)
		return 0;
	if (name - line >= 7 && !strncmp(name - 7, "ERROR: ", 7))
		warning = 0;
	else if (name - line >= 9 && !strncmp(name - 9, "WARNING: ", 9))
		warning = 1;
	else
		return 0;
	if (warning && strncmp(name, "MemorySanitizer", 15) &&
	    strncmp(name, "ThreadSanitizer", 15))
		return 0;
	text = q + strlen("Sanitizer: ");
	if (!*text)
		return 0;
	r->sanitizer = dup_field(name, (size_t)(q + 9 - name));
	if (!strcmp(r->sanitizer, "LeakSanitizer")) {
		ps->cls = C_LSAN;
		r->kind = xstrdup("detected memory leaks");
	} else {
		ps->cls = C_SANITIZER;
		r->kind = sanitizer_kind(text);
	}
	if (!strcmp(r->kind, "SEGV")) {
		const char *a = strstr(text, "unknown address 0x");
		const char *pc = strstr(text, "(pc 0x");

		if (a) {
			ps->addr = strtoull(a + strlen("unknown address "),
					    NULL, 16);
			ps->addr_known = 1;
		}
		if (pc && strtoull(pc + 4, NULL, 16) == 0)
			ps->pc_zero = 1;
	}
	set_description(r, line);
	return 1;
}

static void add_frame(struct parser *ps, struct crash_frame *f)
{
	struct crash_report *r = ps->r;

	if (r->frames_nr >= CRASH_FRAMES_MAX) {
		frame_release(f);
		return;
	}
	ALLOC_GROW(r->frames, r->frames_nr + 1, ps->frames_alloc);
	r->frames[r->frames_nr++] = *f;
	memset(f, 0, sizeof(*f));
}

static void clear_frames(struct crash_report *r)
{
	for (size_t i = 0; i < r->frames_nr; i++)
		frame_release(&r->frames[i]);
	r->frames_nr = 0;
}

static void end_stack(struct parser *ps)
{
	if (ps->cls == C_LSAN && !ps->leak_direct) {
		ps->st = ST_WAIT;	/* a direct leak may still follow */
		ps->leak_armed = 0;
	} else {
		ps->st = ST_DONE;
	}
}

/* Lines between the header and the stack: access, SEGV hints, leaks. */
static void wait_line(struct parser *ps, const char *line)
{
	struct crash_report *r = ps->r;
	const char *p = skip_pid(line);
	const char *acc = NULL;

	if (starts_with(p, "SUMMARY: ")) {
		ps->st = ST_DONE;
		return;
	}
	if (ps->cls == C_LIBFUZZER) {
		jvm_thread_line(ps, p);
		return;
	}
	if (ps->cls == C_LSAN) {
		if (starts_with(p, "Direct leak of") && !ps->leak_direct) {
			clear_frames(r);
			ps->leak_direct = 1;
			ps->leak_armed = 1;
		} else if (starts_with(p, "Indirect leak of") &&
			   !r->frames_nr && !ps->leak_direct) {
			ps->leak_armed = 1;
		}
		return;
	}
	if (ps->cls != C_SANITIZER)
		return;
	if (starts_with(p, "Hint: address points to the zero page"))
		ps->zero_page = 1;
	else if (starts_with(p, "Hint: pc points to the zero page"))
		ps->pc_zero = 1;
	if (r->access)
		return;
	if (starts_with(p, "READ of size "))
		acc = "READ";
	else if (starts_with(p, "WRITE of size "))
		acc = "WRITE";
	if (acc) {
		long n = strtol(p + strlen(acc) + strlen(" of size "), NULL,
				10);

		r->access = xstrdup(acc);
		r->access_size = n > 0 && n < (1L << 30) ? n : -1;
	} else if (starts_with(p, "The signal is caused by a READ")) {
		r->access = xstrdup("READ");
	} else if (starts_with(p, "The signal is caused by a WRITE")) {
		r->access = xstrdup("WRITE");
	}
}

/* The crash type of a sanitizer ERROR report, from its kind and access. */
static char *sanitizer_type(const struct parser *ps)
{
	const struct crash_report *r = ps->r;
	const char *k = r->kind;
	char *base, *type;

	if (!strcmp(k, "SEGV")) {
		int null = !ps->pc_zero && (ps->zero_page ||
			(ps->addr_known && ps->addr < CRASH_NULL_BOUNDARY));
		const char *what = null ? "Null-dereference" : "UNKNOWN";

		return r->access ? xasprintf("%s %s", what, r->access) :
			xstrdup(what);
	}
	if (!strcmp(k, "ABRT"))
		base = xstrdup(ps->assert_seen ? "ASSERT" : "Abrt");
	else if (!strcmp(k, "FPE"))
		base = xstrdup("Floating-point-exception");
	else if (!strcmp(k, "BUS"))
		base = xstrdup("Bus-error");
	else if (!strcmp(k, "ILL"))
		base = xstrdup("Ill");
	else if (!strcmp(k, "TRAP"))
		base = xstrdup("Trap");
	else if (!strcmp(k, "int-divide-by-zero"))
		base = xstrdup("Divide-by-zero");
	else if (!strcmp(k, "double-free"))
		base = xstrdup("Heap-double-free");
	else if (!strcmp(k, "out-of-memory") ||
		 !strcmp(k, "allocation-size-too-big"))
		base = xstrdup("Out-of-memory");
	else {
		base = xstrdup(k);
		base[0] = (char)toupper((unsigned char)base[0]);
	}
	if (!r->access)
		return base;
	if (r->access_size > 16)
		type = xasprintf("%s %s {*}", base, r->access);
	else if (r->access_size > 0)
		type = xasprintf("%s %s %ld", base, r->access,
				 r->access_size);
	else
		type = xasprintf("%s %s", base, r->access);
	free(base);
	return type;
}

static void finish(struct parser *ps)
{
	struct crash_report *r = ps->r;

	if (ps->cls == C_SANITIZER)
		r->crash_type = sanitizer_type(ps);
	else if (ps->cls == C_LSAN)
		r->crash_type = xstrdup(ps->leak_direct || !r->frames_nr ?
					"Direct-leak" : "Indirect-leak");
	if (ps->cls == C_UBSAN && ps->ub_file) {
		struct crash_frame f = { 0 };

		if (!r->frames_nr) {
			f.file = ps->ub_file;
			ps->ub_file = NULL; /* transferred */
			f.line = ps->ub_line;
			f.column = ps->ub_col;
			add_frame(ps, &f);
		} else if (!r->frames[0].file) {
			r->frames[0].file = ps->ub_file;
			ps->ub_file = NULL; /* transferred */
			r->frames[0].line = ps->ub_line;
			r->frames[0].column = ps->ub_col;
		}
	}
	if (!r->crash_type[0]) {	/* "ERROR: libFuzzer: (...)" */
		free(r->crash_type);
		r->crash_type = xstrdup("Crash");
	}
	if (!r->kind[0]) {
		free(r->kind);
		r->kind = xstrdup("crash");
	}
	if (!ps->cause_seen)
		r->top_frames_nr = r->frames_nr;
	r->is_security = cwe_rule_for(r->crash_type)->is_security;
}

static int is_assert_line(const char *line)
{
	return (strstr(line, "Assertion `") && strstr(line, "' failed")) ||
		strstr(line, "Assertion failed");
}

int crash_report_parse(struct crash_report **out, const char *text,
		       size_t len)
{
	struct parser ps = { 0 };
	const char *p = text, *end;
	char *line = xmalloc(CRASH_LINE_MAX + 1);
	int r = CRS_ERR;

	*out = NULL;
	if (len > CRASH_INPUT_MAX)
		len = CRASH_INPUT_MAX;
	end = text + len;
	ps.r = xcalloc(1, sizeof(*ps.r));
	ps.r->access_size = -1;
	while (p < end && ps.st != ST_DONE) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		struct crash_frame f;

		clean_line(line, p, (size_t)(le - p));
		p = nl ? nl + 1 : end;
		if (ps.st != ST_NONE && ps.cls == C_JAZZER) {
			jazzer_line(&ps, line);
			continue;
		}
		if (ps.st != ST_NONE && parse_frame(&f, line)) {
			if (ps.st == ST_WAIT &&
			    (ps.cls != C_LSAN || ps.leak_armed))
				ps.st = ST_STACK;
			else if (ps.st == ST_STACK && f.index == 0 &&
				 ps.r->frames_nr)
				end_stack(&ps);
			if (ps.st == ST_STACK)
				add_frame(&ps, &f);
			frame_release(&f);
			continue;
		}
		if (ps.st == ST_STACK)
			end_stack(&ps);
		if (ps.st == ST_NONE) {
			if (is_assert_line(line))
				ps.assert_seen = 1;
			if (header_libfuzzer(&ps, line) ||
			    header_ubsan(&ps, line) ||
			    header_sanitizer(&ps, line) ||
			    header_jazzer(&ps, line))
				ps.st = ST_WAIT;
			continue;
		}
		if (ps.st == ST_WAIT)
			wait_line(&ps, line);
	}
	if (ps.st == ST_NONE) {
		r = crs_error_set(CRS_ENOTFOUND, "no sanitizer, libFuzzer or "
				  "Jazzer crash report in %zu bytes of output",
				  len);
		goto out;
	}
	finish(&ps);
	*out = ps.r;
	ps.r = NULL; /* transferred */
	r = 0;
out:
	crash_report_free(ps.r);
	free(ps.ub_file);
	free(line);
	return r;
}

void crash_report_free(struct crash_report *r)
{
	if (!r)
		return;
	clear_frames(r);
	free(r->frames);
	free(r->sanitizer);
	free(r->kind);
	free(r->crash_type);
	free(r->access);
	free(r->description);
	free(r);
}
