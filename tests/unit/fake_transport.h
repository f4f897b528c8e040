/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fake_transport.h - an http_transport for unit tests (header only)
 *
 * Replays queued replies in order and records every request (method,
 * path, content type, body; a body_file's content is read and recorded
 * while the request runs), so a test asserts the exact bytes that the
 * engine client sent. Replies may be split into chunks to exercise
 * streaming parsers. Use:
 *
 *	struct fake_transport f;
 *	struct docker_client *d;
 *	fake_init(&f);
 *	fake_reply(&f, 204, "");
 *	docker_client_new_with_transport(&d, &f.t);
 *	... docker_container_start(d, "abc") ...
 *	assert_string_equal(f.calls[0].path, "/v1.41/containers/abc/start");
 *	docker_client_free(d);		(does not free f)
 *	fake_release(&f);
 */
#ifndef CRS_TESTS_UNIT_FAKE_TRANSPORT_H
#define CRS_TESTS_UNIT_FAKE_TRANSPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "runner/http/http.h"

#define FAKE_MAX 64

struct fake_chunk {
	const char *data;
	size_t len;
};

struct fake_reply {
	long status;
	const char *body;		/* NUL-terminated, or NULL (empty) */
	const struct fake_chunk *chunks; /* else: these, ended by len 0 */
	int fail;			/* non-zero: the transport fails */
	const char *fail_msg;
};

struct fake_call {
	char *method;
	char *path;
	char *content_type;		/* NULL when none */
	struct buf body;		/* body, or body_file's content */
	char *body_file;
	long timeout_ms;
	char *headers;			/* extra header lines, "\n"-ended */
	int streamed;			/* on_data was set */
};

struct fake_transport {
	struct http_transport t;
	struct fake_reply replies[FAKE_MAX];
	size_t nr_replies, next;
	struct fake_call calls[FAKE_MAX];
	size_t nr_calls;
	int freed;			/* t.free was called */
};

static inline int fake_deliver(const struct http_request *req,
			       struct http_response *resp, const char *data,
			       size_t len)
{
	if (req->on_data && resp->status >= 200 && resp->status < 300) {
		int r = req->on_data(data, len, req->on_data_ctx);

		return r < 0 ? r : r ? CRS_ERR : 0;
	}
	buf_add(&resp->body, data, len);
	return 0;
}

static inline int fake_request(struct http_transport *t,
			       const struct http_request *req,
			       struct http_response *resp)
{
	struct fake_transport *f = t->ctx;
	struct fake_call *c;
	const struct fake_reply *rep;
	int r = 0;

	if (f->nr_calls == FAKE_MAX)
		return crs_error_set(CRS_ERR, "fake: too many calls");
	c = &f->calls[f->nr_calls++];
	c->method = xstrdup(req->method);
	c->path = xstrdup(req->path);
	c->content_type = req->content_type ? xstrdup(req->content_type) :
		NULL;
	buf_init(&c->body);
	if (req->body)
		buf_add(&c->body, req->body, req->body_len);
	if (req->body_file) {
		c->body_file = xstrdup(req->body_file);
		if ((r = fs_read_file(&c->body, req->body_file,
				      (size_t)1 << 30)) != 0)
			return r;
	}
	c->timeout_ms = req->timeout_ms;
	{
		struct buf h = BUF_INIT;

		for (const char *const *hl = req->headers; hl && *hl; hl++) {
			buf_adds(&h, *hl);
			buf_addch(&h, '\n');
		}
		c->headers = buf_detach(&h, NULL);
	}
	c->streamed = req->on_data != NULL;

	if (f->next == f->nr_replies)
		return crs_error_set(CRS_ERR, "fake: no reply queued for %s %s",
				     req->method, req->path);
	rep = &f->replies[f->next++];
	if (rep->fail)
		return crs_error_set(rep->fail, "%s", rep->fail_msg ?
				     rep->fail_msg : "fake failure");
	buf_reset(&resp->body);
	resp->status = rep->status;
	if (rep->chunks) {
		for (const struct fake_chunk *ch = rep->chunks;
		     ch->len && r == 0; ch++)
			r = fake_deliver(req, resp, ch->data, ch->len);
	} else if (rep->body && rep->body[0]) {
		r = fake_deliver(req, resp, rep->body, strlen(rep->body));
	}
	return r;
}

static inline void fake_free(struct http_transport *t)
{
	((struct fake_transport *)t->ctx)->freed = 1;
}

static inline void fake_init(struct fake_transport *f)
{
	memset(f, 0, sizeof(*f));
	f->t.request = fake_request;
	f->t.free = fake_free;
	f->t.ctx = f;
}

static inline void fake_reply(struct fake_transport *f, long status,
			      const char *body)
{
	if (f->nr_replies < FAKE_MAX) {
		f->replies[f->nr_replies].status = status;
		f->replies[f->nr_replies++].body = body;
	}
}

static inline void fake_reply_chunks(struct fake_transport *f, long status,
				     const struct fake_chunk *chunks)
{
	if (f->nr_replies < FAKE_MAX) {
		f->replies[f->nr_replies].status = status;
		f->replies[f->nr_replies++].chunks = chunks;
	}
}

static inline void fake_fail(struct fake_transport *f, int code,
			     const char *msg)
{
	if (f->nr_replies < FAKE_MAX) {
		f->replies[f->nr_replies].fail = code;
		f->replies[f->nr_replies++].fail_msg = msg;
	}
}

static inline void fake_release(struct fake_transport *f)
{
	for (size_t i = 0; i < f->nr_calls; i++) {
		free(f->calls[i].method);
		free(f->calls[i].path);
		free(f->calls[i].content_type);
		free(f->calls[i].body_file);
		free(f->calls[i].headers);
		buf_release(&f->calls[i].body);
	}
	f->nr_calls = 0;
}

#endif
