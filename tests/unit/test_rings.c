// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Handles filled from live objects of the software ConnectX-3, checked
 * three ways: against what was asked at create time, against libmlx4's
 * raw mlx4dv_init_obj() output and ibv_query_qp(), and against geometry
 * worked out by hand from the segment sizes (16-byte control, 16-byte
 * remote address, 48-byte datagram, 16-byte data segment, 4-byte inline
 * header per 64-byte chunk, headroom (2048 >> shift) + 1, rdma-core 44.0
 * providers/mlx4/verbs.c and qp.c).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit_device.h"
#include "test_exit.h"

struct fixture {
	struct unit_dev	*dev;
	struct ibv_cq	*cq;
	struct ibv_cq	*cq2;
	unsigned	cqe_size;	/* what the device was started with */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	const char *cs = getenv("MLX4EMU_CQE_SIZE");

	if (!f)
		return -1;
	f->dev = unit_dev_open();
	if (!f->dev) {
		fprintf(stderr, "no mlx4 device\n");
		free(f);
		return -1;
	}
	f->cq = ibv_create_cq(f->dev->ctx, 255, NULL, NULL, 0);
	f->cq2 = ibv_create_cq(f->dev->ctx, 100, NULL, NULL, 0);
	if (!f->cq || !f->cq2)
		return -1;
	f->cqe_size = cs ? (unsigned)atoi(cs) : 32;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	ibv_destroy_cq(f->cq);
	ibv_destroy_cq(f->cq2);
	unit_dev_close(f->dev);
	free(f);
	return 0;
}

/* One send-queue shape and its hand-worked geometry. */
struct sq_case {
	enum ibv_qp_type type;
	uint32_t max_send_wr, max_send_sge, max_inline_data;
	uint32_t wqe_shift, wqe_cnt, max_post, max_gather, max_inline;
};

/*
 * What a WQE of 63 ds holds after its fixed segments, by hand: RC/UC 61
 * units, inline from byte 32 of the first chunk: 28 + 14 * 60 + 44; UD 59
 * units from a chunk start: 14 * 60 + 44; raw Ethernet 62 units from byte
 * 16: 44 + 14 * 60 + 44. The handle reports the smaller of libmlx4's
 * stride-filling limit and this.
 */
static uint32_t gather_in_63_ds(enum ibv_qp_type type)
{
	return type == IBV_QPT_UD ? 59 : type == IBV_QPT_RAW_PACKET ? 62 : 61;
}

static uint32_t inline_in_63_ds(enum ibv_qp_type type)
{
	return type == IBV_QPT_UD ? 884 : type == IBV_QPT_RAW_PACKET ? 928 : 912;
}

static uint32_t posted_limit(uint32_t libmlx4, uint32_t in_63_ds)
{
	return libmlx4 < in_63_ds ? libmlx4 : in_63_ds;
}

/*
 * libmlx4's limits (max_gather, max_inline: what ibv_query_qp() reports).
 * WQE size = 16 (control) + per-type segment + payload, payload the larger
 * of max_send_sge * 16 and the inline data with its 4-byte headers rounded
 * to 16; RC at least 48 bytes after control (atomic), every type at least
 * 32 (bind). Stride: next power of two >= 64. Ring: next power of two >=
 * max_send_wr + (2048 >> shift) + 1.
 */
