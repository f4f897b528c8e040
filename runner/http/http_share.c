/* SPDX-License-Identifier: Apache-2.0 */
/*
 * http_share.c - DNS answers, TLS sessions and connections shared by
 * the requests of one HTTP client, behind locks
 *
 * libcurl's share interface with one mutex per data kind, so any thread
 * may use it. The one place that builds a CURLSH.
 */
#include "runner/http/http_share.h"
#include "runner/http/http_easy.h"
#include "common/xalloc.h"

#include <pthread.h>
#include <stdlib.h>

struct http_share {
	CURLSH *sh;
	pthread_mutex_t locks[CURL_LOCK_DATA_LAST];
};

static void http_share_lock(CURL *h, curl_lock_data data,
			    curl_lock_access access, void *ctx)
{
	struct http_share *s = ctx;

	(void)h;
	(void)access;
	if ((int)data >= 0 && data < CURL_LOCK_DATA_LAST)
		pthread_mutex_lock(&s->locks[data]);
}

static void http_share_unlock(CURL *h, curl_lock_data data, void *ctx)
{
	struct http_share *s = ctx;

	(void)h;
	if ((int)data >= 0 && data < CURL_LOCK_DATA_LAST)
		pthread_mutex_unlock(&s->locks[data]);
}

struct http_share *http_share_new(int connections)
{
	struct http_share *s = xcalloc(1, sizeof(*s));

	s->sh = curl_share_init();
	if (!s->sh) {
		free(s);
		return NULL;
	}
	for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_init(&s->locks[i], NULL);
	curl_share_setopt(s->sh, CURLSHOPT_LOCKFUNC, http_share_lock);
	curl_share_setopt(s->sh, CURLSHOPT_UNLOCKFUNC, http_share_unlock);
	curl_share_setopt(s->sh, CURLSHOPT_USERDATA, s);
	if (connections)
		curl_share_setopt(s->sh, CURLSHOPT_SHARE,
				  CURL_LOCK_DATA_CONNECT);
	curl_share_setopt(s->sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
	curl_share_setopt(s->sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
	return s;
}

void http_share_free(struct http_share *s)
{
	if (!s)
		return;
	curl_share_cleanup(s->sh);
	for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_destroy(&s->locks[i]);
	free(s);
}

void http_easy_share(CURL *h, struct http_share *s)
{
	curl_easy_setopt(h, CURLOPT_SHARE, s->sh);
}
