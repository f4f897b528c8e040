/* SPDX-License-Identifier: Apache-2.0 */
/*
 * elf_symbols.h - which named functions an ELF harness binary defines
 *
 * The select phase asks whether a harness's binary can hold the change's
 * touched functions. The binary was written by the pull request's build
 * (untrusted), so it is opened through its folder's descriptor without
 * following a link, and its .symtab/.dynsym are read with pread, every
 * offset, size and count checked against the file and a read budget.
 */
#ifndef CRS_RUNNER_EXEC_ELF_SYMBOLS_H
#define CRS_RUNNER_EXEC_ELF_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

/* Most bytes of section headers, symbols and names read from one file. */
#define ELF_SYMBOLS_READ_MAX (256u << 20)

/* Steps (bytes hashed, symbol_match.h) one lookup may spend at most. */
#define ELF_SYMBOLS_WORK_MAX ((uint64_t)1 << 32)

/* What ends a lookup early. */
struct elf_symbols_limit {
	volatile int *stop;	/* when set: CRS_EINTR; NULL for none */
	double seconds;		/* wall time, then CRS_ETIMEOUT; 0: none */
};

/*
 * Look up `names` (function names as diff/func_spans.h gives them: C
 * "parse", C++ "ns::Class::method") among the defined function symbols
 * of the ELF file `file` in the folder `dirfd` (a little-endian ELF32 or
 * ELF64), by the rules of symbol_match.h, in one pass over the symbol
 * tables (time linear in their size, not times the number of names).
 * Sets found[i] to 1 for each names[i] found (found has names_nr
 * entries, cleared first) and *found_nr to their count. Returns 0;
 * CRS_EINPUT naming `shown` when the file is a link, not a regular file,
 * not such an ELF, malformed or over the read budget; CRS_ERR on an I/O
 * error (found cleared on these). CRS_ETIMEOUT when `lim`'s seconds or
 * ELF_SYMBOLS_WORK_MAX steps ran out, CRS_EINTR when its stop flag was
 * set: then found holds what was found until then. `lim` may be NULL.
 * Cannot allocate without bound.
 */
int elf_symbols_find(size_t *found_nr, unsigned char *found, int dirfd,
		     const char *file, const char *shown,
		     const char *const *names, size_t names_nr,
		     const struct elf_symbols_limit *lim);

#endif
