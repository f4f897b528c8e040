/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_build_cache.c - libFuzzer target: the build cache's archive unpack
 * (runner/scan/build_cache.c, unpack)
 *
 * A cache is hostile input on restore, however it was written: the input
 * is a cached build archive (tar) whose first entry holds the key's
 * material (the seeds' is "k"). Unpacked into a fresh folder, it must
 * leave only regular files and folders there, with no set-id bits, and
 * nothing at all beside that folder.
 */
#include "common/error.h"
#include "common/fsutil.h"

#include <ftw.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* build_cache.c's, CRS_TESTABLE (static in the product) */
int unpack(int fd, const char *tar, const char *material, const char *dir,
	   size_t *skipped);

/* the key's material the archives must carry first: the seeds' */
#define MATERIAL "k"

static char base[] = "/tmp/fuzz_build_cache.XXXXXX";
static char *tar, *out, *outside;
static int base_fd = -1;

static void remove_base(void)
{
	fs_remove_tree(base);
}

static int only_files_and_folders(const char *path, const struct stat *st,
				  int flag, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if ((flag != FTW_F && flag != FTW_D && flag != FTW_DP) ||
	    (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode)) ||
	    (st->st_mode & (S_ISUID | S_ISGID | S_ISVTX)))
		abort();
	return 0;
}

/* base holds in.tar, out and an empty outside, nothing else. */
static void check_beside(void)
{
	size_t n = 0;
	DIR *d = opendir(base);
	struct dirent *e;

	if (!d)
		abort();
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	if (n != 3 || rmdir(outside) != 0 || mkdir(outside, 0700) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t skipped = 0;
	int fd;

	if (base_fd < 0) {
		if (!mkdtemp(base) || fs_open_dir(&base_fd, base) != 0)
			abort();
		atexit(remove_base);
		tar = malloc(strlen(base) + 16);
		out = malloc(strlen(base) + 16);
		outside = malloc(strlen(base) + 16);
		sprintf(tar, "%s/in.tar", base);
		sprintf(out, "%s/out", base);
		sprintf(outside, "%s/outside", base);
		if (mkdir(outside, 0700) != 0)
			abort();
	}
	if (fs_write_at(base_fd, "in.tar", data, size) != 0 ||
	    mkdir(out, 0700) != 0)
		abort();
	fd = open(tar, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		abort();
	if (unpack(fd, tar, MATERIAL, out, &skipped) != 0)
		crs_error_clear();
	close(fd);
	if (nftw(out, only_files_and_folders, 16, FTW_PHYS) != 0)
		abort();
	check_beside();
	if (fs_remove_tree(out) != 0)
		abort();
	return 0;
}
