/* SPDX-License-Identifier: Apache-2.0 */
/*
 * submissions.c - walking the CRSs' submit folders after a run
 *
 * Triage (povs/) and validation (patches/) read what containers wrote;
 * this is the one place that walks those folders, so the rules cannot
 * drift apart: directory descriptors all the way down (O_NOFOLLOW), the
 * type of the opened file checked before it is read, caps on count and
 * size, and untrusted names quoted before they reach a log line.
 */
#include "runner/scan/submissions.h"
#include "runner/scan/scan.h"
#include "runner/config/config.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "common/testable.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A name for log lines: control characters escaped; caller frees. */
static char *quoted(const char *name)
{
	size_t n = strlen(name), sz = n * 4 + 1;

	return log_quote(xmalloc(sz), sz, name, n);
}

static int has_control(const char *name)
{
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return 1;
	return 0;
}

/* Open `name` in dfd as a regular file; 0 and *fd_out, or a CRS_E*. */
static int open_regular(int *fd_out, struct stat *st, int dfd,
			const char *name)
{
	*fd_out = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
			 O_NOCTTY | O_CLOEXEC);
	if (*fd_out < 0)
		return crs_error_set(CRS_EINPUT, "%s", errno == ELOOP ?
				     "a link" : strerror(errno));
	if (fstat(*fd_out, st) != 0 || !S_ISREG(st->st_mode)) {
		close(*fd_out);
		*fd_out = -1;
		return crs_error_set(CRS_EINPUT, "not a regular file");
	}
	return 0;
}

CRS_TESTABLE void submissions_walk_dir(const char *root, const char *typedir, off_t max,
			  const char *what, size_t crs_index,
			  const char *harness, submission_fn fn, void *ctx)
{
	char *label = xasprintf("%s/%s", root, typedir), *q = NULL;
	size_t files = 0, entries = 0, bytes = 0;
	int rfd = -1, dfd = -1;
	struct dirent *de;
	DIR *d = NULL;

	if (fs_open_dir(&rfd, root) != 0) {
		crs_error_clear();	/* no such run or harness */
		goto out;
	}
	dfd = openat(rfd, typedir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		     O_CLOEXEC);
	if (dfd < 0) {
		if (errno != ENOENT)
			log_warn("%s: not a folder (a link or a file); its "
				 "%ss are ignored", label, what);
		goto out;
	}
	if (!(d = fdopendir(dfd))) {
		close(dfd);
		goto out;
	}
	while ((de = readdir(d))) {
		struct buf b = BUF_INIT;
		struct stat st;
		char *where;
		int fd = -1;

		if (de->d_name[0] == '.')
			continue;
		if (++entries > SUBMISSIONS_ENTRIES_MAX) {
			log_warn("%s: more than %d entries; the rest are "
				 "ignored", label, SUBMISSIONS_ENTRIES_MAX);
			break;
		}
		free(q);
		q = quoted(de->d_name);
		if (has_control(de->d_name)) {
			log_warn("%s %s in %s: control characters in its "
				 "name; ignored", what, q, label);
			continue;
		}
		if (open_regular(&fd, &st, dirfd(d), de->d_name) != 0) {
			crs_error_clear();
			continue;	/* links, FIFOs, devices, folders */
		}
		if (st.st_size > max) {
			log_warn("%s %s in %s is larger than %lld bytes; "
				 "ignored", what, q, label, (long long)max);
			close(fd);
			continue;
		}
		if (files >= SUBMISSIONS_FILES_MAX ||
		    bytes + (size_t)st.st_size > SUBMISSIONS_BYTES_MAX) {
			log_warn("%s: more than %d %ss or %u bytes; the rest "
				 "are ignored", label, SUBMISSIONS_FILES_MAX,
				 what, SUBMISSIONS_BYTES_MAX);
			close(fd);
			break;
		}
		where = xasprintf("%s/%s", label, q);
		if (fs_read_fd(&b, fd, (size_t)max, where) == 0) {
			struct submission sub = {
				.name = de->d_name, .what = where,
				.data = b.ptr, .len = b.len, .st = &st,
				.crs_index = crs_index, .harness = harness,
			};

			files++;
			bytes += b.len;
			fn(&sub, ctx);
		} else {
			log_warn("%s: %s", where, crs_error_last());
			crs_error_clear();
		}
		close(fd);
		free(where);
		buf_release(&b);
	}
out:
	if (d)
		closedir(d);
	if (rfd >= 0)
		close(rfd);
	free(q);
	free(label);
}

void submissions_walk(struct scan *s, const char *typedir, off_t max,
		      const char *what, submission_fn fn, void *ctx)
{
	for (size_t i = 0; i < s->compose->crs_nr; i++) {
		const char *crs = s->compose->crs[i].name;

		for (size_t k = 0; k < s->state.harnesses_nr; k++) {
			const char *h = s->state.harnesses[k];
			char *root = scan_work_path(s, "runs/%s/crs/%s/"
						    "SUBMIT_DIR/%s",
						    s->state.run_id, crs, h);

			submissions_walk_dir(root, typedir, max, what, i, h,
					     fn, ctx);
			free(root);
		}
	}
}
