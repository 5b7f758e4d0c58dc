// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * QP states: sends wait until RTS.
 */
#include "exact.h"

static void modify_to(struct emu_env *e, struct ibv_qp *qp, enum ibv_qp_state s)
{
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE;

	memset(&a, 0, sizeof(a));
	a.qp_state = s;
	if (s == IBV_QPS_INIT) {
		a.port_num = e->port;
		a.qp_access_flags = ACC;
		mask |= IBV_QP_PORT | IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS;
	} else if (s == IBV_QPS_RTR) {
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = qp->qp_num;
		a.ah_attr.port_num = e->port;
		a.ah_attr.dlid = e->port_attr.lid;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	} else {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		mask |= IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	}
	assert_int_equal(ibv_modify_qp(qp, &a, mask), 0);
}

/* A write posted and rung in INIT waits through RTR and runs in RTS. */
void test_send_held_until_rts(void **state)
{
	struct emu_env e;
	struct hq h;
	struct capture cap;
	struct ibv_wc wc;
	char text[80];

	(void)state;
	emu_env_open(&e, 1);
	emu_qp_create(&e, &h.q, IBV_QPT_RC, 16, 4, 64, 1 << 16, NULL);
	modify_to(&e, h.q.qp, IBV_QPS_INIT);
	hq_init_obj(&h);
	emu_fill(h.q.buf, 256, 5);
	capture_start(&e, &cap);
	hq_write(&h, (uintptr_t)h.q.buf, h.q.mr->lkey, (uintptr_t)h.q.buf + 4096,
		 h.q.mr->rkey, 256);
	hq_ring(&h);
	emu_idle(&e);
	emu_assert_cq_empty(&e, h.q.scq);
	snprintf(text, sizeof(text), "QPN 0x%x: send WQE 0x0000 held: the QP is in INIT",
		 h.q.qp->qp_num);
	assert_true(captured_has(&cap, text));
	modify_to(&e, h.q.qp, IBV_QPS_RTR);
	emu_idle(&e);
	emu_assert_cq_empty(&e, h.q.scq);
	capture_end(&e, &cap);
	modify_to(&e, h.q.qp, IBV_QPS_RTS);
	assert_int_equal(emu_poll(h.q.scq, &wc, 1), 1);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_memory_equal(h.q.buf + 4096, h.q.buf, 256);
	emu_qp_destroy(&h.q);
	emu_env_close(&e);
}
