/* SPDX-License-Identifier: Apache-2.0 */
/*
 * image_strip.c - per-image archives from one `docker save`, without the
 * base images' layers
 *
 * Three libarchive passes over the archive; bounded even though the
 * engine is trusted.
 *
 * Details: docs/cache.md; design notes: docs/internals.md.
 */
#include "runner/exec/image_strip.h"
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

/* What one part keeps: names, and folders by their "<dir>/" prefix. */
struct part_keep {
	json_t *names;
	json_t *dirs;
	json_t *manifest;	/* [its manifest entry] */
	struct archive *w;
	char *tmp;
};

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

/* The manifest entry of the image tagged `tag`, or NULL. Borrowed. */
static json_t *manifest_entry(json_t *manifest, const char *tag)
{
	json_t *m, *t;
	size_t i, k;

	json_array_foreach(manifest, i, m)
		json_array_foreach(json_object_get(m, "RepoTags"), k, t)
			if (json_is_string(t) && !strcmp(json_string_value(t),
							 tag))
				return m;
	return NULL;
}

/* The folder prefix "<dir>/" of `name`, into out[len]; "" without one. */
static void top_dir(char *out, size_t len, const char *name)
{
	const char *slash = strchr(name, '/');
	size_t n = slash ? (size_t)(slash - name) + 1 : 0;

	if (n >= len)
		n = 0;
	memcpy(out, name, n);
	out[n] = '\0';
}

/* Keep layer file `path`: its whole folder in the classic layout. */
static void keep_layer(struct part_keep *k, const char *path)
{
	char dir[256];

	top_dir(dir, sizeof(dir), path);
	if (*dir && !strcmp(path + strlen(dir), "layer.tar"))
		json_object_set_new(k->dirs, dir, json_true());
	json_object_set_new(k->names, path, json_true());
}

/* Does part `k` keep entry `name`? */
static int part_wants(const struct part_keep *k, const char *name)
{
	char dir[256];

	if (!name)
		return 0;
	if (json_object_get(k->names, name))
		return 1;
	top_dir(dir, sizeof(dir), name);
	return *dir && json_object_get(k->dirs, dir) != NULL;
}

/*
 * What part `p` keeps. A kept layer that is docker save's link to another
 * layer's file ("../<dir>/layer.tar", the same layer held twice) keeps
 * that file's folder too, even a base layer's (an empty layer, say).
 */
static int plan_part(const char *in, json_t *manifest, json_t *configs,
		     json_t *links, struct image_part *p, struct part_keep *k)
{
	json_t *m = manifest_entry(manifest, p->tag);
	const char *cfg = json_string_value(json_object_get(m, "Config"));
	json_t *layers = json_object_get(m, "Layers");
	json_t *ids = json_object_get(json_object_get(
		json_object_get(configs, cfg ? cfg : ""), "rootfs"), "diff_ids");
	size_t skip = 0, i;
	json_t *l;

	if (!m)
		return crs_error_set(CRS_EINPUT, "%s: manifest.json: no image "
				     "tagged %s", in, p->tag);
	if (!cfg || !json_is_array(layers) || !json_is_array(ids) ||
	    json_array_size(ids) != json_array_size(layers))
		return crs_error_set(CRS_EINPUT, "%s: manifest.json: %s has no "
				     "config with diff_ids for its Layers", in,
				     p->tag);
	if (p->base && p->base->nr && json_array_size(ids) >= p->base->nr) {
		for (skip = 0; skip < p->base->nr; skip++)
			if (!json_is_string(json_array_get(ids, skip)) ||
			    strcmp(json_string_value(json_array_get(ids, skip)),
				   p->base->v[skip]))
				break;
		if (skip < p->base->nr)
			skip = 0;
	}
	json_object_set_new(k->names, cfg, json_true());
	json_array_foreach(layers, i, l) {
		const char *path = json_string_value(l), *t;

		if (!path || i < skip)
			continue;
		keep_layer(k, path);
		t = json_string_value(json_object_get(links, path));
		if (t && !strncmp(t, "../", 3))
			keep_layer(k, t + 3);
	}
	p->dropped = 0;
	for (i = 0; i < skip; i++)
		if (!part_wants(k, json_string_value(json_array_get(layers,
								    i))))
			p->dropped++;
	k->manifest = json_pack("[O]", m);
	return 0;
}