static const struct sq_case sq_cases[] = {
	/* RC: 16+max(16+16, 48) = 64 */
	{ IBV_QPT_RC, 64, 1, 0,		6, 128, 95, 2, 28 },
	/* RC: 16+16+4*16 = 96 -> 128 */
	{ IBV_QPT_RC, 16, 4, 0,		7, 64, 47, 6, 88 },
	/* RC: 200 inline + 4 headers = 216 -> 224; 16+16+224 = 256 */
	{ IBV_QPT_RC, 16, 1, 200,	8, 32, 23, 14, 208 },
	/* RC: 400 + 8*4 = 432; 464 -> 512 */
	{ IBV_QPT_RC, 8, 1, 400,	9, 16, 11, 30, 448 },
	/* RC: 900 + 16*4 = 964 -> 976; 1008 -> 1024 */
	{ IBV_QPT_RC, 4, 1, 900,	10, 8, 5, 62, 928 },
	/* RC: 1000 + 18*4 = 1072; 1104 -> 2048 */
	{ IBV_QPT_RC, 4, 1, 1000,	11, 8, 6, 126, 1888 },
	/* RC created with no send WRs still gets headroom rounded up */
	{ IBV_QPT_RC, 0, 1, 0,		6, 64, 31, 2, 28 },
	/* UD: 16+48+16 = 80 -> 128 */
	{ IBV_QPT_UD, 32, 1, 0,		7, 64, 47, 4, 60 },
	/* UD: 16+48+64 = 128 */
	{ IBV_QPT_UD, 32, 4, 0,		7, 64, 47, 4, 60 },
	/* UC: 16+16+16 = 48 -> 64 */
	{ IBV_QPT_UC, 32, 1, 0,		6, 128, 95, 2, 28 },
	/* UC: 60 + 2*4 = 68 -> 80; 16+16+80 = 112 -> 128 */
	{ IBV_QPT_UC, 32, 2, 60,	7, 64, 47, 6, 88 },
	/* RAW: 16 + max(16, 32 bind) = 48 -> 64 */
	{ IBV_QPT_RAW_PACKET, 32, 1, 0,	6, 128, 95, 3, 44 },
};

static void check_sq_case(struct fixture *f, const struct sq_case *c)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = c->max_send_wr,
		.max_recv_wr = 16,
		.max_send_sge = c->max_send_sge,
		.max_recv_sge = 1,
		.max_inline_data = c->max_inline_data,
	};
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;
	struct mlx4dv_sq_ring sq;
	struct mlx4dv_qp raw;
	struct ibv_qp *qp;

	qp = unit_qp_create(f->dev, c->type, f->cq, f->cq, NULL, &cap);
	if (!qp && c->type == IBV_QPT_RAW_PACKET) {
		fprintf(stderr, "  raw packet QP not offered (%s): skipped\n",
			strerror(errno));
		return;
	}
	assert_non_null(qp);

	memset(&sq, 0xee, sizeof(sq));
	assert_int_equal(mlx4dv_sq_ring_init(&sq, qp, MLX4DV_RING_INIT_WRID), 0);

	/* hand-worked geometry */
	assert_int_equal(sq.wqe_shift, c->wqe_shift);
	assert_int_equal(sq.wqe_cnt, c->wqe_cnt);
	assert_int_equal(sq.spare_wqes, (2048u >> c->wqe_shift) + 1);
	assert_int_equal(sq.max_post, c->max_post);
	assert_int_equal(sq.max_gather, posted_limit(c->max_gather,
						     gather_in_63_ds(c->type)));
	assert_int_equal(sq.max_inline, posted_limit(c->max_inline,
						     inline_in_63_ds(c->type)));
	assert_int_equal(sq.head, 0);
	assert_int_equal(sq.tail, 0);
	assert_int_equal(sq.qp_type, c->type);
	assert_int_equal(sq.qpn, qp->qp_num);
	assert_int_equal(sq.flags & ~(MLX4DV_SQ_RING_GRANT_MASK |
				      (uint32_t)MLX4DV_SQ_RING_PDN), 0);
	assert_int_not_equal(sq.flags & MLX4DV_SQ_RING_GRANT_MASK, 0);
	/* a UD QP's handle knows its PD, for the debug check of the sends */
	assert_int_equal(!!(sq.flags & MLX4DV_SQ_RING_PDN), c->type == IBV_QPT_UD);
	assert_null(sq.bf_reg);
	/* still in RESET: libmlx4 stamps the ring on the move to INIT */
	assert_int_equal(sq.ring_stamped, 1);
	/* connected types with a gather entry take the short post path;
	 * the wrid table asked for is there, and says so */
	if (c->type == IBV_QPT_RC || c->type == IBV_QPT_UC)
		assert_int_equal(sq.fast_path, MLX4DV_SQ_FAST_CONNECTED |
						MLX4DV_SQ_FAST_WRID);
	else
		assert_int_equal(sq.fast_path, MLX4DV_SQ_FAST_WRID);

	/* what was asked */
	assert_true(sq.max_post >= c->max_send_wr);
	assert_true(sq.max_gather >= posted_limit(c->max_send_sge,
						  gather_in_63_ds(c->type)));
	assert_true(sq.max_inline >= posted_limit(c->max_inline_data,
						  inline_in_63_ds(c->type)));

	/* libmlx4's raw layout */
	assert_int_equal(unit_raw_qp(qp, &raw), 0);
	assert_ptr_equal(sq.buf, (uint8_t *)raw.buf.buf + raw.sq.offset);
	assert_int_equal(sq.wqe_cnt, raw.sq.wqe_cnt);
	assert_int_equal(sq.wqe_shift, raw.sq.wqe_shift);
	assert_ptr_equal(sq.doorbell, raw.sdb);
	assert_int_equal(sq.doorbell_qpn, raw.doorbell_qpn);
	assert_int_equal(mlx4dv_be32_to_cpu(sq.doorbell_qpn), qp->qp_num << 8);
	assert_true((uint64_t)raw.sq.offset + ((uint64_t)sq.wqe_cnt << sq.wqe_shift) <=
		    raw.buf.length);

	/* libmlx4's own limits, reported through verbs */
	memset(&init, 0, sizeof(init));
	assert_int_equal(ibv_query_qp(qp, &attr, IBV_QP_CAP, &init), 0);
	assert_int_equal(init.cap.max_send_wr, sq.max_post);
	assert_int_equal(init.cap.max_send_sge, c->max_gather);
	assert_int_equal(init.cap.max_inline_data, c->max_inline);

	/* the wrid table spans the ring */
	assert_non_null(sq.wrid);
	sq.wrid[0] = 1;
	sq.wrid[sq.wqe_cnt - 1] = 2;

	mlx4dv_sq_ring_release(&sq);
	assert_null(sq.wrid);
	/* no table, no bit: a post on the released copy tests the pointer */
	assert_int_equal(sq.fast_path & MLX4DV_SQ_FAST_WRID, 0);
	assert_int_equal(ibv_destroy_qp(qp), 0);
}

