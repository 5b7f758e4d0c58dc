// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * XRC domains and the handles of shared target QPs, with the lifetimes
 * the kernel's uverbs layer gives them (drivers/infiniband/core/
 * uverbs_cmd.c ib_uverbs_open_xrcd, ib_uverbs_open_qp; verbs.c
 * __ib_destroy_shared_qp): a domain lives while a handle of it is open;
 * a handle cannot be closed while SRQs or target QP handles made through
 * it exist; a target QP lives while any of its handles does.
 */
#include "adapter/xrc.h"

#include <errno.h>
#include <fcntl.h>

#include "adapter/events.h"
#include "adapter/objects.h"

/* One handle of a target QP; the QP's async events go to the ctx and
 * user handle of exactly one of them, its event handle. */
struct xrc_qp_handle {
	bool used;
	bool events;
	struct emu_ctx *ctx;
	struct emu_qp *qp;
	struct emu_xrcd_handle *via;
	uint64_t user_handle;
};

static struct emu_xrcd xrcds[EMU_MAX_XRCD];
static struct emu_xrcd_handle xrcd_handles[EMU_MAX_XRCD_HANDLES];
static struct xrc_qp_handle qp_handles[EMU_MAX_XRC_QP_HANDLES];

static struct emu_xrcd *xrcd_of_inode(dev_t dev, ino_t ino)
{
	for (unsigned i = 0; i < EMU_MAX_XRCD; i++)
		if (xrcds[i].used && xrcds[i].has_inode && xrcds[i].st_dev == dev &&
		    xrcds[i].st_ino == ino)
			return &xrcds[i];
	return NULL;
}

static struct emu_xrcd *xrcd_alloc(bool has_inode, dev_t dev, ino_t ino)
{
	for (unsigned i = 0; i < EMU_MAX_XRCD; i++)
		if (!xrcds[i].used) {
			xrcds[i] = (struct emu_xrcd){ .used = true, .has_inode = has_inode,
						      .st_dev = dev, .st_ino = ino };
			return &xrcds[i];
		}
	return NULL;
}

int emu_xrcd_open(struct emu_ctx *ctx, bool has_inode, dev_t dev, ino_t ino,
		  uint32_t oflags, uint32_t *handle)
{
	struct emu_xrcd *x = has_inode ? xrcd_of_inode(dev, ino) : NULL;
	struct emu_xrcd_handle *h = NULL;

	if (has_inode && !x && !(oflags & O_CREAT))
		return EAGAIN;
	if (x && (oflags & O_EXCL))
		return EINVAL;
	for (unsigned i = 0; i < EMU_MAX_XRCD_HANDLES && !h; i++)
		if (!xrcd_handles[i].used)
			h = &xrcd_handles[i];
	if (!h || (!x && !(x = xrcd_alloc(has_inode, dev, ino))))
		return ENOMEM;
	*h = (struct emu_xrcd_handle){ .used = true, .ctx = ctx, .xrcd = x };
	x->handles++;
	*handle = (uint32_t)(h - xrcd_handles);
	EMU_TRACE("open_xrcd handle %u, domain %u (%u handles)", *handle,
		  (unsigned)(x - xrcds), x->handles);
	return 0;
}

struct emu_xrcd_handle *emu_xrcd_handle_get(struct emu_ctx *ctx, uint32_t handle)
{
	if (handle >= EMU_MAX_XRCD_HANDLES || !xrcd_handles[handle].used ||
	    xrcd_handles[handle].ctx != ctx)
		return NULL;
	return &xrcd_handles[handle];
}

static void xrcd_handle_free(struct emu_xrcd_handle *h)
{
	h->used = false;
	if (--h->xrcd->handles == 0)
		h->xrcd->used = false;
}

int emu_xrcd_close(struct emu_ctx *ctx, uint32_t handle)
{
	struct emu_xrcd_handle *h = emu_xrcd_handle_get(ctx, handle);

	if (!h)
		return EINVAL;
	if (h->users)
		return EBUSY;
	xrcd_handle_free(h);
	return 0;
}

