// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Completion channel events (arming, solicited-only, re-arming, acks)
 * and async events on the context's async fd (SRQ limit, CQ overrun).
 */
#include "emu_test.h"

#include <poll.h>
#include <string.h>
#include "test_exit.h"

#define ACC (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE)

struct chan {
	struct emu_env e;
	struct ibv_comp_channel *ch;
	struct ibv_cq *rcq, *scq;
	struct ibv_qp *a, *b;
	uint8_t *buf;
	struct ibv_mr *mr;
};

static int ready(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms);
}

static struct ibv_qp *make_qp(struct chan *c)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = c->scq;
	ia.recv_cq = c->rcq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	qp = ibv_create_qp(c->e.pd, &ia);
	assert_non_null(qp);
	return qp;
}

static int setup(void **state)
{
	struct chan *c = calloc(1, sizeof(*c));

	emu_env_open(&c->e, 1);
	c->ch = ibv_create_comp_channel(c->e.ctx);
	assert_non_null(c->ch);
	c->rcq = ibv_create_cq(c->e.ctx, 64, (void *)0x1234, c->ch, 0);
	c->scq = ibv_create_cq(c->e.ctx, 64, NULL, NULL, 0);
	assert_non_null(c->rcq);
	assert_non_null(c->scq);
	c->a = make_qp(c);
	c->b = make_qp(c);
	emu_qp_to_rts(&c->e, c->a, c->b->qp_num, ACC);
	emu_qp_to_rts(&c->e, c->b, c->a->qp_num, ACC);
	c->buf = calloc(1, 4096);
	c->mr = ibv_reg_mr(c->e.pd, c->buf, 4096, ACC);
	assert_non_null(c->mr);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct chan *c = *state;

	assert_int_equal(ibv_destroy_qp(c->a), 0);
	assert_int_equal(ibv_destroy_qp(c->b), 0);
	/* returns only once every delivered event was acknowledged */
	assert_int_equal(ibv_destroy_cq(c->rcq), 0);
	assert_int_equal(ibv_destroy_cq(c->scq), 0);
	assert_int_equal(ibv_destroy_comp_channel(c->ch), 0);
	assert_int_equal(ibv_dereg_mr(c->mr), 0);
	free(c->buf);
	emu_env_close(&c->e);
	free(c);
	return 0;
}

static void send_one(struct chan *c, int solicited)
{
	struct ibv_sge s = { (uintptr_t)c->buf, 8, c->mr->lkey };
	struct ibv_send_wr w = { .wr_id = 1, .sg_list = &s, .num_sge = 1,
				 .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED |
					       (solicited ? IBV_SEND_SOLICITED : 0) };

	emu_post_recv(c->b, 2, c->buf + 1024, 64, c->mr->lkey);
	assert_int_equal(emu_post_send(c->a, &w), 0);
	emu_poll_one(c->scq, IBV_WC_SUCCESS);
}

static void get_event(struct chan *c)
{
	struct ibv_cq *cq;
	void *ctx;

	assert_int_equal(ready(c->ch->fd, 5000), 1);
	assert_int_equal(ibv_get_cq_event(c->ch, &cq, &ctx), 0);
	assert_ptr_equal(cq, c->rcq);
	assert_ptr_equal(ctx, (void *)0x1234);
	ibv_ack_cq_events(cq, 1);
}

static void test_no_event_unarmed(void **state)
{
	struct chan *c = *state;

	send_one(c, 0);
	emu_poll_one(c->rcq, IBV_WC_SUCCESS);
	emu_idle(&c->e);
	assert_int_equal(ready(c->ch->fd, 20), 0);
}

static void test_event_and_rearm(void **state)
{
	struct chan *c = *state;

	for (int i = 0; i < 10; i++) {
		assert_int_equal(ibv_req_notify_cq(c->rcq, 0), 0);
		send_one(c, 0);
		get_event(c);
		emu_poll_one(c->rcq, IBV_WC_SUCCESS);
		/* one event per arming: a second CQE raises nothing */
		send_one(c, 0);
		emu_poll_one(c->rcq, IBV_WC_SUCCESS);
		emu_idle(&c->e);
		assert_int_equal(ready(c->ch->fd, 0), 0);
	}
}

static void test_solicited_only(void **state)
{
	struct chan *c = *state;

	assert_int_equal(ibv_req_notify_cq(c->rcq, 1), 0);
	send_one(c, 0);
	emu_poll_one(c->rcq, IBV_WC_SUCCESS);
	emu_idle(&c->e);
	assert_int_equal(ready(c->ch->fd, 20), 0);
	send_one(c, 1);
	get_event(c);
	emu_poll_one(c->rcq, IBV_WC_SUCCESS);
}

/* Arming again before the event was read (libmlx4's arm sequence number
 * has not moved) must not produce a second event. */
static void test_stale_arm_ignored(void **state)
{
	struct chan *c = *state;
	struct pollfd p = { .events = POLLIN };
	struct ibv_cq *cq;
	void *ctx;

	assert_int_equal(ibv_req_notify_cq(c->rcq, 0), 0);
	send_one(c, 0);
	emu_poll_one(c->rcq, IBV_WC_SUCCESS);
	assert_int_equal(ready(c->ch->fd, 5000), 1);
	/* consumer index moved: the re-arm is a new record with the old sn */
	assert_int_equal(ibv_req_notify_cq(c->rcq, 0), 0);
	send_one(c, 0);
	emu_poll_one(c->rcq, IBV_WC_SUCCESS);
	emu_idle(&c->e);
	assert_int_equal(ibv_get_cq_event(c->ch, &cq, &ctx), 0);
	ibv_ack_cq_events(cq, 1);
	p.fd = c->ch->fd;
	assert_int_equal(poll(&p, 1, 20), 0);
}

