/* SPDX-License-Identifier: Apache-2.0 */
/*
 * source_index.h - a source tree's files found by the end of their path
 *
 * A JVM stack frame names only a file and its package ("DOMReader.java"
 * in org.dom4j.io: org/dom4j/io/DOMReader.java), not where the build
 * found it (src/main/java/... in Maven). Triage looks such a path up as
 * a suffix of the head tree's files to place the finding in the change.
 */
#ifndef CRS_RUNNER_EXEC_SOURCE_INDEX_H
#define CRS_RUNNER_EXEC_SOURCE_INDEX_H

#include <stddef.h>

struct source_index {
	char **paths;		/* relative to the root, sorted */
	size_t nr, alloc;
};
#define SOURCE_INDEX_INIT { NULL, 0, 0 }

/*
 * The regular files under `root` whose names end in `ext` (".java"),
 * relative to it; ".git" folders and symlinks are skipped. 0, or CRS_ERR
 * naming a folder that cannot be read.
 */
int source_index_build(struct source_index *idx, const char *root,
		       const char *ext);

/*
 * The one indexed path that is `suffix` or ends in "/" + `suffix`; NULL
 * when there is none, or several (a guess that cannot be told apart).
 */
const char *source_index_find(const struct source_index *idx,
			      const char *suffix);

void source_index_release(struct source_index *idx);

#endif
