/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crs_lint.c - a CRS package checked against the OSS-CRS contract
 *
 * crs.yaml goes through the one loader (crs_manifest.c) and the one
 * Dockerfile check (config_check.c) every scan uses; this file adds what
 * only an author needs told: no link or ".." on a Dockerfile's path,
 * libCRS installed in each image's final stage, outputs on every build
 * step, at least one run module. Problems are collected, not returned at
 * the first, and each names file:line:col.
 */
#include "runner/config/crs_lint.h"
#include "runner/config/config.h"
#include "runner/config/yaml_doc.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "common/testable.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define FIELD_MAX 256

static void add_text(struct crslint *l, int is_error, const char *text)
{
	ALLOC_GROW(l->items, l->nr + 1, l->alloc);
	l->items[l->nr].is_error = is_error;
	l->items[l->nr].text = xstrdup(text);
	l->nr++;
	if (is_error)
		l->errors++;
	else
		l->warnings++;
}

/* "file:line:col: field: message", formatted as config errors are. */
static void add_at(struct crslint *l, int is_error,
		   const struct config_pos *pos, const char *field,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void add_at(struct crslint *l, int is_error,
		   const struct config_pos *pos, const char *field,
		   const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	config_pos_error(pos, field, "%s", msg);
	add_text(l, is_error, crs_error_last());
	crs_error_clear();
}

/* ---- Dockerfiles ------------------------------------------------------- */

struct df_instr {
	int line, column;
	char keyword[16];	/* upper case */
	char *args;		/* continuation lines joined with a blank */
};

static void instr_release(struct df_instr *v, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(v[i].args);
	free(v);
}

/*
 * Instructions of a Dockerfile: comment and blank lines skipped (also
 * inside a continuation, as Docker does), lines ending in a backslash
 * joined. Positions are the instruction's first line and column.
 */
static struct df_instr *df_split(const char *buf, size_t len, size_t *nr_out)
{
	struct df_instr *v = NULL;
	size_t nr = 0, alloc = 0, pos = 0;
	struct buf cur = BUF_INIT;
	int line = 0, open = 0;

	while (pos < len) {
		const char *s = buf + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos, ind, end;
		int cont;

		pos += n + (nl != NULL);
		line++;
		ind = 0;
		while (ind < n && (s[ind] == ' ' || s[ind] == '\t'))
			ind++;
		end = n;
		while (end > ind && isspace((unsigned char)s[end - 1]))
			end--;
		if (ind == end || s[ind] == '#')
			continue;
		cont = s[end - 1] == '\\';
		if (!open) {
			size_t k = ind;
			struct df_instr *in;

			ALLOC_GROW(v, nr + 1, alloc);
			in = &v[nr++];
			memset(in, 0, sizeof(*in));
			in->line = line;
			in->column = (int)ind + 1;
			for (size_t o = 0; k < end && !isspace((unsigned char)s[k]);
			     k++)
				if (o + 1 < sizeof(in->keyword))
					in->keyword[o++] = (char)toupper(
						(unsigned char)s[k]);
			ind = k;
			buf_reset(&cur);
		}
		buf_add(&cur, s + ind, end - ind - (size_t)cont);
		buf_addch(&cur, ' ');
		open = cont;
		if (!open) {
			v[nr - 1].args = buf_detach(&cur, NULL);
			buf_init(&cur);
		}
	}
	if (open && nr)
		v[nr - 1].args = buf_detach(&cur, NULL);
	buf_release(&cur);
	*nr_out = nr;
	return v;
}

/* The last blank-separated word of `s` into out, trailing '/' removed. */
static void last_word(char *out, size_t outsz, const char *s)
{
	const char *end = s + strlen(s), *start;

	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	start = end;
	while (start > s && !isspace((unsigned char)start[-1]))
		start--;
	while (end > start + 1 && end[-1] == '/')
		end--;
	snprintf(out, outsz, "%.*s", (int)(end - start), start);
}

static int has_word_ending(const char *s, const char *suffix)
{
	size_t sl = strlen(suffix);

	for (const char *p = s; *p;) {
		size_t n;

		p += strspn(p, " \t");
		n = strcspn(p, " \t");
		if (n >= sl && !strncmp(p + n - sl, suffix, sl))
			return 1;
		p += n;
	}
	return 0;
}

static int copies_from_libcrs(const struct df_instr *in)
{
	return !strcmp(in->keyword, "COPY") && strstr(in->args, "--from=libcrs ");
}

CRS_TESTABLE void crslint_dockerfile(struct crslint *out, const char *buf, size_t len,
			const char *name)
{
	struct config_pos pos = { name, 1, 1 };
	struct df_instr *v = NULL;
	size_t nr = 0, last_from = 0;
	int has_from = 0, earlier = 0;
	const struct df_instr *copy = NULL;
	char dest[256] = "", want[300];

	v = df_split(buf, len, &nr);
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(v[i].keyword, "FROM")) {
			has_from = 1;
			last_from = i;
		}
	if (!has_from) {
		add_at(out, 1, &pos, NULL, "no FROM instruction");
		goto out;
	}
	for (size_t i = 0; i < last_from; i++)
		earlier |= copies_from_libcrs(&v[i]);
	for (size_t i = last_from + 1; i < nr; i++) {
		const struct df_instr *in = &v[i];

		if (!strcmp(in->keyword, "COPY") &&
		    strstr(in->args, "--from=") &&
		    has_word_ending(in->args, "bin/libCRS"))
			goto out;	/* the CLI alone, as from oss-crs-deps */
		if (copies_from_libcrs(in)) {
			copy = in;
			last_word(dest, sizeof(dest), in->args);
			continue;
		}
		snprintf(want, sizeof(want), "%s/install.sh", dest);
		if (copy && !strcmp(in->keyword, "RUN") && strstr(in->args, want))
			goto out;
	}
	pos.line = copy ? copy->line : v[last_from].line;
	pos.column = copy ? copy->column : v[last_from].column;
	if (copy)
		add_at(out, 1, &pos, NULL, "copies libCRS to %s but no later "
		       "RUN runs %s/install.sh, so the libCRS command is not "
		       "installed", dest, dest);
	else
		add_at(out, 1, &pos, NULL, "the final stage (this FROM) does "
		       "not install libCRS%s: add `COPY --from=libcrs . "
		       "/opt/libCRS` and `RUN /opt/libCRS/install.sh` "
		       "(contract §4)", earlier ? " (an earlier stage does, "
		       "which the image does not keep)" : "");
out:
	instr_release(v, nr);
}

