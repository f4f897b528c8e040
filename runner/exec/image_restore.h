/* SPDX-License-Identifier: Apache-2.0 */
/*
 * image_restore.h - a cached image archive checked, and renamed for loading
 *
 * `docker load` applies the tags an archive's manifest.json names: a
 * cache archive could retag any image on the engine (the base runner
 * triage uses, the gateway). Before it is loaded, the archive must hold
 * exactly the image the cache's index names, with the id recorded there,
 * and its copy is loaded under a temporary name crs-ci picks; the caller
 * compares the loaded id and only then tags it. Details: docs/cache.md.
 */
#ifndef CRS_RUNNER_EXEC_IMAGE_RESTORE_H
#define CRS_RUNNER_EXEC_IMAGE_RESTORE_H

/*
 * Copy the image archive open on `in` (shown as `shown`) to the new file
 * `out` (in crs-ci's own work folder), to be loaded as `tmp_tag`. Its
 * manifest.json must list exactly one image, tagged exactly `want_tag`,
 * whose config file hashes to `want_id` ("sha256:<64 hex>"); the copy's
 * manifest tags it `tmp_tag` instead, and the archive's other sources of
 * names (repositories, index.json, oci-layout) and entries other than
 * plain files, folders and links below it are left out. CRS_EINPUT
 * naming what differs (nothing is then left at `out`); CRS_ERR for I/O.
 */
int image_archive_retag(int in, const char *shown, const char *want_tag,
			const char *want_id, const char *tmp_tag,
			const char *out);

#endif
