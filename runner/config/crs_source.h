/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crs_source.h - the `source` block of a CRS, wherever it is written
 *
 * A compose entry and a registry file (registry/<name>.yaml) carry the
 * same block: local_path, or url + ref (+ subdir). Relative paths are
 * resolved against the folder of the file that holds the block, never
 * the current directory (an OSS-CRS defect, contract §1.4); so is a git
 * url that is a plain path ("../crs-repo").
 */
#ifndef CRS_RUNNER_CONFIG_CRS_SOURCE_H
#define CRS_RUNNER_CONFIG_CRS_SOURCE_H

#include <yaml.h>

struct compose_crs;
struct yaml_doc;

/*
 * Expand a leading "~" and resolve `p` against the folder `dir`.
 * Absolute and normalised; the caller frees. Cannot fail.
 */
char *config_resolve_path(const char *dir, const char *p);

/*
 * Parse the source block `v` (at key `k`) into e->source_* (local_path,
 * and a url that is a plain path, resolved against `dir`; local_path
 * shown against `file`). `field` names the block
 * in messages ("crs-a.source", or "source" in a registry file). A null
 * block leaves e untouched. 0 or CRS_ECONFIG.
 */
int config_parse_source(struct yaml_doc *d, const yaml_node_t *k,
			const yaml_node_t *v, const char *dir,
			const char *file, const char *field,
			struct compose_crs *e);

#endif
