/* SPDX-License-Identifier: Apache-2.0 */
/*
 * coverage_replay.h - run a harness's corpus on the coverage build
 *
 * Used by select (seed corpora) and change coverage (the final
 * corpus); the container's output is read through a folder descriptor.
 *
 * Details: docs/select.md; design notes: docs/internals.md.
 */
#ifndef CRS_RUNNER_EXEC_COVERAGE_REPLAY_H
#define CRS_RUNNER_EXEC_COVERAGE_REPLAY_H

/* the scan, not an exec_ctx: coverage_replay_build builds its head */
struct scan;
struct exec_ctx;
struct coverage;

/* What one replay measured. */
struct coverage_replay {
	long inputs;		/* inputs replayed; -1 unknown */
	int no_inputs;		/* nothing to replay: cov then says only
				 * which lines the build instruments */
	char *failed;		/* why cov is missing, or NULL */
	struct coverage *cov;	/* the lcov export, or NULL */
};
#define COVERAGE_REPLAY_INIT { -1, 0, NULL, NULL }

void coverage_replay_release(struct coverage_replay *r);

/*
 * The head built with SANITIZER=coverage into <work>/builds/coverage/
 * head/out, unless it is there. A build that fails is remembered by a
 * record beside out/ (runner/exec/build_record.h: the head image's id and
 * the head's exported tree, so later scans of the same head do not pay
 * for it again; nothing else skips the build) and
 * is no error: *ok_out is 0 then, with a warning logged. Errors:
 * CRS_EINTR, CRS_EENGINE (and what the engine returns). It takes the
 * scan: it builds from its state (head image and commit, the build
 * record) through runner/exec/target_build.h.
 */
int coverage_replay_build(struct scan *s, int *ok_out);

/*
 * Replay `harness`'s seed corpus (the build's <harness>_seed_corpus.zip)
 * and the regular files of each folder in `corpora` (NULL-terminated,
 * crs-ci's own folders, bound read-only; missing ones are skipped) on
 * the coverage build, at most timeout_s seconds. `dir` is made afresh:
 * dir/io is the container's, dir/container.log its log. A replay that
 * cannot measure (no such harness, a timeout, a failed export, unusable
 * lcov) is no error: out->failed says why. Errors: CRS_EINTR,
 * CRS_EENGINE, I/O errors. Release *out in every case.
 */
int coverage_replay_run(struct coverage_replay *out, struct exec_ctx *x,
			const char *harness, const char *dir,
			const char *const *corpora, double timeout_s);

#endif
