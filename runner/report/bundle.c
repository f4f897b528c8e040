/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bundle.c - write and strictly read the result bundle (bundle.h)
 *
 * The reader is the trust boundary of `crs-ci publish`: the bundle comes
 * from a fork's job. Format and caps: docs/bundle.md.
 */
#include "runner/report/bundle.h"

#include "sarif/finding.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/safe_io.h"
#include "common/xalloc.h"

#include <ctype.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- writing --------------------------------------------------------------- */

int bundle_write(const char *dir, const struct finding_set *fs,
		 const struct bundle_pr *pr)
{
	struct patch_suggestions sg = { 0 };
	json_t *root, *list = json_array();
	size_t failing = 0, fresh = 0;
	enum finding_verdict v = finding_set_verdict(fs, NULL, &failing);
	char *text = NULL, *path = xasprintf("%s/" BUNDLE_FILE, dir);
	int r;

	for (size_t i = 0; i < fs->nr; i++)
		fresh += finding_fails_policy(&fs->items[i], "new") != 0;
	if (patch_suggestions_from_set(&sg, fs) != 0) {
		log_warn("bundle: %s; no suggestions in the bundle",
			 crs_error_last());
		crs_error_clear();
	}
	for (size_t i = 0; i < sg.nr; i++)
		json_array_append_new(list, json_pack(
			"{s:s, s:i, s:i, s:s, s:s?, s:s?}",
			"path", sg.v[i].path, "start_line", sg.v[i].start_line,
			"end_line", sg.v[i].end_line,
			"replacement", sg.v[i].replacement,
			"patch_sha256", sg.v[i].patch_sha256,
			"crs", sg.v[i].crs));
	root = json_pack("{s:s, s:i, s:{s:I, s:s?, s:s?}, s:s, s:I, s:I, "
			 "s:o}", "format", BUNDLE_FORMAT,
			 "version", BUNDLE_VERSION, "pull_request",
			 "number", (json_int_t)(pr ? pr->number : 0),
			 "head_sha", pr ? pr->head_sha : NULL,
			 "base_sha", pr ? pr->base_sha : NULL,
			 "verdict", v == VERDICT_FAIL ? "fail" :
			 v == VERDICT_INCOMPLETE ? "incomplete" :
			 "pass", "findings", (json_int_t)fs->nr,
			 "new_findings", (json_int_t)fresh,
			 "suggestions", list);
	text = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);
	r = text ? fs_write_file_atomic(path, text, strlen(text)) :
		crs_error_set(CRS_ERR, "bundle: cannot encode %s", path);
	if (!r)
		log_info("bundle: %s (%zu suggestion(s), verdict %s)", path,
			 sg.nr, v == VERDICT_FAIL ? "fail" : "pass");
	json_decref(root);
	free(text);
	free(path);
	patch_suggestions_release(&sg);
	return r;
}

/* --- reading --------------------------------------------------------------- */

static int bad(const char *field, const char *why)
{
	return crs_error_set(CRS_EINPUT, "bundle: " BUNDLE_FILE ": %s %s: "
			     "the bundle is refused, nothing is posted",
			     field, why);
}

static int is_hex_sha(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n != 40 && n != 64)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return 0;
	return 1;
}

/* a CRS name: letters, digits, '.', '_', '-', at most BUNDLE_NAME_MAX */
static int is_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > BUNDLE_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i]))
			return 0;
	return 1;
}

/* a repository-relative path with no control byte and no ".." */
static int is_repo_path(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > BUNDLE_PATH_MAX || !safe_relpath_ok(s))
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	return 1;
}

static int count_field(long *out, const json_t *root, const char *name)
{
	const json_t *v = json_object_get(root, name);

	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > 1000000)
		return bad(name, "is not a count from 0 to 1000000");
	*out = (long)json_integer_value(v);
	return 0;
}

/* One suggestion, or why it is dropped (static text). */
static const char *suggestion_read(struct patch_suggestion *g,
				   const json_t *o)
{
	const json_t *p = json_object_get(o, "path"),
		*a = json_object_get(o, "start_line"),
		*z = json_object_get(o, "end_line"),
		*t = json_object_get(o, "replacement"),
		*h = json_object_get(o, "patch_sha256"),
		*c = json_object_get(o, "crs");
	const char *crs;

	if (!json_is_object(o))
		return "is not an object";
	if (!json_is_string(p) || !is_repo_path(json_string_value(p)))
		return "has no valid path (relative, no '..', no control "
			"byte, at most 1024 bytes)";
	if (!json_is_integer(a) || !json_is_integer(z) ||
	    json_integer_value(a) < 1 ||
	    json_integer_value(z) < json_integer_value(a) ||
	    json_integer_value(z) > 10000000)
		return "has no valid start_line..end_line";
	if (!json_is_string(t))
		return "has no replacement string";
	if (json_string_length(t) > BUNDLE_REPLACEMENT_MAX)
		return "has a replacement over the 16 KiB cap";
	if (strlen(json_string_value(t)) != json_string_length(t))
		return "has a NUL byte in its replacement";
	if (h && !(json_is_string(h) && is_hex_sha(json_string_value(h))))
		return "has a patch_sha256 that is not a hex SHA-256";
	if (c && !(json_is_string(c) && is_name(json_string_value(c))))
		return "has a crs that is not a name (letters, digits, "
			"'.', '_', '-', at most 64)";
	crs = c ? json_string_value(c) : "a CRS";
	g->path = xstrdup(json_string_value(p));
	g->start_line = (int)json_integer_value(a);
	g->end_line = (int)json_integer_value(z);
	g->replacement = xstrdup(json_string_value(t));
	/* crs-ci's own words, from checked fields only */
	/* the run that says so executed the pull request's code: say so */
	g->message = xasprintf("this pull request's crs-ci run reports this "
			       "fix (%.12s, from %s) validated: it built, "
			       "stopped every PoV and passed the tests and a "
			       "re-fuzz there. That run executed the pull "
			       "request's code: review before accepting.",
			       h ? json_string_value(h) : "no hash", crs);
	return NULL;
}

