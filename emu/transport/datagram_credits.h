/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Link credits for datagrams: UD and UC packets between adapters.  They
 * have no ACK to carry a grant (RC's, transport/link_credits.h), yet a
 * busy port's socket would drop them when its receive buffer is full,
 * where an InfiniBand link never drops for want of buffer.  So each side
 * of a link between two adapters' ports counts, as InfiniBand's flow
 * control packets do (IBTA Vol. 1 7.9.4: FCTBS, FCCL), cumulative byte
 * totals that survive a lost packet:
 *
 *  - the sender charges every UD and UC packet it puts on the link what
 *    the peer's kernel charges its socket for it (emu_link_truesize() of
 *    the datagram) and keeps `sent`, the total since the link began;
 *  - the receiver adds the same charge to `drained` for every such packet
 *    it reads from its socket, and sends a credit update (drained, share)
 *    whenever its sender has used a quarter of its share since the last
 *    one (at once, before it reads on):
 *    the sender may have `sent` up to drained + share; share is its part
 *    of the port's buffer (transport/link_grants.h);
 *  - a sender that finds no room sends a credit request carrying `sent`;
 *    the receiver, having read everything sent before it (one socket,
 *    in order), takes drained = max(drained, sent), so the charges of
 *    packets lost on the way come back, and answers with an update.
 *
 * A UD WQE (or a UC message, charged whole) that finds no room stays at
 * the head of its send queue (its QP waits) until an update makes room;
 * the QPs waiting on one link are woken in the order they came.  A link
 * with nothing in flight admits any one message whatever its size.
 *
 * Both packets are BTH (opcode EMU_OP_DATAGRAM_CREDIT, P_Key 0xffff,
 * DestQP 0) and 24 bytes: kind (1 request, 2 update), 3 reserved, the
 * sender's session (32 bits: a new process at the same address starts a
 * new count), then two 64-bit values: request (sent, 0), update (drained,
 * share); all big-endian.  A request is sent again every
 * EMU_DGRAM_ASK_AGAIN_NS while unanswered.  A peer that answers none for
 * EMU_DGRAM_HOQ_LIFE_NS (a process stopped or gone) drains nothing, as a
 * port that is down or stalled does: as an InfiniBand switch discards a
 * packet that waited at the head of its queue for the head-of-queue
 * lifetime (IBTA Vol. 1 18.2.5.4), the sender's adapter then discards
 * what it would send there, counted as lost on send, and its WQEs
 * complete, until the peer answers one of the requests still sent every
 * EMU_DGRAM_PROBE_NS.  An update never
 * makes the sender count more drained than it sent, nor a share beyond
 * half its own port's buffer (the pool): a forged one can stall a link for
 * one request's round trip, never make it overrun by more than that.
 *
 * Packets to QP1 (the CM's MADs, few and small) and multicast (flooded
 * on the segment, wire/vxlan.h) are not paced; with
 * MLX4EMU_DATAGRAM_CREDITS off nothing is (a receiver still answers the
 * requests of peers that pace theirs).
 *
 * Engine thread or command context, the adapter lock held.
 */
#ifndef MLX4EMU_TRANSPORT_DATAGRAM_CREDITS_H
#define MLX4EMU_TRANSPORT_DATAGRAM_CREDITS_H

#include <stdbool.h>
#include <stdint.h>

#include "wire/link.h"
#include "wire/roce.h"

/* an unanswered credit request goes again after this long */
#define EMU_DGRAM_ASK_AGAIN_NS 2000000ull
/* a peer that answered no request for this long drains nothing */
#define EMU_DGRAM_HOQ_LIFE_NS 500000000ull
/* how often such a peer is asked whether it drains again */
#define EMU_DGRAM_PROBE_NS 50000000ull
/* links and sources tracked at most; beyond them a link is unpaced and a
 * source's requests are answered without keeping its count */
#define EMU_DGRAM_TRACKED_MAX 4096

/* Whether a packet of this opcode to this QPN is paced by datagram
 * credits. */
static inline bool emu_dgram_paced(uint8_t opcode, uint32_t dest_qpn)
{
	uint8_t tr = opcode & 0xe0;

	return tr == EMU_TR_UC || (tr == EMU_TR_UD && dest_qpn != 1);
}

/*
 * Takes `bytes` (the sum of emu_link_truesize() of its packets) of the
 * link from `port` to the adapter at `addr` (IPv4, host order) for a
 * message of QP `qpn`.  0: taken, send it now.  EAGAIN: no room; the QP
 * is queued on the link and scheduled (emu_qp_schedule) when an update
 * makes room, to try again.  EHOSTUNREACH: the peer drains nothing
 * (above): discard the message, count its packets lost on send
 * (emu_link_count_discarded), complete its WQE.
 */
int emu_dgram_credits_take(unsigned port, uint32_t addr, uint64_t bytes, uint32_t qpn);

/* A paced packet (emu_dgram_paced) was read from `rx->port`'s socket. */
void emu_dgram_credits_count(const struct emu_rx *rx);

/* A packet of opcode EMU_OP_DATAGRAM_CREDIT arrived. */
void emu_dgram_credits_receive(const struct emu_rx *rx);

/* Sends the updates due and the requests to send again (engine thread);
 * returns the packets queued. */
int emu_dgram_credits_poll(uint64_t now_ns);

/* When emu_dgram_credits_poll() has work next (CLOCK_MONOTONIC ns, 0 now,
 * UINT64_MAX none). */
uint64_t emu_dgram_credits_deadline(void);

#endif
