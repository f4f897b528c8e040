/* SPDX-License-Identifier: Apache-2.0 */
/*
 * interrupt.c - signal handlers for a clean stop
 *
 * A second signal while cleaning up is ignored on purpose: cleanup is
 * bounded (containers are killed, not stopped gracefully), and leaving
 * half of it undone is exactly what the first signal asked us to avoid.
 */
#include "runner/cli/interrupt.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t got_signal;
static volatile int interrupted;

static void on_signal(int sig)
{
	got_signal = sig;
	interrupted = 1;
}

volatile int *interrupt_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	return &interrupted;
}

int interrupt_signal(void)
{
	return (int)got_signal;
}
