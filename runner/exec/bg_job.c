/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bg_job.c - one of crs-ci's own jobs started early, in its own thread
 *
 * The job's thread has a stop flag of its own (its scan_stop_flag()):
 * the joining thread passes its own stop on to it while it waits, and
 * bg_job_discard() sets it. Its error message is per thread
 * (common/error.c): copied out before the thread ends, set again in the
 * joining thread.
 */
#include "runner/exec/bg_job.h"
#include "runner/scan/scan.h"
#include "common/error.h"
#include "common/log.h"
#include "common/xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct bg_job {
	struct scan *s;
	int (*fn)(struct scan *s, void *arg);
	void *arg;
	const struct compose_resources *res;
	volatile int stop;	/* the job's scan_stop_flag() */
	pthread_mutex_t lock;
	pthread_cond_t done_cond;
	int done;
	pthread_t tid;
	int r;
	char *msg;
};

static void *bg_main(void *arg)
{
	struct bg_job *j = arg;
	int r;

	exec_set_thread_stop(&j->stop);
	exec_set_shared_res(j->res);
	r = j->fn(j->s, j->arg);
	pthread_mutex_lock(&j->lock);
	j->r = r;
	if (r)
		j->msg = xstrdup(crs_error_last());
	j->done = 1;
	pthread_cond_signal(&j->done_cond);
	pthread_mutex_unlock(&j->lock);
	crs_error_clear();
	return NULL;
}

struct bg_job *bg_job_start(struct scan *s, const char *name,
			    int (*fn)(struct scan *s, void *arg), void *arg,
			    const struct compose_resources *res)
{
	struct bg_job *j = xcalloc(1, sizeof(*j));
	volatile int *user = scan_stop_flag(s);

	j->s = s;
	j->fn = fn;
	j->arg = arg;
	j->res = res;
	j->stop = user && *user;
	pthread_mutex_init(&j->lock, NULL);
	pthread_cond_init(&j->done_cond, NULL);
	if (pthread_create(&j->tid, NULL, bg_main, j) != 0) {
		log_warn("%s: cannot start a thread (%s): done later",
			 name, strerror(errno));
		pthread_mutex_destroy(&j->lock);
		pthread_cond_destroy(&j->done_cond);
		free(j);
		return NULL;
	}
	return j;
}

/* Wait for the job's end, passing this thread's stop on; free it. */
static void wait_and_free(struct bg_job *j, int *r_out, char **msg_out)
{
	volatile int *user = scan_stop_flag(j->s);

	pthread_mutex_lock(&j->lock);
	while (!j->done) {
		struct timespec t;

		if (user && *user)
			j->stop = 1;
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += 100 * 1000 * 1000;
		if (t.tv_nsec >= 1000000000) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&j->done_cond, &j->lock, &t);
	}
	pthread_mutex_unlock(&j->lock);
	pthread_join(j->tid, NULL);
	*r_out = j->r;
	*msg_out = j->msg;
	pthread_mutex_destroy(&j->lock);
	pthread_cond_destroy(&j->done_cond);
	free(j);
}

int bg_job_join(struct bg_job *j)
{
	char *msg;
	int r;

	if (!j)
		return 0;
	wait_and_free(j, &r, &msg);
	if (r)
		r = crs_error_set(r, "%s", msg);
	free(msg);
	return r;
}

void bg_job_discard(struct bg_job *j)
{
	char *msg;
	int r;

	if (!j)
		return;
	j->stop = 1;
	wait_and_free(j, &r, &msg);
	free(msg);
}
