/* SPDX-License-Identifier: Apache-2.0 */
/*
 * project_layout.h - which kind of project folder a scan builds, and where
 *
 * Two layouts (docs/layouts.md): an OSS-Fuzz `projects/NAME` folder, the
 * build context of its own Dockerfile, and a ClusterFuzzLite
 * `.clusterfuzzlite/` folder inside the source repository, whose
 * Dockerfile is built with the repository's tree as context. Either folder
 * must hold a Dockerfile and a build.sh.
 */
#ifndef CRS_RUNNER_CONFIG_PROJECT_LAYOUT_H
#define CRS_RUNNER_CONFIG_PROJECT_LAYOUT_H

enum project_layout {
	PROJECT_LAYOUT_OSS_FUZZ,
	PROJECT_LAYOUT_CLUSTERFUZZLITE,
};

struct project_location {
	enum project_layout layout;
	char *dir;	    /* absolute folder holding Dockerfile, build.sh */
	char *context_root; /* CLUSTERFUZZLITE: the source repository root
			     * (the build context); OSS_FUZZ: NULL (context =
			     * dir) */
	char *name;	    /* project name: a valid Docker image name
			     * component (lowercase [a-z0-9._-]) */
};

/*
 * Find the project folder. `project_opt` is the --project value or NULL
 * (then <source_dir>/.clusterfuzzlite is used when it is a folder).
 * A folder called `.clusterfuzzlite` is the ClusterFuzzLite layout and
 * must be the one at the root of `source_dir`; any other folder is an
 * OSS-Fuzz project folder. Names: OSS-Fuzz, the folder's name;
 * ClusterFuzzLite, project.yaml's main_repo basename (without .git), else
 * the source folder's name; both reduced by project_image_name().
 *
 * Returns 0, CRS_EINPUT (no --project and no .clusterfuzzlite/; a
 * ClusterFuzzLite folder outside the source) or CRS_ECONFIG (not a
 * folder, Dockerfile or build.sh missing, a malformed project.yaml), the
 * message naming the folder and the missing file. *out is set on success
 * only; release it with project_location_release.
 */
int project_locate(struct project_location *out, const char *project_opt,
		   const char *source_dir);
/* Frees the strings and zeroes *loc; accepts NULL. */
void project_location_release(struct project_location *loc);
/*
 * "OSS-Fuzz project folder" or "ClusterFuzzLite folder". Static string;
 * cannot fail.
 */
const char *project_layout_name(enum project_layout l);
#ifdef UNIT_TESTS
/*
 * `s` (any bytes, may be NULL) reduced to a Docker image name component:
 * lowercase letters and digits, separated by ".", "_", "__" or runs of
 * "-"; any other run of bytes becomes "-"; at most 64 characters; never
 * empty ("project" when nothing is left). Caller frees.
 */
char *project_image_name(const char *s);
#endif

#endif
