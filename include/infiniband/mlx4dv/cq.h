/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * <infiniband/mlx4dv/cq.h> - CQE bits, finding and consuming CQEs (mlx4dv_cq_*).
 *
 * A part of <infiniband/mlx4dv.h>: include that header, never this one.
 */
#ifndef _MLX4DV_CQ_H_
#define _MLX4DV_CQ_H_

#ifndef _MLX4DV_H_
#error "<infiniband/mlx4dv/cq.h> is a part of <infiniband/mlx4dv.h>: include that"
#endif

#include <infiniband/mlx4dv/barrier.h>
#include <infiniband/mlx4dv/handle.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * Completion and receive path (cq.h, cqe.h, arm.h, rq.h, srq.h, poll.h,
 * timestamp.h).
 * ====================================================================== */
/*
 * The completion side of a queue pair: CQ polling, CQE decoding, CQ arming,
 * and the receive rings (the RQ of a QP, a receive WQ, an SRQ) that the
 * receive completions give back. Every fact below comes from rdma-core 44.0
 * providers/mlx4 (cq.c, qp.c, srq.c, verbs.c), the Linux mlx4_ib and
 * mlx4_en drivers (drivers/infiniband/hw/mlx4/cq.c,
 * include/linux/mlx4/cq.h) or DPDK drivers/net/mlx4 (mlx4_prm.h,
 * mlx4_rxtx.c); each function names its source.
 *
 * Errors follow the header's rule (top of the file): 0 or a positive
 * errno value; a function that fails writes nothing to the ring or the
 * device; a poll returns EAGAIN when there is nothing to take.
 */

/* ---- 5.1 CQE bits rdma-core's header does not name -------------------- */

/*
 * Bits of mlx4_cqe.vlan_my_qpn (host order after mlx4dv_be32_to_cpu()),
 * above the 24-bit QPN. Source: include/linux/mlx4/cq.h (MLX4_CQE_*_MASK,
 * MLX4_CQE_L2_TUNNEL*), DPDK mlx4_prm.h. MLX4DV_CQE_CVLAN_PRESENT equals
 * rdma-core's MLX4_CQE_VLAN_PRESENT_MASK.
 */
enum mlx4dv_cqe_qpn_word_bits {
	MLX4DV_CQE_L2_TUNNEL_IPV4	= 1 << 25,
	MLX4DV_CQE_L2_TUNNEL_L4_CSUM	= 1 << 26,
	MLX4DV_CQE_L2_TUNNEL		= 1 << 27,
	MLX4DV_CQE_CVLAN_PRESENT	= 1 << 29,
	MLX4DV_CQE_SVLAN_PRESENT	= 1 << 30,
};
/* Inner IP header checksum of a tunnelled packet is good (bit 31: above
 * INT_MAX, so a macro). */
#define MLX4DV_CQE_L2_TUNNEL_IPOK	(1U << 31)

/* The XRC bit of a receive CQE's QPN: the SRQ number is then in the low 24
 * bits of g_mlpath_rqpn (rdma-core providers/mlx4/mlx4.h MLX4_XRC_QPN_BIT,
 * cq.c mlx4_parse_cqe). */
enum {
	MLX4DV_CQE_XRC_QPN_BIT		= 1 << 23,
};

/*
 * Receive packet-type and checksum bits of mlx4_cqe.status (host order
 * after mlx4dv_be32_to_cpu()). The kernel reads the same 32 bits as a
 * 16-bit status (bits 16..31 here), ipv6_ext_mask (8..15) and badfcs_enc
 * (0..7). Sources: DPDK mlx4_prm.h (MLX4_CQE_STATUS_*),
 * include/linux/mlx4/cq.h, rdma-core mlx4dv.h (enum mlx4_cqe_status).
 * Valid on raw-packet (Ethernet) and UD-over-IB receives on devices that
 * offer receive checksum; see mlx4dv_cqe_ip_csum_ok().
 */
