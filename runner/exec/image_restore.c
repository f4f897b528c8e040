/* SPDX-License-Identifier: Apache-2.0 */
/*
 * image_restore.c - a cached image archive checked, and renamed for loading
 *
 * One pass through the archive: each entry copied (its SHA-256 taken on
 * the way), the manifest held back, checked at the end against the
 * index's tag and id, and written with a temporary tag.
 *
 * Details: docs/cache.md; design notes: docs/internals.md.
 */
#include "runner/exec/image_restore.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/safe_io.h"
#include "common/xalloc.h"

#include <archive.h>
#include <archive_entry.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RESTORE_JSON_MAX ((size_t)4 << 20)
#define RESTORE_ENTRIES_MAX 100000
#define RESTORE_CHUNK 65536

struct retag {
	const char *shown;
	const char *out;
	struct archive *a, *w;
	json_t *digests;	/* entry name -> "sha256:<hex>" */
	struct buf manifest;
	int have_manifest;
};

static int retag_error(struct archive *a, const char *what)
{
	return crs_error_set(CRS_ERR, "%s: tar: %s", what,
			     archive_error_string(a) ?
			     archive_error_string(a) : "failed");
}

/* Names the engine could take tags from, besides manifest.json. */
static int names_source(const char *name)
{
	return !strcmp(name, "repositories") || !strcmp(name, "index.json") ||
		!strcmp(name, "oci-layout");
}

/* Copy the current entry's data to the output (unless `hold`), hashing
 * it; the manifest is kept in memory instead. */
static int copy_data(struct retag *t, struct archive_entry *e, int hold)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned int dn = 0;
	const void *block;
	size_t len;
	la_int64_t off;
	int st, r = 0;
	char hex[2 * EVP_MAX_MD_SIZE + 1];

	if (!md || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1) {
		EVP_MD_CTX_free(md);
		return crs_error_set(CRS_ERR, "%s: no SHA-256", t->shown);
	}
	while (r == 0 && (st = archive_read_data_block(t->a, &block, &len,
						       &off)) == ARCHIVE_OK) {
		EVP_DigestUpdate(md, block, len);
		if (hold) {
			if (t->manifest.len + len > RESTORE_JSON_MAX)
				r = crs_error_set(CRS_EINPUT, "%s: "
						  "manifest.json: over %zu "
						  "bytes", t->shown,
						  RESTORE_JSON_MAX);
			else
				buf_add(&t->manifest, block, len);
		} else if (archive_write_data(t->w, block, len) !=
			   (la_ssize_t)len) {
			r = retag_error(t->w, t->out);
		}
	}
	if (r == 0 && st != ARCHIVE_EOF)
		r = retag_error(t->a, t->shown);
	if (r == 0 && EVP_DigestFinal_ex(md, d, &dn) == 1) {
		for (unsigned int i = 0; i < dn; i++)
			snprintf(hex + 2 * i, 3, "%02x", d[i]);
		json_object_set_new(t->digests, archive_entry_pathname(e),
				    json_sprintf("sha256:%s", hex));
	}
	EVP_MD_CTX_free(md);
	return r;
}

static int copy_entries(struct retag *t)
{
	struct archive_entry *e;
	size_t n = 0;
	int st, r = 0;

	while (r == 0 && (st = archive_read_next_header(t->a, &e)) ==
	       ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);
		mode_t type = archive_entry_filetype(e);

		if (++n > RESTORE_ENTRIES_MAX)
			return crs_error_set(CRS_EINPUT, "%s: more than %d "
					     "entries", t->shown,
					     RESTORE_ENTRIES_MAX);
		if (!name || !safe_relpath_ok(name) || names_source(name) ||
		    archive_entry_hardlink(e) || (type != AE_IFREG &&
		    type != AE_IFDIR && type != AE_IFLNK))
			continue;
		if (!strcmp(name, "manifest.json")) {
			if (t->have_manifest++ || type != AE_IFREG)
				return crs_error_set(CRS_EINPUT, "%s: more "
						     "than one manifest.json",
						     t->shown);
			r = copy_data(t, e, 1);
			continue;
		}
		if (archive_write_header(t->w, e) != ARCHIVE_OK)
			return retag_error(t->w, t->out);
		if (type == AE_IFREG)
			r = copy_data(t, e, 0);
	}
	if (r == 0 && st != ARCHIVE_EOF)
		r = retag_error(t->a, t->shown);
	return r;
}

