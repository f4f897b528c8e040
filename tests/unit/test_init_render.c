/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_init_render.c - the files `crs-ci init` writes, parsed back
 *
 * Each rendered file is parsed with libyaml: the compose names the
 * bundled CRSs by registry name only (no `source`) with the plan's
 * cpusets and sizes, and its commented-out LLM patcher block is valid
 * YAML once uncommented; the workflow and the GitLab include point at
 * the compose and the project, at the same release tag, and the workflow
 * uploads nothing besides the action's own artifact; every file starts with the comment saying
 * what it is, that init wrote it and how to regenerate it; the output
 * depends on nothing but the options. Paths that could break out of a
 * YAML value, a GitHub expression or the GitLab job's shell are refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "runner/init/init_plan.h"
#include "runner/init/init_render.h"
#include "runner/config/yaml_doc.h"
#include "common/buf.h"
#include "common/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REGEN "crs-ci init --cpus 4 --force"

static void opts(struct init_render_opts *o, struct init_plan *p,
		 unsigned cpus)
{
	init_plan_make(p, cpus, 0);
	memset(o, 0, sizeof(*o));
	o->plan = p;
	o->compose = ".crs-ci/crs-compose.yaml";
	o->project = ".clusterfuzzlite";
	o->layout = "ClusterFuzzLite folder";
	o->regen = REGEN;
	o->default_branch = "main";
}

/* The node at a path of mapping keys and (as "#N") list indexes. */
static yaml_node_t *at(struct yaml_doc *d, ...)
{
	yaml_node_t *n = yaml_doc_root(d);
	const char *key;
	va_list ap;

	va_start(ap, d);
	while (n && (key = va_arg(ap, const char *))) {
		yaml_node_t *next = NULL, *k, *v;
		const char *name;

		if (key[0] == '#') {
			int i = atoi(key + 1);

			if (n->type == YAML_SEQUENCE_NODE &&
			    n->data.sequence.items.start + i <
			    n->data.sequence.items.top)
				next = yaml_doc_node(d, n->data.sequence.items
						     .start[i]);
		} else if (n->type == YAML_MAPPING_NODE) {
			for (size_t j = 0; yaml_doc_pair(d, n, j, &k, &v,
							 &name); j++)
				if (!strcmp(name, key))
					next = v;
		}
		n = next;
	}
	va_end(ap);
	return n;
}

static const char *str_at(struct yaml_doc *d, const char *a, const char *b,
			  const char *c, const char *e, const char *f)
{
	yaml_node_t *n = at(d, a, b, c, e, f, NULL);

	return n ? yaml_doc_scalar(n) : NULL;
}

static void parse(struct yaml_doc *d, const struct buf *b)
{
	memset(d, 0, sizeof(*d));
	assert_int_equal(yaml_doc_parse(d, b->ptr, b->len, "rendered"), 0);
}

static void assert_header(const struct buf *b, const char *name)
{
	char first[128];

	snprintf(first, sizeof(first), "# %s - ", name);
	assert_memory_equal(b->ptr, first, strlen(first));
	assert_non_null(strstr(b->ptr, INIT_RENDER_MARK));
	assert_non_null(strstr(b->ptr, "Regenerate with:\n#   " REGEN "\n"));
	/* the header is comment lines up to the first key */
	for (const char *s = b->ptr; s < strstr(b->ptr, INIT_RENDER_MARK);
	     s = strchr(s, '\n') + 1)
		assert_int_equal(s[0], '#');
}

