/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gitlab_label.c - the GitLab LLM label counts only for the head it
 * was set on (runner/report/gitlab_label.c), against the fake GitLab API
 * (tests/helper/fake_gitlab.c: two versions, fixed label events).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "runner/report/gitlab.h"
#include "runner/report/gitlab_label.h"
#include "common/error.h"
#include "tests/helper/fake_gitlab.h"

#include <string.h>

#define TOKEN "glpat-label-test"

static void fake_env(struct gitlab_env *env, struct fake_gitlab *f,
		     const char *head)
{
	memset(env, 0, sizeof(*env));
	env->api_url = f->api_url;
	env->project_id = "42";
	env->mr_iid = "7";
	env->head_sha = head;
	env->token = TOKEN;
}

static void test_time(void **state)
{
	long long ms;

	(void)state;
	assert_int_equal(gitlab_time_ms("2024-05-02T10:00:00.000Z", &ms), 0);
	assert_int_equal(ms, 1714644000000LL);
	assert_int_equal(gitlab_time_ms("2024-05-02T10:00:00.25Z", &ms), 0);
	assert_int_equal(ms, 1714644000250LL);
	assert_int_equal(gitlab_time_ms("2024-05-02T12:30:00+02:00", &ms), 0);
	assert_int_equal(ms, 1714645800000LL);
	assert_int_equal(gitlab_time_ms("2024-05-02T07:00:00.123456-03:00",
					&ms), 0);
	assert_int_equal(ms, 1714644000123LL);
	/* hostile or foreign shapes: refused, never half read */
	static const char *const bad[] = {
		"", "2024-05-02", "2024-05-02T10:00:00", "2024-05-02 10:00:00Z",
		"2024-13-02T10:00:00Z", "2024-05-02T10:00:00Zjunk",
		"2024-05-02T10:00:00+0200", "x024-05-02T10:00:00Z",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_int_equal(gitlab_time_ms(bad[i], &ms), -1);
	assert_int_equal(gitlab_time_ms(NULL, &ms), -1);
}

static void expect(struct fake_gitlab *f, const char *head,
		   const char *label, enum gitlab_label_state want)
{
	struct gitlab_env env;
	enum gitlab_label_state st;

	fake_env(&env, f, head);
	assert_int_equal(gitlab_label_check(&env, label, &st, NULL, NULL), 0);
	assert_int_equal(st, want);
}

static void test_label_for_head(void **state)
{
	struct fake_gitlab *f = NULL;
	struct gitlab_env env;
	enum gitlab_label_state st;
	long long head_at, label_at;

	(void)state;
	assert_int_equal(fake_gitlab_start(&f, TOKEN, "42", "7"), 0);
	/* set after the newest head was pushed: counts */
	fake_env(&env, f, FAKE_GITLAB_HEAD);
	assert_int_equal(gitlab_label_check(&env, "llm-now", &st, &head_at,
					    &label_at), 0);
	assert_int_equal(st, GITLAB_LABEL_FOR_HEAD);
	assert_int_equal(head_at, 1714644000000LL);
	assert_int_equal(label_at, 1714647600000LL);
	assert_string_equal(f->reqs[0].url,
			    "/api/v4/projects/42/merge_requests/7/versions");
	assert_string_equal(f->reqs[1].url, "/api/v4/projects/42/"
			    "merge_requests/7/resource_label_events");
	assert_string_equal(f->reqs[1].token, TOKEN);
	/* set on the old head, which a commit pushed after it replaced: it
	 * counted for the old head, not for the new one (issue 42 part 2) */
	expect(f, FAKE_GITLAB_OLD_HEAD, "crs-ci-llm", GITLAB_LABEL_FOR_HEAD);
	expect(f, FAKE_GITLAB_HEAD, "crs-ci-llm", GITLAB_LABEL_BEFORE_HEAD);
	/* added and removed since: not set */
	expect(f, FAKE_GITLAB_HEAD, "llm-removed", GITLAB_LABEL_UNSET);
	/* a time with an offset is compared as the instant it is */
	expect(f, FAKE_GITLAB_HEAD, "llm-offset", GITLAB_LABEL_FOR_HEAD);
	/* never set; a label name is matched whole */
	expect(f, FAKE_GITLAB_HEAD, "llm", GITLAB_LABEL_UNSET);
	expect(f, FAKE_GITLAB_HEAD, "llm-now ", GITLAB_LABEL_UNSET);
	/* a commit that is no version of the merge request */
	expect(f, FAKE_GITLAB_BASE, "llm-now", GITLAB_LABEL_HEAD_UNKNOWN);
	fake_gitlab_stop(f);
}

static void test_label_errors(void **state)
{
	struct fake_gitlab *f = NULL;
	struct gitlab_env env;
	enum gitlab_label_state st;

	(void)state;
	assert_int_equal(fake_gitlab_start(&f, TOKEN, "42", "7"), 0);
	fake_env(&env, f, FAKE_GITLAB_HEAD);
	env.token = "wrong";
	assert_int_equal(gitlab_label_check(&env, "llm-now", &st, NULL, NULL),
			 CRS_ERR);
	assert_int_equal(st, GITLAB_LABEL_UNSET);
	assert_null(strstr(crs_error_last(), "wrong"));
	crs_error_clear();
	fake_env(&env, f, FAKE_GITLAB_HEAD);
	env.token = NULL;
	assert_int_equal(gitlab_label_check(&env, "llm-now", &st, NULL, NULL),
			 CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "CRS_CI_GITLAB_TOKEN"));
	crs_error_clear();
	fake_env(&env, f, NULL);
	assert_int_equal(gitlab_label_check(&env, "llm-now", &st, NULL, NULL),
			 CRS_EINPUT);
	assert_non_null(strstr(crs_error_last(), "CI_COMMIT_SHA"));
	crs_error_clear();
	/* another merge request of the project: 404, refused */
	fake_env(&env, f, FAKE_GITLAB_HEAD);
	env.mr_iid = "8";
	assert_int_equal(gitlab_label_check(&env, "llm-now", &st, NULL, NULL),
			 CRS_ERR);
	crs_error_clear();
	fake_gitlab_stop(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_label_for_head),
		cmocka_unit_test(test_label_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
