/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_crash_parse.c - the sanitizer report parser on real reports
 *
 * The fixtures in tests/fixtures/crash/ are real outputs of clang-14
 * fuzz targets built from tests/fixtures/crash/src-tiny/ (see regen.sh
 * there), plus one hand-trimmed report, plus published Jazzer reports
 * (jazzer_*.txt, sources in SOURCES.md there). Run from the repository
 * root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sarif/crash.h"
#include "sarif/cwe.h"
#include "common/utf8.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIXTURES "tests/fixtures/crash/"
#define HARNESS "fuzz_parse"
#define ROOT "/src/tiny/"

static struct crash_report *parse_fixture(const char *name)
{
	struct buf b = BUF_INIT;
	struct crash_report *r = NULL;
	char *path = xasprintf(FIXTURES "%s", name);

	assert_int_equal(fs_read_file(&b, path, CRASH_INPUT_MAX), 0);
	assert_int_equal(crash_report_parse(&r, b.ptr, b.len), 0);
	assert_non_null(r);
	assert_non_null(r->crash_type);
	assert_non_null(r->kind);
	assert_non_null(r->sanitizer);
	assert_non_null(r->description);
	buf_release(&b);
	free(path);
	return r;
}

static char *signature_of(const char *name)
{
	struct crash_report *r = parse_fixture(name);
	char *sig = crash_signature(r, HARNESS);

	crash_report_free(r);
	return sig;
}

static void assert_frame(const struct crash_frame *f, int index,
			 const char *func, const char *file, int line, int col)
{
	assert_int_equal(f->index, index);
	if (func)
		assert_string_equal(f->func, func);
	else
		assert_null(f->func);
	if (file)
		assert_string_equal(f->file, file);
	else
		assert_null(f->file);
	assert_int_equal(f->line, line);
	assert_int_equal(f->column, col);
}

static void assert_state(const struct crash_report *r, const char *want)
{
	char *state = crash_state(r, HARNESS);

	assert_string_equal(state, want);
	free(state);
}

/* --- AddressSanitizer -------------------------------------------------- */

static void test_asan_heap_overflow_write(void **st)
{
	struct crash_report *r;

	(void)st;
	r = parse_fixture("asan_heap_overflow_write_a.txt");
	assert_string_equal(r->sanitizer, "AddressSanitizer");
	assert_string_equal(r->kind, "heap-buffer-overflow");
	assert_string_equal(r->crash_type, "Heap-buffer-overflow WRITE {*}");
	assert_string_equal(r->access, "WRITE");
	assert_int_equal(r->access_size, 20);
	assert_true(r->is_security);
	assert_true(strncmp(r->description, "ERROR: AddressSanitizer: "
			    "heap-buffer-overflow on address", 56) == 0);
	/* only the crashing stack, not "allocated by thread T0 here:" */
	assert_int_equal(r->frames_nr, 10);
	/* Debian quirk: frame #0 is __asan_memcpy with no file */
	assert_frame(&r->frames[0], 0, "__asan_memcpy", NULL, 0, 0);
	assert_non_null(strstr(r->frames[0].module, "fuzz_parse_asan+0x"));
	assert_true(crash_frame_ignored(&r->frames[0]));
	assert_false(crash_frame_in_project(&r->frames[0], ROOT));
	assert_frame(&r->frames[1], 1, "parse_record", "/src/tiny/parse.c",
		     20, 2);
	assert_true(crash_frame_in_project(&r->frames[1], ROOT));
	assert_frame(&r->frames[2], 2, "LLVMFuzzerTestOneInput",
		     "/src/tiny/fuzz_parse.c", 12, 19);
	assert_frame(&r->frames[3], 3, "fuzzer::Fuzzer::ExecuteCallback("
		     "unsigned char const*, unsigned long)", NULL, 0, 0);
	assert_frame(&r->frames[7], 7, "__libc_start_call_main",
		     "csu/../sysdeps/nptl/libc_start_call_main.h", 58, 16);
	assert_true(crash_frame_ignored(&r->frames[7]));
	assert_state(r, "parse_record\n" HARNESS);
	crash_report_free(r);
}

static void test_asan_same_bug_same_signature(void **st)
{
	char *a = signature_of("asan_heap_overflow_write_a.txt");
	char *b = signature_of("asan_heap_overflow_write_b.txt");
	char *t = signature_of("asan_trimmed_buildid.txt");
	char *read1 = signature_of("asan_heap_overflow_read.txt");
	char *read2 = signature_of("asan_fuzzing_session.txt");
	char id_a[17], id_b[17], id_r[17];

	(void)st;
	/* two inputs of different lengths (20 and 38 byte writes) */
	assert_string_equal(a, "Heap-buffer-overflow WRITE\n"
			    "parse_record\n" HARNESS);
	assert_string_equal(a, b);
	assert_string_equal(a, t);
	/* a hand-made input and one the fuzzer found on its own */
	assert_string_equal(read1, read2);
	assert_string_not_equal(a, read1);
	crash_signature_id(id_a, a);
	crash_signature_id(id_b, b);
	crash_signature_id(id_r, read1);
	assert_string_equal(id_a, id_b);
	assert_string_not_equal(id_a, id_r);
	free(a);
	free(b);
	free(t);
	free(read1);
	free(read2);
}

static char *signature_of_text(const char *text)
{
	struct crash_report *r = NULL;
	char *sig;

	assert_int_equal(crash_report_parse(&r, text, strlen(text)), 0);
	sig = crash_signature(r, HARNESS);
	crash_report_free(r);
	return sig;
}

/* Same buffer overflowed by 8 and by 10 bytes: one bug, one signature. */
static void test_signature_ignores_access_size(void **st)
{
	static const char fmt[] =
		"==1==ERROR: AddressSanitizer: heap-buffer-overflow on address "
		"0x602000000011 at pc 0x1 bp 0x2 sp 0x3\n"
		"WRITE of size %d at 0x602000000011 thread T0\n"
		"    #0 0x4 in __asan_memcpy (/out/f+0x4)\n"
		"    #1 0x5 in parse_extended /src/r/src/recparse.c:39:3\n"
		"    #2 0x6 in parse_record /src/r/src/recparse.c:80:10\n";
	char a[1024], b[1024];
	char *sa, *sb;

	(void)st;
	snprintf(a, sizeof(a), fmt, 8);
	snprintf(b, sizeof(b), fmt, 10);
	sa = signature_of_text(a);
	sb = signature_of_text(b);
	assert_string_equal(sa, sb);
	assert_string_equal(sa, "Heap-buffer-overflow WRITE\n"
			    "parse_extended\nparse_record");
	free(sa);
	free(sb);
}

