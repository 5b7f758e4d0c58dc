// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The comp_mask of each mlx4dv_init_obj() output is an INPUT: it asks for
 * the optional fields (rdma-core providers/mlx4/mlx4.c: mlx4dv_get_qp
 * writes uar_mmap_offset only when MLX4DV_QP_MASK_UAR_MMAP_OFFSET is set,
 * mlx4dv_get_cq writes cq_uar only for MLX4DV_CQ_MASK_UAR). A caller that
 * leaves it uninitialised asks for fields at random.
 *
 * test_init_obj_comp_mask_semantics: libmlx4 itself, the ground truth.
 * test_init_obj_comp_mask_is_input: every call libmlx4dv makes carries a
 * deliberate comp_mask, even when the stack it runs on is full of
 * garbage. The test program defines mlx4dv_init_obj(), which the dynamic
 * linker prefers for libmlx4dv's calls; it records the inputs and forwards
 * to libmlx4's.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <dlfcn.h>
#include <cmocka.h>

#include "emu_verbs.h"
#include "test_exit.h"

typedef int (*init_obj_fn)(struct mlx4dv_obj *, uint64_t);

static unsigned calls, bad_masks;
static uint64_t last_cq_mask;

int mlx4dv_init_obj(struct mlx4dv_obj *obj, uint64_t obj_type)
{
	static init_obj_fn real;

	if (!real) {
		void *p = dlsym(RTLD_NEXT, "mlx4dv_init_obj");

		memcpy(&real, &p, sizeof(p));
		if (!real)
			return ENOSYS;
	}
	calls++;
	if ((obj_type & MLX4DV_OBJ_QP) &&
	    (obj->qp.out->comp_mask & ~(uint64_t)MLX4DV_QP_MASK_UAR_MMAP_OFFSET))
		bad_masks++;
	if (obj_type & MLX4DV_OBJ_CQ) {
		last_cq_mask = obj->cq.out->comp_mask;
		if (obj->cq.out->comp_mask & ~(uint64_t)MLX4DV_CQ_MASK_UAR)
			bad_masks++;
	}
	/* no optional field is defined for SRQs and WQs in rdma-core 44.0 */
	if ((obj_type & MLX4DV_OBJ_SRQ) && obj->srq.out->comp_mask)
		bad_masks++;
	if ((obj_type & MLX4DV_OBJ_RWQ) && obj->rwq.out->comp_mask)
		bad_masks++;
	return real(obj, obj_type);
}

/* Leave 32 KiB of stack below this frame full of set bits, where the
 * callee's locals will live. */
static __attribute__((noinline)) void spray_stack(void)
{
	volatile uint8_t junk[32768];
	size_t i;

	for (i = 0; i < sizeof(junk); i++)
		junk[i] = 0xa5;
}

struct objs {
	struct ev_dev dev;
	struct ibv_cq *cq;
	struct ibv_qp *qp, *qp_srq;
	struct ibv_srq *srq;
};

static void objs_open(struct objs *o)
{
	struct ibv_srq_init_attr sa;

	assert_int_equal(ev_open(&o->dev, 1 << 16), 0);
	o->cq = ibv_create_cq(o->dev.ctx, 64, NULL, NULL, 0);
	assert_non_null(o->cq);
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 16;
	sa.attr.max_sge = 1;
	o->srq = ibv_create_srq(o->dev.pd, &sa);
	assert_non_null(o->srq);
	o->qp = ev_qp_create(&o->dev, IBV_QPT_RC, o->cq, o->cq, NULL, 16, 16, 1, 0);
	o->qp_srq = ev_qp_create(&o->dev, IBV_QPT_RC, o->cq, o->cq, o->srq, 16, 0, 1, 0);
	assert_non_null(o->qp);
	assert_non_null(o->qp_srq);
}