enum mlx4dv_cqe_status_bits {
	MLX4DV_CQE_STATUS_L4_CSUM_OK	= 1 << 2,
	MLX4DV_CQE_STATUS_IPV6_FRAG	= 1 << 12,
	MLX4DV_CQE_STATUS_IPV4		= 1 << 22,
	MLX4DV_CQE_STATUS_IPV4_FRAG	= 1 << 23,
	MLX4DV_CQE_STATUS_IPV6		= 1 << 24,
	MLX4DV_CQE_STATUS_IPV4_OPT	= 1 << 25,
	MLX4DV_CQE_STATUS_TCP		= 1 << 26,
	MLX4DV_CQE_STATUS_UDP		= 1 << 27,
	MLX4DV_CQE_STATUS_IP_HDR_CSUM_OK = 1 << 28,
};

/*
 * What the decoder must know about the QP a receive CQE belongs to, which
 * the CQE itself does not say (libmlx4 keeps both per QP: mlx4_qp.link_layer
 * and MLX4_RX_CSUM_VALID in qp_cap_cache, set in verbs.c mlx4_modify_qp).
 */
enum mlx4dv_cqe_rx_flags {
	/* The port's link layer is Ethernet (RoCE, raw packet): the SL is the
	 * top 3 bits of sl_vid, and sl_vid carries the VLAN ID. */
	MLX4DV_CQE_RX_ETHERNET		= 1 << 0,
	/* The checksum bits are valid for this QP: libmlx4 sets this for a
	 * raw-packet QP on Ethernet when the device reports
	 * IBV_DEVICE_RAW_IP_CSUM, and for a UD QP on InfiniBand with
	 * IBV_DEVICE_UD_IP_CSUM. Only then is IBV_WC_IP_CSUM_OK reported. */
	MLX4DV_CQE_RX_CSUM_VALID	= 1 << 1,
};

/* ---- 5.2 Finding and consuming CQEs ------------------------------------ */

/*
 * mlx4dv_cq_cqe - the valid 32 bytes of CQE n (free-running index; slot
 * n & (cqe_cnt - 1)). For 64-byte CQEs that is the second half of the slot
 * (rdma-core cq.c get_sw_cqe). Does not test ownership.
 */
static MLX4DV_ALWAYS_INLINE struct mlx4_cqe *
mlx4dv_cq_cqe(const struct mlx4dv_cq_ring *cq, uint32_t n)
{
	size_t slot_end = ((size_t)(n & (cq->cqe_cnt - 1)) + 1) * cq->cqe_size;

	return (struct mlx4_cqe *)(cq->buf + slot_end - sizeof(struct mlx4_cqe));
}

/*
 * mlx4dv_cqe_sw_owned - 1 when the CQE at free-running index n belongs to
 * software: its owner bit (0x80 of the last byte) equals the lap parity
 * (n & cqe_cnt) != 0. The device flips the owner bit each lap it writes.
 * The byte is read with a relaxed atomic load so that a polling loop
 * re-reads it (the compiler may not hoist it) while the address still
 * folds into one instruction.
 * (rdma-core cq.c get_sw_cqe; PRM CQE owner field.)
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cqe_sw_owned(const struct mlx4_cqe *cqe, uint32_t n, uint32_t cqe_cnt)
{
	/* The owner bit sign-extended to all 32 bits: 0 or ~0. XORed into n,
	 * it clears the lap-parity bit exactly when the two agree. */
	int32_t owner = (int8_t)__atomic_load_n(&cqe->owner_sr_opcode,
						__ATOMIC_RELAXED);

	return !(((uint32_t)(owner >> 7) ^ n) & cqe_cnt);
}

/*
 * mlx4dv_cq_peek - the next completion without consuming it.
 *
 * Returns the valid 32 bytes of CQE cons_index when software owns it, with
 * mlx4dv_barrier_from_device() already issued after the owner test (so the
 * other fields are read after it), else NULL. cons_index is unchanged.
 */
