/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mailbox.c - the client side of crs-ci's builder sidecar
 *
 * Requests travel as folders renamed into the CRS's own mailbox
 * (docs/decisions.md, decision 4); the answer appears in responses/<id>/.
 *
 * Details: docs/sidecar.md; design notes: docs/internals.md.
 */
#include "libcrs/internal.h"
#include "common/error.h"
#include "common/mailbox_proto.h"
#include "common/safe_io.h"
#include "common/num.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAILBOX_POLL_NS 200000000L
#define MAILBOX_TIMEOUT_MSG "Builder unavailable or timed out"

_Static_assert((int)CRS_SIDECAR_BUILD == MAILBOX_BUILD &&
	       (int)CRS_SIDECAR_POV == MAILBOX_POV &&
	       (int)CRS_SIDECAR_TEST == MAILBOX_TEST &&
	       (int)CRS_SIDECAR_PROJECT == MAILBOX_PROJECT,
	       "crs_sidecar_kind follows the mailbox's kinds");

/* build-project's folders in a request, as src[] of write_request. */
static const char *const tree_names[] = { "fuzz-proj", "target-source" };

/* A harness or rebuild id the request file can carry on one line. */
static int value_ok(const char *v, const char *what)
{
	if (!v)
		return 0;
	if (strlen(v) > 128 || strpbrk(v, "\n\r="))
		return crs_error_set(CRS_EINPUT, "%s '%.32s': not a plain "
				     "name", what, v);
	return 0;
}

/*
 * requests/<tmp>/ renamed to <id>, holding request.txt and src[0] (the
 * file) or, for build-project, the folders src[0] and src[1] (each may be
 * NULL) as tree_names[]. A request that cannot be written is removed.
 */
static int write_request(int reqfd, const char *tmp, const char *id,
			 enum crs_sidecar_kind kind, const char *const src[2],
			 const char *harness, const char *rebuild_id,
			 const char *builder_name)
{
	struct lcrs_tree_count count = { 0 };
	char text[512];
	int dfd = -1, r;

	dfd = safe_mkdirat_open(reqfd, tmp);
	if (dfd < 0)
		return crs_error_set(CRS_ERR, "mailbox requests/%s: %s", tmp,
				     strerror(errno));
	snprintf(text, sizeof(text), "kind=%s\nharness=%s\nrebuild_id=%s\n"
		 "builder_name=%s\n", mailbox_kind_name(kind),
		 harness ? harness : "",
		 rebuild_id ? rebuild_id : "",
		 builder_name ? builder_name : "");
	r = lcrs_write_file_at(dfd, "request.txt", text, strlen(text), 0644,
			       "request.txt");
	if (r == 0 && kind != CRS_SIDECAR_PROJECT)
		r = lcrs_copy_to(src[0], dfd, kind == CRS_SIDECAR_POV ? "pov" :
				 "patch", 0, "the mailbox request");
	for (size_t i = 0; i < 2 && r == 0 && kind == CRS_SIDECAR_PROJECT; i++)
		if (src[i])
			r = lcrs_copy_tree(src[i], dfd, tree_names[i],
					   tree_names[i], &count);
	close(dfd);
	if (r == 0 && renameat(reqfd, tmp, reqfd, id) != 0)
		r = crs_error_set(CRS_ERR, "mailbox requests/%s: %s", id,
				  strerror(errno));
	if (r != 0) {
		char why[1024];

		snprintf(why, sizeof(why), "%s", crs_error_last());
		if (lcrs_remove_at(reqfd, tmp) != 0)
			crs_error_set(r, "%s", why);	/* the first reason */
	}
	return r;
}

/* Read a small response file into buf (NUL-terminated); "" if absent. */
static void read_small(int dfd, const char *name, char *buf, size_t size)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	size_t n = 0;

	buf[0] = '\0';
	if (fd < 0)
		return;
	if (safe_read_full(fd, buf, size - 1, &n, name) != 0) {
		n = 0;		/* unreadable reads as absent */
		crs_error_clear();
	}
	close(fd);
	buf[n] = '\0';
}

