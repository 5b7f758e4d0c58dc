// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Raw layouts the header cannot drive are refused. A live device only
 * produces good layouts, so these are built by hand in the shape
 * mlx4dv_init_obj() reports and fed to the unit's layout checks.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/mlx4dv.h>

#include "internal.h"
#include "test_exit.h"

static uint8_t buffer[1 << 16];
static __be32 records[2];
static uint8_t uar[64];

/* A CQ of 256 CQEs of 32 bytes as libmlx4 reports it. */
static struct mlx4dv_cq good_cq(void)
{
	struct mlx4dv_cq cq;

	memset(&cq, 0, sizeof(cq));
	cq.buf.buf = buffer;
	cq.buf.length = 256 * 32;
	cq.cqe_cnt = 256;
	cq.cqe_size = 32;
	cq.set_ci_db = &records[0];
	cq.arm_db = &records[1];
	cq.comp_mask = MLX4DV_CQ_MASK_UAR;
	cq.cq_uar = uar;
	return cq;
}

/* An RC send queue of 64 WQEBBs of 64 bytes after a 1 KB receive queue. */
static struct mlx4dv_qp good_qp(void)
{
	struct mlx4dv_qp qp;

	memset(&qp, 0, sizeof(qp));
	qp.buf.buf = buffer;
	qp.buf.length = 1024 + 64 * 64;
	qp.sdb = (uint32_t *)(void *)(uar + MLX4_SEND_DOORBELL);
	qp.sq.wqe_cnt = 64;
	qp.sq.wqe_shift = 6;
	qp.sq.offset = 1024;
	qp.rq.wqe_cnt = 64;
	qp.rq.wqe_shift = 4;
	qp.rq.offset = 0;
	return qp;
}

static void cq_layouts(void **state)
{
	struct mlx4dv_cq cq;

	(void)state;
	cq = good_cq();
	assert_int_equal(mlx4dv_priv_cq_layout_check(&cq), 0);
	cq.cqe_size = 64;
	cq.buf.length = 256 * 64;
	assert_int_equal(mlx4dv_priv_cq_layout_check(&cq), 0);

	cq = good_cq();
	cq.cqe_size = 128;			/* no such CQE size */
	cq.buf.length = 256 * 128;
	assert_int_equal(mlx4dv_priv_cq_layout_check(&cq), ENOTSUP);
	cq = good_cq();
	cq.cqe_size = 16;
	assert_int_equal(mlx4dv_priv_cq_layout_check(&cq), ENOTSUP);
	cq = good_cq();
	cq.cqe_cnt = 200;			/* not a power of two */
	assert_int_equal(mlx4dv_priv_cq_layout_check(&cq), ENOTSUP);
	cq = good_cq();
	cq.cqe_cnt = 0;
	assert_int_equal(mlx4dv_priv_cq_layout_check(&cq), ENOTSUP);
	cq = good_cq();
	cq.buf.length = 256 * 32 - 1;		/* ring past the buffer */
	assert_int_equal(mlx4dv_priv_cq_layout_check(&cq), ENOTSUP);
	cq = good_cq();
	cq.comp_mask = 0;			/* UAR not reported */
	assert_int_equal(mlx4dv_priv_cq_layout_check(&cq), ENOTSUP);
	cq = good_cq();
	cq.arm_db = NULL;
	assert_int_equal(mlx4dv_priv_cq_layout_check(&cq), ENOTSUP);
}

static void sq_layouts(void **state)
{
	struct mlx4dv_qp qp;

	(void)state;
	qp = good_qp();
	assert_int_equal(mlx4dv_priv_sq_layout_check(&qp), 0);

	qp = good_qp();
	qp.sq.wqe_cnt = 0;			/* RSS QP: no send queue */
	assert_int_equal(mlx4dv_priv_sq_layout_check(&qp), ENOENT);
	qp = good_qp();
	qp.sq.wqe_cnt = 32;			/* 33 spare WQEBBs at 64 bytes */
	assert_int_equal(mlx4dv_priv_sq_layout_check(&qp), ENOENT);
	qp = good_qp();
	qp.sq.wqe_cnt = 48;			/* not a power of two */
	assert_int_equal(mlx4dv_priv_sq_layout_check(&qp), ENOTSUP);
	qp = good_qp();
	qp.sq.wqe_shift = 5;			/* stride below 64 bytes */
	assert_int_equal(mlx4dv_priv_sq_layout_check(&qp), ENOTSUP);
	qp = good_qp();
	qp.sq.wqe_shift = 12;			/* beyond 2 KB */
	qp.buf.length = sizeof(buffer);
	assert_int_equal(mlx4dv_priv_sq_layout_check(&qp), ENOTSUP);
	qp = good_qp();
	qp.sq.offset = 1025 + 0;		/* ring past the buffer end */
	assert_int_equal(mlx4dv_priv_sq_layout_check(&qp), ENOTSUP);
	qp = good_qp();
	qp.sq.offset = -64;
	assert_int_equal(mlx4dv_priv_sq_layout_check(&qp), ENOTSUP);
	qp = good_qp();
	qp.sdb = NULL;
	assert_int_equal(mlx4dv_priv_sq_layout_check(&qp), ENOTSUP);
}

