/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * <infiniband/mlx4dv/wqe.h> - send WQE segment builders (mlx4dv_wqe_set_*, mlx4dv_sq_set_*).
 *
 * A part of <infiniband/mlx4dv.h>: include that header, never this one.
 */
#ifndef _MLX4DV_WQE_H_
#define _MLX4DV_WQE_H_

#ifndef _MLX4DV_H_
#error "<infiniband/mlx4dv/wqe.h> is a part of <infiniband/mlx4dv.h>: include that"
#endif

#include <infiniband/mlx4dv/barrier.h>
#include <infiniband/mlx4dv/send.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Segment builders ---- */

/*
 * mlx4dv_wqe_set_ctrl - words 1..3 of the control segment; word 0
 * (owner/opcode) is left to mlx4dv_wqe_set_owner_opcode().
 *
 * ds:          WQE size in 16-byte units, 1..63, control segment included.
 * srcrb_flags: host order. Bits 0..7: MLX4DV_WQE_CTRL_FORCE_LOOPBACK,
 *              MLX4_WQE_CTRL_SOLICIT, MLX4_WQE_CTRL_CQ_UPDATE,
 *              MLX4_WQE_CTRL_IP_HDR_CSUM, MLX4_WQE_CTRL_TCP_UDP_CSUM,
 *              MLX4_WQE_CTRL_STRONG_ORDER, and MLX4_WQE_CTRL_FENCE (bit 6),
 *              which goes to fence_size instead. Bits 8..31: XRC remote
 *              SRQN (XRC_SEND QPs) else 0. On raw Ethernet QPs SOLICIT
 *              means "no ICRC" and libmlx4 always sets it.
 * imm:         big-endian as stored: ibv_send_wr.imm_data for *_WITH_IMM;
 *              mlx4dv_cpu_to_be32(rkey) for SEND_WITH_INV; else 0.
 *
 * Writes bytes 4..15; bytes 4..6 (VLAN insert) become 0, so call
 * mlx4dv_wqe_set_ctrl_vlan() and mlx4dv_wqe_set_ctrl_dmac() after this.
 * (PRM "Send WQE control segment"; libmlx4 qp.c mlx4_post_send; kernel
 * include/linux/mlx4/qp.h struct mlx4_wqe_ctrl_seg.)
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_ctrl(struct mlx4_wqe_ctrl_seg *ctrl, uint32_t ds,
		    uint32_t srcrb_flags, __be32 imm)
{
	ctrl->bf_qpn = mlx4dv_cpu_to_be32((srcrb_flags & MLX4_WQE_CTRL_FENCE) | ds);
	ctrl->srcrb_flags = mlx4dv_cpu_to_be32(srcrb_flags &
					       ~(uint32_t)MLX4_WQE_CTRL_FENCE);
	ctrl->imm = imm;
}

/*
 * mlx4dv_wqe_set_ctrl_vlan - ask the device to insert a VLAN tag into an
 * Ethernet frame (raw packet QPs). vlan_tci: host order, PCP/DEI/VID as in
 * the tag; ins_vlan: MLX4DV_WQE_CTRL_INS_CVLAN (802.1Q) or
 * MLX4DV_WQE_CTRL_INS_SVLAN (802.1ad). Writes bytes 4..5 (tag, big-endian)
 * and byte 6; call after mlx4dv_wqe_set_ctrl(). Not for BlueFlame: bytes
 * 4..7 then carry the QPN (mlx4_en en_tx.c turns BlueFlame off for
 * VLAN-tagged sends). (kernel mlx4_en en_tx.c, include/linux/mlx4/qp.h.)
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_ctrl_vlan(struct mlx4_wqe_ctrl_seg *ctrl, uint16_t vlan_tci,
			 uint8_t ins_vlan)
{
	uint8_t *b = (uint8_t *)ctrl;

	b[4] = (uint8_t)(vlan_tci >> 8);
	b[5] = (uint8_t)vlan_tci;
	b[6] = ins_vlan;
}

/*
 * mlx4dv_wqe_set_ctrl_dmac - copy the destination MAC (the first 6 bytes of
 * the frame, network order) into the upper half of srcrb_flags and the
 * immediate, so that the embedded switch can loop the frame back to a
 * local function (raw packet QPs on Ethernet; libmlx4 qp.c does it for
 * every raw packet send, DPDK mlx4_rxtx.c when loopback is on). Keeps the
 * low 16 bits of srcrb_flags; call after mlx4dv_wqe_set_ctrl().
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_ctrl_dmac(struct mlx4_wqe_ctrl_seg *ctrl, const uint8_t *dmac)
{
	memcpy(&ctrl->srcrb_flags16[0], dmac, 2);
	memcpy(&ctrl->imm, dmac + 2, 4);
}

/*
 * mlx4dv_wqe_set_owner_opcode - hand the WQE to the device: a store
 * barrier (every other byte of the WQE first), then word 0.
 *
 * owner_opcode: host order; MLX4DV_WQE_CTRL_OWNER when the WQE's producer
 * count has (count & wqe_cnt) != 0, OR the opcode (MLX4_OPCODE_*), OR
 * MLX4DV_WQE_CTRL_NEC / _INNER_IP_CSUM / _INNER_L4_CSUM /
 * _LSO_BIG_HEADER as needed. mlx4dv_sq_wqe_finish() computes the owner
 * bit and calls this. (libmlx4 qp.c: udma_to_device_barrier() before
 * owner_opcode.)
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_owner_opcode(struct mlx4_wqe_ctrl_seg *ctrl,
			    uint32_t owner_opcode)
{
	mlx4dv_barrier_to_device();
	ctrl->owner_opcode = mlx4dv_cpu_to_be32(owner_opcode);
}

/* Two 32-bit words as the 8 bytes they occupy in memory, first at the
 * lower address. Built with shifts where the byte order is known, so that
 * a word already in a register becomes the 8-byte value without a detour
 * through a vector register. */
