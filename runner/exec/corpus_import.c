/* SPDX-License-Identifier: Apache-2.0 */
/*
 * corpus_import.c - read --corpus and --oss-fuzz-corpus sources per harness
 *
 * Each harness of the head build gets <work>/corpus-in/<harness>/, made
 * fresh, which the sources fill in the order given, OSS-Fuzz's last. A
 * source without "{harness}" (a store's layout: <harness>/ folders) is
 * downloaded once and read for every harness. Nothing read is trusted:
 * runner/corpus/ reads only regular files, renames inputs by content and
 * refuses an archive past its caps.
 */
#include "runner/exec/corpus_import.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/user_path.h"
#include "common/xalloc.h"
#include "runner/corpus/corpus_fetch.h"
#include "runner/corpus/corpus_read.h"
#include "runner/corpus/corpus_sink.h"
#include "runner/corpus/corpus_source.h"
#include "runner/corpus/corpus_store.h"
#include "runner/scan/cache_root.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "sarif/finding.h"
#include "sarif/run_corpus.h"

/* a download's time at most, and a share of what the scan has left */
#define FETCH_SECONDS_MAX 300
#define RECORD_MAX ((size_t)4 << 20)

/* One source of the scan, and its download when it has one for all. */
struct source {
	char *spec;		/* as given, "{harness}" unexpanded */
	char *shown;		/* corpus_source_shown(spec) */
	char *archive;		/* a shared download, once fetched */
	char *error;		/* why the shared download failed */
	int fetched;		/* the shared download was tried */
};

static void sources_from_opts(const struct scan_opts *o, struct source **out,
			      size_t *nr)
{
	size_t n = o->corpora_nr + (o->oss_fuzz_corpus != NULL);
	struct source *v = xcalloc(n ? n : 1, sizeof(*v));

	for (size_t i = 0; i < o->corpora_nr; i++)
		v[i].spec = xstrdup(o->corpora[i]);
	if (o->oss_fuzz_corpus)
		v[n - 1].spec = corpus_source_oss_fuzz(
			o->oss_fuzz_mirror ? o->oss_fuzz_mirror :
			CORPUS_OSS_FUZZ_BASE, o->oss_fuzz_corpus);
	for (size_t i = 0; i < n; i++)
		v[i].shown = corpus_source_shown(v[i].spec);
	*out = v;
	*nr = n;
}

static void sources_free(struct source *v, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		if (v[i].archive)
			unlink(v[i].archive);
		free(v[i].spec);
		free(v[i].shown);
		free(v[i].archive);
		free(v[i].error);
	}
	free(v);
}

/* Download `url` to the new file `path`: 0, or the error (message set). */
static int fetch_to(struct scan *s, const char *url, const char *path)
{
	double left = scan_remaining(s) / 4;
	long timeout = left < FETCH_SECONDS_MAX ? (long)left + 1 :
		FETCH_SECONDS_MAX;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		      O_CLOEXEC, 0600), r;

	if (fd < 0)
		return crs_error_set(CRS_ERR, "%s: %s", path, strerror(errno));
	r = corpus_fetch(url, fd, CORPUS_DOWNLOAD_MAX, timeout,
			 scan_stop_flag(s));
	if (close(fd) != 0 && r == 0)
		r = crs_error_set(CRS_ERR, "%s: %s", path, strerror(errno));
	if (r != 0)
		unlink(path);
	return r;
}

/* Read the archive file `path` (shown as `shown`) into the sink. */
static int read_archive_file(const char *path, const char *shown,
			     const char *harness, struct corpus_sink *k,
			     struct corpus_count *c)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), r;
	struct stat st;

	if (fd < 0)
		return crs_error_set(errno == ENOENT ? CRS_ENOTFOUND : CRS_EINPUT,
				     "%s: %s", shown, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		r = crs_error_set(CRS_EINPUT, "%s: not a regular file", shown);
	else
		r = corpus_read_archive(fd, shown, harness, k, c);
	close(fd);
	return r;
}

/*
 * Read the local folder or archive `path` (a folder's <harness>/ subfolder
 * when `sub`). A path inside the checkout is walked with no link followed
 * (user_path_open): the pull request wrote its folders.
 */
