/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * <infiniband/mlx4dv/cqe.h> - decoding a CQE (mlx4dv_cqe_*).
 *
 * A part of <infiniband/mlx4dv.h>: include that header, never this one.
 */
#ifndef _MLX4DV_CQE_H_
#define _MLX4DV_CQE_H_

#ifndef _MLX4DV_H_
#error "<infiniband/mlx4dv/cqe.h> is a part of <infiniband/mlx4dv.h>: include that"
#endif

#include <infiniband/mlx4dv/cq.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 5.3 Decoding a CQE ----------------------------------------------- */
/*
 * All accessors take the valid 32 bytes of a software-owned CQE (from
 * mlx4dv_cq_peek()/mlx4dv_cq_next() or a copy) and return host-order
 * values unless the type is __be32. Which fields mean something depends
 * on the kind of completion: mlx4dv_cqe_to_wc() applies libmlx4's rules.
 * An error CQE (opcode MLX4_CQE_OPCODE_ERROR) is laid out as struct
 * mlx4_err_cqe over the same 32 bytes.
 */

/* QPN of the completion (low 24 bits of vlan_my_qpn): the QP, or for a
 * receive WQ of an RSS QP the WQ number. (rdma-core cq.c mlx4_parse_cqe.) */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_cqe_qpn(const struct mlx4_cqe *cqe)
{
	return mlx4dv_be32_to_cpu(cqe->vlan_my_qpn) & MLX4_CQE_QPN_MASK;
}

/* Nonzero for a send-queue completion (bit 6 of the last byte), zero for a
 * receive. Also valid in an error CQE. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cqe_is_send(const struct mlx4_cqe *cqe)
{
	return cqe->owner_sr_opcode & MLX4_CQE_IS_SEND_MASK;
}

/* The 5-bit CQE opcode: MLX4_OPCODE_* of the WQE for a send,
 * MLX4_RECV_OPCODE_* for a receive, MLX4_CQE_OPCODE_ERROR (0x1e) or
 * MLX4_CQE_OPCODE_RESIZE (0x16). */
static MLX4DV_ALWAYS_INLINE uint8_t
mlx4dv_cqe_opcode(const struct mlx4_cqe *cqe)
{
	return cqe->owner_sr_opcode & MLX4_CQE_OPCODE_MASK;
}

/* Nonzero for an error CQE (flushed work requests included). */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cqe_is_error(const struct mlx4_cqe *cqe)
{
	return mlx4dv_cqe_opcode(cqe) == MLX4_CQE_OPCODE_ERROR;
}

/* Syndrome of an error CQE (MLX4_CQE_SYNDROME_*; byte 27). Meaningless for
 * a good CQE. */
static MLX4DV_ALWAYS_INLINE uint8_t
mlx4dv_cqe_syndrome(const struct mlx4_cqe *cqe)
{
	return ((const uint8_t *)cqe)[offsetof(struct mlx4_err_cqe, syndrome)];
}

/* Vendor syndrome of an error CQE (byte 26), reported by libmlx4 as
 * ibv_wc.vendor_err. Meaningless for a good CQE. */
static MLX4DV_ALWAYS_INLINE uint8_t
mlx4dv_cqe_vendor_syndrome(const struct mlx4_cqe *cqe)
{
	return ((const uint8_t *)cqe)[offsetof(struct mlx4_err_cqe, vendor_err)];
}

/*
 * mlx4dv_cqe_syndrome_to_wc_status - the ibv_wc_status libmlx4 reports for
 * an error CQE's syndrome (rdma-core cq.c mlx4_handle_error_cqe; the
 * kernel's mlx4_ib_handle_error_cqe agrees). Unknown syndromes map to
 * IBV_WC_GENERAL_ERR.
 */
