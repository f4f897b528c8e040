/* SPDX-License-Identifier: Apache-2.0 */
/*
 * base_images.c - pull missing base images, or map them to the stand-ins
 *
 * Dockerfiles read here may be the pull request's: read without
 * following links, bounded, FROM lines only. Credentials are never logged.
 *
 * Details: docs/base-images.md; design notes: docs/internals.md.
 */
#include "runner/exec/base_images.h"
#include "runner/exec/dockerfile_from.h"
#include "runner/exec/images.h"
#include "runner/scan/exec_ctx.h"
#include "runner/engine/docker.h"
#include "runner/engine/registry_auth.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "common/testable.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BASE_PULL_TRIES 4
#define BASE_PULL_FIRST_DELAY_MS 1000L
#define BASE_DOCKERFILE_MAX ((size_t)1 << 20)

int base_images_mode_parse(enum base_images_mode *out, const char *s,
			   const char *what)
{
	if (!strcmp(s, "pull"))
		*out = BASE_IMAGES_PULL;
	else if (!strcmp(s, "stand-in"))
		*out = BASE_IMAGES_STAND_IN;
	else
		return crs_error_set(CRS_EINPUT, "%s: '%s' is not one of "
				     "pull, stand-in", what, s);
	return 0;
}

int base_images_mode_from_env(enum base_images_mode *out)
{
	const char *env = getenv("CRS_CI_BASE_IMAGES");

	*out = BASE_IMAGES_PULL;
	if (!env || !env[0])
		return 0;
	return base_images_mode_parse(out, env, "CRS_CI_BASE_IMAGES");
}

int base_images_sanitizer_check(enum base_images_mode mode,
				const char *sanitizer)
{
	if (mode != BASE_IMAGES_STAND_IN || strcmp(sanitizer, "memory"))
		return 0;
	return crs_error_set(CRS_ECONFIG, "sanitizer 'memory' needs the "
			     "OSS-Fuzz base images (--base-images pull): the "
			     "offline stand-ins have no MSan-instrumented "
			     "libFuzzer and C++ library, so an MSan fuzzer "
			     "crashes inside libFuzzer; use address or "
			     "undefined with the stand-ins");
}

CRS_TESTABLE const char *base_images_stand_in(const char *ref)
{
	static const struct {
		const char *repo;
		const char *stand_in;
	} known[] = {
		{ "gcr.io/oss-fuzz-base/base-builder", STAND_IN_BUILDER_IMAGE },
		{ "gcr.io/oss-fuzz-base/base-clang", STAND_IN_BUILDER_IMAGE },
		{ "gcr.io/oss-fuzz-base/base-runner", STAND_IN_RUNNER_IMAGE },
		{ "gcr.io/oss-fuzz-base/base-runner-debug",
		  STAND_IN_RUNNER_IMAGE },
		{ "gcr.io/oss-fuzz-base/base-image", STAND_IN_RUNNER_IMAGE },
		{ "ghcr.io/aixcc-finals/base-builder", STAND_IN_BUILDER_IMAGE },
		{ "ghcr.io/aixcc-finals/base-clang", STAND_IN_BUILDER_IMAGE },
		{ "ghcr.io/aixcc-finals/base-runner", STAND_IN_RUNNER_IMAGE },
		{ "ghcr.io/aixcc-finals/base-image", STAND_IN_RUNNER_IMAGE },
	};
	char *repo = NULL, *tag = NULL;
	const char *found = NULL;

	docker_ref_split(ref, &repo, &tag);
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(repo, known[i].repo))
			found = known[i].stand_in;
	free(repo);
	free(tag);
	return found;
}

static enum base_images_mode base_mode(const struct exec_ctx *x)
{
	return x->base_images == BASE_IMAGES_STAND_IN ?
		BASE_IMAGES_STAND_IN : BASE_IMAGES_PULL;
}

const char *base_images_runner_name(const struct exec_ctx *x)
{
	return base_mode(x) == BASE_IMAGES_STAND_IN ? STAND_IN_RUNNER_IMAGE :
		BASE_RUNNER_IMAGE;
}

