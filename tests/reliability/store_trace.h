/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Observing the order of the stores a function makes into a memory region.
 *
 * The region (page-aligned, whole pages) is made read-only; every store
 * instruction into it faults, the fault handler records the faulting
 * address, opens the region and single-steps that one instruction (x86
 * trap flag), and the trap handler closes the region again. The result is
 * the exact program order of the stores, which on x86-64 (TSO) is also the
 * order in which the device could observe them.
 */
#ifndef RELIABILITY_STORE_TRACE_H
#define RELIABILITY_STORE_TRACE_H

#include <stddef.h>
#include <stdint.h>

#define STORE_TRACE_MAX 8192

struct store_trace {
	size_t n;			/* stores recorded */
	int overflow;			/* more than STORE_TRACE_MAX */
	uint32_t off[STORE_TRACE_MAX];	/* byte offset of each store's first byte */
};

/* 1 when this architecture supports tracing (x86-64). */
int store_trace_supported(void);

/* Start recording stores into [region, region + len) (page-aligned). */
int store_trace_begin(void *region, size_t len, struct store_trace *t);

/* Stop recording; the region is writable again. */
void store_trace_end(void);

/* Index of the last recorded store whose first byte is in [lo, hi), or -1. */
long store_trace_last_in(const struct store_trace *t, uint32_t lo, uint32_t hi);

/* Index of the first recorded store whose first byte is in [lo, hi), or -1. */
long store_trace_first_in(const struct store_trace *t, uint32_t lo, uint32_t hi);

#endif
