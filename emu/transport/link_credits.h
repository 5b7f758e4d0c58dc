/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Link-level flow control between adapters.  An InfiniBand link never
 * drops a packet for want of buffer (credit-based flow control per
 * virtual lane), nor does RoCE on a lossless Ethernet (PFC); the UDP
 * socket of a peer's port does, when its receive buffer is full.  So a
 * port may have, per peer adapter, at most a budget of bytes of that
 * buffer in flight across all its RC (and XRC) QPs: what the peer grants
 * in the credit count of its ACKs (its buffer shared among all the
 * adapters that send to it, transport/link_grants.h), and never more
 * than a quarter of the port's own receive buffer (the peer's is set
 * the same way) nor one QP's window of 4 KiB packets; each packet is
 * charged what the kernel charges for a packet of the QP's path MTU
 * (wire/rcvbuf.h).  What a port has in flight to all its peers
 * together stays within half its own receive buffer, where the READ
 * responses among it arrive (the other half is what it grants its
 * peers).
 *
 * A QP holds credits for its PSNs from the oldest unacknowledged one
 * (una_psn) up to `end`: a request packet takes one PSN's worth when it
 * is first sent, a READ request one per response packet it asks for
 * (the responses arrive in this port's buffer).  Credits come back as
 * ACKs and responses move una_psn on; at a local ACK timeout and an RNR
 * NAK the packets in flight are given up and their credits return (the
 * retransmission takes them again); a PSN sequence NAK keeps them for
 * the go-back-N resend; an SQ flush, RESET or destroy returns all.
 *
 * A QP that finds the budget spent, or other QPs waiting for it, joins
 * the peer's queue and is served in turn (FIFO): when credits return,
 * the QP at its head sends, at most EMU_LINK_TURN new PSNs, then goes
 * to the back if it has more while others wait.  A budget with nothing
 * in flight admits any one request (a READ larger than the budget still
 * goes, alone).
 *
 * Engine thread or command context, the adapter lock held.
 */
#ifndef MLX4EMU_TRANSPORT_LINK_CREDITS_H
#define MLX4EMU_TRANSPORT_LINK_CREDITS_H

#include <stdbool.h>
#include <stdint.h>

/* new PSNs a waiting QP may send in its turn */
#define EMU_LINK_TURN 16

struct emu_conn;
struct emu_link_peer;

/* A QP's share of its peer's link (part of struct emu_conn). */
struct emu_link_claim {
	struct emu_link_peer *peer;	/* NULL: not attached yet */
	uint32_t end;		/* credits held for PSNs [una_psn, end) */
	uint32_t held;		/* PSNs they cover */
	uint32_t cost;		/* bytes charged per PSN */
	uint32_t turn;		/* PSNs taken in this turn */
	bool waiting;		/* in the peer's queue */
	struct emu_conn *wnext;
};

/*
 * May the conn send a packet that takes PSNs [psn, psn + n) (n > 1: a
 * READ request for n response packets)?  true when its credits are held
 * or taken now; false when it must wait: it is then in its peer's queue
 * and conn_link_serve() sends for it when its turn comes.
 */
bool conn_link_admit(struct emu_conn *c, uint32_t psn, uint32_t n);
/* An ACK of the peer carried the AETH credit code `code`: the budget to
 * that peer becomes what it grants (transport/link_grants.h), within
 * this port's own limit. */
void conn_link_grant(struct emu_conn *c, uint8_t code, uint64_t now_ns);
/* una_psn moved on: the credits of the PSNs acknowledged return. */
void conn_link_sync(struct emu_conn *c);
/* The packets in flight are given up (timeout, RNR NAK): their credits
 * return; a resend takes them again. */
void conn_link_give_up(struct emu_conn *c);
/* The conn sends no more (flush, RESET, destroy): every credit returns
 * and it leaves the queue. */
void conn_link_forget(struct emu_conn *c);
/* Lets the queued QPs send as far as the returned credits allow (engine
 * thread); returns the QPs served. */
int conn_link_serve(uint64_t now_ns);
/* A QP waits and credits came back (the engine should not sleep). */
bool conn_link_due(void);

#endif
