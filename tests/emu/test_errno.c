// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Interposed calls leave errno as the real ones would: a successful verbs
 * call (whose commands go through the device's ioctl, write, read, mmap
 * and close) does not change errno, so a stale value (ENOTTY from the
 * ioctl libibverbs tries first) never reaches a program that reads errno
 * after an unrelated failure.
 */
#include "emu_test.h"

#include <errno.h>
#include "test_exit.h"

#define SENTINEL 12345	/* no errno value */
#define ACC (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)

#define KEEPS_ERRNO(call)						\
	do {								\
		errno = SENTINEL;					\
		call;							\
		assert_int_equal(errno, SENTINEL);			\
	} while (0)

static void test_successful_verbs_keep_errno(void **state)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_comp_channel *ch;
	struct ibv_pd *pd;
	struct ibv_cq *cq, *ev_cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				  .qp_access_flags = ACC };
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	void *ev_ctx;
	int n;
	static uint8_t buf[4096];

	(void)state;
	list = ibv_get_device_list(&n);
	assert_non_null(list);
	assert_true(n >= 1);
	KEEPS_ERRNO(ctx = ibv_open_device(list[0]));
	assert_non_null(ctx);
	KEEPS_ERRNO(assert_int_equal(ibv_query_device(ctx, &da), 0));
	KEEPS_ERRNO(assert_int_equal(ibv_query_port(ctx, 1, &pa), 0));
	KEEPS_ERRNO(pd = ibv_alloc_pd(ctx));
	assert_non_null(pd);
	KEEPS_ERRNO(mr = ibv_reg_mr(pd, buf, sizeof(buf), ACC));
	assert_non_null(mr);
	KEEPS_ERRNO(ch = ibv_create_comp_channel(ctx));
	assert_non_null(ch);
	KEEPS_ERRNO(cq = ibv_create_cq(ctx, 16, NULL, ch, 0));
	assert_non_null(cq);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	KEEPS_ERRNO(qp = ibv_create_qp(pd, &ia));
	assert_non_null(qp);
	KEEPS_ERRNO(assert_int_equal(ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
						   IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0));
	/* an event read through the channel fd */
	KEEPS_ERRNO(assert_int_equal(ibv_req_notify_cq(cq, 0), 0));
	at.qp_state = IBV_QPS_ERR;
	KEEPS_ERRNO(assert_int_equal(ibv_modify_qp(qp, &at, IBV_QP_STATE), 0));
	emu_post_recv(qp, 1, buf, 64, mr->lkey);
	KEEPS_ERRNO(assert_int_equal(ibv_get_cq_event(ch, &ev_cq, &ev_ctx), 0));
	ibv_ack_cq_events(ev_cq, 1);
	emu_poll_one(cq, IBV_WC_WR_FLUSH_ERR);
	KEEPS_ERRNO(assert_int_equal(ibv_destroy_qp(qp), 0));
	KEEPS_ERRNO(assert_int_equal(ibv_destroy_cq(cq), 0));
	KEEPS_ERRNO(assert_int_equal(ibv_destroy_comp_channel(ch), 0));
	KEEPS_ERRNO(assert_int_equal(ibv_dereg_mr(mr), 0));
	KEEPS_ERRNO(assert_int_equal(ibv_dealloc_pd(pd), 0));
	KEEPS_ERRNO(assert_int_equal(ibv_close_device(ctx), 0));
	ibv_free_device_list(list);
}

/* A failing command still reports its own errno. */
static void test_failure_sets_errno(void **state)
{
	struct emu_env e;
	struct ibv_cq *cq;

	(void)state;
	emu_env_open(&e, 1);
	errno = 0;
	cq = ibv_create_cq(e.ctx, 1 << 30, NULL, NULL, 0);
	assert_null(cq);
	assert_int_equal(errno, EINVAL);
	emu_env_close(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_successful_verbs_keep_errno),
		cmocka_unit_test(test_failure_sets_errno),
	};

	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
