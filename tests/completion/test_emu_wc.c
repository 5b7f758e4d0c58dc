/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Differential test on the software ConnectX-3: for every kind of
 * completion the device produces, the ibv_wc that Part 5 decodes from a
 * CQE equals the one libmlx4's ibv_poll_cq() returns for the SAME CQE.
 *
 * All QPs use one CQ. The test converts it with mlx4dv_init_obj() only to
 * learn where its CQEs are; libmlx4 keeps polling it. Before each
 * ibv_poll_cq(cq, 1) the test copies the CQE at libmlx4's position (a
 * shadow handle that advances in step). Then it decodes the copy with
 * mlx4dv_cqe_complete_wc() against shadow rings, which mirror the
 * wr_ids posted through ibv_post_send/recv/srq_recv, and compares.
 *
 * Completions covered: SEND (with and without SGEs), SEND_IMM,
 * RDMA_WRITE, RDMA_WRITE_IMM, RDMA_READ, ATOMIC_CMP_AND_SWP,
 * ATOMIC_FETCH_AND_ADD, unsignaled sends completed by a later one, the
 * matching receives, UD receives (source QP, P_Key index, SLID, SL, GRH),
 * SRQ receives, raw Ethernet receives with every combination of the
 * checksum bits libmlx4 looks at (IBV_WC_IP_CSUM_OK), receive WQs behind an
 * RSS QP (WQ number and RSS hash in the CQE), error CQEs with every
 * syndrome (injected), remote access and local length errors, and flushes
 * of both queues.
 */
#include "emu_util.h"

#include <stdio.h>
#include "test_exit.h"

#define CQ_SIZE 1024
#define RECV_BYTES 2048

struct shadow_qp {
	struct ibv_qp *qp;
	struct mlx4dv_sq_ring sq;
	struct mlx4dv_rq_ring rq;
	uint64_t sq_wrid[256];
	uint64_t rq_wrid[256];
};

struct shadow_srq {
	struct ibv_srq *srq;
	struct mlx4dv_srq_ring ring;
	uint64_t wrid[256];
};

struct fixture {
	struct emu_env env;
	struct ibv_cq *cq;
	struct mlx4dv_cq_ring shadow_cq;
	struct emu_buf local, remote;
	struct mlx4dv_poll_qp qps[4];
	int nqps;
	unsigned compared;
	struct ibv_wc last[64];	/* the completions of the last drain */
};

static struct fixture fx;

/* ---- shadows of libmlx4's queues ---- */

static void shadow_qp_init(struct shadow_qp *s, struct ibv_qp *qp)
{
	struct mlx4dv_qp dv;
	struct mlx4dv_obj obj;

	memset(s, 0, sizeof(*s));
	memset(&dv, 0, sizeof(dv));
	memset(&obj, 0, sizeof(obj));
	obj.qp.in = qp;
	obj.qp.out = &dv;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_QP), 0);
	assert_true(dv.sq.wqe_cnt <= 256 && dv.rq.wqe_cnt <= 256);
	s->qp = qp;
	s->sq.buf = (uint8_t *)dv.buf.buf + dv.sq.offset;
	s->sq.wqe_cnt = dv.sq.wqe_cnt;
	s->sq.wqe_shift = (uint32_t)dv.sq.wqe_shift;
	s->sq.qpn = qp->qp_num;
	s->sq.wrid = s->sq_wrid;
	s->rq.wqe_cnt = dv.rq.wqe_cnt;
	s->rq.wqe_shift = (uint32_t)dv.rq.wqe_shift;
	s->rq.qpn = qp->qp_num;
	s->rq.wrid = s->rq_wrid;
}

static void shadow_srq_init(struct shadow_srq *s, struct ibv_srq *srq)
{
	struct mlx4dv_srq dv;
	struct mlx4dv_obj obj;

	memset(s, 0, sizeof(*s));
	memset(&dv, 0, sizeof(dv));
	memset(&obj, 0, sizeof(obj));
	obj.srq.in = srq;
	obj.srq.out = &dv;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_SRQ), 0);
	s->srq = srq;
	s->ring.buf = (uint8_t *)dv.buf.buf;
	s->ring.wqe_shift = (uint32_t)dv.wqe_shift;
	s->ring.head = (uint32_t)dv.head;
	s->ring.tail = (uint32_t)dv.tail;
	s->ring.wqe_cnt = (uint32_t)dv.tail + 1;	/* fresh SRQ */
	s->ring.db = dv.db;
	s->ring.wrid = s->wrid;
	assert_true(s->ring.wqe_cnt <= 256);
}

