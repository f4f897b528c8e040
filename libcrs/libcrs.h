/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libcrs.h - the libCRS C API: what a CRS container does with its mounts
 *
 * Copies build outputs in and out, submits artifacts, fetches what
 * other CRSs shared and runs the watchers behind the CLI's daemons.
 * Links only libc and libcrypto; returns 0 or CRS_E*, never prints.
 *
 * Details: docs/crs-authors.md; design notes: docs/internals.md.
 */
#ifndef CRS_LIBCRS_LIBCRS_H
#define CRS_LIBCRS_LIBCRS_H

#include <stddef.h>

/* Size of a buffer that holds any submitted file name. */
#define CRS_NAME_MAX 256

/* The artifact types, as named on the command line. */
enum crs_type {
	CRS_TYPE_POV,
	CRS_TYPE_SEED,
	CRS_TYPE_BUG_CANDIDATE,
	CRS_TYPE_REPORT,
	CRS_TYPE_PATCH,
	CRS_TYPE_DIFF,
};
#define CRS_TYPE_COUNT 6

/* What a type may be used for (a bit set). */
enum crs_type_use {
	CRS_USE_SUBMIT = 1,		/* submit: all but diff */
	CRS_USE_SUBMIT_DIR = 2,		/* register-submit-dir: not report */
	CRS_USE_FETCH = 4,		/* fetch, register-fetch-dir: all */
};

/*
 * Parse a type name ("pov", "seed", "bug-candidate", "report", "patch",
 * "diff"). Returns 0, or CRS_EINPUT for an unknown name.
 */
int crs_type_from_name(const char *name, enum crs_type *out);
/* The command-line name of a type, or NULL when out of range. */
const char *crs_type_name(enum crs_type type);
/* The directory name ("povs", "bug-candidates", ...), or NULL. */
const char *crs_type_dir(enum crs_type type);
/* 1 when `type` may be used for every use in `uses`, else 0. */
int crs_type_allows(enum crs_type type, unsigned uses);

/*
 * The container's view of its mounts. Pointers are borrowed (from the
 * environment, or from the caller); NULL or "" means "not set". Functions
 * that need an unset directory fail with CRS_ECONFIG naming the variable.
 */
struct crs_env {
	const char *name;		/* OSS_CRS_NAME */
	const char *build_out_dir;	/* OSS_CRS_BUILD_OUT_DIR */
	const char *rebuild_out_dir;	/* OSS_CRS_REBUILD_OUT_DIR */
	const char *rebuild_id;		/* OSS_CRS_REBUILD_ID */
	const char *submit_dir;		/* OSS_CRS_SUBMIT_DIR */
	const char *shared_dir;		/* OSS_CRS_SHARED_DIR */
	const char *log_dir;		/* OSS_CRS_LOG_DIR */
	const char *fetch_dir;		/* OSS_CRS_FETCH_DIR */
	const char *fuzz_proj;		/* OSS_CRS_FUZZ_PROJ */
	const char *target_source;	/* OSS_CRS_TARGET_SOURCE */
};
#define CRS_ENV_INIT { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
		       NULL, NULL }

/*
 * Fill `env` from getenv(). OSS_CRS_RUN_ENV_TYPE may be unset or empty
 * (taken as "local", unlike OSS-CRS) or "local"; any other value gives
 * CRS_ECONFIG. OSS_CRS_FUZZ_PROJ and OSS_CRS_TARGET_SOURCE default to
 * /OSS_CRS_FUZZ_PROJ and /OSS_CRS_TARGET_SOURCE. The pointers stay valid
 * while the environment is not changed.
 */
int crs_env_from_environ(struct crs_env *env);

/*
 * Normalise `rel` for use below a root: leading "/" dropped, "." and empty
 * components dropped, ".." refused. The result (possibly "", meaning the
 * root itself) goes to out[outsz]. Returns 0, or CRS_EINPUT for ".." or a
 * result longer than outsz - 1.
 */
int crs_path_normalize(char *out, size_t outsz, const char *rel);
/*
 * root + "/" + crs_path_normalize(rel) into out[outsz] (just root when rel
 * normalises to ""). Same return codes. Purely lexical.
 */
int crs_path_confine(char *out, size_t outsz, const char *root,
		     const char *rel);