/* A link or ".." on the package-relative path `rel` below `root`. */
static void lint_path(struct crslint *l, const struct config_pos *pos,
		      const char *field, const char *root, const char *rel)
{
	char q[YAML_DOC_QUOTE_MAX];
	struct buf path = BUF_INIT;
	struct stat st;

	yaml_doc_quote(q, rel);
	if (rel[0] == '/') {
		add_at(l, 1, pos, field, "%s is absolute; a Dockerfile path is "
		       "relative to the package root", q);
		return;
	}
	buf_adds(&path, root);
	for (const char *p = rel; *p;) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			add_at(l, 1, pos, field, "%s goes through \"..\"; the "
			       "package must hold its Dockerfiles", q);
			break;
		}
		buf_addch(&path, '/');
		buf_add(&path, p, n);
		if (n && lstat(path.ptr, &st) == 0 && S_ISLNK(st.st_mode)) {
			add_at(l, 1, pos, field, "%s is reached through the "
			       "symbolic link %.*s; the package must hold the "
			       "file itself", q, (int)(p - rel + n), rel);
			break;
		}
		p += n;
		p += *p == '/';
	}
	buf_release(&path);
}

static void lint_dockerfile_at(struct crslint *l, const char *dir,
			       struct strvec *seen,
			       const struct config_pos *pos,
			       const char *field, const char *dockerfile)
{
	const struct manifest *m = l->manifest;
	struct buf b = BUF_INIT;
	size_t errors = l->errors;
	char *path = NULL, *shown = NULL;

	for (size_t i = 0; i < seen->nr; i++)
		if (!strcmp(seen->v[i], dockerfile))
			return;	/* one report per file */
	strvec_push(seen, dockerfile);
	if (config_check_dockerfile(m, pos, field, dockerfile) != 0) {
		add_text(l, 1, crs_error_last());
		crs_error_clear();
		return;
	}
	lint_path(l, pos, field, m->root, dockerfile);
	if (l->errors != errors)
		return;
	path = xasprintf("%s/%s", m->root, dockerfile);
	shown = xasprintf("%s/%s", dir, dockerfile);
	if (fs_read_file(&b, path, CONFIG_FILE_MAX) != 0) {
		add_at(l, 1, pos, field, "%s", crs_error_last());
		crs_error_clear();
	} else {
		crslint_dockerfile(l, b.ptr, b.len, shown);
	}
	buf_release(&b);
	free(path);
	free(shown);
}

