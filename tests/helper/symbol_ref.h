/* SPDX-License-Identifier: Apache-2.0 */
/*
 * symbol_ref.h - the symbol rule of symbol_match.h, one name at a time
 *
 * The quadratic matcher elf_symbols.c had before its names were indexed
 * (less C++ components starting with a digit, which no name has), kept
 * as the oracle the index is checked against (unit test, fuzzer).
 */
#ifndef CRS_TESTS_HELPER_SYMBOL_REF_H
#define CRS_TESTS_HELPER_SYMBOL_REF_H

/* 1 when the symbol `sym` is the function `name` (symbol_match.h). */
int symbol_ref_matches(const char *sym, const char *name);

#endif
