/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The responder's coalesced ACKs: one per connection after a receive
 * batch.  Engine thread, the adapter lock held. */
#ifndef MLX4EMU_TRANSPORT_ACK_COALESCE_H
#define MLX4EMU_TRANSPORT_ACK_COALESCE_H

struct emu_conn;

/* The conn owes an ACK: sent by the next conn_flush_acks() (at once when
 * 64 conns already wait). */
void conn_ack_later(struct emu_conn *c);
/* Packets arrived and were handled: sends the ACKs owed. */
void conn_flush_acks(void);
/* The conn ends: it owes nothing any more. */
void conn_ack_forget(struct emu_conn *c);

#endif