static int copy_response(int rdfd, const char *resp_dir, int *retcode)
{
	static const char *const files[] = { "stdout.log", "stderr.log" };
	char code[32];
	int dfd = -1, r;
	long v;

	read_small(rdfd, "retcode", code, sizeof(code));
	*retcode = num_parse_long_n(code, num_trim_newline(code, strlen(code)),
				    0, 255, &v) == 0 ? (int)v : 1;
	if ((r = crs_response_write(resp_dir, *retcode, NULL, NULL)) != 0)
		return r;
	if ((r = lcrs_open_dir(resp_dir, 1, &dfd)) != 0)
		return r;
	for (size_t i = 0; i < 2 && r == 0; i++)
		if (faccessat(rdfd, files[i], F_OK, AT_SYMLINK_NOFOLLOW) == 0)
			r = lcrs_copy_reg_at(rdfd, files[i], dfd, files[i],
					     files[i]);
	if (r == 0 && *retcode == 0 &&
	    faccessat(rdfd, "rebuild_id", F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		r = lcrs_copy_reg_at(rdfd, "rebuild_id", dfd, "rebuild_id",
				     "rebuild_id");
	close(dfd);
	return r;
}

static int sidecar_ask(const char *mailbox, enum crs_sidecar_kind kind,
		       const char *const src[2], const char *harness,
		       const char *rebuild_id, const char *builder_name,
		       double timeout_s, const char *resp_dir, int *retcode)
{
	static unsigned counter;
	char id[96], tmp[100], done[128];
	struct timespec now, tick = { 0, MAILBOX_POLL_NS };
	double waited = 0;
	int mfd = -1, reqfd = -1, resfd = -1, rdfd = -1, r;

	*retcode = 1;
	if ((r = value_ok(harness, "harness")) != 0 ||
	    (r = value_ok(rebuild_id, "rebuild id")) != 0 ||
	    (r = value_ok(builder_name, "builder name")) != 0)
		return r;
	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(id, sizeof(id), "%ld-%ld-%ld-%u", (long)getpid(),
		 (long)now.tv_sec, now.tv_nsec, counter++);
	snprintf(tmp, sizeof(tmp), ".%s", id);
	snprintf(done, sizeof(done), "%s/done", id);
	if ((r = lcrs_open_dir(mailbox, 0, &mfd)) != 0)
		goto out;
	reqfd = openat(mfd, "requests", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		       O_CLOEXEC);
	resfd = openat(mfd, "responses", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		       O_CLOEXEC);
	if (reqfd < 0 || resfd < 0) {
		r = crs_error_set(CRS_ERR, "mailbox '%s': no requests/ or "
				  "responses/ folder", mailbox);
		goto out;
	}
	if ((r = write_request(reqfd, tmp, id, kind, src, harness,
			       rebuild_id, builder_name)) != 0)
		goto out;
	while (faccessat(resfd, done, F_OK, AT_SYMLINK_NOFOLLOW) != 0) {
		if (waited >= timeout_s) {
			r = crs_response_write(resp_dir, 1, NULL,
					       MAILBOX_TIMEOUT_MSG);
			goto out;
		}
		nanosleep(&tick, NULL);
		waited += MAILBOX_POLL_NS / 1e9;
	}
	rdfd = openat(resfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		      O_CLOEXEC);
	if (rdfd < 0) {
		r = crs_error_set(CRS_ERR, "mailbox responses/%s: %s", id,
				  strerror(errno));
		goto out;
	}
	r = copy_response(rdfd, resp_dir, retcode);
	if (kind == CRS_SIDECAR_PROJECT) {	/* answered: the copies go */
		int dfd = openat(reqfd, id, O_RDONLY | O_DIRECTORY |
				 O_NOFOLLOW | O_CLOEXEC);

		for (size_t i = 0; i < 2 && dfd >= 0; i++)
			if (lcrs_remove_at(dfd, tree_names[i]) != 0)
				crs_error_clear();
		if (dfd >= 0)
			close(dfd);
	}
out:
	if (rdfd >= 0)
		close(rdfd);
	if (resfd >= 0)
		close(resfd);
	if (reqfd >= 0)
		close(reqfd);
	if (mfd >= 0)
		close(mfd);
	return r;
}

int crs_sidecar_call(const char *mailbox, enum crs_sidecar_kind kind,
		     const char *file, const char *harness,
		     const char *rebuild_id, const char *builder_name,
		     double timeout_s, const char *resp_dir, int *retcode)
{
	const char *const src[2] = { file, NULL };

	*retcode = 1;
	if (kind == CRS_SIDECAR_PROJECT)
		return crs_error_set(CRS_EINPUT, "build-project takes folders: "
				     "crs_build_project()");
	return sidecar_ask(mailbox, kind, src, harness, rebuild_id,
			   builder_name, timeout_s, resp_dir, retcode);
}

int crs_build_project(const char *mailbox, const char *fuzz_proj_dir,
		      const char *target_source_dir, const char *rebuild_id,
		      const char *builder_name, double timeout_s,
		      const char *resp_dir, int *retcode)
{
	const char *const src[2] = { fuzz_proj_dir, target_source_dir };

	*retcode = 1;
	if (!fuzz_proj_dir && !target_source_dir)
		return crs_error_set(CRS_EINPUT, "build-project needs a fuzz "
				     "project or a target source folder");
	return sidecar_ask(mailbox, CRS_SIDECAR_PROJECT, src, NULL,
			   rebuild_id, builder_name, timeout_s, resp_dir,
			   retcode);
}
