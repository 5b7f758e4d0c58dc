// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The SQD state and its drained event. */
#include "misc.h"

#include <poll.h>

void test_sqd(void **state)
{
	struct emu_pair p;
	struct ibv_qp_attr a;
	struct ibv_async_event ev;
	struct pollfd pfd;
	struct ibv_wc wc;

	(void)state;
	emu_pair_open(&p, 32, 16, 64, 8192, MISC_ACCESS);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_SQD;
	a.en_sqd_async_notify = 1;
	assert_int_equal(ibv_modify_qp(p.a.qp, &a, IBV_QP_STATE |
				       IBV_QP_EN_SQD_ASYNC_NOTIFY), 0);
	pfd.fd = p.e.ctx->async_fd;
	pfd.events = POLLIN;
	assert_int_equal(poll(&pfd, 1, 5000), 1);
	assert_int_equal(ibv_get_async_event(p.e.ctx, &ev), 0);
	assert_int_equal(ev.event_type, IBV_EVENT_SQ_DRAINED);
	assert_ptr_equal(ev.element.qp, p.a.qp);
	ibv_ack_async_event(&ev);
	/* drained: new WQEs wait */
	emu_pair_post_writes(&p, 1, 2);
	emu_idle(&p.e);
	assert_int_equal(ibv_poll_cq(p.a.scq, 1, &wc), 0);
	a.qp_state = IBV_QPS_RTS;
	assert_int_equal(ibv_modify_qp(p.a.qp, &a, IBV_QP_STATE), 0);
	assert_int_equal(emu_poll_one(p.a.scq, IBV_WC_SUCCESS).wr_id, 1);
	assert_int_equal(emu_poll_one(p.a.scq, IBV_WC_SUCCESS).wr_id, 2);
	emu_pair_close(&p);
}
