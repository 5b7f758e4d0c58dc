// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * CQ resize with completions pending, the SQD state and its drained
 * event, masked atomics posted by hand (libmlx4 has no verb for them),
 * and QP kinds the device refuses.
 */
#include "emu_test.h"

#include <poll.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <infiniband/mlx4dv.h>
#pragma GCC diagnostic pop

#define ACC (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_LOCAL_WRITE)

struct pair {
	struct emu_env e;
	struct emu_qp a, b;
};

static void pair_open(struct pair *p, int cq_entries)
{
	emu_env_open(&p->e, 1);
	emu_qp_create(&p->e, &p->a, IBV_QPT_RC, 32, 16, cq_entries, 8192, NULL);
	emu_qp_create(&p->e, &p->b, IBV_QPT_RC, 32, 16, cq_entries, 8192, NULL);
	emu_qp_to_rts(&p->e, p->a.qp, p->b.qp->qp_num, ACC);
	emu_qp_to_rts(&p->e, p->b.qp, p->a.qp->qp_num, ACC);
}

static void pair_close(struct pair *p)
{
	emu_qp_destroy(&p->a);
	emu_qp_destroy(&p->b);
	emu_env_close(&p->e);
}

static void post_writes(struct pair *p, uint64_t first, int n)
{
	for (int i = 0; i < n; i++) {
		struct ibv_sge s = { (uintptr_t)p->a.buf, 8, p->a.mr->lkey };
		struct ibv_send_wr w = { .wr_id = first + (uint64_t)i, .sg_list = &s,
					 .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
					 .send_flags = IBV_SEND_SIGNALED };

		w.wr.rdma.remote_addr = (uintptr_t)p->b.buf;
		w.wr.rdma.rkey = p->b.mr->rkey;
		assert_int_equal(emu_post_send(p->a.qp, &w), 0);
	}
}

static void test_resize_cq(void **state)
{
	struct pair p;
	struct ibv_wc wc[64];
	uint64_t next = 0;

	(void)state;
	pair_open(&p, 7);	/* 8 entries */
	/* move the consumer index into the second lap first */
	for (int r = 0; r < 3; r++) {
		post_writes(&p, next, 5);
		assert_int_equal(emu_poll(p.a.scq, wc, 5), 5);
		for (int i = 0; i < 5; i++)
			assert_int_equal(wc[i].wr_id, next++);
	}
	/* three completions pending across the resize */
	post_writes(&p, next, 3);
	emu_idle(&p.e);
	assert_int_equal(ibv_resize_cq(p.a.scq, 40), 0);
	assert_int_equal(p.a.scq->cqe, 63);
	post_writes(&p, next + 3, 20);
	assert_int_equal(emu_poll(p.a.scq, wc, 23), 23);
	for (int i = 0; i < 23; i++) {
		assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
		assert_int_equal(wc[i].wr_id, next++);
	}
	/* consume up to the end of the new buffer's first lap: the entries
	 * the next lap uses must still read as empty */
	while (next < 64 + 15 - 1) {
		int n = (int)(64 + 15 - 1 - next) < 16 ? (int)(64 + 15 - 1 - next) : 16;

		post_writes(&p, next, n);
		assert_int_equal(emu_poll(p.a.scq, wc, n), n);
		for (int i = 0; i < n; i++)
			assert_int_equal(wc[i].wr_id, next++);
	}
	emu_assert_cq_empty(&p.e, p.a.scq);
	/* and smaller again */
	assert_int_equal(ibv_resize_cq(p.a.scq, 10), 0);
	for (int r = 0; r < 6; r++) {
		post_writes(&p, next, 10);
		assert_int_equal(emu_poll(p.a.scq, wc, 10), 10);
		for (int i = 0; i < 10; i++)
			assert_int_equal(wc[i].wr_id, next++);
		emu_assert_cq_empty(&p.e, p.a.scq);
	}
	pair_close(&p);
}

