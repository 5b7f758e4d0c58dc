/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Receiver-granted link credits: a port shares its socket's receive
 * buffer among the peer adapters that send it RC (and XRC) requests or
 * UD and UC datagrams, so that what all of them may have in flight to it
 * together stays within the buffer, however many they are (as an
 * InfiniBand switch port's buffer is shared by every link credit it
 * grants).
 *
 * The responder puts the grant in the credit count of the AETH of every
 * ACK and atomic ACK it sends (IBTA Vol. 1 9.7.5.2.1, the 5-bit code of
 * table 45: 0, 1, 2, 3, 4, 6, 8, ... 32768, 31 for none), counted here
 * in units of EMU_LINK_GRANT_UNIT bytes of the buffer as the kernel
 * charges them (wire/rcvbuf.h).  The requester's link credits
 * (transport/link_credits.h) take the grant as their budget to that
 * peer; an ACK with code 31 leaves the budget as it is (a responder that
 * grants nothing in particular).  Datagrams have no ACK: their grant goes
 * in a credit update of their own (transport/datagram_credits.h), in
 * bytes.
 *
 * A peer's RC traffic and its datagrams are two grantees.  A grantee is
 * active from its first grant until it has been granted none for
 * EMU_LINK_GRANT_IDLE_NS.  Each active grantee is granted an equal share of
 * the pool (half the buffer; the other half holds the responses to this
 * port's own READs, first copies resent after a timeout, and the packets
 * a peer sends before its grant shrinks), never more than the pool
 * minus what the others hold: the share shrinks as peers join and a
 * newcomer gets what the others give back, ACK by ACK; it regrows as
 * peers go idle.  A requester starts, and starts again after an idle
 * spell, from EMU_LINK_GRANT_INITIAL units (transport/link_credits.c).
 *
 * Engine thread, the adapter lock held.
 */
#ifndef MLX4EMU_TRANSPORT_LINK_GRANTS_H
#define MLX4EMU_TRANSPORT_LINK_GRANTS_H

#include <stdint.h>

enum emu_link_grant_kind {
	EMU_LINK_GRANT_RC,	/* RC and XRC requests: the AETH's credit count */
	EMU_LINK_GRANT_DATAGRAM,	/* UD and UC: a credit update */
};

/* bytes of receive buffer per unit of a grant */
#define EMU_LINK_GRANT_UNIT 4096u
/* a peer that sent nothing for this long holds no share */
#define EMU_LINK_GRANT_IDLE_NS 200000000ull
/* units a requester may use before its first grant (per peer: with 16
 * adapters starting at once, 16 of these are 512 KiB) */
#define EMU_LINK_GRANT_INITIAL 8u

/* The AETH credit code granting the peer at `addr` (IPv4, host order)
 * its share of `port`'s buffer; counts the peer active from now. */
uint8_t emu_link_grant_code(unsigned port, uint32_t addr, uint64_t now_ns);

/* Bytes of `port`'s buffer the datagrams of the peer at `addr` may have
 * in flight to it: their share; counts them active from now. */
uint64_t emu_link_grant_datagram_bytes(unsigned port, uint32_t addr, uint64_t now_ns);

/* Bytes of buffer an AETH credit code grants, or UINT64_MAX for code 31
 * (no grant). */
uint64_t emu_link_grant_bytes(uint8_t code);

#endif