static int bundle_parse(struct bundle *out, const json_t *root)
{
	const json_t *pr = json_object_get(root, "pull_request"),
		*v = json_object_get(root, "verdict"),
		*list = json_object_get(root, "suggestions"),
		*n, *hs, *bs;
	const char *vs;
	size_t i;
	json_t *o;
	int r;

	if (!json_is_object(root))
		return bad("the top level", "is not an object");
	if (!json_is_string(json_object_get(root, "format")) ||
	    strcmp(json_string_value(json_object_get(root, "format")),
		   BUNDLE_FORMAT))
		return bad("format", "is not \"" BUNDLE_FORMAT "\"");
	if (!json_is_integer(json_object_get(root, "version")) ||
	    json_integer_value(json_object_get(root, "version")) !=
	    BUNDLE_VERSION)
		return bad("version", "is not 1 (this crs-ci reads version 1)");
	if (!json_is_object(pr))
		return bad("pull_request", "is not an object");
	n = json_object_get(pr, "number");
	hs = json_object_get(pr, "head_sha");
	bs = json_object_get(pr, "base_sha");
	if (!json_is_integer(n) || json_integer_value(n) < 1 ||
	    json_integer_value(n) > 1000000000)
		return bad("pull_request.number", "is not a pull request "
			   "number");
	if (!json_is_string(hs) || !is_hex_sha(json_string_value(hs)))
		return bad("pull_request.head_sha", "is not a commit id");
	if (bs && !(json_is_string(bs) && is_hex_sha(json_string_value(bs))))
		return bad("pull_request.base_sha", "is not a commit id");
	out->pr_number = (long)json_integer_value(n);
	snprintf(out->head_sha, sizeof(out->head_sha), "%s",
		 json_string_value(hs));
	snprintf(out->base_sha, sizeof(out->base_sha), "%s",
		 bs ? json_string_value(bs) : "");
	vs = json_string_value(v);
	if (!vs || (strcmp(vs, "pass") && strcmp(vs, "fail") &&
		    strcmp(vs, "incomplete")))
		return bad("verdict", "is not pass, fail or incomplete");
	snprintf(out->verdict, sizeof(out->verdict), "%s", vs);
	if ((r = count_field(&out->findings, root, "findings")) ||
	    (r = count_field(&out->new_findings, root, "new_findings")))
		return r;
	if (!json_is_array(list))
		return bad("suggestions", "is not an array");
	json_array_foreach(list, i, o) {
		struct patch_suggestion g = { 0 };
		const char *why;

		if (i >= BUNDLE_SUGGESTIONS_MAX) {
			log_warn("bundle: %zu suggestion(s) past the first %d "
				 "are cut", json_array_size(list) - i,
				 BUNDLE_SUGGESTIONS_MAX);
			out->dropped += json_array_size(list) - i;
			break;
		}
		if ((why = suggestion_read(&g, o))) {
			log_warn("bundle: suggestion %zu %s: dropped", i + 1,
				 why);
			out->dropped++;
			continue;
		}
		ALLOC_GROW(out->sg.v, out->sg.nr + 1, out->sg.alloc);
		out->sg.v[out->sg.nr++] = g;
	}
	return 0;
}

int bundle_read(struct bundle *out, const char *dir)
{
	struct buf text = BUF_INIT;
	json_error_t err;
	json_t *root = NULL;
	int dfd = -1, r;

	memset(out, 0, sizeof(*out));
	if ((r = fs_open_dir(&dfd, dir)) != 0)
		return r;
	r = fs_read_regular_at(&text, dfd, BUNDLE_FILE, BUNDLE_FILE,
			       BUNDLE_FILE_MAX, NULL);
	close(dfd);
	if (r == CRS_EINPUT) {
		r = crs_error_set(CRS_EINPUT, "bundle: %s/" BUNDLE_FILE
				  " refused (a regular file of at most 4 MiB "
				  "is read, no link): %s; nothing is posted",
				  dir, crs_error_last());
		goto out;
	}
	if (r)
		goto out;
	root = json_loadb(text.ptr, text.len, JSON_REJECT_DUPLICATES, &err);
	if (!root) {
		r = crs_error_set(CRS_EINPUT, "bundle: %s/" BUNDLE_FILE
				  ":%d: not JSON (%s): the bundle is refused, "
				  "nothing is posted", dir, err.line,
				  err.text);
		goto out;
	}
	r = bundle_parse(out, root);
out:
	if (r)
		bundle_release(out);
	json_decref(root);
	buf_release(&text);
	return r;
}

void bundle_release(struct bundle *b)
{
	if (!b)
		return;
	patch_suggestions_release(&b->sg);
	memset(b, 0, sizeof(*b));
}
