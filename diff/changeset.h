/* SPDX-License-Identifier: Apache-2.0 */
/*
 * changeset.h - what a change touched, by file, line and function
 *
 * A ChangeSet comes from two commits of a git repository (three-dot: the
 * merge-base of base and head against head), from a unified diff (git
 * diff, git format-patch mbox, plain diff -u) or from pre-push refs (see
 * prepush.h). For each file it records the status, the head-side lines
 * the change added or modified, the base-side lines it removed and a map
 * from unchanged head lines to base lines. Knows nothing of Docker/SARIF.
 */
#ifndef CRS_DIFF_CHANGESET_H
#define CRS_DIFF_CHANGESET_H

#include <stddef.h>

#include "diff/diff_file.h"
#include "diff/line_map.h"

struct buf;
struct diff_literals;

struct diff_changeset {
	char *base_commit;	/* merge-base, or NULL for --diff input */
	char *head_commit;	/* or NULL for --diff input */
	struct diff_file *files;
	size_t nr, alloc;
	char *patch;		/* git-style unified diff (NUL-terminated) */
	size_t patch_len;
};

/*
 * Compare merge-base(base, head)..head in the repository at `repo_path`
 * (head NULL: HEAD), with rename detection. CRS_EINPUT when the
 * repository does not open or a revision does not resolve (the message
 * names it), CRS_ERR when libgit2 fails otherwise. The caller owns *out.
 */
int diff_changeset_from_git(struct diff_changeset **out,
			    const char *repo_path, const char *base,
			    const char *head);

/*
 * Parse a unified diff from memory: git diff output, git format-patch
 * output (one mail or an mbox of several: they are combined, later
 * patches applying on top of earlier ones) or plain `diff -u` / `diff
 * -ruN` output. `name` names the input in messages. CRS_EINPUT when the
 * diff is malformed; the message is "NAME:LINE: what is wrong" with the
 * 1-based input line, e.g. "change.diff:14: hunk header '@@ -3,4 +3,5
 * @@' promises 5 new lines, found 3". The caller owns *out; its `patch`
 * is the git-style text (mail parts dropped, plain-diff headers turned
 * into `diff --git` ones), patches of an mbox concatenated in order.
 */
int diff_changeset_from_patch(struct diff_changeset **out, const char *buf,
			      size_t len, const char *name);

/* Frees everything; NULL is fine. */
void diff_changeset_free(struct diff_changeset *cs);

/* 1 when head line `line` of `path` was added or modified by the change. */
int diff_changeset_touches(const struct diff_changeset *cs,
			   const char *path, int line);
/*
 * 1 when head lines start..end (start <= end) of `path` lie in one hunk
 * of the change (context lines count): where a review comment or a
 * suggestion may stand.
 */
int diff_changeset_in_hunk(const struct diff_changeset *cs, const char *path,
			   int start, int end);
/* The entry for head path `path` (deleted files excluded), borrowed. */
const struct diff_file *diff_changeset_file(const struct diff_changeset *cs,
					    const char *path);

/* "added", "modified", ...: a constant string. Cannot fail. */
const char *diff_status_name(enum diff_status s);

/*
 * Reads the head-side content of repo-relative `path` into `out` (which
 * is empty on entry). Returns 0, CRS_ENOTFOUND when the file does not
 * exist (the file is then skipped), or another CRS_E* code (propagated).
 * The path comes from the diff as written: the reader must confine it
 * (it may hold "..", or be absolute in a hand-made diff).
 */
typedef int (*diff_read_fn)(struct buf *out, const char *path,
			    void *payload);

struct diff_touched_fn {
	char *path;		/* head path */
	char *name;		/* "parse", "ns::Class::method", "Cls.method" */
	int start, end;		/* head lines of the definition */
	int changed;		/* head lines changed inside it (0: only
				   removals inside it) */
};

struct diff_touched {
	struct diff_touched_fn *v;	/* by file, then by start line */
	size_t nr, alloc;
	/* the literals of the whole touched functions' bodies, and of the
	   functions of the same file they call (diff/touched_literals.c):
	   direction from the function, not only from the changed lines */
	struct diff_literals *body, *callees;
};

/*
 * Which functions the change touched: for each C, C++ or Java file (by
 * extension; see func_spans.h) the functions that contain a changed head
 * line or a removal between two of their lines. Head files are read from
 * the head commit's blobs when `repo_path` is given and the ChangeSet has
 * a head commit; otherwise through `read` (which may be NULL only in the
 * first case). Deleted, binary and oversized files are skipped. Returns
 * 0, CRS_EINPUT when there is no way to read head files, CRS_ERR on a
 * libgit2 failure or the reader's code. The caller owns *out.
 */
int diff_changeset_touched_functions(struct diff_touched **out,
				     const struct diff_changeset *cs,
				     const char *repo_path,
				     diff_read_fn read, void *payload);
void diff_touched_free(struct diff_touched *t);

#endif
