/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* UD over the wire: one SEND_ONLY[_WITH_IMMEDIATE] packet per message. */
#ifndef MLX4EMU_TRANSPORT_UD_H
#define MLX4EMU_TRANSPORT_UD_H

#include "adapter/remote.h"
#include "wire/link.h"
#include "wire/roce.h"

/* Sends a datagram to QP dqpn of the adapter at addr (IPv4, host order):
 * 0, or EAGAIN when the link's datagram credits have no room for it
 * (transport/datagram_credits.h; nothing sent, the QP is scheduled when
 * they do). */
int emu_ud_send_remote(struct emu_qp *qp, uint32_t addr, uint32_t dqpn,
		       const struct emu_ud_msg *m);
/* A UD packet that arrived (BTH decoded); dropped unless a UD QP of the
 * port takes it. */
void emu_ud_receive(const struct emu_rx *rx, const struct emu_bth *bth);

/* Floods a datagram for a multicast group (m->dgid) to the ports of the
 * wire segment (the RoCE v1 frame of ud.c in the VXLAN tunnel). */
void emu_ud_mcast_send_remote(struct emu_qp *qp, const struct emu_ud_msg *m);
/* A frame from the tunnel of `port` (sent by the port at src): when it is
 * a multicast datagram (RoCE v1 frame, ICRC good) every QP of the port
 * attached to its group gets a copy, and true is returned; false for a
 * frame that is not one. */
bool emu_ud_mcast_receive(unsigned port, uint32_t src, const uint8_t *frame, size_t len);

#endif
