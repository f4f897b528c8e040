/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run.c - the run phase: every CRS module against each harness
 *
 * Harnesses one after another, each with its weighted time share; all
 * CRS modules of a harness at once, each on its own network, with its
 * mailbox answered by the sidecar. Containers go on every exit path.
 *
 * Details: docs/cmd/run.md; design notes: docs/internals.md.
 */
#include "runner/phase/phase.h"
#include "runner/phase/early_jobs.h"
#include "runner/phase/saturation_watch.h"
#include "runner/exec/bind_source.h"
#include "runner/exec/build_group.h"
#include "runner/exec/container.h"
#include "runner/exec/container_policy.h"
#include "runner/scan/after_finding.h"
#include "runner/exec/cache.h"
#include "runner/exec/corpus_import.h"
#include "runner/exec/corpus_coverage.h"
#include "runner/exec/corpus_prune.h"
#include "runner/exec/crs_env.h"
#include "runner/sidecar/exchange.h"
#include "runner/scan/change_file.h"
#include "runner/scan/harness_runs.h"
#include "runner/exec/llm_gateway.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/scan/select_file.h"
#include "runner/scan/time_shares.h"
#include "runner/sidecar/sidecar.h"
#include "runner/config/config.h"
#include "runner/engine/docker.h"
#include "runner/scan/timings.h"
#include "diff/changeset.h"
#include "sarif/run_cut.h"
#include "sarif/run_saturation.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define POLL_MS 200	/* a module's exit is seen within this */
#define MIN_SHARE_S TIME_SHARE_MIN_S	/* a harness due less: not run */
#define STOP_GRACE_S 10.0
#define EXCHANGE_DRAIN_S 5.0	/* the exchange's last sync, at most */

static const char *const exchange_types[] = {
	"povs", "seeds", "bug-candidates", "reports", "patches", "diffs",
};

struct running {
	char *id;
	char *label;		/* "<crs>/<module>" */
	char *log_path;
};

/* What the run phase sets up once for all of its harnesses. */
struct run_infra {
	struct strvec net_names;	/* compose->crs[i]'s network */
	struct strvec net_ids;		/* the ones created so far */
	struct llm_gateway *llm;	/* NULL without llm_config */
	struct sidecar *sidecar;	/* every CRS's mailbox */
};

/* Who hears of the PoVs the exchange copies: early_jobs.h. */
struct pov_hook {
	struct scan *s;
	const char *harness;
	int last;	/* no CRS runs after this harness's stop */
};

struct harness_run {
	int cut;		/* stopped by --after-finding */
	int saturated;		/* stopped by --saturation */
	struct saturation_watch *watch;	/* NULL: not watched */
	struct running *c;
	size_t nr, alloc;
	struct exchange *exchange;
	struct sidecar *sidecar;	/* borrowed from run_infra */
	long share_s;		/* seconds this harness's run may take */
	struct run_budget *budget;	/* the run phase's, borrowed */
	double ran_s;		/* seconds its modules ran */
	int exited_early;	/* every module exited before its time */
	char *failed;		/* "crs/module exited with status N", or NULL */
	struct pov_hook hook;
};

/*
 * What sizes the reserve (the window, and what earlier harnesses found)
 * and what --fuzz-seconds leaves to the harnesses not run yet.
 */
/* --after-finding waits this long after a sidecar job for the next one */
#define CUT_HOLD_S 10.0

struct run_budget {
	double window_s;	/* seconds left when the run phase began */
	size_t povs;		/* PoVs to triage from finished harnesses */
	size_t patches;		/* patches to validate, likewise */
	double coverage_s;	/* kept for the change's coverage replay */
	double fuzz_s;		/* --fuzz-seconds: all harnesses' fuzzing
				 * together, 0: no cap but the deadline */
	double fuzzed_s;	/* held so far by the harnesses run */
	struct run_cut *cut;	/* --after-finding: its record */
	struct saturation_tally *tally;	/* --saturation's, or NULL */
	int cut_held;		/* the cut waited for sidecar jobs */
	double sidecar_busy_at;	/* when a sidecar job last ran, or -1 */
};

/*
 * Seconds the triage and report phases keep for themselves now: small
 * while nothing was found, grown by every PoV and patch submitted so
 * far, the running harness's (exchange `x`, or NULL) included.
 */
static double run_reserve(const struct run_budget *b,
			  const struct exchange *x)
{
	size_t povs = b->povs + (x ? exchange_copied(x, 0) : 0);
	size_t patches = b->patches + (x ? exchange_copied(x, 4) : 0);

	return time_reserve(povs, patches, b->window_s) + b->coverage_s;
}

/*
 * Seconds the harnesses not run yet may fuzz now: what the deadline
 * leaves above the reserve, capped at what --fuzz-seconds has left.
 * `*capped`: 1 when --fuzz-seconds is the smaller (NULL: not wanted).
 */
