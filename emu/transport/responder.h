/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The responder (responder.c): request packets to execution at this
 * adapter's QP.  Engine thread, the adapter lock held. */
#ifndef MLX4EMU_TRANSPORT_RESPONDER_H
#define MLX4EMU_TRANSPORT_RESPONDER_H

#include "wire/link.h"
#include "wire/roce.h"

struct emu_conn;

/* Sets the responder of a new conn from its QP. */
void resp_init(struct emu_conn *c);
/* A request packet (RC, UC or XRC) for the conn. */
void resp_receive(struct emu_conn *c, const struct emu_rx *rx,
		  const struct emu_bth *bth, const struct emu_ext_layout *l);
/* Sends the ACK the conn owes (ack_coalesce.c). */
void resp_send_ack(struct emu_conn *c);
/* A guarded access of the responder faulted: the QP goes to ERR. */
void resp_fault(struct emu_conn *c);

#endif
