/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * UD multicast groups of the adapter: which QPs are attached to which
 * multicast GID, and the fan-out of a datagram sent to one.
 */
#ifndef MLX4EMU_MCAST_H
#define MLX4EMU_MCAST_H

#include <stdbool.h>
#include <stdint.h>

struct emu_qp;

/* A ConnectX-3's multicast table (mlx4_ib_query_device: max_mcast_grp =
 * num_mgms + num_amgms, max_mcast_qp_attach = num_qp_per_mgm). */
#define EMU_MAX_MCAST_GRP 8192
#define EMU_MCAST_QP_PER_GRP 248
/* The destination QPN of every multicast packet (IBA 9.3, BTH DestQP). */
#define EMU_MCAST_QPN 0xffffff

/* ff00::/8, or an IPv4-mapped 224.0.0.0/4 (the kernel's
 * rdma_is_multicast_addr). */
bool emu_gid_is_multicast(const uint8_t gid[16]);

/*
 * Attaches the QP to the group of gid under mlid (emu_dev.lock held).  An
 * attachment that already exists is accepted again and changes nothing, as
 * the uverbs layer does.  0, or ENOMEM when the group table or the group is
 * full.
 */
int emu_mcast_attach(const struct emu_qp *qp, const uint8_t gid[16], uint16_t mlid);
/* Removes that attachment; 0, or EINVAL when the QP has no such one. */
int emu_mcast_detach(const struct emu_qp *qp, const uint8_t gid[16], uint16_t mlid);
/* Removes every attachment of the QPN (its context is closed). */
void emu_mcast_detach_all(uint32_t qpn);
/* true when the QPN is attached to some group */
bool emu_mcast_qp_attached(uint32_t qpn);

/*
 * The multicast part of a UD send whose datagram segment's address vector
 * is `av` (48 bytes: byte 5 bit 7 GRH present, bytes 6..7 DLID, 16..31 DGID,
 * all big-endian) on a port that is Ethernet (`eth`) or InfiniBand.
 *
 * Returns false when the destination is unicast (the caller delivers it).
 * Otherwise the datagram is multicast and handled here: with a multicast
 * DGID in the GRH (RoCE always has a GRH) and DestQP 0xffffff, deliver(arg,
 * qp) is called once for every live QP attached to the DGID's group (a QP
 * attached under several MLIDs still gets one copy), in attachment order,
 * except the sender when it was created with
 * IBV_QP_CREATE_BLOCK_SELF_MCAST_LB; the callback applies the per-QP
 * receive rules (state, port, Q_Key, a posted receive WQE).  A multicast
 * DGID with another DestQP, or on InfiniBand a multicast DLID
 * (0xc000..0xfffe) without a GRH, reaches nobody: groups are found by
 * MGID.
 */
/*
 * deliver(arg, qp) once for every live QP attached to the group of gid
 * (one copy per QP, in attachment order), except `sender` (may be NULL)
 * when it was created with IBV_QP_CREATE_BLOCK_SELF_MCAST_LB.
 */
void emu_mcast_fanout(const uint8_t gid[16], const struct emu_qp *sender,
		      void (*deliver)(void *arg, struct emu_qp *qp), void *arg);

bool emu_mcast_send(const uint8_t *av, bool eth, uint32_t dqpn,
		    const struct emu_qp *sender,
		    void (*deliver)(void *arg, struct emu_qp *qp), void *arg);

#endif