static double run_window(struct scan *s, const struct run_budget *b,
			 int *capped)
{
	double left = scan_remaining(s) - run_reserve(b, NULL);
	int cap = b->fuzz_s > 0 && b->fuzz_s - b->fuzzed_s < left;

	if (cap)
		left = b->fuzz_s - b->fuzzed_s;
	if (capped)
		*capped = cap;
	return left;
}

static int make_dirs(struct scan *s, const char *h)
{
	int r = 0;
	char *p;

	for (size_t i = 0; i < s->compose->crs_nr && r == 0; i++) {
		const char *c = s->compose->crs[i].name;
		static const char *const kinds[] = {
			"SUBMIT_DIR", "SHARED_DIR", "LOG_DIR",
		};

		/* bound read-write: new folders of our own, mode 0700 */
		for (size_t k = 0; k < 3 && r == 0; k++) {
			p = scan_work_path(s, "runs/%s/crs/%s/%s",
					   s->state.run_id, c, kinds[k]);
			if ((r = fs_mkdir_p(p)) == 0) {
				char *leaf = xasprintf("%s/%s", p, h);

				r = fs_mkdir_new(leaf);
				free(leaf);
			}
			free(p);
		}
	}
	for (size_t i = 0; i < 6 && r == 0; i++) {
		p = scan_work_path(s, "runs/%s/EXCHANGE_DIR/%s/%s",
				   s->state.run_id, h, exchange_types[i]);
		r = fs_mkdir_p(p);
		free(p);
	}
	if (r == 0) {
		p = scan_work_path(s, "runs/%s/REBUILD_OUT_DIR",
				   s->state.run_id);
		r = fs_mkdir_p(p);
		free(p);
	}
	/* --pov files reach every CRS as povs/, under their own names */
	for (size_t i = 0; i < s->opts->povs_nr && r == 0; i++) {
		const char *name = strrchr(s->opts->povs[i], '/');

		name = name ? name + 1 : s->opts->povs[i];
		p = scan_work_path(s, "runs/%s/EXCHANGE_DIR/%s/povs/%s",
				   s->state.run_id, h, name);
		r = fs_copy_file(s->opts->povs[i], p);
		free(p);
	}
	/* --sarif files as bug-candidates/, as OSS-CRS stages them */
	for (size_t i = 0; i < s->opts->sarifs_nr && r == 0; i++) {
		const char *name = strrchr(s->opts->sarifs[i], '/');

		name = name ? name + 1 : s->opts->sarifs[i];
		p = scan_work_path(s, "runs/%s/EXCHANGE_DIR/%s/bug-candidates/"
				   "%s", s->state.run_id, h, name);
		r = fs_copy_file(s->opts->sarifs[i], p);
		free(p);
	}
	if (r == 0 && s->change) {
		p = scan_work_path(s, "runs/%s/EXCHANGE_DIR/%s/diffs/ref.diff",
				   s->state.run_id, h);
		r = fs_write_file_atomic(p, s->change->patch,
					 s->change->patch_len);
		free(p);
		p = scan_work_path(s, "runs/%s/EXCHANGE_DIR/%s/diffs",
				   s->state.run_id, h);
		if (r == 0)
			r = change_file_write(s, p);
		free(p);
	}
	return r;
}

