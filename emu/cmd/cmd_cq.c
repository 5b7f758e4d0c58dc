// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * CQ commands.  libmlx4 allocates the CQE buffer and the doorbell records
 * (consumer index, then the arm record 4 bytes later) and passes their
 * addresses as driver data; it asks for cqe = N - 1 with N a power of two.
 * The CQ itself is the adapter's (adapter/cq.c).
 */
#include "cmd/cmd.h"
#include "adapter/cq.h"

static int cq_create(struct emu_cmd *c, struct emu_cq_attrs *a, struct emu_cq **cq)
{
	struct mlx4_ib_create_cq drv;

	emu_get_drv_in(c, &drv, sizeof(drv));
	if (c->drv_in_len < sizeof(drv))
		return EINVAL;
	a->buf_addr = drv.buf_addr;
	a->db_addr = drv.db_addr;
	return emu_cq_create(c->ctx, a, cq);
}

/* The core and driver responses; the CQ goes live once both are written. */
static int cq_answer(struct emu_cmd *c, struct emu_cq *cq, const void *r, size_t len)
{
	struct mlx4_ib_create_cq_resp drv = { 0 };
	int err;

	drv.cqn = cq->cqn;
	err = emu_put_resp(c, r, len);
	if (!err)
		err = emu_put_drv_resp(c, &drv, sizeof(drv));
	if (err)
		return err;
	emu_cq_activate(cq);
	return 0;
}

int emu_cmd_create_cq(struct emu_cmd *c)
{
	const struct ib_uverbs_create_cq *q = c->in;
	struct ib_uverbs_create_cq_resp r = { 0 };
	struct emu_cq_attrs a = {
		.user_handle = q->user_handle, .cqe = q->cqe,
		.channel_fd = q->comp_channel, .comp_vector = q->comp_vector,
	};
	struct emu_cq *cq;
	int err;

	err = cq_create(c, &a, &cq);
	if (err)
		return err;
	r.cq_handle = cq->cqn;
	r.cqe = q->cqe;
	return cq_answer(c, cq, &r, sizeof(r));
}

int emu_cmd_create_cq_ex(struct emu_cmd *c)
{
	const struct ib_uverbs_ex_create_cq *q = c->in;
	struct ib_uverbs_ex_create_cq_resp r = { 0 };
	struct emu_cq_attrs a = {
		.user_handle = q->user_handle, .cqe = q->cqe,
		.channel_fd = q->comp_channel, .comp_vector = q->comp_vector,
		.timestamp = (q->flags & IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION) != 0,
	};
	struct emu_cq *cq;
	int err;

	if (q->comp_mask || (q->flags & ~IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION))
		return EINVAL;
	err = cq_create(c, &a, &cq);
	if (err)
		return err;
	r.base.cq_handle = cq->cqn;
	r.base.cqe = q->cqe;
	r.response_length = sizeof(r);
	return cq_answer(c, cq, &r, sizeof(r));
}

int emu_cmd_destroy_cq(struct emu_cmd *c)
{
	const struct ib_uverbs_destroy_cq *q = c->in;
	struct ib_uverbs_destroy_cq_resp r = { 0 };
	struct emu_cq *cq = emu_cq_lookup(c->ctx, q->cq_handle);
	int err;

	if (!cq || q->reserved)
		return EINVAL;
	err = emu_cq_prepare_destroy(cq);
	if (err)
		return err;
	r.comp_events_reported = cq->comp_events;
	r.async_events_reported = cq->async_events;
	err = emu_put_resp(c, &r, sizeof(r));
	if (err)
		return err;
	emu_cq_destroy(cq);
	return 0;
}

int emu_cmd_resize_cq(struct emu_cmd *c)
{
	const struct ib_uverbs_resize_cq *q = c->in;
	struct ib_uverbs_resize_cq_resp r = { 0 };
	struct mlx4_ib_resize_cq drv;
	struct emu_cq *cq = emu_cq_lookup(c->ctx, q->cq_handle);
	int err;

	emu_get_drv_in(c, &drv, sizeof(drv));
	if (!cq || c->drv_in_len < sizeof(drv))
		return EINVAL;
	err = emu_cq_check_resize(cq, q->cqe, drv.buf_addr);
	if (err)
		return err;
	r.cqe = q->cqe;
	err = emu_put_resp(c, &r, sizeof(r));
	if (err)
		return err;
	emu_cq_resize(cq, q->cqe, drv.buf_addr);
	return 0;
}

int emu_cmd_modify_cq(struct emu_cmd *c)
{
	const struct ib_uverbs_ex_modify_cq *q = c->in;

	if (!emu_cq_lookup(c->ctx, q->cq_handle) || q->attr_mask & ~1u)
		return EINVAL;
	/* moderation is accepted; every CQE still raises its event at once */
	return 0;
}
