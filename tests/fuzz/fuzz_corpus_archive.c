/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_corpus_archive.c - libFuzzer target: a corpus source's archive
 * (runner/corpus/corpus_read.c, corpus_read_archive)
 *
 * A corpus store, OSS-Fuzz's public.zip and a user's URL are hostile
 * input. The input is read as a zip or tar, once for the harness "h" and
 * once for every file; afterwards the sink folder holds only regular
 * files named by the SHA-1 of their bytes (each checked), at most 1 MiB
 * each, as many as the sink counted, and nothing was made beside it.
 */
#include "runner/corpus/corpus_read.h"
#include "runner/corpus/corpus_sink.h"
#include "common/error.h"
#include "common/fsutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char base[] = "/tmp/fuzz_corpus_archive.XXXXXX";
static int base_fd = -1;

static void remove_base(void)
{
	fs_remove_tree(base);
}

/* Every entry of `dirfd` a regular file named by its SHA-1: the count. */
static size_t check_sink(int dirfd)
{
	int dfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	static char buf[CORPUS_INPUT_MAX + 1];
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	size_t n = 0;

	if (!d)
		abort();
	rewinddir(d);
	while ((e = readdir(d)) != NULL) {
		unsigned char md[EVP_MAX_MD_SIZE];
		unsigned int mdn = 0;
		char hex[41];
		struct stat st;
		ssize_t len;
		int fd;

		if (e->d_name[0] == '.')
			continue;
		fd = openat(dfd, e->d_name, O_RDONLY | O_NOFOLLOW);
		if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
		    (size_t)st.st_size > CORPUS_INPUT_MAX)
			abort();
		len = read(fd, buf, sizeof(buf));
		close(fd);
		if (len != st.st_size)
			abort();
		EVP_Digest(buf, (size_t)len, md, &mdn, EVP_sha1(), NULL);
		for (unsigned int i = 0; i < 20; i++)
			snprintf(hex + 2 * i, 3, "%02x", md[i]);
		if (strcmp(hex, e->d_name))
			abort();
		n++;
	}
	closedir(d);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const harness[] = { "h", NULL };
	size_t total = 0;

	if (base_fd < 0) {
		if (!mkdtemp(base) || fs_open_dir(&base_fd, base) != 0)
			abort();
		atexit(remove_base);
	}
	if (fs_write_at(base_fd, "in", data, size) != 0 ||
	    mkdirat(base_fd, "out", 0700) != 0)
		abort();
	for (size_t i = 0; i < 2; i++) {
		struct corpus_count c = { 0 };
		struct corpus_sink k;
		int in = openat(base_fd, "in", O_RDONLY), out;

		if (in < 0 || (out = openat(base_fd, "out", O_RDONLY |
					    O_DIRECTORY)) < 0 ||
		    corpus_sink_open(&k, out, &total, 1 << 24) != 0)
			abort();
		if (corpus_read_archive(in, "in", harness[i], &k, &c) != 0)
			crs_error_clear();
		if (check_sink(out) != k.inputs || total > (1 << 24))
			abort();
		close(in);
		close(out);
	}
	/* nothing beside: in and out */
	{
		DIR *d = opendir(base);
		struct dirent *e;
		size_t n = 0;

		if (!d)
			abort();
		while ((e = readdir(d)) != NULL)
			n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
		closedir(d);
		if (n != 2)
			abort();
	}
	{
		char *out = malloc(strlen(base) + 8);

		sprintf(out, "%s/out", base);
		if (fs_remove_tree(out) != 0)
			abort();
		free(out);
	}
	return 0;
}
