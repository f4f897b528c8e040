/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_changeset.c - ChangeSets from real git repositories and diffs
 *
 * Each test builds a throw-away git repository under /tmp with the git
 * CLI, makes commits, and checks what diff/ reports: statuses, changed
 * and removed lines, the head->base line map (against the files' real
 * content), three-dot merge-base semantics, format-patch mboxes, plain
 * `diff -u` output, malformed diffs (exact line-numbered messages),
 * pre-push ref lines and the functions a change touched.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "diff/changeset.h"
#include "diff/prepush.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <git2.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- helpers ----------------------------------------------------------- */

struct repo {
	char dir[64];		/* the test's temp directory */
};

static void sh(struct repo *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static char *out_of(struct repo *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static char *vcommand(struct repo *r, const char *fmt, va_list ap)
{
	char *cmd, *full;

	if (vasprintf(&cmd, fmt, ap) < 0)
		fail();
	full = xasprintf("cd '%s' && %s", r->dir, cmd);
	free(cmd);
	return full;
}

/* Run a shell command in the repository; it must succeed. */
static void sh(struct repo *r, const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	int rc;

	va_start(ap, fmt);
	cmd = vcommand(r, fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc != 0)
		print_error("command failed (%d): %s\n", rc, cmd);
	free(cmd);
	assert_int_equal(rc, 0);
}

/* A command's stdout, trailing newline removed. */
static char *out_of(struct repo *r, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	char chunk[4096];
	va_list ap;
	char *cmd;
	size_t n;
	FILE *p;

	va_start(ap, fmt);
	cmd = vcommand(r, fmt, ap);
	va_end(ap);
	p = popen(cmd, "r");
	assert_non_null(p);
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		buf_add(&b, chunk, n);
	assert_int_equal(pclose(p), 0);
	free(cmd);
	while (b.len && b.ptr[b.len - 1] == '\n')
		b.ptr[--b.len] = '\0';
	return buf_detach(&b, NULL);
}

static void put(struct repo *r, const char *rel, const void *data,
		size_t len)
{
	char *path = xasprintf("%s/%s", r->dir, rel);
	char *slash = strrchr(path, '/');

	*slash = '\0';
	assert_int_equal(fs_mkdir_p(path), 0);
	*slash = '/';
	assert_int_equal(fs_write_file_atomic(path, data, len), 0);
	free(path);
}

static void put_s(struct repo *r, const char *rel, const char *text)
{
	put(r, rel, text, strlen(text));
}

/* "P1\nP2\n...Pn\n" for lines from..to */
static char *numbered(const char *prefix, int from, int to)
{
	struct buf b = BUF_INIT;

	for (int i = from; i <= to; i++)
		buf_printf(&b, "%s%d\n", prefix, i);
	return buf_detach(&b, NULL);
}

static char *slurp(struct repo *r, const char *rel)
{
	struct buf b = BUF_INIT;
	char *path = xasprintf("%s/%s", r->dir, rel);

	assert_int_equal(fs_read_file(&b, path, 64u << 20), 0);
	free(path);
	return buf_detach(&b, NULL);
}

/* A diff that must parse. */
static struct diff_changeset *from_text(const char *text, const char *name)
{
	struct diff_changeset *cs = NULL;
	int rc = diff_changeset_from_patch(&cs, text, strlen(text), name);

	if (rc != 0)
		print_error("%s\n", crs_error_last());
	assert_int_equal(rc, 0);
	return cs;
}

static struct diff_changeset *from_file(struct repo *r, const char *rel,
					const char *name)
{
	char *text = slurp(r, rel);
	struct diff_changeset *cs = from_text(text, name);

	free(text);
	return cs;
}

static struct diff_changeset *from_git(struct repo *r, const char *base,
				       const char *head)
{
	struct diff_changeset *cs = NULL;
	int rc = diff_changeset_from_git(&cs, r->dir, base, head);

	if (rc != 0)
		print_error("%s\n", crs_error_last());
	assert_int_equal(rc, 0);
	return cs;
}

static int setup_repo(void **state)
{
	struct repo *r = xcalloc(1, sizeof(*r));

	strcpy(r->dir, "/tmp/crs-changeset-XXXXXX");
	if (!mkdtemp(r->dir))
		return -1;
	*state = r;
	sh(r, "git init -q -b main .");
	return 0;
}

static int teardown_repo(void **state)
{
	struct repo *r = *state;

	fs_remove_tree(r->dir);
	free(r);
	return 0;
}

static void commit(struct repo *r, const char *msg)
{
	sh(r, "git add -A && git commit -q -m '%s'", msg);
}

static const struct diff_file *entry(const struct diff_changeset *cs,
				     const char *path)
{
	for (size_t i = 0; i < cs->nr; i++)
		if (!strcmp(cs->files[i].path, path))
			return &cs->files[i];
	print_error("no entry for '%s'\n", path);
	fail();
	return NULL;
}

static void assert_ints(const int *got, size_t n, const int *want,
			size_t wn)
{
	assert_int_equal(n, wn);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(got[i], want[i]);
}

#define ASSERT_LINES(f, ...) do { \
	static const int w_[] = { __VA_ARGS__ }; \
	assert_ints((f)->lines, (f)->lines_nr, w_, sizeof(w_) / sizeof(int)); \
} while (0)
#define ASSERT_REMOVED(f, ...) do { \
	static const int w_[] = { __VA_ARGS__ }; \
	assert_ints((f)->removed, (f)->removed_nr, w_, \
		    sizeof(w_) / sizeof(int)); \
} while (0)

