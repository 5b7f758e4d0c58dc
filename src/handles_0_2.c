// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The handle functions for programs built against the 0.2 header, whose
 * handles end at their last field (no reserved array): the MLX4DV_0.1 and
 * MLX4DV_0.2 versions of the symbols. Each fills a full-size handle on the
 * stack through the default (MLX4DV_0.3) function and copies out only the
 * bytes the 0.2 struct has, so nothing past the caller's handle is read or
 * written. struct mlx4dv_qp_rings of 0.2 held the 0.2 handles back to
 * back: it is converted member by member.
 *
 * The versions are bound with .symver, which GCC and clang both take (the
 * symver attribute is GCC's only); this file is not part of the static
 * library, whose programs are always built against the header they link.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

/* Where the fields of a 0.2 handle end: at the first field 0.3 added
 * (struct mlx4dv_sq_ring.pdn, struct mlx4dv_cq_ring.recv_from), or at
 * reserved for a handle 0.3 added nothing to. */
#define FIELDS_0_2_sq_ring	offsetof(struct mlx4dv_sq_ring, pdn)
#define FIELDS_0_2_rq_ring	offsetof(struct mlx4dv_rq_ring, reserved)
#define FIELDS_0_2_srq_ring	offsetof(struct mlx4dv_srq_ring, reserved)
#define FIELDS_0_2_cq_ring	offsetof(struct mlx4dv_cq_ring, recv_from)

/* A 0.2 handle: its fields padded to the alignment of its pointers (112,
 * 48, 56 and 56 bytes with 8-byte pointers; 84, 36, 40 and 36 with 4-byte
 * ones). */
#define SIZE_0_2(s) \
	((FIELDS_0_2_##s + _Alignof(void *) - 1) & ~(_Alignof(void *) - 1))

enum {
	SQ_0_2 = SIZE_0_2(sq_ring),
	RQ_0_2 = SIZE_0_2(rq_ring),
	SRQ_0_2 = SIZE_0_2(srq_ring),
	CQ_0_2 = SIZE_0_2(cq_ring),
	/* struct mlx4dv_qp_rings of 0.2, member by member */
	QP_RINGS_RQ_0_2 = SQ_0_2,
	QP_RINGS_SEND_CQ_0_2 = QP_RINGS_RQ_0_2 + RQ_0_2,
	QP_RINGS_RECV_CQ_0_2 = QP_RINGS_SEND_CQ_0_2 + CQ_0_2,
	QP_RINGS_FLAGS_0_2 = QP_RINGS_RECV_CQ_0_2 + CQ_0_2,
};

_Static_assert(SQ_0_2 == __MLX4DV_BY_POINTER(84, 112), "0.2 SQ handle size");
_Static_assert(RQ_0_2 == __MLX4DV_BY_POINTER(36, 48), "0.2 RQ handle size");
_Static_assert(SRQ_0_2 == __MLX4DV_BY_POINTER(40, 56), "0.2 SRQ handle size");
_Static_assert(CQ_0_2 == __MLX4DV_BY_POINTER(36, 56), "0.2 CQ handle size");
_Static_assert(QP_RINGS_FLAGS_0_2 == __MLX4DV_BY_POINTER(192, 272),
	       "0.2 qp_rings flags offset");

/* Binds impl to name@version, a version that is not the default. */
#define COMPAT_SYMBOL(impl, name, version) \
	__asm__(".symver " #impl ", " #name "@" #version)

static void qp_rings_to_0_2(uint8_t *old, const struct mlx4dv_qp_rings *r)
{
	memcpy(old, &r->sq, SQ_0_2);
	memcpy(old + QP_RINGS_RQ_0_2, &r->rq, RQ_0_2);
	memcpy(old + QP_RINGS_SEND_CQ_0_2, &r->send_cq, CQ_0_2);
	memcpy(old + QP_RINGS_RECV_CQ_0_2, &r->recv_cq, CQ_0_2);
	memcpy(old + QP_RINGS_FLAGS_0_2, &r->flags, sizeof(r->flags));
}

static void qp_rings_from_0_2(struct mlx4dv_qp_rings *r, const uint8_t *old)
{
	memset(r, 0, sizeof(*r));
	memcpy(&r->sq, old, SQ_0_2);
	memcpy(&r->rq, old + QP_RINGS_RQ_0_2, RQ_0_2);
	memcpy(&r->send_cq, old + QP_RINGS_SEND_CQ_0_2, CQ_0_2);
	memcpy(&r->recv_cq, old + QP_RINGS_RECV_CQ_0_2, CQ_0_2);
	memcpy(&r->flags, old + QP_RINGS_FLAGS_0_2, sizeof(r->flags));
}

/*
 * name@MLX4DV_0.1 for an init function of a single handle: the full handle
 * filled on the stack, the 0.2 bytes copied out on success (on error the
 * caller's handle stays as it was, as the default function leaves it).
 */
#define INIT_V0_2(name, s, obj_type) \
	int mlx4dv_priv_##name##_v0_2(void *out, obj_type *obj, uint32_t flags); \
	int mlx4dv_priv_##name##_v0_2(void *out, obj_type *obj, uint32_t flags) \
	{ \
		struct mlx4dv_##s ring; \
		int ret; \
		\
		if (!out) \
			return EINVAL; \
		ret = mlx4dv_##name(&ring, obj, flags); \
		if (!ret) \
			memcpy(out, &ring, SIZE_0_2(s)); \
		return ret; \
	} \
	COMPAT_SYMBOL(mlx4dv_priv_##name##_v0_2, mlx4dv_##name, MLX4DV_0.1)

/*
 * name@MLX4DV_0.1 for a release function: the 0.2 bytes in, a full handle
 * with zeroed reserved bytes released, the 0.2 bytes back.
 */
#define RELEASE_V0_2(name, s) \
	void mlx4dv_priv_##name##_v0_2(void *handle); \
	void mlx4dv_priv_##name##_v0_2(void *handle) \
	{ \
		struct mlx4dv_##s ring; \
		\
		if (!handle) \
			return; \
		memset(&ring, 0, sizeof(ring)); \
		memcpy(&ring, handle, SIZE_0_2(s)); \
		mlx4dv_##name(&ring); \
		memcpy(handle, &ring, SIZE_0_2(s)); \
	} \
	COMPAT_SYMBOL(mlx4dv_priv_##name##_v0_2, mlx4dv_##name, MLX4DV_0.1)

INIT_V0_2(sq_ring_init, sq_ring, struct ibv_qp);
INIT_V0_2(rq_ring_init, rq_ring, struct ibv_qp);
INIT_V0_2(wq_ring_init, rq_ring, struct ibv_wq);
INIT_V0_2(srq_ring_init, srq_ring, struct ibv_srq);
INIT_V0_2(cq_ring_init, cq_ring, struct ibv_cq);

RELEASE_V0_2(sq_ring_release, sq_ring);
RELEASE_V0_2(rq_ring_release, rq_ring);
RELEASE_V0_2(srq_ring_release, srq_ring);
RELEASE_V0_2(cq_ring_release, cq_ring);

/* mlx4dv_cq_ring_resize@MLX4DV_0.2 (the function came with 0.2). The
 * handle is read as well as written: in and out through a full copy. */
int mlx4dv_priv_cq_ring_resize_v0_2(void *cq, struct ibv_cq *ibcq,
				    uint32_t cqe);
int mlx4dv_priv_cq_ring_resize_v0_2(void *cq, struct ibv_cq *ibcq,
				    uint32_t cqe)
{
	struct mlx4dv_cq_ring ring;
	int ret;

	if (!cq)
		return EINVAL;
	memset(&ring, 0, sizeof(ring));
	memcpy(&ring, cq, CQ_0_2);
	ret = mlx4dv_cq_ring_resize(&ring, ibcq, cqe);
	memcpy(cq, &ring, CQ_0_2);
	return ret;
}
COMPAT_SYMBOL(mlx4dv_priv_cq_ring_resize_v0_2, mlx4dv_cq_ring_resize,
	      MLX4DV_0.2);

int mlx4dv_priv_qp_rings_init_v0_2(void *rings, struct ibv_qp *qp,
				   uint32_t flags);
int mlx4dv_priv_qp_rings_init_v0_2(void *rings, struct ibv_qp *qp,
				   uint32_t flags)
{
	struct mlx4dv_qp_rings r;
	int ret;

	if (!rings)
		return EINVAL;
	ret = mlx4dv_qp_rings_init(&r, qp, flags);
	if (!ret)
		qp_rings_to_0_2(rings, &r);
	return ret;
}
COMPAT_SYMBOL(mlx4dv_priv_qp_rings_init_v0_2, mlx4dv_qp_rings_init,
	      MLX4DV_0.1);

void mlx4dv_priv_qp_rings_release_v0_2(void *rings);
void mlx4dv_priv_qp_rings_release_v0_2(void *rings)
{
	struct mlx4dv_qp_rings r;

	if (!rings)
		return;
	qp_rings_from_0_2(&r, rings);
	mlx4dv_qp_rings_release(&r);
	qp_rings_to_0_2(rings, &r);
}
COMPAT_SYMBOL(mlx4dv_priv_qp_rings_release_v0_2, mlx4dv_qp_rings_release,
	      MLX4DV_0.1);
