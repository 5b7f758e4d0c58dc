/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The two measures of a measured loop.
 *
 * Time: CLOCK_MONOTONIC read just outside the loop; only the loops are
 * summed, never the ring recycling between them.
 *
 * Instructions: under valgrind --tool=callgrind --instr-atstart=no the
 * loop is the only instrumented code of the application thread
 * (CALLGRIND_START/STOP_INSTRUMENTATION around it); the harness dumps
 * the counts once per case and path (CALLGRIND_DUMP_STATS_AT). Inside a
 * loop, bench_meter_exclude_begin/end() stop collection of the calling
 * thread only, e.g. while a full loop waits for the device, so the
 * device engine thread's work stays in its own per-thread count.
 * Outside valgrind the client requests are a few no-op instructions.
 */
#ifndef MLX4DV_BENCH_METER_H
#define MLX4DV_BENCH_METER_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#ifdef MLX4DV_BENCH_HAVE_CALLGRIND
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION do { } while (0)
#define CALLGRIND_STOP_INSTRUMENTATION do { } while (0)
#define CALLGRIND_TOGGLE_COLLECT do { } while (0)
#define CALLGRIND_ZERO_STATS do { } while (0)
#define CALLGRIND_DUMP_STATS_AT(name) do { (void)(name); } while (0)
#define RUNNING_ON_VALGRIND 0
#endif

struct bench_meter {
	bool instructions;	/* running under callgrind */
	bool warm_up;		/* not measured: instrumentation stays off */
	uint64_t ns;		/* summed over the measured loops */
	uint64_t ops;		/* operations in those loops */
	uint64_t empty_polls;	/* full loops: polls that found nothing */
	struct timespec t0;
};

static inline uint64_t bench_ns_between(const struct timespec *a,
					const struct timespec *b)
{
	return (uint64_t)(b->tv_sec - a->tv_sec) * 1000000000u +
	       (uint64_t)b->tv_nsec - (uint64_t)a->tv_nsec;
}

static inline void bench_meter_start(struct bench_meter *m)
{
	clock_gettime(CLOCK_MONOTONIC, &m->t0);
	if (!m->warm_up)
		CALLGRIND_START_INSTRUMENTATION;
}

static inline void bench_meter_stop(struct bench_meter *m, uint64_t ops)
{
	struct timespec t1;

	if (!m->warm_up)
		CALLGRIND_STOP_INSTRUMENTATION;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	m->ns += bench_ns_between(&m->t0, &t1);
	m->ops += ops;
}

/*
 * Callgrind charges a client request to the thread it last saw running,
 * and with instrumentation off it notices thread switches only now and
 * then; a dump or a reset issued right after the engine thread ran would
 * go to that thread. With instrumentation on, the first block after the
 * request that starts it tells callgrind which thread runs, so the reset
 * and the dump are done inside a short instrumented stretch (a few
 * instructions of it land in the count, against thousands of operations).
 */
static inline void bench_callgrind_zero(void)
{
	CALLGRIND_START_INSTRUMENTATION;
	CALLGRIND_ZERO_STATS;
	CALLGRIND_STOP_INSTRUMENTATION;
}

static inline void bench_callgrind_dump(const char *name)
{
	CALLGRIND_START_INSTRUMENTATION;
	CALLGRIND_DUMP_STATS_AT(name);
	CALLGRIND_STOP_INSTRUMENTATION;
}

static inline void bench_meter_exclude_begin(void)
{
	CALLGRIND_TOGGLE_COLLECT;
}

static inline void bench_meter_exclude_end(void)
{
	CALLGRIND_TOGGLE_COLLECT;
}

#endif
