// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Event accounting as the kernel's uverbs layer does it: an object's
 * events_reported is the number of its events the program *read*, and
 * destroying it drops the unread ones, so ibv_destroy_cq/qp/srq never
 * wait for an event nobody will read (ib_uverbs_event_read,
 * ib_uverbs_release_ucq/uevent).  A destroy that would wait forever is
 * caught by the alarm (the default SIGALRM action fails the test).
 */
#include "emu_test.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>
#include "test_exit.h"

#define ACC (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE)
#define DESTROY_ALARM_S 30

struct fix {
	struct emu_env e;
	struct ibv_comp_channel *ch;
	struct ibv_cq *scq;
	uint8_t *buf;
	struct ibv_mr *mr;
};

static int ready(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms);
}

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));

	emu_env_open(&f->e, 1);
	f->ch = ibv_create_comp_channel(f->e.ctx);
	assert_non_null(f->ch);
	f->scq = ibv_create_cq(f->e.ctx, 64, NULL, NULL, 0);
	assert_non_null(f->scq);
	f->buf = calloc(1, 4096);
	f->mr = ibv_reg_mr(f->e.pd, f->buf, 4096, ACC);
	assert_non_null(f->mr);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	assert_int_equal(ibv_dereg_mr(f->mr), 0);
	assert_int_equal(ibv_destroy_cq(f->scq), 0);
	assert_int_equal(ibv_destroy_comp_channel(f->ch), 0);
	free(f->buf);
	emu_env_close(&f->e);
	free(f);
	return 0;
}

static struct ibv_qp *rc_qp(struct fix *f, struct ibv_cq *rcq, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = f->scq;
	ia.recv_cq = rcq;
	ia.srq = srq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = srq ? 0 : 16;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	qp = ibv_create_qp(f->e.pd, &ia);
	assert_non_null(qp);
	return qp;
}

/* a SEND from tx to rx, which has a receive posted; the send CQE polled */
/* a pair a -> b, connected, both on srq when not NULL; b's receives
 * complete on rcq */
static void pair(struct fix *f, struct ibv_cq *rcq, struct ibv_srq *srq,
		 struct ibv_qp **a, struct ibv_qp **b)
{
	*a = rc_qp(f, f->scq, srq);
	*b = rc_qp(f, rcq, srq);
	emu_qp_to_rts(&f->e, *a, (*b)->qp_num, ACC);
	emu_qp_to_rts(&f->e, *b, (*a)->qp_num, ACC);
}

/* Destroys a, then b, then cq (each may be NULL): none may wait for an
 * unread event (the alarm fails the test if one does). */
static void destroy_unwaited(struct ibv_qp *a, struct ibv_qp *b, struct ibv_cq *cq)
{
	alarm(DESTROY_ALARM_S);
	if (a)
		assert_int_equal(ibv_destroy_qp(a), 0);
	if (b)
		assert_int_equal(ibv_destroy_qp(b), 0);
	if (cq)
		assert_int_equal(ibv_destroy_cq(cq), 0);
	alarm(0);
}

static void send_to(struct fix *f, struct ibv_qp *tx, struct ibv_qp *rx)
{
	struct ibv_sge s = { (uintptr_t)f->buf, 8, f->mr->lkey };
	struct ibv_send_wr w = { .wr_id = 1, .sg_list = &s, .num_sge = 1,
				 .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED };

	emu_post_recv(rx, 2, f->buf + 1024, 64, f->mr->lkey);
	assert_int_equal(emu_post_send(tx, &w), 0);
	emu_poll_one(f->scq, IBV_WC_SUCCESS);
}

static void take_cq_event(struct fix *f, struct ibv_cq *want)
{
	struct ibv_cq *cq;
	void *ctx;

	assert_int_equal(ready(f->ch->fd, 5000), 1);
	assert_int_equal(ibv_get_cq_event(f->ch, &cq, &ctx), 0);
	assert_ptr_equal(cq, want);
	ibv_ack_cq_events(cq, 1);
}

/* The ibv_rc_pingpong -e shape: one event read and acknowledged, the next
 * left unread at exit; destroy returns and the channel is empty after. */