static void test_asan_trimmed_buildid(void **st)
{
	struct crash_report *r = parse_fixture("asan_trimmed_buildid.txt");

	(void)st;
	assert_int_equal(r->frames_nr, 10);
	assert_frame(&r->frames[0], 0, "__asan_memcpy", NULL, 0, 0);
	assert_string_equal(r->frames[0].module, "/out/fuzz_parse+0xdefe9");
	assert_frame(&r->frames[9], 9, "_start", NULL, 0, 0);
	assert_string_equal(r->frames[9].module, "/out/fuzz_parse+0x279a0");
	crash_report_free(r);
}

static void test_asan_unsymbolized(void **st)
{
	struct crash_report *r = parse_fixture("asan_unsymbolized.txt");

	(void)st;
	assert_string_equal(r->crash_type, "Heap-buffer-overflow WRITE {*}");
	assert_int_equal(r->frames_nr, 10);
	for (size_t i = 0; i < r->frames_nr; i++) {
		assert_null(r->frames[i].func);
		assert_null(r->frames[i].file);
		assert_non_null(r->frames[i].module);
	}
	assert_string_equal(r->frames[1].module,
			    "/tmp/crashgen/fuzz_parse_asan+0x11ae52");
	assert_true(crash_frame_ignored(&r->frames[7]));	/* libc.so.6 */
	assert_false(crash_frame_ignored(&r->frames[1]));
	/* no function names at all: the state is the harness */
	assert_state(r, HARNESS);
	crash_report_free(r);
}

static void test_asan_other_kinds(void **st)
{
	static const struct {
		const char *file, *type, *func, *state;
		int line, frames, security;
	} cases[] = {
		{ "asan_heap_overflow_read.txt", "Heap-buffer-overflow READ 4",
		  "sum_fields", "sum_fields\n" HARNESS, 34, 9, 1 },
		{ "asan_stack_overflow.txt", "Stack-buffer-overflow WRITE 16",
		  "local_copy", "local_copy\n" HARNESS, 95, 10, 1 },
		{ "asan_use_after_free.txt", "Heap-use-after-free READ 1",
		  "use_after", "use_after\n" HARNESS, 77, 9, 1 },
		{ "asan_double_free.txt", "Heap-double-free", "twice",
		  "twice\n" HARNESS, 85, 10, 1 },
		{ "asan_segv_null.txt", "Null-dereference READ", "walk",
		  "walk\n" HARNESS, 68, 9, 0 },
		{ "asan_abort.txt", "ASSERT", "check_header",
		  "check_header\n" HARNESS, 142, 14, 0 },
	};

	(void)st;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct crash_report *r = parse_fixture(cases[i].file);
		const struct crash_frame *top = NULL;

		assert_string_equal(r->sanitizer, "AddressSanitizer");
		assert_string_equal(r->crash_type, cases[i].type);
		assert_int_equal(r->frames_nr, (size_t)cases[i].frames);
		assert_int_equal(r->is_security, cases[i].security);
		for (size_t k = 0; k < r->frames_nr && !top; k++)
			if (!crash_frame_ignored(&r->frames[k]))
				top = &r->frames[k];
		assert_non_null(top);
		assert_string_equal(top->func, cases[i].func);
		assert_string_equal(top->file, "/src/tiny/parse.c");
		assert_int_equal(top->line, cases[i].line);
		assert_state(r, cases[i].state);
		crash_report_free(r);
	}
}

static void test_segv_same_bug_other_sanitizer(void **st)
{
	char *a = signature_of("asan_segv_null.txt");
	char *u = signature_of("ubsan_segv_plain.txt");

	(void)st;
	assert_string_equal(a, u);
	free(a);
	free(u);
}

static void test_lsan_direct_leak(void **st)
{
	struct crash_report *r = parse_fixture("asan_leak.txt");

	(void)st;
	assert_string_equal(r->sanitizer, "LeakSanitizer");
	assert_string_equal(r->kind, "detected memory leaks");
	assert_string_equal(r->crash_type, "Direct-leak");
	assert_false(r->is_security);
	assert_int_equal(r->frames_nr, 8);
	assert_frame(&r->frames[0], 0, "malloc", NULL, 0, 0);
	assert_frame(&r->frames[1], 1, "keep", "/src/tiny/parse.c", 101, 9);
	assert_state(r, "keep\n" HARNESS);
	crash_report_free(r);
}

static void test_lsan_direct_wins(void **st)
{
	static const char text[] =
		"==9==ERROR: LeakSanitizer: detected memory leaks\n\n"
		"Indirect leak of 8 byte(s) in 1 object(s) allocated from:\n"
		"    #0 0x1 in malloc (/out/f+0x10)\n"
		"    #1 0x2 in make_child /src/p/tree.c:10:3\n\n"
		"Direct leak of 16 byte(s) in 1 object(s) allocated from:\n"
		"    #0 0x1 in malloc (/out/f+0x10)\n"
		"    #1 0x3 in make_root /src/p/tree.c:20:5\n"
		"    #2 0x4 in LLVMFuzzerTestOneInput /src/p/fuzz.c:7:3\n\n"
		"SUMMARY: AddressSanitizer: 24 byte(s) leaked in 2 "
		"allocation(s).\n";
	struct crash_report *r = NULL;

	(void)st;
	assert_int_equal(crash_report_parse(&r, text, strlen(text)), 0);
	assert_string_equal(r->crash_type, "Direct-leak");
	assert_int_equal(r->frames_nr, 3);
	assert_frame(&r->frames[1], 1, "make_root", "/src/p/tree.c", 20, 5);
	crash_report_free(r);
}

/* --- libFuzzer --------------------------------------------------------- */

static void test_libfuzzer_kinds(void **st)
{
	static const struct {
		const char *file, *kind, *type, *state, *func;
		int line;
	} cases[] = {
		{ "libfuzzer_timeout.txt", "timeout", "Timeout", HARNESS,
		  "spin", 108 },
		{ "libfuzzer_oom.txt", "out-of-memory", "Out-of-memory",
		  HARNESS, "hog", 115 },
		{ "libfuzzer_deadly_signal.txt", "deadly signal",
		  "Fatal-signal", "walk\n" HARNESS, "walk", 68 },
		{ "libfuzzer_exit.txt", "fuzz target exited",
		  "Unexpected-exit", HARNESS, "LLVMFuzzerTestOneInput", 28 },
	};

	(void)st;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct crash_report *r = parse_fixture(cases[i].file);
		const struct crash_frame *top = NULL;

		assert_string_equal(r->sanitizer, "libFuzzer");
		assert_string_equal(r->kind, cases[i].kind);
		assert_string_equal(r->crash_type, cases[i].type);
		assert_false(r->is_security);
		assert_null(r->access);
		for (size_t k = 0; k < r->frames_nr && !top; k++)
			if (crash_frame_in_project(&r->frames[k], ROOT))
				top = &r->frames[k];
		assert_non_null(top);
		assert_string_equal(top->func, cases[i].func);
		assert_int_equal(top->line, cases[i].line);
		assert_state(r, cases[i].state);
		crash_report_free(r);
	}
}

