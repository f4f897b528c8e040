/* SPDX-License-Identifier: Apache-2.0 */
/*
 * build_cache.c - a revision's build output kept in --cache-dir
 *
 * An out/ folder is hostile: archived without following links, size
 * counted first, restored as regular files and folders only.
 *
 * Details: docs/cache.md; design notes: docs/internals.md.
 */
#include "runner/exec/build_cache.h"
#include "runner/exec/cache.h"
#include "runner/exec/cache_index.h"
#include "runner/scan/cache_root.h"
#include "runner/scan/scan.h"
#include "runner/scan/scan_opts.h"
#include "runner/config/config.h"
#include "runner/exec/base_images.h"
#include "runner/exec/source_export.h"
#include "runner/engine/docker.h"
#include "runner/engine/tar_context.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/safe_io.h"
#include "common/testable.h"
#include "common/xalloc.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BUILD_CACHE_VERSION "crs-ci build cache 2"
/* deeper than any build output: a bound on the walk */
#define BUILD_TREE_DEPTH_MAX 64

int build_cache_key(char out[65], char **material_out, struct scan *s,
		    const char *sanitizer, const char *commit,
		    const char *source_hash)
{
	struct buf b = BUF_INIT;
	char *tree = NULL, *target_id = NULL, proj[65];
	int r;

	*material_out = NULL;
	if ((r = source_tree_id(&tree, s->source_dir, commit)) != 0 ||
	    (r = fs_sha256_tree(proj, s->project->dir)) != 0 ||
	    (r = docker_image_exists(s->docker, s->state.target_image,
				     &target_id)) != 0)
		goto out;
	buf_printf(&b, "%s\ntree %s\nsource %s\nproject %s\n"
		   "target-image %s\nsanitizer %s\nlanguage %s\n"
		   "engine libfuzzer\nbase-images %s\n", BUILD_CACHE_VERSION,
		   tree, source_hash, proj, target_id, sanitizer,
		   s->state.language, base_images_tag_seed(&s->exec, &s->state.base_seed));
	sha256_hex(out, b.ptr, b.len);
	*material_out = buf_detach(&b, NULL);
out:
	buf_release(&b);
	free(tree);
	free(target_id);
	return r;
}

/*
 * The archive's first entry: the key's material, checked on restore
 * before anything is unpacked (a build kept for other inputs is a miss).
 */
#define BUILD_KEY_ENTRY ".crs-ci-build-key"
#define BUILD_KEY_MAX 4096

/* The next entry of `a` is BUILD_KEY_ENTRY and holds `material`. */
static int key_check(struct archive *a, const char *tar, const char *material)
{
	struct archive_entry *e;
	char got[BUILD_KEY_MAX];
	la_ssize_t n = 0;

	if (archive_read_next_header(a, &e) != ARCHIVE_OK ||
	    archive_entry_filetype(e) != AE_IFREG ||
	    strcmp(archive_entry_pathname(e) ? archive_entry_pathname(e) : "",
		   BUILD_KEY_ENTRY) ||
	    archive_entry_size(e) != (la_int64_t)strlen(material) ||
	    strlen(material) >= sizeof(got) ||
	    (n = archive_read_data(a, got, sizeof(got))) !=
	    (la_ssize_t)strlen(material) || memcmp(got, material, (size_t)n))
		return crs_error_set(CRS_ERR, "%s does not say it was built "
				     "from this build's inputs", tar);
	return 0;
}

static char *entry_name(const char *key)
{
	return xasprintf("build:%s", key);
}

static char *entry_rel(const char *key)
{
	return xasprintf("builds/%s.tar", key);
}

/*
 * The head and base builds run side by side (build_group.h) and both
 * update the index: one lock around each read-change-write of it (a
 * process has one cache; static, as scan.c's image table lock).
 */
static pthread_mutex_t index_lock = PTHREAD_MUTEX_INITIALIZER;

/* Write entry `e` (a folder, or a regular file and its data) to `path`. */
static int unpack_one(struct archive *a, struct archive *w,
		      struct archive_entry *e, mode_t type, const char *path)
{
	const void *buf;
	size_t len;
	la_int64_t off;
	int st = ARCHIVE_EOF;

