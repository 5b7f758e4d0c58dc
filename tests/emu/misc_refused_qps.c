// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* QP kinds the device refuses. */
#include "misc.h"

void test_refused_qps(void **state)
{
	struct emu_env e;
	struct ibv_cq *cq;
	struct ibv_qp_init_attr ia;
	struct ibv_qp *raw;
	struct ibv_qp_attr a;

	(void)state;
	emu_env_open(&e, 1);
	cq = ibv_create_cq(e.ctx, 16, NULL, NULL, 0);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = cq;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	/* too many work requests, SGEs, inline bytes */
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = e.dev_attr.max_qp_wr + 1;
	assert_null(ibv_create_qp(e.pd, &ia));
	ia.cap.max_send_wr = 4;
	ia.cap.max_send_sge = (uint32_t)e.dev_attr.max_sge + 1;
	assert_null(ibv_create_qp(e.pd, &ia));
	ia.cap.max_send_sge = 1;
	/* a raw packet QP cannot use an InfiniBand port */
	ia.qp_type = IBV_QPT_RAW_PACKET;
	raw = ibv_create_qp(e.pd, &ia);
	assert_non_null(raw);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	if (e.port_attr.link_layer == IBV_LINK_LAYER_INFINIBAND)
		assert_int_equal(ibv_modify_qp(raw, &a, IBV_QP_STATE | IBV_QP_PORT), EINVAL);
	assert_int_equal(ibv_destroy_qp(raw), 0);
	/* a CQ still used by a QP cannot go */
	ia.qp_type = IBV_QPT_UD;
	raw = ibv_create_qp(e.pd, &ia);
	assert_non_null(raw);
	assert_int_equal(ibv_destroy_cq(cq), EBUSY);
	assert_int_equal(ibv_dealloc_pd(e.pd), EBUSY);
	assert_int_equal(ibv_destroy_qp(raw), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	emu_env_close(&e);
}
