/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Internal interfaces of libmlx4dv shared by its translation units.
 * Nothing here is exported (see libmlx4dv.map).
 */
#ifndef MLX4DV_INTERNAL_H
#define MLX4DV_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/mlx4dv.h>

/* ConnectX family identification, device_id.c. */

/* True when a sysfs modalias string names a device libmlx4 drives. */
bool mlx4dv_priv_modalias_is_mlx4(const char *modalias);

/* Reads <ibdev_path>/device/modalias of an ibv_device; 0 or an errno. */
int mlx4dv_priv_read_modalias(const struct ibv_device *device, char *buf,
			 size_t len);

/* Whether a context is still open, context_watch.c. Callers serialise. */

/*
 * Starts watching the open file at fd (a context's async event fd) without
 * holding a reference to it. 0, or an errno when it cannot be watched
 * (EBADF: no fd; EPERM: a file that cannot be polled; epoll's errors).
 */
int mlx4dv_priv_fd_watch(int fd);

/* True while fd still names the open file mlx4dv_priv_fd_watch() was
 * given; false once that file is closed (even when fd is in use again). */
bool mlx4dv_priv_fd_watched(int fd);

/* Per-context state, context_table.c. */

/*
 * 0 when the context belongs to a device libmlx4 drives (answer cached per
 * context), EINVAL for a NULL context or device, EPROTONOSUPPORT
 * otherwise. Touches nothing but context->device and sysfs.
 */
int mlx4dv_priv_context_check(struct ibv_context *context);

/*
 * Gives the caller a BlueFlame register of its own on the context's
 * BlueFlame page, mapping the page on first use. On success *reg is the
 * register and *reg_size its size in bytes; otherwise an errno and the
 * caller falls back to plain doorbells.
 */
int mlx4dv_priv_bf_reg_acquire(struct ibv_context *context, uint8_t **reg,
			  uint32_t *reg_size);

/* Gives back a register from mlx4dv_priv_bf_reg_acquire(); unmaps the page
 * with its last register. Unknown addresses are ignored. */
void mlx4dv_priv_bf_reg_release(uint8_t *reg);

/* What the handles of a queue hold, grant_table.c. */

struct mlx4dv_priv_grant_req {
	const void		*queue;		/* first byte of the ring */
	struct ibv_context	*context;
	uint32_t		wrid_cnt;	/* 0: no wrid table */
	bool			bf;		/* a BlueFlame register */
};

struct mlx4dv_priv_grant {
	uint64_t		*wrid;		/* or NULL */
	uint8_t			*bf_reg;	/* or NULL (bf_err says why) */
	uint32_t		bf_reg_size;
	int			bf_err;
	uint32_t		ticket;		/* 24 bits; 0: nothing held */
};

/*
 * The queue's resources: its live grant's when it has one (the wrid table
 * zeroed, a register it holds already kept), else new ones. 0 or ENOMEM
 * (wrid table); a register that cannot be had is not an error (bf_err).
 */
int mlx4dv_priv_grant_take(const struct mlx4dv_priv_grant_req *req,
			   struct mlx4dv_priv_grant *out);

/* mlx4dv_priv_grant_take() for a wrid table of count entries alone. */
int mlx4dv_priv_wrid_take(const void *queue, struct ibv_context *context,
			  uint32_t count, uint64_t **wrid);

/* Frees the queue's grant when ticket is its ticket, or, with ticket 0,
 * when wrid is its table; anything else (a stale copy, a second release)
 * is ignored. */
void mlx4dv_priv_grant_give_back(const void *queue, uint32_t ticket,
				 const uint64_t *wrid);

/* libmlx4's view of one object (mlx4dv_init_obj()), raw_layout.c. *dv is
 * cleared first; the CQ's asks for the UAR. 0 or libmlx4's errno. */
int mlx4dv_priv_raw_qp(struct ibv_qp *qp, struct mlx4dv_qp *dv);
int mlx4dv_priv_raw_rwq(struct ibv_wq *wq, struct mlx4dv_rwq *dv);
int mlx4dv_priv_raw_srq(struct ibv_srq *srq, struct mlx4dv_srq *dv);
int mlx4dv_priv_raw_cq(struct ibv_cq *cq, struct mlx4dv_cq *dv);

/* Geometry helpers, geometry.c. */

static inline bool mlx4dv_priv_is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static inline uint32_t mlx4dv_priv_roundup_pow2(uint32_t v)
{
	uint32_t r = 1;

	while (r < v && r)
		r <<= 1;
	return r;
}

/* libmlx4's SQ headroom for a stride: (2048 >> wqe_shift) + 1. */
uint32_t mlx4dv_priv_sq_spare_wqes(uint32_t wqe_shift);

/* libmlx4's gather entries per WQE for a stride and QP type (what
 * ibv_query_qp() reports as max_send_sge). */
uint32_t mlx4dv_priv_sq_libmlx4_max_gather(uint32_t wqe_shift,
					   enum ibv_qp_type type);

/* libmlx4's inline bytes per WQE for a stride and QP type (what
 * ibv_query_qp() reports as max_inline_data). */
uint32_t mlx4dv_priv_sq_libmlx4_max_inline(uint32_t wqe_shift,
					   enum ibv_qp_type type);

/* Gather entries a post accepts: libmlx4's, at most what a 63-ds WQE
 * holds after its fixed segments. */
uint32_t mlx4dv_priv_sq_max_gather(uint32_t wqe_shift, enum ibv_qp_type type);

/* Inline bytes a post accepts: libmlx4's, at most what a 63-ds WQE
 * holds after its fixed segments. */
uint32_t mlx4dv_priv_sq_max_inline(uint32_t wqe_shift, enum ibv_qp_type type);

/* 0 when the header can drive a send queue of this raw layout; ENOENT
 * when there is no usable send queue, ENOTSUP for other geometry. */
int mlx4dv_priv_sq_layout_check(const struct mlx4dv_qp *dv);

/* 0 when the header can drive a CQ of this raw layout, else ENOTSUP. */
int mlx4dv_priv_cq_layout_check(const struct mlx4dv_cq *dv);

/* Zeroed wrid table of count entries or NULL (ENOMEM). */
uint64_t *mlx4dv_priv_wrid_alloc(uint32_t count);

#endif /* MLX4DV_INTERNAL_H */
