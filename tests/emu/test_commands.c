// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The command channel: modify_qp attribute rules (required / optional
 * attributes per transition and QP type, value ranges) and raw frames
 * written to the uverbs file descriptor, which must fail with an errno and
 * leave the device working.
 */
#include "emu_test.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <rdma/ib_user_verbs.h>
#include "test_exit.h"
#pragma GCC diagnostic pop

static struct ibv_qp *new_qp(struct emu_env *e, struct ibv_cq *cq,
			     enum ibv_qp_type type)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = cq;
	ia.qp_type = type;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	qp = ibv_create_qp(e->pd, &ia);
	assert_non_null(qp);
	return qp;
}

static void test_modify_qp_rules(void **state)
{
	struct emu_env e;
	struct ibv_cq *cq;
	struct ibv_qp *rc, *ud;
	struct ibv_qp_attr a;

	(void)state;
	emu_env_open(&e, 1);
	cq = ibv_create_cq(e.ctx, 16, NULL, NULL, 0);
	rc = new_qp(&e, cq, IBV_QPT_RC);
	ud = new_qp(&e, cq, IBV_QPT_UD);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	/* RESET->INIT of an RC QP needs pkey index, port and access flags */
	assert_int_equal(ibv_modify_qp(rc, &a, IBV_QP_STATE | IBV_QP_PORT), EINVAL);
	assert_int_equal(ibv_modify_qp(rc, &a, IBV_QP_STATE | IBV_QP_PORT |
				       IBV_QP_PKEY_INDEX), EINVAL);
	/* a UD QP needs the Q_Key instead of access flags */
	assert_int_equal(ibv_modify_qp(ud, &a, IBV_QP_STATE | IBV_QP_PORT |
				       IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS), EINVAL);
	/* an attribute not allowed in this transition */
	assert_int_equal(ibv_modify_qp(rc, &a, IBV_QP_STATE | IBV_QP_PORT |
				       IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS |
				       IBV_QP_SQ_PSN), EINVAL);
	/* value out of range: port 3, pkey index past the table */
	a.port_num = 3;
	assert_int_equal(ibv_modify_qp(rc, &a, IBV_QP_STATE | IBV_QP_PORT |
				       IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS), EINVAL);
	a.port_num = 1;
	a.pkey_index = e.port_attr.pkey_tbl_len;
	assert_int_equal(ibv_modify_qp(rc, &a, IBV_QP_STATE | IBV_QP_PORT |
				       IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS), EINVAL);
	a.pkey_index = 0;
	/* skipping a state */
	a.qp_state = IBV_QPS_RTS;
	assert_int_equal(ibv_modify_qp(rc, &a, IBV_QP_STATE), EINVAL);
	a.qp_state = IBV_QPS_INIT;
	assert_int_equal(ibv_modify_qp(rc, &a, IBV_QP_STATE | IBV_QP_PORT |
				       IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS), 0);

	/* INIT->RTR of RC: AV, MTU, dest QPN, RQ PSN, max dest rd atomic and
	 * min RNR timer are all required */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = ud->qp_num;
	a.ah_attr.port_num = 1;
	a.ah_attr.dlid = 1;
	assert_int_equal(ibv_modify_qp(rc, &a, IBV_QP_STATE | IBV_QP_AV |
				       IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				       IBV_QP_RQ_PSN), EINVAL);
	a.timeout = 14;
	assert_int_equal(ibv_modify_qp(rc, &a, IBV_QP_STATE | IBV_QP_AV |
				       IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				       IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				       IBV_QP_MIN_RNR_TIMER | IBV_QP_TIMEOUT), EINVAL);
	a.min_rnr_timer = 40;	/* 5 bits only */
	assert_int_equal(ibv_modify_qp(rc, &a, IBV_QP_STATE | IBV_QP_AV |
				       IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				       IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				       IBV_QP_MIN_RNR_TIMER), EINVAL);
	a.min_rnr_timer = 12;
	assert_int_equal(ibv_modify_qp(rc, &a, IBV_QP_STATE | IBV_QP_AV |
				       IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				       IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				       IBV_QP_MIN_RNR_TIMER), 0);
	/* RTR->RTS needs timeout, retry count, RNR retry, SQ PSN, rd atomic */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	assert_int_equal(ibv_modify_qp(rc, &a, IBV_QP_STATE | IBV_QP_SQ_PSN), EINVAL);
	a.retry_cnt = 9;
	assert_int_equal(ibv_modify_qp(rc, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
				       IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				       IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC), EINVAL);
	a.retry_cnt = 7;
	assert_int_equal(ibv_modify_qp(rc, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
				       IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				       IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC), 0);
	/* current state given and wrong */
	a.qp_state = IBV_QPS_RTS;
	a.cur_qp_state = IBV_QPS_SQD;
	assert_int_equal(ibv_modify_qp(rc, &a, IBV_QP_STATE | IBV_QP_CUR_STATE), EINVAL);
	a.cur_qp_state = IBV_QPS_RTS;
	assert_int_equal(ibv_modify_qp(rc, &a, IBV_QP_STATE | IBV_QP_CUR_STATE), 0);
	/* to ERR and RESET from anywhere, with no other attribute */
	a.qp_state = IBV_QPS_ERR;
	assert_int_equal(ibv_modify_qp(rc, &a, IBV_QP_STATE | IBV_QP_QKEY), EINVAL);
	assert_int_equal(ibv_modify_qp(rc, &a, IBV_QP_STATE), 0);
	a.qp_state = IBV_QPS_RESET;
	assert_int_equal(ibv_modify_qp(rc, &a, IBV_QP_STATE), 0);
	{
		struct ibv_qp_attr q;
		struct ibv_qp_init_attr qi;

		assert_int_equal(ibv_query_qp(rc, &q, IBV_QP_STATE, &qi), 0);
		assert_int_equal(q.qp_state, IBV_QPS_RESET);
	}
	assert_int_equal(ibv_destroy_qp(rc), 0);
	assert_int_equal(ibv_destroy_qp(ud), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	emu_env_close(&e);
}

static void test_query_qp_attrs(void **state)
{
	struct emu_env e;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_qp_attr a, q;
	struct ibv_qp_init_attr qi;

	(void)state;
	emu_env_open(&e, 1);
	cq = ibv_create_cq(e.ctx, 16, NULL, NULL, 0);
	qp = new_qp(&e, cq, IBV_QPT_RC);
	emu_qp_to_rts(&e, qp, 0x123, IBV_ACCESS_REMOTE_READ);
	assert_int_equal(ibv_query_qp(qp, &q, IBV_QP_STATE | IBV_QP_DEST_QPN |
				      IBV_QP_ACCESS_FLAGS | IBV_QP_PATH_MTU |
				      IBV_QP_TIMEOUT | IBV_QP_MIN_RNR_TIMER, &qi), 0);
	assert_int_equal(q.qp_state, IBV_QPS_RTS);
	assert_int_equal(q.dest_qp_num, 0x123);
	assert_int_equal(q.qp_access_flags, IBV_ACCESS_REMOTE_READ);
	assert_int_equal(q.path_mtu, IBV_MTU_1024);
	assert_int_equal(q.timeout, 14);
	assert_int_equal(q.min_rnr_timer, 1);
	(void)a;
	assert_int_equal(ibv_destroy_qp(qp), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	emu_env_close(&e);
}

static ssize_t raw_write(struct emu_env *e, const void *buf, size_t len)
{
	errno = 0;
	return write(e->ctx->cmd_fd, buf, len);
}

static void expect_fail(struct emu_env *e, const void *buf, size_t len, int err)
{
	assert_int_equal(raw_write(e, buf, len), -1);
	if (err)
		assert_int_equal(errno, err);
}

static void test_malformed_frames(void **state)
{
	struct emu_env e;
	uint32_t f[64];
	struct ibv_cq *cq;

	(void)state;
	emu_env_open(&e, 1);

	/* shorter than a header */
	memset(f, 0, sizeof(f));
	expect_fail(&e, f, 4, EINVAL);
	/* in_words does not match the length written */
	f[0] = IB_USER_VERBS_CMD_QUERY_DEVICE;
	f[1] = 10 | (60u << 16);
	expect_fail(&e, f, 16, EINVAL);
	/* unknown command */
	f[0] = 200;
	f[1] = 4;
	expect_fail(&e, f, 16, EOPNOTSUPP);
	/* destroy a QP handle that does not exist */
	memset(f, 0, sizeof(f));
	f[0] = IB_USER_VERBS_CMD_DESTROY_QP;
	f[1] = 6 | (2u << 16);
	f[2] = (uint32_t)(uintptr_t)&f[40];
	f[3] = (uint32_t)((uintptr_t)&f[40] >> 32);
	f[4] = 0xffff;
	expect_fail(&e, f, 24, EINVAL);
	/* a response address that is not mapped */
	memset(f, 0, sizeof(f));
	f[0] = IB_USER_VERBS_CMD_QUERY_PORT;
	f[1] = 6 | (10u << 16);
	f[2] = 0x10;
	f[4] = 1;
	expect_fail(&e, f, 24, EFAULT);
	/* response too short for the command */
	f[1] = 6 | (1u << 16);
	f[2] = (uint32_t)(uintptr_t)&f[40];
	f[3] = (uint32_t)((uintptr_t)&f[40] >> 32);
	expect_fail(&e, f, 24, ENOSPC);
	/* a CQ whose buffer address is not memory */
	memset(f, 0, sizeof(f));
	f[0] = IB_USER_VERBS_CMD_CREATE_CQ;
	f[1] = (uint16_t)((8 + sizeof(struct ib_uverbs_create_cq) + 16) / 4) | (4u << 16);
	f[2] = (uint32_t)(uintptr_t)&f[50];
	f[3] = (uint32_t)((uintptr_t)&f[50] >> 32);
	f[6] = 63;	/* cqe */
	f[8] = (uint32_t)-1;
	f[10] = 0x1000;	/* buf_addr */
	f[12] = (uint32_t)(uintptr_t)&f[60];
	f[13] = (uint32_t)((uintptr_t)&f[60] >> 32);
	expect_fail(&e, f, 8 + sizeof(struct ib_uverbs_create_cq) + 16, EFAULT);
	/* extended frame with a reserved field set */
	memset(f, 0, sizeof(f));
	f[0] = IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_QUERY_DEVICE;
	f[1] = 1;
	f[5] = 1;	/* cmd_hdr_reserved */
	expect_fail(&e, f, 32, EINVAL);
	/* extended frame whose sizes do not add up */
	f[5] = 0;
	f[1] = 5;
	expect_fail(&e, f, 32, EINVAL);

	/* random garbage: errors, never a crash */
	srand(7);
	for (int i = 0; i < 3000; i++) {
		size_t len = 8 + (size_t)(rand() % 120);

		for (int j = 0; j < 64; j++)
			f[j] = (uint32_t)rand() << 1 ^ (uint32_t)rand();
		if (i & 1)
			f[0] &= 0x800000ffu;
		if (i & 2)
			f[1] = (uint32_t)(len / 4) | (f[1] & 0xffff0000u);
		/* the response points at our own scratch area or garbage */
		if (i & 4) {
			f[2] = (uint32_t)(uintptr_t)&f[32];
			f[3] = (uint32_t)((uintptr_t)&f[32] >> 32);
		}
		/* never destroy or release what the test itself uses */
		if ((f[0] & 0xff) == IB_USER_VERBS_CMD_DEALLOC_PD ||
		    (f[0] & 0xff) == IB_USER_VERBS_CMD_GET_CONTEXT)
			continue;
		(void)raw_write(&e, f, len);
	}
	/* the device still works */
	cq = ibv_create_cq(e.ctx, 16, NULL, NULL, 0);
	assert_non_null(cq);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	emu_env_close(&e);
}

static void test_second_context(void **state)
{
	struct emu_env e1, e2;
	struct emu_qp a, b;
	struct ibv_wc wc;

	(void)state;
	/* two contexts (two device fds, two UARs) talk to each other */
	emu_env_open(&e1, 1);
	emu_env_open(&e2, 1);
	emu_qp_create(&e1, &a, IBV_QPT_RC, 8, 8, 16, 4096, NULL);
	emu_qp_create(&e2, &b, IBV_QPT_RC, 8, 8, 16, 4096, NULL);
	emu_qp_to_rts(&e1, a.qp, b.qp->qp_num, IBV_ACCESS_LOCAL_WRITE);
	emu_qp_to_rts(&e2, b.qp, a.qp->qp_num, IBV_ACCESS_LOCAL_WRITE);
	emu_post_recv(b.qp, 1, b.buf, 64, b.mr->lkey);
	{
		struct ibv_sge s = { (uintptr_t)a.buf, 10, a.mr->lkey };
		struct ibv_send_wr w = { .wr_id = 2, .sg_list = &s, .num_sge = 1,
					 .opcode = IBV_WR_SEND,
					 .send_flags = IBV_SEND_SIGNALED };

		assert_int_equal(emu_post_send(a.qp, &w), 0);
	}
	emu_poll_one(a.scq, IBV_WC_SUCCESS);
	wc = emu_poll_one(b.rcq, IBV_WC_SUCCESS);
	assert_int_equal(wc.byte_len, 10);
	/* objects of one context are not visible through the other */
	emu_qp_destroy(&a);
	emu_qp_destroy(&b);
	emu_env_close(&e1);
	emu_env_close(&e2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modify_qp_rules),
		cmocka_unit_test(test_query_qp_attrs),
		cmocka_unit_test(test_malformed_frames),
		cmocka_unit_test(test_second_context),
	};

	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
