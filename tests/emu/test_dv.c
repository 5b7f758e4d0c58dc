// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Direct-verbs view of the emulated device, through rdma-core's own
 * mlx4dv_init_obj (the system <infiniband/mlx4dv.h>):
 *  - the layouts it returns match the sizes derived by hand from the
 *    create attributes (PRM / libmlx4 rules written out in this file);
 *  - the bytes libmlx4 writes into a send slot match a golden image
 *    built by hand, checked while the engine is paused;
 *  - WQEs written by hand at the positions those layouts give are
 *    executed (multi-WQEBB, wrapping) or refused with the right vendor
 *    syndrome (ds 0, unknown opcode, inline across 64 bytes, bad ds,
 *    beyond the headroom);
 *  - BlueFlame: used when enabled, and a post only present in the
 *    BlueFlame buffer is executed.
 */
#include "emu_test.h"

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <infiniband/mlx4dv.h>
#include "test_exit.h"
#pragma GCC diagnostic pop

#define ACC (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_LOCAL_WRITE)

static uint32_t pow2(uint32_t x)
{
	uint32_t n = 1;

	while (n < x)
		n <<= 1;
	return n;
}

static int log2_of(uint32_t x)
{
	int s = 0;

	while ((1u << s) < x)
		s++;
	return s;
}

static unsigned env_cqe_size(void)
{
	const char *v = getenv("MLX4EMU_CQE_SIZE");

	return v && atoi(v) == 64 ? 64 : 32;
}

static int env_bf(void)
{
	const char *v = getenv("MLX4EMU_BF");

	return !(v && (!strcmp(v, "off") || !strcmp(v, "0")));
}

static void test_init_obj_layouts(void **state)
{
	struct emu_env e;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_srq *srq;
	struct ibv_wq *wq;
	struct ibv_qp_init_attr ia;
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 100, .max_sge = 3 } };
	struct ibv_wq_init_attr wa;
	struct mlx4dv_qp dqp = { 0 };
	struct mlx4dv_cq dcq = { 0 };
	struct mlx4dv_srq dsrq = { 0 };
	struct mlx4dv_rwq drwq = { 0 };
	struct mlx4dv_obj obj;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	uint32_t spare;

	(void)state;
	emu_env_open(&e, 1);
	cq = ibv_create_cq(e.ctx, 100, NULL, NULL, 0);
	assert_non_null(cq);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 10;
	ia.cap.max_recv_wr = 5;
	ia.cap.max_send_sge = 2;
	ia.cap.max_recv_sge = 3;
	qp = ibv_create_qp(e.pd, &ia);
	assert_non_null(qp);
	srq = ibv_create_srq(e.pd, &sa);
	assert_non_null(srq);

	memset(&obj, 0, sizeof(obj));
	obj.qp.in = qp;
	obj.qp.out = &dqp;
	obj.cq.in = cq;
	obj.cq.out = &dcq;
	obj.srq.in = srq;
	obj.srq.out = &dsrq;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_QP | MLX4DV_OBJ_CQ |
					 MLX4DV_OBJ_SRQ), 0);

	/* CQ: 100 + 1 rounded up to a power of two, the configured size */
	assert_int_equal(dcq.cqe_cnt, 128);
	assert_int_equal(dcq.cqe_size, env_cqe_size());
	assert_true(dcq.buf.length >= 128u * env_cqe_size());
	assert_ptr_equal(dcq.arm_db, dcq.set_ci_db + 1);
	/* every CQE starts owned by the device (owner bit 1) */
	for (uint32_t i = 0; i < dcq.cqe_cnt; i++)
		assert_int_equal(((uint8_t *)dcq.buf.buf)[(i + 1) * dcq.cqe_size - 1] & 0x80,
				 0x80);

	/* SQ: RC needs ctrl + max(raddr + 2 SGEs, raddr + atomic + 1 SGE)
	 * = 64 bytes; spare = 2048 / 64 + 1; count = pow2(10 + spare) */
	spare = 2048 / 64 + 1;
	assert_int_equal(dqp.sq.wqe_shift, 6);
	assert_int_equal(dqp.sq.wqe_cnt, pow2(10 + spare));
	/* RQ: pow2(5) WQEs of pow2(3 * 16) bytes; equal strides: SQ first */
	assert_int_equal(dqp.rq.wqe_cnt, 8);
	assert_int_equal(dqp.rq.wqe_shift, 6);
	assert_int_equal(dqp.sq.offset, 0);
	assert_int_equal(dqp.rq.offset, (int)(dqp.sq.wqe_cnt << 6));
	assert_true(dqp.buf.length >= (dqp.sq.wqe_cnt << 6) + (8u << 6));
	assert_int_equal(be32toh(dqp.doorbell_qpn), qp->qp_num << 8);
	/* what the device reports agrees */
	assert_int_equal(ibv_query_qp(qp, &qa, IBV_QP_CAP, &qia), 0);
	assert_int_equal(qia.cap.max_recv_wr, dqp.rq.wqe_cnt);
	assert_int_equal(qia.cap.max_send_wr, dqp.sq.wqe_cnt - spare);

	/* SRQ: pow2(100 + 1) WQEs of pow2(16 + 3 * 16) bytes, free list 0..max-1 */
	assert_int_equal(dsrq.wqe_shift, 6);
	assert_int_equal(dsrq.head, 0);
	assert_int_equal(dsrq.tail, 127);
	assert_true(dsrq.buf.length >= 128u << 6);

	/* WQ: pow2(max_wr) WQEs of pow2(max_sge * 16) bytes after a 64-byte
	 * dummy send queue */
	memset(&wa, 0, sizeof(wa));
	wa.wq_type = IBV_WQT_RQ;
	wa.max_wr = 20;
	wa.max_sge = 2;
	wa.pd = e.pd;
	wa.cq = cq;
	wq = ibv_create_wq(e.ctx, &wa);
	assert_non_null(wq);
	memset(&obj, 0, sizeof(obj));
	obj.rwq.in = wq;
	obj.rwq.out = &drwq;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_RWQ), 0);
	assert_int_equal(drwq.rq.wqe_cnt, 32);
	assert_int_equal(drwq.rq.wqe_shift, log2_of(pow2(2 * 16)));
	assert_int_equal(drwq.rq.offset, 64);

	assert_int_equal(ibv_destroy_wq(wq), 0);
	assert_int_equal(ibv_destroy_qp(qp), 0);
	assert_int_equal(ibv_destroy_srq(srq), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	emu_env_close(&e);
}

