/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_image_restore.c - a cached image archive checked before loading
 * (runner/exec/image_restore.c)
 *
 * The archive passes only with one image, tagged exactly as the index
 * says, whose config hashes to the index's id; its copy then tags it with
 * the temporary name only, without the archive's other name sources.
 * Another tag, a second tag, a second image, another id, no manifest:
 * refused, nothing left to load.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "runner/exec/image_restore.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TAG "crs-ci-target/recparse:abc"
#define TMP_TAG "crs-ci-restore/0011223344556677:tmp"
#define CONFIG "{\"rootfs\": {\"diff_ids\": []}}"

static char dir[] = "/tmp/test_image_restore.XXXXXX";
static char id[80];

static void add(struct archive *w, const char *name, const char *data)
{
	struct archive_entry *e = archive_entry_new();

	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, (la_int64_t)strlen(data));
	assert_int_equal(archive_write_header(w, e), ARCHIVE_OK);
	assert_int_equal(archive_write_data(w, data, strlen(data)),
			 (la_ssize_t)strlen(data));
	archive_entry_free(e);
}

/* An archive with `manifest` (NULL: none); its path in path[256]. */
static void make(char path[256], const char *manifest)
{
	struct archive *w = archive_write_new();

	snprintf(path, 256, "%s/in.tar", dir);
	archive_write_set_format_pax_restricted(w);
	assert_int_equal(archive_write_open_filename(w, path), ARCHIVE_OK);
	add(w, "abc.json", CONFIG);
	add(w, "l1/layer.tar", "layer bytes");
	add(w, "repositories", "{\"crs-ci/base-runner\": {\"stand-in\": "
	    "\"abc\"}}");
	if (manifest)
		add(w, "manifest.json", manifest);
	assert_int_equal(archive_write_close(w), ARCHIVE_OK);
	archive_write_free(w);
}

static int retag(const char *manifest, const char *want_id, char out[256])
{
	char in[256];
	int fd, r;

	make(in, manifest);
	snprintf(out, 256, "%s/out.tar", dir);
	unlink(out);
	fd = open(in, O_RDONLY);
	assert_true(fd >= 0);
	r = image_archive_retag(fd, "images/x.tar", TAG, want_id, TMP_TAG,
				out);
	close(fd);
	return r;
}

static void refused(const char *manifest, const char *want_id,
		    const char *why)
{
	char out[256];

	assert_int_equal(retag(manifest, want_id, out), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), why));
	assert_false(fs_exists(out));
	crs_error_clear();
}

static void test_good(void **st)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	char out[256], text[4096];
	int names = 0;

	(void)st;
	assert_int_equal(retag("[{\"Config\": \"abc.json\", \"RepoTags\": [\""
			       TAG "\"], \"Layers\": [\"l1/layer.tar\"]}]", id,
			       out), 0);
	archive_read_support_format_tar(a);
	assert_int_equal(archive_read_open_filename(a, out, 4096), ARCHIVE_OK);
	while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
		const char *n = archive_entry_pathname(e);
		la_ssize_t len;

		names++;
		assert_string_not_equal(n, "repositories");
		if (strcmp(n, "manifest.json"))
			continue;
		len = archive_read_data(a, text, sizeof(text) - 1);
		assert_true(len > 0);
		text[len] = 0;
		assert_non_null(strstr(text, TMP_TAG));
		assert_null(strstr(text, TAG));
	}
	archive_read_free(a);
	assert_int_equal(names, 3);	/* config, layer, manifest */
}

static void test_refused(void **st)
{
	(void)st;
	refused("[{\"Config\": \"abc.json\", \"RepoTags\": "
		"[\"crs-ci/base-runner:stand-in\"], \"Layers\": []}]", id,
		"tags the image crs-ci/base-runner:stand-in, not only " TAG);
	refused("[{\"Config\": \"abc.json\", \"RepoTags\": [\"" TAG "\", "
		"\"crs-ci/base-runner:stand-in\"], \"Layers\": []}]", id,
		"and more");
	refused("[{\"Config\": \"abc.json\", \"RepoTags\": [\"" TAG "\"], "
		"\"Layers\": []}, {\"Config\": \"abc.json\", \"RepoTags\": "
		"[\"x/y:z\"], \"Layers\": []}]", id, "not one image");
	refused("[{\"Config\": \"abc.json\", \"RepoTags\": [\"" TAG "\"], "
		"\"Layers\": []}]", "sha256:0000", "not the image sha256:0000");
	refused("[{\"Config\": \"l1/layer.tar\", \"RepoTags\": [\"" TAG "\"], "
		"\"Layers\": []}]", id, "the index records");
	refused(NULL, id, "not one image");
	refused("{", id, "not one image");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_refused),
	};
	char hex[65];
	int r;

	if (!mkdtemp(dir))
		return 1;
	sha256_hex(hex, CONFIG, strlen(CONFIG));
	snprintf(id, sizeof(id), "sha256:%s", hex);
	r = cmocka_run_group_tests(tests, NULL, NULL);
	fs_remove_tree(dir);
	return r;
}