static void sq_geometry_every_type_and_stride(void **state)
{
	struct fixture *f = *state;

	for (size_t i = 0; i < sizeof(sq_cases) / sizeof(sq_cases[0]); i++) {
		fprintf(stderr, "  case %zu: type %d wr %u sge %u inline %u\n", i,
			sq_cases[i].type, sq_cases[i].max_send_wr,
			sq_cases[i].max_send_sge, sq_cases[i].max_inline_data);
		check_sq_case(f, &sq_cases[i]);
	}
}

static void rq_geometry(void **state)
{
	static const struct {
		uint32_t wr, sge, wqe_cnt, wqe_shift;
	} cases[] = {
		{ 16, 1, 16, 4 },	/* one 16-byte entry */
		{ 100, 3, 128, 6 },	/* 48 bytes -> 64 */
		{ 33, 4, 64, 6 },
		{ 8, 5, 8, 7 },		/* 80 -> 128 */
	};
	struct fixture *f = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ibv_qp_cap cap = {
			.max_send_wr = 8, .max_recv_wr = cases[i].wr,
			.max_send_sge = 1, .max_recv_sge = cases[i].sge,
		};
		struct mlx4dv_rq_ring rq;
		struct mlx4dv_qp raw;
		struct ibv_qp *qp;

		qp = unit_qp_create(f->dev, IBV_QPT_RC, f->cq, f->cq2, NULL, &cap);
		assert_non_null(qp);
		assert_int_equal(mlx4dv_rq_ring_init(&rq, qp, 0), 0);
		assert_int_equal(rq.wqe_cnt, cases[i].wqe_cnt);
		assert_int_equal(rq.wqe_shift, cases[i].wqe_shift);
		assert_int_equal(rq.max_scatter, (1u << cases[i].wqe_shift) / 16);
		assert_true(rq.max_scatter >= cases[i].sge);
		assert_true(rq.wqe_cnt >= cases[i].wr);
		assert_int_equal(rq.head, 0);
		assert_int_equal(rq.tail, 0);
		assert_int_equal(rq.qpn, qp->qp_num);
		assert_null(rq.wrid);

		assert_int_equal(unit_raw_qp(qp, &raw), 0);
		assert_ptr_equal(rq.buf, (uint8_t *)raw.buf.buf + raw.rq.offset);
		assert_ptr_equal(rq.db, raw.rdb);
		assert_int_equal(rq.wqe_cnt, raw.rq.wqe_cnt);
		/* The larger stride comes first in the shared buffer. */
		if (raw.rq.wqe_shift > raw.sq.wqe_shift)
			assert_int_equal(raw.rq.offset, 0);
		mlx4dv_rq_ring_release(&rq);
		assert_int_equal(ibv_destroy_qp(qp), 0);
	}
}