static void test_unread_completion_event_dropped(void **state)
{
	struct fix *f = *state;
	struct ibv_cq *rcq = ibv_create_cq(f->e.ctx, 64, NULL, f->ch, 0);
	struct ibv_qp *a, *b;

	assert_non_null(rcq);
	pair(f, rcq, NULL, &a, &b);
	assert_int_equal(ibv_req_notify_cq(rcq, 0), 0);
	send_to(f, a, b);
	take_cq_event(f, rcq);
	emu_poll_one(rcq, IBV_WC_SUCCESS);
	assert_int_equal(ibv_req_notify_cq(rcq, 0), 0);
	send_to(f, a, b);
	assert_int_equal(ready(f->ch->fd, 5000), 1);
	destroy_unwaited(a, b, rcq);
	assert_int_equal(ready(f->ch->fd, 0), 0);
}

/* Two CQs on one channel, each with an unread event: destroying the
 * first keeps the second's event, which is then read as usual. */
static void test_other_cq_event_kept(void **state)
{
	struct fix *f = *state;
	struct ibv_cq *c1 = ibv_create_cq(f->e.ctx, 64, NULL, f->ch, 0);
	struct ibv_cq *c2 = ibv_create_cq(f->e.ctx, 64, NULL, f->ch, 0);
	struct ibv_qp *a1, *b1, *a2, *b2;

	assert_non_null(c1);
	assert_non_null(c2);
	pair(f, c1, NULL, &a1, &b1);
	pair(f, c2, NULL, &a2, &b2);
	assert_int_equal(ibv_req_notify_cq(c1, 0), 0);
	assert_int_equal(ibv_req_notify_cq(c2, 0), 0);
	send_to(f, a1, b1);
	emu_idle(&f->e);
	send_to(f, a2, b2);
	emu_idle(&f->e);
	destroy_unwaited(a1, b1, c1);
	take_cq_event(f, c2);
	assert_int_equal(ready(f->ch->fd, 0), 0);
	emu_poll_one(c2, IBV_WC_SUCCESS);
	assert_int_equal(ibv_destroy_qp(a2), 0);
	assert_int_equal(ibv_destroy_qp(b2), 0);
	assert_int_equal(ibv_destroy_cq(c2), 0);
}

/* A CQ overrun's IBV_EVENT_CQ_ERR left unread does not hold up its
 * destroy, and leaves the async fd empty. */
static void test_unread_cq_err_dropped(void **state)
{
	struct fix *f = *state;
	struct ibv_cq *small = ibv_create_cq(f->e.ctx, 1, NULL, NULL, 0);
	struct ibv_qp_init_attr ia;
	struct ibv_qp *qp, *peer;
	struct ibv_sge s = { (uintptr_t)f->buf, 8, f->mr->lkey };
	struct ibv_send_wr w = { .wr_id = 1, .sg_list = &s, .num_sge = 1,
				 .opcode = IBV_WR_RDMA_WRITE,
				 .send_flags = IBV_SEND_SIGNALED };

	assert_non_null(small);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = small;
	ia.recv_cq = f->scq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 8;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = ia.cap.max_recv_wr = 1;
	qp = ibv_create_qp(f->e.pd, &ia);
	assert_non_null(qp);
	peer = rc_qp(f, f->scq, NULL);
	emu_qp_to_rts(&f->e, qp, peer->qp_num, ACC);
	emu_qp_to_rts(&f->e, peer, qp->qp_num, ACC);
	w.wr.rdma.remote_addr = (uintptr_t)f->buf;
	w.wr.rdma.rkey = f->mr->rkey;
	/* room for 2 CQEs: the third, unpolled, overruns */
	for (int i = 0; i < 3; i++)
		assert_int_equal(emu_post_send(qp, &w), 0);
	assert_int_equal(ready(f->e.ctx->async_fd, 5000), 1);
	destroy_unwaited(qp, NULL, small);
	assert_int_equal(ready(f->e.ctx->async_fd, 0), 0);
	assert_int_equal(ibv_destroy_qp(peer), 0);
}

/* IBV_EVENT_QP_LAST_WQE_REACHED of a QP on an SRQ, left unread, does not
 * hold up ibv_destroy_qp; one that was read is counted. */
