// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The adapter's attributes as QUERY_DEVICE, QUERY_DEVICE_EX and QUERY_PORT
 * report them.  Every number is in the table below; emu/docs/attributes.md
 * names its source (mlx4_ib_query_device and mlx4_ib_query_port of the
 * kernel, mlx4_core's QUERY_DEV_CAP handling and default profile, a real
 * card's `ibv_devinfo -v`).
 */
#include <string.h>

#include "adapter/abi.h"
#include "adapter/adapter.h"
#include "adapter/mcast.h"
#include "adapter/port.h"
#include "wire/identity.h"

/* What the device implements of what a ConnectX-3 reports; the memory
 * management extensions (fast registration) are not emulated, so their
 * bit stays clear. */
#define EMU_DEVICE_CAP_FLAGS                                              \
	(IBV_DEVICE_BAD_PKEY_CNTR | IBV_DEVICE_BAD_QKEY_CNTR |            \
	 IBV_DEVICE_CHANGE_PHY_PORT | IBV_DEVICE_UD_AV_PORT_ENFORCE |      \
	 IBV_DEVICE_PORT_ACTIVE_EVENT | IBV_DEVICE_SYS_IMAGE_GUID |        \
	 IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_MEM_WINDOW |               \
	 IBV_DEVICE_UD_IP_CSUM | IBV_DEVICE_XRC |                          \
	 IBV_DEVICE_MEM_WINDOW_TYPE_2B | IBV_DEVICE_RAW_IP_CSUM |          \
	 IBV_DEVICE_MANAGED_FLOW_STEERING)

const struct emu_hca_attr emu_hca = {
	.fw_ver = (2ULL << 32) | (42ULL << 16) | 5000,
	.hw_ver = 0,
	.vendor_id = 0x02c9,
	.max_mr_size = ~0ULL,
	.page_size_cap = 0xfffffe00,
	.device_cap_flags = EMU_DEVICE_CAP_FLAGS,
	.max_qp = EMU_HCA_MAX_QP,
	.max_qp_wr = 16384 - 33,	/* max_wqes - MLX4_IB_SQ_MAX_SPARE */
	.max_sge = 32,
	.max_sge_rd = 30,		/* MLX4_MAX_SGE_RD */
	.max_cq = EMU_HCA_MAX_CQ,
	.max_cqe = (1u << 22) - 1,	/* max_cq_sz - 1 */
	.max_mr = 524032,
	.max_pd = EMU_HCA_MAX_PD,
	.max_qp_rd_atom = 16,
	.max_qp_init_rd_atom = 128,
	.max_srq = EMU_HCA_MAX_SRQ,
	.max_srq_wr = 16384 - 1,	/* max_srq_wqes - 1 */
	.max_mcast_grp = EMU_MAX_MCAST_GRP,
	.max_mcast_qp_attach = EMU_MCAST_QP_PER_GRP,
	.max_ah = 0x7fffffff,		/* INT_MAX */
	.max_pkeys = 128,
	.local_ca_ack_delay = 15,
	.max_tso = 65536,
	.max_rss_tbl_sz = 1u << EMU_LOG_MAX_RSS_TBL,
	.max_msg_sz = 0x40000000,
	.ib = {
		.port_cap_flags = IBV_PORT_TRAP_SUP | IBV_PORT_AUTO_MIGR_SUP |
			IBV_PORT_SL_MAP_SUP | IBV_PORT_SYS_IMAGE_GUID_SUP |
			IBV_PORT_EXTENDED_SPEEDS_SUP | IBV_PORT_CM_SUP |
			IBV_PORT_VENDOR_CLASS_SUP | IBV_PORT_CAP_MASK_NOTICE_SUP |
			IBV_PORT_CLIENT_REG_SUP,
		.gid_tbl_len = 128,
		.pkey_tbl_len = 128,
		.max_vl_num = 4,
		.subnet_timeout = 18,
	},
	.eth = {
		/* IB_PORT_CM_SUP; the kernel adds IP_BASED_GIDS, left out here
		 * (see attributes.md) */
		.port_cap_flags = IBV_PORT_CM_SUP,
		.gid_tbl_len = 128,
		.pkey_tbl_len = 1,
		.max_vl_num = 2,
		.subnet_timeout = 0,
	},
};

void emu_attributes_apply_defaults(void)
{
	if (!emu_cfg.max_qp)
		emu_cfg.max_qp = emu_hca.max_qp;
	if (!emu_cfg.max_qp_wr)
		emu_cfg.max_qp_wr = emu_hca.max_qp_wr;
	if (!emu_cfg.max_sge)
		emu_cfg.max_sge = emu_hca.max_sge;
	if (!emu_cfg.max_cqe)
		emu_cfg.max_cqe = emu_hca.max_cqe;
	if (!emu_cfg.max_mr)
		emu_cfg.max_mr = emu_hca.max_mr;
	if (!emu_cfg.max_srq_wr)
		emu_cfg.max_srq_wr = emu_hca.max_srq_wr;
}

const struct emu_port_attr *emu_port_attr(unsigned port)
{
	return emu_cfg.link_layer[port - 1] == EMU_LL_ETH ? &emu_hca.eth : &emu_hca.ib;
}

static bool any_eth_port(void)
{
	for (unsigned p = 1; p <= emu_cfg.ports; p++)
		if (emu_cfg.link_layer[p - 1] == EMU_LL_ETH)
			return true;
	return false;
}

void emu_attr_query_device(struct ib_uverbs_query_device_resp *r)
{
	memset(r, 0, sizeof(*r));
	r->fw_ver = emu_hca.fw_ver;
	r->node_guid = htobe64(emu_node_guid());
	r->sys_image_guid = htobe64(emu_sys_image_guid());
	r->max_mr_size = emu_hca.max_mr_size;
	r->page_size_cap = emu_hca.page_size_cap;
	r->vendor_id = emu_hca.vendor_id;
	r->vendor_part_id = emu_cfg.device_id;
	r->hw_ver = emu_hca.hw_ver;
	r->max_qp = emu_cfg.max_qp;
	r->max_qp_wr = emu_cfg.max_qp_wr;
	r->device_cap_flags = (uint32_t)emu_hca.device_cap_flags;
	r->max_sge = emu_cfg.max_sge;
	r->max_sge_rd = emu_cfg.max_sge < emu_hca.max_sge_rd ? emu_cfg.max_sge :
			emu_hca.max_sge_rd;
	r->max_cq = emu_hca.max_cq;
	r->max_cqe = emu_cfg.max_cqe;
	r->max_mr = emu_cfg.max_mr;
	r->max_pd = emu_hca.max_pd;
	r->max_qp_rd_atom = emu_hca.max_qp_rd_atom;
	r->max_res_rd_atom = emu_hca.max_qp_rd_atom * emu_cfg.max_qp;
	r->max_qp_init_rd_atom = emu_hca.max_qp_init_rd_atom;
	r->atomic_cap = IBV_ATOMIC_HCA;
	r->max_ah = emu_hca.max_ah;
	r->max_srq = emu_hca.max_srq;
	r->max_srq_wr = emu_cfg.max_srq_wr;
	r->max_srq_sge = emu_cfg.max_sge - 1;	/* max_rq_sg - 1 */
	r->max_pkeys = emu_hca.max_pkeys;
	r->local_ca_ack_delay = emu_hca.local_ca_ack_delay;
	r->phys_port_cnt = (uint8_t)emu_cfg.ports;
	r->max_mcast_grp = emu_hca.max_mcast_grp;
	r->max_mcast_qp_attach = emu_hca.max_mcast_qp_attach;
	r->max_total_mcast_qp_attach = emu_hca.max_mcast_grp * emu_hca.max_mcast_qp_attach;
}

void emu_attr_query_device_ex(struct ib_uverbs_ex_query_device_resp *r,
			      struct mlx4_uverbs_ex_query_device_resp *drv)
{
	emu_attr_query_device(&r->base);
	if (!any_eth_port())
		return;
	r->rss_caps.supported_qpts = 1u << IBV_QPT_RAW_PACKET;
	r->rss_caps.max_rwq_indirection_tables = emu_cfg.max_qp;
	r->rss_caps.max_rwq_indirection_table_size = emu_hca.max_rss_tbl_sz;
	r->max_wq_type_rq = emu_cfg.max_qp;
	drv->rss_caps.rx_hash_function = MLX4_IB_RX_HASH_FUNC_TOEPLITZ;
	drv->rss_caps.rx_hash_fields_mask =
		MLX4_IB_RX_HASH_SRC_IPV4 | MLX4_IB_RX_HASH_DST_IPV4 |
		MLX4_IB_RX_HASH_SRC_IPV6 | MLX4_IB_RX_HASH_DST_IPV6 |
		MLX4_IB_RX_HASH_SRC_PORT_TCP | MLX4_IB_RX_HASH_DST_PORT_TCP |
		MLX4_IB_RX_HASH_SRC_PORT_UDP | MLX4_IB_RX_HASH_DST_PORT_UDP;
	drv->tso_caps.max_tso = emu_hca.max_tso;
	drv->tso_caps.supported_qpts = 1u << IBV_QPT_RAW_PACKET;
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

/* eth_link_query_port: 4X for a 40 or 56 GbE link, else 1X; FDR at 56,
 * else QDR (the kernel's IB_SPEED_* values). */
static void eth_width_speed(struct ib_uverbs_query_port_resp *r)
{
	bool fdr = emu_cfg.link_speed == 56000;

	r->active_width = (fdr || emu_cfg.link_speed == 40000) ? 2 : 1;
	r->active_speed = fdr ? 16 : 4;
}

void emu_attr_query_port(unsigned p, struct ib_uverbs_query_port_resp *r)
{
	bool eth = emu_cfg.link_layer[p - 1] == EMU_LL_ETH;
	const struct emu_port_attr *a = emu_port_attr(p);
	bool up = emu_port_link_up(p);

	memset(r, 0, sizeof(*r));
	r->port_cap_flags = a->port_cap_flags;
	r->max_msg_sz = emu_hca.max_msg_sz;
	r->gid_tbl_len = a->gid_tbl_len;
	r->pkey_tbl_len = (uint16_t)a->pkey_tbl_len;
	r->max_vl_num = a->max_vl_num;
	r->subnet_timeout = a->subnet_timeout;
	r->max_mtu = IBV_MTU_4096;
	r->link_layer = eth ? IBV_LINK_LAYER_ETHERNET : IBV_LINK_LAYER_INFINIBAND;
	r->state = up ? IBV_PORT_ACTIVE : IBV_PORT_DOWN;
	if (eth) {
		/* state_to_phys_state: LinkUp or Disabled */
		r->phys_state = up ? 5 : 3;
		r->active_mtu = roce_mtu(emu_port_mtu(p));
		eth_width_speed(r);
		return;
	}
	r->lid = emu_port_lid(p);
	r->sm_lid = 1;
	r->phys_state = 5;
	r->active_mtu = IBV_MTU_4096;
	r->active_width = 2;	/* 4X */
	r->active_speed = 16;	/* FDR, from the extended speeds */
}