static void cq_geometry(void **state)
{
	static const struct {
		int cqe;
		uint32_t cqe_cnt;
	} cases[] = {
		{ 1, 2 }, { 100, 128 }, { 255, 256 }, { 256, 512 }, { 4000, 4096 },
	};
	struct fixture *f = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ibv_cq *cq = ibv_create_cq(f->dev->ctx, cases[i].cqe,
						  NULL, NULL, 0);
		struct mlx4dv_cq_ring ring;
		struct mlx4dv_cq raw;

		assert_non_null(cq);
		assert_int_equal(mlx4dv_cq_ring_init(&ring, cq, 0), 0);
		assert_int_equal(ring.cqe_cnt, cases[i].cqe_cnt);
		assert_int_equal(ring.cqe_size, f->cqe_size);
		assert_int_equal(ring.cons_index, 0);
		/* libmlx4 starts arm_sn at 1 (verbs.c create_cq) */
		assert_int_equal(ring.arm_sn, 1);

		assert_int_equal(unit_raw_cq(cq, &raw), 0);
		assert_ptr_equal(ring.buf, raw.buf.buf);
		assert_int_equal(ring.cqn, raw.cqn);
		assert_ptr_equal(ring.set_ci_db, raw.set_ci_db);
		assert_ptr_equal(ring.arm_db, raw.arm_db);
		assert_ptr_equal(ring.uar, raw.cq_uar);
		assert_int_equal(ring.cqe_cnt, raw.cqe_cnt);
		assert_int_equal(ring.cqe_size, (uint32_t)raw.cqe_size);
		assert_true((uint64_t)ring.cqe_cnt * ring.cqe_size <= raw.buf.length);
		mlx4dv_cq_ring_release(&ring);
		assert_int_equal(ibv_destroy_cq(cq), 0);
	}
}

