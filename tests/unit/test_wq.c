// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Receive work queues and the RSS QP in front of them: the WQ converts
 * into a receive handle, the RSS QP (no queue of its own) is refused with
 * ENOENT and nothing written.
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

struct fixture {
	struct unit_dev		*dev;
	struct ibv_cq		*cq;
	struct ibv_wq		*wq[2];
	struct ibv_rwq_ind_table *table;
	struct ibv_qp		*rss;
};

static struct ibv_wq *create_wq(struct fixture *f, uint32_t max_wr,
				uint32_t max_sge)
{
	struct ibv_wq_init_attr a;

	memset(&a, 0, sizeof(a));
	a.wq_type = IBV_WQT_RQ;
	a.max_wr = max_wr;
	a.max_sge = max_sge;
	a.pd = f->dev->pd;
	a.cq = f->cq;
	return ibv_create_wq(f->dev->ctx, &a);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct ibv_rwq_ind_table_init_attr ia;
	struct ibv_qp_init_attr_ex qa;
	static uint8_t key[40];

	if (!f)
		return -1;
	f->dev = unit_dev_open();
	if (!f->dev)
		return -1;
	f->cq = ibv_create_cq(f->dev->ctx, 63, NULL, NULL, 0);
	if (!f->cq)
		return -1;
	f->wq[0] = create_wq(f, 100, 3);
	f->wq[1] = create_wq(f, 16, 1);
	if (!f->wq[0] || !f->wq[1])
		return -1;
	memset(&ia, 0, sizeof(ia));
	ia.log_ind_tbl_size = 1;
	ia.ind_tbl = f->wq;
	f->table = ibv_create_rwq_ind_table(f->dev->ctx, &ia);
	if (!f->table)
		return -1;
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = IBV_QPT_RAW_PACKET;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE |
		       IBV_QP_INIT_ATTR_RX_HASH;
	qa.pd = f->dev->pd;
	qa.rwq_ind_tbl = f->table;
	qa.rx_hash_conf.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
	qa.rx_hash_conf.rx_hash_key_len = sizeof(key);
	qa.rx_hash_conf.rx_hash_key = key;
	qa.rx_hash_conf.rx_hash_fields_mask = IBV_RX_HASH_SRC_IPV4 |
					       IBV_RX_HASH_DST_IPV4;
	f->rss = ibv_create_qp_ex(f->dev->ctx, &qa);
	if (!f->rss)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	ibv_destroy_qp(f->rss);
	ibv_destroy_rwq_ind_table(f->table);
	ibv_destroy_wq(f->wq[0]);
	ibv_destroy_wq(f->wq[1]);
	ibv_destroy_cq(f->cq);
	unit_dev_close(f->dev);
	free(f);
	return 0;
}

static void wq_handles(void **state)
{
	static const struct { uint32_t wqe_cnt, wqe_shift; } want[2] = {
		{ 128, 6 },	/* 100 -> 128 WQEs; 3 entries, 48 -> 64 bytes */
		{ 16, 4 },	/* one 16-byte entry */
	};
	struct fixture *f = *state;

	for (int i = 0; i < 2; i++) {
		struct mlx4dv_rq_ring rq;
		struct mlx4dv_rwq raw;
		struct mlx4dv_obj obj;

		assert_int_equal(mlx4dv_wq_ring_init(&rq, f->wq[i], MLX4DV_RING_INIT_WRID), 0);
		assert_int_equal(rq.wqe_cnt, want[i].wqe_cnt);
		assert_int_equal(rq.wqe_shift, want[i].wqe_shift);
		assert_int_equal(rq.max_scatter, (1u << want[i].wqe_shift) / 16);
		assert_int_equal(rq.qpn, f->wq[i]->wq_num);
		assert_int_equal(rq.head, 0);
		assert_non_null(rq.wrid);
		rq.wrid[rq.wqe_cnt - 1] = 3;

		memset(&obj, 0, sizeof(obj));
		memset(&raw, 0, sizeof(raw));
		obj.rwq.in = f->wq[i];
		obj.rwq.out = &raw;
		assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_RWQ), 0);
		assert_ptr_equal(rq.buf, (uint8_t *)raw.buf.buf + raw.rq.offset);
		assert_ptr_equal(rq.db, raw.rdb);
		assert_int_equal(rq.wqe_cnt, raw.rq.wqe_cnt);
		mlx4dv_rq_ring_release(&rq);
		assert_null(rq.wrid);
	}
}

static void rss_qp_has_no_queues(void **state)
{
	struct fixture *f = *state;
	struct mlx4dv_sq_ring sq, sq_ref;
	struct mlx4dv_rq_ring rq, rq_ref;
	struct mlx4dv_qp_rings rings, rings_ref;

	memset(&sq, 0x77, sizeof(sq));
	memset(&rq, 0x77, sizeof(rq));
	memset(&rings, 0x77, sizeof(rings));
	sq_ref = sq;
	rq_ref = rq;
	rings_ref = rings;
	assert_int_equal(mlx4dv_sq_ring_init(&sq, f->rss, MLX4DV_RING_INIT_WRID |
					     MLX4DV_RING_INIT_BLUEFLAME), ENOENT);
	assert_int_equal(mlx4dv_rq_ring_init(&rq, f->rss, MLX4DV_RING_INIT_WRID), ENOENT);
	assert_int_equal(mlx4dv_qp_rings_init(&rings, f->rss, MLX4DV_RING_INIT_WRID |
					      MLX4DV_RING_INIT_BLUEFLAME), ENOENT);
	assert_memory_equal(&sq, &sq_ref, sizeof(sq));
	assert_memory_equal(&rq, &rq_ref, sizeof(rq));
	assert_memory_equal(&rings, &rings_ref, sizeof(rings));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wq_handles),
		cmocka_unit_test(rss_qp_has_no_queues),
	};

	t_run_group_tests_name("unit_wq", tests, setup, teardown);
	return t_exit();
}