/* The manifest as loaded: checked, with `tmp_tag` as its only tag. */
static int check_manifest(struct retag *t, const char *want_tag,
			  const char *want_id, const char *tmp_tag,
			  char **text_out)
{
	json_t *j = t->have_manifest ? json_loadb(t->manifest.ptr ?
		t->manifest.ptr : "", t->manifest.len, 0, NULL) : NULL;
	json_t *m = json_array_get(j, 0), *tags = json_object_get(m,
								"RepoTags");
	const char *cfg = json_string_value(json_object_get(m, "Config"));
	const char *tag = json_string_value(json_array_get(tags, 0));
	const char *got = cfg ? json_string_value(json_object_get(t->digests,
								  cfg)) : NULL;
	int r = 0;

	if (!json_is_array(j) || json_array_size(j) != 1 ||
	    !json_is_object(m) || !cfg ||
	    !json_is_array(json_object_get(m, "Layers")))
		r = crs_error_set(CRS_EINPUT, "%s: manifest.json: not one "
				  "image with a Config and Layers", t->shown);
	else if (json_array_size(tags) != 1 || !tag || strcmp(tag, want_tag))
		r = crs_error_set(CRS_EINPUT, "%s: manifest.json: tags the "
				  "image %s%s, not only %s", t->shown,
				  tag ? tag : "(nothing)",
				  json_array_size(tags) > 1 ? " and more" : "",
				  want_tag);
	else if (!got || strcmp(got, want_id))
		r = crs_error_set(CRS_EINPUT, "%s: its config is %s, not the "
				  "image %s the index records", t->shown,
				  got ? got : "missing", want_id);
	if (r == 0) {
		json_object_set_new(m, "RepoTags", json_pack("[s]", tmp_tag));
		*text_out = json_dumps(j, JSON_COMPACT);
	}
	json_decref(j);
	return r;
}

static int write_manifest(struct retag *t, const char *text)
{
	struct archive_entry *e = archive_entry_new();
	size_t n = strlen(text);
	int r = 0;

	archive_entry_set_pathname(e, "manifest.json");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, (la_int64_t)n);
	if (archive_write_header(t->w, e) != ARCHIVE_OK ||
	    archive_write_data(t->w, text, n) != (la_ssize_t)n ||
	    archive_write_close(t->w) != ARCHIVE_OK)
		r = retag_error(t->w, t->out);
	archive_entry_free(e);
	return r;
}

int image_archive_retag(int in, const char *shown, const char *want_tag,
			const char *want_id, const char *tmp_tag,
			const char *out)
{
	struct retag t = { shown, out, archive_read_new(), archive_write_new(),
			   json_object(), BUF_INIT, 0 };
	char *text = NULL;
	int r;

	archive_read_support_format_tar(t.a);
	archive_write_set_format_pax_restricted(t.w);
	if (archive_read_open_fd(t.a, in, RESTORE_CHUNK) != ARCHIVE_OK) {
		r = retag_error(t.a, shown);
		goto out;
	}
	if (archive_write_open_filename(t.w, out) != ARCHIVE_OK) {
		r = retag_error(t.w, out);
		goto out;
	}
	if ((r = copy_entries(&t)) == 0 &&
	    (r = check_manifest(&t, want_tag, want_id, tmp_tag, &text)) == 0)
		r = write_manifest(&t, text);
out:
	archive_read_free(t.a);
	archive_write_free(t.w);
	if (r != 0)
		unlink(out);
	json_decref(t.digests);
	buf_release(&t.manifest);
	free(text);
	return r;
}
