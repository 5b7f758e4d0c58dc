/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Receive WQEs written by Part 5 are byte-identical to the ones libmlx4
 * writes for the same requests: twin RQs (ibv_post_recv vs mlx4dv_rq_post
 * and mlx4dv_rq_post_list), twin SRQs (ibv_post_srq_recv vs
 * mlx4dv_srq_post) and twin receive WQs (ibv_post_wq_recv vs
 * mlx4dv_rq_post), including the doorbell records. The handles are filled
 * by hand from mlx4dv_init_obj(). The QPs stay in RESET and the WQs in
 * RDY without traffic, so only the posting code writes the buffers.
 */
#include "emu_util.h"
#include "test_exit.h"

static struct emu_env env;
static struct emu_buf mem;

static int setup(void **state)
{
	(void)state;
	emu_env_open(&env);
	emu_buf_alloc(&env, &mem, 1 << 16);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	emu_buf_free(&mem);
	emu_env_close(&env);
	return 0;
}

/* Request i: i % (max + 1) SGEs, lengths i * 7 + k (some zero). */
static int make_sges(struct ibv_sge *sg, int i, int max)
{
	int n = i % (max + 1), k;

	for (k = 0; k < n; k++) {
		sg[k].addr = (uintptr_t)mem.p + (size_t)(i * 256 + k * 64);
		sg[k].length = (uint32_t)((i * 7 + k) % 5 == 0 ? 0 : i * 7 + k);
		sg[k].lkey = mem.mr->lkey;
	}
	return n;
}

static void rq_ring_from_qp(struct mlx4dv_rq_ring *rq, struct ibv_qp *qp,
			    struct mlx4dv_qp *dv, uint32_t max_scatter)
{
	struct mlx4dv_obj obj;

	memset(dv, 0, sizeof(*dv));
	memset(&obj, 0, sizeof(obj));
	obj.qp.in = qp;
	obj.qp.out = dv;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_QP), 0);
	memset(rq, 0, sizeof(*rq));
	rq->buf = (uint8_t *)dv->buf.buf + dv->rq.offset;
	rq->wqe_cnt = dv->rq.wqe_cnt;
	rq->wqe_shift = (uint32_t)dv->rq.wqe_shift;
	rq->max_scatter = max_scatter;
	rq->qpn = qp->qp_num;
	rq->db = dv->rdb;
	rq->head = mlx4dv_be32_to_cpu(*dv->rdb);
}

static struct ibv_qp *rc_qp_with_cap(struct ibv_cq *cq, uint32_t *max_sge)
{
	struct ibv_qp_init_attr a;
	struct ibv_qp *qp;

	memset(&a, 0, sizeof(a));
	a.qp_type = IBV_QPT_RC;
	a.send_cq = cq;
	a.recv_cq = cq;
	a.cap.max_send_wr = 4;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_wr = 16;
	a.cap.max_recv_sge = 3;
	qp = ibv_create_qp(env.pd, &a);
	assert_non_null(qp);
	*max_sge = a.cap.max_recv_sge;	/* what libmlx4 uses as max_gs */
	return qp;
}

