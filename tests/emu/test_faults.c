// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Fault injection through the control API and through the launcher
 * (MLX4EMU_FAULT_* environment): an error CQE of a chosen syndrome on the
 * Nth WQE, a QP forced to the error state after N WQEs, a CQ overrun.
 * When MLX4EMU_FAULT_CQE is set this program checks that fault instead.
 */
#include "emu_test.h"

#include <poll.h>
#include <stdio.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <infiniband/mlx4dv.h>
#include "test_exit.h"
#pragma GCC diagnostic pop

#define ACC (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE)

static void expect(struct emu_pair *p, int n, int bad, enum ibv_wc_status st,
		   uint32_t vendor)
{
	struct ibv_wc wc[16];

	assert_int_equal(emu_poll(p->a.scq, wc, n), n);
	for (int i = 0; i < n; i++) {
		assert_int_equal(wc[i].wr_id, 1 + (uint64_t)i);
		if (i + 1 < bad)
			assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
		else if (i + 1 == bad) {
			assert_int_equal(wc[i].status, st);
			if (vendor)
				assert_int_equal(wc[i].vendor_err, vendor);
		} else
			assert_int_equal(wc[i].status, IBV_WC_WR_FLUSH_ERR);
	}
}

static void test_error_cqe(void **state)
{
	struct emu_pair p;
	struct mlx4emu_fault f = { .type = MLX4EMU_FAULT_ERROR_CQE, .count = 3,
				   .syndrome = 0x04 };

	(void)state;
	emu_pair_open(&p, 16, 16, 64, 4096, ACC);
	f.qpn = p.a.qp->qp_num;
	assert_int_equal(p.e.ctl.set_fault(&f), 0);
	emu_pair_post_writes(&p, 1, 6);
	expect(&p, 6, 3, IBV_WC_LOC_PROT_ERR, 0xfe);
	emu_pair_close(&p);
}

static void test_qp_error_after(void **state)
{
	struct emu_pair p;
	struct mlx4emu_fault f = { .type = MLX4EMU_FAULT_QP_ERROR, .count = 2 };

	(void)state;
	emu_pair_open(&p, 16, 16, 64, 4096, ACC);
	f.qpn = p.a.qp->qp_num;
	assert_int_equal(p.e.ctl.set_fault(&f), 0);
	emu_pair_post_writes(&p, 1, 5);
	/* two complete, the third and later are flushed */
	expect(&p, 5, 3, IBV_WC_WR_FLUSH_ERR, 0);
	emu_pair_close(&p);
}

static void test_cq_overrun(void **state)
{
	struct emu_pair p;
	struct mlx4emu_fault f = { .type = MLX4EMU_FAULT_CQ_OVERRUN, .count = 2 };
	struct mlx4dv_cq dcq = { 0 };
	struct mlx4dv_obj obj;
	struct ibv_async_event ev;
	struct pollfd pfd;

	(void)state;
	emu_pair_open(&p, 16, 16, 64, 4096, ACC);
	memset(&obj, 0, sizeof(obj));
	obj.cq.in = p.a.scq;
	obj.cq.out = &dcq;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_CQ), 0);
	f.cqn = dcq.cqn;
	assert_int_equal(p.e.ctl.set_fault(&f), 0);
	emu_pair_post_writes(&p, 1, 3);
	pfd.fd = p.e.ctx->async_fd;
	pfd.events = POLLIN;
	assert_int_equal(poll(&pfd, 1, 5000), 1);
	assert_int_equal(ibv_get_async_event(p.e.ctx, &ev), 0);
	assert_int_equal(ev.event_type, IBV_EVENT_CQ_ERR);
	assert_ptr_equal(ev.element.cq, p.a.scq);
	ibv_ack_async_event(&ev);
	/* the CQE before the overrun is there, nothing after it */
	emu_poll_one(p.a.scq, IBV_WC_SUCCESS);
	emu_assert_cq_empty(&p.e, p.a.scq);
	emu_pair_close(&p);
}

static void test_bad_fault_rejected(void **state)
{
	struct emu_pair p;
	struct mlx4emu_fault f = { .type = 99, .count = 1 };

	(void)state;
	emu_pair_open(&p, 16, 16, 64, 4096, ACC);
	assert_int_equal(p.e.ctl.set_fault(&f), EINVAL);
	f.type = MLX4EMU_FAULT_ERROR_CQE;
	f.count = 0;
	assert_int_equal(p.e.ctl.set_fault(&f), EINVAL);
	assert_int_equal(p.e.ctl.clear_faults(), 0);
	emu_pair_close(&p);
}

/* Run with --fault-cqe=2:0x13: the first QP created fails its 2nd WQE. */
static void test_env_fault(void **state)
{
	struct emu_pair p;

	(void)state;
	emu_pair_open(&p, 16, 16, 64, 4096, ACC);
	emu_pair_post_writes(&p, 1, 4);
	expect(&p, 4, 2, IBV_WC_REM_ACCESS_ERR, 0xfe);
	emu_pair_close(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_cqe),
		cmocka_unit_test(test_qp_error_after),
		cmocka_unit_test(test_cq_overrun),
		cmocka_unit_test(test_bad_fault_rejected),
	};
	const struct CMUnitTest env_tests[] = {
		cmocka_unit_test(test_env_fault),
	};

	if (getenv("MLX4EMU_FAULT_CQE"))
		t_run_group_tests(env_tests, NULL, NULL);
	else
		t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
