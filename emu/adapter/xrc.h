/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * XRC (eXtended Reliable Connected transport): XRC domains, their
 * per-context handles, the handles of shared XRC target QPs, and how a
 * message of an XRC initiator finds its target QP and the XRC SRQ it
 * names.  All of it under emu_dev.lock.
 *
 * Numbers as mlx4_ib gives them: an XRC target QP is reported with bit 23
 * set in its QPN (drivers/infiniband/hw/mlx4/qp.c, create_qp_common), the
 * bit libmlx4's cq.c tests (MLX4_XRC_QPN_BIT) to take the receive's SRQ
 * from the CQE's rqpn field instead of from a QP.
 */
#ifndef MLX4EMU_ADAPTER_XRC_H
#define MLX4EMU_ADAPTER_XRC_H

#include <sys/types.h>

#include "adapter/adapter.h"

#define EMU_XRC_QPN_BIT (1u << 23)
#define EMU_MAX_XRCD 256
#define EMU_MAX_XRCD_HANDLES 1024
#define EMU_MAX_XRC_QP_HANDLES 4096
/* Handles of XRC target QPs (created or opened) are numbered from here,
 * above every QPN, so that one QP can have several. */
#define EMU_XRC_QP_HANDLE_BASE 0x40000000u

/* An XRC domain: shared by every handle opened on the same inode. */
struct emu_xrcd {
	bool used;
	bool has_inode;
	dev_t st_dev;
	ino_t st_ino;
	uint32_t handles;	/* XRCD handles open on it */
};

/* One context's handle of a domain (what ibv_open_xrcd returns). */
struct emu_xrcd_handle {
	bool used;
	struct emu_ctx *ctx;
	struct emu_xrcd *xrcd;
	uint32_t users;		/* SRQs and target QP handles made through it */
};

/*
 * Opens a handle of a domain for ctx.  With an inode (the file the
 * program named), the domain of that inode is shared: found, or created
 * when oflags has O_CREAT (EAGAIN otherwise, as uverbs answers); O_EXCL
 * with an existing domain is EINVAL.  Without one, a new private domain.
 * ENOMEM when a table is full.  The handle number goes to *handle.
 */
int emu_xrcd_open(struct emu_ctx *ctx, bool has_inode, dev_t dev, ino_t ino,
		  uint32_t oflags, uint32_t *handle);
/* Closes a handle: EINVAL for none of ctx, EBUSY while SRQs or target QP
 * handles made through it exist.  The domain goes with its last handle. */
int emu_xrcd_close(struct emu_ctx *ctx, uint32_t handle);
struct emu_xrcd_handle *emu_xrcd_handle_get(struct emu_ctx *ctx, uint32_t handle);

/* A new handle of target QP qp for ctx, made through domain handle via;
 * ENOMEM when full. */
int emu_xrc_qp_handle_add(struct emu_ctx *ctx, struct emu_qp *qp,
			  struct emu_xrcd_handle *via, uint64_t user_handle,
			  uint32_t *handle);
/* The target QP behind handle h of ctx, or NULL. */
struct emu_qp *emu_xrc_qp_handle_get(struct emu_ctx *ctx, uint32_t h);
/*
 * Closes handle h (valid, of ctx).  The QP's async events follow a live
 * handle: *reported gets the events the program read through this one
 * when it was the QP's event handle.  Returns true when it was the last
 * handle: the caller destroys the QP.
 */
bool emu_xrc_qp_handle_close(struct emu_ctx *ctx, uint32_t h, uint32_t *reported);
/* The target QP of this XRC domain with the number the program knows
 * (bit 23 set), or NULL. */
struct emu_qp *emu_xrc_tgt_in(const struct emu_xrcd *xrcd, uint32_t qpn);

/* Context teardown: closes its target QP handles (destroying the QPs of
 * which they were the last) and its domain handles. */
void emu_xrc_release_ctx(struct emu_ctx *ctx);

/* Receive side of XRC. */
static inline bool emu_qp_is_xrc_tgt(const struct emu_qp *qp)
{
	return qp->type == EMU_QPT_XRC_TGT;
}

/* The QPN the program knows for qp: bit 23 set on an XRC target. */
static inline uint32_t emu_qp_number(const struct emu_qp *qp)
{
	return emu_qp_is_xrc_tgt(qp) ? qp->qpn | EMU_XRC_QPN_BIT : qp->qpn;
}

/* The QP a connected QP of this adapter addresses with dest QPN qpn:
 * a target QP for a number with bit 23 set, another QP otherwise. */
struct emu_qp *emu_qp_by_dest_qpn(uint32_t qpn);

/*
 * A request to target QP tgt names SRQ srqn (XRCETH, or the WQE's
 * srcrb_flags in one adapter): binds the SRQ to tgt for the request's
 * execution, where emu_rq_take() takes from it and emu_responder_pdn()
 * is its PD.  false when srqn is not an XRC SRQ of tgt's domain: the
 * request is invalid.  Every request binds anew before it executes.
 */
bool emu_xrc_bind(struct emu_qp *tgt, uint32_t srqn);

/* The PD the responder checks remote keys against: an XRC target's is
 * the bound SRQ's (it has none of its own). */
static inline uint32_t emu_responder_pdn(const struct emu_qp *d)
{
	return d->xrc.srq ? d->xrc.srq->pdn : d->pdn;
}

#endif
