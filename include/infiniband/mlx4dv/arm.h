/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * <infiniband/mlx4dv/arm.h> - CQ arming and completion events.
 *
 * A part of <infiniband/mlx4dv.h>: include that header, never this one.
 */
#ifndef _MLX4DV_ARM_H_
#define _MLX4DV_ARM_H_

#ifndef _MLX4DV_H_
#error "<infiniband/mlx4dv/arm.h> is a part of <infiniband/mlx4dv.h>: include that"
#endif

#include <infiniband/mlx4dv/barrier.h>
#include <infiniband/mlx4dv/handle.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 5.4 Arming and completion events ---------------------------------- */

/*
 * mlx4dv_cq_arm - request a completion event for the next completion
 * (solicited_only == 0: MLX4_CQ_DB_REQ_NOT) or the next solicited or error
 * completion (MLX4_CQ_DB_REQ_NOT_SOL) after cons_index.
 *
 * With sn = arm_sn & 3 and ci = cons_index & 0xffffff it writes the arm
 * record (big-endian sn << 28 | cmd | ci), issues
 * mlx4dv_barrier_to_device() so the record is in memory first, then one
 * 64-bit big-endian store of (sn << 28 | cmd | cqn) << 32 | ci to
 * uar + MLX4_CQ_DOORBELL (0x20). (rdma-core cq.c mlx4_arm_cq; kernel
 * include/linux/mlx4/cq.h mlx4_cq_arm.)
 *
 * Poll the CQ empty (and update the consumer-index record) before arming,
 * then poll once more: a completion that arrived in between raises no
 * event. After each event delivered by ibv_get_cq_event() call
 * mlx4dv_cq_ack_event() before arming again, or the device ignores the
 * arm (stale sequence number). Never mix with ibv_req_notify_cq(): libmlx4
 * arms with its own, stale consumer index and sequence number.
 * The handle's uar must be the CQ's UAR page (mlx4dv_cq.cq_uar with
 * MLX4DV_CQ_MASK_UAR).
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_cq_arm(struct mlx4dv_cq_ring *cq, int solicited_only)
{
	uint32_t sn = cq->arm_sn & 3;
	uint32_t ci = cq->cons_index & 0xffffff;
	uint32_t cmd = solicited_only ? (uint32_t)MLX4_CQ_DB_REQ_NOT_SOL :
					(uint32_t)MLX4_CQ_DB_REQ_NOT;
	uint64_t doorbell = (uint64_t)(sn << 28 | cmd | (cq->cqn & 0xffffff)) << 32 | ci;

	*(volatile __be32 *)cq->arm_db = mlx4dv_cpu_to_be32(sn << 28 | cmd | ci);
	mlx4dv_barrier_to_device();
	mlx4dv_mmio_write64_be(cq->uar + MLX4_CQ_DOORBELL,
			       mlx4dv_cpu_to_be64(doorbell));
}

/*
 * mlx4dv_cq_ack_event - account for one completion event of this CQ
 * returned by ibv_get_cq_event(): arm_sn += 1 (rdma-core cq.c
 * mlx4_cq_event). libmlx4 increments its own copy inside
 * ibv_get_cq_event(), which the handle does not see. ibv_ack_cq_events()
 * is still needed for the verbs event count; it does not touch arm_sn.
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_cq_ack_event(struct mlx4dv_cq_ring *cq)
{
	cq->arm_sn++;
}

#ifdef __cplusplus
}
#endif

#endif /* _MLX4DV_ARM_H_ */