/* Lines of a text, 1-based: v[1..n]. */
struct text_lines {
	char *text;
	char **v;
	int n;
};

static void split(struct text_lines *t, char *text)
{
	char *p = text;

	t->text = text;
	t->v = xcalloc(strlen(text) + 2, sizeof(char *));
	t->n = 0;
	while (*p) {
		char *nl = strchr(p, '\n');

		t->v[++t->n] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
}

static void release(struct text_lines *t)
{
	free(t->text);
	free(t->v);
}

static int has(const int *v, size_t n, int x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

/*
 * The map agrees with the files: a mapped head line has its base line's
 * text, every other head line is "changed", every base line is either
 * mapped back or "removed".
 */
static void assert_map_matches(const struct diff_file *f,
			       const struct text_lines *base,
			       const struct text_lines *head)
{
	for (int h = 1; h <= head->n; h++) {
		int b = diff_file_base_line(f, h);

		if (b) {
			assert_true(b <= base->n);
			assert_string_equal(head->v[h], base->v[b]);
			assert_false(diff_file_changed(f, h));
			assert_int_equal(diff_file_head_line(f, b), h);
		} else {
			assert_true(diff_file_changed(f, h));
		}
	}
	for (int b = 1; b <= base->n; b++) {
		int h = diff_file_head_line(f, b);

		if (h)
			assert_string_equal(head->v[h], base->v[b]);
		else
			assert_true(has(f->removed, f->removed_nr, b));
	}
	assert_int_equal(head->n - (int)f->lines_nr,
			 base->n - (int)f->removed_nr);
}

/* Same files, statuses, line sets and line maps (and modes, unless b
 * is a plain diff, which has none). */
static void assert_same_changeset(const struct diff_changeset *a,
				  const struct diff_changeset *b, int modes)
{
	assert_int_equal(a->nr, b->nr);
	for (size_t i = 0; i < a->nr; i++) {
		const struct diff_file *x = &a->files[i];
		const struct diff_file *y = entry(b, x->path);

		assert_int_equal(x->status, y->status);
		assert_string_equal(x->old_path, y->old_path);
		assert_int_equal(x->binary, y->binary);
		if (modes)
			assert_int_equal(x->new_mode, y->new_mode);
		assert_ints(y->lines, y->lines_nr, x->lines, x->lines_nr);
		assert_ints(y->removed, y->removed_nr, x->removed,
			    x->removed_nr);
		assert_int_equal(x->runs_nr, y->runs_nr);
		for (size_t k = 0; k < x->runs_nr; k++) {
			assert_int_equal(x->runs[k].head, y->runs[k].head);
			assert_int_equal(x->runs[k].base, y->runs[k].base);
			assert_int_equal(x->runs[k].len, y->runs[k].len);
		}
	}
}

/* --- from two commits -------------------------------------------------- */

static void test_git_statuses(void **state)
{
	struct repo *r = *state;
	struct diff_changeset *cs;
	const struct diff_file *f;
	char *t;

	put_s(r, "keep.c", (t = numbered("K", 1, 10)));
	free(t);
	put_s(r, "mod.c", (t = numbered("M", 1, 20)));
	free(t);
	put_s(r, "del.c", "gone\n");
	put_s(r, "old.c", (t = numbered("O", 1, 30)));
	free(t);
	put_s(r, "mode.sh", "#!/bin/sh\n");
	put(r, "bin.dat", "\0\1\2bin", 6);
	put_s(r, "link.txt", "plain file\n");
	commit(r, "base");

	sh(r, "sed -i -e 's/^M5$/M5x/' -e '/^M10$/a new-a\\nnew-b' "
	   "-e '/^M15$/d' mod.c");
	sh(r, "git rm -q del.c && git mv old.c new.c && "
	   "sed -i 's/^O30$/O30 changed/' new.c && chmod +x mode.sh");
	put(r, "bin.dat", "\0\2\3bin", 6);
	put_s(r, "add.c", "A1\nA2\nA3\n");
	sh(r, "rm link.txt && ln -s keep.c link.txt");
	commit(r, "change");

	cs = from_git(r, "HEAD~1", "HEAD");
	assert_int_equal(cs->nr, 7);

	f = entry(cs, "mod.c");
	assert_int_equal(f->status, DIFF_MODIFIED);
	ASSERT_LINES(f, 5, 11, 12);
	ASSERT_REMOVED(f, 5, 15);
	assert_int_equal(diff_file_base_line(f, 4), 4);
	assert_int_equal(diff_file_base_line(f, 5), 0);
	assert_int_equal(diff_file_base_line(f, 12), 0);
	assert_int_equal(diff_file_base_line(f, 13), 11);
	assert_int_equal(diff_file_base_line(f, 17), 16);
	assert_int_equal(diff_file_base_line(f, 21), 20);
	assert_int_equal(diff_file_head_line(f, 15), 0);
	assert_int_equal(diff_file_head_line(f, 16), 17);
	assert_true(diff_changeset_touches(cs, "mod.c", 11));
	assert_false(diff_changeset_touches(cs, "mod.c", 13));
	assert_false(diff_changeset_touches(cs, "keep.c", 1));

	f = entry(cs, "del.c");
	assert_int_equal(f->status, DIFF_DELETED);
	ASSERT_REMOVED(f, 1);
	assert_int_equal(f->new_mode, 0);
	assert_null(diff_changeset_file(cs, "del.c"));

	f = entry(cs, "new.c");
	assert_int_equal(f->status, DIFF_RENAMED);
	assert_string_equal(f->old_path, "old.c");
	assert_in_range(f->similarity, 90, 99);
	ASSERT_LINES(f, 30);
	ASSERT_REMOVED(f, 30);
	assert_int_equal(diff_file_base_line(f, 29), 29);

	f = entry(cs, "mode.sh");
	assert_int_equal(f->status, DIFF_MODE_CHANGED);
	assert_int_equal(f->old_mode, 0100644);
	assert_int_equal(f->new_mode, 0100755);
	assert_int_equal(f->lines_nr + f->removed_nr, 0);
	assert_int_equal(diff_file_base_line(f, 1), 1);

	f = entry(cs, "bin.dat");
	assert_int_equal(f->status, DIFF_MODIFIED);
	assert_true(f->binary);
	assert_int_equal(diff_file_base_line(f, 1), 0);

	f = entry(cs, "add.c");
	assert_int_equal(f->status, DIFF_ADDED);
	ASSERT_LINES(f, 1, 2, 3);
	assert_int_equal(f->old_mode, 0);
	assert_int_equal(diff_file_base_line(f, 1), 0);

	f = entry(cs, "link.txt");
	assert_int_equal(f->status, DIFF_TYPECHANGE);
	assert_int_equal(f->new_mode, 0120000);

	assert_non_null(strstr(cs->patch, "diff --git a/mod.c b/mod.c"));
	assert_int_equal(strlen(cs->patch), cs->patch_len);
	diff_changeset_free(cs);
}

static void test_git_merge_base(void **state)
{
	struct repo *r = *state;
	struct diff_changeset *cs = NULL;
	const struct diff_file *f;
	char *fork, *topic, *t;

	put_s(r, "a.c", (t = numbered("a", 1, 12)));
	free(t);
	commit(r, "base");
	fork = out_of(r, "git rev-parse HEAD");
	sh(r, "git checkout -q -b topic && sed -i 's/^a2$/a2 topic/' a.c");
	put_s(r, "t.c", "topic\n");
	commit(r, "topic work");
	topic = out_of(r, "git rev-parse HEAD");
	/* main moves on after the fork: none of this is the change */
	sh(r, "git checkout -q main && sed -i 's/^a9$/a9 main/' a.c");
	put_s(r, "m.c", "main only\n");
	commit(r, "main work");

	cs = from_git(r, "main", "topic");
	assert_string_equal(cs->base_commit, fork);
	assert_string_equal(cs->head_commit, topic);
	assert_int_equal(cs->nr, 2);
	f = entry(cs, "a.c");
	ASSERT_LINES(f, 2);
	ASSERT_REMOVED(f, 2);
	assert_int_equal(diff_file_base_line(f, 9), 9);
	assert_int_equal(entry(cs, "t.c")->status, DIFF_ADDED);
	assert_null(strstr(cs->patch, "m.c"));
	assert_null(strstr(cs->patch, "a9 main"));
	diff_changeset_free(cs);

	/* head defaults to HEAD (main here): the change is main's work */
	cs = from_git(r, "topic", NULL);
	assert_int_equal(cs->nr, 2);
	assert_non_null(diff_changeset_file(cs, "m.c"));
	diff_changeset_free(cs);

	cs = NULL;
	assert_int_equal(diff_changeset_from_git(&cs, r->dir, "no-such-rev",
						 "HEAD"), CRS_EINPUT);
	assert_null(cs);
	assert_non_null(strstr(crs_error_last(), "no-such-rev"));
	assert_int_equal(diff_changeset_from_git(&cs, "/nonexistent/repo",
						 "main", "HEAD"), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "/nonexistent/repo"));
	free(fork);
	free(topic);
}

/* --- line maps --------------------------------------------------------- */

static void test_line_map(void **state)
{
	struct repo *r = *state;
	static const char *const variants[] = {
		"git diff -U0 HEAD~1 HEAD", "git diff HEAD~1 HEAD",
		"git diff -U7 HEAD~1 HEAD", "diff -u base.txt f.txt",
	};
	struct diff_changeset *cs, *other;
	struct text_lines base, head;
	char *t;

	put_s(r, "f.txt", (t = numbered("line ", 1, 200)));
	free(t);
	commit(r, "base");
	/* deletions, insertions, replacements; first and last lines too */
	sh(r, "sed -i -e '1i first' -e '10,12d' -e '/^line 50$/a ins-a\\n"
	   "ins-b\\nins-c' -e 's/^line 100$/r100a\\nr100b/' -e '/^line 150$/d'"
	   " -e '/^line 151$/d' -e '$d' f.txt");
	commit(r, "edit");
	sh(r, "git show HEAD~1:f.txt > base.txt");

	split(&base, out_of(r, "git show HEAD~1:f.txt"));
	split(&head, out_of(r, "git show HEAD:f.txt"));
	cs = from_git(r, "HEAD~1", "HEAD");
	assert_int_equal(cs->nr, 1);
	ASSERT_LINES(&cs->files[0], 1, 49, 50, 51, 101, 102);
	ASSERT_REMOVED(&cs->files[0], 10, 11, 12, 100, 150, 151, 200);
	assert_map_matches(&cs->files[0], &base, &head);

	for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		sh(r, "%s > v.diff || test $? = 1", variants[i]);
		other = from_file(r, "v.diff", "v.diff");
		assert_int_equal(other->nr, 1);
		assert_string_equal(other->files[0].path, "f.txt");
		assert_map_matches(&other->files[0], &base, &head);
		assert_same_changeset(cs, other, variants[i][0] == 'g');
		diff_changeset_free(other);
	}
	release(&base);
	release(&head);
	diff_changeset_free(cs);
}

