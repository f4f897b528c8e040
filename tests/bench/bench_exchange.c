/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_exchange.c - what a seed flood costs the artifact exchange
 *
 * Starts an exchange over two CRSs' empty submit folders, has one "CRS"
 * write N small distinct seeds (faster than inotify's queue holds, so
 * the queue overflows as in a real flood), then calls exchange_sync()
 * the way the run loop does until it is idle, and prints the wall time
 * until idle, the number of calls, the longest single call (how long the
 * run loop could not check its deadline or Ctrl-C) and the seeds copied.
 * Works against the exchange before the flood fix too (its one call does
 * everything), which is how the numbers in docs/exchange.md were taken.
 *
 * Build and run (from the top of the tree):
 *   cc -std=c11 -D_GNU_SOURCE -O2 -I. -o build/bench_exchange \
 *     tests/bench/bench_exchange.c runner/sidecar/exchange.c common/[a-z]*.c \
 *     $(pkg-config --cflags --libs libcrypto)
 *   build/bench_exchange [seeds (70000)] [work folder (/tmp)]
 */
#include "runner/sidecar/exchange.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 70000;
	char *root = xasprintf("%s/crs-ci-bench-exchange.XXXXXX",
			       argc > 2 ? argv[2] : "/tmp");
	char *a, *b, *x, *seeds;
	const char *roots[2], *names[2] = { "flooder", "quiet" };
	struct exchange *ex = NULL;
	double t0, t1, longest = 0;
	long calls = 0;
	int more = 1;

	if (!mkdtemp(root))
		return 3;
	a = xasprintf("%s/a", root);
	b = xasprintf("%s/b", root);
	x = xasprintf("%s/x", root);
	seeds = xasprintf("%s/seeds", a);
	roots[0] = a;
	roots[1] = b;
	if (fs_mkdir_p(x) != 0 ||
	    exchange_new(&ex, x, roots, names, 2) != 0) {
		fprintf(stderr, "bench: cannot start the exchange\n");
		return 3;
	}
	t0 = now_s();
	for (long i = 0; i < n; i++) {
		char p[4096], content[64];
		int len = snprintf(content, sizeof(content), "seed %ld", i);
		int fd;

		snprintf(p, sizeof(p), "%s/s%07ld", seeds, i);
		fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, content, (size_t)len) != len)
			return 3;
		close(fd);
	}
	fprintf(stderr, "wrote %ld seeds in %.1f s\n", n, now_s() - t0);
	t0 = now_s();
	while (more) {
		struct pollfd pfd = { exchange_fd(ex), POLLIN, 0 };
		double c0 = now_s();

		more = exchange_sync(ex) > 0;
		calls++;
		if (now_s() - c0 > longest)
			longest = now_s() - c0;
		/* idle: nothing left and no event within 200 ms */
		if (!more)
			more = poll(&pfd, 1, 200) > 0;
	}
	t1 = now_s() - 0.2;
	printf("seeds %ld: idle after %.2f s, %ld sync call(s), longest "
	       "call %.3f s, %u seed(s) copied\n", n, t1 - t0, calls,
	       longest, exchange_copied(ex, 1));
	exchange_free(ex);
	fs_remove_tree(root);
	free(a);
	free(b);
	free(x);
	free(seeds);
	free(root);
	return 0;
}