static void add_poll_qp(struct shadow_qp *s, struct shadow_srq *srq)
{
	struct mlx4dv_poll_qp *p = &fx.qps[fx.nqps++];

	memset(p, 0, sizeof(*p));
	p->qpn = s->qp->qp_num;
	/* libmlx4 learns the link layer at the modify to INIT; it validates
	 * checksums only for raw-packet and UD-over-IB with device support,
	 * which the RC and UD QPs here do not claim. */
	p->rx_flags = fx.env.is_eth ? MLX4DV_CQE_RX_ETHERNET : 0;
	p->sq = &s->sq;
	p->rq = srq ? NULL : &s->rq;
	p->srq = srq ? &srq->ring : NULL;
}

/* ---- posting through libmlx4, mirrored in the shadows ---- */

static void post_send(struct shadow_qp *s, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;

	assert_int_equal(ibv_post_send(s->qp, wr, &bad), 0);
	s->sq.wrid[s->sq.head & (s->sq.wqe_cnt - 1)] = wr->wr_id;
	s->sq.head++;
}

static void post_recv(struct shadow_qp *s, uint64_t wr_id, size_t offset, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)fx.remote.p + offset, len, fx.remote.mr->lkey };
	struct ibv_recv_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	assert_int_equal(ibv_post_recv(s->qp, &wr, &bad), 0);
	s->rq.wrid[s->rq.head & (s->rq.wqe_cnt - 1)] = wr_id;
	s->rq.head++;
}

static void post_srq_recv(struct shadow_srq *s, uint64_t wr_id, size_t offset)
{
	struct ibv_sge sge = { (uintptr_t)fx.remote.p + offset, RECV_BYTES, fx.remote.mr->lkey };
	struct ibv_recv_wr wr, *bad = NULL;
	uint32_t index = s->ring.head;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	assert_int_equal(ibv_post_srq_recv(s->srq, &wr, &bad), 0);
	/* libmlx4 took the free-list head; follow the same link. */
	s->wrid[index] = wr_id;
	s->ring.head = mlx4dv_be16_to_cpu(mlx4dv_srq_wqe(&s->ring, index)->next_wqe_index);
}

static struct ibv_send_wr send_wr(uint64_t wr_id, enum ibv_wr_opcode op,
				  struct ibv_sge *sge, uint32_t len)
{
	struct ibv_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	sge->addr = (uintptr_t)fx.local.p;
	sge->length = len;
	sge->lkey = fx.local.mr->lkey;
	wr.wr_id = wr_id;
	wr.opcode = op;
	wr.sg_list = sge;
	wr.num_sge = len ? 1 : 0;
	wr.send_flags = IBV_SEND_SIGNALED;
	return wr;
}

/* ---- the comparison ---- */

static void compare_wc(const struct ibv_wc *ref, const struct ibv_wc *mine,
		       const uint8_t raw[32])
{
	char where[64];

	snprintf(where, sizeof(where), "CQE #%u, last byte 0x%02x", fx.compared, raw[31]);
	if (memcmp(ref, mine, sizeof(*ref)) == 0)
		return;
	print_error("%s\n", where);
	assert_int_equal(mine->wr_id, ref->wr_id);
	assert_int_equal(mine->status, ref->status);
	assert_int_equal(mine->opcode, ref->opcode);
	assert_int_equal(mine->vendor_err, ref->vendor_err);
	assert_int_equal(mine->byte_len, ref->byte_len);
	assert_int_equal(mine->imm_data, ref->imm_data);
	assert_int_equal(mine->qp_num, ref->qp_num);
	assert_int_equal(mine->src_qp, ref->src_qp);
	assert_int_equal(mine->wc_flags, ref->wc_flags);
	assert_int_equal(mine->pkey_index, ref->pkey_index);
	assert_int_equal(mine->slid, ref->slid);
	assert_int_equal(mine->sl, ref->sl);
	assert_int_equal(mine->dlid_path_bits, ref->dlid_path_bits);
	fail_msg("%s: ibv_wc differs in padding", where);
}

