// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Bad inputs on the software ConnectX-3 (docs/errors.md names each test):
 * to the compiled unit's *_init functions, to the device's command parser
 * (raw uverbs frames on the command fd), to its control API, and WQEs the
 * device refuses (the bugs a WQE builder must never produce), next to the
 * header's own WQEs of every inline length, which the device accepts.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <cmocka.h>

#define MLX4EMU_CTL_WANT_LOADER
#include "mlx4emu_ctl.h"
#include "emu_verbs.h"
#include "host_rings.h"
#include "../harness/wc_poll.h"
#include "test_exit.h"

static struct mlx4emu_ctl ctl;

static int group_setup(void **state)
{
	(void)state;
	return mlx4emu_ctl_load(&ctl) ? -1 : 0;
}

struct rc_pair {
	struct ev_dev dev;
	struct ibv_cq *cq_v;
	struct ibv_srq *srq;
	struct mlx4dv_cq_ring cq;
	struct ibv_qp *a, *b, *c;	/* c: receives on the SRQ */
	struct mlx4dv_sq_ring sq;
	struct mlx4dv_rq_ring rqb;
	struct mlx4dv_poll_qp pq[2];
};

static void pair_open(struct rc_pair *p, uint32_t max_inline)
{
	struct ibv_srq_init_attr sa;

	memset(p, 0, sizeof(*p));
	assert_int_equal(ev_open(&p->dev, 1 << 20), 0);
	p->cq_v = ibv_create_cq(p->dev.ctx, 255, NULL, NULL, 0);
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 8;
	sa.attr.max_sge = 1;
	p->srq = ibv_create_srq(p->dev.pd, &sa);
	assert_non_null(p->cq_v);
	assert_non_null(p->srq);
	p->a = ev_qp_create(&p->dev, IBV_QPT_RC, p->cq_v, p->cq_v, NULL, 16, 4, 1, max_inline);
	p->b = ev_qp_create(&p->dev, IBV_QPT_RC, p->cq_v, p->cq_v, NULL, 4, 64, 1, 0);
	p->c = ev_qp_create(&p->dev, IBV_QPT_RC, p->cq_v, p->cq_v, p->srq, 4, 0, 1, 0);
	assert_non_null(p->a);
	assert_non_null(p->b);
	assert_non_null(p->c);
	assert_int_equal(ev_qp_to_rts(&p->dev, p->a, p->b->qp_num), 0);
	assert_int_equal(ev_qp_to_rts(&p->dev, p->b, p->a->qp_num), 0);
	assert_int_equal(mlx4dv_cq_ring_init(&p->cq, p->cq_v, 0), 0);
	assert_int_equal(mlx4dv_sq_ring_init(&p->sq, p->a, MLX4DV_RING_INIT_WRID), 0);
	assert_int_equal(mlx4dv_rq_ring_init(&p->rqb, p->b, MLX4DV_RING_INIT_WRID), 0);
	p->pq[0].qpn = p->a->qp_num;
	p->pq[0].sq = &p->sq;
	p->pq[1].qpn = p->b->qp_num;
	p->pq[1].rq = &p->rqb;
}

static void pair_close(struct rc_pair *p)
{
	mlx4dv_sq_ring_release(&p->sq);
	mlx4dv_rq_ring_release(&p->rqb);
	mlx4dv_cq_ring_release(&p->cq);
	ibv_destroy_qp(p->c);
	ibv_destroy_qp(p->b);
	ibv_destroy_qp(p->a);
	ibv_destroy_srq(p->srq);
	ibv_destroy_cq(p->cq_v);
	ev_close(&p->dev);
}

/* ---- the compiled unit ---- */