static int start_module(struct scan *s, struct harness_run *hr,
			const struct run_infra *ri, size_t crs_idx,
			const struct manifest_run_module *mod, const char *h)
{
	const struct compose_crs *c = &s->compose->crs[crs_idx];
	const char *key_file = llm_gateway_key_file(ri->llm, c->name);
	struct docker_run_opts ro = DOCKER_RUN_OPTS_INIT;
	struct strvec env = STRVEC_INIT, binds = STRVEC_INIT;
	struct strvec labels = STRVEC_INIT, aliases = STRVEC_INIT;
	struct crs_env_args ea = { .phase = CRSENV_RUN, .crs = c,
				   .layer = &mod->env, .module = mod->name,
				   .harness = h, .run_id = s->state.run_id,
				   .llm_api_url = key_file ? LLM_GATEWAY_URL
							   : NULL };
	char *key = xasprintf("%s/%s", c->name, mod->name);
	const char *image = scan_image(s, key);
	char *run = scan_work_path(s, "runs/%s", s->state.run_id);
	char *name = NULL, *id = NULL, *src = NULL, *lent = NULL;
	struct running *slot;
	int r;

	if (!image) {
		r = crs_error_set(CRS_ENOTFOUND, "no image for CRS %s module "
				  "%s: run build-target first", c->name,
				  mod->name);
		goto out;
	}
	src = scan_work_path(s, "source/%s/src", s->state.head_commit);
	strvec_pushf(&binds, "%s/builds/%s/crs/%s/BUILD_OUT_DIR:"
		     "/OSS_CRS_BUILD_OUT_DIR:ro", s->work_dir,
		     s->state.sanitizer, c->name);
	/* its own rebuilds and mailbox only */
	strvec_pushf(&binds, "%s/REBUILD_OUT_DIR/%s:"
		     "/OSS_CRS_REBUILD_OUT_DIR/%s:ro", run, c->name, c->name);
	strvec_pushf(&binds, "%s/crs/%s/MAILBOX:/OSS_CRS_MAILBOX", run,
		     c->name);
	strvec_pushf(&binds, "%s/crs/%s/SUBMIT_DIR/%s:/OSS_CRS_SUBMIT_DIR",
		     run, c->name, h);
	strvec_pushf(&binds, "%s/crs/%s/SHARED_DIR/%s:/OSS_CRS_SHARED_DIR",
		     run, c->name, h);
	strvec_pushf(&binds, "%s/crs/%s/LOG_DIR/%s:/OSS_CRS_LOG_DIR",
		     run, c->name, h);
	for (size_t i = 0; i < 6; i++)
		strvec_pushf(&binds, "%s/EXCHANGE_DIR/%s/%s:"
			     "/OSS_CRS_FETCH_DIR/%s:ro", run, h,
			     exchange_types[i], exchange_types[i]);
	strvec_pushf(&binds, "%s:/OSS_CRS_FUZZ_PROJ:ro", s->project->dir);
	strvec_pushf(&binds, "%s:/OSS_CRS_TARGET_SOURCE:ro", src);
	/* its own LLM key only */
	if (key_file)
		strvec_pushf(&binds, "%s:" CRS_ENV_LLM_KEY_FILE ":ro",
			     key_file);
	ea.stop_on_first_pov = !s->opts->keep_going;
	ea.time_limit_s = hr->share_s;
	/* infra's cores no CRS owns too: crs-ci's own containers outweigh
	 * it 8 to 1 there (container_policy.c) */
	if (!s->opts->no_lend_cores) {
		char *spare = build_group_cpus_spare(s->compose);

		ea.cpuset = lent = build_group_cpus_lent(c->res.cpuset, spare);
		free(spare);
	}
	crs_env_build(&env, &s->state, &ea);
	strvec_push(&env, "OSS_CRS_MAILBOX_DIR=/OSS_CRS_MAILBOX");
	container_labels(&labels, &s->exec);
	strvec_pushf(&aliases, "%s.%s", mod->name, c->name);
	name = xasprintf("%s-%s-%s-%s", s->owner, c->name, mod->name, h);
	ro.image = image;
	ro.name = name;
	ro.env = strvec_list(&env);
	ro.binds = strvec_list(&binds);
	ro.labels = strvec_list(&labels);
	ro.cpuset = lent ? lent : c->res.cpuset;
	ro.memory = c->res.memory_bytes;
	ro.shm_size = 2LL << 30;
	ro.network = ri->net_names.v[crs_idx];
	ro.aliases = strvec_list(&aliases);
	container_policy_apply(&ro, ROLE_CRS_RUN);
	if ((r = bind_source_check(&s->exec, ro.binds)) != 0 ||
	    (r = docker_container_create(s->docker, &ro, &id)) != 0)
		goto out;
	ALLOC_GROW(hr->c, hr->nr + 1, hr->alloc);
	slot = &hr->c[hr->nr++];
	slot->id = id;
	id = NULL; /* transferred */
	slot->label = xasprintf("%s/%s", c->name, mod->name);
	slot->log_path = scan_work_path(s, "runs/%s/logs/%s-%s-%s.log",
					s->state.run_id, c->name, mod->name, h);
	r = docker_container_start(s->docker, slot->id);
out:
	strvec_release(&env);
	strvec_release(&binds);
	strvec_release(&labels);
	strvec_release(&aliases);
	free(key);
	free(run);
	free(name);
	free(id);
	free(src);
	free(lent);
	return r;
}

/*
 * Sleep up to POLL_MS, waking early to move submitted artifacts (not at
 * all while the exchange has work left: each sync is bounded, so the
 * caller checks its deadline and Ctrl-C between them); then let the
 * sidecar (when `sc` is set) take the mailboxes' new requests: its jobs
 * run in their own thread.
 */
static void wait_tick(struct exchange *x, struct sidecar *sc)
{
	struct pollfd pfd = { .fd = x ? exchange_fd(x) : -1, .events = POLLIN };
	int busy = x && exchange_busy(x);

	if ((poll(&pfd, 1, busy ? 0 : POLL_MS) > 0 || busy) && x)
		exchange_sync(x);
	if (sc && sidecar_poll(sc) != 0)
		crs_error_clear();	/* the loop sees the interrupt */
}

/* The exchange has passed a PoV on: the first of the scan is timed. */
static void note_pov(struct scan *s, const struct harness_run *hr)
{
	if (hr->exchange && exchange_copied(hr->exchange, 0))
		timing_first_pov(s);
}

