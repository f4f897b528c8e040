/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sidecar.c - crs-ci's builder sidecar: requests that travel as files
 *
 * Polled by the run loop; each CRS's requests run one at a time on its
 * own worker thread and cpuset, with caps against floods.
 *
 * Details: docs/sidecar.md; design notes: docs/internals.md.
 */
#include "runner/sidecar/sidecar.h"
#include "runner/sidecar/sidecar_read.h"
#include "runner/sidecar/sidecar_tree.h"
#include "runner/exec/container.h"
#include "runner/exec/crs_env.h"
#include "runner/sidecar/patch_tree.h"
#include "runner/exec/reproduce.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/exec/snapshot.h"
#include "runner/exec/target_build.h"
#include "runner/scan/ctx.h"
#include "runner/config/config.h"
#include "runner/engine/docker.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/safe_io.h"
#include "common/log.h"
#include "common/mailbox_proto.h"
#include "common/strset.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "common/testable.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SIDECAR_TESTS_S 600.0		/* the project's tests at most */
#define SIDECAR_LOG_LINES 200		/* of a build log in stdout.log */
#define SIDECAR_LOG_CAP (256u << 10)	/* bytes of them at most */

_Static_assert((int)SIDECAR_BUILD == MAILBOX_BUILD &&
	       (int)SIDECAR_POV == MAILBOX_POV &&
	       (int)SIDECAR_TEST == MAILBOX_TEST &&
	       (int)SIDECAR_PROJECT == MAILBOX_PROJECT,
	       "sidecar_kind follows the mailbox's kinds");

/* --- request and response files ------------------------------------------ */

CRS_TESTABLE int sidecar_name_ok(const char *name, size_t max)
{
	size_t n = strlen(name);

	if (n == 0 || n > max || name[0] == '.')
		return 0;
	return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwx"
		      "yz0123456789._-") == n;
}

/* A file of request `id` of at most max bytes. */
static int read_capped(int dirfd, const char *id, const char *name,
		       size_t max, struct buf *b)
{
	char shown[SIDECAR_ID_MAX + 64];

	snprintf(shown, sizeof(shown), "request %s: %s", id, name);
	return sidecar_read_capped(dirfd, name, shown, max, b, NULL);
}

/* One "key=value" line of request.txt into rq. */
static int parse_line(struct sidecar_request *rq, const char *id,
		      const char *line, int *have_kind)
{
	const char *eq = strchr(line, '=');
	const char *v = eq ? eq + 1 : NULL;
	size_t klen = eq ? (size_t)(eq - line) : 0;
	char *end;

	if (!eq)
		return crs_error_set(CRS_EINPUT, "request %s: request.txt: "
				     "'%.40s' is not key=value", id, line);
	if (klen == 4 && !strncmp(line, "kind", 4)) {
		int k = mailbox_kind_parse(v);

		if (k >= 0) {
			rq->kind = (enum sidecar_kind)k;
			*have_kind = 1;
			return 0;
		}
		return crs_error_set(CRS_EINPUT, "request %s: request.txt: "
				     "unknown kind '%.40s'", id, v);
	}
	if (klen == 7 && !strncmp(line, "harness", 7)) {
		if (*v && !sidecar_name_ok(v, SIDECAR_HARNESS_MAX))
			return crs_error_set(CRS_EINPUT, "request %s: harness "
					     "'%.40s' is not a plain name", id,
					     v);
		strcpy(rq->harness, v);
		return 0;
	}
	if (klen == 12 && !strncmp(line, "builder_name", 12)) {
		if (*v && !sidecar_name_ok(v, SIDECAR_HARNESS_MAX))
			return crs_error_set(CRS_EINPUT, "request %s: builder "
					     "name '%.40s' is not a plain name",
					     id, v);
		strcpy(rq->builder, v);
		return 0;
	}
	if (klen == 10 && !strncmp(line, "rebuild_id", 10)) {
		if (!*v)
			return 0;
		errno = 0;
		rq->rebuild_id = strtol(v, &end, 10);
		if (errno || *end || end == v || *v == '-' || *v == '+' ||
		    rq->rebuild_id < 1 || rq->rebuild_id > 999999)
			return crs_error_set(CRS_EINPUT, "request %s: rebuild "
					     "id '%.40s' is not 1..999999", id,
					     v);
		return 0;
	}
	return crs_error_set(CRS_EINPUT, "request %s: request.txt: unknown "
			     "key '%.*s'", id, (int)(klen > 40 ? 40 : klen),
			     line);
}

CRS_TESTABLE void sidecar_request_release(struct sidecar_request *rq)
{
	buf_release(&rq->payload);
	buf_release(&rq->fuzz_patch);
}

