/* SPDX-License-Identifier: Apache-2.0 */
/*
 * elf_build.h - test ELF64 files with a symbol table of any size
 *
 * Writes a little-endian ELF64 (header, .strtab, .symtab, .shstrtab and
 * section headers; no code) whose defined function symbols are the
 * given names, for the symbol lookup's tests and its benchmark. Also
 * makes the large harness of issue 21: many symbols, many touched names.
 */
#ifndef CRS_TESTS_HELPER_ELF_BUILD_H
#define CRS_TESTS_HELPER_ELF_BUILD_H

#include <stddef.h>

/*
 * Write `file` in the folder `dirfd`: an ELF64 defining one STT_FUNC
 * symbol per syms[i]. 0, or -1 with errno set.
 */
int elf_build_write(int dirfd, const char *file, const char *const *syms,
		    size_t syms_nr);

/* The large harness: its symbols, the names sought, which are defined. */
struct elf_build_big {
	char **syms;
	size_t syms_nr;
	char **names;
	size_t names_nr;
	unsigned char *expect;	/* names_nr entries: 1 when defined */
};

/*
 * syms_nr symbols (exact C names, compiler clones, mangled C++ names,
 * near misses and filler) and names_nr names (C and C++, half of them
 * defined). Cannot fail; elf_build_big_release() frees.
 */
void elf_build_big_make(struct elf_build_big *b, size_t syms_nr,
			size_t names_nr);
void elf_build_big_release(struct elf_build_big *b);

#endif
