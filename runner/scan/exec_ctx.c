/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exec_ctx.c - the deadline, stop flag and paths of an exec context
 *
 * The per-thread stop flag and shared resources live here, beside the
 * context they qualify (runner/scan/exec_ctx.h).
 */
#include "runner/scan/exec_ctx.h"
#include "common/buf.h"

#include <stdio.h>
#include <stdlib.h>

time_t exec_deadline_wall(const struct exec_ctx *x)
{
	return x->timeout_s > 0 ? x->started_wall + (time_t)x->timeout_s : 0;
}

double exec_remaining(const struct exec_ctx *x)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)x->timeout_s -
		((double)(now.tv_sec - x->started.tv_sec) +
		 (double)(now.tv_nsec - x->started.tv_nsec) / 1e9);
}

/* a job group's flag, for the threads that run its jobs */
static _Thread_local volatile int *thread_stop;

void exec_set_thread_stop(volatile int *flag)
{
	thread_stop = flag;
}

/* exec_shared_res(): this thread's share while no CRS runs */
static _Thread_local const struct compose_resources *thread_res;

const struct compose_resources *exec_shared_res(void)
{
	return thread_res;
}

void exec_set_shared_res(const struct compose_resources *res)
{
	thread_res = res;
}

volatile int *exec_stop_flag(const struct exec_ctx *x)
{
	return thread_stop ? thread_stop : x->interrupted;
}

int exec_interrupted(const struct exec_ctx *x)
{
	volatile int *f = exec_stop_flag(x);

	return f && *f;
}

char *exec_work_vpath(const struct exec_ctx *x, const char *fmt, va_list ap)
{
	struct buf b = BUF_INIT;
	char *rel = NULL;

	if (vasprintf(&rel, fmt, ap) < 0)
		rel = NULL;
	buf_printf(&b, "%s/%s", x->work_dir, rel ? rel : "");
	free(rel);
	return buf_detach(&b, NULL);
}

char *exec_work_path(const struct exec_ctx *x, const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = exec_work_vpath(x, fmt, ap);
	va_end(ap);
	return p;
}
