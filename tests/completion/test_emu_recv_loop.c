/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A receive loop that uses only the header and libmlx4's mlx4dv_init_obj()
 * on the receiving side: receives posted with mlx4dv_rq_post(), completions
 * polled with mlx4dv_cq_next() and accounted with mlx4dv_rq_complete(),
 * the CQ armed with mlx4dv_cq_arm() and woken by ibv_get_cq_event(), every
 * event acknowledged to the handle (mlx4dv_cq_ack_event()) and, in
 * batches, to verbs (ibv_ack_cq_events()). The sender uses plain verbs.
 * The loop of docs/completion-path.md, run on the software ConnectX-3.
 */
#include "emu_util.h"

#include <fcntl.h>
#include <poll.h>
#include "test_exit.h"

#define NRECV 8
#define SLOT 4096
#define MESSAGES 48

struct receiver {
	struct ibv_comp_channel *channel;
	struct ibv_cq *ibcq;
	struct ibv_cq *send_cq;
	struct ibv_qp *qp;
	struct mlx4dv_cq_ring cq;
	struct mlx4dv_rq_ring rq;
	uint64_t wrid[64];
	struct emu_buf bufs;
	uint32_t received;
	uint32_t events, unacked;
	uint32_t first_arm_sn;	/* libmlx4 starts a CQ at arm_sn 1 */
};

static struct emu_env env;

static void receiver_handles(struct receiver *r)
{
	struct mlx4dv_cq dcq;
	struct mlx4dv_qp dqp;
	struct mlx4dv_obj obj;

	memset(&dcq, 0, sizeof(dcq));
	memset(&dqp, 0, sizeof(dqp));
	memset(&obj, 0, sizeof(obj));
	dcq.comp_mask = MLX4DV_CQ_MASK_UAR;	/* an input: ask for cq_uar */
	dqp.comp_mask = 0;
	obj.cq.in = r->ibcq;
	obj.cq.out = &dcq;
	obj.qp.in = r->qp;
	obj.qp.out = &dqp;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_CQ | MLX4DV_OBJ_QP), 0);
	assert_true(dcq.comp_mask & MLX4DV_CQ_MASK_UAR);

	memset(&r->cq, 0, sizeof(r->cq));
	r->cq.buf = (uint8_t *)dcq.buf.buf;
	r->cq.cqe_cnt = dcq.cqe_cnt;
	r->cq.cqe_size = (uint32_t)dcq.cqe_size;
	r->cq.cons_index = mlx4dv_be32_to_cpu(*dcq.set_ci_db) & 0xffffff;
	r->cq.arm_sn = (uint32_t)dcq.arm_sn;
	r->first_arm_sn = r->cq.arm_sn;
	r->cq.cqn = dcq.cqn;
	r->cq.set_ci_db = dcq.set_ci_db;
	r->cq.arm_db = dcq.arm_db;
	r->cq.uar = (uint8_t *)dcq.cq_uar;

	memset(&r->rq, 0, sizeof(r->rq));
	r->rq.buf = (uint8_t *)dqp.buf.buf + dqp.rq.offset;
	r->rq.wqe_cnt = dqp.rq.wqe_cnt;
	r->rq.wqe_shift = (uint32_t)dqp.rq.wqe_shift;
	r->rq.max_scatter = (1u << r->rq.wqe_shift) / 16;
	r->rq.qpn = r->qp->qp_num;
	r->rq.db = dqp.rdb;
	r->rq.wrid = r->wrid;
	assert_true(r->rq.wqe_cnt <= 64);
}

static void post_one(struct receiver *r, uint64_t n)
{
	struct ibv_sge sge = { (uintptr_t)r->bufs.p + (n % NRECV) * SLOT, SLOT,
			       r->bufs.mr->lkey };

	assert_int_equal(mlx4dv_rq_post(&r->rq, n, &sge, 1), 0);
}

/* Polls everything there is; checks order, length and payload; reposts. */
static uint32_t drain(struct receiver *r)
{
	struct mlx4_cqe *cqe;
	uint32_t n = 0;

	while ((cqe = mlx4dv_cq_next(&r->cq))) {
		uint64_t wr_id = ~0ULL;
		const uint8_t *data;

		assert_false(mlx4dv_cqe_is_error(cqe));
		assert_int_equal(mlx4dv_cqe_wc_opcode(cqe), IBV_WC_RECV);
		assert_int_equal(mlx4dv_rq_complete(&r->rq, cqe, &wr_id), 0);
		assert_int_equal(wr_id, r->received);
		assert_int_equal(mlx4dv_cqe_byte_len(cqe), 64 + r->received);
		data = r->bufs.p + (wr_id % NRECV) * SLOT;
		assert_int_equal(data[0], (uint8_t)r->received);
		assert_int_equal(data[63 + r->received], (uint8_t)~r->received);
		post_one(r, wr_id + NRECV);
		r->received++;
		n++;
	}
	if (n)
		mlx4dv_cq_update_ci(&r->cq);
	return n;
}

/* Sleeps on the channel (10 s guard against a lost event). */
static void wait_event(struct receiver *r)
{
	struct pollfd pfd = { r->channel->fd, POLLIN, 0 };
	struct ibv_cq *ev_cq;
	void *ev_ctx;

	if (poll(&pfd, 1, 10000) != 1)
		fail_msg("no completion event after arming (arm_sn %u, ci %u)",
			 r->cq.arm_sn, r->cq.cons_index);
	assert_int_equal(ibv_get_cq_event(r->channel, &ev_cq, &ev_ctx), 0);
	assert_ptr_equal(ev_cq, r->ibcq);
	mlx4dv_cq_ack_event(&r->cq);
	r->events++;
	if (++r->unacked == 4) {
		ibv_ack_cq_events(r->ibcq, r->unacked);
		r->unacked = 0;
	}
}

