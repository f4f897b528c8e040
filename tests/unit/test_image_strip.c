/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_image_strip.c - per-image archives from one `docker save`,
 * without the base's layers (runner/exec/image_strip.c)
 *
 * A hand-made archive in the classic `docker save` layout: an image of
 * three layers, the first the base's, and a second image on the same
 * base. Split with the base's diff ids, each archive holds its own config,
 * manifest and layers above the base, not the base layer nor the other
 * image's; when a kept layer is docker save's link to the base layer's
 * file (an identical layer), that file stays; a base the image does not
 * start with drops nothing; an archive without manifest.json, or without
 * the tag asked for, is refused and nothing is written.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "runner/exec/image_strip.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/strset.h"
#include "common/strvec.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[] = "/tmp/test_image_strip.XXXXXX";

static void add(struct archive *a, const char *name, const char *data,
		const char *link)
{
	struct archive_entry *e = archive_entry_new();

	archive_entry_set_pathname(e, name);
	archive_entry_set_perm(e, 0644);
	if (link) {
		archive_entry_set_filetype(e, AE_IFLNK);
		archive_entry_set_symlink(e, link);
		archive_entry_set_size(e, 0);
	} else {
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_size(e, (la_int64_t)strlen(data));
	}
	assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
	if (!link)
		archive_write_data(a, data, strlen(data));
	archive_entry_free(e);
}

/* The image: layers l1 (base, diff d1), l2 (d2), l3 (d3; a link to l1's
 * file when `linked`). */
static char *make_save(const char *name, int linked)
{
	char *path = malloc(256);
	struct archive *a = archive_write_new();

	snprintf(path, 256, "%s/%s", dir, name);
	archive_write_set_format_ustar(a);
	assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
	add(a, "l1/layer.tar", "base layer", NULL);
	add(a, "l1/json", "{}", NULL);
	add(a, "l2/layer.tar", "own layer", NULL);
	if (linked)
		add(a, "l3/layer.tar", NULL, "../l1/layer.tar");
	else
		add(a, "l3/layer.tar", "another", NULL);
	add(a, "l4/layer.tar", "other image", NULL);
	add(a, "cfg.json", "{\"rootfs\": {\"type\": \"layers\", \"diff_ids\": "
	    "[\"sha256:d1\", \"sha256:d2\", \"sha256:d3\"]}}", NULL);
	add(a, "cfg2.json", "{\"rootfs\": {\"type\": \"layers\", \"diff_ids\": "
	    "[\"sha256:d1\", \"sha256:d4\"]}}", NULL);
	add(a, "manifest.json", "[{\"Config\": \"cfg.json\", \"RepoTags\": "
	    "[\"crs-ci-target/x:1\"], \"Layers\": [\"l1/layer.tar\", "
	    "\"l2/layer.tar\", \"l3/layer.tar\"]}, {\"Config\": "
	    "\"cfg2.json\", \"RepoTags\": [\"crs-ci-runner/y:2\"], "
	    "\"Layers\": [\"l1/layer.tar\", \"l4/layer.tar\"]}]", NULL);
	archive_write_close(a);
	archive_write_free(a);
	return path;
}

static void names(const char *path, struct strset *out)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;

	archive_read_support_format_tar(a);
	assert_int_equal(archive_read_open_filename(a, path, 10240),
			 ARCHIVE_OK);
	while (archive_read_next_header(a, &e) == ARCHIVE_OK)
		strset_add(out, archive_entry_pathname(e));
	archive_read_free(a);
}

static void strip(int linked, const char *base_id, size_t want_dropped,
		  int want_l1)
{
	struct strvec base = STRVEC_INIT;
	struct strset got = STRSET_INIT, got2 = STRSET_INIT;
	char *in = make_save("in.tar", linked), out[256], out2[256];
	struct image_part parts[2] = {
		{ .tag = "crs-ci-target/x:1", .base = &base, .out = out,
		  .dropped = 99 },
		{ .tag = "crs-ci-runner/y:2", .base = &base, .out = out2 },
	};

	snprintf(out, sizeof(out), "%s/out.tar", dir);
	snprintf(out2, sizeof(out2), "%s/out2.tar", dir);
	strvec_push(&base, base_id);
	assert_int_equal(image_split(in, parts, 2), 0);
	assert_int_equal(parts[0].dropped, want_dropped);
	names(out, &got);
	assert_int_equal(strset_has(&got, "l1/layer.tar"), want_l1);
	assert_int_equal(strset_has(&got, "l1/json"), want_l1);
	assert_true(strset_has(&got, "l2/layer.tar"));
	assert_true(strset_has(&got, "l3/layer.tar"));
	assert_true(strset_has(&got, "cfg.json"));
	assert_true(strset_has(&got, "manifest.json"));
	assert_false(strset_has(&got, "l4/layer.tar"));
	assert_false(strset_has(&got, "cfg2.json"));
	names(out2, &got2);
	assert_true(strset_has(&got2, "l4/layer.tar"));
	assert_true(strset_has(&got2, "cfg2.json"));
	assert_false(strset_has(&got2, "l2/layer.tar"));
	assert_false(strset_has(&got2, "cfg.json"));
	strset_release(&got);
	strset_release(&got2);
	strvec_release(&base);
	free(in);
}

static void test_base_layer_dropped(void **st)
{
	(void)st;
	strip(0, "sha256:d1", 1, 0);
}

static void test_linked_base_file_kept(void **st)
{
	(void)st;
	strip(1, "sha256:d1", 0, 1);
}

static void test_other_base_drops_nothing(void **st)
{
	(void)st;
	strip(0, "sha256:other", 0, 1);
}

static void test_refused(void **st)
{
	struct strvec base = STRVEC_INIT;
	struct archive *a = archive_write_new();
	char in[256], out[256], *save;
	struct image_part part = { .tag = "crs-ci-target/x:1", .base = &base,
				   .out = out };

	(void)st;
	snprintf(in, sizeof(in), "%s/plain.tar", dir);
	snprintf(out, sizeof(out), "%s/plain-out.tar", dir);
	archive_write_set_format_ustar(a);
	assert_int_equal(archive_write_open_filename(a, in), ARCHIVE_OK);
	add(a, "hello.txt", "hi", NULL);
	archive_write_close(a);
	archive_write_free(a);
	strvec_push(&base, "sha256:d1");
	assert_int_equal(image_split(in, &part, 1), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "manifest.json"));
	assert_false(fs_exists(out));
	crs_error_clear();
	/* a save without the tag asked for */
	save = make_save("in.tar", 0);
	part.tag = "crs-ci-target/x:absent";
	assert_int_equal(image_split(save, &part, 1), CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "crs-ci-target/x:absent"));
	assert_false(fs_exists(out));
	crs_error_clear();
	free(save);
	strvec_release(&base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base_layer_dropped),
		cmocka_unit_test(test_linked_base_file_kept),
		cmocka_unit_test(test_other_base_drops_nothing),
		cmocka_unit_test(test_refused),
	};
	int r;

	if (!mkdtemp(dir))
		return 1;
	r = cmocka_run_group_tests(tests, NULL, NULL);
	fs_remove_tree(dir);
	return r;
}
