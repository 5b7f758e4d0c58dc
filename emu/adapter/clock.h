/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The HCA core clock: a free-running counter of the device clock, shown to
 * programs in the clock page (mmap offset 3 * page size of the device fd,
 * as mlx4_ib_mmap maps it) and stamped into the CQEs of CQs created with
 * completion timestamps.
 */
#ifndef MLX4EMU_CLOCK_H
#define MLX4EMU_CLOCK_H

#include <stdint.h>

/* Clock frequency in kHz, as mlx4_ib_query_device reports hca_core_clock
 * (caps.hca_core_clock, MHz, times 1000). */
#define EMU_HCA_CORE_CLOCK_KHZ 427000ull
/* The CQE carries bits 0..47 of the counter (mlx4_ib_query_device's
 * timestamp_mask). */
#define EMU_CQE_TIMESTAMP_MASK 0xffffffffffffull
/* Byte offset of the counter in the clock page, the hca_core_clock_offset
 * of the QUERY_DEVICE_EX driver response (8-byte aligned so that one store
 * updates both words). */
#define EMU_CLOCK_PAGE_OFFSET 0x400u

/*
 * Creates the device-wide clock page (once) and registers the engine
 * source that keeps it current; emu_dev.lock held.  0 or an errno.
 */
int emu_clock_init(void);
/* The memfd holding the clock page, -1 before emu_clock_init(). */
int emu_clock_page_fd(void);
/*
 * Reads the device clock (ticks since the CLOCK_MONOTONIC epoch), stores it
 * in the clock page and returns it; emu_dev.lock held.  Successive calls
 * never go backwards.
 */
uint64_t emu_clock_sample(void);

#endif
