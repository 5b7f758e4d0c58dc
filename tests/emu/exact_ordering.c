// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Ordering: work posted before a verbs command has run when the
 * command acts (resize refused, modify to ERR after the writes).
 */
#include "exact.h"

/* Six UD sends, then a resize to fewer entries than are outstanding:
 * refused, as on hardware (the sends have long completed there). */
void test_resize_after_sends(void **state)
{
	struct emu_env e;
	struct emu_qp u;
	struct ibv_ah_attr aa;
	struct ibv_ah *ah;
	struct ibv_wc wc[8];

	(void)state;
	emu_env_open(&e, 1);
	emu_qp_create(&e, &u, IBV_QPT_UD, 16, 16, 16, 4096, NULL);
	emu_qp_to_rts(&e, u.qp, 0, 0);
	memset(&aa, 0, sizeof(aa));
	aa.dlid = e.port_attr.lid;
	aa.port_num = 1;
	ah = ibv_create_ah(e.pd, &aa);
	assert_non_null(ah);
	for (int i = 0; i < 6; i++) {
		struct ibv_sge sg = { (uintptr_t)u.buf, 16, u.mr->lkey };
		struct ibv_send_wr wr, *bad;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = (uint64_t)i;
		wr.sg_list = &sg;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = 0xffffff;	/* nobody: dropped, completes */
		wr.wr.ud.remote_qkey = 0x11111111;
		assert_int_equal(ibv_post_send(u.qp, &wr, &bad), 0);
	}
	assert_int_equal(ibv_resize_cq(u.scq, 3), EINVAL);
	assert_int_equal(emu_poll(u.scq, wc, 6), 6);
	assert_int_equal(ibv_destroy_ah(ah), 0);
	emu_qp_destroy(&u);
	emu_env_close(&e);
}

/* Eight RDMA writes, then the QP to ERR: the writes were executed first
 * (success), not flushed. */
void test_modify_after_writes(void **state)
{
	struct emu_env e;
	struct emu_qp q;
	struct ibv_qp_attr a;
	struct ibv_wc wc[8];

	(void)state;
	emu_env_open(&e, 1);
	emu_qp_create(&e, &q, IBV_QPT_RC, 16, 4, 64, 1 << 16, NULL);
	emu_qp_to_rts(&e, q.qp, q.qp->qp_num, ACC);
	emu_fill(q.buf, 1024, 4);
	for (int i = 0; i < 8; i++) {
		struct ibv_sge sg = { (uintptr_t)q.buf + 128u * (unsigned)i, 128, q.mr->lkey };
		struct ibv_send_wr wr, *bad;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = (uint64_t)i;
		wr.sg_list = &sg;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = (uintptr_t)q.buf + 32768 + 128u * (unsigned)i;
		wr.wr.rdma.rkey = q.mr->rkey;
		assert_int_equal(ibv_post_send(q.qp, &wr, &bad), 0);
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_ERR;
	assert_int_equal(ibv_modify_qp(q.qp, &a, IBV_QP_STATE), 0);
	assert_int_equal(emu_poll(q.scq, wc, 8), 8);
	for (int i = 0; i < 8; i++)
		assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
	assert_memory_equal(q.buf + 32768, q.buf, 1024);
	emu_qp_destroy(&q);
	emu_env_close(&e);
}
