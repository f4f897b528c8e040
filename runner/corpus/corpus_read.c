/* SPDX-License-Identifier: Apache-2.0 */
/*
 * corpus_read.c - archives (libarchive) and folders into a corpus sink
 */
#include "runner/corpus/corpus_read.h"
#include "runner/corpus/corpus_sink.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"
#include "common/fsutil.h"
#include "common/safe_io.h"
#include "common/strvec.h"
#include "common/xalloc.h"

/* the caps; a unit test lowers them (corpus_read_caps) */
static size_t entries_max = CORPUS_ARCHIVE_ENTRIES_MAX;
static size_t unpacked_max = CORPUS_ARCHIVE_UNPACKED_MAX;

#ifdef UNIT_TESTS
void corpus_read_caps(size_t entries, size_t unpacked)
{
	entries_max = entries;
	unpacked_max = unpacked;
}
#endif

/* 1 when the folder holding `path` ("a/b/h/x") is named `harness`. */
static int in_harness_folder(const char *path, const char *harness)
{
	size_t len = strlen(path), hl = strlen(harness);
	const char *slash, *start;

	while (len && path[len - 1] == '/')
		len--;
	slash = len ? memrchr(path, '/', len) : NULL;
	if (!slash)
		return 0;
	start = slash - hl;
	return start >= path && !memcmp(start, harness, hl) &&
	       (start == path || start[-1] == '/');
}

/* Take out the inputs this archive added (the sink's bytes were
 * `bytes_before`): it is refused whole. */
static void undo(struct corpus_sink *k, const struct strvec *added,
		 size_t bytes_before, struct corpus_count *c)
{
	for (size_t i = 0; i < added->nr; i++)
		if (unlinkat(k->dirfd, added->v[i], 0) == 0 && k->inputs)
			k->inputs--;
	if (k->bytes_total)
		*k->bytes_total = bytes_before;
	memset(c, 0, sizeof(*c));
}

/*
 * The entry's bytes into buf (CORPUS_INPUT_MAX + 1 long): *len, *big
 * when there were more than CORPUS_INPUT_MAX (the rest unread).
 */
static int read_entry(struct archive *a, char *buf, size_t *len, int *big,
		      const char *shown)
{
	*len = 0;
	*big = 0;
	for (;;) {
		la_ssize_t n = archive_read_data(a, buf + *len,
						 CORPUS_INPUT_MAX + 1 - *len);

		if (n < 0)
			return crs_error_set(CRS_EINPUT, "%s: %s", shown,
					     archive_error_string(a));
		if (n == 0)
			return 0;
		*len += (size_t)n;
		if (*len > CORPUS_INPUT_MAX) {
			*big = 1;
			return 0;
		}
	}
}

int corpus_read_archive(int fd, const char *shown, const char *harness,
			struct corpus_sink *k, struct corpus_count *c)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	struct strvec added = STRVEC_INIT;
	char *buf = xmalloc(CORPUS_INPUT_MAX + 1);
	size_t entries = 0, unpacked = 0;
	size_t bytes_before = k->bytes_total ? *k->bytes_total : 0;
	int st = ARCHIVE_OK, r = 0;

	archive_read_support_format_zip(a);
	archive_read_support_format_tar(a);
	archive_read_support_filter_gzip(a);
	archive_read_support_filter_bzip2(a);
	archive_read_support_filter_xz(a);
	if (archive_read_open_fd(a, fd, 65536) != ARCHIVE_OK) {
		r = crs_error_set(CRS_EINPUT, "%s: %s", shown,
				  archive_error_string(a));
		goto out;
	}
	while (r == 0 && (st = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);
		char added_name[CORPUS_NAME_SIZE];
		size_t len;
		int big;

		if (++entries > entries_max) {
			r = crs_error_set(CRS_EINPUT, "%s: more than %zu entries "
					  "(the cap): refused", shown,
					  entries_max);
			break;
		}
		if (archive_entry_filetype(e) == AE_IFDIR)
			continue;
		if (harness && (!name || !in_harness_folder(name, harness)))
			continue;
		if (archive_entry_filetype(e) != AE_IFREG ||
		    archive_entry_hardlink(e) || archive_entry_symlink(e)) {
			c->not_regular++;
			continue;
		}
		if ((r = read_entry(a, buf, &len, &big, shown)) != 0)
			break;
		unpacked += len;
		if (unpacked > unpacked_max) {
			r = crs_error_set(CRS_EINPUT, "%s: unpacks to more than "
					  "%zu bytes (the cap): refused", shown,
					  unpacked_max);
			break;
		}
		if (big) {
			c->read++;
			c->too_big++;
			continue;
		}
		r = corpus_sink_add(k, buf, len, c, added_name);
		if (r == 0 && added_name[0])
			strvec_push(&added, added_name);
	}
	if (r == 0 && st != ARCHIVE_EOF)
		r = crs_error_set(CRS_EINPUT, "%s: %s", shown,
				  archive_error_string(a));
	if (r == CRS_EINPUT)
		undo(k, &added, bytes_before, c);
out:
	archive_read_free(a);
	strvec_release(&added);
	free(buf);
	return r;
}

int corpus_read_folder(int folder, const char *shown, struct corpus_sink *k,
		       struct corpus_count *c)
{
	DIR *d = fs_dir_stream(folder);
	size_t entries = 0;
	struct dirent *de;
	char *buf;
	int r = 0, dfd;

	if (!d)
		return crs_error_set(CRS_ERR, "%s: %s", shown, strerror(errno));
	dfd = dirfd(d);
	buf = xmalloc(CORPUS_INPUT_MAX + 1);
	while (r == 0 && (de = readdir(d))) {
		struct stat st;
		size_t len;
		int fd;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (++entries > CORPUS_FOLDER_ENTRIES_MAX) {
			c->over_cap++;
			continue;
		}
		/* looked at before it is opened: a device or a FIFO is
		 * never opened, and what is opened is checked again */
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode)) {
			/* a subfolder is no input, and no oddity either */
			if (!S_ISDIR(st.st_mode))
				c->not_regular++;
			continue;
		}
		fd = openat(dfd, de->d_name, O_RDONLY | O_NOFOLLOW |
			    O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
			c->not_regular++;
			if (fd >= 0)
				close(fd);
			continue;
		}
		if ((size_t)st.st_size > CORPUS_INPUT_MAX) {
			c->read++;
			c->too_big++;
			close(fd);
			continue;
		}
		r = safe_read_full(fd, buf, CORPUS_INPUT_MAX + 1, &len, shown);
		close(fd);
		if (r != 0)
			break;
		if (len > CORPUS_INPUT_MAX) {	/* grew since the fstat */
			c->read++;
			c->too_big++;
			continue;
		}
		r = corpus_sink_add(k, buf, len, c, NULL);
	}
	closedir(d);
	free(buf);
	return r;
}