/* Name the first module that exited non-zero, for the verdict. */
static void note_failed_module(struct scan *s, struct harness_run *hr)
{
	for (size_t i = 0; i < hr->nr && !hr->failed; i++) {
		int code = 0;

		if (docker_container_wait(s->docker, hr->c[i].id, 0, NULL,
					  &code) != 0) {
			crs_error_clear();
			continue;
		}
		if (code != 0)
			hr->failed = xasprintf("CRS module %s exited with "
					       "status %d", hr->c[i].label,
					       code);
	}
}

/*
 * --after-finding: 1 when a finding proved during the run (early_jobs.h)
 * has had the search window its policy gives it, or will have within
 * `slack` seconds (a harness is not started for less), so the run ends
 * now. The window is set at the proof, from what is left of the scan.
 * While `busy` CRSs have a sidecar job running (a patch being built or
 * tested: the fix of that finding, most likely), and for CUT_HOLD_S after
 * the last one (a patcher asks for the next step then), the cut waits.
 */
static int cut_due(struct scan *s, struct run_budget *b, double slack,
		   unsigned busy)
{
	struct run_cut *c = b->cut;
	char id[17];

	if (c->proved_at_s < 0 &&
	    early_triage_proved(s, &c->proved_at_s, id, &c->announced)) {
		c->finding = xstrdup(id);
		c->window_s = after_finding_window(s->opts->after_finding_s,
						   scan_remaining(s));
		if (c->window_s < 0)
			log_info("run: finding %s proved; the run goes on to "
				 "the deadline (--after-finding %s)", id,
				 c->policy);
		else
			log_info("run: finding %s proved; %.0fs more for other "
				 "bugs, then the run ends (--after-finding %s)",
				 id, c->window_s, c->policy);
	}
	if (c->proved_at_s < 0 || c->window_s < 0)
		return 0;
	if (busy)
		b->sidecar_busy_at = scan_elapsed(s);
	if (c->cut_at_s < 0 &&
	    scan_elapsed(s) + slack >= c->proved_at_s + c->window_s) {
		if (b->sidecar_busy_at >= 0 &&
		    scan_elapsed(s) - b->sidecar_busy_at < CUT_HOLD_S) {
			if (!b->cut_held)
				log_info("run: finding %s's search window is "
					 "over; the run ends when the sidecar "
					 "jobs are done (a patch being built or "
					 "tested)", c->finding);
			b->cut_held = 1;
			return 0;
		}
		c->cut_at_s = scan_elapsed(s);
	}
	return c->cut_at_s >= 0;
}

/*
 * Wait until no module runs, `share_s` from `held_from` (when its CRSs
 * began to start) passes, the --after-finding policy ends the run, or
 * the scan must stop.
 */
static int wait_modules(struct scan *s, struct harness_run *hr,
			double share_s, double held_from, const char *h)
{
	double start = scan_elapsed(s);

	for (;;) {
		size_t alive = 0;

		for (size_t i = 0; i < hr->nr; i++) {
			int rr = docker_container_running(s->docker,
							  hr->c[i].id);

			if (rr < 0)
				return rr;
			alive += rr > 0;
		}
		hr->ran_s = scan_elapsed(s) - start;
		if (!alive) {
			log_info("run %s: every CRS module finished after "
				 "%.0fs", h, hr->ran_s);
			hr->exited_early = 1;
			note_failed_module(s, hr);
			return 0;
		}
		if (scan_interrupted(s))
			return crs_error_set(CRS_EINTR, "interrupted");
		if (scan_elapsed(s) - held_from >= share_s ||
		    scan_remaining(s) <= run_reserve(hr->budget,
						      hr->exchange)) {
			log_info("run %s: time share of %.0fs used; stopping "
				 "%zu module(s)", h, share_s, alive);
			return 0;
		}
		if (cut_due(s, hr->budget, 0, sidecar_busy(hr->sidecar))) {
			log_info("run %s: a finding is proved and its search "
				 "window is over (--after-finding %s); stopping "
				 "%zu module(s)", h, hr->budget->cut->policy,
				 alive);
			hr->cut = 1;
			return 0;
		}
		if (saturation_watch_tick(hr->watch, s)) {
			log_info("run %s: the change is saturated: no new line "
				 "or branch of the touched code, nor inputs "
				 "running it far more, for %.0fs; stopping %zu "
				 "module(s)", h,
				 saturation_watch_plateau(
					 hr->watch), alive);
			hr->saturated = 1;
			return 0;
		}
		wait_tick(hr->exchange, hr->sidecar);
		note_pov(s, hr);
	}
}

/*
 * SIGTERM first, so a CRS can submit what it has (its corpus, a last
 * PoV) and the exchange still collects it; SIGKILL after STOP_GRACE_S or
 * at once when the user interrupted the scan.
 */
