/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gitlab.c - GitLab CI: Code Quality, SAST and JUnit artifacts, MR notes
 *
 * The only file that knows GitLab's formats and API. Reads the finding
 * model only. Strings from containers are repaired to valid UTF-8 before
 * they reach jansson (junit_text_clean). The API token goes into one
 * request header and nowhere else: never into a message or a log.
 * Severity follows the finding: memory safety and novelty, lowered for
 * pre-existing and flaky crashes (docs in gitlab.h).
 */
#include "runner/report/gitlab.h"
#include "runner/report/removal_review.h"
#include "runner/report/markdown.h"
#include "runner/http/http.h"
#include "runner/report/suggest.h"
#include "diff/changeset.h"
#include "runner/report/junit.h"
#include "sarif/anchor_pick.h"
#include "sarif/change_anchor.h"
#include "sarif/cwe.h"
#include "sarif/finding.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "common/testable.h"

#include <ctype.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GITLAB_TEXT_MAX (64u << 10)	/* per JSON string */
#define GITLAB_DIFF_MAX (64u << 20)	/* per remediation */
#define GITLAB_RESPONSE_MAX (4u << 20)	/* API answers kept */
#define GITLAB_TIMEOUT_S 30L
#define GITLAB_TOOL_URL "https://github.com/crs-ci/crs-ci"

int gitlab_detect(void)
{
	const char *v = getenv("GITLAB_CI");

	return v && !strcmp(v, "true");
}

static const char *gitlab_getenv(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

void gitlab_env_load(struct gitlab_env *env)
{
	memset(env, 0, sizeof(*env));
	env->api_url = gitlab_getenv("CI_API_V4_URL");
	env->project_id = gitlab_getenv("CI_PROJECT_ID");
	env->mr_iid = gitlab_getenv("CI_MERGE_REQUEST_IID");
	env->base_sha = gitlab_getenv("CI_MERGE_REQUEST_DIFF_BASE_SHA");
	env->head_sha = gitlab_getenv("CI_COMMIT_SHA");
	env->project_dir = gitlab_getenv("CI_PROJECT_DIR");
	env->token = gitlab_getenv("CRS_CI_GITLAB_TOKEN");
	if (!env->token)
		env->token = gitlab_getenv("GITLAB_TOKEN");
}

/* --- severity and identity ---------------------------------------------- */

static int gitlab_is(const char *a, const char *b)
{
	return a && !strcmp(a, b);
}

/*
 * Severity on a 0..4 scale: 4 for a memory-safety class GitHub rates
 * critical (security-severity >= 9.0), 3 for other security classes, 2
 * for the rest (timeouts, leaks, OOM, UB that is not memory safety);
 * one lower when pre-existing, one lower when flaky (reproduced <
 * attempts), never below 1; 0 when the change fixed it.
 */
static int gitlab_severity_level(const struct finding *f)
{
	const struct cwe_rule *rule = cwe_rule_for(f->crash_type);
	int level;

	if (gitlab_is(f->novelty, "fixed-by-change"))
		return 0;
	if (f->is_security || rule->is_security)
		level = strtod(rule->severity ? rule->severity : "0", NULL)
			>= 9.0 ? 4 : 3;
	else
		level = 2;
	if (gitlab_is(f->novelty, "pre-existing"))
		level--;
	if (f->reproduced < f->attempts)
		level--;
	return level < 1 ? 1 : level;
}

CRS_TESTABLE const char *gitlab_cq_severity(const struct finding *f)
{
	static const char *const names[] = {
		"info", "minor", "major", "critical", "blocker"
	};

	return names[gitlab_severity_level(f)];
}

CRS_TESTABLE const char *gitlab_sast_severity(const struct finding *f)
{
	static const char *const names[] = {
		"Info", "Low", "Medium", "High", "Critical"
	};

	return names[gitlab_severity_level(f)];
}

CRS_TESTABLE void gitlab_vuln_uuid(char out[37], const char *finding_id)
{
	/* RFC 4122 URL namespace 6ba7b811-9dad-11d1-80b4-00c04fd430c8 */
	static const unsigned char ns[16] = {
		0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1,
		0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8
	};
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int md_len = 0;
	char *name = xasprintf("crs-ci:%s", finding_id ? finding_id : "");
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	size_t i, o = 0;

	if (!c || !EVP_DigestInit_ex(c, EVP_sha1(), NULL) ||
	    !EVP_DigestUpdate(c, ns, sizeof(ns)) ||
	    !EVP_DigestUpdate(c, name, strlen(name)) ||
	    !EVP_DigestFinal_ex(c, md, &md_len))
		memset(md, 0, sizeof(md));	/* cannot fail here */
	EVP_MD_CTX_free(c);
	free(name);
	md[6] = (md[6] & 0x0f) | 0x50;		/* version 5 */
	md[8] = (md[8] & 0x3f) | 0x80;		/* RFC 4122 variant */
	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		snprintf(out + o, 3, "%02x", md[i]);
		o += 2;
	}
	out[o] = '\0';
}