const char *base_images_tag_seed(const struct exec_ctx *x, char **seed)
{
	static const char *const stand_ins[] = {
		STAND_IN_BUILDER_IMAGE, STAND_IN_RUNNER_IMAGE,
	};
	struct buf b = BUF_INIT;

	if (base_mode(x) != BASE_IMAGES_STAND_IN)
		return "";
	if (*seed)
		return *seed;
	buf_adds(&b, "base-images=stand-in\n");
	for (size_t i = 0; i < sizeof(stand_ins) / sizeof(stand_ins[0]); i++) {
		char *id = NULL;

		if (docker_image_exists(x->docker, stand_ins[i], &id) != 0)
			crs_error_clear();
		buf_printf(&b, "%s %s\n", stand_ins[i], id ? id : "missing");
		free(id);
	}
	*seed = buf_detach(&b, NULL);
	return *seed;
}

/* Sleep `ms`, waking early on Ctrl-C (CRS_EINTR). */
static int base_sleep(const struct exec_ctx *x, long ms)
{
	struct timespec slice = { 0, 100L * 1000 * 1000 };

	for (long left = ms; left > 0; left -= 100) {
		if (exec_interrupted(x))
			return crs_error_set(CRS_EINTR, "interrupted");
		nanosleep(&slice, NULL);
	}
	return exec_interrupted(x) ? crs_error_set(CRS_EINTR, "interrupted") :
		0;
}

/*
 * The credentials for ref's registry (NULL: anonymous): config.json's
 * auths, else its credential helper. A helper that fails is a warning: a
 * public image needs no credentials, and a private one then fails to
 * pull with "access denied".
 */
static int base_auth(char **out, const char *ref)
{
	char *host = registry_host(ref), *helper = NULL;
	int r = registry_auth_load(out, &helper, host);

	if (r == 0 && !*out && helper &&
	    registry_auth_from_helper(out, helper, host) != 0) {
		log_warn("registry %s: %s; pulling without credentials", host,
			 crs_error_last());
		crs_error_clear();
	}
	free(helper);
	free(host);
	return r;
}

static int base_pull(struct exec_ctx *x, const char *ref)
{
	struct docker_pull_opts po = DOCKER_PULL_OPTS_INIT;
	enum docker_pull_failure why = DOCKER_PULL_FAILED;
	char *auth = NULL;
	long delay = BASE_PULL_FIRST_DELAY_MS;
	int r, tries = 0;

	if ((r = base_auth(&auth, ref)) != 0)
		return crs_error_prefix("cannot pull %s", ref);
	po.ref = ref;
	po.auth = auth;
	po.interrupted = exec_stop_flag(x);
	log_info("pulling %s (missing locally)%s", ref,
		 auth ? " with credentials from the Docker config" : "");
	for (;;) {
		double left = exec_remaining(x);

		if (left <= 0) {
			r = crs_error_set(CRS_ETIMEOUT, "the scan's deadline "
					  "passed");
			break;
		}
		po.timeout_ms = (long)(left * 1000);
		r = docker_image_pull(x->docker, &po, &why);
		tries++;
		if (r == 0 || r == CRS_EINTR || r == CRS_ETIMEOUT ||
		    (why != DOCKER_PULL_UNREACHABLE &&
		     why != DOCKER_PULL_TRANSIENT) ||
		    tries == BASE_PULL_TRIES ||
		    exec_remaining(x) * 1000 < (double)delay)
			break;
		log_warn("pull %s: try %d of %d failed: %s; again in %ld s",
			 ref, tries, BASE_PULL_TRIES, crs_error_last(),
			 delay / 1000);
		if ((r = base_sleep(x, delay)) != 0)
			break;
		delay *= 2;
	}
	registry_auth_free(auth);
	if (r != 0 && r != CRS_EINTR)
		crs_error_prefix("cannot pull %s", ref);
	/* offline, the image's stand-in builds without the registry */
	if (r != 0 && r != CRS_EINTR && r != CRS_ETIMEOUT &&
	    base_images_stand_in(ref))
		crs_error_set(r, "%s; offline, or to build without it: "
			      "--base-images stand-in (the Debian stand-ins, "
			      "container/base-images/build.sh)",
			      crs_error_last());
	return r;
}

