/* SPDX-License-Identifier: Apache-2.0 */
/*
 * diff_lang.h - the languages whose functions crs-ci finds in source
 */
#ifndef CRS_DIFF_DIFF_LANG_H
#define CRS_DIFF_DIFF_LANG_H

enum diff_lang {
	DIFF_LANG_NONE,		/* not a language we scan */
	DIFF_LANG_C,
	DIFF_LANG_CPP,
	DIFF_LANG_JAVA,
};

#endif
