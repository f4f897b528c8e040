/* SPDX-License-Identifier: Apache-2.0 */
/*
 * http_easy.c - the libcurl plumbing every HTTP client in crs-ci shares
 *
 * The share handle's locks and the options of every easy handle live
 * here once, so no client can forget "no redirects" or leave a token in
 * freed memory.
 */
#include "runner/http/http_easy.h"
#include "common/xalloc.h"

#include <openssl/crypto.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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

void http_easy_base(CURL *h, char *errbuf, struct http_share *s)
{
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	if (s)
		curl_easy_setopt(h, CURLOPT_SHARE, s->sh);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
#if CURL_AT_LEAST_VERSION(7, 85, 0)
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
}

void http_headers_free(struct curl_slist *l)
{
	for (struct curl_slist *h = l; h; h = h->next)
		OPENSSL_cleanse(h->data, strlen(h->data));
	curl_slist_free_all(l);
}