/* --- from diff files --------------------------------------------------- */

static void test_format_patch_mbox(void **state)
{
	struct repo *r = *state;
	struct diff_changeset *git_cs, *mbox_cs;
	const struct diff_file *f;
	struct text_lines base, head;
	char *t;

	put_s(r, "f.c", (t = numbered("F", 1, 40)));
	free(t);
	put_s(r, "r.c", (t = numbered("R", 1, 30)));
	free(t);
	put_s(r, "h.c", "H1\nH2\n");
	commit(r, "base");
	sh(r, "git tag base");
	sh(r, "sed -i -e '/^F5$/a ins1-a\\nins1-b' -e 's/^F20$/F20x/' f.c");
	put_s(r, "g.c", "G1\nG2\nG3\n");
	put_s(r, "tmp.c", "temporary\n");
	commit(r, "one");
	sh(r, "sed -i -e 's/^ins1-b$/ins1-b2/' -e '/^F30$/d' "
	   "-e '/^F35$/a ins2' f.c");
	sh(r, "git rm -q h.c tmp.c && git mv r.c s.c");
	commit(r, "two");
	sh(r, "sed -i 's/^R10$/R10x/' s.c && echo G4 >> g.c && "
	   "sed -i '/^F1$/d' f.c");
	commit(r, "three");
	sh(r, "git format-patch -q -M --stdout base..HEAD > series.mbox");

	git_cs = from_git(r, "base", "HEAD");
	mbox_cs = from_file(r, "series.mbox", "series.mbox");
	assert_same_changeset(git_cs, mbox_cs, 1);
	assert_int_equal(mbox_cs->nr, 4);
	assert_null(mbox_cs->base_commit);
	assert_null(mbox_cs->head_commit);

	f = entry(mbox_cs, "f.c");
	assert_int_equal(f->status, DIFF_MODIFIED);
	split(&base, out_of(r, "git show base:f.c"));
	split(&head, out_of(r, "git show HEAD:f.c"));
	assert_map_matches(f, &base, &head);
	release(&base);
	release(&head);
	assert_int_equal(entry(mbox_cs, "g.c")->status, DIFF_ADDED);
	ASSERT_LINES(entry(mbox_cs, "g.c"), 1, 2, 3, 4);
	assert_int_equal(entry(mbox_cs, "h.c")->status, DIFF_DELETED);
	f = entry(mbox_cs, "s.c");
	assert_int_equal(f->status, DIFF_RENAMED);
	assert_string_equal(f->old_path, "r.c");
	ASSERT_LINES(f, 10);

	/* the three patches, mail parts dropped, in order: git applies it */
	assert_null(strstr(mbox_cs->patch, "Subject:"));
	assert_non_null(strstr(mbox_cs->patch, "rename from r.c"));
	put(r, "norm.diff", mbox_cs->patch, mbox_cs->patch_len);
	sh(r, "mkdir wt && git archive base | tar -x -C wt && git show HEAD:f.c"
	   " > f.head && cd wt && GIT_CEILING_DIRECTORIES=\"${PWD%%/*}\" "
	   "git apply ../norm.diff && cmp f.c ../f.head && test ! -e h.c");
	diff_changeset_free(git_cs);
	diff_changeset_free(mbox_cs);
}

