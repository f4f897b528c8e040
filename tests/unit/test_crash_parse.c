/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_crash_parse.c - the sanitizer report parser on real reports
 *
 * The fixtures in tests/fixtures/crash/ are real outputs of clang-14
 * fuzz targets built from tests/fixtures/crash/src-tiny/ (see regen.sh
 * there), plus one hand-trimmed report. Run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sarif/crash.h"
#include "sarif/utf8.h"
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
