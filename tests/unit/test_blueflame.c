// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * BlueFlame registers: one mapping per context shared by its handles,
 * a register of its own per handle and never libmlx4's register 0,
 * fallback to plain doorbells when none is left or the device has no
 * BlueFlame, and no mapping left behind after the last release.
 *
 * Run by ctest with the software device in three set-ups: default
 * (BlueFlame, 512-byte registers), without BlueFlame (EXPECT_NO_BF=1),
 * and with MLX4DV_BF_REG_SIZE=0 (EXPECT_NO_BF=1 as well).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "unit_device.h"
#include "test_exit.h"

enum { NQP = 9 };

struct fixture {
	struct unit_dev	*dev;
	struct ibv_cq	*cq;
	struct ibv_qp	*qp[NQP];
	bool		expect_bf;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct ibv_qp_cap cap = {
		.max_send_wr = 16, .max_recv_wr = 4,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	const char *no_bf = getenv("EXPECT_NO_BF");

	if (!f)
		return -1;
	f->dev = unit_dev_open();
	if (!f->dev)
		return -1;
	f->cq = ibv_create_cq(f->dev->ctx, 63, NULL, NULL, 0);
	if (!f->cq)
		return -1;
	for (int i = 0; i < NQP; i++) {
		f->qp[i] = unit_qp_create(f->dev, IBV_QPT_RC, f->cq, f->cq,
					  NULL, &cap);
		if (!f->qp[i])
			return -1;
	}
	f->expect_bf = !(no_bf && !strcmp(no_bf, "1"));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	for (int i = 0; i < NQP; i++)
		ibv_destroy_qp(f->qp[i]);
	ibv_destroy_cq(f->cq);
	unit_dev_close(f->dev);
	free(f);
	return 0;
}

static void registers_are_private_and_fall_back(void **state)
{
	struct fixture *f = *state;
	struct mlx4dv_sq_ring sq[NQP];
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int maps_before = unit_maps_count();
	uint8_t *page_base = NULL;
	int with_bf = 0;

	for (int i = 0; i < NQP; i++) {
		assert_int_equal(mlx4dv_sq_ring_init(&sq[i], f->qp[i],
						     MLX4DV_RING_INIT_BLUEFLAME), 0);
		if (!f->expect_bf) {
			assert_int_equal(sq[i].flags, MLX4DV_SQ_RING_BLUEFLAME_FALLBACK);
			assert_null(sq[i].bf_reg);
			continue;
		}
		if (sq[i].flags & MLX4DV_SQ_RING_BLUEFLAME) {
			uintptr_t off;

			with_bf++;
			assert_int_equal(sq[i].flags & ~MLX4DV_SQ_RING_GRANT_MASK,
					 MLX4DV_SQ_RING_BLUEFLAME);
			assert_int_equal(sq[i].bf_buf_size, 256);
			assert_int_equal(sq[i].bf_offset, 0);
			if (!page_base)
				page_base = (uint8_t *)((uintptr_t)sq[i].bf_reg & ~(uintptr_t)(page - 1));
			/* one page for every handle of the context */
			assert_ptr_equal((uint8_t *)((uintptr_t)sq[i].bf_reg & ~(uintptr_t)(page - 1)),
					 page_base);
			off = (uintptr_t)(sq[i].bf_reg - page_base);
			/* whole 512-byte registers, never register 0 */
			assert_int_equal(off % 512, 0);
			assert_true(off >= 512);
			for (int j = 0; j < i; j++)
				assert_ptr_not_equal(sq[j].bf_reg, sq[i].bf_reg);
		} else {
			assert_int_equal(sq[i].flags, MLX4DV_SQ_RING_BLUEFLAME_FALLBACK);
			assert_null(sq[i].bf_reg);
		}
	}
	if (f->expect_bf) {
		/* 8 registers of 512 bytes per page, register 0 is libmlx4's */
		assert_int_equal(with_bf, 7);
		assert_int_equal(unit_maps_count(), maps_before + 1);
	} else {
		assert_int_equal(unit_maps_count(), maps_before);
	}

	/* A released register is handed out again. */
	if (f->expect_bf) {
		uint8_t *freed = sq[3].bf_reg;
		struct mlx4dv_sq_ring again;

		mlx4dv_sq_ring_release(&sq[3]);
		assert_null(sq[3].bf_reg);
		assert_int_equal(sq[3].flags, 0);
		assert_int_equal(mlx4dv_sq_ring_init(&again, f->qp[3],
						     MLX4DV_RING_INIT_BLUEFLAME), 0);
		assert_ptr_equal(again.bf_reg, freed);
		sq[3] = again;
	}

	for (int i = 0; i < NQP; i++)
		mlx4dv_sq_ring_release(&sq[i]);
	assert_int_equal(unit_maps_count(), maps_before);
}

static void layout_override(void **state)
{
	struct fixture *f = *state;
	struct mlx4dv_sq_ring a, b, c, d;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (!f->expect_bf)
		t_skip_case("the device has no BlueFlame registers");
	assert_int_equal(mlx4dv_set_blueflame_layout(f->dev->ctx, 1024, 4), 0);
	assert_int_equal(mlx4dv_sq_ring_init(&a, f->qp[0], MLX4DV_RING_INIT_BLUEFLAME), 0);
	assert_int_equal(mlx4dv_sq_ring_init(&b, f->qp[1], MLX4DV_RING_INIT_BLUEFLAME), 0);
	assert_int_equal(mlx4dv_sq_ring_init(&c, f->qp[2], MLX4DV_RING_INIT_BLUEFLAME), 0);
	assert_int_equal(mlx4dv_sq_ring_init(&d, f->qp[3], MLX4DV_RING_INIT_BLUEFLAME), 0);
	assert_int_equal(a.bf_buf_size, 512);
	assert_int_equal((uintptr_t)a.bf_reg & (page - 1), 1024);
	assert_int_equal((uintptr_t)b.bf_reg & (page - 1), 2048);
	assert_int_equal((uintptr_t)c.bf_reg & (page - 1), 3072);
	assert_int_equal(d.flags, MLX4DV_SQ_RING_BLUEFLAME_FALLBACK);

	/* in use: another layout is refused, the same one accepted */
	assert_int_equal(mlx4dv_set_blueflame_layout(f->dev->ctx, 512, 8), EBUSY);
	assert_int_equal(mlx4dv_set_blueflame_layout(f->dev->ctx, 1024, 4), 0);

	mlx4dv_sq_ring_release(&a);
	mlx4dv_sq_ring_release(&b);
	mlx4dv_sq_ring_release(&c);
	mlx4dv_sq_ring_release(&d);
	/* back to the default once the page is gone */
	assert_int_equal(mlx4dv_set_blueflame_layout(f->dev->ctx, 512, 8), 0);
}

/* Two contexts get two mappings; each goes with its last register. */
static void one_mapping_per_context(void **state)
{
	struct fixture *f = *state;
	struct unit_dev *other;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_qp_cap cap = { .max_send_wr = 4, .max_recv_wr = 4,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	struct mlx4dv_sq_ring a, b;
	int base;

	if (!f->expect_bf)
		t_skip_case("the device has no BlueFlame registers");
	other = unit_dev_open();
	assert_non_null(other);
	cq = ibv_create_cq(other->ctx, 7, NULL, NULL, 0);
	assert_non_null(cq);
	qp = unit_qp_create(other, IBV_QPT_RC, cq, cq, NULL, &cap);
	assert_non_null(qp);

	base = unit_maps_count();
	assert_int_equal(mlx4dv_sq_ring_init(&a, f->qp[0], MLX4DV_RING_INIT_BLUEFLAME), 0);
	assert_int_equal(mlx4dv_sq_ring_init(&b, qp, MLX4DV_RING_INIT_BLUEFLAME), 0);
	assert_int_equal(a.flags & ~MLX4DV_SQ_RING_GRANT_MASK, MLX4DV_SQ_RING_BLUEFLAME);
	assert_int_equal(b.flags & ~MLX4DV_SQ_RING_GRANT_MASK, MLX4DV_SQ_RING_BLUEFLAME);
	assert_int_equal(unit_maps_count(), base + 2);
	mlx4dv_sq_ring_release(&a);
	assert_int_equal(unit_maps_count(), base + 1);
	mlx4dv_sq_ring_release(&b);
	assert_int_equal(unit_maps_count(), base);

	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	unit_dev_close(other);
}

/* One inline SEND posted by libmlx4 itself (which hands a single small
 * inline WQE over by BlueFlame on its register 0) and both completions
 * polled by libmlx4; 0 on success. */
static int verbs_roundtrip(struct ibv_qp *qa, struct ibv_qp *qb,
			   struct ibv_cq *ca, struct ibv_cq *cb,
			   struct ibv_mr *mr, char *mem)
{
	struct ibv_sge rs = { (uintptr_t)(mem + 64), 64, mr->lkey };
	struct ibv_sge ss = { (uintptr_t)mem, 16, mr->lkey };
	struct ibv_recv_wr rw, *bad_rw;
	struct ibv_send_wr sw, *bad_sw;
	struct ibv_cq *cqs[2] = { ca, cb };
	struct ibv_wc wc;

	memset(&rw, 0, sizeof(rw));
	rw.sg_list = &rs;
	rw.num_sge = 1;
	if (ibv_post_recv(qb, &rw, &bad_rw))
		return -1;
	memset(mem + 64, 0, 64);
	memcpy(mem, "blueflame 0 test", 16);
	memset(&sw, 0, sizeof(sw));
	sw.sg_list = &ss;
	sw.num_sge = 1;
	sw.opcode = IBV_WR_SEND;
	sw.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	if (ibv_post_send(qa, &sw, &bad_sw))
		return -2;
	for (int c = 0; c < 2; c++) {
		int n = 0;

		for (long i = 0; i < 20000000 && n == 0; i++) {
			n = ibv_poll_cq(cqs[c], 1, &wc);
			if (!n)
				sched_yield();
		}
		if (n != 1 || wc.status != IBV_WC_SUCCESS)
			return -3 - c;
	}
	return memcmp(mem, mem + 64, 16) ? -5 : 0;
}

/* libmlx4's own BlueFlame posts keep working while the unit holds
 * registers of the same page, and after it let them go. */
static void libmlx4_posts_unaffected(void **state)
{
	struct fixture *f = *state;
	struct ibv_qp_cap cap = { .max_send_wr = 8, .max_recv_wr = 8,
				  .max_send_sge = 1, .max_recv_sge = 1,
				  .max_inline_data = 32 };
	struct mlx4dv_sq_ring sq[3];
	struct ibv_cq *ca, *cb;
	struct ibv_qp *qa, *qb;
	struct ibv_mr *mr;
	static char mem[128];

	ca = ibv_create_cq(f->dev->ctx, 15, NULL, NULL, 0);
	cb = ibv_create_cq(f->dev->ctx, 15, NULL, NULL, 0);
	assert_non_null(ca);
	assert_non_null(cb);
	qa = unit_qp_create(f->dev, IBV_QPT_RC, ca, ca, NULL, &cap);
	qb = unit_qp_create(f->dev, IBV_QPT_RC, cb, cb, NULL, &cap);
	assert_non_null(qa);
	assert_non_null(qb);
	mr = ibv_reg_mr(f->dev->pd, mem, sizeof(mem), IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(mr);
	assert_int_equal(unit_qp_connect(f->dev, qa, qb->qp_num), 0);
	assert_int_equal(unit_qp_connect(f->dev, qb, qa->qp_num), 0);

	assert_int_equal(verbs_roundtrip(qa, qb, ca, cb, mr, mem), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(mlx4dv_sq_ring_init(&sq[i], f->qp[i],
						     MLX4DV_RING_INIT_BLUEFLAME), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(verbs_roundtrip(qa, qb, ca, cb, mr, mem), 0);
	for (int i = 0; i < 3; i++)
		mlx4dv_sq_ring_release(&sq[i]);
	assert_int_equal(verbs_roundtrip(qa, qb, ca, cb, mr, mem), 0);

	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(ca);
	ibv_destroy_cq(cb);
}

struct acquirer {
	struct ibv_qp		*qp[2];
	struct mlx4dv_sq_ring	sq[2];
	int			ret[2];
};

static void *acquire_two(void *arg)
{
	struct acquirer *a = arg;

	for (int i = 0; i < 2; i++)
		a->ret[i] = mlx4dv_sq_ring_init(&a->sq[i], a->qp[i],
						MLX4DV_RING_INIT_BLUEFLAME);
	return NULL;
}

/* Registers handed out from four threads at once are still distinct, and
 * exactly the seven free ones are handed out. */
static void concurrent_acquire(void **state)
{
	struct fixture *f = *state;
	struct acquirer a[4];
	pthread_t t[4];
	int with_bf = 0, maps = unit_maps_count();

	for (int i = 0; i < 4; i++) {
		a[i].qp[0] = f->qp[2 * i];
		a[i].qp[1] = f->qp[2 * i + 1];
		assert_int_equal(pthread_create(&t[i], NULL, acquire_two, &a[i]), 0);
	}
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	for (int i = 0; i < 8; i++) {
		struct mlx4dv_sq_ring *sq = &a[i / 2].sq[i % 2];

		assert_int_equal(a[i / 2].ret[i % 2], 0);
		if (!(sq->flags & MLX4DV_SQ_RING_BLUEFLAME))
			continue;
		with_bf++;
		for (int j = 0; j < i; j++)
			assert_ptr_not_equal(a[j / 2].sq[j % 2].bf_reg, sq->bf_reg);
	}
	assert_int_equal(with_bf, f->expect_bf ? 7 : 0);
	for (int i = 0; i < 8; i++)
		mlx4dv_sq_ring_release(&a[i / 2].sq[i % 2]);
	assert_int_equal(unit_maps_count(), maps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(registers_are_private_and_fall_back),
		cmocka_unit_test(layout_override),
		cmocka_unit_test(one_mapping_per_context),
		cmocka_unit_test(libmlx4_posts_unaffected),
		cmocka_unit_test(concurrent_acquire),
	};

	t_run_group_tests_name("unit_blueflame", tests, setup, teardown);
	return t_exit();
}
