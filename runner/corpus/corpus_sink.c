/* SPDX-License-Identifier: Apache-2.0 */
/*
 * corpus_sink.c - write imported inputs under their SHA-1, within the caps
 */
#include "runner/corpus/corpus_sink.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "common/error.h"
#include "common/fsutil.h"
#include "common/safe_io.h"

int corpus_sink_open(struct corpus_sink *k, int dirfd, size_t *bytes_total,
		     size_t bytes_max)
{
	DIR *d = fs_dir_stream(dirfd);
	struct dirent *de;

	k->dirfd = dirfd;
	k->inputs = 0;
	k->bytes_total = bytes_total;
	k->bytes_max = bytes_max;
	if (!d)
		return crs_error_set(CRS_ERR, "corpus folder: %s",
				     strerror(errno));
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			k->inputs++;
	closedir(d);
	return 0;
}

void corpus_sink_name(char out[CORPUS_NAME_SIZE], const void *data,
		      size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	static const char hex[] = "0123456789abcdef";

	EVP_Digest(data, len, md, &n, EVP_sha1(), NULL);
	for (unsigned int i = 0; i < n && i < 20; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[40] = '\0';
}

int corpus_sink_add(struct corpus_sink *k, const void *data, size_t len,
		    struct corpus_count *c, char added[CORPUS_NAME_SIZE])
{
	char name[CORPUS_NAME_SIZE];
	struct stat st;
	int fd, r;

	if (added)
		added[0] = '\0';
	c->read++;
	corpus_sink_name(name, data, len);
	if (fstatat(k->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		c->duplicate++;
		return 0;
	}
	if (k->inputs >= CORPUS_INPUTS_MAX ||
	    (k->bytes_total && *k->bytes_total + len > k->bytes_max)) {
		c->over_cap++;
		return 0;
	}
	fd = openat(k->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0644);
	if (fd < 0) {
		if (errno == EEXIST) {
			c->duplicate++;
			return 0;
		}
		return crs_error_set(CRS_ERR, "corpus input %s: %s", name,
				     strerror(errno));
	}
	r = safe_write_all(fd, data, len, name);
	if (close(fd) != 0 && r == 0)
		r = crs_error_set(CRS_ERR, "corpus input %s: %s", name,
				  strerror(errno));
	if (r != 0) {
		unlinkat(k->dirfd, name, 0);
		return r;
	}
	k->inputs++;
	if (k->bytes_total)
		*k->bytes_total += len;
	c->kept++;
	if (added)
		memcpy(added, name, sizeof(name));
	return 0;
}
