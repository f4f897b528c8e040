/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_report.h - the spend report: per CRS requests, tokens, dollars
 *
 * JSON shaped like OSS-CRS's litellm-spend-report.json ({totals, crs:
 * {<name>: {credits_used}}, updated_at}) with crs-ci's fields beside it:
 * budget, tokens in/out, refusals, errors, unmetered requests, overruns.
 * It names CRSs and amounts only: no key of any kind.
 */
#ifndef CRS_RUNNER_GATEWAY_GW_REPORT_H
#define CRS_RUNNER_GATEWAY_GW_REPORT_H

#include <jansson.h>

struct gw_ledger;

/*
 * Write the report to `path` atomically (temp file and rename), so a
 * reader never sees half a report. 0 or CRS_ERR (message names path).
 */
int gw_report_write(struct gw_ledger *l, const char *path);

#endif
