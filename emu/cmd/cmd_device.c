// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Context, device, port, PD and completion-channel commands: the frames
 * decoded and validated, the objects' life the adapter's (adapter/
 * context.h, channel.h, pd.h).  Values follow what mlx4_ib reports for a
 * ConnectX-3 and what libmlx4 expects (verbs.c, mlx4.c of rdma-core).
 */
#include <string.h>

#include "adapter/attributes.h"
#include "adapter/channel.h"
#include "adapter/context.h"
#include "adapter/pd.h"
#include "cmd/cmd.h"

int emu_cmd_get_context(struct emu_cmd *c)
{
	struct ib_uverbs_get_context_resp resp = { 0 };
	struct mlx4_ib_alloc_ucontext_resp drv = { 0 };
	int fd;
	int err;

	err = emu_ctx_create(c->ctx, &fd);
	if (err)
		return err;
	resp.async_fd = (uint32_t)fd;
	resp.num_comp_vectors = 1;
	drv.dev_caps = MLX4_USER_DEV_CAP_LARGE_CQE;
	drv.qp_tab_size = emu_ctx_qp_tab_size();
	drv.bf_reg_size = (uint16_t)emu_cfg.bf_reg_size;
	drv.bf_regs_per_page = emu_cfg.bf_reg_size ? EMU_BF_REGS_PER_PAGE : 0;
	drv.cqe_size = emu_cfg.cqe_size;
	err = emu_put_resp(c, &resp, sizeof(resp));
	if (!err)
		err = emu_put_drv_resp(c, &drv, sizeof(drv));
	if (err) {
		emu_ctx_create_undo(c->ctx, fd);
		return err;
	}
	return emu_ctx_activate(c->ctx, fd);
}

int emu_cmd_query_device(struct emu_cmd *c)
{
	struct ib_uverbs_query_device_resp r;

	emu_attr_query_device(&r);
	return emu_put_resp(c, &r, sizeof(r));
}

int emu_cmd_query_device_ex(struct emu_cmd *c)
{
	const struct ib_uverbs_ex_query_device *q = c->in;
	struct ib_uverbs_ex_query_device_resp r;
	struct mlx4_uverbs_ex_query_device_resp drv = { 0 };
	size_t len = c->resp_len < sizeof(r) ? c->resp_len : sizeof(r);
	int err;

	if (q->comp_mask || q->reserved)
		return EINVAL;
	memset(&r, 0, sizeof(r));
	emu_attr_query_device_ex(&r, &drv);
	emu_clock_caps(&r, &drv);
	r.response_length = (uint32_t)len;
	err = emu_put_resp(c, &r, len);
	if (err)
		return err;
	drv.response_length = sizeof(drv);
	return emu_put_drv_resp(c, &drv, sizeof(drv));
}

int emu_cmd_query_port(struct emu_cmd *c)
{
	const struct ib_uverbs_query_port *q = c->in;
	struct ib_uverbs_query_port_resp r;

	if (q->port_num < 1 || q->port_num > emu_cfg.ports)
		return EINVAL;
	emu_attr_query_port(q->port_num, &r);
	return emu_put_resp(c, &r, sizeof(r));
}

int emu_cmd_alloc_pd(struct emu_cmd *c)
{
	struct ib_uverbs_alloc_pd_resp r = { 0 };
	struct mlx4_ib_alloc_pd_resp drv = { 0 };
	uint32_t pdn;
	int err;

	err = emu_pd_create(&pdn);
	if (err)
		return err;
	r.pd_handle = pdn;
	drv.pdn = pdn;
	err = emu_put_resp(c, &r, sizeof(r));
	if (!err)
		err = emu_put_drv_resp(c, &drv, sizeof(drv));
	if (err)
		return err;
	emu_pd_activate(c->ctx, pdn);
	return 0;
}

int emu_cmd_dealloc_pd(struct emu_cmd *c)
{
	const struct ib_uverbs_dealloc_pd *q = c->in;
	struct emu_pd *pd = emu_pd_lookup(c->ctx, q->pd_handle);

	if (!pd)
		return EINVAL;
	return emu_pd_destroy(pd);
}

int emu_cmd_create_comp_channel(struct emu_cmd *c)
{
	struct ib_uverbs_create_comp_channel_resp r = { 0 };
	int fd, channel;
	int err;

	err = emu_channel_create(&fd, &channel);
	if (err)
		return err;
	r.fd = (uint32_t)fd;
	err = emu_put_resp(c, &r, sizeof(r));
	if (err) {
		emu_channel_create_undo(channel, fd);
		return err;
	}
	emu_channel_activate(channel, fd);
	return 0;
}