static void test_plain_diff(void **state)
{
	struct repo *r = *state;
	struct diff_changeset *cs;
	const struct diff_file *f;
	char *t;

	put_s(r, "a/src/x.c", (t = numbered("x", 1, 10)));
	free(t);
	put_s(r, "a/src/old.c", "old\n");
	put(r, "a/img.bin", "\0\1", 2);
	put_s(r, "b/src/x.c", "x1\nx2 changed\nx3\nx4\nx5\nx6\nx7\nx8\nx10\n");
	put_s(r, "b/src/new.c", "n1\nn2\n");
	put(r, "b/img.bin", "\0\2", 2);
	put_s(r, "a/sp ace.c", "s\n");		/* diff quotes this name */
	put_s(r, "b/sp ace.c", "S\n");
	sh(r, "diff -ruN a b > plain.diff || test $? = 1");

	cs = from_file(r, "plain.diff", "plain.diff");
	assert_int_equal(cs->nr, 5);
	ASSERT_LINES(entry(cs, "sp ace.c"), 1);
	f = entry(cs, "src/x.c");
	assert_int_equal(f->status, DIFF_MODIFIED);
	ASSERT_LINES(f, 2);
	ASSERT_REMOVED(f, 2, 9);
	assert_int_equal(diff_file_base_line(f, 9), 10);
	f = entry(cs, "src/new.c");
	assert_int_equal(f->status, DIFF_ADDED);
	ASSERT_LINES(f, 1, 2);
	assert_int_equal(entry(cs, "src/old.c")->status, DIFF_DELETED);
	f = entry(cs, "img.bin");
	assert_true(f->binary);
	/* the text is git-style and applies to the old tree */
	assert_non_null(strstr(cs->patch, "diff --git a/src/x.c b/src/x.c"));
	put(r, "norm.diff", cs->patch, cs->patch_len);
	sh(r, "cd a && GIT_CEILING_DIRECTORIES=\"${PWD%%/*}\" git apply "
	   "../norm.diff && cmp src/x.c ../b/src/x.c && "
	   "cmp src/new.c ../b/src/new.c && test ! -e src/old.c && "
	   "cmp 'sp ace.c' '../b/sp ace.c'");
	diff_changeset_free(cs);

	/* one file, "name.orig" against "name", and /dev/null */
	put_s(r, "x.c.orig", "a\nb\n");
	put_s(r, "x.c", "a\nB\n");
	sh(r, "diff -u x.c.orig x.c > one.diff || test $? = 1");
	sh(r, "printf -- '--- /dev/null\\n+++ b/n.c\\n@@ -0,0 +1 @@\\n+n\\n'"
	   " >> one.diff");
	cs = from_file(r, "one.diff", "one.diff");
	assert_int_equal(cs->nr, 2);
	ASSERT_LINES(entry(cs, "x.c"), 2);
	assert_int_equal(entry(cs, "n.c")->status, DIFF_ADDED);
	diff_changeset_free(cs);
}

