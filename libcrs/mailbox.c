/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mailbox.c - the client side of crs-ci's builder sidecar
 *
 * A CRS container has no route to the orchestrator: sidecar requests
 * travel as files through its own mailbox folder (DESIGN.md decision 4).
 * The request folder appears whole (written under a hidden name, then
 * renamed); the orchestrator answers in responses/<id>/, also renamed
 * into place, whose "done" file says it is complete.
 */
#include "libcrs/internal.h"
#include "common/error.h"

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

static const char *const kind_names[] = {
	"apply-patch-build", "run-pov", "apply-patch-test",
};

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

static int write_request(int reqfd, const char *tmp, const char *id,
			 enum crs_sidecar_kind kind, const char *file,
			 const char *harness, const char *rebuild_id)
{
	char text[512];
	int dfd = -1, r;

	if (mkdirat(reqfd, tmp, 0755) != 0)
		return crs_error_set(CRS_ERR, "mailbox requests/%s: %s", tmp,
				     strerror(errno));
	dfd = openat(reqfd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		     O_CLOEXEC);
	if (dfd < 0)
		return crs_error_set(CRS_ERR, "mailbox requests/%s: %s", tmp,
				     strerror(errno));
	snprintf(text, sizeof(text), "kind=%s\nharness=%s\nrebuild_id=%s\n",
		 kind_names[kind], harness ? harness : "",
		 rebuild_id ? rebuild_id : "");
	r = lcrs_write_file_at(dfd, "request.txt", text, strlen(text), 0644,
			       "request.txt");
	if (r == 0)
		r = lcrs_copy_to(file, dfd, kind == CRS_SIDECAR_POV ? "pov" :
				 "patch", 0, "the mailbox request");
	close(dfd);
	if (r == 0 && renameat(reqfd, tmp, reqfd, id) != 0)
		r = crs_error_set(CRS_ERR, "mailbox requests/%s: %s", id,
				  strerror(errno));
	return r;
}

/* Read a small response file into buf (NUL-terminated); "" if absent. */
static void read_small(int dfd, const char *name, char *buf, size_t size)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = -1;

	buf[0] = '\0';
	if (fd < 0)
		return;
	n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
}

static int copy_response(int rdfd, const char *resp_dir, int *retcode)
{
	static const char *const files[] = { "stdout.log", "stderr.log" };
	char code[32], *end;
	int dfd = -1, r;
	long v;

	read_small(rdfd, "retcode", code, sizeof(code));
	v = strtol(code, &end, 10);
	*retcode = (end == code || v < 0 || v > 255) ? 1 : (int)v;
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

int crs_sidecar_call(const char *mailbox, enum crs_sidecar_kind kind,
		     const char *file, const char *harness,
		     const char *rebuild_id, double timeout_s,
		     const char *resp_dir, int *retcode)
{
	static unsigned counter;
	char id[96], tmp[100], done[128];
	struct timespec now, tick = { 0, MAILBOX_POLL_NS };
	double waited = 0;
	int mfd = -1, reqfd = -1, resfd = -1, rdfd = -1, r;

	*retcode = 1;
	if ((r = value_ok(harness, "harness")) != 0 ||
	    (r = value_ok(rebuild_id, "rebuild id")) != 0)
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
	if ((r = write_request(reqfd, tmp, id, kind, file, harness,
			       rebuild_id)) != 0)
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