static MLX4DV_ALWAYS_INLINE uint64_t
__mlx4dv_u32_pair(uint32_t first, uint32_t second)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (uint64_t)first | ((uint64_t)second << 32);
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return ((uint64_t)first << 32) | (uint64_t)second;
#else
	uint64_t v;

	memcpy(&v, &first, 4);
	memcpy((uint8_t *)&v + 4, &second, 4);
	return v;
#endif
}

/* Two big-endian words as the 8 bytes they occupy in the ring. */
static MLX4DV_ALWAYS_INLINE uint64_t
__mlx4dv_be32_pair(__be32 first, __be32 second)
{
	return __mlx4dv_u32_pair((uint32_t)first, (uint32_t)second);
}

/* Bytes 8..15 of a remote address segment: rkey big-endian, then the
 * reserved word 0: the big-endian form of rkey << 32 in any host byte
 * order, so that both words are one 8-byte store. */
static MLX4DV_ALWAYS_INLINE __be64
__mlx4dv_raddr_rkey_rsvd(uint32_t rkey)
{
	return mlx4dv_cpu_to_be64((uint64_t)rkey << 32);
}

/* The remote address segment from its two 8-byte halves as stored. */
static MLX4DV_ALWAYS_INLINE void
__mlx4dv_wqe_set_raddr_words(struct mlx4_wqe_raddr_seg *seg, __be64 raddr,
			   __be64 rkey_rsvd)
{
	seg->raddr = raddr;
	__MLX4DV_STORE_GROUP();
	memcpy(&seg->rkey, &rkey_rsvd, sizeof(rkey_rsvd));
}

/* Remote address segment (16 bytes): raddr, rkey host order, stored
 * big-endian; reserved word 0. (libmlx4 qp.c set_raddr_seg.) */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_raddr_seg(struct mlx4_wqe_raddr_seg *seg, uint64_t raddr,
			 uint32_t rkey)
{
	__mlx4dv_wqe_set_raddr_words(seg, mlx4dv_cpu_to_be64(raddr),
				   __mlx4dv_raddr_rkey_rsvd(rkey));
}

/* Atomic segment (16 bytes) of a compare-and-swap: swap_add = swap,
 * compare = compare; host order, stored big-endian. Follows the remote
 * address segment. (libmlx4 qp.c set_atomic_seg.) */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_atomic_cas_seg(struct mlx4_wqe_atomic_seg *seg, uint64_t compare,
			      uint64_t swap)
{
	seg->swap_add = mlx4dv_cpu_to_be64(swap);
	seg->compare = mlx4dv_cpu_to_be64(compare);
}

/* Atomic segment (16 bytes) of a fetch-and-add: swap_add = add, compare 0;
 * host order, stored big-endian. (libmlx4 qp.c set_atomic_seg.) */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_atomic_faa_seg(struct mlx4_wqe_atomic_seg *seg, uint64_t add)
{
	seg->swap_add = mlx4dv_cpu_to_be64(add);
	seg->compare = 0;
}