static int read_local(struct scan *s, const char *path, const char *harness,
		      int sub, struct corpus_sink *k, struct corpus_count *c)
{
	struct stat st;
	int fd, hfd, r;

	if ((r = user_path_open(&fd, path, s->opts->source)) != 0)
		return r;
	if (fstat(fd, &st) != 0) {
		r = crs_error_set(CRS_ERR, "%s: %s", path, strerror(errno));
	} else if (S_ISREG(st.st_mode)) {
		r = corpus_read_archive(fd, path, sub ? harness : NULL, k, c);
	} else if (!S_ISDIR(st.st_mode)) {
		r = crs_error_set(CRS_EINPUT, "%s: not a folder or a regular "
				  "file", path);
	} else if (!sub) {
		r = corpus_read_folder(fd, path, k, c);
	} else if ((hfd = openat(fd, harness, O_RDONLY | O_DIRECTORY |
				 O_NOFOLLOW | O_CLOEXEC)) >= 0) {
		char *shown = xasprintf("%s/%s", path, harness);

		r = corpus_read_folder(hfd, shown, k, c);
		free(shown);
		close(hfd);
	} else if (errno == ENOENT) {
		r = CRS_ENOTFOUND;	/* no folder for this harness */
	} else {
		r = crs_error_set(CRS_EINPUT, "%s/%s: %s", path, harness,
				  errno == ELOOP || errno == ENOTDIR ?
				  "a link or a file, not a folder" :
				  strerror(errno));
	}
	close(fd);
	return r;
}

/* Read source `src` for `harness` into the sink. */
static int read_source(struct scan *s, struct source *src, const char *harness,
		       const char *tmp, struct corpus_sink *k,
		       struct corpus_count *c)
{
	int per = corpus_source_per_harness(src->spec), r;
	char *where = corpus_source_expand(src->spec, harness);

	if (corpus_source_is_url(where) && per) {
		char *shown = corpus_source_shown(where);

		if ((r = fetch_to(s, where, tmp)) == 0) {
			r = read_archive_file(tmp, shown, NULL, k, c);
			unlink(tmp);
		}
		free(shown);
	} else if (corpus_source_is_url(where)) {
		if (!src->fetched) {
			src->fetched = 1;
			src->archive = xstrdup(tmp);
			if (fetch_to(s, where, src->archive) != 0) {
				src->error = xstrdup(crs_error_last());
				free(src->archive);
				src->archive = NULL;
				if (crs_error_code() == CRS_EINTR) {
					free(where);
					return CRS_EINTR;
				}
			}
		}
		r = src->archive ? read_archive_file(src->archive, src->shown,
						     harness, k, c) :
			crs_error_set(CRS_ERR, "%s", src->error);
	} else {
		r = read_local(s, where, harness, !per, k, c);
	}
	free(where);
	return r;
}

static void count_into(struct run_corpus_source *rs,
		       const struct corpus_count *c)
{
	rs->read = c->read;
	rs->kept = c->kept;
	rs->duplicate = c->duplicate;
	rs->passed_over = c->too_big + c->over_cap + c->not_regular;
}

/* Log what the sources added to `h`'s corpus. */
static void log_harness(const struct run_corpus_harness *h, size_t inputs)
{
	for (size_t i = 0; i < h->sources_nr; i++) {
		const struct run_corpus_source *r = &h->sources[i];

		if (r->error)
			log_warn("corpus: %s: %s: %s", h->harness, r->source,
				 r->error);
		else if (r->read)
			log_info("corpus: %s: %zu new input(s) from %s (%zu "
				 "read, %zu duplicate, %zu passed over: too "
				 "big, over a cap or not a regular file)",
				 h->harness, r->kept, r->source, r->read,
				 r->duplicate, r->passed_over);
	}
	if (inputs)
		log_info("corpus: %s: %zu imported input(s) in all", h->harness,
			 inputs);
}

/* Read the store's corpus/<harness>/ into the sink, recorded in `rh`. */
static int store_source(struct scan *s, const char *harness,
			struct corpus_sink *k, struct run_corpus_harness *rh)
{
	struct corpus_count c = { 0 };
	struct run_corpus_source *rs;
	int r = corpus_store_read(s->corpus_store, harness, k, &c);