static void test_compose(void **st)
{
	static const struct { unsigned cpus; const char *afl; } cases[] = {
		{ 1, NULL }, { 2, NULL }, { 3, "2" }, { 4, "2-3" },
		{ 16, "2-15" },
	};

	(void)st;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct init_render_opts o;
		struct init_plan p;
		struct buf b = BUF_INIT;
		struct yaml_doc d;
		char mem[32];

		opts(&o, &p, cases[i].cpus);
		init_render_compose(&b, &o);
		assert_header(&b, "crs-compose.yaml");
		parse(&d, &b);
		assert_string_equal(str_at(&d, "run_env", NULL, NULL, NULL,
					   NULL), "local");
		assert_string_equal(str_at(&d, "oss_crs_infra", "cpuset",
					   NULL, NULL, NULL), "0");
		assert_string_equal(str_at(&d, "crs-libfuzzer", "cpuset",
					   NULL, NULL, NULL),
				    cases[i].cpus > 1 ? "1" : "0");
		init_plan_mem_str(mem, p.libfuzzer_mb);
		assert_string_equal(str_at(&d, "crs-libfuzzer", "memory",
					   NULL, NULL, NULL), mem);
		/* registry names only */
		assert_null(at(&d, "crs-libfuzzer", "source", NULL));
		if (cases[i].afl) {
			assert_string_equal(str_at(&d, "crs-aflpp", "cpuset",
						   NULL, NULL, NULL),
					    cases[i].afl);
			assert_null(at(&d, "crs-aflpp", "source", NULL));
		} else {
			assert_null(at(&d, "crs-aflpp", NULL));
		}
		/* the patcher is there only as a comment */
		assert_null(at(&d, "crs-llm-patcher", NULL));
		assert_null(at(&d, "llm_config", NULL));
		yaml_doc_release(&d);
		buf_release(&b);
	}
}

static void test_compose_patcher_block(void **st)
{
	struct init_render_opts o;
	struct init_plan p;
	struct buf b = BUF_INIT, on = BUF_INIT;
	struct yaml_doc d;
	const char *mark = "To enable it, uncomment:\n#\n", *s;

	(void)st;
	opts(&o, &p, 2);
	init_render_compose(&b, &o);
	s = strstr(b.ptr, mark);
	assert_non_null(s);
	s += strlen(mark);
	buf_add(&on, b.ptr, (size_t)(s - b.ptr));
	/* uncomment every line after the mark, as a user would */
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) + 1 : strlen(s);

		assert_memory_equal(s, "# ", 2);
		buf_add(&on, s + 2, n - 2);
		s += n;
	}
	parse(&d, &on);
	assert_string_equal(str_at(&d, "llm_config", "litellm", "mode", NULL,
				   NULL), "external");
	assert_string_equal(str_at(&d, "llm_config", "litellm", "external",
				   "key_env", NULL), "OPENAI_API_KEY");
	/* only the infra may share a core with a CRS */
	assert_string_equal(str_at(&d, "crs-llm-patcher", "cpuset", NULL,
				   NULL, NULL), "0");
	assert_non_null(at(&d, "crs-llm-patcher", "llm_budget", NULL));
	assert_non_null(at(&d, "crs-libfuzzer", NULL));
	yaml_doc_release(&d);
	buf_release(&on);
	buf_release(&b);
}

static void test_github(void **st)
{
	struct init_render_opts o;
	struct init_plan p;
	struct buf b = BUF_INIT;
	struct yaml_doc d;

	(void)st;
	opts(&o, &p, 4);
	o.project = "projects/recparse";
	o.compose = "ci/compose.yaml";
	init_render_github(&b, &o);
	assert_header(&b, "crs-ci.yml");
	parse(&d, &b);
	assert_non_null(at(&d, "on", "pull_request", NULL));
	assert_string_equal(str_at(&d, "jobs", "scan", "runs-on", NULL, NULL),
			    "ubuntu-latest");
	assert_string_equal(str_at(&d, "jobs", "scan", "steps", "#1", "uses"),
			    "crs-ci/crs-ci/actions@v" CRS_CI_VERSION);
	/* another owner's action: pinned by a full commit id */
	assert_string_equal(str_at(&d, "jobs", "scan", "steps", "#0", "uses"),
			    "actions/checkout@11d5960a326750d5838078e36cf38b8"
			    "5af677262");
	assert_non_null(strstr(b.ptr, "actions/checkout@11d5960a326750d5838078"
			       "e36cf38b85af677262 # v4.4.0\n"));
	assert_string_equal(yaml_doc_scalar(at(&d, "jobs", "scan", "steps",
					      "#1", "with", "compose",
					      NULL)), "ci/compose.yaml");
	assert_string_equal(yaml_doc_scalar(at(&d, "jobs", "scan", "steps",
					      "#1", "with", "project",
					      NULL)), "projects/recparse");
	assert_string_equal(yaml_doc_scalar(at(&d, "jobs", "scan", "steps",
					      "#1", "with", "config-from",
					      NULL)), "base");
	/* the action uploads crs-ci's output: no second upload step */
	assert_null(at(&d, "jobs", "scan", "steps", "#2", NULL));
	/* the store is read with the job's read-only token */
	assert_string_equal(yaml_doc_scalar(at(&d, "jobs", "scan", "steps",
					      "#1", "with", "corpus-store",
					      NULL)),
			    "${{ github.server_url }}/${{ github.repository }}"
			    ".git");
	assert_non_null(at(&d, "jobs", "scan", "steps", "#1", "with",
			   "corpus-store-token", NULL));
	yaml_doc_release(&d);
	buf_release(&b);
}