/*
 * Masked compare-and-swap segment (32 bytes, opcode
 * MLX4_OPCODE_MASKED_ATOMIC_CS): the bits of compare_mask are compared
 * with compare, the bits of swap_mask are replaced from swap. Host order,
 * stored big-endian: swap, compare, swap_mask, compare_mask in that order
 * (kernel mlx4_ib qp.c set_masked_atomic_seg). Follows the remote address
 * segment; WQE ds 1 + 1 + 2 + data.
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_masked_atomic_cas_seg(struct mlx4dv_wqe_masked_atomic_seg *seg,
				     uint64_t compare, uint64_t compare_mask,
				     uint64_t swap, uint64_t swap_mask)
{
	seg->swap_add = mlx4dv_cpu_to_be64(swap);
	seg->compare = mlx4dv_cpu_to_be64(compare);
	seg->swap_add_mask = mlx4dv_cpu_to_be64(swap_mask);
	seg->compare_mask = mlx4dv_cpu_to_be64(compare_mask);
}

/*
 * Masked fetch-and-add segment (16 bytes, opcode
 * MLX4_OPCODE_MASKED_ATOMIC_FA): swap_add = add, compare = the field
 * boundary mask (a set bit ends a field: no carry out of it). Host order,
 * stored big-endian. The kernel uses the plain 16-byte atomic segment for
 * this opcode, not the 32-byte masked one (kernel mlx4_ib qp.c
 * set_atomic_seg, IB_WR_MASKED_ATOMIC_FETCH_AND_ADD).
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_masked_atomic_faa_seg(struct mlx4_wqe_atomic_seg *seg,
				     uint64_t add, uint64_t field_boundary_mask)
{
	seg->swap_add = mlx4dv_cpu_to_be64(add);
	seg->compare = mlx4dv_cpu_to_be64(field_boundary_mask);
}

/* What a bind-memory-window WQE binds (host order throughout). */
struct mlx4dv_bind_mw_attr {
	uint64_t		addr;		/* start (virtual, or offset if
						 * IBV_ACCESS_ZERO_BASED) */
	uint64_t		length;		/* bytes */
	uint32_t		new_rkey;	/* rkey the window gets */
	uint32_t		mr_lkey;	/* lkey of the MR bound to */
	uint32_t		access;		/* IBV_ACCESS_REMOTE_READ/WRITE/
						 * ATOMIC, IBV_ACCESS_ZERO_BASED */
	uint32_t		mw_type;	/* IBV_MW_TYPE_1 or IBV_MW_TYPE_2 */
};

/*
 * Bind segment (32 bytes, opcode MLX4_OPCODE_BIND_MW): flags1 = remote
 * access bits (atomic 31, write 30, read 29); flags2 = type 2 (bit 31),
 * zero based (bit 30); new rkey, MR lkey, address, length, big-endian.
 * libmlx4 also sets MLX4_WQE_CTRL_STRONG_ORDER in the control segment.
 * (libmlx4 qp.c set_bind_seg.)
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_bind_seg(struct mlx4_wqe_bind_seg *seg,
			const struct mlx4dv_bind_mw_attr *attr)
{
	uint32_t flags1 = 0, flags2 = 0;

	if (attr->access & IBV_ACCESS_REMOTE_ATOMIC)
		flags1 |= (uint32_t)MLX4_WQE_MW_ATOMIC;
	if (attr->access & IBV_ACCESS_REMOTE_WRITE)
		flags1 |= MLX4_WQE_MW_REMOTE_WRITE;
	if (attr->access & IBV_ACCESS_REMOTE_READ)
		flags1 |= MLX4_WQE_MW_REMOTE_READ;
	if (attr->mw_type == IBV_MW_TYPE_2)
		flags2 |= (uint32_t)MLX4_WQE_BIND_TYPE_2;
	if (attr->access & IBV_ACCESS_ZERO_BASED)
		flags2 |= MLX4_WQE_BIND_ZERO_BASED;
	seg->flags1 = mlx4dv_cpu_to_be32(flags1);
	seg->flags2 = mlx4dv_cpu_to_be32(flags2);
	seg->new_rkey = mlx4dv_cpu_to_be32(attr->new_rkey);
	seg->lkey = mlx4dv_cpu_to_be32(attr->mr_lkey);
	seg->addr = mlx4dv_cpu_to_be64(attr->addr);
	seg->length = mlx4dv_cpu_to_be64(attr->length);
}

/* Local invalidate segment (32 bytes, opcode MLX4_OPCODE_LOCAL_INVAL):
 * mem_key host order stored big-endian at byte 8, the rest 0. libmlx4
 * also sets MLX4_WQE_CTRL_STRONG_ORDER. (libmlx4 qp.c set_local_inv_seg.) */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_local_inval_seg(struct mlx4_wqe_local_inval_seg *seg,
			       uint32_t mem_key)
{
	seg->reserved1 = 0;
	seg->mem_key = mlx4dv_cpu_to_be32(mem_key);
	seg->reserved2 = 0;
	seg->reserved3[0] = 0;
	seg->reserved3[1] = 0;
}

