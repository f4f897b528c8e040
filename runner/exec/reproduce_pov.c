/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reproduce_pov.c - one PoV run on the head and base builds side by side
 *
 * Two reproduce_run() jobs in a build group: the head's and the base's.
 */
#include "runner/exec/reproduce_pov.h"
#include "runner/exec/build_group.h"
#include "runner/exec/reproduce.h"
#include "runner/scan/scan.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <stdlib.h>

char *reproduce_pov_dir(struct scan *s, const char *harness, const char *sha,
			const char *which)
{
	if (which)
		return scan_work_path(s, "triage/%s-%s/%s", harness, sha,
				      which);
	return scan_work_path(s, "triage/%s-%s", harness, sha);
}

/* One build's reproduction of a PoV, a job of a group. */
struct repro_job {
	const char *harness;
	const char *testcase;
	const char *which;	/* "head" or "base" */
	const char *dir;
};

static int repro_job_run(struct scan *s, void *arg)
{
	const struct repro_job *j = arg;

	return reproduce_run(s, j->harness, j->testcase, j->which, j->dir);
}

int reproduce_pov(struct scan *s, const char *harness, const char *sha,
		  const char *testcase, int *on_base)
{
	char *tdir = reproduce_pov_dir(s, harness, sha, NULL);
	char *hdir = reproduce_pov_dir(s, harness, sha, "head");
	char *bdir = reproduce_pov_dir(s, harness, sha, "base");
	char *bin = scan_work_path(s, "builds/%s/base/out/%s",
				   s->state.sanitizer, harness);
	struct repro_job head = { harness, testcase, "head", hdir };
	struct repro_job base = { harness, testcase, "base", bdir };
	struct build_job jobs[] = {
		{ "head reproduction", repro_job_run, &head },
		{ "base reproduction", repro_job_run, &base },
	};
	int r;

	*on_base = s->state.base_image && fs_exists(bin);
	/* head/ and base/: sibling run folders of crs-ci's own */
	if ((r = fs_remove_tree(tdir)) != 0 || (r = fs_mkdir_p(tdir)) != 0 ||
	    (r = fs_mkdir_new(hdir)) != 0)
		goto out;
	if (!*on_base)
		r = repro_job_run(s, &head);
	else if ((r = fs_mkdir_new(bdir)) == 0)
		r = build_group_run(s, jobs, 2);
out:
	free(bin);
	free(tdir);
	free(hdir);
	free(bdir);
	return r;
}
