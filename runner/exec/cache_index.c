/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cache_index.c - the --cache-dir index: entries, sizes, last use, LRU
 *
 * Format: {"version": 2, "entries": {"<name>": {"path": ..., "id": ...,
 * "base": ..., "size": N, "last_used": T}}}.
 */
#include "runner/exec/cache_index.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/strvec.h"
#include "common/xalloc.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_INDEX_VERSION 2
#define CACHE_INDEX_FILE "index.json"
/* far more than --cache-max holds: a bound on a hostile index */
#define CACHE_INDEX_MAX ((size_t)16 << 20)
#define CACHE_INDEX_ENTRIES_MAX 100000

/* A path relative to the cache dir that stays inside it. */
static int path_ok(const char *p)
{
	const char *c = p;

	if (!p || !*p || *p == '/')
		return 0;
	while (*c) {
		size_t n = strcspn(c, "/");

		if (n == 0 || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		c += n;
		if (*c == '/')
			c++;
		if (!*c && c[-1] == '/')
			return 0;
	}
	return 1;
}

static void entry_release(struct cache_entry *e)
{
	free(e->name);
	free(e->path);
	free(e->id);
	free(e->base);
}

void cache_index_release(struct cache_index *ix)
{
	if (!ix)
		return;
	for (size_t i = 0; i < ix->nr; i++)
		entry_release(&ix->v[i]);
	free(ix->v);
	ix->v = NULL;
	ix->nr = ix->alloc = 0;
	ix->dirty = 0;
}

struct cache_entry *cache_index_find(struct cache_index *ix,
				     const char *name)
{
	for (size_t i = 0; i < ix->nr; i++)
		if (!strcmp(ix->v[i].name, name))
			return &ix->v[i];
	return NULL;
}

struct cache_entry *cache_index_put(struct cache_index *ix, const char *name)
{
	struct cache_entry *e = cache_index_find(ix, name);

	if (e)
		return e;
	ALLOC_GROW(ix->v, ix->nr + 1, ix->alloc);
	e = &ix->v[ix->nr++];
	memset(e, 0, sizeof(*e));
	e->name = xstrdup(name);
	ix->dirty = 1;
	return e;
}

void cache_index_remove(struct cache_index *ix, const char *name)
{
	struct cache_entry *e = cache_index_find(ix, name);

	if (!e)
		return;
	entry_release(e);
	memmove(e, e + 1, (size_t)(ix->v + ix->nr - (e + 1)) * sizeof(*e));
	ix->nr--;
	ix->dirty = 1;
}

static char *opt_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
}

static int load_entry(struct cache_index *ix, const char *file,
		      const char *name, json_t *o)
{
	json_t *path = json_object_get(o, "path");
	json_t *size = json_object_get(o, "size");
	json_t *used = json_object_get(o, "last_used");
	struct cache_entry *e;

	if (!json_is_object(o) || !json_is_string(path) ||
	    !path_ok(json_string_value(path)) || !json_is_integer(size) ||
	    json_integer_value(size) < 0 || !json_is_integer(used))
		return crs_error_set(CRS_EINPUT, "%s: entries.%s: needs a "
				     "path inside the cache, a size and "
				     "last_used", file, name);
	e = cache_index_put(ix, name);
	e->path = xstrdup(json_string_value(path));
	e->id = opt_str(o, "id");
	e->base = opt_str(o, "base");
	e->size = json_integer_value(size);
	e->last_used = json_integer_value(used);
	return 0;
}

int cache_index_load(struct cache_index *ix, int dirfd, const char *shown)
{
	struct buf text = BUF_INIT;
	json_t *j = NULL, *entries, *v;
	json_error_t jerr;
	const char *name;
	char *path = xasprintf("%s/%s", shown, CACHE_INDEX_FILE);
	int r;

	cache_index_release(ix);
	r = fs_read_regular_at(&text, dirfd, CACHE_INDEX_FILE, path,
			       CACHE_INDEX_MAX, NULL);
	if (r == CRS_ENOTFOUND) {
		crs_error_clear();
		r = 0;
		goto out;
	}
	if (r != 0)
		goto out;
	if (!(j = json_loadb(text.ptr ? text.ptr : "", text.len, 0, &jerr))) {
		r = crs_error_set(CRS_EINPUT, "%s:%d: %s", path, jerr.line,
				  jerr.text);
		goto out;
	}
	entries = json_object_get(j, "entries");
	if (json_integer_value(json_object_get(j, "version")) !=
	    CACHE_INDEX_VERSION || !json_is_object(entries))
		r = crs_error_set(CRS_EINPUT, "%s: version: not a version %d "
				  "index with entries", path,
				  CACHE_INDEX_VERSION);
	else if (json_object_size(entries) > CACHE_INDEX_ENTRIES_MAX)
		r = crs_error_set(CRS_EINPUT, "%s: more than %d entries", path,
				  CACHE_INDEX_ENTRIES_MAX);
	json_object_foreach(entries, name, v)
		if (r == 0)
			r = load_entry(ix, path, name, v);
	if (r != 0)
		cache_index_release(ix);
out:
	json_decref(j);
	buf_release(&text);
	free(path);
	ix->dirty = 0;
	return r;
}

int cache_index_save(const struct cache_index *ix, int dirfd)
{
	json_t *entries = json_object(), *doc;
	char *text;
	int r;

	for (size_t i = 0; i < ix->nr; i++) {
		const struct cache_entry *e = &ix->v[i];
		json_t *o = json_pack("{s:s, s:I, s:I}", "path", e->path,
				      "size", (json_int_t)e->size,
				      "last_used", (json_int_t)e->last_used);

		if (e->id)
			json_object_set_new(o, "id", json_string(e->id));
		if (e->base)
			json_object_set_new(o, "base", json_string(e->base));
		json_object_set_new(entries, e->name, o);
	}
	doc = json_pack("{s:i, s:o}", "version", CACHE_INDEX_VERSION,
			"entries", entries);
	text = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);
	r = fs_write_at(dirfd, CACHE_INDEX_FILE, text, strlen(text));
	free(text);
	json_decref(doc);
	return r;
}

void cache_index_touch(struct cache_index *ix, struct cache_entry *e,
		       int64_t now, int64_t granularity)
{
	int64_t d = now - e->last_used;

	if (d < 0)
		d = -d;
	if (d >= granularity)
		ix->dirty = 1;
	e->last_used = now;
}

int64_t cache_index_size(const struct cache_index *ix)
{
	int64_t n = 0;

	for (size_t i = 0; i < ix->nr; i++)
		n += ix->v[i].size;
	return n;
}

/* Least recently used first; the larger first on equal times. */
static int lru_cmp(const void *a, const void *b)
{
	const struct cache_entry *x = a, *y = b;

	if (x->last_used != y->last_used)
		return x->last_used < y->last_used ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

size_t cache_index_evict(struct cache_index *ix, int64_t cap,
			 struct strvec *paths)
{
	int64_t total = cache_index_size(ix);
	size_t n = 0;

	if (total <= cap)
		return 0;
	qsort(ix->v, ix->nr, sizeof(*ix->v), lru_cmp);
	while (n < ix->nr && total > cap) {
		total -= ix->v[n].size;
		strvec_push(paths, ix->v[n].path);
		entry_release(&ix->v[n]);
		n++;
	}
	memmove(ix->v, ix->v + n, (ix->nr - n) * sizeof(*ix->v));
	ix->nr -= n;
	ix->dirty = 1;
	return n;
}
