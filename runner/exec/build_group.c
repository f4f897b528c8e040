/* SPDX-License-Identifier: Apache-2.0 */
/*
 * build_group.c - jobs run side by side, the first failure stops them
 *
 * One thread per job (a build, triage, a replay) sharing the scan's
 * engine client; a failure or Ctrl-C stops the siblings and removes
 * their containers.
 *
 * Details: docs/internals.md.
 */
#include "runner/exec/build_group.h"
#include "runner/config/config.h"
#include "runner/scan/scan.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/log.h"
#include "common/xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct group {
	pthread_mutex_t lock;
	pthread_cond_t done_cond;
	volatile int stop;	/* its jobs' scan_stop_flag() */
	size_t done;
	int first_r;		/* the first failure */
	char *first_msg;
};

struct worker {
	struct group *g;
	const struct compose_resources *res;	/* the caller's share */
	struct scan *s;
	struct build_job *job;
	pthread_t tid;
	int started;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	int r;

	exec_set_thread_stop(&w->g->stop);
	exec_set_shared_res(w->res);
	r = w->job->fn(w->s, w->job->arg);

	pthread_mutex_lock(&w->g->lock);
	if (r != 0 && !w->g->first_r) {
		w->g->first_r = r;
		w->g->first_msg = xstrdup(crs_error_last());
		w->g->stop = 1;
		if (r != CRS_EINTR)
			log_info("%s failed: stopping the builds beside it",
				 w->job->name);
	}
	w->g->done++;
	pthread_cond_signal(&w->g->done_cond);
	pthread_mutex_unlock(&w->g->lock);
	crs_error_clear();
	return NULL;
}

int build_group_run(struct scan *s, struct build_job *jobs, size_t nr)
{
	struct group g = { .lock = PTHREAD_MUTEX_INITIALIZER,
			   .done_cond = PTHREAD_COND_INITIALIZER };
	volatile int *user = scan_stop_flag(s);	/* the caller's */
	struct worker *w = xcalloc(nr ? nr : 1, sizeof(*w));
	size_t started = 0;
	int r = 0;

	if (user && *user)
		g.stop = 1;
	pthread_mutex_lock(&g.lock);
	for (size_t i = 0; i < nr; i++) {
		w[i] = (struct worker){ .g = &g, .s = s, .job = &jobs[i],
					.res = exec_shared_res() };
		if (pthread_create(&w[i].tid, NULL, worker_main, &w[i]) != 0) {
			/* the jobs so far are stopped and awaited */
			g.first_r = crs_error_set(CRS_ERR, "%s: cannot start "
						  "a thread: %s", jobs[i].name,
						  strerror(errno));
			g.first_msg = xstrdup(crs_error_last());
			g.stop = 1;
			break;
		}
		w[i].started = 1;
		started++;
	}
	/* wait, passing a Ctrl-C on to the group */
	while (g.done < started) {
		struct timespec t;

		if (user && *user)
			g.stop = 1;
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += 100 * 1000 * 1000;
		if (t.tv_nsec >= 1000000000) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&g.done_cond, &g.lock, &t);
	}
	pthread_mutex_unlock(&g.lock);
	for (size_t i = 0; i < nr; i++)
		if (w[i].started)
			pthread_join(w[i].tid, NULL);
	if (g.first_r)
		r = crs_error_set(g.first_r, "%s", g.first_msg);
	else if (user && *user)
		r = crs_error_set(CRS_EINTR, "interrupted");
	free(g.first_msg);
	free(w);
	pthread_mutex_destroy(&g.lock);
	pthread_cond_destroy(&g.done_cond);
	return r;
}

/* Mark every CPU of list `cpus` in `set`. */
static int cpus_mark(unsigned char *set, const char *cpus)
{
	struct config_cpu_range *rg = NULL;
	size_t nr = 0;
	int r;

	if (!cpus || !*cpus)
		return 0;
	if ((r = config_cpuset_ranges(&rg, &nr, cpus)) != 0)
		return crs_error_prefix("cpuset \"%s\"", cpus);
	for (size_t i = 0; i < nr; i++)
		for (unsigned c = rg[i].first; c <= rg[i].last; c++)
			set[c] = 1;
	free(rg);
	return 0;
}