static void test_armed_after_cqe_fires(void **state)
{
	struct chan *c = *state;

	/* a CQE already there when the CQ is armed raises the event at once */
	send_one(c, 0);
	emu_idle(&c->e);
	assert_int_equal(ibv_req_notify_cq(c->rcq, 0), 0);
	get_event(c);
	emu_poll_one(c->rcq, IBV_WC_SUCCESS);
}

static void get_async(struct emu_env *e, enum ibv_event_type type, void *obj)
{
	struct ibv_async_event ev;

	assert_int_equal(ready(e->ctx->async_fd, 5000), 1);
	assert_int_equal(ibv_get_async_event(e->ctx, &ev), 0);
	assert_int_equal(ev.event_type, type);
	assert_ptr_equal(ev.element.cq, obj);
	ibv_ack_async_event(&ev);
}

static void test_srq_limit_event(void **state)
{
	struct chan *c = *state;
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 15, .max_sge = 1 } };
	struct ibv_srq_attr lim = { .srq_limit = 3 };
	struct ibv_qp_init_attr ia;
	struct ibv_srq *srq = ibv_create_srq(c->e.pd, &sa);
	struct ibv_qp *rx, *tx;

	assert_non_null(srq);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = c->scq;
	ia.recv_cq = c->scq;
	ia.srq = srq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 16;
	ia.cap.max_send_sge = 1;
	rx = ibv_create_qp(c->e.pd, &ia);
	ia.srq = NULL;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_recv_sge = 1;
	tx = ibv_create_qp(c->e.pd, &ia);
	assert_non_null(rx);
	assert_non_null(tx);
	emu_qp_to_rts(&c->e, rx, tx->qp_num, ACC);
	emu_qp_to_rts(&c->e, tx, rx->qp_num, ACC);
	for (int i = 0; i < 5; i++) {
		struct ibv_sge s = { (uintptr_t)c->buf, 64, c->mr->lkey };
		struct ibv_recv_wr w = { .wr_id = 9, .sg_list = &s, .num_sge = 1 }, *bad;

		assert_int_equal(ibv_post_srq_recv(srq, &w, &bad), 0);
	}
	assert_int_equal(ibv_modify_srq(srq, &lim, IBV_SRQ_LIMIT), 0);
	for (int i = 0; i < 3; i++) {
		struct ibv_sge s = { (uintptr_t)c->buf, 8, c->mr->lkey };
		struct ibv_send_wr w = { .wr_id = 1, .sg_list = &s, .num_sge = 1,
					 .opcode = IBV_WR_SEND,
					 .send_flags = IBV_SEND_SIGNALED };

		assert_int_equal(emu_post_send(tx, &w), 0);
		emu_poll_one(c->scq, IBV_WC_SUCCESS);
		emu_poll_one(c->scq, IBV_WC_SUCCESS);
		emu_idle(&c->e);
		/* 5 posted: the limit of 3 is crossed by the third receive */
		assert_int_equal(ready(c->e.ctx->async_fd, 0), i == 2);
	}
	{
		struct ibv_async_event ev;

		assert_int_equal(ibv_get_async_event(c->e.ctx, &ev), 0);
		assert_int_equal(ev.event_type, IBV_EVENT_SRQ_LIMIT_REACHED);
		assert_ptr_equal(ev.element.srq, srq);
		ibv_ack_async_event(&ev);
	}
	assert_int_equal(ibv_query_srq(srq, &lim), 0);
	assert_int_equal(lim.srq_limit, 0);
	assert_int_equal(ibv_destroy_qp(rx), 0);
	assert_int_equal(ibv_destroy_qp(tx), 0);
	assert_int_equal(ibv_destroy_srq(srq), 0);
}

static void test_cq_overrun_event(void **state)
{
	struct chan *c = *state;
	struct ibv_cq *small = ibv_create_cq(c->e.ctx, 1, NULL, NULL, 0);
	struct ibv_qp_init_attr ia;
	struct ibv_qp *qp;
	struct ibv_sge s = { (uintptr_t)c->buf, 8, c->mr->lkey };
	struct ibv_send_wr w = { .wr_id = 1, .sg_list = &s, .num_sge = 1,
				 .opcode = IBV_WR_RDMA_WRITE,
				 .send_flags = IBV_SEND_SIGNALED };

	assert_non_null(small);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = small;
	ia.recv_cq = c->scq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 8;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = ia.cap.max_recv_wr = 1;
	qp = ibv_create_qp(c->e.pd, &ia);
	assert_non_null(qp);
	emu_qp_to_rts(&c->e, qp, c->b->qp_num, ACC);
	w.wr.rdma.remote_addr = (uintptr_t)c->buf;
	w.wr.rdma.rkey = c->mr->rkey;
	/* small has room for 2 CQEs (libmlx4 rounds 1 + 1 up to 2): a third
	 * completion that nobody polled overruns it */
	for (int i = 0; i < 3; i++)
		assert_int_equal(emu_post_send(qp, &w), 0);
	get_async(&c->e, IBV_EVENT_CQ_ERR, small);
	assert_int_equal(ibv_destroy_qp(qp), 0);
	assert_int_equal(ibv_destroy_cq(small), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_event_unarmed),
		cmocka_unit_test(test_event_and_rearm),
		cmocka_unit_test(test_solicited_only),
		cmocka_unit_test(test_stale_arm_ignored),
		cmocka_unit_test(test_armed_after_cqe_fires),
		cmocka_unit_test(test_srq_limit_event),
		cmocka_unit_test(test_cq_overrun_event),
	};

	t_run_group_tests(tests, setup, teardown);
	return t_exit();
}