static void stop_modules(struct scan *s, struct harness_run *hr)
{
	double until = scan_elapsed(s) + STOP_GRACE_S;

	if (!scan_interrupted(s)) {
		for (size_t i = 0; i < hr->nr; i++)
			docker_container_kill(s->docker, hr->c[i].id, "TERM");
		crs_error_clear();
		while (scan_elapsed(s) < until && !scan_interrupted(s)) {
			size_t alive = 0;

			for (size_t i = 0; i < hr->nr; i++)
				alive += docker_container_running(
					s->docker, hr->c[i].id) > 0;
			if (!alive)
				break;
			wait_tick(hr->exchange, NULL);
			note_pov(s, hr);
		}
	}
	for (size_t i = 0; i < hr->nr; i++)
		docker_container_kill(s->docker, hr->c[i].id, "KILL");
	crs_error_clear();
}

static void harness_run_end(struct scan *s, struct harness_run *hr)
{
	sidecar_stop(hr->sidecar);	/* its job, before its CRS goes */
	stop_modules(s, hr);
	if (hr->exchange) {
		double until = scan_elapsed(s) + EXCHANGE_DRAIN_S;

		/* the last submissions, within a bound the deadline beats */
		while (exchange_sync(hr->exchange) > 0 &&
		       !scan_interrupted(s) && scan_remaining(s) > 0 &&
		       scan_elapsed(s) < until)
			;
		note_pov(s, hr);
		log_info("exchange: %u PoV(s), %u seed(s), %u patch(es) shared",
			 exchange_copied(hr->exchange, 0),
			 exchange_copied(hr->exchange, 1),
			 exchange_copied(hr->exchange, 4));
		hr->budget->povs += exchange_copied(hr->exchange, 0);
		hr->budget->patches += exchange_copied(hr->exchange, 4);
		exchange_free(hr->exchange);
		/* the corpus is final: its replay need not wait for the
		 * containers' logs and removal, nor the networks' */
		if (hr->hook.last && !scan_interrupted(s))
			early_coverage_start(s);
	}
	for (size_t i = 0; i < hr->nr; i++) {
		struct buf logs = BUF_INIT;

		if (docker_container_logs(s->docker, hr->c[i].id, &logs,
					  8u << 20) == 0)
			fs_write_file_atomic(hr->c[i].log_path, logs.ptr,
					     logs.len);
		if (docker_container_remove(s->docker, hr->c[i].id, 1) != 0)
			log_warn("removing %s: %s", hr->c[i].label,
				 crs_error_last());
		buf_release(&logs);
		free(hr->c[i].id);
		free(hr->c[i].label);
		free(hr->c[i].log_path);
	}
	free(hr->c);
	hr->c = NULL;
	hr->nr = hr->alloc = 0;
	hr->exchange = NULL;
}

/* A PoV reached the exchange: the scan's first is reproduced now. */
static void on_pov(void *ctx, const char *crs, const void *data, size_t len)
{
	const struct pov_hook *k = ctx;

	/* its CRSs stop at a first PoV: when no harness comes after this
	 * one, every core is about to be free */
	early_triage_start(k->s, k->harness, crs, data, len,
			   k->last && !k->s->opts->keep_going);
}

static int start_exchange(struct scan *s, struct harness_run *hr,
			  const char *h, int last)
{
	struct strvec roots = STRVEC_INIT, names = STRVEC_INIT;
	char *xroot = scan_work_path(s, "runs/%s/EXCHANGE_DIR/%s",
				     s->state.run_id, h);
	int r;

	for (size_t i = 0; i < s->compose->crs_nr; i++) {
		strvec_pushf(&roots, "%s/runs/%s/crs/%s/SUBMIT_DIR/%s",
			     s->work_dir, s->state.run_id,
			     s->compose->crs[i].name, h);
		strvec_push(&names, s->compose->crs[i].name);
	}
	r = exchange_new(&hr->exchange, xroot, strvec_list(&roots),
			 strvec_list(&names), (int)roots.nr);
	if (r == 0) {
		hr->hook = (struct pov_hook){ s, h, last };
		exchange_on_pov(hr->exchange, on_pov, &hr->hook);
	}
	strvec_release(&roots);
	strvec_release(&names);
	free(xroot);
	return r;
}

/*
 * Fuzz harness h for up to share_s seconds; record in `rec` how long it
 * ran and why it was short of `wanted_s` (harness_runs.h). `last`: no
 * harness runs after it.
 */
