/* SPDX-License-Identifier: Apache-2.0 */
/*
 * private_report.c - private findings to the maintainers only: sealed
 * evidence files, a draft GitHub security advisory, a confidential
 * GitLab issue
 *
 * Everything in a finding came from the program under test (its crash
 * output) and is hostile text: it is made valid UTF-8 and fenced; the
 * forges get it in JSON built by jansson. Nothing here reaches the log
 * but counts and the forge's status.
 */
#include "runner/report/private_report.h"
#include "runner/report/cms_seal.h"
#include "runner/report/disclose.h"
#include "runner/report/github.h"
#include "runner/report/gitlab.h"
#include "runner/http/http.h"
#include "sarif/cwe.h"
#include "sarif/finding.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/testable.h"
#include "common/utf8.h"
#include "common/xalloc.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PRIVATE_TIMEOUT_MS 30000
#define PRIVATE_KEY_ENV "CRS_CI_DISCLOSE_KEY"
#define PRIVATE_TOKEN_ENV "CRS_CI_ADVISORY_TOKEN"

/* `s` (n bytes) as valid UTF-8 lines without other control bytes */
static void add_clean_lines(struct buf *b, const char *s, size_t n)
{
	while (n) {
		const char *nl = memchr(s, '\n', n);
		size_t len = nl ? (size_t)(nl - s) : n;
		char *c = utf8_clean(s, len, len + 1);

		buf_adds(b, c);
		buf_addch(b, '\n');
		free(c);
		s += len + (nl != NULL);
		n -= len + (nl != NULL);
	}
}

