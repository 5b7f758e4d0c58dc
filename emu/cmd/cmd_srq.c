// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * SRQ, receive WQ and RSS indirection table commands.  The SRQ, the WQ
 * and the table are the adapter's (adapter/srq.c, wq.c, ind_tbl.c).
 */

#include "cmd/cmd.h"
#include "adapter/pd.h"
#include "adapter/ind_tbl.h"
#include "adapter/objects.h"
#include "adapter/srq.h"
#include "adapter/wq.h"

int emu_cmd_srq_create(struct emu_cmd *c, struct emu_srq_attrs *a)
{
	struct ib_uverbs_create_srq_resp r = { 0 };
	struct mlx4_ib_create_srq drv;
	struct mlx4_ib_create_srq_resp drv_r = { 0 };
	uint32_t srqn, max_wr;
	int err;

	emu_get_drv_in(c, &drv, sizeof(drv));
	if (!emu_pd_lookup(c->ctx, a->pdn) || c->drv_in_len < sizeof(drv))
		return EINVAL;
	a->buf_addr = drv.buf_addr;
	a->db_addr = drv.db_addr;
	err = emu_srq_create(a, &srqn, &max_wr);
	if (err)
		return err;
	r.srq_handle = srqn;
	r.max_wr = max_wr;
	r.max_sge = a->max_sge;
	r.srqn = srqn;
	drv_r.srqn = srqn;
	err = emu_put_resp(c, &r, sizeof(r));
	if (!err)
		err = emu_put_drv_resp(c, &drv_r, sizeof(drv_r));
	if (err)
		return err;
	emu_srq_activate(c->ctx, srqn, a);
	return 0;
}

int emu_cmd_create_srq(struct emu_cmd *c)
{
	const struct ib_uverbs_create_srq *q = c->in;
	struct emu_srq_attrs a = {
		.user_handle = q->user_handle, .pdn = q->pd_handle,
		.max_wr = q->max_wr, .max_sge = q->max_sge,
	};

	return emu_cmd_srq_create(c, &a);
}

int emu_cmd_modify_srq(struct emu_cmd *c)
{
	const struct ib_uverbs_modify_srq *q = c->in;
	struct emu_srq *srq = emu_srq_lookup(c->ctx, q->srq_handle);

	if (!srq || (q->attr_mask & ~(uint32_t)(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT)))
		return EINVAL;
	/* ConnectX-3 cannot resize an SRQ */
	if (q->attr_mask & IBV_SRQ_MAX_WR)
		return EINVAL;
	if (q->attr_mask & IBV_SRQ_LIMIT)
		return emu_srq_set_limit(srq, q->srq_limit);
	return 0;
}

int emu_cmd_query_srq(struct emu_cmd *c)
{
	const struct ib_uverbs_query_srq *q = c->in;
	struct ib_uverbs_query_srq_resp r = { 0 };
	struct emu_srq *srq = emu_srq_lookup(c->ctx, q->srq_handle);

	if (!srq)
		return EINVAL;
	r.max_wr = srq->cnt - 1;
	r.max_sge = srq->max_gs;
	r.srq_limit = srq->limit;
	return emu_put_resp(c, &r, sizeof(r));
}

int emu_cmd_destroy_srq(struct emu_cmd *c)
{
	const struct ib_uverbs_destroy_srq *q = c->in;
	struct ib_uverbs_destroy_srq_resp r = { 0 };
	struct emu_srq *srq = emu_srq_lookup(c->ctx, q->srq_handle);
	int err;

	if (!srq)
		return EINVAL;
	err = emu_srq_prepare_destroy(srq);
	if (err)
		return err;
	r.events_reported = srq->async_events;
	err = emu_put_resp(c, &r, sizeof(r));
	if (err)
		return err;
	emu_srq_destroy(srq);
	return 0;
}

/* ---- receive work queues (ibv_wq) ---- */

