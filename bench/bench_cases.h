/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The measured cases. Each path implements one round function per case:
 * it prepares what the case needs without measuring, measures a loop of n
 * operations (n <= BENCH_ROUND, a multiple of the case's batch), lets the
 * device finish the work and checks the data and completions. A failed
 * check ends the program with exit status 1 (bench_fail()).
 *
 * Engine state: the posting and polling cases start a round with the
 * device engine paused and leave it paused; the full loops run with it
 * running.
 */
#ifndef MLX4DV_BENCH_CASES_H
#define MLX4DV_BENCH_CASES_H

#include "bench.h"
#include "bench_meter.h"

enum bench_case_id {
	BENCH_CASE_WRITE,		/* RDMA write, 1 SGE, + doorbell */
	BENCH_CASE_INLINE_SEND,		/* 32-byte inline send; direct: doorbell */
	BENCH_CASE_UD_SEND,		/* UD send, 1 SGE, + doorbell */
	BENCH_CASE_WRITE_BATCH,		/* 32 RDMA writes, one doorbell */
	BENCH_CASE_WRITE_BATCH_TMPL,	/* the same from a WQE template */
	BENCH_CASE_BLUEFLAME,		/* the same; direct: BlueFlame */
	BENCH_CASE_RECV,		/* one receive */
	BENCH_CASE_RECV_BATCH,		/* 32 receives, one record update */
	BENCH_CASE_RECV_BURST,		/* the same; direct: one burst write */
	BENCH_CASE_POLL_HIT,		/* poll one CQE that is there */
	BENCH_CASE_POLL_HIT_WC,		/* the same, decoded into an ibv_wc */
	BENCH_CASE_POLL_RECV,		/* poll one receive CQE that is there */
	BENCH_CASE_POLL_MISS,		/* poll an empty CQ */
	BENCH_CASE_POLL_BATCH,		/* poll 16 CQEs in one call */
	BENCH_CASE_POLL_BATCH_WC,	/* the same, decoded into ibv_wc */
	BENCH_CASE_POLL_BURST,		/* the same; direct: one burst poll */
	BENCH_CASE_LOOP_WRITE,		/* post write, device runs, poll */
	BENCH_CASE_LOOP_SEND_RECV,	/* post recv + send, device runs, poll both */
	BENCH_NCASES
};

typedef void bench_round_fn(struct bench_lane *l, struct bench_meter *m,
			    uint32_t n);

struct bench_case {
	const char *name;
	const char *what;
	uint32_t batch;		/* operations per call (WQEs, receives, CQEs) */
	bool engine_running;
	bool posts_sends;	/* measured work hands send WQEs to the device */
	bool direct_blueflame;	/* the direct path by BlueFlame (else doorbell) */
};

extern const struct bench_case bench_cases[BENCH_NCASES];

/* bench_verbs.c: prebuilt work requests of the verbs lane. */
void bench_verbs_prepare(struct bench_lane *l);
extern bench_round_fn *const bench_verbs_rounds[BENCH_NCASES];

/* bench_direct.c: queue handles are taken at bench_env_open(); this
 * builds the UD destination (it needs the verbs lane, see there). */
void bench_direct_prepare(struct bench_env *env);
extern bench_round_fn *const bench_direct_rounds[BENCH_NCASES];

/* A data or completion check failed: message, exit status 1. */
void bench_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* Engine runs until idle, then is paused again. */
void bench_device_run_paused(void);

#endif