/*
 * A prepared UD destination: the device image of the address vector plus
 * the Ethernet fields of the datagram segment, built once per destination
 * by mlx4dv_ud_av_from_attr() (what libmlx4 keeps in its private struct
 * mlx4_ah). av is big-endian as stored; vlan is big-endian; mac network
 * order.
 */
struct mlx4dv_ud_av {
	struct mlx4_av		av;
	__be16			vlan;
	uint8_t			mac[6];
};

/* Ethernet (RoCE) part of a UD destination: the resolved destination MAC
 * (network order) and VLAN ID (host order, 0..4095; 0xffff for none). */
struct mlx4dv_ud_av_eth {
	uint8_t			mac[6];
	uint16_t		vlan_id;
};

/*
 * mlx4dv_ud_av_from_attr - build a UD destination from an address handle
 * description, as libmlx4's mlx4_create_ah() does (rdma-core
 * providers/mlx4/verbs.c).
 *
 * pdn:  the PD number (host order, 24 bits) the kernel gave the PD (mlx4
 *       ALLOC_PD response, kernel-headers/rdma/mlx4-abi.h), which
 *       libmlx4dv's mlx4dv_pd_query_pdn() reads; stored in the low 24 bits
 *       of port_pd, attr->port_num in the high 8. For a destination that
 *       has an ibv_ah already, mlx4dv_ud_av_from_ah() gives the whole
 *       destination as libmlx4 built it.
 * attr: IB: dlid, src_path_bits, sl (bits 28..31); with is_global the GRH
 *       fields (g_slid bit 7, sgid_index, hop_limit, traffic class << 20 |
 *       flow label, dgid). static_rate: an enum ibv_rate, stored + 5.
 * eth:  NULL on InfiniBand ports. On Ethernet (RoCE) ports: sl goes to
 *       bits 29..31, is_global is required, dlid stays 0, and a VLAN ID
 *       <= 4095 sets port_pd bit 29 and vlan = vid | (sl & 7) << 13. mac
 *       and vlan_id are what ibv_resolve_eth_l2_from_gid() gives for
 *       attr (the MAC of the DGID's neighbour, 33:33 + its low 32 bits
 *       for an IPv6 multicast DGID): libmlx4 takes them from there on
 *       ports with IP-based GIDs (IBV_PORT_IP_BASED_GIDS, which mlx4_ib
 *       reports on every Ethernet port), and a multicast DGID gets no
 *       other bit (its dlid 0xc000 and port_pd bit 31 belong to
 *       mlx4_resolve_grh_to_l2(), the path of ports without IP-based
 *       GIDs, which this function does not build).
 * Returns 0, or EINVAL (NULL argument, pdn over 24 bits, RoCE without
 * GRH).
 */
static inline int
mlx4dv_ud_av_from_attr(struct mlx4dv_ud_av *out, uint32_t pdn,
		       const struct ibv_ah_attr *attr,
		       const struct mlx4dv_ud_av_eth *eth)
{
	uint32_t port_pd, sl_tc_fl;
	uint16_t vlan = 0;

	if (!out || !attr || pdn > 0xffffff || (eth && !attr->is_global))
		return EINVAL;
	memset(out, 0, sizeof(*out));
	port_pd = pdn | ((uint32_t)attr->port_num << 24);
	if (!eth) {
		out->av.g_slid = attr->src_path_bits;
		out->av.dlid = mlx4dv_cpu_to_be16(attr->dlid);
		sl_tc_fl = (uint32_t)attr->sl << 28;
	} else {
		sl_tc_fl = (uint32_t)attr->sl << 29;
	}
	if (attr->static_rate)
		out->av.stat_rate = (uint8_t)(attr->static_rate + 5);
	if (attr->is_global) {
		out->av.g_slid |= 0x80;
		out->av.gid_index = attr->grh.sgid_index;
		out->av.hop_limit = attr->grh.hop_limit;
		sl_tc_fl |= ((uint32_t)attr->grh.traffic_class << 20) |
			    attr->grh.flow_label;
		memcpy(out->av.dgid, attr->grh.dgid.raw, 16);
	}
	if (eth) {
		memcpy(out->mac, eth->mac, 6);
		if (eth->vlan_id <= 0xfff) {
			port_pd |= 1U << 29;
			vlan = (uint16_t)(eth->vlan_id | ((attr->sl & 7) << 13));
		}
	}
	out->av.port_pd = mlx4dv_cpu_to_be32(port_pd);
	out->av.sl_tclass_flowlabel = mlx4dv_cpu_to_be32(sl_tc_fl);
	out->vlan = mlx4dv_cpu_to_be16(vlan);
	return 0;
}

