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

#include "adapter/clock.h"
#include "adapter/engine.h"
#include "adapter/events.h"
#include "adapter/objects.h"
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
	if (emu_dev.qp_tab)
		return 0;
	emu_dev.qp_tab_size = qp_tab_size();
	emu_dev.qp_tab = calloc(emu_dev.qp_tab_size, sizeof(*emu_dev.qp_tab));
	emu_dev.active = calloc(emu_dev.qp_tab_size, sizeof(*emu_dev.active));
	emu_dev.qpn_held = calloc(emu_dev.qp_tab_size, 1);
	emu_dev.active_cq = calloc(EMU_MAX_CQ, sizeof(*emu_dev.active_cq));
	emu_dev.nkeys = EMU_FIRST_KEY_INDEX + emu_cfg.max_mr;
	emu_dev.keys = calloc(emu_dev.nkeys, sizeof(*emu_dev.keys));
	if (!emu_dev.qp_tab || !emu_dev.active || !emu_dev.qpn_held || !emu_dev.active_cq ||
	    !emu_dev.keys)
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
	return 0;
}

static void fill_device_attr(struct ib_uverbs_query_device_resp *r)
{
	memset(r, 0, sizeof(*r));
	r->fw_ver = (2ULL << 32) | (42ULL << 16) | 5000;
	r->node_guid = htobe64(emu_node_guid());
	r->sys_image_guid = htobe64(emu_sys_image_guid());
	r->max_mr_size = ~0ULL;
	r->page_size_cap = 0xfffffe00;
	r->vendor_id = 0x02c9;
	r->vendor_part_id = emu_cfg.device_id;
	r->hw_ver = 1;
	r->max_qp = emu_cfg.max_qp;
	r->max_qp_wr = emu_cfg.max_qp_wr;
	r->device_cap_flags = IBV_DEVICE_BAD_PKEY_CNTR | IBV_DEVICE_BAD_QKEY_CNTR |
		IBV_DEVICE_CHANGE_PHY_PORT | IBV_DEVICE_PORT_ACTIVE_EVENT |
		IBV_DEVICE_SYS_IMAGE_GUID | IBV_DEVICE_RC_RNR_NAK_GEN |
		IBV_DEVICE_MEM_WINDOW | IBV_DEVICE_UD_IP_CSUM |
		IBV_DEVICE_MEM_WINDOW_TYPE_2B | IBV_DEVICE_RAW_IP_CSUM |
		IBV_DEVICE_MANAGED_FLOW_STEERING | IBV_DEVICE_XRC;
	r->max_sge = emu_cfg.max_sge;
	r->max_sge_rd = emu_cfg.max_sge;
	r->max_cq = EMU_MAX_CQ;
	r->max_cqe = emu_cfg.max_cqe;
	r->max_mr = emu_cfg.max_mr;
	r->max_pd = EMU_MAX_PD;
	r->max_qp_rd_atom = 16;
	r->max_res_rd_atom = 16 * emu_cfg.max_qp;
	r->max_qp_init_rd_atom = 128;
	r->atomic_cap = IBV_ATOMIC_HCA;
	r->max_mw = emu_cfg.max_mr;
	r->max_ah = 0x7fffffff;
	r->max_srq = EMU_MAX_SRQ;
	r->max_srq_wr = emu_cfg.max_srq_wr;
	r->max_srq_sge = emu_cfg.max_sge - 1;
	r->max_pkeys = EMU_PKEY_TBL_LEN;
	r->local_ca_ack_delay = 15;
	r->phys_port_cnt = (uint8_t)emu_cfg.ports;
	emu_mcast_caps(r);
}

int emu_cmd_query_device(struct emu_cmd *c)
{
	struct ib_uverbs_query_device_resp r;

	fill_device_attr(&r);
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
	fill_device_attr(&r.base);
	r.rss_caps.supported_qpts = 1u << IBV_QPT_RAW_PACKET;
	r.rss_caps.max_rwq_indirection_tables = EMU_MAX_IND_TBL;
	r.rss_caps.max_rwq_indirection_table_size = 1u << 12;
	r.max_wq_type_rq = emu_dev.qp_tab_size;
	emu_clock_caps(&r, &drv);
	r.response_length = (uint32_t)len;
	err = emu_put_resp(c, &r, len);
	if (err)
		return err;
	drv.response_length = sizeof(drv);
	drv.rss_caps.rx_hash_fields_mask = 0xff;
	drv.rss_caps.rx_hash_function = MLX4_IB_RX_HASH_FUNC_TOEPLITZ;
	drv.tso_caps.max_tso = 65536;
	drv.tso_caps.supported_qpts = 1u << IBV_QPT_RAW_PACKET;
	return emu_put_drv_resp(c, &drv, sizeof(drv));
}

/*
 * The RoCE path MTU of an Ethernet MTU, as mlx4_ib's iboe_get_mtu: the
 * largest IB MTU that fits once the GRH, BTH, the largest extension
 * headers (XRC, AtomicETH) and the ICRC are taken off (256 at least).
 */
