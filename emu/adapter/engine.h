/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The device engine thread and the lists of queues it serves. */
#ifndef MLX4EMU_ENGINE_H
#define MLX4EMU_ENGINE_H

#include <stdint.h>

/* Starts the engine thread once per process; 0 or an errno. */
int emu_engine_start(void);
/* Wakes the engine from an idle wait. */
void emu_engine_kick(void);
/* Recomputes the queues and CQs the engine serves (emu_dev.lock held). */
void emu_rebuild_active(void);
/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t emu_now_ns(void);
/* 0 once a whole pass that began after the call found nothing to do;
 * ETIMEDOUT, or EBUSY while paused. */
int emu_engine_wait_idle(unsigned timeout_ms);

#endif