/*
 * mlx4dv_ud_av_init - the 0.2 name of mlx4dv_ud_av_from_attr()
 * (deprecated in 0.3, docs/migration-0.3.md): the same arguments and
 * results.
 */
static inline __MLX4DV_DEPRECATED("mlx4dv_ud_av_from_attr()") int
mlx4dv_ud_av_init(struct mlx4dv_ud_av *out, uint32_t pdn,
		  const struct ibv_ah_attr *attr,
		  const struct mlx4dv_ud_av_eth *eth)
{
	return mlx4dv_ud_av_from_attr(out, pdn, attr, eth);
}

/* The PD number (host order, 24 bits) in a UD destination: the low 24
 * bits of its port_pd word (libmlx4 verbs.c mlx4_create_ah). */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_ud_av_pdn(const struct mlx4dv_ud_av *dest)
{
	return mlx4dv_be32_to_cpu(dest->av.port_pd) & 0xffffff;
}

/*
 * Datagram segment (48 bytes) of a UD send: the 32-byte address vector
 * from dest, then remote QPN and Q_Key (host order, stored big-endian),
 * then dest's VLAN and MAC. (libmlx4 qp.c set_datagram_seg.)
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_datagram_seg(struct mlx4_wqe_datagram_seg *seg,
			    const struct mlx4dv_ud_av *dest,
			    uint32_t remote_qpn, uint32_t remote_qkey)
{
	memcpy(&seg->av, &dest->av, sizeof(seg->av));
	seg->dqpn = mlx4dv_cpu_to_be32(remote_qpn);
	seg->qkey = mlx4dv_cpu_to_be32(remote_qkey);
	seg->vlan = dest->vlan;
	memcpy(seg->mac, dest->mac, 6);
}

/*
 * mlx4dv_wqe_set_data_seg - one gather entry (16 bytes), written safely:
 * lkey and addr, a store barrier, then byte_count, so that a prefetched
 * chunk never shows a valid byte count in front of stale lkey/addr.
 * length: bytes, host order, at most MLX4DV_DATA_SEG_MAX_LENGTH (a
 * precondition, asserted under MLX4DV_DEBUG: the one-call posts refuse
 * longer entries with EINVAL); 0 is encoded as MLX4DV_DATA_SEG_ZERO_LENGTH
 * (a plain 0 means 2 GiB). lkey, addr: host order. Write the entries of a
 * WQE last-to-first (mlx4dv_sq_set_data_segs() does). (libmlx4 qp.c
 * set_data_seg.)
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_data_seg(struct mlx4_wqe_data_seg *seg, uint32_t length,
			uint32_t lkey, uint64_t addr)
{
	MLX4DV_ASSERT(length <= MLX4DV_DATA_SEG_MAX_LENGTH);
	seg->lkey = mlx4dv_cpu_to_be32(lkey);
	seg->addr = mlx4dv_cpu_to_be64(addr);
	mlx4dv_barrier_to_device();
	seg->byte_count = mlx4dv_cpu_to_be32(length ? length :
					     MLX4DV_DATA_SEG_ZERO_LENGTH);
}

/*
 * A gather entry that lies in the first 64-byte chunk of its WQE. That
 * chunk holds the owner word, which is written last behind a store
 * barrier (__mlx4dv_sq_geom_finish_stamped()): the device takes none of the
 * chunk before it, so the chunk's other words may be stored in any order.
 * The byte-count-last barrier of mlx4dv_wqe_set_data_seg() is for an
 * entry that starts a chunk of its own, which the device may prefetch
 * apart from the owner word (libmlx4 qp.c set_data_seg: "if the segment
 * begins a new cacheline"); here byte_count and lkey go as one 8-byte
 * store, as in the template batch. Same bytes.
 */
static MLX4DV_ALWAYS_INLINE void
__mlx4dv_wqe_set_data_seg_chunk0(struct mlx4_wqe_data_seg *seg, uint32_t length,
			       uint32_t lkey, uint64_t addr)
{
	uint64_t count_lkey = __mlx4dv_be32_pair(
		mlx4dv_cpu_to_be32(length ? length : MLX4DV_DATA_SEG_ZERO_LENGTH),
		mlx4dv_cpu_to_be32(lkey));

	MLX4DV_ASSERT(length <= MLX4DV_DATA_SEG_MAX_LENGTH);
	memcpy(seg, &count_lkey, sizeof(count_lkey));
	seg->addr = mlx4dv_cpu_to_be64(addr);
}

