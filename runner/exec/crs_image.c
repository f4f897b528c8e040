/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crs_image.c - CRS images keyed by what produced them
 *
 * OSS-CRS skips a build whenever the tag exists, so an edited CRS is not
 * rebuilt until `oss-crs clean` (oss-crs-contract.md §11.2). Here the tag
 * is a hash of the CRS folder's content and the inputs, so an unchanged
 * CRS is never rebuilt and a changed one always is.
 */
#include "runner/exec/crs_image.h"
#include "runner/exec/container.h"
#include "runner/exec/base_images.h"
#include "runner/scan/scan.h"
#include "runner/config/config.h"
#include "runner/engine/docker.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <stdlib.h>

int crs_image_build(struct scan *s, const struct compose_crs *c,
		 const char *kind, const char *name, const char *dockerfile,
		 int target_dependent, char **tag_out)
{
	const struct manifest *m = c->manifest;
	struct docker_build_opts bo = DOCKER_BUILD_OPTS_INIT;
	struct strvec args = STRVEC_INIT;
	struct buf seed = BUF_INIT;
	char hash[65], *tag = NULL, *log = NULL, *what = NULL;
	const char *runner = NULL;
	int r;

	*tag_out = NULL;
	if ((r = fs_sha256_tree(hash, m->root)) != 0)
		goto out;
	/* a build arg names it: made ready here, not from the FROM line */
	if (target_dependent && (r = base_images_runner(&s->exec, &runner)) != 0)
		goto out;
	/* CRS Dockerfiles COPY --from=libcrs: a new libCRS is a new image */
	buf_printf(&seed, "%s\n%s\n%s\n%s\n%s", hash, dockerfile, m->version,
		   scan_image(s, "libcrs") ? scan_image(s, "libcrs") : "",
		   base_images_tag_seed(&s->exec, &s->state.base_seed));
	strvec_pushf(&args, "crs_version=%s", m->version);
	if (target_dependent) {
		buf_printf(&seed, "%s\n%s\n", s->state.head_image, runner);
		strvec_pushf(&args, "target_base_image=%s", s->state.head_image);
		strvec_pushf(&args, "base_runner_image=%s", runner);
	}
	sha256_hex(hash, seed.ptr, seed.len);
	tag = xasprintf("crs-ci-%s/%s-%s:%.12s", kind, c->name, name, hash);
	log = scan_work_path(s, "logs/%s-%s-%s.log", kind, c->name, name);
	what = xasprintf("CRS %s %s %s", c->name, kind, name);
	bo.context_dir = m->root;
	bo.dockerfile = dockerfile;
	bo.tag = tag;
	bo.buildargs = strvec_list(&args);
	bo.log_path = log;
	if ((r = image_build_cached(&s->exec, &bo, what)) != 0)
		goto out;
	*tag_out = tag;
	tag = NULL; /* transferred */
out:
	strvec_release(&args);
	buf_release(&seed);
	free(tag);
	free(log);
	free(what);
	return r;
}