/* the scheduled batch and prune runs: the one workflow that may push
 * the store's branch */
static void test_github_corpus(void **st)
{
	struct init_render_opts o;
	struct init_plan p;
	struct buf b = BUF_INIT;
	struct yaml_doc d;

	(void)st;
	opts(&o, &p, 4);
	o.project = "projects/recparse";
	o.compose = "ci/compose.yaml";
	init_render_github_corpus(&b, &o);
	assert_header(&b, "crs-ci-corpus.yml");
	parse(&d, &b);
	assert_string_equal(str_at(&d, "on", "schedule", "#0", "cron", NULL),
			    "23 2 * * *");
	assert_string_equal(str_at(&d, "on", "schedule", "#1", "cron", NULL),
			    "41 4 * * 0");
	assert_string_equal(str_at(&d, "permissions", "contents", NULL, NULL,
				   NULL), "write");
	assert_string_equal(yaml_doc_scalar(at(&d, "jobs", "corpus", "steps",
					      "#1", "with", "mode", NULL)),
			    "${{ github.event.schedule == '41 4 * * 0' && "
			    "'prune' || 'batch' }}");
	assert_string_equal(yaml_doc_scalar(at(&d, "jobs", "corpus", "steps",
					      "#1", "with", "compose",
					      NULL)), "ci/compose.yaml");
	assert_string_equal(yaml_doc_scalar(at(&d, "concurrency",
					      "cancel-in-progress", NULL)),
			    "false");
	yaml_doc_release(&d);
	buf_release(&b);
}

/* Each push to the default branch: code scanning's base analysis. */
static void test_github_baseline(void **st)
{
	struct init_render_opts o;
	struct init_plan p;
	struct buf b = BUF_INIT;
	struct yaml_doc d;

	(void)st;
	opts(&o, &p, 4);
	o.default_branch = "release/2.x";
	init_render_github_baseline(&b, &o);
	assert_header(&b, "crs-ci-baseline.yml");
	parse(&d, &b);
	assert_string_equal(str_at(&d, "on", "push", "branches", "#0", NULL),
			    "release/2.x");
	assert_null(at(&d, "on", "pull_request", NULL));
	assert_string_equal(yaml_doc_scalar(at(&d, "jobs", "scan", "steps",
					      "#1", "with", "fail-on",
					      NULL)), "none");
	assert_string_equal(yaml_doc_scalar(at(&d, "jobs", "scan", "steps",
					      "#1", "with", "upload-sarif",
					      NULL)), "api");
	/* the same SARIF category as the pull requests' scans */
	assert_null(at(&d, "jobs", "scan", "steps", "#1", "with", "category",
		       NULL));
	assert_string_equal(str_at(&d, "permissions", "contents", NULL, NULL,
				   NULL), "read");
	yaml_doc_release(&d);
	buf_release(&b);
}

