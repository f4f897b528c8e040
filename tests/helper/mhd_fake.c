/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mhd_fake.c - the loopback HTTP server under every test fake
 *
 * Gathers a request's body across libmicrohttpd's calls and hands it to
 * the fake's answer function once; frees it when the request ends.
 */
#include "tests/helper/mhd_fake.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct mhd_fake_body {
	char *ptr;
	size_t len;
};

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct mhd_fake_route *route = cls;
	struct mhd_fake_body *k = *con_cls;

	(void)version;
	if (!k) {
		*con_cls = calloc(1, sizeof(struct mhd_fake_body));
		return *con_cls ? MHD_YES : MHD_NO;
	}
	if (*upload_size) {
		char *nb = realloc(k->ptr, k->len + *upload_size + 1);

		if (!nb)
			return MHD_NO;
		memcpy(nb + k->len, upload, *upload_size);
		k->len += *upload_size;
		nb[k->len] = '\0';
		k->ptr = nb;
		*upload_size = 0;
		return MHD_YES;
	}
	return route->answer(route->cls, c, url, method, k->ptr, k->len);
}

static void on_done(void *cls, struct MHD_Connection *c, void **con_cls,
		    enum MHD_RequestTerminationCode toe)
{
	struct mhd_fake_body *k = *con_cls;

	(void)cls;
	(void)c;
	(void)toe;
	if (k) {
		free(k->ptr);
		free(k);
	}
	*con_cls = NULL;
}

struct MHD_Daemon *mhd_fake_start(struct mhd_fake_route *route, int any,
				  unsigned port, int per_conn,
				  unsigned *port_out)
{
	struct sockaddr_in sa;
	const union MHD_DaemonInfo *info;
	struct MHD_Daemon *d;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(any ? INADDR_ANY : INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)port);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO |
			     (per_conn ? MHD_USE_THREAD_PER_CONNECTION : 0),
			     0, NULL, NULL, on_request, route,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
			     MHD_OPTION_NOTIFY_COMPLETED, on_done, NULL,
			     MHD_OPTION_END);
	if (d) {
		info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
		*port_out = info ? info->port : 0;
	}
	return d;
}
