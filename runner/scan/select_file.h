/* SPDX-License-Identifier: Apache-2.0 */
/*
 * select_file.h - reading back the select phase's select.json
 *
 * select.json is crs-ci's own file in the work dir (no container writes
 * it). Select reads its candidates back when it runs again on the same
 * head; the run phase reads each harness's weight from it.
 */
#ifndef CRS_RUNNER_SCAN_SELECT_FILE_H
#define CRS_RUNNER_SCAN_SELECT_FILE_H

#include <jansson.h>

struct scan;

/* Largest select.json read, in bytes. */
#define SELECT_FILE_MAX (4u << 20)

/*
 * <work>/select.json parsed, when it exists, parses and was written for
 * the scan's head commit; NULL otherwise (never an error: a missing or
 * stale file only means nothing to read back). Caller json_decref's.
 */
json_t *select_file_load(const struct scan *s);

#endif
