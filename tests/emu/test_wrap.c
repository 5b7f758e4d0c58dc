// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Rings wrapping many laps: small SQ, RQ, SRQ and CQ, thousands of work
 * requests, every payload and wr_id checked in order.  The 16-bit WQE
 * counter also wraps (more than 65536 WQEs on one QP).
 */
#include "emu_test.h"

#include <string.h>
#include "test_exit.h"

#define ACC (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE)

static void post_send(struct emu_qp *q, uint64_t wr_id, uint32_t off, uint32_t len,
		      int signaled)
{
	struct ibv_sge sge = { (uintptr_t)q->buf + off, len, q->mr->lkey };
	struct ibv_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.imm_data = htobe32((uint32_t)wr_id);
	wr.send_flags = signaled ? IBV_SEND_SIGNALED : 0;
	assert_int_equal(emu_post_send(q->qp, &wr), 0);
}

/* SQ of 8 usable WQEs, RQ of 4, CQs of 4 entries: 3000 messages. */
static void test_sq_rq_cq_laps(void **state)
{
	struct emu_env e;
	struct emu_qp a, b;
	struct ibv_wc wc;
	const int total = 3000;
	uint64_t next_recv = 0;

	(void)state;
	emu_env_open(&e, 1);
	emu_qp_create(&e, &a, IBV_QPT_RC, 8, 4, 4, 1 << 16, NULL);
	emu_qp_create(&e, &b, IBV_QPT_RC, 8, 4, 4, 1 << 16, NULL);
	emu_qp_to_rts(&e, a.qp, b.qp->qp_num, ACC);
	emu_qp_to_rts(&e, b.qp, a.qp->qp_num, ACC);
	for (int i = 0; i < 4; i++)
		emu_post_recv(b.qp, (uint64_t)i, b.buf + i * 256, 256, b.mr->lkey);
	for (int i = 0; i < total; i++) {
		uint32_t len = 1 + (uint32_t)(i * 37) % 200;

		emu_fill(a.buf + (i % 4) * 256, len, (unsigned)i);
		post_send(&a, (uint64_t)i, (uint32_t)(i % 4) * 256, len, 1);
		wc = emu_poll_one(a.scq, IBV_WC_SUCCESS);
		assert_int_equal(wc.wr_id, (uint64_t)i);
		wc = emu_poll_one(b.rcq, IBV_WC_SUCCESS);
		assert_int_equal(wc.wr_id, next_recv);
		assert_int_equal(wc.byte_len, len);
		assert_int_equal(be32toh(wc.imm_data), (uint32_t)i);
		assert_memory_equal(b.buf + (next_recv % 4) * 256,
				    a.buf + (i % 4) * 256, len);
		emu_post_recv(b.qp, next_recv + 4, b.buf + (next_recv % 4) * 256, 256,
			      b.mr->lkey);
		next_recv++;
	}
	emu_qp_destroy(&a);
	emu_qp_destroy(&b);
	emu_env_close(&e);
}

/* Batches of unsignaled WQEs ending with a signaled one: 70000 WQEs so
 * that the 16-bit WQE counter in the send CQE wraps. */
static void test_wqe_counter_wraps(void **state)
{
	struct emu_env e;
	struct emu_qp a, b;
	struct ibv_wc wc;
	const int batch = 16, total = 70000 / 16 * 16;

	(void)state;
	emu_env_open(&e, 1);
	emu_qp_create(&e, &a, IBV_QPT_RC, 32, 4, 16, 4096, NULL);
	emu_qp_create(&e, &b, IBV_QPT_RC, 32, 4, 16, 4096, NULL);
	emu_qp_to_rts(&e, a.qp, b.qp->qp_num, ACC);
	emu_qp_to_rts(&e, b.qp, a.qp->qp_num, ACC);
	for (int i = 0; i < total; i += batch) {
		struct ibv_sge sge = { (uintptr_t)a.buf, 8, a.mr->lkey };
		struct ibv_send_wr wr[16];

		memset(wr, 0, sizeof(wr));
		for (int j = 0; j < batch; j++) {
			wr[j].wr_id = (uint64_t)(i + j);
			wr[j].sg_list = &sge;
			wr[j].num_sge = 1;
			wr[j].opcode = IBV_WR_RDMA_WRITE;
			wr[j].wr.rdma.remote_addr = (uintptr_t)b.buf;
			wr[j].wr.rdma.rkey = b.mr->rkey;
			wr[j].send_flags = j == batch - 1 ? IBV_SEND_SIGNALED : 0;
			wr[j].next = j < batch - 1 ? &wr[j + 1] : NULL;
		}
		assert_int_equal(emu_post_send(a.qp, wr), 0);
		wc = emu_poll_one(a.scq, IBV_WC_SUCCESS);
		assert_int_equal(wc.wr_id, (uint64_t)(i + batch - 1));
	}
	emu_qp_destroy(&a);
	emu_qp_destroy(&b);
	emu_env_close(&e);
}

/* Two QPs on one SRQ of 7 WQEs; receives complete out of posting order
 * relative to the free list, which libmlx4 links back at the tail. */
