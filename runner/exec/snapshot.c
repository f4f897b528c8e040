/* SPDX-License-Identifier: Apache-2.0 */
/*
 * snapshot.c - builds kept as images, and patched rebuilds from them
 *
 * The patch is applied inside the container by a small handler, the way
 * OSS-CRS's builder sidecar does (reference/oss-crs-contract.md §5.1):
 * in the image's WORKDIR, plain `git apply` first, then `git apply -C1`,
 * then `patch -p1 --fuzz=3`; each is checked dry before it writes, and
 * the handler says which one worked. The build command then runs on the
 * snapshot's file system, where the head's objects already are.
 */
#include "runner/exec/snapshot.h"
#include "runner/exec/container.h"
#include "runner/exec/container_policy.h"
#include "runner/scan/scan.h"
#include "runner/exec/target_build.h"
#include "runner/engine/docker.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define SNAPSHOT_APPLY_FAILED_EXIT 201
#define SNAPSHOT_APPLIED_MARK "crs-ci: applied with: "
#define SNAPSHOT_NOT_APPLIED_MARK "crs-ci: the patch does not apply"

static const char *const apply_names[] = {
	"", "git apply", "git apply -C1", "patch -p1 --fuzz=3",
};

/*
 * $1: 1 for strict; the rest: the command. A repository above the
 * WORKDIR is not looked for (GIT_CEILING_DIRECTORIES): inside one, git
 * apply would take paths from its top and skip the others silently.
 */
static const char handler_script[] =
	"p=/crs-ci/patch.diff; strict=$1; shift\n"
	"export GIT_CEILING_DIRECTORIES=\"$(dirname \"$PWD\")\"\n"
	"g=git; [ -x /usr/bin/git.real ] && g=/usr/bin/git.real\n"
	"gapply() { command -v \"$g\" >/dev/null &&\n"
	"  \"$g\" -c safe.directory='*' apply --whitespace=nowarn \"$@\" "
	"--check \"$p\" >>/tmp/crs-ci-apply.log 2>&1 &&\n"
	"  \"$g\" -c safe.directory='*' apply --whitespace=nowarn \"$@\" "
	"\"$p\" >>/tmp/crs-ci-apply.log 2>&1; }\n"
	"fuzz() { command -v patch >/dev/null &&\n"
	"  patch -p1 --fuzz=3 --batch --dry-run -s <\"$p\" "
	">>/tmp/crs-ci-apply.log 2>&1 &&\n"
	"  patch -p1 --fuzz=3 --batch -s --no-backup-if-mismatch -r - "
	"<\"$p\" >>/tmp/crs-ci-apply.log 2>&1; }\n"
	"how=\n"
	"if [ -s \"$p\" ]; then\n"
	"  if gapply; then how='git apply'\n"
	"  elif [ \"$strict\" != 1 ] && gapply -C1; then how='git apply -C1'\n"
	"  elif [ \"$strict\" != 1 ] && fuzz; then how='patch -p1 --fuzz=3'\n"
	"  fi\n"
	"  if [ -z \"$how\" ]; then\n"
	"    echo '" SNAPSHOT_NOT_APPLIED_MARK " in '\"$PWD\"':'\n"
	"    cat /tmp/crs-ci-apply.log; exit 201\n"
	"  fi\n"
	"  echo \"" SNAPSHOT_APPLIED_MARK "$how\"\n"
	"fi\n"
	"exec \"$@\"\n";

const char *snapshot_apply_name(enum snapshot_apply a)
{
	return apply_names[a];
}

int snapshot_head_ref(struct scan *s, const char *sanitizer, char **ref_out)
{
	char *id = NULL;
	int r;

	*ref_out = NULL;
	if ((r = docker_image_exists(s->docker, s->state.head_image,
				     &id)) != 0)
		return r;
	*ref_out = xasprintf("crs-ci-snapshot/%s:%s-%.12s", s->state.project,
			     sanitizer, docker_id_hex(id));
	free(id);
	return 0;
}

void snapshot_head_record(struct scan *s, const char *sanitizer,
			  const char *ref)
{
	char *key = xasprintf("snapshot/head/%s", sanitizer);

	scan_set_image(s, key, ref);
	free(key);
}

/* Where scan.json keeps the snapshot of a CRS build step. */
static char *step_key(const char *crs, const char *step)
{
	return xasprintf("%s/snapshot/%s", crs, step);
}

void snapshot_step_record(struct scan *s, const char *crs, const char *step,
			  const char *ref)
{
	char *key = step_key(crs, step);

	scan_set_image(s, key, ref);
	free(key);
}

const char *snapshot_step_find(const struct scan *s, const char *crs,
			       const char *step)
{
	char *key = step_key(crs, step);
	const char *ref = scan_image(s, key);

	free(key);
	return ref;
}

