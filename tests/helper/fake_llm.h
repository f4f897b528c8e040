/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fake_llm.h - a test fake of an OpenAI/Anthropic-compatible provider
 *
 * An in-process libmicrohttpd server on 127.0.0.1 (any free port) that
 * answers /v1/chat/completions (plain and SSE), /v1/completions,
 * /v1/embeddings, /v1/responses and /v1/messages (Anthropic), plain and
 * SSE, and /v1/models
 * with deterministic usage, and records what it was sent. The model name
 * picks a behaviour: "fake-500" answers HTTP 500, "fake-400" HTTP 400,
 * "fake-401" HTTP 401 quoting the key it got, "fake-hang" never answers
 * (until the fake stops), "fake-nousage" reports no usage; any other
 * name answers normally. Built once into libtesthelper.a (tests/helper/),
 * linked into the unit tests; the product never ships it.
 * Built alone with -DFAKE_LLM_MAIN it is a standalone server.
 *
 * Scripted chat (replies_dir): the Nth chat completion (N from 1) is
 * answered with the bytes of the file replies_dir/N; past the last file
 * the last one is repeated. With request_log, every JSON request body is
 * appended there, compact, one per line. Usage is accounted as without a
 * script. With bill_bytes every request is billed one prompt token per
 * byte of its body, and bill_log / billed_in / billed_out record what was
 * billed, so a test can compare the provider's bill with the budget.
 */
#ifndef CRS_TESTS_FAKES_FAKE_LLM_H
#define CRS_TESTS_FAKES_FAKE_LLM_H

#include "tests/helper/mhd_fake.h"

#include <pthread.h>


struct fake_llm {
	struct MHD_Daemon *d;
	struct mhd_fake_route route;
	unsigned port;
	pthread_mutex_t lock;
	pthread_cond_t cond;

	/* behaviour: set before requests arrive */
	const char *key;	/* required provider key; NULL: any */
	long prompt_tokens;	/* usage reported; 0: body bytes / 4 */
	int bill_bytes;		/* prompt tokens = body bytes received:
				 * the densest a byte-level tokenizer
				 * can be */
	long completion_tokens;	/* 0: the request's output limit (16 if
				 * none) */
	int delay_ms;		/* wait before answering */
	int stream_gate;	/* streams pause after the first content
				 * chunk until fake_llm_open_gate() */
	const char *replies_dir;	/* scripted chat answers; NULL: none */
	const char *request_log;	/* bodies appended here; NULL: none */
	const char *bill_log;	/* "<prompt> <completion>\n" appended per
				 * answer with usage; NULL: none */

	/* records: read under lock, or after the requests finished */
	int requests;		/* every request that arrived */
	int requests_done;	/* answered (hangs are not) */
	char last_path[128];
	char *last_body;
	char last_auth[256];	/* Authorization header as received */
	char last_xkey[256];	/* x-api-key header as received */
	char last_anthropic_version[64];
	char last_anthropic_beta[256];
	int gate_open, gate_timed_out;
	int stopping;
	int chats;		/* chat completions answered from a script */
	long long billed_in, billed_out;	/* tokens in usage sent */
};

/* Start on 127.0.0.1:0. 0, or -1 (cannot listen). */
int fake_llm_start(struct fake_llm **out, const char *key);
/* Start on `port` (0: any free one) of 127.0.0.1, or of every address
 * when `any` (for a container on a Docker network). 0 or -1. */
int fake_llm_start_on(struct fake_llm **out, const char *key, int any,
		      unsigned port);
/* Stop (releasing hung requests) and free. Accepts NULL. */
void fake_llm_stop(struct fake_llm *f);
/* Let gated streams go on. */
void fake_llm_open_gate(struct fake_llm *f);
/* Counters, read under the lock. */
int fake_llm_requests(struct fake_llm *f);
/* A copy of the last request body (free it), or NULL. */
char *fake_llm_last_body(struct fake_llm *f);
/* Forget the records. */
void fake_llm_reset(struct fake_llm *f);

#endif
