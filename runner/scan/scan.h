/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scan.h - one scan: its inputs, its engine, its persisted state
 *
 * A scan is opened by every phase command. It resolves paths, loads the
 * configs, connects to the engine and reads <work-dir>/scan.json, where
 * each phase records what the next one needs (image tags, the head
 * build, the harness list). So `crs-ci run` after `crs-ci build-target`
 * needs nothing but the same options, and a failed scan can be inspected.
 */
#ifndef CRS_RUNNER_SCAN_SCAN_H
#define CRS_RUNNER_SCAN_SCAN_H

#include "runner/config/project_layout.h"
#include "runner/scan/exec_ctx.h"
#include "runner/scan/scan_state.h"
#include "common/strvec.h"

#include <stddef.h>
#include <time.h>

struct scan_opts;
struct runner_ctx;
struct compose;
struct compose_resources;
struct project_config;
struct docker_client;
struct reaper_watchdog;
struct diff_changeset;
struct timings;
struct early_jobs;

struct scan {
	const struct scan_opts *opts;	/* borrowed */
	struct runner_ctx *ctx;		/* borrowed */
	char *work_dir;			/* absolute */
	char *out_dir;			/* absolute */
	char *source_dir;		/* absolute, the target repo */
	char *owner;			/* label value of everything we create */
	int cache_fd;			/* --cache-dir (cache_root.h); 0: unopened */
	struct compose *compose;
	struct project_config *project;	/* dir and name from `where` */
	struct project_location where;	/* the project folder's layout */
	struct docker_client *docker;
	struct reaper_watchdog *watchdog;	/* runner/engine/reaper.h */
	struct diff_changeset *change;	/* NULL in full mode */
	struct timings *timings;	/* runner/scan/timings.h, or NULL */
	struct scan_state state;
	struct timespec started;	/* CLOCK_MONOTONIC */
	time_t started_wall;
	/* what runner/exec/ runs containers with: the fields above it
	 * borrows, filled by scan_exec_bind */
	struct exec_ctx exec;
	/* later phases' jobs started early (runner/phase/early_jobs.h),
	 * NULL unless the scan's proving phases enabled them */
	struct early_jobs *early;
	/* commits this process exported to <work>/source/<commit>/src, each
	 * with the SHA-256 of that tree (NULL while it is being exported):
	 * runner/exec/target_build.c, under its lock. Never on disk: what
	 * the work folder holds from before is not trusted. */
	struct scan_kv *exported;
	size_t exported_nr;
	/* the checkout's edits that HEAD does not hold (diff/worktree.h):
	 * at most SUMMARY_UNCOMMITTED_MAX paths, and how many in all */
	struct strvec uncommitted;
	size_t uncommitted_total;
	/* corpus_import ran (runner/exec/corpus_import.h): its folders are
	 * this scan's */
	int corpus_imported;
	/* --corpus-store, fetched by corpus_import (runner/corpus/
	 * corpus_store.h): NULL without one, or when it could not be read */
	struct corpus_store *corpus_store;
};

enum scan_need {
	SCAN_NEED_COMPOSE = 1 << 0,
	SCAN_NEED_PROJECT = 1 << 1,
	SCAN_NEED_ENGINE = 1 << 2,
	SCAN_NEED_CHANGE = 1 << 3,	/* resolve --base/--head/--diff */
	/* the project when --project is given or the source has
	 * .clusterfuzzlite/ (SCAN_NEED_PROJECT: always) */
	SCAN_WANT_PROJECT = 1 << 4,
};

/*
 * Open a scan with what `needs` asks for. Errors: CRS_EINPUT/CRS_ECONFIG
 * for bad options or configs, CRS_EENGINE when the engine is needed and
 * does not answer. *out owned by the caller (scan_close).
 */
int scan_open(struct scan **out, const struct scan_opts *o,
	      struct runner_ctx *ctx, unsigned needs);
/* Remove every container and network this process created; free. */
void scan_close(struct scan *s);

int scan_state_save(const struct scan *s);
/* Borrowed image tag for key, or NULL. */
const char *scan_image(const struct scan *s, const char *key);
void scan_set_image(struct scan *s, const char *key, const char *tag);

/* Seconds since the scan started, and seconds left before the deadline. */
double scan_elapsed(const struct scan *s);
double scan_remaining(const struct scan *s);
/*
 * Fill s->exec from s's own fields (engine, owner, roots, deadline,
 * Ctrl-C flag, the compose's infra share). scan_open calls it; call it
 * again after changing one of those fields of a scan (a copy for another
 * thread, a test's hand-made scan).
 */
void scan_exec_bind(struct scan *s);
/* exec_stop_flag(&s->exec) and exec_interrupted(&s->exec) (exec_ctx.h). */
volatile int *scan_stop_flag(const struct scan *s);
int scan_interrupted(const struct scan *s);

/* Path helper: <work_dir>/<fmt...>, caller frees. */
char *scan_work_path(const struct scan *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