static void test_bad_unit_init_args(void **state)
{
	struct rc_pair p;
	struct mlx4dv_sq_ring sq, sq_before;
	struct mlx4dv_rq_ring rq, rq_before;
	struct mlx4dv_cq_ring cq, cq_before;

	(void)state;
	pair_open(&p, 0);
	memset(&sq, 0xab, sizeof(sq));
	memset(&rq, 0xab, sizeof(rq));
	memset(&cq, 0xab, sizeof(cq));
	sq_before = sq;
	rq_before = rq;
	cq_before = cq;
	assert_int_equal(mlx4dv_sq_ring_init(NULL, p.a, 0), EINVAL);
	assert_int_equal(mlx4dv_sq_ring_init(&sq, NULL, 0), EINVAL);
	assert_int_equal(mlx4dv_sq_ring_init(&sq, p.a, 1u << 7), EINVAL);
	assert_int_equal(mlx4dv_rq_ring_init(&rq, p.a, MLX4DV_RING_INIT_BLUEFLAME), EINVAL);
	assert_int_equal(mlx4dv_rq_ring_init(&rq, p.c, 0), ENOENT);	/* on an SRQ */
	assert_int_equal(mlx4dv_cq_ring_init(&cq, p.cq_v, 1), EINVAL);
	/* a refusal leaves the handle as it was */
	assert_memory_equal(&sq, &sq_before, sizeof(sq));
	assert_memory_equal(&rq, &rq_before, sizeof(rq));
	assert_memory_equal(&cq, &cq_before, sizeof(cq));
	assert_int_equal(mlx4dv_set_blueflame_layout(p.dev.ctx, 100, 8), EINVAL);
	assert_int_equal(mlx4dv_set_blueflame_layout(NULL, 512, 8), EINVAL);
	pair_close(&p);
}

/* ---- the command parser ---- */

static ssize_t send_frame(struct ibv_context *ctx, const void *f, size_t len)
{
	errno = 0;
	return write(ctx->cmd_fd, f, len);
}

static void test_bad_uverbs_frames(void **state)
{
	struct ev_dev d;
	uint32_t f[16];
	uint64_t resp[8];
	uint64_t unmapped = 4096, scratch = (uintptr_t)resp;
	struct ibv_pd *pd;

	(void)state;
	assert_int_equal(ev_open(&d, 4096), 0);
	/* shorter than the 8-byte header */
	memset(f, 0, sizeof(f));
	assert_int_equal(send_frame(d.ctx, f, 4), -1);
	assert_int_equal(errno, EINVAL);
	/* ALLOC_PD (3): header, response address; in_words says 6, length 16 */
	f[0] = 3;
	f[1] = 6 | (4u << 16);
	memcpy(&f[2], &scratch, 8);
	assert_int_equal(send_frame(d.ctx, f, 16), -1);
	assert_int_equal(errno, EINVAL);
	/* unknown command number */
	f[0] = 0x3f;
	f[1] = 4 | (4u << 16);
	assert_int_equal(send_frame(d.ctx, f, 16), -1);
	assert_int_equal(errno, EOPNOTSUPP);
	/* response buffer too small (out_words 0) */
	f[0] = 3;
	f[1] = 4;
	assert_int_equal(send_frame(d.ctx, f, 16), -1);
	assert_int_equal(errno, ENOSPC);
	/* response address unmapped */
	f[1] = 4 | (4u << 16);
	memcpy(&f[2], &unmapped, 8);
	assert_int_equal(send_frame(d.ctx, f, 16), -1);
	assert_int_equal(errno, EFAULT);
	/* extended QUERY_DEVICE with the reserved word of its header set */
	memset(f, 0, sizeof(f));
	f[0] = 0x80000000u | 1;
	f[1] = 1 | (40u << 16);		/* 1 core word of 8 bytes */
	memcpy(&f[2], &scratch, 8);
	f[5] = 1;			/* cmd_hdr_reserved */
	assert_int_equal(send_frame(d.ctx, f, 32), -1);
	assert_int_equal(errno, EINVAL);
	/* the context still works */
	pd = ibv_alloc_pd(d.ctx);
	assert_non_null(pd);
	assert_int_equal(ibv_dealloc_pd(pd), 0);
	ev_close(&d);
}

/* ---- the control API ---- */

static void test_bad_ctl_fault_args(void **state)
{
	struct mlx4emu_fault f;

	(void)state;
	memset(&f, 0, sizeof(f));
	f.type = MLX4EMU_FAULT_ERROR_CQE;
	f.syndrome = 4;
	f.count = 0;
	assert_int_equal(ctl.set_fault(&f), EINVAL);
	f.count = 1;
	f.syndrome = 0;
	assert_int_equal(ctl.set_fault(&f), EINVAL);
	f.syndrome = 0x100;
	assert_int_equal(ctl.set_fault(&f), EINVAL);
	f.type = 99;
	f.syndrome = 4;
	assert_int_equal(ctl.set_fault(&f), EINVAL);
	assert_int_equal(ctl.pause(), 0);
	assert_int_equal(ctl.wait_idle(100), EBUSY);
	assert_int_equal(ctl.resume(), 0);
	assert_int_equal(ctl.clear_faults(), 0);
}

