/* SPDX-License-Identifier: Apache-2.0 */
/*
 * http_easy.c - the libcurl plumbing every HTTP client in crs-ci shares
 *
 * The options of every easy handle live here once, so no client can
 * forget "no redirects" or leave a token in freed memory.
 */
#include "runner/http/http_easy.h"

#include <openssl/crypto.h>
#include <string.h>

void http_easy_base(CURL *h, char *errbuf, struct http_share *s)
{
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	if (s)
		http_easy_share(h, s);
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