static void test_timeout_frame_without_function(void **st)
{
	struct crash_report *r = parse_fixture("libfuzzer_timeout.txt");

	(void)st;
	/* "#3 0x7f676ba5a04f  (/lib/x86_64-linux-gnu/libc.so.6+0x3c04f)" */
	assert_null(r->frames[3].func);
	assert_null(r->frames[3].file);
	assert_string_equal(r->frames[3].module,
			    "/lib/x86_64-linux-gnu/libc.so.6+0x3c04f");
	assert_true(crash_frame_ignored(&r->frames[3]));
	assert_string_equal(r->description,
			    "ERROR: libFuzzer: timeout after 3 seconds");
	crash_report_free(r);
}

/* --- UBSan and MSan ---------------------------------------------------- */

static void test_ubsan_kinds(void **st)
{
	static const struct {
		const char *file, *type, *func;
		int line, col, security;
	} cases[] = {
		{ "ubsan_int_overflow.txt", "Integer-overflow", "scale", 41, 11,
		  0 },
		{ "ubsan_shift.txt", "Undefined-shift", "shift_by", 46, 11, 0 },
		{ "ubsan_divzero.txt", "Divide-by-zero", "div_by", 51, 11, 0 },
		{ "ubsan_oob.txt", "Index-out-of-bounds", "lookup", 58, 9, 1 },
		{ "ubsan_null.txt", "Null-dereference", "walk", 68, 13, 0 },
		{ "ubsan_misaligned.txt", "Misaligned-address", "misaligned",
		  137, 9, 0 },
	};

	(void)st;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct crash_report *r = parse_fixture(cases[i].file);
		char *state = xasprintf("%s\n" HARNESS, cases[i].func);

		assert_string_equal(r->sanitizer,
				    "UndefinedBehaviorSanitizer");
		assert_string_equal(r->kind, "undefined-behavior");
		assert_string_equal(r->crash_type, cases[i].type);
		assert_int_equal(r->is_security, cases[i].security);
		assert_non_null(strstr(r->description, ": runtime error: "));
		assert_int_equal(r->frames_nr, 9);
		assert_frame(&r->frames[0], 0, cases[i].func,
			     "/src/tiny/parse.c", cases[i].line,
			     cases[i].col);
		assert_state(r, state);
		free(state);
		crash_report_free(r);
	}
}

static void test_ubsan_location_from_error_line(void **st)
{
	struct crash_report *r = parse_fixture("ubsan_no_stack.txt");

	(void)st;
	assert_string_equal(r->crash_type, "Integer-overflow");
	assert_int_equal(r->frames_nr, 1);
	assert_frame(&r->frames[0], 0, NULL, "parse.c", 41, 11);
	assert_string_equal(r->description, "parse.c:41:11: runtime error: "
			    "signed integer overflow: 2130706432 * 256 cannot "
			    "be represented in type 'int'");
	assert_state(r, HARNESS);
	crash_report_free(r);
}

static void test_msan(void **st)
{
	struct crash_report *r = parse_fixture("msan_uninit.txt");

	(void)st;
	assert_string_equal(r->sanitizer, "MemorySanitizer");
	assert_string_equal(r->crash_type, "Use-of-uninitialized-value");
	assert_true(r->is_security);
	/* not the origin stack ("Uninitialized value was created by") */
	assert_int_equal(r->frames_nr, 9);
	assert_frame(&r->frames[0], 0, "uninit", "/src/tiny/parse.c", 128, 6);
	assert_state(r, "uninit\n" HARNESS);
	crash_report_free(r);
}

/* --- state and signature details --------------------------------------- */

static void test_state_cleanup(void **st)
{
	static const char text[] =
		"==1==ERROR: AddressSanitizer: heap-use-after-free on address "
		"0x6 at pc 0x1 bp 0x2 sp 0x3\n"
		"READ of size 64 at 0x6 thread T0\n"
		"    #0 0x1 in memcpy /build/glibc-x/string/memcpy.c:1:1\n"
		"    #1 0x2 in (anonymous namespace)::Parser::take(int) "
		"/src/p/a.cc:5:7\n"
		"    #2 0x3 in non-virtual thunk to Base::run() "
		"/src/p/b.cc:9:1\n"
		"    #3 0x4 in handler_0x7fffdeadbeef /src/p/c.c:3:3\n"
		"    #4 0x5 in LLVMFuzzerTestOneInput /src/p/fuzz.cc:2:2\n";
	struct crash_report *r = NULL;
	char *sig;
	char id[17], hex[65];

	(void)st;
	assert_int_equal(crash_report_parse(&r, text, strlen(text)), 0);
	assert_string_equal(r->crash_type, "Heap-use-after-free READ {*}");
	assert_state(r, "Parser::take\nBase::run\nhandler_ADDRESS");
	sig = crash_signature(r, "fuzz");
	assert_string_equal(sig, "Heap-use-after-free READ\n"
			    "Parser::take\nBase::run\nhandler_ADDRESS");
	crash_signature_id(id, sig);
	sha256_hex(hex, sig, strlen(sig));
	assert_int_equal(strlen(id), 16);
	assert_memory_equal(id, hex, 16);
	free(sig);
	/* without a harness name the entry point stays as it is */
	free(r->frames[1].func);
	r->frames[1].func = xstrdup("malloc");
	free(r->frames[2].func);
	r->frames[2].func = xstrdup("free");
	free(r->frames[3].func);
	r->frames[3].func = xstrdup("fuzzer::RunOne");
	sig = crash_state(r, NULL);
	assert_string_equal(sig, "LLVMFuzzerTestOneInput");
	free(sig);
	crash_report_free(r);
}

static void test_in_project(void **st)
{
	struct crash_frame f = { 0 };

	(void)st;
	f.func = "parse";
	f.file = "/src/tiny/lib/parse.c";
	assert_true(crash_frame_in_project(&f, "/src/tiny/"));
	assert_true(crash_frame_in_project(&f, "/src/tiny"));
	assert_false(crash_frame_in_project(&f, "/src/tin"));
	assert_false(crash_frame_in_project(&f, NULL));
	assert_false(crash_frame_in_project(&f, ""));
	f.file = "/src/tiny/../etc/passwd";
	assert_false(crash_frame_in_project(&f, "/src/tiny/"));
	f.file = "/src/tiny/a/..";
	assert_false(crash_frame_in_project(&f, "/src/tiny/"));
	f.file = "/src/tiny/a..b.c";
	assert_true(crash_frame_in_project(&f, "/src/tiny/"));
	f.file = "/src/tiny/third_party/compiler-rt/asan/asan_rtl.cpp";
	assert_false(crash_frame_in_project(&f, "/src/tiny/"));
	f.file = NULL;
	assert_false(crash_frame_in_project(&f, "/src/tiny/"));
}

