/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_report.c - spend report JSON from a ledger snapshot
 *
 * Each account is copied under the ledger's lock, one at a time, so a
 * report written while requests run is consistent per CRS (totals are
 * the sums of what is shown). Dollars are printed with 12 significant
 * digits: exact for any amount under a million dollars with the
 * picodollar sums underneath.
 */
#include "runner/gateway/gw_report.h"
#include "runner/gateway/gw_ledger.h"
#include "runner/gateway/gw_price.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/fsutil.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DUMP_FLAGS (JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(12))

static json_t *money(int64_t pusd)
{
	return json_real(gw_money_dollars(pusd));
}

/* The report as a new JSON object (caller json_decref()s). Cannot fail. */
static json_t *gw_report_json(struct gw_ledger *l)
{
	json_t *crs = json_object(), *root;
	struct gw_account a, t;
	char when[32];
	time_t now = time(NULL);
	struct tm tm;

	memset(&t, 0, sizeof(t));
	for (size_t i = 0; i < gw_ledger_count(l); i++) {
		gw_ledger_account(l, i, &a);
		json_object_set_new(crs, a.name, json_pack(
			"{s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:I,"
			" s:I, s:I}",
			"budget_dollars", a.budget_pusd == GW_BUDGET_UNLIMITED ?
			json_null() : money(a.budget_pusd),
			"dollars", money(a.spent_pusd),
			"credits_used", money(a.spent_pusd),
			"reserved_dollars", money(a.reserved_pusd),
			"requests", (json_int_t)a.requests,
			"tokens_in", (json_int_t)a.tokens_in,
			"tokens_out", (json_int_t)a.tokens_out,
			"refusals", (json_int_t)a.refusals,
			"errors", (json_int_t)a.errors,
			"unmetered", (json_int_t)a.unmetered,
			"overruns", (json_int_t)a.overruns,
			"in_flight", (json_int_t)a.in_flight));
		t.spent_pusd += a.spent_pusd;
		t.requests += a.requests;
		t.tokens_in += a.tokens_in;
		t.tokens_out += a.tokens_out;
		t.refusals += a.refusals;
		t.errors += a.errors;
		t.unmetered += a.unmetered;
		t.overruns += a.overruns;
	}
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	root = json_pack("{s:i, s:s, s:{s:o, s:o, s:I, s:I, s:I, s:I, s:I,"
			 " s:I, s:I}, s:o}",
			 "version", 1, "updated_at", when, "totals",
			 "dollars", money(t.spent_pusd),
			 "credits_used", money(t.spent_pusd),
			 "requests", (json_int_t)t.requests,
			 "tokens_in", (json_int_t)t.tokens_in,
			 "tokens_out", (json_int_t)t.tokens_out,
			 "refusals", (json_int_t)t.refusals,
			 "errors", (json_int_t)t.errors,
			 "unmetered", (json_int_t)t.unmetered,
			 "overruns", (json_int_t)t.overruns,
			 "crs", crs);
	return root;
}

int gw_report_write(struct gw_ledger *l, const char *path)
{
	json_t *j = gw_report_json(l);
	char *s = j ? json_dumps(j, DUMP_FLAGS) : NULL;
	int r;

	if (!s)
		r = crs_error_set(CRS_ERR, "%s: cannot encode the spend report",
				  path);
	else {
		struct buf b = BUF_INIT;

		buf_adds(&b, s);
		buf_addch(&b, '\n');
		r = fs_write_file_atomic(path, b.ptr, b.len);
		buf_release(&b);
	}
	free(s);
	json_decref(j);
	return r;
}
