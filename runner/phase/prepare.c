/* SPDX-License-Identifier: Apache-2.0 */
/*
 * prepare.c - the prepare phase: the libCRS bundle and CRS images that do
 * not depend on the target
 *
 * Builds the libcrs:latest bundle image OSS-CRS build files copy from;
 * every image is tagged by a hash of what produced it.
 *
 * Details: docs/cmd/prepare.md; design notes: docs/internals.md.
 */
#include "runner/phase/phase.h"
#include "runner/exec/container.h"
#include "runner/exec/crs_image.h"
#include "runner/scan/scan.h"
#include "runner/config/config.h"
#include "runner/engine/docker.h"
#include "runner/scan/timings.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *libcrs_dir(void)
{
	const char *env = getenv("CRS_CI_LIBCRS_DIR");
	char *exe, *dir;

	if (env && *env)
		return xstrdup(env);
	if (!(exe = fs_self_exe(NULL)))
		return xstrdup(".");
	dir = xstrdup(dirname(exe));
	free(exe);
	return dir;
}

static int build_libcrs_bundle(struct scan *s)
{
	struct docker_build_opts bo = DOCKER_BUILD_OPTS_INIT;
	char *dir = libcrs_dir();
	char *bin = xasprintf("%s/libCRS", dir);
	char *inst = xasprintf("%s/libCRS-install.sh", dir);
	char *ctx = scan_work_path(s, "prepare/libcrs-bundle");
	char *p = NULL, *tag = NULL, *log = NULL;
	char hash[65];
	static const char dockerfile[] =
		"# libCRS bundle: the build context OSS-CRS build files\n"
		"# copy with COPY --from=libcrs . /opt/libCRS\n"
		"FROM scratch\nCOPY libCRS install.sh /\n";
	int r;

	if (!fs_exists(bin) || !fs_exists(inst)) {
		r = crs_error_set(CRS_ENOTFOUND, "libCRS not found beside "
				  "crs-ci (looked for '%s' and '%s'; set "
				  "CRS_CI_LIBCRS_DIR)", bin, inst);
		goto out;
	}
	if ((r = fs_remove_tree(ctx)) != 0 || (r = fs_mkdir_p(ctx)) != 0)
		goto out;
	p = xasprintf("%s/libCRS", ctx);
	if ((r = fs_copy_tree(bin, p)) != 0)
		goto out;
	free(p);
	p = xasprintf("%s/install.sh", ctx);
	if ((r = fs_copy_tree(inst, p)) != 0)
		goto out;
	free(p);
	p = xasprintf("%s/Dockerfile", ctx);
	if ((r = fs_write_file_atomic(p, dockerfile, strlen(dockerfile))) != 0 ||
	    (r = fs_sha256_tree(hash, ctx)) != 0)
		goto out;
	tag = xasprintf("crs-ci/libcrs:%.12s", hash);
	log = scan_work_path(s, "logs/prepare-libcrs.log");
	bo.context_dir = ctx;
	bo.dockerfile = "Dockerfile";
	bo.tag = tag;
	bo.log_path = log;
	if ((r = image_build_cached(&s->exec, &bo, "libCRS bundle")) != 0 ||
	    (r = docker_image_tag(s->docker, tag, "libcrs", "latest")) != 0)
		goto out;
	scan_set_image(s, "libcrs", tag);
out:
	free(dir);
	free(bin);
	free(inst);
	free(ctx);
	free(p);
	free(tag);
	free(log);
	return r;
}

/* Modules with target_dependent: false are built once, here. */
static int build_independent_modules(struct scan *s)
{
	int r = 0;

	for (size_t i = 0; i < s->compose->crs_nr && r == 0; i++) {
		const struct compose_crs *c = &s->compose->crs[i];
		const struct manifest *m = c->manifest;

		for (size_t k = 0; k < m->modules_nr && r == 0; k++) {
			const struct manifest_run_module *mod = &m->modules[k];
			char *key, *tag = NULL;

			if (mod->target_dependent)
				continue;
			r = crs_image_build(s, c, "runner", mod->name,
					 mod->dockerfile, 0, &tag);
			if (r == 0) {
				key = xasprintf("%s/%s", c->name, mod->name);
				scan_set_image(s, key, tag);
				free(key);
			}
			free(tag);
		}
	}
	return r;
}

int phase_prepare(struct scan *s)
{
	char *logs = scan_work_path(s, "logs");
	int r;

	timing_phase(s, "prepare");
	log_info("prepare: CRS images");
	if ((r = fs_mkdir_p(logs)) == 0 &&
	    (r = build_libcrs_bundle(s)) == 0 &&
	    (r = build_independent_modules(s)) == 0)
		r = scan_state_save(s);
	free(logs);
	return r;
}
