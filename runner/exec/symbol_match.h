/* SPDX-License-Identifier: Apache-2.0 */
/*
 * symbol_match.h - which touched function names one ELF symbol is
 *
 * The names (C "parse", C++ "ns::Class::method", chosen by the pull
 * request, up to thousands) are hashed once, with the Itanium encoding
 * of each C++ path ("2ns5Class6method") and its leading components; a
 * symbol is then matched by walking its bytes once for the C rule and
 * once per component start for the C++ rule, never by comparing it
 * with every name, and never allocating.
 */
#ifndef CRS_RUNNER_EXEC_SYMBOL_MATCH_H
#define CRS_RUNNER_EXEC_SYMBOL_MATCH_H

#include <stddef.h>
#include <stdint.h>

struct symbol_match;

/*
 * Index names[0..names_nr) (borrowed only while this runs). A C name
 * (no "::") matches the symbol of that name or a compiler clone of it
 * ("parse.cold", "parse.llvm.42"). A name whose "::"-separated
 * components are plain (none empty, none starting with a digit, none
 * holding '~', ' ' or '<', none starting with "operator") also matches
 * an Itanium mangled symbol ("_Z...") that holds its components
 * length-prefixed in order ("2ns5Class6method"), not right after a
 * digit. Cannot fail; out-of-memory exits.
 */
struct symbol_match *symbol_match_new(const char *const *names,
				      size_t names_nr);
void symbol_match_free(struct symbol_match *m);

/*
 * Sets found[i] (names_nr entries) for each names[i] the NUL-terminated
 * symbol `sym` is, adding the newly found to *found_nr. Every call on
 * one `m` must be given the same found array (a name found once is not
 * looked at again), cleared before the first. Costs about one
 * step per byte hashed, taken from *work: returns 0, or -1 when *work
 * ran out first (what was found until then stays set). Cannot fail
 * otherwise.
 */
int symbol_match_sym(struct symbol_match *m, const char *sym,
		     unsigned char *found, size_t *found_nr, uint64_t *work);

#endif
