// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Error paths a ConnectX-3 reports, each on the side where it reports it:
 * local protection, remote access, remote invalid request, local length,
 * RNR retries, transport retries, and the flush of every outstanding WQE
 * once a QP is in the error state (each wr_id exactly once).
 */
#include "emu_test.h"

#include <string.h>
#include "test_exit.h"

#define ALL_ACCESS (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
		    IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_LOCAL_WRITE)

struct pair {
	struct emu_env e;
	struct emu_qp a, b;
};

static struct pair *pair_new(int b_access, uint8_t rnr_retry)
{
	struct pair *p = calloc(1, sizeof(*p));
	struct ibv_qp_attr attr = { .rnr_retry = rnr_retry };

	emu_env_open(&p->e, 1);
	emu_qp_create(&p->e, &p->a, IBV_QPT_RC, 64, 64, 512, 1 << 16, NULL);
	emu_qp_create(&p->e, &p->b, IBV_QPT_RC, 64, 64, 512, 1 << 16, NULL);
	emu_qp_to_rts(&p->e, p->a.qp, p->b.qp->qp_num, ALL_ACCESS);
	emu_qp_to_rts(&p->e, p->b.qp, p->a.qp->qp_num, b_access);
	(void)attr;
	if (rnr_retry != 7) {
		/* rnr_retry may be changed only with SQD->SQD or at RTR->RTS:
		 * rebuild a's path through ERR->RESET */
		struct ibv_qp_attr r = { .qp_state = IBV_QPS_RESET };

		assert_int_equal(ibv_modify_qp(p->a.qp, &r, IBV_QP_STATE), 0);
		emu_qp_to_rts(&p->e, p->a.qp, p->b.qp->qp_num, ALL_ACCESS);
		memset(&r, 0, sizeof(r));
		r.qp_state = IBV_QPS_SQD;
		assert_int_equal(ibv_modify_qp(p->a.qp, &r, IBV_QP_STATE), 0);
		r.qp_state = IBV_QPS_SQD;
		r.rnr_retry = rnr_retry;
		assert_int_equal(ibv_modify_qp(p->a.qp, &r, IBV_QP_STATE | IBV_QP_RNR_RETRY), 0);
		r.qp_state = IBV_QPS_RTS;
		assert_int_equal(ibv_modify_qp(p->a.qp, &r, IBV_QP_STATE), 0);
	}
	return p;
}

static void pair_free(struct pair *p)
{
	emu_qp_destroy(&p->a);
	emu_qp_destroy(&p->b);
	emu_env_close(&p->e);
	free(p);
}

static int post(struct pair *p, enum ibv_wr_opcode op, uint64_t laddr, uint32_t len,
		uint32_t lkey, uint64_t raddr, uint32_t rkey, uint64_t wr_id)
{
	struct ibv_sge sge = { laddr, len, lkey };
	struct ibv_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD || op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
	}
	return emu_post_send(p->a.qp, &wr);
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr i;

	assert_int_equal(ibv_query_qp(qp, &a, IBV_QP_STATE, &i), 0);
	return a.qp_state;
}

static void test_bad_lkey(void **state)
{
	struct pair *p = pair_new(ALL_ACCESS, 7);
	struct ibv_wc wc;

	(void)state;
	emu_post_recv(p->b.qp, 1, p->b.buf, 4096, p->b.mr->lkey);
	assert_int_equal(post(p, IBV_WR_SEND, (uintptr_t)p->a.buf, 64,
			      p->a.mr->lkey ^ 0x5500, 0, 0, 11), 0);
	wc = emu_poll_one(p->a.scq, IBV_WC_LOC_PROT_ERR);
	assert_int_equal(wc.wr_id, 11);
	assert_int_equal(qp_state(p->a.qp), IBV_QPS_ERR);
	/* the responder saw nothing */
	emu_assert_cq_empty(&p->e, p->b.rcq);
	pair_free(p);
}

static void test_lkey_out_of_bounds(void **state)
{
	struct pair *p = pair_new(ALL_ACCESS, 7);

	(void)state;
	emu_post_recv(p->b.qp, 1, p->b.buf, 4096, p->b.mr->lkey);
	/* one byte past the end of the MR */
	assert_int_equal(post(p, IBV_WR_SEND, (uintptr_t)p->a.buf + p->a.len - 63, 64,
			      p->a.mr->lkey, 0, 0, 12), 0);
	emu_poll_one(p->a.scq, IBV_WC_LOC_PROT_ERR);
	pair_free(p);
}