static void test_srq_laps(void **state)
{
	struct emu_env e;
	struct emu_qp a, b, c, d;
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 7, .max_sge = 1 } };
	struct ibv_srq *srq;
	struct ibv_srq_attr q;
	struct ibv_wc wc;
	uint8_t *rbuf;
	struct ibv_mr *rmr;
	int posted = 0;

	(void)state;
	emu_env_open(&e, 1);
	srq = ibv_create_srq(e.pd, &sa);
	assert_non_null(srq);
	assert_int_equal(ibv_query_srq(srq, &q), 0);
	assert_true(q.max_wr >= 7);
	rbuf = calloc(1, 64 * 1024);
	rmr = ibv_reg_mr(e.pd, rbuf, 64 * 1024, IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(rmr);
	emu_qp_create(&e, &a, IBV_QPT_RC, 8, 0, 16, 4096, NULL);
	emu_qp_create(&e, &b, IBV_QPT_RC, 8, 0, 16, 4096, srq);
	emu_qp_create(&e, &c, IBV_QPT_RC, 8, 0, 16, 4096, NULL);
	emu_qp_create(&e, &d, IBV_QPT_RC, 8, 0, 16, 4096, srq);
	emu_qp_to_rts(&e, a.qp, b.qp->qp_num, ACC);
	emu_qp_to_rts(&e, b.qp, a.qp->qp_num, ACC);
	emu_qp_to_rts(&e, c.qp, d.qp->qp_num, ACC);
	emu_qp_to_rts(&e, d.qp, c.qp->qp_num, ACC);
	for (; posted < 7; posted++) {
		struct ibv_sge s = { (uintptr_t)rbuf + (uint64_t)posted * 64, 64, rmr->lkey };
		struct ibv_recv_wr w = { .wr_id = (uint64_t)posted, .sg_list = &s,
					 .num_sge = 1 }, *bad;

		assert_int_equal(ibv_post_srq_recv(srq, &w, &bad), 0);
	}
	for (int i = 0; i < 2000; i += 2) {
		struct emu_qp *from[2] = { &a, &c }, *to[2] = { &b, &d };

		/* message i lands on b, message i + 1 on d; the CQs are polled
		 * d first, so libmlx4 frees the SRQ WQEs out of order and the
		 * device must follow the relinked free list */
		for (int k = 0; k < 2; k++) {
			emu_fill(from[k]->buf, 48, (unsigned)(i + k));
			post_send(from[k], (uint64_t)(i + k), 0, 48, 1);
			emu_poll_one(from[k]->scq, IBV_WC_SUCCESS);
		}
		for (int k = 1; k >= 0; k--) {
			struct ibv_sge s;
			struct ibv_recv_wr w = { 0 }, *bad;

			wc = emu_poll_one(to[k]->rcq, IBV_WC_SUCCESS);
			/* the SRQ hands out WQEs in posting order */
			assert_int_equal(wc.wr_id, (uint64_t)(i + k));
			assert_int_equal(wc.qp_num, to[k]->qp->qp_num);
			assert_memory_equal(rbuf + (wc.wr_id % 1024) * 64, from[k]->buf, 48);
			s = (struct ibv_sge){ (uintptr_t)rbuf + ((uint64_t)posted % 1024) * 64,
					      64, rmr->lkey };
			w.wr_id = (uint64_t)posted++;
			w.sg_list = &s;
			w.num_sge = 1;
			assert_int_equal(ibv_post_srq_recv(srq, &w, &bad), 0);
		}
	}
	emu_qp_destroy(&a);
	emu_qp_destroy(&b);
	emu_qp_destroy(&c);
	emu_qp_destroy(&d);
	assert_int_equal(ibv_destroy_srq(srq), 0);
	assert_int_equal(ibv_dereg_mr(rmr), 0);
	free(rbuf);
	emu_env_close(&e);
}

/* A CQ shared by send and receive of 2 QPs, consumed in bursts. */
static void test_shared_cq_laps(void **state)
{
	struct emu_env e;
	struct ibv_cq *cq;
	struct ibv_qp_init_attr ia;
	struct emu_qp a, b;
	struct ibv_wc wc[8];
	int got = 0;

	(void)state;
	emu_env_open(&e, 1);
	cq = ibv_create_cq(e.ctx, 8, NULL, NULL, 0);
	assert_non_null(cq);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	a.qp = ibv_create_qp(e.pd, &ia);
	b.qp = ibv_create_qp(e.pd, &ia);
	assert_non_null(a.qp);
	assert_non_null(b.qp);
	a.buf = calloc(1, 4096);
	a.mr = ibv_reg_mr(e.pd, a.buf, 4096, ACC);
	emu_qp_to_rts(&e, a.qp, b.qp->qp_num, ACC);
	emu_qp_to_rts(&e, b.qp, a.qp->qp_num, ACC);
	for (int i = 0; i < 1500; i++) {
		emu_post_recv(b.qp, 1, a.buf + 2048, 64, a.mr->lkey);
		post_send(&a, 2, 0, 16, 1);
		got = emu_poll(cq, wc, 2);
		assert_int_equal(got, 2);
		assert_int_equal(wc[0].status, IBV_WC_SUCCESS);
		assert_int_equal(wc[1].status, IBV_WC_SUCCESS);
		assert_int_equal(wc[0].wr_id + wc[1].wr_id, 3);
	}
	assert_int_equal(ibv_destroy_qp(a.qp), 0);
	assert_int_equal(ibv_destroy_qp(b.qp), 0);
	assert_int_equal(ibv_dereg_mr(a.mr), 0);
	free(a.buf);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	emu_env_close(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sq_rq_cq_laps),
		cmocka_unit_test(test_wqe_counter_wraps),
		cmocka_unit_test(test_srq_laps),
		cmocka_unit_test(test_shared_cq_laps),
	};

	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