static MLX4DV_ALWAYS_INLINE enum ibv_wc_status
mlx4dv_cqe_syndrome_to_wc_status(uint8_t syndrome)
{
	switch (syndrome) {
	case MLX4_CQE_SYNDROME_LOCAL_LENGTH_ERR:	return IBV_WC_LOC_LEN_ERR;
	case MLX4_CQE_SYNDROME_LOCAL_QP_OP_ERR:		return IBV_WC_LOC_QP_OP_ERR;
	case MLX4_CQE_SYNDROME_LOCAL_PROT_ERR:		return IBV_WC_LOC_PROT_ERR;
	case MLX4_CQE_SYNDROME_WR_FLUSH_ERR:		return IBV_WC_WR_FLUSH_ERR;
	case MLX4_CQE_SYNDROME_MW_BIND_ERR:		return IBV_WC_MW_BIND_ERR;
	case MLX4_CQE_SYNDROME_BAD_RESP_ERR:		return IBV_WC_BAD_RESP_ERR;
	case MLX4_CQE_SYNDROME_LOCAL_ACCESS_ERR:	return IBV_WC_LOC_ACCESS_ERR;
	case MLX4_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR:	return IBV_WC_REM_INV_REQ_ERR;
	case MLX4_CQE_SYNDROME_REMOTE_ACCESS_ERR:	return IBV_WC_REM_ACCESS_ERR;
	case MLX4_CQE_SYNDROME_REMOTE_OP_ERR:		return IBV_WC_REM_OP_ERR;
	case MLX4_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR:	return IBV_WC_RETRY_EXC_ERR;
	case MLX4_CQE_SYNDROME_RNR_RETRY_EXC_ERR:	return IBV_WC_RNR_RETRY_EXC_ERR;
	case MLX4_CQE_SYNDROME_REMOTE_ABORTED_ERR:	return IBV_WC_REM_ABORT_ERR;
	default:					return IBV_WC_GENERAL_ERR;
	}
}

/* IBV_WC_SUCCESS for a good CQE, else the status of its syndrome. */
static MLX4DV_ALWAYS_INLINE enum ibv_wc_status
mlx4dv_cqe_wc_status(const struct mlx4_cqe *cqe)
{
	if (!mlx4dv_cqe_is_error(cqe))
		return IBV_WC_SUCCESS;
	return mlx4dv_cqe_syndrome_to_wc_status(mlx4dv_cqe_syndrome(cqe));
}

/*
 * mlx4dv_cqe_wc_opcode - the ibv_wc_opcode of a good CQE, as libmlx4's
 * ibv_poll_cq reports it (rdma-core cq.c handle_good_req, mlx4_parse_cqe).
 * Sends: RDMA_WRITE[_IMM] -> IBV_WC_RDMA_WRITE, SEND[_IMM|_INVAL] ->
 * IBV_WC_SEND, RDMA_READ, ATOMIC_CS -> COMP_SWAP, ATOMIC_FA -> FETCH_ADD,
 * LOCAL_INVAL, BIND_MW; any other send opcode -> IBV_WC_SEND. Receives:
 * RDMA_WRITE_IMM -> IBV_WC_RECV_RDMA_WITH_IMM, SEND[_IMM|_INVAL] ->
 * IBV_WC_RECV; any other receive opcode (the device writes none) ->
 * IBV_WC_RECV. Meaningless for an error CQE (libmlx4 leaves opcode unset).
 */
static MLX4DV_ALWAYS_INLINE enum ibv_wc_opcode
mlx4dv_cqe_wc_opcode(const struct mlx4_cqe *cqe)
{
	if (!mlx4dv_cqe_is_send(cqe))
		return mlx4dv_cqe_opcode(cqe) == MLX4_RECV_OPCODE_RDMA_WRITE_IMM ?
			IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;

	switch (mlx4dv_cqe_opcode(cqe)) {
	case MLX4_OPCODE_RDMA_WRITE_IMM:
	case MLX4_OPCODE_RDMA_WRITE:	return IBV_WC_RDMA_WRITE;
	case MLX4_OPCODE_RDMA_READ:	return IBV_WC_RDMA_READ;
	case MLX4_OPCODE_ATOMIC_CS:	return IBV_WC_COMP_SWAP;
	case MLX4_OPCODE_ATOMIC_FA:	return IBV_WC_FETCH_ADD;
	case MLX4_OPCODE_LOCAL_INVAL:	return IBV_WC_LOCAL_INV;
	case MLX4_OPCODE_BIND_MW:	return IBV_WC_BIND_MW;
	default:			return IBV_WC_SEND;
	}
}

/* Byte count of a good CQE, host order: bytes received (receive), bytes
 * read (RDMA READ). libmlx4 reports 8 for atomics and leaves byte_len
 * alone for other sends; see mlx4dv_cqe_to_wc(). */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_cqe_byte_len(const struct mlx4_cqe *cqe)
{
	return mlx4dv_be32_to_cpu(cqe->byte_cnt);
}

/* Immediate data of a SEND_IMM or RDMA_WRITE_IMM receive, big-endian as
 * the sender gave it in ibv_send_wr.imm_data (stored as is, like
 * ibv_wc.imm_data). */
static MLX4DV_ALWAYS_INLINE __be32
mlx4dv_cqe_imm_data(const struct mlx4_cqe *cqe)
{
	return cqe->immed_rss_invalid;
}