static void test_blank_context_and_no_newline(void **state)
{
	static const char text[] =
		"diff --git a/x.c b/x.c\n"
		"--- a/x.c\n"
		"+++ b/x.c\n"
		"@@ -1,4 +1,4 @@\n"
		" a\n"
		"\n"		/* an editor stripped the context space */
		" c\n"
		"-d\n"
		"\\ No newline at end of file\n"
		"+D\n"
		"\\ No newline at end of file\n";
	struct diff_changeset *cs = from_text(text, "x.diff");

	(void)state;
	ASSERT_LINES(&cs->files[0], 4);
	ASSERT_REMOVED(&cs->files[0], 4);
	assert_int_equal(diff_file_base_line(&cs->files[0], 2), 2);
	diff_changeset_free(cs);
}

static void assert_malformed(const char *text, const char *message)
{
	struct diff_changeset *cs = NULL;

	assert_int_equal(diff_changeset_from_patch(&cs, text, strlen(text),
						   "change.diff"),
			 CRS_EINPUT);
	assert_null(cs);
	assert_string_equal(crs_error_last(), message);
}

/* git's quoted names in rename headers (octal bytes, escaped quotes) */
static void test_quoted_rename(void **state)
{
	static const char text[] =
		"diff --git \"a/caf\\303\\251.c\" \"b/new \\\"x\\\".c\"\n"
		"similarity index 100%\n"
		"rename from \"caf\\303\\251.c\"\n"
		"rename to \"new \\\"x\\\".c\"\n";
	struct diff_changeset *cs = from_text(text, "change.diff");

	(void)state;
	assert_int_equal(cs->nr, 1);
	assert_int_equal(cs->files[0].status, DIFF_RENAMED);
	assert_string_equal(cs->files[0].path, "new \"x\".c");
	assert_string_equal(cs->files[0].old_path, "caf\303\251.c");
	diff_changeset_free(cs);
}

