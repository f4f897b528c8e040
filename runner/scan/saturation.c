/* SPDX-License-Identifier: Apache-2.0 */
/*
 * saturation.c - when a harness has stopped gaining coverage of the change
 *
 * The plateau rule of --saturation (saturation.h).
 */
#include "runner/scan/saturation.h"

double saturation_floor(double share_s, double min_s, int guard)
{
	double f = share_s / (guard ? SATURATION_FLOOR_DIVISOR_GUARD :
			      SATURATION_FLOOR_DIVISOR);

	return f > min_s ? f : min_s;
}

void saturation_begin(struct saturation *t, double window_s, double floor_s,
		      double now)
{
	t->window_s = window_s;
	t->floor_s = floor_s;
	t->start_s = now;
	t->gain_at_s = now;
	t->seen_at_s = -1;
	t->reached = 0;
	t->runs = 0;
	t->inputs = -1;
}

enum saturation_gain saturation_observe(struct saturation *t,
					double corpus_at,
					const struct saturation_probe *p)
{
	enum saturation_gain gain = SATURATION_NO_GAIN;

	if (p->reached > t->reached)
		gain = SATURATION_GAIN_COVERAGE;
	else if (p->inputs > t->inputs && p->runs > t->runs)
		gain = SATURATION_GAIN_INPUTS;
	if (p->reached > t->reached)
		t->reached = p->reached;
	if (p->runs > t->runs)
		t->runs = p->runs;
	if (p->inputs > t->inputs)
		t->inputs = p->inputs;
	if (gain && corpus_at > t->gain_at_s)
		t->gain_at_s = corpus_at;
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
