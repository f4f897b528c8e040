/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lib_init.c - libcurl (with OpenSSL) and libgit2, initialised on demand
 *
 * pthread_once makes each initialisation happen once, in whichever
 * thread asks first, with the others waiting for it. Only the command
 * line calls this: services never initialise global state themselves.
 */
#include "runner/cli/lib_init.h"
#include "runner/http/http.h"
#include "common/error.h"
#include "common/log.h"
#include "common/testable.h"

#include <git2.h>
#include <pthread.h>
#include <stdatomic.h>

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static pthread_once_t git_once = PTHREAD_ONCE_INIT;
static int curl_ok, git_ok;
static atomic_uint runs;

static void curl_start(void)
{
	curl_ok = http_global_init() == 0;
	atomic_fetch_add(&runs, 1);
	log_debug("libcurl and OpenSSL initialised");
}

static void git_start(void)
{
	git_ok = git_libgit2_init() > 0;
	atomic_fetch_add(&runs, 1);
	log_debug("libgit2 initialised");
}

CRS_TESTABLE int lib_init_curl(void)
{
	pthread_once(&curl_once, curl_start);
	return curl_ok ? 0 : crs_error_set(CRS_ERR, "cannot initialise "
					   "libcurl");
}

CRS_TESTABLE void lib_init_git(void)
{
	pthread_once(&git_once, git_start);
}

int lib_init_all(void)
{
	lib_init_git();
	return lib_init_curl();
}

void lib_init_cleanup(void)
{
	if (git_ok)
		git_libgit2_shutdown();
	if (curl_ok)
		http_global_cleanup();
	git_ok = curl_ok = 0;
}

#ifdef UNIT_TESTS
unsigned lib_init_runs(void)
{
	return atomic_load(&runs);
}
#endif