/*
 * The repo-relative location of a finding: its change anchor when that
 * moved it onto a changed line, else its file, else its innermost
 * in-project frame with a file; NULL when none (such findings are left
 * out of Code Quality and SAST, which need a path). Borrowed.
 */
static const char *gitlab_location(const struct finding *f, int *line_out)
{
	const char *file = change_anchor_place(f, line_out, NULL);

	if (file && *file)	/* the change anchor, else the crash site */
		return file;
	*line_out = 0;
	for (size_t i = 0; i < f->stack_nr; i++)
		if (f->stack[i].in_project && f->stack[i].file &&
		    *f->stack[i].file) {
			*line_out = f->stack[i].line;
			return f->stack[i].file;
		}
	return NULL;
}

/* --- JSON helpers ------------------------------------------------------- */

/* A jansson string of hostile text, repaired to valid UTF-8. */
static json_t *gitlab_jstr(const char *s)
{
	char *t = junit_text_clean(s, GITLAB_TEXT_MAX);
	json_t *j = json_string(t);

	free(t);
	return j;
}

static const char *gitlab_or(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

static int gitlab_reported(const struct finding *f, const char **path,
			   int *line)
{
	/* fixed, or hidden by --report-timeouts/--report-ooms no */
	if (gitlab_is(f->novelty, "fixed-by-change") || f->suppressed)
		return 0;
	*path = gitlab_location(f, line);
	if (*line < 1)
		*line = 1;
	return *path != NULL;
}

/* One line a reviewer reads first. */
static char *gitlab_summary_line(const struct finding *f,
				 const struct cwe_rule *rule)
{
	struct buf b = BUF_INIT;

	buf_printf(&b, "%s: ", rule->title);
	if (change_anchor_moved(f->anchor))
		change_anchor_lead_text(&b, f, 1);
	else {
		buf_adds(&b, gitlab_or(f->crash_type, "crash"));
		if (f->function)
			buf_printf(&b, " in %s", f->function);
	}
	buf_printf(&b, " (%s, reproduced %d/%d, harness %s)",
		   gitlab_or(f->novelty, "novelty unknown"), f->reproduced,
		   f->attempts, gitlab_or(f->harness, "?"));
	return buf_detach(&b, NULL);
}

static void gitlab_skip_log(size_t skipped, const char *what)
{
	if (skipped)
		log_info("gitlab: %zu finding(s) without a file in the "
			 "project left out of the %s report", skipped, what);
}

CRS_TESTABLE json_t *gitlab_code_quality(const struct finding_set *fs)
{
	json_t *arr = json_array();
	size_t skipped = 0;

	for (size_t i = 0; i < fs->nr; i++) {
		const struct finding *f = &fs->items[i];
		const struct cwe_rule *rule = cwe_rule_for(f->crash_type);
		const char *path = NULL;
		int line = 0;
		char *desc;

		if (!gitlab_reported(f, &path, &line)) {
			skipped += !gitlab_is(f->novelty, "fixed-by-change") &&
				!f->suppressed;
			continue;
		}
		desc = gitlab_summary_line(f, rule);
		json_array_append_new(arr, json_pack(
			"{s:o, s:s, s:o, s:s, s:{s:o, s:{s:i}}}",
			"description", gitlab_jstr(desc),
			"check_name", rule->rule_id,
			"fingerprint", gitlab_jstr(f->id),
			"severity", gitlab_cq_severity(f),
			"location", "path", gitlab_jstr(path),
			"lines", "begin", line));
		free(desc);
	}
	gitlab_skip_log(skipped, "Code Quality");
	return arr;
}

/* "2024-05-01T10:00:00Z" -> "2024-05-01T10:00:00"; else now (UTC). */
static json_t *gitlab_time(const char *rfc3339)
{
	char buf[32];
	time_t now;
	struct tm tm;

	if (rfc3339 && strlen(rfc3339) >= 19 && rfc3339[4] == '-' &&
	    rfc3339[10] == 'T') {
		memcpy(buf, rfc3339, 19);
		buf[19] = '\0';
		return gitlab_jstr(buf);
	}
	now = time(NULL);
	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	return json_string(buf);
}

static json_t *gitlab_tool(const struct scan_summary *sm, int with_url)
{
	json_t *t = json_pack("{s:s, s:s, s:{s:s}, s:o}", "id", "crs-ci",
			      "name", "crs-ci", "vendor", "name", "crs-ci",
			      "version", gitlab_jstr(gitlab_or(sm->tool_version,
							       "0")));

	if (with_url)
		json_object_set_new(t, "url", json_string(GITLAB_TOOL_URL));
	return t;
}

static json_t *gitlab_cwe_id(int cwe)
{
	char name[32], value[16], url[80];

	snprintf(name, sizeof(name), "CWE-%d", cwe);
	snprintf(value, sizeof(value), "%d", cwe);
	snprintf(url, sizeof(url),
		 "https://cwe.mitre.org/data/definitions/%d.html", cwe);
	return json_pack("{s:s, s:s, s:s, s:s}", "type", "cwe", "name", name,
			 "value", value, "url", url);
}

static json_t *gitlab_rule_id(const struct cwe_rule *rule)
{
	return json_pack("{s:s, s:s, s:s}", "type", "crs_ci_rule_id",
			 "name", rule->title, "value", rule->rule_id);
}

/*
 * GitLab renders this as Markdown: the crash output goes in a code block,
 * names and paths in code spans, nothing untrusted as markup.
 */
static char *gitlab_vuln_description(const struct finding *f,
				     const char *path, int line)
{
	struct buf b = BUF_INIT;
	char *where = xasprintf("%s:%d", path, line);

	md_code_block(&b, NULL, gitlab_or(f->description,
					  gitlab_or(f->crash_type, "crash")));
	buf_adds(&b, "\nA proof-of-vulnerability input crashed harness ");
	md_code_span(&b, gitlab_or(f->harness, "?"));
	buf_printf(&b, " on the merge request's head build in %d of %d runs, "
		   "at ", f->reproduced, f->attempts);
	md_code_span(&b, where);
	if (f->in_change)
		buf_adds(&b, ", a line this change touched");
	buf_adds(&b, ". Novelty against the base: ");
	md_escape(&b, gitlab_or(f->novelty, "unknown (no base build)"));
	buf_addch(&b, '.');
	if (f->pov_path) {
		buf_adds(&b, " Crash input: ");
		md_code_span(&b, f->pov_path);
		buf_adds(&b, " in the job's artifacts.");
	}
	free(where);
	return buf_detach(&b, NULL);
}

CRS_TESTABLE json_t *gitlab_sast(const struct finding_set *fs)
{
	const struct scan_summary *sm = &fs->summary;
	json_t *vulns = json_array(), *primary = json_array();
	json_t *scan, *doc;
	size_t skipped = 0;

	for (size_t i = 0; i < fs->nr; i++) {
		const struct finding *f = &fs->items[i];
		const struct cwe_rule *rule = cwe_rule_for(f->crash_type);
		const char *path = NULL;
		int line = 0;
		char uuid[37], *desc;
		json_t *ids, *loc;
		size_t k;
		int seen = 0;

		if (!gitlab_reported(f, &path, &line)) {
			skipped += !gitlab_is(f->novelty, "fixed-by-change") &&
				!f->suppressed;
			continue;
		}
		gitlab_vuln_uuid(uuid, f->id);
		ids = json_array();
		json_array_append_new(ids, gitlab_rule_id(rule));
		if (rule->cwe)
			json_array_append_new(ids, gitlab_cwe_id(rule->cwe));
		if (rule->cwe_extra)
			json_array_append_new(ids,
					      gitlab_cwe_id(rule->cwe_extra));
		json_array_append_new(ids, json_pack(
			"{s:s, s:o, s:o}", "type", "crs_ci_signature",
			"name", gitlab_jstr(gitlab_or(f->crash_type, "crash")),
			"value", gitlab_jstr(f->id)));
		loc = json_pack("{s:o, s:i, s:i}", "file", gitlab_jstr(path),
				"start_line", line, "end_line", line);
		if (f->function)
			json_object_set_new(loc, "method",
					    gitlab_jstr(f->function));
		desc = gitlab_vuln_description(f, path, line);
		json_array_append_new(vulns, json_pack(
			"{s:s, s:s, s:s, s:o, s:s, s:o, s:o}",
			"id", uuid, "category", "sast", "name", rule->title,
			"description", gitlab_jstr(desc),
			"severity", gitlab_sast_severity(f),
			"identifiers", ids, "location", loc));
		free(desc);
		for (k = 0; k < json_array_size(primary); k++) {
			/* borrowed */
			json_t *v = json_object_get(json_array_get(primary, k),
						    "value");

			seen |= !strcmp(json_string_value(v), rule->rule_id);
		}
		if (!seen)
			json_array_append_new(primary, gitlab_rule_id(rule));
	}
	gitlab_skip_log(skipped, "SAST");
	scan = json_pack("{s:o, s:o, s:s, s:o, s:o, s:s, s:o}",
			 "analyzer", gitlab_tool(sm, 0),
			 "scanner", gitlab_tool(sm, 1), "type", "sast",
			 "start_time", gitlab_time(sm->started_at),
			 "end_time", gitlab_time(sm->finished_at),
			 "status", "success", "primary_identifiers", primary);
	doc = json_pack("{s:s, s:o, s:o, s:[]}", "version", GITLAB_SAST_VERSION,
			"scan", scan, "vulnerabilities", vulns,
			"remediations");
	return doc;
}

CRS_TESTABLE int gitlab_sast_add_remediation(json_t *sast, const char *finding_id,
				const char *summary, const char *diff,
				size_t diff_len)
{
	json_t *vulns = json_object_get(sast, "vulnerabilities"); /* borrowed */
	json_t *rems = json_object_get(sast, "remediations"); /* borrowed */
	char uuid[37];
	unsigned char *b64;
	size_t i;
	int found = 0;

	if (!json_is_array(vulns) || !json_is_array(rems))
		return crs_error_set(CRS_EINPUT, "gitlab: not a SAST report "
				     "(vulnerabilities or remediations "
				     "missing)");
	if (!diff || !diff_len || diff_len > GITLAB_DIFF_MAX)
		return crs_error_set(CRS_EINPUT, "gitlab: remediation for "
				     "'%s': diff is empty or over %u bytes",
				     finding_id, GITLAB_DIFF_MAX);
	gitlab_vuln_uuid(uuid, finding_id);
	for (i = 0; i < json_array_size(vulns) && !found; i++) {
		/* borrowed */
		json_t *id = json_object_get(json_array_get(vulns, i), "id");

		found = json_is_string(id) &&
			!strcmp(json_string_value(id), uuid);
	}
	if (!found)
		return crs_error_set(CRS_ENOTFOUND, "gitlab: no vulnerability "
				     "for finding '%s' in the SAST report",
				     finding_id);
	b64 = xmalloc(st_add(st_mult(4, (diff_len + 2) / 3), 1));
	EVP_EncodeBlock(b64, (const unsigned char *)diff, (int)diff_len);
	json_array_append_new(rems, json_pack(
		"{s:[{s:s}], s:o, s:s}", "fixes", "id", uuid,
		"summary", gitlab_jstr(summary), "diff", (char *)b64));
	free(b64);
	return 0;
}

/*
 * Every patch crs-ci validated, as the remediation of each vulnerability
 * it fixes (GitLab offers it as the fix of that vulnerability). Patches
 * that failed a step never appear. A finding the SAST report has no
 * vulnerability for (no location) is skipped.
 */
static int sast_remediations(json_t *sast, const struct finding_set *fs)
{
	for (size_t i = 0; i < fs->patches_nr; i++) {
		const struct finding_patch *p = &fs->patches[i];
		char *summary;
		int r = 0;

		if (!p->validated || !p->diff)
			continue;
		summary = xasprintf("Patch %.12s from %s, validated by crs-ci: "
				    "it builds, every PoV of the scan no "
				    "longer crashes, the tests pass (or there "
				    "are none) and a re-fuzz found nothing; "
				    "review it before you apply it",
				    p->sha256 ? p->sha256 : "?",
				    p->crs ? p->crs : "a CRS");
		for (size_t k = 0; k < p->fixes_nr && r == 0; k++) {
			r = gitlab_sast_add_remediation(sast, p->fixes[k],
							summary, p->diff,
							strlen(p->diff));
			if (r == CRS_ENOTFOUND) {
				crs_error_clear();
				r = 0;
			}
		}
		free(summary);
		if (r != 0)
			return r;
	}
	return 0;
}

int gitlab_report(const struct finding_set *fs, const char *out_dir,
		  const struct gitlab_env *env)
{
	char *cq = xasprintf("%s/%s", out_dir, GITLAB_CODE_QUALITY_FILE);
	char *sast = xasprintf("%s/%s", out_dir, GITLAB_SAST_FILE);
	char *junit = xasprintf("%s/%s", out_dir, GITLAB_JUNIT_FILE);
	json_t *j = NULL;
	int r = CRS_ERR;

	(void)env;
	if ((r = fs_mkdir_p(out_dir)) != 0)
		goto out;
	j = gitlab_code_quality(fs);
	if ((r = finding_json_save(j, cq, "Code Quality report")) != 0)
		goto out;
	json_decref(j);
	j = gitlab_sast(fs);
	if ((r = sast_remediations(j, fs)) != 0 ||
	    (r = finding_json_save(j, sast, "SAST report")) != 0 ||
	    (r = junit_write(fs, junit)) != 0)
		goto out;
	log_info("gitlab: wrote %s, %s and %s", GITLAB_CODE_QUALITY_FILE,
		 GITLAB_SAST_FILE, GITLAB_JUNIT_FILE);
out:
	json_decref(j);
	free(cq);
	free(sast);
	free(junit);
	return r;
}

/* --- merge-request discussions ------------------------------------------ */

CRS_TESTABLE void gitlab_diff_refs_release(struct gitlab_diff_refs *refs)
{
	if (!refs)
		return;
	free(refs->base_sha);
	free(refs->start_sha);
	free(refs->head_sha);
	memset(refs, 0, sizeof(*refs));
}

CRS_TESTABLE char *gitlab_suggestion_body(const char *message, const char *replacement,
			     int lines_below)
{
	struct buf b = BUF_INIT;
	char *clean, info[64];

	/* the message names a CRS and the patch: escaped, not markup */
	clean = junit_text_clean(message, GITLAB_TEXT_MAX);
	md_escape(&b, clean);
	buf_adds(&b, "\n\n");
	free(clean);
	snprintf(info, sizeof(info), "suggestion:-0+%d",
		 lines_below > 0 ? lines_below : 0);
	md_code_block(&b, info, replacement ? replacement : "");
	return buf_detach(&b, NULL);
}

static int gitlab_check_env(const struct gitlab_env *env)
{
	const char *missing = !env->api_url ? "CI_API_V4_URL" :
		!env->project_id ? "CI_PROJECT_ID" :
		!env->mr_iid ? "CI_MERGE_REQUEST_IID" :
		!env->token ? "CRS_CI_GITLAB_TOKEN (or GITLAB_TOKEN)" : NULL;

	if (missing)
		return crs_error_set(CRS_EINPUT, "gitlab: %s is not set",
				     missing);
	for (const char *p = env->mr_iid; *p; p++)
		if (!isdigit((unsigned char)*p))
			return crs_error_set(CRS_EINPUT, "gitlab: "
					     "CI_MERGE_REQUEST_IID is not a "
					     "number");
	return 0;
}

/* "/projects/{id}/merge_requests/{iid}/{tail}", under the API URL */
static char *gitlab_mr_path(const struct gitlab_env *env, const char *tail)
{
	char *id = http_escape(env->project_id);
	char *path = xasprintf("/projects/%s/merge_requests/%s/%s", id,
			       env->mr_iid, tail);

	free(id);
	return path;
}

/* GitLab's error "message" (string or object), quoted and short. */
static void gitlab_api_message(char *out, size_t n, const struct buf *body)
{
	json_t *j = json_loadb(body->ptr, body->len, 0, NULL);
	json_t *m = json_object_get(j, "message");	/* borrowed */
	char *s = NULL;

	if (json_is_string(m))
		s = xstrdup(json_string_value(m));
	else if (m)
		s = json_dumps(m, JSON_COMPACT);
	if (!s)
		s = xstrndup(body->ptr, body->len > 200 ? 200 : body->len);
	log_quote(out, n, s, strlen(s));
	free(s);
	json_decref(j);
}

int gitlab_request(const struct gitlab_env *env, const char *method,
		   const char *path, const char *what, const char *body,
		   long want, struct buf *resp)
{
	struct http_transport *t = NULL;
	struct http_response res = HTTP_RESPONSE_INIT;
	const char *hdr[3] = { NULL, "Accept: application/json" };
	struct http_request req = {
		.method = method, .path = path, .what = what,
		.timeout_ms = GITLAB_TIMEOUT_S * 1000,
		.headers = hdr, .max_response = GITLAB_RESPONSE_MAX,
	};
	char msg[256];
	char *auth = NULL;
	int r = CRS_ERR;

	if (!env->api_url || !env->token)
		return crs_error_set(CRS_EINPUT, "gitlab: %s is not set",
				     !env->api_url ? "CI_API_V4_URL" :
				     "CRS_CI_GITLAB_TOKEN (or GITLAB_TOKEN)");
	auth = xasprintf("PRIVATE-TOKEN: %s", env->token);
	hdr[0] = auth;
	if (body) {
		req.content_type = "application/json";
		req.body = body;
		req.body_len = strlen(body);
	}
	if ((r = http_api_new(&t, env->api_url, "gitlab")) != 0 ||
	    (r = t->request(t, &req, &res)) != 0)
		goto out;
	buf_add(resp, res.body.ptr, res.body.len);
	if (res.status != want) {
		gitlab_api_message(msg, sizeof(msg), resp);
		r = crs_error_set(CRS_ERR, "gitlab: %s %s: HTTP %ld: %s",
				  method, what, res.status, msg);
		goto out;
	}
	r = 0;
out:
	explicit_bzero(auth, strlen(auth));
	free(auth);
	if (t)
		t->free(t);
	http_response_release(&res);
	return r;
}

/* gitlab_request() on `tail` under the merge request */
int gitlab_mr_request(const struct gitlab_env *env, const char *method,
		      const char *tail, const char *body, long want,
		      struct buf *resp)
{
	char *path;
	int r;

	if ((r = gitlab_check_env(env)) != 0)
		return r;
	path = gitlab_mr_path(env, tail);
	r = gitlab_request(env, method, path, tail, body, want, resp);
	free(path);
	return r;
}

static char *gitlab_sha(json_t *v, const char *key)
{
	json_t *s = json_object_get(v, key);	/* borrowed */

	return json_is_string(s) ? xstrdup(json_string_value(s)) : NULL;
}

CRS_TESTABLE int gitlab_mr_diff_refs(struct gitlab_diff_refs *out,
			const struct gitlab_env *env)
{
	struct buf resp = BUF_INIT;
	struct gitlab_diff_refs refs = { NULL, NULL, NULL };
	json_t *j = NULL, *v;
	int r = CRS_ERR;

	memset(out, 0, sizeof(*out));
	if ((r = gitlab_mr_request(env, "GET", "versions", NULL, 200,
				   &resp)) != 0)
		goto out;
	j = json_loadb(resp.ptr, resp.len, 0, NULL);
	v = json_array_get(j, 0);	/* borrowed; newest first */
	refs.base_sha = gitlab_sha(v, "base_commit_sha");
	refs.start_sha = gitlab_sha(v, "start_commit_sha");
	refs.head_sha = gitlab_sha(v, "head_commit_sha");
	if (!refs.base_sha || !refs.start_sha || !refs.head_sha) {
		r = crs_error_set(CRS_ERR, "gitlab: GET versions: no version "
				  "with base, start and head commit shas");
		goto out;
	}
	*out = refs;
	memset(&refs, 0, sizeof(refs));	/* transferred */
	r = 0;
out:
	gitlab_diff_refs_release(&refs);
	json_decref(j);
	buf_release(&resp);
	return r;
}

CRS_TESTABLE int gitlab_mr_post_suggestion(const struct gitlab_env *env,
			      const struct gitlab_diff_refs *refs,
			      const struct gitlab_suggestion *s)
{
	struct buf resp = BUF_INIT;
	char *note = NULL, *body = NULL;
	json_t *pos = NULL, *req = NULL;
	int r = CRS_ERR;

	if ((r = gitlab_check_env(env)) != 0)
		goto out;
	if (!s->path || s->new_line < 1 || !refs->base_sha ||
	    !refs->start_sha || !refs->head_sha) {
		r = crs_error_set(CRS_EINPUT, "gitlab: a suggestion needs a "
				  "path, a head line and the MR's diff_refs");
		goto out;
	}
	note = gitlab_suggestion_body(s->message, s->replacement,
				      s->lines_below);
	pos = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:i}",
			"position_type", "text", "base_sha", refs->base_sha,
			"start_sha", refs->start_sha,
			"head_sha", refs->head_sha,
			"old_path", gitlab_jstr(s->old_path ? s->old_path :
						s->path),
			"new_path", gitlab_jstr(s->path),
			"new_line", s->new_line);
	if (s->old_line > 0)
		json_object_set_new(pos, "old_line",
				    json_integer(s->old_line));
	req = json_pack("{s:o, s:o}", "body", gitlab_jstr(note),
			"position", pos);
	pos = NULL;	/* transferred */
	body = json_dumps(req, JSON_COMPACT);
	r = gitlab_mr_request(env, "POST", "discussions", body, 201, &resp);