/* ---- WQEs the device refuses, WQEs it takes ---- */

/* The device's verdict, read from the raw CQE: an error CQE of A naming
 * WQE index, syndrome 0x02 (LOCAL_QP_OP_ERR) and the vendor syndrome.
 * With account set, the header's completion accounting then gives the
 * wr_id back. */
static void expect_error_cqe(struct rc_pair *p, uint16_t index, uint8_t vendor,
			     int account, uint64_t wr_id)
{
	struct mlx4_cqe *cqe = NULL;
	int tries = 0;

	while (!(cqe = mlx4dv_cq_peek(&p->cq)) && tries++ < 100)
		assert_int_equal(ctl.wait_idle(5000), 0);
	assert_non_null(cqe);
	assert_true(mlx4dv_cqe_is_error(cqe));
	assert_true(mlx4dv_cqe_is_send(cqe));
	assert_int_equal(mlx4dv_cqe_qpn(cqe), p->a->qp_num);
	assert_int_equal(mlx4dv_cqe_wqe_index(cqe), index);
	assert_int_equal(mlx4dv_cqe_syndrome(cqe), 0x02);
	assert_int_equal(mlx4dv_cqe_vendor_syndrome(cqe), vendor);
	assert_int_equal(mlx4dv_cqe_wc_status(cqe), IBV_WC_LOC_QP_OP_ERR);
	if (account) {
		struct ibv_wc wc;

		assert_int_equal(wc_poll_count(&p->cq, p->pq, 2, 1, &wc), 1);
		assert_int_equal(wc.wr_id, wr_id);
		assert_int_equal(wc.status, IBV_WC_LOC_QP_OP_ERR);
		assert_int_equal(wc.vendor_err, vendor);
	}
}

/* An inline segment that crosses a 64-byte boundary: LOCAL_QP_OP_ERR. */
static void test_device_rejects_inline_crossing_64b(void **state)
{
	struct rc_pair p;
	struct mlx4_wqe_ctrl_seg *ctrl;
	uint8_t *seg;
	uint16_t index;
	struct mlx4emu_counters before, after;

	(void)state;
	pair_open(&p, 128);
	assert_int_equal(ctl.get_counters(&before), 0);
	index = (uint16_t)p.sq.head;
	ctrl = (struct mlx4_wqe_ctrl_seg *)mlx4dv_sq_wqebb(&p.sq, p.sq.head);
	seg = (uint8_t *)(ctrl + 1);
	memset(seg + 4, 0x11, 60);
	wr_be32(seg, 0x80000000u | 60);	/* bytes 20..80: crosses 64 */
	mlx4dv_wqe_set_ctrl(ctrl, 5, MLX4_WQE_CTRL_CQ_UPDATE, 0);
	mlx4dv_sq_wqe_finish(&p.sq, 41, ctrl, MLX4_OPCODE_SEND);
	mlx4dv_sq_ring_doorbell(&p.sq);
	expect_error_cqe(&p, index, 0x03, 1, 41);
	assert_int_equal(ctl.get_counters(&after), 0);
	assert_int_equal(after.strict_errors - before.strict_errors, 1);
	pair_close(&p);
}

/* A WQE of ds 0: LOCAL_QP_OP_ERR. */
static void test_device_rejects_ds_zero(void **state)
{
	struct rc_pair p;
	struct mlx4_wqe_ctrl_seg *ctrl;
	uint16_t index;

	(void)state;
	pair_open(&p, 0);
	index = (uint16_t)p.sq.head;
	ctrl = (struct mlx4_wqe_ctrl_seg *)mlx4dv_sq_wqebb(&p.sq, p.sq.head);
	mlx4dv_wqe_set_ctrl(ctrl, 0, MLX4_WQE_CTRL_CQ_UPDATE, 0);
	mlx4dv_sq_wqe_finish(&p.sq, 41, ctrl, MLX4_OPCODE_SEND);
	mlx4dv_sq_ring_doorbell(&p.sq);
	/* no accounting: a WQE of no size has no WQEBBs to give back */
	expect_error_cqe(&p, index, 0x05, 0, 0);
	pair_close(&p);
}

/* The header's inline WQEs of every length up to the QP's limit: the
 * device finds every segment in place and delivers the bytes. */