static MLX4DV_ALWAYS_INLINE struct mlx4_cqe *
mlx4dv_cq_peek(const struct mlx4dv_cq_ring *cq)
{
	__MLX4DV_CHECK(cq != NULL, "mlx4dv_cq_peek",
		       "cq must not be NULL");
	struct mlx4_cqe *cqe;
	uint32_t ci = cq->cons_index;
	size_t size = cq->cqe_size;
	/* Written out rather than through mlx4dv_cq_cqe() so that the owner
	 * byte's address, slot + size - 1, folds into the load: the empty
	 * poll is the hot path of every polling loop. */
	uint8_t *slot = cq->buf + (size_t)(ci & (cq->cqe_cnt - 1)) * size;

	/* Without it the non-NULL hint below makes GCC form slot + size in a
	 * register ahead of the owner test, one addition more on the empty
	 * poll; kept opaque, the owner byte's address folds into the load
	 * and the CQE pointer is made on the hit path only. */
	__MLX4DV_OPAQUE(slot);
	/* The owner test of mlx4dv_cqe_sw_owned() on the slot's last byte. */
	int32_t owner = (int8_t)__atomic_load_n(slot + size - 1, __ATOMIC_RELAXED);

	if (((uint32_t)(owner >> 7) ^ ci) & cq->cqe_cnt)
		return NULL;
	mlx4dv_barrier_from_device();
	cqe = (struct mlx4_cqe *)(slot + size - sizeof(struct mlx4_cqe));
	/* A CQE of the ring is never at address 0: a caller's NULL test
	 * then folds into the owner test instead of testing the pointer. */
	__MLX4DV_ASSUME(cqe != NULL);
	return cqe;
}

/*
 * mlx4dv_cq_next - consume the next completion.
 *
 * Like mlx4dv_cq_peek(), and advances cons_index by one when a CQE is
 * returned. The consumer-index record is not written: the slot stays
 * reserved until mlx4dv_cq_update_ci(), so the CQE may be read until then.
 * Call mlx4dv_cq_update_ci() once per batch.
 */
static MLX4DV_ALWAYS_INLINE struct mlx4_cqe *
mlx4dv_cq_next(struct mlx4dv_cq_ring *cq)
{
	__MLX4DV_CHECK(cq != NULL, "mlx4dv_cq_next",
		       "cq must not be NULL");
	struct mlx4_cqe *cqe = mlx4dv_cq_peek(cq);

	if (cqe)
		cq->cons_index++;
	return cqe;
}

/*
 * mlx4dv_cq_update_ci - hand the consumed CQE slots back to the device.
 *
 * Issues mlx4dv_barrier_release_to_device() (the CQEs are read before the
 * device may reuse their slots), then writes the consumer-index record:
 * big-endian (cons_index & 0xffffff). (rdma-core cq.c/mlx4.h
 * mlx4_update_cons_index; PRM CQ doorbell record.) Once per batch; after
 * it no CQE pointer returned before stays valid.
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_cq_update_ci(struct mlx4dv_cq_ring *cq)
{
	/* Read before the barrier, so that right after a poll the compiler
	 * can reuse the index it has just stored instead of reloading it. */
	uint32_t ci = cq->cons_index;
	__be32 *record = cq->set_ci_db;

	mlx4dv_barrier_release_to_device();
	*(volatile __be32 *)record = mlx4dv_cpu_to_be32(ci & 0xffffff);
}

/*
 * mlx4dv_cq_poll_batch - copy up to max completions out of the CQ.
 *
 * out:    room for max CQEs; each gets the valid 32 bytes as the device
 *         wrote them (big-endian fields, owner bit included).
 * Returns the number copied (0 when the CQ is empty or max is 0).
 * The CQEs are copied before the consumer-index record is written (once,
 * when at least one was taken), because afterwards the device may
 * overwrite their slots.
 */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_cq_poll_batch(struct mlx4dv_cq_ring *cq, struct mlx4_cqe *out,
		     uint32_t max)
{
	size_t n, limit = max;

	for (n = 0; n < limit; n++) {
		struct mlx4_cqe *cqe = mlx4dv_cq_peek(cq);

		if (!cqe)
			break;
		memcpy(&out[n], cqe, sizeof(*cqe));
		cq->cons_index++;
	}
	if (n)
		mlx4dv_cq_update_ci(cq);
	return (uint32_t)n;
}

#ifdef __cplusplus
}
#endif

#endif /* _MLX4DV_CQ_H_ */