/* Drains the CQ through libmlx4, checking every CQE; returns how many. */
static unsigned drain_and_compare(void)
{
	unsigned n = 0;

	emu_wait_idle(&fx.env);
	for (;;) {
		const struct mlx4_cqe *cqe = mlx4dv_cq_peek(&fx.shadow_cq);
		struct ibv_wc ref, mine;
		uint8_t raw[32];

		memset(&ref, 0, sizeof(ref));
		memset(&mine, 0, sizeof(mine));
		if (!cqe) {
			assert_int_equal(ibv_poll_cq(fx.cq, 1, &ref), 0);
			return n;
		}
		memcpy(raw, cqe, sizeof(raw));
		assert_int_equal(ibv_poll_cq(fx.cq, 1, &ref), 1);
		fx.shadow_cq.cons_index++;
		assert_int_equal(mlx4dv_cqe_complete_wc((const struct mlx4_cqe *)raw,
							fx.qps, fx.nqps, &mine), 0);
		compare_wc(&ref, &mine, raw);
		if (n < 64)
			fx.last[n] = ref;
		fx.compared++;
		n++;
	}
}

/* ---- setup ---- */

static int setup(void **state)
{
	struct mlx4dv_cq dv;
	struct mlx4dv_obj obj;

	(void)state;
	memset(&fx, 0, sizeof(fx));
	emu_env_open(&fx.env);
	fx.cq = ibv_create_cq(fx.env.ctx, CQ_SIZE, NULL, NULL, 0);
	assert_non_null(fx.cq);
	memset(&dv, 0, sizeof(dv));
	memset(&obj, 0, sizeof(obj));
	obj.cq.in = fx.cq;
	obj.cq.out = &dv;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_CQ), 0);
	fx.shadow_cq.buf = (uint8_t *)dv.buf.buf;
	fx.shadow_cq.cqe_cnt = dv.cqe_cnt;
	fx.shadow_cq.cqe_size = (uint32_t)dv.cqe_size;
	fx.shadow_cq.cons_index = mlx4dv_be32_to_cpu(*dv.set_ci_db) & 0xffffff;
	fx.shadow_cq.cqn = dv.cqn;
	emu_buf_alloc(&fx.env, &fx.local, 1 << 16);
	emu_buf_alloc(&fx.env, &fx.remote, 1 << 16);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	emu_buf_free(&fx.local);
	emu_buf_free(&fx.remote);
	ibv_destroy_cq(fx.cq);
	emu_env_close(&fx.env);
	printf("compared %u CQEs (%s, %u-byte CQEs)\n", fx.compared,
	       fx.env.is_eth ? "Ethernet" : "InfiniBand", fx.shadow_cq.cqe_size);
	return 0;
}

/* An RC pair a -> b on the shared CQ, registered for polling. */
static void rc_pair(struct shadow_qp *a, struct shadow_qp *b, int sig_all)
{
	struct ibv_qp *qa = emu_qp_create(&fx.env, IBV_QPT_RC, fx.cq, fx.cq, NULL, 64, 2, sig_all);
	struct ibv_qp *qb = emu_qp_create(&fx.env, IBV_QPT_RC, fx.cq, fx.cq, NULL, 64, 2, sig_all);

	emu_rc_connect(&fx.env, qa, qb->qp_num);
	emu_rc_connect(&fx.env, qb, qa->qp_num);
	shadow_qp_init(a, qa);
	shadow_qp_init(b, qb);
	fx.nqps = 0;
	add_poll_qp(a, NULL);
	add_poll_qp(b, NULL);
}

static void rc_pair_destroy(struct shadow_qp *a, struct shadow_qp *b)
{
	assert_int_equal(ibv_destroy_qp(a->qp), 0);
	assert_int_equal(ibv_destroy_qp(b->qp), 0);
	fx.nqps = 0;
}

/* ---- the cases ---- */

