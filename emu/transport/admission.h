/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Which received packets reach a QP, as a ConnectX-3 decides it: a
 * connected QP (RC, UC, XRC) takes packets only from its path, the
 * adapter its last RTR named (the DLID or DGID of its address vector),
 * and only in RTR, RTS, SQD and SQE; a QP whose path is this adapter is
 * reached in-process and never from the wire.  Everything else is
 * dropped without an answer and counted (the port's rx_refused,
 * wire/link.h; the control API's wire_packets_refused).  The port's
 * socket filter (wire/peer_filter.h) is kept in step with the QPs'
 * paths so that strangers' datagrams do not even take receive-buffer
 * space.  Engine thread and command path, the adapter lock held.
 */
#ifndef MLX4EMU_TRANSPORT_ADMISSION_H
#define MLX4EMU_TRANSPORT_ADMISSION_H

#include "adapter/objects.h"
#include "wire/link.h"
#include "wire/roce.h"

/*
 * The QP of this adapter an RC/UC/XRC packet may reach (its DestQP, the
 * transport of its opcode, the port it came in on, a state that takes
 * packets, and rx->src the address of the QP's path), with that path's
 * address in *path: where every answer goes.  NULL when the packet
 * reaches no QP; it is then counted as refused.
 */
struct emu_qp *emu_admit_connected(const struct emu_rx *rx, const struct emu_bth *bth,
				   uint32_t *path);

/* A packet dropped before it was offered to any QP (bad P_Key, unknown
 * opcode, shorter than its headers): counted as refused. */
void emu_admit_refuse(const struct emu_rx *rx);

/* The QP moved to `next` (its path may have changed): the port's filter
 * follows. */
void emu_admission_qp_modified(struct emu_qp *qp, int next);
/* The QP is going: it no longer holds a place in the filter. */
void emu_admission_qp_destroyed(struct emu_qp *qp);

#endif
