// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The symbol versions of the handle functions, on the software device.
 *
 * A program built against the 0.2 header has handles that end at their
 * last field and calls the functions' MLX4DV_0.1 symbols (resize:
 * MLX4DV_0.2). Those must fill the 0.2 fields and write nothing past
 * them: each 0.2 handle here is its 0.2 size followed by canary bytes.
 * The 0.2 sizes are the 0.2 fields padded to the alignment of a pointer,
 * which is how the 0.2 structs ended (the header pins every field where
 * 0.2 had it; the fields 0.3 added follow them). The default (MLX4DV_0.3) functions
 * fill full handles and zero their reserved bytes.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit_device.h"
#include "test_exit.h"

/* The calls of a program built against 0.2, bound to the old versions. */
#define OLD_SYMBOL(local, name, version) \
	__asm__(".symver " #local ", " #name "@" #version)

int old_sq_ring_init(void *sq, struct ibv_qp *qp, uint32_t flags);
int old_rq_ring_init(void *rq, struct ibv_qp *qp, uint32_t flags);
int old_wq_ring_init(void *rq, struct ibv_wq *wq, uint32_t flags);
int old_srq_ring_init(void *srq, struct ibv_srq *ibsrq, uint32_t flags);
int old_cq_ring_init(void *cq, struct ibv_cq *ibcq, uint32_t flags);
int old_cq_ring_resize(void *cq, struct ibv_cq *ibcq, uint32_t cqe);
int old_qp_rings_init(void *rings, struct ibv_qp *qp, uint32_t flags);
void old_sq_ring_release(void *sq);
void old_rq_ring_release(void *rq);
void old_srq_ring_release(void *srq);
void old_cq_ring_release(void *cq);
void old_qp_rings_release(void *rings);
OLD_SYMBOL(old_sq_ring_init, mlx4dv_sq_ring_init, MLX4DV_0.1);
OLD_SYMBOL(old_rq_ring_init, mlx4dv_rq_ring_init, MLX4DV_0.1);
OLD_SYMBOL(old_wq_ring_init, mlx4dv_wq_ring_init, MLX4DV_0.1);
OLD_SYMBOL(old_srq_ring_init, mlx4dv_srq_ring_init, MLX4DV_0.1);
OLD_SYMBOL(old_cq_ring_init, mlx4dv_cq_ring_init, MLX4DV_0.1);
OLD_SYMBOL(old_cq_ring_resize, mlx4dv_cq_ring_resize, MLX4DV_0.2);
OLD_SYMBOL(old_qp_rings_init, mlx4dv_qp_rings_init, MLX4DV_0.1);
OLD_SYMBOL(old_sq_ring_release, mlx4dv_sq_ring_release, MLX4DV_0.1);
OLD_SYMBOL(old_rq_ring_release, mlx4dv_rq_ring_release, MLX4DV_0.1);
OLD_SYMBOL(old_srq_ring_release, mlx4dv_srq_ring_release, MLX4DV_0.1);
OLD_SYMBOL(old_cq_ring_release, mlx4dv_cq_ring_release, MLX4DV_0.1);
OLD_SYMBOL(old_qp_rings_release, mlx4dv_qp_rings_release, MLX4DV_0.1);

#define PTR_ALIGN	_Alignof(void *)
#define ROUND_PTR(n)	(((n) + PTR_ALIGN - 1) & ~(PTR_ALIGN - 1))
/* The 0.2 structs, as 0.2 ended them (the handles of 0.3 keep these
 * bytes where they were and add fields after them). */
#define SIZE_0_2_sq_ring	__MLX4DV_BY_POINTER(84, 112)
#define SIZE_0_2_rq_ring	__MLX4DV_BY_POINTER(36, 48)
#define SIZE_0_2_srq_ring	__MLX4DV_BY_POINTER(40, 56)
#define SIZE_0_2_cq_ring	__MLX4DV_BY_POINTER(36, 56)
#define SIZE_0_2(s)		((size_t)SIZE_0_2_##s)
/* Where their fields end (the SQ handle's 108 is padded to 112). */
#define FIELDS_0_2_sq_ring	__MLX4DV_BY_POINTER(84, 108)
#define FIELDS_0_2_rq_ring	SIZE_0_2_rq_ring
#define FIELDS_0_2_srq_ring	SIZE_0_2_srq_ring
#define FIELDS_0_2_cq_ring	SIZE_0_2_cq_ring
#define FIELDS_0_2(s)		((size_t)FIELDS_0_2_##s)

/* struct mlx4dv_qp_rings of 0.2: the 0.2 handles back to back. */
#define QP_RQ_0_2	SIZE_0_2(sq_ring)
#define QP_SEND_CQ_0_2	(QP_RQ_0_2 + SIZE_0_2(rq_ring))
#define QP_RECV_CQ_0_2	(QP_SEND_CQ_0_2 + SIZE_0_2(cq_ring))
#define QP_FLAGS_0_2	(QP_RECV_CQ_0_2 + SIZE_0_2(cq_ring))
#define QP_RINGS_0_2	ROUND_PTR(QP_FLAGS_0_2 + sizeof(uint32_t))

enum { CANARY = 0xa5, CANARY_BYTES = 64 };

/* A 0.2 handle of size bytes and the canary bytes after it. */
struct old_handle {
	union {
		uint8_t		bytes[sizeof(struct mlx4dv_qp_rings) + CANARY_BYTES];
		void		*align_ptr;
		uint64_t	align_u64;
	} u;
	size_t size;
};

static void *old_handle(struct old_handle *h, size_t size)
{
	memset(h->u.bytes, CANARY, sizeof(h->u.bytes));
	h->size = size;
	return h->u.bytes;
}

static void assert_canaries(const struct old_handle *h)
{
	for (size_t i = h->size; i < h->size + CANARY_BYTES; i++)
		if (h->u.bytes[i] != CANARY)
			fail_msg("byte %zu past a %zu-byte 0.2 handle written",
				 i - h->size, h->size);
}

static void assert_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			fail_msg("reserved byte %zu is 0x%02x", i, p[i]);
}