static void test_rc_good_opcodes(void **state)
{
	static struct shadow_qp a, b;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	int i;

	(void)state;
	rc_pair(&a, &b, 0);
	for (i = 0; i < 8; i++)
		post_recv(&b, 0xb000 + (uint64_t)i, (size_t)i * RECV_BYTES, RECV_BYTES);

	wr = send_wr(1, IBV_WR_SEND, &sge, 100);
	post_send(&a, &wr);
	wr = send_wr(2, IBV_WR_SEND, &sge, 0);			/* no SGE */
	post_send(&a, &wr);
	wr = send_wr(3, IBV_WR_SEND_WITH_IMM, &sge, 33);
	wr.imm_data = mlx4dv_cpu_to_be32(0x12345678);
	post_send(&a, &wr);
	wr = send_wr(4, IBV_WR_RDMA_WRITE, &sge, 64);
	wr.wr.rdma.remote_addr = (uintptr_t)fx.remote.p + 0x8000;
	wr.wr.rdma.rkey = fx.remote.mr->rkey;
	post_send(&a, &wr);
	wr = send_wr(5, IBV_WR_RDMA_WRITE_WITH_IMM, &sge, 32);
	wr.wr.rdma.remote_addr = (uintptr_t)fx.remote.p + 0x8000;
	wr.wr.rdma.rkey = fx.remote.mr->rkey;
	wr.imm_data = mlx4dv_cpu_to_be32(0xcafe0001);
	post_send(&a, &wr);
	wr = send_wr(6, IBV_WR_RDMA_READ, &sge, 128);
	wr.wr.rdma.remote_addr = (uintptr_t)fx.remote.p + 0x8000;
	wr.wr.rdma.rkey = fx.remote.mr->rkey;
	post_send(&a, &wr);
	wr = send_wr(7, IBV_WR_ATOMIC_CMP_AND_SWP, &sge, 8);
	wr.wr.atomic.remote_addr = (uintptr_t)fx.remote.p + 0x9000;
	wr.wr.atomic.rkey = fx.remote.mr->rkey;
	wr.wr.atomic.compare_add = 0;
	wr.wr.atomic.swap = 5;
	post_send(&a, &wr);
	wr = send_wr(8, IBV_WR_ATOMIC_FETCH_AND_ADD, &sge, 8);
	wr.wr.atomic.remote_addr = (uintptr_t)fx.remote.p + 0x9000;
	wr.wr.atomic.rkey = fx.remote.mr->rkey;
	wr.wr.atomic.compare_add = 3;
	post_send(&a, &wr);
	/* Two unsignaled sends completed by a signaled third. */
	wr = send_wr(9, IBV_WR_SEND, &sge, 10);
	wr.send_flags = 0;
	post_send(&a, &wr);
	wr = send_wr(10, IBV_WR_RDMA_WRITE, &sge, 10);
	wr.wr.rdma.remote_addr = (uintptr_t)fx.remote.p + 0x8000;
	wr.wr.rdma.rkey = fx.remote.mr->rkey;
	wr.send_flags = 0;
	post_send(&a, &wr);
	wr = send_wr(11, IBV_WR_SEND_WITH_IMM, &sge, 10);
	wr.imm_data = mlx4dv_cpu_to_be32(7);
	post_send(&a, &wr);

	/* 9 send CQEs + 6 receives (SEND x3, SEND_IMM x2, WRITE_IMM). */
	assert_int_equal(drain_and_compare(), 15);
	rc_pair_destroy(&a, &b);
}

/* An error CQE with each syndrome on the first WQE; the QP then flushes
 * the rest, and the peer's receives flush when it is moved to error. */
static void test_rc_every_syndrome(void **state)
{
	static const uint8_t syndromes[] = {
		0x01, 0x02, 0x04, 0x05, 0x06, 0x10, 0x11, 0x12, 0x13, 0x14,
		0x15, 0x16, 0x22, 0x99,
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(syndromes); i++) {
		static struct shadow_qp a, b;
		struct mlx4emu_fault f;
		struct ibv_sge sge;
		struct ibv_send_wr wr;
		unsigned n;

		rc_pair(&a, &b, 1);
		post_recv(&b, 0xb100, 0, RECV_BYTES);
		post_recv(&b, 0xb101, RECV_BYTES, RECV_BYTES);
		memset(&f, 0, sizeof(f));
		f.type = MLX4EMU_FAULT_ERROR_CQE;
		f.qpn = a.qp->qp_num;
		f.syndrome = syndromes[i];
		f.count = 1;
		assert_int_equal(fx.env.ctl.set_fault(&f), 0);
		wr = send_wr(0xa100 + i, IBV_WR_SEND, &sge, 16);
		post_send(&a, &wr);
		wr = send_wr(0xa200 + i, IBV_WR_SEND, &sge, 16);
		post_send(&a, &wr);
		n = drain_and_compare();
		assert_true(n >= 1);
		emu_qp_to_error(b.qp);
		n += drain_and_compare();
		assert_true(n >= 3);	/* error, flush, and receive flushes */
		fx.env.ctl.clear_faults();
		rc_pair_destroy(&a, &b);
	}
}