static void srq_geometry(void **state)
{
	static const struct {
		uint32_t wr, sge, wqe_cnt, wqe_shift;
	} cases[] = {
		{ 100, 3, 128, 6 },	/* 16 + 48 = 64 */
		{ 127, 1, 128, 5 },	/* 16 + 16 = 32 */
		{ 128, 1, 256, 5 },	/* max_wr + 1 rounds up */
		{ 10, 7, 16, 7 },	/* 16 + 112 = 128 */
	};
	struct fixture *f = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ibv_srq_init_attr a;
		struct mlx4dv_srq_ring ring;
		struct mlx4dv_srq raw;
		struct ibv_srq *srq;

		memset(&a, 0, sizeof(a));
		a.attr.max_wr = cases[i].wr;
		a.attr.max_sge = cases[i].sge;
		srq = ibv_create_srq(f->dev->pd, &a);
		assert_non_null(srq);
		assert_int_equal(mlx4dv_srq_ring_init(&ring, srq, MLX4DV_RING_INIT_WRID), 0);
		assert_int_equal(ring.wqe_cnt, cases[i].wqe_cnt);
		assert_int_equal(ring.wqe_shift, cases[i].wqe_shift);
		assert_int_equal(ring.max_scatter, ((1u << cases[i].wqe_shift) - 16) / 16);
		assert_true(ring.max_scatter >= cases[i].sge);
		/* libmlx4's initial free list: 0 .. wqe_cnt - 1 */
		assert_int_equal(ring.head, 0);
		assert_int_equal(ring.tail, cases[i].wqe_cnt - 1);
		assert_int_equal(ring.counter, 0);
		assert_int_equal(ring.srqn, 0);	/* not an XRC SRQ */
		assert_non_null(ring.wrid);
		ring.wrid[ring.wqe_cnt - 1] = 7;

		assert_int_equal(unit_raw_srq(srq, &raw), 0);
		assert_ptr_equal(ring.buf, raw.buf.buf);
		assert_ptr_equal(ring.db, raw.db);
		assert_int_equal(ring.wqe_shift, (uint32_t)raw.wqe_shift);
		/* Each WQE's next index links to the following one. */
		for (uint32_t n = 0; n < ring.wqe_cnt; n++) {
			const struct mlx4_wqe_srq_next_seg *next =
				(const void *)(ring.buf + ((size_t)n << ring.wqe_shift));

			assert_int_equal(mlx4dv_be16_to_cpu(next->next_wqe_index),
					 (n + 1) & (ring.wqe_cnt - 1));
		}
		mlx4dv_srq_ring_release(&ring);
		assert_null(ring.wrid);
		assert_int_equal(ibv_destroy_srq(srq), 0);
	}
}

/* A QP on an SRQ: the RQ is refused without a change to the output, the
 * whole-QP call says so in its flags. */
static void qp_on_srq(void **state)
{
	struct fixture *f = *state;
	struct ibv_qp_cap cap = { .max_send_wr = 8, .max_send_sge = 1 };
	struct ibv_srq_init_attr a;
	struct mlx4dv_rq_ring rq, rq_ref;
	struct mlx4dv_qp_rings rings;
	struct ibv_srq *srq;
	struct ibv_qp *qp;

	memset(&a, 0, sizeof(a));
	a.attr.max_wr = 32;
	a.attr.max_sge = 1;
	srq = ibv_create_srq(f->dev->pd, &a);
	assert_non_null(srq);
	qp = unit_qp_create(f->dev, IBV_QPT_RC, f->cq, f->cq2, srq, &cap);
	assert_non_null(qp);

	memset(&rq, 0x3c, sizeof(rq));
	rq_ref = rq;
	assert_int_equal(mlx4dv_rq_ring_init(&rq, qp, 0), ENOENT);
	assert_memory_equal(&rq, &rq_ref, sizeof(rq));

	assert_int_equal(mlx4dv_qp_rings_init(&rings, qp, MLX4DV_RING_INIT_WRID), 0);
	assert_int_equal(rings.flags, MLX4DV_QP_RINGS_RQ_ON_SRQ);
	assert_int_equal(rings.rq.wqe_cnt, 0);
	assert_null(rings.rq.wrid);
	assert_non_null(rings.sq.wrid);
	assert_int_equal(rings.sq.qpn, qp->qp_num);
	assert_int_equal(rings.send_cq.cqe_cnt, 256);
	assert_int_equal(rings.recv_cq.cqe_cnt, 128);
	mlx4dv_qp_rings_release(&rings);
	assert_null(rings.sq.wrid);

	assert_int_equal(ibv_destroy_qp(qp), 0);
	assert_int_equal(ibv_destroy_srq(srq), 0);
}