struct dvpair {
	struct emu_env e;
	struct emu_qp a, b;
	struct mlx4dv_qp dqp;
};

static void dvpair_open(struct dvpair *p, uint32_t max_send_wr, uint32_t max_inline)
{
	struct ibv_qp_init_attr ia;
	struct mlx4dv_obj obj;

	memset(p, 0, sizeof(*p));
	emu_env_open(&p->e, 1);
	emu_qp_create(&p->e, &p->b, IBV_QPT_RC, 16, 16, 64, 1 << 16, NULL);
	p->a.scq = ibv_create_cq(p->e.ctx, 64, NULL, NULL, 0);
	p->a.rcq = ibv_create_cq(p->e.ctx, 64, NULL, NULL, 0);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = p->a.scq;
	ia.recv_cq = p->a.rcq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = max_send_wr;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.cap.max_inline_data = max_inline;
	p->a.qp = ibv_create_qp(p->e.pd, &ia);
	assert_non_null(p->a.qp);
	p->a.len = 1 << 16;
	p->a.buf = aligned_alloc(4096, p->a.len);
	memset(p->a.buf, 0, p->a.len);
	p->a.mr = ibv_reg_mr(p->e.pd, p->a.buf, p->a.len, ACC);
	emu_qp_to_rts(&p->e, p->a.qp, p->b.qp->qp_num, ACC);
	emu_qp_to_rts(&p->e, p->b.qp, p->a.qp->qp_num, ACC);
	memset(&obj, 0, sizeof(obj));
	obj.qp.in = p->a.qp;
	obj.qp.out = &p->dqp;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_QP), 0);
}

static void dvpair_close(struct dvpair *p)
{
	emu_qp_destroy(&p->a);
	emu_qp_destroy(&p->b);
	emu_env_close(&p->e);
}

static uint8_t *slot(struct dvpair *p, uint32_t n)
{
	return (uint8_t *)p->dqp.buf.buf + p->dqp.sq.offset +
	       ((n & (p->dqp.sq.wqe_cnt - 1)) << p->dqp.sq.wqe_shift);
}

