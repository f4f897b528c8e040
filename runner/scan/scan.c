/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scan.c - opening a scan, its state file, its clock and its cleanup
 *
 * The owner label ties every container and network of this process to
 * it, so scan_close() (reached on success, failure, deadline and SIGINT)
 * removes exactly those and nothing else on the engine.
 */
#include "runner/corpus/corpus_store.h"
#include "runner/scan/scan.h"
#include "runner/scan/ctx.h"
#include "runner/scan/scan_opts.h"
#include "runner/scan/state_dirs.h"
#include "runner/scan/timings_record.h"
#include "runner/config/config.h"
#include "runner/config/crs_registry.h"
#include "runner/engine/docker.h"
#include "runner/gateway/gw_config.h"
#include "runner/engine/reaper.h"
#include "diff/changeset.h"
#include "diff/worktree.h"
#include "sarif/finding.h"
#include "sarif/sarif_read.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <errno.h>
#include <jansson.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SCAN_STATE_MAX (4u << 20)

static char *new_owner(void)
{
	unsigned char rnd[6];
	char hex[13];

	if (RAND_bytes(rnd, sizeof(rnd)) != 1)
		for (size_t i = 0; i < sizeof(rnd); i++)
			rnd[i] = (unsigned char)(rand() ^ (int)time(NULL));
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(hex + 2 * i, 3, "%02x", rnd[i]);
	return xasprintf("crs-ci-%s", hex);
}

/*
 * The checkout's edits that the head commit does not hold, when the head
 * is its HEAD: the scan reads commits, so they are not scanned. Said
 * loudly now, and in the verdict (summary.uncommitted).
 */
static void note_uncommitted(struct scan *s)
{
	struct buf list = BUF_INIT;

	if (diff_worktree_uncommitted(s->source_dir, s->change->head_commit,
				      &s->uncommitted,
				      SUMMARY_UNCOMMITTED_MAX,
				      &s->uncommitted_total) != 0) {
		log_warn("change: cannot tell whether the checkout has "
			 "uncommitted edits (%s)", crs_error_last());
		crs_error_clear();
		return;
	}
	if (!s->uncommitted_total)
		return;
	for (size_t i = 0; i < s->uncommitted.nr && i < 3; i++)
		buf_printf(&list, "%s%s", i ? ", " : "", s->uncommitted.v[i]);
	log_warn("change: NOT SCANNED: %zu uncommitted file(s) in the "
		 "checkout (%s%s): the scan reads the commits up to HEAD; "
		 "commit them and scan again", s->uncommitted_total, list.ptr,
		 s->uncommitted_total > 3 ? ", ..." : "");
	buf_release(&list);
}

static int load_change(struct scan *s)
{
	const struct scan_opts *o = s->opts;
	struct buf b = BUF_INIT;
	int r = 0;

	if (o->diff) {
		if ((r = fs_read_file(&b, o->diff, 64u << 20)) == 0)
			r = diff_changeset_from_patch(&s->change, b.ptr, b.len,
						      o->diff);
		if (r == CRS_ENOTFOUND)
			r = CRS_EINPUT;
	} else if (o->base) {
		r = diff_changeset_from_git(&s->change, s->source_dir,
					    o->base, o->head);
	}
	buf_release(&b);
	if (r == 0 && s->change)
		log_info("change: %zu file(s) touched%s%.12s", s->change->nr,
			 s->change->base_commit ? " since merge-base " : "",
			 s->change->base_commit ? s->change->base_commit : "");
	if (r == 0 && s->change && !o->diff)
		note_uncommitted(s);
	return r;
}

/* Each --sarif file parses, and no two share a name in bug-candidates/. */
static int check_sarifs(const struct scan_opts *o)
{
	int r = 0;

	for (size_t i = 0; i < o->sarifs_nr && r == 0; i++) {
		struct sarif_candidates c = SARIF_CANDIDATES_INIT;
		const char *bi = strrchr(o->sarifs[i], '/');

		bi = bi ? bi + 1 : o->sarifs[i];
		for (size_t k = 0; k < i && r == 0; k++) {
			const char *bk = strrchr(o->sarifs[k], '/');

			if (strcmp(bk ? bk + 1 : o->sarifs[k], bi))
				continue;
			r = crs_error_set(CRS_EINPUT, "--sarif: '%s' and '%s' "
					  "have the same file name",
					  o->sarifs[k], o->sarifs[i]);
		}
		if (r == 0)
			r = sarif_candidates_load(o->sarifs[i], &c);
		sarif_candidates_release(&c);
	}
	return r;
}

