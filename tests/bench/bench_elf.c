/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_elf.c - what the harness symbol lookup costs on a large binary
 *
 * Writes an ELF64 harness with 200,000 function symbols (or argv[1]) and
 * looks up 4,096 touched function names (or argv[2]) in it, as the
 * select phase does (elf_symbols_find), printing the seconds it took and
 * how many names it found. `make bench-elf` builds and runs it.
 */
#include "runner/exec/elf_symbols.h"
#include "tests/helper/elf_build.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	size_t syms = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
	size_t names = argc > 2 ? strtoul(argv[2], NULL, 10) : 4096;
	char dir[] = "/tmp/crs-bench-elf-XXXXXX";
	struct elf_build_big b;
	unsigned char *found;
	size_t nr = 0, want = 0;
	double t0, t1;
	int dfd = -1, r;

	if (!mkdtemp(dir) || fs_open_dir(&dfd, dir) != 0)
		return 3;
	elf_build_big_make(&b, syms, names);
	if (elf_build_write(dfd, "harness", (const char *const *)b.syms,
			    b.syms_nr) != 0)
		return 3;
	for (size_t i = 0; i < b.names_nr; i++)
		want += b.expect[i];
	found = xcalloc(b.names_nr, 1);
	t0 = now();
	r = elf_symbols_find(&nr, found, dfd, "harness", "harness",
			     (const char *const *)b.names, b.names_nr, NULL);
	t1 = now();
	printf("elf lookup: %zu symbols, %zu names: %.3f s, found %zu of "
	       "%zu expected%s%s\n", b.syms_nr, b.names_nr, t1 - t0, nr,
	       want, r ? ": " : "", r ? crs_error_last() : "");
	free(found);
	elf_build_big_release(&b);
	close(dfd);
	fs_remove_tree(dir);
	return r || nr != want ? 1 : 0;
}
