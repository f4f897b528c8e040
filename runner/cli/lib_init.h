/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lib_init.h - libcurl (with OpenSSL) and libgit2, initialised on demand
 *
 * Their global initialisation costs most of a short command's run time
 * (`crs-ci version`, `help`, the pre-push hook with nothing to scan), so
 * main.c runs it only for commands that need the libraries, and the
 * commands that need them only sometimes call these first. Each runs
 * its library's initialisation once per process, whichever thread asks
 * first (pthread_once).
 */
#ifndef CRS_RUNNER_CLI_LIB_INIT_H
#define CRS_RUNNER_CLI_LIB_INIT_H

#ifdef UNIT_TESTS
/* libcurl, and through it OpenSSL: 0, or CRS_ERR when it cannot start. */
int lib_init_curl(void);
/* libgit2. Cannot fail (its errors show on the first call that needs it). */
void lib_init_git(void);
#endif
/* Both: 0 or CRS_ERR. */
int lib_init_all(void);
/* Shut down what was initialised; call once, at exit. */
void lib_init_cleanup(void);
#ifdef UNIT_TESTS	/* a test seam, not in the product: once-only init */
/* How many initialisations ran in this process (0, 1 or 2). */
unsigned lib_init_runs(void);
#endif

#endif