static void test_rq_identical(void **state)
{
	struct ibv_cq *cq = ibv_create_cq(env.ctx, 64, NULL, NULL, 0);
	uint32_t max_ref, max_ours;
	struct ibv_qp *ref, *ours;
	struct mlx4dv_qp dv_ref, dv_ours;
	struct mlx4dv_rq_ring rq_ref, rq;
	struct ibv_recv_wr wr[4];
	const struct ibv_recv_wr *bad_c = NULL;
	struct ibv_recv_wr *bad = NULL;
	struct ibv_sge sg[4][8];
	int i, k;

	(void)state;
	assert_non_null(cq);
	ref = rc_qp_with_cap(cq, &max_ref);
	ours = rc_qp_with_cap(cq, &max_ours);
	assert_int_equal(max_ref, max_ours);
	assert_true(max_ref < 8);
	rq_ring_from_qp(&rq_ref, ref, &dv_ref, max_ref);
	rq_ring_from_qp(&rq, ours, &dv_ours, max_ours);
	assert_int_equal(rq_ref.wqe_cnt, rq.wqe_cnt);
	assert_int_equal(rq_ref.wqe_shift, rq.wqe_shift);
	/* Both buffers start alike (libmlx4 does not clear them). */
	memset(rq_ref.buf, 0x5a, (size_t)rq.wqe_cnt << rq.wqe_shift);
	memset(rq.buf, 0x5a, (size_t)rq.wqe_cnt << rq.wqe_shift);

	/* One at a time, 0 .. max SGEs. */
	for (i = 0; i < 8; i++) {
		struct ibv_sge one[8];
		int n = make_sges(one, i, (int)max_ref);

		memset(&wr[0], 0, sizeof(wr[0]));
		wr[0].wr_id = (uint64_t)i;
		wr[0].sg_list = one;
		wr[0].num_sge = n;
		assert_int_equal(ibv_post_recv(ref, &wr[0], &bad), 0);
		assert_int_equal(mlx4dv_rq_post(&rq, (uint64_t)i, one, n), 0);
		assert_memory_equal(rq_ref.buf, rq.buf, (size_t)rq.wqe_cnt << rq.wqe_shift);
		assert_memory_equal(dv_ref.rdb, dv_ours.rdb, 4);
	}
	/* A list of four with one doorbell. */
	for (k = 0; k < 4; k++) {
		memset(&wr[k], 0, sizeof(wr[k]));
		wr[k].wr_id = 100 + (uint64_t)k;
		wr[k].sg_list = sg[k];
		wr[k].num_sge = make_sges(sg[k], k + 1, (int)max_ref);
		wr[k].next = k < 3 ? &wr[k + 1] : NULL;
	}
	assert_int_equal(ibv_post_recv(ref, wr, &bad), 0);
	assert_int_equal(mlx4dv_rq_post_list(&rq, wr, &bad_c), 0);
	assert_memory_equal(rq_ref.buf, rq.buf, (size_t)rq.wqe_cnt << rq.wqe_shift);
	assert_memory_equal(dv_ref.rdb, dv_ours.rdb, 4);
	/* Too many SGEs: libmlx4 refuses (ENOMEM), this refuses (EINVAL);
	 * neither writes. */
	{
		struct ibv_sge many[8];

		for (k = 0; k < 8; k++)
			many[k] = sg[3][0];
		memset(&wr[0], 0, sizeof(wr[0]));
		wr[0].sg_list = many;
		wr[0].num_sge = (int)max_ref + 1;
		assert_int_not_equal(ibv_post_recv(ref, &wr[0], &bad), 0);
		assert_int_equal(mlx4dv_rq_post(&rq, 0, many, (int)max_ref + 1), EINVAL);
		assert_memory_equal(rq_ref.buf, rq.buf, (size_t)rq.wqe_cnt << rq.wqe_shift);
		assert_memory_equal(dv_ref.rdb, dv_ours.rdb, 4);
	}
	assert_int_equal(ibv_destroy_qp(ref), 0);
	assert_int_equal(ibv_destroy_qp(ours), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
}

static void srq_ring_from_srq(struct mlx4dv_srq_ring *s, struct ibv_srq *srq,
			      uint32_t max_sge)
{
	struct mlx4dv_srq dv;
	struct mlx4dv_obj obj;

	memset(&dv, 0, sizeof(dv));
	memset(&obj, 0, sizeof(obj));
	obj.srq.in = srq;
	obj.srq.out = &dv;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_SRQ), 0);
	memset(s, 0, sizeof(*s));
	s->buf = (uint8_t *)dv.buf.buf;
	s->wqe_shift = (uint32_t)dv.wqe_shift;
	s->head = (uint32_t)dv.head;
	s->tail = (uint32_t)dv.tail;
	s->wqe_cnt = (uint32_t)dv.tail + 1;
	s->counter = mlx4dv_be32_to_cpu(*dv.db);
	s->max_scatter = max_sge;
	s->db = dv.db;
}

static void test_srq_identical(void **state)
{
	struct ibv_srq_init_attr a;
	struct ibv_srq *ref, *ours;
	struct mlx4dv_srq_ring s_ref, s;
	struct ibv_recv_wr wr, *bad = NULL;
	struct ibv_sge sg[8];
	int i, rc_ref, rc;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.attr.max_wr = 7;
	a.attr.max_sge = 3;	/* 16 + 3 * 16 = 64 bytes: no unused entry */
	ref = ibv_create_srq(env.pd, &a);
	assert_non_null(ref);
	memset(&a, 0, sizeof(a));
	a.attr.max_wr = 7;
	a.attr.max_sge = 3;
	ours = ibv_create_srq(env.pd, &a);
	assert_non_null(ours);
	srq_ring_from_srq(&s_ref, ref, 3);
	srq_ring_from_srq(&s, ours, 3);
	assert_int_equal(s_ref.wqe_cnt, s.wqe_cnt);
	assert_memory_equal(s_ref.buf, s.buf, (size_t)s.wqe_cnt << s.wqe_shift);

	/* Fill it completely, then one more: both refuse and write nothing. */
	for (i = 0; i <= (int)s.wqe_cnt; i++) {
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = (uint64_t)i;
		wr.sg_list = sg;
		wr.num_sge = make_sges(sg, i, 3);
		rc_ref = ibv_post_srq_recv(ref, &wr, &bad);
		rc = mlx4dv_srq_post(&s, (uint64_t)i, sg, wr.num_sge);
		if (i < (int)s.wqe_cnt - 1) {
			assert_int_equal(rc_ref, 0);
			assert_int_equal(rc, 0);
		} else {
			assert_int_not_equal(rc_ref, 0);
			assert_int_equal(rc, ENOMEM);
		}
		assert_memory_equal(s_ref.buf, s.buf, (size_t)s.wqe_cnt << s.wqe_shift);
		assert_memory_equal(s_ref.db, s.db, 4);
	}
	assert_int_equal(ibv_destroy_srq(ref), 0);
	assert_int_equal(ibv_destroy_srq(ours), 0);
}

