/* SPDX-License-Identifier: Apache-2.0 */
/*
 * snapshot.h - builds kept as images, and patched rebuilds started from them
 *
 * A build container that succeeded (crs-ci's own head compile, a CRS
 * build step) is committed as an image: its source tree, objects and
 * build state in $WORK. A patched rebuild starts a container from that
 * image, applies the patch in the image's WORKDIR and runs the build (or
 * the tests) again, so an incremental build recompiles only what the
 * patch touched instead of the whole project.
 */
#ifndef CRS_RUNNER_EXEC_SNAPSHOT_H
#define CRS_RUNNER_EXEC_SNAPSHOT_H

/* the scan, not an exec_ctx: its head image and step snapshots */
struct scan;

/* The ways a patch is applied, tried in this order (SNAPSHOT_APPLY_*). */
enum snapshot_apply {
	SNAPSHOT_APPLY_NONE,		/* not applied (or no patch) */
	SNAPSHOT_APPLY_GIT,		/* git apply */
	SNAPSHOT_APPLY_GIT_C1,		/* git apply -C1 */
	SNAPSHOT_APPLY_FUZZ,		/* patch -p1 --fuzz=3 */
};

/* "git apply", ...; "" for SNAPSHOT_APPLY_NONE. */
const char *snapshot_apply_name(enum snapshot_apply a);

/*
 * The snapshot of crs-ci's own build of the head with `sanitizer`:
 * "crs-ci-snapshot/<project>:<sanitizer>-<head image id, 12 hex>"
 * (content-addressed: a new head image is a new snapshot). Caller frees.
 * 0, or an engine error.
 */
int snapshot_head_ref(struct scan *s, const char *sanitizer, char **ref_out);

/* Record the head snapshot `ref` in the scan's state (scan.json). */
void snapshot_head_record(struct scan *s, const char *sanitizer,
			  const char *ref);

/*
 * The snapshot of CRS build step `step`:
 * "crs-ci-snapshot/<crs>-<step>:<sanitizer>-<builder image id, 12
 * hex>-<inputs hash, 12 hex>" (content-addressed by the builder image
 * and what it built from). Caller frees.
 */
char *snapshot_step_ref(const char *crs, const char *step,
			const char *sanitizer, const char *image_id,
			const char *inputs_hash);

/* Record the snapshot `ref` of a CRS build step in the scan's state. */
void snapshot_step_record(struct scan *s, const char *crs, const char *step,
			  const char *ref);
/* The recorded snapshot of a CRS build step, or NULL. */
const char *snapshot_step_find(const struct scan *s, const char *crs,
			       const char *step);

/*
 * The head snapshot with `sanitizer`, made now (one compile into the
 * build "snapshot-<sanitizer>") when the head build was reused from an
 * earlier scan that made none. *ref_out as snapshot_head_ref().
 */
int snapshot_head_ensure(struct scan *s, const char *sanitizer,
			 char **ref_out);

/* A rebuild (or a tests run) of a patch from a snapshot. */
struct snapshot_job {
	/* in */
	const char *image;		/* the snapshot */
	const char *patch_path;		/* host file (bound read-only) */
	int strict;			/* only plain `git apply` */
	const char *const *cmd;		/* run after the patch applied */
	const char *const *env;
	const char *const *binds;	/* besides the patch's */
	const char *cpuset;
	long long memory;
	double limit_s;
	const char *log_path;		/* the whole container output */
	/* out */
	enum snapshot_apply applied;
	int apply_failed;		/* the patch applied no way */
	int exit_code;			/* of cmd (or the handler) */
};
#define SNAPSHOT_JOB_INIT { 0 }

/*
 * Start `image`, apply the patch in its WORKDIR (git apply, then git
 * apply -C1, then patch -p1 --fuzz=3, unless strict; each checked dry
 * first, so a failed way leaves no half-applied files), then exec `cmd`.
 * 0 with j->applied / j->apply_failed / j->exit_code set, or CRS_EINTR,
 * CRS_ETIMEOUT or an engine error.
 */
int snapshot_run(struct scan *s, struct snapshot_job *j);

/*
 * snapshot_run with the OSS-Fuzz `compile` as the command (SANITIZER=
 * sanitizer) into <work>/builds/<sanitizer>/<which>/out, emptied first.
 * The caller sets the job's image, patch, strictness, resources, limit
 * and log; j->cmd, env and binds are this function's.
 */
int snapshot_compile(struct scan *s, struct snapshot_job *j,
		     const char *sanitizer, const char *which);

#endif