/*
 * Copy `src` (file or directory; a symlink named by src itself is
 * followed) to the path `dst` like rsync -a: a directory's contents go
 * into dst (created with its parents), a file becomes dst, or dst/<name of
 * src> when dst is an existing directory. Returns 0, CRS_ENOTFOUND when
 * src does not exist, CRS_ERR on any other failure (the copy stops at the
 * first failure; what was copied stays).
 */
int crs_copy(const char *src, const char *dst);

/*
 * submit-build-output: copy `src` to build_out_dir/<dst> (dst confined as
 * above; "" or "/" means the build output dir itself). Returns as
 * crs_copy, plus CRS_EINPUT for a bad dst and CRS_ECONFIG when
 * OSS_CRS_BUILD_OUT_DIR is unset.
 */
int crs_build_output_submit(const struct crs_env *env, const char *src,
			    const char *dst);
/*
 * skip-build-output: write "skip" to
 * build_out_dir/<dirname dst>/.<basename dst>.skip (atomically, parents
 * created). dst must name something below the root (CRS_EINPUT otherwise).
 */
int crs_build_output_skip(const struct crs_env *env, const char *dst);
/*
 * download-build-output: copy rebuild_out_dir/<name>/<rebuild_id>/<src>
 * when `rebuild_id` (or else env->rebuild_id) is set, else
 * build_out_dir/<src>, to the path `dst`. A rebuild id must be a decimal
 * number (CRS_EINPUT); with one, OSS_CRS_NAME and OSS_CRS_REBUILD_OUT_DIR
 * are needed (CRS_ECONFIG). CRS_ENOTFOUND when the source is missing.
 */
int crs_build_output_download(const struct crs_env *env, const char *src,
			      const char *dst, const char *rebuild_id);

enum crs_source {
	CRS_SOURCE_FUZZ_PROJ,		/* "fuzz-proj" */
	CRS_SOURCE_TARGET_SOURCE,	/* "target-source" */
};
/* Parse "fuzz-proj" or "target-source"; CRS_EINPUT otherwise. */
int crs_source_from_name(const char *name, enum crs_source *out);
/*
 * download-source: copy the contents of env->fuzz_proj or
 * env->target_source into `dst`. CRS_ENOTFOUND when the mount is missing.
 */
int crs_source_download(const struct crs_env *env, enum crs_source which,
			const char *dst);

/*
 * submit: copy the regular file `path` into submit_dir/<type dir>/ under a
 * content-addressed name, "<md5 hex of the content><suffix>" where suffix
 * is the last ".ext" of path's base name (as Python's PurePath.suffix).
 * The name goes to name_out; *existed is set to 1 when a file of that name
 * was already there (nothing is written), else 0. Empty files are
 * accepted. The file is written under a hidden temporary name and renamed
 * without replacing, so concurrent submitters never clobber each other.
 *
 * CRS_TYPE_REPORT: a report file or folder becomes a gzip tar (the file,
 * or the folder's contents, at its root) named "<file stem>.tar.gz" or
 * "<folder>.tar.gz", with "_1", "_2", ... before ".tar.gz" on a
 * collision, as OSS-CRS names them; *existed is always 0. It is made by
 * the image's `tar` (CRS_ERR "no tar in this image" without one).
 *
 * Returns 0; CRS_EINPUT when the type cannot be submitted or path is not a
 * regular file; CRS_ENOTFOUND when path does not exist; CRS_ECONFIG when
 * OSS_CRS_SUBMIT_DIR is unset; CRS_ENOMEM; CRS_ERR.
 */
int crs_submit(const struct crs_env *env, enum crs_type type,
	       const char *path, char name_out[CRS_NAME_MAX], int *existed);

/*
 * submit-harness: copy the contents of `fuzz_proj_dir` (required) and of
 * `target_source_dir` (may be NULL) to submit_dir/harnesses/<name>/
 * fuzz-proj/ and .../target-source/. `name` (NULL: the base name of
 * fuzz_proj_dir) must be one path component other than "." and ".."
 * (CRS_EINPUT).
 */
int crs_submit_harness(const struct crs_env *env, const char *fuzz_proj_dir,
		       const char *target_source_dir, const char *name);

