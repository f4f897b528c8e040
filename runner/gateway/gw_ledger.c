/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gw_ledger.c - the budget ledger: reserve before, settle after
 *
 * One mutex guards every account; a reservation or a settlement is a few
 * additions, so contention is nothing next to an HTTP round trip. The
 * invariant spent + reserved <= budget holds after every reserve; only a
 * settlement above its reservation (a provider billing more than the
 * worst case we estimated) can break it, and that is counted as an
 * overrun in the account rather than hidden.
 */
#include "runner/gateway/gw_ledger.h"
#include "runner/gateway/gw_price.h"
#include "common/error.h"
#include "common/xalloc.h"
#include "common/testable.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct account {
	char *name;
	struct gw_account a;
};

struct gw_ledger {
	pthread_mutex_t lock;
	struct account *acc;
	size_t nr, alloc;
};

struct gw_ledger *gw_ledger_new(void)
{
	struct gw_ledger *l = xcalloc(1, sizeof(*l));

	pthread_mutex_init(&l->lock, NULL);
	return l;
}

void gw_ledger_free(struct gw_ledger *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nr; i++)
		free(l->acc[i].name);
	free(l->acc);
	pthread_mutex_destroy(&l->lock);
	free(l);
}

CRS_TESTABLE int gw_ledger_find(const struct gw_ledger *l, size_t *id_out,
		   const char *crs)
{
	for (size_t i = 0; i < l->nr; i++)
		if (!strcmp(l->acc[i].name, crs)) {
			*id_out = i;
			return 0;
		}
	return CRS_ENOTFOUND;
}

int gw_ledger_add(struct gw_ledger *l, size_t *id_out, const char *crs,
		  int64_t budget_pusd)
{
	size_t dummy;
	struct account *a;

	if (gw_ledger_find(l, &dummy, crs) == 0)
		return crs_error_set(CRS_ECONFLICT,
				     "CRS '%s' has a budget already", crs);
	if (budget_pusd < 0)
		return crs_error_set(CRS_EINPUT,
				     "CRS '%s': budget is negative", crs);
	ALLOC_GROW(l->acc, l->nr + 1, l->alloc);
	a = &l->acc[l->nr];
	memset(a, 0, sizeof(*a));
	a->name = xstrdup(crs);
	a->a.name = a->name;
	a->a.budget_pusd = budget_pusd;
	*id_out = l->nr++;
	return 0;
}

size_t gw_ledger_count(const struct gw_ledger *l)
{
	return l->nr;
}

int gw_ledger_reserve(struct gw_ledger *l, size_t id, int64_t amount)
{
	struct gw_account *a;
	char budget[32], spent[32], held[32], need[32];
	int ok;

	if (id >= l->nr || amount < 0)
		return crs_error_set(CRS_ERR, "bad ledger reservation");
	pthread_mutex_lock(&l->lock);
	a = &l->acc[id].a;
	ok = a->budget_pusd == GW_BUDGET_UNLIMITED ||
	     (a->spent_pusd <= a->budget_pusd &&
	      a->reserved_pusd <= a->budget_pusd - a->spent_pusd &&
	      amount <= a->budget_pusd - a->spent_pusd - a->reserved_pusd);
	if (ok) {
		if (a->reserved_pusd > INT64_MAX - amount)
			a->reserved_pusd = INT64_MAX;
		else
			a->reserved_pusd += amount;
		a->requests++;
		a->in_flight++;
	} else {
		a->refusals++;
		gw_money_format(budget, sizeof(budget), a->budget_pusd);
		gw_money_format(spent, sizeof(spent), a->spent_pusd);
		gw_money_format(held, sizeof(held), a->reserved_pusd);
		gw_money_format(need, sizeof(need), amount);
	}
	pthread_mutex_unlock(&l->lock);
	if (ok)
		return 0;
	return crs_error_set(CRS_ECONFLICT,
			     "budget of CRS '%s' exceeded: budget %s, spent "
			     "%s, reserved by requests in flight %s, this "
			     "request may cost up to %s",
			     l->acc[id].name, budget, spent, held, need);
}

static void add_sat(int64_t *x, int64_t v)
{
	if (v <= 0)
		return;
	*x = *x > INT64_MAX - v ? INT64_MAX : *x + v;
}

int gw_ledger_settle(struct gw_ledger *l, size_t id, int64_t reserved,
		     const struct gw_charge *charge)
{
	struct gw_account *a;
	int overrun = charge->cost_pusd > reserved;

	if (id >= l->nr)
		return 0;
	pthread_mutex_lock(&l->lock);
	a = &l->acc[id].a;
	a->reserved_pusd -= reserved < a->reserved_pusd ? reserved
							 : a->reserved_pusd;
	add_sat(&a->spent_pusd, charge->cost_pusd);
	if (charge->tokens_in > 0)
		a->tokens_in += (uint64_t)charge->tokens_in;
	if (charge->tokens_out > 0)
		a->tokens_out += (uint64_t)charge->tokens_out;
	a->errors += charge->error != 0;
	a->unmetered += charge->unmetered != 0;
	a->overruns += overrun;
	if (a->in_flight)
		a->in_flight--;
	pthread_mutex_unlock(&l->lock);
	return overrun;
}

void gw_ledger_account(struct gw_ledger *l, size_t id,
		       struct gw_account *out)
{
	memset(out, 0, sizeof(*out));
	if (id >= l->nr)
		return;
	pthread_mutex_lock(&l->lock);
	*out = l->acc[id].a;
	pthread_mutex_unlock(&l->lock);
}
