/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cache.c - images and corpora kept in --cache-dir between CI runs
 *
 * Only what cannot be pulled again is kept, without base layers;
 * least recently used entries go until the cache fits --cache-max.
 *
 * Details: docs/cache.md; design notes: docs/internals.md.
 */
#include "runner/exec/cache.h"
#include "runner/exec/base_images.h"
#include "runner/exec/cache_index.h"
#include "runner/scan/cache_root.h"
#include "runner/exec/image_restore.h"
#include "runner/exec/image_strip.h"
#include "runner/exec/images.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/engine/docker.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CORPUS_FILES_MAX 20000
#define CORPUS_FILE_MAX (1u << 20)
/* a last-use time that moves less than a day does not rewrite the index,
 * so a CI cache whose content is unchanged is not uploaded again */
#define CACHE_TOUCH_GRANULARITY 86400

/* What crs-ci builds itself: the only images worth keeping. */
static const char *const own_prefixes[] = {
	"crs-ci-target/", "crs-ci-builder/", "crs-ci-runner/",
};

/* Pullable base images whose layers an entry leaves out, longest match
 * first found wins (the stand-ins, and the real names at :latest). */
static const char *const base_candidates[] = {
	STAND_IN_BUILDER_IMAGE, STAND_IN_RUNNER_IMAGE, BASE_RUNNER_IMAGE,
	"gcr.io/oss-fuzz-base/base-builder:latest",
	"gcr.io/oss-fuzz-base/base-clang:latest",
	"gcr.io/oss-fuzz-base/base-runner-debug:latest",
	"gcr.io/oss-fuzz-base/base-image:latest",
	"ghcr.io/aixcc-finals/base-builder:latest",
	"ghcr.io/aixcc-finals/base-runner:latest",
};

#define ARRAY_NR(a) (sizeof(a) / sizeof((a)[0]))

/* 1 when `ref` is one of base_candidates. */
static int base_candidate(const char *ref)
{
	for (size_t i = 0; i < ARRAY_NR(base_candidates); i++)
		if (!strcmp(ref, base_candidates[i]))
			return 1;
	return 0;
}

static int64_t cache_cap(const struct scan *s)
{
	return s->opts->cache_max > 0 ? s->opts->cache_max : CACHE_MAX_DEFAULT;
}

static int own_image(const char *tag)
{
	for (size_t i = 0; i < ARRAY_NR(own_prefixes); i++)
		if (!strncmp(tag, own_prefixes[i], strlen(own_prefixes[i])))
			return 1;
	return 0;
}

/* The images crs-ci built for this scan, each once. */
static void scan_images(const struct scan *s, struct strvec *tags)
{
	const struct scan_state *st = &s->state;
	struct strvec all = STRVEC_INIT;

	if (st->target_image)
		strvec_push(&all, st->target_image);
	if (st->head_image)
		strvec_push(&all, st->head_image);
	if (st->base_image)
		strvec_push(&all, st->base_image);
	for (size_t i = 0; i < st->images_nr; i++)
		strvec_push(&all, st->images[i].value);
	for (size_t i = 0; i < all.nr; i++) {
		int seen = 0;

		for (size_t k = 0; k < tags->nr; k++)
			seen |= !strcmp(tags->v[k], all.v[i]);
		if (!seen && own_image(all.v[i]))
			strvec_push(tags, all.v[i]);
	}
	strvec_release(&all);
}

int cache_index_open(struct scan *s, struct cache_index *ix, int *root)
{
	int r;

	if ((r = cache_root_fd(s, root)) != 0)
		return r;
	if (cache_index_load(ix, *root, s->opts->cache_dir) != 0) {
		log_warn("cache: %s; starting an empty cache",
			 crs_error_last());
		crs_error_clear();
		ix->dirty = 1;
	}
	return 0;
}

/* "crs-ci-restore/<16 hex>:tmp": a name no archive can know. */
static int temp_tag(char out[48])
{
	unsigned char rnd[8];

	if (RAND_bytes(rnd, sizeof(rnd)) != 1)
		return crs_error_set(CRS_ERR, "no random bytes for a name");
	memcpy(out, "crs-ci-restore/", 15);
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(out + 15 + 2 * i, 3, "%02x", rnd[i]);
	memcpy(out + 31, ":tmp", 5);
	return 0;
}

