// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * XRC commands: OPEN_XRCD, CLOSE_XRCD, CREATE_XSRQ and OPEN_QP, with the
 * checks and errors of the kernel's uverbs layer (uverbs_cmd.c
 * ib_uverbs_open_xrcd, __uverbs_create_xsrq, ib_uverbs_open_qp) and what
 * mlx4_ib does for XRC SRQs (srq.c: an SRQ of a domain, with its CQ).
 * Target QPs are created with CREATE_QP (cmd_qp.c).
 */
#include <string.h>

#include "adapter/cq.h"
#include "adapter/srq.h"
#include "adapter/xrc.h"
#include "base/libc.h"
#include "cmd/cmd.h"

int emu_cmd_open_xrcd(struct emu_cmd *c)
{
	const struct ib_uverbs_open_xrcd *q = c->in;
	struct ib_uverbs_open_xrcd_resp r = { 0 };
	struct stat st = { 0 };
	bool has_inode = q->fd != (uint32_t)-1;
	int err;

	/* the domain is the inode's: every fd of the same file shares it */
	if (has_inode && emu_real_fstat((int)q->fd, &st))
		return EBADF;
	err = emu_xrcd_open(c->ctx, has_inode, st.st_dev, st.st_ino, q->oflags,
			    &r.xrcd_handle);
	if (err)
		return err;
	err = emu_put_resp(c, &r, sizeof(r));
	if (err)
		emu_xrcd_close(c->ctx, r.xrcd_handle);
	return err;
}

int emu_cmd_close_xrcd(struct emu_cmd *c)
{
	const struct ib_uverbs_close_xrcd *q = c->in;

	return emu_xrcd_close(c->ctx, q->xrcd_handle);
}

int emu_cmd_create_xsrq(struct emu_cmd *c)
{
	const struct ib_uverbs_create_xsrq *q = c->in;
	struct emu_srq_attrs req = {
		.user_handle = q->user_handle, .pdn = q->pd_handle,
		.max_wr = q->max_wr, .max_sge = q->max_sge,
	};

	switch (q->srq_type) {
	case IBV_SRQT_BASIC:
		break;
	case IBV_SRQT_XRC:
		req.xrcd_via = emu_xrcd_handle_get(c->ctx, q->xrcd_handle);
		req.cq = emu_cq_lookup(c->ctx, q->cq_handle);
		if (!req.xrcd_via || !req.cq)
			return EINVAL;
		break;
	default:
		/* tag matching: mlx4_ib has no such SRQ */
		return EOPNOTSUPP;
	}
	return emu_cmd_srq_create(c, &req);
}

int emu_cmd_open_qp(struct emu_cmd *c)
{
	const struct ib_uverbs_open_qp *q = c->in;
	struct ib_uverbs_create_qp_resp r = { 0 };
	struct emu_xrcd_handle *via = emu_xrcd_handle_get(c->ctx, q->pd_handle);
	struct emu_qp *qp;
	uint32_t reported;
	int err;

	/* only XRC target QPs are shared, and only within their domain */
	if (!via || q->qp_type != IBV_QPT_XRC_RECV)
		return EINVAL;
	qp = emu_xrc_tgt_in(via->xrcd, q->qpn);
	if (!qp)
		return EINVAL;
	err = emu_xrc_qp_handle_add(c->ctx, qp, via, q->user_handle, &r.qp_handle);
	if (err)
		return err;
	r.qpn = emu_qp_number(qp);
	err = emu_put_resp(c, &r, sizeof(r));
	if (err)
		emu_xrc_qp_handle_close(c->ctx, r.qp_handle, &reported);
	return err;
}
