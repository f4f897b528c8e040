/* SPDX-License-Identifier: Apache-2.0 */
/*
 * coverage.h - line and branch coverage of a harness, and which changed
 * lines it hits
 *
 * The select phase replays a harness's corpus on a coverage build and
 * exports the result with `llvm-cov export -format=lcov`. This module
 * parses that text (it came out of a container: hostile, so bounded and
 * strictly checked), maps its file names to repo-relative paths and
 * intersects the lines a run executed with the lines a change touched.
 */
#ifndef CRS_RUNNER_SCAN_COVERAGE_H
#define CRS_RUNNER_SCAN_COVERAGE_H

#include <stddef.h>

struct diff_changeset;
struct diff_touched;

/* Largest lcov export read, in bytes. */
#define COVERAGE_LCOV_MAX (256u << 20)

/* The function a libFuzzer harness defines. */
#define COVERAGE_FUZZER_ENTRY "LLVMFuzzerTestOneInput"

/* One SF: record (records for the same file are merged). */
struct coverage_file {
	char *path;		/* as llvm-cov names it */
	int *lines;		/* instrumented lines, ascending, unique */
	unsigned char *hit;	/* hit[i]: lines[i] ran at least once */
	unsigned long long *count; /* count[i]: how often lines[i] ran
				    * (DA's count, at most ULLONG_MAX) */
	size_t lines_nr, lines_alloc;
	/* the line of every branch that ran (BRDA: taken > 0), once per
	 * branch, ascending */
	int *taken;
	size_t taken_nr, taken_alloc;
	int defines_entry;	/* has an FN: record for the fuzzer entry */
};

/* Files sorted by path, unique. */
struct coverage {
	struct coverage_file *files;
	size_t nr, alloc;
};

/*
 * Parse lcov tracefile text (SF:, DA:, BRDA:, FN:, end_of_record; other
 * records are ignored) from memory. CRS_EINPUT, naming "<name>:<line>",
 * for a NUL byte, a DA:/BRDA:/FN: outside a file record, or a malformed
 * number.
 * *out owned by the caller (coverage_free).
 */
int coverage_parse_lcov(struct coverage **out, const char *buf, size_t len,
			const char *name);
void coverage_free(struct coverage *c);

/*
 * `path` relative to the folder `repo_path`, both normalised lexically
 * ("//", "." and ".." segments); a relative `path` is taken relative to
 * `repo_path`. NULL when it lies outside. Caller frees.
 */
char *coverage_repo_relative(const char *path, const char *repo_path);

/* One file's lines a harness should execute to reach the change. */
struct coverage_target {
	char *path;		/* repo-relative, head side */
	int *lines;		/* ascending, unique */
	size_t lines_nr, lines_alloc;
};

/* Sorted by path, unique; only files with at least one line. */
struct coverage_targets {
	struct coverage_target *files;
	size_t nr, alloc;
	size_t lines_total;
};

/*
 * The head lines of a change worth executing: every added or modified
 * line of a text file, plus, where lines were only removed, the head
 * lines just before and after the removal (found by re-reading
 * cs->patch; if that fails, only added lines count). Deleted and binary
 * files have none. Cannot fail; *out owned by the caller.
 */
void coverage_targets_from_change(struct coverage_targets **out,
				  const struct diff_changeset *cs);
/*
 * The lines a change's coverage counts: those it added or modified, or,
 * when it only removed lines, the head lines just before and after each
 * removal (*around_removals set to 1 then, else 0). Cannot fail.
 */
void coverage_targets_change_lines(struct coverage_targets **out,
				   const struct diff_changeset *cs,
				   int *around_removals);
/* Every head line of each touched function (diff/changeset.h's
 * diff_touched; NULL gives none). Cannot fail. */
void coverage_targets_functions(struct coverage_targets **out,
				const struct diff_touched *fns);
void coverage_targets_free(struct coverage_targets *t);

enum coverage_line_state {
	COVERAGE_LINE_NONE = 0,	/* not instrumented in this build */
	COVERAGE_LINE_MAPPED,	/* instrumented, never ran */
	COVERAGE_LINE_HIT,	/* ran at least once */
};

/* What one harness's coverage shows of the targets. */
struct coverage_reach {
	/* state[f][i]: the coverage_line_state of targets->files[f].lines[i] */
	unsigned char **state;
	size_t files_nr;	/* = targets->nr */
	size_t hit_nr;		/* target lines that ran */
	size_t mapped_nr;	/* target lines instrumented (hit or not) */
	char *entry_file;	/* repo-relative file defining the fuzzer
				 * entry, or NULL */
	size_t file_hit_nr;	/* lines of the targets' files that ran,
				 * changed or not */
	size_t branch_hit_nr;	/* branches that ran out of target lines */
	size_t file_branch_nr;	/* branches that ran in the targets' files */
	unsigned long long runs_nr; /* executions of target lines, summed
				     * over them (at most ULLONG_MAX): a
				     * replay of a corpus grows it with
				     * every input that reaches them */
};
#define COVERAGE_REACH_INIT { NULL, 0, 0, 0, NULL, 0, 0, 0, 0 }

/*
 * Intersect coverage `c` (file names as llvm-cov gives them, mapped under
 * `repo_path`) with `t`. Fills the caller's *out (release with
 * coverage_reach_release). Cannot fail.
 */
void coverage_reach(struct coverage_reach *out, const struct coverage *c,
		    const struct coverage_targets *t, const char *repo_path);
void coverage_reach_release(struct coverage_reach *r);

#endif
