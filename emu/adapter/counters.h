/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The adapter's event counters (emu_dev.ctr) as read at one moment. */
#ifndef MLX4EMU_COUNTERS_H
#define MLX4EMU_COUNTERS_H

#include <stdint.h>

struct emu_counters {
	uint64_t wqes, cqes, error_cqes, comp_events, async_events;
	uint64_t strict_errors, bf_wqes, rnr_naks, packets, passes;
	uint64_t idle_runnable, idle_asleep;
};

/* Any thread, any lock state: each counter is read on its own. */
void emu_counters_read(struct emu_counters *out);

#endif
