/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sidecar_wire.c - the mailbox's wire format: a request folder read with caps,
 * nothing followed; a response folder written whole, then renamed into place
 *
 * The folders are the CRS's (hostile): docs/sidecar.md.
 */
#include "runner/sidecar/sidecar_wire.h"
#include "runner/sidecar/sidecar_read.h"
#include "runner/sidecar/sidecar_tree.h"
#include "runner/exec/container.h"
#include "runner/exec/crs_env.h"
#include "runner/sidecar/patch_tree.h"
#include "runner/exec/reproduce.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/exec/snapshot.h"
#include "runner/exec/target_build.h"
#include "runner/scan/ctx.h"
#include "runner/config/config.h"
#include "runner/engine/docker.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/safe_io.h"
#include "common/log.h"
#include "common/mailbox_proto.h"
#include "common/strset.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "common/testable.h"
#include "common/num.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int sidecar_name_ok(const char *name, size_t max)
{
	size_t n = strlen(name);

	if (n == 0 || n > max || name[0] == '.')
		return 0;
	return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwx"
		      "yz0123456789._-") == n;
}

/* A file of request `id` of at most max bytes. */
static int read_capped(int dirfd, const char *id, const char *name,
		       size_t max, struct buf *b)
{
	char shown[SIDECAR_ID_MAX + 64];

	snprintf(shown, sizeof(shown), "request %s: %s", id, name);
	return sidecar_read_capped(dirfd, name, shown, max, b, NULL);
}

/* One "key=value" line of request.txt into rq. */
static int parse_line(struct sidecar_request *rq, const char *id,
		      const char *line, int *have_kind)
{
	const char *eq = strchr(line, '=');
	const char *v = eq ? eq + 1 : NULL;
	size_t klen = eq ? (size_t)(eq - line) : 0;

	if (!eq)
		return crs_error_set(CRS_EINPUT, "request %s: request.txt: "
				     "'%.40s' is not key=value", id, line);
	if (klen == 4 && !strncmp(line, "kind", 4)) {
		int k = mailbox_kind_parse(v);

		if (k >= 0) {
			rq->kind = (enum sidecar_kind)k;
			*have_kind = 1;
			return 0;
		}
		return crs_error_set(CRS_EINPUT, "request %s: request.txt: "
				     "unknown kind '%.40s'", id, v);
	}
	if (klen == 7 && !strncmp(line, "harness", 7)) {
		if (*v && !sidecar_name_ok(v, SIDECAR_HARNESS_MAX))
			return crs_error_set(CRS_EINPUT, "request %s: harness "
					     "'%.40s' is not a plain name", id,
					     v);
		strcpy(rq->harness, v);
		return 0;
	}
	if (klen == 12 && !strncmp(line, "builder_name", 12)) {
		if (*v && !sidecar_name_ok(v, SIDECAR_HARNESS_MAX))
			return crs_error_set(CRS_EINPUT, "request %s: builder "
					     "name '%.40s' is not a plain name",
					     id, v);
		strcpy(rq->builder, v);
		return 0;
	}
	if (klen == 10 && !strncmp(line, "rebuild_id", 10)) {
		if (!*v)
			return 0;
		if (num_parse_long(v, 1, 999999, &rq->rebuild_id) != 0)
			return crs_error_set(CRS_EINPUT, "request %s: rebuild "
					     "id '%.40s' is not 1..999999", id,
					     v);
		return 0;
	}
	return crs_error_set(CRS_EINPUT, "request %s: request.txt: unknown "
			     "key '%.*s'", id, (int)(klen > 40 ? 40 : klen),
			     line);
}

void sidecar_request_release(struct sidecar_request *rq)
{
	buf_release(&rq->payload);
	buf_release(&rq->fuzz_patch);
}

