/* SPDX-License-Identifier: Apache-2.0 */
/*
 * duration.h - "900", "90s", "15m", "1h" as seconds
 */
#ifndef CRS_COMMON_DURATION_H
#define CRS_COMMON_DURATION_H

/* "15m", "90s", "1h", "600" (seconds) -> seconds; CRS_EINPUT if bad. */
int parse_duration(const char *s, long *out);

#endif
