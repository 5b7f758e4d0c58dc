// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * QP commands: the frames decoded and validated; the QP's life is the
 * adapter's (adapter/qp.h).
 */
#include <string.h>

#include "cmd/cmd.h"
#include "adapter/qp.h"
#include "adapter/xrc.h"

/* The request's attributes with libmlx4's driver data: an RSS QP's hash
 * (mlx4_ib_create_qp_rss), another's rings (mlx4_ib_create_qp). */
static void qp_attrs_drv(struct emu_cmd *c, struct emu_qp_attrs *a)
{
	if (a->ind_tbl != ~0u) {
		emu_get_drv_in(c, &a->rss, sizeof(a->rss));
		a->drv_short = c->drv_in_len <
			       offsetof(struct mlx4_ib_create_qp_rss, comp_mask);
	} else if (a->type != EMU_QPT_XRC_TGT) {
		emu_get_drv_in(c, &a->rings, sizeof(a->rings));
		a->drv_short = c->drv_in_len <
			       offsetof(struct mlx4_ib_create_qp, inl_recv_sz);
	}
}

static int qp_create(struct emu_cmd *c, struct emu_qp_attrs *a,
		     struct ib_uverbs_create_qp_resp *r, struct emu_qp **qp)
{
	struct emu_qp_caps caps;
	uint32_t handle;
	int err;

	qp_attrs_drv(c, a);
	err = emu_qp_create(c->ctx, a, qp, &handle);
	if (err)
		return err;
	emu_qp_get_caps(*qp, &caps);
	*r = (struct ib_uverbs_create_qp_resp){
		.qp_handle = handle, .qpn = emu_qp_number(*qp),
		.max_send_wr = caps.max_send_wr, .max_recv_wr = caps.max_recv_wr,
		.max_send_sge = caps.max_send_sge, .max_recv_sge = caps.max_recv_sge,
		.max_inline_data = caps.max_inline,
	};
	return 0;
}

#define QP_ATTRS_OF(q) { \
	.user_handle = (q)->user_handle, .pd = (q)->pd_handle, \
	.scq = (q)->send_cq_handle, .rcq = (q)->recv_cq_handle, \
	.srq = (q)->is_srq ? (q)->srq_handle : ~0u, .ind_tbl = ~0u, \
	.max_send_wr = (q)->max_send_wr, .max_recv_wr = (q)->max_recv_wr, \
	.max_send_sge = (q)->max_send_sge, .max_recv_sge = (q)->max_recv_sge, \
	.max_inline = (q)->max_inline_data, .sig_all = (q)->sq_sig_all, \
	.type = (q)->qp_type, .is_srq = (q)->is_srq, \
}

int emu_cmd_create_qp(struct emu_cmd *c)
{
	const struct ib_uverbs_create_qp *q = c->in;
	struct ib_uverbs_create_qp_resp r;
	struct emu_qp_attrs a = QP_ATTRS_OF(q);
	struct emu_qp *qp;
	int err = qp_create(c, &a, &r, &qp);

	if (!err) {
		err = emu_put_resp(c, &r, sizeof(r));
		if (err)
			emu_qp_create_undo(c->ctx, r.qp_handle);
	}
	/* a QP only becomes live once the program has its answer */
	if (err)
		return err;
	emu_qp_activate(qp);
	return 0;
}

int emu_cmd_create_qp_ex(struct emu_cmd *c)
{
	const struct ib_uverbs_ex_create_qp *q = c->in;
	struct ib_uverbs_ex_create_qp_resp r = { 0 };
	struct emu_qp_attrs a = QP_ATTRS_OF(q);
	struct emu_qp *qp;
	int err;

	if (q->comp_mask & ~(uint32_t)IB_UVERBS_CREATE_QP_MASK_IND_TABLE)
		return EINVAL;
	if (q->comp_mask & IB_UVERBS_CREATE_QP_MASK_IND_TABLE) {
		/* RSS QPs take no creation flags */
		if (q->create_flags)
			return EOPNOTSUPP;
		a.ind_tbl = q->rwq_ind_tbl_handle;
	}
	/* mlx4_ib takes one creation flag from user space, on any QP type
	 * (drivers/infiniband/hw/mlx4/qp.c sup_u_create_flags); the rest,
	 * scatter FCS, CVLAN stripping, source QPN..., is EINVAL */
	if (q->create_flags & ~(uint32_t)IBV_QP_CREATE_BLOCK_SELF_MCAST_LB)
		return EINVAL;
	a.create_flags = q->create_flags;
	err = qp_create(c, &a, &r.base, &qp);
	if (!err) {
		r.response_length = sizeof(r);
		err = emu_put_resp(c, &r, sizeof(r));
		if (err)
			emu_qp_create_undo(c->ctx, r.base.qp_handle);
	}
	if (err)
		return err;
	emu_qp_activate(qp);
	return 0;
}

static void path_from_dest(struct emu_path *p, const struct ib_uverbs_qp_dest *d)
{
	memcpy(p->dgid, d->dgid, 16);
	p->flow_label = d->flow_label;
	p->dlid = d->dlid;
	p->sgid_index = d->sgid_index;
	p->hop_limit = d->hop_limit;
	p->traffic_class = d->traffic_class;
	p->sl = d->sl;
	p->src_path_bits = d->src_path_bits;
	p->static_rate = d->static_rate;
	p->is_global = d->is_global;
	p->port_num = d->port_num;
}