/* Errors the device finds itself: a bad rkey, a receive too small. */
static void test_rc_real_errors(void **state)
{
	static struct shadow_qp a, b;
	struct ibv_sge sge;
	struct ibv_send_wr wr;

	(void)state;
	rc_pair(&a, &b, 1);
	wr = send_wr(0xe1, IBV_WR_RDMA_WRITE, &sge, 64);
	wr.wr.rdma.remote_addr = (uintptr_t)fx.remote.p;
	wr.wr.rdma.rkey = fx.remote.mr->rkey ^ 0x5500;
	post_send(&a, &wr);
	wr = send_wr(0xe2, IBV_WR_SEND, &sge, 8);		/* flushed */
	post_send(&a, &wr);
	assert_true(drain_and_compare() >= 2);
	rc_pair_destroy(&a, &b);

	rc_pair(&a, &b, 1);
	post_recv(&b, 0xb200, 0, 16);				/* too small */
	wr = send_wr(0xe3, IBV_WR_SEND, &sge, 200);
	post_send(&a, &wr);
	assert_true(drain_and_compare() >= 2);
	rc_pair_destroy(&a, &b);
}

static void test_ud_receive(void **state)
{
	static struct shadow_qp a, b;
	struct ibv_qp *qa = emu_qp_create(&fx.env, IBV_QPT_UD, fx.cq, fx.cq, NULL, 16, 1, 1);
	struct ibv_qp *qb = emu_qp_create(&fx.env, IBV_QPT_UD, fx.cq, fx.cq, NULL, 16, 1, 1);
	struct ibv_ah_attr ah_attr;
	struct ibv_ah *ah;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	int i;

	(void)state;
	emu_ud_ready(qa);
	emu_ud_ready(qb);
	shadow_qp_init(&a, qa);
	shadow_qp_init(&b, qb);
	fx.nqps = 0;
	add_poll_qp(&a, NULL);
	add_poll_qp(&b, NULL);
	emu_ah_attr(&fx.env, &ah_attr);
	ah = ibv_create_ah(fx.env.pd, &ah_attr);
	if (!ah && fx.env.is_eth) {
		/* libmlx4 resolves the RoCE destination MAC through the
		 * kernel, which the software device does not offer. */
		rc_pair_destroy(&a, &b);
		t_skip_case("libmlx4 resolves a RoCE destination MAC through the kernel");
	}
	assert_non_null(ah);
	for (i = 0; i < 3; i++)
		post_recv(&b, 0xbd00 + (uint64_t)i, (size_t)i * RECV_BYTES, RECV_BYTES);
	for (i = 0; i < 3; i++) {
		wr = send_wr(0xad00 + (uint64_t)i, i == 1 ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
			     &sge, 100 + (uint32_t)i);
		wr.imm_data = mlx4dv_cpu_to_be32(0xabcdef01);
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = qb->qp_num;
		wr.wr.ud.remote_qkey = VX_QKEY;
		post_send(&a, &wr);
	}
	assert_int_equal(drain_and_compare(), 6);
	ibv_destroy_ah(ah);
	rc_pair_destroy(&a, &b);
}

static void test_srq_receive(void **state)
{
	static struct shadow_qp a, c;
	static struct shadow_srq s;
	struct ibv_srq_init_attr sa;
	struct ibv_srq *srq;
	struct ibv_qp *qa, *qc;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	int i;

	(void)state;
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 15;
	sa.attr.max_sge = 1;
	srq = ibv_create_srq(fx.env.pd, &sa);
	assert_non_null(srq);
	shadow_srq_init(&s, srq);
	qa = emu_qp_create(&fx.env, IBV_QPT_RC, fx.cq, fx.cq, NULL, 16, 1, 1);
	qc = emu_qp_create(&fx.env, IBV_QPT_RC, fx.cq, fx.cq, srq, 0, 0, 1);
	emu_rc_connect(&fx.env, qa, qc->qp_num);
	emu_rc_connect(&fx.env, qc, qa->qp_num);
	shadow_qp_init(&a, qa);
	shadow_qp_init(&c, qc);
	fx.nqps = 0;
	add_poll_qp(&a, NULL);
	add_poll_qp(&c, &s);
	for (i = 0; i < 10; i++)
		post_srq_recv(&s, 0x5000 + (uint64_t)i, (size_t)i * RECV_BYTES);
	for (i = 0; i < 6; i++) {
		wr = send_wr(0xa500 + (uint64_t)i, IBV_WR_SEND, &sge, 50 + (uint32_t)i);
		post_send(&a, &wr);
	}
	assert_int_equal(drain_and_compare(), 12);
	/* Released WQEs go back to the free list and are posted again. */
	for (i = 10; i < 14; i++)
		post_srq_recv(&s, 0x5000 + (uint64_t)i, (size_t)(i - 10) * RECV_BYTES);
	for (i = 6; i < 9; i++) {
		wr = send_wr(0xa500 + (uint64_t)i, IBV_WR_SEND_WITH_IMM, &sge, 20);
		wr.imm_data = mlx4dv_cpu_to_be32((uint32_t)i);
		post_send(&a, &wr);
	}
	assert_int_equal(drain_and_compare(), 6);
	assert_int_equal(ibv_destroy_qp(qa), 0);
	assert_int_equal(ibv_destroy_qp(qc), 0);
	fx.nqps = 0;
	assert_int_equal(ibv_destroy_srq(srq), 0);
}