static void put_be32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}

static void put_be64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, 8);
}

/* Writes word 0 last (owner bit for counter n) and rings the doorbell. */
static void hand_post(struct dvpair *p, uint32_t n, uint8_t opcode, uint8_t ds,
		      uint32_t srcrb)
{
	uint8_t *w = slot(p, n);
	uint32_t owner = (n & p->dqp.sq.wqe_cnt) ? 1u << 31 : 0;

	w[4] = w[5] = w[6] = 0;
	w[7] = ds;
	put_be32(w + 8, srcrb);
	put_be32(w + 12, 0);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	put_be32(w, owner | opcode);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	*(volatile uint32_t *)p->dqp.sdb = p->dqp.doorbell_qpn;
}

static void data_seg(uint8_t *s, uint32_t len, uint32_t lkey, uint64_t addr)
{
	put_be32(s + 4, lkey);
	put_be64(s + 8, addr);
	put_be32(s, len);
}

/* libmlx4's bytes in the slot equal a golden image built by hand. */
static void test_golden_slot_while_paused(void **state)
{
	struct dvpair p;
	struct ibv_sge sge[2];
	struct ibv_send_wr wr;
	uint8_t golden[48];
	struct mlx4emu_counters c0, c1;

	(void)state;
	dvpair_open(&p, 16, 0);
	sge[0] = (struct ibv_sge){ (uintptr_t)p.a.buf + 16, 100, p.a.mr->lkey };
	sge[1] = (struct ibv_sge){ (uintptr_t)p.a.buf + 1000, 28, p.a.mr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 5;
	wr.sg_list = sge;
	wr.num_sge = 2;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	emu_post_recv(p.b.qp, 6, p.b.buf, 4096, p.b.mr->lkey);
	emu_fill(p.a.buf, 2048, 77);

	/* control: opcode SEND 0x0a, owner 0 (first lap), ds = 3 (ctrl + 2
	 * data segments), srcrb = CQ update (3 << 2); then the two data
	 * segments {byte_count, lkey, addr}, all big-endian */
	memset(golden, 0, sizeof(golden));
	put_be32(golden, 0x0a);
	golden[7] = 3;
	put_be32(golden + 8, 3 << 2);
	data_seg(golden + 16, 100, p.a.mr->lkey, (uintptr_t)p.a.buf + 16);
	data_seg(golden + 32, 28, p.a.mr->lkey, (uintptr_t)p.a.buf + 1000);

	assert_int_equal(p.e.ctl.pause(), 0);
	p.e.ctl.get_counters(&c0);
	assert_int_equal(emu_post_send(p.a.qp, &wr), 0);
	assert_memory_equal(slot(&p, 0), golden, sizeof(golden));
	assert_int_equal(p.e.ctl.wait_idle(10), EBUSY);
	p.e.ctl.get_counters(&c1);
	assert_int_equal(c1.wqes_executed, c0.wqes_executed);
	assert_int_equal(p.e.ctl.resume(), 0);
	assert_int_equal(emu_poll_one(p.a.scq, IBV_WC_SUCCESS).wr_id, 5);
	assert_int_equal(emu_poll_one(p.b.rcq, IBV_WC_SUCCESS).byte_len, 128);
	assert_memory_equal(p.b.buf, p.a.buf + 16, 100);
	assert_memory_equal(p.b.buf + 100, p.a.buf + 1000, 28);
	p.e.ctl.get_counters(&c1);
	assert_int_equal(c1.wqes_executed, c0.wqes_executed + 1);
	dvpair_close(&p);
}

/* Hand-written NOPs walk the counter to the last slot, then a SEND of
 * six 16-byte units (two 64-byte WQEBBs) wraps around the ring end. */
static void test_multi_wqebb_wrap(void **state)
{
	struct dvpair p;
	uint32_t cnt, n;
	struct ibv_wc wc;
	uint8_t *w, tail[64];

	(void)state;
	dvpair_open(&p, 4, 0);
	assert_int_equal(p.dqp.sq.wqe_shift, 6);
	cnt = p.dqp.sq.wqe_cnt;
	for (n = 0; n < cnt - 1; n++) {
		hand_post(&p, n, 0x00, 1, 0);	/* NOP, unsignaled */
		emu_idle(&p.e);
	}
	emu_fill(p.a.buf, 5 * 40, 3);
	emu_post_recv(p.b.qp, 8, p.b.buf, 4096, p.b.mr->lkey);
	/* segments 1..3 in the last slot, 4..5 in slot 0 (the next lap) */
	w = slot(&p, n);
	for (int i = 0; i < 3; i++)
		data_seg(w + 16 + 16 * i, 40, p.a.mr->lkey, (uintptr_t)p.a.buf + 40u * (uint32_t)i);
	memset(tail, 0, sizeof(tail));
	for (int i = 0; i < 2; i++)
		data_seg(tail + 16 * i, 40, p.a.mr->lkey, (uintptr_t)p.a.buf + 40u * (uint32_t)(3 + i));
	memcpy(slot(&p, n + 1), tail, 32);
	hand_post(&p, n, 0x0a, 6, 3 << 2);
	wc = emu_poll_one(p.b.rcq, IBV_WC_SUCCESS);
	assert_int_equal(wc.byte_len, 200);
	assert_memory_equal(p.b.buf, p.a.buf, 200);
	wc = emu_poll_one(p.a.scq, IBV_WC_SUCCESS);
	dvpair_close(&p);
}

static void expect_strict(struct dvpair *p, uint8_t vendor)
{
	struct ibv_wc wc = emu_poll_one(p->a.scq, IBV_WC_LOC_QP_OP_ERR);

	assert_int_equal(wc.vendor_err, vendor);
}

/*
 * A WQE the device must refuse: write() fills its segments at w (slot 0,
 * or nothing), then the control segment gets opcode and ds.  The send
 * completes with status (LOC_QP_OP_ERR carries vendor, the strict
 * syndrome) and the receive posted on b stays unused.
 */
struct bad_wqe {
	uint32_t max_inline;
	void (*write)(struct dvpair *p, uint8_t *w);
	uint8_t opcode, ds;
	enum ibv_wc_status status;
	uint8_t vendor;
};

static void expect_refused(const struct bad_wqe *c)
{
	struct dvpair p;
	struct ibv_wc wc;

	dvpair_open(&p, 16, c->max_inline);
	emu_post_recv(p.b.qp, 1, p.b.buf, 4096, p.b.mr->lkey);
	if (c->write)
		c->write(&p, slot(&p, 0));
	hand_post(&p, 0, c->opcode, c->ds, 3 << 2);
	wc = emu_poll_one(p.a.scq, c->status);
	if (c->status == IBV_WC_LOC_QP_OP_ERR)
		assert_int_equal(wc.vendor_err, c->vendor);
	emu_assert_cq_empty(&p.e, p.b.rcq);
	dvpair_close(&p);
}

static void test_strict_ds_zero(void **state)
{
	(void)state;
	expect_refused(&(struct bad_wqe){ .opcode = 0x0a, .ds = 0,
					  .status = IBV_WC_LOC_QP_OP_ERR, .vendor = 0x05 });
}

static void test_strict_unknown_opcode(void **state)
{
	(void)state;
	expect_refused(&(struct bad_wqe){ .opcode = 0x1d, .ds = 1,
					  .status = IBV_WC_LOC_QP_OP_ERR, .vendor = 0x01 });
}

/* one inline segment of 60 bytes at offset 16: ends at byte 80 */
static void write_inline_crossing(struct dvpair *p, uint8_t *w)
{
	(void)p;
	put_be32(w + 16, 0x80000000u | 60);
}

static void test_strict_inline_crossing(void **state)
{
	(void)state;
	expect_refused(&(struct bad_wqe){ .max_inline = 128, .write = write_inline_crossing,
					  .opcode = 0x0a, .ds = 5,
					  .status = IBV_WC_LOC_QP_OP_ERR, .vendor = 0x03 });
}

/* an RDMA write of ds 1 has no room for its raddr segment */
static void test_strict_bad_ds(void **state)
{
	(void)state;
	expect_refused(&(struct bad_wqe){ .opcode = 0x08, .ds = 1,
					  .status = IBV_WC_LOC_QP_OP_ERR, .vendor = 0x02 });
}

static void write_byte_count_zero(struct dvpair *p, uint8_t *w)
{
	data_seg(w + 16, 0, p->a.mr->lkey, (uintptr_t)p->a.buf);
}

/* A data segment's byte_count 0 means 2 GiB (PRM): more than the 64 KiB
 * MR holds, so the gather is a local protection error, not an empty SGE. */
static void test_strict_data_byte_count_zero(void **state)
{
	(void)state;
	expect_refused(&(struct bad_wqe){ .write = write_byte_count_zero,
					  .opcode = 0x0a, .ds = 2,
					  .status = IBV_WC_LOC_PROT_ERR });
}

static void write_inline_without_bit(struct dvpair *p, uint8_t *w)
{
	(void)p;
	memset(w + 20, 0xab, 60);
	put_be32(w + 16, 60);
}

/* Inline data whose header lacks the inline bit (bit 31) is read as data
 * segments: byte count 60, and an lkey made of payload bytes. */
static void test_strict_inline_header_without_bit(void **state)
{
	(void)state;
	expect_refused(&(struct bad_wqe){ .max_inline = 128, .write = write_inline_without_bit,
					  .opcode = 0x0a, .ds = 5,
					  .status = IBV_WC_LOC_PROT_ERR });
}

/* 44 bytes from offset 16 end the first chunk exactly at 64; the second
 * chunk's header has no inline bit */
static void write_inline_second_header(struct dvpair *p, uint8_t *w)
{
	(void)p;
	put_be32(w + 16, 0x80000000u | 44);
	memset(w + 20, 0x11, 44);
	put_be32(w + 64, 20);
	memset(w + 68, 0x22, 20);
}

/* A second inline chunk (at the 64-byte boundary) whose header lacks the
 * inline bit while ds says the WQE goes on: inconsistent inline headers. */
static void test_strict_inline_second_header(void **state)
{
	(void)state;
	expect_refused(&(struct bad_wqe){ .max_inline = 256, .write = write_inline_second_header,
					  .opcode = 0x0a, .ds = 6,
					  .status = IBV_WC_LOC_QP_OP_ERR, .vendor = 0x02 });
}

/* fetch-and-add: ctrl + raddr + atomic + two data segments */
static void write_atomic_two_data(struct dvpair *p, uint8_t *w)
{
	put_be64(w + 16, (uintptr_t)p->b.buf);
	put_be32(w + 24, p->b.mr->rkey);
	put_be64(w + 32, 1);
	put_be64(w + 40, 0);
	data_seg(w + 48, 8, p->a.mr->lkey, (uintptr_t)p->a.buf);
	data_seg(w + 64, 8, p->a.mr->lkey, (uintptr_t)p->a.buf + 8);
}

/* An atomic must be exactly ctrl + raddr + atomic + one data segment. */
static void test_strict_atomic_ds(void **state)
{
	(void)state;
	expect_refused(&(struct bad_wqe){ .write = write_atomic_two_data,
					  .opcode = 0x12, .ds = 5,
					  .status = IBV_WC_LOC_QP_OP_ERR, .vendor = 0x02 });
}

static void test_strict_beyond_headroom(void **state)
{
	struct dvpair p;
	uint32_t cnt, spare, far;

	(void)state;
	dvpair_open(&p, 16, 0);
	cnt = p.dqp.sq.wqe_cnt;
	spare = (2048u >> p.dqp.sq.wqe_shift) + 1;
	far = cnt - spare;
	p.e.ctl.pause();
	/* the WQE at counter cnt - spare is posted while counter 0 is not
	 * yet executed: one more than the free slots allow */
	hand_post(&p, far, 0x00, 1, 0);
	hand_post(&p, 0, 0x00, 1, 3 << 2);
	p.e.ctl.resume();
	expect_strict(&p, 0x04);
	dvpair_close(&p);
}

static void test_blueflame(void **state)
{
	struct dvpair p;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	struct mlx4emu_counters c0, c1;
	uint8_t *w;

	(void)state;
	dvpair_open(&p, 16, 64);
	emu_fill(p.a.buf, 32, 5);
	sge = (struct ibv_sge){ (uintptr_t)p.a.buf, 32, p.a.mr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 9;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	emu_post_recv(p.b.qp, 10, p.b.buf, 4096, p.b.mr->lkey);

	/* a single small inline WQE goes through BlueFlame when enabled */
	p.e.ctl.get_counters(&c0);
	p.e.ctl.pause();
	assert_int_equal(emu_post_send(p.a.qp, &wr), 0);
	w = slot(&p, 0);
	if (env_bf()) {
		/* BlueFlame: the WQE counter sits in word 0 bits 8..23 */
		assert_int_equal((be32toh(*(uint32_t *)w) >> 8) & 0xffff, 0);
		/* make the ring copy invalid: only the BlueFlame copy remains */
		w[0] ^= 0x80;
	}
	p.e.ctl.resume();
	assert_int_equal(emu_poll_one(p.a.scq, IBV_WC_SUCCESS).wr_id, 9);
	assert_int_equal(emu_poll_one(p.b.rcq, IBV_WC_SUCCESS).byte_len, 32);
	assert_memory_equal(p.b.buf, p.a.buf, 32);
	p.e.ctl.get_counters(&c1);
	if (env_bf())
		assert_int_equal(c1.bf_posts, c0.bf_posts + 1);
	else
		assert_int_equal(c1.bf_posts, c0.bf_posts);
	dvpair_close(&p);
}

/* A direct-verbs library maps the BlueFlame page itself and posts only
 * there: the ring slot stays invalid, the device takes the copy. */
static void test_blueflame_own_mapping(void **state)
{
	struct dvpair p;
	long page = sysconf(_SC_PAGESIZE);
	uint8_t wqe[64] __attribute__((aligned(64)));
	uint8_t *bf;
	uint32_t w1;

	(void)state;
	dvpair_open(&p, 16, 64);
	bf = mmap(NULL, (size_t)page, PROT_WRITE, MAP_SHARED, p.e.ctx->cmd_fd, page);
	if (!env_bf()) {
		/* no BlueFlame: the page does not exist */
		assert_true(bf == MAP_FAILED);
		dvpair_close(&p);
		return;
	}
	assert_true(bf != MAP_FAILED);
	emu_fill(p.a.buf, 32, 21);
	emu_post_recv(p.b.qp, 12, p.b.buf, 4096, p.b.mr->lkey);
	/* SEND, counter 0 in bits 8..23, doorbell QPN | ds in word 1,
	 * ds = ctrl + 4-byte inline header + 32 bytes = 4 units */
	memset(wqe, 0, sizeof(wqe));
	put_be32(wqe, 0x0a | (0u << 8));
	w1 = be32toh(p.dqp.doorbell_qpn) | 4;
	put_be32(wqe + 4, w1);
	put_be32(wqe + 8, 3 << 2);
	put_be32(wqe + 16, 0x80000000u | 32);
	memcpy(wqe + 20, p.a.buf, 32);
	assert_int_equal(slot(&p, 0)[0] & 0x80, 0x80);	/* ring slot invalid */
	for (int i = 0; i < 64; i += 8)
		memcpy(bf + 256 + i, wqe + i, 8);
	assert_int_equal(emu_poll_one(p.a.scq, IBV_WC_SUCCESS).opcode, IBV_WC_SEND);
	assert_int_equal(emu_poll_one(p.b.rcq, IBV_WC_SUCCESS).byte_len, 32);
	assert_memory_equal(p.b.buf, p.a.buf, 32);
	assert_int_equal(munmap(bf, (size_t)page), 0);
	dvpair_close(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_obj_layouts),
		cmocka_unit_test(test_golden_slot_while_paused),
		cmocka_unit_test(test_multi_wqebb_wrap),
		cmocka_unit_test(test_strict_ds_zero),
		cmocka_unit_test(test_strict_unknown_opcode),
		cmocka_unit_test(test_strict_inline_crossing),
		cmocka_unit_test(test_strict_bad_ds),
		cmocka_unit_test(test_strict_beyond_headroom),
		cmocka_unit_test(test_strict_data_byte_count_zero),
		cmocka_unit_test(test_strict_inline_header_without_bit),
		cmocka_unit_test(test_strict_inline_second_header),
		cmocka_unit_test(test_strict_atomic_ds),
		cmocka_unit_test(test_blueflame),
		cmocka_unit_test(test_blueflame_own_mapping),
	};

	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