	if (archive_write_header(w, e) != ARCHIVE_OK)
		return crs_error_set(CRS_ERR, "%s: %s", path,
				     archive_error_string(w));
	if (type == AE_IFREG)
		while ((st = archive_read_data_block(a, &buf, &len, &off)) ==
		       ARCHIVE_OK)
			if (archive_write_data_block(w, buf, len, off) !=
			    ARCHIVE_OK)
				break;
	if (st != ARCHIVE_EOF)
		return crs_error_set(CRS_ERR, "%s: %s", path,
				     archive_error_string(st == ARCHIVE_OK ?
							  w : a));
	if (archive_write_finish_entry(w) != ARCHIVE_OK)
		return crs_error_set(CRS_ERR, "%s: %s", path,
				     archive_error_string(w));
	return 0;
}

/* Unpack the regular files and folders of the archive open on `fd`
 * (shown as `tar`), kept for `material`, into `dir` (new). */
CRS_TESTABLE int unpack(int fd, const char *tar, const char *material,
			const char *dir, size_t *skipped)
{
	struct archive *a = archive_read_new();
	struct archive *w = archive_write_disk_new();
	struct archive_entry *e;
	int st = ARCHIVE_OK, r = 0;

	*skipped = 0;
	archive_read_support_format_tar(a);
	/* no link is ever written, so none can be in the way; the names
	 * are absolute (no chdir in a thread), and the folder's parents may
	 * be links the user made, which SECURE_SYMLINKS would refuse */
	archive_write_disk_set_options(w, ARCHIVE_EXTRACT_PERM |
		ARCHIVE_EXTRACT_SECURE_NODOTDOT | ARCHIVE_EXTRACT_NO_OVERWRITE);
	if (archive_read_open_fd(a, fd, 65536) != ARCHIVE_OK) {
		r = crs_error_set(CRS_ERR, "%s: %s", tar,
				  archive_error_string(a));
		goto out;
	}
	if ((r = key_check(a, tar, material)) != 0)
		goto out;
	while (r == 0 &&
	       (st = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);
		mode_t type = archive_entry_filetype(e);
		char *path;

		if ((type != AE_IFREG && type != AE_IFDIR) || !name ||
		    !safe_relpath_ok(name) || archive_entry_hardlink(e) ||
		    !strcmp(name, BUILD_KEY_ENTRY)) {
			++*skipped;
			continue;
		}
		/* `name` is the entry's: it goes with the next line */
		path = xasprintf("%s/%s", dir, name);
		archive_entry_set_pathname(e, path);
		archive_entry_set_perm(e, archive_entry_perm(e) & 0777);
		r = unpack_one(a, w, e, type, path);
		free(path);
	}
	if (r != 0)
		goto out;
	if (st != ARCHIVE_EOF)
		r = crs_error_set(CRS_ERR, "%s: %s", tar,
				  archive_error_string(a));
out:
	archive_read_free(a);
	archive_write_free(w);
	return r;
}

int build_cache_restore(struct scan *s, const char *key,
			const char *material, const char *out_dir, int *hit)
{
	struct cache_index ix = CACHE_INDEX_INIT;
	char *name = entry_name(key);
	struct cache_entry *e;
	struct stat st;
	size_t skipped = 0;
	int r = 0, locked = 0, root, fd = -1;

	*hit = 0;
	if (!s->opts->cache_dir)
		goto out;
	pthread_mutex_lock(&index_lock);
	locked = 1;
	if ((r = cache_index_open(s, &ix, &root)) != 0 ||
	    !(e = cache_index_find(&ix, name)))
		goto out;
	/* by descriptor, no link followed: what the index names may be
	 * anything someone else put in the cache */
	if (cache_root_file(s, e->path, &fd, &st) != 0) {
		log_warn("cache: cannot restore the build %.12s (%s); "
			 "compiling it", key, crs_error_last());
		crs_error_clear();
		goto out;
	}
	if ((r = fs_remove_tree(out_dir)) != 0 ||
	    (r = fs_mkdir_p(out_dir)) != 0)
		goto out;
	if (unpack(fd, e->path, material, out_dir, &skipped) != 0) {
		log_warn("cache: cannot restore the build %.12s (%s); "
			 "compiling it", key, crs_error_last());
		crs_error_clear();
		/* nothing half-restored is taken for a build */
		if ((r = fs_remove_tree(out_dir)) == 0)
			r = fs_mkdir_p(out_dir);
		goto out;
	}
	if (skipped)
		log_warn("cache: build %.12s: %zu entr%s that are not regular "
			 "files or folders left out", key, skipped,
			 skipped == 1 ? "y" : "ies");
	cache_index_touch(&ix, e, (int64_t)time(NULL), 86400);
	if (ix.dirty && cache_index_save(&ix, root) != 0) {
		log_warn("cache: %s", crs_error_last());
		crs_error_clear();
	}
	*hit = 1;
out:
	if (locked)
		pthread_mutex_unlock(&index_lock);
	if (fd >= 0)
		close(fd);
	cache_index_release(&ix);
	free(name);
	return r;
}

