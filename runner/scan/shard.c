/* SPDX-License-Identifier: Apache-2.0 */
/*
 * shard.c - the shard arithmetic, the plan's matrix and the shard phase
 *
 * Round-robin over the sorted harness names: deterministic on every
 * runner, no state shared between jobs. The phase runs right after
 * select, so a shard divides what select chose, not the whole build.
 */
#include "runner/scan/shard.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/log.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "common/testable.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Sorted, deduplicated, borrowed copy of names[]; caller frees the array. */
static char **shard_sorted(char *const *names, size_t nr, size_t *nr_out)
{
	char **v = xcalloc(nr ? nr : 1, sizeof(char *));
	size_t n = 0;

	if (nr)
		memcpy(v, names, st_mult(nr, sizeof(char *)));
	strvec_sort(v, nr);
	for (size_t i = 0; i < nr; i++)
		if (!n || strcmp(v[n - 1], v[i]))
			v[n++] = v[i];
	*nr_out = n;
	return v;
}

static int shard_number(const char *s, size_t len, unsigned long *out)
{
	char *end = NULL;

	if (!len || len > 9 || strspn(s, "0123456789") < len)
		return -1;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || end != s + len ? -1 : 0;
}

int shard_parse(const char *spec, unsigned *index_out, unsigned *count_out)
{
	const char *slash = spec ? strchr(spec, '/') : NULL;
	unsigned long i = 0, n = 0;

	if (!slash || shard_number(spec, (size_t)(slash - spec), &i) != 0 ||
	    shard_number(slash + 1, strlen(slash + 1), &n) != 0 ||
	    n < 1 || n > SHARD_MAX || i < 1 || i > n)
		return crs_error_set(CRS_EINPUT, "'%s' is not a shard i/N "
				     "with 1 <= i <= N <= %d",
				     spec ? spec : "", SHARD_MAX);
	*index_out = (unsigned)i;
	*count_out = (unsigned)n;
	return 0;
}

int shard_name_ok(const char *name)
{
	if (!name || !*name)
		return 0;
	for (const char *p = name; *p; p++)
		if (!(*p == '_' || *p == '-' || (*p >= '0' && *p <= '9') ||
		      (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			return 0;
	return 1;
}

CRS_TESTABLE int shard_has(size_t idx, unsigned index, unsigned count)
{
	return count && index >= 1 && idx % count == index - 1;
}

CRS_TESTABLE void shard_pick(struct strvec *out, char *const *names, size_t nr,
		unsigned index, unsigned count)
{
	size_t n = 0;
	char **v = shard_sorted(names, nr, &n);

	for (size_t i = 0; i < n; i++)
		if (shard_has(i, index, count))
			strvec_push(out, v[i]);
	free(v);
}

json_t *shard_matrix(char *const *names, size_t nr, unsigned shards)
{
	size_t n = 0;
	char **v = shard_sorted(names, nr, &n);
	json_t *inc, *m = NULL;
	unsigned count;

	if (!n || !shards)
		goto out;
	count = n < shards ? (unsigned)n : shards;
	inc = json_array();
	for (unsigned s = 1; s <= count; s++) {
		struct buf b = BUF_INIT;
		char spec[32];

		for (size_t i = 0; i < n; i++)
			if (shard_has(i, s, count))
				buf_printf(&b, "%s%s", b.len ? " " : "", v[i]);
		snprintf(spec, sizeof(spec), "%u/%u", s, count);
		json_array_append_new(inc, json_pack("{s:s, s:s}", "shard",
						     spec, "harnesses",
						     b.len ? b.ptr : ""));
		buf_release(&b);
	}
	m = json_pack("{s:o}", "include", inc);
out:
	free(v);
	return m;
}

int phase_shard(struct scan *s)
{
	const struct scan_opts *o = s->opts;
	struct strvec keep = STRVEC_INIT;
	size_t total = s->state.harnesses_nr;
	struct buf list = BUF_INIT;
	char q[1024];
	int r;

	if (!o->shard_count)
		return 0;
	shard_pick(&keep, s->state.harnesses, s->state.harnesses_nr,
		   o->shard_index, o->shard_count);
	for (size_t i = 0; i < s->state.harnesses_nr; i++)
		free(s->state.harnesses[i]);
	free(s->state.harnesses);
	s->state.harnesses = xcalloc(keep.nr + 1, sizeof(char *));
	s->state.harnesses_nr = 0;
	for (size_t i = 0; i < keep.nr; i++) {
		s->state.harnesses[s->state.harnesses_nr++] =
			xstrdup(keep.v[i]);
		buf_printf(&list, "%s%s", i ? ", " : "", keep.v[i]);
	}
	if (keep.nr) {
		log_quote(q, sizeof(q), list.ptr, list.len);
		log_info("shard %u/%u: %zu of %zu selected harness(es): %s",
			 o->shard_index, o->shard_count, keep.nr, total, q);
	} else {
		log_info("shard %u/%u: none of the %zu selected harness(es) "
			 "falls to this shard; nothing to fuzz",
			 o->shard_index, o->shard_count, total);
	}
	r = scan_state_save(s);
	buf_release(&list);
	strvec_release(&keep);
	return r;
}