/*
 * The ring's geometry read once into locals. The device barriers are
 * compiler memory clobbers, and every store into the ring may alias the
 * handle, so the posts work from this copy instead of re-reading the
 * handle after each store.
 */
struct __mlx4dv_sq_geom {
	uint8_t			*buf;		/* first WQEBB */
	uint8_t			*end;		/* first byte past the ring */
	size_t			size;		/* wqe_cnt << wqe_shift bytes */
	uint32_t		wqe_cnt;
	uint32_t		wqe_shift;
	uint32_t		head;
	uint32_t		spare_wqes;
};

static MLX4DV_ALWAYS_INLINE struct __mlx4dv_sq_geom
__mlx4dv_sq_geom_load(const struct mlx4dv_sq_ring *sq)
{
	struct __mlx4dv_sq_geom g;

	g.buf = sq->buf;
	g.size = (size_t)sq->wqe_cnt << sq->wqe_shift;
	g.end = g.buf + g.size;
	g.wqe_cnt = sq->wqe_cnt;
	g.wqe_shift = sq->wqe_shift;
	g.head = sq->head;
	g.spare_wqes = sq->spare_wqes;
	return g;
}

/* WQEBB of producer count `count` in a loaded geometry. */
static MLX4DV_ALWAYS_INLINE uint8_t *
__mlx4dv_sq_geom_wqebb(const struct __mlx4dv_sq_geom *g, uint32_t count)
{
	return g->buf + ((size_t)(count & (g->wqe_cnt - 1)) << g->wqe_shift);
}

/* p brought back into the ring when it ran past the end. */
static MLX4DV_ALWAYS_INLINE uint8_t *
__mlx4dv_sq_geom_wrap(const struct __mlx4dv_sq_geom *g, uint8_t *p)
{
	return p >= g->end ? p - g->size : p;
}

/* Gather entries last-to-first at first (see mlx4dv_sq_set_data_segs);
 * may_wrap 0 when the whole WQE lies before the ring end; first_ds: the
 * ds offset of entry 0 in its WQE, so that the entries in the WQE's first
 * chunk skip the barrier (__mlx4dv_wqe_set_data_seg_chunk0()); 4 or more
 * when unknown. */
static MLX4DV_ALWAYS_INLINE void
__mlx4dv_sq_geom_set_data_segs(const struct __mlx4dv_sq_geom *g, uint8_t *first,
			       const struct ibv_sge *sg, uint32_t num_sge,
			       int may_wrap, uint32_t first_ds)
{
	uint32_t i;

	for (i = num_sge; i-- > 0;) {
		uint8_t *p = first + ((size_t)i << 4);

		if (may_wrap)
			p = __mlx4dv_sq_geom_wrap(g, p);
		if (first_ds + i < MLX4DV_WQE_CHUNK / 16)
			__mlx4dv_wqe_set_data_seg_chunk0(
				(struct mlx4_wqe_data_seg *)p, sg[i].length,
				sg[i].lkey, sg[i].addr);
		else
			mlx4dv_wqe_set_data_seg((struct mlx4_wqe_data_seg *)p,
						sg[i].length, sg[i].lkey,
						sg[i].addr);
	}
}

/*
 * mlx4dv_sq_set_data_segs - num_sge gather entries from sg (host order
 * ibv_sge: addr, length in bytes, lkey) at seg, a 16-byte-aligned place in
 * the SQ ring; entries past the ring end continue at its start. Written
 * last-to-first, so that the first word of every 64-byte chunk is the last
 * store to it. Returns the ds used (num_sge).
 * Preconditions (asserted with MLX4DV_DEBUG): seg in the ring, 16-byte
 * aligned; num_sge <= 62 and num_sge + 1 ds no larger than the ring (a
 * WQE is at most 63 ds; more would write past the ring's end).
 */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_sq_set_data_segs(const struct mlx4dv_sq_ring *sq, void *seg,
			const struct ibv_sge *sg, uint32_t num_sge)
{
	struct __mlx4dv_sq_geom g = __mlx4dv_sq_geom_load(sq);

	__MLX4DV_CHECK((uint8_t *)seg >= sq->buf &&
		       (uint8_t *)seg < mlx4dv_sq_ring_end(sq) &&
		       ((uintptr_t)seg & 15) == 0,
		       "mlx4dv_sq_set_data_segs",
		       "seg must be a 16-byte-aligned place in the SQ ring");
	__MLX4DV_CHECK(num_sge <= 62 &&
		       ((size_t)num_sge + 1) << 4 <=
		       (size_t)sq->wqe_cnt << sq->wqe_shift,
		       "mlx4dv_sq_set_data_segs",
		       "num_sge entries and a control segment must fit in one "
		       "WQE (ds <= 63) and in the ring");
	__mlx4dv_sq_geom_set_data_segs(&g, (uint8_t *)seg, sg, num_sge, 1,
				       MLX4DV_WQE_CHUNK / 16);
	return num_sge;
}