/* --- hostile input ----------------------------------------------------- */

static void test_no_report(void **st)
{
	static const char *const texts[] = {
		"",
		"INFO: Seed: 1\n#2\tINITED cov: 4 ft: 5 corp: 1/4b\n",
		"myapp: runtime error: disk full\n",
		"==1==WARNING: AddressSanitizer: something odd\n",
		"ERROR: AddressSanitizer:\n",
		"    #0 0x1 in main /src/x.c:1:1\n",
	};
	struct crash_report *r = NULL;
	unsigned char noise[65536];
	uint32_t x = 2463534242u;

	(void)st;
	for (size_t i = 0; i < sizeof(texts) / sizeof(*texts); i++) {
		assert_int_equal(crash_report_parse(&r, texts[i],
				 strlen(texts[i])), CRS_ENOTFOUND);
		assert_null(r);
		assert_non_null(strstr(crs_error_last(), "no sanitizer"));
	}
	for (size_t i = 0; i < sizeof(noise); i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		noise[i] = (unsigned char)x;
	}
	assert_int_equal(crash_report_parse(&r, (char *)noise, sizeof(noise)),
			 CRS_ENOTFOUND);
	crs_error_clear();
}

static char *fixture_text(const char *name, size_t *len)
{
	struct buf b = BUF_INIT;
	char *path = xasprintf(FIXTURES "%s", name);

	assert_int_equal(fs_read_file(&b, path, CRASH_INPUT_MAX), 0);
	free(path);
	return buf_detach(&b, len);
}

static void test_huge_lines(void **st)
{
	size_t rlen, big = 1u << 20;
	char *report = fixture_text("asan_heap_overflow_write_a.txt", &rlen);
	struct buf b = BUF_INIT;
	struct crash_report *r = NULL;
	char *sig;

	(void)st;
	/* a 1 MiB line before the report: cut, skipped, report still found */
	for (size_t i = 0; i < big; i++)
		buf_addch(&b, (char)('A' + i % 26));
	buf_addch(&b, '\n');
	buf_add(&b, report, rlen);
	assert_int_equal(crash_report_parse(&r, b.ptr, b.len), 0);
	sig = crash_signature(r, HARNESS);
	assert_string_equal(sig, "Heap-buffer-overflow WRITE\n"
			    "parse_record\n" HARNESS);
	free(sig);
	crash_report_free(r);
	/* the report past CRASH_INPUT_MAX is not looked at */
	buf_reset(&b);
	for (size_t i = 0; i < CRASH_INPUT_MAX; i++)
		buf_addch(&b, i % 200 == 199 ? '\n' : 'x');
	buf_add(&b, report, rlen);
	assert_int_equal(crash_report_parse(&r, b.ptr, b.len), CRS_ENOTFOUND);
	crs_error_clear();
	/* a 100 KiB function name and path inside a frame are capped */
	buf_reset(&b);
	buf_adds(&b, "==1==ERROR: AddressSanitizer: SEGV on unknown address "
		 "0x000000001234 (pc 0x1 bp 0x2 sp 0x3 T0)\n"
		 "==1==The signal is caused by a WRITE memory access.\n"
		 "    #0 0x1 in ");
	for (size_t i = 0; i < 100000; i++)
		buf_addch(&b, 'f');
	buf_adds(&b, " /src/");
	for (size_t i = 0; i < 100000; i++)
		buf_addch(&b, 'd');
	buf_adds(&b, ".c:1:2\n");
	assert_int_equal(crash_report_parse(&r, b.ptr, b.len), 0);
	assert_string_equal(r->crash_type, "UNKNOWN WRITE");
	assert_true(r->is_security);
	assert_int_equal(r->frames_nr, 1);
	assert_non_null(r->frames[0].func);
	assert_true(strlen(r->frames[0].func) <= 1024);
	crash_report_free(r);
	buf_release(&b);
	free(report);
}

static void test_truncated(void **st)
{
	size_t len;
	char *report = fixture_text("asan_heap_overflow_write_a.txt", &len);
	const char *cut = strstr(report, "/src/tiny/fuzz_parse.c:12:19");
	const char *hdr = strstr(report, "WRITE of size");
	struct crash_report *r = NULL;

	(void)st;
	assert_non_null(cut);
	/* cut in the middle of frame #2's path */
	assert_int_equal(crash_report_parse(&r, report,
			 (size_t)(cut - report) + 12), 0);
	assert_string_equal(r->crash_type, "Heap-buffer-overflow WRITE {*}");
	assert_int_equal(r->frames_nr, 3);
	assert_frame(&r->frames[1], 1, "parse_record", "/src/tiny/parse.c",
		     20, 2);
	assert_string_equal(r->frames[2].func, "LLVMFuzzerTestOneInput");
	crash_report_free(r);
	/* cut right after the header line: a type, no access, no frames */
	assert_int_equal(crash_report_parse(&r, report,
			 (size_t)(hdr - report)), 0);
	assert_string_equal(r->crash_type, "Heap-buffer-overflow");
	assert_int_equal(r->frames_nr, 0);
	assert_state(r, HARNESS);
	crash_report_free(r);
	/* every prefix parses or says "not found", never crashes */
	for (size_t n = 0; n <= len; n += 7) {
		if (crash_report_parse(&r, report, n) == 0)
			crash_report_free(r);
		crs_error_clear();
	}
	free(report);
}

