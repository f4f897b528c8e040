/* SPDX-License-Identifier: Apache-2.0 */
/*
 * image_strip.c - a `docker save` archive without its base image's layers
 *
 * Three passes over the archive with libarchive: read manifest.json, read
 * the image configs it names (their rootfs.diff_ids line up with the
 * manifest's Layers), then copy every entry but the base's layer files.
 * The archive comes from the engine (trusted) but is bounded anyway.
 */
#include "runner/image_strip.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/strset.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STRIP_JSON_MAX ((size_t)4 << 20)
#define STRIP_CHUNK 65536

static int strip_error(struct archive *a, const char *path)
{
	return crs_error_set(CRS_ERR, "%s: tar: %s", path,
			     archive_error_string(a) ?
			     archive_error_string(a) : "read failed");
}

static struct archive *strip_open(const char *path)
{
	struct archive *a = archive_read_new();

	archive_read_support_format_tar(a);
	if (archive_read_open_filename(a, path, STRIP_CHUNK) != ARCHIVE_OK) {
		strip_error(a, path);
		archive_read_free(a);
		return NULL;
	}
	return a;
}

/* Parse the entries of `in` named in `want` as JSON into `got`; with
 * `links`, note each symbolic link's target there by name. */
static int read_json_entries(const char *in, struct strset *want,
			     json_t *got, json_t *links)
{
	struct archive *a = strip_open(in);
	struct archive_entry *e;
	int r = 0, st;

	if (!a)
		return CRS_ERR;
	while ((st = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);
		struct buf b = BUF_INIT;
		json_t *j;
		la_ssize_t n;
		char chunk[8192];

		if (links && archive_entry_filetype(e) == AE_IFLNK &&
		    archive_entry_symlink(e))
			json_object_set_new(links, name, json_string(
				archive_entry_symlink(e)));
		if (!strset_has(want, name))
			continue;
		if (archive_entry_size(e) > (la_int64_t)STRIP_JSON_MAX) {
			r = crs_error_set(CRS_EINPUT, "%s: %s: over %zu bytes",
					  in, name, STRIP_JSON_MAX);
			break;
		}
		while ((n = archive_read_data(a, chunk, sizeof(chunk))) > 0)
			buf_add(&b, chunk, (size_t)n);
		if (n < 0) {
			buf_release(&b);
			r = strip_error(a, in);
			break;
		}
		j = json_loadb(b.ptr ? b.ptr : "", b.len, 0, NULL);
		buf_release(&b);
		if (!j) {
			r = crs_error_set(CRS_EINPUT, "%s: %s: not JSON", in,
					  name);
			break;
		}
		json_object_set_new(got, name, j);
	}
	if (r == 0 && st != ARCHIVE_EOF)
		r = strip_error(a, in);
	archive_read_free(a);
	return r;
}

/* The layer files of images that start with all of `base`. */
static int base_layer_files(const char *in, json_t *manifest,
			    json_t *configs, const struct strvec *base,
			    json_t *drop)
{
	json_t *m;
	size_t i;

	json_array_foreach(manifest, i, m) {
		const char *cfg = json_string_value(json_object_get(m,
								    "Config"));
		json_t *layers = json_object_get(m, "Layers");
		json_t *ids = json_object_get(json_object_get(
			json_object_get(configs, cfg ? cfg : ""), "rootfs"),
			"diff_ids");
		size_t k;

		if (!cfg || !json_is_array(layers) || !json_is_array(ids) ||
		    json_array_size(ids) != json_array_size(layers))
			return crs_error_set(CRS_EINPUT, "%s: manifest.json[%zu]"
					     ": no config with diff_ids for "
					     "its Layers", in, i);
		if (base->nr == 0 || json_array_size(ids) < base->nr)
			continue;
		for (k = 0; k < base->nr; k++)
			if (!json_is_string(json_array_get(ids, k)) ||
			    strcmp(json_string_value(json_array_get(ids, k)),
				   base->v[k]))
				break;
		if (k < base->nr)
			continue;
		for (k = 0; k < base->nr; k++)
			if (json_is_string(json_array_get(layers, k)))
				json_object_set_new(drop, json_string_value(
					json_array_get(layers, k)), json_true());
	}
	return 0;
}