static void test_unread_qp_event_dropped(void **state)
{
	struct fix *f = *state;
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 15, .max_sge = 1 } };
	struct ibv_srq *srq = ibv_create_srq(f->e.pd, &sa);
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	struct ibv_async_event ev;
	struct ibv_qp *read_one, *unread;

	assert_non_null(srq);
	pair(f, f->scq, srq, &read_one, &unread);
	assert_int_equal(ibv_modify_qp(read_one, &err, IBV_QP_STATE), 0);
	assert_int_equal(ready(f->e.ctx->async_fd, 5000), 1);
	assert_int_equal(ibv_get_async_event(f->e.ctx, &ev), 0);
	assert_int_equal(ev.event_type, IBV_EVENT_QP_LAST_WQE_REACHED);
	assert_ptr_equal(ev.element.qp, read_one);
	ibv_ack_async_event(&ev);
	assert_int_equal(ibv_modify_qp(unread, &err, IBV_QP_STATE), 0);
	assert_int_equal(ready(f->e.ctx->async_fd, 5000), 1);
	destroy_unwaited(read_one, unread, NULL);
	assert_int_equal(ready(f->e.ctx->async_fd, 0), 0);
	assert_int_equal(ibv_destroy_srq(srq), 0);
}

/* read() on the fds as on the kernel's: EAGAIN on an empty O_NONBLOCK
 * fd, EINVAL for a buffer smaller than one descriptor, one descriptor
 * per call. */
static void test_read_semantics(void **state)
{
	struct fix *f = *state;
	struct ibv_cq *rcq = ibv_create_cq(f->e.ctx, 64, (void *)0x77, f->ch, 0);
	struct ib_desc { uint64_t cq_handle; } d[2];
	struct ibv_qp *a, *b;
	int fl = fcntl(f->ch->fd, F_GETFL);
	char small[4];

	assert_non_null(rcq);
	pair(f, rcq, NULL, &a, &b);
	assert_int_equal(fcntl(f->ch->fd, F_SETFL, fl | O_NONBLOCK), 0);
	errno = 0;
	assert_int_equal(read(f->ch->fd, d, sizeof(d)), -1);
	assert_int_equal(errno, EAGAIN);
	errno = 0;
	assert_int_equal(read(f->e.ctx->async_fd, d, sizeof(d[0])), -1);
	assert_int_equal(errno, EINVAL);	/* 16-byte descriptors */
	assert_int_equal(ibv_req_notify_cq(rcq, 0), 0);
	send_to(f, a, b);
	assert_int_equal(ready(f->ch->fd, 5000), 1);
	errno = 0;
	assert_int_equal(read(f->ch->fd, small, sizeof(small)), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(ready(f->ch->fd, 0), 1);	/* still there */
	assert_int_equal(fcntl(f->ch->fd, F_SETFL, fl), 0);
	take_cq_event(f, rcq);
	emu_poll_one(rcq, IBV_WC_SUCCESS);
	assert_int_equal(ibv_destroy_qp(a), 0);
	assert_int_equal(ibv_destroy_qp(b), 0);
	assert_int_equal(ibv_destroy_cq(rcq), 0);
}

struct waiter {
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	int rc;
};

static void *wait_event(void *arg)
{
	struct waiter *w = arg;
	void *ctx;

	w->rc = ibv_get_cq_event(w->ch, &w->cq, &ctx);
	return NULL;
}

/* A thread blocked in ibv_get_cq_event (a blocking read) is woken by the
 * event. */
static void test_blocking_reader_woken(void **state)
{
	struct fix *f = *state;
	struct ibv_cq *rcq = ibv_create_cq(f->e.ctx, 64, NULL, f->ch, 0);
	struct waiter w = { .ch = f->ch, .rc = -2 };
	struct ibv_qp *a, *b;
	pthread_t t;

	assert_non_null(rcq);
	pair(f, rcq, NULL, &a, &b);
	assert_int_equal(ibv_req_notify_cq(rcq, 0), 0);
	assert_int_equal(pthread_create(&t, NULL, wait_event, &w), 0);
	send_to(f, a, b);
	alarm(DESTROY_ALARM_S);
	assert_int_equal(pthread_join(t, NULL), 0);
	alarm(0);
	assert_int_equal(w.rc, 0);
	assert_ptr_equal(w.cq, rcq);
	ibv_ack_cq_events(rcq, 1);
	emu_poll_one(rcq, IBV_WC_SUCCESS);
	assert_int_equal(ibv_destroy_qp(a), 0);
	assert_int_equal(ibv_destroy_qp(b), 0);
	assert_int_equal(ibv_destroy_cq(rcq), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_unread_completion_event_dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_cq_event_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unread_cq_err_dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unread_qp_event_dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_semantics, setup, teardown),
		cmocka_unit_test_setup_teardown(test_blocking_reader_woken, setup, teardown),
	};

	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
