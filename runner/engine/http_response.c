/* SPDX-License-Identifier: Apache-2.0 */
/*
 * http_response.c - the one helper every transport's caller shares
 */
#include "runner/http/http.h"

void http_response_release(struct http_response *r)
{
	buf_release(&r->body);
	r->status = 0;
}