/* a ~~~ fence longer than any run of '~' in `s` */
static void fence(char *out, size_t n, const char *s, size_t len)
{
	size_t run = 0, longest = 0, k;

	for (size_t i = 0; i < len; i++) {
		run = s[i] == '~' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	k = longest < 3 ? 3 : longest + 1;
	if (k >= n)
		k = n - 1;
	memset(out, '~', k);
	out[k] = '\0';
}

static void fenced(struct buf *b, const char *s, size_t len)
{
	char f[64];

	fence(f, sizeof(f), s, len);
	buf_printf(b, "%s\n", f);
	buf_add(b, s, len);
	if (len && s[len - 1] != '\n')
		buf_addch(b, '\n');
	buf_printf(b, "%s\n\n", f);
}

/* an inline value: valid UTF-8, no backticks, in `code` */
static void code(struct buf *b, const char *s)
{
	char *c = utf8_clean(s ? s : "?", strlen(s ? s : "?"), 512);

	for (char *p = c; *p; p++)
		if (*p == '`')
			*p = '\'';
	buf_printf(b, "`%s`", c);
	free(c);
}

CRS_TESTABLE char *private_report_text(const struct private_finding *x,
				       const struct scan_summary *sm,
				       const char *evidence_name, size_t max)
{
	struct buf b = BUF_INIT, rep = BUF_INIT, pov = BUF_INIT;
	size_t room;

	buf_adds(&b, "crs-ci proved a crash in released code (present on the "
		 "base revision) while scanning ");
	code(&b, sm->project ? sm->project : "this repository");
	if (sm->base) {
		buf_adds(&b, " at base ");
		code(&b, sm->base);
	}
	buf_adds(&b, ". The disclosure policy kept it out of every public "
		 "output; only a count was published.\n\n**Crash:** ");
	code(&b, x->crash_type);
	buf_adds(&b, " (");
	code(&b, x->sanitizer ? x->sanitizer : "sanitizer unknown");
	buf_adds(&b, ") in ");
	code(&b, x->function);
	buf_adds(&b, " at ");
	code(&b, x->file);
	buf_printf(&b, " line %d, harness ", x->line);
	code(&b, x->harness);
	buf_adds(&b, "\n\n");
	if (x->stack) {
		struct buf st = BUF_INIT;

		add_clean_lines(&st, x->stack, strlen(x->stack));
		buf_adds(&b, "**Stack:**\n\n");
		fenced(&b, st.ptr, st.len);
		buf_release(&st);
	}
	if (x->pov_cms) {
		buf_adds(&pov, "\n**PoV**, CMS enveloped data (AES-256) for the "
			 "certificate in " PRIVATE_KEY_ENV "; save the block "
			 "as pov.cms, then `openssl cms -decrypt -inform PEM "
			 "-in pov.cms -inkey key.pem -binary -out pov` or "
			 "`crs-ci decrypt --key key.pem pov.cms > pov`:\n\n");
		fenced(&pov, x->pov_cms, strlen(x->pov_cms));
	} else {
		buf_adds(&pov, "\n**PoV:** not attached: no " PRIVATE_KEY_ENV
			 " (a PEM certificate of the maintainers) is "
			 "configured, and a PoV is never published in the "
			 "clear.\n");
	}
	/* 256 bytes for the report's heading, fences and cut note */
	if (b.len + pov.len + 256 > max) {
		buf_reset(&pov);
		buf_printf(&pov, "\n**PoV:** too large to inline here; sealed "
			   "in the run's artifact as `%s`.\n", evidence_name);
	}
	if (x->report && x->report->len) {
		add_clean_lines(&rep, x->report->ptr, x->report->len);
		room = max > b.len + pov.len + 256 ?
			max - b.len - pov.len - 256 : 0;
		buf_adds(&b, "**Sanitizer report:**\n\n");
		if (rep.len > room) {
			size_t cut = room;

			/* never end inside a UTF-8 sequence */
			while (cut && ((unsigned char)rep.ptr[cut] & 0xC0) ==
			       0x80)
				cut--;
			fenced(&b, rep.ptr, cut);
			buf_printf(&b, "(cut: %zu more bytes)\n",
				   rep.len - cut);
		} else {
			fenced(&b, rep.ptr, rep.len);
		}
	}
	buf_add(&b, pov.ptr, pov.len);
	if (b.len > max) {	/* only when max is tiny: never over */
		b.len = max;
		while (b.len && ((unsigned char)b.ptr[b.len] & 0xC0) == 0x80)
			b.len--;
		b.ptr[b.len] = '\0';
	}
	buf_release(&rep);
	buf_release(&pov);
	return buf_detach(&b, NULL);
}

static char *title_of(const struct private_finding *x)
{
	struct buf b = BUF_INIT;
	char *t;

	buf_adds(&b, cwe_rule_for(x->crash_type)->title);
	buf_adds(&b, " in ");
	buf_adds(&b, x->function ? x->function : "released code");
	buf_adds(&b, " (found by crs-ci)");
	t = utf8_clean(b.ptr, b.len, PRIVATE_SUMMARY_MAX);
	buf_release(&b);
	return t;
}

static const char *severity_of(const struct private_finding *x)
{
	double s = atof(cwe_rule_for(x->crash_type)->severity);

	return s >= 9 ? "critical" : s >= 7 ? "high" : s >= 4 ? "medium" :
		"low";
}

/* A draft advisory, never published, for private finding `x` */
static int github_advisory(const struct github_env *env, const char *token,
			   const struct private_finding *x,
			   const struct scan_summary *sm, const char *text)
{
	char *title = title_of(x);
	int r = github_advisory_post(env, token, title, text, severity_of(x),
				     cwe_rule_for(x->crash_type)->cwe,
				     sm->project ? sm->project :
				     env->repository, PRIVATE_TIMEOUT_MS);

	free(title);
	return r;
}

/* POST /projects/:id/issues with confidential=true */
static int gitlab_issue(const struct gitlab_env *env,
			const struct private_finding *x, const char *text)
{
	struct buf resp = BUF_INIT;
	char *title = title_of(x), *id, *path, *json = NULL;
	json_t *body;
	int r;

	if (!env->project_id)
		return crs_error_set(CRS_EINPUT, "gitlab: CI_PROJECT_ID is "
				     "not set");
	id = http_escape(env->project_id);
	path = xasprintf("/projects/%s/issues", id);
	body = json_pack("{s:s,s:s,s:b,s:s}", "title", title,
			 "description", text, "confidential", 1,
			 "labels", "crs-ci,security");
	json = body ? json_dumps(body, JSON_COMPACT) : NULL;
	r = json ? gitlab_request(env, "POST", path, "issues", json, 201,
				  &resp) :
		crs_error_set(CRS_ERR, "gitlab: cannot build the issue's JSON");
	buf_release(&resp);
	json_decref(body);
	free(json);
	free(path);
	free(id);
	free(title);
	return r;
}

/* seal x's PoV into x->pov_cms and write the two evidence files */
static int seal_one(struct private_finding *x, const struct scan_summary *sm,
		    const char *key, int dirfd, size_t n)
{
	struct buf sealed = BUF_INIT, mdc = BUF_INIT;
	char name[64], *md;
	int r;

	snprintf(name, sizeof(name), "finding-%zu.pov.cms", n);
	if ((r = cms_seal(&sealed, x->pov->ptr, x->pov->len, key,
			  PRIVATE_KEY_ENV)) != 0)
		goto out;
	x->pov_cms = xstrndup(sealed.ptr, sealed.len);
	if ((r = fs_write_at(dirfd, name, sealed.ptr, sealed.len)) != 0)
		goto out;
	md = private_report_text(x, sm, name, PRIVATE_ISSUE_MAX);
	r = cms_seal(&mdc, md, strlen(md), key, PRIVATE_KEY_ENV);
	explicit_bzero(md, strlen(md));
	free(md);
	snprintf(name, sizeof(name), "finding-%zu.md.cms", n);
	if (!r)
		r = fs_write_at(dirfd, name, mdc.ptr, mdc.len);
	/* the finding's id, in the clear: what `crs-ci publish` files an
	 * advisory under once (a hash of the crash's signature; it tells
	 * nothing of the crash but to one who can name it already) */
	snprintf(name, sizeof(name), "finding-%zu.id", n);
	if (!r && x->id) {
		char *line = xasprintf("%s\n", x->id);

		r = fs_write_at(dirfd, name, line, strlen(line));
		free(line);
	}
out:
	buf_release(&sealed);
	buf_release(&mdc);
	return r;
}

static int seal_all(struct private_set *p, const struct scan_summary *sm,
		    const char *key, const char *out_dir)
{
	char *dir = xasprintf("%s/private", out_dir);
	int dfd = -1, r;

	if ((r = fs_mkdir_p(dir)) == 0 && (r = fs_open_dir(&dfd, dir)) == 0)
		for (size_t i = 0; i < p->nr && !r; i++)
			r = seal_one(&p->items[i], sm, key, dfd, i + 1);
	if (dfd >= 0)
		close(dfd);
	if (r == 0)
		log_info("disclose: %zu private finding(s) sealed for the "
			 "maintainers in %s", p->nr, dir);
	free(dir);
	return r;
}

static void to_github(struct private_set *p, const struct scan_summary *sm)
{
	const char *token = getenv(PRIVATE_TOKEN_ENV);
	struct github_env env;
	size_t made = 0;

	if (!token || !*token) {
		log_warn("disclose: no " PRIVATE_TOKEN_ENV ", so no draft "
			 "security advisory was made for %zu private "
			 "finding(s); %s", p->nr, getenv(PRIVATE_KEY_ENV) ?
			 "their evidence is sealed in private/ of the output "
			 "folder" : "nothing of them was kept (set "
			 PRIVATE_KEY_ENV " to keep it sealed)");
		return;
	}
	if (github_env_load(&env) != 0)
		crs_error_clear();	/* the repository is all it needs */
	if (!env.repository || !strchr(env.repository, '/')) {
		log_warn("disclose: GITHUB_REPOSITORY is not set: no advisory");
		github_env_release(&env);
		return;
	}
	for (size_t i = 0; i < p->nr; i++) {
		char name[64], *text;

		snprintf(name, sizeof(name), "private/finding-%zu.pov.cms",
			 i + 1);
		text = private_report_text(&p->items[i], sm, name,
					   PRIVATE_ADVISORY_MAX);
		if (github_advisory(&env, token, &p->items[i], sm, text) == 0)
			made++;
		else {
			log_warn("disclose: %s", crs_error_last());
			crs_error_clear();
		}
		free(text);
	}
	log_info("disclose: %zu draft security advisory(ies) made for %zu "
		 "private finding(s)", made, p->nr);
	github_env_release(&env);
}

static void to_gitlab(struct private_set *p, const struct scan_summary *sm)
{
	struct gitlab_env env;
	size_t made = 0;

	gitlab_env_load(&env);
	if (!env.token) {
		log_warn("disclose: no CRS_CI_GITLAB_TOKEN (api scope), so no "
			 "confidential issue was made for %zu private "
			 "finding(s)", p->nr);
		return;
	}
	for (size_t i = 0; i < p->nr; i++) {
		char name[64], *text;

		snprintf(name, sizeof(name), "private/finding-%zu.pov.cms",
			 i + 1);
		text = private_report_text(&p->items[i], sm, name,
					   PRIVATE_ISSUE_MAX);
		if (gitlab_issue(&env, &p->items[i], text) == 0)
			made++;
		else {
			log_warn("disclose: %s", crs_error_last());
			crs_error_clear();
		}
		free(text);
	}
	log_info("disclose: %zu confidential issue(s) made for %zu private "
		 "finding(s)", made, p->nr);
}

int private_report(struct private_set *p, const struct scan_summary *sm,
		   const char *out_dir)
{
	const char *key = getenv(PRIVATE_KEY_ENV);
	const char *gh = getenv("GITHUB_ACTIONS");
	int r;

	if (!p->nr)
		return 0;
	if (key && *key) {
		if ((r = cms_recipients_check(key, PRIVATE_KEY_ENV)) != 0 ||
		    (r = seal_all(p, sm, key, out_dir)) != 0)
			return r;
	} else {
		log_warn("disclose: no " PRIVATE_KEY_ENV ": the PoVs of %zu "
			 "private finding(s) are not kept", p->nr);
	}
	if (gh && !strcmp(gh, "true"))
		to_github(p, sm);
	if (gitlab_detect())
		to_gitlab(p, sm);
	return 0;
}