/*
 * mlx4dv_inline_ds - ds (16-byte units) of total_bytes of inline data
 * whose first header starts at byte chunk_offset (0, 16, 32 or 48) of a
 * 64-byte chunk. A new 4-byte header opens at every 64-byte boundary the
 * data reaches; a boundary reached exactly at the end opens nothing.
 * total_bytes 0: 0 (no header at all, as libmlx4). (libmlx4 qp.c
 * mlx4_post_send inline branch.)
 */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_inline_ds(uint32_t chunk_offset, uint32_t total_bytes)
{
	uint32_t first = MLX4DV_WQE_CHUNK - 4 - chunk_offset;
	uint32_t headers;

	if (!total_bytes)
		return 0;
	headers = total_bytes < first ? 1 :
		1 + (total_bytes - first + MLX4DV_WQE_CHUNK - 5) /
		(MLX4DV_WQE_CHUNK - 4);
	return (total_bytes + 4 * headers + 15) >> 4;
}

/* The body of mlx4dv_sq_set_inline_sge() on a loaded geometry. */
static inline uint32_t
__mlx4dv_sq_geom_set_inline_sge(const struct __mlx4dv_sq_geom *g, uint8_t *pos,
				const struct ibv_sge *sg, uint32_t num_src)
{
	uint8_t *p = pos;
	struct mlx4_wqe_inline_seg *hdr = (struct mlx4_wqe_inline_seg *)p;
	uint32_t off = (uint32_t)((p - g->buf) & (MLX4DV_WQE_CHUNK - 1)) + 4;
	uint32_t seg_len = 0, total = 0, headers = 0, i;

	p += 4;
	for (i = 0; i < num_src; i++) {
		const uint8_t *src = (const uint8_t *)(uintptr_t)sg[i].addr;
		uint32_t len = sg[i].length;

		total += len;
		while (len >= MLX4DV_WQE_CHUNK - off) {
			uint32_t part = MLX4DV_WQE_CHUNK - off;

			memcpy(p, src, part);
			src += part;
			len -= part;
			seg_len += part;
			mlx4dv_barrier_to_device();
			hdr->byte_count = mlx4dv_cpu_to_be32(
				(uint32_t)MLX4_INLINE_SEG | seg_len);
			headers++;
			hdr = (struct mlx4_wqe_inline_seg *)
				__mlx4dv_sq_geom_wrap(g, p + part);
			p = (uint8_t *)hdr + 4;
			off = 4;
			seg_len = 0;
		}
		if (len)	/* an empty entry may carry a NULL address */
			memcpy(p, src, len);
		p += len;
		off += len;
		seg_len += len;
	}
	if (seg_len) {
		mlx4dv_barrier_to_device();
		hdr->byte_count = mlx4dv_cpu_to_be32((uint32_t)MLX4_INLINE_SEG |
						     seg_len);
		headers++;
	}
	return (total + 4 * headers + 15) >> 4;
}

/*
 * mlx4dv_sq_set_inline_sge - copy inline data into the SQ ring at pos (a
 * 16-byte-aligned place after the WQE's fixed segments), gathered from
 * num_src buffers (sg[i].addr, sg[i].length bytes; lkey ignored).
 *
 * Each 64-byte chunk (counted from the ring start, hence from the WQE
 * start) gets its own header {MLX4_INLINE_SEG | bytes} at its first byte
 * (or at pos in the first chunk); the header is written after its data,
 * behind a store barrier, so a prefetched chunk never shows a valid header
 * over stale bytes. Past the ring end the copy continues at the ring
 * start. Returns the ds used, equal to mlx4dv_inline_ds().
 * (libmlx4 qp.c mlx4_post_send; PRM "Inline data segment".)
 */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_sq_set_inline_sge(const struct mlx4dv_sq_ring *sq, void *pos,
			 const struct ibv_sge *sg, uint32_t num_src)
{
	struct __mlx4dv_sq_geom g = __mlx4dv_sq_geom_load(sq);

	return __mlx4dv_sq_geom_set_inline_sge(&g, (uint8_t *)pos, sg, num_src);
}

/*
 * One inline buffer of len bytes at pos, byte chunk_off (0, 16, 32, 48)
 * of its 64-byte chunk (after the fixed segments, so in the WQE's first
 * chunk): the data is cut at each 64-byte boundary, every header written
 * after its data. The posts pass chunk_off as a constant (WQEs start on a
 * WQEBB, a multiple of 64 bytes from the ring start), so that a buffer of
 * constant length is copied without a loop.
 */