static void test_odd_headers(void **st)
{
	static const struct {
		const char *text, *kind, *type;
	} cases[] = {
		{ "==1==ERROR: AddressSanitizer: : x\n", "crash", "Crash" },
		{ "==1== ERROR: libFuzzer: (x)\n", "crash", "Crash" },
		{ "==1==ERROR: AddressSanitizer: out of memory: allocator is "
		  "trying to allocate 0x10000000000 bytes\n", "out-of-memory",
		  "Out-of-memory" },
		{ "==1==ERROR: AddressSanitizer: requested allocation size "
		  "0xffffffffffffffff exceeds maximum supported size\n",
		  "allocation-size-too-big", "Out-of-memory" },
		{ "==1==ERROR: AddressSanitizer: attempting free on address "
		  "which was not malloc()-ed: 0x1 in thread T0\n", "bad-free",
		  "Bad-free" },
		{ "==1==ERROR: AddressSanitizer: FPE on unknown address 0x1 "
		  "(pc 0x1 bp 0x2 sp 0x3 T0)\n", "FPE",
		  "Floating-point-exception" },
		{ "==1==ERROR: AddressSanitizer: SEGV on unknown address "
		  "0x000000000000 (pc 0x000000000000 bp 0x2 sp 0x3 T0)\n"
		  "==1==Hint: pc points to the zero page.\n", "SEGV",
		  "UNKNOWN" },
		{ "==1==ERROR: AddressSanitizer: SEGV on unknown address "
		  "(pc 0x1 bp 0x2 sp 0x3 T0)\n"
		  "==1==The signal is caused by a WRITE memory access.\n"
		  "==1==Hint: address points to the zero page.\n", "SEGV",
		  "Null-dereference WRITE" },
		{ "==1==ERROR: AddressSanitizer: SEGV on unknown address "
		  "0x602000000010 (pc 0x1 bp 0x2 sp 0x3 T0)\n"
		  "==1==The signal is caused by a READ memory access.\n",
		  "SEGV", "UNKNOWN READ" },
		{ "==1==ERROR: AddressSanitizer: memcpy-param-overlap: memory "
		  "ranges [0x1,0x5) and [0x3, 0x7) overlap\n",
		  "memcpy-param-overlap", "Memcpy-param-overlap" },
		{ "==1==WARNING: MemorySanitizer: use-of-uninitialized-value\n",
		  "use-of-uninitialized-value", "Use-of-uninitialized-value" },
		{ "a.c:3:9: runtime error: load of null pointer of type "
		  "'int'\n", "undefined-behavior", "Null-dereference READ" },
		{ "a.c:3:9: runtime error: store to null pointer of type "
		  "'int'\n", "undefined-behavior", "Null-dereference WRITE" },
		{ "a.c:3:9: runtime error: applying non-zero offset 8 to null "
		  "pointer\n", "undefined-behavior", "Pointer-overflow" },
		{ "a.c:3:9: runtime error: load of value 7, which is not a "
		  "valid value for type 'bool'\n", "undefined-behavior",
		  "Invalid-bool-value" },
		{ "a.c:3:9: runtime error: something brand new\n",
		  "undefined-behavior", "Undefined-behavior" },
	};

	(void)st;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct crash_report *r = NULL;

		assert_int_equal(crash_report_parse(&r, cases[i].text,
				 strlen(cases[i].text)), 0);
		assert_string_equal(r->kind, cases[i].kind);
		assert_string_equal(r->crash_type, cases[i].type);
		crash_report_free(r);
	}
}

static void test_many_frames(void **st)
{
	struct buf b = BUF_INIT;
	struct crash_report *r = NULL;

	(void)st;
	buf_adds(&b, "==1==ERROR: AddressSanitizer: stack-overflow on address "
		 "0x7ffd (pc 0x1 bp 0x2 sp 0x3 T0)\n");
	for (int i = 0; i < 5000; i++)
		buf_printf(&b, "    #%d 0x%x in recurse /src/p/r.c:%d:1\n", i,
			   i, 10 + i % 3);
	buf_adds(&b, "    #99999999999999999999 0x1 in tail /src/p/r.c:1:1\n");
	assert_int_equal(crash_report_parse(&r, b.ptr, b.len), 0);
	assert_string_equal(r->crash_type, "Stack-overflow");
	assert_int_equal(r->frames_nr, CRASH_FRAMES_MAX);
	assert_int_equal(r->frames[255].index, 255);
	crash_report_free(r);
	buf_release(&b);
}

static void test_garbage_bytes_in_fields(void **st)
{
	static const char text[] =
		"\x1b[1m\x1b[31m==7==ERROR: AddressSanitizer: "
		"heap-use-after-free on address 0x1 at pc 0x2\x1b[0m\n"
		"\x1b[1m\x1b[34mREAD of size 2 at 0x1 thread T0\x1b[0m\n"
		"    #0 0x1 in bad\xff\xfe" "name\x01\x07 "
		"/src/p/\xc3(x).c:3:4\n"
		"    #1 0x2 in caf\xc3\xa9 /src/p/ok.c:5:6\n"
		"    #2 0x3 in cut\xe2\x82";
	struct crash_report *r = NULL;

	(void)st;
	assert_int_equal(crash_report_parse(&r, text, sizeof(text) - 1), 0);
	assert_string_equal(r->crash_type, "Heap-use-after-free READ 2");
	assert_int_equal(r->frames_nr, 3);
	for (size_t i = 0; i < r->frames_nr; i++) {
		assert_true(utf8_is_clean(r->frames[i].func));
		if (r->frames[i].file)
			assert_true(utf8_is_clean(r->frames[i].file));
	}
	assert_string_equal(r->frames[0].func, "bad??name");
	assert_string_equal(r->frames[0].file, "/src/p/?(x).c");
	assert_string_equal(r->frames[1].func, "caf\xc3\xa9");
	assert_true(utf8_is_clean(r->description));
	assert_null(strchr(r->description, '\x1b'));
	crash_report_free(r);
}

static void test_embedded_nul(void **st)
{
	static const char text[] =
		"noise\0noise\n"
		"==1==ERROR: AddressSanitizer: global-buffer-overflow on "
		"address 0x1\n"
		"WRITE of size 1 at 0x1 thread T0\n"
		"    #0 0x1 in fill\0x /src/p/g.c:9:9\n";
	struct crash_report *r = NULL;

	(void)st;
	assert_int_equal(crash_report_parse(&r, text, sizeof(text) - 1), 0);
	assert_string_equal(r->crash_type, "Global-buffer-overflow WRITE 1");
	assert_int_equal(r->frames_nr, 1);
	assert_string_equal(r->frames[0].func, "fill x");
	assert_int_equal(r->frames[0].line, 9);
	crash_report_free(r);
}

/* --- Jazzer (JVM) ------------------------------------------------------ */

static void assert_java_frame(const struct crash_frame *f, int index,
			      const char *func, const char *file, int line)
{
	assert_frame(f, index, func, file, line, 0);
	assert_null(f->module);
}

static const struct crash_frame *first_kept(const struct crash_report *r)
{
	for (size_t i = 0; i < r->frames_nr; i++)
		if (!crash_frame_ignored(&r->frames[i]))
			return &r->frames[i];
	return NULL;
}

