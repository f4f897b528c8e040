/* SPDX-License-Identifier: Apache-2.0 */
/*
 * junit.c - JUnit XML from a finding set, with libxml2's tree API
 *
 * Knows the JUnit shape GitLab reads (testsuite, testcase@classname/
 * name/file/time, failure/skipped/system-out text), nothing about the CI
 * that shows it. Every string came from a container and is hostile:
 * libxml2 escapes markup, and junit_text_clean() removes what XML 1.0
 * cannot carry at all (invalid UTF-8, control characters), which no
 * escaping could save.
 */
#include "runner/report/junit.h"
#include "sarif/finding.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/utf8.h"
#include "common/xalloc.h"

#include <libxml/tree.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define JUNIT_TEXT_MAX (64u << 10)	/* per text node */
#define JUNIT_ATTR_MAX 1024		/* per attribute */
#define JUNIT_STACK_MAX 64		/* frames listed in a failure */

char *junit_text_clean(const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)p), i = 0;
	struct buf b = BUF_INIT;

	while (i < n) {
		uint32_t cp = 0;
		size_t len = utf8_seq((const char *)p + i, n - i, &cp);
		const char *rep = NULL;
		size_t rep_len;

		if (!len) {
			rep = "\xef\xbf\xbd";	/* U+FFFD */
			len = 1;
		} else if ((cp < 0x20 && cp != '\t' && cp != '\n' &&
			    cp != '\r') || cp == 0xfffe || cp == 0xffff) {
			rep = " ";
		}
		rep_len = rep ? strlen(rep) : len;
		if (b.len + rep_len > max)
			break;
		buf_add(&b, rep ? rep : (const char *)p + i, rep_len);
		i += len;
	}
	return buf_detach(&b, NULL);
}

static void junit_prop(xmlNodePtr node, const char *name, const char *value)
{
	char *v = junit_text_clean(value, JUNIT_ATTR_MAX);

	xmlNewProp(node, BAD_CAST name, BAD_CAST v);
	free(v);
}

static xmlNodePtr junit_child(xmlNodePtr parent, const char *name,
			      const char *text)
{
	char *t = junit_text_clean(text, JUNIT_TEXT_MAX);
	/* xmlNewTextChild escapes <, > and & in the content */
	xmlNodePtr n = xmlNewTextChild(parent, NULL, BAD_CAST name,
				       BAD_CAST t);

	free(t);
	return n;
}

