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

/* Most bytes of section headers, symbols and names read from one file. */
#define ELF_SYMBOLS_READ_MAX (256u << 20)

/*
 * Look up `names` (function names as diff/func_spans.h gives them: C
 * "parse", C++ "ns::Class::method") among the defined function symbols
 * of the ELF file `file` in the folder `dirfd` (a little-endian ELF32 or
 * ELF64). A C name matches the symbol of that name or a compiler clone
 * of it ("parse.cold", "parse.llvm.42"); a C++ name matches an Itanium
 * mangled symbol ("_Z...") holding its components length-prefixed in
 * order ("2ns5Class6method"). Sets found[i] to 1 for each names[i]
 * found (found has names_nr entries, cleared first) and *found_nr to
 * their count. Returns 0; CRS_EINPUT naming `shown` when the file is a
 * link, not a regular file, not such an ELF, malformed or over the read
 * budget; CRS_ERR on an I/O error. Cannot allocate without bound.
 */
int elf_symbols_find(size_t *found_nr, unsigned char *found, int dirfd,
		     const char *file, const char *shown,
		     const char *const *names, size_t names_nr);

#ifdef UNIT_TESTS
/* 1 when the symbol `sym` is the function `name` (rules above). */
int elf_symbol_matches(const char *sym, const char *name);
#endif

#endif
