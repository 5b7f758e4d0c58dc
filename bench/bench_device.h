/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Control of the software ConnectX-3's engine, so that posting and polling
 * are measured while the device does nothing: pause it, let it run until
 * every queue is idle, read its counters. Every function dies with a
 * message when the program does not run on the software device.
 */
#ifndef MLX4DV_BENCH_DEVICE_H
#define MLX4DV_BENCH_DEVICE_H

#include <stdint.h>

/* Checks that the control interface is present; 0 or -1 with a message. */
int bench_device_open(void);
void bench_device_pause(void);
void bench_device_resume(void);
/* Returns once the engine found no work left (it keeps running). */
void bench_device_wait_idle(void);
/* Send WQEs the device took through BlueFlame so far. */
uint64_t bench_device_blueflame_wqes(void);
/* Send WQEs the device executed so far. */
uint64_t bench_device_wqes(void);

#endif
