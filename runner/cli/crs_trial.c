/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crs_trial.c - one CRS package built and run on the bundled example
 *
 * The scan is the one `crs-ci scan` runs (scan_open, phase/pipeline.c);
 * this file adds only the compose it generates for this machine (written
 * with libyaml), the fresh example repository, a deadline that starts
 * once the CRS is built, and the report of what the CRS submitted.
 * Submissions are the CRS's (hostile): they are read only through
 * submissions_walk(), and names are quoted before they are printed.
 */
#include "runner/cli/crs_trial.h"
#include "runner/cli/cmd.h"
#include "runner/config/crs_lint.h"
#include "runner/scan/example_repo.h"
#include "runner/cli/phase_cmd.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/scan/submissions.h"
#include "runner/config/config.h"
#include "runner/phase/phase.h"
#include "sarif/finding.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#define TRIAL_FILE_MAX ((off_t)16 << 20)	/* as triage reads a PoV */
#define TRIAL_BUILD_TIMEOUT_S (3 * 3600)	/* prepare and build-target */

/* What the CRSs submitted, by the folder they put it in. */
static const struct {
	const char *dir, *label, *one;
} kinds[] = {
	{ "povs", "PoVs", "PoV" },
	{ "seeds", "seeds", "seed" },
	{ "patches", "patches", "patch" },
	{ "bug-candidates", "bug candidates", "bug candidate" },
};
#define KINDS_NR (sizeof(kinds) / sizeof(kinds[0]))

/* ---- the compose ------------------------------------------------------- */

static void yaml_pair(yaml_document_t *doc, int map, const char *key,
		      const char *value)
{
	int k = yaml_document_add_scalar(doc, NULL, (yaml_char_t *)key, -1,
					 YAML_PLAIN_SCALAR_STYLE);
	int v = yaml_document_add_scalar(doc, NULL, (yaml_char_t *)value, -1,
					 YAML_DOUBLE_QUOTED_SCALAR_STYLE);

	yaml_document_append_mapping_pair(doc, map, k, v);
}

static int yaml_map(yaml_document_t *doc, int parent, const char *key)
{
	int k = yaml_document_add_scalar(doc, NULL, (yaml_char_t *)key, -1,
					 YAML_PLAIN_SCALAR_STYLE);
	int m = yaml_document_add_mapping(doc, NULL,
					  YAML_BLOCK_MAPPING_STYLE);

	yaml_document_append_mapping_pair(doc, parent, k, m);
	return m;
}

static int emit_out(void *data, unsigned char *buffer, size_t size)
{
	buf_add(data, buffer, size);
	return 1;
}

/*
 * <work>/compose.yaml: the infrastructure on CPU 0, the CRS `name` from
 * `dir` on every other CPU (CPU 0 too on a one-CPU machine), half the
 * memory (at least 2G, at most 16G).
 */
static int compose_write(const char *path, const char *name, const char *dir)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	long long mem = (long long)sysconf(_SC_PHYS_PAGES) *
		sysconf(_SC_PAGESIZE);
	char cpus[32], memory[16];
	yaml_document_t doc;
	yaml_emitter_t em;
	struct buf b = BUF_INIT;
	int root, m, r;

	if (ncpu > 2)
		snprintf(cpus, sizeof(cpus), "1-%ld", ncpu - 1);
	else
		snprintf(cpus, sizeof(cpus), "%s", ncpu == 2 ? "1" : "0");
	mem = mem / 2 >> 30;
	snprintf(memory, sizeof(memory), "%lldG",
		 mem < 2 ? 2 : mem > 16 ? 16 : mem);
	yaml_document_initialize(&doc, NULL, NULL, NULL, 1, 1);
	root = yaml_document_add_mapping(&doc, NULL, YAML_BLOCK_MAPPING_STYLE);
	yaml_pair(&doc, root, "run_env", "local");
	yaml_pair(&doc, root, "docker_registry", "local");
	m = yaml_map(&doc, root, "oss_crs_infra");
	yaml_pair(&doc, m, "cpuset", "0");
	yaml_pair(&doc, m, "memory", "2G");
	m = yaml_map(&doc, root, name);
	yaml_pair(&doc, m, "cpuset", cpus);
	yaml_pair(&doc, m, "memory", memory);
	m = yaml_map(&doc, m, "source");
	yaml_pair(&doc, m, "local_path", dir);
	yaml_emitter_initialize(&em);
	yaml_emitter_set_output(&em, emit_out, &b);
	yaml_emitter_set_unicode(&em, 1);
	r = yaml_emitter_open(&em) && yaml_emitter_dump(&em, &doc) &&
		yaml_emitter_close(&em) ? 0 :
		crs_error_set(CRS_ERR, "%s: writing the compose: %s", path,
			      em.problem ? em.problem : "libyaml failed");
	yaml_emitter_delete(&em);	/* the dump deleted doc */
	if (r == 0)
		r = fs_write_file_atomic(path, b.ptr, b.len);
	buf_release(&b);
	return r;
}