int emu_cmd_create_wq(struct emu_cmd *c)
{
	const struct ib_uverbs_ex_create_wq *q = c->in;
	struct ib_uverbs_ex_create_wq_resp r = { 0 };
	struct mlx4_ib_create_wq drv;
	struct emu_wq_attrs a;
	struct emu_qp *wq;
	uint32_t max_wr;
	int err;

	emu_get_drv_in(c, &drv, sizeof(drv));
	if (q->comp_mask || q->wq_type != IBV_WQT_RQ || q->create_flags ||
	    c->drv_in_len < offsetof(struct mlx4_ib_create_wq, log_range_size))
		return EINVAL;
	a = (struct emu_wq_attrs){
		.user_handle = q->user_handle, .pdn = q->pd_handle, .cqn = q->cq_handle,
		.max_wr = q->max_wr, .max_sge = q->max_sge,
		.buf_addr = drv.buf_addr, .db_addr = drv.db_addr,
		.log_range_size = drv.log_range_size,
		.driver_extensions = drv.comp_mask || drv.reserved[0] || drv.reserved[1] ||
				     drv.reserved[2],
	};
	err = emu_wq_create(c->ctx, &a, &wq, &max_wr);
	if (err)
		return err;
	r.response_length = sizeof(r);
	r.wq_handle = wq->qpn;
	r.wqn = wq->qpn;
	r.max_wr = max_wr;
	r.max_sge = q->max_sge;
	err = emu_put_resp(c, &r, sizeof(r));
	if (err) {
		emu_wq_discard(wq);
		return err;
	}
	emu_wq_activate(wq, c->ctx, &a);
	return 0;
}

int emu_cmd_modify_wq(struct emu_cmd *c)
{
	const struct ib_uverbs_ex_modify_wq *q = c->in;
	struct emu_qp *wq = emu_wq_lookup(c->ctx, q->wq_handle);

	if (!wq || (q->attr_mask & ~(uint32_t)(IBV_WQ_ATTR_STATE |
					       IBV_WQ_ATTR_CURR_STATE)))
		return EINVAL;
	if ((q->attr_mask & IBV_WQ_ATTR_CURR_STATE) && q->curr_wq_state != emu_wq_state(wq))
		return EINVAL;
	if (!(q->attr_mask & IBV_WQ_ATTR_STATE))
		return 0;
	return emu_wq_modify(wq, q->wq_state);
}

int emu_cmd_destroy_wq(struct emu_cmd *c)
{
	const struct ib_uverbs_ex_destroy_wq *q = c->in;
	struct ib_uverbs_ex_destroy_wq_resp r = { 0 };
	struct emu_qp *wq = emu_wq_lookup(c->ctx, q->wq_handle);
	int err;

	if (!wq || q->comp_mask)
		return EINVAL;
	err = emu_wq_prepare_destroy(wq);
	if (err)
		return err;
	r.response_length = sizeof(r);
	r.events_reported = wq->async_events;
	err = emu_put_resp(c, &r, sizeof(r));
	if (err)
		return err;
	emu_wq_destroy(wq);
	return 0;
}

int emu_cmd_create_ind_tbl(struct emu_cmd *c)
{
	const struct ib_uverbs_ex_create_rwq_ind_table *q = c->in;
	struct ib_uverbs_ex_create_rwq_ind_table_resp r = { 0 };
	const uint32_t *handles = (const uint32_t *)((const uint8_t *)c->in_raw +
						      sizeof(*q));
	struct emu_ind_tbl *t;
	uint32_t n, handle;
	int err;

	if (q->comp_mask || q->log_ind_tbl_size > EMU_LOG_MAX_RSS_TBL)
		return EINVAL;
	n = 1u << q->log_ind_tbl_size;
	if (c->in_raw_len < sizeof(*q) + n * sizeof(uint32_t))
		return EINVAL;
	for (uint32_t i = 0; i < n; i++)
		if (!emu_wq_lookup(c->ctx, handles[i]))
			return EINVAL;
	/* mlx4_ib_create_rwq_ind_table: the RSS context takes a base WQN
	 * aligned to the table size and the numbers following it */
	for (uint32_t i = 0; i < n; i++)
		if (handles[i] != handles[0] + i || handles[0] % n)
			return EINVAL;
	err = emu_ind_tbl_create(c->ctx, q->log_ind_tbl_size, handles, &t, &handle);
	if (err)
		return err;
	r.response_length = sizeof(r);
	r.ind_tbl_handle = handle;
	r.ind_tbl_num = handle;
	err = emu_put_resp(c, &r, sizeof(r));
	if (err) {
		emu_ind_tbl_discard(t);
		return err;
	}
	emu_ind_tbl_activate(t, handle);
	return 0;
}

int emu_cmd_destroy_ind_tbl(struct emu_cmd *c)
{
	const struct ib_uverbs_ex_destroy_rwq_ind_table *q = c->in;

	if (q->comp_mask || !emu_ind_tbl_lookup(c->ctx, q->ind_tbl_handle))
		return EINVAL;
	return emu_ind_tbl_destroy(q->ind_tbl_handle);
}