/* build-project's trees: at least one, each a folder (not a symlink). */
static int request_trees(int dfd, const char *id)
{
	static const char *const trees[] = { "target-source", "fuzz-proj" };
	struct stat st;
	int have = 0;

	for (size_t i = 0; i < 2; i++) {
		if (fstatat(dfd, trees[i], &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (!S_ISDIR(st.st_mode))
			return crs_error_set(CRS_EINPUT, "request %s: %s: not "
					     "a folder", id, trees[i]);
		have = 1;
	}
	if (!have)
		return crs_error_set(CRS_EINPUT, "request %s: build-project "
				     "without target-source/ or fuzz-proj/",
				     id);
	return 0;
}

CRS_TESTABLE int sidecar_request_parse(struct sidecar_request *rq, const char *id,
			  const char *text, size_t len)
{
	struct buf copy = BUF_INIT;
	int have_kind = 0, r = 0;
	char *line, *save = NULL;

	memset(rq, 0, sizeof(*rq));
	buf_init(&rq->payload);
	buf_init(&rq->fuzz_patch);
	rq->rebuild_id = -1;
	if (memchr(text, '\0', len))
		return crs_error_set(CRS_EINPUT, "request %s: request.txt: "
				     "binary", id);
	buf_add(&copy, text, len);
	for (line = strtok_r(copy.ptr, "\n", &save); line && r == 0;
	     line = strtok_r(NULL, "\n", &save))
		r = parse_line(rq, id, line, &have_kind);
	if (r == 0 && !have_kind)
		r = crs_error_set(CRS_EINPUT, "request %s: request.txt: no "
				  "kind", id);
	if (r == 0 && rq->kind == SIDECAR_POV && !rq->harness[0])
		r = crs_error_set(CRS_EINPUT, "request %s: run-pov without a "
				  "harness", id);
	buf_release(&copy);
	return r;
}

CRS_TESTABLE int sidecar_request_read(int reqfd, const char *id,
			 struct sidecar_request *rq)
{
	struct buf text = BUF_INIT;
	int dfd = -1, r;

	memset(rq, 0, sizeof(*rq));
	buf_init(&rq->payload);
	buf_init(&rq->fuzz_patch);
	rq->rebuild_id = -1;
	if (!sidecar_name_ok(id, SIDECAR_ID_MAX))
		return crs_error_set(CRS_EINPUT, "request '%.40s': not a "
				     "request name", id);
	dfd = openat(reqfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		     O_CLOEXEC);
	if (dfd < 0) {
		r = crs_error_set(CRS_EINPUT, "request %s: not a folder: %s",
				  id, strerror(errno));
		goto out;
	}
	if ((r = read_capped(dfd, id, "request.txt", SIDECAR_REQUEST_MAX,
			     &text)) != 0)
		goto out;
	if ((r = sidecar_request_parse(rq, id, text.ptr, text.len)) != 0)
		goto out;
	if (rq->kind == SIDECAR_PROJECT) {
		r = request_trees(dfd, id);
		goto out;
	}
	r = read_capped(dfd, id, rq->kind == SIDECAR_POV ? "pov" : "patch",
			rq->kind == SIDECAR_POV ? SIDECAR_POV_MAX :
			SIDECAR_PATCH_MAX, &rq->payload);
	if (r == 0 && rq->kind != SIDECAR_POV && rq->payload.len == 0)
		r = crs_error_set(CRS_EINPUT, "request %s: empty patch", id);
out:
	if (dfd >= 0)
		close(dfd);
	buf_release(&text);
	return r;
}

static int write_at(int dfd, const char *name, const char *data)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			O_CLOEXEC, 0644);
	size_t len = strlen(data), off = 0;
	int r = 0;

	if (fd < 0)
		return crs_error_set(CRS_ERR, "%s: %s", name, strerror(errno));
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = crs_error_set(CRS_ERR, "%s: %s", name,
					  strerror(errno));
			break;
		}
		off += (size_t)n;
	}
	if (close(fd) != 0 && r == 0)
		r = crs_error_set(CRS_ERR, "%s: %s", name, strerror(errno));
	return r;
}

CRS_TESTABLE int sidecar_response_write(int resfd, const char *id,
			   const struct sidecar_response *rs)
{
	char tmp[SIDECAR_ID_MAX + 48], num[32];
	unsigned char rnd[12];
	int dfd = -1, r;

	if (!sidecar_name_ok(id, SIDECAR_ID_MAX))
		return crs_error_set(CRS_EINPUT, "response '%.40s': not a "
				     "request name", id);
	/* a name the CRS cannot guess, so it cannot plant anything there */
	if (RAND_bytes(rnd, sizeof(rnd)) != 1)
		return crs_error_set(CRS_ERR, "response '%s': no random "
				     "bytes", id);
	snprintf(tmp, sizeof(tmp), ".answer-%s-", id);
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(tmp + strlen(tmp), 3, "%02x", rnd[i]);
	dfd = safe_mkdirat_open(resfd, tmp);
	if (dfd < 0)
		return crs_error_set(CRS_ERR, "responses/%s: %s", tmp,
				     strerror(errno));
	snprintf(num, sizeof(num), "%d", rs->retcode);
	r = write_at(dfd, "retcode", num);
	if (r == 0 && rs->out)
		r = write_at(dfd, "stdout.log", rs->out);
	if (r == 0 && rs->err)
		r = write_at(dfd, "stderr.log", rs->err);
	if (r == 0 && rs->retcode == 0 && rs->rebuild_id >= 1) {
		snprintf(num, sizeof(num), "%ld", rs->rebuild_id);
		r = write_at(dfd, "rebuild_id", num);
	}
	if (r == 0)
		r = write_at(dfd, "done", "");
	close(dfd);
	if (r == 0 && renameat2(resfd, tmp, resfd, id, RENAME_NOREPLACE) != 0)
		r = crs_error_set(CRS_ERR, "responses/%s: %s", id,
				  strerror(errno));
	if (r != 0)
		crs_error_prefix("mailbox response");
	return r;
}

/* --- the orchestrator's side ------------------------------------------- */

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