static void qp_rings_shared_cq(void **state)
{
	struct fixture *f = *state;
	struct ibv_qp_cap cap = {
		.max_send_wr = 8, .max_recv_wr = 8,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	struct mlx4dv_qp_rings rings;
	struct mlx4dv_sq_ring sq;
	struct mlx4dv_rq_ring rq;
	struct ibv_qp *qp;

	qp = unit_qp_create(f->dev, IBV_QPT_UD, f->cq, f->cq, NULL, &cap);
	assert_non_null(qp);
	assert_int_equal(mlx4dv_qp_rings_init(&rings, qp, 0), 0);
	assert_int_equal(rings.flags, MLX4DV_QP_RINGS_SHARED_CQ);
	assert_memory_equal(&rings.send_cq, &rings.recv_cq, sizeof(rings.send_cq));

	/* The same handles the single-object calls give. */
	assert_int_equal(mlx4dv_sq_ring_init(&sq, qp, 0), 0);
	assert_int_equal(mlx4dv_rq_ring_init(&rq, qp, 0), 0);
	assert_memory_equal(&sq, &rings.sq, sizeof(sq));
	assert_memory_equal(&rq, &rings.rq, sizeof(rq));
	mlx4dv_qp_rings_release(&rings);
	assert_int_equal(ibv_destroy_qp(qp), 0);
}

/* A CQ libmlx4 polled before conversion: the handle resumes from the
 * consumer-index record. */
static void cq_resumes_from_record(void **state)
{
	struct fixture *f = *state;
	struct ibv_cq *cq = ibv_create_cq(f->dev->ctx, 15, NULL, NULL, 0);
	struct mlx4dv_cq_ring ring;
	struct mlx4dv_cq raw;

	assert_non_null(cq);
	assert_int_equal(unit_raw_cq(cq, &raw), 0);
	/* As if 21 CQEs had been consumed: the record is big-endian. */
	*raw.set_ci_db = mlx4dv_cpu_to_be32(21);
	assert_int_equal(mlx4dv_cq_ring_init(&ring, cq, 0), 0);
	assert_int_equal(ring.cons_index, 21);
	*raw.set_ci_db = 0;
	assert_int_equal(ibv_destroy_cq(cq), 0);
}

static int move_to_init(struct unit_dev *d, struct ibv_qp *qp)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = d->port;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

/* Past RESET, ring_stamped says what the ring holds: libmlx4's stamp in
 * the first word of every 64-byte chunk but the first of each WQEBB. */
static void ring_stamped_follows_the_ring(void **state)
{
	struct fixture *f = *state;
	struct ibv_qp_cap cap = { .max_send_wr = 16, .max_recv_wr = 4,
				  .max_send_sge = 4, .max_recv_sge = 1 };
	struct mlx4dv_sq_ring sq;
	struct ibv_qp *qp;
	uint32_t saved, *word;

	qp = unit_qp_create(f->dev, IBV_QPT_RC, f->cq, f->cq, NULL, &cap);
	assert_non_null(qp);
	assert_int_equal(move_to_init(f->dev, qp), 0);
	assert_int_equal(mlx4dv_sq_ring_init(&sq, qp, 0), 0);
	assert_int_equal(sq.wqe_shift, 7);	/* 128-byte WQEBBs */
	assert_int_equal(sq.ring_stamped, 1);
	/* the stamps are really there, in the second chunk of every WQEBB */
	for (uint32_t n = 0; n < sq.wqe_cnt; n++) {
		memcpy(&saved, sq.buf + ((size_t)n << 7) + 64, 4);
		assert_int_equal(saved, 0xffffffffu);
	}

	/* one missing stamp and the handle must stamp on every post */
	word = (uint32_t *)(void *)(sq.buf + ((size_t)(sq.wqe_cnt - 1) << 7) + 64);
	saved = *word;
	*word = 0;
	assert_int_equal(mlx4dv_sq_ring_init(&sq, qp, 0), 0);
	assert_int_equal(sq.ring_stamped, 0);
	*word = saved;
	assert_int_equal(mlx4dv_sq_ring_init(&sq, qp, 0), 0);
	assert_int_equal(sq.ring_stamped, 1);
	assert_int_equal(ibv_destroy_qp(qp), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sq_geometry_every_type_and_stride),
		cmocka_unit_test(rq_geometry),
		cmocka_unit_test(cq_geometry),
		cmocka_unit_test(srq_geometry),
		cmocka_unit_test(qp_on_srq),
		cmocka_unit_test(qp_rings_shared_cq),
		cmocka_unit_test(cq_resumes_from_record),
		cmocka_unit_test(ring_stamped_follows_the_ring),
	};

	t_run_group_tests_name("unit_rings", tests, setup, teardown);
	return t_exit();
}
