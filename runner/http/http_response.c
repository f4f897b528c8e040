/* SPDX-License-Identifier: Apache-2.0 */
/*
 * http_response.c - releasing a response, the one helper every caller of
 * http.h shares, whichever transport answered
 */
#include "runner/http/http.h"

void http_response_release(struct http_response *r)
{
	buf_release(&r->body);
	r->status = 0;
}