unsigned build_group_cpus(const char *cpuset)
{
	struct config_cpu_range *rg = NULL;
	size_t nr = 0;
	unsigned n = 0;

	if (!cpuset || !*cpuset ||
	    config_cpuset_ranges(&rg, &nr, cpuset) != 0) {
		crs_error_clear();
		return 1;
	}
	for (size_t i = 0; i < nr; i++)
		n += rg[i].last - rg[i].first + 1;
	free(rg);
	return n ? n : 1;
}

/* The CPUs marked in `set` as a CPU list, or NULL when none is. */
static char *cpus_list(const unsigned char *set)
{
	struct buf list = BUF_INIT;

	for (unsigned i = 0; i <= CONFIG_CPU_MAX; i++) {
		unsigned k = i;

		if (!set[i])
			continue;
		while (k < CONFIG_CPU_MAX && set[k + 1])
			k++;
		buf_printf(&list, "%s%u", list.len ? "," : "", i);
		if (k > i)
			buf_printf(&list, "-%u", k);
		i = k;
	}
	return list.len ? buf_detach(&list, NULL) : NULL;
}

/*
 * The CPU list of every CPU in `a` or `b` (either may be NULL or empty),
 * as "0-1,4", into *out (caller frees; NULL when both are empty).
 * 0, or CRS_ECONFIG naming the list that is not a CPU list.
 */
static int cpus_union(char **out, const char *a, const char *b)
{
	unsigned char *set = xcalloc(CONFIG_CPU_MAX + 1, 1);
	int r;

	*out = NULL;
	if ((r = cpus_mark(set, a)) == 0 && (r = cpus_mark(set, b)) == 0)
		*out = cpus_list(set);
	free(set);
	return r;
}

char *build_group_cpus_spare(const struct compose *c)
{
	unsigned char *set = xcalloc(CONFIG_CPU_MAX + 1, 1);
	unsigned char *taken = xcalloc(CONFIG_CPU_MAX + 1, 1);
	char *out = NULL;
	int r = cpus_mark(set, c->infra.cpuset);

	for (size_t i = 0; r == 0 && i < c->crs_nr; i++)
		r = cpus_mark(taken, c->crs[i].res.cpuset);
	if (r == 0) {
		for (unsigned k = 0; k <= CONFIG_CPU_MAX; k++)
			set[k] &= !taken[k];
		out = cpus_list(set);
	} else {
		crs_error_clear();	/* the compose check read them */
	}
	free(set);
	free(taken);
	return out;
}

char *build_group_cpus_lent(const char *own, const char *lender)
{
	char *u = NULL;

	if (!own || !*own || !lender || !*lender)
		return NULL;
	if (cpus_union(&u, own, lender) != 0) {
		crs_error_clear();	/* the compose check read them */
		return NULL;
	}
	if (build_group_cpus(u) == build_group_cpus(own)) {
		free(u);
		return NULL;
	}
	return u;
}

int build_group_resources(struct compose_resources *out,
			  const struct compose *c, size_t jobs)
{
	unsigned char *set = xcalloc(CONFIG_CPU_MAX + 1, 1);
	int64_t mem = c->infra.memory_bytes;
	int r;

	memset(out, 0, sizeof(*out));
	out->llm_budget = -1;
	if ((r = cpus_mark(set, c->infra.cpuset)) != 0)
		goto out;
	for (size_t i = 0; i < c->crs_nr; i++) {
		if ((r = cpus_mark(set, c->crs[i].res.cpuset)) != 0)
			goto out;
		if (mem > 0 && c->crs[i].res.memory_bytes > 0)
			mem += c->crs[i].res.memory_bytes;
		else
			mem = 0;
	}
	out->cpuset = cpus_list(set);
	out->memory_bytes = mem > 0 && jobs ? mem / (int64_t)jobs : 0;
	if (out->memory_bytes)
		out->memory = xasprintf("%lld", (long long)out->memory_bytes);
out:
	free(set);
	return r;
}

void build_group_resources_release(struct compose_resources *r)
{
	if (!r)
		return;
	free(r->cpuset);
	free(r->memory);
	r->cpuset = r->memory = NULL;
}