static void objs_close(struct objs *o)
{
	ibv_destroy_qp(o->qp_srq);
	ibv_destroy_qp(o->qp);
	ibv_destroy_srq(o->srq);
	ibv_destroy_cq(o->cq);
	ev_close(&o->dev);
}

static void test_init_obj_comp_mask_semantics(void **state)
{
	struct objs o;
	struct mlx4dv_obj obj;
	struct mlx4dv_cq cq;
	struct mlx4dv_qp qp;
	void *const sentinel = (void *)(uintptr_t)0x5a5a5a5a5a5a5a5aull;

	(void)state;
	objs_open(&o);
	memset(&obj, 0, sizeof(obj));
	memset(&cq, 0, sizeof(cq));
	cq.cq_uar = sentinel;
	obj.cq.in = o.cq;
	obj.cq.out = &cq;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_CQ), 0);
	assert_ptr_equal(cq.cq_uar, sentinel);	/* not asked, not written */
	assert_int_equal(cq.comp_mask, 0);
	cq.comp_mask = MLX4DV_CQ_MASK_UAR;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_CQ), 0);
	assert_ptr_not_equal(cq.cq_uar, sentinel);
	assert_non_null(cq.cq_uar);
	assert_int_equal(cq.comp_mask, MLX4DV_CQ_MASK_UAR);

	memset(&obj, 0, sizeof(obj));
	memset(&qp, 0, sizeof(qp));
	qp.uar_mmap_offset = 0x777;
	obj.qp.in = o.qp;
	obj.qp.out = &qp;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_QP), 0);
	assert_int_equal(qp.uar_mmap_offset, 0x777);
	assert_int_equal(qp.comp_mask, 0);
	objs_close(&o);
}

static void test_init_obj_comp_mask_is_input(void **state)
{
	struct objs o;
	struct mlx4dv_cq_ring cqr;
	struct mlx4dv_sq_ring sq;
	struct mlx4dv_rq_ring rq;
	struct mlx4dv_srq_ring srq;
	struct mlx4dv_qp_rings rings;
	struct mlx4dv_obj obj;
	struct mlx4dv_cq cq;

	(void)state;
	objs_open(&o);
	calls = bad_masks = 0;
	spray_stack();
	assert_int_equal(mlx4dv_cq_ring_init(&cqr, o.cq, 0), 0);
	assert_int_equal(last_cq_mask, MLX4DV_CQ_MASK_UAR);
	spray_stack();
	assert_int_equal(mlx4dv_sq_ring_init(&sq, o.qp, 0), 0);
	spray_stack();
	assert_int_equal(mlx4dv_rq_ring_init(&rq, o.qp, 0), 0);
	spray_stack();
	assert_int_equal(mlx4dv_srq_ring_init(&srq, o.srq, 0), 0);
	spray_stack();
	assert_int_equal(mlx4dv_qp_rings_init(&rings, o.qp_srq, 0), 0);
	assert_true(rings.flags & MLX4DV_QP_RINGS_RQ_ON_SRQ);
	assert_true(calls >= 5);	/* the calls did come here */
	assert_int_equal(bad_masks, 0);

	/* the UAR the handle got is the one libmlx4 reports when asked */
	memset(&obj, 0, sizeof(obj));
	memset(&cq, 0, sizeof(cq));
	cq.comp_mask = MLX4DV_CQ_MASK_UAR;
	obj.cq.in = o.cq;
	obj.cq.out = &cq;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_CQ), 0);
	assert_ptr_equal(cqr.uar, cq.cq_uar);

	mlx4dv_qp_rings_release(&rings);
	mlx4dv_srq_ring_release(&srq);
	mlx4dv_rq_ring_release(&rq);
	mlx4dv_sq_ring_release(&sq);
	mlx4dv_cq_ring_release(&cqr);
	objs_close(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_obj_comp_mask_semantics),
		cmocka_unit_test(test_init_obj_comp_mask_is_input),
	};

	t_run_group_tests_name("reliability_init_obj", tests, NULL, NULL);
	return t_exit();
}