/* ---- what was submitted ------------------------------------------------ */

struct tally {
	size_t accepted[KINDS_NR];
	size_t refused[KINDS_NR];
	int kind;
};

static void count_one(const struct submission *sub, void *ctx)
{
	struct tally *t = ctx;

	(void)sub;
	t->accepted[t->kind]++;
}

/*
 * Names in a folder a container wrote, dot files aside; 0 when absent, 1
 * when something else (a link, a file) stands in its place.
 */
static size_t count_entries(const char *dir)
{
	struct dirent *e;
	struct stat st;
	size_t n = 0;
	int fd = -1;
	DIR *d;

	if (fs_open_dir(&fd, dir) != 0) {
		crs_error_clear();
		return lstat(dir, &st) == 0;
	}
	if (!(d = fdopendir(fd))) {
		close(fd);
		return 0;
	}
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void tally_submissions(struct scan *s, struct tally *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t k = 0; k < KINDS_NR; k++) {
		size_t before = t->accepted[k], entries = 0;

		t->kind = (int)k;
		submissions_walk(s, kinds[k].dir, TRIAL_FILE_MAX, kinds[k].one,
				 count_one, t);
		for (size_t i = 0; i < s->compose->crs_nr; i++)
			for (size_t h = 0; h < s->state.harnesses_nr; h++) {
				char *p = scan_work_path(s, "runs/%s/crs/%s/"
					"SUBMIT_DIR/%s/%s", s->state.run_id,
					s->compose->crs[i].name,
					s->state.harnesses[h], kinds[k].dir);

				entries += count_entries(p);
				free(p);
			}
		if (entries > t->accepted[k] - before)
			t->refused[k] = entries - (t->accepted[k] - before);
	}
}

/* Each build step's declared outputs under its BUILD_OUT_DIR. */
static size_t check_outputs(struct scan *s, FILE *out)
{
	size_t missing = 0, declared = 0;

	for (size_t i = 0; i < s->compose->crs_nr; i++) {
		const struct compose_crs *c = &s->compose->crs[i];
		const struct manifest *m = c->manifest;

		for (size_t b = 0; m && b < m->builds_nr; b++)
			for (size_t o = 0; o < m->builds[b].outputs_nr; o++) {
				const char *name = m->builds[b].outputs[o];
				char *p = scan_work_path(s, "builds/%s/crs/%s/"
					"BUILD_OUT_DIR/%s", s->state.sanitizer,
					c->name, name);
				int ok = fs_exists(p);

				missing += !ok;
				declared++;
				fprintf(out, "  %s/%s: %s\n",
					m->builds[b].name, name,
					ok ? "present" : "missing");
				free(p);
			}
	}
	if (!declared)
		fprintf(out, "  none declared\n");
	return missing;
}

