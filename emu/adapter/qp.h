/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A QP's life on the adapter, called with emu_dev.lock held: attributes
 * checked and its rings laid out as libmlx4 laid them out (qp_create.c),
 * XRC target QPs, looked up, queried, moved between states (qp_modify.c,
 * with the rules of qp_state.c), destroyed and released with its context
 * (qp.c).
 */
#ifndef MLX4EMU_QP_H
#define MLX4EMU_QP_H

#include "adapter/abi.h"
#include "adapter/adapter.h"

/*
 * What a QP is created with.  Handles are the creating context's: pd is
 * an XRC domain handle for an XRC target QP; srq and ind_tbl are ~0u for
 * none.  The ring and RSS parts are libmlx4's driver data (mlx4_ib's
 * create_qp and create_qp_rss requests), drv_short when the program sent
 * less than the part the QP needs.
 */
struct emu_qp_attrs {
	uint64_t user_handle;
	uint32_t pd, scq, rcq, srq, ind_tbl;
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge, max_inline;
	uint8_t sig_all, type, is_srq;
	uint32_t create_flags;	/* IBV_QP_CREATE_* */
	bool drv_short;
	struct mlx4_ib_create_qp rings;
	struct mlx4_ib_create_qp_rss rss;
};

/*
 * Checks the attributes (EOPNOTSUPP for a QP type or hash the device has
 * not, EINVAL, EFAULT for rings that are not there, ENOMEM when no number
 * is free) and fills a QP that is not live until emu_qp_activate, once
 * its creator answered the program with *handle, emu_qp_number(*qp) and
 * the capabilities in it.
 */
int emu_qp_create(struct emu_ctx *ctx, const struct emu_qp_attrs *a,
		  struct emu_qp **qp, uint32_t *handle);
/* A created QP whose creator could not answer: an XRC target's handle
 * is given back (its slot never went live). */
void emu_qp_create_undo(struct emu_ctx *ctx, uint32_t handle);
void emu_qp_activate(struct emu_qp *qp);

/* What the program is told the QP can hold (at create, and by a query). */
struct emu_qp_caps {
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge, max_inline;
	bool sig_all;
};
void emu_qp_get_caps(const struct emu_qp *qp, struct emu_qp_caps *caps);

/* The context's QP behind handle h (a QPN, or an XRC target QP handle),
 * or NULL when it is not a live QP of it. */
struct emu_qp *emu_qp_lookup(struct emu_ctx *ctx, uint32_t h);

/*
 * A QP's attributes as a modify names them (mask: IBV_QP_*) and as a
 * query reports them.
 */
struct emu_qp_mod_attrs {
	uint32_t mask;
	uint8_t qp_state, cur_qp_state;
	uint8_t port_num, path_mtu, timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint8_t max_rd_atomic, max_dest_rd_atomic, path_mig_state, en_sqd_async_notify;
	uint16_t pkey_index;
	uint32_t qkey, rq_psn, sq_psn, dest_qp_num, qp_access_flags;
	struct emu_path path;
};

/*
 * Moves the QP to m->qp_state (its current state without IBV_QP_STATE)
 * with the attributes in m->mask: EINVAL for a transition or a value a
 * ConnectX-3 refuses, the QP unchanged.
 */
int emu_qp_modify(struct emu_qp *qp, const struct emu_qp_mod_attrs *m);
/* The QP's attributes (mask unused); EOPNOTSUPP for an RSS QP. */
int emu_qp_query(const struct emu_qp *qp, struct emu_qp_mod_attrs *out);

/*
 * The destroy of handle h of qp: EBUSY while the QP is attached to a
 * multicast group or flow rules steer to it.  A shared XRC target QP
 * loses only that handle, here (*closed set).  Otherwise the QP's
 * pending events are dropped so that *reported is final, and
 * emu_qp_destroy takes the QP once the program was answered.
 */
int emu_qp_prepare_destroy(struct emu_ctx *ctx, struct emu_qp *qp, uint32_t h,
			   bool *closed, uint32_t *reported);
void emu_qp_destroy(struct emu_ctx *ctx, struct emu_qp *qp, uint32_t h);
/* The QPs of a context whose device fd closes (after its XRC handles). */
void emu_qp_release_ctx(struct emu_ctx *ctx);

#endif