static void test_bad_rkey(void **state)
{
	struct pair *p = pair_new(ALL_ACCESS, 7);
	struct ibv_wc wc;

	(void)state;
	assert_int_equal(post(p, IBV_WR_RDMA_WRITE, (uintptr_t)p->a.buf, 64, p->a.mr->lkey,
			      (uintptr_t)p->b.buf, p->b.mr->rkey + 1, 13), 0);
	wc = emu_poll_one(p->a.scq, IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(wc.wr_id, 13);
	assert_int_equal(qp_state(p->a.qp), IBV_QPS_ERR);
	pair_free(p);
}

static void test_rkey_out_of_bounds(void **state)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ, IBV_WR_ATOMIC_FETCH_AND_ADD
	};

	(void)state;
	for (unsigned i = 0; i < 3; i++) {
		struct pair *p = pair_new(ALL_ACCESS, 7);

		memset(p->b.buf, 0x5a, p->b.len);
		assert_int_equal(post(p, ops[i], (uintptr_t)p->a.buf, 8, p->a.mr->lkey,
				      (uintptr_t)p->b.buf + p->b.len - 4 * (i != 2), p->b.mr->rkey,
				      14), 0);
		emu_poll_one(p->a.scq, IBV_WC_REM_ACCESS_ERR);
		/* nothing of the remote buffer changed */
		for (size_t j = 0; j < p->b.len; j++)
			assert_int_equal(p->b.buf[j], 0x5a);
		pair_free(p);
	}
}

