// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#define _GNU_SOURCE
#include "latency.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

uint64_t ex_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int ex_latency_init(struct ex_latency *lat, size_t capacity)
{
	lat->count = 0;
	lat->capacity = capacity;
	lat->samples_ns = calloc(capacity ? capacity : 1, sizeof(uint64_t));
	return lat->samples_ns ? 0 : -1;
}

void ex_latency_free(struct ex_latency *lat)
{
	free(lat->samples_ns);
	lat->samples_ns = NULL;
	lat->count = lat->capacity = 0;
}

void ex_latency_add(struct ex_latency *lat, uint64_t ns)
{
	if (lat->count < lat->capacity)
		lat->samples_ns[lat->count] = ns;
	lat->count++;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static size_t stored(const struct ex_latency *lat)
{
	return lat->count < lat->capacity ? lat->count : lat->capacity;
}

uint64_t ex_latency_percentile(struct ex_latency *lat, double pct)
{
	size_t n = stored(lat), rank;

	if (!n)
		return 0;
	qsort(lat->samples_ns, n, sizeof(uint64_t), cmp_u64);
	rank = (size_t)ceil(pct / 100.0 * (double)n);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return lat->samples_ns[rank - 1];
}

void ex_latency_report(struct ex_latency *lat, const char *label, FILE *out)
{
	size_t n = stored(lat);

	if (!n) {
		fprintf(out, "%s: no samples\n", label);
		return;
	}
	fprintf(out, "%s: %zu samples, usec: p50 %.2f  p90 %.2f  p99 %.2f  max %.2f\n",
		label, n,
		(double)ex_latency_percentile(lat, 50) / 1e3,
		(double)ex_latency_percentile(lat, 90) / 1e3,
		(double)ex_latency_percentile(lat, 99) / 1e3,
		(double)ex_latency_percentile(lat, 100) / 1e3);
	if (lat->count > n)
		fprintf(out, "%s: %zu samples beyond the first %zu not kept\n",
			label, lat->count - n, n);
}