/* The limits libmlx4 44.0 derives from a stride, worked out by hand. */
static void sq_limits_by_hand(void **state)
{
	(void)state;
	/* spare: 2 KB of prefetch in WQEBBs, plus one */
	assert_int_equal(mlx4dv_priv_sq_spare_wqes(6), 33);
	assert_int_equal(mlx4dv_priv_sq_spare_wqes(7), 17);
	assert_int_equal(mlx4dv_priv_sq_spare_wqes(9), 5);
	assert_int_equal(mlx4dv_priv_sq_spare_wqes(11), 2);
	/* RC 64 bytes: 64 - 16 ctrl - 16 raddr = 32 -> 2 SGEs, 28 inline */
	assert_int_equal(mlx4dv_priv_sq_max_gather(6, IBV_QPT_RC), 2);
	assert_int_equal(mlx4dv_priv_sq_max_inline(6, IBV_QPT_RC), 28);
	/* UD 128 bytes: 128 - 16 - 48 = 64 -> 4 SGEs, 60 inline */
	assert_int_equal(mlx4dv_priv_sq_max_gather(7, IBV_QPT_UD), 4);
	assert_int_equal(mlx4dv_priv_sq_max_inline(7, IBV_QPT_UD), 60);
	/* UD 64 bytes: nothing left for data */
	assert_int_equal(mlx4dv_priv_sq_max_gather(6, IBV_QPT_UD), 0);
	assert_int_equal(mlx4dv_priv_sq_max_inline(6, IBV_QPT_UD), 0);
	/* raw Ethernet 256 bytes: 240 -> 15 SGEs, 240 - 4 * 4 inline */
	assert_int_equal(mlx4dv_priv_sq_max_gather(8, IBV_QPT_RAW_PACKET), 15);
	assert_int_equal(mlx4dv_priv_sq_max_inline(8, IBV_QPT_RAW_PACKET), 224);
	/* XRC sends carry the remote-address segment like RC: libmlx4 says
	 * 2048 - 32 = 2016 bytes less 32 headers */
	assert_int_equal(mlx4dv_priv_sq_libmlx4_max_inline(11, IBV_QPT_XRC_SEND),
			 1888);
	assert_int_equal(mlx4dv_priv_sq_libmlx4_max_gather(11, IBV_QPT_RC), 126);
	assert_int_equal(mlx4dv_priv_sq_libmlx4_max_gather(10, IBV_QPT_RC), 62);
}

/*
 * What a 63-ds WQE holds, by hand. RC/UC/XRC: 61 units after ctrl and
 * raddr, the inline data starting 32 bytes into the first chunk: 28 bytes
 * there, 14 whole chunks of 60, and 44 in the last 48 bytes = 912. UD: 59
 * units after ctrl and datagram, starting on a chunk: 14 * 60 + 44 = 884.
 * Raw Ethernet: 62 units after ctrl: 44 in the first chunk, then 884.
 */
static void sq_limits_within_63_ds(void **state)
{
	(void)state;
	for (uint32_t shift = 10; shift <= 11; shift++) {
		assert_int_equal(mlx4dv_priv_sq_max_gather(shift, IBV_QPT_RC), 61);
		assert_int_equal(mlx4dv_priv_sq_max_inline(shift, IBV_QPT_RC), 912);
		assert_int_equal(mlx4dv_priv_sq_max_inline(shift, IBV_QPT_UC), 912);
		assert_int_equal(mlx4dv_priv_sq_max_inline(shift, IBV_QPT_XRC_SEND),
				 912);
		assert_int_equal(mlx4dv_priv_sq_max_gather(shift, IBV_QPT_UD), 59);
		assert_int_equal(mlx4dv_priv_sq_max_inline(shift, IBV_QPT_UD), 884);
		assert_int_equal(mlx4dv_priv_sq_max_gather(shift, IBV_QPT_RAW_PACKET),
				 62);
		assert_int_equal(mlx4dv_priv_sq_max_inline(shift, IBV_QPT_RAW_PACKET),
				 928);
	}
	/* 512 bytes fit whole: libmlx4's numbers stand (480 / 16, 480 - 32) */
	assert_int_equal(mlx4dv_priv_sq_max_gather(9, IBV_QPT_RC), 30);
	assert_int_equal(mlx4dv_priv_sq_max_inline(9, IBV_QPT_RC), 448);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cq_layouts),
		cmocka_unit_test(sq_layouts),
		cmocka_unit_test(sq_limits_by_hand),
		cmocka_unit_test(sq_limits_within_63_ds),
	};

	t_run_group_tests_name("unit_layout", tests, NULL, NULL);
	return t_exit();
}
