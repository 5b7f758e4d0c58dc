/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Latency samples and their percentile report (nearest-rank method). */
#ifndef MLX4DV_EXAMPLE_LATENCY_H
#define MLX4DV_EXAMPLE_LATENCY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ex_latency {
	uint64_t	*samples_ns;
	size_t		count;
	size_t		capacity;
};

/* Monotonic clock in nanoseconds. */
uint64_t ex_now_ns(void);

/* 0, or -1 when the sample array cannot be allocated. */
int ex_latency_init(struct ex_latency *lat, size_t capacity);
void ex_latency_free(struct ex_latency *lat);

/* Samples beyond the capacity are dropped (the report says so). */
void ex_latency_add(struct ex_latency *lat, uint64_t ns);

/*
 * Nearest-rank percentile (0 < pct <= 100) of the samples, in ns; sorts
 * the samples. 0 when there are none.
 */
uint64_t ex_latency_percentile(struct ex_latency *lat, double pct);

/* Prints "label: N samples, p50 .. p90 .. p99 .. max .. (usec)". */
void ex_latency_report(struct ex_latency *lat, const char *label, FILE *out);

#endif /* MLX4DV_EXAMPLE_LATENCY_H */
