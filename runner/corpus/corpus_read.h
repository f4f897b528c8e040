/* SPDX-License-Identifier: Apache-2.0 */
/*
 * corpus_read.h - read a corpus source (an archive or a folder) into a sink
 *
 * A source is hostile input (DESIGN decision 10): only regular files are
 * read, names are never used as paths (inputs are renamed by content),
 * links, devices and hard links are counted and passed over, and an
 * archive that holds more entries or unpacks to more bytes than its caps
 * is refused whole: what it had added is taken out again.
 */
#ifndef CRS_RUNNER_CORPUS_CORPUS_READ_H
#define CRS_RUNNER_CORPUS_CORPUS_READ_H

#include <stddef.h>

struct corpus_sink;
struct corpus_count;

/* an archive with more entries than this is refused */
#define CORPUS_ARCHIVE_ENTRIES_MAX 200000
/* an archive that unpacks to more bytes than this is refused */
#define CORPUS_ARCHIVE_UNPACKED_MAX ((size_t)1 << 30)
/* a folder's entries read at most; the rest are passed over (over_cap) */
#define CORPUS_FOLDER_ENTRIES_MAX 200000

/*
 * Read the zip or tar (gzip, bzip2 or xz compressed, or not) open on `fd`,
 * shown as `shown`, into `k`. With `harness` set only the entries whose
 * folder is named so ("<harness>/x", "corpus/<harness>/x") are inputs;
 * without, every regular file is. Counts go to *c. 0; CRS_EINPUT naming
 * `shown` and the cap when the archive is refused (what it added is gone
 * and *c says nothing kept), or when it is no archive libarchive reads;
 * CRS_ERR on a write failure.
 */
int corpus_read_archive(int fd, const char *shown, const char *harness,
			struct corpus_sink *k, struct corpus_count *c);

/*
 * Read the regular files of the folder open on `folder` (shown as `shown`;
 * not its subfolders) into `k`, each opened O_NOFOLLOW and checked
 * regular on its descriptor. Counts go to *c. 0 or CRS_ERR.
 */
int corpus_read_folder(int folder, const char *shown, struct corpus_sink *k,
		       struct corpus_count *c);

#ifdef UNIT_TESTS
/* Lower the archive caps (entries, unpacked bytes) for a test. */
void corpus_read_caps(size_t entries, size_t unpacked);
#endif

#endif