char *snapshot_step_ref(const char *crs, const char *step,
			const char *sanitizer, const char *image_id,
			const char *inputs_hash)
{
	return xasprintf("crs-ci-snapshot/%s-%s:%s-%.12s-%.12s", crs, step,
			 sanitizer, docker_id_hex(image_id), inputs_hash);
}

int snapshot_head_ensure(struct scan *s, const char *sanitizer,
			 char **ref_out)
{
	char *ref = NULL, *which = NULL;
	int r;

	*ref_out = NULL;
	if ((r = snapshot_head_ref(s, sanitizer, &ref)) != 0)
		return r;
	r = docker_image_exists(s->docker, ref, NULL);
	if (r == CRS_ENOTFOUND) {
		crs_error_clear();
		which = xasprintf("snapshot-%s", sanitizer);
		r = target_compile(s, s->state.head_image,
				   s->state.head_commit, sanitizer, which,
				   ref);
	}
	if (r == 0) {
		snapshot_head_record(s, sanitizer, ref);
		*ref_out = ref;
		ref = NULL; /* transferred */
	}
	free(ref);
	free(which);
	return r;
}

/* How the handler's log says the patch went. */
static void read_outcome(struct snapshot_job *j)
{
	struct buf b = BUF_INIT;
	const char *at;

	j->applied = SNAPSHOT_APPLY_NONE;
	j->apply_failed = 0;
	if (fs_read_file(&b, j->log_path, 8u << 20) != 0) {
		crs_error_clear();
		goto out;
	}
	buf_addch(&b, '\0');
	if (j->exit_code == SNAPSHOT_APPLY_FAILED_EXIT &&
	    strstr(b.ptr, SNAPSHOT_NOT_APPLIED_MARK)) {
		j->apply_failed = 1;
		goto out;
	}
	if ((at = strstr(b.ptr, SNAPSHOT_APPLIED_MARK)) == NULL)
		goto out;
	at += strlen(SNAPSHOT_APPLIED_MARK);
	for (int a = SNAPSHOT_APPLY_FUZZ; a > SNAPSHOT_APPLY_NONE; a--)
		if (!strncmp(at, apply_names[a], strlen(apply_names[a])) &&
		    at[strlen(apply_names[a])] == '\n') {
			j->applied = (enum snapshot_apply)a;
			break;
		}
out:
	buf_release(&b);
}

int snapshot_run(struct scan *s, struct snapshot_job *j)
{
	struct docker_run_opts ro = DOCKER_RUN_OPTS_INIT;
	struct strvec cmd = STRVEC_INIT, binds = STRVEC_INIT;
	int r;

	j->applied = SNAPSHOT_APPLY_NONE;
	j->apply_failed = 0;
	j->exit_code = -1;
	strvec_push(&cmd, "/bin/bash");
	strvec_push(&cmd, "-c");
	strvec_push(&cmd, handler_script);
	strvec_push(&cmd, "crs-ci-handler");
	strvec_push(&cmd, j->strict ? "1" : "0");
	for (const char *const *c = j->cmd; c && *c; c++)
		strvec_push(&cmd, *c);
	for (const char *const *b = j->binds; b && *b; b++)
		strvec_push(&binds, *b);
	if (j->patch_path)
		strvec_pushf(&binds, "%s:/crs-ci/patch.diff:ro",
			     j->patch_path);
	ro.image = j->image;
	ro.cmd = strvec_list(&cmd);
	ro.env = j->env;
	ro.binds = strvec_list(&binds);
	ro.network = "none";
	ro.shm_size = 2LL << 30;
	ro.cpuset = j->cpuset;
	ro.memory = j->memory;
	container_policy_apply(&ro, ROLE_SNAPSHOT);
	r = container_run(&s->exec, &ro, j->limit_s, j->log_path, &j->exit_code);
	if (r == 0)
		read_outcome(j);
	strvec_release(&cmd);
	strvec_release(&binds);
	return r;
}

int snapshot_compile(struct scan *s, struct snapshot_job *j,
		     const char *sanitizer, const char *which)
{
	struct strvec env = STRVEC_INIT, binds = STRVEC_INIT;
	static const char *const cmd[] = { "compile", NULL };
	char *out = scan_work_path(s, "builds/%s/%s/out", sanitizer, which);
	int r;

	if ((r = fs_remove_tree(out)) != 0 || (r = fs_mkdir_p(out)) != 0)
		goto out;
	target_build_env(&env, s, sanitizer);
	strvec_push(&env, "HELPER=True");
	strvec_pushf(&binds, "%s:/out", out);
	j->cmd = cmd;
	j->env = strvec_list(&env);
	j->binds = strvec_list(&binds);
	r = snapshot_run(s, j);
	j->cmd = j->env = j->binds = NULL;
out:
	strvec_release(&env);
	strvec_release(&binds);
	free(out);
	return r;
}