static void test_inline_crossing_64b_boundary_on_device(void **state)
{
	struct rc_pair p;
	struct mlx4emu_counters before, after;
	uint8_t *src, *dst;
	uint32_t len, i;

	(void)state;
	pair_open(&p, 256);
	assert_true(p.sq.max_inline >= 200);
	src = p.dev.mem;
	dst = p.dev.mem + 65536;
	assert_int_equal(ctl.get_counters(&before), 0);
	for (len = 0; len <= p.sq.max_inline; len++) {
		struct ibv_sge rsg = { (uintptr_t)dst, 4096, p.dev.mr->lkey };
		struct ibv_wc wc[2];
		int got = 0, tries = 0;

		for (i = 0; i < len; i++)
			src[i] = (uint8_t)(len * 7 + i);
		memset(dst, 0, len + 1);
		assert_int_equal(mlx4dv_rq_post(&p.rqb, 1000 + len, &rsg, 1), 0);
		assert_int_equal(mlx4dv_sq_write_send_inline(&p.sq, len, src, len,
							    IBV_SEND_SIGNALED), 0);
		mlx4dv_sq_ring_doorbell(&p.sq);
		while (got < 2 && tries++ < 1000) {
			int n = wc_poll_count(&p.cq, p.pq, 2, 2 - got, wc + got);

			assert_true(n >= 0);
			got += n;
			if (got < 2)
				assert_int_equal(ctl.wait_idle(5000), 0);
		}
		assert_int_equal(got, 2);
		for (i = 0; i < 2; i++) {
			assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
			if (wc[i].qp_num == p.b->qp_num) {
				assert_int_equal(wc[i].byte_len, len);
				assert_int_equal(wc[i].wr_id, 1000 + len);
			} else {
				assert_int_equal(wc[i].wr_id, len);
			}
		}
		assert_memory_equal(src, dst, len);
	}
	assert_int_equal(ctl.get_counters(&after), 0);
	assert_int_equal(after.strict_errors, before.strict_errors);
	pair_close(&p);
}

/* Stale bytes in the padding after the last inline segment that happen
 * to look like a segment header must not be taken for data: writers leave
 * the padding as it was (libmlx4 does too). Found by the soak. */
static void test_inline_padding_is_not_a_segment(void **state)
{
	struct rc_pair p;
	uint8_t *src, *dst, *slot;
	uint32_t off;
	struct ibv_sge rsg;
	struct ibv_wc wc[2];
	int got = 0, tries = 0, i;

	(void)state;
	pair_open(&p, 128);
	src = p.dev.mem;
	dst = p.dev.mem + 65536;
	memset(src, 0x3c, 15);
	/* the slot the next WQE takes: a valid-looking 2-byte header right
	 * after where 15 inline bytes end (16 + 4 + 15), and after it */
	slot = mlx4dv_sq_wqebb(&p.sq, p.sq.head);
	for (off = 35; off + 4 <= (1u << p.sq.wqe_shift); off += 6)
		wr_be32(slot + off, 0x80000002u);
	rsg.addr = (uintptr_t)dst;
	rsg.length = 4096;
	rsg.lkey = p.dev.mr->lkey;
	assert_int_equal(mlx4dv_rq_post(&p.rqb, 7, &rsg, 1), 0);
	assert_int_equal(mlx4dv_sq_write_send_inline(&p.sq, 8, src, 15,
						    IBV_SEND_SIGNALED), 0);
	mlx4dv_sq_ring_doorbell(&p.sq);
	while (got < 2 && tries++ < 1000) {
		int n = wc_poll_count(&p.cq, p.pq, 2, 2 - got, wc + got);

		assert_true(n >= 0);
		got += n;
		if (got < 2)
			assert_int_equal(ctl.wait_idle(5000), 0);
	}
	assert_int_equal(got, 2);
	for (i = 0; i < 2; i++) {
		assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
		if (wc[i].qp_num == p.b->qp_num)
			assert_int_equal(wc[i].byte_len, 15);
	}
	pair_close(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_unit_init_args),
		cmocka_unit_test(test_bad_uverbs_frames),
		cmocka_unit_test(test_bad_ctl_fault_args),
		cmocka_unit_test(test_device_rejects_inline_crossing_64b),
		cmocka_unit_test(test_device_rejects_ds_zero),
		cmocka_unit_test(test_inline_crossing_64b_boundary_on_device),
		cmocka_unit_test(test_inline_padding_is_not_a_segment),
	};

	t_run_group_tests_name("reliability_bad_inputs_device", tests, group_setup, NULL);
	return t_exit();
}