int base_image_ready(struct exec_ctx *x, const char *ref)
{
	int r = docker_image_exists(x->docker, ref, NULL);

	if (r != CRS_ENOTFOUND)
		return r;
	crs_error_clear();
	return base_pull(x, ref);
}

/* The stand-in `name` (for `ref`) must exist: build.sh makes it. */
static int base_stand_in_ready(struct exec_ctx *x, const char *name,
			       const char *ref)
{
	int r = docker_image_exists(x->docker, name, NULL);

	if (r == CRS_ENOTFOUND)
		r = crs_error_set(CRS_EENGINE, "stand-in image %s (for %s) is "
				  "missing: run container/base-images/build.sh "
				  "(or use --base-images pull)", name, ref);
	return r;
}

int base_images_runner(struct exec_ctx *x, const char **out)
{
	const char *name = base_images_runner_name(x);
	int r;

	*out = NULL;
	if (!x->base_runner_ready) {
		r = base_mode(x) == BASE_IMAGES_STAND_IN ?
			base_stand_in_ready(x, name, BASE_RUNNER_IMAGE) :
			base_image_ready(x, name);
		if (r != 0)
			return r;
		log_info("base runner: %s%s", name,
			 base_mode(x) == BASE_IMAGES_STAND_IN ?
			 " (the offline stand-in)" : "");
		x->base_runner_ready = 1;
	}
	*out = name;
	return 0;
}

/* crs-ci's own images (built or imported by it) are never pulled. */
static int base_is_own(const char *ref)
{
	return !strncmp(ref, "crs-ci/", 7) || !strncmp(ref, "crs-ci-", 7) ||
		!strcmp(ref, "libcrs") || !strncmp(ref, "libcrs:", 7);
}

/*
 * Read `rel` (a relative path, e.g. "docker/builder.Dockerfile") below
 * `dir` through directory descriptors, following no link.
 */
static int base_read_beneath(struct buf *out, const char *dir,
			     const char *rel)
{
	char *copy = xstrdup(rel), *save = NULL, *part, *next;
	int fd = -1, r;

	if ((r = fs_open_dir(&fd, dir)) != 0)
		goto out;
	part = strtok_r(copy, "/", &save);
	while (part && (next = strtok_r(NULL, "/", &save))) {
		int sub;

		if (!strcmp(part, "..")) {
			r = crs_error_set(CRS_EINPUT, "%s/%s: a Dockerfile "
					  "outside its context", dir, rel);
			goto out;
		}
		if (strcmp(part, ".")) {
			sub = openat(fd, part, O_RDONLY | O_DIRECTORY |
				     O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0) {
				r = crs_error_set(CRS_EINPUT, "%s/%s: %s", dir,
						  rel, strerror(errno));
				goto out;
			}
			close(fd);
			fd = sub;
		}
		part = next;
	}
	if (!part) {
		r = crs_error_set(CRS_EINPUT, "%s: no Dockerfile named", dir);
		goto out;
	}
	r = fs_read_regular_at(out, fd, part, rel, BASE_DOCKERFILE_MAX,
			       NULL);
	if (r == CRS_ENOTFOUND)
		r = crs_error_set(CRS_EINPUT, "%s/%s: no such Dockerfile", dir,
				  rel);
out:
	if (fd >= 0)
		close(fd);
	free(copy);
	return r;
}

int base_images_for_build(struct exec_ctx *x, struct docker_build_opts *bo,
			  struct buf *keep)
{
	struct dockerfile_froms froms = DOCKERFILE_FROMS_INIT;
	struct buf text = BUF_INIT;
	const char *dockerfile = bo->dockerfile ? bo->dockerfile : "Dockerfile";
	const char **images = NULL;
	char *source = xasprintf("%s/%s", bo->context_dir, dockerfile);
	int r, rewrite = 0;