/* The rkey a SEND_WITH_INV receive invalidated, host order (the same word
 * as the immediate; libmlx4 converts it). */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_cqe_invalidated_rkey(const struct mlx4_cqe *cqe)
{
	return mlx4dv_be32_to_cpu(cqe->immed_rss_invalid);
}

/* RSS hash of a receive on an RSS QP (raw packet), host order: the same
 * word as the immediate (mlx4_en en_rx.c passes be32_to_cpu of it to
 * skb_set_hash). */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_cqe_rss_hash(const struct mlx4_cqe *cqe)
{
	return mlx4dv_be32_to_cpu(cqe->immed_rss_invalid);
}

/* P_Key index of a receive (UD/GSI): low 7 bits of immed_rss_invalid, as
 * libmlx4 and mlx4_ib report it. */
static MLX4DV_ALWAYS_INLINE uint16_t
mlx4dv_cqe_pkey_index(const struct mlx4_cqe *cqe)
{
	return (uint16_t)(mlx4dv_be32_to_cpu(cqe->immed_rss_invalid) & 0x7f);
}

/* Source QPN of a receive (UD): low 24 bits of g_mlpath_rqpn. For an XRC
 * receive (QPN has MLX4DV_CQE_XRC_QPN_BIT) the same bits hold the SRQN. */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_cqe_src_qp(const struct mlx4_cqe *cqe)
{
	return mlx4dv_be32_to_cpu(cqe->g_mlpath_rqpn) & 0xffffff;
}

/* Destination LID path bits of a receive: bits 24..30 of g_mlpath_rqpn. */
static MLX4DV_ALWAYS_INLINE uint8_t
mlx4dv_cqe_dlid_path_bits(const struct mlx4_cqe *cqe)
{
	return (uint8_t)((mlx4dv_be32_to_cpu(cqe->g_mlpath_rqpn) >> 24) & 0x7f);
}

/* Nonzero when the received packet had a GRH (bit 31 of g_mlpath_rqpn);
 * its 40 bytes are then at the start of the receive buffer (UD). */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cqe_has_grh(const struct mlx4_cqe *cqe)
{
	return (mlx4dv_be32_to_cpu(cqe->g_mlpath_rqpn) >> 31) != 0;
}

/* Source LID of a receive (InfiniBand), host order. */
static MLX4DV_ALWAYS_INLINE uint16_t
mlx4dv_cqe_slid(const struct mlx4_cqe *cqe)
{
	return mlx4dv_be16_to_cpu(cqe->rlid);
}

/* Service level of a receive: sl_vid >> 12 on InfiniBand, sl_vid >> 13 on
 * Ethernet where the low 12 bits are the VLAN ID (rdma-core cq.c
 * mlx4_parse_cqe, mlx4_ib cq.c). is_ethernet: the port's link layer. */
static MLX4DV_ALWAYS_INLINE uint8_t
mlx4dv_cqe_sl(const struct mlx4_cqe *cqe, int is_ethernet)
{
	return (uint8_t)(mlx4dv_be16_to_cpu(cqe->sl_vid) >> (is_ethernet ? 13 : 12));
}

/* Nonzero when the device stripped a customer VLAN tag (Ethernet; bit 29
 * of vlan_my_qpn, MLX4_CQE_VLAN_PRESENT_MASK). */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cqe_vlan_present(const struct mlx4_cqe *cqe)
{
	return (mlx4dv_be32_to_cpu(cqe->vlan_my_qpn) & MLX4DV_CQE_CVLAN_PRESENT) != 0;
}

/* VLAN ID of the stripped tag (low 12 bits of sl_vid, MLX4_CQE_VID_MASK in
 * the kernel), or 0xffff when none was present, as mlx4_ib reports it. */
static MLX4DV_ALWAYS_INLINE uint16_t
mlx4dv_cqe_vlan_id(const struct mlx4_cqe *cqe)
{
	if (!mlx4dv_cqe_vlan_present(cqe))
		return 0xffff;
	return mlx4dv_be16_to_cpu(cqe->sl_vid) & 0xfff;
}

/* The status word (packet type and checksum bits, enum
 * mlx4dv_cqe_status_bits), host order. */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_cqe_status(const struct mlx4_cqe *cqe)
{
	return mlx4dv_be32_to_cpu(cqe->status);
}

/* Received packet is IPv4 (status bit 22). */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cqe_is_ipv4(const struct mlx4_cqe *cqe)
{
	return (mlx4dv_cqe_status(cqe) & MLX4DV_CQE_STATUS_IPV4) != 0;
}

