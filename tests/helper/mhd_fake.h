/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mhd_fake.h - the loopback HTTP server under every test fake
 *
 * libmicrohttpd gathers each request's body; the fake's answer function
 * sees it whole, once. Test code only: the product never links it.
 */
#ifndef CRS_TESTS_HELPER_MHD_FAKE_H
#define CRS_TESTS_HELPER_MHD_FAKE_H

#include <microhttpd.h>
#include <stddef.h>

/* body: the request's, NUL-terminated, or NULL when it had none */
typedef enum MHD_Result (*mhd_fake_answer_fn)(void *cls,
					      struct MHD_Connection *c,
					      const char *url,
					      const char *method,
					      const char *body, size_t len);

/* Where a daemon sends each request; lives as long as the daemon. */
struct mhd_fake_route {
	mhd_fake_answer_fn answer;
	void *cls;
};

/*
 * Start a daemon for `route` on 127.0.0.1 (every address with `any`) at
 * `port` (0: a free one), one thread per connection when `per_conn`.
 * *port_out gets the bound port. NULL on failure; MHD_stop_daemon stops it.
 */
struct MHD_Daemon *mhd_fake_start(struct mhd_fake_route *route, int any,
				  unsigned port, int per_conn,
				  unsigned *port_out);

#endif
