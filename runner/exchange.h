/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exchange.h - what one CRS submits, every CRS can fetch
 *
 * During a harness's run, files that appear in any CRS's
 * SUBMIT_DIR/<harness>/<type>/ (povs, seeds, bug-candidates, reports,
 * patches) are copied into EXCHANGE_DIR/<harness>/<type>/, which every
 * CRS has mounted read-only as /OSS_CRS_FETCH_DIR/<type>. inotify drives
 * it (not OSS-CRS's 2-second polling); identical content is kept once.
 */
#ifndef CRS_RUNNER_EXCHANGE_H
#define CRS_RUNNER_EXCHANGE_H

struct exchange;

/*
 * Watch `nr` submit roots (each a SUBMIT_DIR/<harness> folder; the type
 * folders are created) and copy into `exchange_root`
 * (EXCHANGE_DIR/<harness>). Files already there are synced at once.
 */
int exchange_new(struct exchange **out, const char *exchange_root,
		 const char *const *submit_roots, const char *const *names,
		 int nr);
/* The inotify descriptor to poll(2) for readability. */
int exchange_fd(const struct exchange *x);
/* Handle pending events (non-blocking) and copy what is new. */
int exchange_sync(struct exchange *x);
/* Files copied so far, per type index (0 povs .. 4 patches). */
unsigned exchange_copied(const struct exchange *x, int type);
void exchange_free(struct exchange *x);

#endif
