/* SPDX-License-Identifier: Apache-2.0 */
/*
 * init_cflite.h - what init tells a ClusterFuzzLite user about their
 * workflows: which crs-ci file takes over each cflite_*.yml
 */
#ifndef CRS_RUNNER_INIT_INIT_CFLITE_H
#define CRS_RUNNER_INIT_INIT_CFLITE_H

struct buf;

/*
 * Append one line per ClusterFuzzLite workflow in the folder open on
 * `workflows` (.github/workflows; regular files named cflite_*.yml or
 * *.yaml, links passed over, sorted): its name and what to do with it
 * now that crs-ci's workflows are there. Nothing when there is none.
 */
void init_cflite_notes(struct buf *out, int workflows);

#endif