/* docker tag `from` `tag` ("repo:tag", the tag after the last '/'). */
static int tag_as(struct scan *s, const char *from, const char *tag)
{
	const char *slash = strrchr(tag, '/');
	const char *colon = strrchr(slash ? slash : tag, ':');
	char *repo = colon ? xstrndup(tag, (size_t)(colon - tag)) :
		xstrdup(tag);
	int r = docker_image_tag(s->docker, from, repo,
				 colon ? colon + 1 : "latest");

	free(repo);
	return r;
}

/*
 * Load the archive of entry `e` under a temporary name, check the loaded
 * image's id against the index's, and only then tag it `tag`.
 */
static int load_checked(struct scan *s, const struct cache_entry *e,
			const char *tag)
{
	char tmp_tag[48], *id = NULL, *load = NULL, *dir = NULL;
	struct stat st;
	int fd = -1, r, loaded = 0;

	if ((r = temp_tag(tmp_tag)) != 0 ||
	    (r = cache_root_file(s, e->path, &fd, &st)) != 0)
		goto out;
	dir = scan_work_path(s, "cache-load");
	load = xasprintf("%s/%.16s.tar", dir, tmp_tag + 15);
	if ((r = fs_mkdir_p(dir)) != 0 ||
	    (r = image_archive_retag(fd, e->path, tag, e->id, tmp_tag,
				     load)) != 0 ||
	    (e->base && (r = base_image_ready(&s->exec, e->base)) != 0) ||
	    (r = docker_image_load(s->docker, load)) != 0)
		goto out;
	loaded = 1;
	if ((r = docker_image_exists(s->docker, tmp_tag, &id)) != 0)
		goto out;
	if (strcmp(id, e->id)) {
		r = crs_error_set(CRS_EINPUT, "%s loaded as %s, not the image "
				  "%s the index records", e->path, id, e->id);
		goto out;
	}
	r = tag_as(s, tmp_tag, tag);
out:
	if (loaded && docker_image_remove(s->docker, tmp_tag, 0) != 0 &&
	    r == 0)
		r = CRS_ERR;
	if (load)
		unlink(load);
	if (fd >= 0)
		close(fd);
	free(id);
	free(load);
	free(dir);
	return r;
}

/* Load one image entry the engine lacks; its base image first. */
static void restore_one(struct scan *s, const struct cache_entry *e,
			const char *tag)
{
	char *id = NULL;
	int r = docker_image_exists(s->docker, tag, &id);

	/* the engine has it (tags are content hashes): use that one */
	if (r == 0)
		goto out;
	crs_error_clear();
	if (!cache_root_has(s, e->path, NULL))
		goto out;
	if (!own_image(tag) || !e->id) {
		log_warn("cache: %s is %s; not loaded", e->name, !e->id ?
			 "without the image id it must have" :
			 "not one of crs-ci's own images");
		goto out;
	}
	/* the index is hostile: a base it names is pulled, so only the
	 * names crs-ci itself writes there are taken */
	if (e->base && !base_candidate(e->base)) {
		log_warn("cache: %s names the base image '%.80s', not one "
			 "crs-ci records; not loaded", e->name, e->base);
		goto out;
	}
	if (load_checked(s, e, tag) != 0) {
		log_warn("cache: cannot load %s (%s); it will be built", tag,
			 crs_error_last());
		crs_error_clear();
		goto out;
	}
	log_info("cache: loaded %s (%.1f MiB)", tag,
		 (double)e->size / (1 << 20));
out:
	free(id);
}

int cache_restore_images(struct scan *s)
{
	struct cache_index ix = CACHE_INDEX_INIT;
	size_t n = 0;
	int root, r;

	if (!s->opts->cache_dir)
		return 0;
	if (s->opts->no_cache_images) {
		log_info("cache: its images are not loaded (--cache-images "
			 "no); they are built");
		return 0;
	}
	if ((r = cache_index_open(s, &ix, &root)) != 0)
		return r;
	for (size_t i = 0; i < ix.nr; i++)
		if (!strncmp(ix.v[i].name, "image:", 6)) {
			restore_one(s, &ix.v[i], ix.v[i].name + 6);
			n++;
		}
	if (n)
		log_info("cache: %zu cached image(s) checked", n);
	cache_index_release(&ix);
	return 0;
}

/* The longest base candidate on the engine that `layers` start with. */
static const char *image_base(struct scan *s, const struct strvec *layers,
			      struct strvec *base_out)
{
	const char *best = NULL;