static void send_message(struct ibv_qp *qp, struct emu_buf *b, uint32_t n, int solicited)
{
	struct ibv_sge sge = { (uintptr_t)b->p + (n % 16) * 256, 64 + n, b->mr->lkey };
	struct ibv_send_wr wr, *bad = NULL;

	b->p[(n % 16) * 256] = (uint8_t)n;
	b->p[(n % 16) * 256 + 63 + n] = (uint8_t)~n;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = n;
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED | (solicited ? IBV_SEND_SOLICITED : 0);
	assert_int_equal(ibv_post_send(qp, &wr, &bad), 0);
}

static void run_loop(int solicited_only)
{
	struct receiver r;
	struct ibv_cq *scq;
	struct ibv_qp *sqp;
	struct emu_buf sbuf;
	struct ibv_wc wc[8];
	uint32_t sent = 0, send_done = 0;
	int i, flags;

	memset(&r, 0, sizeof(r));
	r.channel = ibv_create_comp_channel(env.ctx);
	assert_non_null(r.channel);
	flags = fcntl(r.channel->fd, F_GETFL);
	assert_int_equal(fcntl(r.channel->fd, F_SETFL, flags | O_NONBLOCK), 0);
	r.ibcq = ibv_create_cq(env.ctx, 32, NULL, r.channel, 0);
	r.send_cq = ibv_create_cq(env.ctx, 32, NULL, NULL, 0);
	scq = ibv_create_cq(env.ctx, 64, NULL, NULL, 0);
	assert_non_null(r.ibcq);
	assert_non_null(r.send_cq);
	assert_non_null(scq);
	r.qp = emu_qp_create(&env, IBV_QPT_RC, r.send_cq, r.ibcq, NULL, NRECV, 1, 0);
	sqp = emu_qp_create(&env, IBV_QPT_RC, scq, scq, NULL, 1, 1, 0);
	emu_rc_connect(&env, r.qp, sqp->qp_num);
	emu_rc_connect(&env, sqp, r.qp->qp_num);
	emu_buf_alloc(&env, &r.bufs, NRECV * SLOT);
	emu_buf_alloc(&env, &sbuf, 16 * 256);
	receiver_handles(&r);
	for (i = 0; i < NRECV; i++)
		post_one(&r, (uint64_t)i);

	while (r.received < MESSAGES) {
		int n;

		if (drain(&r))
			continue;
		mlx4dv_cq_arm(&r.cq, solicited_only);
		/* The software device applies an arm between two passes of its
		 * engine; a real one in doorbell order. Once it is applied,
		 * every later CQE sees it. */
		emu_wait_idle(&env);
		if (drain(&r))		/* arrived before the arm took effect */
			continue;
		/* Empty and armed: the next burst must raise an event. At most
		 * 4 in flight, never more than the RQ holds. */
		while (sent < MESSAGES && sent - r.received < 4)
			send_message(sqp, &sbuf, sent++, solicited_only);
		wait_event(&r);
		n = ibv_poll_cq(scq, 8, wc);
		assert_true(n >= 0);
		for (i = 0; i < n; i++)
			assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
		send_done += (uint32_t)n;
	}
	emu_wait_idle(&env);
	while (send_done < MESSAGES) {
		int n = ibv_poll_cq(scq, 8, wc);

		assert_true(n > 0);
		send_done += (uint32_t)n;
	}
	assert_true(r.events >= 1);
	/* An arm that found CQEs already past its consumer index fired an
	 * event the loop did not wait for. ibv_destroy_cq() waits until
	 * every event the device reported is acknowledged, so collect the
	 * ones still in the channel, then acknowledge the rest. */
	for (;;) {
		struct pollfd pfd = { r.channel->fd, POLLIN, 0 };

		if (poll(&pfd, 1, 0) != 1)
			break;
		wait_event(&r);
	}
	assert_int_equal(r.cq.arm_sn - r.first_arm_sn, r.events);
	ibv_ack_cq_events(r.ibcq, r.unacked);
	print_message("%u messages, %u events (%s)\n", r.received, r.events,
		      solicited_only ? "solicited" : "any");

	assert_int_equal(ibv_destroy_qp(r.qp), 0);
	assert_int_equal(ibv_destroy_qp(sqp), 0);
	assert_int_equal(ibv_destroy_cq(r.ibcq), 0);
	assert_int_equal(ibv_destroy_cq(r.send_cq), 0);
	assert_int_equal(ibv_destroy_cq(scq), 0);
	assert_int_equal(ibv_destroy_comp_channel(r.channel), 0);
	emu_buf_free(&r.bufs);
	emu_buf_free(&sbuf);
}

static void test_loop_any(void **state)
{
	(void)state;
	run_loop(0);
}

static void test_loop_solicited(void **state)
{
	(void)state;
	run_loop(1);
}

static int setup(void **state)
{
	(void)state;
	emu_env_open(&env);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	emu_env_close(&env);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loop_any),
		cmocka_unit_test(test_loop_solicited),
	};

	t_run_group_tests_name("completion_emu_recv_loop", tests, setup, teardown);
	return t_exit();
}
