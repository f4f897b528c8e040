/* SPDX-License-Identifier: Apache-2.0 */
/*
 * disclose.c - the disclosure policy: which findings stay out of public
 * outputs, and taking them out of the result set
 *
 * The output folder is crs-ci's own (triage copied PoVs and reports into
 * it); its paths come from results.json, so they are still checked to
 * stay beneath it and opened without following links.
 */
#include "runner/report/disclose.h"
#include "runner/report/cms_seal.h"
#include "sarif/finding.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/safe_io.h"
#include "common/testable.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DISCLOSE_EVENT_MAX ((size_t)16 << 20)
#define DISCLOSE_REPORT_MAX ((size_t)1 << 20)
#define DISCLOSE_STACK_FRAMES 16

int disclose_parse(const char *arg, const char *what,
		   enum disclose_policy *out)
{
	if (!arg && (arg = getenv("CRS_CI_DISCLOSE")) && *arg)
		what = "CRS_CI_DISCLOSE";
	if (!arg || !*arg || !strcmp(arg, "auto"))
		*out = DISCLOSE_AUTO;
	else if (!strcmp(arg, "public"))
		*out = DISCLOSE_PUBLIC;
	else if (!strcmp(arg, "private"))
		*out = DISCLOSE_PRIVATE;
	else
		return crs_error_set(CRS_EINPUT, "%s: '%s' is not public, "
				     "private or auto", what, arg);
	return 0;
}

static int env_is(const char *name, const char *value)
{
	const char *v = getenv(name);

	return v && !strcmp(v, value);
}

/* GitHub: 1 public, 0 private, -1 cannot tell */
static int github_event_public(void)
{
	const char *path = getenv("GITHUB_EVENT_PATH");
	struct buf b = BUF_INIT;
	json_t *root = NULL, *repo, *v;
	int pub = -1;

	if (!path || fs_read_file(&b, path, DISCLOSE_EVENT_MAX) != 0) {
		crs_error_clear();
		goto out;
	}
	root = json_loadb(b.ptr, b.len, 0, NULL);
	repo = json_object_get(root, "repository");
	if (json_is_string(v = json_object_get(repo, "visibility")))
		pub = !strcmp(json_string_value(v), "public");
	else if (json_is_boolean(v = json_object_get(repo, "private")))
		pub = !json_is_true(v);
out:
	json_decref(root);
	buf_release(&b);
	return pub;
}

CRS_TESTABLE int disclose_repo_public(const char **why)
{
	const char *dummy;
	int pub;

	if (!why)
		why = &dummy;
	if (env_is("GITHUB_ACTIONS", "true")) {
		pub = github_event_public();
		*why = pub < 0 ? "GitHub Actions, the event file does not say "
			"whether the repository is public: taken as public" :
			pub ? "the GitHub repository is public" :
			"the GitHub repository is private";
		return pub != 0;
	}
	if (env_is("GITLAB_CI", "true")) {
		const char *v = getenv("CI_PROJECT_VISIBILITY");

		pub = !v || strcmp(v, "private") != 0;
		*why = !v ? "GitLab CI without CI_PROJECT_VISIBILITY: taken as "
			"public" : pub ? "the GitLab project is public or "
			"internal" : "the GitLab project is private";
		return pub;
	}
	*why = "not a CI job: nothing is published";
	return 0;
}

CRS_TESTABLE int disclose_is_private(enum disclose_policy p,
				     const struct finding *f)
{
	switch (p) {
	case DISCLOSE_PUBLIC:
		return 0;
	case DISCLOSE_PRIVATE:
		return 1;
	default:
		/* its PoV crashes the base build too, with the same signature
		 * or another (a change that renames a function on the stack
		 * makes a released bug "changed"): a bug in released code */
		return f->novelty && (!strcmp(f->novelty, "pre-existing") ||
				      !strcmp(f->novelty, "changed")) &&
			disclose_repo_public(NULL);
	}
}

int disclose_hides(const char *opt, const struct finding *f)
{
	enum disclose_policy p;

	if (disclose_parse(opt, "--disclose", &p) != 0) {
		crs_error_clear();
		return 1;
	}
	return disclose_is_private(p, f);
}

void disclose_public_line(struct buf *b, size_t n)
{
	if (!n)
		return;
	buf_printf(b, "%zu finding%s in released code %s reported privately "
		   "to the maintainers", n, n == 1 ? "" : "s",
		   n == 1 ? "was" : "were");
}

static void buf_wipe_free(struct buf *b)
{
	if (!b)
		return;
	if (b->ptr)
		explicit_bzero(b->ptr, b->len);
	buf_release(b);
	free(b);
}

void private_set_release(struct private_set *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr; i++) {
		struct private_finding *x = &p->items[i];

		free(x->id);
		free(x->crash_type);
		free(x->kind);
		free(x->sanitizer);
		free(x->harness);
		free(x->description);
		free(x->function);
		free(x->file);
		free(x->novelty);
		free(x->stack);
		free(x->pov_cms);
		buf_wipe_free(x->report);
		buf_wipe_free(x->pov);
	}
	free(p->items);
	memset(p, 0, sizeof(*p));
}

