/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_gw_response.c - libFuzzer target: the gateway's reading of a
 * provider's answer (runner/gateway/gw_usage.c), which decides what a
 * request is charged
 *
 * The body is read whole for its usage (gw_usage_from_body), and as a
 * server-sent-event stream fed in chunks (gw_sse_feed, gw_sse_finish).
 * The first input byte sets the chunk size (1 + value % 64) and, in its
 * top bit, whether usage-only chunks are dropped; the rest is the body.
 * Checks: counts never negative, and the stream's output, usage and end
 * do not depend on how the bytes were chunked.
 */
#include "runner/gateway/gw_usage.h"
#include "common/buf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void stream(struct gw_sse *s, struct buf *out, const char *p,
		   size_t len, size_t chunk, int drop)
{
	gw_sse_init(s, drop);
	for (size_t off = 0; off < len; off += chunk)
		gw_sse_feed(s, p + off, len - off < chunk ? len - off : chunk,
			    out);
	gw_sse_finish(s, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gw_usage u = { 0 };
	struct gw_sse whole, parts;
	struct buf a = BUF_INIT, b = BUF_INIT;
	const char *p = (const char *)data + 1;
	size_t len, chunk;
	int drop;

	if (size < 1)
		return 0;
	len = size - 1;
	chunk = 1 + data[0] % 64;
	drop = data[0] >> 7;
	gw_usage_from_body(&u, p, len);
	if (u.tokens_in < 0 || u.tokens_out < 0)
		abort();
	stream(&whole, &a, p, len, len ? len : 1, drop);
	stream(&parts, &b, p, len, chunk, drop);
	if (a.len != b.len || memcmp(a.ptr, b.ptr, a.len) ||
	    whole.usage.tokens_in != parts.usage.tokens_in ||
	    whole.usage.tokens_out != parts.usage.tokens_out ||
	    whole.usage.seen != parts.usage.seen ||
	    whole.done != parts.done || whole.usage.tokens_in < 0 ||
	    whole.usage.tokens_out < 0)
		abort();
	gw_sse_release(&whole);
	gw_sse_release(&parts);
	buf_release(&a);
	buf_release(&b);
	return 0;
}