static MLX4DV_ALWAYS_INLINE uint32_t
__mlx4dv_sq_geom_set_inline(const struct __mlx4dv_sq_geom *g, uint8_t *pos,
			    uint32_t chunk_off, const void *data, uint32_t len)
{
	const uint8_t *src = (const uint8_t *)data;
	uint32_t room = MLX4DV_WQE_CHUNK - 4 - chunk_off;
	uint32_t total = len, headers = 0;
	uint8_t *hdr = pos;

	if (!len)
		return 0;
	while (len >= room) {
		memcpy(hdr + 4, src, room);
		src += room;
		len -= room;
		mlx4dv_barrier_to_device();
		((struct mlx4_wqe_inline_seg *)hdr)->byte_count =
			mlx4dv_cpu_to_be32((uint32_t)MLX4_INLINE_SEG | room);
		headers++;
		hdr = __mlx4dv_sq_geom_wrap(g, hdr + 4 + room);
		room = MLX4DV_WQE_CHUNK - 4;
	}
	if (len) {
		memcpy(hdr + 4, src, len);
		mlx4dv_barrier_to_device();
		((struct mlx4_wqe_inline_seg *)hdr)->byte_count =
			mlx4dv_cpu_to_be32((uint32_t)MLX4_INLINE_SEG | len);
		headers++;
	}
	return (total + 4 * headers + 15) >> 4;
}

/* mlx4dv_sq_set_inline - the same as mlx4dv_sq_set_inline_sge() for
 * one source buffer of len bytes (data may be NULL when len is 0). */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_sq_set_inline(const struct mlx4dv_sq_ring *sq, void *pos,
		     const void *data, uint32_t len)
{
	struct __mlx4dv_sq_geom g = __mlx4dv_sq_geom_load(sq);

	return __mlx4dv_sq_geom_set_inline(&g, (uint8_t *)pos,
		(uint32_t)(((uint8_t *)pos - g.buf) & (MLX4DV_WQE_CHUNK - 1)),
		data, len);
}

/*
 * mlx4dv_wqe_lso_ds - ds of an LSO segment with a header of header_size
 * bytes: align(4 + header_size, 16) / 16. Above 4 ds (64 bytes) the
 * WQE needs MLX4DV_WQE_CTRL_LSO_BIG_HEADER in owner_opcode.
 */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_wqe_lso_ds(uint32_t header_size)
{
	return (4 + header_size + 15) >> 4;
}

/*
 * mlx4dv_sq_set_lso_seg - LSO segment at seg (16-byte aligned, in the
 * ring): word mss << 16 | header_size (host order, stored big-endian),
 * then the header_size bytes of header (the packet headers the device
 * repeats in every segment), zero-padded to 16 bytes; continues at the
 * ring start past the ring end. The first word is written last, behind a
 * barrier (it may start a 64-byte chunk; kernel mlx4_ib qp.c writes it
 * after the data segments). mss: bytes of payload per segment. Returns the
 * ds used (mlx4dv_wqe_lso_ds()). Opcode MLX4_OPCODE_LSO. (kernel mlx4_ib
 * qp.c build_lso_seg, mlx4_en en_tx.c.)
 */
static inline uint32_t
mlx4dv_sq_set_lso_seg(const struct mlx4dv_sq_ring *sq, void *seg, uint16_t mss,
		      const void *header, uint16_t header_size)
{
	uint32_t ds = mlx4dv_wqe_lso_ds(header_size);
	uint32_t bytes = (ds << 4) - 4;
	uint8_t *p = (uint8_t *)seg + 4;
	uint8_t *end = mlx4dv_sq_ring_end(sq);
	const uint8_t *src = (const uint8_t *)header;
	uint32_t done = 0;

	while (done < bytes) {
		uint32_t room, n, from_src;

		p = mlx4dv_sq_wrap(sq, p);
		room = (uint32_t)(end - p);
		n = bytes - done < room ? bytes - done : room;
		from_src = done < header_size ?
			(header_size - done < n ? header_size - done : n) : 0;
		memcpy(p, src + done, from_src);
		memset(p + from_src, 0, n - from_src);
		p += n;
		done += n;
	}
	mlx4dv_barrier_to_device();
	((struct mlx4_wqe_lso_seg *)seg)->mss_hdr_size =
		mlx4dv_cpu_to_be32(((uint32_t)mss << 16) | header_size);
	return ds;
}

#ifdef __cplusplus
}
#endif

#endif /* _MLX4DV_WQE_H_ */