/* Received packet is IPv6 (status bit 24; DPDK mlx4_prm.h). */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cqe_is_ipv6(const struct mlx4_cqe *cqe)
{
	return (mlx4dv_cqe_status(cqe) & MLX4DV_CQE_STATUS_IPV6) != 0;
}

/* The IPv4 header checksum was good (status bit 28). */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cqe_ip_hdr_csum_ok(const struct mlx4_cqe *cqe)
{
	return (mlx4dv_cqe_status(cqe) & MLX4DV_CQE_STATUS_IP_HDR_CSUM_OK) != 0;
}

/* The TCP or UDP checksum was good (status bit 2, badfcs_enc L4_CSUM). */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cqe_l4_csum_ok(const struct mlx4_cqe *cqe)
{
	return (mlx4dv_cqe_status(cqe) & MLX4DV_CQE_STATUS_L4_CSUM_OK) != 0;
}

/*
 * mlx4dv_cqe_ip_csum_ok - libmlx4's rule for IBV_WC_IP_CSUM_OK: all three
 * of IPv4, IP header checksum good and TCP/UDP checksum good
 * (MLX4_CQE_STATUS_IPV4_CSUM_OK). libmlx4 applies it only on QPs with
 * valid checksum bits (MLX4DV_CQE_RX_CSUM_VALID). (rdma-core cq.c
 * mlx4_parse_cqe.)
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cqe_ip_csum_ok(const struct mlx4_cqe *cqe)
{
	return (mlx4dv_cqe_status(cqe) & MLX4_CQE_STATUS_IPV4_CSUM_OK) ==
		MLX4_CQE_STATUS_IPV4_CSUM_OK;
}

/* The 16-bit one's-complement checksum the device computed over the IP
 * payload, host order (mlx4_en en_rx.c check_csum uses it for
 * CHECKSUM_COMPLETE). */
static MLX4DV_ALWAYS_INLINE uint16_t
mlx4dv_cqe_checksum(const struct mlx4_cqe *cqe)
{
	return mlx4dv_be16_to_cpu(cqe->checksum);
}

/* The 48-bit completion timestamp in device clock ticks (CQs created with
 * IBV_WC_EX_WITH_COMPLETION_TIMESTAMP): ts_47_16 << 16 | ts_15_8 << 8 |
 * ts_7_0. Overlays sl_vid/rlid. (rdma-core cq.c
 * mlx4_cq_read_wc_completion_ts.) */
static MLX4DV_ALWAYS_INLINE uint64_t
mlx4dv_cqe_timestamp(const struct mlx4_cqe *cqe)
{
	return (uint64_t)mlx4dv_be32_to_cpu(cqe->ts_47_16) << 16 |
		(uint64_t)cqe->ts_15_8 << 8 | cqe->ts_7_0;
}

/* WQE index, host order, 16 bits (wraps at 65536): for a send the WQE
 * counter (first WQEBB) of the last completed WQE; for an SRQ receive the
 * SRQ WQE used; not meaningful for a plain RQ receive (RQ completions come
 * in order). Same offset in an error CQE. */
static MLX4DV_ALWAYS_INLINE uint16_t
mlx4dv_cqe_wqe_index(const struct mlx4_cqe *cqe)
{
	return mlx4dv_be16_to_cpu(cqe->wqe_index);
}

/*
 * mlx4dv_cqe_wc_flags - the ibv_wc.wc_flags libmlx4 reports for a good
 * CQE. Sends: IBV_WC_WITH_IMM for RDMA_WRITE_IMM and SEND_IMM. Receives:
 * IBV_WC_WITH_IMM (RDMA_WRITE_IMM, SEND_IMM) or IBV_WC_WITH_INV
 * (SEND_INVAL), IBV_WC_GRH, and IBV_WC_IP_CSUM_OK when rx_flags has
 * MLX4DV_CQE_RX_CSUM_VALID and mlx4dv_cqe_ip_csum_ok(). rx_flags: enum
 * mlx4dv_cqe_rx_flags. 0 for an error CQE (libmlx4 leaves wc_flags unset).
 */