/* What happened to one file, reported to a crs_event_fn. */
enum crs_event_kind {
	CRS_EVENT_SUBMITTED,	/* path submitted as name */
	CRS_EVENT_DUPLICATE,	/* path's content was already submitted */
	CRS_EVENT_FETCHED,	/* name (relative to the fetch dir) copied */
	CRS_EVENT_ERROR,	/* path failed: message says why */
	CRS_EVENT_NOTE,		/* a state change worth logging: message */
};

struct crs_event {
	enum crs_event_kind kind;
	enum crs_type type;
	const char *path;	/* the source file, or NULL */
	const char *name;	/* the name written, or NULL */
	const char *message;	/* for ERROR and NOTE, else NULL */
};

/* Callback for events; the event and its strings live during the call. */
typedef void (*crs_event_fn)(const struct crs_event *ev, void *ctx);

/*
 * fetch: copy every regular file of fetch_dir/<type dir>/, nested
 * directories included (relative paths kept), whose name and directories
 * do not start with "." and which does not yet exist in `dir`, into `dir`
 * (created). Symlinks are not followed. `fn` (may be NULL) gets a
 * CRS_EVENT_FETCHED per copied file and a CRS_EVENT_ERROR per file that
 * failed; the others are still tried. *count (may be NULL) gets the
 * number of files copied. An unset OSS_CRS_FETCH_DIR or a missing type
 * directory copies nothing and is not an error.
 *
 * Returns 0; the first per-file error code once all were tried; or
 * CRS_EINPUT, CRS_ENOMEM, CRS_ERR when `dir` cannot be created.
 */
int crs_fetch(const struct crs_env *env, enum crs_type type,
	      const char *dir, crs_event_fn fn, void *ctx, size_t *count);

/*
 * register-shared-dir: create shared_dir/<shared> (confined) and make the
 * symlink `local` point to it (local's parent directories are created).
 * CRS_ECONFLICT when `local` already exists.
 */
int crs_shared_dir_register(const struct crs_env *env, const char *local,
			    const char *shared);
/*
 * register-log-dir: create log_dir/<base name of local> and make the
 * symlink `local` point to it. CRS_ECONFLICT when `local` exists.
 */
int crs_log_dir_register(const struct crs_env *env, const char *local);

/*
 * get-service-domain: "<name>.<OSS_CRS_NAME>" into out[outsz]. No DNS
 * lookup is made (a static binary cannot use the container's NSS
 * configuration reliably). CRS_EINPUT when name is not a host-name label
 * sequence or the result does not fit; CRS_ECONFIG without OSS_CRS_NAME.
 */
int crs_service_domain(const struct crs_env *env, const char *name,
		       char *out, size_t outsz);

/*
 * Write a response directory as OSS-CRS's libCRS does for the sidecar
 * commands (contract 4.4): `dir` and its parents are created, "retcode"
 * gets the decimal `retcode` (no newline), "stdout.log" and "stderr.log"
 * get `out` and `err` when not NULL. Each file is written atomically.
 * Returns 0, CRS_EINPUT (path too long) or CRS_ERR.
 */
int crs_response_write(const char *dir, int retcode, const char *out,
		       const char *err);

/*
 * Directory watchers behind register-submit-dir and register-fetch-dir.
 * Opening one does everything that can fail visibly (creates the
 * directory, sets up inotify), so a command can report errors before it
 * forks; crs_watch_run() then does the work until told to stop. A watch
 * is used by one thread.
 */
struct crs_watch;

/*
 * register-submit-dir: create `dir` and watch it (not recursively). Each
 * regular, non-empty file whose name does not start with "." is submitted
 * as by crs_submit(): those present when crs_watch_run() starts, then each
 * one closed after writing or moved into dir, as soon as that happens.
 * Symlinks are not followed. When inotify is unavailable the directory is
 * scanned every second instead. `type` must allow CRS_USE_SUBMIT_DIR.
 * Returns 0 with *out set (free with crs_watch_free); CRS_EINPUT,
 * CRS_ECONFIG, CRS_ENOMEM, CRS_ERR.
 */
int crs_watch_submit_dir(struct crs_watch **out, const struct crs_env *env,
			 enum crs_type type, const char *dir);