/* --public: the pull_request job has no write rights and makes a bundle;
 * the workflow_run job publishes it with pull-requests and checks */
static void test_github_public(void **st)
{
	struct init_render_opts o;
	struct init_plan p;
	struct buf b = BUF_INIT;
	struct yaml_doc d;

	(void)st;
	opts(&o, &p, 4);
	o.public = 1;
	init_render_github(&b, &o);
	parse(&d, &b);
	assert_null(at(&d, "permissions", "pull-requests", NULL));
	/* the LLM label counts on its own labeled event: the workflow runs
	 * on it, and on no other label */
	assert_string_equal(str_at(&d, "on", "pull_request", "types", "#3",
				   NULL), "labeled");
	assert_non_null(strstr(str_at(&d, "jobs", "scan", "if", NULL, NULL),
			       "github.event.label.name == 'crs-ci-llm'"));
	assert_string_equal(yaml_doc_scalar(at(&d, "jobs", "scan", "steps",
					      "#1", "with", "result-bundle",
					      NULL)), "true");
	assert_string_equal(yaml_doc_scalar(at(&d, "jobs", "scan", "steps",
					      "#1", "with", "upload-sarif",
					      NULL)), "action");
	assert_string_equal(yaml_doc_scalar(at(&d, "jobs", "scan", "steps",
					      "#1", "with", "llm-label",
					      NULL)), "crs-ci-llm");
	yaml_doc_release(&d);
	buf_reset(&b);
	init_render_github_publish(&b, &o);
	assert_header(&b, "crs-ci-publish.yml");
	parse(&d, &b);
	assert_non_null(at(&d, "on", "workflow_run", NULL));
	assert_string_equal(yaml_doc_scalar(at(&d, "permissions",
					      "pull-requests", NULL)), "write");
	assert_string_equal(yaml_doc_scalar(at(&d, "permissions", "checks",
					      NULL)), "write");
	assert_string_equal(str_at(&d, "jobs", "publish", "steps", "#1",
				   "uses"),
			    "crs-ci/crs-ci/actions/publish@v" CRS_CI_VERSION);
	/* nothing of the pull request is checked out there */
	assert_null(strstr(b.ptr, "actions/checkout"));
	yaml_doc_release(&d);
	buf_release(&b);
}

/* A release binary pins crs-ci's own action and component by its commit,
 * the tag beside it as a comment; anything but a full commit pins the tag. */
static void test_release_commit(void **st)
{
	static const char sha[] = "0123456789abcdef0123456789abcdef01234567";
	struct init_render_opts o;
	struct init_plan p;
	struct buf b = BUF_INIT;
	struct yaml_doc d;
	char ref[INIT_RELEASE_REF_MAX];
	static const char *const not_commits[] = {
		"", "0123456789abcdef", "0123456789ABCDEF0123456789abcdef01234567",
		"0123456789abcdef0123456789abcdef01234567\n# x",
		"0123456789abcdef0123456789abcdef0123456z",
	};

	(void)st;
	opts(&o, &p, 2);
	o.release_commit = sha;
	init_render_release_ref(ref, &o);
	assert_string_equal(ref, "0123456789abcdef0123456789abcdef01234567 # v"
			    CRS_CI_VERSION);
	init_render_github(&b, &o);
	assert_non_null(strstr(b.ptr, "crs-ci/crs-ci/actions@0123456789abcdef"
			       "0123456789abcdef01234567 # v" CRS_CI_VERSION
			       "\n"));
	parse(&d, &b);
	assert_string_equal(str_at(&d, "jobs", "scan", "steps", "#1", "uses"),
			    "crs-ci/crs-ci/actions@0123456789abcdef0123456789"
			    "abcdef01234567");
	yaml_doc_release(&d);
	buf_reset(&b);
	init_render_github_publish(&b, &o);
	assert_non_null(strstr(b.ptr, "crs-ci/crs-ci/actions/publish@0123456789"
			       "abcdef0123456789abcdef01234567 # v"));
	buf_reset(&b);
	init_render_gitlab(&b, &o);
	parse(&d, &b);
	assert_string_equal(str_at(&d, "include", "#0", "component", NULL,
				   NULL), "$CI_SERVER_FQDN/ci/crs-ci/crs-ci@"
			    "0123456789abcdef0123456789abcdef01234567");
	yaml_doc_release(&d);
	for (size_t i = 0; i < sizeof(not_commits) / sizeof(*not_commits);
	     i++) {
		o.release_commit = not_commits[i];
		init_render_release_ref(ref, &o);
		assert_string_equal(ref, "v" CRS_CI_VERSION);
	}
	o.release_commit = NULL;
	init_render_release_ref(ref, &o);
	assert_string_equal(ref, "v" CRS_CI_VERSION);
	buf_release(&b);
}