static int write_manifest(struct part_keep *k)
{
	char *text = json_dumps(k->manifest, JSON_COMPACT);
	struct archive_entry *e = archive_entry_new();
	int r = 0;

	archive_entry_set_pathname(e, "manifest.json");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, (la_int64_t)strlen(text));
	if (archive_write_header(k->w, e) != ARCHIVE_OK ||
	    archive_write_data(k->w, text, strlen(text)) !=
	    (la_ssize_t)strlen(text) || archive_write_close(k->w) != ARCHIVE_OK)
		r = strip_error(k->w, k->tmp);
	archive_entry_free(e);
	free(text);
	return r;
}

/* Copy each entry of `in` to the parts that keep it. */
static int copy_parts(const char *in, struct part_keep *keep, size_t nr)
{
	struct archive *a = strip_open(in);
	struct archive_entry *e;
	int r = 0, st;
	char *want = xcalloc(nr ? nr : 1, 1);

	if (!a) {
		free(want);
		return CRS_ERR;
	}
	while (r == 0 && (st = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);
		const void *block;
		size_t len, any = 0;
		la_int64_t off;

		if (!strcmp(name, "manifest.json") ||
		    !strcmp(name, "repositories"))
			continue;
		for (size_t i = 0; i < nr && r == 0; i++) {
			want[i] = (char)part_wants(&keep[i], name);
			any += (size_t)want[i];
			if (want[i] && archive_write_header(keep[i].w, e) !=
			    ARCHIVE_OK)
				r = strip_error(keep[i].w, keep[i].tmp);
		}
		if (!any || r != 0)
			continue;
		while (r == 0 && (st = archive_read_data_block(a, &block, &len,
							       &off)) ==
		       ARCHIVE_OK)
			for (size_t i = 0; i < nr && r == 0; i++)
				if (want[i] && archive_write_data(keep[i].w,
				    block, len) != (la_ssize_t)len)
					r = strip_error(keep[i].w, keep[i].tmp);
		if (r == 0 && st != ARCHIVE_EOF)
			r = strip_error(a, in);
	}
	if (r == 0 && st != ARCHIVE_EOF)
		r = strip_error(a, in);
	for (size_t i = 0; i < nr && r == 0; i++)
		r = write_manifest(&keep[i]);
	archive_read_free(a);
	free(want);
	return r;
}

int image_split(const char *in, struct image_part *parts, size_t nr)
{
	struct strset want = STRSET_INIT;
	struct part_keep *keep = xcalloc(nr ? nr : 1, sizeof(*keep));
	json_t *got = json_object(), *links = json_object(), *manifest, *m;
	size_t i, opened = 0;
	int r;

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
	for (i = 0; i < nr && r == 0; i++) {
		keep[i].names = json_object();
		keep[i].dirs = json_object();
		r = plan_part(in, manifest, got, links, &parts[i], &keep[i]);
	}
	json_decref(manifest);
	for (i = 0; i < nr && r == 0; i++, opened++) {
		keep[i].tmp = xasprintf("%s.part", parts[i].out);
		keep[i].w = archive_write_new();
		if (archive_write_set_format_pax_restricted(keep[i].w) !=
		    ARCHIVE_OK || archive_write_open_filename(keep[i].w,
		    keep[i].tmp) != ARCHIVE_OK)
			r = strip_error(keep[i].w, keep[i].tmp);
	}
	if (r == 0)
		r = copy_parts(in, keep, nr);
	for (i = 0; i < nr && r == 0; i++)
		if (rename(keep[i].tmp, parts[i].out) != 0)
			r = crs_error_set(CRS_ERR, "rename to '%s': %s",
					  parts[i].out, strerror(errno));
out:
	for (i = 0; i < nr; i++) {
		if (keep[i].w)
			archive_write_free(keep[i].w);
		if (r != 0 && i < opened) {
			unlink(keep[i].tmp);
			unlink(parts[i].out);
		}
		free(keep[i].tmp);
		json_decref(keep[i].names);
		json_decref(keep[i].dirs);
		json_decref(keep[i].manifest);
	}
	free(keep);
	strset_release(&want);
	json_decref(links);
	json_decref(got);
	return r;
}