	for (size_t i = 0; i < ARRAY_NR(base_candidates); i++) {
		struct strvec b = STRVEC_INIT;
		size_t k;

		if (docker_image_layers(s->docker, base_candidates[i], &b)) {
			crs_error_clear();
			strvec_release(&b);
			continue;
		}
		for (k = 0; k < b.nr && k < layers->nr; k++)
			if (strcmp(b.v[k], layers->v[k]))
				break;
		if (b.nr && k == b.nr && b.nr > base_out->nr) {
			strvec_release(base_out);
			for (k = 0; k < b.nr; k++)
				strvec_push(base_out, b.v[k]);
			best = base_candidates[i];
		}
		strvec_release(&b);
	}
	return best;
}

/*
 * One `docker save` of the images in `tags` (their shared base layers
 * written once), split into one archive each without its base's layers;
 * fills their entries. On failure nothing is kept and the entries go.
 */
static int save_images(struct scan *s, struct cache_index *ix, int imgfd,
		       const struct strvec *tags, const struct strvec *names)
{
	struct image_part *parts = xcalloc(tags->nr, sizeof(*parts));
	struct strvec *bases = xcalloc(tags->nr, sizeof(*bases));
	const char **from = xcalloc(tags->nr, sizeof(*from));
	struct strvec outs = STRVEC_INIT;
	/* made in crs-ci's own work folder, moved into the cache by
	 * descriptor: nothing in the cache is written through a path */
	char *dir = scan_work_path(s, "cache-save");
	char *full = xasprintf("%s/save.tar", dir);
	struct strvec list = STRVEC_INIT;
	size_t i;
	int r;

	if ((r = fs_remove_tree(dir)) == 0)
		r = fs_mkdir_p(dir);
	for (i = 0; i < tags->nr && r == 0; i++) {
		struct strvec layers = STRVEC_INIT;
		struct cache_entry *e = cache_index_find(ix, names->v[i]);
		char hex[65];

		sha256_hex(hex, tags->v[i], strlen(tags->v[i]));
		free(e->path);
		e->path = xasprintf("images/%.32s.tar", hex);
		strvec_pushf(&outs, "%s/%.32s.tar", dir, hex);
		strvec_push(&list, tags->v[i]);
		r = docker_image_layers(s->docker, tags->v[i], &layers);
		from[i] = image_base(s, &layers, &bases[i]);
		parts[i].tag = tags->v[i];
		parts[i].base = &bases[i];
		strvec_release(&layers);
	}
	for (i = 0; i < tags->nr; i++)
		parts[i].out = outs.v[i];
	if (r == 0 && (r = docker_image_save(s->docker, strvec_list(&list),
					     full)) == 0)
		r = image_split(full, parts, tags->nr);
	for (i = 0; i < tags->nr; i++) {
		struct cache_entry *e = cache_index_find(ix, names->v[i]);
		struct stat st;

		if (r == 0 && stat(outs.v[i], &st) != 0)
			r = crs_error_set(CRS_ERR, "%s: %s", outs.v[i],
					  strerror(errno));
		if (r == 0)
			r = cache_root_put(imgfd, strrchr(e->path, '/') + 1,
					   outs.v[i]);
		if (r != 0)
			continue;
		free(e->base);
		e->base = from[i] ? xstrdup(from[i]) : NULL;
		e->size = st.st_size;
		log_info("cache: saved %s (%.1f MiB; %zu layer(s) of %s left "
			 "out)", tags->v[i], (double)e->size / (1 << 20),
			 parts[i].dropped, from[i] ? from[i] : "no known base");
	}
	if (r != 0) {
		/* the next scan builds them again */
		log_warn("cache: cannot save %zu image(s): %s", tags->nr,
			 crs_error_last());
		crs_error_clear();
		for (i = 0; i < tags->nr; i++) {
			struct cache_entry *e = cache_index_find(ix,
								 names->v[i]);

			if (e && e->path)
				unlinkat(imgfd, strrchr(e->path, '/') + 1, 0);
			cache_index_remove(ix, names->v[i]);
		}
	}
	fs_remove_tree(dir);
	crs_error_clear();
	free(dir);
	for (i = 0; i < tags->nr; i++)
		strvec_release(&bases[i]);
	free(bases);
	free(parts);
	free(from);
	strvec_release(&outs);
	strvec_release(&list);
	free(full);
	return r;
}