	rs = run_corpus_add(rh, corpus_store_shown(s->corpus_store));
	count_into(rs, &c);
	if (r == CRS_EINPUT) {
		rs->error = xstrdup(crs_error_last());
		crs_error_clear();
		r = 0;
	}
	return r;
}

/* Fill `rh` for one harness: the store, then every source in order. */
static int import_harness(struct scan *s, struct source *v, size_t nr,
			  const char *harness, size_t *bytes,
			  struct run_corpus_harness *rh)
{
	char *dir = scan_work_path(s, "corpus-in/%s", harness);
	char *tmp = scan_work_path(s, "corpus-in/.download");
	struct corpus_sink k;
	int fd = -1, r;

	if ((r = fs_mkdir_new(dir)) != 0 || (r = fs_open_dir(&fd, dir)) != 0 ||
	    (r = corpus_sink_open(&k, fd, bytes, CORPUS_BYTES_MAX)) != 0)
		goto out;
	if (s->corpus_store)	/* the store first */
		r = store_source(s, harness, &k, rh);
	for (size_t i = 0; i < nr && r == 0; i++) {
		struct corpus_count c = { 0 };
		struct run_corpus_source *rs;
		char *stmp = xasprintf("%s-%zu", tmp, i);

		if (scan_interrupted(s)) {
			r = crs_error_set(CRS_EINTR, "interrupted");
			free(stmp);
			break;
		}
		r = read_source(s, &v[i], harness, stmp, &k, &c);
		free(stmp);
		rs = run_corpus_add(rh, v[i].shown);
		count_into(rs, &c);
		if (r == CRS_ENOTFOUND) {	/* nothing for this harness */
			crs_error_clear();
			r = 0;
		} else if (r == CRS_EINPUT || (r == CRS_ERR &&
					      corpus_source_is_url(v[i].spec))) {
			rs->error = xstrdup(crs_error_last());
			crs_error_clear();
			r = 0;
		}
	}
	if (r == 0)
		log_harness(rh, k.inputs);
out:
	if (fd >= 0)
		close(fd);
	free(dir);
	free(tmp);
	return r;
}

/*
 * Fetch --corpus-store into <work>/corpus-store.git (made fresh): one that
 * cannot be fetched is a warning, and the scan goes on without it.
 */
static int store_open(struct scan *s)
{
	char *gitdir = scan_work_path(s, "corpus-store.git");
	int r;

	if (!s->opts->corpus_store || s->corpus_store) {
		free(gitdir);
		return 0;
	}
	if ((r = fs_remove_tree(gitdir)) == 0) {
		/* from the environment, never the command line */
		r = corpus_store_open(&s->corpus_store, s->opts->corpus_store,
				      s->opts->corpus_store_branch, gitdir,
				      getenv("CRS_CI_STORE_USER"),
				      getenv("CRS_CI_STORE_TOKEN"));
		if (r == CRS_ENOTFOUND) {
			log_warn("corpus: %s; the scan goes on without the "
				 "store", crs_error_last());
			crs_error_clear();
			r = 0;
		} else if (r == 0) {
			log_info("corpus: store %s fetched",
				 corpus_store_shown(s->corpus_store));
		}
	}
	free(gitdir);
	return r;
}

int corpus_import(struct scan *s)
{
	const struct scan_opts *o = s->opts;
	struct run_corpus *rec;
	struct source *v = NULL;
	size_t nr = 0, bytes = 0;
	char *root, *path;
	int r;

	if (s->corpus_imported)
		return 0;
	s->corpus_imported = 1;
	root = scan_work_path(s, "corpus-in");
	path = scan_work_path(s, "corpus-import.json");
	if (!o->corpora_nr && !o->oss_fuzz_corpus && !o->corpus_store) {
		/* an earlier scan's, in the same work folder */
		r = fs_remove_tree(root);
		if (r == 0 && unlink(path) != 0 && errno != ENOENT)
			r = crs_error_set(CRS_ERR, "%s: %s", path,
					  strerror(errno));
		free(root);
		free(path);
		return r;
	}
	rec = xcalloc(1, sizeof(*rec));
	rec->harnesses = xcalloc(s->state.harnesses_nr + 1,
				 sizeof(*rec->harnesses));
	sources_from_opts(o, &v, &nr);
	/* fresh for this scan: nothing found there is taken */
	if ((r = fs_remove_tree(root)) != 0 || (r = fs_mkdir_new(root)) != 0 ||
	    (r = store_open(s)) != 0)
		goto out;
	for (size_t i = 0; i < s->state.harnesses_nr && r == 0; i++) {
		struct run_corpus_harness *rh = &rec->harnesses[rec->nr++];

		rh->harness = xstrdup(s->state.harnesses[i]);
		r = import_harness(s, v, nr, rh->harness, &bytes, rh);
	}
	if (r == 0) {
		json_t *j = run_corpus_to_json(rec);

		r = finding_json_save(j, path, "record");
		json_decref(j);
	}
out:
	sources_free(v, nr);
	run_corpus_free(rec);
	free(root);
	free(path);
	return r;
}

