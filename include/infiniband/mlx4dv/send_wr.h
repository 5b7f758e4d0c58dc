/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * <infiniband/mlx4dv/send_wr.h> - writing a struct ibv_send_wr (mlx4dv_sq_write_send_wr).
 *
 * A part of <infiniband/mlx4dv.h>: include that header, never this one.
 */
#ifndef _MLX4DV_SEND_WR_H_
#define _MLX4DV_SEND_WR_H_

#ifndef _MLX4DV_H_
#error "<infiniband/mlx4dv/send_wr.h> is a part of <infiniband/mlx4dv.h>: include that"
#endif

#include <infiniband/mlx4dv/write.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Posting an ibv_send_wr ---- */

/*
 * mlx4dv_send_wr_bf_candidate - 1 when libmlx4 would post this single
 * work request by BlueFlame (given room in the BlueFlame buffer): inline
 * data of more than 0 bytes, an RDMA read, or an RDMA write without
 * gather entries on a connected QP. (libmlx4 qp.c mlx4_post_send: the
 * `inl` condition.) 0 for entries (num_sge > 0) with a NULL sg_list,
 * which mlx4dv_sq_write_send_wr() refuses.
 */
static inline int
mlx4dv_send_wr_bf_candidate(const struct mlx4dv_sq_ring *sq,
			    const struct ibv_send_wr *wr)
{
	/* A list the post refuses (EINVAL) is no candidate either. */
	if (wr->num_sge > 0 && !wr->sg_list)
		return 0;
	if ((wr->send_flags & IBV_SEND_INLINE) && wr->num_sge > 0) {
		int i;

		for (i = 0; i < wr->num_sge; i++)
			if (wr->sg_list[i].length)
				return 1;
		return 0;
	}
	if (!__mlx4dv_sq_is_connected(sq))
		return 0;
	return wr->opcode == IBV_WR_RDMA_READ ||
	       ((wr->opcode == IBV_WR_RDMA_WRITE ||
		 wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM) && !wr->num_sge);
}

/*
 * mlx4dv_sq_write_send_wr - build the WQE of one ibv_send_wr (wr->next is
 * not followed) exactly as libmlx4's ibv_post_send() would, without
 * ringing the doorbell; records wr->wr_id when sq->wrid is set.
 *
 * Opcodes: SEND, SEND_WITH_IMM on every QP type but raw packet (SEND
 * only there); RDMA_WRITE(_WITH_IMM) on RC/UC/XRC; RDMA_READ, atomics,
 * SEND_WITH_INV on RC/XRC; LOCAL_INV and BIND_MW (no gather entries,
 * strong ordering added) on RC/UC/XRC. ud_dest: the destination of a UD
 * work request (wr->wr.ud.ah is not read: libmlx4 keeps its AV private),
 * ignored otherwise. On XRC_SEND, wr->qp_type.xrc.remote_srqn goes to
 * srcrb_flags. send_flags: the IBV_SEND_* flags (IP_CSUM on UD and raw
 * packet QPs).
 *
 * Returns 0, EINVAL (opcode not valid for the QP type, num_sge < 0 or
 * over sq->max_gather, inline bytes over sq->max_inline, IBV_SEND_INLINE
 * on a read or atomic, gather entries on LOCAL_INV/BIND_MW, raw packet
 * frame shorter than 6 bytes in its first entry, missing ud_dest), or
 * ENOMEM (no room); nothing is written on error. libmlx4 returns ENOMEM
 * for too many entries or inline bytes.
 */
