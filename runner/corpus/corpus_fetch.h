/* SPDX-License-Identifier: Apache-2.0 */
/*
 * corpus_fetch.h - download a corpus archive over HTTP(S), capped
 *
 * Through runner/http (the one HTTP client); no redirect is followed and
 * no header is sent, so a URL holds no secret crs-ci would carry on.
 */
#ifndef CRS_RUNNER_CORPUS_CORPUS_FETCH_H
#define CRS_RUNNER_CORPUS_CORPUS_FETCH_H

#include <stddef.h>

/* an archive download larger than this is refused */
#define CORPUS_DOWNLOAD_MAX ((size_t)512 << 20)

/*
 * GET `url` (http:// or https://) into the open file `fd` (crs-ci's own,
 * empty), at most `max` bytes and `timeout_s` seconds, stopping once
 * *interrupted (when not NULL). 0; CRS_ENOTFOUND for 403, 404 or 410 (no
 * such corpus: OSS-Fuzz answers a missing public corpus so); CRS_EINPUT
 * for a bad URL or a body over `max` ("<url>: larger than N MiB");
 * CRS_ERR naming the status or the failure; CRS_ETIMEOUT; CRS_EINTR.
 */
int corpus_fetch(const char *url, int fd, size_t max, long timeout_s,
		 volatile int *interrupted);

#endif