static int run_harness(struct scan *s, const struct run_infra *ri,
		       const char *h, double share_s, double wanted_s,
		       struct run_budget *budget, struct harness_runs *rec,
		       int last)
{
	struct harness_run hr = { .share_s = (long)share_s,
				  .sidecar = ri->sidecar, .budget = budget };
	size_t started = 0;
	char *why;
	char *logs = scan_work_path(s, "runs/%s/logs", s->state.run_id);
	char *seeds;
	double held_from;	/* the share's start: its CRSs starting */
	int r, span;

	seeds = scan_work_path(s, "runs/%s/EXCHANGE_DIR/%s/seeds",
			       s->state.run_id, h);
	if ((r = make_dirs(s, h)) != 0 || (r = fs_mkdir_p(logs)) != 0 ||
	    (r = cache_corpus_in(s, h, seeds)) != 0 ||
	    (r = corpus_import_in(s, h, seeds)) != 0)
		goto out;
	if ((r = start_exchange(s, &hr, h, last)) != 0)
		goto out;
	log_info("run %s: %zu CRS(s) for up to %.0fs", h, s->compose->crs_nr,
		 share_s);
	held_from = scan_elapsed(s);
	for (size_t i = 0; i < s->compose->crs_nr && r == 0; i++) {
		const struct manifest *m = s->compose->crs[i].manifest;

		if (s->opts->no_llm && m->required_llms_nr) {
			log_warn("run %s: CRS %s skipped: it needs an LLM and "
				 "this scan runs without one (--no-llm)", h,
				 s->compose->crs[i].name);
			continue;
		}
		for (size_t k = 0; k < m->modules_nr && r == 0; k++)
			r = start_module(s, &hr, ri, i, &m->modules[k], h);
	}
	started = hr.nr;
	if (r == 0 && started)
		hr.watch = saturation_watch_start(s, budget->tally, h,
						  share_s);
	span = r == 0 && started ? timing_begin_harness(s, "fuzz", h, h) : -1;
	if (r == 0)
		r = wait_modules(s, &hr, share_s, held_from, h);
	timing_end(s, span);
	/* --fuzz-seconds counts the time each harness held */
	budget->fuzzed_s += scan_elapsed(s) - held_from;
	/* judged on the time the harness held, its CRSs' start-up included:
	 * a loaded engine's slow start is not a shortfall of the scan's */
	why = hr.cut ? run_cut_reason(budget->cut) : hr.saturated ? NULL :
		harness_run_shortfall(wanted_s, share_s,
				      scan_elapsed(s) - held_from, started,
				      hr.exited_early, hr.failed);
	budget->cut->harnesses_cut += hr.cut;
	saturation_watch_end(started ? budget->tally : NULL, hr.watch,
			     hr.saturated, share_s);
	hr.watch = NULL;
	if (why)
		log_warn("run %s: fuzzed %.0fs of %.0fs: %s", h, hr.ran_s,
			 wanted_s, why);
	harness_runs_add(rec, h, wanted_s, hr.ran_s, why);
	free(why);
	free(hr.failed);
out:
	if (r != 0) {
		/* stopping clears errors: keep the message of this one */
		char *msg = xstrdup(crs_error_last());

		harness_run_end(s, &hr);
		crs_error_set(r, "%s", msg);
		free(msg);
	} else {
		harness_run_end(s, &hr);
	}
	if (r == 0)
		r = cache_corpus_out(s, h, seeds);
	if (r == 0)
		r = corpus_import_grow(s, h, seeds);
	free(logs);
	free(seeds);
	return r;
}

/* One internal network per CRS, then the LLM gateway on all of them. */
static int run_infra_start(struct scan *s, struct run_infra *ri)
{
	struct strvec labels = STRVEC_INIT;
	char *dir;
	int r = 0;

	container_labels(&labels, &s->exec);
	for (size_t i = 0; i < s->compose->crs_nr; i++)
		strvec_pushf(&ri->net_names, "%s-%s", s->owner,
			     s->compose->crs[i].name);
	for (size_t i = 0; i < s->compose->crs_nr && r == 0; i++) {
		char *nid = NULL;

		r = docker_network_create(s->docker, ri->net_names.v[i], 1,
					  strvec_list(&labels), &nid);
		if (r == 0)
			strvec_push(&ri->net_ids, nid);
		free(nid);
	}
	strvec_release(&labels);
	if (r == 0)
		r = sidecar_new(&ri->sidecar, s);
	if (r != 0)
		return r;
	if (s->opts->no_llm) {
		if (s->compose->has_llm)
			log_warn("run: no LLM gateway (--no-llm): CRSs get no "
				 "LLM key or URL");
		return 0;
	}
	dir = scan_work_path(s, "runs/%s/llm", s->state.run_id);
	r = llm_gateway_start(&ri->llm, &s->exec, s->compose, dir,
			      strvec_list(&ri->net_names));
	free(dir);
	return r;
}

/*
 * The gateway first: it is attached to every CRS network. A network the
 * engine fails to remove (not one already gone) is the phase's error,
 * CRS_EENGINE: the engine broke under the scan (a reproduction made
 * before it broke must not pass for a scan that ended well), and the
 * scan's objects are left to the next command's reaper.
 */
static int run_infra_end(struct scan *s, struct run_infra *ri)
{
	char *broke = NULL;	/* the engine's first failure */
	int r = 0;

	llm_gateway_stop(ri->llm, &s->exec);
	ri->llm = NULL;
	if (ri->sidecar)
		log_info("sidecar: %u request(s) answered",
			 sidecar_answered(ri->sidecar));
	sidecar_free(ri->sidecar);
	ri->sidecar = NULL;
	for (size_t i = 0; i < ri->net_ids.nr; i++)
		if (docker_network_remove(s->docker, ri->net_ids.v[i]) != 0) {
			if (crs_error_code() == CRS_EENGINE && !broke)
				broke = xstrdup(crs_error_last());
			else
				log_warn("removing network: %s",
					 crs_error_last());
			crs_error_clear();
		}
	strvec_release(&ri->net_names);
	strvec_release(&ri->net_ids);
	if (broke)
		r = crs_error_set(CRS_EENGINE, "the run could not remove its "
				  "network: %s", broke);
	free(broke);
	return r;
}

