/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bundle_sealed.c - the sealed evidence in a result bundle's private/,
 * read as hostile input and filed as draft security advisories
 *
 * Only CMS PEM armour passes (base64 lines between the two markers), so
 * a forged file can put no words of its own into an advisory.
 */
#include "runner/report/bundle_sealed.h"
#include "runner/report/github.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strset.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PEM_BEGIN "-----BEGIN CMS-----\n"
#define PEM_END "-----END CMS-----\n"
#define PEM_LINE_MAX 80
#define ADVISORY_MAX 65535	/* GitHub's description limit */
#define ADVISORY_ID_MARK "crs-ci finding id: "

/* "finding-N.md.cms", "finding-N.pov.cms" or "finding-N.id", N 1..999
 * without a leading zero: N and *is_pov (0, 1 or 2); else 0. */
static unsigned sealed_name(const char *name, int *is_pov)
{
	const char *p = name;
	unsigned n = 0;
	int digits = 0;

	if (strncmp(p, "finding-", 8))
		return 0;
	for (p += 8; *p >= '0' && *p <= '9' && digits < 4; p++, digits++)
		n = n * 10 + (unsigned)(*p - '0');
	if (!digits || digits > 3 || name[8] == '0')
		return 0;
	if (!strcmp(p, ".md.cms"))
		*is_pov = 0;
	else if (!strcmp(p, ".pov.cms"))
		*is_pov = 1;
	else if (!strcmp(p, ".id"))
		*is_pov = 2;
	else
		return 0;
	return n;
}

/* 1 when `t` is one CMS PEM block and nothing else. */
static int pem_only(const char *t, size_t len)
{
	const char *p = t, *end = t + len, *nl;
	size_t lines = 0;

	if (len < sizeof(PEM_BEGIN) + sizeof(PEM_END) ||
	    memcmp(t, PEM_BEGIN, strlen(PEM_BEGIN)) ||
	    memcmp(end - strlen(PEM_END), PEM_END, strlen(PEM_END)))
		return 0;
	p += strlen(PEM_BEGIN);
	end -= strlen(PEM_END);
	for (; p < end; p = nl + 1, lines++) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p))) ||
		    nl == p || nl - p > PEM_LINE_MAX)
			return 0;
		for (const char *c = p; c < nl; c++)
			if (!((*c >= 'A' && *c <= 'Z') ||
			      (*c >= 'a' && *c <= 'z') ||
			      (*c >= '0' && *c <= '9') || *c == '+' ||
			      *c == '/' || *c == '='))
				return 0;
	}
	return lines > 0;
}

/* 1 when `t` is 16 lowercase hex digits and an optional newline. */
static int id_only(const char *t, size_t len)
{
	if (len != 16 && !(len == 17 && t[16] == '\n'))
		return 0;
	for (size_t i = 0; i < 16; i++)
		if (!((t[i] >= '0' && t[i] <= '9') ||
		      (t[i] >= 'a' && t[i] <= 'f')))
			return 0;
	return 1;
}

static struct bundle_sealed *slot(struct bundle_sealed_set *s, unsigned n)
{
	for (size_t i = 0; i < s->nr; i++)
		if (s->items[i].n == n)
			return &s->items[i];
	if (s->nr == BUNDLE_SEALED_MAX)
		return NULL;
	s->items[s->nr].n = n;
	return &s->items[s->nr++];
}

static void refuse(struct bundle_sealed_set *s, const char *name,
		   const char *why)
{
	char q[128];

	s->refused++;
	log_warn("publish: bundle private/%s passed over: %s",
		 log_quote(q, sizeof(q), name, strlen(name)), why);
}

/* Take one entry of private/ (its folder `pfd`) into `s`. */
static void take(struct bundle_sealed_set *s, int pfd, const char *name)
{
	struct bundle_sealed *x;
	struct buf b = BUF_INIT;
	int is_pov = 0;
	unsigned n = sealed_name(name, &is_pov);

	if (!n) {
		refuse(s, name, "not finding-N.md.cms, finding-N.pov.cms or "
		       "finding-N.id");
		return;
	}
	if (fs_read_regular_at(&b, pfd, name, "a sealed file",
			       BUNDLE_SEALED_FILE_MAX, NULL) != 0) {
		refuse(s, name, crs_error_last());
		crs_error_clear();
	} else if (is_pov == 2 ? !id_only(b.ptr, b.len) :
		   !pem_only(b.ptr, b.len)) {
		refuse(s, name, is_pov == 2 ? "not 16 hex digits" :
		       "not one CMS PEM block");
	} else if (!(x = slot(s, n))) {
		refuse(s, name, "more findings than one publish files");
	} else if (is_pov == 2) {
		if (x->id[0])
			refuse(s, name, "given twice");
		else
			memcpy(x->id, b.ptr, 16);
	} else if (*(is_pov ? &x->pov : &x->details)) {
		refuse(s, name, "given twice");
	} else {
		*(is_pov ? &x->pov : &x->details) = buf_detach(&b, NULL);
	}
	buf_release(&b);
}

