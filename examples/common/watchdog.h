/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A stall detector for polling loops: a loop that sees no progress for
 * EX_STALL_TIMEOUT_NS reports what is missing and fails instead of
 * spinning forever on a lost completion.
 */
#ifndef MLX4DV_EXAMPLE_WATCHDOG_H
#define MLX4DV_EXAMPLE_WATCHDOG_H

#include <stdbool.h>
#include <stdint.h>

#include "latency.h"

#define EX_STALL_TIMEOUT_NS	(5ull * 1000000000ull)
#define EX_STALL_TIMEOUT_MS	5000

struct ex_watchdog {
	uint64_t	progress_mark;	/* the caller's progress counter */
	uint64_t	last_change_ns;
};

static inline void ex_watchdog_start(struct ex_watchdog *w, uint64_t progress)
{
	w->progress_mark = progress;
	w->last_change_ns = ex_now_ns();
}

/* Feed the current value of a counter that grows with progress; true once
 * it has not changed for EX_STALL_TIMEOUT_NS. */
static inline bool ex_watchdog_stalled(struct ex_watchdog *w, uint64_t progress)
{
	if (progress != w->progress_mark) {
		ex_watchdog_start(w, progress);
		return false;
	}
	return ex_now_ns() - w->last_change_ns > EX_STALL_TIMEOUT_NS;
}

#endif /* MLX4DV_EXAMPLE_WATCHDOG_H */