	if ((r = base_read_beneath(&text, bo->context_dir, dockerfile)) != 0 ||
	    (r = dockerfile_froms_parse(&froms, text.ptr, text.len,
					bo->buildargs, source)) != 0)
		goto out;
	images = xcalloc(froms.nr + 1, sizeof(*images));
	for (size_t i = 0; i < froms.nr && r == 0; i++) {
		const struct dockerfile_from *f = &froms.v[i];
		const char *stand_in;

		if (!f->image || f->own || f->is_stage || f->is_scratch ||
		    base_is_own(f->image))
			continue;
		stand_in = base_mode(x) == BASE_IMAGES_STAND_IN ?
			base_images_stand_in(f->image) : NULL;
		if (stand_in) {
			images[i] = stand_in;
			rewrite = 1;
			r = base_stand_in_ready(x, stand_in, f->image);
		} else {
			r = base_image_ready(x, f->image);
		}
		if (r != 0 && r != CRS_EINTR)
			crs_error_prefix("%s:%zu", bo->dockerfile_shown ?
					 bo->dockerfile_shown : source,
					 f->line);
	}
	if (r == 0 && rewrite) {
		dockerfile_rewrite(keep, text.ptr, text.len, &froms, images);
		bo->dockerfile_text = keep->ptr;
		bo->dockerfile_len = keep->len;
	}
out:
	free(images);
	free(source);
	dockerfile_froms_release(&froms);
	buf_release(&text);
	return r;
}

/* The apt message in `err` that names a package Debian lacks, or NULL. */
static const char *base_missing_package(const char *err)
{
	static const char *const said[] = {
		"Unable to locate package", "has no installation candidate",
		"is not available, but is referred to",
	};
	const char *p;

	for (size_t i = 0; i < sizeof(said) / sizeof(said[0]); i++)
		if ((p = strstr(err, said[i])) != NULL)
			return p;
	return NULL;
}

void base_images_explain_failure(const struct docker_build_opts *bo,
				 int step)
{
	struct dockerfile_froms froms = DOCKERFILE_FROMS_INIT;
	struct buf text = BUF_INIT;
	const char *dockerfile = bo->dockerfile ? bo->dockerfile : "Dockerfile";
	const char *why, *eol;
	char *keep = xstrdup(crs_error_last()), *what = NULL, *hint = NULL;
	size_t line, next_line;
	int code = crs_error_code();

	if (!bo->dockerfile_text || step <= 0 ||
	    base_read_beneath(&text, bo->context_dir, dockerfile) != 0 ||
	    dockerfile_froms_parse(&froms, text.ptr, text.len, bo->buildargs,
				   dockerfile) != 0 ||
	    (size_t)step > froms.nr_steps)
		goto out;
	line = froms.steps[step - 1];
	next_line = (size_t)step < froms.nr_steps ? froms.steps[step] :
		(size_t)-1;
	if ((why = base_missing_package(keep)) != NULL) {
		/* the apt line that says so, to its end */
		const char *b = why;

		while (b > keep && b[-1] != '\n')
			b--;
		eol = strchr(why, '\n');
		what = xasprintf("%.*s", (int)((eol ? eol : why + strlen(why)) -
					       b), b);
	} else {
		/* a .deb fetched in the step's own lines */
		size_t n = 1;

		for (const char *p = text.ptr; p && *p; n++) {
			const char *e = strchr(p, '\n');
			size_t l = e ? (size_t)(e - p) : strlen(p);

			if (n >= line && n < next_line &&
			    memmem(p, l, ".deb", 4) &&
			    (memmem(p, l, "http://", 7) ||
			     memmem(p, l, "https://", 8))) {
				what = xstrdup("it downloads a .deb");
				break;
			}
			p = e ? e + 1 : NULL;
		}
	}
	if (!what)
		goto out;
	hint = xasprintf("%s/%s:%zu: this step needs an Ubuntu package the "
			 "offline stand-ins (Debian bookworm) lack (%s); the "
			 "real base images are Ubuntu: try --base-images pull",
			 bo->context_dir, dockerfile, line, what);
out:
	/* reading the Dockerfile again must not lose the build's error */
	if (hint)
		crs_error_set(code, "%s: %s", hint, keep);
	else
		crs_error_set(code, "%s", keep);
	free(hint);
	free(what);
	free(keep);
	buf_release(&text);
	dockerfile_froms_release(&froms);
}
