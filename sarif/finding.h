/* SPDX-License-Identifier: Apache-2.0 */
/*
 * finding.h - the finding model and results.json
 *
 * A finding is a proved bug: a PoV that reproduced, its parsed crash, its
 * location in the project, and how it relates to the change. The scan
 * writes a result set as results.json (documented in docs/results.md);
 * every reporter (SARIF, terminal, CI systems) reads only this model.
 */
#ifndef CRS_SARIF_FINDING_H
#define CRS_SARIF_FINDING_H

#include <stddef.h>
#include <jansson.h>

#define FINDING_RESULTS_MAX (64u << 20)	/* results.json size limit */
#define FINDING_FORMAT "crs-ci-results"	/* results.json "format" */
#define FINDING_FORMAT_VERSION 1	/* results.json "version" */

struct change_anchor;

struct finding_frame {
	char *func;
	char *file;		/* repo-relative when in_project, else as printed */
	int line, column;
	int in_project;
	int in_change;		/* on a line the change added or modified */
};

/* One PoV of a finding: every PoV that proved the same bug is kept. */
struct finding_pov {
	char *harness;
	char *path;		/* relative to the output folder */
	char *sha256;
};

struct finding {
	char *id;		/* signature id, 16 hex */
	char *signature;	/* crash_type + "\n" + state */
	char *crash_type;	/* "Heap-buffer-overflow WRITE 4" */
	char *kind;		/* "heap-buffer-overflow" */
	char *sanitizer;	/* "address", "undefined", ... (build) */
	char *description;	/* one line from the report */
	char *harness;
	int is_security;
	/* primary location: the top in-project frame (NULL file if none) */
	char *file;
	int line, column;
	char *function;
	int in_change;
	struct finding_frame *stack;	/* innermost first */
	size_t stack_nr;
	/* evidence */
	char *pov_path;		/* relative to the output folder */
	char *pov_sha256;
	int reproduced;		/* runs that crashed with this signature */
	int attempts;		/* runs made */
	char *novelty;		/* "new", "pre-existing", "changed",
				   "fixed-by-change", or NULL (unknown) */
	char *found_by;		/* CRS name that submitted it first */
	double found_after_s;	/* seconds from run start, < 0 unknown */
	size_t duplicates;	/* other PoVs that collapsed into this one */
	char *report_path;	/* sanitizer output, relative to out folder */
	/* sha256 of each validated patch whose build this PoV no longer
	 * crashes (finding_set.patches) */
	char **fixed_by;
	size_t fixed_by_nr;
	/* the scan option that hides it, "report-timeouts" or
	 * "report-ooms" (set to no), or NULL: a suppressed finding stays in
	 * results.json but fails no policy and is no SARIF result */
	char *suppressed;
	/* one bug, one finding (sarif/bug_key.h): every harness that
	 * reached it (`harness` first) and every PoV that proved it */
	char **harnesses;
	size_t harnesses_nr;
	struct finding_pov *povs;
	size_t povs_nr;
	/* the changed line its PoVs executed nearest the crash, and how it
	 * was chosen (sarif/change_anchor.h); NULL before it was measured or
	 * in full mode */
	struct change_anchor *anchor;
};

/* The validation steps of a patch, in order. */
#define FINDING_PATCH_STEPS_MAX 8
extern const char *const finding_patch_step_names[];	/* NULL-ended */

/* One step of a patch's validation. */
struct finding_patch_step {
	char *name;		/* "policy", "apply", "build", "povs", "tests",
				   "refuzz" */
	char *verdict;		/* "passed", "failed", "no tests", "skipped" */
	char *detail;		/* one line: why, or NULL */
	char *log_path;		/* relative to the output folder, or NULL */
};

/*
 * A patch a CRS submitted, validated by crs-ci itself. validated is 1
 * only when every step passed ("no tests" counts for tests); only such
 * patches are shown as fixes.
 */
struct finding_patch {
	char *sha256;		/* of the submitted file */
	char *path;		/* the diff, relative to the output folder */
	char *crs;		/* first CRS that submitted it */
	char *harness;		/* whose SUBMIT_DIR it came from */
	char *diff;		/* the unified diff text (-p1) */
	int validated;
	char *failed_step;	/* name of the first failed step, or NULL */
	char *failure;		/* that step's message and log tail, or NULL */
	struct finding_patch_step steps[FINDING_PATCH_STEPS_MAX];
	size_t steps_nr;
	char **fixes;		/* ids of the findings it fixes */
	size_t fixes_nr;
};

/*
 * A bug candidate: one result of a --sarif file (a static analyser's
 * claim), confirmed when a proved finding's stack passes its location.
 */
struct finding_candidate {
	char *source;		/* basename of the SARIF file */
	size_t index;		/* position among the file's results, from 0 */
	char *rule_id;		/* or NULL */
	char *level;		/* "none", "note", "warning", "error" */
	char *message;		/* message.text, at most 1024 bytes */
	char *file;		/* repo-relative when it lies in the source, or
				   NULL when the result names no file */
	int start_line, end_line;	/* 1-based; 0 unknown */
	char *function;		/* logicalLocations kind=function, or NULL */
	char *status;		/* "confirmed", "unconfirmed", or NULL (not
				   yet checked) */
	char *finding_id;	/* the finding that confirms it, or NULL */
	char *pov_path;		/* that finding's PoV, or NULL */
};

