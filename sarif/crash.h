/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crash.h - sanitizer, libFuzzer and Jazzer crash reports, parsed
 *
 * crash_report_parse() reads the text a fuzz target printed when it ran a
 * crashing input (ASan, UBSan, MSan, LSan, libFuzzer deadly signal,
 * timeout, out-of-memory, Jazzer's "== Java Exception:" reports) and
 * returns the crash kind and the crashing stack. The text is hostile (it
 * came out of a container): parsing is bounded and never trusts lengths
 * or paths in it. No I/O here.
 */
#ifndef CRS_SARIF_CRASH_H
#define CRS_SARIF_CRASH_H

#include <stddef.h>

#define CRASH_INPUT_MAX (4u << 20)	/* bytes of output considered */
#define CRASH_LINE_MAX 4096		/* longer lines are cut */
#define CRASH_FRAMES_MAX 256		/* frames kept per report */
#define CRASH_STATE_FRAMES 3		/* frames in a crash state */
#define CRASH_NULL_BOUNDARY 4096	/* SEGV below: null dereference */

struct crash_frame {
	int index;		/* the #N in the report; Java: position */
	char *func;		/* "parse_record", Java "pkg.Class.method",
				   or NULL when unknown */
	char *file;		/* as printed, e.g. "/src/tiny/parse.c",
				   Java "Parser.java", or NULL */
	int line;		/* 0 when unknown */
	int column;		/* 0 when unknown */
	char *module;		/* "(binary+0x1234)" module when no file */
};

struct crash_report {
	char *sanitizer;	/* "AddressSanitizer", "UndefinedBehaviorSanitizer",
				   "MemorySanitizer", "LeakSanitizer",
				   "libFuzzer", "Jazzer" */
	char *kind;		/* as reported: "heap-buffer-overflow",
				   "timeout", "out-of-memory", "deadly signal",
				   "detected memory leaks",
				   "undefined-behavior"; Jazzer: the
				   exception class as printed,
				   "java.lang.IllegalStateException" */
	char *crash_type;	/* normalised, ClusterFuzz-like:
				   "Heap-buffer-overflow WRITE 4",
				   "Timeout", "Integer-overflow", ...; Jazzer:
				   "OS-command-injection", "Stack-overflow",
				   "Uncaught-exception IllegalStateException",
				   "Security-exception", "ASSERT", ... */
	char *access;		/* "READ", "WRITE" or NULL */
	long access_size;	/* -1 when unknown */
	char *description;	/* one line for humans: the ERROR/runtime error line */
	int is_security;	/* memory-safety class (ClusterFuzz's notion) or
				   a JVM sanitizer's injection/RCE class */
	struct crash_frame *frames;	/* the crashing stack, innermost first */
	size_t frames_nr;
	size_t top_frames_nr;	/* Jazzer: frames before the first
				   "Caused by:" (all of them without one) */
};

/*
 * Parse `len` bytes of output (only the first CRASH_INPUT_MAX are read).
 * Returns 0 and *out (caller frees with crash_report_free), or
 * CRS_ENOTFOUND when the text holds no crash report. The first report in
 * the text wins; its first stack is the crashing one (for LeakSanitizer
 * the first direct leak's, else the first indirect leak's). For Jazzer the
 * stack is the exception's followed by each "Caused by:" section's ("...
 * N more" skipped); for a libFuzzer timeout of a JVM target it is the
 * "Thread[main,...]" dump. DEDUP_TOKEN is not used. The location
 * is never taken from the SUMMARY line. Every string in the result is
 * valid UTF-8 without control characters. Out-of-memory exits.
 */
int crash_report_parse(struct crash_report **out, const char *text,
		       size_t len);
void crash_report_free(struct crash_report *r);

/*
 * 1 when the frame is code of the project: its file lies under `src_root`
 * (e.g. "/src/tiny/" or "/src/tiny"), has no ".." component and is not a
 * fuzzing/sanitizer runtime frame. 0 when src_root is NULL or empty.
 */
int crash_frame_in_project(const struct crash_frame *f, const char *src_root);

#ifdef UNIT_TESTS
/*
 * 1 when ClusterFuzz would ignore the frame for the crash state
 * (sanitizer runtime, libc, memcpy and friends, libFuzzer internals;
 * for the JVM java.*, javax.*, jdk.*, sun.*, kotlin.* and Jazzer).
 */
int crash_frame_ignored(const struct crash_frame *f);
#endif

/*
 * A JVM frame's likely source path relative to a source root: the
 * package as folders plus the printed file, "org/dom4j/io/DOMReader.java"
 * for "org.dom4j.io.DOMReader.readTree" in "DOMReader.java". NULL when
 * the frame has no file, the file already has a folder, or the function
 * is not a "Class.method" name. Caller frees. A guess: match it as a
 * suffix of the repository's paths (Maven's src/main/java/ is not in it).
 */
char *crash_frame_java_path(const struct crash_frame *f);

#ifdef UNIT_TESTS
/*
 * The crash state: up to three interesting frames' function names, one per
 * line; LLVMFuzzerTestOneInput (and a JVM "*.fuzzerTestOneInput") is
 * replaced by the harness name. For timeout and out-of-memory the state is
 * the harness name. For a Jazzer stack overflow it is the recursion cycle
 * Jazzer printed above "Caused by:", its names sorted, so that runs which
 * entered the cycle at different points agree. Caller frees.
 */
char *crash_state(const struct crash_report *r, const char *harness);
#endif

/*
 * Signature = crash_type + "\n" + crash_state, and its id: the first 16
 * hex digits of its SHA-256. Two PoVs with the same signature are one bug.
 */
char *crash_signature(const struct crash_report *r, const char *harness);
void crash_signature_id(char out[17], const char *signature);

#endif