/* build-project's trees: at least one, each a folder (not a symlink). */
static int request_trees(int dfd, const char *id)
{
	static const char *const trees[] = { "target-source", "fuzz-proj" };
	struct stat st;
	int have = 0;

	for (size_t i = 0; i < 2; i++) {
		if (fstatat(dfd, trees[i], &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (!S_ISDIR(st.st_mode))
			return crs_error_set(CRS_EINPUT, "request %s: %s: not "
					     "a folder", id, trees[i]);
		have = 1;
	}
	if (!have)
		return crs_error_set(CRS_EINPUT, "request %s: build-project "
				     "without target-source/ or fuzz-proj/",
				     id);
	return 0;
}

CRS_TESTABLE int sidecar_request_parse(struct sidecar_request *rq, const char *id,
			  const char *text, size_t len)
{
	struct buf copy = BUF_INIT;
	int have_kind = 0, r = 0;
	char *line, *save = NULL;

	memset(rq, 0, sizeof(*rq));
	buf_init(&rq->payload);
	buf_init(&rq->fuzz_patch);
	rq->rebuild_id = -1;
	if (memchr(text, '\0', len))
		return crs_error_set(CRS_EINPUT, "request %s: request.txt: "
				     "binary", id);
	buf_add(&copy, text, len);
	for (line = strtok_r(copy.ptr, "\n", &save); line && r == 0;
	     line = strtok_r(NULL, "\n", &save))
		r = parse_line(rq, id, line, &have_kind);
	if (r == 0 && !have_kind)
		r = crs_error_set(CRS_EINPUT, "request %s: request.txt: no "
				  "kind", id);
	if (r == 0 && rq->kind == SIDECAR_POV && !rq->harness[0])
		r = crs_error_set(CRS_EINPUT, "request %s: run-pov without a "
				  "harness", id);
	buf_release(&copy);
	return r;
}

int sidecar_request_read(int reqfd, const char *id,
			 struct sidecar_request *rq)
{
	struct buf text = BUF_INIT;
	int dfd = -1, r;

	memset(rq, 0, sizeof(*rq));
	buf_init(&rq->payload);
	buf_init(&rq->fuzz_patch);
	rq->rebuild_id = -1;
	if (!sidecar_name_ok(id, SIDECAR_ID_MAX))
		return crs_error_set(CRS_EINPUT, "request '%.40s': not a "
				     "request name", id);
	dfd = openat(reqfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		     O_CLOEXEC);
	if (dfd < 0) {
		r = crs_error_set(CRS_EINPUT, "request %s: not a folder: %s",
				  id, strerror(errno));
		goto out;
	}
	if ((r = read_capped(dfd, id, "request.txt", SIDECAR_REQUEST_MAX,
			     &text)) != 0)
		goto out;
	if ((r = sidecar_request_parse(rq, id, text.ptr, text.len)) != 0)
		goto out;
	if (rq->kind == SIDECAR_PROJECT) {
		r = request_trees(dfd, id);
		goto out;
	}
	r = read_capped(dfd, id, rq->kind == SIDECAR_POV ? "pov" : "patch",
			rq->kind == SIDECAR_POV ? SIDECAR_POV_MAX :
			SIDECAR_PATCH_MAX, &rq->payload);
	if (r == 0 && rq->kind != SIDECAR_POV && rq->payload.len == 0)
		r = crs_error_set(CRS_EINPUT, "request %s: empty patch", id);
out:
	if (dfd >= 0)
		close(dfd);
	buf_release(&text);
	return r;
}

static int write_at(int dfd, const char *name, const char *data)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			O_CLOEXEC, 0644);
	size_t len = strlen(data), off = 0;
	int r = 0;

	if (fd < 0)
		return crs_error_set(CRS_ERR, "%s: %s", name, strerror(errno));
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = crs_error_set(CRS_ERR, "%s: %s", name,
					  strerror(errno));
			break;
		}
		off += (size_t)n;
	}
	if (close(fd) != 0 && r == 0)
		r = crs_error_set(CRS_ERR, "%s: %s", name, strerror(errno));
	return r;
}

int sidecar_response_write(int resfd, const char *id,
			   const struct sidecar_response *rs)
{
	char tmp[SIDECAR_ID_MAX + 48], num[32];
	unsigned char rnd[12];
	int dfd = -1, r;

	if (!sidecar_name_ok(id, SIDECAR_ID_MAX))
		return crs_error_set(CRS_EINPUT, "response '%.40s': not a "
				     "request name", id);
	/* a name the CRS cannot guess, so it cannot plant anything there */
	if (RAND_bytes(rnd, sizeof(rnd)) != 1)
		return crs_error_set(CRS_ERR, "response '%s': no random "
				     "bytes", id);
	snprintf(tmp, sizeof(tmp), ".answer-%s-", id);
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(tmp + strlen(tmp), 3, "%02x", rnd[i]);
	dfd = safe_mkdirat_open(resfd, tmp);
	if (dfd < 0)
		return crs_error_set(CRS_ERR, "responses/%s: %s", tmp,
				     strerror(errno));
	snprintf(num, sizeof(num), "%d", rs->retcode);
	r = write_at(dfd, "retcode", num);
	if (r == 0 && rs->out)
		r = write_at(dfd, "stdout.log", rs->out);
	if (r == 0 && rs->err)
		r = write_at(dfd, "stderr.log", rs->err);
	if (r == 0 && rs->retcode == 0 && rs->rebuild_id >= 1) {
		snprintf(num, sizeof(num), "%ld", rs->rebuild_id);
		r = write_at(dfd, "rebuild_id", num);
	}
	if (r == 0)
		r = write_at(dfd, "done", "");
	close(dfd);
	if (r == 0 && renameat2(resfd, tmp, resfd, id, RENAME_NOREPLACE) != 0)
		r = crs_error_set(CRS_ERR, "responses/%s: %s", id,
				  strerror(errno));
	if (r != 0)
		crs_error_prefix("mailbox response");
	return r;
}
