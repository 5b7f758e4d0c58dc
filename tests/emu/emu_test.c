// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#include "emu_test.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void emu_env_open(struct emu_env *e, uint8_t port)
{
	memset(e, 0, sizeof(*e));
	e->ctx = vx_device_open(NULL, 0);
	assert_non_null(e->ctx);
	assert_string_equal(ibv_get_device_name(e->ctx->device), "mlx4_0");
	e->pd = ibv_alloc_pd(e->ctx);
	assert_non_null(e->pd);
	assert_int_equal(ibv_query_device(e->ctx, &e->dev_attr), 0);
	e->port = port;
	assert_int_equal(ibv_query_port(e->ctx, port, &e->port_attr), 0);
	/* Without the control API a test cannot wait for the device to be
	 * idle, and a check that "nothing more arrives" would pass vacuously. */
	if (mlx4emu_ctl_load(&e->ctl))
		fail_msg("the software ConnectX-3 control API (mlx4emu_wait_idle ...) "
			 "is missing: run the test under mlx4emu-run");
	e->have_ctl = 1;
}

void emu_env_close(struct emu_env *e)
{
	assert_int_equal(ibv_dealloc_pd(e->pd), 0);
	assert_int_equal(ibv_close_device(e->ctx), 0);
}

void emu_qp_create(struct emu_env *e, struct emu_qp *q, enum ibv_qp_type type,
		   uint32_t max_send_wr, uint32_t max_recv_wr, int cq_entries,
		   size_t buf_len, struct ibv_srq *srq)
{
	struct ibv_qp_cap cap = { .max_send_wr = max_send_wr,
				  .max_recv_wr = max_recv_wr, .max_send_sge = 4,
				  .max_recv_sge = 4, .max_inline_data = 64 };

	memset(q, 0, sizeof(*q));
	q->scq = ibv_create_cq(e->ctx, cq_entries, NULL, NULL, 0);
	q->rcq = ibv_create_cq(e->ctx, cq_entries, NULL, NULL, 0);
	assert_non_null(q->scq);
	assert_non_null(q->rcq);
	q->qp = vx_qp_create(e->pd, type, q->scq, q->rcq, srq, &cap);
	assert_non_null(q->qp);
	q->len = buf_len;
	if (buf_len) {
		q->buf = aligned_alloc(4096, (buf_len + 4095) & ~(size_t)4095);
		assert_non_null(q->buf);
		memset(q->buf, 0, buf_len);
		q->mr = ibv_reg_mr(e->pd, q->buf, buf_len,
				   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
		assert_non_null(q->mr);
	}
}

void emu_qp_destroy(struct emu_qp *q)
{
	assert_int_equal(ibv_destroy_qp(q->qp), 0);
	assert_int_equal(ibv_destroy_cq(q->scq), 0);
	assert_int_equal(ibv_destroy_cq(q->rcq), 0);
	if (q->mr)
		assert_int_equal(ibv_dereg_mr(q->mr), 0);
	free(q->buf);
}

void emu_qp_to_rts(struct emu_env *e, struct ibv_qp *qp, uint32_t dest_qpn,
		   int access)
{
	struct vx_qp_attrs a;

	vx_qp_attrs_default(&a, e->port);
	a.access = (unsigned int)access;
	a.dest_qpn = dest_qpn;
	if (qp->qp_type == IBV_QPT_RC || qp->qp_type == IBV_QPT_UC)
		assert_int_equal(vx_qp_to_rts_loopback(e->ctx, qp, &a), 0);
	else
		assert_int_equal(vx_qp_to_rts(qp, &a), 0);
}

void emu_pair_open(struct emu_pair *p, uint32_t max_send_wr, uint32_t max_recv_wr,
		   int cq_entries, size_t buf_len, int access)
{
	emu_env_open(&p->e, 1);
	emu_qp_create(&p->e, &p->a, IBV_QPT_RC, max_send_wr, max_recv_wr, cq_entries,
		      buf_len, NULL);
	emu_qp_create(&p->e, &p->b, IBV_QPT_RC, max_send_wr, max_recv_wr, cq_entries,
		      buf_len, NULL);
	emu_qp_to_rts(&p->e, p->a.qp, p->b.qp->qp_num, access);
	emu_qp_to_rts(&p->e, p->b.qp, p->a.qp->qp_num, access);
}

void emu_pair_close(struct emu_pair *p)
{
	emu_qp_destroy(&p->a);
	emu_qp_destroy(&p->b);
	emu_env_close(&p->e);
}

void emu_pair_post_writes(struct emu_pair *p, uint64_t first, int n)
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

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int emu_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
	double deadline = now_s() + 5.0;
	int got = 0;

	while (got < n) {
		int r = ibv_poll_cq(cq, n - got, wc + got);

		assert_true(r >= 0);
		got += r;
		if (r)
			continue;
		/* the device is a thread: let it run on a busy machine */
		sched_yield();
		if (now_s() > deadline)
			break;
	}
	return got;
}

struct ibv_wc emu_poll_one(struct ibv_cq *cq, enum ibv_wc_status status)
{
	struct ibv_wc wc;

	memset(&wc, 0, sizeof(wc));
	assert_int_equal(emu_poll(cq, &wc, 1), 1);
	if (wc.status != status)
		print_error("wc status %s (vendor 0x%x), expected %s\n",
			    ibv_wc_status_str(wc.status), wc.vendor_err,
			    ibv_wc_status_str(status));
	assert_int_equal(wc.status, status);
	return wc;
}

void emu_idle(struct emu_env *e)
{
	assert_true(e->have_ctl);
	assert_int_equal(e->ctl.wait_idle(5000), 0);
}

void emu_assert_cq_empty(struct emu_env *e, struct ibv_cq *cq)
{
	struct ibv_wc wc;

	emu_idle(e);
	assert_int_equal(ibv_poll_cq(cq, 1, &wc), 0);
}

void emu_post_recv(struct ibv_qp *qp, uint64_t wr_id, void *addr,
		   uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len, .lkey = lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	assert_int_equal(ibv_post_recv(qp, &wr, &bad), 0);
}

void emu_post_signaled_send(struct ibv_qp *qp, uint64_t wr_id, void *addr,
			    uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;

	assert_int_equal(ibv_post_send(qp, &wr, &bad), 0);
}

int emu_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;

	return ibv_post_send(qp, wr, &bad);
}

void emu_fill(void *p, size_t len, unsigned seed)
{
	uint8_t *b = p;

	for (size_t i = 0; i < len; i++)
		b[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}
