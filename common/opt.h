/* SPDX-License-Identifier: Apache-2.0 */
/*
 * opt.h - the one option table and parser of every command line
 *
 * Modelled on libgit2's cli_opt_spec (src/cli/opt.h): a command declares
 * its options once, in a table ended by an entry without a name, and the
 * same table parses its command line (opt_next), checks each value
 * against its kind, names the nearest option for a typo and prints the
 * options part of its help (opt_help). Used by crs-ci's commands
 * (runner/cli) and libCRS (libcrs/cli.c).
 */
#ifndef CRS_COMMON_OPT_H
#define CRS_COMMON_OPT_H

#include <stdio.h>

/* What an option's value is; the parser refuses any other. */
enum opt_kind {
	OPT_FLAG,	/* no value: "--force"; "--force=x" is refused */
	OPT_STRING,	/* any text, checked by the caller if at all */
	OPT_INT,	/* decimal digits only (common/num.h), in [min, max] */
	OPT_DURATION,	/* common/duration.h ("90", "90s", "15m"), seconds in
			 * [min, max] */
	OPT_ENUM,	/* one of `choices`; the value's index is its number */
};

struct opt_spec {
	const char *name;	/* "--name" without the dashes; NULL ends */
	char short_name;	/* "-x" as well, or 0 */
	int id;			/* the caller's, handed back in opt_value */
	enum opt_kind kind;
	const char *value_name;	/* help's "--name VALUE"; NULL: the
				 * choices of an enum, else VALUE */
	const char *help;	/* lines separated by '\n', unindented */
	long min, max;		/* OPT_INT, OPT_DURATION; max 0: no bound */
	const char *choices;	/* OPT_ENUM: "new|any|none" */
	const char *want;	/* the refusal "--name: 'v' is not WANT";
				 * NULL: made from the kind and range */
	unsigned groups;	/* the caller's bits: whose help lists it;
				 * 0: every command's */
};

/* The "-h, --help" entry every command's table ends with (id 'h'). */
#define OPT_SPEC_HELP { .name = "help", .short_name = 'h', .id = 'h', \
	.kind = OPT_FLAG, .help = "this text" }

/* One step of the parse: an option and its value, or a positional. */
struct opt_value {
	const struct opt_spec *spec;	/* NULL: a positional (OPT_MIXED) */
	const char *arg;	/* the value as typed, or the positional; NULL
				 * for a flag (borrowed from argv) */
	long num;		/* OPT_INT, OPT_DURATION: the number (seconds);
				 * OPT_ENUM: the index of the choice */
};

/* Options may stand among positionals, which opt_next hands back in
 * order (libCRS, as Python's argparse); without it the first positional
 * ends the options (crs-ci scan ..., git-style). */
#define OPT_MIXED (1u << 0)

struct opt_parser {
	const struct opt_spec *specs;
	char **argv;
	int argc;
	int idx;		/* the next word of argv */
	const char *shorts;	/* the rest of a "-abc" group, or NULL */
	const char *cmd;	/* "for 'CMD'" in messages, or NULL */
	unsigned flags;		/* OPT_MIXED */
	int literal;		/* "--" seen: the rest are positionals */
};

/*
 * Start parsing argv[1..argc) (argv[0] is the command's name) with the
 * table `specs` (borrowed, like argv, for the parse). `cmd` (or NULL)
 * names the command in messages. Cannot fail.
 */
void opt_parser_init(struct opt_parser *p, const struct opt_spec *specs,
		     int argc, char **argv, unsigned flags, const char *cmd);

/*
 * The next option (its value checked) or, with OPT_MIXED, positional
 * into *v: returns 1. Returns 0 at the end; then p->idx is the first
 * word not parsed: without OPT_MIXED the first positional, or the word
 * after "--" (argc when none is left). A bad command line returns
 * CRS_EINPUT with one line in crs_error_last(): "unknown option '--x'
 * for 'CMD'; did you mean '--y'?", "option '--out' needs a value",
 * "option '--force' takes no value", or the value's refusal.
 */
int opt_next(struct opt_parser *p, struct opt_value *v);

/*
 * The options of `specs` whose groups meet `groups` (or are 0), one
 * per entry: "  --name VALUE       help", the help's further lines
 * aligned under its first. The help starts two columns after the widest
 * head when every head fits in 24 columns, else after 18, a longer head
 * then on a line of its own.
 */
void opt_help(FILE *f, const struct opt_spec *specs, unsigned groups);

/* The entry named `name` (without dashes), or NULL. */
const struct opt_spec *opt_spec_named(const struct opt_spec *specs,
				      const char *name);

#endif