/* An Ethernet/IPv4/UDP broadcast frame; ethertype 0x0806 makes it non-IP. */
static uint32_t build_frame(uint8_t *f, uint16_t ethertype)
{
	static const uint8_t head[42] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x02, 0xc9, 0x0e, 0x4d, 0x01,
		0x08, 0x00,
		0x45, 0x00, 0x00, 0x3c, 0x12, 0x34, 0x00, 0x00, 0x40, 0x11,
		0x00, 0x00, 10, 0, 0, 1, 10, 0, 0, 2,
		0x30, 0x39, 0x00, 0x35, 0x00, 0x28, 0x00, 0x00,
	};

	memcpy(f, head, sizeof(head));
	f[12] = (uint8_t)(ethertype >> 8);
	f[13] = (uint8_t)ethertype;
	memset(f + sizeof(head), 0x61, 32);
	return sizeof(head) + 32;
}

/* Raw packet QPs on Ethernet: the checksum bits and libmlx4's
 * IBV_WC_IP_CSUM_OK rule (MLX4_RX_CSUM_VALID with IBV_DEVICE_RAW_IP_CSUM). */
static void test_raw_checksum(void **state)
{
	static struct shadow_qp a, b;
	struct ibv_device_attr dattr;
	struct ibv_qp *qa, *qb;
	struct ibv_qp_attr attr;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	uint32_t len;
	int i;

	(void)state;
	if (!fx.env.is_eth)
		t_skip_case("raw packet QPs need an Ethernet port");
	assert_int_equal(ibv_query_device(fx.env.ctx, &dattr), 0);
	qa = emu_qp_create(&fx.env, IBV_QPT_RAW_PACKET, fx.cq, fx.cq, NULL, 16, 1, 1);
	qb = emu_qp_create(&fx.env, IBV_QPT_RAW_PACKET, fx.cq, fx.cq, NULL, 16, 1, 1);
	for (i = 0; i < 2; i++) {
		struct ibv_qp *qp = i ? qb : qa;

		memset(&attr, 0, sizeof(attr));
		attr.qp_state = IBV_QPS_INIT;
		attr.port_num = EMU_PORT;
		assert_int_equal(ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PORT), 0);
		attr.qp_state = IBV_QPS_RTR;
		assert_int_equal(ibv_modify_qp(qp, &attr, IBV_QP_STATE), 0);
		attr.qp_state = IBV_QPS_RTS;
		assert_int_equal(ibv_modify_qp(qp, &attr, IBV_QP_STATE), 0);
	}
	shadow_qp_init(&a, qa);
	shadow_qp_init(&b, qb);
	fx.nqps = 0;
	add_poll_qp(&a, NULL);
	add_poll_qp(&b, NULL);
	if (dattr.device_cap_flags & IBV_DEVICE_RAW_IP_CSUM) {
		fx.qps[0].rx_flags |= MLX4DV_CQE_RX_CSUM_VALID;
		fx.qps[1].rx_flags |= MLX4DV_CQE_RX_CSUM_VALID;
	}
	for (i = 0; i < 4; i++)
		post_recv(&b, 0xbe00 + (uint64_t)i, (size_t)i * RECV_BYTES, RECV_BYTES);

	/* Checksums filled by the device: IPv4, IP header ok, UDP ok. */
	len = build_frame(fx.local.p, 0x0800);
	wr = send_wr(0xae01, IBV_WR_SEND, &sge, len);
	wr.send_flags |= IBV_SEND_IP_CSUM;
	post_send(&a, &wr);
	/* IP header checksum left 0: IPv4 and UDP (checksum 0) only. */
	len = build_frame(fx.local.p + 256, 0x0800);
	wr = send_wr(0xae02, IBV_WR_SEND, &sge, len);
	sge.addr += 256;
	post_send(&a, &wr);
	/* Not IP at all. */
	len = build_frame(fx.local.p + 512, 0x0806);
	wr = send_wr(0xae03, IBV_WR_SEND, &sge, len);
	sge.addr += 512;
	post_send(&a, &wr);

	assert_int_equal(drain_and_compare(), 6);
	/* The rule was exercised both ways, not just matched. */
	for (i = 0; i < 6; i++) {
		const struct ibv_wc *w = &fx.last[i];

		if (w->opcode != IBV_WC_RECV)
			continue;
		if (w->wr_id == 0xbe00)
			assert_int_equal(w->wc_flags & IBV_WC_IP_CSUM_OK,
					 (dattr.device_cap_flags & IBV_DEVICE_RAW_IP_CSUM) ?
					 IBV_WC_IP_CSUM_OK : 0);
		else
			assert_int_equal(w->wc_flags & IBV_WC_IP_CSUM_OK, 0);
	}
	rc_pair_destroy(&a, &b);
}