/*
 * docker save writes a layer that occurs twice once, the second as a link
 * "<dir>/layer.tar" -> "../<other dir>/layer.tar". A kept layer may so
 * point at a base layer's file (an empty layer, say): keep that file.
 */
static void keep_link_targets(json_t *drop, json_t *links)
{
	const char *name;
	json_t *v;

	json_object_foreach(links, name, v) {
		const char *t = json_string_value(v);
		const char *slash = strrchr(name, '/');
		char *target;

		if (json_object_get(drop, name) || !t)
			continue;
		if (!strncmp(t, "../", 3))
			target = xstrdup(t + 3);
		else if (slash)
			target = xasprintf("%.*s/%s", (int)(slash - name), name,
					   t);
		else
			target = xstrdup(t);
		json_object_del(drop, target);
		free(target);
	}
}

/* Copy the entries of `in` not in `drop` to `out`. */
static int copy_without(const char *in, const char *out,
			json_t *drop, size_t *dropped)
{
	struct archive *a = strip_open(in), *w = NULL;
	struct archive_entry *e;
	int r = 0, st;

	if (!a)
		return CRS_ERR;
	w = archive_write_new();
	if (archive_write_set_format_pax_restricted(w) != ARCHIVE_OK ||
	    archive_write_open_filename(w, out) != ARCHIVE_OK) {
		r = strip_error(w, out);
		goto out;
	}
	while ((st = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const void *block;
		size_t len;
		la_int64_t off;

		if (json_object_get(drop, archive_entry_pathname(e))) {
			(*dropped)++;
			continue;
		}
		if (archive_write_header(w, e) != ARCHIVE_OK) {
			r = strip_error(w, out);
			goto out;
		}
		while ((st = archive_read_data_block(a, &block, &len, &off)) ==
		       ARCHIVE_OK)
			if (archive_write_data(w, block, len) != (la_ssize_t)len) {
				r = strip_error(w, out);
				goto out;
			}
		if (st != ARCHIVE_EOF) {
			r = strip_error(a, in);
			goto out;
		}
	}
	if (st != ARCHIVE_EOF)
		r = strip_error(a, in);
	else if (archive_write_close(w) != ARCHIVE_OK)
		r = strip_error(w, out);
out:
	archive_read_free(a);
	archive_write_free(w);
	return r;
}

int image_strip(const char *in, const char *out, const struct strvec *base,
		size_t *dropped)
{
	struct strset want = STRSET_INIT;
	json_t *got = json_object(), *drop = json_object();
	json_t *links = json_object(), *manifest, *m;
	char *tmp = xasprintf("%s.part", out);
	size_t i;
	int r;

	*dropped = 0;
	strset_add(&want, "manifest.json");
	if ((r = read_json_entries(in, &want, got, links)) != 0)
		goto out;
	manifest = json_object_get(got, "manifest.json");
	if (!json_is_array(manifest)) {
		r = crs_error_set(CRS_EINPUT, "%s: manifest.json: missing or "
				  "not an array", in);
		goto out;
	}
	json_incref(manifest);
	json_array_foreach(manifest, i, m) {
		const char *cfg = json_string_value(json_object_get(m,
								    "Config"));
		if (cfg)
			strset_add(&want, cfg);
	}
	r = read_json_entries(in, &want, got, NULL);
	if (r == 0)
		r = base_layer_files(in, manifest, got, base, drop);
	if (r == 0)
		keep_link_targets(drop, links);
	json_decref(manifest);
	if (r == 0 && (r = copy_without(in, tmp, drop, dropped)) == 0 &&
	    rename(tmp, out) != 0)
		r = crs_error_set(CRS_ERR, "rename to '%s': %s", out,
				  strerror(errno));
	if (r != 0)
		unlink(tmp);
out:
	strset_release(&want);
	json_decref(drop);
	json_decref(links);
	json_decref(got);
	free(tmp);
	return r;
}