/* read out_dir/rel (no link followed) into a new buffer; empty if gone */
static struct buf *read_evidence(int outfd, const char *out_dir,
				 const char *rel, size_t max)
{
	struct buf *b = xcalloc(1, sizeof(*b));
	int parent = -1;
	const char *leaf;
	char *shown;

	if (!safe_relpath_ok(rel))
		return b;
	shown = xasprintf("%s/%s", out_dir, rel);
	if (fs_walk_beneath(&parent, &leaf, outfd, rel, 0, out_dir) != 0 ||
	    fs_read_regular_at(b, parent, leaf, shown, max, NULL) != 0) {
		crs_error_clear();
		buf_reset(b);
	}
	if (parent >= 0)
		close(parent);
	free(shown);
	return b;
}

/* remove out_dir/rel (a file, never through a link); gone is fine */
static int remove_evidence(int outfd, const char *out_dir, const char *rel)
{
	int parent = -1, r = 0;
	const char *leaf;

	if (!safe_relpath_ok(rel))
		return 0;
	if (fs_walk_beneath(&parent, &leaf, outfd, rel, 0, out_dir) != 0) {
		crs_error_clear();	/* its folder is gone: so is it */
		return 0;
	}
	if (unlinkat(parent, leaf, 0) != 0 && errno != ENOENT)
		r = crs_error_set(CRS_ERR, "%s/%s: cannot remove a private "
				  "finding's file: %s", out_dir, rel,
				  strerror(errno));
	close(parent);
	return r;
}

static char *stack_text(const struct finding *f)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < f->stack_nr && i < DISCLOSE_STACK_FRAMES; i++)
		buf_printf(&b, "#%zu %s %s:%d\n", i,
			   f->stack[i].func ? f->stack[i].func : "?",
			   f->stack[i].file ? f->stack[i].file : "?",
			   f->stack[i].line);
	return b.len ? buf_detach(&b, NULL) : (buf_release(&b), NULL);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void record(struct private_set *out, const struct finding *f,
		   int outfd, const char *out_dir)
{
	struct private_finding *x;

	ALLOC_GROW(out->items, out->nr + 1, out->alloc);
	x = &out->items[out->nr++];
	memset(x, 0, sizeof(*x));
	x->id = dup_or_null(f->id);
	x->crash_type = dup_or_null(f->crash_type);
	x->kind = dup_or_null(f->kind);
	x->sanitizer = dup_or_null(f->sanitizer);
	x->harness = dup_or_null(f->harness);
	x->description = dup_or_null(f->description);
	x->function = dup_or_null(f->function);
	x->file = dup_or_null(f->file);
	x->novelty = dup_or_null(f->novelty);
	x->line = f->line;
	x->is_security = f->is_security;
	x->stack = stack_text(f);
	x->report = read_evidence(outfd, out_dir, f->report_path,
				  DISCLOSE_REPORT_MAX);
	x->pov = read_evidence(outfd, out_dir, f->pov_path,
			       CMS_SEAL_INPUT_MAX);
}

static int remove_files(const struct finding *f, int outfd,
			const char *out_dir)
{
	int r;

	if ((r = remove_evidence(outfd, out_dir, f->pov_path)) ||
	    (r = remove_evidence(outfd, out_dir, f->report_path)))
		return r;
	for (size_t i = 0; i < f->povs_nr; i++)
		if ((r = remove_evidence(outfd, out_dir, f->povs[i].path)))
			return r;
	return 0;
}

static int lists(char **v, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] && !strcmp(v[i], id))
			return 1;
	return 0;
}

/* drop the patches that fix `id` and the candidates it confirmed */
static void drop_related(struct finding_set *fs, const char *id)
{
	size_t k = 0;

	for (size_t i = 0; i < fs->patches_nr; i++) {
		if (lists(fs->patches[i].fixes, fs->patches[i].fixes_nr, id))
			finding_patch_release(&fs->patches[i]);
		else
			fs->patches[k++] = fs->patches[i];
	}
	fs->patches_nr = k;
	k = 0;
	for (size_t i = 0; i < fs->candidates_nr; i++) {
		struct finding_candidate *c = &fs->candidates[i];

		if (c->finding_id && !strcmp(c->finding_id, id))
			finding_candidate_release(c);
		else
			fs->candidates[k++] = *c;
	}
	fs->candidates_nr = k;
}

int disclose_split(struct finding_set *fs, const char *out_dir,
		   enum disclose_policy p, struct private_set *out)
{
	int outfd = -1, r = 0;
	size_t k = 0;

	for (size_t i = 0; i < fs->nr; i++)
		if (disclose_is_private(p, &fs->items[i]))
			break;
		else if (i + 1 == fs->nr)
			return 0;	/* nothing private: touch nothing */
	if (!fs->nr)
		return 0;
	if ((r = fs_open_dir(&outfd, out_dir)) != 0)
		return r;
	for (size_t i = 0; i < fs->nr; i++) {
		struct finding *f = &fs->items[i];

		if (!disclose_is_private(p, f)) {
			fs->items[k++] = *f;
			continue;
		}
		record(out, f, outfd, out_dir);
		if (!r)
			r = remove_files(f, outfd, out_dir);
		fs->summary.private_findings++;
		fs->summary.private_new += finding_fails_policy(f, "new") != 0;
		if (f->id)
			drop_related(fs, f->id);
		finding_release(f);
	}
	fs->nr = k;
	close(outfd);
	return r;
}
