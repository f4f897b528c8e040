/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sidecar.c - crs-ci's builder sidecar: requests that travel as files
 *
 * Polled by the run loop; each CRS's requests run one at a time on its
 * own worker thread and cpuset, with caps against floods.
 *
 * Details: docs/sidecar.md; design notes: docs/internals.md.
 */
#include "runner/sidecar/sidecar_jobs.h"
#include "runner/sidecar/sidecar_wire.h"
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


_Static_assert((int)SIDECAR_BUILD == MAILBOX_BUILD &&
	       (int)SIDECAR_POV == MAILBOX_POV &&
	       (int)SIDECAR_TEST == MAILBOX_TEST &&
	       (int)SIDECAR_PROJECT == MAILBOX_PROJECT,
	       "sidecar_kind follows the mailbox's kinds");

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

unsigned sidecar_busy(struct sidecar *sc)
{
	unsigned n = 0;

	for (size_t i = 0; sc && i < sc->crs_nr; i++)
		n += sc->crs[i].w.busy &&
		     !__atomic_load_n(&sc->crs[i].w.finished,
				      __ATOMIC_ACQUIRE);
	return n;
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
		r = sidecar_job_pov(k, rq, &jr);
	} else if (rq->kind == SIDECAR_PROJECT) {
		r = sidecar_job_project(k, id, rq, &jr);
	} else if (rq->kind == SIDECAR_TEST || !sidecar_answer_cached(k, rq, &jr)) {
		r = sidecar_job_build(k, rq, NULL, &jr, &which, &image);
		if (r == 0 && rq->kind == SIDECAR_TEST && jr.retcode == 0)
			r = sidecar_job_tests(k, which, image, &jr);
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
	resfd = sidecar_open_in_mailbox(k->mailbox, "responses");
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
	scan_exec_bind(&w->ws);	/* its stop flag, its compose's infra */
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
