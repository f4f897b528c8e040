/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crs_registry.h - CRSs named only by their compose key
 *
 * A compose entry without `source` is looked up as <name>.yaml in a
 * registry folder, OSS-CRS's registry/ format (contract §1.4). crs-ci
 * ships one file per bundled CRS in registry/ at the repository root,
 * installed as share/crs-ci/registry.
 */
#ifndef CRS_RUNNER_CONFIG_CRS_REGISTRY_H
#define CRS_RUNNER_CONFIG_CRS_REGISTRY_H

struct compose_crs;

/*
 * The registry folder: `opt` (--registry) when given, else `env`
 * ($CRS_CI_REGISTRY) when set and not empty, else next to the crs-ci
 * executable `exe`: <dir of exe>/../registry when it exists, else
 * <dir of exe>/../share/crs-ci/registry (even when missing: lookups then
 * name it). Absolute; the caller frees. `exe` may be NULL (then
 * /proc/self/exe). Cannot fail.
 */
char *crs_registry_dir(const char *opt, const char *env, const char *exe);

/*
 * Fill entry `e` (which has no source block) from <dir>/<e->name>.yaml:
 * its source block, with a relative local_path resolved against the
 * registry file's folder (OSS-CRS resolved it against the current
 * directory). e->registry_file is set and the source positions point
 * into it. CRS_ECONFIG at the entry's key when the file is missing
 * (naming the folder searched), or at the registry file's line when it
 * is malformed. `dir` NULL: every lookup fails that way.
 */
int crs_registry_resolve(struct compose_crs *e, const char *dir);

#endif