int sidecar_new(struct sidecar **out, struct scan *s)
{
	struct sidecar *sc = xcalloc(1, sizeof(*sc));
	int r = 0;

	sc->s = s;
	pthread_mutex_init(&sc->lock, NULL);
	sc->crs_nr = s->compose->crs_nr;
	sc->crs = xcalloc(sc->crs_nr ? sc->crs_nr : 1, sizeof(*sc->crs));
	for (size_t i = 0; i < sc->crs_nr && r == 0; i++) {
		struct sidecar_crs *k = &sc->crs[i];
		char *p;

		k->c = &s->compose->crs[i];
		k->next_id = 1;
		k->mailbox = scan_work_path(s, "runs/%s/crs/%s/MAILBOX",
					    s->state.run_id, k->c->name);
		k->rebuild_dir = scan_work_path(s, "runs/%s/REBUILD_OUT_DIR/"
						"%s", s->state.run_id,
						k->c->name);
		p = xasprintf("%s/requests", k->mailbox);
		r = fs_mkdir_p(p);
		free(p);
		p = xasprintf("%s/responses", k->mailbox);
		if (r == 0)
			r = fs_mkdir_p(p);
		free(p);
		if (r == 0)
			r = fs_mkdir_p(k->rebuild_dir);
		k->work_dir = scan_work_path(s, "sidecar/%s", k->c->name);
		if (r == 0)
			r = fs_mkdir_p(k->work_dir);
	}
	if (r != 0) {
		sidecar_free(sc);
		sc = NULL;
	}
	*out = sc;
	return r;
}

void sidecar_free(struct sidecar *sc)
{
	if (!sc)
		return;
	sidecar_stop(sc);
	pthread_mutex_destroy(&sc->lock);
	for (size_t i = 0; i < sc->crs_nr; i++) {
		free(sc->crs[i].mailbox);
		free(sc->crs[i].rebuild_dir);
		free(sc->crs[i].work_dir);
		free(sc->crs[i].rb);
		strset_release(&sc->crs[i].refused);
		if (sc->crs[i].listing)
			closedir(sc->crs[i].listing);
	}
	free(sc->crs);
	free(sc);
}

unsigned sidecar_answered(struct sidecar *sc)
{
	unsigned n;

	if (!sc)
		return 0;
	pthread_mutex_lock(&sc->lock);
	n = sc->answered;
	pthread_mutex_unlock(&sc->lock);
	return n;
}

static struct rebuild *rebuild_find(struct sidecar_crs *k, long id,
				    const char *sha)
{
	for (size_t i = 0; i < k->rb_nr; i++)
		if ((id > 0 && k->rb[i].id == id) ||
		    (sha && k->rb[i].ok && !strcmp(k->rb[i].sha, sha)))
			return &k->rb[i];
	return NULL;
}

/*
 * The job's containers run on the CRS's cpuset and memory: the build and
 * run helpers take the infra's, so the CRS's stand in for the job.
 */
static void resources_swap(struct sidecar_crs *k,
			   struct compose_resources *saved)
{
	struct compose_resources *infra = &k->w.ws.compose->infra;

	*saved = *infra;
	infra->cpuset = k->c->res.cpuset;
	infra->memory_bytes = k->c->res.memory_bytes;
}

static void resources_restore(struct sidecar_crs *k,
			      const struct compose_resources *saved)
{
	k->w.ws.compose->infra = *saved;
}

/* What a build is keyed by: the patch, build-project's fuzz patch and
 * the builder name. */
static void request_sha(const struct sidecar_request *rq, char sha[65])
{
	struct buf b = BUF_INIT;

	if (!rq->fuzz_patch.len && !rq->builder[0]) {
		sha256_hex(sha, rq->payload.ptr, rq->payload.len);
		return;
	}
	buf_add(&b, rq->payload.ptr, rq->payload.len);
	if (rq->fuzz_patch.len) {
		buf_adds(&b, ":fuzz-proj:");
		buf_add(&b, rq->fuzz_patch.ptr, rq->fuzz_patch.len);
	}
	if (rq->builder[0])	/* another builder: another build */
		buf_printf(&b, ":builder:%s", rq->builder);
	sha256_hex(sha, b.ptr, b.len);
	buf_release(&b);
}

/* The same build asked again by this CRS: its earlier rebuild (1). */
static int answer_cached(struct sidecar_crs *k,
			 const struct sidecar_request *rq,
			 struct job_result *jr)
{
	struct rebuild *cached;
	char sha[65];

	request_sha(rq, sha);
	cached = rebuild_find(k, -1, sha);
	if (!cached || (rq->rebuild_id >= 1 && rq->rebuild_id != cached->id))
		return 0;
	jr->retcode = 0;
	jr->rebuild_id = cached->id;
	buf_printf(&jr->out, "the same patch was rebuilt before as rebuild "
		   "%ld\n", cached->id);
	return 1;
}

/*
 * Copy the build's out/ and its record into REBUILD_OUT_DIR/<crs>/<n>:
 * crs-ci's compile's /out as build/, a CRS build step's outputs (its
 * BUILD_OUT_DIR) as they are.
 */
static int rebuild_publish(struct sidecar_crs *k,
			   long n, const char *which,
			   const struct sidecar_request *rq,
			   const struct job_result *jr, int code)
{
	char *dir = xasprintf("%s/%ld", k->rebuild_dir, n);
	char *tmp = xasprintf("%s/.%ld.staging", k->rebuild_dir, n);
	char *out = scan_work_path(&k->w.ws, "builds/%s/%s/out",
				   k->w.ws.state.sanitizer, which);
	char *p = NULL, num[32];
	int r;

	snprintf(num, sizeof(num), "%d\n", code);
	if ((r = fs_remove_tree(tmp)) != 0)
		goto out;
	if (code == 0 && rq->builder[0])
		r = fs_copy_tree(out, tmp);
	else if ((r = fs_mkdir_p(tmp)) == 0 && code == 0) {
		p = xasprintf("%s/build", tmp);
		r = fs_copy_tree(out, p);
	}
	if (r != 0)
		goto out;
#define PUT(name, data, len) \
	do { free(p); p = xasprintf("%s/%s", tmp, name); \
	     if ((r = fs_write_file_atomic(p, data, len)) != 0) goto out; \
	} while (0)
	PUT("patch.diff", rq->payload.ptr, rq->payload.len);
	if (rq->fuzz_patch.len)
		PUT("fuzz_proj_patch.diff", rq->fuzz_patch.ptr,
		    rq->fuzz_patch.len);
	PUT("stdout.log", jr->out.ptr ? jr->out.ptr : "", jr->out.len);
	PUT("stderr.log", jr->err.ptr ? jr->err.ptr : "", jr->err.len);
	PUT("exit_code", num, strlen(num));
#undef PUT
	if ((r = fs_remove_tree(dir)) == 0 && rename(tmp, dir) != 0)
		r = crs_error_set(CRS_ERR, "%s: %s", dir, strerror(errno));
out:
	free(dir);
	free(tmp);
	free(out);
	free(p);
	return r;
}

