/* SPDX-License-Identifier: Apache-2.0 */
/*
 * http_easy.h - the libcurl plumbing every HTTP client in crs-ci shares
 *
 * No redirects, http(s) only, header lists wiped; only runner/http/
 * includes it (`make check-layers`).
 *
 * Details: docs/internals.md (runner/http/).
 */
#ifndef CRS_RUNNER_HTTP_HTTP_EASY_H
#define CRS_RUNNER_HTTP_HTTP_EASY_H

#include <curl/curl.h>

struct http_share;

/* A request's connect timeout when it names none. */
#define HTTP_CONNECT_TIMEOUT_MS 10000L

/* Attach the share handle of `s` to `h` (http_share.c). Cannot fail. */
void http_easy_share(CURL *h, struct http_share *s);

/*
 * Sets the options every request has on `h`: `errbuf` (CURL_ERROR_SIZE
 * bytes, owned by the caller) as the error buffer, the share handle `s`
 * (NULL: none), no redirects, http and https only and no signals.
 * Cannot fail.
 */
void http_easy_base(CURL *h, char *errbuf, struct http_share *s);

/* Wipes every line of `l` (they may hold tokens) and frees the list.
 * Cannot fail; accepts NULL. */
void http_headers_free(struct curl_slist *l);

#endif
