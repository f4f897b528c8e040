/* SPDX-License-Identifier: Apache-2.0 */
/*
 * interrupt.h - SIGINT/SIGTERM turned into a flag the phases poll
 *
 * The handler only sets a flag; every wait loop (container waits, the run
 * phase) checks it and unwinds through its normal cleanup, which removes
 * the containers and networks the scan created.
 */
#ifndef CRS_RUNNER_CLI_INTERRUPT_H
#define CRS_RUNNER_CLI_INTERRUPT_H

/* Install handlers; returns the flag (non-zero once a signal arrived). */
volatile int *interrupt_install(void);
/* The signal number received, or 0. */
int interrupt_signal(void);

#endif