/*
 * The LiteLLM config may name only the environment variables the rule
 * allows (os.environ/NAME): refused here, before any container runs, as
 * the gateway would refuse it later.
 */
static int check_llm_env(const struct compose *c)
{
	struct strvec names = STRVEC_INIT;
	int r = 0;

	if (c->has_llm && !c->llm_disabled && c->llm.config_path)
		r = gw_config_env_names(c->llm.config_path, &c->allow_env,
					&names);
	strvec_release(&names);
	return r;
}

/*
 * The user's --work-dir or --out with any link in it resolved (when it
 * exists): below these roots crs-ci follows no link (docs/work-folder.md),
 * so a root named through a link above it is taken as the folder it
 * names (the root itself as a link is refused: state_dirs.h).
 */
static char *resolve_root(char *path)
{
	char *real = realpath(path, NULL);

	if (!real)
		return path;
	free(path);
	return real;
}

/*
 * The work folder, created 0700 when it does not exist, so nothing in it
 * (build outputs, CRS submissions, LLM keys) is reachable by other users
 * of the host. libCRS and the containers create world-readable folders
 * inside it, so that crs-ci can read what a root container wrote when it
 * runs as another user; this one mode is what keeps them private. A
 * folder the user named that exists already keeps its mode.
 */
static int make_work_dir(const char *dir)
{
	int r;

	if (fs_exists(dir))
		return 0;
	if ((r = fs_mkdir_p(dir)) != 0)
		return r;
	if (chmod(dir, 0700) != 0)
		return crs_error_set(CRS_ERR, "%s: chmod: %s", dir,
				     strerror(errno));
	return 0;
}

/* SCAN_WANT_PROJECT: --project, or a .clusterfuzzlite/ to find. */
static int wants_project(const struct scan *s, unsigned needs)
{
	char *cfl;
	int yes;

	if ((needs & SCAN_NEED_PROJECT) || s->opts->project)
		return !!(needs & (SCAN_NEED_PROJECT | SCAN_WANT_PROJECT));
	if (!(needs & SCAN_WANT_PROJECT))
		return 0;
	cfl = xasprintf("%s/.clusterfuzzlite", s->source_dir);
	yes = fs_exists(cfl);
	free(cfl);
	return yes;
}

/*
 * The project folder (project_layout.c) and its project.yaml; the
 * project's name is the layout's, always a valid image-name component.
 */
static int load_project(struct scan *s)
{
	int r;

	if ((r = project_locate(&s->where, s->opts->project,
				s->source_dir)) != 0 ||
	    (r = project_config_load(&s->project, s->where.dir)) != 0)
		return r;
	free(s->project->name);
	s->project->name = xstrdup(s->where.name);
	log_info("project: %s '%s' (%s)", project_layout_name(s->where.layout),
		 s->where.name, s->where.dir);
	return 0;
}

/*
 * The compose and its CRSs: registry names through --registry,
 * $CRS_CI_REGISTRY or the registry beside crs-ci; git sources checked out
 * in <cache>/crs-src, or <work>/crs-src without --cache-dir.
 */
static int load_compose(struct scan *s)
{
	const struct scan_opts *o = s->opts;
	struct compose_sources src = { 0 };
	char *registry = NULL, *cache = NULL;
	struct stat st;
	int r, e;

	/* the option named: "x.yaml: No such file" alone does not say
	 * which of the paths on the command line is missing */
	e = stat(o->compose, &st) != 0 ? errno :
		S_ISDIR(st.st_mode) ? EISDIR : 0;
	if (e) {
		r = crs_error_set(CRS_ECONFIG, "--compose '%s': %s (crs-ci "
				  "init writes a starter compose)", o->compose,
				  e == ENOENT || e == ENOTDIR ? "no such file" :
				  e == EISDIR ? "a folder, not a compose file" :
				  strerror(e));
		return r;
	}
	registry = crs_registry_dir(o->registry, getenv("CRS_CI_REGISTRY"), NULL);
	if (o->cache_dir) {
		char *abs = fs_abspath(o->cache_dir);

		cache = xasprintf("%s/crs-src", abs);
		free(abs);
	} else {
		cache = scan_work_path(s, "crs-src");
	}
	src.registry_dir = registry;
	src.src_cache = cache;
	r = compose_load(&s->compose, o->compose, &src);
	free(registry);
	free(cache);
	return r;
}