static struct ibv_wq *make_wq(struct ibv_cq *cq, uint32_t *max_sge)
{
	struct ibv_wq_init_attr a;
	struct ibv_wq *wq;

	memset(&a, 0, sizeof(a));
	a.wq_type = IBV_WQT_RQ;
	a.max_wr = 16;
	a.max_sge = 2;
	a.pd = env.pd;
	a.cq = cq;
	wq = ibv_create_wq(env.ctx, &a);
	assert_non_null(wq);
	*max_sge = a.max_sge;	/* libmlx4's max_gs (verbs.c create_wq) */
	return wq;
}

static void rq_ring_from_wq(struct mlx4dv_rq_ring *rq, struct ibv_wq *wq,
			    struct mlx4dv_rwq *dv, uint32_t max_scatter)
{
	struct mlx4dv_obj obj;

	memset(dv, 0, sizeof(*dv));
	memset(&obj, 0, sizeof(obj));
	obj.rwq.in = wq;
	obj.rwq.out = dv;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_RWQ), 0);
	memset(rq, 0, sizeof(*rq));
	rq->buf = (uint8_t *)dv->buf.buf + dv->rq.offset;
	rq->wqe_cnt = dv->rq.wqe_cnt;
	rq->wqe_shift = (uint32_t)dv->rq.wqe_shift;
	rq->max_scatter = max_scatter;
	rq->qpn = wq->wq_num;
	rq->db = dv->rdb;
}

static void test_wq_identical(void **state)
{
	struct ibv_cq *cq = ibv_create_cq(env.ctx, 64, NULL, NULL, 0);
	struct ibv_wq *ref, *ours;
	struct mlx4dv_rwq dv_ref, dv_ours;
	struct mlx4dv_rq_ring rq_ref, rq;
	struct ibv_recv_wr wr, *bad = NULL;
	struct ibv_sge sg[8];
	uint32_t max_sge, max_sge_ours;
	int i;

	(void)state;
	assert_non_null(cq);
	ref = make_wq(cq, &max_sge);
	ours = make_wq(cq, &max_sge_ours);
	assert_int_equal(max_sge, max_sge_ours);
	assert_true(max_sge <= 8);
	rq_ring_from_wq(&rq_ref, ref, &dv_ref, max_sge);
	rq_ring_from_wq(&rq, ours, &dv_ours, max_sge);
	assert_int_equal(rq.wqe_cnt, rq_ref.wqe_cnt);
	memset(rq_ref.buf, 0x5a, (size_t)rq.wqe_cnt << rq.wqe_shift);
	memset(rq.buf, 0x5a, (size_t)rq.wqe_cnt << rq.wqe_shift);
	for (i = 0; i < 12; i++) {
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = (uint64_t)i;
		wr.sg_list = sg;
		wr.num_sge = make_sges(sg, i, (int)max_sge);
		assert_int_equal(ibv_post_wq_recv(ref, &wr, &bad), 0);
		assert_int_equal(mlx4dv_rq_post(&rq, (uint64_t)i, sg, wr.num_sge), 0);
		assert_memory_equal(rq_ref.buf, rq.buf, (size_t)rq.wqe_cnt << rq.wqe_shift);
		assert_memory_equal(dv_ref.rdb, dv_ours.rdb, 4);
	}
	assert_int_equal(ibv_destroy_wq(ref), 0);
	assert_int_equal(ibv_destroy_wq(ours), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rq_identical),
		cmocka_unit_test(test_srq_identical),
		cmocka_unit_test(test_wq_identical),
	};

	t_run_group_tests_name("completion_emu_post", tests, setup, teardown);
	return t_exit();
}