static void test_malformed(void **state)
{
	(void)state;
	assert_malformed(
		"diff --git a/x.c b/x.c\n"
		"index 1111111..2222222 100644\n"
		"--- a/x.c\n"
		"+++ b/x.c\n"
		"@@ -3,4 +3,5 @@ int main(void)\n"
		" a\n"
		"-b\n"
		"-c\n"
		" d\n"
		"+X\n"
		"diff --git a/y.c b/y.c\n",
		"change.diff:5: hunk header '@@ -3,4 +3,5 @@' promises 5 new "
		"lines, found 3");
	assert_malformed(
		"--- a/x.c\n"
		"+++ b/x.c\n"
		"@@ -1,4 +1,5 @@\n"
		" a\n"
		"+b\n",
		"change.diff:3: hunk header '@@ -1,4 +1,5 @@' promises 4 old "
		"lines and 5 new lines, found 1 and 2");
	assert_malformed(
		"diff --git a/x.c b/x.c\n"
		"--- a/x.c\n"
		"+++ b/x.c\n"
		"@@ -1,2 +1,2 @@\n"
		" a\n"
		"-b\n"
		"-c\n"
		"+B\n",
		"change.diff:7: one line too many for hunk header "
		"'@@ -1,2 +1,2 @@' at line 4, which promises 2 old and 2 new "
		"lines");
	assert_malformed(
		"diff --git a/x.c b/x.c\n"
		"--- a/x.c\n"
		"+++ b/x.c\n"
		"@@ -1 +1 @@\n"
		"-a\n"
		"+b\n"
		"+c\n",
		"change.diff:7: one line too many for hunk header "
		"'@@ -1 +1 @@' at line 4, which promises 1 old and 1 new "
		"lines");
	assert_malformed(
		"diff --git a/x.c b/x.c\n"
		"--- a/x.c\n"
		"+++ b/x.c\n"
		"@@ -1,2 +1 @\n",
		"change.diff:4: malformed hunk header '@@ -1,2 +1 @': expected "
		"'@@ -START[,COUNT] +START[,COUNT] @@'");
	assert_malformed(
		"diff --git a/x.c b/x.c\n"
		"--- a/x.c\n"
		"@@ -1 +1 @@\n",
		"change.diff:2: '---' line is not followed by a '+++' line");
	assert_malformed(
		"diff --git a/x.c b/x.c\n"
		"--- a/x.c\n"
		"+++ b/x.c\n"
		"garbage\n",
		"change.diff:4: expected a hunk header after '+++ b/x.c' "
		"(line 3)");
	assert_malformed(
		"--- a/x.c\n"
		"+++ b/x.c\n"
		"@@ -10,2 +10,2 @@\n"
		" a\n"
		" b\n"
		"@@ -5,1 +5,1 @@\n"
		" c\n",
		"change.diff:6: hunk header '@@ -5,1 +5,1 @@' starts before "
		"the end of the previous hunk (old line 12, new line 12)");
	assert_malformed(
		"some text\n"
		"@@ -1 +1 @@\n",
		"change.diff:2: hunk header '@@ -1 +1 @@' outside a file diff "
		"(no '---' and '+++' lines before it)");
	assert_malformed(
		"diff --git a/x.c b/x.c\n"
		"--- a/x.c\n"
		"+++ b/x.c\n",
		"change.diff:3: expected a hunk header after '+++ b/x.c', "
		"found the end of the input");
	assert_malformed("just some text\n\n",
			 "change.diff: no file changes in the diff");
	/* a repeated rename header (found by tests/fuzz/fuzz_diff.c):
	 * libgit2 would keep the last name and leak the first */
	assert_malformed(
		"diff --git a/a.c b/b.c\n"
		"similarity index 90%\n"
		"rename from a.c\n"
		"rename to b.c\n"
		"rename from c.c\n",
		"change.diff:5: 'rename from c.c' repeats a header line of "
		"the same file");
	assert_malformed(
		"diff --git a/a.c b/b.c\n"
		"copy from a.c\n"
		"rename from a.c\n",
		"change.diff:3: 'rename from a.c' repeats a header line of "
		"the same file");
	/* a rename to a badly quoted name (found by fuzz_diff): libgit2
	 * fails to unquote it and leaks the name */
	assert_malformed(
		"diff --git a/a.c b/b.c\n"
		"similarity index 90%\n"
		"rename from a.c\n"
		"rename to \"b.c\n",
		"change.diff:4: 'rename to \"b.c': malformed quoted file name");
	assert_malformed(
		"diff --git a/a.c b/b.c\n"
		"copy from \"a\\9.c\"\n",
		"change.diff:2: 'copy from \"a\\9.c\"': malformed quoted "
		"file name");
	assert_malformed(
		"diff --git a/a.c b/b.c\n"
		"rename to \"b\\30\"\n",
		"change.diff:2: 'rename to \"b\\30\"': malformed quoted file "
		"name");
	/* libgit2 rejects what the line check lets through: the line it
	 * names is mapped back to the input (second mail of an mbox) */
	assert_malformed(
		"From 1111111111111111111111111111111111111111 Mon Sep 17 "
		"00:00:00 2001\n"				/* 1 */
		"From: t <t@example.com>\n"			/* 2 */
		"Subject: [PATCH 1/2] one\n"			/* 3 */
		"\n"						/* 4 */
		"---\n"						/* 5 */
		" x.c | 2 +-\n"					/* 6 */
		"\n"						/* 7 */
		"diff --git a/x.c b/x.c\n"			/* 8 */
		"--- a/x.c\n"					/* 9 */
		"+++ b/x.c\n"					/* 10 */
		"@@ -1 +1 @@\n"					/* 11 */
		"-a\n"						/* 12 */
		"+b\n"						/* 13 */
		"-- \n"						/* 14 */
		"2.39.5\n"					/* 15 */
		"\n"						/* 16 */
		"From 2222222222222222222222222222222222222222 Mon Sep 17 "
		"00:00:00 2001\n"				/* 17 */
		"Subject: [PATCH 2/2] two\n"			/* 18 */
		"\n"						/* 19 */
		"diff --git a/y.c b/y.c\n"			/* 20 */
		"index zzzzzzz..1234567 100644\n"		/* 21 */
		"--- a/y.c\n"					/* 22 */
		"+++ b/y.c\n"					/* 23 */
		"@@ -1 +1 @@\n"					/* 24 */
		"-c\n"						/* 25 */
		"+d\n",						/* 26 */
		"change.diff:21: invalid hex formatted object id");
}