/*
 * The work and output folders (the options, or state_dir_default()),
 * and the cache folder, refused inside the checkout under test or with
 * links in them (state_dirs.h); then with any link above them resolved.
 */
static int open_state_dirs(struct scan *s)
{
	const struct scan_opts *o = s->opts;
	char *work = o->work_dir ? xstrdup(o->work_dir) :
		state_dir_default(s->source_dir, "work");
	char *out = o->out_dir ? xstrdup(o->out_dir) :
		state_dir_default(s->source_dir, "out");
	int r;

	if ((r = state_dir_check("--work-dir", work, s->source_dir,
				 STATE_DIR_WORK)) == 0 &&
	    (r = state_dir_check("--out", out, s->source_dir,
				 STATE_DIR_OUT)) == 0 &&
	    o->cache_dir)
		r = state_dir_check("--cache-dir", o->cache_dir,
				    s->source_dir, STATE_DIR_CACHE);
	if (r == 0) {
		s->work_dir = resolve_root(fs_abspath(work));
		s->out_dir = resolve_root(fs_abspath(out));
		if (!o->work_dir || !o->out_dir)
			log_info("work folder %s, results in %s", s->work_dir,
				 s->out_dir);
	}
	free(work);
	free(out);
	return r;
}

/*
 * The checkout to scan: `source` made absolute; the default "." run from a
 * subfolder of a repository is that repository's root (its .clusterfuzzlite/
 * and the change's paths are the root's).
 */
static char *source_root(const char *source)
{
	char *abs = fs_abspath(source), *root;

	if (strcmp(source, ".") || !(root = diff_worktree_root(abs)))
		return abs;
	if (strcmp(root, abs))
		log_info("source: %s, the root of the repository this folder "
			 "is in", root);
	free(abs);
	return root;
}

/* CRS_ENOTFOUND if no scan.json (defined below, beside its twin). */
static int scan_state_load(struct scan *s);

int scan_open(struct scan **out, const struct scan_opts *o,
	      struct runner_ctx *ctx, unsigned needs)
{
	struct scan *s = xcalloc(1, sizeof(*s));
	int r = CRS_ERR;

	*out = NULL;
	s->opts = o;
	s->ctx = ctx;
	clock_gettime(CLOCK_MONOTONIC, &s->started);
	s->started_wall = time(NULL);
	s->source_dir = source_root(o->source);
	s->owner = new_owner();
	if ((r = open_state_dirs(s)) != 0)
		goto out;
	scan_exec_bind(s);	/* the roots, for scan_work_path */
	{
		char *path = scan_work_path(s, "timings.json");

		s->timings = timings_new(path, timings_wall_now(),
					 (double)o->timeout_s);
		free(path);
	}
	if ((needs & SCAN_NEED_COMPOSE) && !o->compose) {
		r = crs_error_set(CRS_EINPUT, "--compose is required");
		goto out;
	}
	if ((needs & SCAN_NEED_COMPOSE) && (r = load_compose(s)) != 0)
		goto out;
	if (wants_project(s, needs) && (r = load_project(s)) != 0)
		goto out;
	if (s->compose) {
		s->compose->llm_disabled = o->no_llm;
		s->compose->allow_env.names = o->allow_env;
		s->compose->allow_env.nr = o->allow_env_nr;
		if (o->llm_reason)	/* the CI's decision (results.json too) */
			log_info("LLM CRSs %s: %s", o->no_llm ? "off" : "on",
				 o->llm_reason);
	}
	if (s->compose &&
	    ((r = config_check(s->compose, s->project, 0)) != 0 ||
	     (r = check_llm_env(s->compose)) != 0))
		goto out;
	if ((needs & SCAN_NEED_CHANGE) && (r = load_change(s)) != 0)
		goto out;
	if ((r = check_sarifs(o)) != 0)
		goto out;
	if (needs & SCAN_NEED_ENGINE) {
		char *logs = scan_work_path(s, "logs");

		if ((r = make_work_dir(s->work_dir)) == 0)
			r = fs_mkdir_p(logs);
		free(logs);
		if (r != 0 ||
		    (r = docker_client_new(&s->docker, NULL)) != 0)
			goto out;
		if ((r = docker_ping(s->docker)) != 0) {
			/* nothing was created: no cleanup to attempt */
			docker_client_free(s->docker);
			s->docker = NULL;
			goto out;
		}
		/* what dead crs-ci processes left; a watchdog for ours */
		reaper_reap_dead(s->docker);
		logs = scan_work_path(s, "logs/watchdog.log");
		r = reaper_watchdog_start(&s->watchdog, s->owner, logs);
		free(logs);
		if (r != 0)
			goto out;
	}
	scan_exec_bind(s);	/* the engine, the compose, the record */
	r = scan_state_load(s);
	if (r == CRS_ENOTFOUND) {
		crs_error_clear();
		r = 0;
	}
	if (r != 0)
		goto out;
	*out = s;
	s = NULL; /* transferred */
out:
	scan_close(s);
	return r;
}