static void test_jazzer_uncaught_exception(void **st)
{
	struct crash_report *r = parse_fixture("jazzer_illegal_state.txt");
	char *state = crash_state(r, "ExampleValueProfileFuzzer");
	const struct cwe_rule *rule = cwe_rule_for(r->crash_type);

	(void)st;
	assert_string_equal(r->sanitizer, "Jazzer");
	assert_string_equal(r->kind, "java.lang.IllegalStateException");
	assert_string_equal(r->crash_type,
			    "Uncaught-exception IllegalStateException");
	assert_false(r->is_security);
	assert_null(r->access);
	assert_string_equal(r->description, "== Java Exception: "
			    "java.lang.IllegalStateException: "
			    "mustNeverBeCalled has been called");
	/* DEDUP_TOKEN and the crashing input end the stack */
	assert_int_equal(r->frames_nr, 2);
	assert_int_equal(r->top_frames_nr, 2);
	assert_java_frame(&r->frames[0], 0,
			  "ExampleValueProfileFuzzer.mustNeverBeCalled",
			  "ExampleValueProfileFuzzer.java", 51);
	assert_java_frame(&r->frames[1], 1,
			  "ExampleValueProfileFuzzer.fuzzerTestOneInput",
			  "ExampleValueProfileFuzzer.java", 43);
	assert_false(crash_frame_ignored(&r->frames[0]));
	/* the JVM entry point is the harness, as LLVMFuzzerTestOneInput */
	assert_string_equal(state, "ExampleValueProfileFuzzer."
			    "mustNeverBeCalled\nExampleValueProfileFuzzer");
	assert_string_equal(rule->rule_id, "crs-ci/uncaught-exception");
	assert_int_equal(rule->cwe, 248);
	free(state);
	crash_report_free(r);
}

static void test_jazzer_security_exception(void **st)
{
	struct crash_report *r = parse_fixture("jazzer_security_medium.txt");
	const struct cwe_rule *rule = cwe_rule_for(r->crash_type);
	char *path;

	(void)st;
	assert_string_equal(r->kind,
			    "com.code_intelligence.jazzer.api."
			    "FuzzerSecurityIssueMedium");
	/* the harness's own message names no Jazzer sanitizer */
	assert_string_equal(r->crash_type, "Security-exception");
	assert_true(r->is_security);
	assert_string_equal(rule->rule_id, "crs-ci/security-exception");
	/* the exception's frame, then both "Caused by:" sections */
	assert_int_equal(r->frames_nr, 14);
	assert_int_equal(r->top_frames_nr, 1);
	assert_java_frame(&r->frames[0], 0,
			  "com.example.JsonSanitizerFuzzer.fuzzerTestOneInput",
			  "JsonSanitizerFuzzer.java", 49);
	assert_java_frame(&r->frames[1], 1, "com.google.gson.Gson.fromJson",
			  "Gson.java", 947);
	assert_java_frame(&r->frames[6], 6,
			  "com.google.gson.stream.JsonReader.syntaxError",
			  "JsonReader.java", 1564);
	assert_java_frame(&r->frames[12], 12, "com.google.gson.internal."
			  "bind.TypeAdapters$35$1.read", "TypeAdapters.java",
			  894);
	/* "... 4 more" is not a frame, the last one is Gson.fromJson */
	assert_java_frame(&r->frames[13], 13, "com.google.gson.Gson.fromJson",
			  "Gson.java", 932);
	path = crash_frame_java_path(&r->frames[6]);
	assert_string_equal(path, "com/google/gson/stream/JsonReader.java");
	free(path);
	path = crash_frame_java_path(&r->frames[12]);
	assert_string_equal(path, "com/google/gson/internal/bind/"
			    "TypeAdapters.java");
	free(path);
	/* ClusterFuzz's state for this report, harness substituted */
	assert_state(r, HARNESS "\ncom.google.gson.Gson.fromJson\n"
		     "com.google.gson.Gson.fromJson");
	crash_report_free(r);
}

static void test_jazzer_stack_overflow(void **st)
{
	struct crash_report *a = parse_fixture("jazzer_stack_overflow_a.txt");
	struct crash_report *b = parse_fixture("jazzer_stack_overflow_b.txt");
	const struct crash_frame *top = first_kept(a);

	(void)st;
	assert_string_equal(a->crash_type, "Stack-overflow");
	assert_string_equal(b->crash_type, "Stack-overflow");
	assert_false(a->is_security);
	assert_string_equal(cwe_rule_for(a->crash_type)->rule_id,
			    "crs-ci/stack-overflow");
	/* Jazzer's cycle above "Caused by:", then the raw frames */
	assert_int_equal(a->top_frames_nr, 2);
	assert_int_equal(a->frames_nr, 8);
	assert_non_null(top);
	assert_java_frame(top, 0, "org.dom4j.io.DOMReader.readElement",
			  "DOMReader.java", 237);
	/* "java.base/" module prefix dropped; JDK frames are ignored */
	assert_java_frame(&a->frames[2], 2,
			  "java.nio.charset.CharsetEncoder.<init>",
			  "CharsetEncoder.java", 233);
	assert_true(crash_frame_ignored(&a->frames[2]));
	/* the reporter reflowed b: a frame on the "Caused by:" line */
	assert_int_equal(b->top_frames_nr, 2);
	assert_int_equal(b->frames_nr, 13);
	assert_java_frame(&b->frames[0], 0, "org.dom4j.io.DOMReader.readTree",
			  "DOMReader.java", 100);
	assert_java_frame(&b->frames[2], 2,
			  "java.lang.String.encodeWithEncoder", "String.java",
			  837);
	assert_true(crash_frame_ignored(&b->frames[5]));	/* Jazzer */
	/* the cycle was entered at different points: sorted, one state */
	assert_state(a, "org.dom4j.io.DOMReader.readElement\n"
		     "org.dom4j.io.DOMReader.readTree");
	assert_state(b, "org.dom4j.io.DOMReader.readElement\n"
		     "org.dom4j.io.DOMReader.readTree");
	crash_report_free(a);
	crash_report_free(b);
}

static void test_jazzer_out_of_memory(void **st)
{
	struct crash_report *r = parse_fixture("jazzer_oom.txt");
	const struct crash_frame *top;

	(void)st;
	assert_string_equal(r->kind, "com.code_intelligence.jazzer.api."
			    "FuzzerSecurityIssueLow");
	assert_string_equal(r->crash_type, "Out-of-memory");
	assert_false(r->is_security);
	assert_string_equal(cwe_rule_for(r->crash_type)->rule_id,
			    "crs-ci/out-of-memory");
	/* no frame before "Caused by: java.lang.OutOfMemoryError" */
	assert_int_equal(r->top_frames_nr, 0);
	assert_int_equal(r->frames_nr, 7);
	assert_java_frame(&r->frames[0], 0, "java.lang.Object.clone", NULL,
			  0);
	assert_true(crash_frame_ignored(&r->frames[0]));
	top = first_kept(r);
	assert_non_null(top);
	assert_java_frame(top, 1, "org.jline.reader.impl.BufferImpl.<init>",
			  "BufferImpl.java", 42);
	/* as for libFuzzer's out-of-memory: the state is the harness */
	assert_state(r, HARNESS);
	crash_report_free(r);
}

