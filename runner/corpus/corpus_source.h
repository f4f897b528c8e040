/* SPDX-License-Identifier: Apache-2.0 */
/*
 * corpus_source.h - what a --corpus or --oss-fuzz-corpus source names
 *
 * A source is a folder, an archive file or an http(s) URL of an archive;
 * "{harness}" in it stands for each harness's name. Without it, a folder
 * holds one subfolder per harness and an archive one folder per harness,
 * as a corpus store lays them out (corpus/<harness>/...).
 */
#ifndef CRS_RUNNER_CORPUS_CORPUS_SOURCE_H
#define CRS_RUNNER_CORPUS_CORPUS_SOURCE_H

/* where OSS-Fuzz keeps its public corpus backups */
#define CORPUS_OSS_FUZZ_BASE "https://storage.googleapis.com"

enum corpus_kind { CORPUS_FOLDER, CORPUS_ARCHIVE, CORPUS_URL };

/* 1 when `spec` is an http:// or https:// URL. */
int corpus_source_is_url(const char *spec);
/* 1 when `spec` holds "{harness}": one folder, file or URL per harness. */
int corpus_source_per_harness(const char *spec);
/* `spec` with every "{harness}" replaced by `harness`; the caller frees. */
char *corpus_source_expand(const char *spec, const char *harness);
/*
 * The URL template of OSS-Fuzz project `project`'s public corpus backups
 * under `base` (CORPUS_OSS_FUZZ_BASE, or a mirror):
 * <base>/<project>-backup.clusterfuzz-external.appspot.com/corpus/
 * libFuzzer/<project>_{harness}/public.zip. The caller frees.
 */
char *corpus_source_oss_fuzz(const char *base, const char *project);
/*
 * 1 when `project` may name an OSS-Fuzz project in such a URL: 1 to 64
 * of [a-z0-9_-], not starting with '-'. Else 0.
 */
int corpus_source_oss_fuzz_name_ok(const char *project);

/*
 * 1 when `name` may name a store's branch: 1 to 100 of letters, digits
 * and . _ - /, not starting with '-', '.' or '/', no "..", no "//". Else 0.
 */
int corpus_source_branch_ok(const char *name);

/*
 * `spec` as logs and results.json may show it: a URL's user and password
 * become "***" and its query "?..." (either may hold a token). The
 * caller frees.
 */
char *corpus_source_shown(const char *spec);

#endif
