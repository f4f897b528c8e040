/* SPDX-License-Identifier: Apache-2.0 */
/*
 * opt.c - the one option table and parser of every command line
 *
 * A small iterator in the shape of libgit2's cli_opt_parser: it walks
 * argv once, reports each option with its value checked against the
 * table, and keeps no global state (getopt's optind), so a command can be
 * parsed again in the same process (the tests do). Long names match in
 * full: no abbreviations, which would change meaning as options are
 * added.
 */
#include "common/opt.h"
#include "common/duration.h"
#include "common/error.h"
#include "common/num.h"
#include "common/suggest.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* The width of "--name VALUE" before the help: 18, or one more than the
 * widest head when every head fits in 24; a wider head stands on a line
 * of its own. */
#define HELP_COLUMN 18
#define HELP_COLUMN_MAX 24

void opt_parser_init(struct opt_parser *p, const struct opt_spec *specs,
		     int argc, char **argv, unsigned flags, const char *cmd)
{
	*p = (struct opt_parser){ .specs = specs, .argv = argv,
		.argc = argc, .idx = argc > 0 ? 1 : 0, .cmd = cmd,
		.flags = flags };
}

const struct opt_spec *opt_spec_named(const struct opt_spec *specs,
				      const char *name)
{
	size_t n = strcspn(name, "=");

	for (const struct opt_spec *s = specs; s && s->name; s++)
		if (strlen(s->name) == n && !strncmp(s->name, name, n))
			return s;
	return NULL;
}

static const struct opt_spec *spec_short(const struct opt_spec *specs,
					 char c)
{
	for (const struct opt_spec *s = specs; s && s->name; s++)
		if (s->short_name && s->short_name == c)
			return s;
	return NULL;
}

/* The choice of `choices` ("a|b|c") equal to `arg`: its index, or -1. */
static long choice_index(const char *choices, const char *arg)
{
	size_t n = strlen(arg);
	long i = 0;

	for (const char *c = choices; *c; i++) {
		size_t len = strcspn(c, "|");

		if (len == n && !strncmp(c, arg, n))
			return i;
		c += len;
		c += *c == '|';
	}
	return -1;
}

/* "a or b", or "one of a, b, c", for a refusal. */
static void choices_want(char *out, size_t size, const char *choices)
{
	const char *bar = strchr(choices, '|');
	size_t o = 0;

	if (bar && !strchr(bar + 1, '|')) {
		snprintf(out, size, "%.*s or %s", (int)(bar - choices),
			 choices, bar + 1);
		return;
	}
	o = (size_t)snprintf(out, size, "one of ");
	for (const char *c = choices; *c && o < size; c++)
		o += (size_t)snprintf(out + o, size - o, *c == '|' ? ", " :
				      "%c", *c);
}

static void range_want(char *out, size_t size, const struct opt_spec *s)
{
	const char *what = s->kind == OPT_INT ? "a number" :
		"a duration (90s, 15m, 1h)";
	const char *unit = s->kind == OPT_INT ? "" : "s";

	if (s->max)
		snprintf(out, size, "%s from %ld%s to %ld%s", what, s->min,
			 unit, s->max, unit);
	else
		snprintf(out, size, "%s of at least %ld%s", what, s->min,
			 unit);
}

/* Check `arg` as a value of `s` into *v: 0, or CRS_EINPUT with
 * "--name: 'arg' is not <want>" set. */
static int opt_value_check(const struct opt_spec *s, const char *arg,
			   struct opt_value *v)
{
	long max = s->max ? s->max : LONG_MAX;
	char want[256];
	int ok = 1;

	v->spec = s;
	v->arg = arg;
	v->num = 0;
	switch (s->kind) {
	case OPT_FLAG:
	case OPT_STRING:
		return 0;
	case OPT_INT:
		ok = num_parse_long(arg, s->min, max, &v->num) == 0;
		break;
	case OPT_DURATION:
		ok = parse_duration(arg, &v->num) == 0 && v->num >= s->min &&
			v->num <= max;
		crs_error_clear();
		break;
	case OPT_ENUM:
		v->num = choice_index(s->choices, arg);
		ok = v->num >= 0;
		break;
	}
	if (ok)
		return 0;
	if (s->want)
		snprintf(want, sizeof(want), "%s", s->want);
	else if (s->kind == OPT_ENUM)
		choices_want(want, sizeof(want), s->choices);
	else
		range_want(want, sizeof(want), s);
	return crs_error_set(CRS_EINPUT, "--%s: '%s' is not %s", s->name, arg,
			     want);
}

static int unknown(const struct opt_parser *p, const char *word)
{
	struct suggest sg;
	char hint[SUGGEST_MAX + 32] = "";

	if (!strncmp(word, "--", 2)) {
		suggest_init(&sg, word + 2);
		for (const struct opt_spec *s = p->specs; s && s->name; s++)
			suggest_offer(&sg, s->name);
		if (sg.best)
			snprintf(hint, sizeof(hint), "; did you mean '--%s'?",
				 sg.best);
	}
	return crs_error_set(CRS_EINPUT, "unknown option '%.*s'%s%s%s%s",
			     (int)strcspn(word, "="), word,
			     p->cmd ? " for '" : "", p->cmd ? p->cmd : "",
			     p->cmd ? "'" : "", hint);
}