/* Bytes of the regular files directly in the folder `fd` (closed). */
static int64_t dir_bytes(int fd)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	int64_t n = 0;

	if (!d) {
		close(fd);
		return 0;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (fstatat(dirfd(d), de->d_name, &st,
			    AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
			n += st.st_size;
	}
	closedir(d);
	return n;
}

/* Entries for this scan's corpora, marked used. */
static void note_corpora(struct scan *s, struct cache_index *ix,
			 int64_t now)
{
	for (size_t i = 0; i < s->state.harnesses_nr; i++) {
		const char *h = s->state.harnesses[i];
		char *rel = xasprintf("corpus/%s/%s", s->state.project, h);
		char *name = xasprintf("corpus:%s/%s", s->state.project, h);
		struct cache_entry *e;
		int64_t size;
		int fd;

		if (cache_root_dir(s, rel, 0, &fd) != 0) {
			crs_error_clear();
		} else {
			size = dir_bytes(fd);
			e = cache_index_put(ix, name);
			if (!e->path || e->size != size)
				ix->dirty = 1;
			free(e->path);
			e->path = xstrdup(rel);
			e->size = size;
			cache_index_touch(ix, e, now, CACHE_TOUCH_GRANULARITY);
		}
		free(rel);
		free(name);
	}
}

/* The archive of crs-ci before this index: every image, base ones too. */
static void drop_old_layout(int imgfd, struct cache_index *ix)
{
	struct stat st;

	if (!fstatat(imgfd, "images.tar", &st, AT_SYMLINK_NOFOLLOW) ||
	    !fstatat(imgfd, "index.json", &st, AT_SYMLINK_NOFOLLOW)) {
		log_info("cache: removing the single-archive cache of an "
			 "older crs-ci");
		unlinkat(imgfd, "images.tar", 0);
		unlinkat(imgfd, "index.json", 0);
		ix->dirty = 1;
	}
}

/* `bytes` as "412 MiB", "1.5 GiB" (binary units) into out[len]. */
static void cache_size_format(char *out, size_t len, int64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB",
					     "TiB" };
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1024 && u + 1 < ARRAY_NR(units)) {
		v /= 1024;
		u++;
	}
	if (u == 0 || v >= 100 || v == (double)(int64_t)v)
		snprintf(out, len, "%.0f %s", v, units[u]);
	else
		snprintf(out, len, "%.1f %s", v, units[u]);
}

static void log_size(const struct scan *s, const struct cache_index *ix,
		     size_t evicted)
{
	char size[32], cap[32];

	cache_size_format(size, sizeof(size), cache_index_size(ix));
	cache_size_format(cap, sizeof(cap), cache_cap(s));
	log_info("cache: %s in %zu entries (cap %s), evicted %zu", size,
		 ix->nr, cap, evicted);
}

int cache_save_images(struct scan *s)
{
	struct cache_index ix = CACHE_INDEX_INIT;
	struct strvec tags = STRVEC_INIT, gone = STRVEC_INIT;
	struct strvec fresh = STRVEC_INIT, names = STRVEC_INIT;
	int64_t now = (int64_t)time(NULL);
	size_t evicted;
	int root, imgfd = -1, r = 0;

	if (!s->opts->cache_dir)
		return 0;
	if ((r = cache_index_open(s, &ix, &root)) != 0)
		goto out;
	if ((r = cache_root_dir(s, "images", 1, &imgfd)) == CRS_EINPUT) {
		/* a link there: the images are not kept, the rest is */
		log_warn("cache: %s; no image is kept", crs_error_last());
		crs_error_clear();
		r = 0;
	} else if (r != 0) {
		goto out;
	} else if (!s->opts->no_cache_images) {
		/* --cache-images no: neither loaded nor saved */
		drop_old_layout(imgfd, &ix);
		scan_images(s, &tags);
	}
	for (size_t i = 0; i < tags.nr; i++) {
		char *name = xasprintf("image:%s", tags.v[i]), *id = NULL;
		struct cache_entry *e = cache_index_find(&ix, name);

		if (docker_image_exists(s->docker, tags.v[i], &id) != 0) {
			crs_error_clear();
		} else if (e && e->id && !strcmp(e->id, id) &&
			   cache_root_has(s, e->path, NULL)) {
			cache_index_touch(&ix, e, now,
					  CACHE_TOUCH_GRANULARITY);
		} else {
			e = cache_index_put(&ix, name);
			ix.dirty = 1;
			e->last_used = now;
			free(e->id);
			e->id = xstrdup(id);
			strvec_push(&fresh, tags.v[i]);
			strvec_push(&names, name);
		}
		free(name);
		free(id);
	}
	if (fresh.nr)
		save_images(s, &ix, imgfd, &fresh, &names);
	note_corpora(s, &ix, now);
	evicted = cache_index_evict(&ix, cache_cap(s), &gone);
	for (size_t i = 0; i < gone.nr; i++) {
		log_info("cache: evicted %s (least recently used)", gone.v[i]);
		cache_root_remove(s, gone.v[i]);
		crs_error_clear();
	}
	log_size(s, &ix, evicted);
	if (ix.dirty)
		r = cache_index_save(&ix, root);
out:
	if (imgfd >= 0)
		close(imgfd);
	strvec_release(&tags);
	strvec_release(&gone);
	strvec_release(&fresh);
	strvec_release(&names);
	cache_index_release(&ix);
	return r;
}