static int cmp_sealed(const void *a, const void *b)
{
	const struct bundle_sealed *x = a, *y = b;

	return (x->n > y->n) - (x->n < y->n);
}

int bundle_sealed_read(struct bundle_sealed_set *out, const char *dir)
{
	int dfd = -1, pfd = -1, r;
	DIR *d = NULL;
	struct dirent *e;
	size_t seen = 0, kept = 0;

	memset(out, 0, sizeof(*out));
	if ((r = fs_open_dir(&dfd, dir)) != 0)
		return r;
	pfd = openat(dfd, BUNDLE_SEALED_DIR, O_RDONLY | O_DIRECTORY |
		     O_NOFOLLOW | O_CLOEXEC);
	close(dfd);
	if (pfd < 0 && errno == ENOENT)
		return 0;
	if (pfd < 0 || !(d = fdopendir(pfd))) {
		r = crs_error_set(CRS_EINPUT, "%s/%s: not a folder (a link?): "
				  "%s", dir, BUNDLE_SEALED_DIR,
				  strerror(errno));
		if (pfd >= 0)
			close(pfd);
		return r;
	}
	while ((e = readdir(d)) && seen < BUNDLE_SEALED_ENTRIES) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		seen++;
		take(out, dirfd(d), e->d_name);
	}
	closedir(d);
	for (size_t i = 0; i < out->nr; i++) {
		if (!out->items[i].details) {
			char name[32];

			snprintf(name, sizeof(name), "finding-%u.pov.cms",
				 out->items[i].n);
			refuse(out, name, "no sealed details beside it");
			free(out->items[i].pov);
			continue;
		}
		out->items[kept++] = out->items[i];
	}
	out->nr = kept;
	qsort(out->items, out->nr, sizeof(out->items[0]), cmp_sealed);
	return 0;
}

void bundle_sealed_release(struct bundle_sealed_set *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		free(s->items[i].details);
		free(s->items[i].pov);
	}
	memset(s, 0, sizeof(*s));
}

/* The advisory's text: crs-ci's words and the sealed blocks; NULL when
 * the details alone do not fit. Caller frees. */
static char *advisory_text(const struct bundle_sealed *x, long pr_number)
{
	struct buf b = BUF_INIT;
	size_t pov_len = x->pov ? strlen(x->pov) + 40 : 0;

	buf_printf(&b, "crs-ci found a crash in code this repository has "
		   "already released while it scanned pull request #%ld. A "
		   "public repository's CI must not publish it, so its details "
		   "and its proof of vulnerability (PoV) are sealed to the "
		   "maintainers' key (`CRS_CI_DISCLOSE_KEY`). Save a block "
		   "below to a file and open it with `openssl cms -decrypt "
		   "-inform PEM -inkey KEY.pem -in FILE` or `crs-ci decrypt "
		   "--key KEY.pem FILE`.\n\n"
		   "This draft was filed from the result bundle of the pull "
		   "request's own workflow run, which ran the pull request's "
		   "code: it is what that run reports, **unauthenticated** "
		   "(anyone can seal text to the public certificate). Check "
		   "the PoV on your own build before you trust it (`crs-ci "
		   "reproduce`). The severity is a placeholder (this step "
		   "cannot read the sealed details); set it once you have "
		   "read them.\n\n", pr_number);
	if (x->id[0])	/* what a later run finds it by (bundle_sealed_file) */
		buf_printf(&b, ADVISORY_ID_MARK "%s\n\n", x->id);
	buf_printf(&b, "### Details (sealed)\n\n```\n%s```\n", x->details);
	if (b.len > ADVISORY_MAX) {
		buf_release(&b);
		return NULL;
	}
	if (x->pov && b.len + pov_len <= ADVISORY_MAX)
		buf_printf(&b, "\n### PoV (sealed)\n\n```\n%s```\n", x->pov);
	else if (x->pov)
		buf_printf(&b, "\nThe sealed PoV is too large for an advisory: "
			   "it is `private/finding-%u.pov.cms` in the pull "
			   "request run's artifact.\n", x->n);
	return buf_detach(&b, NULL);
}

