/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gitlab_label.h - does a merge-request label count for this head?
 *
 * The maintainers' label that lets a fork's merge request run LLM CRSs
 * counts only for the head it was set on: its last label event must be an
 * "add" no earlier than the merge-request version whose head is this
 * pipeline's commit (REST: .../versions, .../resource_label_events).
 */
#ifndef CRS_RUNNER_REPORT_GITLAB_LABEL_H
#define CRS_RUNNER_REPORT_GITLAB_LABEL_H

struct gitlab_env;

enum gitlab_label_state {
	GITLAB_LABEL_FOR_HEAD,		/* added after this head was pushed */
	GITLAB_LABEL_BEFORE_HEAD,	/* set, but before this head */
	GITLAB_LABEL_UNSET,		/* never added, or removed since */
	GITLAB_LABEL_HEAD_UNKNOWN,	/* env->head_sha is no MR version */
};

/*
 * Read the merge request's versions and label events (every page) and
 * set *state for `label` and env->head_sha; *head_at_ms and *label_at_ms
 * (when not NULL) get the times compared (ms since the epoch, 0 unknown).
 * 0, CRS_EINPUT (a GitLab variable or the token missing: gitlab_mr_request)
 * or CRS_ERR (the API failed or answered something else).
 */
int gitlab_label_check(const struct gitlab_env *env, const char *label,
		       enum gitlab_label_state *state,
		       long long *head_at_ms, long long *label_at_ms);

#ifdef UNIT_TESTS
/*
 * GitLab's ISO 8601 time ("2024-05-02T10:00:00.000Z", "...+02:00") as ms
 * since the epoch: 0, or -1 when `s` is not one.
 */
int gitlab_time_ms(const char *s, long long *ms);
#endif

#endif
