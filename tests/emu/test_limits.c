// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Configured limits (run with --max-qp=16 --max-qp-wr=64 --max-sge=4
 * --max-inline=32 --device-id=0x1007 --ports=2): the device reports them
 * and refuses what exceeds them.
 */
#include "emu_test.h"

#include <errno.h>
#include <string.h>
#include "test_exit.h"

static void test_reported(void **state)
{
	struct emu_env e;

	(void)state;
	emu_env_open(&e, 1);
	assert_int_equal(e.dev_attr.max_qp, 16);
	assert_int_equal(e.dev_attr.max_qp_wr, 64);
	assert_int_equal(e.dev_attr.max_sge, 4);
	assert_int_equal(e.dev_attr.vendor_part_id, 0x1007);
	assert_int_equal(e.dev_attr.phys_port_cnt, 2);
	emu_env_close(&e);
}

static void test_refused(void **state)
{
	struct emu_env e;
	struct ibv_cq *cq;
	struct ibv_qp *qp[17];
	struct ibv_qp_init_attr ia, tmpl;

	(void)state;
	emu_env_open(&e, 2);
	cq = ibv_create_cq(e.ctx, 16, NULL, NULL, 0);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 64;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 4;
	ia.cap.max_inline_data = 32;
	/* libmlx4 writes the actual capabilities back: start afresh each time */
	tmpl = ia;
	for (int i = 0; i < 16; i++) {
		ia = tmpl;
		qp[i] = ibv_create_qp(e.pd, &ia);
		assert_non_null(qp[i]);
	}
	/* the 17th QP: no QPN left, ENOMEM as mlx4_qp_reserve_range */
	ia = tmpl;
	errno = 0;
	assert_null(ibv_create_qp(e.pd, &ia));
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(ibv_destroy_qp(qp[15]), 0);
	/* one more inline byte than the device takes */
	ia = tmpl;
	ia.cap.max_inline_data = 33;
	assert_null(ibv_create_qp(e.pd, &ia));
	ia = tmpl;
	qp[15] = ibv_create_qp(e.pd, &ia);
	assert_non_null(qp[15]);
	for (int i = 0; i < 16; i++)
		assert_int_equal(ibv_destroy_qp(qp[i]), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	emu_env_close(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reported),
		cmocka_unit_test(test_refused),
	};

	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