/*
 * From the repository's drafts: the finding ids crs-ci's advisories name
 * (ADVISORY_ID_MARK) into *ids, and how many drafts carry `summary` (this
 * pull request's) into *on_pr. A list that cannot be read is a warning:
 * nothing is known, and this run's own cap still holds.
 */
static void drafts_read(const struct github_env *env, const char *token,
			const char *summary, long timeout_ms,
			struct strset *ids, size_t *on_pr)
{
	json_t *list = NULL, *a;
	size_t i;

	if (github_advisories_drafts(env, token, &list, timeout_ms) != 0) {
		log_warn("publish: %s; a finding may be filed twice",
			 crs_error_last());
		crs_error_clear();
		return;
	}
	json_array_foreach(list, i, a) {
		const char *d = json_string_value(json_object_get(a,
							  "description"));
		const char *sm = json_string_value(json_object_get(a,
							   "summary"));
		const char *m = d ? strstr(d, ADVISORY_ID_MARK) : NULL;

		if (sm && !strcmp(sm, summary))
			(*on_pr)++;
		if (m && id_only(m + strlen(ADVISORY_ID_MARK), 16)) {
			char id[17];

			memcpy(id, m + strlen(ADVISORY_ID_MARK), 16);
			id[16] = '\0';
			strset_add(ids, id);
		}
	}
	json_decref(list);
}

int bundle_sealed_file(const struct bundle_sealed_set *s,
		       const struct github_env *env, long pr_number,
		       size_t *made, long timeout_ms)
{
	const char *token = getenv(BUNDLE_SEALED_TOKEN_ENV);
	struct strset filed = STRSET_INIT;
	char summary[128];
	const char *name;
	size_t on_pr = 0;

	*made = 0;
	if (!s->nr)
		return 0;
	if (!token || !*token) {
		log_warn("publish: no " BUNDLE_SEALED_TOKEN_ENV ": %zu sealed "
			 "finding(s) in released code were not filed as draft "
			 "security advisories; their sealed files are in the "
			 "pull request run's artifact", s->nr);
		return 0;
	}
	if (!env->repository || !strchr(env->repository, '/')) {
		log_warn("publish: GITHUB_REPOSITORY is not set: no advisory");
		return 0;
	}
	name = strchr(env->repository, '/') + 1;
	snprintf(summary, sizeof(summary), "crs-ci: a crash in released code, "
		 "found on pull request #%ld (sealed)", pr_number);
	drafts_read(env, token, summary, timeout_ms, &filed, &on_pr);
	for (size_t i = 0; i < s->nr; i++) {
		char *text;

		if (s->items[i].id[0] && strset_has(&filed, s->items[i].id)) {
			log_info("publish: finding-%u (id %s) has a draft "
				 "advisory already: not filed again",
				 s->items[i].n, s->items[i].id);
			continue;
		}
		if (on_pr >= BUNDLE_SEALED_PR_MAX) {
			log_warn("publish: pull request #%ld has %zu draft "
				 "advisories from crs-ci: finding-%u and the "
				 "rest are not filed (at most %d per pull "
				 "request)", pr_number, on_pr, s->items[i].n,
				 BUNDLE_SEALED_PR_MAX);
			break;
		}
		text = advisory_text(&s->items[i], pr_number);
		if (!text)
			log_warn("publish: finding-%u's sealed details do not "
				 "fit an advisory", s->items[i].n);
		else if (github_advisory_post(env, token, summary, text,
					      "medium", 0, name,
					      timeout_ms) == 0) {
			(*made)++;
			on_pr++;
			if (s->items[i].id[0])
				strset_add(&filed, s->items[i].id);
		}
		else {
			log_warn("%s", crs_error_last());
			crs_error_clear();
		}
		free(text);
	}
	log_info("publish: %zu draft security advisory(ies) filed for %zu "
		 "sealed finding(s)", *made, s->nr);
	strset_release(&filed);
	return 0;
}
