/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crash_signature.c - a parsed crash's state and signature, as
 * ClusterFuzz makes them: the top project frames, with runtimes,
 * libraries and fuzzer entry points left out
 *
 * Details: docs/internals.md.
 */
#include "sarif/crash.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "common/testable.h"
#include "common/utf8.h"
#include "common/xalloc.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define STATE_LINE_MAX 80	/* ClusterFuzz caps state lines at 80 */

static int starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Function names ClusterFuzz leaves out of a crash state. */
static const char *const ignored_funcs[] = {
	"abort", "exit", "_exit", "raise", "main", "_start", "__start",
	"start_thread", "clone", "clone3", "free", "cfree", "malloc",
	"calloc", "realloc", "reallocarray", "posix_memalign",
	"aligned_alloc", "memalign", "valloc", "pvalloc", "memcpy",
	"memmove", "memset", "memcmp", "memchr", "memrchr", "memmem", "bcmp",
	"bcopy", "bzero", "explicit_bzero", "strcmp", "strncmp", "strcasecmp",
	"strncasecmp", "strcpy", "strncpy", "stpcpy", "stpncpy", "strcat",
	"strncat", "strlen", "strnlen", "strdup", "strndup", "strchr",
	"strrchr", "strstr", "strcasestr", "strspn", "strcspn", "strpbrk",
	"strtok", "strtok_r", "wcslen", "wcscpy", "wcsncpy", "wmemcpy",
	"wmemset", "wmemcmp", "printf", "fprintf", "sprintf", "snprintf",
	"vprintf", "vfprintf", "vsprintf", "vsnprintf", "fwrite", "fread",
	"fputs", "puts", "sscanf", "tgkill", "pthread_kill", "gsignal",
	"longjmp", "siglongjmp", "LLVMFuzzerMutate", "LLVMFuzzerRunDriver",
};

static const char *const ignored_prefixes[] = {
	"__asan", "__msan", "__lsan", "__ubsan", "__tsan", "__hwasan",
	"__dfsan", "__sanitizer", "__interceptor_", "___interceptor_",
	"__interception::", "__libc_", "__GI_", "__pthread_", "__assert",
	"__run_exit_handlers", "__restore_rt", "__kernel_", "__mem", "__str",
	"__wmem", "__wcs", "__chk_fail", "__fortify_fail", "__stack_chk_fail",
	"__cxa_", "__cxxabiv1::", "__gxx_personality", "_Unwind_", "__scudo",
	"scudo::", "fuzzer::", "operator new", "operator delete",
	"std::__1::", "std::__", "std::sys_common::backtrace",
	"std::panicking", "std::panic", "core::panicking", "core::panic",
	"rust_panic", "rust_begin_unwind", "__rust_", "MallocHook", "_dl_",
	"__nptl", "__sigsetjmp", "__longjmp", "__clone", "__printf_chk",
	"__fprintf_chk", "__sprintf_chk", "__snprintf_chk", "__vsnprintf_chk",
	"__vfprintf_chk", "__llvm_",
	/* the JVM: its library, Kotlin's, Jazzer and its honeypot class */
	"java.", "javax.", "jdk.", "sun.", "com.sun.", "kotlin.",
	"com.code_intelligence.jazzer.", "jaz.",
};

/* Paths of runtimes and libraries (Debian's glibc prints relative ones). */
static const char *const ignored_paths[] = {
	"/sanitizer_common/", "/compiler-rt/", "/asan/", "/msan/", "/lsan/",
	"/ubsan/", "/tsan/", "/hwasan/", "/libfuzzer/", "/libFuzzer/",
	"/libc++/", "/libc++abi/", "/libcxx/", "/libcxxabi/", "/glibc-",
	"/usr/include/c++/", "/usr/lib/gcc/", "/rustc/",
};

static const char *const glibc_dirs[] = {
	"csu/", "nptl/", "stdlib/", "signal/", "assert/", "string/",
	"libio/", "malloc/", "posix/", "sysdeps/", "elf/", "misc/", "../",
};

