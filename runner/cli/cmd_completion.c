/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_completion.c - crs-ci completion bash: the bash completion script
 *
 * Made from the command table (runner/cli/cmd_table.c) and the scan option
 * table (runner/cli/scan_opts_parse.c), so a new command or option completes
 * without an edit here. Options whose value is a FILE complete file
 * names, a DIR folder names, other values nothing; a command's own
 * options with a value complete file names. `make install` writes it to
 * share/bash-completion/completions/crs-ci.
 */
#include "runner/cli/cmd.h"
#include "runner/cli/cli_usage.h"
#include "runner/cli/scan_opts_parse.h"
#include "common/opt.h"

#include <string.h>

static const char completion_usage[] =
"usage: crs-ci completion bash\n"
"\nPrint the bash completion script. Load it with\n"
"  source <(crs-ci completion bash)\n"
"or install it as share/bash-completion/completions/crs-ci (make install\n"
"does).\n";

#define GLOBALS "-v --verbose -q --quiet -h --help"

/* The words of `c`'s options of one kind: 'a' all, 'f' files, 'd'
 * folders, 'v' other values. */
static void print_opts(FILE *f, const struct cmd *c, int kind)
{
	unsigned bit = scan_opts_cmd_bit(c->name);
	const struct opt_spec *so = scan_opts_table();

	for (; bit && so->name; so++) {
		const char *a = so->kind == OPT_FLAG ? NULL : so->value_name;
		int k = so->kind == OPT_FLAG ? 0 : !a ? 'v' :
			!strcmp(a, "FILE") ? 'f' :
			!strcmp(a, "DIR") ? 'd' : 'v';

		if ((so->groups & bit) && (kind == 'a' || kind == k))
			fprintf(f, " --%s", so->name);
	}
	for (const struct opt_spec *o = c->opts; o && o->name; o++) {
		int k = o->kind != OPT_FLAG ? 'f' : 0;

		if (strcmp(o->name, "help") && (kind == 'a' || kind == k))
			fprintf(f, " --%s", o->name);
	}
}

static void print_script(FILE *f)
{
	const struct cmd *cmds;
	size_t nr;

	cmds = cmd_table(&nr);
	fputs("# bash completion for crs-ci, made by `crs-ci completion bash`"
	      "\n# from its command and option tables; do not edit.\n"
	      "_crs_ci() {\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev= cmd= at=0 i\n"
	      "\t[ \"$COMP_CWORD\" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	      "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	      "\t\tcase ${COMP_WORDS[i]} in\n"
	      "\t\t-*) ;;\n"
	      "\t\t*) cmd=${COMP_WORDS[i]}; at=$i; break ;;\n"
	      "\t\tesac\n"
	      "\tdone\n"
	      "\tlocal opts= files= dirs= values= subs=\n"
	      "\tcase $cmd in\n"
	      "\t'')\n"
	      "\t\tCOMPREPLY=($(compgen -W \"", f);
	for (size_t i = 0; i < nr; i++)
		fprintf(f, "%s%s", i ? " " : "", cmds[i].name);
	fputs(" --version " GLOBALS "\" -- \"$cur\"))\n"
	      "\t\treturn ;;\n", f);
	for (size_t i = 0; i < nr; i++) {
		const struct cmd *c = &cmds[i];

		fprintf(f, "\t%s)\n\t\topts='", c->name);
		print_opts(f, c, 'a');
		fputs("'\n\t\tfiles='", f);
		print_opts(f, c, 'f');
		fputs("'\n\t\tdirs='", f);
		print_opts(f, c, 'd');
		fputs("'\n\t\tvalues='", f);
		print_opts(f, c, 'v');
		fputs("'\n", f);
		if (!strcmp(c->name, "help")) {
			fputs("\t\tsubs='", f);
			for (size_t j = 0; j < nr; j++)
				fprintf(f, "%s%s", j ? " " : "", cmds[j].name);
			fputs("'\n", f);
		} else if (c->subcmds) {
			fprintf(f, "\t\tsubs='%s'\n", c->subcmds);
		}
		fputs("\t\t;;\n", f);
	}
	fputs("\t*) COMPREPLY=(); return ;;\n"
	      "\tesac\n"
	      "\tcase \"$files \" in *\" $prev \"*)\n"
	      "\t\tCOMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
	      "\tesac\n"
	      "\tcase \"$dirs \" in *\" $prev \"*)\n"
	      "\t\tCOMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n"
	      "\tesac\n"
	      "\tcase \"$values \" in *\" $prev \"*)\n"
	      "\t\tCOMPREPLY=(); return ;;\n"
	      "\tesac\n"
	      "\tif [[ $cur == -* ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$opts " GLOBALS "\" -- \"$cur\"))\n"
	      "\telif [ -n \"$subs\" ] && [ $((at + 1)) -eq \"$COMP_CWORD\" ]; "
	      "then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$subs\" -- \"$cur\"))\n"
	      "\telse\n"
	      "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	      "\tfi\n"
	      "}\n"
	      "complete -o filenames -F _crs_ci crs-ci\n", f);
}

int cmd_completion(int argc, char **argv, struct runner_ctx *ctx)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(completion_usage, ctx->out);
		return EXIT_OK;
	}
	if (argc != 2 || strcmp(argv[1], "bash"))
		return cli_usage_error(ctx->err, "completion", "give the "
				       "shell: bash (the only one so far)");
	print_script(ctx->out);
	return EXIT_OK;
}