static inline int
mlx4dv_sq_write_send_wr(struct mlx4dv_sq_ring *sq, const struct ibv_send_wr *wr,
			const struct mlx4dv_ud_av *ud_dest)
{
	struct __mlx4dv_sq_payload pl;
	uint32_t flags;
	uint64_t saved_wrid = 0;
	uint32_t slot = sq->head & (sq->wqe_cnt - 1);
	int err = EINVAL;

	if (!wr || wr->num_sge < 0 ||
	    (wr->send_flags & ~(uint32_t)(IBV_SEND_FENCE | IBV_SEND_SIGNALED |
		IBV_SEND_SOLICITED | IBV_SEND_INLINE | IBV_SEND_IP_CSUM)))
		return EINVAL;
	flags = wr->send_flags;
	pl.sg = wr->sg_list;
	pl.num_sge = (uint32_t)wr->num_sge;
	pl.data = NULL;
	pl.len = 0;
	pl.is_inline = (flags & IBV_SEND_INLINE) && wr->num_sge;
	if (!pl.is_inline)
		flags &= ~(uint32_t)IBV_SEND_INLINE;
	if (sq->qp_type == IBV_QPT_XRC_SEND) {
		if (wr->qp_type.xrc.remote_srqn > 0xffffff)
			return EINVAL;
		flags |= MLX4DV_SEND_XRC_SRQN(wr->qp_type.xrc.remote_srqn);
	}
	if (sq->wrid)
		saved_wrid = sq->wrid[slot];
	__mlx4dv_sq_set_wr_id(sq, wr->wr_id);

	if (sq->qp_type == IBV_QPT_UD) {
		if (wr->opcode == IBV_WR_SEND)
			err = __mlx4dv_sq_write_ud(sq, MLX4_OPCODE_SEND, ud_dest,
				wr->wr.ud.remote_qpn, wr->wr.ud.remote_qkey, 0,
				flags, &pl);
		else if (wr->opcode == IBV_WR_SEND_WITH_IMM)
			err = __mlx4dv_sq_write_ud(sq, MLX4_OPCODE_SEND_IMM,
				ud_dest, wr->wr.ud.remote_qpn,
				wr->wr.ud.remote_qkey, wr->imm_data, flags, &pl);
	} else if (sq->qp_type == IBV_QPT_RAW_PACKET) {
		if (wr->opcode == IBV_WR_SEND && wr->sg_list)
			err = __mlx4dv_sq_write_eth(sq, &pl, flags, 0, 0,
							NULL, 0);
	} else if (__mlx4dv_sq_is_connected(sq)) {
		int rc_only = sq->qp_type != IBV_QPT_UC;

		flags &= ~(uint32_t)IBV_SEND_IP_CSUM;
		switch (wr->opcode) {
		case IBV_WR_SEND:
			err = __mlx4dv_sq_write_connected(sq, MLX4_OPCODE_SEND, 0,
				0, 0, 0, flags, &pl);
			break;
		case IBV_WR_SEND_WITH_IMM:
			err = __mlx4dv_sq_write_connected(sq, MLX4_OPCODE_SEND_IMM,
				0, 0, 0, wr->imm_data, flags, &pl);
			break;
		case IBV_WR_SEND_WITH_INV:
			if (rc_only)
				err = __mlx4dv_sq_write_connected(sq,
					MLX4_OPCODE_SEND_INVAL, 0, 0, 0,
					mlx4dv_cpu_to_be32(wr->invalidate_rkey),
					flags, &pl);
			break;
		case IBV_WR_RDMA_WRITE:
			err = __mlx4dv_sq_write_connected(sq,
				MLX4_OPCODE_RDMA_WRITE, 1,
				wr->wr.rdma.remote_addr, wr->wr.rdma.rkey, 0,
				flags, &pl);
			break;
		case IBV_WR_RDMA_WRITE_WITH_IMM:
			err = __mlx4dv_sq_write_connected(sq,
				MLX4_OPCODE_RDMA_WRITE_IMM, 1,
				wr->wr.rdma.remote_addr, wr->wr.rdma.rkey,
				wr->imm_data, flags, &pl);
			break;
		case IBV_WR_RDMA_READ:
			if (rc_only && !pl.is_inline)
				err = __mlx4dv_sq_write_connected(sq,
					MLX4_OPCODE_RDMA_READ, 1,
					wr->wr.rdma.remote_addr,
					wr->wr.rdma.rkey, 0, flags, &pl);
			break;
		case IBV_WR_ATOMIC_CMP_AND_SWP:
		case IBV_WR_ATOMIC_FETCH_AND_ADD:
			if (wr->num_sge == 1 && !pl.is_inline) {
				int cas = wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP;

				err = __mlx4dv_sq_write_atomic(sq, cas ?
					MLX4_OPCODE_ATOMIC_CS :
					MLX4_OPCODE_ATOMIC_FA, wr->sg_list,
					wr->wr.atomic.remote_addr,
					wr->wr.atomic.rkey,
					cas ? wr->wr.atomic.swap :
					wr->wr.atomic.compare_add,
					cas ? wr->wr.atomic.compare_add : 0,
					flags);
			}
			break;
		case IBV_WR_LOCAL_INV:
		case IBV_WR_BIND_MW:
			if (!wr->num_sge && (wr->opcode == IBV_WR_LOCAL_INV ||
			    (wr->bind_mw.mw && wr->bind_mw.bind_info.mr))) {
				struct __mlx4dv_sq_payload none = { NULL, 0, NULL,
								  0, 0 };
				uint32_t ds, fixed = MLX4DV_WQE_CTRL_DS + 2;
				struct mlx4_wqe_ctrl_seg *ctrl;

				if (!__mlx4dv_sq_connected_flags_ok(sq, flags))
					break;
				err = __mlx4dv_sq_payload_ds(sq, fixed, &none,
							   &ds);
				if (err)
					break;
				ctrl = (struct mlx4_wqe_ctrl_seg *)
					mlx4dv_sq_wqebb(sq, sq->head);
				if (wr->opcode == IBV_WR_LOCAL_INV) {
					mlx4dv_wqe_set_local_inval_seg(
						(struct mlx4_wqe_local_inval_seg *)
						(ctrl + 1), wr->invalidate_rkey);
				} else {
					struct mlx4dv_bind_mw_attr b;

					b.addr = wr->bind_mw.bind_info.addr;
					b.length = wr->bind_mw.bind_info.length;
					b.new_rkey = wr->bind_mw.rkey;
					b.mr_lkey =
						wr->bind_mw.bind_info.mr->lkey;
					b.access = wr->bind_mw.bind_info
						.mw_access_flags;
					b.mw_type = wr->bind_mw.mw->type;
					mlx4dv_wqe_set_bind_seg(
						(struct mlx4_wqe_bind_seg *)
						(ctrl + 1), &b);
				}
				mlx4dv_wqe_set_ctrl(ctrl, ds,
					mlx4dv_send_flags_to_srcrb(flags) |
					MLX4_WQE_CTRL_STRONG_ORDER, 0);
				__mlx4dv_sq_wqe_finish(sq, ctrl,
					wr->opcode == IBV_WR_LOCAL_INV ?
					MLX4_OPCODE_LOCAL_INVAL :
					MLX4_OPCODE_BIND_MW);
			}
			break;
		default:
			break;
		}
	}
	if (err && sq->wrid)
		sq->wrid[slot] = saved_wrid;
	return err;
}

#ifdef __cplusplus
}
#endif

#endif /* _MLX4DV_SEND_WR_H_ */
