// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * What handles hold (wrid tables, BlueFlame registers) belongs to the
 * queue and is given back once: a stale copy of a released handle cannot
 * give away the register another live handle now uses, a second init of
 * a queue leaks nothing, a second release frees nothing. Leaks are
 * counted by the valgrind run of this test; register sharing is observed
 * directly (two live handles on one register). On the software device.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit_device.h"
#include "test_exit.h"

enum { NQP = 4 };

struct fixture {
	struct unit_dev	*dev;
	struct ibv_cq	*cq;
	struct ibv_srq	*srq;
	struct ibv_qp	*qp[NQP];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct ibv_qp_cap cap = {
		.max_send_wr = 16, .max_recv_wr = 4,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 15, .max_sge = 1 } };

	if (!f)
		return -1;
	f->dev = unit_dev_open();
	if (!f->dev)
		return -1;
	f->cq = ibv_create_cq(f->dev->ctx, 63, NULL, NULL, 0);
	f->srq = ibv_create_srq(f->dev->pd, &sattr);
	if (!f->cq || !f->srq)
		return -1;
	for (int i = 0; i < NQP; i++) {
		f->qp[i] = unit_qp_create(f->dev, IBV_QPT_RC, f->cq, f->cq,
					  NULL, &cap);
		if (!f->qp[i])
			return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	for (int i = 0; i < NQP; i++)
		ibv_destroy_qp(f->qp[i]);
	ibv_destroy_srq(f->srq);
	ibv_destroy_cq(f->cq);
	unit_dev_close(f->dev);
	free(f);
	return 0;
}

static const uint32_t both = MLX4DV_RING_INIT_WRID | MLX4DV_RING_INIT_BLUEFLAME;

/* The sequence: A holds a register, a copy of A outlives A's
 * release, B gets the register, the copy is released; C must not get B's
 * register. */
static void stale_copy_keeps_hands_off(void **state)
{
	struct fixture *f = *state;
	struct mlx4dv_sq_ring a, copy, b, c;

	assert_int_equal(mlx4dv_sq_ring_init(&a, f->qp[0], both), 0);
	if (!(a.flags & MLX4DV_SQ_RING_BLUEFLAME)) {
		mlx4dv_sq_ring_release(&a);
		t_skip_case("the QP has no BlueFlame register");
	}
	copy = a;
	mlx4dv_sq_ring_release(&a);
	assert_int_equal(mlx4dv_sq_ring_init(&b, f->qp[1], both), 0);
	assert_ptr_equal(b.bf_reg, copy.bf_reg);	/* handed out again */
	mlx4dv_sq_ring_release(&copy);			/* stale: nothing */
	assert_null(copy.bf_reg);
	assert_int_equal(mlx4dv_sq_ring_init(&c, f->qp[2], both), 0);
	assert_true(c.flags & MLX4DV_SQ_RING_BLUEFLAME);
	assert_ptr_not_equal(c.bf_reg, b.bf_reg);
	/* The same with the queue initialised again in between. */
	copy = b;
	mlx4dv_sq_ring_release(&b);
	assert_int_equal(mlx4dv_sq_ring_init(&b, f->qp[1], both), 0);
	mlx4dv_sq_ring_release(&copy);
	assert_int_equal(mlx4dv_sq_ring_init(&a, f->qp[0], both), 0);
	assert_ptr_not_equal(a.bf_reg, b.bf_reg);
	assert_ptr_not_equal(a.bf_reg, c.bf_reg);
	mlx4dv_sq_ring_release(&a);
	mlx4dv_sq_ring_release(&b);
	mlx4dv_sq_ring_release(&c);
}

/* A second init of a queue hands out what the first got: same register,
 * same (zeroed) table; a copy of the first keeps working. */
static void second_init_reuses(void **state)
{
	struct fixture *f = *state;
	struct mlx4dv_sq_ring a, again, other;
	struct mlx4dv_rq_ring r1, r2;
	struct mlx4dv_srq_ring s1, s2;

	assert_int_equal(mlx4dv_sq_ring_init(&a, f->qp[0], both), 0);
	a.wrid[3] = 0xabc;
	again = a;
	assert_int_equal(mlx4dv_sq_ring_init(&again, f->qp[0], both), 0);
	assert_ptr_equal(again.wrid, a.wrid);
	assert_int_equal(a.wrid[3], 0);
	assert_ptr_equal(again.bf_reg, a.bf_reg);
	assert_int_equal(again.flags, a.flags);
	/* no register went missing: the next queue gets a different one */
	assert_int_equal(mlx4dv_sq_ring_init(&other, f->qp[1], both), 0);
	if (a.bf_reg)
		assert_ptr_not_equal(other.bf_reg, a.bf_reg);
	mlx4dv_sq_ring_release(&again);
	mlx4dv_sq_ring_release(&a);		/* the grant is gone: nothing */
	mlx4dv_sq_ring_release(&other);

	assert_int_equal(mlx4dv_rq_ring_init(&r1, f->qp[2], MLX4DV_RING_INIT_WRID), 0);
	assert_int_equal(mlx4dv_rq_ring_init(&r2, f->qp[2], MLX4DV_RING_INIT_WRID), 0);
	assert_ptr_equal(r1.wrid, r2.wrid);
	mlx4dv_rq_ring_release(&r1);
	mlx4dv_rq_ring_release(&r2);
	assert_int_equal(mlx4dv_srq_ring_init(&s1, f->srq, MLX4DV_RING_INIT_WRID), 0);
	assert_int_equal(mlx4dv_srq_ring_init(&s2, f->srq, MLX4DV_RING_INIT_WRID), 0);
	assert_ptr_equal(s1.wrid, s2.wrid);
	mlx4dv_srq_ring_release(&s1);
	mlx4dv_srq_ring_release(&s2);
}

/* Releasing twice, or through a copy after the release, frees once (a
 * double free would abort under the sanitizers and valgrind). */
static void release_is_once(void **state)
{
	struct fixture *f = *state;
	struct mlx4dv_sq_ring a, copy;
	struct mlx4dv_rq_ring r, rcopy;
	struct mlx4dv_srq_ring s, scopy;

	assert_int_equal(mlx4dv_sq_ring_init(&a, f->qp[3], both), 0);
	copy = a;
	mlx4dv_sq_ring_release(&a);
	mlx4dv_sq_ring_release(&a);
	mlx4dv_sq_ring_release(&copy);
	assert_int_equal(a.flags & MLX4DV_SQ_RING_GRANT_MASK, 0);

	assert_int_equal(mlx4dv_rq_ring_init(&r, f->qp[3], MLX4DV_RING_INIT_WRID), 0);
	rcopy = r;
	mlx4dv_rq_ring_release(&r);
	mlx4dv_rq_ring_release(&rcopy);
	assert_int_equal(mlx4dv_srq_ring_init(&s, f->srq, MLX4DV_RING_INIT_WRID), 0);
	scopy = s;
	mlx4dv_srq_ring_release(&s);
	mlx4dv_srq_ring_release(&scopy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stale_copy_keeps_hands_off),
		cmocka_unit_test(second_init_reuses),
		cmocka_unit_test(release_is_once),
	};

	t_run_group_tests_name("unit_grants", tests, setup, teardown);
	return t_exit();
}
