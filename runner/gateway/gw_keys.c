/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_keys.c - per-CRS keys: generate, store, load, match
 *
 * Trust boundary: key files are read with O_NOFOLLOW from a directory the
 * orchestrator owns, and a presented key is untrusted input compared with
 * CRYPTO_memcmp against every entry (no early exit), so response time
 * does not tell which key or how much of it matched. Keys never reach a
 * message or a log.
 */
#include "runner/gateway/gw_keys.h"
#include "common/error.h"
#include "common/safe_io.h"
#include "common/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct key_entry {
	char key[GW_KEY_LEN + 1];
	size_t id;
};

struct gw_keys {
	struct key_entry *v;
	size_t nr, alloc;
};

struct gw_keys *gw_keys_new(void)
{
	return xcalloc(1, sizeof(struct gw_keys));
}

void gw_keys_free(struct gw_keys *k)
{
	if (!k)
		return;
	if (k->v)
		OPENSSL_cleanse(k->v, k->alloc * sizeof(*k->v));
	free(k->v);
	free(k);
}

int gw_keys_generate(char out[GW_KEY_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[32];
	size_t p = sizeof(GW_KEY_PREFIX) - 1;

	if (RAND_bytes(raw, sizeof(raw)) != 1)
		return crs_error_set(CRS_ERR, "the random generator failed");
	memcpy(out, GW_KEY_PREFIX, p);
	for (size_t i = 0; i < sizeof(raw); i++) {
		out[p++] = hex[raw[i] >> 4];
		out[p++] = hex[raw[i] & 15];
	}
	out[p] = '\0';
	OPENSSL_cleanse(raw, sizeof(raw));
	return 0;
}

int gw_keys_valid_name(const char *name)
{
	size_t n = strlen(name);

	if (!n || n > 64 || !isalnum((unsigned char)name[0]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr("._-", name[i]))
			return 0;
	return 1;
}

static int key_shape_ok(const char *key, size_t len)
{
	size_t p = sizeof(GW_KEY_PREFIX) - 1;

	if (len != GW_KEY_LEN || memcmp(key, GW_KEY_PREFIX, p))
		return 0;
	for (; p < len; p++)
		if (!strchr("0123456789abcdef", key[p]) || !key[p])
			return 0;
	return 1;
}

char *gw_keys_path(const char *dir, const char *crs)
{
	return xasprintf("%s/%s.key", dir, crs);
}

int gw_keys_add(struct gw_keys *k, const char *key, size_t id)
{
	if (!key_shape_ok(key, strlen(key)))
		return crs_error_set(CRS_EINPUT, "not a crs-ci key (want %s "
				     "and 64 hex digits)", GW_KEY_PREFIX);
	ALLOC_GROW(k->v, k->nr + 1, k->alloc);
	memcpy(k->v[k->nr].key, key, GW_KEY_LEN + 1);
	k->v[k->nr].id = id;
	k->nr++;
	return 0;
}

/* Read an existing key file into key[]; CRS_ENOTFOUND when missing. */
static int load_key(char key[GW_KEY_LEN + 1], const char *path)
{
	char tmp[GW_KEY_LEN + 2];
	struct stat st;
	size_t len = 0;
	int fd, r = CRS_ERR;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return CRS_ENOTFOUND;
		return crs_error_set(errno == ELOOP ? CRS_ECONFIG : CRS_ERR,
				     "%s: %s", path, strerror(errno));
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		r = crs_error_set(CRS_ECONFIG, "%s: not a regular file", path);
		goto out;
	}
	if ((r = safe_read_full(fd, tmp, sizeof(tmp), &len, path)) != 0)
		goto out;
	if (len == GW_KEY_LEN + 1 && tmp[GW_KEY_LEN] == '\n')
		len--;
	if (!key_shape_ok(tmp, len)) {
		r = crs_error_set(CRS_ECONFIG, "%s: does not hold one crs-ci "
				  "key", path);
		goto out;
	}
	memcpy(key, tmp, GW_KEY_LEN);
	key[GW_KEY_LEN] = '\0';
	r = 0;
out:
	OPENSSL_cleanse(tmp, sizeof(tmp));
	close(fd);
	return r;
}

static int store_key(const char *key, const char *path)
{
	size_t off = 0;
	int fd, r = CRS_ERR;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return crs_error_set(CRS_ERR, "%s: %s", path, strerror(errno));
	while (off < GW_KEY_LEN) {
		ssize_t n = write(fd, key + off, GW_KEY_LEN - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = crs_error_set(CRS_ERR, "%s: write: %s", path,
					  strerror(errno));
			goto out;
		}
		off += (size_t)n;
	}
	if (fchmod(fd, 0600) != 0 || fsync(fd) != 0) {
		r = crs_error_set(CRS_ERR, "%s: %s", path, strerror(errno));
		goto out;
	}
	r = 0;
out:
	if (close(fd) != 0 && r == 0)
		r = crs_error_set(CRS_ERR, "%s: close: %s", path,
				  strerror(errno));
	if (r != 0)
		unlink(path);
	return r;
}

int gw_keys_issue(struct gw_keys *k, const char *dir, const char *crs,
		  size_t id)
{
	char key[GW_KEY_LEN + 1];
	char *path = NULL;
	struct stat st;
	int r = CRS_ERR;

	if (!gw_keys_valid_name(crs))
		return crs_error_set(CRS_EINPUT, "\"%.64s\" cannot name a CRS "
				     "key file", crs);
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return crs_error_set(CRS_ERR, "%s: %s", dir, strerror(errno));
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return crs_error_set(CRS_ERR, "%s: not a directory", dir);
	path = gw_keys_path(dir, crs);
	r = load_key(key, path);
	if (r == CRS_ENOTFOUND) {
		if ((r = gw_keys_generate(key)) != 0 ||
		    (r = store_key(key, path)) != 0)
			goto out;
	}
	if (r != 0)
		goto out;
	r = gw_keys_add(k, key, id);
out:
	OPENSSL_cleanse(key, sizeof(key));
	free(path);
	return r;
}

int gw_keys_find(const struct gw_keys *k, const char *presented, size_t len,
		 size_t *id_out)
{
	size_t found = 0;
	int any = 0;

	if (len != GW_KEY_LEN)
		return CRS_ENOTFOUND;
	for (size_t i = 0; i < k->nr; i++) {
		/* all-ones when equal, zero otherwise: no branch on it */
		size_t eq = (size_t)0 - (size_t)(CRYPTO_memcmp(
			k->v[i].key, presented, GW_KEY_LEN) == 0);

		found |= eq & k->v[i].id;
		any |= (int)(eq & 1);
	}
	if (!any)
		return CRS_ENOTFOUND;
	*id_out = found;
	return 0;
}