static void test_mr_access_flags(void **state)
{
	struct pair *p = pair_new(ALL_ACCESS, 7);
	struct ibv_mr *ro = ibv_reg_mr(p->e.pd, p->b.buf, 4096, 0);

	(void)state;
	assert_non_null(ro);
	/* remote write into an MR registered without remote write */
	assert_int_equal(post(p, IBV_WR_RDMA_WRITE, (uintptr_t)p->a.buf, 8, p->a.mr->lkey,
			      (uintptr_t)p->b.buf, ro->rkey, 15), 0);
	emu_poll_one(p->a.scq, IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(ibv_dereg_mr(ro), 0);
	pair_free(p);

	/* remote write needs local write at registration */
	p = pair_new(ALL_ACCESS, 7);
	errno = 0;
	assert_null(ibv_reg_mr(p->e.pd, p->b.buf, 4096, IBV_ACCESS_REMOTE_WRITE));
	assert_int_equal(errno, EINVAL);
	pair_free(p);
}

static void test_receive_into_read_only_mr(void **state)
{
	struct pair *p = pair_new(ALL_ACCESS, 7);
	struct ibv_mr *ro = ibv_reg_mr(p->e.pd, p->b.buf, 4096, 0);

	(void)state;
	emu_post_recv(p->b.qp, 21, p->b.buf, 4096, ro->lkey);
	assert_int_equal(post(p, IBV_WR_SEND, (uintptr_t)p->a.buf, 16, p->a.mr->lkey,
			      0, 0, 22), 0);
	assert_int_equal(emu_poll_one(p->b.rcq, IBV_WC_LOC_PROT_ERR).wr_id, 21);
	emu_poll_one(p->a.scq, IBV_WC_REM_OP_ERR);
	assert_int_equal(ibv_dereg_mr(ro), 0);
	pair_free(p);
}

static void test_qp_access_flags(void **state)
{
	struct pair *p = pair_new(IBV_ACCESS_REMOTE_WRITE, 7);

	(void)state;
	/* b's QP does not allow remote reads */
	assert_int_equal(post(p, IBV_WR_RDMA_READ, (uintptr_t)p->a.buf, 8, p->a.mr->lkey,
			      (uintptr_t)p->b.buf, p->b.mr->rkey, 16), 0);
	emu_poll_one(p->a.scq, IBV_WC_REM_INV_REQ_ERR);
	pair_free(p);
}

static void test_receive_too_small(void **state)
{
	struct pair *p = pair_new(ALL_ACCESS, 7);
	struct ibv_wc wc;

	(void)state;
	emu_post_recv(p->b.qp, 31, p->b.buf, 16, p->b.mr->lkey);
	assert_int_equal(post(p, IBV_WR_SEND, (uintptr_t)p->a.buf, 17, p->a.mr->lkey,
			      0, 0, 32), 0);
	wc = emu_poll_one(p->b.rcq, IBV_WC_LOC_LEN_ERR);
	assert_int_equal(wc.wr_id, 31);
	emu_poll_one(p->a.scq, IBV_WC_REM_INV_REQ_ERR);
	assert_int_equal(qp_state(p->b.qp), IBV_QPS_ERR);
	pair_free(p);
}

static void test_rnr_retry_exceeded(void **state)
{
	struct pair *p = pair_new(ALL_ACCESS, 2);
	struct mlx4emu_counters before, after;

	(void)state;
	p->e.ctl.get_counters(&before);
	assert_int_equal(post(p, IBV_WR_SEND, (uintptr_t)p->a.buf, 8, p->a.mr->lkey,
			      0, 0, 41), 0);
	assert_int_equal(emu_poll_one(p->a.scq, IBV_WC_RNR_RETRY_EXC_ERR).wr_id, 41);
	p->e.ctl.get_counters(&after);
	/* the first try and two retries */
	assert_int_equal(after.rnr_naks - before.rnr_naks, 3);
	pair_free(p);
}

static void test_rnr_infinite_then_receive(void **state)
{
	struct pair *p = pair_new(ALL_ACCESS, 7);
	struct mlx4emu_counters c;
	struct ibv_wc wc;

	(void)state;
	emu_fill(p->a.buf, 100, 4);
	assert_int_equal(post(p, IBV_WR_SEND, (uintptr_t)p->a.buf, 100, p->a.mr->lkey,
			      0, 0, 42), 0);
	/* keep NAKing until a receive shows up */
	do {
		p->e.ctl.get_counters(&c);
	} while (c.rnr_naks < 5);
	assert_int_equal(ibv_poll_cq(p->a.scq, 1, &wc), 0);
	emu_post_recv(p->b.qp, 43, p->b.buf, 4096, p->b.mr->lkey);
	assert_int_equal(emu_poll_one(p->a.scq, IBV_WC_SUCCESS).wr_id, 42);
	assert_int_equal(emu_poll_one(p->b.rcq, IBV_WC_SUCCESS).byte_len, 100);
	assert_memory_equal(p->b.buf, p->a.buf, 100);
	pair_free(p);
}

static void test_transport_retry(void **state)
{
	struct emu_env e;
	struct emu_qp a;

	(void)state;
	emu_env_open(&e, 1);
	emu_qp_create(&e, &a, IBV_QPT_RC, 8, 8, 16, 4096, NULL);
	/* connected to a QPN nobody owns */
	emu_qp_to_rts(&e, a.qp, 0xfff0, ALL_ACCESS);
	{
		struct ibv_sge sge = { (uintptr_t)a.buf, 8, a.mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 51, .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED };

		assert_int_equal(emu_post_send(a.qp, &wr), 0);
	}
	assert_int_equal(emu_poll_one(a.scq, IBV_WC_RETRY_EXC_ERR).wr_id, 51);
	emu_qp_destroy(&a);
	emu_env_close(&e);
}

/* Every outstanding WQE completes exactly once with WR_FLUSH_ERR. */
static void test_flush_on_error(void **state)
{
	struct pair *p = pair_new(ALL_ACCESS, 7);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc[64];
	int seen_send[20] = { 0 }, seen_recv[30] = { 0 }, n;

	(void)state;
	/* a's sends wait behind an RNR NAK: b has no receive */
	for (int i = 0; i < 20; i++)
		assert_int_equal(post(p, IBV_WR_SEND, (uintptr_t)p->a.buf, 8,
				      p->a.mr->lkey, 0, 0, 100 + (uint64_t)i), 0);
	for (int i = 0; i < 30; i++)
		emu_post_recv(p->a.qp, 200 + (uint64_t)i, p->a.buf, 64, p->a.mr->lkey);
	assert_int_equal(ibv_modify_qp(p->a.qp, &a, IBV_QP_STATE), 0);

	n = emu_poll(p->a.scq, wc, 20);
	assert_int_equal(n, 20);
	for (int i = 0; i < n; i++) {
		assert_int_equal(wc[i].status, IBV_WC_WR_FLUSH_ERR);
		assert_true(wc[i].wr_id >= 100 && wc[i].wr_id < 120);
		seen_send[wc[i].wr_id - 100]++;
	}
	n = emu_poll(p->a.rcq, wc, 30);
	assert_int_equal(n, 30);
	for (int i = 0; i < n; i++) {
		assert_int_equal(wc[i].status, IBV_WC_WR_FLUSH_ERR);
		assert_true(wc[i].wr_id >= 200 && wc[i].wr_id < 230);
		seen_recv[wc[i].wr_id - 200]++;
	}
	for (int i = 0; i < 20; i++)
		assert_int_equal(seen_send[i], 1);
	for (int i = 0; i < 30; i++)
		assert_int_equal(seen_recv[i], 1);
	/* posted while in error: flushed too */
	assert_int_equal(post(p, IBV_WR_SEND, (uintptr_t)p->a.buf, 8, p->a.mr->lkey,
			      0, 0, 300), 0);
	assert_int_equal(emu_poll_one(p->a.scq, IBV_WC_WR_FLUSH_ERR).wr_id, 300);
	emu_assert_cq_empty(&p->e, p->a.scq);
	emu_assert_cq_empty(&p->e, p->a.rcq);
	pair_free(p);
}

/* After an error CQE the rest of the queue is flushed, nothing is lost. */
static void test_error_then_flush(void **state)
{
	struct pair *p = pair_new(ALL_ACCESS, 7);
	struct ibv_wc wc[16];

	(void)state;
	for (int i = 0; i < 10; i++)
		assert_int_equal(post(p, IBV_WR_RDMA_WRITE, (uintptr_t)p->a.buf, 8,
				      p->a.mr->lkey, (uintptr_t)p->b.buf,
				      i == 3 ? 0xdead00 : p->b.mr->rkey,
				      400 + (uint64_t)i), 0);
	assert_int_equal(emu_poll(p->a.scq, wc, 10), 10);
	for (int i = 0; i < 10; i++) {
		assert_int_equal(wc[i].wr_id, 400 + (uint64_t)i);
		assert_int_equal(wc[i].status, i < 3 ? IBV_WC_SUCCESS :
				 i == 3 ? IBV_WC_REM_ACCESS_ERR : IBV_WC_WR_FLUSH_ERR);
	}
	pair_free(p);
}

/* Back to RESET then RTS: the QP works again from a clean state. */
static void test_recover_through_reset(void **state)
{
	struct pair *p = pair_new(ALL_ACCESS, 7);
	struct ibv_qp_attr r = { .qp_state = IBV_QPS_RESET };

	(void)state;
	assert_int_equal(post(p, IBV_WR_SEND, (uintptr_t)p->a.buf, 8, p->a.mr->lkey ^ 1,
			      0, 0, 60), 0);
	emu_poll_one(p->a.scq, IBV_WC_LOC_PROT_ERR);
	assert_int_equal(ibv_modify_qp(p->a.qp, &r, IBV_QP_STATE), 0);
	emu_qp_to_rts(&p->e, p->a.qp, p->b.qp->qp_num, ALL_ACCESS);
	emu_post_recv(p->b.qp, 61, p->b.buf, 64, p->b.mr->lkey);
	assert_int_equal(post(p, IBV_WR_SEND, (uintptr_t)p->a.buf, 8, p->a.mr->lkey,
			      0, 0, 62), 0);
	assert_int_equal(emu_poll_one(p->a.scq, IBV_WC_SUCCESS).wr_id, 62);
	assert_int_equal(emu_poll_one(p->b.rcq, IBV_WC_SUCCESS).wr_id, 61);
	pair_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_lkey),
		cmocka_unit_test(test_lkey_out_of_bounds),
		cmocka_unit_test(test_bad_rkey),
		cmocka_unit_test(test_rkey_out_of_bounds),
		cmocka_unit_test(test_mr_access_flags),
		cmocka_unit_test(test_receive_into_read_only_mr),
		cmocka_unit_test(test_qp_access_flags),
		cmocka_unit_test(test_receive_too_small),
		cmocka_unit_test(test_rnr_retry_exceeded),
		cmocka_unit_test(test_rnr_infinite_then_receive),
		cmocka_unit_test(test_transport_retry),
		cmocka_unit_test(test_flush_on_error),
		cmocka_unit_test(test_error_then_flush),
		cmocka_unit_test(test_recover_through_reset),
	};

	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