static void test_jazzer_timeout(void **st)
{
	struct crash_report *r = parse_fixture("jazzer_timeout.txt");
	const struct crash_frame *top;
	char *path;

	(void)st;
	assert_string_equal(r->sanitizer, "libFuzzer");
	assert_string_equal(r->kind, "timeout");
	assert_string_equal(r->crash_type, "Timeout");
	assert_string_equal(r->description,
			    "ERROR: libFuzzer: timeout after 3 seconds");
	/* only Thread[main]'s stack, not the JVM's other threads */
	assert_int_equal(r->frames_nr, 2);
	assert_java_frame(&r->frames[0], 0, "com.code_intelligence.jazzer."
			  "runtime.TraceDataFlowNativeCallbacks.traceCmpInt",
			  NULL, 0);
	assert_true(crash_frame_ignored(&r->frames[0]));
	top = first_kept(r);
	assert_non_null(top);
	/* "app//" class loader prefix dropped */
	assert_java_frame(top, 1,
			  "com.example.ExampleFuzzer.fuzzerTestOneInput",
			  "ExampleFuzzer.java", 28);
	path = crash_frame_java_path(top);
	assert_string_equal(path, "com/example/ExampleFuzzer.java");
	free(path);
	assert_state(r, HARNESS);
	crash_report_free(r);
}

static void test_jazzer_signatures(void **st)
{
	static const char *const fixtures[] = {
		"jazzer_illegal_state.txt", "jazzer_security_medium.txt",
		"jazzer_stack_overflow_a.txt", "jazzer_oom.txt",
		"jazzer_timeout.txt", "libfuzzer_timeout.txt",
	};
	/* the same bug: other message, line numbers, loader prefix */
	static const char same[] =
		"== Java Exception: java.lang.IllegalStateException: other\n"
		"\tat app//ExampleValueProfileFuzzer.mustNeverBeCalled("
		"ExampleValueProfileFuzzer.java:60)\n"
		"\tat ExampleValueProfileFuzzer.fuzzerTestOneInput("
		"ExampleValueProfileFuzzer.java:44)\n";
	/* another exception at the same place: another bug */
	static const char npe[] =
		"== Java Exception: java.lang.NullPointerException\n"
		"\tat ExampleValueProfileFuzzer.mustNeverBeCalled("
		"ExampleValueProfileFuzzer.java:51)\n"
		"\tat ExampleValueProfileFuzzer.fuzzerTestOneInput("
		"ExampleValueProfileFuzzer.java:43)\n";
	char *sig[sizeof(fixtures) / sizeof(*fixtures)];
	char *so_b = signature_of("jazzer_stack_overflow_b.txt");
	char *s_same = signature_of_text(same);
	char *s_npe = signature_of_text(npe);
	char id_a[17], id_b[17];
	size_t n = sizeof(fixtures) / sizeof(*fixtures);

	(void)st;
	for (size_t i = 0; i < n; i++)
		sig[i] = signature_of(fixtures[i]);
	assert_string_equal(sig[0], "Uncaught-exception "
			    "IllegalStateException\nExampleValueProfileFuzzer."
			    "mustNeverBeCalled\n" HARNESS);
	assert_string_equal(sig[2], "Stack-overflow\n"
			    "org.dom4j.io.DOMReader.readElement\n"
			    "org.dom4j.io.DOMReader.readTree");
	assert_string_equal(sig[2], so_b);
	crash_signature_id(id_a, sig[2]);
	crash_signature_id(id_b, so_b);
	assert_string_equal(id_a, id_b);
	assert_string_equal(s_same, sig[0]);
	assert_string_not_equal(s_npe, sig[0]);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (i != 4 || j != 5)	/* timeouts: harness */
				assert_string_not_equal(sig[i], sig[j]);
	assert_string_equal(sig[4], sig[5]);
	for (size_t i = 0; i < n; i++)
		free(sig[i]);
	free(so_b);
	free(s_same);
	free(s_npe);
}