/*
 * Before fuzzing, one line when the fuzzing time (run_window: capped by
 * --fuzz-seconds or else by the deadline) cannot give every selected
 * harness what it is due: --min-harness-seconds each, or MIN_SHARE_S
 * without; and one when the deadline cuts --fuzz-seconds short.
 */
static void warn_short(struct scan *s, const struct run_budget *b)
{
	size_t n = s->state.harnesses_nr;
	long min = s->opts->min_harness_seconds;
	double due = min ? (double)min : MIN_SHARE_S;
	int capped = 0;
	double left = run_window(s, b, &capped);
	const char *by = capped ? "--fuzz-seconds gives" :
		"the deadline leaves";

	if (left < 0)
		left = 0;
	if (n && !capped && s->opts->fuzz_seconds)
		log_warn("run: --fuzz-seconds %ld and the deadline leaves "
			 "%.0fs after builds: fuzzing gets %.0fs (raise "
			 "--timeout for more)", s->opts->fuzz_seconds, left,
			 left);
	if (!n || left >= due * (double)n)
		return;
	if (min)
		log_warn("run: --min-harness-seconds %ld for %zu harness(es) "
			 "needs %.0fs and %s %.0fs: the verdict will be "
			 "INCOMPLETE for harnesses fuzzed less", min, n,
			 due * (double)n, by, left);
	else
		log_warn("run: %zu harness(es) and %s %.0fs: some get no "
			 "fuzzing and the verdict will be INCOMPLETE", n, by,
			 left);
}

/*
 * The select phase's weight of each harness (select.json, a file of
 * crs-ci's own, when it is of this head commit); 1 for a harness it does
 * not weigh, so without it every share is equal. Fills w[0..n-1].
 */
static void load_weights(struct scan *s, double *w)
{
	json_t *j = select_file_load(s), *v;
	size_t k;

	for (size_t i = 0; i < s->state.harnesses_nr; i++)
		w[i] = 1;
	json_array_foreach(json_object_get(j, "harnesses"), k, v) {
		const char *n = json_string_value(json_object_get(v, "name"));
		json_t *wt = json_object_get(v, "weight");

		for (size_t i = 0; n && json_is_number(wt) &&
		     i < s->state.harnesses_nr; i++)
			if (!strcmp(s->state.harnesses[i], n) &&
			    json_number_value(wt) > 0)
				w[i] = json_number_value(wt);
	}
	json_decref(j);
}

/*
 * Harnesses by descending weight; each is due its weighted part of the
 * fuzzing time left among those not run yet (time_share_of over
 * run_window: the deadline's, capped by --fuzz-seconds), or
 * --min-harness-seconds when given; it may take more than its part (up
 * to what is left) to reach --min-harness-seconds, leaving less to the
 * harnesses after it. The reserve is what run_reserve says at each turn.
 */
static int run_all(struct scan *s, struct run_infra *ri,
		   struct run_budget *budget, struct harness_runs *rec)
{
	size_t n = s->state.harnesses_nr;
	double *w = xcalloc(n ? n : 1, sizeof(*w));
	double *wo = xcalloc(n ? n : 1, sizeof(*wo));
	size_t *order = xcalloc(n ? n : 1, sizeof(*order));
	struct buf line = BUF_INIT;
	int r = 0;

	load_weights(s, w);
	time_share_order(order, w, n);
	for (size_t i = 0; i < n; i++) {
		wo[i] = w[order[i]];
		buf_printf(&line, "%s%s %.4g", i ? ", " : "",
			   s->state.harnesses[order[i]], wo[i]);
	}
	if (n > 1)
		log_info("run: harnesses by weight: %s", line.ptr);
	warn_short(s, budget);
	for (size_t i = 0; i < n && r == 0; i++) {
		const char *h = s->state.harnesses[order[i]];
		int capped = 0;
		double left = run_window(s, budget, &capped);
		double share = time_share_of(left, wo, i, n);
		double wanted = s->opts->min_harness_seconds ?
			(double)s->opts->min_harness_seconds : share;

		if (wanted > share)
			share = wanted < left ? wanted : left;
		if (cut_due(s, budget, MIN_SHARE_S, 0)) {
			char *why = run_cut_reason(budget->cut);

			log_info("run: harness %s is not fuzzed: %s", h, why);
			harness_runs_add(rec, h, wanted, 0, why);
			budget->cut->harnesses_cut++;
			free(why);
			continue;
		}
		if (share < MIN_SHARE_S) {
			log_warn("run: no time left for harness %s: it is not "
				 "fuzzed and the verdict will be INCOMPLETE", h);
			harness_runs_add(rec, h, wanted < MIN_SHARE_S ?
					 MIN_SHARE_S : wanted, 0, capped ?
					 "the harnesses before it used up "
					 "--fuzz-seconds" :
					 "no time left before the deadline");
			continue;
		}
		r = run_harness(s, ri, h, share, wanted, budget, rec,
				i == n - 1);
	}
	buf_release(&line);
	free(order);
	free(wo);
	free(w);
	return r;
}