static const char *junit_str(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

/* "Heap-buffer-overflow WRITE 4 in parse_record [07b256e0bc4a2f9f]" */
static char *junit_case_name(const struct finding *f)
{
	if (f->function)
		return xasprintf("%s in %s [%s]",
				 junit_str(f->crash_type, "crash"), f->function,
				 junit_str(f->id, "?"));
	return xasprintf("%s [%s]", junit_str(f->crash_type, "crash"),
			 junit_str(f->id, "?"));
}

/* Why a reported finding does not fail the policy; NULL if it fails. */
static const char *junit_skip_reason(const struct finding *f,
				     const char *policy)
{
	if (finding_fails_policy(f, policy))
		return NULL;
	if (f->suppressed)
		return !strcmp(f->suppressed, "report-ooms") ?
			"suppressed: --report-ooms no" :
			"suppressed: --report-timeouts no";
	if (f->novelty && !strcmp(f->novelty, "fixed-by-change"))
		return "fixed by this change";
	if (!strcmp(policy, "none"))
		return "reported only: --fail-on none";
	if (f->reproduced < f->attempts)
		return "flaky: did not crash on every run";
	if (f->novelty && !strcmp(f->novelty, "pre-existing"))
		return "pre-existing: the base crashes the same way";
	if (f->novelty && !strcmp(f->novelty, "changed"))
		return "changed: the base crashes differently";
	return "not on a line this change touched";
}

/* The evidence a person reads in the test report. */
static void junit_details(struct buf *b, const struct finding *f)
{
	size_t i, shown = 0;

	buf_printf(b, "%s\n", junit_str(f->description,
					 junit_str(f->crash_type, "crash")));
	buf_printf(b, "novelty: %s\n", junit_str(f->novelty, "unknown"));
	if (f->file)
		buf_printf(b, "at %s:%d%s\n", f->file, f->line,
			   f->in_change ? " (a line this change touched)" : "");
	buf_printf(b, "harness %s, reproduced %d/%d",
		   junit_str(f->harness, "?"), f->reproduced, f->attempts);
	if (f->found_by)
		buf_printf(b, ", found by %s", f->found_by);
	if (f->found_after_s >= 0)
		buf_printf(b, " after %.0fs", f->found_after_s);
	buf_addch(b, '\n');
	if (f->pov_path)
		buf_printf(b, "PoV: %s\n", f->pov_path);
	if (f->report_path)
		buf_printf(b, "sanitizer report: %s\n", f->report_path);
	if (f->stack_nr)
		buf_adds(b, "stack (innermost first):\n");
	for (i = 0; i < f->stack_nr && shown < JUNIT_STACK_MAX; i++, shown++) {
		const struct finding_frame *fr = &f->stack[i];

		buf_printf(b, "  #%zu %s", i, junit_str(fr->func, "??"));
		if (fr->file)
			buf_printf(b, " %s:%d", fr->file, fr->line);
		buf_addch(b, '\n');
	}
	if (f->stack_nr > shown)
		buf_printf(b, "  ... %zu more frames\n", f->stack_nr - shown);
}

/* Whether a finding names `harness` (a folded one names several). */
static int junit_harness_has_finding(const struct finding_set *fs,
				     const char *harness)
{
	for (size_t i = 0; i < fs->nr; i++) {
		const struct finding *f = &fs->items[i];

		if (f->harness && !strcmp(f->harness, harness))
			return 1;
		for (size_t k = 0; k < f->harnesses_nr; k++)
			if (!strcmp(f->harnesses[k], harness))
				return 1;
	}
	return 0;
}

/* The summary's entry when `harness` was fuzzed short, or NULL. */
static const struct finding_incomplete *
junit_incomplete(const struct scan_summary *sm, const char *harness)
{
	for (size_t i = 0; i < sm->incomplete_nr; i++)
		if (sm->incomplete[i].harness &&
		    !strcmp(sm->incomplete[i].harness, harness))
			return &sm->incomplete[i];
	return NULL;
}

/*
 * The report as a libxml2 document (free it with xmlFreeDoc). Every
 * string from the finding set is made valid XML 1.0 first (see
 * junit_text_clean), so the document always serialises and parses back.
 * Cannot fail (out-of-memory exits).
 */
static struct _xmlDoc *junit_build(const struct finding_set *fs)
{
	const struct scan_summary *sm = &fs->summary;
	const char *policy = sm->fail_on ? sm->fail_on : "new";
	xmlDocPtr doc = xmlNewDoc(BAD_CAST "1.0");
	xmlNodePtr suites = xmlNewNode(NULL, BAD_CAST "testsuites");
	xmlNodePtr suite;
	size_t tests = 0, failures = 0, skipped = 0, i;
	char num[64];

	/* libxml2 returns NULL only when out of memory; its functions
	 * accept NULL nodes, and junit_write() then fails cleanly */
	xmlDocSetRootElement(doc, suites);
	suite = xmlNewChild(suites, NULL, BAD_CAST "testsuite", NULL);
	junit_prop(suite, "name", "crs-ci");
	for (i = 0; i < fs->nr; i++) {
		const struct finding *f = &fs->items[i];
		const char *reason = junit_skip_reason(f, policy);
		xmlNodePtr tc = xmlNewChild(suite, NULL, BAD_CAST "testcase",
					    NULL);
		struct buf b = BUF_INIT;
		char *name = junit_case_name(f);
		char *cls = xasprintf("crs-ci.%s",
				      junit_str(f->harness, "scan"));

		junit_prop(tc, "classname", cls);
		junit_prop(tc, "name", name);
		if (f->file)
			junit_prop(tc, "file", f->file);
		junit_prop(tc, "time", "0");
		junit_details(&b, f);
		tests++;
		if (!reason) {
			char *msg = xasprintf("%s %s at %s:%d (reproduced "
					      "%d/%d)",
					      junit_str(f->novelty, "unknown"),
					      junit_str(f->crash_type, "crash"),
					      junit_str(f->file, "?"), f->line,
					      f->reproduced, f->attempts);
			xmlNodePtr fl = junit_child(tc, "failure", b.ptr);

			junit_prop(fl, "message", msg);
			junit_prop(fl, "type", junit_str(f->crash_type,
							 "crash"));
			failures++;
			free(msg);
		} else if (f->novelty &&
			   !strcmp(f->novelty, "fixed-by-change")) {
			junit_child(tc, "system-out", b.ptr);
		} else {
			xmlNodePtr sk = junit_child(tc, "skipped", b.ptr);

			junit_prop(sk, "message", reason);
			skipped++;
		}
		buf_release(&b);
		free(name);
		free(cls);
	}
	for (i = 0; i < sm->harnesses_nr; i++) {
		const char *h = sm->harnesses[i];
		const struct finding_incomplete *inc;
		xmlNodePtr tc;
		char *cls, *name;

		if (!h || junit_harness_has_finding(fs, h))
			continue;
		inc = junit_incomplete(sm, h);
		cls = xasprintf("crs-ci.%s", h);
		/* a harness fuzzed short is not a passing test */
		name = inc ? xasprintf("%s: incomplete", h) :
			xasprintf("%s: no crash reproduced", h);
		tc = xmlNewChild(suite, NULL, BAD_CAST "testcase", NULL);
		junit_prop(tc, "classname", cls);
		junit_prop(tc, "name", name);
		junit_prop(tc, "time", "0");
		tests++;
		if (inc) {
			char *msg = xasprintf("fuzzed %.0fs of the %.0fs it was "
					      "due: %s", inc->fuzzed_s,
					      inc->wanted_s,
					      junit_str(inc->reason, "?"));
			int fails = strcmp(policy, "none") != 0;
			xmlNodePtr n = junit_child(tc, fails ? "failure" :
						   "skipped", msg);

			junit_prop(n, "message", msg);
			if (fails) {
				junit_prop(n, "type", "incomplete");
				failures++;
			} else {
				skipped++;
			}
			free(msg);
		}
		free(cls);
		free(name);
	}
	snprintf(num, sizeof(num), "%zu", tests);
	junit_prop(suite, "tests", num);
	snprintf(num, sizeof(num), "%zu", failures);
	junit_prop(suite, "failures", num);
	junit_prop(suite, "errors", "0");
	snprintf(num, sizeof(num), "%zu", skipped);
	junit_prop(suite, "skipped", num);
	snprintf(num, sizeof(num), "%.3f", sm->duration_s > 0 ?
		 sm->duration_s : 0.0);
	junit_prop(suite, "time", num);
	if (sm->started_at)
		junit_prop(suite, "timestamp", sm->started_at);
	return doc;
}

int junit_write(const struct finding_set *fs, const char *path)
{
	xmlDocPtr doc = junit_build(fs);
	xmlChar *mem = NULL;
	int len = 0, r = CRS_ERR;

	xmlDocDumpFormatMemoryEnc(doc, &mem, &len, "UTF-8", 1);
	if (!mem || len <= 0) {
		r = crs_error_set(CRS_ERR, "%s: cannot serialise the JUnit "
				  "report", path);
		goto out;
	}
	r = fs_write_file_atomic(path, mem, (size_t)len);
out:
	xmlFree(mem);
	xmlFreeDoc(doc);
	return r;
}
