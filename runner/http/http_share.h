/* SPDX-License-Identifier: Apache-2.0 */
/*
 * http_share.h - what the requests of one HTTP client share
 *
 * DNS answers and TLS sessions, and connections too when asked, behind
 * locks. Kept apart from libcurl's header so that code outside
 * runner/http/ (the gateway's server) can hold one.
 */
#ifndef CRS_RUNNER_HTTP_HTTP_SHARE_H
#define CRS_RUNNER_HTTP_HTTP_SHARE_H

struct http_share;

/*
 * A share handle with its locks, safe to use from several threads. It
 * shares DNS answers and TLS sessions, and connections too when
 * `connections` is non-zero. NULL when libcurl cannot make one (then
 * requests simply share nothing). Free with http_share_free.
 */
struct http_share *http_share_new(int connections);
/* Cannot fail; accepts NULL. */
void http_share_free(struct http_share *s);

#endif
