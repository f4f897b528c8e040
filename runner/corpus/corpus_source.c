/* SPDX-License-Identifier: Apache-2.0 */
/*
 * corpus_source.c - expand a corpus source for one harness
 */
#include "runner/corpus/corpus_source.h"

#include <string.h>

#include "common/buf.h"
#include "common/xalloc.h"

#define HARNESS_MARK "{harness}"

int corpus_source_is_url(const char *spec)
{
	return !strncmp(spec, "http://", 7) || !strncmp(spec, "https://", 8);
}

int corpus_source_per_harness(const char *spec)
{
	return strstr(spec, HARNESS_MARK) != NULL;
}

char *corpus_source_expand(const char *spec, const char *harness)
{
	struct buf b = BUF_INIT;
	const char *p = spec, *m;

	while ((m = strstr(p, HARNESS_MARK))) {
		buf_add(&b, p, (size_t)(m - p));
		buf_adds(&b, harness);
		p = m + strlen(HARNESS_MARK);
	}
	buf_adds(&b, p);
	return buf_detach(&b, NULL);
}

char *corpus_source_oss_fuzz(const char *base, const char *project)
{
	size_t n = strlen(base);

	while (n && base[n - 1] == '/')
		n--;
	return xasprintf("%.*s/%s-backup.clusterfuzz-external.appspot.com/"
			 "corpus/libFuzzer/%s_" HARNESS_MARK "/public.zip",
			 (int)n, base, project, project);
}

int corpus_source_oss_fuzz_name_ok(const char *project)
{
	size_t n = strlen(project);

	if (!n || n > 64 || project[0] == '-')
		return 0;
	return strspn(project, "abcdefghijklmnopqrstuvwxyz0123456789_-") == n;
}

char *corpus_source_shown(const char *spec)
{
	const char *host, *at, *path, *q;
	struct buf b = BUF_INIT;

	if (!corpus_source_is_url(spec))
		return xstrdup(spec);
	host = strstr(spec, "://") + 3;
	path = host + strcspn(host, "/");
	at = memchr(host, '@', (size_t)(path - host));
	buf_add(&b, spec, (size_t)(host - spec));
	if (at) {
		buf_adds(&b, "***@");
		host = at + 1;
	}
	q = path + strcspn(path, "?#");
	buf_add(&b, host, (size_t)(q - host));
	if (*q)
		buf_adds(&b, "?...");
	return buf_detach(&b, NULL);
}

int corpus_source_branch_ok(const char *name)
{
	size_t n = strlen(name);

	if (!n || n > 100 || strchr("-./", name[0]) || name[n - 1] == '/' ||
	    strstr(name, "..") || strstr(name, "//") || strstr(name, ".lock"))
		return 0;
	return strspn(name, "abcdefghijklmnopqrstuvwxyz"
		      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/") == n;
}