static void dest_from_path(struct ib_uverbs_qp_dest *d, const struct emu_path *p)
{
	memcpy(d->dgid, p->dgid, 16);
	d->flow_label = p->flow_label;
	d->dlid = p->dlid;
	d->sgid_index = p->sgid_index;
	d->hop_limit = p->hop_limit;
	d->traffic_class = p->traffic_class;
	d->sl = p->sl;
	d->src_path_bits = p->src_path_bits;
	d->static_rate = p->static_rate;
	d->is_global = p->is_global;
	d->port_num = p->port_num;
}

static void mod_attrs_from_frame(struct emu_qp_mod_attrs *a,
				 const struct ib_uverbs_modify_qp *m)
{
	*a = (struct emu_qp_mod_attrs){
		.mask = m->attr_mask,
		.qp_state = m->qp_state, .cur_qp_state = m->cur_qp_state,
		.port_num = m->port_num, .path_mtu = m->path_mtu, .timeout = m->timeout,
		.retry_cnt = m->retry_cnt, .rnr_retry = m->rnr_retry,
		.min_rnr_timer = m->min_rnr_timer, .max_rd_atomic = m->max_rd_atomic,
		.max_dest_rd_atomic = m->max_dest_rd_atomic,
		.path_mig_state = m->path_mig_state,
		.en_sqd_async_notify = m->en_sqd_async_notify,
		.pkey_index = m->pkey_index, .qkey = m->qkey, .rq_psn = m->rq_psn,
		.sq_psn = m->sq_psn, .dest_qp_num = m->dest_qp_num,
		.qp_access_flags = m->qp_access_flags,
	};
	path_from_dest(&a->path, &m->dest);
}

static int modify_qp(struct emu_cmd *c, const struct ib_uverbs_modify_qp *m)
{
	struct emu_qp *qp = emu_qp_lookup(c->ctx, m->qp_handle);
	struct emu_qp_mod_attrs a;

	if (!qp)
		return EINVAL;
	mod_attrs_from_frame(&a, m);
	return emu_qp_modify(qp, &a);
}

int emu_cmd_modify_qp(struct emu_cmd *c)
{
	return modify_qp(c, c->in);
}

int emu_cmd_modify_qp_ex(struct emu_cmd *c)
{
	const struct ib_uverbs_ex_modify_qp *m = c->in;

	if (m->base.attr_mask & IBV_QP_RATE_LIMIT)
		return EOPNOTSUPP;
	return modify_qp(c, &m->base);
}

int emu_cmd_query_qp(struct emu_cmd *c)
{
	const struct ib_uverbs_query_qp *q = c->in;
	struct ib_uverbs_query_qp_resp r;
	struct emu_qp *qp = emu_qp_lookup(c->ctx, q->qp_handle);
	struct emu_qp_mod_attrs a;
	struct emu_qp_caps caps;
	int err;

	if (!qp)
		return EINVAL;
	err = emu_qp_query(qp, &a);
	if (err)
		return err;
	emu_qp_get_caps(qp, &caps);
	memset(&r, 0, sizeof(r));
	dest_from_path(&r.dest, &a.path);
	r.max_send_wr = caps.max_send_wr;
	r.max_recv_wr = caps.max_recv_wr;
	r.max_send_sge = caps.max_send_sge;
	r.max_recv_sge = caps.max_recv_sge;
	r.max_inline_data = caps.max_inline;
	r.qkey = a.qkey;
	r.rq_psn = a.rq_psn;
	r.sq_psn = a.sq_psn;
	r.dest_qp_num = a.dest_qp_num;
	r.qp_access_flags = a.qp_access_flags;
	r.pkey_index = a.pkey_index;
	r.qp_state = a.qp_state;
	r.cur_qp_state = a.cur_qp_state;
	r.path_mtu = a.path_mtu;
	r.path_mig_state = a.path_mig_state;
	r.max_rd_atomic = a.max_rd_atomic;
	r.max_dest_rd_atomic = a.max_dest_rd_atomic;
	r.min_rnr_timer = a.min_rnr_timer;
	r.port_num = a.port_num;
	r.timeout = a.timeout;
	r.retry_cnt = a.retry_cnt;
	r.rnr_retry = a.rnr_retry;
	r.sq_sig_all = caps.sig_all;
	return emu_put_resp(c, &r, sizeof(r));
}

int emu_cmd_destroy_qp(struct emu_cmd *c)
{
	const struct ib_uverbs_destroy_qp *q = c->in;
	struct ib_uverbs_destroy_qp_resp r = { 0 };
	struct emu_qp *qp = emu_qp_lookup(c->ctx, q->qp_handle);
	bool closed;
	int err;

	if (!qp || q->reserved)
		return EINVAL;
	err = emu_qp_prepare_destroy(c->ctx, qp, q->qp_handle, &closed,
				     &r.events_reported);
	if (err)
		return err;
	err = emu_put_resp(c, &r, sizeof(r));
	if (err || closed)
		return err;
	emu_qp_destroy(c->ctx, qp, q->qp_handle);
	return 0;
}