int build_cache_has(struct scan *s, const char *key)
{
	struct cache_index ix = CACHE_INDEX_INIT;
	char *name = entry_name(key);
	struct cache_entry *e;
	int yes = 0, root;

	if (!s->opts->cache_dir)
		goto out;
	pthread_mutex_lock(&index_lock);
	if (cache_index_open(s, &ix, &root) != 0)
		crs_error_clear();	/* reported where the cache is read */
	else if ((e = cache_index_find(&ix, name)))
		yes = cache_root_has(s, e->path, NULL);
	pthread_mutex_unlock(&index_lock);
out:
	cache_index_release(&ix);
	free(name);
	return yes;
}

/* Bytes of the regular files under folder `dfd`, links not followed;
 * CRS_ERR past `cap` or `depth`. */
static int tree_bytes(int dfd, int64_t cap, int depth, int64_t *total)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	int r = 0;

	if (!d) {
		close(dfd);
		return crs_error_set(CRS_ERR, "cannot read a build folder: %s",
				     strerror(errno));
	}
	while (r == 0 && (de = readdir(d))) {
		struct stat st;
		int sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st,
			    AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (S_ISREG(st.st_mode))
			*total += st.st_size;
		else if (S_ISDIR(st.st_mode)) {
			if (depth >= BUILD_TREE_DEPTH_MAX) {
				r = crs_error_set(CRS_ERR, "folders nested "
						  "deeper than %d",
						  BUILD_TREE_DEPTH_MAX);
				break;
			}
			sub = openat(dirfd(d), de->d_name, O_RDONLY |
				     O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				r = tree_bytes(sub, cap, depth + 1, total);
		}
		if (r == 0 && *total > cap)
			r = crs_error_set(CRS_ERR, "larger than the cache's "
					  "cap");
	}
	closedir(d);
	return r;
}

int build_cache_save(struct scan *s, const char *key, const char *material,
		     const char *out_dir)
{
	struct cache_index ix = CACHE_INDEX_INIT;
	char *name = entry_name(key), *rel = entry_rel(key);
	char *tmp = NULL;
	int64_t cap = s->opts->cache_max > 0 ? s->opts->cache_max :
		CACHE_MAX_DEFAULT, bytes = 0;
	struct stat st;
	struct cache_entry *e;
	int dfd, r = 0, root, builds = -1;

	if (!s->opts->cache_dir)
		goto out;
	dfd = open(out_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		r = crs_error_set(CRS_ERR, "%s: %s", out_dir, strerror(errno));
		goto out;
	}
	if ((r = tree_bytes(dfd, cap, 0, &bytes)) != 0) {
		crs_error_prefix("%s", out_dir);
		goto out;
	}
	/* written in crs-ci's own work folder, moved into the cache by
	 * descriptor; the head and base builds may keep a tree at once */
	tmp = scan_work_path(s, "build-cache-%ld-%lx.tar", (long)getpid(),
			     (unsigned long)pthread_self());
	if ((r = cache_root_dir(s, "builds", 1, &builds)) != 0 ||
	    (r = tar_context_write(out_dir, tmp, BUILD_KEY_ENTRY, material,
				   strlen(material))) != 0)
		goto out;
	st.st_size = bytes;
	stat(tmp, &st);
	if ((r = cache_root_put(builds, rel + strlen("builds/"), tmp)) != 0)
		goto out;
	pthread_mutex_lock(&index_lock);
	if ((r = cache_index_open(s, &ix, &root)) == 0) {
		e = cache_index_put(&ix, name);
		free(e->path);
		e->path = rel;
		rel = NULL; /* transferred */
		e->size = (int64_t)st.st_size;
		e->last_used = (int64_t)time(NULL);
		ix.dirty = 1;
		r = cache_index_save(&ix, root);
	}
	pthread_mutex_unlock(&index_lock);
	if (r == 0)
		log_info("cache: kept the build %.12s (%.1f MiB)", key,
			 (double)e->size / (1 << 20));
out:
	if (tmp)
		unlink(tmp);
	if (builds >= 0)
		close(builds);
	cache_index_release(&ix);
	free(name);
	free(rel);
	free(tmp);
	return r;
}