out:
	json_decref(pos);
	json_decref(req);
	free(body);
	free(note);
	buf_release(&resp);
	return r;
}

int gitlab_post_suggestions(const struct finding_set *fs,
			    const struct gitlab_env *env,
			    const struct diff_changeset *cs,
			    size_t *posted_out, size_t *outside_out)
{
	struct patch_suggestions sg = { 0 };
	struct gitlab_diff_refs refs = { 0 };
	int r;

	*posted_out = *outside_out = 0;
	if ((r = patch_suggestions_from_set(&sg, fs)) != 0 || !sg.nr)
		goto out;
	if (!cs || !cs->patch) {
		*outside_out = sg.nr;
		goto out;
	}
	if ((r = gitlab_mr_diff_refs(&refs, env)) != 0)
		goto out;
	for (size_t i = 0; i < sg.nr && r == 0; i++) {
		const struct patch_suggestion *p = &sg.v[i];
		const struct diff_file *f = diff_changeset_file(cs, p->path);
		struct gitlab_suggestion gs = { 0 };

		if (!f || !diff_changeset_in_hunk(cs, p->path, p->start_line,
						  p->end_line)) {
			(*outside_out)++;
			continue;
		}
		gs.path = p->path;
		gs.old_path = f->old_path;
		gs.new_line = p->start_line;
		gs.old_line = diff_file_base_line(f, p->start_line);
		gs.lines_below = p->end_line - p->start_line;
		gs.message = p->message;
		gs.replacement = p->replacement;
		if ((r = gitlab_mr_post_suggestion(env, &refs, &gs)) == 0)
			(*posted_out)++;
	}
out:
	gitlab_diff_refs_release(&refs);
	patch_suggestions_release(&sg);
	return r;
}