static void state_release(struct scan_state *st)
{
	free(st->project);
	free(st->sanitizer);
	free(st->language);
	free(st->base_seed);
	free(st->head_commit);
	free(st->base_commit);
	free(st->target_image);
	free(st->head_image);
	free(st->base_image);
	free(st->repo_path);
	free(st->run_id);
	for (size_t i = 0; i < st->harnesses_nr; i++)
		free(st->harnesses[i]);
	free(st->harnesses);
	for (size_t i = 0; i < st->images_nr; i++) {
		free(st->images[i].key);
		free(st->images[i].value);
	}
	free(st->images);
	memset(st, 0, sizeof(*st));
}

void scan_close(struct scan *s)
{
	if (!s)
		return;
	timings_free(s->timings);	/* what is open ends here */
	if (s->docker) {
		int cleaned = docker_remove_owned(s->docker, s->owner) == 0;

		if (!cleaned)
			log_warn("cleanup: %s (the watchdog retries)",
				 crs_error_last());
		reaper_watchdog_stop(s->watchdog, cleaned);
		docker_client_free(s->docker);
	}
	compose_free(s->compose);
	project_config_free(s->project);
	project_location_release(&s->where);
	diff_changeset_free(s->change);
	state_release(&s->state);
	for (size_t i = 0; i < s->exported_nr; i++) {
		free(s->exported[i].key);
		free(s->exported[i].value);
	}
	free(s->exported);
	strvec_release(&s->uncommitted);
	corpus_store_free(s->corpus_store);
	free(s->work_dir);
	free(s->out_dir);
	free(s->source_dir);
	free(s->owner);
	if (s->cache_fd > 0)
		close(s->cache_fd);
	free(s);
}

/* string fields of scan_state, by name, for (de)serialisation */
static const struct {
	const char *name;
	size_t off;
} state_fields[] = {
	{ "project", offsetof(struct scan_state, project) },
	{ "sanitizer", offsetof(struct scan_state, sanitizer) },
	{ "language", offsetof(struct scan_state, language) },
	{ "head_commit", offsetof(struct scan_state, head_commit) },
	{ "base_commit", offsetof(struct scan_state, base_commit) },
	{ "target_image", offsetof(struct scan_state, target_image) },
	{ "head_image", offsetof(struct scan_state, head_image) },
	{ "base_image", offsetof(struct scan_state, base_image) },
	{ "repo_path", offsetof(struct scan_state, repo_path) },
	{ "run_id", offsetof(struct scan_state, run_id) },
};

#define STATE_FIELD(st, i) ((char **)((char *)(st) + state_fields[i].off))

int scan_state_save(const struct scan *s)
{
	json_t *j = json_object(), *h = json_array(), *img = json_object();
	char *path = scan_work_path(s, "scan.json");
	char *text = NULL;
	int r;

	for (size_t i = 0; i < sizeof(state_fields) / sizeof(state_fields[0]); i++) {
		const char *v = *STATE_FIELD(&s->state, i);

		if (v)
			json_object_set_new(j, state_fields[i].name,
					    json_string(v));
	}
	for (size_t i = 0; i < s->state.harnesses_nr; i++)
		json_array_append_new(h, json_string(s->state.harnesses[i]));
	for (size_t i = 0; i < s->state.images_nr; i++)
		json_object_set_new(img, s->state.images[i].key,
				    json_string(s->state.images[i].value));
	json_object_set_new(j, "harnesses", h);
	json_object_set_new(j, "images", img);
	text = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
	r = text ? fs_write_file_atomic(path, text, strlen(text)) :
		crs_error_set(CRS_ERR, "serialising scan state");
	free(text);
	free(path);
	json_decref(j);
	return r;
}

