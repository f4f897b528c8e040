/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scratch_dir.h - a fresh folder for a unit test that writes many files
 *
 * On tmpfs (/dev/shm) when the machine has it writable, else in /tmp: the
 * tests that flood a watched folder with thousands of files took minutes
 * on a disk shared with other builds, and seconds on tmpfs.
 */
#ifndef CRS_TESTS_HELPER_SCRATCH_DIR_H
#define CRS_TESTS_HELPER_SCRATCH_DIR_H

#include <stddef.h>

/* Makes <base>/<name>.XXXXXX (mkdtemp) and writes its path to buf, of
 * size bytes; 0, or -1 when it does not fit or mkdtemp fails. */
int scratch_dir(char *buf, size_t size, const char *name);

#endif