static void test_sqd(void **state)
{
	struct pair p;
	struct ibv_qp_attr a;
	struct ibv_async_event ev;
	struct pollfd pfd;
	struct ibv_wc wc;

	(void)state;
	pair_open(&p, 64);
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
	post_writes(&p, 1, 2);
	emu_idle(&p.e);
	assert_int_equal(ibv_poll_cq(p.a.scq, 1, &wc), 0);
	a.qp_state = IBV_QPS_RTS;
	assert_int_equal(ibv_modify_qp(p.a.qp, &a, IBV_QP_STATE), 0);
	assert_int_equal(emu_poll_one(p.a.scq, IBV_WC_SUCCESS).wr_id, 1);
	assert_int_equal(emu_poll_one(p.a.scq, IBV_WC_SUCCESS).wr_id, 2);
	pair_close(&p);
}

static void put_be64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, 8);
}

static void put_be32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}

/* ctrl, raddr, atomic segment (16 or 32 bytes), one data segment. */
static uint64_t masked_atomic(struct pair *p, struct mlx4dv_qp *dq, uint32_t n,
			      uint8_t opcode, const uint64_t *seg)
{
	uint8_t *w = (uint8_t *)dq->buf.buf + dq->sq.offset +
		     ((n & (dq->sq.wqe_cnt - 1)) << dq->sq.wqe_shift);
	uint32_t aseg = opcode == 0x14 ? 32 : 16;
	uint64_t old;

	memset(w + 4, 0, 12);
	put_be64(w + 16, (uintptr_t)p->b.buf + 64);
	put_be32(w + 24, p->b.mr->rkey);
	put_be32(w + 28, 0);
	for (uint32_t i = 0; i < aseg / 8; i++)
		put_be64(w + 32 + 8 * i, seg[i]);
	put_be32(w + 32 + aseg + 4, p->a.mr->lkey);
	put_be64(w + 32 + aseg + 8, (uintptr_t)p->a.buf);
	put_be32(w + 32 + aseg, 8);
	w[7] = (uint8_t)((32 + aseg + 16) / 16);
	put_be32(w + 8, 3 << 2);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	put_be32(w, ((n & dq->sq.wqe_cnt) ? 1u << 31 : 0) | opcode);
	*(volatile uint32_t *)dq->sdb = dq->doorbell_qpn;
	emu_poll_one(p->a.scq, IBV_WC_SUCCESS);
	memcpy(&old, p->a.buf, 8);
	return old;
}

static void test_masked_atomics(void **state)
{
	struct pair p;
	struct mlx4dv_qp dq = { 0 };
	struct mlx4dv_obj obj;
	uint64_t v = 0x00ff00ff12345678ull, now;

	(void)state;
	pair_open(&p, 64);
	memset(&obj, 0, sizeof(obj));
	obj.qp.in = p.a.qp;
	obj.qp.out = &dq;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_QP), 0);
	memcpy(p.b.buf + 64, &v, 8);
	{
		/* masked compare-and-swap: compare only the low 32 bits, swap
		 * only the high 16 bits */
		const uint64_t cs[4] = { 0xabcd000000000000ull, 0x12345678ull,
					 0xffff000000000000ull, 0xffffffffull };

		assert_true(masked_atomic(&p, &dq, 0, 0x14, cs) == v);
		memcpy(&now, p.b.buf + 64, 8);
		assert_true(now == 0xabcd00ff12345678ull);
		v = now;
	}
	{
		/* compare fails: unchanged */
		const uint64_t cs[4] = { 0, 0x1, 0xffffffffffffffffull, 0xffull };

		assert_true(masked_atomic(&p, &dq, 1, 0x14, cs) == v);
		memcpy(&now, p.b.buf + 64, 8);
		assert_true(now == v);
	}
	{
		/* masked fetch-and-add on two 32-bit fields: bit 31 ends the low
		 * field, so its carry does not reach the high one */
		const uint64_t fa[4] = { 0x0000000100000001ull, 0x0000000080000000ull, 0, 0 };
		uint64_t start = 0x00000001ffffffffull;

		memcpy(p.b.buf + 64, &start, 8);
		assert_true(masked_atomic(&p, &dq, 2, 0x15, fa) == start);
		memcpy(&now, p.b.buf + 64, 8);
		assert_true(now == 0x0000000200000000ull);
	}
	pair_close(&p);
}

static void test_refused_qps(void **state)
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resize_cq),
		cmocka_unit_test(test_sqd),
		cmocka_unit_test(test_masked_atomics),
		cmocka_unit_test(test_refused_qps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
