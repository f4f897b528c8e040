/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sidecar_jobs.h - the sidecar's state and its four job kinds, shared by
 * sidecar.c (the loop and the workers) and sidecar_jobs.c only
 */
#ifndef CRS_RUNNER_SIDECAR_SIDECAR_JOBS_H
#define CRS_RUNNER_SIDECAR_SIDECAR_JOBS_H

#include <dirent.h>
#include <pthread.h>
#include <sys/types.h>

#include "runner/sidecar/sidecar_wire.h"
#include "runner/scan/scan.h"
#include "runner/scan/ctx.h"
#include "runner/config/config.h"
#include "common/buf.h"
#include "common/strset.h"

#define SIDECAR_TESTS_S 600.0		/* the project's tests at most */
#define SIDECAR_LOG_LINES 200		/* of a build log in stdout.log */
#define SIDECAR_LOG_CAP (256u << 10)	/* bytes of them at most */

/* A rebuild this CRS asked for. */
struct rebuild {
	long id;
	char sha[65];		/* of the patch */
	int ok;			/* built */
};

/* The request a worker thread executes. */
struct job {
	char id[SIDECAR_ID_MAX + 1];
	struct sidecar_request rq;
};

/*
 * A CRS's worker: a copy of the scan whose Ctrl-C flag is `stop`, whose
 * compose is its own (the job's resources) and whose repo_path is its
 * own (target_context_image replaces it). One per CRS, so one CRS's
 * long build never holds another's answers back.
 */
struct sidecar_worker {
	struct sidecar *sc;
	struct job job;
	pthread_t thread;
	int busy;		/* a worker thread exists */
	volatile int stop;	/* main -> worker: give up */
	volatile int finished;	/* worker -> main: join me */
	struct scan ws;
	struct runner_ctx wctx;
	struct compose wcompose;
};

struct sidecar_crs {
	const struct compose_crs *c;
	char *mailbox;		/* <run>/crs/<crs>/MAILBOX */
	char *rebuild_dir;	/* <run>/REBUILD_OUT_DIR/<crs> */
	char *work_dir;		/* <work>/sidecar/<crs>: its jobs' files */
	struct rebuild *rb;	/* touched by this CRS's worker only */
	size_t rb_nr, rb_alloc;
	long next_id;
	struct strset refused;	/* entries that cannot be answered */
	DIR *listing;		/* requests/, listed across polls */
	dev_t listing_dev;	/* which requests/ folder it lists */
	ino_t listing_ino;
	int listed;		/* the listing reached its end */
	int ignored;		/* SIDECAR_REFUSED_MAX reached */
	unsigned warned;	/* refusals logged */
	struct sidecar_worker w;
};

struct sidecar {
	struct scan *s;
	struct sidecar_crs *crs;
	size_t crs_nr;
	pthread_mutex_t lock;
	unsigned answered;	/* under lock: the workers write it */
};

/* What one job answers; the strings are owned here. */
struct job_result {
	int retcode;
	struct buf out, err;
	long rebuild_id;
};

/* The same build asked again by this CRS: its earlier rebuild (1). */
int sidecar_answer_cached(struct sidecar_crs *k,
			 const struct sidecar_request *rq,
			 struct job_result *jr);

/*
 * Build the request's patch as rebuild *n_out: the head build's snapshot
 * (runner/exec/snapshot.h), the patch applied the first way that works (git
 * apply, git apply -C1, patch -p1 --fuzz=3; stdout.log says which), and
 * `compile` run again on the CRS's cpuset and memory. 0 with jr->retcode
 * set (non-zero: the patch did not apply or build, jr->err says why), or
 * CRS_EINTR / an infrastructure error. *snap_out: the image the build
 * started from: `from_image` when given (build-project's patched fuzz
 * project: a full build), else the head build's snapshot.
 */
int sidecar_job_build(struct sidecar_crs *k,
		     const struct sidecar_request *rq, const char *from_image,
		     struct job_result *jr, char **which_out, char **snap_out);

/* The project's tests on a build made by job_build. */
int sidecar_job_tests(struct sidecar_crs *k,
		     const char *which, const char *snap,
		     struct job_result *jr);

int sidecar_job_pov(struct sidecar_crs *k,
		   const struct sidecar_request *rq, struct job_result *jr);

/*
 * build-project: the trees' diffs built as apply-patch-build builds a
 * patch (job_build). A fuzz-project change first rebuilds the target
 * image from the patched copy of the project folder, which is also the
 * one laid at /OSS_CRS_PROJ_PATH.
 */
int sidecar_job_project(struct sidecar_crs *k,
		       const char *id, const struct sidecar_request *rq,
		       struct job_result *jr);

/* A folder of a mailbox, not followed if a symlink; or -1. */
int sidecar_open_in_mailbox(const char *mailbox, const char *sub);

#endif