static const char *const ignored_modules[] = {
	"libc.so", "libc-", "libm.so", "libpthread", "ld-linux", "libdl",
	"libstdc++", "libc++", "libgcc_s", "libclang_rt", "linux-vdso",
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

CRS_TESTABLE int crash_frame_ignored(const struct crash_frame *f)
{
	size_t i;

	if (f->func) {
		for (i = 0; i < NELEM(ignored_funcs); i++)
			if (!strcmp(f->func, ignored_funcs[i]))
				return 1;
		for (i = 0; i < NELEM(ignored_prefixes); i++)
			if (starts_with(f->func, ignored_prefixes[i]))
				return 1;
	}
	if (f->file) {
		for (i = 0; i < NELEM(ignored_paths); i++)
			if (strstr(f->file, ignored_paths[i]))
				return 1;
		for (i = 0; i < NELEM(glibc_dirs); i++)
			if (starts_with(f->file, glibc_dirs[i]))
				return 1;
	}
	if (!f->func && !f->file && f->module) {
		const char *base = strrchr(f->module, '/');

		base = base ? base + 1 : f->module;
		for (i = 0; i < NELEM(ignored_modules); i++)
			if (starts_with(base, ignored_modules[i]))
				return 1;
	}
	return 0;
}

int crash_frame_in_project(const struct crash_frame *f, const char *src_root)
{
	size_t n;
	const char *rest;

	if (!f->file || !src_root || !*src_root)
		return 0;
	n = strlen(src_root);
	while (n > 1 && src_root[n - 1] == '/')
		n--;
	if (strncmp(f->file, src_root, n) || f->file[n] != '/')
		return 0;
	rest = f->file + n;
	for (const char *p = rest; (p = strstr(p, "/..")); p += 3)
		if (p[3] == '/' || p[3] == '\0')
			return 0;
	return !crash_frame_ignored(f);
}

char *crash_frame_java_path(const struct crash_frame *f)
{
	const char *m, *c;
	char *pkg, *path;

	if (!f->func || !f->file || strchr(f->file, '/') ||
	    !strchr(f->file, '.') || strchr(f->func, ' ') ||
	    !(m = strrchr(f->func, '.')) || m == f->func)
		return NULL;
	c = memrchr(f->func, '.', (size_t)(m - f->func));
	if (!c)
		return xstrdup(f->file);
	pkg = xstrndup(f->func, (size_t)(c - f->func));
	for (char *q = pkg; *q; q++)
		if (*q == '.')
			*q = '/';
	path = xasprintf("%s/%s", pkg, f->file);
	free(pkg);
	return path;
}

/* Crash types whose stack says nothing: their state is the harness. */
static int state_is_harness(const char *crash_type)
{
	return !strcmp(crash_type, "Timeout") ||
		!strcmp(crash_type, "Out-of-memory") ||
		!strcmp(crash_type, "Overwrites-const-input");
}

/*
 * ClusterFuzz's clean-up of one function name for a state line: drop
 * "(anonymous namespace)::" and "non-virtual thunk to ", cut the argument
 * list and " [clone ...]", "0x<4+ hex>" -> ADDRESS, 80 bytes at most.
 */
static void add_state_name(struct buf *b, const char *func)
{
	struct buf n = BUF_INIT;
	const char *p = func, *cut;
	size_t start = b->len;

	if (starts_with(p, "non-virtual thunk to "))
		p += strlen("non-virtual thunk to ");
	while (*p) {
		if (starts_with(p, "(anonymous namespace)::")) {
			p += strlen("(anonymous namespace)::");
			continue;
		}
		buf_addch(&n, *p++);
	}
	cut = strstr(n.ptr, "operator()");
	cut = strchr(cut ? cut + strlen("operator()") : n.ptr, '(');
	if (cut)
		n.len = (size_t)(cut - n.ptr);
	if ((cut = strstr(n.ptr, " [")) && (size_t)(cut - n.ptr) < n.len)
		n.len = (size_t)(cut - n.ptr);
	while (n.len && n.ptr[n.len - 1] == ' ')
		n.len--;
	n.ptr[n.len] = '\0';
	for (p = n.ptr; *p && b->len - start < STATE_LINE_MAX; ) {
		size_t h = 0;

		if (p[0] == '0' && p[1] == 'x') {
			while (isxdigit((unsigned char)p[2 + h]))
				h++;
			if (h >= 4) {
				buf_adds(b, "ADDRESS");
				p += 2 + h;
				continue;
			}
		}
		buf_addch(b, *p++);
	}
	if (b->len - start > STATE_LINE_MAX) {
		b->len = start + STATE_LINE_MAX;
		b->ptr[b->len] = '\0';
	}
	/* never leave half a UTF-8 sequence at the cut */
	while (b->len > start && !utf8_is_clean(b->ptr + start)) {
		b->len--;
		b->ptr[b->len] = '\0';
	}
	b->ptr[b->len] = '\0';
	buf_release(&n);
}

/* The entry point of a fuzz target, C or JVM. */
static int is_entry_point(const char *func)
{
	size_t n = strlen(func), l = strlen(".fuzzerTestOneInput");

	return !strcmp(func, "LLVMFuzzerTestOneInput") ||
		(n > l && !strcmp(func + n - l, ".fuzzerTestOneInput"));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * The frames of a Jazzer stack overflow's recursion cycle, that is the
 * top section, their distinct names sorted: the order in which the cycle
 * is printed depends on where the stack ran out.
 */
static const struct crash_frame **cycle_frames(const struct crash_report *r,
					       size_t *nr)
{
	const struct crash_frame **v;
	const char **names;
	size_t n = 0, k = 0, top = r->top_frames_nr;

	*nr = 0;
	if (!r->sanitizer || strcmp(r->sanitizer, "Jazzer") ||
	    strcmp(r->crash_type, "Stack-overflow") || !top ||
	    top > r->frames_nr)
		return NULL;
	names = xcalloc(top, sizeof(*names));
	for (size_t i = 0; i < top; i++)
		if (r->frames[i].func && !crash_frame_ignored(&r->frames[i]))
			names[n++] = r->frames[i].func;
	qsort(names, n, sizeof(*names), cmp_str);
	v = xcalloc(n ? n : 1, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		if (i && !strcmp(names[i], names[i - 1]))
			continue;
		for (size_t j = 0; j < top; j++)
			if (r->frames[j].func == names[i]) {
				v[k++] = &r->frames[j];
				break;
			}
	}
	free(names);
	*nr = k;
	return v;
}

CRS_TESTABLE char *crash_state(const struct crash_report *r, const char *harness)
{
	struct buf b = BUF_INIT;
	const struct crash_frame **cycle;
	size_t cycle_nr, total;
	int n = 0;

	if (state_is_harness(r->crash_type))
		return xstrdup(harness ? harness : "NULL");
	cycle = cycle_frames(r, &cycle_nr);
	total = cycle_nr ? cycle_nr : r->frames_nr;
	for (size_t i = 0; i < total && n < CRASH_STATE_FRAMES; i++) {
		const struct crash_frame *f = cycle_nr ? cycle[i] :
			&r->frames[i];
		size_t before = b.len;

		if (!f->func || crash_frame_ignored(f))
			continue;
		if (n)
			buf_addch(&b, '\n');
		if (harness && is_entry_point(f->func))
			buf_adds(&b, harness);
		else
			add_state_name(&b, f->func);
		if (b.len == before + (n ? 1 : 0)) {
			b.len = before;
			b.ptr[b.len] = '\0';
			continue;
		}
		n++;
	}
	free(cycle);
	if (!n) {
		buf_release(&b);
		return xstrdup(harness ? harness : "NULL");
	}
	return buf_detach(&b, NULL);
}

/*
 * The access size is left out of the signature on purpose: two inputs
 * that overflow the same buffer by 8 and by 10 bytes are one bug, and
 * a fuzzer finds both. The size stays in crash_type for people.
 */
char *crash_signature(const struct crash_report *r, const char *harness)
{
	char *state = crash_state(r, harness);
	const char *type = r->crash_type ? r->crash_type : "Crash";
	size_t n = strlen(type);
	char *sig;

	if (r->access_size >= 0 || strstr(type, " {*}")) {
		const char *sp = strrchr(type, ' ');

		if (sp && (sp[1] == '{' || (sp[1] >= '0' && sp[1] <= '9')))
			n = (size_t)(sp - type);
	}
	sig = xasprintf("%.*s\n%s", (int)n, type, state);

	free(state);
	return sig;
}

void crash_signature_id(char out[17], const char *signature)
{
	char hex[65];

	sha256_hex(hex, signature, strlen(signature));
	memcpy(out, hex, 16);
	out[16] = '\0';
}
