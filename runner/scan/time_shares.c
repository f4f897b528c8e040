/* SPDX-License-Identifier: Apache-2.0 */
/*
 * time_shares.c - harness weights, weighted shares and the triage reserve
 *
 * The rules of time_shares.h, as arithmetic only: the run phase owns the
 * clock and the containers, select owns the measurements.
 */
#include "runner/scan/time_shares.h"

double time_share_weight(enum time_share_basis basis, size_t hit_nr,
			 size_t own_nr, size_t lines_nr)
{
	double w = 1.0;

	switch (basis) {
	case TIME_SHARE_EQUAL:
		w = 1.0;
		break;
	case TIME_SHARE_REACHED:
		w = (double)hit_nr;
		break;
	case TIME_SHARE_UNKNOWN:
		w = (double)(lines_nr > hit_nr ? lines_nr : hit_nr);
		break;
	case TIME_SHARE_BINARY:
		w = TIME_SHARE_BINARY_PART * (double)(own_nr ? own_nr :
						      lines_nr);
		break;
	}
	return w < TIME_SHARE_BINARY_PART ? TIME_SHARE_BINARY_PART : w;
}

double time_share_held(double w, size_t held_nr, size_t touched_nr)
{
	if (!touched_nr)
		return w;
	if (held_nr > touched_nr)
		held_nr = touched_nr;
	return w * (1.0 + (double)held_nr / (double)touched_nr);
}

void time_share_order(size_t *order, const double *w, size_t n)
{
	/* insertion sort: stable, and n is the number of harnesses */
	for (size_t i = 0; i < n; i++) {
		size_t k = i;

		while (k > 0 && w[order[k - 1]] < w[i]) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = i;
	}
}

double time_share_of(double left, const double *w, size_t i, size_t n)
{
	double rest = 0, share;

	if (left <= 0 || i >= n)
		return 0;
	for (size_t k = i; k < n; k++)
		rest += w[k] > 0 ? w[k] : 0;
	share = rest > 0 && w[i] > 0 ? left * w[i] / rest :
		left / (double)(n - i);
	if (share < TIME_SHARE_MIN_S)
		share = TIME_SHARE_MIN_S;
	return share > left ? left : share;
}

double time_reserve(size_t povs, size_t patches, double window_s)
{
	double r = TIME_RESERVE_BASE_S + TIME_RESERVE_POV_S * (double)povs +
		TIME_RESERVE_PATCH_S * (double)patches;
	double cap = window_s * TIME_RESERVE_MAX_PART;

	if (cap > TIME_RESERVE_MAX_S)
		cap = TIME_RESERVE_MAX_S;
	if (r > cap)
		r = cap;
	return r < TIME_RESERVE_BASE_S ? TIME_RESERVE_BASE_S : r;
}

double time_share_corpus(double remaining, size_t left)
{
	double t = remaining * TIME_SHARE_CORPUS_PART /
		(double)(left ? left : 1);

	return t > TIME_SHARE_CORPUS_MIN_S ? t : TIME_SHARE_CORPUS_MIN_S;
}