/* Says whether the CRSs fuzz on infra's cores too (--lend-cores). */
static void log_lending(struct scan *s)
{
	char *spare = s->opts->no_lend_cores ? NULL :
		build_group_cpus_spare(s->compose);
	size_t lent = 0;

	for (size_t i = 0; spare && i < s->compose->crs_nr; i++) {
		char *u = build_group_cpus_lent(s->compose->crs[i].res.cpuset,
						spare);

		lent += u != NULL;
		free(u);
	}
	if (lent)
		log_info("run: lending core%s %s (infrastructure) to the CRSs "
			 "at low weight: crs-ci's own containers there "
			 "outweigh them 8 to 1 (--lend-cores no: each CRS "
			 "keeps to its own cpuset)",
			 build_group_cpus(spare) > 1 ? "s" : "", spare);
	free(spare);
}

int phase_run(struct scan *s)
{
	struct run_infra ri = { STRVEC_INIT, STRVEC_INIT, NULL, NULL };
	struct harness_runs rec = HARNESS_RUNS_INIT;
	struct run_budget budget = { scan_remaining(s), s->opts->povs_nr, 0,
				     phase_change_coverage_reserve(s),
				     (double)s->opts->fuzz_seconds, 0,
				     run_cut_new(), NULL, 0, -1 };
	char *stamp = NULL, *path = NULL;
	int r = 0;

	timing_phase(s, "run");
	if (!s->state.head_image)
		return crs_error_set(CRS_ENOTFOUND, "no build to run against "
				     "in %s: run build-target first",
				     s->work_dir);
	if (!s->state.harnesses_nr)
		log_info("run: no harness selected; nothing to fuzz");
	free(s->state.run_id);
	s->state.run_id = xasprintf("%ld-%s", (long)s->started_wall,
				    s->owner + strlen("crs-ci-"));
	path = scan_work_path(s, "runs/%s", s->state.run_id);
	if ((r = fs_mkdir_p(path)) != 0)
		goto out;
	free(path);
	path = scan_work_path(s, "runs/%s/started_at", s->state.run_id);
	stamp = xasprintf("%ld\n", (long)time(NULL));
	if ((r = fs_write_file_atomic(path, stamp, strlen(stamp))) != 0 ||
	    (r = scan_state_save(s)) != 0 || (r = corpus_import(s)) != 0)
		goto out;
	if (s->opts->prune || s->opts->coverage_mode) {
		/* no CRS: libFuzzer's merge of the store, or its replay */
		free(path);
		path = scan_work_path(s, "runs/%s/harness_runs.json",
				      s->state.run_id);
		r = s->opts->prune ? corpus_prune_all(s) :
			corpus_coverage_all(s);
		if (r == 0)
			r = harness_runs_save(&rec, path);
		goto out;
	}
	if (s->state.harnesses_nr && (r = run_infra_start(s, &ri)) != 0)
		goto out;
	log_info("run: %.0fs left; %.0fs kept for triage and the report "
		 "while nothing is found", budget.window_s,
		 run_reserve(&budget, NULL));
	if (budget.fuzz_s > 0)
		log_info("run: fuzzing %.0fs in total (--fuzz-seconds), split "
			 "among %zu harness(es)", budget.fuzz_s,
			 s->state.harnesses_nr);
	if (s->state.harnesses_nr)
		log_lending(s);
	budget.cut->policy = after_finding_policy_name(s->opts->after_finding_s);
	budget.tally = saturation_tally_new(s);
	r = run_all(s, &ri, &budget, &rec);
	free(path);
	path = scan_work_path(s, "runs/%s/harness_runs.json", s->state.run_id);
	if (r == 0)
		r = harness_runs_save(&rec, path);
	if (r == 0)
		r = after_finding_save(s, budget.cut);
	if (r == 0 && budget.tally)
		r = saturation_record_save(s, saturation_tally_record(
			budget.tally, budget.fuzzed_s));
out:
	if (r != 0) {
		/* cleaning up may clear the message of what went wrong */
		char *msg = xstrdup(crs_error_last());

		run_infra_end(s, &ri);
		crs_error_set(r, "%s", msg);
		free(msg);
	} else {
		r = run_infra_end(s, &ri);
	}
	harness_runs_release(&rec);
	run_cut_free(budget.cut);
	saturation_tally_free(budget.tally);
	free(stamp);
	free(path);
	return r;
}