static void print_findings(const struct finding_set *fs, FILE *out)
{
	size_t validated = 0;
	char q[512];

	fprintf(out, "reproduced on crs-ci's build: %zu of %zu PoV(s), %zu "
		"distinct finding(s)\n", fs->summary.povs_submitted -
		fs->summary.povs_not_reproduced, fs->summary.povs_submitted,
		fs->nr);
	for (size_t i = 0; i < fs->nr; i++) {
		const struct finding *f = &fs->items[i];
		const char *fn = f->function ? f->function : "?";
		const char *file = f->file ? f->file : "?";
		char qf[512], qp[512];

		log_quote(q, sizeof(q), f->crash_type, strlen(f->crash_type));
		fprintf(out, "  %s in %s at %s:%d, reproduced %d/%d, %s\n",
			q, log_quote(qf, sizeof(qf), fn, strlen(fn)),
			log_quote(qp, sizeof(qp), file, strlen(file)), f->line,
			f->reproduced, f->attempts,
			f->novelty ? f->novelty : "novelty unknown");
	}
	for (size_t i = 0; i < fs->patches_nr; i++)
		validated += fs->patches[i].validated != 0;
	fprintf(out, "patches validated: %zu of %zu\n", validated,
		fs->patches_nr);
	for (size_t i = 0; i < fs->patches_nr; i++) {
		const struct finding_patch *p = &fs->patches[i];

		fprintf(out, "  patch %.12s: %s%s%s\n", p->sha256,
			p->validated ? "validated" : "not validated",
			p->failed_step ? ", failed step " : "",
			p->failed_step ? p->failed_step : "");
	}
}

/* The report; returns 0 when the contract was met, else EXIT_FINDINGS. */
static int report(struct scan *s, FILE *out)
{
	struct finding_set fs;
	struct tally t;
	char *results = xasprintf("%s/results.json", s->out_dir);
	size_t missing, total = 0, refused = 0;
	int code = EXIT_OK;

	finding_set_init(&fs);
	fprintf(out, "build outputs (target_build_phase in crs.yaml):\n");
	missing = check_outputs(s, out);
	tally_submissions(s, &t);
	fprintf(out, "submissions (SUBMIT_DIR, as the exchange and triage "
		"take them):\n");
	for (size_t k = 0; k < KINDS_NR; k++) {
		fprintf(out, "  %-15s %zu accepted", kinds[k].label,
			t.accepted[k]);
		if (t.refused[k])
			fprintf(out, ", %zu refused (links, not regular "
				"files, bad names or past the caps: see the "
				"log)", t.refused[k]);
		fputc('\n', out);
		total += t.accepted[k];
		refused += t.refused[k];
	}
	if (finding_set_load(&fs, results) == 0) {
		print_findings(&fs, out);
	} else {
		log_fprintf(out, "  no results.json: ", "%s", crs_error_last());
		crs_error_clear();
	}
	fprintf(out, "contract: ");
	if (missing) {
		fprintf(out, "broken: %zu declared build output(s) missing\n",
			missing);
		code = EXIT_FINDINGS;
	} else if (refused) {
		fprintf(out, "broken: %zu submission(s) refused\n", refused);
		code = EXIT_FINDINGS;
	} else if (!total) {
		fprintf(out, "not shown: the CRS submitted nothing\n");
		code = EXIT_FINDINGS;
	} else {
		fprintf(out, "met (declared outputs present, every submission "
			"accepted)\n");
	}
	finding_set_release(&fs);
	free(results);
	return code;
}

/* ---- the trial --------------------------------------------------------- */

/* With the author's compose: one of its entries must be the package. */
static int compose_has_package(const struct compose *c, const char *path,
			       const char *dir)
{
	char *want = realpath(dir, NULL);
	int found = 0;

	for (size_t i = 0; want && i < c->crs_nr && !found; i++) {
		char *have = c->crs[i].source_local_path ?
			realpath(c->crs[i].source_local_path, NULL) : NULL;

		found = have && !strcmp(have, want);
		free(have);
	}
	free(want);
	if (found)
		return 0;
	return crs_error_set(CRS_EINPUT, "%s: no CRS entry whose "
			     "source.local_path is %s", path, dir);
}

static int fail(int r, const char *what)
{
	if (r == CRS_EINTR)
		return phase_cmd_fail(r);
	crs_error_prefix("%s", what);
	log_error("%s", crs_error_last());
	/* a build that fails on the bundled example is the CRS's own */
	return r == CRS_EBUILD ? EXIT_FINDINGS : exit_code_for(r);
}

