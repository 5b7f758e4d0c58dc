/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The replay driver's hook for a target (fuzz_replay_main.c). */
#ifndef FUZZ_REPLAY_H
#define FUZZ_REPLAY_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of a generated input at the most. */
#define FUZZ_REPLAY_MAX_INPUT 4096

/*
 * Reshapes generated input number i (len bytes in buf, which holds
 * FUZZ_REPLAY_MAX_INPUT) in place; returns its new length, at most
 * FUZZ_REPLAY_MAX_INPUT.
 */
size_t fuzz_replay_shape(uint8_t *buf, size_t len, unsigned long i);

#endif