static void test_gitlab(void **st)
{
	struct init_render_opts o;
	struct init_plan p;
	struct buf b = BUF_INIT, lines = BUF_INIT;
	struct yaml_doc d;

	(void)st;
	opts(&o, &p, 2);
	init_render_gitlab(&b, &o);
	assert_header(&b, "GitLab CI/CD include");
	parse(&d, &b);
	/* the CI/CD component, at the release that rendered it (the same
	 * ref as the workflow's) */
	assert_string_equal(str_at(&d, "include", "#0", "component", NULL,
				   NULL), "$CI_SERVER_FQDN/ci/crs-ci/crs-ci@v"
			    CRS_CI_VERSION);
	assert_string_equal(yaml_doc_scalar(at(&d, "include", "#0", "inputs",
					      "compose", NULL)),
			    ".crs-ci/crs-compose.yaml");
	assert_string_equal(yaml_doc_scalar(at(&d, "include", "#0", "inputs",
					      "project", NULL)),
			    ".clusterfuzzlite");
	/* the template's default image: crs-ci's published release */
	assert_null(at(&d, "include", "#0", "inputs", "image", NULL));
	yaml_doc_release(&d);

	init_render_gitlab_lines(&lines, ".crs-ci/gitlab-ci.yml");
	parse(&d, &lines);
	assert_string_equal(str_at(&d, "include", "#0", "local", NULL, NULL),
			    ".crs-ci/gitlab-ci.yml");
	yaml_doc_release(&d);
	buf_release(&lines);
	buf_release(&b);
}

/* Same options, same bytes: what makes a second init write nothing. */
static void test_deterministic(void **st)
{
	struct init_render_opts o;
	struct init_plan p;
	struct buf a = BUF_INIT, b = BUF_INIT;

	(void)st;
	opts(&o, &p, 4);
	init_render_compose(&a, &o);
	init_render_github(&a, &o);
	init_render_gitlab(&a, &o);
	opts(&o, &p, 4);
	init_render_compose(&b, &o);
	init_render_github(&b, &o);
	init_render_gitlab(&b, &o);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.ptr, b.ptr, a.len);
	buf_release(&a);
	buf_release(&b);
}

static void test_path_ok(void **st)
{
	static const char *const good[] = {
		".clusterfuzzlite", "projects/recparse", "a/b-c_d+e@f.yaml",
	};
	static const char *const bad[] = {
		"", "../x", "a/../../x", "a b", "${{ secrets.X }}",
		"$[[ inputs.x ]]", "a\"b", "a'b", "x\ny: 1", "a:b", "a#b",
		"$HOME", "a`id`", "a;b",
	};

	(void)st;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_int_equal(init_render_path_ok(good[i], "--project"), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(init_render_path_ok(bad[i], "--project"),
				 CRS_EINPUT);
		assert_non_null(strstr(crs_error_last(), "--project"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compose),
		cmocka_unit_test(test_compose_patcher_block),
		cmocka_unit_test(test_github),
		cmocka_unit_test(test_github_corpus),
		cmocka_unit_test(test_github_baseline),
		cmocka_unit_test(test_github_public),
		cmocka_unit_test(test_release_commit),
		cmocka_unit_test(test_gitlab),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_path_ok),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