/*
 * The CRS build step `name` again, as OSS-CRS's ephemeral rebuild
 * containers run it (reference/oss-crs-contract.md §3.3): its snapshot,
 * the patch applied, the step's own command with the step's environment,
 * OSS_CRS_BUILD_OUT_DIR the rebuild's out/ (the CRS's `libCRS
 * submit-build-output` writes there), no source or fetch mounts.
 * 0 with j filled, 1 with jr->err saying why it cannot be asked, or an
 * error.
 */
static int step_rebuild(struct sidecar_crs *k,
			const char *name, long n, const char *which,
			struct snapshot_job *j, struct job_result *jr,
			char **snap_out)
{
	struct scan *s = &k->w.ws;
	const struct manifest *m = k->c->manifest;
	const struct manifest_build_step *b = NULL;
	struct strvec env = STRVEC_INIT, binds = STRVEC_INIT, cmd = STRVEC_INIT;
	struct crs_env_args ea = { .phase = CRSENV_BUILD_TARGET,
				   .crs = k->c };
	char *out = scan_work_path(s, "builds/%s/%s/out", s->state.sanitizer,
				   which);
	struct buf joined = BUF_INIT;
	char id[32];
	const char *snap;
	int r = 0;

	for (size_t i = 0; m && i < m->builds_nr && !b; i++)
		if (!strcmp(m->builds[i].name, name))
			b = &m->builds[i];
	snap = b ? snapshot_step_find(s, k->c->name, name) : NULL;
	if (!snap) {
		buf_printf(&jr->err, "CRS %s has %s '%s' to rebuild from\n",
			   k->c->name, b ? "no snapshot of its build step" :
			   "no build step", name);
		r = 1;
		goto out;
	}
	*snap_out = xstrdup(snap);
	if ((r = docker_image_cmd(s->docker, snap, &cmd)) != 0 ||
	    (r = fs_remove_tree(out)) != 0 || (r = fs_mkdir_p(out)) != 0)
		goto out;
	snprintf(id, sizeof(id), "%ld", n);
	ea.layer = &b->env;
	ea.build_id = id;
	crs_env_build(&env, s, &ea);
	strvec_pushf(&env, "OSS_CRS_REBUILD_ID=%s", id);
	for (size_t i = 0; i < cmd.nr; i++)
		buf_printf(&joined, "%s%s", i ? " " : "", cmd.v[i]);
	strvec_pushf(&env, "OSS_CRS_BUILD_CMD=%s",
		     joined.len ? joined.ptr : "");
	strvec_push(&env, "REPLAY_ENABLED=");
	strvec_pushf(&binds, "%s:/OSS_CRS_BUILD_OUT_DIR", out);
	j->image = snap;
	j->cmd = strvec_list(&cmd);
	j->env = strvec_list(&env);
	j->binds = strvec_list(&binds);
	r = snapshot_run(s, j);
	j->cmd = j->env = j->binds = NULL;
out:
	strvec_release(&env);
	strvec_release(&binds);
	strvec_release(&cmd);
	buf_release(&joined);
	free(out);
	return r;
}

/* Where job_build keeps the patch of build `which`. */
static char *patch_file(struct sidecar_crs *k, const char *which)
{
	return xasprintf("%s/%s.diff", k->work_dir, which);
}

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
static int job_build(struct sidecar_crs *k,
		     const struct sidecar_request *rq, const char *from_image,
		     struct job_result *jr, char **which_out, char **snap_out)
{
	struct scan *s = &k->w.ws;
	struct snapshot_job j = SNAPSHOT_JOB_INIT;
	struct rebuild *rb;
	git_diff *diff = NULL;
	char sha[65], *patch = NULL, *blog = NULL, *tail = NULL;
	long n;
	int r = 0;