int crstrial_run(const struct crstrial_opts *o, const struct crslint *lint,
		 struct runner_ctx *ctx)
{
	const struct manifest *m = lint->manifest;
	struct scan_opts so = SCAN_OPTS_INIT;
	struct runner_ctx quiet = *ctx;
	struct scan *s = NULL;
	char *examples = NULL, *work = NULL, *repo = NULL, *compose = NULL;
	char *project = NULL, *scan_work = NULL, *base = NULL, *head = NULL;
	char *dir = NULL;
	int r, code = EXIT_INFRA;

	if (!o->compose && m->required_llms_nr) {
		log_error("%s requires LLMs (%s, ...): crs-ci cannot test its "
			  "LLM part without one; give --compose with an "
			  "llm_config", m->name, m->required_llms[0]);
		return EXIT_USAGE;
	}
	work = fs_abspath(o->work_dir);
	repo = xasprintf("%s/example-repo", work);
	scan_work = xasprintf("%s/scan", work);
	if ((r = example_dir_find(&examples, o->example)) != 0) {
		code = fail(r, "crs test");
		goto out;
	}
	project = xasprintf("%s/projects/recparse", examples);
	if ((r = fs_remove_tree(repo)) != 0 || (r = fs_mkdir_p(work)) != 0 ||
	    (r = example_repo_make(examples, repo, &base, &head)) != 0) {
		code = fail(r, "crs test");
		goto out;
	}
	if (o->compose) {
		compose = xstrdup(o->compose);
	} else {
		dir = fs_abspath(o->dir);
		compose = xasprintf("%s/compose.yaml", work);
		if ((r = compose_write(compose, config_name_ok(m->name) ?
				       m->name : "crs-under-test", dir)) != 0) {
			code = fail(r, "crs test");
			goto out;
		}
	}
	log_info("crs test: %s on the example at %.12s (base %.12s), "
		 "compose %s", m->name, head, base, compose);
	so.compose = compose;
	so.project = project;
	so.source = repo;
	so.base = base;
	so.head = head;
	so.work_dir = scan_work;
	so.out_dir = o->out_dir;
	so.fail_on = "none";
	so.keep_going = o->keep_going;
	so.base_images = o->base_images;
	so.timeout_s = TRIAL_BUILD_TIMEOUT_S;
	quiet.out = ctx->err;	/* the scan's own verdict is progress here */
	if ((r = scan_open(&s, &so, &quiet, SCAN_NEED_COMPOSE |
			   SCAN_NEED_PROJECT | SCAN_NEED_ENGINE |
			   SCAN_NEED_CHANGE)) != 0 ||
	    (o->compose &&
	     (r = compose_has_package(s->compose, o->compose, o->dir)) != 0)) {
		code = fail(r, "crs test");
		goto out;
	}
	if ((r = phase_scan_build(s)) != 0) {
		code = fail(r, "crs test: building");
		goto out;
	}
	/*
	 * --timeout is the CRS's run: the deadline starts now it is built,
	 * with the reserve the run phase keeps for triage (a fifth of the
	 * whole, 20 s at least) on top
	 */
	so.timeout_s = o->timeout_s + (o->timeout_s / 4 > 20 ?
				       o->timeout_s / 4 : 20);
	clock_gettime(CLOCK_MONOTONIC, &s->started);
	scan_exec_bind(s);	/* the exec context's deadline too */
	if ((r = phase_scan_prove(s)) != 0 ||
	    (scan_interrupted(s) && (r = CRS_EINTR))) {
		code = fail(r, "crs test: running");
		goto out;
	}
	fprintf(ctx->out, "crs test: %s on the example: run and triage took "
		"%.0fs after the build (results in %s)\n", m->name,
		scan_elapsed(s), s->out_dir);
	code = report(s, ctx->out);
out:
	scan_close(s);
	free(examples);
	free(work);
	free(repo);
	free(compose);
	free(project);
	free(scan_work);
	free(base);
	free(head);
	free(dir);
	return code;
}
