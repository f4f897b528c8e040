/* SPDX-License-Identifier: Apache-2.0 */
/*
 * init_cflite.c - what init tells a ClusterFuzzLite user about their
 * workflows
 *
 * ClusterFuzzLite's docs name its workflows cflite_pr.yml, cflite_batch.yml,
 * cflite_cron.yml (prune and coverage) and cflite_build.yml; the mode a
 * file runs is read from its name alone, never run or parsed.
 * docs/clusterfuzzlite.md maps each onto crs-ci.
 */
#include "runner/init/init_cflite.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "common/strvec.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#define CFLITE_FILES_MAX 64	/* workflows listed, at most */

/* What takes over the workflow `name`, by its name. */
static const char *advice(const char *name)
{
	if (strstr(name, "_pr"))
		return "fuzzes pull requests as crs-ci.yml now does (which "
		       "also proves and labels what it finds): remove it, or "
		       "each pull request is fuzzed twice";
	if (strstr(name, "batch"))
		return "grows a corpus on the default branch: "
		       "crs-ci-corpus.yml does that (--mode batch) into the "
		       "crs-ci-corpus branch the pull requests read; keep "
		       "it only if its storage repo serves other tools";
	if (strstr(name, "cron"))
		return "prunes the corpus or reports coverage: "
		       "crs-ci-corpus.yml prunes on Sundays (--mode prune); "
		       "coverage is --mode coverage (docs/corpus.md)";
	if (strstr(name, "build"))
		return "builds the fuzzers on pushes to the default branch "
		       "(CI fuzzing's base builds): crs-ci builds the base "
		       "itself and caches it; remove it when nothing else "
		       "uses its artifact";
	return "a ClusterFuzzLite workflow: docs/clusterfuzzlite.md says "
	       "which crs-ci file does its job";
}

static int is_cflite(const char *name)
{
	size_t n = strlen(name);

	return !strncmp(name, "cflite_", 7) &&
		((n > 4 && !strcmp(name + n - 4, ".yml")) ||
		 (n > 5 && !strcmp(name + n - 5, ".yaml")));
}

void init_cflite_notes(struct buf *out, int workflows)
{
	struct strvec names = STRVEC_INIT;
	DIR *d = fs_dir_stream(workflows);
	struct dirent *de;

	while (d && (de = readdir(d)) && names.nr < CFLITE_FILES_MAX) {
		struct stat st;

		if (is_cflite(de->d_name) &&
		    fstatat(workflows, de->d_name, &st,
			    AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
			strvec_push(&names, de->d_name);
	}
	if (d)
		closedir(d);
	strvec_sort(names.v, names.nr);
	for (size_t i = 0; i < names.nr; i++)
		buf_printf(out, "  .github/workflows/%s: %s\n", names.v[i],
			   advice(names.v[i]));
	strvec_release(&names);
}