int gitlab_post_removal_notes(const struct finding_set *fs,
			      const struct gitlab_env *env,
			      const struct diff_changeset *cs,
			      const char *policy, size_t *posted)
{
	struct gitlab_diff_refs refs = { 0 };
	int r = 0, refs_read = 0;

	*posted = 0;
	for (size_t i = 0; i < fs->nr && r == 0; i++) {
		const struct diff_file *df;
		struct buf resp = BUF_INIT;
		char *note, *body;
		json_t *pos, *req;
		int first, last;

		if (!removal_of_finding(&fs->items[i], policy, cs, &df,
					&first, &last))
			continue;
		if (!refs_read++ && (r = gitlab_mr_diff_refs(&refs, env)) != 0)
			break;
		note = removal_comment_body(&fs->items[i]);
		pos = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:i}",
				"position_type", "text", "base_sha",
				refs.base_sha, "start_sha", refs.start_sha,
				"head_sha", refs.head_sha, "old_path",
				gitlab_jstr(df->old_path ? df->old_path :
					    df->path),
				"new_path", gitlab_jstr(df->path),
				"old_line", last);
		req = json_pack("{s:o, s:o}", "body", gitlab_jstr(note),
				"position", pos);
		body = json_dumps(req, JSON_COMPACT);
		if ((r = gitlab_mr_request(env, "POST", "discussions", body, 201,
				     &resp)) == 0)
			(*posted)++;
		json_decref(req);
		free(body);
		free(note);
		buf_release(&resp);
	}
	gitlab_diff_refs_release(&refs);
	return r;
}