static MLX4DV_ALWAYS_INLINE unsigned int
mlx4dv_cqe_wc_flags(const struct mlx4_cqe *cqe, uint32_t rx_flags)
{
	unsigned int flags = 0;
	uint8_t op = mlx4dv_cqe_opcode(cqe);

	if (op == MLX4_CQE_OPCODE_ERROR)
		return 0;
	if (mlx4dv_cqe_is_send(cqe))
		return (op == MLX4_OPCODE_RDMA_WRITE_IMM ||
			op == MLX4_OPCODE_SEND_IMM) ? IBV_WC_WITH_IMM : 0;

	if (op == MLX4_RECV_OPCODE_RDMA_WRITE_IMM ||
	    op == MLX4_RECV_OPCODE_SEND_IMM)
		flags = IBV_WC_WITH_IMM;
	else if (op == MLX4_RECV_OPCODE_SEND_INVAL)
		flags = IBV_WC_WITH_INV;
	if (mlx4dv_cqe_has_grh(cqe))
		flags |= IBV_WC_GRH;
	if ((rx_flags & MLX4DV_CQE_RX_CSUM_VALID) && mlx4dv_cqe_ip_csum_ok(cqe))
		flags |= IBV_WC_IP_CSUM_OK;
	return flags;
}

/*
 * mlx4dv_cqe_to_wc - fill *wc from a CQE exactly as libmlx4's ibv_poll_cq
 * does (rdma-core cq.c mlx4_parse_cqe, handle_good_req), except wr_id,
 * which comes from the ring (mlx4dv_rq_complete(), mlx4dv_srq_complete(),
 * mlx4dv_sq_complete_cqe()) and is left alone here.
 *
 * rx_flags: enum mlx4dv_cqe_rx_flags of the QP the CQE belongs to.
 * Written fields, as libmlx4 writes them:
 *  - always: qp_num, status;
 *  - error CQE: vendor_err; nothing else;
 *  - good send: opcode, wc_flags; byte_len for RDMA READ (byte count) and
 *    atomics (8) only;
 *  - good receive: opcode, wc_flags, byte_len, imm_data (IMM opcodes) or
 *    invalidated_rkey (SEND_INVAL), slid, src_qp, dlid_path_bits,
 *    pkey_index, sl.
 * Fields not listed keep their previous value, as with libmlx4, so zero
 * *wc first when every field is read. One difference: for SEND_INVAL
 * libmlx4 ORs IBV_WC_WITH_INV into the previous wc_flags; this stores the
 * flags, which is the same on a zeroed wc.
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_cqe_to_wc(const struct mlx4_cqe *cqe, uint32_t rx_flags,
		 struct ibv_wc *wc)
{
	uint8_t op = mlx4dv_cqe_opcode(cqe);

	wc->qp_num = mlx4dv_cqe_qpn(cqe);
	if (op == MLX4_CQE_OPCODE_ERROR) {
		wc->status = mlx4dv_cqe_syndrome_to_wc_status(mlx4dv_cqe_syndrome(cqe));
		wc->vendor_err = mlx4dv_cqe_vendor_syndrome(cqe);
		return;
	}
	wc->status = IBV_WC_SUCCESS;
	wc->wc_flags = mlx4dv_cqe_wc_flags(cqe, rx_flags);
	if (mlx4dv_cqe_is_send(cqe)) {
		wc->opcode = mlx4dv_cqe_wc_opcode(cqe);
		if (op == MLX4_OPCODE_RDMA_READ)
			wc->byte_len = mlx4dv_cqe_byte_len(cqe);
		else if (op == MLX4_OPCODE_ATOMIC_CS || op == MLX4_OPCODE_ATOMIC_FA)
			wc->byte_len = 8;
		return;
	}

	wc->byte_len = mlx4dv_cqe_byte_len(cqe);
	if (op <= MLX4_RECV_OPCODE_SEND_INVAL)
		wc->opcode = mlx4dv_cqe_wc_opcode(cqe);
	if (op == MLX4_RECV_OPCODE_RDMA_WRITE_IMM || op == MLX4_RECV_OPCODE_SEND_IMM)
		wc->imm_data = mlx4dv_cqe_imm_data(cqe);
	else if (op == MLX4_RECV_OPCODE_SEND_INVAL)
		wc->invalidated_rkey = mlx4dv_cqe_invalidated_rkey(cqe);
	wc->slid = mlx4dv_cqe_slid(cqe);
	wc->src_qp = mlx4dv_cqe_src_qp(cqe);
	wc->dlid_path_bits = mlx4dv_cqe_dlid_path_bits(cqe);
	wc->pkey_index = mlx4dv_cqe_pkey_index(cqe);
	wc->sl = mlx4dv_cqe_sl(cqe, (rx_flags & MLX4DV_CQE_RX_ETHERNET) != 0);
}

#ifdef __cplusplus
}
#endif

#endif /* _MLX4DV_CQE_H_ */
