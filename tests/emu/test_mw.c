// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Memory windows through libmlx4: type 1 bound with ibv_bind_mw, type 2
 * bound with a BIND_MW work request, remote access through the window and
 * outside it, invalidation by SEND_WITH_INV and LOCAL_INV, and a bind the
 * MR does not allow.
 */
#include "emu_test.h"

#include <string.h>
#include "test_exit.h"

#define ACC (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
	     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND)

struct pair {
	struct emu_env e;
	struct emu_qp a, b;
	struct ibv_mr *bmr;	/* b's buffer, bindable */
};

static int setup(void **state)
{
	struct pair *p = calloc(1, sizeof(*p));

	emu_env_open(&p->e, 1);
	emu_qp_create(&p->e, &p->a, IBV_QPT_RC, 16, 16, 64, 8192, NULL);
	emu_qp_create(&p->e, &p->b, IBV_QPT_RC, 16, 16, 64, 8192, NULL);
	emu_qp_to_rts(&p->e, p->a.qp, p->b.qp->qp_num, ACC & ~IBV_ACCESS_MW_BIND);
	emu_qp_to_rts(&p->e, p->b.qp, p->a.qp->qp_num, ACC & ~IBV_ACCESS_MW_BIND);
	p->bmr = ibv_reg_mr(p->e.pd, p->b.buf, p->b.len, ACC);
	assert_non_null(p->bmr);
	*state = p;
	return 0;
}

static int teardown(void **state)
{
	struct pair *p = *state;

	assert_int_equal(ibv_dereg_mr(p->bmr), 0);
	emu_qp_destroy(&p->a);
	emu_qp_destroy(&p->b);
	emu_env_close(&p->e);
	free(p);
	return 0;
}

static enum ibv_wc_status write_via(struct pair *p, uint32_t rkey, uint64_t raddr,
				    uint32_t len)
{
	struct ibv_sge s = { (uintptr_t)p->a.buf, len, p->a.mr->lkey };
	struct ibv_send_wr w = { .wr_id = 3, .sg_list = &s, .num_sge = 1,
				 .opcode = IBV_WR_RDMA_WRITE,
				 .send_flags = IBV_SEND_SIGNALED };
	struct ibv_wc wc;

	w.wr.rdma.remote_addr = raddr;
	w.wr.rdma.rkey = rkey;
	assert_int_equal(emu_post_send(p->a.qp, &w), 0);
	assert_int_equal(emu_poll(p->a.scq, &wc, 1), 1);
	return wc.status;
}