char *corpus_import_dir(struct scan *s, const char *harness)
{
	char *dir = scan_work_path(s, "corpus-in/%s", harness);
	struct corpus_sink k;
	int fd = -1;

	if (!s->corpus_imported || fs_open_dir(&fd, dir) != 0 ||
	    corpus_sink_open(&k, fd, NULL, 0) != 0 || !k.inputs) {
		crs_error_clear();
		if (fd >= 0)
			close(fd);
		free(dir);
		return NULL;
	}
	close(fd);
	return dir;
}

int corpus_import_in(struct scan *s, const char *harness,
		     const char *seeds_dir)
{
	char *dir = corpus_import_dir(s, harness);
	int from = -1, to = -1, r = 0;
	size_t n = 0;

	if (!dir)
		return 0;
	if ((r = fs_open_dir(&from, dir)) == 0 &&
	    (r = fs_mkdir_p(seeds_dir)) == 0 &&
	    (r = fs_open_dir(&to, seeds_dir)) == 0)
		r = cache_copy_files(from, to, dir, 1, CORPUS_INPUTS_MAX,
				     CORPUS_INPUT_MAX, &n);
	if (r == 0 && n)
		log_info("corpus: %zu imported input(s) of %s handed to the "
			 "CRSs", n, harness);
	if (from >= 0)
		close(from);
	if (to >= 0)
		close(to);
	free(dir);
	return r;
}

int corpus_import_grow(struct scan *s, const char *harness,
		       const char *seeds_dir)
{
	size_t added = 0;
	int fd = -1, r;

	if (!s->opts->batch || !s->corpus_store)
		return 0;
	if ((r = fs_open_dir(&fd, seeds_dir)) != 0) {
		if (r == CRS_ENOTFOUND) {
			crs_error_clear();
			r = 0;
		}
		return r;
	}
	r = corpus_store_add(s->corpus_store, harness, fd, &added);
	close(fd);
	if (r == 0)
		log_info("corpus: %s: %zu new input(s) for the store", harness,
			 added);
	return r;
}

int corpus_import_push(struct scan *s)
{
	char *msg;
	int r;

	if ((!s->opts->batch && !s->opts->prune && !s->opts->coverage_mode) ||
	    !s->corpus_store)
		return 0;
	msg = xasprintf("crs-ci %s of %.12s: %s\n", s->opts->batch ? "batch" :
			s->opts->prune ? "prune" : "coverage",
			s->state.head_commit ? s->state.head_commit : "?",
			s->opts->batch ? "corpora grown" : s->opts->prune ?
			"corpora minimized" : "coverage history");
	r = corpus_store_push(s->corpus_store, msg);
	free(msg);
	if (r == 0)
		log_info("corpus: store %s: pushed",
			 corpus_store_shown(s->corpus_store));
	return r;
}

int corpus_import_load(struct scan *s, struct run_corpus **out)
{
	char *path = scan_work_path(s, "corpus-import.json");
	json_t *j = NULL;
	int r;

	*out = NULL;
	if (!fs_exists(path)) {
		free(path);
		return 0;
	}
	if ((r = finding_json_load(&j, path, RECORD_MAX)) == 0)
		r = run_corpus_from_json(out, j, path);
	json_decref(j);
	free(path);
	return r;
}
