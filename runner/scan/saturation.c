/* SPDX-License-Identifier: Apache-2.0 */
/*
 * saturation.c - when a harness has stopped gaining coverage of the change
 *
 * The plateau rule of --saturation (saturation.h).
 */
#include "runner/scan/saturation.h"

double saturation_floor(double share_s, int guard)
{
	return share_s / (guard ? SATURATION_FLOOR_DIVISOR_GUARD :
			  SATURATION_FLOOR_DIVISOR);
}

void saturation_begin(struct saturation *t, double window_s, double floor_s,
		      double min_s, double now)
{
	t->window_s = window_s;
	t->floor_s = floor_s;
	t->min_s = min_s;
	t->start_s = now;
	t->gain_at_s = now;
	t->seen_at_s = -1;
	t->reached = 0;
	t->runs = 0;
	t->inputs = -1;
}

/* The inputs p has beyond t's ran the touched code SATURATION_HEAVIER
 * times as often, per input, as t's did (any run is that, after none). */
static int heavier(const struct saturation *t,
		   const struct saturation_probe *p)
{
	double before, added;

	if (t->inputs <= 0 || !t->runs)
		return 1;
	before = (double)t->runs / (double)t->inputs;
	added = (double)(p->runs - t->runs) / (double)(p->inputs - t->inputs);
	return added >= SATURATION_HEAVIER * before;
}

enum saturation_gain saturation_observe(struct saturation *t,
					double corpus_at,
					const struct saturation_probe *p)
{
	enum saturation_gain gain = SATURATION_NO_GAIN;

	if (p->reached > t->reached)
		gain = SATURATION_GAIN_COVERAGE;
	else if (p->inputs > t->inputs && p->runs > t->runs &&
		 heavier(t, p))
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
	if (saturation_plateau_s(t) < t->window_s ||
	    now - t->start_s < t->min_s)
		return 0;
	return !t->reached || now - t->start_s >= t->floor_s;
}

double saturation_probe_every(const struct saturation *t)
{
	double e = t->window_s / 4;

	if (e < SATURATION_PROBE_MIN_S)
		e = SATURATION_PROBE_MIN_S;
	return e > SATURATION_PROBE_MAX_S ? SATURATION_PROBE_MAX_S : e;
}