int emu_xrc_qp_handle_add(struct emu_ctx *ctx, struct emu_qp *qp,
			  struct emu_xrcd_handle *via, uint64_t user_handle,
			  uint32_t *handle)
{
	for (unsigned i = 0; i < EMU_MAX_XRC_QP_HANDLES; i++) {
		struct xrc_qp_handle *h = &qp_handles[i];

		if (h->used)
			continue;
		*h = (struct xrc_qp_handle){ .used = true, .ctx = ctx, .qp = qp,
					     .via = via, .user_handle = user_handle,
					     .events = qp->xrc.handles == 0 };
		via->users++;
		qp->xrc.handles++;
		*handle = EMU_XRC_QP_HANDLE_BASE + i;
		return 0;
	}
	return ENOMEM;
}

static struct xrc_qp_handle *qp_handle(struct emu_ctx *ctx, uint32_t h)
{
	uint32_t i = h - EMU_XRC_QP_HANDLE_BASE;

	if (h < EMU_XRC_QP_HANDLE_BASE || i >= EMU_MAX_XRC_QP_HANDLES ||
	    !qp_handles[i].used || qp_handles[i].ctx != ctx)
		return NULL;
	return &qp_handles[i];
}

struct emu_qp *emu_xrc_qp_handle_get(struct emu_ctx *ctx, uint32_t h)
{
	struct xrc_qp_handle *q = qp_handle(ctx, h);

	return q ? q->qp : NULL;
}

/* The QP's events now go to another of its handles. */
static void move_events(struct emu_qp *qp)
{
	for (unsigned i = 0; i < EMU_MAX_XRC_QP_HANDLES; i++) {
		struct xrc_qp_handle *h = &qp_handles[i];

		if (h->used && h->qp == qp) {
			h->events = true;
			qp->ctx = h->ctx;
			qp->user_handle = h->user_handle;
			qp->async_events = 0;
			return;
		}
	}
}

bool emu_xrc_qp_handle_close(struct emu_ctx *ctx, uint32_t h, uint32_t *reported)
{
	struct xrc_qp_handle *q = qp_handle(ctx, h);
	struct emu_qp *qp = q->qp;

	q->used = false;
	q->via->users--;
	*reported = 0;
	if (--qp->xrc.handles == 0)
		return true;
	if (q->events) {
		emu_events_forget(qp->ctx, &qp->async_events);
		*reported = qp->async_events;
		move_events(qp);
	}
	return false;
}

struct emu_qp *emu_xrc_tgt_in(const struct emu_xrcd *xrcd, uint32_t qpn)
{
	struct emu_qp *qp = (qpn & EMU_XRC_QPN_BIT) ?
		emu_qp_by_qpn(qpn & ~EMU_XRC_QPN_BIT) : NULL;

	return qp && emu_qp_is_xrc_tgt(qp) && qp->xrc.xrcd == xrcd ? qp : NULL;
}

void emu_xrc_release_ctx(struct emu_ctx *ctx)
{
	uint32_t reported;

	for (unsigned i = 0; i < EMU_MAX_XRC_QP_HANDLES; i++) {
		struct xrc_qp_handle *h = &qp_handles[i];

		if (h->used && h->ctx == ctx &&
		    emu_xrc_qp_handle_close(ctx, EMU_XRC_QP_HANDLE_BASE + i, &reported))
			h->qp->used = false;
	}
	for (unsigned i = 0; i < EMU_MAX_XRCD_HANDLES; i++)
		if (xrcd_handles[i].used && xrcd_handles[i].ctx == ctx)
			xrcd_handle_free(&xrcd_handles[i]);
}

struct emu_qp *emu_qp_by_dest_qpn(uint32_t qpn)
{
	struct emu_qp *qp = emu_qp_by_qpn(qpn & ~EMU_XRC_QPN_BIT);

	if (!qp || emu_qp_is_xrc_tgt(qp) != ((qpn & EMU_XRC_QPN_BIT) != 0))
		return NULL;
	return qp;
}

bool emu_xrc_bind(struct emu_qp *tgt, uint32_t srqn)
{
	struct emu_srq *srq = srqn < EMU_MAX_SRQ ? &emu_dev.srq[srqn] : NULL;

	tgt->xrc.srq = srq && srq->used && srq->xrcd && srq->xrcd == tgt->xrc.xrcd ?
		       srq : NULL;
	return tgt->xrc.srq != NULL;
}
