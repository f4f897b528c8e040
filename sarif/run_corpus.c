/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run_corpus.c - the corpus sources' record, to and from JSON
 *
 * Read field by field, as run_saturation.c: a results.json may come from
 * a cache or another job.
 */
#include "sarif/run_corpus.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define COUNT_MAX 100000000
#define HARNESSES_MAX 10000
#define SOURCES_MAX 256

struct run_corpus_source *run_corpus_add(struct run_corpus_harness *h,
					 const char *source)
{
	struct run_corpus_source *s;

	h->sources = xrealloc(h->sources,
			      (h->sources_nr + 1) * sizeof(*h->sources));
	s = &h->sources[h->sources_nr++];
	memset(s, 0, sizeof(*s));
	s->source = xstrdup(source);
	return s;
}

void run_corpus_free(struct run_corpus *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nr; i++) {
		struct run_corpus_harness *h = &r->harnesses[i];

		for (size_t k = 0; k < h->sources_nr; k++) {
			free(h->sources[k].source);
			free(h->sources[k].error);
		}
		free(h->sources);
		free(h->harness);
	}
	free(r->harnesses);
	free(r);
}

json_t *run_corpus_to_json(const struct run_corpus *r)
{
	json_t *hs = json_array();

	for (size_t i = 0; i < r->nr; i++) {
		const struct run_corpus_harness *h = &r->harnesses[i];
		json_t *srcs = json_array();

		for (size_t k = 0; k < h->sources_nr; k++) {
			const struct run_corpus_source *s = &h->sources[k];

			json_array_append_new(srcs, json_pack(
				"{s:s,s:I,s:I,s:I,s:I,s:o}",
				"source", s->source,
				"read", (json_int_t)s->read,
				"kept", (json_int_t)s->kept,
				"duplicate", (json_int_t)s->duplicate,
				"passed_over", (json_int_t)s->passed_over,
				"error", s->error ? json_string(s->error) :
				json_null()));
		}
		json_array_append_new(hs, json_pack("{s:s,s:o}",
						    "harness", h->harness,
						    "sources", srcs));
	}
	return json_pack("{s:o}", "harnesses", hs);
}

static int bad(const char *src, const char *what)
{
	return crs_error_set(CRS_EINPUT, "%s: corpus.%s", src, what);
}

static int get_count(size_t *out, const json_t *o, const char *key,
		     const char *src)
{
	const json_t *v = json_object_get(o, key);	/* borrowed */

	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > COUNT_MAX)
		return crs_error_set(CRS_EINPUT, "%s: corpus: sources[].%s: "
				     "%s", src, key, v ? "expected a count" :
				     "missing");
	*out = (size_t)json_integer_value(v);
	return 0;
}

static int source_from_json(struct run_corpus_harness *h, const json_t *j,
			    const char *src)
{
	const json_t *name = json_object_get(j, "source");
	const json_t *err = json_object_get(j, "error");
	struct run_corpus_source *s;

	if (!json_is_object(j) || !json_is_string(name))
		return bad(src, "harnesses[].sources[].source: expected a "
			   "string");
	if (err && !json_is_null(err) && !json_is_string(err))
		return bad(src, "harnesses[].sources[].error: expected a "
			   "string or null");
	s = run_corpus_add(h, json_string_value(name));
	if (json_is_string(err))
		s->error = xstrdup(json_string_value(err));
	if (get_count(&s->read, j, "read", src) ||
	    get_count(&s->kept, j, "kept", src) ||
	    get_count(&s->duplicate, j, "duplicate", src) ||
	    get_count(&s->passed_over, j, "passed_over", src))
		return CRS_EINPUT;
	return 0;
}

int run_corpus_from_json(struct run_corpus **out, const json_t *j,
			 const char *source)
{
	const char *src = source ? source : "results.json";
	const json_t *hs = json_object_get(j, "harnesses");
	struct run_corpus *r;
	int rc = 0;

	*out = NULL;
	if (!json_is_object(j) || !json_is_array(hs) ||
	    json_array_size(hs) > HARNESSES_MAX)
		return bad(src, "harnesses: expected an array");
	r = xcalloc(1, sizeof(*r));
	r->harnesses = xcalloc(json_array_size(hs) + 1,
			       sizeof(*r->harnesses));
	for (size_t i = 0; i < json_array_size(hs) && rc == 0; i++) {
		const json_t *h = json_array_get(hs, i);
		const json_t *name = json_object_get(h, "harness");
		const json_t *srcs = json_object_get(h, "sources");
		struct run_corpus_harness *rh;

		if (!json_is_string(name) || !json_is_array(srcs) ||
		    json_array_size(srcs) > SOURCES_MAX) {
			rc = bad(src, "harnesses[]: expected {harness, "
				 "sources}");
			break;
		}
		rh = &r->harnesses[r->nr++];
		rh->harness = xstrdup(json_string_value(name));
		for (size_t k = 0; k < json_array_size(srcs) && rc == 0; k++)
			rc = source_from_json(rh, json_array_get(srcs, k),
					      src);
	}
	if (rc != 0) {
		run_corpus_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

void run_corpus_line(struct buf *b, const struct run_corpus *r)
{
	size_t kept = 0, dup = 0, failed = 0, with = 0;

	if (!r || !r->nr)
		return;
	for (size_t i = 0; i < r->nr; i++) {
		size_t before = kept;

		for (size_t k = 0; k < r->harnesses[i].sources_nr; k++) {
			const struct run_corpus_source *s =
				&r->harnesses[i].sources[k];

			kept += s->kept;
			dup += s->duplicate;
			failed += s->error != NULL;
		}
		with += kept > before;
	}
	buf_printf(b, "corpus: %zu input(s) imported for %zu of %zu "
		 "harness(es)", kept, with, r->nr);
	if (dup)
		buf_printf(b, ", %zu duplicate(s) left out", dup);
	if (failed)
		buf_printf(b, ", %zu source(s) refused or unreachable (the "
			 "log says why)", failed);
}