static uint8_t roce_mtu(uint32_t eth_mtu)
{
	uint32_t headers = 40 + 12 + 4 + 28 + 4;
	uint32_t room = eth_mtu > headers ? eth_mtu - headers : 0;

	return room >= 4096 ? IBV_MTU_4096 : room >= 2048 ? IBV_MTU_2048 :
	       room >= 1024 ? IBV_MTU_1024 : room >= 512 ? IBV_MTU_512 : IBV_MTU_256;
}

int emu_cmd_query_port(struct emu_cmd *c)
{
	const struct ib_uverbs_query_port *q = c->in;
	struct ib_uverbs_query_port_resp r = { 0 };
	unsigned p = q->port_num;
	bool eth;

	if (p < 1 || p > emu_cfg.ports)
		return EINVAL;
	eth = emu_cfg.link_layer[p - 1] == EMU_LL_ETH;
	/* no IP-based GIDs: libmlx4 then derives MACs from link-local GIDs */
	r.port_cap_flags = eth ? 0x00010000u : 0x02510868u;
	r.max_msg_sz = 0x40000000;
	r.gid_tbl_len = EMU_GID_TBL_LEN;
	r.pkey_tbl_len = EMU_PKEY_TBL_LEN;
	r.lid = emu_port_lid(p);
	r.sm_lid = eth ? 0 : 1;
	r.state = emu_port_link_up(p) ? IBV_PORT_ACTIVE : IBV_PORT_DOWN;
	r.max_mtu = IBV_MTU_4096;
	r.active_mtu = eth ? roce_mtu(emu_port_mtu(p)) : IBV_MTU_4096;
	r.max_vl_num = eth ? 1 : 4;
	r.subnet_timeout = eth ? 0 : 18;
	r.active_width = 2;	/* 4X */
	r.active_speed = eth ? 4 : 16;	/* QDR / FDR */
	/* LinkUp, or Polling while up without a link, or Disabled */
	r.phys_state = emu_port_link_up(p) ? 5 : emu_port_admin_up(p) ? 2 : 3;
	r.link_layer = eth ? IBV_LINK_LAYER_ETHERNET : IBV_LINK_LAYER_INFINIBAND;
	return emu_put_resp(c, &r, sizeof(r));
}

struct emu_pd *emu_pd_get(struct emu_ctx *ctx, uint32_t h)
{
	if (h >= EMU_MAX_PD || !emu_dev.pd[h].used || emu_dev.pd[h].ctx != ctx)
		return NULL;
	return &emu_dev.pd[h];
}

int emu_cmd_alloc_pd(struct emu_cmd *c)
{
	struct ib_uverbs_alloc_pd_resp r = { 0 };
	struct mlx4_ib_alloc_pd_resp drv = { 0 };
	int err;

	/* PD 0 is never handed out so that a zeroed field is never valid */
	for (uint32_t i = 1; i < EMU_MAX_PD; i++) {
		if (emu_dev.pd[i].used)
			continue;
		r.pd_handle = i;
		drv.pdn = i;
		err = emu_put_resp(c, &r, sizeof(r));
		if (!err)
			err = emu_put_drv_resp(c, &drv, sizeof(drv));
		if (err)
			return err;
		emu_dev.pd[i].used = true;
		emu_dev.pd[i].ctx = c->ctx;
		return 0;
	}
	return ENOMEM;
}

int emu_cmd_dealloc_pd(struct emu_cmd *c)
{
	const struct ib_uverbs_dealloc_pd *q = c->in;
	struct emu_pd *pd = emu_pd_get(c->ctx, q->pd_handle);

	if (!pd)
		return EINVAL;
	if (emu_pd_in_use(q->pd_handle))
		return EBUSY;
	pd->used = false;
	return 0;
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
		for (unsigned i = 0; i < EMU_MAX_CQ; i++)
			if (emu_dev.cq[i].used && emu_dev.cq[i].channel == channel)
				emu_dev.cq[i].channel = -1;
	}
	pthread_mutex_unlock(&emu_dev.lock);
}

void emu_ctx_release(struct emu_ctx *ctx)
{
	pthread_mutex_lock(&emu_dev.lock);
	emu_objects_release_ctx(ctx);
	/* the async fd stays the program's, but no longer the device's */
	if (ctx->async_q.rd >= 0)
		emu_fd_set_async(ctx->async_q.rd, -1);
	emu_evq_close(&ctx->async_q);
	ctx->uar = NULL;
	ctx->bf_page = NULL;
	if (ctx->pages)
		munmap(ctx->pages, ctx->pages_len);
	ctx->pages = NULL;
	/* the memfd is the device fd itself: close() of it is in progress */
	if (ctx->page_fd >= 0 && ctx->page_fd != ctx->cmd_fd)
		emu_real_close(ctx->page_fd);
	ctx->page_fd = -1;
	ctx->used = false;
	pthread_mutex_unlock(&emu_dev.lock);
}