	request_sha(rq, sha);
	n = rq->rebuild_id > 0 ? rq->rebuild_id : k->next_id;
	rb = rebuild_find(k, n, NULL);
	if (rb && strcmp(rb->sha, sha)) {
		jr->retcode = 1;
		buf_printf(&jr->err, "rebuild id %ld is in use by another "
			   "patch\n", n);
		goto out;
	}
	if (!rb) {
		ALLOC_GROW(k->rb, k->rb_nr + 1, k->rb_alloc);
		rb = &k->rb[k->rb_nr++];
		rb->id = n;
		memcpy(rb->sha, sha, sizeof(sha));
	}
	rb->ok = 0;
	if (n >= k->next_id)
		k->next_id = n + 1;
	jr->rebuild_id = n;
	*which_out = xasprintf("rebuild-%s-%ld", k->c->name, n);
	if (git_diff_from_buffer(&diff, rq->payload.ptr,
				 rq->payload.len) != 0 ||
	    (git_diff_num_deltas(diff) == 0 && !rq->fuzz_patch.len)) {
		jr->retcode = 1;
		buf_printf(&jr->err, "the patch is not a unified diff\n");
		goto publish;
	}
	patch = patch_file(k, *which_out);
	if ((r = fs_write_file_atomic(patch, rq->payload.ptr,
				      rq->payload.len)) != 0)
		goto out;
	if (from_image)
		*snap_out = xstrdup(from_image);
	else if (!rq->builder[0] &&	/* step_rebuild finds the step's */
		 ((r = snapshot_head_ref(s, s->state.sanitizer,
					 snap_out)) != 0 ||
		  (r = docker_image_exists(s->docker, *snap_out, NULL)) != 0))
		goto out;
	blog = scan_work_path(s, "logs/%s-%s-build.log", *which_out,
			      s->state.sanitizer);
	j.image = *snap_out;
	j.patch_path = patch;
	j.cpuset = k->c->res.cpuset;
	j.memory = k->c->res.memory_bytes;
	j.limit_s = TARGET_BUILD_TIMEOUT_S;
	j.log_path = blog;
	if (rq->builder[0] && !from_image)
		r = step_rebuild(k, rq->builder, n, *which_out, &j, jr,
				 snap_out);
	else
		r = snapshot_compile(s, &j, s->state.sanitizer, *which_out);
	if (r == 1) {		/* no such step: answered */
		jr->retcode = 1;
		r = 0;
		goto publish;
	}
	if (r != 0)
		goto out;
	if ((tail = log_tail(blog, SIDECAR_LOG_LINES, SIDECAR_LOG_CAP)) != NULL)
		buf_adds(&jr->out, tail);
	if (j.apply_failed) {
		jr->retcode = 1;
		buf_printf(&jr->err, "the patch does not apply to the head "
			   "(git apply, git apply -C1 and patch -p1 "
			   "--fuzz=3 all refused it; stdout.log says why)\n");
	} else if (j.exit_code != 0) {
		jr->retcode = 1;
		buf_printf(&jr->err, "the patched build failed: %s exited "
			   "%d (applied with %s)\n", rq->builder[0] ?
			   "the build step" : "compile", j.exit_code,
			   snapshot_apply_name(j.applied));
	} else {
		jr->retcode = 0;
		rb->ok = 1;
		buf_printf(&jr->err, "patch applied with %s; rebuilt from "
			   "%s\n", snapshot_apply_name(j.applied),
			   *snap_out);
	}
publish:
	r = rebuild_publish(k, n, *which_out, rq, jr, jr->retcode);
out:
	git_diff_free(diff);
	free(patch);
	free(blog);
	free(tail);
	return r;
}

/* The project's tests on a build made by job_build. */
static int job_tests(struct sidecar_crs *k,
		     const char *which, const char *snap,
		     struct job_result *jr)
{
	struct scan *s = &k->w.ws;
	char *log = scan_work_path(s, "logs/%s-tests.log", which);
	char *patch = patch_file(k, which);
	double limit = scan_remaining(s) - 5;
	enum patch_tests_outcome o;
	struct buf b = BUF_INIT;
	int r, code = -1;

	r = patch_tree_run_tests(s, snap, patch, which, k->c->res.cpuset,
				 k->c->res.memory_bytes,
				 limit < SIDECAR_TESTS_S ? limit :
				 SIDECAR_TESTS_S, log, &o, &code);
	if (r == CRS_EINTR)
		goto out;
	buf_reset(&jr->out);
	if (o == PATCH_TESTS_NONE) {
		jr->retcode = 0;
		buf_adds(&jr->out, "no tests: the project has no "
			 "run_tests.sh or test.sh\n");
	} else if (o == PATCH_TESTS_ERROR) {
		jr->retcode = 1;
		buf_printf(&jr->err, "the tests did not finish: %s\n",
			   crs_error_last());
	} else {
		jr->retcode = code;
		if (fs_read_file(&b, log, 1u << 20) == 0 && b.len)
			buf_add(&jr->out, b.ptr, b.len);
		if (code)
			buf_printf(&jr->err, "the project's tests failed "
				   "(exit %d)\n", code);
	}
	crs_error_clear();
	r = 0;
out:
	buf_release(&b);
	free(log);
	free(patch);
	return r;
}

