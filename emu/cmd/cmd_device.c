// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Context, device, port, PD and completion-channel commands, plus the
 * async event queue.  Values follow what mlx4_ib reports for a ConnectX-3
 * and what libmlx4 expects (verbs.c, mlx4.c of rdma-core).
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adapter/attributes.h"
#include "adapter/clock.h"
#include "adapter/cq.h"
#include "adapter/engine.h"
#include "adapter/events.h"
#include "adapter/mr.h"
#include "adapter/objects.h"
#include "adapter/pd.h"
#include "adapter/port.h"
#include "base/fdtab.h"
#include "base/libc.h"
#include "cmd/cmd.h"
#include "wire/identity.h"

static uint32_t qp_tab_size(void)
{
	uint32_t n = 256;

	while (n < EMU_FIRST_QPN + emu_cfg.max_qp)
		n <<= 1;
	return n;
}

static int dev_tables_init(void)
{
	int keys_err;

	if (emu_dev.qp_tab)
		return 0;
	emu_dev.qp_tab_size = qp_tab_size();
	emu_dev.qp_tab = calloc(emu_dev.qp_tab_size, sizeof(*emu_dev.qp_tab));
	emu_dev.active = calloc(emu_dev.qp_tab_size, sizeof(*emu_dev.active));
	emu_dev.qpn_held = calloc(emu_dev.qp_tab_size, 1);
	emu_dev.active_cq = calloc(EMU_MAX_CQ, sizeof(*emu_dev.active_cq));
	keys_err = emu_keys_init();
	if (!emu_dev.qp_tab || !emu_dev.active || !emu_dev.qpn_held || !emu_dev.active_cq ||
	    keys_err)
		return ENOMEM;
	emu_dev.fault_cqe.qpn = emu_cfg.fault_cqe_qpn;
	emu_dev.fault_cqe.count = emu_cfg.fault_cqe_n;
	emu_dev.fault_cqe.syndrome = emu_cfg.fault_cqe_syndrome;
	emu_dev.fault_err.qpn = emu_cfg.fault_err_qpn;
	emu_dev.fault_err.count = emu_cfg.fault_err_n;
	emu_dev.fault_overrun = emu_cfg.fault_overrun_n;
	emu_dev.fault_overrun_cqn = emu_cfg.fault_overrun_cqn;
	return 0;
}

int emu_cmd_get_context(struct emu_cmd *c)
{
	struct ib_uverbs_get_context_resp resp = { 0 };
	struct mlx4_ib_alloc_ucontext_resp drv = { 0 };
	int fd;
	int err;

	if (c->ctx->async_q.rd >= 0)
		return EINVAL;
	/* one UAR page per context: mlx4_uar_alloc's ENOMEM when all are taken */
	if (emu_dev.uars_used >= EMU_HCA_MAX_CONTEXTS)
		return ENOMEM;
	err = dev_tables_init();
	if (!err)
		err = emu_clock_init();
	if (err)
		return err;
	fd = emu_evq_open(&c->ctx->async_q, sizeof(struct ib_uverbs_async_event_desc));
	if (fd < 0)
		return errno;
	resp.async_fd = (uint32_t)fd;
	resp.num_comp_vectors = 1;
	drv.dev_caps = MLX4_USER_DEV_CAP_LARGE_CQE;
	drv.qp_tab_size = emu_dev.qp_tab_size;
	drv.bf_reg_size = (uint16_t)emu_cfg.bf_reg_size;
	drv.bf_regs_per_page = emu_cfg.bf_reg_size ? EMU_BF_REGS_PER_PAGE : 0;
	drv.cqe_size = emu_cfg.cqe_size;
	err = emu_put_resp(c, &resp, sizeof(resp));
	if (!err)
		err = emu_put_drv_resp(c, &drv, sizeof(drv));
	if (!err)
		err = emu_engine_start();
	if (err) {
		emu_evq_close(&c->ctx->async_q);
		emu_real_close(fd);
		c->ctx->async_q.rd = -1;
		return err;
	}
	emu_fd_set_async(fd, (int)(c->ctx - emu_dev.ctx));
	emu_dev.uars_used++;
	return 0;
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
	const size_t n = sizeof(emu_dev.channels) / sizeof(emu_dev.channels[0]);
	int fd;
	int err;

	for (size_t i = 0; i < n; i++) {
		struct emu_channel *ch = &emu_dev.channels[i];

		if (ch->used)
			continue;
		fd = emu_evq_open(&ch->q, sizeof(struct ib_uverbs_comp_event_desc));
		if (fd < 0)
			return errno;
		r.fd = (uint32_t)fd;
		err = emu_put_resp(c, &r, sizeof(r));
		if (err) {
			emu_evq_close(&ch->q);
			emu_real_close(fd);
			return err;
		}
		ch->used = true;
		emu_fd_set_channel(fd, (int)i);
		return 0;
	}
	return EMFILE;
}

/* Called when libibverbs closes the read end of a channel. */
void emu_channel_release(int channel)
{
	struct emu_channel *ch = &emu_dev.channels[channel];

	pthread_mutex_lock(&emu_dev.lock);
	if (ch->used) {
		emu_evq_close(&ch->q);
		ch->used = false;
		emu_cq_channel_closed(channel);
	}
	pthread_mutex_unlock(&emu_dev.lock);
}

void emu_ctx_release(struct emu_ctx *ctx)
{
	pthread_mutex_lock(&emu_dev.lock);
	emu_objects_release_ctx(ctx);
	/* the async fd stays the program's, but no longer the device's */
	if (ctx->async_q.rd >= 0) {
		emu_fd_set_async(ctx->async_q.rd, -1);
		emu_dev.uars_used--;
	}
	emu_evq_close(&ctx->async_q);
	ctx->uar = NULL;
	ctx->bf_page = NULL;
	if (ctx->pages)
		emu_real_munmap(ctx->pages, ctx->pages_len);
	ctx->pages = NULL;
	/* the memfd is the device fd itself: close() of it is in progress */
	if (ctx->page_fd >= 0 && ctx->page_fd != ctx->cmd_fd)
		emu_real_close(ctx->page_fd);
	ctx->page_fd = -1;
	ctx->used = false;
	pthread_mutex_unlock(&emu_dev.lock);
}
