/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gitlab_label.c - does a merge-request label count for this head?
 *
 * GitLab keeps a label on a merge request across pushes, and a pipeline
 * only sees the labels it was created with (CI_MERGE_REQUEST_LABELS), so
 * the label a maintainer set after reading one head would still open the
 * LLM gate for every commit pushed after it. The times come from the API
 * instead: when this head became a version of the merge request, and
 * when the label was last added (or removed).
 */
#include "runner/report/gitlab_label.h"
#include "runner/report/gitlab.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/testable.h"
#include "common/xalloc.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define LABEL_PAGE 100		/* per_page: GitLab's maximum */
#define LABEL_PAGES_MAX 50	/* 5,000 versions or events: enough */

CRS_TESTABLE int gitlab_time_ms(const char *s, long long *ms)
{
	struct tm tm;
	int y, mo, d, h, mi, sec, n = 0, frac = 0, digits = 0;
	int zh = 0, zm = 0, sign = 0;
	const char *p;
	time_t t;

	*ms = 0;
	if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi,
			 &sec, &n) != 6 || n != 19)
		return -1;
	p = s + n;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (digits < 3) {
				frac = frac * 10 + (*p - '0');
				digits++;
			}
	while (digits > 0 && digits < 3) {
		frac *= 10;
		digits++;
	}
	if (*p == 'Z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		sign = *p == '+' ? 1 : -1;
		if (sscanf(p + 1, "%2d:%2d%n", &zh, &zm, &n) != 2 || n != 5)
			return -1;
		p += 1 + n;
	} else {
		return -1;
	}
	if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
	    sec > 60 || zh > 23 || zm > 59)
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	if ((t = timegm(&tm)) == (time_t)-1)
		return -1;
	*ms = ((long long)t - sign * (zh * 3600LL + zm * 60LL)) * 1000 + frac;
	return 0;
}

/* Every page of GET `what` (a JSON array each) appended to `all`. */
static int get_all(const struct gitlab_env *env, const char *what,
		   json_t *all)
{
	for (int page = 1; page <= LABEL_PAGES_MAX; page++) {
		struct buf resp = BUF_INIT;
		char *tail = xasprintf("%s?per_page=%d&page=%d", what,
				       LABEL_PAGE, page);
		json_t *j;
		size_t n;
		int r = gitlab_mr_request(env, "GET", tail, NULL, 200, &resp);

		free(tail);
		if (r != 0) {
			buf_release(&resp);
			return r;
		}
		j = json_loadb(resp.ptr, resp.len, 0, NULL);
		buf_release(&resp);
		if (!json_is_array(j)) {
			json_decref(j);
			return crs_error_set(CRS_ERR, "gitlab: GET %s: not a "
					     "JSON array", what);
		}
		n = json_array_size(j);
		json_array_extend(all, j);
		json_decref(j);
		if (n < LABEL_PAGE)
			return 0;
	}
	return crs_error_set(CRS_ERR, "gitlab: GET %s: more than %d pages",
			     what, LABEL_PAGES_MAX);
}

static const char *str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);	/* borrowed */

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* The latest time the head was made a version of the MR; 0 none. */
static long long head_time(json_t *versions, const char *head)
{
	long long best = 0, t;
	size_t i;
	json_t *v;

	json_array_foreach(versions, i, v) {
		const char *sha = str(v, "head_commit_sha");

		if (sha && !strcmp(sha, head) &&
		    gitlab_time_ms(str(v, "created_at"), &t) == 0 && t > best)
			best = t;
	}
	return best;
}

/*
 * The label's last event (latest time, then highest id): 1 an add, 0 a
 * remove or none; *at its time.
 */
static int label_added(json_t *events, const char *label, long long *at)
{
	long long best = -1, best_id = -1, t;
	int added = 0;
	size_t i;
	json_t *e;

	*at = 0;
	json_array_foreach(events, i, e) {
		const char *name = str(json_object_get(e, "label"), "name");
		const char *action = str(e, "action");
		long long id = json_integer_value(json_object_get(e, "id"));

		if (!name || strcmp(name, label) || !action ||
		    gitlab_time_ms(str(e, "created_at"), &t) != 0)
			continue;
		if (t < best || (t == best && id < best_id))
			continue;
		best = t;
		best_id = id;
		added = !strcmp(action, "add");
	}
	if (best >= 0)
		*at = best;
	return added;
}

int gitlab_label_check(const struct gitlab_env *env, const char *label,
		       enum gitlab_label_state *state,
		       long long *head_at_ms, long long *label_at_ms)
{
	json_t *versions = json_array(), *events = json_array();
	long long head_at = 0, label_at = 0;
	int r, added;

	*state = GITLAB_LABEL_UNSET;
	if (!env->head_sha || !env->head_sha[0]) {
		r = crs_error_set(CRS_EINPUT, "gitlab: CI_COMMIT_SHA is not "
				  "set");
		goto out;
	}
	if ((r = get_all(env, "versions", versions)) != 0 ||
	    (r = get_all(env, "resource_label_events", events)) != 0)
		goto out;
	head_at = head_time(versions, env->head_sha);
	added = label_added(events, label, &label_at);
	if (!added)
		*state = GITLAB_LABEL_UNSET;
	else if (!head_at)
		*state = GITLAB_LABEL_HEAD_UNKNOWN;
	else if (label_at >= head_at)
		*state = GITLAB_LABEL_FOR_HEAD;
	else
		*state = GITLAB_LABEL_BEFORE_HEAD;
out:
	if (head_at_ms)
		*head_at_ms = head_at;
	if (label_at_ms)
		*label_at_ms = label_at;
	json_decref(versions);
	json_decref(events);
	return r;
}