/*
 * A selected harness that got less fuzzing than it was given (its time
 * share, or --min-harness-seconds when larger) and proved no finding: the
 * scan cannot call it clean (docs/results.md, "Verdicts").
 */
struct finding_incomplete {
	char *harness;
	char *reason;		/* one line: "no time left before the deadline" */
	double fuzzed_s;	/* seconds its CRSs ran */
	double wanted_s;	/* seconds it was to get */
};

struct scan_summary {
	char *tool_version;
	char *project;		/* OSS-Fuzz project name */
	char *source_root;	/* absolute path of the scanned checkout */
	char *head_build;	/* absolute path of the head build ($OUT), or NULL */
	char *runner_image;	/* image that reproduces PoVs on it, or NULL */
	char *base, *head;	/* commits, or NULL */
	char *mode;		/* "delta" or "full" */
	char **harnesses;
	size_t harnesses_nr;
	char **crs;
	size_t crs_nr;
	/* per CRS (aligned with crs[], NULL when unknown): PoVs it submitted
	 * and seconds from the run's start to its first, < 0 for none */
	size_t *crs_povs;
	double *crs_first_pov_s;
	char *started_at, *finished_at;	/* RFC 3339 UTC */
	double duration_s;
	int timed_out;
	size_t povs_submitted, povs_not_reproduced;
	/* findings kept out of every public output by the disclosure
	 * policy (runner/report/disclose.h): only their count is here */
	size_t private_findings;
	size_t private_new;	/* of them, those failing --fail-on new */
	char *fail_on;		/* "new", "any", "none" */
	char *sarif_category;	/* --sarif-category, or NULL (default) */
	char *sanitizer;	/* of the head build: "address", ... or NULL */
	/* whether LLM CRSs could run, and the CI's reason (--llm-reason),
	 * or NULL when none was given */
	int llm_crs;
	char *llm_reason;
	/* files the checkout's index or work tree changed that its HEAD
	 * commit does not hold, so the scan of base..HEAD did not read them
	 * (diff/worktree.h): at most SUMMARY_UNCOMMITTED_MAX of them, and
	 * how many in all */
	char **uncommitted;
	size_t uncommitted_nr;
	size_t uncommitted_total;
	/* results.json "incomplete": harnesses fuzzed short, no finding */
	struct finding_incomplete *incomplete;
	size_t incomplete_nr;
};

/* Paths of summary.uncommitted kept, at most. */
#define SUMMARY_UNCOMMITTED_MAX 20

struct change_cov;
struct run_cut;
struct run_saturation;
struct run_corpus;

struct finding_set {
	struct scan_summary summary;
	/* results.json "change_coverage" (sarif/change_cov.h): NULL in full
	 * mode or before it was measured */
	struct change_cov *change_coverage;
	/* results.json "after_finding" (sarif/run_cut.h): NULL when the run
	 * recorded no --after-finding policy */
	struct run_cut *run_cut;
	/* results.json "saturation" (sarif/run_saturation.h): NULL when
	 * the run tracked no saturation */
	struct run_saturation *saturation;
	/* results.json "corpus" (sarif/run_corpus.h): NULL when the scan
	 * imported no corpus source */
	struct run_corpus *corpus;
	struct finding *items;
	size_t nr, alloc;
	struct finding_patch *patches;	/* every submitted patch */
	size_t patches_nr, patches_alloc;
	struct finding_candidate *candidates;	/* from --sarif files */
	size_t candidates_nr, candidates_alloc;
	/* results.json "timings" (runner/scan/timings.h), kept as read:
	 * an object, or NULL when there is none */
	json_t *timings;
};

/*
 * Every string and array in the set is owned by it (malloc'd, freed by
 * finding_set_release with free(); `timings` with json_decref());
 * summary.harnesses and summary.crs are arrays of harnesses_nr / crs_nr
 * strings.
 */
void finding_set_init(struct finding_set *s);
/* Free everything and leave an empty, initialised set. Accepts NULL. */
void finding_set_release(struct finding_set *s);
/*
 * Append a finding and return it (borrowed, valid until the next add):
 * all fields zero/NULL except found_after_s = -1 (unknown). Cannot fail.
 */
struct finding *finding_set_add(struct finding_set *s);
/* Free one finding's strings and arrays (not f itself). Accepts NULLs. */
void finding_release(struct finding *f);
/* Find by id; borrowed or NULL. */
struct finding *finding_set_find(struct finding_set *s, const char *id);
/*
 * Append a patch (all fields zero/NULL) and return it (borrowed, valid
 * until the next add). Cannot fail.
 */