/* --- pre-push ---------------------------------------------------------- */

#define Z40 "0000000000000000000000000000000000000000"
#define A40 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define B40 "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"
#define C64 "cccccccccccccccccccccccccccccccc" \
	    "cccccccccccccccccccccccccccccccc"
#define D64 "dddddddddddddddddddddddddddddddd" \
	    "dddddddddddddddddddddddddddddddd"

static void assert_prepush_error(const char *text, const char *message)
{
	struct diff_prepush *p = NULL;

	assert_int_equal(diff_prepush_parse(text, strlen(text), &p),
			 CRS_EINPUT);
	assert_null(p);
	assert_string_equal(crs_error_last(), message);
}

static void test_prepush_parse(void **state)
{
	static const char text[] =
		"refs/heads/topic " A40 " refs/heads/topic " B40 "\n"
		"refs/heads/new " A40 " refs/heads/new " Z40 "\r\n"
		"\n"
		"(delete) " Z40 " refs/heads/old " A40 "\n"
		"refs/heads/s256 " C64 " refs/heads/s256 " D64;
	struct diff_prepush *p = NULL;

	(void)state;
	assert_int_equal(diff_prepush_parse(text, strlen(text), &p), 0);
	assert_int_equal(p->nr, 4);
	assert_string_equal(p->v[0].local_ref, "refs/heads/topic");
	assert_string_equal(p->v[0].local_oid, A40);
	assert_string_equal(p->v[0].remote_oid,
			    "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
	assert_false(p->v[0].is_new);
	assert_false(p->v[0].is_delete);
	assert_true(p->v[1].is_new);
	assert_string_equal(p->v[1].remote_ref, "refs/heads/new");
	assert_true(p->v[2].is_delete);
	assert_string_equal(p->v[2].local_ref, "(delete)");
	assert_string_equal(p->v[3].local_oid, C64);
	diff_prepush_free(p);

	assert_int_equal(diff_prepush_parse("", 0, &p), 0);
	assert_int_equal(p->nr, 0);
	diff_prepush_free(p);

	assert_prepush_error(
		"refs/heads/a " A40 " refs/heads/a " A40 "\n"
		"refs/heads/b " A40 " refs/heads/b\n",
		"pre-push input:2: expected '<local ref> <local oid> <remote "
		"ref> <remote oid>' separated by single spaces, found 3 "
		"fields");
	assert_prepush_error(
		"refs/heads/a xyz refs/heads/a " A40 "\n",
		"pre-push input:1: local oid 'xyz' is not 40 or 64 hex digits");
	assert_prepush_error(
		"refs/heads/a " A40 " refs/heads/a " A40 "g\n",
		"pre-push input:1: remote oid '" A40 "g' is not 40 or 64 hex "
		"digits");
	assert_prepush_error(
		"refs/heads/a " A40 " refs/heads/a " C64 "\n",
		"pre-push input:1: local oid has 40 hex digits but remote "
		"oid 64");
	assert_prepush_error(
		"refs/heads/a  " A40 " refs/heads/a " A40 "\n",
		"pre-push input:1: expected '<local ref> <local oid> <remote "
		"ref> <remote oid>' separated by single spaces, found 5 "
		"fields");
}

static void test_prepush_changeset(void **state)
{
	struct repo *r = *state;
	struct diff_changeset *cs = NULL;
	struct diff_prepush *p = NULL;
	char *main_oid, *topic_oid, *line;

	put_s(r, "a.c", "a\nb\n");
	commit(r, "base");
	main_oid = out_of(r, "git rev-parse HEAD");
	sh(r, "git checkout -q -b topic && echo c >> a.c");
	commit(r, "topic");
	topic_oid = out_of(r, "git rev-parse HEAD");
	line = xasprintf("refs/heads/topic %s refs/heads/topic %s\n"
			 "refs/heads/topic %s refs/heads/fresh " Z40 "\n"
			 "(delete) " Z40 " refs/heads/gone %s\n",
			 topic_oid, main_oid, topic_oid, main_oid);
	assert_int_equal(diff_prepush_parse(line, strlen(line), &p), 0);
	assert_int_equal(p->nr, 3);

	/* the range crs-ci pre-push scans: remote oid .. local oid */
	assert_int_equal(diff_changeset_from_git(&cs, r->dir,
						 p->v[0].remote_oid,
						 p->v[0].local_oid), 0);
	assert_string_equal(cs->head_commit, topic_oid);
	assert_string_equal(cs->base_commit, main_oid);
	ASSERT_LINES(entry(cs, "a.c"), 3);
	diff_changeset_free(cs);
	assert_true(p->v[1].is_new && !p->v[1].is_delete);
	assert_true(p->v[2].is_delete && !p->v[2].is_new);
	diff_prepush_free(p);
	free(line);
	free(main_oid);
	free(topic_oid);
}

/* --- touched functions ------------------------------------------------- */

static const char c_base[] =
	"int one(void)\n"		/* 1 */
	"{\n"				/* 2 */
	"	return 1;\n"		/* 3 */
	"}\n"				/* 4 */
	"\n"				/* 5 */
	"int two(int x)\n"		/* 6 */
	"{\n"				/* 7 */
	"	return x + 2;\n"	/* 8 */
	"}\n"				/* 9 */
	"\n"				/* 10 */
	"int three(int x)\n"		/* 11 */
	"{\n"				/* 12 */
	"	x++;\n"			/* 13 */
	"	x--;\n"			/* 14 */
	"	return x;\n"		/* 15 */
	"}\n";				/* 16 */

static const char c_head[] =
	"int one(void)\n"		/* 1 */
	"{\n"				/* 2 */
	"	return 1;\n"		/* 3 */
	"}\n"				/* 4 */
	"\n"				/* 5 */
	"int two(int x)\n"		/* 6 */
	"{\n"				/* 7 */
	"	return x * 2;\n"	/* 8: changed */
	"}\n"				/* 9 */
	"\n"				/* 10 */
	"int three(int x)\n"		/* 11 */
	"{\n"				/* 12 */
	"	x++;\n"			/* 13: "x--;" removed after it */
	"	return x;\n"		/* 14 */
	"}\n"				/* 15 */
	"\n"				/* 16 */
	"static int four(void) { return 4; }\n";	/* 17: added */

static void assert_touched(const struct diff_touched *t)
{
	assert_int_equal(t->nr, 3);
	assert_string_equal(t->v[0].name, "two");
	assert_string_equal(t->v[0].path, "src/m.c");
	assert_int_equal(t->v[0].start, 6);
	assert_int_equal(t->v[0].end, 9);
	assert_int_equal(t->v[0].changed, 1);
	assert_string_equal(t->v[1].name, "three");
	assert_int_equal(t->v[1].changed, 0);	/* a removal inside */
	assert_string_equal(t->v[2].name, "four");
	assert_int_equal(t->v[2].changed, 1);
}

struct reader_ctx {
	struct repo *r;
	int calls;
};

static int read_worktree(struct buf *out, const char *path, void *payload)
{
	struct reader_ctx *ctx = payload;
	char *full = xasprintf("%s/%s", ctx->r->dir, path);
	int rc = fs_read_file(out, full, 1u << 20);

	ctx->calls++;
	free(full);
	return rc;
}

static void test_touched_functions(void **state)
{
	struct repo *r = *state;
	struct reader_ctx ctx = { r, 0 };
	struct diff_changeset *cs, *pcs;
	struct diff_touched *t = NULL;

	put_s(r, "src/m.c", c_base);
	put_s(r, "README", "text\n");
	put_s(r, "gone.c", "int g(void) { return 0; }\n");
	commit(r, "base");
	put_s(r, "src/m.c", c_head);
	put_s(r, "README", "more text\n");
	sh(r, "git rm -q gone.c");
	commit(r, "change");

	/* with a repository: blobs of the head commit */
	cs = from_git(r, "HEAD~1", "HEAD");
	assert_int_equal(diff_changeset_touched_functions(&t, cs, r->dir,
							  NULL, NULL), 0);
	assert_touched(t);
	diff_touched_free(t);

	/* from a diff file: the caller's reader (the work tree here) */
	sh(r, "git diff HEAD~1 HEAD > c.diff");
	pcs = from_file(r, "c.diff", "c.diff");
	assert_int_equal(diff_changeset_touched_functions(&t, pcs, r->dir,
							  read_worktree, &ctx),
			 0);
	assert_int_equal(ctx.calls, 1);	/* only the C file is read */
	assert_touched(t);
	diff_touched_free(t);

	/* a file the reader cannot find is skipped */
	sh(r, "rm src/m.c");
	assert_int_equal(diff_changeset_touched_functions(&t, pcs, NULL,
							  read_worktree, &ctx),
			 0);
	assert_int_equal(t->nr, 0);
	diff_touched_free(t);

	t = NULL;
	assert_int_equal(diff_changeset_touched_functions(&t, pcs, NULL, NULL,
							  NULL), CRS_EINPUT);
	assert_null(t);
	diff_changeset_free(cs);
	diff_changeset_free(pcs);
}

static int group_setup(void **state)
{
	(void)state;
	/* the tests' git commands ignore the user's configuration */
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_AUTHOR_NAME", "crs-ci test", 1);
	setenv("GIT_AUTHOR_EMAIL", "test@example.com", 1);
	setenv("GIT_COMMITTER_NAME", "crs-ci test", 1);
	setenv("GIT_COMMITTER_EMAIL", "test@example.com", 1);
	return git_libgit2_init() > 0 ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	git_libgit2_shutdown();
	return 0;
}

#define REPO_TEST(fn) cmocka_unit_test_setup_teardown(fn, setup_repo, \
						      teardown_repo)

int main(void)
{
	const struct CMUnitTest tests[] = {
		REPO_TEST(test_git_statuses),
		REPO_TEST(test_git_merge_base),
		REPO_TEST(test_line_map),
		REPO_TEST(test_format_patch_mbox),
		REPO_TEST(test_plain_diff),
		cmocka_unit_test(test_blank_context_and_no_newline),
		cmocka_unit_test(test_quoted_rename),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_prepush_parse),
		REPO_TEST(test_prepush_changeset),
		REPO_TEST(test_touched_functions),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