/*
 * The folder of harness `h`'s corpus in the cache (made with `mkdirs`),
 * or -1 when there is none; one reached through a link is passed over
 * with a warning naming it.
 */
static int corpus_dir(struct scan *s, const char *h, int mkdirs)
{
	char *rel = xasprintf("corpus/%s/%s", s->state.project, h);
	int fd = -1, r = cache_root_dir(s, rel, mkdirs, &fd);

	if (r == CRS_EINPUT)
		log_warn("cache: %s; the cached corpus of %s is passed over",
			 crs_error_last(), h);
	if (r != 0)
		crs_error_clear();
	free(rel);
	return r == 0 ? fd : -1;
}

/* Copy the cached corpus of `h` into the folder `to` (opened here). */
static int corpus_from_cache(struct scan *s, const char *h, const char *to,
			     size_t *n)
{
	int from = corpus_dir(s, h, 0), tofd = -1, r = 0;
	char *shown;

	*n = 0;
	if (from < 0)
		return 0;
	shown = xasprintf("%s/corpus/%s/%s", s->opts->cache_dir,
			  s->state.project, h);
	if ((r = fs_mkdir_p(to)) == 0 && (r = fs_open_dir(&tofd, to)) == 0)
		r = cache_copy_files(from, tofd, shown, 1, CORPUS_FILES_MAX,
				     CORPUS_FILE_MAX, n);
	if (tofd >= 0)
		close(tofd);
	close(from);
	free(shown);
	return r;
}

int cache_corpus_stage(struct scan *s, const char *h, char **dir_out)
{
	char *dir = scan_work_path(s, "cache-corpus/%s", h);
	char *parent = scan_work_path(s, "cache-corpus");
	size_t n = 0;
	int r = 0;

	*dir_out = NULL;
	if (!s->opts->cache_dir)
		goto out;
	/* fresh for this scan: nothing found there is taken */
	if ((r = fs_remove_tree(dir)) != 0 || (r = fs_mkdir_p(parent)) != 0 ||
	    (r = fs_mkdir_new(dir)) != 0 ||
	    (r = corpus_from_cache(s, h, dir, &n)) != 0)
		goto out;
	if (n) {
		*dir_out = dir;
		dir = NULL;	/* transferred */
	}
out:
	free(dir);
	free(parent);
	return r;
}

int cache_corpus_in(struct scan *s, const char *h, const char *seeds_dir)
{
	size_t n = 0;
	int r;

	if (!s->opts->cache_dir)
		return 0;
	r = corpus_from_cache(s, h, seeds_dir, &n);
	if (r == 0 && n)
		log_info("cache: %zu corpus file(s) of %s handed to the CRSs",
			 n, h);
	return r;
}

int cache_corpus_out(struct scan *s, const char *h, const char *seeds_dir)
{
	int from = -1, to, r;
	size_t n = 0;

	if (!s->opts->cache_dir)
		return 0;
	if ((r = fs_open_dir(&from, seeds_dir)) != 0) {
		if (r == CRS_ENOTFOUND) {
			crs_error_clear();
			r = 0;
		}
		return r;
	}
	if ((to = corpus_dir(s, h, 1)) >= 0) {
		r = cache_copy_files(from, to, seeds_dir, 0, CORPUS_FILES_MAX,
				     CORPUS_FILE_MAX, &n);
		close(to);
	}
	close(from);
	if (r == 0 && to >= 0)
		log_info("cache: %zu new corpus file(s) of %s kept", n, h);
	return r;
}