/* The value of `s` typed as `word`: after '=' (`inline_arg`), else the
 * next word of argv. */
static int take_value(struct opt_parser *p, const struct opt_spec *s,
		      const char *word, const char *inline_arg,
		      struct opt_value *v)
{
	const char *arg = inline_arg;

	if (s->kind == OPT_FLAG) {
		if (inline_arg)
			return crs_error_set(CRS_EINPUT, "option '--%s' takes "
					     "no value", s->name);
		return opt_value_check(s, NULL, v) == 0 ? 1 : CRS_EINPUT;
	}
	if (!arg) {
		if (p->idx >= p->argc)
			return crs_error_set(CRS_EINPUT, "option '%s' needs a "
					     "value", word);
		arg = p->argv[p->idx++];
	}
	return opt_value_check(s, arg, v) == 0 ? 1 : CRS_EINPUT;
}

/* The next letter of a "-abc" group. */
static int next_short(struct opt_parser *p, struct opt_value *v)
{
	char word[3] = { '-', *p->shorts, 0 };
	const struct opt_spec *s = spec_short(p->specs, *p->shorts);

	p->shorts++;
	if (!*p->shorts)
		p->shorts = NULL;
	if (!s)
		return unknown(p, word);
	if (s->kind != OPT_FLAG && p->shorts) {	/* "-ofile" */
		const char *rest = p->shorts;

		p->shorts = NULL;
		return take_value(p, s, word, rest, v);
	}
	return take_value(p, s, word, NULL, v);
}

int opt_next(struct opt_parser *p, struct opt_value *v)
{
	const struct opt_spec *s;
	const char *word, *eq;

	if (p->shorts)
		return next_short(p, v);
	if (p->idx >= p->argc)
		return 0;
	word = p->argv[p->idx];
	if (!p->literal && !strcmp(word, "--")) {
		p->idx++;
		if (!(p->flags & OPT_MIXED))
			return 0;
		p->literal = 1;
		return opt_next(p, v);
	}
	if (p->literal || word[0] != '-' || !word[1]) {	/* a positional */
		if (!(p->flags & OPT_MIXED))
			return 0;
		p->idx++;
		*v = (struct opt_value){ .spec = NULL, .arg = word };
		return 1;
	}
	p->idx++;
	if (word[1] != '-') {
		p->shorts = word + 1;
		return next_short(p, v);
	}
	if (!(s = opt_spec_named(p->specs, word + 2)))
		return unknown(p, word);
	eq = strchr(word, '=');
	return take_value(p, s, word, eq ? eq + 1 : NULL, v);
}

/* "-h, --help" or "--name VALUE" into head. */
static void help_head(char *head, size_t size, const struct opt_spec *s)
{
	const char *value = s->kind == OPT_FLAG ? NULL : s->value_name ?
		s->value_name : s->kind == OPT_ENUM ? s->choices : "VALUE";
	char shortname[8] = "";

	if (s->short_name)
		snprintf(shortname, sizeof(shortname), "-%c, ", s->short_name);
	snprintf(head, size, "%s--%s%s%s", shortname, s->name,
		 value ? " " : "", value ? value : "");
}

/* Is `s` in the help of `groups`? */
static int listed(const struct opt_spec *s, unsigned groups)
{
	return !s->groups || (s->groups & groups);
}

static int help_column(const struct opt_spec *specs, unsigned groups)
{
	size_t widest = HELP_COLUMN;
	char head[128];

	for (const struct opt_spec *s = specs; s && s->name; s++) {
		if (!listed(s, groups))
			continue;
		help_head(head, sizeof(head), s);
		if (strlen(head) > HELP_COLUMN_MAX)
			return HELP_COLUMN;
		if (strlen(head) + 1 > widest)	/* two spaces after it */
			widest = strlen(head) + 1;
	}
	return (int)widest;
}

void opt_help(FILE *f, const struct opt_spec *specs, unsigned groups)
{
	int col = help_column(specs, groups);

	for (const struct opt_spec *s = specs; s && s->name; s++) {
		const char *h = s->help ? s->help : "";
		char head[128];

		if (!listed(s, groups))
			continue;
		help_head(head, sizeof(head), s);
		if (strlen(head) > (size_t)col)	/* on a line of its own */
			fprintf(f, "  %s\n%*s", head, col + 3, "");
		else
			fprintf(f, "  %-*s ", col, head);
		do {
			size_t n = strcspn(h, "\n");

			fprintf(f, "%.*s\n", (int)n, h);
			h += n;
			if (*h == '\n' && *++h)
				fprintf(f, "%*s", col + 3, "");
		} while (*h);
	}
}
