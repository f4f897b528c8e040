/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_ledger.h - per-CRS dollar budgets with reservations
 *
 * A request reserves its worst-case cost before it is forwarded and
 * settles to its real cost afterwards, all under one mutex, so the sum of
 * what is spent and what is reserved never passes a CRS's budget however
 * many requests run at once. The ledger knows CRS indexes and amounts,
 * nothing of HTTP or models.
 */
#ifndef CRS_RUNNER_GATEWAY_GW_LEDGER_H
#define CRS_RUNNER_GATEWAY_GW_LEDGER_H

#include <stddef.h>
#include <stdint.h>

/* A budget that never refuses (--budget crs=unlimited). */
#define GW_BUDGET_UNLIMITED INT64_MAX

struct gw_ledger;

/* What one request cost, given to gw_ledger_settle(). */
struct gw_charge {
	int64_t cost_pusd;	/* what to book as spent */
	int64_t tokens_in, tokens_out;
	int error;		/* the upstream failed (any status but 2xx) */
	int unmetered;		/* no usage known: reservation booked */
};

/* A copy of one CRS's account, taken under the lock. */
struct gw_account {
	const char *name;	/* borrowed from the ledger */
	int64_t budget_pusd;	/* GW_BUDGET_UNLIMITED when unlimited */
	int64_t spent_pusd;	/* settled */
	int64_t reserved_pusd;	/* held by requests in flight */
	uint64_t requests;	/* forwarded upstream */
	uint64_t tokens_in, tokens_out;
	uint64_t refusals;	/* refused for the budget (HTTP 429) */
	uint64_t errors;	/* forwarded, then failed upstream */
	uint64_t unmetered;	/* charged at worst case: no usage known */
	uint64_t overruns;	/* real cost above the reservation */
	uint64_t in_flight;
};

/* A new empty ledger. Cannot fail (out of memory exits). */
struct gw_ledger *gw_ledger_new(void);
/* Free the ledger; accepts NULL. No request may be in flight. */
void gw_ledger_free(struct gw_ledger *l);

/*
 * Open an account for `crs` with a budget in picodollars
 * (GW_BUDGET_UNLIMITED for none) and set *id_out to its index (0, 1, ...
 * in the order added). CRS_ECONFLICT when the name is already there,
 * CRS_EINPUT for a negative budget. Not thread-safe against requests:
 * add every account before serving.
 */
int gw_ledger_add(struct gw_ledger *l, size_t *id_out, const char *crs,
		  int64_t budget_pusd);
/* The number of accounts. Cannot fail. */
size_t gw_ledger_count(const struct gw_ledger *l);
#ifdef UNIT_TESTS
/* The index of account `crs`: 0 or CRS_ENOTFOUND (no message set). */
int gw_ledger_find(const struct gw_ledger *l, size_t *id_out,
		   const char *crs);
#endif

/*
 * Reserve `amount` picodollars for one request of account `id`. 0 when
 * spent + reserved + amount stays within the budget (the request is then
 * counted and in flight until settled), else CRS_ECONFLICT with a message
 * naming the CRS, the budget, the spend, what is reserved and the amount,
 * and the refusal counted.
 */
int gw_ledger_reserve(struct gw_ledger *l, size_t id, int64_t amount);

/*
 * Release a reservation of `reserved` and book `charge`. Returns 1 when
 * the charge was above the reservation (an overrun, booked anyway: the
 * ledger records what the provider bills), else 0. Cannot fail.
 */
int gw_ledger_settle(struct gw_ledger *l, size_t id, int64_t reserved,
		     const struct gw_charge *charge);

/* Copy account `id` into *out under the lock. Cannot fail. */
void gw_ledger_account(struct gw_ledger *l, size_t id,
		       struct gw_account *out);

#endif