/* ---- crs.yaml ---------------------------------------------------------- */

/* Warnings the loader logs (unknown keys, reserved env names) as problems. */
static void capture_warning(enum log_level level, const char *file,
			    const char *func, int line, const char *msg,
			    void *ctx)
{
	(void)file;
	(void)func;
	(void)line;
	if (level <= LOG_WARN)
		add_text(ctx, level == LOG_ERROR, msg);
}

static void lint_manifest(struct crslint *l, const char *dir)
{
	const struct manifest *m = l->manifest;
	struct strvec seen = STRVEC_INIT;
	char field[FIELD_MAX], q[YAML_DOC_QUOTE_MAX];

	if (!config_name_ok(m->name))
		add_at(l, 0, &m->name_pos, "name", "%s is not a valid CRS name "
		       "(letters, digits, '-' and '_'): a compose entry needs "
		       "one", yaml_doc_quote(q, m->name));
	if (!m->modules_nr)
		add_at(l, 1, &m->run_phase_pos, "crs_run_phase", "no run "
		       "modules: the CRS runs nothing");
	for (size_t i = 0; i < m->builds_nr; i++) {
		const struct manifest_build_step *b = &m->builds[i];

		yaml_doc_field(field, sizeof(field), "target_build_phase[%zu]",
			       i);
		if (!b->outputs_nr)
			add_at(l, 1, &b->pos, field, "build step %s declares no "
			       "outputs: list what its CMD submits with "
			       "`libCRS submit-build-output` (e.g. `outputs: "
			       "[build]`)", yaml_doc_quote(q, b->name));
		yaml_doc_field(field, sizeof(field),
			       "target_build_phase[%zu].dockerfile", i);
		lint_dockerfile_at(l, dir, &seen, &b->dockerfile_pos, field,
				   b->dockerfile);
	}
	for (size_t i = 0; i < m->modules_nr; i++) {
		const struct manifest_run_module *mod = &m->modules[i];

		yaml_doc_field(field, sizeof(field),
			       "crs_run_phase.%s.dockerfile", mod->name);
		lint_dockerfile_at(l, dir, &seen, &mod->dockerfile_pos, field,
				   mod->dockerfile);
	}
	strvec_release(&seen);
}

int crslint_run(struct crslint *out, const char *dir)
{
	char *shown_dir = xstrdup(dir), *path = NULL;
	size_t n = strlen(shown_dir);
	int r;

	while (n > 1 && shown_dir[n - 1] == '/')
		shown_dir[--n] = '\0';
	path = xasprintf("%s/oss-crs/crs.yaml", shown_dir);
	log_set_handler(capture_warning, out);
	r = manifest_load(&out->manifest, path);
	log_set_handler(NULL, NULL);
	if (r != 0) {
		add_text(out, 1, crs_error_last());
		crs_error_clear();
	} else {
		lint_manifest(out, shown_dir);
	}
	free(path);
	free(shown_dir);
	return out->errors ? CRS_ECONFIG : 0;
}

void crslint_release(struct crslint *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nr; i++)
		free(l->items[i].text);
	free(l->items);
	manifest_free(l->manifest);
	memset(l, 0, sizeof(*l));
}