static int job_pov(struct sidecar_crs *k,
		   const struct sidecar_request *rq, struct job_result *jr)
{
	struct scan *s = &k->w.ws;
	struct compose_resources saved;
	struct repro_verdict v = { 0 };
	char sha[65], *which, *dir, *bin = NULL, *tdir = NULL, *tc = NULL;
	struct buf b = BUF_INIT;
	int r = 0;

	if (rq->rebuild_id > 0) {
		struct rebuild *rb = rebuild_find(k, rq->rebuild_id, NULL);

		if (!rb || !rb->ok) {
			jr->retcode = 1;
			buf_printf(&jr->err, "no successful rebuild %ld of "
				   "CRS %s\n", rq->rebuild_id, k->c->name);
			return 0;
		}
		/* what the CRS sees: its rebuild's build/ output */
		which = xasprintf("rebuild-%s-%ld", k->c->name,
				  rq->rebuild_id);
		dir = xasprintf("%s/%ld/build", k->rebuild_dir,
				rq->rebuild_id);
	} else {
		which = xstrdup("head");
		dir = scan_work_path(s, "builds/%s/head/out",
				     s->state.sanitizer);
	}
	bin = xasprintf("%s/%s", dir, rq->harness);
	if (!fs_exists(bin)) {
		jr->retcode = 1;
		buf_printf(&jr->err, "no harness '%s' in the %s build\n",
			   rq->harness, which);
		goto out;
	}
	sha256_hex(sha, rq->payload.ptr, rq->payload.len);
	tdir = xasprintf("%s/pov-%.12s-%s", k->work_dir, sha, which);
	tc = xasprintf("%s/testcase", tdir);
	if ((r = fs_remove_tree(tdir)) != 0 || (r = fs_mkdir_p(tdir)) != 0 ||
	    (r = fs_write_file_atomic(tc, rq->payload.ptr,
				      rq->payload.len)) != 0)
		goto out;
	resources_swap(k, &saved);
	r = reproduce_run_in(s, rq->harness, tc, dir, tdir);
	resources_restore(k, &saved);
	if (r == CRS_EINTR)
		goto out;
	if (r == CRS_ETIMEOUT) {
		jr->retcode = 124;
		buf_printf(&jr->err, "the PoV run timed out\n");
		crs_error_clear();
		r = 0;
		goto out;
	}
	if (r != 0)
		goto out;
	reproduce_read_runs(&v, tdir, s->opts->reproduce_runs, rq->harness);
	if (v.signature) {
		jr->retcode = 1;
		if (v.log)	/* read by reproduce.c through its folder's fd */
			buf_add(&jr->err, v.log, v.log_len < (1u << 20) ?
				v.log_len : (1u << 20));
		buf_printf(&jr->out, "crash %s in %d of %d run(s) on the %s "
			   "build\n", v.signature, v.reproduced, v.attempts,
			   which);
	} else {
		jr->retcode = 0;
		buf_printf(&jr->out, "no crash in %d run(s) on the %s build\n",
			   v.attempts, which);
	}
out:
	repro_verdict_release(&v);
	buf_release(&b);
	free(which);
	free(dir);
	free(bin);
	free(tdir);
	free(tc);
	return r;
}

/* A folder of a mailbox, not followed if a symlink; or -1. */
static int open_in_mailbox(const char *mailbox, const char *sub)
{
	int mfd = open(mailbox, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		       O_CLOEXEC);
	int fd = -1;

	if (mfd >= 0) {
		fd = openat(mfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC);
		close(mfd);
	}
	return fd;
}

/*
 * build-project's trees (requests/<id>/target-source/, fuzz-proj/)
 * diffed against the head source `head_src` and the project folder into
 * rq's payload and fuzz_patch; the patched project folder is written to
 * pdir. CRS_EINPUT when the trees are refused.
 */