/* A full handle, its bytes first set to the canary. */
#define FULL(h) memset(&(h), CANARY, sizeof(h))

struct objects {
	struct unit_dev		*d;
	struct ibv_cq		*scq, *rcq;
	struct ibv_srq		*srq;
	struct ibv_qp		*qp;
	struct ibv_wq		*wq;	/* NULL on an InfiniBand port */
};

static void objects_open(struct objects *o)
{
	struct ibv_qp_cap cap = { .max_send_wr = 16, .max_recv_wr = 16,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_wq_init_attr wa;

	memset(o, 0, sizeof(*o));
	o->d = unit_dev_open();
	assert_non_null(o->d);
	o->scq = ibv_create_cq(o->d->ctx, 15, NULL, NULL, 0);
	o->rcq = ibv_create_cq(o->d->ctx, 15, NULL, NULL, 0);
	assert_non_null(o->scq);
	assert_non_null(o->rcq);
	o->srq = ibv_create_srq(o->d->pd, &sa);
	assert_non_null(o->srq);
	o->qp = unit_qp_create(o->d, IBV_QPT_RC, o->scq, o->rcq, NULL, &cap);
	assert_non_null(o->qp);
	memset(&wa, 0, sizeof(wa));
	wa.wq_type = IBV_WQT_RQ;
	wa.max_wr = 16;
	wa.max_sge = 1;
	wa.pd = o->d->pd;
	wa.cq = o->rcq;
	if (o->d->link_layer == IBV_LINK_LAYER_ETHERNET) {
		o->wq = ibv_create_wq(o->d->ctx, &wa);
		assert_non_null(o->wq);
	}
}

static void objects_close(struct objects *o)
{
	if (o->wq)
		assert_int_equal(ibv_destroy_wq(o->wq), 0);
	assert_int_equal(ibv_destroy_qp(o->qp), 0);
	assert_int_equal(ibv_destroy_srq(o->srq), 0);
	assert_int_equal(ibv_destroy_cq(o->scq), 0);
	assert_int_equal(ibv_destroy_cq(o->rcq), 0);
	unit_dev_close(o->d);
}

/* The 0.2 fields of an old handle are the full handle's, byte for byte. */
#define ASSERT_FIELDS(old, full, s) \
	assert_memory_equal((old), &(full), FIELDS_0_2(s))

/* Each MLX4DV_0.1 init fills what the default fills, and no further. */
static void old_inits_fill_0_2_sizes(void **state)
{
	struct objects o;
	struct old_handle h;
	struct mlx4dv_sq_ring sq;
	struct mlx4dv_rq_ring rq;
	struct mlx4dv_srq_ring srq;
	struct mlx4dv_cq_ring cq;
	void *p;

	(void)state;
	objects_open(&o);

	assert_int_equal(mlx4dv_sq_ring_init(&sq, o.qp, 0), 0);
	assert_true(sq.wqe_cnt > 0);
	p = old_handle(&h, SIZE_0_2(sq_ring));
	assert_int_equal(old_sq_ring_init(p, o.qp, 0), 0);
	ASSERT_FIELDS(p, sq, sq_ring);
	assert_canaries(&h);

	assert_int_equal(mlx4dv_rq_ring_init(&rq, o.qp, 0), 0);
	assert_true(rq.wqe_cnt > 0);
	p = old_handle(&h, SIZE_0_2(rq_ring));
	assert_int_equal(old_rq_ring_init(p, o.qp, 0), 0);
	ASSERT_FIELDS(p, rq, rq_ring);
	assert_canaries(&h);

	if (o.wq) {
		assert_int_equal(mlx4dv_wq_ring_init(&rq, o.wq, 0), 0);
		p = old_handle(&h, SIZE_0_2(rq_ring));
		assert_int_equal(old_wq_ring_init(p, o.wq, 0), 0);
		ASSERT_FIELDS(p, rq, rq_ring);
		assert_canaries(&h);
	}

	assert_int_equal(mlx4dv_srq_ring_init(&srq, o.srq, 0), 0);
	assert_true(srq.wqe_cnt > 0);
	p = old_handle(&h, SIZE_0_2(srq_ring));
	assert_int_equal(old_srq_ring_init(p, o.srq, 0), 0);
	ASSERT_FIELDS(p, srq, srq_ring);
	assert_canaries(&h);

	assert_int_equal(mlx4dv_cq_ring_init(&cq, o.scq, 0), 0);
	assert_true(cq.cqe_cnt > 0);
	p = old_handle(&h, SIZE_0_2(cq_ring));
	assert_int_equal(old_cq_ring_init(p, o.scq, 0), 0);
	ASSERT_FIELDS(p, cq, cq_ring);
	assert_canaries(&h);

	/* On error the old handle is left as it was. */
	p = old_handle(&h, SIZE_0_2(cq_ring));
	assert_int_equal(old_cq_ring_init(p, o.scq, 1), EINVAL);
	assert_canaries(&h);
	assert_int_equal(h.u.bytes[0], CANARY);

	objects_close(&o);
}

/* The 0.2 struct mlx4dv_qp_rings: each handle at its 0.2 offset. */
static void old_qp_rings_keep_0_2_layout(void **state)
{
	struct objects o;
	struct old_handle h;
	struct mlx4dv_qp_rings r;
	struct mlx4dv_sq_ring sq;
	uint32_t flags;
	uint8_t *p;

	(void)state;
	objects_open(&o);
	assert_int_equal(mlx4dv_qp_rings_init(&r, o.qp, 0), 0);
	p = old_handle(&h, QP_RINGS_0_2);
	assert_int_equal(old_qp_rings_init(p, o.qp, 0), 0);
	ASSERT_FIELDS(p, r.sq, sq_ring);
	ASSERT_FIELDS(p + QP_RQ_0_2, r.rq, rq_ring);
	ASSERT_FIELDS(p + QP_SEND_CQ_0_2, r.send_cq, cq_ring);
	ASSERT_FIELDS(p + QP_RECV_CQ_0_2, r.recv_cq, cq_ring);
	memcpy(&flags, p + QP_FLAGS_0_2, sizeof(flags));
	assert_int_equal(flags, r.flags);
	assert_canaries(&h);

	/* With a wrid table: the old release finds it in the 0.2 layout. */
	p = old_handle(&h, QP_RINGS_0_2);
	assert_int_equal(old_qp_rings_init(p, o.qp, MLX4DV_RING_INIT_WRID), 0);
	memcpy(&sq, p, SIZE_0_2(sq_ring));
	assert_non_null(sq.wrid);
	old_qp_rings_release(p);
	assert_canaries(&h);
	memcpy(&sq, p, SIZE_0_2(sq_ring));
	assert_null(sq.wrid);
	assert_int_equal(sq.flags & MLX4DV_SQ_RING_GRANT_MASK, 0);
	objects_close(&o);
}

/* Old releases give back what old inits took, within the 0.2 sizes. */
static void old_releases_stay_in_0_2_sizes(void **state)
{
	struct objects o;
	struct old_handle h;
	struct mlx4dv_sq_ring sq;
	struct mlx4dv_rq_ring rq;
	struct mlx4dv_srq_ring srq;
	void *p;

	(void)state;
	objects_open(&o);

	p = old_handle(&h, SIZE_0_2(sq_ring));
	assert_int_equal(old_sq_ring_init(p, o.qp, MLX4DV_RING_INIT_WRID |
					  MLX4DV_RING_INIT_BLUEFLAME), 0);
	memcpy(&sq, p, SIZE_0_2(sq_ring));
	assert_non_null(sq.wrid);
	assert_int_not_equal(sq.flags & MLX4DV_SQ_RING_GRANT_MASK, 0);
	old_sq_ring_release(p);
	assert_canaries(&h);
	memcpy(&sq, p, SIZE_0_2(sq_ring));
	assert_null(sq.wrid);
	assert_null(sq.bf_reg);
	assert_int_equal(sq.flags & (MLX4DV_SQ_RING_GRANT_MASK |
				     MLX4DV_SQ_RING_BLUEFLAME), 0);

	p = old_handle(&h, SIZE_0_2(rq_ring));
	assert_int_equal(old_rq_ring_init(p, o.qp, MLX4DV_RING_INIT_WRID), 0);
	old_rq_ring_release(p);
	assert_canaries(&h);
	memcpy(&rq, p, SIZE_0_2(rq_ring));
	assert_null(rq.wrid);

	p = old_handle(&h, SIZE_0_2(srq_ring));
	assert_int_equal(old_srq_ring_init(p, o.srq, MLX4DV_RING_INIT_WRID), 0);
	old_srq_ring_release(p);
	assert_canaries(&h);
	memcpy(&srq, p, SIZE_0_2(srq_ring));
	assert_null(srq.wrid);

	p = old_handle(&h, SIZE_0_2(cq_ring));
	assert_int_equal(old_cq_ring_init(p, o.scq, 0), 0);
	old_cq_ring_release(p);
	assert_canaries(&h);

	objects_close(&o);
}

/* mlx4dv_cq_ring_resize@MLX4DV_0.2 resizes a 0.2 handle in place. */
static void old_resize_stays_in_0_2_size(void **state)
{
	struct objects o;
	struct old_handle h;
	struct mlx4dv_cq_ring cq;
	void *p;

	(void)state;
	objects_open(&o);
	p = old_handle(&h, SIZE_0_2(cq_ring));
	assert_int_equal(old_cq_ring_init(p, o.rcq, 0), 0);
	assert_int_equal(old_cq_ring_resize(p, o.rcq, 63), 0);
	assert_canaries(&h);
	memcpy(&cq, p, SIZE_0_2(cq_ring));
	assert_int_equal(cq.cqe_cnt, 64);
	assert_int_equal(mlx4dv_cq_ring_init(&cq, o.rcq, 0), 0);
	ASSERT_FIELDS(p, cq, cq_ring);
	objects_close(&o);
}

/* The default functions fill full handles, reserved bytes zeroed. */
static void default_inits_zero_reserved(void **state)
{
	struct objects o;
	struct mlx4dv_sq_ring sq;
	struct mlx4dv_rq_ring rq;
	struct mlx4dv_srq_ring srq;
	struct mlx4dv_cq_ring cq;
	struct mlx4dv_qp_rings r;

	(void)state;
	objects_open(&o);
	FULL(sq);
	assert_int_equal(mlx4dv_sq_ring_init(&sq, o.qp, MLX4DV_RING_INIT_WRID), 0);
	assert_zero(sq.reserved, sizeof(sq.reserved));
	mlx4dv_sq_ring_release(&sq);
	assert_zero(sq.reserved, sizeof(sq.reserved));

	FULL(rq);
	assert_int_equal(mlx4dv_rq_ring_init(&rq, o.qp, 0), 0);
	assert_zero(rq.reserved, sizeof(rq.reserved));
	if (o.wq) {
		FULL(rq);
		assert_int_equal(mlx4dv_wq_ring_init(&rq, o.wq, 0), 0);
		assert_zero(rq.reserved, sizeof(rq.reserved));
	}

	FULL(srq);
	assert_int_equal(mlx4dv_srq_ring_init(&srq, o.srq, 0), 0);
	assert_zero(srq.reserved, sizeof(srq.reserved));

	FULL(cq);
	assert_int_equal(mlx4dv_cq_ring_init(&cq, o.rcq, 0), 0);
	assert_zero(cq.reserved, sizeof(cq.reserved));
	assert_int_equal(mlx4dv_cq_ring_resize(&cq, o.rcq, 63), 0);
	assert_int_equal(cq.cqe_cnt, 64);
	assert_zero(cq.reserved, sizeof(cq.reserved));

	FULL(r);
	assert_int_equal(mlx4dv_qp_rings_init(&r, o.qp, 0), 0);
	assert_zero(r.reserved, sizeof(r.reserved));
	assert_zero(r.sq.reserved, sizeof(r.sq.reserved));
	assert_zero(r.rq.reserved, sizeof(r.rq.reserved));
	assert_zero(r.send_cq.reserved, sizeof(r.send_cq.reserved));
	assert_zero(r.recv_cq.reserved, sizeof(r.recv_cq.reserved));
	mlx4dv_qp_rings_release(&r);
	objects_close(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(old_inits_fill_0_2_sizes),
		cmocka_unit_test(old_qp_rings_keep_0_2_layout),
		cmocka_unit_test(old_releases_stay_in_0_2_sizes),
		cmocka_unit_test(old_resize_stays_in_0_2_size),
		cmocka_unit_test(default_inits_zero_reserved),
	};

	t_run_group_tests_name("unit_handle_versions", tests, NULL, NULL);
	return t_exit();
}
