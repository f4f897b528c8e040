/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cache.c - images and corpora kept in --cache-dir between CI runs
 *
 * Layout:
 *   <cache>/images/images.tar    one `docker save` of every image the
 *                                last scan used (layers stored once)
 *   <cache>/images/index.json    {"images": {"<tag>": "<image id>"}}
 *   <cache>/corpus/<project>/<harness>/<file>
 * Images are content-addressed by tag already, so the index tells at once
 * whether the engine lacks anything; the archive is rewritten only when
 * the set changed. Corpus files come from CRSs: regular files only, named
 * by libCRS (md5), capped in number.
 */
#include "runner/cache.h"
#include "runner/base_images.h"
#include "runner/scan.h"
#include "runner/scan_opts.h"
#include "runner/engine/docker.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CORPUS_FILES_MAX 20000
#define CORPUS_FILE_MAX (1u << 20)

static char *cache_path(const struct scan *s, const char *rel)
{
	return xasprintf("%s/%s", s->opts->cache_dir, rel);
}

/* Every image tag the scan used, from its state. */
static void scan_images(const struct scan *s, struct strvec *tags)
{
	const struct scan_state *st = &s->state;

	if (st->target_image)
		strvec_push(tags, st->target_image);
	if (st->head_image)
		strvec_push(tags, st->head_image);
	if (st->base_image)
		strvec_push(tags, st->base_image);
	for (size_t i = 0; i < st->images_nr; i++)
		strvec_push(tags, st->images[i].value);
	strvec_push(tags, base_images_runner_name(s));
}

int cache_restore_images(struct scan *s)
{
	char *index = NULL, *tar = NULL;
	json_t *j = NULL, *v;
	json_error_t jerr;
	const char *tag;
	int missing = 0, r = 0;

	if (!s->opts->cache_dir)
		return 0;
	index = cache_path(s, "images/index.json");
	tar = cache_path(s, "images/images.tar");
	if (!fs_exists(index) || !fs_exists(tar))
		goto out;
	if (!(j = json_load_file(index, 0, &jerr))) {
		log_warn("cache: %s:%d: %s; ignoring it", index, jerr.line,
			 jerr.text);
		goto out;
	}
	json_object_foreach(json_object_get(j, "images"), tag, v) {
		char *id = NULL;

		if (docker_image_exists(s->docker, tag, &id) != 0 ||
		    !json_is_string(v) || strcmp(id, json_string_value(v)))
			missing++;
		crs_error_clear();
		free(id);
	}
	if (!missing) {
		log_info("cache: every cached image is on the engine");
		goto out;
	}
	log_info("cache: loading %d missing image(s) from %s", missing, tar);
	if ((r = docker_image_load(s->docker, tar)) != 0)
		r = crs_error_prefix("cache");
out:
	json_decref(j);
	free(index);
	free(tar);
	return r;
}

int cache_save_images(struct scan *s)
{
	struct strvec tags = STRVEC_INIT;
	char *dir = NULL, *index = NULL, *tar = NULL, *text = NULL;
	json_t *now = json_object(), *old = NULL, *doc = NULL;
	int r = 0;

	if (!s->opts->cache_dir)
		goto out;
	dir = cache_path(s, "images");
	index = cache_path(s, "images/index.json");
	tar = cache_path(s, "images/images.tar");
	scan_images(s, &tags);
	for (size_t i = 0; i < tags.nr; i++) {
		char *id = NULL;

		if (docker_image_exists(s->docker, tags.v[i], &id) == 0)
			json_object_set_new(now, tags.v[i], json_string(id));
		crs_error_clear();
		free(id);
	}
	old = fs_exists(index) ? json_load_file(index, 0, NULL) : NULL;
	if (old && json_equal(json_object_get(old, "images"), now) &&
	    fs_exists(tar)) {
		log_info("cache: images unchanged");
		goto out;
	}
	log_info("cache: saving %zu image(s) to %s", json_object_size(now),
		 tar);
	if ((r = fs_mkdir_p(dir)) != 0 ||
	    (r = docker_image_save(s->docker, strvec_list(&tags), tar)) != 0)
		goto out;
	doc = json_pack("{s:O}", "images", now);
	text = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);
	r = fs_write_file_atomic(index, text, strlen(text));
out:
	strvec_release(&tags);
	json_decref(now);
	json_decref(old);
	json_decref(doc);
	free(text);
	free(dir);
	free(index);
	free(tar);
	return r;
}

/* Copy regular files of `from` into `to` that `to` lacks; count them. */
static int copy_new_files(const char *from, const char *to, size_t *copied)
{
	DIR *d = opendir(from);
	struct dirent *de;
	int r = 0;

	*copied = 0;
	if (!d)
		return 0;
	if ((r = fs_mkdir_p(to)) != 0) {
		closedir(d);
		return r;
	}
	while ((de = readdir(d)) && r == 0 && *copied < CORPUS_FILES_MAX) {
		char *src = xasprintf("%s/%s", from, de->d_name);
		char *dst = xasprintf("%s/%s", to, de->d_name);
		struct stat st;

		if (de->d_name[0] != '.' && lstat(src, &st) == 0 &&
		    S_ISREG(st.st_mode) && st.st_size <= CORPUS_FILE_MAX &&
		    !fs_exists(dst)) {
			r = fs_copy_file(src, dst);
			(*copied)++;
		}
		free(src);
		free(dst);
	}
	closedir(d);
	return r;
}

int cache_corpus_in(struct scan *s, const char *h, const char *seeds_dir)
{
	char *from;
	size_t n = 0;
	int r;

	if (!s->opts->cache_dir)
		return 0;
	from = xasprintf("%s/corpus/%s/%s", s->opts->cache_dir,
			 s->state.project, h);
	r = copy_new_files(from, seeds_dir, &n);
	if (r == 0 && n)
		log_info("cache: %zu corpus file(s) of %s handed to the CRSs",
			 n, h);
	free(from);
	return r;
}

int cache_corpus_out(struct scan *s, const char *h, const char *seeds_dir)
{
	char *to;
	size_t n = 0;
	int r;

	if (!s->opts->cache_dir)
		return 0;
	to = xasprintf("%s/corpus/%s/%s", s->opts->cache_dir, s->state.project,
		       h);
	r = copy_new_files(seeds_dir, to, &n);
	if (r == 0)
		log_info("cache: %zu new corpus file(s) of %s kept", n, h);
	free(to);
	return r;
}