/* Receive WQs behind an RSS QP: CQEs carry the WQ number and the RSS hash.
 * libmlx4 knows neither the link layer nor checksum support of a WQ
 * (verbs.c create_wq sets neither), so it reports them as for an
 * InfiniBand QP without checksums: rx_flags 0 reproduces that. */
static void test_rss_wq_receive(void **state)
{
	static struct shadow_qp a, w[2];
	static uint8_t key[40] = {
		0x2c, 0xc6, 0x81, 0xd1, 0x5b, 0xdb, 0xf4, 0xf7, 0xfc, 0xa2,
		0x83, 0x19, 0xdb, 0x1a, 0x3e, 0x94, 0x6b, 0x9e, 0x38, 0xd9,
		0x2c, 0x9c, 0x03, 0xd1, 0xad, 0x99, 0x44, 0xa7, 0xd9, 0x56,
		0x3d, 0x59, 0x06, 0x3c, 0x25, 0xf3, 0xfc, 0x1f, 0xdc, 0x2a,
	};
	struct ibv_wq *wq[2];
	struct ibv_rwq_ind_table *tbl;
	struct ibv_rwq_ind_table_init_attr ta;
	struct ibv_qp_init_attr_ex qa;
	struct ibv_qp *rss, *tx;
	struct ibv_qp_attr attr;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	uint64_t hashes = 0;
	unsigned n;
	int i;

	(void)state;
	if (!fx.env.is_eth)
		t_skip_case("raw packet QPs need an Ethernet port");
	for (i = 0; i < 2; i++) {
		struct ibv_wq_init_attr wa;
		struct ibv_wq_attr wm;
		struct mlx4dv_rwq dv;
		struct mlx4dv_obj obj;

		memset(&wa, 0, sizeof(wa));
		wa.wq_type = IBV_WQT_RQ;
		wa.max_wr = 8;
		wa.max_sge = 1;
		wa.pd = fx.env.pd;
		wa.cq = fx.cq;
		wq[i] = ibv_create_wq(fx.env.ctx, &wa);
		assert_non_null(wq[i]);
		memset(&wm, 0, sizeof(wm));
		wm.attr_mask = IBV_WQ_ATTR_STATE;
		wm.wq_state = IBV_WQS_RDY;
		assert_int_equal(ibv_modify_wq(wq[i], &wm), 0);
		memset(&w[i], 0, sizeof(w[i]));
		memset(&dv, 0, sizeof(dv));
		memset(&obj, 0, sizeof(obj));
		obj.rwq.in = wq[i];
		obj.rwq.out = &dv;
		assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_RWQ), 0);
		w[i].rq.wqe_cnt = dv.rq.wqe_cnt;
		w[i].rq.qpn = wq[i]->wq_num;
		w[i].rq.wrid = w[i].rq_wrid;
	}
	memset(&ta, 0, sizeof(ta));
	ta.log_ind_tbl_size = 1;
	ta.ind_tbl = wq;
	tbl = ibv_create_rwq_ind_table(fx.env.ctx, &ta);
	assert_non_null(tbl);
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = IBV_QPT_RAW_PACKET;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE |
		       IBV_QP_INIT_ATTR_RX_HASH;
	qa.pd = fx.env.pd;
	qa.rwq_ind_tbl = tbl;
	qa.rx_hash_conf.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
	qa.rx_hash_conf.rx_hash_key_len = sizeof(key);
	qa.rx_hash_conf.rx_hash_key = key;
	qa.rx_hash_conf.rx_hash_fields_mask = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 |
					      IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP;
	rss = ibv_create_qp_ex(fx.env.ctx, &qa);
	assert_non_null(rss);
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_INIT;
	attr.port_num = EMU_PORT;
	assert_int_equal(ibv_modify_qp(rss, &attr, IBV_QP_STATE | IBV_QP_PORT), 0);
	attr.qp_state = IBV_QPS_RTR;
	assert_int_equal(ibv_modify_qp(rss, &attr, IBV_QP_STATE), 0);

	tx = emu_qp_create(&fx.env, IBV_QPT_RAW_PACKET, fx.cq, fx.cq, NULL, 4, 1, 1);
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_INIT;
	attr.port_num = EMU_PORT;
	assert_int_equal(ibv_modify_qp(tx, &attr, IBV_QP_STATE | IBV_QP_PORT), 0);
	attr.qp_state = IBV_QPS_RTR;
	assert_int_equal(ibv_modify_qp(tx, &attr, IBV_QP_STATE), 0);
	attr.qp_state = IBV_QPS_RTS;
	assert_int_equal(ibv_modify_qp(tx, &attr, IBV_QP_STATE), 0);
	shadow_qp_init(&a, tx);
	fx.nqps = 0;
	add_poll_qp(&a, NULL);
	for (i = 0; i < 2; i++) {
		struct mlx4dv_poll_qp *p = &fx.qps[fx.nqps++];
		struct ibv_sge rs = { (uintptr_t)fx.remote.p + (size_t)i * 8 * RECV_BYTES,
				      RECV_BYTES, fx.remote.mr->lkey };
		int k;

		memset(p, 0, sizeof(*p));
		p->qpn = wq[i]->wq_num;
		p->rq = &w[i].rq;
		for (k = 0; k < 8; k++) {
			struct ibv_recv_wr rw, *bad = NULL;

			memset(&rw, 0, sizeof(rw));
			rw.wr_id = 0x7000 + (uint64_t)i * 0x100 + (uint64_t)k;
			rw.sg_list = &rs;
			rw.num_sge = 1;
			assert_int_equal(ibv_post_wq_recv(wq[i], &rw, &bad), 0);
			w[i].rq.wrid[w[i].rq.head & (w[i].rq.wqe_cnt - 1)] = rw.wr_id;
			w[i].rq.head++;
		}
	}
	/* Eight flows (UDP source ports): the hash spreads them over both. */
	for (i = 0; i < 8; i++) {
		uint8_t *f = fx.local.p + (size_t)i * 256;
		uint32_t len = build_frame(f, 0x0800);

		f[34] = (uint8_t)(0x30 + i * 7);
		wr = send_wr(0xaf00 + (uint64_t)i, IBV_WR_SEND, &sge, len);
		sge.addr = (uintptr_t)f;
		wr.send_flags |= IBV_SEND_IP_CSUM;
		post_send(&a, &wr);
	}
	n = drain_and_compare();
	assert_int_equal(n, 16);
	for (i = 0; i < 16; i++)
		if (fx.last[i].opcode == IBV_WC_RECV)
			hashes |= 1ULL << (fx.last[i].qp_num == wq[1]->wq_num);
	assert_int_equal(hashes, 3);	/* both WQs received */

	assert_int_equal(ibv_destroy_qp(tx), 0);
	assert_int_equal(ibv_destroy_qp(rss), 0);
	assert_int_equal(ibv_destroy_rwq_ind_table(tbl), 0);
	assert_int_equal(ibv_destroy_wq(wq[0]), 0);
	assert_int_equal(ibv_destroy_wq(wq[1]), 0);
	fx.nqps = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rc_good_opcodes),
		cmocka_unit_test(test_rc_every_syndrome),
		cmocka_unit_test(test_rc_real_errors),
		cmocka_unit_test(test_ud_receive),
		cmocka_unit_test(test_srq_receive),
		cmocka_unit_test(test_raw_checksum),
		cmocka_unit_test(test_rss_wq_receive),
	};

	t_run_group_tests_name("completion_emu_wc", tests, setup, teardown);
	return t_exit();
}