/*
 * register-fetch-dir: create `dir` and keep it filled as crs_fetch() does:
 * a sync at start, then one after every change inotify reports anywhere
 * below fetch_dir/<type dir>, plus a safety sync every 5 seconds (every
 * second when inotify is unavailable or the type directory is missing).
 * An unset OSS_CRS_FETCH_DIR makes the watch idle, not an error.
 */
int crs_watch_fetch_dir(struct crs_watch **out, const struct crs_env *env,
			enum crs_type type, const char *dir);
/* 1 when the watch uses inotify, 0 when it polls. Cannot fail. */
int crs_watch_uses_inotify(const struct crs_watch *w);
/*
 * Stop using inotify and scan every second instead: for mounts where
 * inotify sets up fine but reports nothing (some network and FUSE file
 * systems). Call before crs_watch_run(). Cannot fail.
 */
void crs_watch_poll_only(struct crs_watch *w);
/*
 * Run the watch, reporting each file to `fn` (may be NULL), until
 * `stop_fd` becomes readable (a signalfd, or a pipe's read end); events
 * already queued are handled before returning. Returns 0 after a stop,
 * CRS_ERR when waiting itself fails. Per-file failures are events, not
 * return codes.
 */
int crs_watch_run(struct crs_watch *w, int stop_fd, crs_event_fn fn,
		  void *ctx);
/* Close and free a watch; NULL is ignored. */
void crs_watch_free(struct crs_watch *w);

/* What a sidecar request asks the orchestrator for. */
enum crs_sidecar_kind {
	CRS_SIDECAR_BUILD,	/* apply-patch-build: file is the patch */
	CRS_SIDECAR_POV,	/* run-pov: file is the PoV */
	CRS_SIDECAR_TEST,	/* apply-patch-test: file is the patch */
	CRS_SIDECAR_PROJECT,	/* build-project: folders, not a file */
};

/*
 * Ask crs-ci's builder sidecar through the mailbox folder `mailbox`
 * ($OSS_CRS_MAILBOX_DIR): requests/<id>/ is written under a hidden name
 * and renamed into place, holding request.txt ("kind=", "harness=",
 * "rebuild_id=", "builder_name=" lines; all but the first may be empty:
 * a builder name picks the CRS build step whose snapshot the patch is
 * rebuilt from) and a copy of `file`
 * named "patch" or "pov". Then waits (200 ms polls, at most `timeout_s`)
 * for responses/<id>/done and copies its retcode, stdout.log, stderr.log
 * and, when the retcode is 0, rebuild_id into `resp_dir` (created).
 * *retcode gets the response's retcode. On a timeout resp_dir gets
 * retcode 1 and "Builder unavailable or timed out" and *retcode is 1.
 * `kind` is not CRS_SIDECAR_PROJECT (see crs_build_project).
 * Returns 0, or CRS_EINPUT / CRS_ERR (nothing was asked).
 */
int crs_sidecar_call(const char *mailbox, enum crs_sidecar_kind kind,
		     const char *file, const char *harness,
		     const char *rebuild_id, const char *builder_name,
		     double timeout_s, const char *resp_dir, int *retcode);

/* build-project's caps over both trees of a request (crs-ci's too). */
#define CRS_TREE_FILES_MAX 100000		/* files and symlinks */
#define CRS_TREE_BYTES_MAX (512ull << 20)	/* bytes of the files */
#define CRS_TREE_DEPTH_MAX 64			/* folders below the top */

/*
 * build-project: as crs_sidecar_call with kind "build-project", but the
 * request holds copies of the folders `fuzz_proj_dir` (as fuzz-proj/)
 * and `target_source_dir` (as target-source/), at least one not NULL,
 * which crs-ci diffs against /OSS_CRS_FUZZ_PROJ and
 * /OSS_CRS_TARGET_SOURCE and builds as apply-patch-build does. The
 * copies skip ".git" entries and refuse, with CRS_EINPUT naming the
 * entry, FIFOs, sockets, devices, symlinks leading out of their tree and
 * trees over the CRS_TREE_* caps; nothing is asked then. The copies are
 * removed from the mailbox once answered.
 */
int crs_build_project(const char *mailbox, const char *fuzz_proj_dir,
		      const char *target_source_dir, const char *rebuild_id,
		      const char *builder_name, double timeout_s,
		      const char *resp_dir, int *retcode);

#endif
