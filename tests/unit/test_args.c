// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Refusals that need no device: NULL arguments and unknown flags give
 * EINVAL and leave the output handle byte for byte as it was; release
 * functions accept NULL and released handles.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/mlx4dv.h>
#include "test_exit.h"

#define POISON 0xa5

/* Objects that are never dereferenced: argument checks come first. A
 * dereference would read this unmapped-looking address and crash. */
#define NEVER_TOUCHED(type) ((type *)(uintptr_t)0x10)

static void sq_ring_refusals(void **state)
{
	struct mlx4dv_sq_ring sq, ref;

	(void)state;
	memset(&sq, POISON, sizeof(sq));
	memcpy(&ref, &sq, sizeof(sq));
	assert_int_equal(mlx4dv_sq_ring_init(NULL, NEVER_TOUCHED(struct ibv_qp), 0), EINVAL);
	assert_int_equal(mlx4dv_sq_ring_init(&sq, NULL, 0), EINVAL);
	assert_int_equal(mlx4dv_sq_ring_init(&sq, NEVER_TOUCHED(struct ibv_qp), 1u << 7), EINVAL);
	assert_memory_equal(&sq, &ref, sizeof(sq));
}

static void rq_ring_refusals(void **state)
{
	struct mlx4dv_rq_ring rq, ref;

	(void)state;
	memset(&rq, POISON, sizeof(rq));
	memcpy(&ref, &rq, sizeof(rq));
	assert_int_equal(mlx4dv_rq_ring_init(NULL, NEVER_TOUCHED(struct ibv_qp), 0), EINVAL);
	assert_int_equal(mlx4dv_rq_ring_init(&rq, NULL, 0), EINVAL);
	/* BlueFlame is a send-queue feature. */
	assert_int_equal(mlx4dv_rq_ring_init(&rq, NEVER_TOUCHED(struct ibv_qp),
					     MLX4DV_RING_INIT_BLUEFLAME), EINVAL);
	assert_int_equal(mlx4dv_wq_ring_init(NULL, NEVER_TOUCHED(struct ibv_wq), 0), EINVAL);
	assert_int_equal(mlx4dv_wq_ring_init(&rq, NULL, 0), EINVAL);
	assert_int_equal(mlx4dv_wq_ring_init(&rq, NEVER_TOUCHED(struct ibv_wq),
					     MLX4DV_RING_INIT_BLUEFLAME), EINVAL);
	assert_memory_equal(&rq, &ref, sizeof(rq));
}

static void srq_ring_refusals(void **state)
{
	struct mlx4dv_srq_ring srq, ref;

	(void)state;
	memset(&srq, POISON, sizeof(srq));
	memcpy(&ref, &srq, sizeof(srq));
	assert_int_equal(mlx4dv_srq_ring_init(NULL, NEVER_TOUCHED(struct ibv_srq), 0), EINVAL);
	assert_int_equal(mlx4dv_srq_ring_init(&srq, NULL, 0), EINVAL);
	assert_int_equal(mlx4dv_srq_ring_init(&srq, NEVER_TOUCHED(struct ibv_srq),
					      MLX4DV_RING_INIT_BLUEFLAME), EINVAL);
	assert_memory_equal(&srq, &ref, sizeof(srq));
}

static void cq_ring_refusals(void **state)
{
	struct mlx4dv_cq_ring cq, ref;

	(void)state;
	memset(&cq, POISON, sizeof(cq));
	memcpy(&ref, &cq, sizeof(cq));
	assert_int_equal(mlx4dv_cq_ring_init(NULL, NEVER_TOUCHED(struct ibv_cq), 0), EINVAL);
	assert_int_equal(mlx4dv_cq_ring_init(&cq, NULL, 0), EINVAL);
	assert_int_equal(mlx4dv_cq_ring_init(&cq, NEVER_TOUCHED(struct ibv_cq),
					     MLX4DV_RING_INIT_WRID), EINVAL);
	assert_memory_equal(&cq, &ref, sizeof(cq));
}

static void qp_rings_refusals(void **state)
{
	struct mlx4dv_qp_rings rings, ref;

	(void)state;
	memset(&rings, POISON, sizeof(rings));
	memcpy(&ref, &rings, sizeof(rings));
	assert_int_equal(mlx4dv_qp_rings_init(NULL, NEVER_TOUCHED(struct ibv_qp), 0), EINVAL);
	assert_int_equal(mlx4dv_qp_rings_init(&rings, NULL, 0), EINVAL);
	assert_int_equal(mlx4dv_qp_rings_init(&rings, NEVER_TOUCHED(struct ibv_qp), 1u << 9),
			 EINVAL);
	assert_memory_equal(&rings, &ref, sizeof(rings));
}

static void blueflame_layout_refusals(void **state)
{
	(void)state;
	assert_int_equal(mlx4dv_set_blueflame_layout(NULL, 512, 8), EINVAL);
	/* Bad geometry is refused before the context is looked at. */
	assert_int_equal(mlx4dv_set_blueflame_layout(NEVER_TOUCHED(struct ibv_context),
						     500, 8), EINVAL);
	assert_int_equal(mlx4dv_set_blueflame_layout(NEVER_TOUCHED(struct ibv_context),
						     512, 1), EINVAL);
	assert_int_equal(mlx4dv_set_blueflame_layout(NEVER_TOUCHED(struct ibv_context),
						     32, 8), EINVAL);
	assert_int_equal(mlx4dv_set_blueflame_layout(NEVER_TOUCHED(struct ibv_context),
						     512, 6), EINVAL);
}

static void release_accepts_null_and_repeats(void **state)
{
	struct mlx4dv_sq_ring sq;
	struct mlx4dv_rq_ring rq;
	struct mlx4dv_srq_ring srq;
	struct mlx4dv_cq_ring cq;
	struct mlx4dv_qp_rings rings;

	(void)state;
	mlx4dv_sq_ring_release(NULL);
	mlx4dv_rq_ring_release(NULL);
	mlx4dv_srq_ring_release(NULL);
	mlx4dv_cq_ring_release(NULL);
	mlx4dv_qp_rings_release(NULL);

	memset(&sq, 0, sizeof(sq));
	memset(&rq, 0, sizeof(rq));
	memset(&srq, 0, sizeof(srq));
	memset(&cq, 0, sizeof(cq));
	memset(&rings, 0, sizeof(rings));
	for (int i = 0; i < 2; i++) {
		mlx4dv_sq_ring_release(&sq);
		mlx4dv_rq_ring_release(&rq);
		mlx4dv_srq_ring_release(&srq);
		mlx4dv_cq_ring_release(&cq);
		mlx4dv_qp_rings_release(&rings);
	}
	assert_null(sq.wrid);
	assert_null(sq.bf_reg);
	assert_null(rq.wrid);
	assert_null(srq.wrid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sq_ring_refusals),
		cmocka_unit_test(rq_ring_refusals),
		cmocka_unit_test(srq_ring_refusals),
		cmocka_unit_test(cq_ring_refusals),
		cmocka_unit_test(qp_rings_refusals),
		cmocka_unit_test(blueflame_layout_refusals),
		cmocka_unit_test(release_accepts_null_and_repeats),
	};

	t_run_group_tests_name("unit_args", tests, NULL, NULL);
	return t_exit();
}