static int project_patches(struct scan *s, struct sidecar_crs *k,
			   const char *id, const char *head_src,
			   const char *pdir, struct sidecar_request *rq)
{
	struct sidecar_tree_count count = { 0 };
	int reqfd = open_in_mailbox(k->mailbox, "requests"), dfd = -1, r;

	if (reqfd >= 0)
		dfd = openat(reqfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			     O_CLOEXEC);
	if (dfd < 0) {
		r = crs_error_set(CRS_EINPUT, "request %s: not a folder", id);
		goto out;
	}
	if (faccessat(dfd, "target-source", F_OK, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (r = sidecar_tree_diff(dfd, "target-source", head_src, NULL,
				   &count, &rq->payload)) != 0)
		goto out;
	if (faccessat(dfd, "fuzz-proj", F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		r = sidecar_tree_diff(dfd, "fuzz-proj", s->project->dir, pdir,
				      &count, &rq->fuzz_patch);
out:
	if (dfd >= 0)
		close(dfd);
	if (reqfd >= 0)
		close(reqfd);
	return r;
}

/*
 * build-project: the trees' diffs built as apply-patch-build builds a
 * patch (job_build). A fuzz-project change first rebuilds the target
 * image from the patched copy of the project folder, which is also the
 * one laid at /OSS_CRS_PROJ_PATH.
 */
static int job_project(struct sidecar_crs *k,
		       const char *id, const struct sidecar_request *rq,
		       struct job_result *jr)
{
	struct scan *s = &k->w.ws;
	struct sidecar_request prq = *rq;
	struct project_config proj, *project = s->project;
	char *target_image = s->state.target_image;
	char *pdir = xasprintf("%s/fuzz-proj", k->work_dir);
	char *which = NULL, *image = NULL, *tag = NULL, *iname = NULL;
	char *ctx = NULL, *src = NULL, *head_src = NULL, *full = NULL;
	int r;

	buf_init(&prq.payload);
	buf_init(&prq.fuzz_patch);
	if ((r = target_source_dir(s, s->state.head_commit, &head_src)) == 0)
		r = project_patches(s, k, id, head_src, pdir, &prq);
	if (r == CRS_EINPUT) {
		jr->retcode = 1;
		buf_printf(&jr->err, "crs-ci refused the trees: %s\n",
			   crs_error_last());
		crs_error_clear();
		r = 0;
		goto out;
	}
	if (r != 0)
		goto out;
	if (!prq.payload.len && !prq.fuzz_patch.len) {
		jr->retcode = 1;
		buf_printf(&jr->err, "nothing to build: the trees do not "
			   "differ from /OSS_CRS_TARGET_SOURCE and "
			   "/OSS_CRS_FUZZ_PROJ\n");
		goto out;
	}
	if (answer_cached(k, &prq, jr))
		goto out;
	if (prq.fuzz_patch.len) {
		iname = xasprintf("fuzz-proj-%s", k->c->name);
		/* the CRS's Dockerfile: offline, in the CRS's limits */
		r = target_image_build(s, pdir, iname, &k->c->res, 1, &tag);
		if (r != 0 && r != CRS_EINTR) {
			jr->retcode = 1;
			buf_printf(&jr->err, "the patched fuzz project does "
				   "not build its image: %s\n",
				   crs_error_last());
			crs_error_clear();
			r = 0;
		}
		if (!tag)
			goto out;
		/* the head source over it, as the head's image is made */
		proj = *project;
		proj.dir = pdir;
		s->project = &proj;
		s->state.target_image = tag;
		ctx = xasprintf("%s/fuzz-proj-src", k->work_dir);
		src = xasprintf("%s/src", ctx);
		free(iname);
		iname = xasprintf("fuzz-proj-%s-head", k->c->name);
		if ((r = fs_remove_tree(ctx)) == 0 &&
		    (r = fs_copy_tree(head_src, src)) == 0)
			r = target_context_image(s, ctx, "the head source over "
						 "a patched fuzz project",
						 iname, &k->c->res, &full);
		s->project = project;
		s->state.target_image = target_image;
		if (r != 0)
			goto out;
	}
	r = job_build(k, &prq, full, jr, &which, &image);
out:
	sidecar_request_release(&prq);
	free(pdir);
	free(which);
	free(image);
	free(tag);
	free(iname);
	free(ctx);
	free(src);
	free(head_src);
	free(full);
	return r;
}

/* Execute one request and answer it (in the worker thread). */
static void job_run(struct sidecar *sc, struct sidecar_crs *k,
		    const char *id, const struct sidecar_request *rq)
{
	struct job_result jr = { .retcode = 1, .rebuild_id = -1 };
	struct sidecar_response rs = { 0 };
	char *which = NULL, *image = NULL;
	int r = 0, resfd;

	buf_init(&jr.out);
	buf_init(&jr.err);
	log_info("sidecar: %s asks %s%s%s", k->c->name,
		 mailbox_kind_name(rq->kind),
		 rq->harness[0] ? " " : "", rq->harness);
	if (rq->kind == SIDECAR_POV) {
		r = job_pov(k, rq, &jr);
	} else if (rq->kind == SIDECAR_PROJECT) {
		r = job_project(k, id, rq, &jr);
	} else if (rq->kind == SIDECAR_TEST || !answer_cached(k, rq, &jr)) {
		r = job_build(k, rq, NULL, &jr, &which, &image);
		if (r == 0 && rq->kind == SIDECAR_TEST && jr.retcode == 0)
			r = job_tests(k, which, image, &jr);
	}
	if (rq->kind == SIDECAR_POV || rq->kind == SIDECAR_TEST)
		jr.rebuild_id = -1;
	if (r != 0) {
		jr.retcode = 1;
		buf_printf(&jr.err, "crs-ci could not run the job: %s\n",
			   crs_error_last());
	}
	rs.retcode = jr.retcode;
	rs.out = jr.out.len ? jr.out.ptr : "";
	rs.err = jr.err.len ? jr.err.ptr : "";
	rs.rebuild_id = jr.rebuild_id;
	resfd = open_in_mailbox(k->mailbox, "responses");
	if (resfd < 0 || sidecar_response_write(resfd, id, &rs) != 0) {
		const char *why = crs_error_last();
		char q[1024];

		log_warn("sidecar: %s: cannot answer: %s", k->c->name,
			 resfd < 0 ? "no responses/ folder" :
			 log_quote(q, sizeof(q), why, strlen(why)));
		crs_error_clear();
	} else {
		pthread_mutex_lock(&sc->lock);
		sc->answered++;
		pthread_mutex_unlock(&sc->lock);
		log_info("sidecar: %s's %s answered: retcode %d", k->c->name,
			 mailbox_kind_name(rq->kind), jr.retcode);
	}
	if (resfd >= 0)
		close(resfd);
	buf_release(&jr.out);
	buf_release(&jr.err);
	free(which);
	free(image);
}

static void *worker(void *arg)
{
	struct sidecar_crs *k = arg;
	struct sidecar_worker *w = &k->w;

	job_run(w->sc, k, w->job.id, &w->job.rq);
	/* our copy, or what target_context_image replaced it with */
	free(w->ws.state.repo_path);
	w->ws.state.repo_path = NULL;
	sidecar_request_release(&w->job.rq);
	__atomic_store_n(&w->finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Start k's worker on a request read by the main thread (rq moved). */
static int job_start(struct sidecar *sc, struct sidecar_crs *k,
		     const char *id, struct sidecar_request *rq)
{
	const struct scan *s = sc->s;
	struct sidecar_worker *w = &k->w;
	int e;

	w->sc = sc;
	w->ws = *s;
	w->wctx = *s->ctx;
	w->wctx.interrupted = &w->stop;
	w->ws.ctx = &w->wctx;
	w->wcompose = *s->compose;
	w->ws.compose = &w->wcompose;
	w->ws.state.repo_path = s->state.repo_path ?
		xstrdup(s->state.repo_path) : NULL;
	/* a request name: at most SIDECAR_ID_MAX bytes (sidecar_name_ok) */
	memcpy(w->job.id, id, strnlen(id, SIDECAR_ID_MAX));
	w->job.id[strnlen(id, SIDECAR_ID_MAX)] = '\0';
	w->job.rq = *rq;
	buf_init(&rq->payload);	/* moved */
	buf_init(&rq->fuzz_patch);
	w->finished = 0;
	w->stop = 0;
	if ((e = pthread_create(&w->thread, NULL, worker, k)) != 0) {
		free(w->ws.state.repo_path);
		sidecar_request_release(&w->job.rq);
		return crs_error_set(CRS_ERR, "sidecar: cannot start a "
				     "thread: %s", strerror(e));
	}
	w->busy = 1;
	return 0;
}

/* Join k's worker if it finished; 1 when it is still busy. */
static int job_reap(struct sidecar_crs *k)
{
	if (!k->w.busy)
		return 0;
	if (!__atomic_load_n(&k->w.finished, __ATOMIC_ACQUIRE))
		return 1;
	pthread_join(k->w.thread, NULL);
	k->w.busy = 0;
	return 0;
}

void sidecar_stop(struct sidecar *sc)
{
	if (!sc)
		return;
	for (size_t i = 0; i < sc->crs_nr; i++)	/* all give up at once */
		if (sc->crs[i].w.busy)
			sc->crs[i].w.stop = 1;
	for (size_t i = 0; i < sc->crs_nr; i++) {
		struct sidecar_worker *w = &sc->crs[i].w;

		if (!w->busy)
			continue;
		pthread_join(w->thread, NULL);
		w->busy = 0;
		w->stop = 0;
	}
}

/*
 * The listing of the requests folder `reqfd`, kept across polls: from
 * where the last poll stopped, or from the top after it ended or when
 * requests/ is another folder now. NULL when it cannot be listed.
 */
static DIR *requests_listing(struct sidecar_crs *k, int reqfd)
{
	struct stat st;
	int fd;

	if (fstat(reqfd, &st) != 0)
		return NULL;
	if (k->listing && (st.st_dev != k->listing_dev ||
			   st.st_ino != k->listing_ino)) {
		closedir(k->listing);
		k->listing = NULL;
	}
	if (!k->listing) {
		fd = fcntl(reqfd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0 || !(k->listing = fdopendir(fd))) {
			if (fd >= 0)
				close(fd);
			return NULL;
		}
		rewinddir(k->listing);	/* the offset is reqfd's too */
		k->listing_dev = st.st_dev;
		k->listing_ino = st.st_ino;
		k->listed = 0;
	}
	if (k->listed) {
		rewinddir(k->listing);
		k->listed = 0;
	}
	return k->listing;
}

/* Answer a request that cannot be run (the reason in crs_error_last). */
static void refuse(struct sidecar_crs *k, int resfd, const char *id)
{
	struct sidecar_response rs = { .retcode = 1, .rebuild_id = -1 };
	char *err = xasprintf("crs-ci refused the request: %s\n",
			      crs_error_last());
	const char *why = crs_error_last();
	char q[1024];

	if (k->warned < SIDECAR_WARN_MAX)
		log_warn("sidecar: %s: %s", k->c->name,
			 log_quote(q, sizeof(q), why, strlen(why)));
	else if (k->warned == SIDECAR_WARN_MAX)
		log_warn("sidecar: %s: more requests refused; not logged",
			 k->c->name);
	k->warned += k->warned <= SIDECAR_WARN_MAX;
	crs_error_clear();
	rs.err = err;
	if (sidecar_name_ok(id, SIDECAR_ID_MAX))
		sidecar_response_write(resfd, id, &rs);
	crs_error_clear();
	free(err);
	strset_add(&k->refused, id);
	if (k->refused.nr >= SIDECAR_REFUSED_MAX) {
		k->ignored = 1;
		log_warn("sidecar: %s: %d requests refused; its mailbox is no "
			 "longer read", k->c->name, SIDECAR_REFUSED_MAX);
	}
}

/* Answer the new requests of one CRS's mailbox, a bounded number. */
static int poll_one(struct sidecar *sc, struct sidecar_crs *k)
{
	int mfd = -1, reqfd = -1, resfd = -1, r = 0;
	unsigned entries = 0, refusals = 0;
	struct dirent *de;
	DIR *d = NULL;

	if (k->ignored)
		return 0;
	mfd = open(k->mailbox, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		   O_CLOEXEC);
	if (mfd >= 0) {
		reqfd = openat(mfd, "requests", O_RDONLY | O_DIRECTORY |
			       O_NOFOLLOW | O_CLOEXEC);
		resfd = openat(mfd, "responses", O_RDONLY | O_DIRECTORY |
			       O_NOFOLLOW | O_CLOEXEC);
	}
	if (reqfd < 0 || resfd < 0 || !(d = requests_listing(k, reqfd)))
		goto out;	/* the CRS broke its own mailbox */
	while (r == 0 && !k->w.busy && !k->ignored &&
	       entries++ < SIDECAR_TICK_ENTRIES &&
	       refusals < SIDECAR_TICK_REFUSALS) {
		struct sidecar_request rq;
		struct stat st;

		if (!(de = readdir(d))) {
			k->listed = 1;
			break;
		}
		if (de->d_name[0] == '.' ||
		    strset_has(&k->refused, de->d_name) ||
		    fstatat(resfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			continue;	/* hidden, unanswerable or answered */
		if (scan_interrupted(sc->s)) {
			r = CRS_EINTR;
			break;
		}
		if (sidecar_request_read(reqfd, de->d_name, &rq) != 0) {
			refuse(k, resfd, de->d_name);
			refusals++;
		} else {
			r = job_start(sc, k, de->d_name, &rq);
		}
		sidecar_request_release(&rq);
	}
out:
	if (resfd >= 0)
		close(resfd);
	if (reqfd >= 0)
		close(reqfd);
	if (mfd >= 0)
		close(mfd);
	return r;
}

int sidecar_poll(struct sidecar *sc)
{
	int r = 0;

	if (!sc)
		return 0;
	for (size_t i = 0; i < sc->crs_nr && r == 0; i++)
		if (!job_reap(&sc->crs[i]))
			r = poll_one(sc, &sc->crs[i]);
	return r;
}