static void test_type1(void **state)
{
	struct pair *p = *state;
	struct ibv_mw *mw = ibv_alloc_mw(p->e.pd, IBV_MW_TYPE_1);
	struct ibv_mw_bind bind;
	struct ibv_wc wc;
	uint64_t base = (uintptr_t)p->b.buf + 1024;

	assert_non_null(mw);
	memset(&bind, 0, sizeof(bind));
	bind.wr_id = 44;
	bind.send_flags = IBV_SEND_SIGNALED;
	bind.bind_info.mr = p->bmr;
	bind.bind_info.addr = base;
	bind.bind_info.length = 512;
	bind.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	assert_int_equal(ibv_bind_mw(p->b.qp, mw, &bind), 0);
	wc = emu_poll_one(p->b.scq, IBV_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 44);
	assert_int_equal(wc.opcode, IBV_WC_BIND_MW);

	emu_fill(p->a.buf, 100, 8);
	assert_int_equal(write_via(p, mw->rkey, base + 412, 100), IBV_WC_SUCCESS);
	assert_memory_equal(p->b.buf + 1024 + 412, p->a.buf, 100);
	/* one byte past the window */
	assert_int_equal(write_via(p, mw->rkey, base + 413, 100), IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(ibv_dealloc_mw(mw), 0);
}

static void bind2(struct pair *p, struct ibv_mw *mw, uint32_t rkey, uint64_t addr,
		  enum ibv_wc_status want)
{
	struct ibv_send_wr w;
	struct ibv_wc wc;

	memset(&w, 0, sizeof(w));
	w.wr_id = 55;
	w.opcode = IBV_WR_BIND_MW;
	w.send_flags = IBV_SEND_SIGNALED;
	w.bind_mw.mw = mw;
	w.bind_mw.rkey = rkey;
	w.bind_mw.bind_info.mr = p->bmr;
	w.bind_mw.bind_info.addr = addr;
	w.bind_mw.bind_info.length = 256;
	w.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	assert_int_equal(emu_post_send(p->b.qp, &w), 0);
	wc = emu_poll_one(p->b.scq, want);
	assert_int_equal(wc.wr_id, 55);
}

static void test_type2_send_with_invalidate(void **state)
{
	struct pair *p = *state;
	struct ibv_mw *mw = ibv_alloc_mw(p->e.pd, IBV_MW_TYPE_2);
	uint32_t rkey;
	uint64_t base = (uintptr_t)p->b.buf + 4096;
	struct ibv_sge s = { (uintptr_t)p->a.buf, 4, p->a.mr->lkey };
	struct ibv_send_wr w = { .wr_id = 6, .sg_list = &s, .num_sge = 1,
				 .opcode = IBV_WR_SEND_WITH_INV,
				 .send_flags = IBV_SEND_SIGNALED };
	struct ibv_wc wc;

	assert_non_null(mw);
	rkey = ibv_inc_rkey(mw->rkey);
	bind2(p, mw, rkey, base, IBV_WC_SUCCESS);
	assert_int_equal(write_via(p, rkey, base, 64), IBV_WC_SUCCESS);
	/* the old key of the window is not the bound one */
	assert_int_not_equal(rkey, mw->rkey);

	emu_post_recv(p->b.qp, 7, p->b.buf, 64, p->b.mr->lkey);
	w.invalidate_rkey = rkey;
	assert_int_equal(emu_post_send(p->a.qp, &w), 0);
	emu_poll_one(p->a.scq, IBV_WC_SUCCESS);
	wc = emu_poll_one(p->b.rcq, IBV_WC_SUCCESS);
	assert_true(wc.wc_flags & IBV_WC_WITH_INV);
	assert_int_equal(wc.invalidated_rkey, rkey);
	/* invalidated: remote access now fails */
	assert_int_equal(write_via(p, rkey, base, 64), IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(ibv_dealloc_mw(mw), 0);
}

static void test_type2_local_invalidate(void **state)
{
	struct pair *p = *state;
	struct ibv_mw *mw = ibv_alloc_mw(p->e.pd, IBV_MW_TYPE_2);
	uint32_t rkey = ibv_inc_rkey(mw->rkey);
	uint64_t base = (uintptr_t)p->b.buf + 2048;
	struct ibv_send_wr w;
	struct ibv_wc wc;

	bind2(p, mw, rkey, base, IBV_WC_SUCCESS);
	/* a bound type-2 window cannot be bound again before invalidation */
	memset(&w, 0, sizeof(w));
	w.wr_id = 66;
	w.opcode = IBV_WR_LOCAL_INV;
	w.send_flags = IBV_SEND_SIGNALED;
	w.invalidate_rkey = rkey;
	assert_int_equal(emu_post_send(p->b.qp, &w), 0);
	wc = emu_poll_one(p->b.scq, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_LOCAL_INV);
	assert_int_equal(write_via(p, rkey, base, 8), IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(ibv_dealloc_mw(mw), 0);
}

static void test_bind_not_allowed(void **state)
{
	struct pair *p = *state;
	struct ibv_mw *mw = ibv_alloc_mw(p->e.pd, IBV_MW_TYPE_2);
	struct ibv_mr *plain = p->bmr;

	/* the QP's own MR was registered without IBV_ACCESS_MW_BIND */
	p->bmr = p->b.mr;
	bind2(p, mw, ibv_inc_rkey(mw->rkey), (uintptr_t)p->b.buf, IBV_WC_MW_BIND_ERR);
	p->bmr = plain;
	assert_int_equal(ibv_dealloc_mw(mw), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_type1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_type2_send_with_invalidate, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_type2_local_invalidate, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bind_not_allowed, setup, teardown),
	};

	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