static void test_jazzer_headers(void **st)
{
	static const struct {
		const char *text, *kind, *type, *rule;
		int cwe, security;
	} cases[] = {
		{ "== Java Exception: com.code_intelligence.jazzer.api."
		  "FuzzerSecurityIssueCritical: OS Command Injection\n"
		  "Executing OS commands with attacker-controlled data can "
		  "lead to remote code execution.\n"
		  "\tat com.code_intelligence.jazzer.sanitizers."
		  "OsCommandInjection.processImplStartHook("
		  "OsCommandInjection.java:63)\n"
		  "\tat java.base/java.lang.ProcessBuilder.start("
		  "ProcessBuilder.java:1110)\n"
		  "\tat com.example.App.run(App.java:17)\n",
		  "com.code_intelligence.jazzer.api."
		  "FuzzerSecurityIssueCritical", "OS-command-injection",
		  "crs-ci/os-command-injection", 78, 1 },
		{ "== Java Exception: com.code_intelligence.jazzer.api."
		  "FuzzerSecurityIssueHigh: Remote Code Execution\n",
		  NULL, "Remote-code-execution",
		  "crs-ci/remote-code-execution", 502, 1 },
		{ "== Java Exception: com.code_intelligence.jazzer.api."
		  "FuzzerSecurityIssueHigh: SQL Injection\n", NULL,
		  "SQL-injection", "crs-ci/sql-injection", 89, 1 },
		{ "== Java Exception: com.code_intelligence.jazzer.api."
		  "FuzzerSecurityIssueCritical: File path traversal\n", NULL,
		  "File-path-traversal", "crs-ci/path-traversal", 22, 1 },
		{ "== Java Exception: com.code_intelligence.jazzer.api."
		  "FuzzerSecurityIssueCritical: Remote JNDI Lookup\n", NULL,
		  "Remote-JNDI-lookup", "crs-ci/jndi-lookup", 74, 1 },
		{ "== Java Exception: com.code_intelligence.jazzer.api."
		  "FuzzerSecurityIssueMedium: Server Side Request Forgery "
		  "(SSRF)\n", NULL, "Server-side-request-forgery",
		  "crs-ci/server-side-request-forgery", 918, 1 },
		{ "== Java Exception: com.code_intelligence.jazzer.api."
		  "FuzzerSecurityIssueLow: Regular Expression Injection\n",
		  NULL, "Regular-expression-injection",
		  "crs-ci/regex-injection", 1333, 0 },
		{ "== Java Exception: com.code_intelligence.jazzer.api."
		  "FuzzerSecurityIssueMedium: \n", NULL,
		  "Security-exception", "crs-ci/security-exception", 0, 1 },
		{ "== Java Exception: java.lang.AssertionError: expected: "
		  "<foo> but was: <bar>\n", "java.lang.AssertionError",
		  "ASSERT", "crs-ci/abort", 617, 0 },
		{ "INFO: x\n== Java Assertion Error\n== libFuzzer crashing "
		  "input ==\n", "java.lang.AssertionError", "ASSERT",
		  "crs-ci/abort", 617, 0 },
		{ "== Java Exception: java.lang.NullPointerException\n",
		  "java.lang.NullPointerException",
		  "Uncaught-exception NullPointerException",
		  "crs-ci/uncaught-exception", 248, 0 },
		{ "== Java Exception: java.lang.StackOverflowError\n", NULL,
		  "Stack-overflow", "crs-ci/stack-overflow", 674, 0 },
		{ "[fuzzer/x] - == Java Exception: java.lang.OutOfMemoryError: "
		  "Java heap space\n", NULL, "Out-of-memory",
		  "crs-ci/out-of-memory", 400, 0 },
	};
	static const char bare[] = "== Java Exception: \n";
	struct crash_report *none = NULL;

	(void)st;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct crash_report *r = NULL;
		const struct cwe_rule *rule;

		assert_int_equal(crash_report_parse(&r, cases[i].text,
				 strlen(cases[i].text)), 0);
		assert_string_equal(r->sanitizer, "Jazzer");
		if (cases[i].kind)
			assert_string_equal(r->kind, cases[i].kind);
		assert_string_equal(r->crash_type, cases[i].type);
		assert_int_equal(r->is_security, cases[i].security);
		rule = cwe_rule_for(r->crash_type);
		assert_string_equal(rule->rule_id, cases[i].rule);
		assert_int_equal(rule->cwe, cases[i].cwe);
		assert_true(utf8_is_clean(r->description));
		if (i == 0) {
			/* the explanation line is no frame; Jazzer's is */
			assert_int_equal(r->frames_nr, 3);
			assert_java_frame(first_kept(r), 2,
					  "com.example.App.run", "App.java",
					  17);
			assert_state(r, "com.example.App.run");
		}
		crash_report_free(r);
	}
	/* a header without a class is none */
	assert_int_equal(crash_report_parse(&none, bare, strlen(bare)),
			 CRS_ENOTFOUND);
	assert_null(none);
	crs_error_clear();
}

static void test_jazzer_odd_frames(void **st)
{
	static const char text[] =
		"== Java Exception: java.lang.IllegalStateException: x\n"
		"\tat Foo.bar(Foo.kt)\n"
		"\tat p.Foo.baz(Unknown Source)\n"
		"\tat p.Foo.qux(Foo.java:99999999999)\n"
		"\tat p.Foo.lambda$run$0(Foo.java:7)\n"
		"\tat (Foo.java:1)\n"
		"\tat p.Foo.x(Foo.java:2)\n";
	struct crash_frame c = { 0 };
	struct crash_report *r = NULL;
	char *path;

	(void)st;
	assert_int_equal(crash_report_parse(&r, text, strlen(text)), 0);
	/* the nameless frame ends the stack */
	assert_int_equal(r->frames_nr, 4);
	assert_java_frame(&r->frames[0], 0, "Foo.bar", "Foo.kt", 0);
	assert_java_frame(&r->frames[1], 1, "p.Foo.baz", NULL, 0);
	assert_java_frame(&r->frames[2], 2, "p.Foo.qux",
			  "Foo.java:99999999999", 0);
	assert_java_frame(&r->frames[3], 3, "p.Foo.lambda$run$0", "Foo.java",
			  7);
	path = crash_frame_java_path(&r->frames[0]);
	assert_string_equal(path, "Foo.kt");
	free(path);
	assert_null(crash_frame_java_path(&r->frames[1]));
	crash_report_free(r);
	/* C frames have no Java path */
	c.func = "walk";
	c.file = "/src/tiny/parse.c";
	assert_null(crash_frame_java_path(&c));
	c.file = "parse.c";
	assert_null(crash_frame_java_path(&c));
}

static void test_jazzer_truncated(void **st)
{
	static const char *const fixtures[] = {
		"jazzer_security_medium.txt", "jazzer_stack_overflow_b.txt",
		"jazzer_timeout.txt",
	};

	(void)st;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(*fixtures); i++) {
		size_t len;
		char *report = fixture_text(fixtures[i], &len);

		for (size_t n = 0; n <= len; n += 3) {
			struct crash_report *r = NULL;

			if (crash_report_parse(&r, report, n) == 0) {
				char *sig = crash_signature(r, HARNESS);

				assert_true(r->top_frames_nr <= r->frames_nr);
				free(sig);
				crash_report_free(r);
			}
			crs_error_clear();
		}
		free(report);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_asan_heap_overflow_write),
		cmocka_unit_test(test_asan_same_bug_same_signature),
		cmocka_unit_test(test_signature_ignores_access_size),
		cmocka_unit_test(test_asan_trimmed_buildid),
		cmocka_unit_test(test_asan_unsymbolized),
		cmocka_unit_test(test_asan_other_kinds),
		cmocka_unit_test(test_segv_same_bug_other_sanitizer),
		cmocka_unit_test(test_lsan_direct_leak),
		cmocka_unit_test(test_lsan_direct_wins),
		cmocka_unit_test(test_libfuzzer_kinds),
		cmocka_unit_test(test_timeout_frame_without_function),
		cmocka_unit_test(test_ubsan_kinds),
		cmocka_unit_test(test_ubsan_location_from_error_line),
		cmocka_unit_test(test_msan),
		cmocka_unit_test(test_state_cleanup),
		cmocka_unit_test(test_in_project),
		cmocka_unit_test(test_no_report),
		cmocka_unit_test(test_huge_lines),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_odd_headers),
		cmocka_unit_test(test_many_frames),
		cmocka_unit_test(test_garbage_bytes_in_fields),
		cmocka_unit_test(test_embedded_nul),
		cmocka_unit_test(test_jazzer_uncaught_exception),
		cmocka_unit_test(test_jazzer_security_exception),
		cmocka_unit_test(test_jazzer_stack_overflow),
		cmocka_unit_test(test_jazzer_out_of_memory),
		cmocka_unit_test(test_jazzer_timeout),
		cmocka_unit_test(test_jazzer_signatures),
		cmocka_unit_test(test_jazzer_headers),
		cmocka_unit_test(test_jazzer_odd_frames),
		cmocka_unit_test(test_jazzer_truncated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
