/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_reaper.c - who is dead: the reaper against a fake engine
 *
 * The engine lists containers whose owner labels describe this process
 * (alive), a process that exited, a pid reused by another process (the
 * start time differs), an owner in another pid namespace and an object
 * made by an older crs-ci (no identity labels). Only the two dead ones
 * are removed, and the dead gateway's key folder with them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/strvec.h"
#include "common/xalloc.h"
#include "runner/engine/docker.h"
#include "runner/engine/reaper.h"
#include "tests/unit/fake_transport.h"

/* A pid that no process has: a child that has exited and been waited. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

/* {"Id": id, "Labels": {...}} from "KEY=VALUE" strings. */
static json_t *object(const char *id, const char *const *labels)
{
	json_t *l = json_object();

	for (; labels && *labels; labels++) {
		const char *eq = strchr(*labels, '=');
		char *key = xstrndup(*labels, (size_t)(eq - *labels));

		json_object_set_new(l, key, json_string(eq + 1));
		free(key);
	}
	return json_pack("{s:s,s:o}", "Id", id, "Labels", l);
}

/* Our own identity labels with one of them replaced (`key`, NULL: none). */
static void labels_with(struct strvec *out, const char *key,
			const char *value)
{
	struct strvec mine = STRVEC_INIT;

	reaper_labels(&mine, 0);
	strvec_push(out, CRS_CI_LABEL "=crs-ci-test");
	for (size_t i = 0; i < mine.nr; i++) {
		size_t n = key ? strlen(key) : 0;

		if (key && !strncmp(mine.v[i], key, n) && mine.v[i][n] == '=')
			strvec_pushf(out, "%s=%s", key, value);
		else
			strvec_push(out, mine.v[i]);
	}
	strvec_release(&mine);
}

static void test_labels(void **state)
{
	struct strvec l = STRVEC_INIT;
	char pid[32];

	(void)state;
	reaper_labels(&l, 1234567890);
	snprintf(pid, sizeof(pid), REAPER_PID_LABEL "=%ld", (long)getpid());
	assert_int_equal(l.nr, 4);
	assert_non_null(strstr(l.v[0], REAPER_PIDNS_LABEL "="));
	assert_non_null(strstr(l.v[0], "/pid:["));
	assert_string_equal(l.v[1], pid);
	assert_non_null(strstr(l.v[2], REAPER_START_LABEL "="));
	assert_string_equal(l.v[3], REAPER_DEADLINE_LABEL "=1234567890");
	strvec_release(&l);
}

static void test_reap_only_the_dead(void **state)
{
	struct fake_transport f;
	struct docker_client *d;
	struct strvec alive = STRVEC_INIT, gone = STRVEC_INIT;
	struct strvec reused = STRVEC_INIT, foreign = STRVEC_INIT;
	const char *old[] = { CRS_CI_LABEL "=crs-ci-old", NULL };
	char tmp[] = "/tmp/crs-test-reaper-XXXXXX", dead[32];
	char *keys, *key, *body;
	json_t *list = json_array();

	(void)state;
	assert_non_null(mkdtemp(tmp));
	keys = xasprintf("%s/keys", tmp);
	key = xasprintf("%s/crs-a.key", keys);
	assert_int_equal(mkdir(keys, 0700), 0);
	assert_int_equal(fs_write_file_atomic(key, "sk-crs-x", 8), 0);

	snprintf(dead, sizeof(dead), "%ld", (long)dead_pid());
	labels_with(&alive, NULL, NULL);
	labels_with(&gone, REAPER_PID_LABEL, dead);
	strvec_pushf(&gone, "%s=%s", REAPER_KEYS_LABEL, keys);
	labels_with(&reused, REAPER_START_LABEL, "1");
	labels_with(&foreign, REAPER_PIDNS_LABEL, "other-boot/pid:[1]");
	strvec_push(&foreign, REAPER_PID_LABEL "=1");	/* irrelevant there */
	json_array_append_new(list, object("c-alive", strvec_list(&alive)));
	json_array_append_new(list, object("c-gone", strvec_list(&gone)));
	json_array_append_new(list, object("c-reused", strvec_list(&reused)));
	json_array_append_new(list, object("c-foreign",
					   strvec_list(&foreign)));
	json_array_append_new(list, object("c-old", old));
	body = json_dumps(list, JSON_COMPACT);

	fake_init(&f);
	docker_client_new_with_transport(&d, &f.t);
	fake_reply(&f, 200, body);	/* containers */
	fake_reply(&f, 204, "");	/* remove c-gone */
	fake_reply(&f, 204, "");	/* remove c-reused */
	fake_reply(&f, 200, "[]");	/* networks */
	reaper_reap_dead(d);

	assert_int_equal(f.nr_calls, 4);
	assert_string_equal(f.calls[0].method, "GET");
	assert_string_equal(f.calls[0].path, "/v1.41/containers/json?all=1&"
			    "filters=%7B%22label%22%3A%5B%22io.crs-ci.pid"
			    "%22%5D%7D");
	assert_string_equal(f.calls[1].method, "DELETE");
	assert_string_equal(f.calls[1].path,
			    "/v1.41/containers/c-gone?v=1&force=1");
	assert_string_equal(f.calls[2].path,
			    "/v1.41/containers/c-reused?v=1&force=1");
	assert_string_equal(f.calls[3].path, "/v1.41/networks?filters="
			    "%7B%22label%22%3A%5B%22io.crs-ci.pid%22%5D%7D");
	/* the dead gateway's key files went with it */
	assert_false(fs_exists(key));
	assert_false(fs_exists(keys));

	docker_client_free(d);
	fake_release(&f);
	json_decref(list);
	free(body);
	strvec_release(&alive);
	strvec_release(&gone);
	strvec_release(&reused);
	strvec_release(&foreign);
	rmdir(tmp);
	free(key);
	free(keys);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_reap_only_the_dead),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
