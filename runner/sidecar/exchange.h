/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exchange.h - what one CRS submits, every CRS can fetch
 *
 * Files in any CRS's SUBMIT_DIR are copied once into the exchange
 * folder every CRS mounts read-only.
 *
 * Details: docs/exchange.md; design notes: docs/internals.md.
 */
#ifndef CRS_RUNNER_SIDECAR_EXCHANGE_H
#define CRS_RUNNER_SIDECAR_EXCHANGE_H

#include <stddef.h>

/* What one exchange_sync() call does at most for each CRS. */
#define EXCHANGE_TICK_FILES 1000		/* files read */
#define EXCHANGE_TICK_BYTES (64u << 20)		/* bytes read */
#define EXCHANGE_TICK_ENTRIES 20000		/* folder entries looked at */

/* Per CRS and harness run; past a cap the CRS's files are ignored. */
#define EXCHANGE_FILES_MAX 100000		/* files read */
#define EXCHANGE_BYTES_MAX (1ull << 30)		/* bytes read */
#define EXCHANGE_DIRS_MAX 32			/* folders watched */

struct exchange;

/*
 * Watch `nr` submit roots (each a SUBMIT_DIR/<harness> folder that
 * crs-ci created; the type folders are created) and copy into
 * `exchange_root` (EXCHANGE_DIR/<harness>). Files already there are
 * synced by a first exchange_sync() call.
 */
int exchange_new(struct exchange **out, const char *exchange_root,
		 const char *const *submit_roots, const char *const *names,
		 int nr);
/* The inotify descriptor to poll(2) for readability. */
int exchange_fd(const struct exchange *x);
/*
 * Handle pending events (non-blocking) and copy what is new, within the
 * EXCHANGE_TICK_* budget of each CRS. Returns 1 when work is left (call
 * again soon, after checking the deadline and Ctrl-C), 0 when the
 * exchange is idle until exchange_fd() is readable. Cannot fail: what
 * cannot be copied is skipped (and logged, a few lines per CRS).
 */
int exchange_sync(struct exchange *x);
/* 1 when exchange_sync() has work left (no need to wait for events). */
int exchange_busy(const struct exchange *x);
#ifdef UNIT_TESTS	/* a test seam, not in the product: small caps */
/* Replace the EXCHANGE_FILES_MAX / EXCHANGE_BYTES_MAX caps of every CRS. */
void exchange_set_caps(struct exchange *x, unsigned long files,
		       unsigned long long bytes);
#endif
/*
 * Call fn(ctx, crs, bytes, len) from exchange_sync() with each PoV it
 * copies (a new content), right after the copy; `crs` names the CRS that
 * submitted it. fn must not fail or block.
 */
typedef void exchange_pov_fn(void *ctx, const char *crs, const void *data,
			     size_t len);
void exchange_on_pov(struct exchange *x, exchange_pov_fn *fn, void *ctx);
/* Files copied so far, per type index (0 povs .. 4 patches). */
unsigned exchange_copied(const struct exchange *x, int type);
void exchange_free(struct exchange *x);

#endif
