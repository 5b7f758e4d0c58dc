// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Create, convert, release, destroy, many times over: every wrid table
 * and BlueFlame mapping the unit takes is given back (checked by the
 * /proc/self/maps line count here, and by valgrind memcheck in the ctest
 * that runs this program under it).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit_device.h"
#include "test_exit.h"

enum { ROUNDS = 12 };

static void one_round(struct unit_dev *d)
{
	struct ibv_qp_cap cap = { .max_send_wr = 32, .max_recv_wr = 32,
				  .max_send_sge = 2, .max_recv_sge = 2,
				  .max_inline_data = 64 };
	struct ibv_srq_init_attr sa;
	struct mlx4dv_qp_rings rings, on_srq;
	struct mlx4dv_srq_ring srq_ring;
	struct ibv_cq *scq, *rcq;
	struct ibv_srq *srq;
	struct ibv_qp *qp, *qp2;

	scq = ibv_create_cq(d->ctx, 63, NULL, NULL, 0);
	rcq = ibv_create_cq(d->ctx, 63, NULL, NULL, 0);
	assert_non_null(scq);
	assert_non_null(rcq);
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 64;
	sa.attr.max_sge = 2;
	srq = ibv_create_srq(d->pd, &sa);
	assert_non_null(srq);
	qp = unit_qp_create(d, IBV_QPT_RC, scq, rcq, NULL, &cap);
	qp2 = unit_qp_create(d, IBV_QPT_UD, scq, rcq, srq, &cap);
	assert_non_null(qp);
	assert_non_null(qp2);

	assert_int_equal(mlx4dv_qp_rings_init(&rings, qp, MLX4DV_RING_INIT_WRID |
					      MLX4DV_RING_INIT_BLUEFLAME), 0);
	assert_int_equal(mlx4dv_qp_rings_init(&on_srq, qp2, MLX4DV_RING_INIT_WRID |
					      MLX4DV_RING_INIT_BLUEFLAME), 0);
	assert_int_equal(mlx4dv_srq_ring_init(&srq_ring, srq, MLX4DV_RING_INIT_WRID), 0);
	assert_non_null(rings.sq.wrid);
	assert_non_null(rings.rq.wrid);
	assert_non_null(srq_ring.wrid);

	mlx4dv_srq_ring_release(&srq_ring);
	mlx4dv_qp_rings_release(&on_srq);
	mlx4dv_qp_rings_release(&rings);
	assert_int_equal(ibv_destroy_qp(qp2), 0);
	assert_int_equal(ibv_destroy_qp(qp), 0);
	assert_int_equal(ibv_destroy_srq(srq), 0);
	assert_int_equal(ibv_destroy_cq(scq), 0);
	assert_int_equal(ibv_destroy_cq(rcq), 0);
}

static void cycles_leave_nothing_behind(void **state)
{
	struct unit_dev *d = unit_dev_open();
	int maps;

	(void)state;
	assert_non_null(d);
	/* a first round settles libibverbs' and libmlx4's own caches */
	one_round(d);
	maps = unit_maps_count();
	for (int i = 0; i < ROUNDS; i++) {
		one_round(d);
		assert_int_equal(unit_maps_count(), maps);
	}
	unit_dev_close(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cycles_leave_nothing_behind),
	};

	t_run_group_tests_name("unit_lifecycle", tests, NULL, NULL);
	return t_exit();
}