struct finding_patch *finding_set_add_patch(struct finding_set *s);
/* Find a patch by sha256; borrowed or NULL. */
const struct finding_patch *finding_set_find_patch(const struct finding_set *s,
						   const char *sha256);
/*
 * Append a candidate (all fields zero/NULL) and return it (borrowed, valid
 * until the next add). Cannot fail.
 */
struct finding_candidate *finding_set_add_candidate(struct finding_set *s);
/* Free a patch's strings and arrays (not p itself). */
void finding_patch_release(struct finding_patch *p);
/* Free a candidate's strings and zero it. */
void finding_candidate_release(struct finding_candidate *c);
/* Drop every patch, and every finding's fixed_by. */
void finding_set_clear_patches(struct finding_set *s);
/* Append a step to p (at most FINDING_PATCH_STEPS_MAX; more are dropped). */
void finding_patch_add_step(struct finding_patch *p, const char *name,
			    const char *verdict, const char *detail,
			    const char *log_path);

#ifdef UNIT_TESTS
/*
 * results.json as a jansson tree (new reference). Strings that are not
 * valid UTF-8 are repaired ('?') rather than dropped. Cannot fail.
 */
json_t *finding_set_to_json(const struct finding_set *s);
/*
 * Replace the contents of the initialised set `s` with the document `j`.
 * Returns 0, or CRS_EINPUT with a message naming `source_name` and the
 * field ("results.json: findings[2].line: expected an integer"); on error
 * `s` is left unchanged.
 */
int finding_set_from_json(struct finding_set *s, const json_t *j,
			  const char *source_name);
#endif
/* Write results.json atomically. 0 or CRS_ERR (message names the path). */
int finding_set_save(const struct finding_set *s, const char *path);
/*
 * Write `j` indented, with a final newline, atomically to `path`: the file
 * form of results.json and of the SARIF log. 0 or CRS_ERR (message names
 * the path; "cannot serialise the <what>" when jansson refuses `j`).
 */
int finding_json_save(const json_t *j, const char *path, const char *what);
/*
 * Read the JSON file at `path` (at most `max` bytes, duplicate keys
 * refused) into *out (new reference). 0; the fs_read_file() error; or
 * CRS_EINPUT as "<path>:<line>:<column>: <jansson's text>".
 */
int finding_json_load(json_t **out, const char *path, size_t max);
/*
 * Read results.json (at most FINDING_RESULTS_MAX bytes) into the
 * initialised set `s`. CRS_ENOTFOUND when missing, CRS_EINPUT when
 * malformed ("path:line:col: ..." for JSON syntax), CRS_ERR on I/O.
 */
int finding_set_load(struct finding_set *s, const char *path);

#ifdef UNIT_TESTS
/*
 * Which option hides `f`: "report-timeouts" when hide_timeouts and it is
 * a libFuzzer timeout, "report-ooms" when hide_ooms and it is an
 * out-of-memory; NULL otherwise (a static string, cannot fail).
 */
const char *finding_suppressed_by(const struct finding *f, int hide_timeouts,
				  int hide_ooms);
#endif
/*
 * Set every finding's `suppressed` from finding_suppressed_by(). Returns
 * how many findings changed. Cannot fail.
 */
size_t finding_set_suppress(struct finding_set *s, int hide_timeouts,
			    int hide_ooms);

/*
 * Does this finding fail the policy? Never when it is suppressed. "any": always; "none": never; "new"
 * (also NULL or any other value): when novelty is "new", or when novelty
 * is NULL (no base to compare) and the crash is on a changed line.
 */
int finding_fails_policy(const struct finding *f, const char *fail_on);

/*
 * Record that `harness` reached f's bug with the PoV at `path` (sha256):
 * appended to f->povs unless that PoV is listed for that harness, and
 * the harness to f->harnesses unless listed. Cannot fail.
 */
void finding_add_pov(struct finding *f, const char *harness,
		     const char *path, const char *sha256);

/* f->povs as JSON: [{harness, path, sha256}] (new reference). */
json_t *finding_povs_to_json(const struct finding *f);

/* Append an entry to m->incomplete (strings copied). Cannot fail. */
void scan_summary_add_incomplete(struct scan_summary *m, const char *harness,
				 const char *reason, double fuzzed_s,
				 double wanted_s);

enum finding_verdict {
	VERDICT_PASS,		/* nothing fails the policy, all fuzzed */
	VERDICT_FAIL,		/* findings fail the policy */
	VERDICT_INCOMPLETE,	/* none fail, but a harness was fuzzed short */
};

/*
 * The scan's verdict under `fail_on` (NULL: summary.fail_on, then "new"):
 * FAIL when any finding fails the policy (FAIL wins over INCOMPLETE),
 * else INCOMPLETE when summary.incomplete is not empty, else PASS.
 * *failing_out (may be NULL) gets the number of failing findings.
 */
enum finding_verdict finding_set_verdict(const struct finding_set *s,
					 const char *fail_on,
					 size_t *failing_out);
/* "PASS", "FAIL", "INCOMPLETE". */
const char *finding_verdict_name(enum finding_verdict v);

#endif
