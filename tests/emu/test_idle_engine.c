// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The engine's idle policy in the device, by its counters: a program that
 * rings a doorbell, reaps the CQE and then sleeps for longer than the
 * engine's yield window (5 ms, emu/adapter/idle.h) gives it only slow
 * idle spells, so after the first few it blocks at once rather than
 * spinning and yielding, and every doorbell (each one a kick of a
 * sleeping engine) is still executed.  Counts only: a 6 ms pause is at
 * least 6 ms on any machine, however loaded.
 */
#include "emu_test.h"

#include <time.h>
#include "test_exit.h"

#define ACC (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE)
#define ROUNDS 40
#define PAUSE_NS 6000000L

static void write_once(struct emu_qp *a, struct emu_qp *b, uint64_t wr_id)
{
	struct ibv_sge s = { (uintptr_t)a->buf, 8, a->mr->lkey };
	struct ibv_send_wr w = { .wr_id = wr_id, .sg_list = &s, .num_sge = 1,
				 .opcode = IBV_WR_RDMA_WRITE,
				 .send_flags = IBV_SEND_SIGNALED };
	struct ibv_wc wc;

	w.wr.rdma.remote_addr = (uintptr_t)b->buf;
	w.wr.rdma.rkey = b->mr->rkey;
	assert_int_equal(emu_post_send(a->qp, &w), 0);
	wc = emu_poll_one(a->scq, IBV_WC_SUCCESS);
	assert_int_equal(wc.wr_id, wr_id);
}

static void test_slow_program_sleeps(void **state)
{
	const struct timespec pause = { 0, PAUSE_NS };
	struct mlx4emu_counters before, after;
	struct emu_env e;
	struct emu_qp a, b;
	uint64_t runnable, asleep;

	(void)state;
	emu_env_open(&e, 1);
	emu_qp_create(&e, &a, IBV_QPT_RC, 8, 8, 16, 4096, NULL);
	emu_qp_create(&e, &b, IBV_QPT_RC, 8, 8, 16, 4096, NULL);
	emu_qp_to_rts(&e, a.qp, b.qp->qp_num, ACC);
	emu_qp_to_rts(&e, b.qp, a.qp->qp_num, ACC);
	assert_int_equal(e.ctl.get_counters(&before), 0);
	for (uint64_t i = 0; i < ROUNDS; i++) {
		emu_fill(a.buf, 8, (unsigned)i);
		write_once(&a, &b, i);
		assert_memory_equal(a.buf, b.buf, 8);
		nanosleep(&pause, NULL);
	}
	assert_int_equal(e.ctl.get_counters(&after), 0);
	runnable = after.engine_idle_runnable - before.engine_idle_runnable;
	asleep = after.engine_idle_asleep - before.engine_idle_asleep;
	print_message("idle spells over %d paused doorbells: %llu runnable, %llu asleep\n",
		      ROUNDS, (unsigned long long)runnable, (unsigned long long)asleep);
	assert_int_equal(after.wqes_executed - before.wqes_executed, ROUNDS);
	/* each pause ends a slow spell; a spell may also end quickly inside
	 * a round (the CQE pass after the WQE's), which leaves two quick of
	 * four at most: blocked from the third round on */
	assert_true(asleep >= ROUNDS - 2);
	assert_true(runnable <= asleep / 4 + 2);
	emu_qp_destroy(&a);
	emu_qp_destroy(&b);
	emu_env_close(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slow_program_sleeps),
	};

	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
