/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_elf.c - libFuzzer target: the harness symbol lookup
 * (runner/exec/elf_symbols.c, runner/exec/symbol_match.c)
 *
 * An input that starts with the ELF magic is a harness binary the pull
 * request's build wrote: it is looked up as the select phase does, and
 * what is found must be counted right (nothing, on an error). Any other
 * input is names, a blank line, then symbols, one a line: the index must
 * find exactly what the one-name-at-a-time rule finds.
 */
#include "runner/exec/elf_symbols.h"
#include "runner/exec/symbol_match.h"
#include "tests/helper/symbol_ref.h"
#include "common/error.h"
#include "common/fsutil.h"

#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NAMES_MAX 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const NAMES[] = {
	"parse", "rp_parse", "ns::Class::method", "main", "a.b", "x::y",
	"LLVMFuzzerTestOneInput", "operator==", "",
};
#define NAMES_NR (sizeof(NAMES) / sizeof(*NAMES))

static int dir_fd = -1;
static char dir[] = "/tmp/fuzz_elf.XXXXXX";

static void remove_dir(void)
{
	fs_remove_tree(dir);
}

static void lookup_file(const uint8_t *data, size_t size)
{
	unsigned char found[NAMES_NR];
	size_t nr = 99, n = 0;
	int r;

	if (dir_fd < 0) {
		if (!mkdtemp(dir) || fs_open_dir(&dir_fd, dir) != 0)
			abort();
		atexit(remove_dir);
	}
	if (fs_write_at(dir_fd, "harness", data, size) != 0)
		abort();
	r = elf_symbols_find(&nr, found, dir_fd, "harness", "harness", NAMES,
			     NAMES_NR, NULL);
	for (size_t i = 0; i < NAMES_NR; i++)
		n += found[i];
	if (n != nr || (r != 0 && r != CRS_ETIMEOUT && nr != 0) ||
	    found[NAMES_NR - 1])
		abort();
	crs_error_clear();
}

/* names \n\n symbols: the index against the reference rule. */
static void match_text(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *p, *sep, *names[NAMES_MAX];
	unsigned char found[NAMES_MAX] = { 0 }, want[NAMES_MAX] = { 0 };
	size_t names_nr = 0, nr = 0;
	struct symbol_match *m;
	uint64_t work = UINT64_MAX;

	memcpy(text, data, size);
	text[size] = '\0';
	if (strlen(text) != size || !(sep = strstr(text, "\n\n"))) {
		free(text);
		return;
	}
	*sep = '\0';
	for (p = text; p && names_nr < NAMES_MAX; ) {
		char *nl = strchr(p, '\n');

		if (nl)
			*nl = '\0';
		names[names_nr++] = p;
		p = nl ? nl + 1 : NULL;
	}
	m = symbol_match_new((const char *const *)names, names_nr);
	for (p = sep + 2; p; ) {
		char *nl = strchr(p, '\n');

		if (nl)
			*nl = '\0';
		if (symbol_match_sym(m, p, found, &nr, &work) != 0)
			abort();
		for (size_t i = 0; i < names_nr; i++) {
			want[i] |= (unsigned char)symbol_ref_matches(p,
								     names[i]);
			if (want[i] != found[i])
				abort();
		}
		p = nl ? nl + 1 : NULL;
	}
	for (size_t i = 0; i < names_nr; i++)
		nr -= found[i];
	if (nr != 0)
		abort();
	symbol_match_free(m);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= SELFMAG && !memcmp(data, ELFMAG, SELFMAG))
		lookup_file(data, size);
	else
		match_text(data, size);
	return 0;
}
