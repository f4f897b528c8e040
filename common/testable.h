/* SPDX-License-Identifier: Apache-2.0 */
/*
 * testable.h - CRS_TESTABLE: static in the product, visible to unit tests
 *
 * A function only its own file calls, but whose unit test calls it
 * directly, is defined CRS_TESTABLE and declared in its module's header
 * inside #ifdef UNIT_TESTS, so the product exports only what other files
 * use (tests/check_exports.py) and the tests keep their direct seam.
 */
#ifndef CRS_COMMON_TESTABLE_H
#define CRS_COMMON_TESTABLE_H

#ifdef UNIT_TESTS
#define CRS_TESTABLE
#else
#define CRS_TESTABLE static
#endif

#endif
