/* SPDX-License-Identifier: Apache-2.0 */
/*
 * saturation.c - when a harness has stopped gaining coverage of the change
 *
 * The plateau rule of --saturation (saturation.h).
 */
#include "runner/scan/saturation.h"

void saturation_begin(struct saturation *t, double window_s, double floor_s,
		      double now)
{
	t->window_s = window_s;
	t->floor_s = floor_s;
	t->start_s = now;
	t->gain_at_s = now;
	t->seen_at_s = -1;
	t->reached = 0;
}

int saturation_observe(struct saturation *t, double corpus_at,
		       size_t reached)
{
	int gain = reached > t->reached;

	if (gain) {
		t->reached = reached;
		if (corpus_at > t->gain_at_s)
			t->gain_at_s = corpus_at;
	}
	if (corpus_at > t->seen_at_s)
		t->seen_at_s = corpus_at;
	return gain;
}

double saturation_plateau_s(const struct saturation *t)
{
	if (t->seen_at_s < 0 || t->seen_at_s < t->gain_at_s)
		return 0;
	return t->seen_at_s - t->gain_at_s;
}

int saturation_reached(const struct saturation *t, double now)
{
	if (t->window_s <= 0 || t->seen_at_s < 0)
		return 0;
	return saturation_plateau_s(t) >= t->window_s &&
		now - t->start_s >= t->floor_s;
}

double saturation_probe_every(const struct saturation *t)
{
	double e = t->window_s / 4;

	if (e < SATURATION_PROBE_MIN_S)
		e = SATURATION_PROBE_MIN_S;
	return e > SATURATION_PROBE_MAX_S ? SATURATION_PROBE_MAX_S : e;
}
