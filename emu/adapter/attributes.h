/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The attributes and resource limits of the adapter: one table, the values
 * a ConnectX-3 (MT27500, firmware 2.42.5000) reports under mlx4_ib of
 * Linux 6.1 with mlx4_core's default profile.  emu/docs/attributes.md
 * gives the source of every value, and the emu.attributes.* tests compare
 * `ibv_devinfo -v` on the device with that document line by line.
 */
#ifndef MLX4EMU_ATTRIBUTES_H
#define MLX4EMU_ATTRIBUTES_H

#include <stdint.h>

struct ib_uverbs_query_device_resp;
struct ib_uverbs_ex_query_device_resp;
struct mlx4_uverbs_ex_query_device_resp;
struct ib_uverbs_query_port_resp;

/* Per link layer: what mlx4_ib's ib_link_query_port (firmware PortInfo)
 * and eth_link_query_port report. */
struct emu_port_attr {
	uint32_t port_cap_flags;
	uint32_t gid_tbl_len, pkey_tbl_len;
	uint8_t max_vl_num;	/* IB encoding: 1 = VL0, 2 = VL0-1, 4 = VL0-7 */
	uint8_t subnet_timeout;
};

struct emu_hca_attr {
	uint64_t fw_ver;	/* major << 32 | minor << 16 | subminor */
	uint32_t hw_ver, vendor_id;
	uint64_t max_mr_size, page_size_cap;
	uint64_t device_cap_flags;
	uint32_t max_qp, max_qp_wr, max_sge, max_sge_rd;
	uint32_t max_cq, max_cqe, max_mr, max_pd;
	uint32_t max_qp_rd_atom, max_qp_init_rd_atom;
	uint32_t max_srq, max_srq_wr;
	uint32_t max_mcast_grp, max_mcast_qp_attach;
	uint32_t max_ah;
	uint16_t max_pkeys;
	uint8_t local_ca_ack_delay;
	/* Ethernet only (mlx4_ib reports them when a port is Ethernet) */
	uint32_t max_tso;	/* bytes of LSO payload; larger is refused */
	uint32_t max_rss_tbl_sz;	/* 1 << EMU_LOG_MAX_RSS_TBL */
	uint32_t max_msg_sz;
	struct emu_port_attr ib, eth;
};

extern const struct emu_hca_attr emu_hca;

/* log2 of the largest RSS indirection table and WQN range: QUERY_DEV_CAP
 * gives the size as a log2 (fw.c, byte 0x2e), so it is a power of two */
#define EMU_LOG_MAX_RSS_TBL 12

/* Object tables, indexed by number; number 0 of each kind is never handed
 * out, so that a zeroed field never names an object.  Sizes: 1 + the
 * limit of the kind. */
#define EMU_HCA_MAX_QP 131000
#define EMU_HCA_MAX_CQ 65408
#define EMU_HCA_MAX_SRQ 65472
#define EMU_HCA_MAX_PD 32764
#define EMU_HCA_MAX_CONTEXTS 894
#define EMU_MAX_CQ (1 + EMU_HCA_MAX_CQ)
#define EMU_MAX_SRQ (1 + EMU_HCA_MAX_SRQ)
#define EMU_MAX_PD (1 + EMU_HCA_MAX_PD)
/* Device files open at once: each context takes a UAR at GET_CONTEXT (the
 * limit above), a few more may be open without one. */
#define EMU_MAX_CTX (EMU_HCA_MAX_CONTEXTS + 64)
/* RSS indirection tables: as many as QPs (mlx4_ib_query_device) */
#define EMU_MAX_IND_TBL (1 + EMU_HCA_MAX_QP)

/* The values of the configurable limits when no option sets them
 * (emu_cfg.max_* = 0 after emu_config_load). */
void emu_attributes_apply_defaults(void);

/* The QUERY_DEVICE response of the adapter (GUIDs included). */
void emu_attr_query_device(struct ib_uverbs_query_device_resp *r);
/* The extended part of QUERY_DEVICE_EX and the mlx4 driver response
 * (RSS and TSO only when a port is Ethernet, as mlx4_ib reports them). */
void emu_attr_query_device_ex(struct ib_uverbs_ex_query_device_resp *r,
			      struct mlx4_uverbs_ex_query_device_resp *drv);
/* The QUERY_PORT response of port `port` (1-based, valid). */
void emu_attr_query_port(unsigned port, struct ib_uverbs_query_port_resp *r);
/* The port's table lengths. */
const struct emu_port_attr *emu_port_attr(unsigned port);

#endif