static int scan_state_load(struct scan *s)
{
	char *path = scan_work_path(s, "scan.json");
	struct buf b = BUF_INIT;
	json_error_t jerr;
	json_t *j = NULL, *v;
	const char *key;
	size_t i;
	int r;

	if ((r = fs_read_file(&b, path, SCAN_STATE_MAX)) != 0)
		goto out;
	if (!(j = json_loadb(b.ptr, b.len, 0, &jerr)) || !json_is_object(j)) {
		r = crs_error_set(CRS_EINPUT, "%s:%d:%d: %s", path, jerr.line,
				  jerr.column, j ? "not an object" : jerr.text);
		goto out;
	}
	state_release(&s->state);
	for (i = 0; i < sizeof(state_fields) / sizeof(state_fields[0]); i++) {
		/* borrowed */
		v = json_object_get(j, state_fields[i].name);
		if (json_is_string(v))
			*STATE_FIELD(&s->state, i) = xstrdup(json_string_value(v));
	}
	json_array_foreach(json_object_get(j, "harnesses"), i, v) {
		if (!json_is_string(v))
			continue;
		s->state.harnesses = xrealloc(s->state.harnesses,
			st_mult(i + 1, sizeof(char *)));
		s->state.harnesses[s->state.harnesses_nr++] =
			xstrdup(json_string_value(v));
	}
	json_object_foreach(json_object_get(j, "images"), key, v)
		if (json_is_string(v))
			scan_set_image(s, key, json_string_value(v));
	r = 0;
out:
	json_decref(j);
	buf_release(&b);
	free(path);
	return r;
}

/*
 * The image table is the one part of the state that builds running side
 * by side (runner/exec/build_group.h) all write: one lock for every scan
 * (a process has one scan at a time; a static lock needs no set-up in the
 * tests that fill a struct scan by hand).
 */
static pthread_mutex_t images_lock = PTHREAD_MUTEX_INITIALIZER;

const char *scan_image(const struct scan *s, const char *key)
{
	const char *v = NULL;

	pthread_mutex_lock(&images_lock);
	for (size_t i = 0; i < s->state.images_nr && !v; i++)
		if (!strcmp(s->state.images[i].key, key))
			v = s->state.images[i].value;
	pthread_mutex_unlock(&images_lock);
	return v;
}

void scan_set_image(struct scan *s, const char *key, const char *tag)
{
	pthread_mutex_lock(&images_lock);
	for (size_t i = 0; i < s->state.images_nr; i++)
		if (!strcmp(s->state.images[i].key, key)) {
			free(s->state.images[i].value);
			s->state.images[i].value = xstrdup(tag);
			goto out;
		}
	s->state.images = xrealloc(s->state.images,
		st_mult(s->state.images_nr + 1, sizeof(*s->state.images)));
	s->state.images[s->state.images_nr].key = xstrdup(key);
	s->state.images[s->state.images_nr].value = xstrdup(tag);
	s->state.images_nr++;
out:
	pthread_mutex_unlock(&images_lock);
}

double scan_elapsed(const struct scan *s)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - s->started.tv_sec) +
		(double)(now.tv_nsec - s->started.tv_nsec) / 1e9;
}

double scan_remaining(const struct scan *s)
{
	return (double)s->opts->timeout_s - scan_elapsed(s);
}

void scan_exec_bind(struct scan *s)
{
	struct exec_ctx *x = &s->exec;

	x->docker = s->docker;
	x->owner = s->owner;
	x->work_dir = s->work_dir;
	x->out_dir = s->out_dir;
	x->cache_dir = s->opts ? s->opts->cache_dir : NULL;
	x->interrupted = s->ctx ? s->ctx->interrupted : NULL;
	x->started = s->started;
	x->started_wall = s->started_wall;
	x->timeout_s = s->opts ? s->opts->timeout_s : 0;
	x->infra = s->compose ? &s->compose->infra : NULL;
	x->base_images = s->opts ? s->opts->base_images : 0;
	x->timings = s->timings;
}

volatile int *scan_stop_flag(const struct scan *s)
{
	return exec_stop_flag(&s->exec);
}

int scan_interrupted(const struct scan *s)
{
	return exec_interrupted(&s->exec);
}

char *scan_work_path(const struct scan *s, const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = exec_work_vpath(&s->exec, fmt, ap);
	va_end(ap);
	return p;
}
